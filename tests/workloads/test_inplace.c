/* The in-place knob's kinds and its fault. Each kind, alone and as `all`, on every family that
 * takes it (at tiny and small, 1 and 17 layers, two seeds, every strategy, beside the other
 * knobs): both checks certify, and the plan holds the updates its structure says (norm: one a
 * stage, residual: two a stage, both renaming; kv: the decode stage's cache write, keeping its
 * name; flat: elementwise ops over an input that no later phase carries). The fault, in every
 * family: its verdict by construction equals both checks', the message names the update, and
 * the plan is the one with the fault's kind asked for; the across-elements fault likewise, its
 * message naming the update and exactly one plane saying what it reads and writes. Kinds a
 * family does not take, or that another knob excludes, are refused; off, no plane has
 * `becomes`. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaref/place.h"
#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

enum {
    NORM = AR_WORKLOAD_IN_PLACE_NORM,
    RESIDUAL = AR_WORKLOAD_IN_PLACE_RESIDUAL,
    KV = AR_WORKLOAD_IN_PLACE_KV,
    ELEMENTWISE = AR_WORKLOAD_IN_PLACE_ELEMENTWISE,
    ALL = AR_WORKLOAD_IN_PLACE_ALL,
};

static char const *const fault = "in-place-input-read-later";
static char const *const cross_fault = "in-place-cross-read";

typedef struct family_t {
    char const *name;
    uint64_t kinds, fault_kind;
    size_t stages;    /* stages with a layer (prefill and decode: 2) */
    char const *left; /* the value the fault's update leaves, as the message names it */
} family_t;

static family_t const families[] = {
    {"decoder", NORM | RESIDUAL | KV, NORM, 2, ".x_scaled1"},
    {"moe", NORM | RESIDUAL | KV, NORM, 2, ".x_scaled1"},
    {"encoder", NORM | RESIDUAL, NORM, 1, ".x_scaled1"},
    {"pipeline", NORM | RESIDUAL, NORM, 1, ".x_scaled1"},
    {"training", RESIDUAL, RESIDUAL, 1, ".resid_attn"},
    {"flat", ELEMENTWISE, ELEMENTWISE, 0, "into \"v"},
};
enum { FAMILIES = sizeof families / sizeof *families };

static void verdicts(ar_plan_t const *plan, ar_certify_report_t *report,
                     ar_certify_report_t *exact) {
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    expect_int_eq(ar_certify(plan, &options, report), ar_status_success_k);
    options.exact = true;
    expect_int_eq(ar_certify(plan, &options, exact), ar_status_success_k);
}

static size_t planes_with_becomes(ar_plan_t const *plan) {
    size_t n = 0;
    for (size_t p = 0; p < plan->planes_count; ++p) n += plan->planes[p].becomes != NULL;
    return n;
}

/* Flat: each update is an elementwise op's phase carrying v(k) and leaving v(k + 1) (same
 * bytes), which no later phase carries; returns the updates. */
static size_t check_flat_updates(ar_plan_t const *plan) {
    size_t updates = 0;
    for (size_t ph = 0; ph < plan->phases_count; ++ph)
        for (size_t j = 0; j < plan->phases[ph].planes_count; ++j) {
            ar_plane_t const *pl = &plan->planes[plan->phases[ph].planes_first + j];
            if (!pl->becomes) continue;
            ++updates;
            char const *id = plan->phases[ph].id;
            if (!strstr(id, ":RELU") && !strstr(id, ":MUL") && !strstr(id, ":ADD"))
                expect_fail_("flat: %s updates %s in place, not an elementwise op", id, pl->name);
            unsigned long long k = 0;
            expect_int_eq(sscanf(pl->name, "v%llu", &k), 1);
            char next[32];
            snprintf(next, sizeof next, "v%llu", k + 1);
            expect_str_eq(pl->becomes, next);
            for (size_t later = ph + 1; later < plan->phases_count; ++later)
                for (size_t i = 0; i < plan->phases[later].planes_count; ++i)
                    if (strcmp(plan->planes[plan->phases[later].planes_first + i].name, pl->name) ==
                        0)
                        expect_fail_("flat: %s is read by %s after %s updated it", pl->name,
                                     plan->phases[later].id, id);
        }
    return updates;
}

