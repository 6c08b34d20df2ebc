/* The verdict (certify.c): arguments, the exact oracle's limit, all_sites counting, deep
 * nesting refused; each rule has its own test file (test_rule_*.c). */
#include "certify_plans.h"

static void test_arguments(void) {
    ar_certify_report_t report;
    expect_int_eq(ar_certify(NULL, NULL, &report), ar_status_invalid_argument_k);
    expect_str_contains(report.message, "NULL");
    ar_plan_t *plan = plan_new();
    expect_int_eq(ar_certify(plan, NULL, NULL), ar_status_invalid_argument_k);
    expect_int_eq(ar_certify(plan, NULL, &report), ar_status_invalid_argument_k);
    expect_str_contains(report.message, "not finished");
    require_finished(plan);
    expect_int_eq(ar_certify(plan, NULL, &report), ar_status_success_k);
    expect_u64_eq(report.verdict, 0);
    expect_str_eq(report.verdict_text, "0");
    expect_str_eq(report.message, "certified");
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    expect_u64_eq(options.few, 16);
    expect_false(options.exact);
    ar_plan_free(plan);
}

static void test_exact_limit(void) {
    ar_plan_t *plan = walking_plan(100, 0, 0x400);
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.exact = true;
    options.exact_limit = 99;
    ar_certify_report_t report;
    expect_int_eq(ar_certify(plan, &options, &report), ar_status_unsupported_k);
    expect_str_contains(report.message, "100");
    expect_str_contains(report.message, "99");
    options.exact_limit = 100;
    expect_int_eq(ar_certify(plan, &options, &report), ar_status_success_k);
    expect_u64_eq(report.verdict, 0);
    expect_u64_eq(report.evaluations, 100);
    ar_plan_free(plan);
}

static void test_all_sites(void) {
    ar_plan_t *plan = plan_new();
    require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "x", GLOBAL_END, 0x100, false) == ar_status_success_k);
    uint64_t bad[] = {GLOBAL_END + 0x800, GLOBAL_END, GLOBAL_END + 0x900};
    launch(plan, "p", bad, 3);
    launch(plan, "p", bad, 3);
    require_finished(plan);
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    ar_certify_report_t r;
    require_true(ar_certify(plan, &options, &r) == ar_status_success_k);
    expect_u64_eq(r.verdict, 2);
    expect_u64_eq(r.sites_checked, 1);
    options.all_sites = true;
    require_true(ar_certify(plan, &options, &r) == ar_status_success_k);
    expect_u64_eq(r.verdict, 2);
    expect_u64_eq(r.sites_checked, 6);
    expect_u64_eq(r.sites_accepted, 2);
    expect_size_eq(r.word, 0);
    ar_plan_free(plan);
}

/* Repeats nested `depth` deep (each one launch shorter, all starting at launch 0). */
static void test_deep_nesting(void) {
    for (size_t depth = 64; depth <= 8192; depth *= 128) {
        ar_plan_t *plan = plan_new();
        require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
        for (size_t i = 0; i <= depth; ++i) launch(plan, "p", NULL, 0);
        for (size_t j = 0; j < depth; ++j)
            require_true(ar_plan_add_repeat_deltas(plan, 0, depth + 1 - j, 1, NULL, 0) ==
                         ar_status_success_k);
        require_true(ar_plan_add_reference(plan, 0, depth + 1) == ar_status_success_k);
        require_finished(plan);
        ar_certify_report_t report;
        ar_status_t status = ar_certify(plan, NULL, &report);
        if (depth <= 4096) {
            expect_int_eq(status, ar_status_success_k);
            expect_u64_eq(report.verdict, 0);
            expect_u64_eq(report.executed_launches, depth + 1);
        } else {
            expect_int_eq(status, ar_status_unsupported_k);
            expect_str_contains(report.message, "4096");
        }
        ar_plan_free(plan);
    }
}

int main(void) {
    test_deep_nesting();
    test_arguments();
    test_exact_limit();
    test_all_sites();
    return expect_finish();
}
