/* The medium presets are the precision ground truth: each family's medium plan is certified by
 * both the certificate and the exact oracle, the generator's counts of executed launches and
 * phase instances match the certificate's, and the planner really shares the workspace: its
 * size is at least the lower bound (the largest sum of live planes) and below the sum of every
 * plane's size (planes of phases that never live together share bytes). */
#include <inttypes.h>
#include <string.h>
#include <stdio.h>

#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

static uint64_t distinct_plane_bytes(ar_plan_t const *plan) {
    uint64_t total = 0;
    for (size_t i = 0; i < plan->planes_count; ++i) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; ++j)
            seen = strcmp(plan->planes[i].name, plan->planes[j].name) == 0;
        if (!seen) total += plan->planes[i].size;
    }
    return total;
}

int main(void) {
    for (char const *const *f = ar_workload_families(); *f; ++f) {
        ar_workload_options_t options = {.family = *f, .preset = "medium", .seed = 3};
        ar_plan_t *plan = NULL;
        ar_workload_info_t info;
        ar_plan_error_t error;
        ar_status_t status = ar_workload_generate(&options, &plan, &info, &error);
        if (status) {
            expect_fail_("%s: %s", *f, error.message);
            continue;
        }
        ar_certify_options_t certify;
        ar_certify_options_default(&certify);
        ar_certify_report_t report, exact;
        expect_int_eq(ar_certify(plan, &certify, &report), ar_status_success_k);
        certify.exact = true;
        expect_int_eq(ar_certify(plan, &certify, &exact), ar_status_success_k);
        expect_u64_eq(report.verdict, 0);
        expect_u64_eq(exact.verdict, 0);
        if (report.verdict || exact.verdict)
            fprintf(stderr, "%s: %s / %s\n", *f, report.message, exact.message);
        expect_u64_eq(report.executed_launches, info.executed_launches);
        expect_u64_eq(report.instances, info.instances);
        expect_u64_le(info.lower_bound_bytes, info.workspace_bytes);
        expect_u64_lt(info.workspace_bytes, distinct_plane_bytes(plan));
        printf("%-8s launches %" PRIu64 " words %" PRIu64 " executed %" PRIu64 " instances %" PRIu64
               " workspace %" PRIu64 " lower bound %" PRIu64 " exact evaluations %" PRIu64 "\n",
               *f, info.launches, info.words, info.executed_launches, info.instances,
               info.workspace_bytes, info.lower_bound_bytes, exact.evaluations);
        ar_plan_free(plan);
    }
    return expect_finish();
}
