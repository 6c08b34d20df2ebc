/* The search on perfect packings (ar_workload_packing: the optimum is the max-live bound): of
 * 300 buffers it reaches the bound and proves it, the time limit kept on a tick clock so the
 * work done follows from the input alone; lns, whose exact search goes first at this size,
 * too. And on a capacity of the bound less one byte it fits nowhere. The search cuts such
 * problems apart first (strips.c); its tree alone, asked directly, places them too. */
#include <string.h>

#include "../../ref/src/place/engine.h"
#include "arenaref/workloads.h"
#include "expect.h"
#include "place_test_util.h"

int main(void) {
    enum { N = 300 };
    static ar_place_buffer_t buffers[N];
    static uint64_t planted[N], offsets[N];
    uint64_t const height = 1 << 20;
    uint64_t const seeds[] = {1, 3, 4, 5};
    for (size_t k = 0; k < sizeof seeds / sizeof *seeds; ++k) {
        require_true(ar_workload_packing(N, seeds[k], height, 1000, buffers, planted) ==
                     ar_status_success_k);
        ar_place_problem_t problem = {buffers, N, NULL};
        ar_place_options_t options;
        ar_place_options_default(&options);
        options.strategy = ar_place_search_k;
        options.time_limit_s = 10;
        options.clock_tick_s = 1e-5; /* a million clock reads: far more than it needs */
        ar_place_result_t result;
        expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
        expect_u64_eq(result.height, height);
        expect_true(result.optimal);
        expect_true(ar_place_check(&problem, offsets, 0, NULL));
        expect_true(place_test_valid(buffers, N, offsets, 0));
        /* The same run again: the same offsets (the restarts are seeded). */
        static uint64_t again[N];
        ar_place_result_t second;
        expect_int_eq(ar_place(&problem, &options, again, &second), ar_status_success_k);
        expect_true(memcmp(offsets, again, sizeof again) == 0);
        expect_u64_eq(second.nodes, result.nodes);
        /* The tree alone: no row pinned, a node budget and no deadline to speak of. */
        static uint64_t free_pins[N], tree[N];
        for (size_t i = 0; i < N; ++i) free_pins[i] = UINT64_MAX;
        uint64_t nodes = 0;
        arp_clock_t clock = arp_clock_make(0);
        expect_int_eq(arp_search_decide_rows(&problem, free_pins, height, &clock,
                                             arp_clock_now(&clock) + 3600, (uint64_t)1 << 24, tree,
                                             &nodes),
                      arp_found_k);
        expect_u64_eq(ar_place_height(&problem, tree), height);
        expect_true(place_test_valid(buffers, N, tree, 0));
        expect_true(nodes > 0);
        options.strategy = ar_place_lns_k;
        options.max_moves = 100;
        expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
        expect_u64_eq(result.height, height);
        expect_true(ar_place_check(&problem, offsets, 0, NULL));
        options.strategy = ar_place_search_k;
        options.capacity = height - 1;
        expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
        expect_false(result.fits);
        expect_true(ar_place_check(&problem, offsets, 0, NULL));
    }
    return expect_finish();
}