/* Clean with `kinds`: certified by both; the updates the structure gives; the meta says so. */
static void check_clean(family_t const *f, ar_workload_options_t options, uint64_t kinds) {
    options.family = f->name;
    options.in_place = kinds;
    ar_plan_t *plan = NULL;
    ar_workload_info_t info;
    ar_plan_error_t error;
    if (ar_workload_generate(&options, &plan, &info, &error) != ar_status_success_k) {
        expect_fail_("%s in place %" PRIu64 ": %s", f->name, kinds, error.message);
        return;
    }
    ar_certify_report_t report, exact;
    verdicts(plan, &report, &exact);
    if (report.verdict != 0 || exact.verdict != 0)
        expect_fail_("%s in place %" PRIu64 " L%" PRIu64 ": certificate %s exact %s (%s)", f->name,
                     kinds, options.layers, report.verdict_text, exact.verdict_text,
                     report.message);
    else
        ++expect_checks_;
    expect_u64_eq(info.expect, 0);
    uint64_t made = kinds & ALL ? f->kinds : kinds;
    if (options.expert_skew) made &= ~(uint64_t)RESIDUAL;
    if (options.kv_page) made &= ~(uint64_t)KV;
    char names[64], meta[96];
    ar_workload_in_place_name(made, names, sizeof names);
    snprintf(meta, sizeof meta, "\"in_place\":\"%s\"", names);
    expect_str_contains(plan->meta_json, meta);
    if (f->stages) {
        size_t renames = f->stages * ((made & NORM ? 1u : 0u) + (made & RESIDUAL ? 2u : 0u));
        expect_size_eq(plan->updates_count, renames);
        expect_size_eq(planes_with_becomes(plan), renames + (made & KV ? 1u : 0u));
    } else {
        size_t updates = check_flat_updates(plan);
        expect_size_eq(plan->updates_count, updates);
        expect_u64_gt(updates, 0);
    }
    expect_u64_eq(report.executed_launches, info.executed_launches);
    expect_u64_eq(report.instances, info.instances);
    expect_u64_le(info.lower_bound_bytes, info.workspace_bytes);
    ar_plan_free(plan);
}

/* The fault: its verdict by construction (2 + n + k, past every launch), from both checks,
 * naming the update; the same plan as with the fault's kind asked for. With `also` (more
 * kinds), the verdict still agrees. */
static void check_fault(family_t const *f, ar_workload_options_t options, uint64_t also) {
    options.family = f->name;
    options.fault = fault;
    options.in_place = also;
    ar_plan_t *plan = NULL, *asked = NULL;
    ar_workload_info_t info;
    ar_plan_error_t error;
    if (ar_workload_generate(&options, &plan, &info, &error) != ar_status_success_k) {
        expect_fail_("%s %s: %s", f->name, fault, error.message);
        return;
    }
    ar_certify_report_t report, exact;
    verdicts(plan, &report, &exact);
    expect_u64_gt(info.expect, 2 + info.launches);
    if (report.verdict != info.expect || exact.verdict != info.expect || info.has_expect_exact)
        expect_fail_("%s %s (+%" PRIu64 ") L%" PRIu64 ": certificate %s exact %s, expected %s",
                     f->name, fault, also, options.layers, report.verdict_text, exact.verdict_text,
                     info.expect_text);
    else
        ++expect_checks_;
    expect_str_contains(report.message, "updated in place");
    expect_str_contains(report.message, f->left);
    if (!also) {
        options.in_place = f->fault_kind;
        expect_int_eq(ar_workload_generate(&options, &asked, NULL, NULL), ar_status_success_k);
        if (asked) expect_true(ar_plan_equal(plan, asked));
        ar_plan_free(asked);
    }
    ar_plan_free(plan);
}

