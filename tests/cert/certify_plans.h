/* Small plans for the certificate's unit tests, built with the builder: alignment 256, one
 * window [0x10000, 0x20000), a global "w" [0x10000, 0x11000); phase planes sit above 0x11000.
 * Static and header-only; unused pieces are marked so -Werror stays quiet. */
#ifndef ARENAREF_CERTIFY_PLANS_H
#define ARENAREF_CERTIFY_PLANS_H

#include <stdint.h>
#include <string.h>

#include "arenaref/plan.h"
#include "expect.h"
#include "cert_test_util.h"

#define WINDOW 0x10000u
#define GLOBAL_END 0x11000u

__attribute__((unused)) static ar_plan_t *plan_new(void) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    require_true(ar_plan_set_alignment(plan, 256) == ar_status_success_k);
    require_true(ar_plan_add_window(plan, WINDOW, 0x10000) == ar_status_success_k);
    require_true(ar_plan_add_global(plan, "w", WINDOW, 0x1000) == ar_status_success_k);
    return plan;
}

__attribute__((unused)) static void launch(ar_plan_t *plan, char const *phase,
                                           uint64_t const *words, size_t count) {
    require_true(ar_plan_add_launch(plan, "k", phase, words, count, NULL) == ar_status_success_k);
}

__attribute__((unused)) static ar_certify_report_t certify_with(ar_plan_t const *plan, uint64_t few,
                                                                bool exact) {
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.few = few;
    options.exact = exact;
    ar_certify_report_t report;
    require_true(ar_certify(plan, &options, &report) == ar_status_success_k);
    return report;
}

__attribute__((unused)) static ar_certify_report_t certify(ar_plan_t const *plan) {
    return certify_with(plan, AR_CERTIFY_FEW_DEFAULT, false);
}

/* Both modes agree (the plan does not depend on intervals) and give `verdict`. */
__attribute__((unused)) static void expect_both(ar_plan_t const *plan, uint64_t verdict) {
    ar_certify_report_t a = certify(plan), b = certify_with(plan, 16, true);
    expect_u64_eq(a.verdict, verdict);
    expect_u64_eq(b.verdict, verdict);
}

/* One launch whose word 0 walks a plane of 4 slots of 0x100 by a delta repeat. */
__attribute__((unused)) static ar_plan_t *walking_plan(uint64_t iterations, int64_t delta,
                                                       uint64_t plane_size) {
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

#endif
