/* Rule D (rule_d.c): carried planes still hold their value when a phase starts, across
 * references and repeat iterations; the verdict 2 + n + k and its diagnostic. */
#include "certify_plans.h"

/* Phases a (declares "kv" fresh) and b (reads "kv" carried), and c (declares "tmp" over kv). */
static ar_plan_t *carry_plan(char const *const *phases, size_t count, uint64_t kv_size_in_b) {
    ar_plan_t *plan = plan_new();
    require_true(ar_plan_add_phase(plan, "a") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "kv", GLOBAL_END, 0x200, false) == ar_status_success_k);
    require_true(ar_plan_add_phase(plan, "b") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "kv", GLOBAL_END, kv_size_in_b, true) ==
                 ar_status_success_k);
    require_true(ar_plan_add_phase(plan, "c") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "tmp", GLOBAL_END + 0x100, 0x100, false) ==
                 ar_status_success_k);
    for (size_t i = 0; i < count; ++i) launch(plan, phases[i], NULL, 0);
    return plan;
}

static void test_rule_d(void) {
    char const *ok[] = {"a", "b", "b", "a", "b"};
    ar_plan_t *plan = carry_plan(ok, 5, 0x200);
    require_true(ar_plan_add_reference(plan, 0, 5) == ar_status_success_k);
    require_finished(plan);
    ar_certify_report_t r = certify(plan);
    expect_u64_eq(r.verdict, 0);
    expect_u64_eq(r.instances, 4);
    expect_u64_eq(r.executed_launches, 5);
    ar_plan_free(plan);

    /* b first: never declared. n = 2, k = 0. */
    char const *early[] = {"b", "a"};
    plan = carry_plan(early, 2, 0x200);
    require_true(ar_plan_add_reference(plan, 0, 2) == ar_status_success_k);
    require_finished(plan);
    r = certify(plan);
    expect_u64_eq(r.verdict, 2 + 2 + 0);
    expect_int_eq(r.rule, ar_rule_d_k);
    expect_str_contains(r.message, "no earlier instance declared");
    expect_str_contains(r.message, "\"kv\"");
    expect_u64_eq(certify_with(plan, 16, true).verdict, 4);
    ar_plan_free(plan);

    /* a, c, b: c's tmp clobbers kv; instances a=0 c=1 b=2. */
    char const *clobber[] = {"a", "c", "b"};
    plan = carry_plan(clobber, 3, 0x200);
    require_true(ar_plan_add_reference(plan, 0, 3) == ar_status_success_k);
    require_finished(plan);
    r = certify(plan);
    expect_u64_eq(r.verdict, 2 + 3 + 2);
    expect_str_eq(r.instance_text, "2");
    expect_str_contains(r.message, "\"tmp\"");
    expect_str_contains(r.message, "instance 1 (phase \"c\")");
    ar_plan_free(plan);

    /* Same, but b reads kv at another size: never declared with that size. */
    char const *resized[] = {"a", "b"};
    plan = carry_plan(resized, 2, 0x100);
    require_true(ar_plan_add_reference(plan, 0, 2) == ar_status_success_k);
    require_finished(plan);
    r = certify(plan);
    expect_u64_eq(r.verdict, 2 + 2 + 1);
    expect_str_contains(r.message, "name, base and size");
    ar_plan_free(plan);

    /* Merging across references: a | a, b: one instance of a, then b.
     * References [0,1) [0,1) [1,2). */
    char const *merge[] = {"a", "b"};
    plan = carry_plan(merge, 2, 0x200);
    require_true(ar_plan_add_reference(plan, 0, 1) == ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 0, 1) == ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 1, 1) == ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 0, 2) == ar_status_success_k);
    require_finished(plan);
    r = certify(plan);
    expect_u64_eq(r.verdict, 0);
    expect_u64_eq(r.instances, 4); /* a | b a | b */
    expect_u64_eq(r.executed_launches, 5);
    ar_plan_free(plan);
}

static void test_rule_d_repeat(void) {
    /* Repeat of [c, b] 1000 times after a: c clobbers kv in iteration 0, b breaks at k = 2. */
    char const *phases[] = {"a", "c", "b"};
    ar_plan_t *plan = carry_plan(phases, 3, 0x200);
    require_true(ar_plan_add_repeat_deltas(plan, 1, 2, 1000, NULL, 0) == ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 0, 3) == ar_status_success_k);
    require_finished(plan);
    ar_certify_report_t r = certify(plan);
    expect_u64_eq(r.verdict, 2 + 3 + 2);
    ar_plan_free(plan);

    /* Repeat of [b, a] 1000 times after a (the a before merges with nothing: a b a b ...). Then
     * a reference to c, then b: the last b breaks at instance 1 + 2000 + 1. */
    char const *phases2[] = {"a", "b", "a", "c", "b"};
    plan = carry_plan(phases2, 5, 0x200);
    require_true(ar_plan_add_repeat_deltas(plan, 1, 2, 1000, NULL, 0) == ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 0, 3) == ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 3, 2) == ar_status_success_k);
    require_finished(plan);
    r = certify(plan);
    expect_u64_eq(r.verdict, 2 + 5 + 2002);
    expect_str_eq(r.instance_text, "2002");
    expect_str_contains(r.message, "instance 2001 (phase \"c\")");
    expect_u64_eq(certify_with(plan, 16, true).verdict, 2 + 5 + 2002);
    ar_plan_free(plan);
}

int main(void) {
    test_rule_d();
    test_rule_d_repeat();
    return expect_finish();
}
