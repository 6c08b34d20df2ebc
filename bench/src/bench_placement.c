/* Placement strategies on real and generated instances: `placement/INSTANCE/STRATEGY` for
 * MiniMalloc's production instances (workloads/data/minimalloc, posed at 1,048,576 bytes, and
 * minimised as `placement/minimize/X/`), the large real ones (`placement/large/NAME/`), perfect
 * packings with a known optimum (`placement/packing/nN/`), real programs' malloc traces
 * (`placement/trace/NAME/`: workloads/data/traces, unpacked by scripts/bench) and
 * for each family preset of the profile (the plan's planes as a problem, ar_place_from_plan),
 * and for the knobs that make lifetimes interleave (pipeline micro skew, moe expert skew).
 * The time is one solve; the search runs once (capacity-fit, time limit 10 s quick, 60 s full),
 * the heuristics as often as the minimum time asks. Counters (bench/README.md): height,
 * lower_bound, height_over_lower_bound, height_over_capacity (instances with a capacity only),
 * fits, solve_s, nodes, and verdict: the certificate's verdict on the placement's plan
 * (ar_place_to_plan), which must be 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaref/place.h"
#include "arenaref/workloads.h"
#include "bench.h"
#include "bench_config.h"

#define PLACEMENT_CAPACITY 1048576u

typedef struct placement_case_t {
    char instance[64];
    char path[600]; /* a CSV, or "" for a family preset */
    char const *family, *preset;
    uint64_t micro_skew, expert_skew, kv_page, epochs; /* a knob's plan (0: off) */
    uint64_t capacity;                                 /* 0: minimise */
    size_t packing;                                    /* a perfect packing of this many (0: no) */
    ar_place_strategy_t strategy;
    bool io;             /* time reading the CSV and writing the placement (the trace family) */
    double read_s;       /* the first load's reading time */
    ar_place_csv_t *csv; /* loaded on first run */
    char error[2048];
} placement_case_t;

/* A perfect packing (ar_workload_packing, seed 1, a strip of 2^20 bytes over 1,000 times) as
 * CSV text, parsed as a file would be. */
static bool load_packing(placement_case_t *c) {
    size_t n = c->packing;
    ar_place_buffer_t *buffers = malloc(n * sizeof *buffers);
    uint64_t *offsets = malloc(n * sizeof *offsets);
    char *text = malloc(64 * n + 64);
    bool ok = buffers && offsets && text &&
              ar_workload_packing(n, 1, 1 << 20, 1000, buffers, offsets) == ar_status_success_k;
    if (ok) {
        size_t at = (size_t)sprintf(text, "id,lower,upper,size\n");
        for (size_t i = 0; i < n; ++i)
            at += (size_t)sprintf(text + at, "%zu,%llu,%llu,%llu\n", i,
                                  (unsigned long long)buffers[i].lower,
                                  (unsigned long long)buffers[i].upper,
                                  (unsigned long long)buffers[i].size);
        ar_place_csv_error_t error;
        ok = ar_place_csv_parse(text, at, &c->csv, &error) == ar_status_success_k;
        if (!ok) snprintf(c->error, sizeof c->error, "%s: %s", c->instance, error.message);
    } else {
        snprintf(c->error, sizeof c->error, "%s: cannot generate the packing", c->instance);
    }
    free(buffers), free(offsets), free(text);
    return ok;
}

