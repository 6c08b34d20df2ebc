/* The certificate's internal paths give one answer. Deltas are read in place when in site
 * order, else sorted; frames walked in lockstep when they list the same sites, else sorted;
 * words looked up in per-phase tables or, past a memory budget, in the sorted views. So:
 *  1. seeded random plans built twice (entries in site order, then shuffled) get identical
 *     reports (verdict, message, where, every counter), certificate and exact, with and
 *     without all_sites, for several `few`;
 *  2. 700 phases and 1600 globals (tables for some phases only) get verdicts worked out by
 *     hand on either side of the budget, and certificate and exact counts agree. */
#include <stdint.h>
#include <string.h>

#include "arenaref/plan.h"
#include "expect.h"

static uint64_t rng_state;
static uint64_t next_random(void) {
    rng_state ^= rng_state << 13, rng_state ^= rng_state >> 7, rng_state ^= rng_state << 17;
    return rng_state;
}
static uint64_t below(uint64_t n) { return n ? next_random() % n : 0; }

#define WINDOW 0x10000u

/* Its own generator, so a shuffled build draws the same plan as the one in order. */
static uint64_t shuffle_state = 88172645463325252ull;
static void shuffle(ar_shift_t *entries, size_t count) {
    for (size_t i = count; i > 1; --i) {
        shuffle_state ^= shuffle_state << 13, shuffle_state ^= shuffle_state >> 7;
        shuffle_state ^= shuffle_state << 17;
        size_t j = (size_t)(shuffle_state % i);
        ar_shift_t t = entries[i - 1];
        entries[i - 1] = entries[j], entries[j] = t;
    }
}

/* A random plan from `seed`; `shuffled` lists every repeat's entries out of site order. */
static ar_plan_t *random_plan(uint64_t seed, bool shuffled) {
    rng_state = seed * 0x9e3779b97f4a7c15ull + 1;
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 256);
    ar_plan_add_window(plan, WINDOW, 0x10000);
    ar_plan_add_global(plan, "w", WINDOW, 0x1000);
    static char const *const phases[] = {"p0", "p1", "p2"};
    uint64_t planes[3][2];
    for (size_t p = 0; p < 3; ++p) {
        ar_plan_add_phase(plan, phases[p]);
        for (size_t k = 0; k < 2; ++k) {
            planes[p][k] = 0x11000 + 0x1000 * (2 * p + k + below(2) * 6);
            char name[16];
            snprintf(name, sizeof name, "t%zu%zu", p, k);
            ar_plan_add_plane(plan, name, planes[p][k], 0x800, below(4) == 0);
        }
    }
    size_t launches = 6 + (size_t)below(8);
    for (size_t l = 0; l < launches; ++l) {
        size_t p = (size_t)below(3), count = 1 + (size_t)below(4);
        uint64_t words[8];
        for (size_t w = 0; w < count; ++w) {
            uint64_t kind = below(80);
            if (kind < 10)
                words[w] = below(64); /* a scalar */
            else if (kind < 20)
                words[w] = WINDOW + 0x100 * below(16); /* the global */
            else if (kind < 78)
                words[w] = planes[p][below(2)] + 0x200 + 0x10 * below(0x30); /* its plane */
            else if (kind < 79)
                words[w] = planes[below(3)][below(2)] + 0x800; /* one past */
            else
                words[w] = 0x11000 + 0x100 * below(0xe0); /* anywhere */
        }
        ar_plan_add_launch(plan, "k", phases[p], words, count, NULL);
    }
    /* An outer repeat over a prefix and an inner one inside it, each deltas or frames. */
    size_t outer = 2 + (size_t)below(launches - 1), inner_first = (size_t)below(outer - 1);
    size_t inner_count = 1 + (size_t)below(outer - inner_first - 1);
    size_t ranges[2][2] = {{0, outer}, {inner_first, inner_count}};
    for (size_t r = 0; r < 2; ++r) {
        size_t first = ranges[r][0], count = ranges[r][1];
        uint64_t iterations = 1 + below(24);
        ar_shift_t entries[32];
        size_t n = 0;
        for (size_t l = first; l < first + count; ++l)
            for (size_t w = 0; w < plan->launches[l].words_count && n < 32; ++w)
                if (below(2)) entries[n++] = (ar_shift_t){l, w, ((int64_t)below(5) - 2) * 0x8};
        if (n == 0) entries[n++] = (ar_shift_t){first, 0, 0x100};
        if (below(2)) {
            if (shuffled) shuffle(entries, n);
            require_true(ar_plan_add_repeat_deltas(plan, first, count, iterations, entries, n) ==
                         ar_status_success_k);
        } else {
            require_true(ar_plan_add_repeat_frames(plan, first, count, iterations) ==
                         ar_status_success_k);
            for (uint64_t f = 0; f < iterations; ++f) {
                ar_shift_t frame[32];
                memcpy(frame, entries, n * sizeof *frame);
                for (size_t e = 0; e < n; ++e) frame[e].shift = ((int64_t)below(9) - 4) * 0x40;
                if (shuffled) shuffle(frame, n);
                require_true(ar_plan_add_frame(plan, frame, n) == ar_status_success_k);
            }
        }
    }
    ar_plan_add_reference(plan, 0, launches);
    ar_plan_add_reference(plan, 0, launches);
    ar_plan_error_t error;
    ar_status_t status = ar_plan_finish(plan, &error);
    if (status != ar_status_success_k)
        fprintf(stderr, "seed %" PRIu64 ": %s\n", seed, error.message);
    require_true(status == ar_status_success_k);
    return plan;
}

