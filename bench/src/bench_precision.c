/* Interval-hull precision: how much the certificate's hulls cost against the exact oracle.
 *
 * For each family, the plan set is its clean medium plan plus every fault that applies to the
 * family and is a precision probe (the generator reports an exact verdict that differs,
 * `has_expect_exact`). The exact oracle runs once per plan with `all_sites` for the ground
 * truth; then `precision/FAMILY/few:K` certifies the whole set with few = K each iteration.
 * Its counters are deterministic: sites and plans the exact oracle accepts, how many of those
 * the certificate accepts and their shares, hull slack bytes, hull and point counts. Only
 * `time_saved_vs_exact` (1 - certificate time / exact time, both measured in this run) is a
 * timing. The plans are owned here, not by the plan cache, since every `few` reuses them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define PRECISION_PRESET "medium"

typedef struct precision_plan_t {
    ar_plan_t *plan;
    char name[64];
    bool exact_ok; /* the exact oracle gave a verdict (not refused) */
    uint64_t exact_verdict, exact_sites, exact_accepted;
    double exact_ns;
} precision_plan_t;

typedef struct precision_family_t {
    char const *family;
    bool ready;
    char error[1200];
    precision_plan_t *plans;
    size_t plans_count;
    uint64_t refused;
} precision_family_t;

static void measure_exact(precision_plan_t *entry) {
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.exact = true;
    options.all_sites = true;
    ar_certify_report_t report;
    double best = 0;
    for (int run = 0; run != 3; ++run) {
        double start = bench_now_ns();
        ar_status_t status = ar_certify(entry->plan, &options, &report);
        double elapsed = bench_now_ns() - start;
        if (status != ar_status_success_k) return;
        best = run == 0 || elapsed < best ? elapsed : best;
        if (elapsed > 2e9) break; /* one slow measurement is enough */
    }
    entry->exact_ok = true;
    entry->exact_verdict = report.verdict;
    entry->exact_sites = report.sites_checked;
    entry->exact_accepted = report.sites_accepted;
    entry->exact_ns = best;
}

static bool add_plan(precision_family_t *family, char const *fault) {
    ar_workload_options_t options = {.family = family->family,
                                     .preset = PRECISION_PRESET,
                                     .seed = BENCH_WORKLOAD_SEED,
                                     .fault = fault};
    ar_workload_info_t info;
    ar_plan_error_t error = {0};
    ar_plan_t *plan = NULL;
    ar_status_t status = ar_workload_generate(&options, &plan, &info, &error);
    if (status != ar_status_success_k) {
        snprintf(family->error, sizeof family->error, "cannot generate %s/%s/%s: %s",
                 family->family, PRECISION_PRESET, fault ? fault : "clean",
                 error.message[0] ? error.message : ar_status_name(status));
        return false;
    }
    if (fault && !info.has_expect_exact) { /* not a precision probe */
        ar_plan_free(plan);
        return true;
    }
    precision_plan_t *grown = realloc(family->plans, (family->plans_count + 1) * sizeof *grown);
    if (!grown) {
        ar_plan_free(plan);
        snprintf(family->error, sizeof family->error, "out of memory");
        return false;
    }
    family->plans = grown;
    precision_plan_t *entry = &family->plans[family->plans_count++];
    memset(entry, 0, sizeof *entry);
    entry->plan = plan;
    snprintf(entry->name, sizeof entry->name, "%s", fault ? fault : "clean");
    measure_exact(entry);
    if (!entry->exact_ok) ++family->refused;
    return true;
}

static bool prepare(precision_family_t *family) {
    if (family->ready) return !family->error[0];
    family->ready = true;
    if (!add_plan(family, NULL)) return false;
    for (char const *const *fault = ar_workload_faults(); *fault; ++fault)
        if (ar_workload_fault_applies(family->family, *fault) && !add_plan(family, *fault))
            return false;
    return true;
}

static void run_precision(gb_state_t *state, void *data) {
    precision_family_t *family = data;
    if (!prepare(family)) {
        gb_skip_with_error(state, family->error);
        return;
    }
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.all_sites = true;
    options.few = (uint64_t)gb_range(state, 0);
    uint64_t sites = 0, exact_accepted = 0, cert_accepted = 0, plans = 0, exact_safe = 0,
             cert_safe = 0;
    uint64_t slack = 0, hulls = 0, points = 0, unsound = 0;
    double cert_ns = 0, exact_ns = 0;
    bool first = true;
    while (gb_keep_running(state, 1)) {
        for (size_t i = 0; i != family->plans_count; ++i) {
            precision_plan_t const *entry = &family->plans[i];
            if (!entry->exact_ok) continue;
            ar_certify_report_t report;
            double start = bench_now_ns();
            ar_status_t status = ar_certify(entry->plan, &options, &report);
            bench_slowdown_since(start);
            cert_ns += bench_now_ns() - start;
            if (status != ar_status_success_k) {
                char message[200];
                snprintf(message, sizeof message, "ar_certify refused %s/%s: %s", family->family,
                         entry->name, ar_status_name(status));
                gb_skip_with_error(state, message);
                return;
            }
            if (!first) continue;
            /* Counted once: the figures are the same every iteration. */
            ++plans;
            sites += entry->exact_sites;
            exact_accepted += entry->exact_accepted;
            cert_accepted += report.sites_accepted;
            exact_safe += entry->exact_verdict == 0;
            cert_safe += entry->exact_verdict == 0 && report.verdict == 0;
            unsound += entry->exact_verdict != 0 && report.verdict == 0;
            slack += report.hull_slack_bytes;
            hulls += report.hulls;
            points += report.points;
            exact_ns += entry->exact_ns;
        }
        first = false;
    }
    cert_ns /= (double)(gb_iterations(state) ? gb_iterations(state) : 1);
    gb_set_counter(state, "few", (double)options.few, gb_counter_default_k);
    gb_set_counter(state, "plans", (double)plans, gb_counter_default_k);
    gb_set_counter(state, "plans_exact_refused", (double)family->refused, gb_counter_default_k);
    bench_precision_counters(state, sites, exact_accepted, cert_accepted, exact_safe, cert_safe,
                             unsound);
    gb_set_counter(state, "hull_slack_bytes", (double)slack, gb_counter_default_k);
    gb_set_counter(state, "hulls", (double)hulls, gb_counter_default_k);
    gb_set_counter(state, "points", (double)points, gb_counter_default_k);
    gb_set_counter(state, "exact_ns", exact_ns, gb_counter_default_k);
    gb_set_counter(state, "certificate_ns", cert_ns, gb_counter_default_k);
    gb_set_counter(state, "time_saved_vs_exact", exact_ns > 0 ? 1.0 - cert_ns / exact_ns : 0,
                   gb_counter_default_k);
}

void bench_register_precision(void) {
    static int64_t const few[] = {1, 2, 4, 8, 16, 64, 256};
    for (char const *const *name = ar_workload_families(); *name; ++name) {
        precision_family_t *family = calloc(1, sizeof *family);
        if (!family) return;
        family->family = *name;
        char title[96];
        snprintf(title, sizeof title, "precision/%s", *name);
        gb_benchmark_t *b = gb_register(title, run_precision, family);
        if (!b) return;
        for (size_t i = 0; i != sizeof few / sizeof *few; ++i) gb_arg(b, few[i]);
        gb_arg_name(b, "few");
        gb_unit(b, gb_time_unit_us_k);
    }
}