/* The across-elements fault: the same update also reads across elements bytes it overwrites;
 * its verdict by construction (2 + n + k, k the update's first instance) from both checks,
 * naming it; exactly one plane says `reads`/`writes` (the update's), and without the fault the
 * same plan, less those lists, certifies. */
static void check_cross(family_t const *f, ar_workload_options_t options, uint64_t also) {
    options.family = f->name;
    options.fault = cross_fault;
    options.in_place = also;
    ar_plan_t *plan = NULL, *clean = NULL;
    ar_workload_info_t info;
    ar_plan_error_t error;
    if (ar_workload_generate(&options, &plan, &info, &error) != ar_status_success_k) {
        expect_fail_("%s %s: %s", f->name, cross_fault, error.message);
        return;
    }
    ar_certify_report_t report, exact;
    verdicts(plan, &report, &exact);
    expect_u64_gt(info.expect, 2 + info.launches);
    if (report.verdict != info.expect || exact.verdict != info.expect || info.has_expect_exact)
        expect_fail_("%s %s (+%" PRIu64 ") L%" PRIu64 ": certificate %s exact %s, expected %s (%s)",
                     f->name, cross_fault, also, options.layers, report.verdict_text,
                     exact.verdict_text, info.expect_text, report.message);
    else
        ++expect_checks_;
    expect_str_contains(report.message, "reads across elements bytes it overwrites");
    expect_str_contains(report.message, f->left);
    size_t listed = 0, at = SIZE_MAX;
    for (size_t i = 0; plan->plane_access && i < plan->planes_count; ++i)
        if (plan->plane_access[i].has_reads || plan->plane_access[i].has_writes) ++listed, at = i;
    expect_size_eq(listed, 1);
    if (at != SIZE_MAX) expect_true(plan->planes[at].updates);
    options.fault = NULL;
    options.in_place = also ? also : f->fault_kind;
    expect_int_eq(ar_workload_generate(&options, &clean, NULL, NULL), ar_status_success_k);
    if (clean) {
        expect_ptr_null(clean->plane_access);
        expect_size_eq(clean->planes_count, plan->planes_count);
        verdicts(clean, &report, &exact);
        expect_u64_eq(report.verdict, 0);
        expect_u64_eq(exact.verdict, 0);
    }
    ar_plan_free(clean);
    ar_plan_free(plan);
}

static void expect_refused(ar_workload_options_t options, char const *says) {
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    expect_int_eq(ar_workload_generate(&options, &plan, NULL, &error),
                  ar_status_invalid_argument_k);
    expect_ptr_null(plan);
    expect_str_contains(error.message, says);
}

static void check_names(void) {
    uint64_t kinds = 99;
    expect_true(ar_workload_in_place_parse("norm,kv", &kinds));
    expect_u64_eq(kinds, NORM | KV);
    expect_true(ar_workload_in_place_parse("all", &kinds));
    expect_u64_eq(kinds, ALL);
    expect_true(ar_workload_in_place_parse("residual,residual,elementwise", &kinds));
    expect_u64_eq(kinds, RESIDUAL | ELEMENTWISE);
    char const *const bad[] = {"", ",", "norm,", ",norm", "norm,,kv", "Norm", "bogus", "normx"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        kinds = 99;
        expect_false(ar_workload_in_place_parse(bad[i], &kinds));
        expect_u64_eq(kinds, 99);
    }
    expect_false(ar_workload_in_place_parse(NULL, &kinds));
    char text[64];
    ar_workload_in_place_name(NORM | RESIDUAL | KV, text, sizeof text);
    expect_str_eq(text, "norm,residual,kv");
    ar_workload_in_place_name(0, text, sizeof text);
    expect_str_eq(text, "");
}

