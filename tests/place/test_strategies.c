/* Every strategy's placements are valid on random problems (odd rows, alignments included),
 * judged by the independent all-pairs checker; heights are at least the max-live bound; the
 * search finds the optimum on small problems, where the optimum is the least height of
 * lowest-gap placement over every order of the buffers (gravity: any solution, placed in its
 * offset order at lowest gaps, gets no higher), perfect packings with a piece or two dropped
 * (sections without slack, equal sizes and lifetimes: the search's tight branching) too. */
#include <stdio.h>

#include "arenaref/workloads.h"
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

/* The search on a small problem (up to 8 buffers): valid, its height the least over every order
 * and proven so; with that optimum as the capacity it fits, with one byte less it does not (and
 * its placement is still valid). Returns the optimum. */
static uint64_t expect_search_optimal(ar_place_problem_t const *problem, uint64_t *offsets) {
    size_t order[8];
    for (size_t i = 0; i < problem->count; ++i) order[i] = i;
    uint64_t optimum = best_over_orders(problem->buffers, order, 0, problem->count);
    ar_place_options_t options;
    ar_place_options_default(&options);
    options.strategy = ar_place_search_k;
    ar_place_result_t result;
    expect_int_eq(ar_place(problem, &options, offsets, &result), ar_status_success_k);
    expect_true(place_test_valid(problem->buffers, problem->count, offsets, 0));
    expect_u64_eq(result.height, optimum);
    expect_true(result.optimal);
    options.capacity = optimum;
    expect_int_eq(ar_place(problem, &options, offsets, &result), ar_status_success_k);
    expect_true(result.fits);
    expect_u64_le(result.height, optimum);
    if (optimum > 1) {
        options.capacity = optimum - 1;
        expect_int_eq(ar_place(problem, &options, offsets, &result), ar_status_success_k);
        expect_false(result.fits);
        expect_true(place_test_valid(problem->buffers, problem->count, offsets, 0));
    }
    return optimum;
}

/* A W x T rectangle cut by random guillotine cuts (in time or in space) into `n` pieces, each
 * a buffer; base[] gets where each piece was cut from (a placement of height W). */
static size_t planted_tiling(uint64_t *state, ar_place_buffer_t *buffers, uint64_t *base, size_t n,
                             uint64_t w, uint64_t t) {
    buffers[0] = (ar_place_buffer_t){0, t, w, 0};
    base[0] = 0;
    size_t count = 1;
    for (int tries = 0; count < n && tries < 10000; ++tries) {
        size_t i = place_test_below(state, count);
        ar_place_buffer_t *b = &buffers[i];
        bool in_time = place_test_below(state, 2) == 0;
        uint64_t span = in_time ? b->upper - b->lower : b->size / 16;
        if (span < 2) continue;
        uint64_t cut = 1 + place_test_below(state, span - 1);
        ar_place_buffer_t *c = &buffers[count];
        *c = *b;
        base[count] = base[i];
        if (in_time) {
            b->upper = b->lower + cut;
            c->lower = b->upper;
        } else { /* sizes stay multiples of 16 */
            b->size = cut * 16;
            c->size -= b->size;
            base[count] += b->size;
        }
        ++count;
    }
    return count;
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
        ar_place_problem_t problem = {buffers, n, NULL};
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
        ar_place_problem_t problem = {buffers, n, NULL};
        expect_search_optimal(&problem, offsets);
    }
    /* Small perfect packings (a strip of 2..9 bytes over 2..9 times: equal sizes and lifetimes
     * abound), sometimes a piece dropped: the search's optimum is the least over every order,
     * with no capacity and with the optimum (fits) or one less (does not) as the capacity. */
    for (int round = 0; round < 400; ++round) {
        size_t n = 2 + place_test_below(&state, 6);
        uint64_t height = 2 + place_test_below(&state, 8), span = 2 + place_test_below(&state, 8);
        if (height * span < n) continue;
        static uint64_t planted[8];
        require_true(ar_workload_packing(n, (uint64_t)round, height, span, buffers, planted) ==
                     ar_status_success_k);
        if (round % 3 == 0) buffers[place_test_below(&state, n)].size = 0;
        ar_place_problem_t problem = {buffers, n, NULL};
        uint64_t optimum = expect_search_optimal(&problem, offsets);
        if (round % 3 != 0) expect_u64_eq(optimum, height); /* nothing dropped: the strip */
    }
    /* Planted tilings, some pieces removed: a placement within W exists, and the search (a
     * decision with W as the capacity; parts split off as pieces get placed) finds one. Most
     * rounds need the tree: the heuristics alone miss W. */
    int trees = 0;
    for (int round = 0; round < 40; ++round) {
        uint64_t w = 16 * (64 + place_test_below(&state, 192)),
                 t = 32 + place_test_below(&state, 200);
        static uint64_t planted[BIG];
        size_t n =
            planted_tiling(&state, buffers, planted, 40 + place_test_below(&state, 60), w, t);
        for (size_t i = 0; i < n; ++i)
            if (place_test_below(&state, 25) == 0) buffers[i].size = 0; /* dropped: holds nothing */
        ar_place_problem_t problem = {buffers, n, NULL};
        expect_true(place_test_valid(buffers, n, planted, 0));
        expect_u64_le(ar_place_height(&problem, planted), w);
        ar_place_options_t options;
        ar_place_options_default(&options);
        options.strategy = ar_place_search_k;
        options.capacity = w;
        options.time_limit_s = 30;
        ar_place_result_t result;
        expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
        expect_true(result.fits);
        expect_u64_le(result.height, w);
        expect_true(place_test_valid(buffers, n, offsets, 0));
        trees += result.nodes > 0;
    }
    printf("planted tilings: %d of 40 needed the tree\n", trees);
    expect_true(trees >= 15);
    return expect_finish();
}
