/* Every knob, at its edges: one layer (the layers repeat runs once), few+1 layers (hulls),
 * one sequence of one token, several epochs and micro-batches, other models, other seeds, and
 * each of those with every in-place update the family makes. For
 * each combination and family the clean plan is certified by both checks, and each fault
 * (where the plan is big enough for it) gives its expected verdicts. Bad knobs are refused
 * with a message, never a crash. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

static int cases = 0;

static void check(ar_workload_options_t const *options) {
    ar_plan_t *plan = NULL;
    ar_workload_info_t info;
    ar_plan_error_t error;
    ar_status_t status = ar_workload_generate(options, &plan, &info, &error);
    if (status) {
        bool too_small = options->fault &&
                         strcmp(options->fault, "delta-off-bank-last-layer") == 0 &&
                         options->layers == 1;
        if (!too_small)
            expect_fail_("%s %s L%" PRIu64 " B%" PRIu64 " S%" PRIu64 ": %s", options->family,
                         options->fault ? options->fault : "clean", options->layers, options->batch,
                         options->seq, error.message);
        else
            expect_str_contains(error.message, "at least 2 layers");
        return;
    }
    ++cases;
    ar_certify_options_t certify;
    ar_certify_options_default(&certify);
    ar_certify_report_t report, exact;
    expect_int_eq(ar_certify(plan, &certify, &report), ar_status_success_k);
    certify.exact = true;
    expect_int_eq(ar_certify(plan, &certify, &exact), ar_status_success_k);
    if (report.verdict != info.expect || exact.verdict != info.expect_exact)
        expect_fail_("%s %s L%" PRIu64 " B%" PRIu64 " S%" PRIu64 " D%" PRIu64 " E%" PRIu64
                     " M%" PRIu64 " I%" PRIu64 ": certificate %s exact %s, expected %s / %s (%s)",
                     options->family, options->fault ? options->fault : "clean", options->layers,
                     options->batch, options->seq, options->decode, options->epochs, options->micro,
                     options->in_place, report.verdict_text, exact.verdict_text, info.expect_text,
                     info.expect_exact_text, report.message);
    else
        ++expect_checks_;
    if (!options->fault) {
        expect_u64_eq(report.executed_launches, info.executed_launches);
        expect_u64_eq(report.instances, info.instances);
    }
    ar_plan_free(plan);
}

int main(void) {
    uint64_t const layers[] = {1, 2, 17};
    uint64_t const batches[] = {1, 3};
    uint64_t const seqs[] = {1, 9};
    char const *const *families = ar_workload_families();
    char const *const *faults = ar_workload_faults();
    for (size_t f = 0; families[f]; ++f)
        for (size_t l = 0; l < 3; ++l)
            for (size_t b = 0; b < 2; ++b)
                for (size_t s = 0; s < 2; ++s) {
                    ar_workload_options_t options = {.family = families[f],
                                                     .layers = layers[l],
                                                     .batch = batches[b],
                                                     .seq = seqs[s],
                                                     .decode = 3,
                                                     .epochs = 2,
                                                     .micro = 1 + 2 * b,
                                                     .seed = 11 * l + 3 * b + s};
                    /* knob off, then every in-place update the family makes */
                    for (uint64_t in_place = 0; in_place <= AR_WORKLOAD_IN_PLACE_ALL;
                         in_place += AR_WORKLOAD_IN_PLACE_ALL) {
                        options.in_place = in_place;
                        options.fault = NULL;
                        check(&options);
                        for (size_t k = 0; faults[k]; ++k) {
                            if (!ar_workload_fault_applies(families[f], faults[k])) continue;
                            options.fault = faults[k];
                            check(&options);
                        }
                    }
                }
    /* Other models on the dense families. */
    char const *const dense[] = {"decoder", "training", "pipeline", "encoder"};
    for (char const *const *m = ar_workload_models(); *m; ++m)
        for (size_t f = 0; f < 4; ++f) {
            ar_workload_options_t options = {
                .family = dense[f], .model = *m, .layers = 2, .batch = 2, .seq = 4, .decode = 2};
            check(&options);
        }

    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    ar_workload_options_t bad = {.family = "decoder", .batch = 1u << 21};
    expect_int_eq(ar_workload_generate(&bad, &plan, NULL, &error), ar_status_invalid_argument_k);
    expect_ptr_null(plan);
    expect_str_contains(error.message, "batch");
    bad = (ar_workload_options_t){.family = NULL};
    expect_int_eq(ar_workload_generate(&bad, &plan, NULL, &error), ar_status_invalid_argument_k);
    expect_int_eq(ar_workload_generate(NULL, &plan, NULL, &error), ar_status_invalid_argument_k);
    expect_int_eq(ar_workload_generate(&bad, NULL, NULL, NULL), ar_status_invalid_argument_k);
    expect_false(ar_workload_fault_applies("decoder", "no-such-fault"));
    expect_false(ar_workload_fault_applies("no-such-family", "stray-pointer"));
    printf("%d plans checked\n", cases);
    return expect_finish();
}
