/* Buffers of several rows (ar_place_problem_t.groups). On random problems where some buffers
 * live over two or three disjoint intervals (their rows shuffled among the others, labels not
 * their first rows), every strategy's placement gives a buffer's rows one offset, passes
 * ar_place_check and an independent all-pairs checker, is no lower than the max-live bound
 * (checked against a count over rows), and its plan (ar_place_to_plan) certifies 0; the plan
 * read back (ar_place_from_plan) has one name per buffer and a valid placement, and as a CSV
 * (ids unique, a group column) reads again to the same buffers; a name declared fresh three
 * times reads back as ids a, a.2, a.3 where a plane is named a.1. Spoiled
 * placements, a buffer moved onto another or one row of a buffer moved alone, are caught by the
 * check, the checker and the certificate (or refused as a plan: a name has one base). On small
 * problems the search's height is the optimum over every order of the buffers; planted tilings
 * whose time cuts are rejoined into buffers fit their width. A hand-made problem where a
 * buffer's hull would cover another shows the rows are not merged, and malformed groups are
 * refused with the rows named. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expect.h"
#include "place_test_util.h"

enum { MAX = 160 };

/* The independent checker: every pair of rows, straight from the definition. */
static bool grouped_valid(ar_place_buffer_t const *rows, size_t const *groups, size_t n,
                          uint64_t const *offsets, uint64_t alignment) {
    for (size_t i = 0; i < n; ++i) {
        ar_place_buffer_t const *x = &rows[i];
        if (!x->size || x->lower >= x->upper) continue;
        uint64_t a = x->alignment > alignment ? x->alignment : alignment;
        if (a > 1 && offsets[i] % a) return false;
        for (size_t j = i + 1; j < n; ++j) {
            ar_place_buffer_t const *y = &rows[j];
            if (!y->size || y->lower >= y->upper) continue;
            if (groups[i] == groups[j]) {
                if (offsets[i] != offsets[j]) return false;
                continue;
            }
            bool live = x->lower < y->upper && y->lower < x->upper;
            bool bytes = offsets[i] < offsets[j] + y->size && offsets[j] < offsets[i] + x->size;
            if (live && bytes) return false;
        }
    }
    return true;
}

/* The max-live bound counted per time step: each row adds its size while it lives. */
static uint64_t bound_by_steps(ar_place_buffer_t const *rows, size_t n, uint64_t horizon) {
    uint64_t best = 0;
    for (uint64_t t = 0; t < horizon; ++t) {
        uint64_t live = 0;
        for (size_t i = 0; i < n; ++i)
            if (rows[i].lower <= t && t < rows[i].upper) live += rows[i].size;
        if (live > best) best = live;
    }
    return best;
}

/* `buffers` buffers over [0, horizon), about a third of them of two or three disjoint rows;
 * rows shuffled; each row's label is its buffer's number (a permutation, so not its first row).
 * Returns the rows. */
static size_t random_grouped(uint64_t *state, ar_place_buffer_t *rows, size_t *groups,
                             size_t buffers, uint64_t horizon, uint64_t max_size, bool aligned) {
    size_t n = 0;
    for (size_t b = 0; b < buffers && n + 3 <= MAX; ++b) {
        uint64_t size = 1 + place_test_below(state, max_size);
        if (place_test_below(state, 12) == 0) size = 0;
        uint64_t align = aligned ? (uint64_t)1 << place_test_below(state, 4) : 0;
        size_t parts = place_test_below(state, 3) == 0 ? 2 + place_test_below(state, 2) : 1;
        /* parts disjoint intervals: sorted cut points, every other gap skipped */
        uint64_t at = place_test_below(state, horizon / 2 + 1);
        for (size_t k = 0; k < parts && at < horizon; ++k) {
            uint64_t length = place_test_below(state, horizon / 3 + 1);
            if (length == 0 && place_test_below(state, 3)) length = 1;
            uint64_t end = at + length < horizon ? at + length : horizon;
            rows[n] = (ar_place_buffer_t){at, end, size, align};
            groups[n++] = b;
            at = end + place_test_below(state, 4); /* 0: touching */
        }
    }
    for (size_t i = n; i > 1; --i) { /* shuffle rows with their labels */
        size_t j = place_test_below(state, i);
        ar_place_buffer_t t = rows[i - 1];
        rows[i - 1] = rows[j], rows[j] = t;
        size_t g = groups[i - 1];
        groups[i - 1] = groups[j], groups[j] = g;
    }
    return n;
}

