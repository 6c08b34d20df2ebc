/* A placement's plan (ar_place_to_plan) certifies exactly when the placement is valid: on
 * random placements, valid ones (from every heuristic) and invalid ones (an offset moved onto
 * another buffer, or off its alignment), the certificate's verdict is 0 exactly when the
 * independent all-pairs checker accepts, and the library's sweep (ar_place_check) agrees.
 * The plan survives a JSON round trip, and export (ar_place_from_plan) gives back each buffer's
 * offset and size. */
#include <string.h>

#include "expect.h"
#include "place_test_util.h"

static uint64_t verdict_of(ar_place_problem_t const *problem, uint64_t const *offsets,
                           uint64_t alignment, bool roundtrip) {
    ar_plan_t *plan = NULL;
    char message[256];
    ar_status_t status = ar_place_to_plan(problem, NULL, offsets, alignment, 0x10000, &plan,
                                          message, sizeof message);
    expect_int_eq(status, ar_status_success_k);
    if (status != ar_status_success_k) return UINT64_MAX;
    if (roundtrip) {
        char *text = NULL;
        size_t length = 0;
        expect_int_eq(ar_plan_write_string(plan, &text, &length, NULL), ar_status_success_k);
        ar_plan_t *loaded = NULL;
        expect_int_eq(ar_plan_load_buffer(text, length, &loaded, NULL), ar_status_success_k);
        expect_true(loaded && ar_plan_equal(plan, loaded));
        ar_plan_free(loaded);
        free(text);
    }
    ar_certify_report_t report;
    expect_int_eq(ar_certify(plan, NULL, &report), ar_status_success_k);
    ar_plan_free(plan);
    return report.verdict;
}

int main(void) {
    uint64_t state = 777;
    enum { MAX = 120 };
    static ar_place_buffer_t buffers[MAX];
    static uint64_t offsets[MAX];
    int valid = 0, invalid = 0;
    for (int round = 0; round < 600; ++round) {
        size_t n = 1 + place_test_below(&state, round < 300 ? 12 : MAX);
        bool aligned = round % 5 == 2;
        place_test_random(&state, buffers, n, 2 + place_test_below(&state, 30),
                          1 + place_test_below(&state, 64), round % 3 == 0, aligned);
        ar_place_problem_t problem = {buffers, n, NULL};
        ar_place_options_t options;
        ar_place_options_default(&options);
        options.strategy = (ar_place_strategy_t)(round % ar_place_search_k);
        uint64_t alignment = round % 7 == 3 ? 4 : 0;
        options.alignment = alignment;
        expect_int_eq(ar_place(&problem, &options, offsets, NULL), ar_status_success_k);
        /* Then spoil it, half the time: a buffer onto another's offset, or by a few bytes. */
        int spoil = (int)place_test_below(&state, 4);
        if (spoil == 1) {
            size_t i = place_test_below(&state, n), j = place_test_below(&state, n);
            offsets[i] = offsets[j];
        } else if (spoil == 2) {
            offsets[place_test_below(&state, n)] += 1 + place_test_below(&state, 40);
        } else if (spoil == 3) {
            size_t i = place_test_below(&state, n);
            offsets[i] = offsets[i] >= 8 ? offsets[i] - 8 : 0;
        }
        /* The plan has one alignment: give it the floor, and only rows within it. */
        for (size_t i = 0; i < n; ++i) buffers[i].alignment = 0;
        bool expected = place_test_valid(buffers, n, offsets, alignment);
        expect_int_eq(ar_place_check(&problem, offsets, alignment, NULL), expected);
        uint64_t verdict = verdict_of(&problem, offsets, alignment, round % 50 == 0);
        expect_int_eq(verdict == 0, expected);
        if (expected)
            ++valid;
        else
            ++invalid;
        if (expected && round % 10 == 0) {
            ar_plan_t *plan = NULL;
            char message[256];
            ar_place_csv_t *back = NULL;
            expect_int_eq(ar_place_to_plan(&problem, NULL, offsets, alignment, 0, &plan, message,
                                           sizeof message),
                          ar_status_success_k);
            expect_int_eq(ar_place_from_plan(plan, &back, message, sizeof message),
                          ar_status_success_k);
            if (back) {
                uint64_t low = UINT64_MAX;
                for (size_t i = 0; i < n; ++i)
                    if (buffers[i].size && buffers[i].lower < buffers[i].upper && offsets[i] < low)
                        low = offsets[i];
                for (size_t r = 0; r < back->problem.count; ++r) {
                    size_t i = (size_t)strtoull(back->ids[r] + 1, NULL, 10);
                    expect_u64_eq(back->offsets[r], offsets[i] - low);
                    expect_u64_eq(back->rows[r].size, buffers[i].size);
                }
                expect_true(ar_place_check(&back->problem, back->offsets, 0, NULL));
            }
            ar_place_csv_free(back);
            ar_plan_free(plan);
        }
    }
    /* Both kinds were exercised. */
    expect_true(valid > 100);
    expect_true(invalid > 100);
    return expect_finish();
}
