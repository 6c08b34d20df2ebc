/* Certificate time: for each workload family and preset, side by side, the certificate
 * (ar_certify), the exact oracle, the JSON loader (ar_plan_load_file), a bare jansson parse of
 * the same file, and the floor: one pass that reads every parameter word once. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Each is its own benchmark (names `certify/FAMILY/PRESET`, `exact/…`, `load/…`, `jansson/…`,
 * `floor/…`) so Google Benchmark sizes and repeats it; plan-size facts are plain counters and
 * throughputs are rate counters. Ratios must come from one run, so `ratios/FAMILY/PRESET`
 * measures all of them in each of its iterations (process CPU time: on a shared machine wall
 * time also counts waiting for a core) and reports medians and their ratios as counters:
 * certify/load, certify/floor, load/jansson, and (D)-scaling, the time of the same plan with
 * every repeat's iterations x8 over x1 (both copies built through the builder, see
 * bench_plan_scaled). */

typedef enum cert_kind_t {
    kind_certify_k,
    kind_exact_k,
    kind_load_k,
    kind_jansson_k,
    kind_floor_k
} cert_kind_t;

typedef struct cert_case_t {
    char const *family, *preset;
    cert_kind_t kind;
} cert_case_t;

/* The exact oracle's limit here: enough for medium presets, small enough that a quick run never
 * waits minutes on one plan. The full profile uses the library's default. */
static uint64_t exact_limit(void) {
    return strcmp(bench_profile.name, "full") == 0 ? 0 : (1ull << 28);
}

static void plan_counters(gb_state_t *state, bench_plan_t const *entry) {
    ar_workload_info_t const *info = &entry->info;
    gb_set_counter(state, "words", (double)entry->plan->words_count, gb_counter_default_k);
    gb_set_counter(state, "launches", (double)entry->plan->launches_count, gb_counter_default_k);
    gb_set_counter(state, "repeats", (double)entry->plan->repeats_count, gb_counter_default_k);
    gb_set_counter(state, "references", (double)entry->plan->schedule_count, gb_counter_default_k);
    gb_set_counter(state, "executed_launches", (double)info->executed_launches,
                   gb_counter_default_k);
    gb_set_counter(state, "workspace_bytes", (double)info->workspace_bytes, gb_counter_default_k);
    gb_set_counter(state, "lower_bound_bytes", (double)info->lower_bound_bytes,
                   gb_counter_default_k);
}

static void run_certify(gb_state_t *state, cert_case_t const *c, bench_plan_t *entry) {
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.exact = c->kind == kind_exact_k;
    if (options.exact) options.exact_limit = exact_limit();
    ar_certify_report_t report;
    memset(&report, 0, sizeof report);
    while (gb_keep_running(state, 1)) {
        double start = bench_now_ns();
        ar_status_t status = ar_certify(entry->plan, &options, &report);
        bench_slowdown_since(start);
        if (status != ar_status_success_k) {
            char message[256];
            snprintf(message, sizeof message, "%s refused %s: %s",
                     options.exact ? "the exact oracle" : "ar_certify", entry->key,
                     ar_status_name(status));
            gb_skip_with_error(state, message);
            return;
        }
    }
    double iterations = (double)gb_iterations(state);
    plan_counters(state, entry);
    gb_set_counter(state, "words_per_second", iterations * (double)entry->plan->words_count,
                   gb_counter_rate_k);
    gb_set_counter(state, "launches_per_second", iterations * (double)entry->plan->launches_count,
                   gb_counter_rate_k);
    gb_set_counter(state, "executed_launches_per_second",
                   iterations * (double)report.executed_launches, gb_counter_rate_k);
    gb_set_counter(state, "verdict", (double)report.verdict, gb_counter_default_k);
    gb_set_counter(state, "verdict_matches_expect", report.verdict == entry->info.expect,
                   gb_counter_default_k);
    gb_set_counter(state, "instances", (double)report.instances, gb_counter_default_k);
    if (options.exact)
        gb_set_counter(state, "evaluations", (double)report.evaluations, gb_counter_default_k);
}

