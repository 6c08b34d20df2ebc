/* The generators' planner is the public one (arenaref/place.h): the default strategy and
 * "greedy-by-size" named give equal plans (the bytes every preset had before strategies, which
 * test_planner's hand-worked offsets pin down), every strategy's plan certifies (0) on every
 * family at tiny and small and is no smaller than the lower bound, a named strategy is recorded
 * in meta, and an unknown one is refused. The knobs (recompute, expert/micro skew, KV pages) change
 * the plan, every strategy's knobbed plan certifies 0, every fault gives its verdicts under both
 * checks (the exact oracle agrees), and other families refuse them. Knobs that interleave
 * lifetimes (micro and expert skew, KV pages over epochs) stagger their planes, and there greedy
 * by size leaves the bound on some preset while the search does no worse. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaref/place.h"
#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

/* A knob's plans: every strategy's clean plan certifies 0; every fault (that the plan is big
 * enough for) gives the verdicts its plan expects under the certificate and the exact oracle. */
static void check_knob(ar_workload_options_t const *knob, size_t at_least) {
    char const *const *faults = ar_workload_faults();
    size_t checked = 0;
    for (int s = 0; s < ar_place_strategy_count_k; ++s) {
        ar_workload_options_t options = *knob;
        options.strategy = ar_place_strategy_name((ar_place_strategy_t)s);
        ar_plan_t *plan = NULL;
        ar_workload_info_t info;
        expect_int_eq(ar_workload_generate(&options, &plan, &info, NULL), ar_status_success_k);
        if (!plan) continue;
        ar_certify_report_t report;
        expect_int_eq(ar_certify(plan, NULL, &report), ar_status_success_k);
        expect_u64_eq(report.verdict, 0);
        expect_u64_ge(info.workspace_bytes, info.lower_bound_bytes);
        ar_plan_free(plan);
    }
    for (size_t f = 0; f == 0 || faults[f - 1]; ++f) { /* f 0: clean; then faults[f - 1] */
        ar_workload_options_t options = *knob;
        options.fault = f ? faults[f - 1] : NULL;
        ar_workload_info_t after;
        ar_plan_t *plan = NULL;
        if (ar_workload_generate(&options, &plan, &after, NULL) != ar_status_success_k)
            continue; /* a fault the plan is too small for */
        ++checked;
        ar_certify_report_t report;
        ar_certify_options_t exact;
        ar_certify_options_default(&exact);
        exact.exact = true;
        expect_int_eq(ar_certify(plan, NULL, &report), ar_status_success_k);
        expect_u64_eq(report.verdict, after.expect);
        expect_int_eq(ar_certify(plan, &exact, &report), ar_status_success_k);
        expect_u64_eq(report.verdict, after.has_expect_exact ? after.expect_exact : after.expect);
        ar_plan_free(plan);
    }
    expect_true(checked >= at_least);
}

/* A plane's lifetime in the plan's phase order (ar_place_from_plan); false when it has none. */
static bool plane_lifetime(ar_plan_t const *plan, char const *name, ar_place_buffer_t *out) {
    ar_place_csv_t *csv = NULL;
    char message[256];
    if (ar_place_from_plan(plan, &csv, message, sizeof message) != ar_status_success_k)
        return false;
    bool found = false;
    for (size_t i = 0; i < csv->problem.count && !found; ++i)
        if (strcmp(csv->ids[i], name) == 0) {
            *out = csv->rows[i];
            found = true;
        }
    ar_place_csv_free(csv);
    return found;
}

/* a and b live together only in part: a starts first, b starts while a lives, a ends first. */
static bool overlap_in_part(ar_place_buffer_t a, ar_place_buffer_t b) {
    return a.lower < b.lower && b.lower < a.upper && a.upper < b.upper;
}

/* Where the strategies differ: greedy by size leaves the bound, and the search does no worse
 * (nor better than the bound). */
static void check_strategies_differ(ar_workload_options_t options) {
    ar_workload_info_t greedy, search;
    ar_plan_t *plan = NULL;
    expect_int_eq(ar_workload_generate(&options, &plan, &greedy, NULL), ar_status_success_k);
    ar_plan_free(plan);
    options.strategy = "search";
    plan = NULL;
    expect_int_eq(ar_workload_generate(&options, &plan, &search, NULL), ar_status_success_k);
    ar_plan_free(plan);
    expect_u64_gt(greedy.workspace_bytes, greedy.lower_bound_bytes);
    expect_u64_le(search.workspace_bytes, greedy.workspace_bytes);
    expect_u64_ge(search.workspace_bytes, search.lower_bound_bytes);
}

