/* Unit tests of ar_certify: small plans built with the builder, one or two per rule, verdict
 * row and diagnostic. Layout used throughout: alignment 256, one window [0x10000, 0x20000), a
 * global "w" [0x10000, 0x11000); phase planes sit above 0x11000. */
#include <stdint.h>
#include <string.h>

#include "arenaref/plan.h"
#include "expect.h"
#include "cert_test_util.h"

#define WINDOW 0x10000u
#define GLOBAL_END 0x11000u

static ar_plan_t *plan_new(void) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    require_true(ar_plan_set_alignment(plan, 256) == ar_status_success_k);
    require_true(ar_plan_add_window(plan, WINDOW, 0x10000) == ar_status_success_k);
    require_true(ar_plan_add_global(plan, "w", WINDOW, 0x1000) == ar_status_success_k);
    return plan;
}

static void launch(ar_plan_t *plan, char const *phase, uint64_t const *words, size_t count) {
    require_true(ar_plan_add_launch(plan, "k", phase, words, count, NULL) == ar_status_success_k);
}

static ar_certify_report_t certify_with(ar_plan_t const *plan, uint64_t few, bool exact) {
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.few = few;
    options.exact = exact;
    ar_certify_report_t report;
    require_true(ar_certify(plan, &options, &report) == ar_status_success_k);
    return report;
}

static ar_certify_report_t certify(ar_plan_t const *plan) {
    return certify_with(plan, AR_CERTIFY_FEW_DEFAULT, false);
}

/* Both modes agree (the plan does not depend on intervals) and give `verdict`. */
static void expect_both(ar_plan_t const *plan, uint64_t verdict) {
    ar_certify_report_t a = certify(plan), b = certify_with(plan, 16, true);
    expect_u64_eq(a.verdict, verdict);
    expect_u64_eq(b.verdict, verdict);
}

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

/* One launch whose word 0 walks a plane of 4 slots of 0x100 by a delta repeat. */
static ar_plan_t *walking_plan(uint64_t iterations, int64_t delta, uint64_t plane_size) {
    ar_plan_t *plan = plan_new();
    require_true(ar_plan_add_phase(plan, "p") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "x", GLOBAL_END, plane_size, false) ==
                 ar_status_success_k);
    uint64_t word = GLOBAL_END;
    launch(plan, "p", &word, 1);
    ar_shift_t d = {0, 0, delta};
    require_true(ar_plan_add_repeat_deltas(plan, 0, 1, iterations, &d, 1) == ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 0, 1) == ar_status_success_k);
    require_finished(plan);
    return plan;
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
    test_rule_a();
    test_rule_b();
    test_rule_c_points();
    test_rule_c_phaseless();
    test_rule_c_hulls();
    test_rule_c_frames();
    test_rule_c_nested();
    test_rule_d();
    test_rule_d_repeat();
    test_exact_limit();
    test_all_sites();
    return expect_finish();
}