/* The floor: every parameter word read once, launch by launch, as a certificate must. */
static uint64_t read_every_word(ar_plan_t const *plan) {
    uint64_t sum = 0;
    for (size_t i = 0; i != plan->launches_count; ++i) {
        uint64_t const *words = plan->words + plan->launches[i].words_first;
        for (size_t w = 0; w != plan->launches[i].words_count; ++w) sum += words[w];
    }
    return sum;
}

static bool load_once(bench_plan_t *entry, char *message, size_t capacity) {
    ar_plan_t *plan = NULL;
    ar_plan_error_t error = {0};
    ar_status_t status = ar_plan_load_file(entry->json_path, &plan, &error);
    ar_plan_free(plan);
    if (status == ar_status_success_k) return true;
    snprintf(message, capacity, "ar_plan_load_file(%s) failed: %s", entry->key,
             error.message[0] ? error.message : ar_status_name(status));
    return false;
}

static bool jansson_once(bench_plan_t *entry, char *message, size_t capacity) {
    json_error_t error;
    json_t *root = json_load_file(entry->json_path, 0, &error);
    if (root) {
        json_decref(root);
        return true;
    }
    snprintf(message, capacity, "json_load_file(%s) failed: %s at line %d", entry->key, error.text,
             error.line);
    return false;
}

static void run_certify_case(gb_state_t *state, void *data) {
    cert_case_t const *c = data;
    bench_plan_t *entry = bench_plan_get(c->family, c->preset, NULL);
    if (!entry->plan) {
        gb_skip_with_error(state, entry->error);
        return;
    }
    char message[1200];
    switch (c->kind) {
    case kind_certify_k:
    case kind_exact_k: run_certify(state, c, entry); return;
    case kind_floor_k:
        while (gb_keep_running(state, 1)) {
            double start = bench_now_ns();
            bench_sink_u64(read_every_word(entry->plan));
            bench_slowdown_since(start);
        }
        plan_counters(state, entry);
        gb_set_counter(state, "words_per_second",
                       (double)gb_iterations(state) * (double)entry->plan->words_count,
                       gb_counter_rate_k);
        return;
    case kind_load_k:
    case kind_jansson_k:
        if (!bench_plan_json(entry)) {
            gb_skip_with_error(state, entry->error);
            return;
        }
        while (gb_keep_running(state, 1)) {
            double start = bench_now_ns();
            bool ok = c->kind == kind_load_k ? load_once(entry, message, sizeof message)
                                             : jansson_once(entry, message, sizeof message);
            bench_slowdown_since(start);
            if (!ok) {
                gb_skip_with_error(state, message);
                return;
            }
        }
        plan_counters(state, entry);
        gb_set_counter(state, "file_bytes", (double)entry->json_bytes, gb_counter_default_k);
        gb_set_bytes_processed(state, gb_iterations(state) * (int64_t)entry->json_bytes);
        return;
    }
}

/* The loader's peak memory: this executable re-run with --arenaref_load_peak=PATH reads its own
 * VmHWM (peak resident set of its fresh address space) before and after loading the plan and
 * prints the difference. A fresh process, because this one's peak already holds every plan made
 * so far. Returns bytes, or -1 when the child could not run. */
static double load_peak_bytes(char const *path) {
    /* /proc/PID/exe opens this very executable even if a rebuild replaced the file since. */
    char command[1400], line[128];
    snprintf(command, sizeof command, "'/proc/%ld/exe' '--arenaref_load_peak=%s'", (long)getpid(),
             path);
    FILE *pipe = popen(command, "r");
    if (!pipe) return -1;
    double bytes = -1;
    if (fgets(line, sizeof line, pipe)) bytes = strtod(line, NULL);
    return pclose(pipe) == 0 ? bytes : -1;
}

