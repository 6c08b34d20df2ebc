/* The portfolio on threads (ar_place_options_t.threads): on a tick clock, search and lns with
 * two workers are never higher than with one, valid, and their height the same every run; three
 * and four workers valid too; more than AR_PLACE_THREADS_MAX refused. Random problems and a
 * perfect packing of 300 with a piece out (where search's second worker, lns, goes lower).
 * Labelled `threads`, so ThreadSanitizer runs it. */
#include <stdio.h>
#include <stdlib.h>

#include "arenaref/workloads.h"
#include "expect.h"
#include "place_test_util.h"

static uint64_t place(ar_place_problem_t const *problem, ar_place_strategy_t strategy,
                      unsigned threads, double limit, uint64_t *offsets) {
    ar_place_options_t options;
    ar_place_options_default(&options);
    options.strategy = strategy;
    options.threads = threads;
    options.time_limit_s = limit;
    options.clock_tick_s = 1e-4;
    ar_place_result_t result;
    expect_int_eq(ar_place(problem, &options, offsets, &result), ar_status_success_k);
    expect_true(ar_place_check(problem, offsets, 0, NULL));
    expect_u64_eq(result.height, ar_place_height(problem, offsets));
    expect_u64_ge(result.height, result.lower_bound);
    return result.height;
}

static void expect_two_no_higher(ar_place_problem_t const *problem, char const *name, double limit,
                                 uint64_t *offsets) {
    for (int s = ar_place_search_k; s <= ar_place_lns_k; ++s) {
        uint64_t one = place(problem, (ar_place_strategy_t)s, 1, limit, offsets);
        uint64_t two = place(problem, (ar_place_strategy_t)s, 2, limit, offsets);
        uint64_t again = place(problem, (ar_place_strategy_t)s, 2, limit, offsets);
        printf("%s, %s: one thread %llu, two %llu\n", name,
               ar_place_strategy_name((ar_place_strategy_t)s), (unsigned long long)one,
               (unsigned long long)two);
        expect_u64_le(two, one);
        expect_u64_eq(again, two);
    }
}

int main(void) {
    enum { N = 300 };
    static ar_place_buffer_t buffers[N];
    static uint64_t offsets[N], planted[N];
    uint64_t state = 31;
    for (int round = 0; round < 12; ++round) {
        size_t n = 20 + place_test_below(&state, N - 20);
        place_test_random(&state, buffers, n, 2 + place_test_below(&state, 40),
                          1 + place_test_below(&state, 100), round % 3 == 0, round % 4 == 1);
        ar_place_problem_t problem = {buffers, n, NULL};
        expect_two_no_higher(&problem, "random", 0.1, offsets);
        for (unsigned threads = 3; threads <= 4; ++threads)
            place(&problem, ar_place_lns_k, threads, 0.05, offsets);
    }
    require_true(ar_workload_packing(N, 4, 1 << 20, 1000, buffers, planted) == ar_status_success_k);
    ar_place_problem_t holed = {buffers + 1, N - 1, NULL};
    expect_two_no_higher(&holed, "packing of 300 less a piece", 0.5, offsets);
    ar_place_options_t options;
    ar_place_options_default(&options);
    options.strategy = ar_place_search_k;
    options.threads = AR_PLACE_THREADS_MAX + 1;
    ar_place_result_t result;
    expect_int_eq(ar_place(&holed, &options, offsets, &result), ar_status_invalid_argument_k);
    return expect_finish();
}