static ar_status_t certify(ar_plan_t const *plan, uint64_t few, bool exact, bool all_sites,
                           ar_certify_report_t *report) {
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.few = few, options.exact = exact, options.all_sites = all_sites;
    return ar_certify(plan, &options, report);
}

static void expect_same_report(ar_certify_report_t const *a, ar_certify_report_t const *b) {
    expect_int_eq(a->rule, b->rule);
    expect_str_eq(a->verdict_text, b->verdict_text);
    expect_str_eq(a->message, b->message);
    expect_size_eq(a->launch, b->launch);
    expect_size_eq(a->word, b->word);
    expect_u64_eq(a->lo, b->lo);
    expect_u64_eq(a->hi, b->hi);
    expect_str_eq(a->instance_text, b->instance_text);
    expect_u64_eq(a->sites_checked, b->sites_checked);
    expect_u64_eq(a->sites_accepted, b->sites_accepted);
    expect_u64_eq(a->points, b->points);
    expect_u64_eq(a->hulls, b->hulls);
    expect_u64_eq(a->hull_slack_bytes, b->hull_slack_bytes);
    expect_u64_eq(a->executed_launches, b->executed_launches);
    expect_u64_eq(a->instances, b->instances);
    expect_u64_eq(a->evaluations, b->evaluations);
}

static void test_listing_order(void) {
    size_t verdicts[4] = {0}; /* how many plans ended at each rule: the test must see them all */
    for (uint64_t seed = 1; seed <= 1500; ++seed) {
        ar_plan_t *in_order = random_plan(seed, false), *shuffled = random_plan(seed, true);
        int before = expect_failures_;
        for (int mode = 0; mode < 6; ++mode) {
            uint64_t few = (uint64_t[]){1, 4, 16}[mode % 3];
            bool exact = mode == 5, all_sites = mode >= 3;
            ar_certify_report_t a, b;
            ar_status_t sa = certify(in_order, few, exact, all_sites, &a);
            ar_status_t sb = certify(shuffled, few, exact, all_sites, &b);
            expect_int_eq(sa, sb);
            expect_int_eq(sa, ar_status_success_k);
            expect_same_report(&a, &b);
            if (mode == 0 && a.rule > ar_rule_b_k) ++verdicts[a.rule - ar_rule_c_k + 1];
            if (mode == 0 && a.rule == ar_rule_none_k) ++verdicts[0];
        }
        if (expect_failures_ != before) fprintf(stderr, "  (seed %" PRIu64 ")\n", seed);
        ar_plan_free(in_order);
        ar_plan_free(shuffled);
        if (expect_failures_ > 40) break;
    }
    fprintf(stderr, "verdicts: %zu certified, %zu rule C, %zu rule D\n", verdicts[0], verdicts[1],
            verdicts[2]);
    expect_u64_gt(verdicts[0], 0); /* certified */
    expect_u64_gt(verdicts[1], 0); /* rule C */
    expect_u64_gt(verdicts[2], 0); /* rule D */
}

