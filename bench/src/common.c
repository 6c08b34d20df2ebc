/* Shared helpers of the benchmark suite.
 *
 * Plans are generated on first use and kept in a small cache (a few slots, least recently used
 * goes first) because Google Benchmark calls a benchmark function several times (to size its
 * iteration count, once per repetition) and generating a large plan costs more than certifying
 * it; benchmarks are registered grouped by plan, so two slots suffice. The temp dir holds the
 * JSON files the loader benchmarks read; it is removed at exit. */
#define _GNU_SOURCE
#include "bench.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

bench_profile_t bench_profile;

double bench_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

double bench_cpu_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    return (double)now.tv_sec * 1e9 + (double)now.tv_nsec;
}

static int compare_doubles(void const *a, void const *b) {
    double x = *(double const *)a, y = *(double const *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, size_t count) {
    if (count == 0) return 0;
    qsort(values, count, sizeof *values, compare_doubles);
    return count % 2 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
}

void bench_sink_u64(uint64_t value) { __asm__ volatile("" : : "r"(value) : "memory"); }

double bench_slowdown_factor(void) {
    static double factor = -1;
    if (factor < 0) {
        char const *text = getenv("ARENAREF_BENCH_SLOWDOWN");
        double parsed = text ? strtod(text, NULL) : 1.0;
        factor = parsed > 1.0 && parsed < 100.0 ? parsed : 1.0;
    }
    return factor;
}

void bench_slowdown_since(double start_ns) {
    double factor = bench_slowdown_factor();
    if (factor <= 1.0) return;
    double until = start_ns + (bench_now_ns() - start_ns) * factor;
    while (bench_now_ns() < until) __asm__ volatile("" ::: "memory");
}

/* The planted extra certificate work, for checking that scripts/compare's instruction gate flags
 * a small real increase: the suite is linked with --wrap=ar_certify (CMakeLists.txt), so every
 * ar_certify the benchmarks call comes here; with ARENAREF_BENCH_EXTRA_PASS=F (0 < F <= 16) it
 * reads the first F x words_count parameter words again after the certificate (F > 1 wraps
 * around), as a certificate with one more pass over (part of) the words would. */
ar_status_t __real_ar_certify(ar_plan_t const *plan, ar_certify_options_t const *options,
                              ar_certify_report_t *report);
ar_status_t __wrap_ar_certify(ar_plan_t const *plan, ar_certify_options_t const *options,
                              ar_certify_report_t *report);

double bench_extra_pass(void) {
    static double passes = -1;
    if (passes < 0) {
        char const *text = getenv("ARENAREF_BENCH_EXTRA_PASS");
        double parsed = text ? strtod(text, NULL) : 0.0;
        passes = parsed > 0.0 && parsed <= 16.0 ? parsed : 0.0;
    }
    return passes;
}

ar_status_t __wrap_ar_certify(ar_plan_t const *plan, ar_certify_options_t const *options,
                              ar_certify_report_t *report) {
    ar_status_t status = __real_ar_certify(plan, options, report);
    double passes = bench_extra_pass();
    if (passes > 0 && plan && plan->words_count) {
        uint64_t count = (uint64_t)(passes * (double)plan->words_count), sum = 0;
        for (uint64_t i = 0; i != count; ++i) sum += plan->words[i % plan->words_count] ^ i;
        bench_sink_u64(sum);
    }
    return status;
}

/* ---- The temp dir ------------------------------------------------------------------------- */

static char temp_dir[256];

static void remove_temp_dir(void) {
    if (!temp_dir[0]) return;
    char command[300];
    snprintf(command, sizeof command, "rm -rf '%s'", temp_dir);
    if (system(command) != 0) fprintf(stderr, "arenaref_bench: could not remove %s\n", temp_dir);
}

/* SIGINT/SIGTERM: remove the plan files (hundreds of MB each) and the dir, then die of the
 * signal as before. unlink and rmdir are async-signal-safe. */
static void remove_temp_files_on_signal(int signal_number);

char const *bench_temp_dir(void) {
    if (!temp_dir[0]) {
        char const *base = getenv("TMPDIR");
        snprintf(temp_dir, sizeof temp_dir, "%s/arenaref-bench-XXXXXX",
                 base && *base ? base : "/tmp");
        if (!mkdtemp(temp_dir)) {
            fprintf(stderr, "arenaref_bench: cannot make a temp dir under %s: %s\n",
                    base && *base ? base : "/tmp", strerror(errno));
            temp_dir[0] = 0;
            return NULL;
        }
        atexit(remove_temp_dir);
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = remove_temp_files_on_signal;
        sigaction(SIGINT, &action, NULL);
        sigaction(SIGTERM, &action, NULL);
    }
    return temp_dir;
}

/* ---- The plan cache ----------------------------------------------------------------------- */

enum { plan_slots_k = 2 }; /* a large plan and its copies take gigabytes */
static bench_plan_t plan_slots[plan_slots_k];

static void remove_temp_files_on_signal(int signal_number) {
    for (size_t i = 0; i != plan_slots_k; ++i)
        if (plan_slots[i].json_path[0]) unlink(plan_slots[i].json_path);
    if (temp_dir[0]) rmdir(temp_dir);
    signal(signal_number, SIG_DFL);
    raise(signal_number);
}
static uint64_t plan_used[plan_slots_k], plan_clock;

static void plan_release(bench_plan_t *entry) {
    ar_plan_free(entry->plan);
    ar_plan_free(entry->scaled[0]);
    ar_plan_free(entry->scaled[1]);
    if (entry->json_path[0]) unlink(entry->json_path);
    memset(entry, 0, sizeof *entry);
}

bench_plan_t *bench_plan_get(char const *family, char const *preset, char const *fault) {
    char key[128];
    snprintf(key, sizeof key, "%s/%s/%s", family, preset, fault ? fault : "");
    size_t oldest = 0;
    for (size_t i = 0; i != plan_slots_k; ++i) {
        if (plan_slots[i].key[0] && strcmp(plan_slots[i].key, key) == 0) {
            plan_used[i] = ++plan_clock;
            return &plan_slots[i];
        }
        if (plan_used[i] < plan_used[oldest]) oldest = i;
    }
    bench_plan_t *entry = &plan_slots[oldest];
    plan_release(entry);
    plan_used[oldest] = ++plan_clock;
    snprintf(entry->key, sizeof entry->key, "%s", key);
    ar_workload_options_t options = {
        .family = family, .preset = preset, .seed = BENCH_WORKLOAD_SEED, .fault = fault};
    ar_plan_error_t error = {0};
    ar_status_t status = ar_workload_generate(&options, &entry->plan, &entry->info, &error);
    if (status != ar_status_success_k || !entry->plan) {
        snprintf(entry->error, sizeof entry->error, "cannot generate %s: %s (%s)", key,
                 error.message[0] ? error.message : "no message", ar_status_name(status));
        entry->plan = NULL;
    }
    return entry;
}

static uint64_t json_bytes_cap(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page / 12 : (uint64_t)1 << 30;
}

bool bench_plan_json(bench_plan_t *entry) {
    if (!entry->plan || entry->json_too_big) return false;
    if (entry->json_path[0]) return true;
    char const *dir = bench_temp_dir();
    if (!dir) {
        snprintf(entry->error, sizeof entry->error, "no temp dir for the plan's JSON");
        return false;
    }
    char path[512];
    snprintf(path, sizeof path, "%s/plan-%u.json", dir,
             (unsigned)(entry - plan_slots) + 100u * (unsigned)plan_clock);
    FILE *file = fopen(path, "wb");
    if (!file) {
        snprintf(entry->error, sizeof entry->error, "cannot write %s: %s", path, strerror(errno));
        return false;
    }
    ar_plan_error_t error = {0};
    ar_status_t status = ar_plan_write_file(entry->plan, file, &error);
    long size = ftell(file);
    if (fclose(file) != 0 || status != ar_status_success_k || size <= 0) {
        snprintf(entry->error, sizeof entry->error, "cannot write the plan %s as JSON: %s",
                 entry->key, error.message[0] ? error.message : ar_status_name(status));
        unlink(path);
        return false;
    }
    /* Reading a JSON file builds jansson's tree, many times the file's size: past a share of this
     * machine's memory the readers are skipped with the reason rather than risk the OOM killer. */
    uint64_t cap = json_bytes_cap();
    if ((uint64_t)size > cap) {
        snprintf(entry->error, sizeof entry->error,
                 "the plan's JSON is %.2f GB, past this machine's cap for reading it (%.2f GB: "
                 "physical memory / 12, "
                 "room for jansson's tree)",
                 (double)size / 1e9, (double)cap / 1e9);
        unlink(path);
        entry->json_too_big = true;
        return false;
    }
    snprintf(entry->json_path, sizeof entry->json_path, "%s", path);
    entry->json_bytes = (uint64_t)size;
    return true;
}

static int compare_sites(void const *a, void const *b) {
    ar_shift_t const *x = a, *y = b;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    return (x->word > y->word) - (x->word < y->word);
}

/* The copy of bench_plan_scaled: same tables, iterations x factor, shifts as zero deltas. */
static ar_status_t copy_scaled(ar_plan_t const *source, uint64_t factor, ar_plan_t **result) {
    ar_plan_t *plan = NULL;
    ar_status_t status = ar_plan_create(&plan);
    ar_shift_t *deltas = NULL;
    if (status != ar_status_success_k) return status;
#define TRY(call)                                                                                  \
    do {                                                                                           \
        status = (call);                                                                           \
        if (status != ar_status_success_k) goto done;                                              \
    } while (0)
    TRY(ar_plan_reserve(plan, source->launches_count, source->words_count, source->shifts_count));
    TRY(ar_plan_set_alignment(plan, source->alignment));
    for (size_t i = 0; i != source->windows_count; ++i)
        TRY(ar_plan_add_window(plan, source->windows[i].base, source->windows[i].size));
    for (size_t i = 0; i != source->globals_count; ++i)
        TRY(ar_plan_add_global(plan, source->globals[i].name, source->globals[i].base,
                               source->globals[i].size));
    for (size_t p = 0; p != source->phases_count; ++p) {
        ar_phase_t const *phase = &source->phases[p];
        TRY(ar_plan_add_phase(plan, phase->id));
        for (size_t i = phase->planes_first; i != phase->planes_first + phase->planes_count; ++i)
            TRY(ar_plan_add_plane(plan, source->planes[i].name, source->planes[i].base,
                                  source->planes[i].size, source->planes[i].carried));
    }
    for (size_t i = 0; i != source->launches_count; ++i) {
        ar_launch_t const *launch = &source->launches[i];
        TRY(ar_plan_add_launch(plan, launch->kernel, launch->phase_name,
                               source->words + launch->words_first, launch->words_count, NULL));
    }
    for (size_t r = 0; r != source->repeats_count; ++r) {
        ar_repeat_t const *repeat = &source->repeats[r];
        /* One zero delta per distinct (launch, word) the repeat names: frames may list a
         * site in several frames, so sort the sites and keep each once. */
        size_t count = 0;
        free(deltas);
        deltas = malloc((repeat->shifts_count ? repeat->shifts_count : 1) * sizeof *deltas);
        if (!deltas) {
            status = ar_status_out_of_memory_k;
            goto done;
        }
        for (size_t s = repeat->shifts_first; s != repeat->shifts_first + repeat->shifts_count; ++s)
            deltas[count++] = (ar_shift_t){source->shifts[s].launch, source->shifts[s].word, 0};
        if (repeat->has_frames && count > 1) {
            qsort(deltas, count, sizeof *deltas, compare_sites);
            size_t unique = 1;
            for (size_t k = 1; k != count; ++k)
                if (compare_sites(&deltas[k], &deltas[unique - 1]) != 0)
                    deltas[unique++] = deltas[k];
            count = unique;
        }
        uint64_t iterations =
            repeat->iterations > UINT64_MAX / factor ? UINT64_MAX : repeat->iterations * factor;
        TRY(ar_plan_add_repeat_deltas(plan, repeat->first, repeat->count, iterations, deltas,
                                      count));
    }
    for (size_t i = 0; i != source->schedule_count; ++i)
        TRY(ar_plan_add_reference(plan, source->schedule[i].first, source->schedule[i].count));
    TRY(ar_plan_finish(plan, NULL));
#undef TRY
done:
    free(deltas);
    if (status != ar_status_success_k) {
        ar_plan_free(plan);
        plan = NULL;
    }
    *result = plan;
    return status;
}

ar_plan_t *bench_plan_scaled(bench_plan_t *entry, int index) {
    if (!entry->plan || index < 0 || index > 1) return NULL;
    if (!entry->scaled[index]) {
        ar_status_t status = copy_scaled(entry->plan, index ? 8 : 1, &entry->scaled[index]);
        if (status != ar_status_success_k)
            snprintf(entry->error, sizeof entry->error, "cannot build the x%d copy of %s: %s",
                     index ? 8 : 1, entry->key, ar_status_name(status));
    }
    return entry->scaled[index];
}

void bench_precision_counters(gb_state_t *state, uint64_t sites, uint64_t exact_accepted,
                              uint64_t cert_accepted, uint64_t exact_safe, uint64_t cert_safe,
                              uint64_t unsound) {
    gb_set_counter(state, "sites", (double)sites, gb_counter_default_k);
    gb_set_counter(state, "sites_exact_accepted", (double)exact_accepted, gb_counter_default_k);
    gb_set_counter(state, "sites_certificate_accepted", (double)cert_accepted,
                   gb_counter_default_k);
    gb_set_counter(state, "site_precision",
                   exact_accepted ? (double)cert_accepted / (double)exact_accepted : 1.0,
                   gb_counter_default_k);
    gb_set_counter(state, "plans_exact_safe", (double)exact_safe, gb_counter_default_k);
    gb_set_counter(state, "plans_certificate_safe", (double)cert_safe, gb_counter_default_k);
    gb_set_counter(state, "plan_precision",
                   exact_safe ? (double)cert_safe / (double)exact_safe : 1.0, gb_counter_default_k);
    gb_set_counter(state, "unsound_plans", (double)unsound, gb_counter_default_k);
}