static bool load(placement_case_t *c) {
    if (c->csv) return true;
    if (c->packing) return load_packing(c);
    if (c->path[0]) {
        ar_place_csv_error_t error;
        double start = bench_now_ns();
        if (ar_place_csv_read_file(c->path, &c->csv, &error) != ar_status_success_k) {
            snprintf(c->error, sizeof c->error, "%s: %s", c->path, error.message);
            return false;
        }
        c->read_s = (bench_now_ns() - start) * 1e-9;
        return true;
    }
    ar_plan_t *own = NULL; /* a knob's plan: generated here, not cached */
    ar_plan_t const *plan = NULL;
    if (c->micro_skew || c->expert_skew || c->kv_page) {
        ar_workload_options_t options = {.family = c->family,
                                         .preset = c->preset,
                                         .seed = BENCH_WORKLOAD_SEED,
                                         .epochs = c->epochs,
                                         .micro_skew = c->micro_skew,
                                         .expert_skew = c->expert_skew,
                                         .kv_page = c->kv_page};
        ar_plan_error_t error = {0};
        if (ar_workload_generate(&options, &own, NULL, &error) != ar_status_success_k || !own) {
            snprintf(c->error, sizeof c->error, "cannot generate %s: %s", c->instance,
                     error.message[0] ? error.message : "no message");
            return false;
        }
        plan = own;
    } else {
        bench_plan_t *entry = bench_plan_get(c->family, c->preset, NULL);
        if (!entry->plan) {
            snprintf(c->error, sizeof c->error, "%s", entry->error);
            return false;
        }
        plan = entry->plan;
    }
    char message[512];
    ar_status_t status = ar_place_from_plan(plan, &c->csv, message, sizeof message);
    ar_plan_free(own);
    if (status != ar_status_success_k) {
        snprintf(c->error, sizeof c->error, "%s: %s", c->instance, message);
        return false;
    }
    return true;
}

static void run_placement(gb_state_t *state, void *data) {
    placement_case_t *c = data;
    if (!load(c)) {
        gb_skip_with_error(state, c->error);
        return;
    }
    ar_place_problem_t const *problem = &c->csv->problem;
    uint64_t *offsets = malloc((problem->count + 1) * sizeof *offsets);
    if (!offsets) {
        gb_skip_with_error(state, "out of memory");
        return;
    }
    ar_place_options_t options;
    ar_place_options_default(&options);
    options.strategy = c->strategy;
    options.capacity = c->capacity;
    options.time_limit_s = strcmp(bench_profile.name, "full") == 0 ? 60.0 : 10.0;
    /* Counted, the search's limit is kept in clock reads (10,000 for 10 s): what the wall clock
     * let it do under callgrind would move its count from run to run. */
    if (gb_counting_instructions()) options.clock_tick_s = 1e-3;
    uint64_t alignment =
        c->csv->has_alignment && problem->count ? problem->buffers[0].alignment : 1;
    ar_place_result_t result;
    double seconds = 0;
    int64_t solves = 0;
    while (gb_keep_running(state, 1)) {
        if (ar_place(problem, &options, offsets, &result) != ar_status_success_k) {
            gb_skip_with_error(state, result.message);
            break;
        }
        seconds += result.seconds;
        ++solves;
    }
    if (gb_error_occurred(state) || !solves) {
        free(offsets);
        return;
    }
    ar_plan_t *plan = NULL;
    char message[512];
    ar_certify_report_t report;
    double verdict = -1;
    if (ar_place_to_plan(problem, (char const *const *)c->csv->ids, offsets, alignment,
                         0x7f0000000000ull, &plan, message,
                         sizeof message) == ar_status_success_k &&
        ar_certify(plan, NULL, &report) == ar_status_success_k)
        verdict = (double)report.verdict;
    ar_plan_free(plan);
    double write_s = -1;
    if (c->io) { /* the placement written once as a CSV with offsets */
        char path[700];
        snprintf(path, sizeof path, "%s/placement.csv", bench_temp_dir());
        FILE *file = fopen(path, "w");
        double start = bench_now_ns();
        bool written = file && ar_place_csv_write(file, c->csv, offsets);
        if (file && fclose(file) != 0) written = false;
        if (written) write_s = (bench_now_ns() - start) * 1e-9;
        remove(path);
    }
    free(offsets);
    if (c->io) {
        gb_set_counter(state, "read_s", c->read_s, gb_counter_default_k);
        gb_set_counter(state, "write_s", write_s, gb_counter_default_k);
    }
    gb_set_counter(state, "height", (double)result.height, gb_counter_default_k);
    gb_set_counter(state, "lower_bound", (double)result.lower_bound, gb_counter_default_k);
    gb_set_counter(state, "height_over_lower_bound",
                   result.lower_bound ? (double)result.height / (double)result.lower_bound : 1.0,
                   gb_counter_default_k);
    if (options.capacity)
        gb_set_counter(state, "height_over_capacity",
                       (double)result.height / (double)options.capacity, gb_counter_default_k);
    gb_set_counter(state, "fits", result.fits ? 1.0 : 0.0, gb_counter_default_k);
    gb_set_counter(state, "solve_s", seconds / (double)solves, gb_counter_default_k);
    gb_set_counter(state, "nodes", (double)result.nodes, gb_counter_default_k);
    gb_set_counter(state, "buffers", (double)problem->count, gb_counter_default_k);
    gb_set_counter(state, "verdict", verdict, gb_counter_default_k);
    if (verdict != 0) gb_skip_with_error(state, "the placement's plan is not certified");
}