int main(void) {
    char const *presets[] = {"tiny", "small"};
    for (char const *const *family = ar_workload_families(); *family; ++family)
        for (int p = 0; p < 2; ++p) {
            ar_workload_options_t options = {.family = *family, .preset = presets[p], .seed = 2};
            ar_plan_t *base = NULL;
            ar_workload_info_t info;
            expect_int_eq(ar_workload_generate(&options, &base, &info, NULL), ar_status_success_k);
            for (int s = 0; s < ar_place_strategy_count_k; ++s) {
                options.strategy = ar_place_strategy_name((ar_place_strategy_t)s);
                ar_plan_t *plan = NULL;
                ar_workload_info_t with;
                expect_int_eq(ar_workload_generate(&options, &plan, &with, NULL),
                              ar_status_success_k);
                if (!plan) continue;
                if (s == ar_place_greedy_by_size_k)
                    expect_true(ar_plan_equal(base, plan));
                else
                    expect_str_contains(plan->meta_json, options.strategy);
                expect_u64_ge(with.workspace_bytes, with.lower_bound_bytes);
                expect_u64_eq(with.lower_bound_bytes, info.lower_bound_bytes);
                ar_certify_report_t report;
                expect_int_eq(ar_certify(plan, NULL, &report), ar_status_success_k);
                expect_u64_eq(report.verdict, 0);
                ar_plan_free(plan);
            }
            ar_plan_free(base);
        }
    /* The recompute knob (training): only the layer inputs are saved, so the bound falls, and
     * the segments' recomputed activations live in staggered windows: the last segment's
     * from before the next one's recompute to after it. */
    for (int p = 0; p < 2; ++p) {
        ar_workload_options_t plain = {.family = "training", .preset = presets[p], .seed = 1};
        ar_workload_info_t before, after;
        ar_plan_t *plan = NULL;
        expect_int_eq(ar_workload_generate(&plain, &plan, &before, NULL), ar_status_success_k);
        ar_plan_free(plan);
        plain.recompute = 1;
        plan = NULL;
        expect_int_eq(ar_workload_generate(&plain, &plan, &after, NULL), ar_status_success_k);
        expect_u64_lt(after.lower_bound_bytes, before.lower_bound_bytes);
        if (plan) {
            expect_str_contains(plan->meta_json, "\"recompute\":true");
            char last[32], next[32];
            uint64_t segments = p == 0 ? 2 : 4; /* 2 layers: 1 each; 12 layers: 3 each */
            snprintf(last, sizeof last, "bwd.segment.%" PRIu64, segments - 1);
            snprintf(next, sizeof next, "bwd.segment.%" PRIu64, segments - 2);
            ar_place_buffer_t a, b;
            expect_true(plane_lifetime(plan, last, &a));
            expect_true(plane_lifetime(plan, next, &b));
            expect_true(overlap_in_part(a, b));
        }
        ar_plan_free(plan);
        check_knob(&plain, 10);
    }
    ar_workload_options_t other = {.family = "decoder", .recompute = 1};
    ar_plan_t *refused = NULL;
    expect_int_eq(ar_workload_generate(&other, &refused, NULL, NULL), ar_status_invalid_argument_k);
    expect_ptr_null(refused);
    other = (ar_workload_options_t){.family = "decoder", .expert_skew = 30};
    expect_int_eq(ar_workload_generate(&other, &refused, NULL, NULL), ar_status_invalid_argument_k);
    other = (ar_workload_options_t){.family = "moe", .expert_skew = 91};
    expect_int_eq(ar_workload_generate(&other, &refused, NULL, NULL), ar_status_invalid_argument_k);
    /* There the strategies differ: greedy by size leaves the bound (moe tiny, seed 0, skew 30:
     * 1.1128 of it), and the search does no worse than greedy by size. */
    check_strategies_differ((ar_workload_options_t){.family = "moe", .seed = 0, .expert_skew = 30});
    expect_int_eq(ar_workload_generate(&other, &refused, NULL, NULL), ar_status_invalid_argument_k);
    expect_ptr_null(refused);
    for (int p = 0; p < 2; ++p)
        for (uint64_t seed = 1; seed <= 2; ++seed) {
            ar_workload_options_t options = {.family = "moe", .preset = presets[p], .seed = seed};
            ar_plan_t *even = NULL, *skewed = NULL;
            ar_workload_info_t before, after;
            expect_int_eq(ar_workload_generate(&options, &even, &before, NULL),
                          ar_status_success_k);
            options.expert_skew = 60;
            expect_int_eq(ar_workload_generate(&options, &skewed, &after, NULL),
                          ar_status_success_k);
            if (!even || !skewed) continue;
            expect_false(ar_plan_equal(even, skewed)); /* packed experts move the weights */
            /* every expert has its own hidden and activated planes, two experts' live at once */
            expect_u64_gt(after.lower_bound_bytes, before.lower_bound_bytes);
            expect_str_contains(skewed->meta_json, "\"expert_skew\":60,\"expert_phases\":true");
            /* Each expert's hidden plane is its own, and expert 1's up runs before expert 0's
             * down: their lifetimes overlap in part. */
            ar_place_buffer_t first, second;
            expect_true(plane_lifetime(skewed, "prefill.expert_h.0", &first));
            expect_true(plane_lifetime(skewed, "prefill.expert_h.1", &second));
            expect_true(overlap_in_part(first, second));
            expect_false(plane_lifetime(even, "prefill.expert_h.0", &first));
            ar_plan_free(even);
            ar_plan_free(skewed);
            check_knob(&options, 8);
        }
    /* A paged KV cache (decoder, moe): the plan changes, and a page above seq is refused. */
    char const *const paged[] = {"decoder", "moe"};
    for (int f = 0; f < 2; ++f)
        for (int p = 0; p < 2; ++p) {
            ar_workload_options_t options = {.family = paged[f], .preset = presets[p], .seed = 3};
            ar_plan_t *whole = NULL, *pages = NULL;
            expect_int_eq(ar_workload_generate(&options, &whole, NULL, NULL), ar_status_success_k);
            options.kv_page = 4;
            expect_int_eq(ar_workload_generate(&options, &pages, NULL, NULL), ar_status_success_k);
            if (whole && pages) {
                expect_false(ar_plan_equal(whole, pages));
                expect_str_contains(pages->meta_json, "\"kv_page\":4");
            }
            ar_plan_free(whole);
            ar_plan_free(pages);
            check_knob(&options, 8);
        }
    /* Paged over epochs, request groups come and go: each group's pages are their own plane,
     * and some two groups' lifetimes overlap only in part (admitted at a < c, finishing at
     * b < d, c < b); with one epoch, the one page plane of decoded tokens stays. */
    for (int f = 0; f < 2; ++f)
        for (uint64_t seed = 0; seed <= 1; ++seed) {
            ar_workload_options_t options = {
                .family = paged[f], .preset = "small", .seed = seed, .kv_page = 4, .epochs = 4};
            ar_plan_t *plan = NULL;
            expect_int_eq(ar_workload_generate(&options, &plan, NULL, NULL), ar_status_success_k);
            if (!plan) continue;
            expect_str_contains(plan->meta_json, "\"kv_page\":4,\"kv_waves\":4,\"kv_groups\":");
            int staggered = 0;
            char a_name[32], b_name[32];
            for (int a = 0; a < 4; ++a)
                for (int b = a + 1; b <= 4; ++b)
                    for (int c = a + 1; c < b; ++c)
                        for (int d = b + 1; d <= 4; ++d) {
                            ar_place_buffer_t first, second;
                            snprintf(a_name, sizeof a_name, "kv_pages.%d.%d", a, b);
                            snprintf(b_name, sizeof b_name, "kv_pages.%d.%d", c, d);
                            if (!plane_lifetime(plan, a_name, &first) ||
                                !plane_lifetime(plan, b_name, &second))
                                continue;
                            expect_true(overlap_in_part(first, second));
                            ++staggered;
                        }
            expect_true(staggered > 0);
            ar_place_buffer_t one;
            expect_false(plane_lifetime(plan, "kv_pages", &one));
            ar_plan_free(plan);
            check_knob(&options, 8);
            options.epochs = 1;
            plan = NULL;
            expect_int_eq(ar_workload_generate(&options, &plan, NULL, NULL), ar_status_success_k);
            if (!plan) continue;
            expect_true(plane_lifetime(plan, "kv_pages", &one));
            expect_false(plane_lifetime(plan, "kv_pages.0.1", &one));
            expect_true(strstr(plan->meta_json, "kv_waves") == NULL);
            ar_plan_free(plan);
        }
    /* There greedy by size leaves the bound (decoder small, seed 0, 4 epochs, pages of 4:
     * 1.0734 of it) and the search does no worse. */
    check_strategies_differ((ar_workload_options_t){
        .family = "decoder", .preset = "small", .seed = 0, .kv_page = 4, .epochs = 4});
    /* Uneven pipeline micro-batches: a one-forward-one-backward schedule, each micro-batch's
     * stash its own plane, so micro-batch 0's stash and 1's are live together only in part. */
    for (int p = 0; p < 2; ++p) {
        ar_workload_options_t options = {.family = "pipeline", .preset = presets[p], .seed = 1};
        ar_plan_t *even = NULL, *uneven = NULL;
        expect_int_eq(ar_workload_generate(&options, &even, NULL, NULL), ar_status_success_k);
        options.micro_skew = 90;
        expect_int_eq(ar_workload_generate(&options, &uneven, NULL, NULL), ar_status_success_k);
        if (even && uneven) {
            expect_false(ar_plan_equal(even, uneven));
            expect_str_contains(uneven->meta_json, "\"micro_skew\":90,\"schedule\":\"1f1b\"");
            ar_place_buffer_t first, second;
            expect_true(plane_lifetime(uneven, "pp.stash.0", &first));
            expect_true(plane_lifetime(uneven, "pp.stash.1", &second));
            expect_true(overlap_in_part(first, second));
            expect_false(plane_lifetime(even, "pp.stash.0", &first));
        }
        ar_plan_free(even);
        ar_plan_free(uneven);
        check_knob(&options, 8);
    }
    /* There the strategies differ: greedy by size leaves the bound (pipeline small, seed 0,
     * skew 60: 1.0514 of it), and the search does no worse than greedy by size. */
    check_strategies_differ((ar_workload_options_t){
        .family = "pipeline", .preset = "small", .seed = 0, .micro_skew = 60});
    /* Micro skew unrolls the micro-batches: at most 32, and their bodies within the limit. */
    other = (ar_workload_options_t){.family = "pipeline", .micro = 33, .micro_skew = 10};
    expect_int_eq(ar_workload_generate(&other, &refused, NULL, NULL), ar_status_invalid_argument_k);
    other = (ar_workload_options_t){.family = "pipeline",
                                    .batch = 256,
                                    .micro = 32,
                                    .epochs = 9000,
                                    .decode = 9000,
                                    .micro_skew = 10};
    expect_int_eq(ar_workload_generate(&other, &refused, NULL, NULL), ar_status_invalid_argument_k);
    other = (ar_workload_options_t){.family = "decoder", .micro_skew = 10};
    expect_int_eq(ar_workload_generate(&other, &refused, NULL, NULL), ar_status_invalid_argument_k);
    other = (ar_workload_options_t){.family = "pipeline", .micro_skew = 91};
    expect_int_eq(ar_workload_generate(&other, &refused, NULL, NULL), ar_status_invalid_argument_k);
    other = (ar_workload_options_t){.family = "training", .kv_page = 4};
    expect_int_eq(ar_workload_generate(&other, &refused, NULL, NULL), ar_status_invalid_argument_k);
    other = (ar_workload_options_t){.family = "decoder", .kv_page = 9}; /* tiny: seq 8 */
    expect_int_eq(ar_workload_generate(&other, &refused, NULL, NULL), ar_status_invalid_argument_k);
    expect_ptr_null(refused);

    ar_workload_options_t bad = {.family = "decoder", .strategy = "tetris"};
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    expect_int_eq(ar_workload_generate(&bad, &plan, NULL, &error), ar_status_invalid_argument_k);
    expect_ptr_null(plan);
    expect_str_contains(error.message, "tetris");
    return expect_finish();
}