static uint64_t verdict_of(ar_place_problem_t const *problem, uint64_t const *offsets,
                           uint64_t alignment, ar_status_t *status) {
    ar_plan_t *plan = NULL;
    char message[256];
    *status = ar_place_to_plan(problem, NULL, offsets, alignment, 0x10000, &plan, message,
                               sizeof message);
    if (*status != ar_status_success_k) return UINT64_MAX;
    ar_certify_report_t report;
    expect_int_eq(ar_certify(plan, NULL, &report), ar_status_success_k);
    ar_plan_free(plan);
    return report.verdict;
}

/* The plan read back: one name per buffer that holds bytes, rows of a name at one offset, and
 * the placement valid as the plan's problem. */
static void check_round_trip(ar_place_problem_t const *problem, uint64_t const *offsets) {
    ar_plan_t *plan = NULL;
    ar_place_csv_t *back = NULL;
    char message[256];
    expect_int_eq(ar_place_to_plan(problem, NULL, offsets, 0, 0, &plan, message, sizeof message),
                  ar_status_success_k);
    if (!plan) return;
    expect_int_eq(ar_place_from_plan(plan, &back, message, sizeof message), ar_status_success_k);
    if (back) {
        size_t names = 0, held = 0;
        bool seen[MAX] = {false};
        for (size_t i = 0; i < problem->count; ++i) {
            ar_place_buffer_t const *r = &problem->buffers[i];
            size_t g = problem->groups[i];
            if (r->size && r->lower < r->upper && !seen[g]) seen[g] = true, ++held;
        }
        for (size_t r = 0; r < back->problem.count; ++r)
            names += !back->groups || back->groups[r] == r;
        expect_size_eq(names, held);
        expect_true(ar_place_check(&back->problem, back->offsets, 0, NULL));
        expect_true(!back->groups == !back->group_names);
        /* As a CSV it reads again (ids unique), to the same buffers. */
        char *text = NULL;
        size_t length = 0;
        FILE *out = open_memstream(&text, &length);
        expect_true(ar_place_csv_write(out, back, back->offsets));
        fclose(out);
        ar_place_csv_t *again = NULL;
        ar_place_csv_error_t error;
        expect_int_eq(ar_place_csv_parse(text, length, &again, &error), ar_status_success_k);
        if (again) {
            expect_size_eq(again->problem.count, back->problem.count);
            expect_true(!again->groups == !back->groups);
            for (size_t r = 0; again->groups && back->groups && r < back->problem.count; ++r)
                expect_size_eq(again->groups[r], back->groups[r]);
        }
        ar_place_csv_free(again);
        free(text);
    }
    ar_place_csv_free(back);
    ar_plan_free(plan);
}

/* Lowest-gap placement of the buffers in `order` (labels), rows of one label together. */
static uint64_t lowest_in_order(ar_place_buffer_t const *rows, size_t const *groups, size_t n,
                                size_t const *order, size_t buffers) {
    uint64_t at[8] = {0}, height = 0;
    bool placed[8] = {false};
    for (size_t k = 0; k < buffers; ++k) {
        size_t b = order[k];
        uint64_t size = 0, align = 1, here = 0;
        bool holds = false;
        for (size_t i = 0; i < n; ++i)
            if (groups[i] == b) {
                size = rows[i].size;
                align = rows[i].alignment > 1 ? rows[i].alignment : 1;
                holds |= rows[i].size && rows[i].lower < rows[i].upper;
            }
        if (!holds) continue;
        for (bool moved = true; moved;) {
            moved = false;
            for (size_t i = 0; i < n; ++i)
                for (size_t j = 0; j < n; ++j) {
                    ar_place_buffer_t const *x = &rows[i], *y = &rows[j];
                    if (groups[i] != b || !placed[groups[j]] || groups[j] == b) continue;
                    if (!y->size || x->lower >= x->upper || y->lower >= y->upper) continue;
                    if (x->lower < y->upper && y->lower < x->upper &&
                        here < at[groups[j]] + y->size && at[groups[j]] < here + size) {
                        here = (at[groups[j]] + y->size + align - 1) / align * align;
                        moved = true;
                    }
                }
        }
        at[b] = here;
        placed[b] = true;
        if (here + size > height) height = here + size;
    }
    return height;
}

