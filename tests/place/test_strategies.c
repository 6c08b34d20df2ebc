/* Every strategy's placements are valid on random problems (odd rows, alignments included),
 * judged by the independent all-pairs checker; heights are at least the max-live bound; the
 * search finds the optimum on small problems, where the optimum is the least height of
 * lowest-gap placement over every order of the buffers (gravity: any solution, placed in its
 * offset order at lowest gaps, gets no higher). */
#include "expect.h"
#include "place_test_util.h"

/* Lowest-gap placement in a given order; returns the height. */
static uint64_t lowest_in_order(ar_place_buffer_t const *buffers, size_t const *order, size_t n) {
    uint64_t offsets[8] = {0}, height = 0;
    for (size_t k = 0; k < n; ++k) {
        ar_place_buffer_t const *b = &buffers[order[k]];
        if (!b->size || b->lower >= b->upper) continue;
        uint64_t a = b->alignment > 1 ? b->alignment : 1, at = 0;
        for (bool moved = true; moved;) {
            moved = false;
            for (size_t j = 0; j < k; ++j) {
                ar_place_buffer_t const *o = &buffers[order[j]];
                if (!o->size || o->lower >= o->upper) continue;
                if (o->lower < b->upper && b->lower < o->upper &&
                    at < offsets[order[j]] + o->size && offsets[order[j]] < at + b->size) {
                    at = (offsets[order[j]] + o->size + a - 1) / a * a;
                    moved = true;
                }
            }
        }
        offsets[order[k]] = at;
        if (at + b->size > height) height = at + b->size;
    }
    return height;
}

static uint64_t best_over_orders(ar_place_buffer_t const *buffers, size_t *order, size_t k,
                                 size_t n) {
    if (k == n) return lowest_in_order(buffers, order, n);
    uint64_t best = UINT64_MAX;
    for (size_t i = k; i < n; ++i) {
        size_t t = order[k];
        order[k] = order[i];
        order[i] = t;
        uint64_t h = best_over_orders(buffers, order, k + 1, n);
        if (h < best) best = h;
        order[i] = order[k];
        order[k] = t;
    }
    return best;
}

int main(void) {
    uint64_t state = 12345;
    enum { BIG = 300 };
    static ar_place_buffer_t buffers[BIG];
    static uint64_t offsets[BIG];
    for (int round = 0; round < 200; ++round) {
        size_t n = 1 + place_test_below(&state, round < 100 ? 20 : BIG);
        bool odd = round % 3 == 0, aligned = round % 4 == 1;
        place_test_random(&state, buffers, n, 2 + place_test_below(&state, 40),
                          1 + place_test_below(&state, 100), odd, aligned);
        ar_place_problem_t problem = {buffers, n};
        uint64_t bound = ar_place_lower_bound(&problem);
        for (int s = 0; s < ar_place_strategy_count_k; ++s) {
            ar_place_options_t options;
            ar_place_options_default(&options);
            options.strategy = (ar_place_strategy_t)s;
            options.time_limit_s = 0.01;
            ar_place_result_t result;
            expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
            expect_true(place_test_valid(buffers, n, offsets, 0));
            expect_true(ar_place_check(&problem, offsets, 0, NULL));
            expect_u64_eq(result.height, ar_place_height(&problem, offsets));
            expect_u64_eq(result.lower_bound, bound);
            expect_u64_ge(result.height, bound);
        }
    }
    /* The search's optimum against every order, on problems of up to 7 buffers. */
    for (int round = 0; round < 300; ++round) {
        size_t n = 2 + place_test_below(&state, 6);
        place_test_random(&state, buffers, n, 2 + place_test_below(&state, 8),
                          1 + place_test_below(&state, 9), round % 5 == 0, round % 4 == 1);
        ar_place_problem_t problem = {buffers, n};
        size_t order[8];
        for (size_t i = 0; i < n; ++i) order[i] = i;
        uint64_t optimum = best_over_orders(buffers, order, 0, n);
        ar_place_options_t options;
        ar_place_options_default(&options);
        options.strategy = ar_place_search_k;
        ar_place_result_t result;
        expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
        expect_true(place_test_valid(buffers, n, offsets, 0));
        expect_u64_eq(result.height, optimum);
        expect_true(result.optimal);
        /* With the optimum as capacity it fits; one byte less, it does not. */
        options.capacity = optimum;
        expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
        expect_true(result.fits);
        expect_u64_le(result.height, optimum);
        if (optimum > 1) {
            options.capacity = optimum - 1;
            expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
            expect_false(result.fits);
            expect_true(place_test_valid(buffers, n, offsets, 0));
        }
    }
    return expect_finish();
}