int main(void) {
    check_names();
    char const *const presets[] = {"tiny", "small"};
    uint64_t const layers[] = {0, 1, 17};
    for (size_t i = 0; i < FAMILIES; ++i) {
        family_t const *f = &families[i];
        expect_true(ar_workload_fault_applies(f->name, fault));
        expect_true(ar_workload_fault_applies(f->name, cross_fault));
        for (size_t p = 0; p < 2; ++p)
            for (size_t l = 0; l < 3; ++l)
                for (uint64_t seed = 1; seed <= 2; ++seed) {
                    ar_workload_options_t options = {
                        .preset = presets[p], .layers = layers[l], .seed = seed};
                    for (uint64_t k = 1; k < ALL; k <<= 1)
                        if (f->kinds & k) check_clean(f, options, k);
                    check_clean(f, options, ALL);
                    check_clean(f, options, f->kinds | ALL);
                    check_fault(f, options, 0);
                    check_fault(f, options, ALL);
                    check_cross(f, options, 0);
                    check_cross(f, options, ALL);
                    /* Off: no plane updates in place. */
                    ar_plan_t *plan = NULL;
                    options.family = f->name;
                    expect_int_eq(ar_workload_generate(&options, &plan, NULL, NULL),
                                  ar_status_success_k);
                    if (plan) expect_size_eq(planes_with_becomes(plan), 0);
                    ar_plan_free(plan);
                }
        for (int s = 0; s < ar_place_strategy_count_k; ++s)
            check_clean(
                f,
                (ar_workload_options_t){.strategy = ar_place_strategy_name((ar_place_strategy_t)s)},
                ALL);
        /* The kinds it does not take are refused, naming them. */
        for (uint64_t k = 1; k < ALL; k <<= 1)
            if (!(f->kinds & k)) {
                char names[32];
                ar_workload_in_place_name(k, names, sizeof names);
                expect_refused((ar_workload_options_t){.family = f->name, .in_place = k}, names);
            }
    }
    /* Beside the other knobs: paged KV over epochs (kv refused, all without it), uneven experts
     * (residual refused, all without it), micro skew, recompute. */
    family_t const *decoder = &families[0], *moe = &families[1];
    ar_workload_options_t paged = {.kv_page = 4, .epochs = 4, .decode = 8};
    check_clean(decoder, paged, ALL);
    check_clean(decoder, paged, NORM | RESIDUAL);
    check_fault(decoder, paged, ALL);
    check_cross(decoder, paged, ALL);
    expect_refused((ar_workload_options_t){.family = "decoder", .kv_page = 4, .in_place = KV},
                   "kv_page");
    ar_workload_options_t skewed = {.expert_skew = 30, .seed = 3};
    check_clean(moe, skewed, ALL);
    check_clean(moe, skewed, NORM | KV);
    check_fault(moe, skewed, ALL);
    check_cross(moe, skewed, ALL);
    expect_refused(
        (ar_workload_options_t){.family = "moe", .expert_skew = 30, .in_place = RESIDUAL},
        "expert skew");
    ar_workload_options_t micro = {.micro_skew = 30, .micro = 4, .seed = 5};
    check_clean(&families[3], micro, ALL);
    check_fault(&families[3], micro, ALL);
    check_cross(&families[3], micro, ALL);
    ar_workload_options_t recompute = {.recompute = 1, .layers = 9};
    check_clean(&families[4], recompute, ALL);
    check_fault(&families[4], recompute, 0);
    check_cross(&families[4], recompute, 0);
    /* Flat at medium: elementwise updates near LiteRT's rate (16 to 31 in 98 to 389 ops). */
    ar_plan_t *plan = NULL;
    ar_workload_options_t flat = {.family = "flat", .preset = "medium", .in_place = ELEMENTWISE};
    expect_int_eq(ar_workload_generate(&flat, &plan, NULL, NULL), ar_status_success_k);
    if (plan) {
        size_t updates = check_flat_updates(plan);
        expect_u64_ge(updates, 600);  /* 6% of 10,000 ops */
        expect_u64_le(updates, 1500); /* 15% */
        printf("flat medium: %zu in-place ops of 10000\n", updates);
    }
    ar_plan_free(plan);

    expect_refused((ar_workload_options_t){.family = "decoder", .in_place = 32}, "in_place");
    return expect_finish();
}