static double peak_resident_bytes(void) {
    FILE *file = fopen("/proc/self/status", "r");
    char line[256];
    double kib = -1;
    while (file && fgets(line, sizeof line, file))
        if (strncmp(line, "VmHWM:", 6) == 0) kib = strtod(line + 6, NULL);
    if (file) fclose(file);
    return kib * 1024.0;
}

int bench_load_peak_main(char const *path) {
    double before = peak_resident_bytes();
    ar_plan_t *plan = NULL;
    ar_plan_error_t error = {0};
    ar_status_t status = ar_plan_load_file(path, &plan, &error);
    double after = peak_resident_bytes();
    ar_plan_free(plan);
    if (status != ar_status_success_k) {
        fprintf(stderr, "arenaref_bench: %s\n", error.message);
        return 1;
    }
    printf("%.0f\n", after - before);
    return 0;
}

/* ---- ratios/FAMILY/PRESET ----------------------------------------------------------------- */

/* CPU nanoseconds per call of `certify` on `plan`, repeating short calls until 2 ms of CPU time
 * have passed so that a tiny plan's figure is not the clock's resolution. */
static double certify_ns(ar_plan_t const *plan, ar_certify_report_t *report, ar_status_t *status) {
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    double start = bench_now_ns(), cpu_start = bench_cpu_now_ns();
    uint64_t calls = 0;
    do {
        *status = ar_certify(plan, &options, report);
        ++calls;
    } while (*status == ar_status_success_k && bench_cpu_now_ns() - cpu_start < 2e6);
    bench_slowdown_since(start);
    return (bench_cpu_now_ns() - cpu_start) / (double)calls;
}

static double floor_ns(ar_plan_t const *plan) {
    double start = bench_now_ns(), cpu_start = bench_cpu_now_ns();
    uint64_t calls = 0;
    do {
        bench_sink_u64(read_every_word(plan));
        ++calls;
    } while (bench_cpu_now_ns() - cpu_start < 2e6);
    bench_slowdown_since(start);
    return (bench_cpu_now_ns() - cpu_start) / (double)calls;
}

