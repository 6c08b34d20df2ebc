/* Rule C (rule_c.c, and the exact oracle's rule_c_exact.c): points, hulls, frames, nesting,
 * launches with no phase; the verdict 2 + i and its diagnostic. */
#include "certify_plans.h"

static void test_rule_c_points(void) {
    ar_plan_t *plan = plan_new();
    require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "x", GLOBAL_END, 0x100, false) == ar_status_success_k);
    require_true(ar_plan_add_phase(plan, "q") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "z", GLOBAL_END + 0x100, 0x100, false) ==
                 ar_status_success_k);
    uint64_t fine[] = {WINDOW, GLOBAL_END + 0xff, 7, 0x20000, 0xffffffffffffffffull};
    uint64_t past_end[] = {GLOBAL_END + 0x100}; /* one past x: z's bytes, another phase */
    uint64_t below[] = {WINDOW - 1};            /* below the window: not an address */
    launch(plan, "p", fine, 5);
    launch(plan, "p", below, 1);
    launch(plan, "p", past_end, 1);
    launch(plan, "p", fine, 5);
    require_finished(plan);
    ar_certify_report_t r = certify(plan);
    expect_u64_eq(r.verdict, 2 + 2);
    expect_int_eq(r.rule, ar_rule_c_k);
    expect_size_eq(r.launch, 2);
    expect_size_eq(r.word, 0);
    expect_u64_eq(r.lo, GLOBAL_END + 0x100);
    expect_str_contains(r.message, "launch 2");
    expect_str_contains(r.message, "0x11100");
    expect_str_contains(r.message, "window 0");
    expect_str_contains(r.message, "nearest allowed: plane \"x\"");
    expect_u64_eq(certify_with(plan, 16, true).verdict, 4);
    ar_plan_free(plan);
}

static void test_rule_c_phaseless(void) {
    ar_plan_t *plan = plan_new();
    require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
    launch(plan, "p", NULL, 0);
    launch(plan, NULL, NULL, 0);
    require_finished(plan);
    ar_certify_report_t r = certify(plan);
    expect_u64_eq(r.verdict, 3);
    expect_str_contains(r.message, "carries no phase");
    ar_plan_free(plan);

    plan = plan_new();
    require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
    launch(plan, "nope", NULL, 0);
    require_finished(plan);
    r = certify(plan);
    expect_u64_eq(r.verdict, 2);
    expect_str_contains(r.message, "\"nope\"");
    expect_u64_eq(certify_with(plan, 16, true).verdict, 2);
    ar_plan_free(plan);
}

static void test_rule_c_hulls(void) {
    /* 4 iterations of 0x100 within 0x400: points and hull both pass. */
    ar_plan_t *plan = walking_plan(4, 0x100, 0x400);
    ar_certify_report_t r = certify(plan);
    expect_u64_eq(r.verdict, 0);
    expect_u64_eq(r.points, 4);
    expect_u64_eq(r.hulls, 0);
    r = certify_with(plan, 2, false);
    expect_u64_eq(r.verdict, 0);
    expect_u64_eq(r.hulls, 1);
    expect_u64_eq(r.hull_slack_bytes, 0x301 - 4);
    ar_plan_free(plan);

    /* 5 iterations: the fifth is one past the plane, in the window. */
    plan = walking_plan(5, 0x100, 0x400);
    r = certify(plan);
    expect_u64_eq(r.verdict, 2);
    expect_u64_eq(r.lo, GLOBAL_END + 0x400);
    expect_str_contains(r.message, "iteration 4 of repeat 0");
    /* few 0 means the default, 16: points, so the failing value is the fifth one. */
    r = certify_with(plan, 0, false);
    expect_u64_eq(r.points, 5);
    expect_u64_eq(r.lo, GLOBAL_END + 0x400);
    r = certify_with(plan, 4, false);
    expect_u64_eq(r.verdict, 2);
    expect_u64_eq(r.lo, GLOBAL_END);
    expect_u64_eq(r.hi, GLOBAL_END + 0x400);
    expect_str_contains(r.message, "hull");
    ar_plan_free(plan);

    /* A delta that wraps: a hull leaving [0, 2^64) is everything, and meets the window. */
    plan = walking_plan(3, INT64_MAX, 0x100);
    r = certify_with(plan, 1, false);
    expect_u64_eq(r.verdict, 2);
    expect_u64_eq(r.lo, 0);
    expect_u64_eq(r.hi, UINT64_MAX);
    expect_str_contains(r.message, "wraps");
    /* As points: GLOBAL_END, then far above the window twice: all fine. */
    expect_u64_eq(certify_with(plan, 16, false).verdict, 0);
    expect_u64_eq(certify_with(plan, 1, true).verdict, 0);
    ar_plan_free(plan);
}

