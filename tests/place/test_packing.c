/* Perfect packings (ar_workload_packing): the max-live bound is the strip's height, the planted
 * offsets are a valid placement of that height, the same arguments give the same problem and
 * another seed another, every buffer holds bytes, and arguments it cannot meet are refused. */
#include <string.h>

#include "arenaref/workloads.h"
#include "expect.h"
#include "place_test_util.h"

int main(void) {
    enum { N = 5000 };
    static ar_place_buffer_t buffers[N], again[N];
    static uint64_t offsets[N], offsets_again[N];
    size_t sizes[] = {1, 2, 100, 1000, N};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
        size_t n = sizes[k];
        uint64_t height = 1 << 20, span = 1000;
        require_true(ar_workload_packing(n, 42, height, span, buffers, offsets) ==
                     ar_status_success_k);
        ar_place_problem_t problem = {buffers, n, NULL};
        expect_u64_eq(ar_place_lower_bound(&problem), height);
        expect_u64_eq(ar_place_height(&problem, offsets), height);
        expect_true(ar_place_check(&problem, offsets, 0, NULL));
        if (n <= 1000) expect_true(place_test_valid(buffers, n, offsets, 0));
        for (size_t i = 0; i < n; ++i) {
            expect_true(buffers[i].size > 0 && buffers[i].lower < buffers[i].upper);
            expect_true(buffers[i].upper <= span);
        }
        require_true(ar_workload_packing(n, 42, height, span, again, offsets_again) ==
                     ar_status_success_k);
        expect_true(memcmp(buffers, again, n * sizeof *buffers) == 0);
        expect_true(memcmp(offsets, offsets_again, n * sizeof *offsets) == 0);
        if (n >= 100) {
            require_true(ar_workload_packing(n, 43, height, span, again, offsets_again) ==
                         ar_status_success_k);
            expect_false(memcmp(buffers, again, n * sizeof *buffers) == 0);
        }
    }
    /* Tiny strips: every unit cell a buffer. */
    require_true(ar_workload_packing(12, 7, 3, 4, buffers, offsets) == ar_status_success_k);
    ar_place_problem_t cells = {buffers, 12, NULL};
    expect_u64_eq(ar_place_lower_bound(&cells), 3);
    expect_true(ar_place_check(&cells, offsets, 0, NULL));
    for (size_t i = 0; i < 12; ++i)
        expect_true(buffers[i].size == 1 && buffers[i].upper - buffers[i].lower == 1);
    expect_int_eq(ar_workload_packing(13, 7, 3, 4, buffers, offsets), ar_status_invalid_argument_k);
    expect_int_eq(ar_workload_packing(0, 7, 3, 4, buffers, offsets), ar_status_invalid_argument_k);
    expect_int_eq(ar_workload_packing(5, 7, 0, 4, buffers, offsets), ar_status_invalid_argument_k);
    expect_int_eq(ar_workload_packing(5, 7, 3, 0, buffers, offsets), ar_status_invalid_argument_k);
    expect_int_eq(ar_workload_packing(5, 7, AR_PLACE_MAX_BYTES, 4, buffers, offsets),
                  ar_status_invalid_argument_k);
    return expect_finish();
}