typedef struct knobs_t {
    uint64_t micro_skew, expert_skew, kv_page, epochs;
} knobs_t;

static void add_case(char const *instance, char const *path, char const *family, char const *preset,
                     knobs_t knobs, uint64_t capacity, size_t packing, bool io) {
    for (int s = 0; s < ar_place_strategy_count_k; ++s) {
        placement_case_t *c = calloc(1, sizeof *c);
        if (!c) return;
        snprintf(c->instance, sizeof c->instance, "%s", instance);
        snprintf(c->path, sizeof c->path, "%s", path ? path : "");
        c->family = family;
        c->preset = preset;
        c->micro_skew = knobs.micro_skew;
        c->expert_skew = knobs.expert_skew;
        c->kv_page = knobs.kv_page;
        c->epochs = knobs.epochs;
        c->strategy = (ar_place_strategy_t)s;
        c->capacity = capacity;
        c->packing = packing;
        c->io = io;
        char title[160];
        snprintf(title, sizeof title, "placement/%s/%s", instance,
                 ar_place_strategy_name(c->strategy));
        gb_benchmark_t *b = gb_register(title, run_placement, c);
        if (!b) return;
        gb_unit(b, gb_time_unit_ms_k);
        gb_use_real_time(b);
        if (c->strategy == ar_place_search_k || c->strategy == ar_place_lns_k) gb_iterations_fixed(b, 1);
    }
}

static void add(char const *instance, char const *path, char const *family, char const *preset,
                knobs_t knobs) {
    add_case(instance, path, family, preset, knobs, path ? PLACEMENT_CAPACITY : 0, 0, false);
}

/* The trace family's instances come from $ARENAREF_TRACES/index.tsv (scripts/bench unpacks
 * them); the quick profile takes those up to this many buffers, the full one all. */
#define TRACE_QUICK_MAX_BUFFERS 25000u

static char trace_unavailable[1200];

static void run_trace_unavailable(gb_state_t *state, void *data) {
    (void)data;
    gb_skip_with_error(state, trace_unavailable);
}

static void register_traces(void) {
    char const *folder = getenv("ARENAREF_TRACES");
    char path[1100];
    FILE *file = NULL;
    size_t count = 0;
    if (!folder)
        snprintf(trace_unavailable, sizeof trace_unavailable,
                 "ARENAREF_TRACES is not set (scripts/bench unpacks workloads/data/traces with "
                 "workloads/tracer/family.py unpack and sets it)");
    else if (snprintf(path, sizeof path, "%s/index.tsv", folder), !(file = fopen(path, "r")))
        snprintf(trace_unavailable, sizeof trace_unavailable,
                 "no %s (workloads/tracer/family.py unpack writes it)", path);
    bool full = strcmp(bench_profile.name, "full") == 0;
    char line[1400];
    while (file && fgets(line, sizeof line, file)) {
        char name[64], program[64], csv[1024];
        unsigned long long buffers, bound;
        if (sscanf(line, "%63[^\t]\t%63[^\t]\t%llu\t%llu\t%1023[^\t\n]", name, program, &buffers,
                   &bound, csv) != 5)
            continue; /* the header */
        ++count;
        if (!full && buffers > TRACE_QUICK_MAX_BUFFERS) continue;
        char instance[80];
        snprintf(instance, sizeof instance, "trace/%s", name);
        add_case(instance, csv, NULL, NULL, (knobs_t){0}, 0, 0, true);
    }
    if (file) fclose(file);
    if (file && !count)
        snprintf(trace_unavailable, sizeof trace_unavailable, "%s lists no instance", path);
    if (trace_unavailable[0])
        gb_register("placement/trace/unavailable", run_trace_unavailable, NULL);
}