/* 700 phases, each with one plane; 1600 globals of 0x100 bytes from the window's base; launch p
 * (phase p) reads a global, its own plane and a scalar, and launch `bad` also a byte of plane
 * `bad + 1` (another phase's: rule C). */
enum { MANY_PHASES = 700, MANY_GLOBALS = 1600 };
#define MANY_BASE 0x100000u
#define PLANES_BASE (MANY_BASE + MANY_GLOBALS * 0x100u)

static ar_plan_t *many_plan(size_t bad) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 256);
    ar_plan_add_window(plan, MANY_BASE, 0x10000000);
    char name[32];
    for (size_t g = 0; g < MANY_GLOBALS; ++g) {
        snprintf(name, sizeof name, "g%zu", g);
        ar_plan_add_global(plan, name, MANY_BASE + 0x100 * g, 0x100);
    }
    for (size_t p = 0; p < MANY_PHASES; ++p) {
        snprintf(name, sizeof name, "p%zu", p);
        ar_plan_add_phase(plan, name);
        snprintf(name, sizeof name, "t%zu", p);
        ar_plan_add_plane(plan, name, PLANES_BASE + 0x1000 * p, 0x1000, false);
    }
    for (size_t p = 0; p < MANY_PHASES; ++p) {
        uint64_t words[4] = {MANY_BASE + 0x100 * ((p * 7) % MANY_GLOBALS) + 0x10,
                             PLANES_BASE + 0x1000 * p + 0x20, 4096,
                             PLANES_BASE + 0x1000 * (p + 1) + 0x40};
        snprintf(name, sizeof name, "p%zu", p);
        ar_plan_add_launch(plan, "k", name, words, p == bad ? 4 : 3, NULL);
    }
    ar_plan_add_reference(plan, 0, MANY_PHASES);
    require_true(ar_plan_finish(plan, NULL) == ar_status_success_k);
    return plan;
}

static void test_many_phases_many_globals(void) {
    size_t const cases[] = {SIZE_MAX, 5, 650};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        size_t bad = cases[i];
        ar_plan_t *plan = many_plan(bad);
        ar_certify_report_t cert, exact;
        expect_int_eq(certify(plan, 16, false, false, &cert), ar_status_success_k);
        if (bad == SIZE_MAX) {
            expect_int_eq(cert.rule, ar_rule_none_k);
            expect_u64_eq(cert.verdict, 0);
            expect_u64_eq(cert.sites_accepted, 3 * MANY_PHASES);
        } else {
            expect_int_eq(cert.rule, ar_rule_c_k);
            expect_u64_eq(cert.verdict, 2 + bad);
            expect_size_eq(cert.launch, bad);
            expect_size_eq(cert.word, 3);
            expect_u64_eq(cert.lo, PLANES_BASE + 0x1000 * (bad + 1) + 0x40);
        }
        /* Every site, both modes: no repeats, so every site is one point either way. */
        expect_int_eq(certify(plan, 16, false, true, &cert), ar_status_success_k);
        expect_int_eq(certify(plan, 16, true, true, &exact), ar_status_success_k);
        expect_u64_eq(cert.sites_checked, exact.sites_checked);
        expect_u64_eq(cert.sites_accepted, exact.sites_accepted);
        expect_u64_eq(cert.sites_accepted, 3 * MANY_PHASES);
        expect_u64_eq(cert.verdict, exact.verdict);
        expect_str_eq(cert.message, exact.message);
        ar_plan_free(plan);
    }
}

int main(void) {
    test_listing_order();
    test_many_phases_many_globals();
    return expect_finish();
}
