/* The large presets reach the sizes the suite promises: at least 10 million parameter words as
 * written and at least 10^9 executed launches, for every transformer family, and 10^5 ops (one
 * phase each) over 10^4 globals for flat (sizes only: no timing here;
 * the README's closing figures give the generation times). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

int main(void) {
    for (char const *const *f = ar_workload_families(); *f; ++f) {
        ar_workload_options_t options = {.family = *f, .preset = "large", .seed = 1};
        ar_plan_t *plan = NULL;
        ar_workload_info_t info;
        ar_plan_error_t error;
        ar_status_t status = ar_workload_generate(&options, &plan, &info, &error);
        if (status) {
            expect_fail_("%s: %s", *f, error.message);
            continue;
        }
        if (strcmp(*f, "flat") == 0) { /* a runtime's export: 10^5 ops, 10^4 weights */
            expect_u64_ge(info.launches, 100000u);
            expect_u64_ge(plan->globals_count, 10000u);
            expect_u64_eq(plan->phases_count, info.launches);
        } else {
            expect_u64_ge(info.words, 10000000u);
            expect_u64_ge(info.executed_launches, 1000000000u);
        }
        expect_u64_eq(info.words, plan->words_count);
        expect_u64_eq(info.launches, plan->launches_count);
        expect_true(plan->finished);
        printf("%-8s launches %" PRIu64 " words %" PRIu64 " executed %" PRIu64 " instances %" PRIu64
               "\n",
               *f, info.launches, info.words, info.executed_launches, info.instances);
        ar_plan_free(plan);
    }
    return expect_finish();
}