static void run_ratios(gb_state_t *state, void *data) {
    cert_case_t const *c = data;
    bench_plan_t *entry = bench_plan_get(c->family, c->preset, NULL);
    if (!entry->plan || !bench_plan_json(entry)) {
        gb_skip_with_error(state, entry->error);
        return;
    }
    ar_plan_t *scaled1 = bench_plan_scaled(entry, 0), *scaled8 = bench_plan_scaled(entry, 1);
    if (!scaled1 || !scaled8) {
        gb_skip_with_error(state, entry->error);
        return;
    }
    enum { load_k, jansson_k, certify_k, floor_k, x1_k, x8_k, measures_k };
    static double samples[measures_k][64];
    size_t count = 0;
    char message[1200];
    ar_certify_report_t report, report1, report8;
    memset(&report, 0, sizeof report);
    report1 = report8 = report;
    ar_status_t status = ar_status_success_k, status1 = status, status8 = status;
    while (gb_keep_running(state, 1)) {
        if (count == 64) continue;
        double start = bench_now_ns(), cpu_start = bench_cpu_now_ns();
        if (!load_once(entry, message, sizeof message)) {
            gb_skip_with_error(state, message);
            return;
        }
        bench_slowdown_since(start);
        samples[load_k][count] = bench_cpu_now_ns() - cpu_start;
        start = bench_now_ns(), cpu_start = bench_cpu_now_ns();
        if (!jansson_once(entry, message, sizeof message)) {
            gb_skip_with_error(state, message);
            return;
        }
        bench_slowdown_since(start);
        samples[jansson_k][count] = bench_cpu_now_ns() - cpu_start;
        samples[certify_k][count] = certify_ns(entry->plan, &report, &status);
        samples[floor_k][count] = floor_ns(entry->plan);
        samples[x1_k][count] = certify_ns(scaled1, &report1, &status1);
        samples[x8_k][count] = certify_ns(scaled8, &report8, &status8);
        if (status != ar_status_success_k || status1 != ar_status_success_k ||
            status8 != ar_status_success_k) {
            snprintf(message, sizeof message, "ar_certify refused %s or its scaled copies: %s",
                     entry->key,
                     ar_status_name(status != ar_status_success_k    ? status
                                    : status1 != ar_status_success_k ? status1
                                                                     : status8));
            gb_skip_with_error(state, message);
            return;
        }
        ++count;
    }
    static char peak_key[128];
    static double peak_bytes = -1;
    if (strcmp(peak_key, entry->key) != 0) { /* once per plan, not per repetition */
        snprintf(peak_key, sizeof peak_key, "%s", entry->key);
        peak_bytes = load_peak_bytes(entry->json_path);
    }
    double median[measures_k];
    for (int m = 0; m != measures_k; ++m) median[m] = bench_median(samples[m], count);
    plan_counters(state, entry);
    gb_set_counter(state, "file_bytes", (double)entry->json_bytes, gb_counter_default_k);
    gb_set_counter(state, "samples", (double)count, gb_counter_default_k);
    gb_set_counter(state, "load_ns", median[load_k], gb_counter_default_k);
    gb_set_counter(state, "jansson_ns", median[jansson_k], gb_counter_default_k);
    gb_set_counter(state, "certify_ns", median[certify_k], gb_counter_default_k);
    gb_set_counter(state, "floor_ns", median[floor_k], gb_counter_default_k);
    gb_set_counter(state, "certify_x1_ns", median[x1_k], gb_counter_default_k);
    gb_set_counter(state, "certify_x8_ns", median[x8_k], gb_counter_default_k);
    gb_set_counter(state, "certify_over_load", median[certify_k] / median[load_k],
                   gb_counter_default_k);
    gb_set_counter(state, "certify_over_floor", median[certify_k] / median[floor_k],
                   gb_counter_default_k);
    gb_set_counter(state, "load_over_jansson", median[load_k] / median[jansson_k],
                   gb_counter_default_k);
    gb_set_counter(state, "d_scaling_x8", median[x8_k] / median[x1_k], gb_counter_default_k);
    gb_set_counter(state, "load_mb_per_s", (double)entry->json_bytes / median[load_k] * 1e3,
                   gb_counter_default_k);
    gb_set_counter(state, "jansson_mb_per_s", (double)entry->json_bytes / median[jansson_k] * 1e3,
                   gb_counter_default_k);
    if (peak_bytes >= 0) {
        gb_set_counter(state, "load_peak_bytes", peak_bytes, gb_counter_default_k);
        gb_set_counter(state, "load_peak_over_file", peak_bytes / (double)entry->json_bytes,
                       gb_counter_default_k);
    }
    gb_set_counter(state, "verdict", (double)report.verdict, gb_counter_default_k);
    gb_set_counter(state, "verdict_x1", (double)report1.verdict, gb_counter_default_k);
    gb_set_counter(state, "verdict_x8", (double)report8.verdict, gb_counter_default_k);
    gb_set_counter(state, "executed_launches_x1", (double)report1.executed_launches,
                   gb_counter_default_k);
    gb_set_counter(state, "executed_launches_x8", (double)report8.executed_launches,
                   gb_counter_default_k);
}

/* ---- decode_loop: 10^6 token references over a 96-layer repeat ------------------ */