static uint64_t best_over_orders(ar_place_buffer_t const *rows, size_t const *groups, size_t n,
                                 size_t *order, size_t k, size_t buffers) {
    if (k == buffers) return lowest_in_order(rows, groups, n, order, buffers);
    uint64_t best = UINT64_MAX;
    for (size_t i = k; i < buffers; ++i) {
        size_t t = order[k];
        order[k] = order[i], order[i] = t;
        uint64_t h = best_over_orders(rows, groups, n, order, k + 1, buffers);
        if (h < best) best = h;
        order[i] = order[k], order[k] = t;
    }
    return best;
}

/* A W x T rectangle cut by random guillotine cuts into pieces (base[] where each lies); pieces
 * cut apart in time from one piece keep its base and size, and some are joined back into one
 * buffer (a label shared), so a placement of height W exists. */
static size_t planted(uint64_t *state, ar_place_buffer_t *rows, size_t *groups, uint64_t *base,
                      size_t n, uint64_t w, uint64_t t) {
    rows[0] = (ar_place_buffer_t){0, t, w, 0};
    base[0] = 0;
    groups[0] = 0;
    size_t count = 1;
    for (int tries = 0; count < n && tries < 10000; ++tries) {
        size_t i = place_test_below(state, count);
        ar_place_buffer_t *b = &rows[i];
        bool in_time = place_test_below(state, 2) == 0;
        uint64_t span = in_time ? b->upper - b->lower : b->size / 16;
        if (span < 2) continue;
        /* A piece already joined keeps its size: only time cuts for it. */
        bool joined = false;
        for (size_t j = 0; j < count; ++j) joined |= j != i && groups[j] == groups[i];
        if (joined && !in_time) continue;
        uint64_t cut = 1 + place_test_below(state, span - 1);
        ar_place_buffer_t *c = &rows[count];
        *c = *b;
        base[count] = base[i];
        groups[count] = count;
        if (in_time) {
            b->upper = b->lower + cut;
            c->lower = b->upper;
            if (place_test_below(state, 3) == 0) groups[count] = groups[i]; /* rejoined */
        } else {
            b->size = cut * 16;
            c->size -= b->size;
            base[count] += b->size;
        }
        ++count;
    }
    return count;
}

static void refused(ar_place_buffer_t const *rows, size_t const *groups, size_t n,
                    char const *words) {
    ar_place_problem_t problem = {rows, n, groups};
    char message[256] = "";
    expect_false(ar_place_problem_valid(&problem, message, sizeof message));
    if (!strstr(message, words)) {
        ++expect_failures_;
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", message, words);
    }
    uint64_t offsets[4];
    ar_place_result_t result;
    expect_int_eq(ar_place(&problem, NULL, offsets, &result), ar_status_invalid_argument_k);
}