static void test_rule_c_frames(void) {
    /* Ping-pong: a frames repeat alternating between two planes of the phase. */
    ar_plan_t *plan = plan_new();
    require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "ping", GLOBAL_END, 0x100, false) == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "gap", GLOBAL_END + 0x100, 0x100, false) ==
                 ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "pong", GLOBAL_END + 0x200, 0x100, false) ==
                 ar_status_success_k);
    uint64_t word = GLOBAL_END;
    launch(plan, "p", &word, 1);
    require_true(ar_plan_add_repeat_frames(plan, 0, 1, 4) == ar_status_success_k);
    ar_shift_t to_pong = {0, 0, 0x200};
    for (int f = 0; f < 4; ++f)
        require_true(ar_plan_add_frame(plan, f % 2 ? &to_pong : NULL, f % 2 ? 1 : 0) ==
                     ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 0, 1) == ar_status_success_k);
    require_finished(plan);
    /* Points pass; the hull [ping, pong] spans three planes and fails. */
    ar_certify_report_t r = certify(plan);
    expect_u64_eq(r.verdict, 0);
    expect_u64_eq(r.points, 4);
    r = certify_with(plan, 3, false);
    expect_u64_eq(r.verdict, 2);
    expect_u64_eq(r.lo, GLOBAL_END);
    expect_u64_eq(r.hi, GLOBAL_END + 0x200);
    expect_u64_eq(certify_with(plan, 3, true).verdict, 0);
    ar_plan_free(plan);
}

static void test_rule_c_nested(void) {
    /* Two nested repeats both name the word: always a hull, even when few. */
    ar_plan_t *plan = plan_new();
    require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "x", GLOBAL_END, 0x400, false) == ar_status_success_k);
    uint64_t word = GLOBAL_END + 0x300;
    launch(plan, "p", &word, 1);
    launch(plan, "p", NULL, 0);
    ar_shift_t inner = {0, 0, 0x100}, outer = {0, 0, -0x100};
    require_true(ar_plan_add_repeat_deltas(plan, 0, 1, 2, &inner, 1) == ar_status_success_k);
    require_true(ar_plan_add_repeat_deltas(plan, 0, 2, 4, &outer, 1) == ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 0, 2) == ar_status_success_k);
    require_finished(plan);
    /* Values: 0x11300 + {0, 0x100} - {0..3}*0x100 = [0x11000, 0x11400]: 0x11400 is past x. */
    ar_certify_report_t r = certify(plan);
    expect_u64_eq(r.verdict, 2);
    expect_u64_eq(r.hulls, 1);
    expect_u64_eq(r.lo, GLOBAL_END);
    expect_u64_eq(r.hi, GLOBAL_END + 0x400);
    expect_str_contains(r.message, "repeats");
    r = certify_with(plan, 16, true);
    expect_u64_eq(r.verdict, 2);
    expect_u64_eq(r.lo, GLOBAL_END + 0x400);
    /* Ordinals (inner, outer), outer fastest: (0,0..3) pass, (1,0) is the first past x. */
    expect_u64_eq(r.evaluations, 5);
    ar_plan_free(plan);
}

int main(void) {
    test_rule_c_points();
    test_rule_c_phaseless();
    test_rule_c_hulls();
    test_rule_c_frames();
    test_rule_c_nested();
    return expect_finish();
}
