/* The generators' planner is the public one (arenaref/place.h): the default strategy and
 * "greedy-by-size" named give equal plans (the bytes every preset had before strategies, which
 * test_planner's hand-worked offsets pin down), every strategy's plan certifies (0) on every
 * family at tiny and small and is no smaller than the lower bound, a named strategy is recorded
 * in meta, and an unknown one is refused. */
#include <string.h>

#include "arenaref/place.h"
#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

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
                if (s == ar_place_greedy_by_size_k) expect_true(ar_plan_equal(base, plan));
                else expect_str_contains(plan->meta_json, options.strategy);
                expect_u64_ge(with.workspace_bytes, with.lower_bound_bytes);
                expect_u64_eq(with.lower_bound_bytes, info.lower_bound_bytes);
                ar_certify_report_t report;
                expect_int_eq(ar_certify(plan, NULL, &report), ar_status_success_k);
                expect_u64_eq(report.verdict, 0);
                ar_plan_free(plan);
            }
            ar_plan_free(base);
        }
    ar_workload_options_t bad = {.family = "decoder", .strategy = "tetris"};
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    expect_int_eq(ar_workload_generate(&bad, &plan, NULL, &error), ar_status_invalid_argument_k);
    expect_ptr_null(plan);
    expect_str_contains(error.message, "tetris");
    return expect_finish();
}