int main(void) {
    uint64_t state = 4242;
    static ar_place_buffer_t rows[MAX];
    static size_t groups[MAX];
    static uint64_t offsets[MAX], base[MAX];
    int multi = 0, spoiled = 0, split = 0;
    for (int round = 0; round < 300; ++round) {
        uint64_t horizon = 4 + place_test_below(&state, 40);
        bool aligned = round % 4 == 1;
        size_t n = random_grouped(&state, rows, groups, 1 + place_test_below(&state, 50), horizon,
                                  1 + place_test_below(&state, 64), aligned);
        ar_place_problem_t problem = {rows, n, groups};
        char message[256];
        expect_true(ar_place_problem_valid(&problem, message, sizeof message));
        uint64_t bound = ar_place_lower_bound(&problem);
        expect_u64_eq(bound, bound_by_steps(rows, n, horizon));
        for (size_t i = 0; i < n; ++i)
            for (size_t j = i + 1; j < n; ++j) multi += groups[i] == groups[j];
        uint64_t alignment = round % 7 == 3 ? 4 : 0;
        for (int s = 0; s < ar_place_strategy_count_k; ++s) {
            ar_place_options_t options;
            ar_place_options_default(&options);
            options.strategy = (ar_place_strategy_t)s;
            options.time_limit_s = 0.02;
            options.alignment = alignment;
            ar_place_result_t result;
            expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
            expect_true(grouped_valid(rows, groups, n, offsets, alignment));
            expect_true(ar_place_check(&problem, offsets, alignment, NULL));
            expect_u64_eq(result.height, ar_place_height(&problem, offsets));
            expect_u64_ge(result.height, bound);
            if (aligned) continue; /* the plan has one alignment: rows' own ones are not in it */
            ar_status_t status;
            expect_u64_eq(verdict_of(&problem, offsets, alignment, &status), 0);
            expect_int_eq(status, ar_status_success_k);
            if (round % 10 == 0) check_round_trip(&problem, offsets);
        }
        if (aligned || n < 2) continue;
        /* Spoil the last placement: a whole buffer onto another's offset, or one row alone. */
        size_t i = place_test_below(&state, n), j = place_test_below(&state, n);
        bool alone = round % 2 == 0;
        for (size_t r = 0; r < n; ++r)
            if (alone ? r == i : groups[r] == groups[i]) offsets[r] = offsets[j];
        bool expected = grouped_valid(rows, groups, n, offsets, alignment);
        ar_place_violation_t violation;
        expect_int_eq(ar_place_check(&problem, offsets, alignment, &violation), expected);
        ar_status_t status;
        uint64_t verdict = verdict_of(&problem, offsets, alignment, &status);
        if (status == ar_status_invalid_argument_k) {
            /* Refused: one buffer's rows at two offsets, which the check names. */
            expect_false(expected);
            expect_size_eq(groups[violation.first], groups[violation.second]);
            expect_u64_ne(offsets[violation.first], offsets[violation.second]);
            ++split;
        } else {
            expect_int_eq(status, ar_status_success_k);
            expect_int_eq(verdict == 0, expected);
            spoiled += !expected;
        }
    }
    printf("pairs of rows of one buffer %d, spoiled %d, split %d\n", multi, spoiled, split);
    expect_true(multi > 200);
    expect_true(spoiled > 20);
    expect_true(split > 10);

    /* The search's optimum against every order of the buffers, on up to 6 buffers. */
    for (int round = 0; round < 200; ++round) {
        size_t buffers = 2 + place_test_below(&state, 5);
        size_t n = random_grouped(&state, rows, groups, buffers, 4 + place_test_below(&state, 10),
                                  1 + place_test_below(&state, 9), round % 4 == 1);
        size_t order[8];
        for (size_t b = 0; b < buffers; ++b) order[b] = b;
        uint64_t optimum = best_over_orders(rows, groups, n, order, 0, buffers);
        ar_place_problem_t problem = {rows, n, groups};
        ar_place_options_t options;
        ar_place_options_default(&options);
        options.strategy = ar_place_search_k;
        ar_place_result_t result;
        expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
        expect_true(grouped_valid(rows, groups, n, offsets, 0));
        expect_u64_eq(result.height, optimum);
        expect_true(result.optimal);
        if (optimum > 1) {
            options.capacity = optimum - 1;
            expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
            expect_false(result.fits);
        }
    }

    /* Planted tilings with time cuts rejoined into buffers: the search fits the width. */
    int joined = 0;
    for (int round = 0; round < 30; ++round) {
        uint64_t w = 16 * (64 + place_test_below(&state, 192)),
                 t = 32 + place_test_below(&state, 200);
        size_t n = planted(&state, rows, groups, base, 40 + place_test_below(&state, 60), w, t);
        ar_place_problem_t problem = {rows, n, groups};
        expect_true(grouped_valid(rows, groups, n, base, 0));
        for (size_t i = 0; i < n; ++i) joined += groups[i] != i;
        ar_place_options_t options;
        ar_place_options_default(&options);
        options.strategy = ar_place_search_k;
        options.capacity = w;
        options.time_limit_s = 30;
        ar_place_result_t result;
        expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
        expect_true(result.fits);
        expect_true(grouped_valid(rows, groups, n, offsets, 0));
    }
    printf("rows rejoined %d\n", joined);
    expect_true(joined > 100);

    /* x lives before and after y, which lives between: one offset for both when x is two rows
     * (height 10), where x's hull would cover y (height 20). */
    ar_place_buffer_t hand[] = {{0, 2, 10, 0}, {2, 4, 10, 0}, {4, 6, 10, 0}, {1, 5, 6, 0}};
    size_t hand_groups[] = {0, 1, 0, 3};
    ar_place_problem_t problem = {hand, 4, hand_groups};
    expect_u64_eq(ar_place_lower_bound(&problem), 16);
    for (int s = 0; s < ar_place_strategy_count_k; ++s) {
        ar_place_options_t options;
        ar_place_options_default(&options);
        options.strategy = (ar_place_strategy_t)s;
        ar_place_result_t result;
        expect_int_eq(ar_place(&problem, &options, offsets, &result), ar_status_success_k);
        expect_u64_eq(result.height, 16);
        expect_u64_eq(offsets[0], offsets[2]);
        expect_u64_eq(offsets[0], offsets[1]);
    }
    ar_place_buffer_t hull[] = {{0, 6, 10, 0}, {2, 4, 10, 0}, {1, 5, 6, 0}};
    ar_place_problem_t merged = {hull, 3, NULL};
    expect_u64_eq(ar_place_lower_bound(&merged), 26);

    /* A name declared fresh three times reads back as three rows of one group, ids unique:
     * the later rows skip the id a plane is already named ("a.1"). */
    ar_place_buffer_t runs[] = {{0, 2, 8, 0}, {1, 9, 8, 0}, {3, 4, 4, 0},
                                {4, 6, 8, 0}, {7, 8, 4, 0}, {8, 10, 8, 0}};
    size_t runs_groups[] = {0, 1, 2, 0, 4, 0};
    char const *runs_ids[] = {"a", "a.1", "b", "unused", "c", "unused"};
    uint64_t runs_offsets[] = {0, 8, 0, 0, 0, 0};
    ar_place_problem_t fresh = {runs, 6, runs_groups};
    ar_plan_t *plan = NULL;
    char message[256];
    expect_int_eq(
        ar_place_to_plan(&fresh, runs_ids, runs_offsets, 0, 0, &plan, message, sizeof message),
        ar_status_success_k);
    ar_place_csv_t *back = NULL;
    if (plan)
        expect_int_eq(ar_place_from_plan(plan, &back, message, sizeof message),
                      ar_status_success_k);
    if (back) {
        char const *ids[] = {"a", "a.2", "a.3", "a.1", "b", "c"};
        char const *names[] = {"a", "a", "a", "a.1", "b", "c"};
        size_t labels[] = {0, 0, 0, 3, 4, 5};
        expect_size_eq(back->problem.count, 6);
        expect_ptr_not_null(back->groups);
        expect_ptr_not_null(back->group_names);
        for (size_t r = 0; r < 6 && back->problem.count == 6 && back->groups; ++r) {
            expect_str_eq(back->ids[r], ids[r]);
            expect_str_eq(back->group_names[r], names[r]);
            expect_size_eq(back->groups[r], labels[r]);
        }
    }
    ar_place_csv_free(back);
    ar_plan_free(plan);

    /* Malformed groups: the rows named. */
    ar_place_buffer_t bad[] = {{0, 2, 10, 0}, {1, 3, 10, 0}, {3, 4, 12, 0}, {5, 6, 10, 8}};
    size_t overlap[] = {0, 0, 2, 3}, sizes[] = {0, 1, 1, 3}, aligns[] = {0, 1, 2, 0},
           label[] = {0, 1, 2, 4};
    refused(bad, overlap, 4, "rows 0 and 1 are one buffer live at once");
    refused(bad, sizes, 4, "rows 1 and 2 are one buffer with sizes 10 and 12");
    refused(bad, aligns, 4, "rows 0 and 3 are one buffer with alignments 1 and 8");
    refused(bad, label, 4, "row 3: buffer label 4");
    return expect_finish();
}
