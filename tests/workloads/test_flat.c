/* The flat family has a runtime export's shape: one phase per op (plus inputs and outputs),
 * no repeats, one reference over every launch; each op's phase carries the values it reads
 * and declares the one it writes, and its words are those planes' bases and its weights
 * (globals). --ops and --globals set the counts; the other families refuse them. Every size
 * certifies under both checks; reads reach back at most 32 ops. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

/* The index of the plane of phase `ph` at base `v`, or SIZE_MAX. */
static size_t plane_at(ar_plan_t const *plan, ar_phase_t const *ph, uint64_t v) {
    for (size_t j = 0; j < ph->planes_count; ++j)
        if (plan->planes[ph->planes_first + j].base == v) return ph->planes_first + j;
    return SIZE_MAX;
}

static bool is_global(ar_plan_t const *plan, uint64_t v) {
    for (size_t g = 0; g < plan->globals_count; ++g)
        if (plan->globals[g].base == v) return true;
    return false;
}

static void check_shape(uint64_t ops, uint64_t globals, uint64_t seed) {
    ar_workload_options_t options = {
        .family = "flat", .ops = ops, .globals = globals, .seed = seed};
    ar_plan_t *plan = NULL;
    ar_workload_info_t info;
    ar_plan_error_t error;
    if (ar_workload_generate(&options, &plan, &info, &error)) {
        expect_fail_("flat %" PRIu64 " x %" PRIu64 ": %s", ops, globals, error.message);
        return;
    }
    expect_size_eq(plan->phases_count, ops + 2);
    expect_size_eq(plan->launches_count, ops + 2);
    expect_size_eq(plan->globals_count, globals);
    expect_size_eq(plan->repeats_count, 0);
    expect_size_eq(plan->schedule_count, 1);
    expect_size_eq(plan->schedule[0].count, ops + 2);
    uint64_t skips = 0, weights = 0;
    for (size_t l = 1; l + 1 < plan->launches_count; ++l) {
        ar_launch_t const *launch = &plan->launches[l];
        ar_phase_t const *ph = &plan->phases[launch->phase];
        expect_size_eq((size_t)launch->phase, l);
        size_t fresh = 0, carried = 0;
        for (size_t j = 0; j < ph->planes_count; ++j)
            plan->planes[ph->planes_first + j].carried ? ++carried : ++fresh;
        expect_size_eq(fresh, 1);
        expect_true(carried == 1 || carried == 2);
        skips += carried == 2;
        size_t planes_named = 0;
        for (size_t w = 0; w < launch->words_count; ++w) {
            uint64_t v = plan->words[launch->words_first + w];
            if (plane_at(plan, ph, v) != SIZE_MAX)
                ++planes_named;
            else {
                expect_true(is_global(plan, v));
                ++weights;
            }
        }
        expect_size_eq(planes_named, ph->planes_count); /* each plane named once */
        /* the output is the last word and the phase's fresh plane */
        size_t out = plane_at(plan, ph, plan->words[launch->words_first + launch->words_count - 1]);
        expect_true(out != SIZE_MAX && !plan->planes[out].carried);
    }
    if (ops >= 1000) { /* the calibration: about 1.25 skips in 4 ops, 1.25 weights per op */
        expect_u64_gt(skips * 100, ops * 15);
        expect_u64_lt(skips * 100, ops * 35);
        if (globals) {
            expect_u64_gt(weights * 100, ops * 110);
            expect_u64_lt(weights * 100, ops * 140);
        }
    }
    ar_certify_options_t certify;
    ar_certify_options_default(&certify);
    ar_certify_report_t report;
    expect_int_eq(ar_certify(plan, &certify, &report), ar_status_success_k);
    expect_u64_eq(report.verdict, 0);
    expect_u64_eq(report.instances, ops + 2);
    certify.exact = true;
    expect_int_eq(ar_certify(plan, &certify, &report), ar_status_success_k);
    expect_u64_eq(report.verdict, 0);
    ar_plan_free(plan);
}

int main(void) {
    check_shape(1, 1, 0);
    check_shape(2, 5, 1);
    check_shape(40, 3, 2);
    check_shape(1000, 10, 3);
    check_shape(3000, 2000, 4);
    /* the presets */
    uint64_t const ops[] = {30, 1000, 10000, 100000}, globals[] = {10, 100, 1000, 10000};
    char const *const presets[] = {"tiny", "small", "medium", "large"};
    for (int p = 0; p < 4; ++p) {
        ar_workload_options_t options = {.family = "flat", .preset = presets[p]};
        ar_plan_t *plan = NULL;
        ar_workload_info_t info;
        require_true(ar_workload_generate(&options, &plan, &info, NULL) == ar_status_success_k);
        expect_u64_eq(info.launches, ops[p] + 2);
        expect_size_eq(plan->globals_count, globals[p]);
        expect_str_contains(plan->meta_json, "\"family\":\"flat\"");
        expect_u64_ge(info.workspace_bytes, info.lower_bound_bytes);
        ar_plan_free(plan);
    }
    /* refusals */
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    ar_workload_options_t bad = {.family = "decoder", .ops = 10};
    expect_int_eq(ar_workload_generate(&bad, &plan, NULL, &error), ar_status_invalid_argument_k);
    expect_str_contains(error.message, "flat family only");
    bad = (ar_workload_options_t){.family = "flat", .ops = (1u << 22) + 1};
    expect_int_eq(ar_workload_generate(&bad, &plan, NULL, &error), ar_status_invalid_argument_k);
    expect_str_contains(error.message, "ops must be");
    bad = (ar_workload_options_t){.family = "flat", .fault = "carried-clobbered"};
    expect_int_eq(ar_workload_generate(&bad, &plan, NULL, &error), ar_status_invalid_argument_k);
    expect_str_contains(error.message, "does not apply to the flat family");
    expect_ptr_null(plan);
    return expect_finish();
}