static void run_decode_loop(gb_state_t *state, void *data) {
    (void)data;
    static ar_plan_t *plan;
    static ar_workload_info_t info;
    static char error_text[1200];
    if (!plan && !error_text[0]) {
        ar_workload_options_t options = {.family = "decoder",
                                         .preset = "small",
                                         .layers = 96,
                                         .decode = 1000000,
                                         .seed = BENCH_WORKLOAD_SEED};
        ar_plan_error_t error = {0};
        ar_status_t status = ar_workload_generate(&options, &plan, &info, &error);
        if (status != ar_status_success_k)
            snprintf(error_text, sizeof error_text, "cannot generate the decode loop: %s",
                     error.message[0] ? error.message : ar_status_name(status));
    }
    if (!plan) {
        gb_skip_with_error(state, error_text);
        return;
    }
    ar_certify_report_t report;
    memset(&report, 0, sizeof report);
    while (gb_keep_running(state, 1)) {
        double start = bench_now_ns();
        ar_status_t status = ar_certify(plan, NULL, &report);
        bench_slowdown_since(start);
        if (status != ar_status_success_k) {
            gb_skip_with_error(state, "ar_certify refused the decode loop");
            return;
        }
    }
    gb_set_counter(state, "references", (double)plan->schedule_count, gb_counter_default_k);
    gb_set_counter(state, "launches", (double)plan->launches_count, gb_counter_default_k);
    gb_set_counter(state, "words", (double)plan->words_count, gb_counter_default_k);
    gb_set_counter(state, "executed_launches", (double)report.executed_launches,
                   gb_counter_default_k);
    gb_set_counter(state, "instances", (double)report.instances, gb_counter_default_k);
    gb_set_counter(state, "verdict", (double)report.verdict, gb_counter_default_k);
    gb_set_counter(state, "verdict_matches_expect", report.verdict == info.expect,
                   gb_counter_default_k);
}

void bench_register_certify(void) {
    gb_benchmark_t *loop =
        gb_register("decode_loop/decoder/layers:96/tokens:1000000", run_decode_loop, NULL);
    if (loop)
        gb_repetitions(gb_unit(loop, gb_time_unit_ms_k), bench_profile.regression_repetitions);
    static char const *const kinds[] = {"certify", "exact", "load", "jansson", "floor"};
    /* Grouped by plan, so the plan cache generates each plan once. */
    for (char const *const *family = ar_workload_families(); *family; ++family) {
        for (size_t p = 0; p != bench_profile.presets_count; ++p) {
            char name[160];
            bool large = strcmp(bench_profile.presets[p], "large") == 0;
            for (int kind = kind_certify_k; kind <= kind_floor_k; ++kind) {
                cert_case_t *c = malloc(sizeof *c);
                if (!c) return;
                *c = (cert_case_t){*family, bench_profile.presets[p], (cert_kind_t)kind};
                snprintf(name, sizeof name, "%s/%s/%s", kinds[kind], *family,
                         bench_profile.presets[p]);
                gb_benchmark_t *b = gb_register(name, run_certify_case, c);
                if (!b) return;
                gb_unit(b, gb_time_unit_us_k);
                /* The regression set: the certificate, repeated for the U-test. Not the floor: it
                 * measures no project code, and a pass over a few hundred words varies by 10-20%
                 * from process to process (placement), which the U test would call significant. */
                bool regression = kind == kind_certify_k;
                int repetitions =
                    regression ? bench_profile.regression_repetitions : bench_profile.repetitions;
                /* A large plan takes seconds per call (its JSON is hundreds of MB): 3 suffice. */
                if (large && repetitions > 3) repetitions = 3;
                if (repetitions > 1) gb_repetitions(b, repetitions);
            }
            cert_case_t *c = malloc(sizeof *c);
            if (!c) return;
            *c = (cert_case_t){*family, bench_profile.presets[p], kind_certify_k};
            snprintf(name, sizeof name, "ratios/%s/%s", *family, bench_profile.presets[p]);
            gb_benchmark_t *b = gb_register(name, run_ratios, c);
            if (!b) return;
            gb_unit(b, gb_time_unit_ms_k);
            gb_iterations_fixed(
                b, large && bench_profile.ratio_samples > 3 ? 3 : bench_profile.ratio_samples);
        }
    }
}
