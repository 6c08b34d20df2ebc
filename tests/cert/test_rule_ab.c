/* Rules A and B (rule_ab.c): globals, then each phase's planes, aligned, non-empty, disjoint,
 * planes off the globals; the verdict 1 and its diagnostic. */
#include "certify_plans.h"

static void test_rule_a(void) {
    ar_plan_t *plan = plan_new();
    require_true(ar_plan_add_global(plan, "bias", WINDOW + 0x1080, 0x100) == ar_status_success_k);
    require_finished(plan);
    ar_certify_report_t r = certify(plan);
    expect_u64_eq(r.verdict, 1);
    expect_int_eq(r.rule, ar_rule_a_k);
    expect_str_contains(r.message, "\"bias\"");
    expect_str_contains(r.message, "aligned");
    ar_plan_free(plan);

    plan = plan_new();
    require_true(ar_plan_add_global(plan, "empty", WINDOW + 0x2000, 0) == ar_status_success_k);
    require_finished(plan);
    r = certify(plan);
    expect_u64_eq(r.verdict, 1);
    expect_str_contains(r.message, "empty");
    ar_plan_free(plan);

    plan = plan_new();
    require_true(ar_plan_add_global(plan, "late", WINDOW + 0x0f00, 0x200) == ar_status_success_k);
    require_finished(plan);
    r = certify(plan);
    expect_u64_eq(r.verdict, 1);
    expect_int_eq(r.rule, ar_rule_a_k);
    expect_str_contains(r.message, "\"w\" [0x10000, 0x11000)");
    expect_str_contains(r.message, "\"late\" [0x10f00, 0x11100)");
    ar_plan_free(plan);

    /* Touching globals are disjoint. */
    plan = plan_new();
    require_true(ar_plan_add_global(plan, "next", GLOBAL_END, 0x100) == ar_status_success_k);
    require_finished(plan);
    expect_both(plan, 0);
    ar_plan_free(plan);
}

static void test_rule_b(void) {
    ar_plan_t *plan = plan_new();
    require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "x", GLOBAL_END, 0x200, false) == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "y", GLOBAL_END + 0x100, 0x200, false) ==
                 ar_status_success_k);
    require_finished(plan);
    ar_certify_report_t r = certify(plan);
    expect_u64_eq(r.verdict, 1);
    expect_int_eq(r.rule, ar_rule_b_k);
    expect_str_contains(r.message, "phase \"p\"");
    expect_str_contains(r.message, "\"y\"");
    ar_plan_free(plan);

    plan = plan_new();
    require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "x", WINDOW + 0xf00, 0x200, false) == ar_status_success_k);
    require_finished(plan);
    r = certify(plan);
    expect_u64_eq(r.verdict, 1);
    expect_int_eq(r.rule, ar_rule_b_k);
    expect_str_contains(r.message, "global \"w\"");
    ar_plan_free(plan);

    /* Planes of different phases may share bytes. */
    plan = plan_new();
    require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "x", GLOBAL_END, 0x200, false) == ar_status_success_k);
    require_true(ar_plan_add_phase(plan, "q") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "y", GLOBAL_END, 0x200, false) == ar_status_success_k);
    require_finished(plan);
    expect_both(plan, 0);
    ar_plan_free(plan);
}

int main(void) {
    test_rule_a();
    test_rule_b();
    return expect_finish();
}
