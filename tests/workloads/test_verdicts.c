/* Every family at tiny and small with no fault: the certificate and the exact oracle both
 * certify (0). Every fault on every family where it applies: the certificate gives the
 * generator's `expect` and the exact oracle its `expect_exact` (the same, except for the
 * precision probes, where the exact oracle certifies). The expectations come from the
 * generator's own structure; this test is where they meet the certificate. Also checks the
 * generator's counts against the certificate's (executed launches, instances). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

static void check(char const *family, char const *preset, char const *fault) {
    ar_workload_options_t options = {.family = family, .preset = preset, .fault = fault, .seed = 7};
    ar_plan_t *plan = NULL;
    ar_workload_info_t info;
    ar_plan_error_t error;
    ar_status_t status = ar_workload_generate(&options, &plan, &info, &error);
    if (status) {
        expect_fail_("%s/%s/%s: generate failed: %s", family, preset, fault ? fault : "clean",
                     error.message);
        return;
    }
    ar_certify_options_t certify;
    ar_certify_options_default(&certify);
    ar_certify_report_t report;
    status = ar_certify(plan, &certify, &report);
    expect_int_eq(status, ar_status_success_k);
    if (report.verdict != info.expect)
        expect_fail_("%s/%s/%s: certificate %s, expected %s (%s)", family, preset,
                     fault ? fault : "clean", report.verdict_text, info.expect_text,
                     report.message);
    else
        ++expect_checks_;
    certify.exact = true;
    ar_certify_report_t exact;
    status = ar_certify(plan, &certify, &exact);
    expect_int_eq(status, ar_status_success_k);
    if (exact.verdict != info.expect_exact)
        expect_fail_("%s/%s/%s: exact %s, expected %s (%s)", family, preset,
                     fault ? fault : "clean", exact.verdict_text, info.expect_exact_text,
                     exact.message);
    else
        ++expect_checks_;
    printf("%-8s %-6s %-26s expect %-8s certificate %-8s exact %-8s launches %" PRIu64 "\n", family,
           preset, fault ? fault : "clean", info.expect_text, report.verdict_text,
           exact.verdict_text, info.launches);
    if (!fault) {
        /* A clean plan runs rule (D) to the end: the counts must agree. */
        expect_u64_eq(report.executed_launches, info.executed_launches);
        expect_u64_eq(report.instances, info.instances);
        expect_u64_le(info.lower_bound_bytes, info.workspace_bytes);
        expect_u64_gt(info.launches, 0);
    } else {
        expect_u64_ne(info.expect, 0);
    }
    ar_plan_free(plan);
}

int main(void) {
    char const *const *families = ar_workload_families();
    char const *const *faults = ar_workload_faults();
    for (size_t f = 0; families[f]; ++f) {
        check(families[f], "tiny", NULL);
        check(families[f], "small", NULL);
        for (size_t k = 0; faults[k]; ++k) {
            if (!ar_workload_fault_applies(families[f], faults[k])) continue;
            check(families[f], "tiny", faults[k]);
            check(families[f], "small", faults[k]);
        }
    }
    return expect_finish();
}