void bench_register_placement(void) {
    static char const *const instances[] = {"A", "B", "C", "D", "E", "F", "G", "H"};
    for (size_t i = 0; i < sizeof instances / sizeof *instances; ++i) {
        char path[600];
        snprintf(path, sizeof path, "%s/workloads/data/minimalloc/%s.1048576.csv",
                 ARENAREF_BENCH_SOURCE_DIR, instances[i]);
        add(instances[i], path, NULL, NULL, (knobs_t){0});
        /* The same instance minimised: the least height, no capacity. */
        char instance[64];
        snprintf(instance, sizeof instance, "minimize/%s", instances[i]);
        add_case(instance, path, NULL, NULL, (knobs_t){0}, 0, 0, false);
    }
    /* Real compilers' large instances (idealloc's, in the shared data folder: skipped with the
     * reason where it is absent), minimised; ARENAREF_PLACEMENT_LARGE names another folder. */
    static char const *const large[] = {"resnet50", "pangu_2.6B", "G_1"};
    char const *folder = getenv("ARENAREF_PLACEMENT_LARGE");
    for (size_t i = 0; i < sizeof large / sizeof *large; ++i) {
        char path[600], instance[64];
        if (folder)
            snprintf(path, sizeof path, "%s/%s.csv", folder, large[i]);
        else
            snprintf(path, sizeof path, "%s/../shared/data/placement-large/%s.csv",
                     ARENAREF_BENCH_SOURCE_DIR, large[i]);
        snprintf(instance, sizeof instance, "large/%s", large[i]);
        add_case(instance, path, NULL, NULL, (knobs_t){0}, 0, 0, false);
    }
    /* Perfect packings, optimum 2^20 by construction (height_over_lower_bound is over it). */
    static size_t const packings[] = {100, 1000, 300, 5000};
    size_t count = strcmp(bench_profile.name, "full") == 0 ? 4 : 2;
    for (size_t i = 0; i < count; ++i) {
        char instance[64];
        snprintf(instance, sizeof instance, "packing/n%zu", packings[i]);
        add_case(instance, NULL, NULL, NULL, (knobs_t){0}, 0, packings[i], false);
    }
    register_traces();
    for (char const *const *family = ar_workload_families(); *family; ++family)
        for (size_t p = 0; p < bench_profile.presets_count && p < 3; ++p) {
            char instance[64];
            snprintf(instance, sizeof instance, "%s-%s", *family, bench_profile.presets[p]);
            add(instance, NULL, *family, bench_profile.presets[p], (knobs_t){0});
        }
    /* The knobs whose lifetimes interleave, at a skew where the strategies differ. */
    for (size_t p = 0; p < bench_profile.presets_count && p < 3; ++p) {
        char instance[64];
        snprintf(instance, sizeof instance, "pipeline-skew30-%s", bench_profile.presets[p]);
        add(instance, NULL, "pipeline", bench_profile.presets[p], (knobs_t){.micro_skew = 30});
        snprintf(instance, sizeof instance, "moe-skew30-%s", bench_profile.presets[p]);
        add(instance, NULL, "moe", bench_profile.presets[p], (knobs_t){.expert_skew = 30});
        snprintf(instance, sizeof instance, "decoder-kv4x4-%s", bench_profile.presets[p]);
        add(instance, NULL, "decoder", bench_profile.presets[p],
            (knobs_t){.kv_page = 4, .epochs = 4});
    }
}
