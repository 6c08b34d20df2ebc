/* The in-place knob and its fault. With the knob on, every layer's ln1_scale phase updates
 * x_norm1 in place (`becomes` x_scaled1), and the plan is certified by both checks under every
 * strategy and beside the other knobs; the fault (qkv still reads x_norm1) gives its verdict by
 * construction, rule D's, from the certificate and the exact oracle alike, and names the
 * update. Off, no plane has `becomes`; training and flat refuse the knob and its fault. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaref/place.h"
#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

static char const *const fault = "in-place-input-read-later";

static void verdicts(ar_plan_t const *plan, ar_certify_report_t *report,
                     ar_certify_report_t *exact) {
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    expect_int_eq(ar_certify(plan, &options, report), ar_status_success_k);
    options.exact = true;
    expect_int_eq(ar_certify(plan, &options, exact), ar_status_success_k);
}

/* Clean with the knob: certified by both; `updates` planes, one a stage; the meta says so. */
static void check_clean(ar_workload_options_t options, size_t stages) {
    options.in_place = 1;
    ar_plan_t *plan = NULL;
    ar_workload_info_t info;
    ar_plan_error_t error;
    if (ar_workload_generate(&options, &plan, &info, &error) != ar_status_success_k) {
        expect_fail_("%s in place: %s", options.family, error.message);
        return;
    }
    ar_certify_report_t report, exact;
    verdicts(plan, &report, &exact);
    if (report.verdict != 0 || exact.verdict != 0)
        expect_fail_("%s in place L%" PRIu64 ": certificate %s exact %s (%s)", options.family,
                     options.layers, report.verdict_text, exact.verdict_text, report.message);
    else
        ++expect_checks_;
    expect_u64_eq(info.expect, 0);
    expect_size_eq(plan->updates_count, stages);
    expect_str_contains(plan->meta_json, "\"in_place\":true");
    expect_u64_eq(report.executed_launches, info.executed_launches);
    expect_u64_eq(report.instances, info.instances);
    ar_plan_free(plan);
}

/* The fault: its verdict by construction (2 + n + k, past every launch), from both checks, at
 * a qkv instance, naming the update; the same plan whether or not the knob is asked for. */
static void check_fault(ar_workload_options_t options) {
    options.fault = fault;
    ar_plan_t *plan = NULL, *asked = NULL;
    ar_workload_info_t info;
    ar_plan_error_t error;
    if (ar_workload_generate(&options, &plan, &info, &error) != ar_status_success_k) {
        expect_fail_("%s %s: %s", options.family, fault, error.message);
        return;
    }
    ar_certify_report_t report, exact;
    verdicts(plan, &report, &exact);
    expect_u64_gt(info.expect, 2 + info.launches);
    if (report.verdict != info.expect || exact.verdict != info.expect || info.has_expect_exact)
        expect_fail_("%s %s L%" PRIu64 ": certificate %s exact %s, expected %s", options.family,
                     fault, options.layers, report.verdict_text, exact.verdict_text,
                     info.expect_text);
    else
        ++expect_checks_;
    expect_str_contains(report.message, "updated in place");
    expect_str_contains(report.message, ".qkv");
    expect_str_contains(report.message, ".x_scaled1");
    options.in_place = 1;
    expect_int_eq(ar_workload_generate(&options, &asked, NULL, NULL), ar_status_success_k);
    if (asked) expect_true(ar_plan_equal(plan, asked));
    ar_plan_free(asked);
    ar_plan_free(plan);
}

int main(void) {
    char const *const families[] = {"decoder", "moe", "encoder", "pipeline"};
    size_t const stages[] = {2, 2, 1, 1};
    char const *const presets[] = {"tiny", "small"};
    uint64_t const layers[] = {0, 1, 17};
    for (size_t f = 0; f < 4; ++f) {
        expect_true(ar_workload_fault_applies(families[f], fault));
        for (size_t p = 0; p < 2; ++p)
            for (size_t l = 0; l < 3; ++l)
                for (uint64_t seed = 1; seed <= 2; ++seed) {
                    ar_workload_options_t options = {.family = families[f],
                                                     .preset = presets[p],
                                                     .layers = layers[l],
                                                     .seed = seed};
                    check_clean(options, stages[f]);
                    check_fault(options);
                    /* Off: no plane updates in place. */
                    ar_plan_t *plan = NULL;
                    expect_int_eq(ar_workload_generate(&options, &plan, NULL, NULL),
                                  ar_status_success_k);
                    if (plan) expect_size_eq(plan->updates_count, 0);
                    ar_plan_free(plan);
                }
        /* Every strategy. */
        for (int s = 0; s < ar_place_strategy_count_k; ++s)
            check_clean(
                (ar_workload_options_t){.family = families[f],
                                        .strategy = ar_place_strategy_name((ar_place_strategy_t)s)},
                stages[f]);
    }
    /* Beside the other knobs: paged KV over epochs, uneven experts. */
    ar_workload_options_t paged = {.family = "decoder", .kv_page = 4, .epochs = 4, .decode = 8};
    check_clean(paged, 2);
    check_fault(paged);
    ar_workload_options_t skewed = {.family = "moe", .expert_skew = 30, .seed = 3};
    check_clean(skewed, 2);
    check_fault(skewed);
    /* The pipeline's stash copy runs in ln1's phase before the scale (one ln1 run a layer),
     * and with micro skew in each micro-batch's own phase. */
    ar_workload_options_t micro = {.family = "pipeline", .micro_skew = 30, .micro = 4, .seed = 5};
    check_clean(micro, 1);
    check_fault(micro);

    /* Families without the knob refuse it, with a message, and the fault does not apply. */
    char const *const without[] = {"training", "flat"};
    for (size_t f = 0; f < 2; ++f) {
        ar_workload_options_t options = {.family = without[f], .in_place = 1};
        ar_plan_t *plan = NULL;
        ar_plan_error_t error;
        expect_int_eq(ar_workload_generate(&options, &plan, NULL, &error),
                      ar_status_invalid_argument_k);
        expect_ptr_null(plan);
        expect_str_contains(error.message, "in-place");
        expect_false(ar_workload_fault_applies(without[f], fault));
        options = (ar_workload_options_t){.family = without[f], .fault = fault};
        expect_int_eq(ar_workload_generate(&options, &plan, NULL, &error),
                      ar_status_invalid_argument_k);
        expect_str_contains(error.message, "does not apply");
    }
    ar_workload_options_t bad = {.family = "decoder", .in_place = 2};
    ar_plan_t *plan = NULL;
    expect_int_eq(ar_workload_generate(&bad, &plan, NULL, NULL), ar_status_invalid_argument_k);
    expect_ptr_null(plan);
    return expect_finish();
}
