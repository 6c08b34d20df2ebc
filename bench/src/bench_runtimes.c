/* Real runtimes' plans, one family each (tflite: LiteRT's arena, llama: llama.cpp's ggml-alloc,
 * xla: XLA's temp allocation, iree: IREE's packed transients),
 * read from the directory the family's variable names (scripts/bench exports them there once per
 * run, cached; index.tsv lists model, variant, plan, problem).
 *   certify/FAMILY/MODEL          the certificate on the clean plan (a regression entry)
 *   precision/FAMILY/MODEL        exact oracle vs certificate on the clean plan and two faults
 *   placement/FAMILY/MODEL/NAME   the same lifetimes placed by each strategy of place.h, beside
 *                                 the runtime's own planner (NAME litert, ggml-alloc, xla-temp,
 *                                 iree-pack) and the bound
 * A program the exporter refused (refused.tsv beside index.tsv: model, reason) is one skipped
 * certify/FAMILY/MODEL entry with the reason.
 * Plans are made by scripts, so the bench only reads files; without them the family is one
 * skipped entry with the reason. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaref/place.h"
#include "bench.h"

/* What differs between runtimes: where the plans are, the own planner's name, meta keys. */
typedef struct runtime_family_t {
    char const *name, *env, *exporter;
    char const *own;                 /* the runtime's own placement, as a strategy name */
    char const *own_key, *bound_key; /* meta paths: the own planner's bytes, max-live */
    char const *ops_key, *tensors_key, *planes_key, *class_key;
    char const *own_counter;  /* the own planner's bytes as a counter */
    char const *over_counter; /* height / the own planner's bytes */
    uint64_t alignment;       /* the runtime's offsets: ours placed the same way */
    char unavailable[1200];
} runtime_family_t;

static runtime_family_t families[] = {
    {"tflite", "ARENAREF_TFLITE_PLANS", "scripts/tflite-plan --export-all", "litert",
     "placement.planned_size", "placement.max_live", "program.nodes", "program.tensors",
     "counts.planes", "fault.expect_class", "litert_arena_bytes", "height_over_litert", 64, ""},
    {"llama", "ARENAREF_LLAMA_PLANS", "scripts/llama-plan --export-all", "ggml-alloc",
     "placement.planned_size", "placement.max_live", "counts.ops", "counts.values", "counts.planes",
     "fault.expect_class", "planned_size", "height_over_planned_size", 32, ""},
    {"xla", "ARENAREF_XLA_PLANS", "scripts/xla-plan --export-all", "xla-temp",
     "placement.planned_size", "placement.max_live", "counts.ops", "counts.values", "counts.planes",
     "fault.expect_class", "planned_size", "height_over_planned_size", 64, ""},
    /* IREE's own size: the most bytes of its packed transients held at once */
    {"iree", "ARENAREF_IREE_PLANS", "scripts/iree-plan --export-all", "iree-pack",
     "capture.iree_pack_peak", "placement.max_live", "counts.ops", "counts.values", "counts.planes",
     "fault.expect_class", "planned_size", "height_over_planned_size", 64, ""},
};

/* A program the exporter refused, with its reason. */
typedef struct runtime_refused_t {
    char reason[1024];
} runtime_refused_t;

typedef struct runtime_plan_t {
    char path[1024];
    ar_plan_t *plan;
    json_t *meta;
    bool loaded;
    char error[1200];
} runtime_plan_t;

typedef struct runtime_model_t {
    runtime_family_t *family;
    char name[96];
    runtime_plan_t clean, fault_b, fault_d;
    char problem[1024];
    ar_place_csv_t *csv; /* the problem, read on first use */
    char csv_error[1100];
} runtime_model_t;

typedef struct runtime_place_case_t {
    runtime_model_t *model;
    bool own;                     /* the runtime's own placement, not one of ours */
    ar_place_strategy_t strategy; /* ours */
} runtime_place_case_t;

static char const *plans_dir(runtime_family_t const *family) {
    char const *dir = getenv(family->env);
    return dir && *dir ? dir : NULL;
}

static bool load(runtime_plan_t *entry) {
    if (entry->loaded) return entry->plan != NULL;
    entry->loaded = true;
    ar_plan_error_t error = {0};
    ar_status_t status = ar_plan_load_file(entry->path, &entry->plan, &error);
    if (status != ar_status_success_k) {
        snprintf(entry->error, sizeof entry->error, "cannot load %.600s: %.500s", entry->path,
                 error.message[0] ? error.message : ar_status_name(status));
        entry->plan = NULL;
        return false;
    }
    json_error_t jerror;
    entry->meta = entry->plan->meta_json ? json_loads(entry->plan->meta_json, 0, &jerror) : NULL;
    if (!entry->meta) {
        snprintf(entry->error, sizeof entry->error, "%s has no meta (not from an exporter)",
                 entry->path);
        ar_plan_free(entry->plan);
        entry->plan = NULL;
        return false;
    }
    return true;
}

/* meta at a dotted path ("placement.planned_size"). */
static json_t *meta_get(runtime_plan_t const *entry, char const *path) {
    json_t *value = entry->meta;
    char key[64];
    while (value && *path) {
        size_t n = strcspn(path, ".");
        snprintf(key, sizeof key, "%.*s", (int)n, path);
        value = json_object_get(value, key);
        path += n + (path[n] == '.');
    }
    return value;
}

static double meta_number(runtime_plan_t const *entry, char const *path) {
    json_t *value = meta_get(entry, path);
    return json_is_number(value) ? json_number_value(value) : -1;
}

/* The verdict class a planted fault's meta expects: 'B' (verdict 1) or 'D' (2 + launches on). */
static char expected_class(runtime_plan_t const *entry, runtime_family_t const *family) {
    char const *text = json_string_value(meta_get(entry, family->class_key));
    return text ? text[0] : '0';
}

static char verdict_class(ar_plan_t const *plan, uint64_t verdict) {
    if (verdict == 0) return '0';
    if (verdict == 1) return 'B';
    return verdict >= 2 + plan->launches_count ? 'D' : 'C';
}

/* ---- the benchmarks ----------------------------------------------------------------------- */

static void model_counters(gb_state_t *state, runtime_model_t const *model) {
    runtime_plan_t const *entry = &model->clean;
    runtime_family_t const *family = model->family;
    gb_set_counter(state, "ops", meta_number(entry, family->ops_key), gb_counter_default_k);
    gb_set_counter(state, "tensors", meta_number(entry, family->tensors_key), gb_counter_default_k);
    gb_set_counter(state, "planes", meta_number(entry, family->planes_key), gb_counter_default_k);
    gb_set_counter(state, "launches", (double)entry->plan->launches_count, gb_counter_default_k);
    gb_set_counter(state, "words", (double)entry->plan->words_count, gb_counter_default_k);
    gb_set_counter(state, family->own_counter, meta_number(entry, family->own_key),
                   gb_counter_default_k);
    gb_set_counter(state, "lower_bound_bytes", meta_number(entry, family->bound_key),
                   gb_counter_default_k);
    gb_set_counter(state, "export_seconds", meta_number(entry, "export_seconds"),
                   gb_counter_default_k);
    /* What the report's side-by-side of two compilers' plans reads (-1 where absent). */
    gb_set_counter(state, "loops", meta_number(entry, "counts.loops"), gb_counter_default_k);
    gb_set_counter(state, "in_place_updates", meta_number(entry, "counts.in_place_updates"),
                   gb_counter_default_k);
    /* In-place updates that read across elements (reads in the plan), and those the capture
     * could not decide (it then reads the whole value): -1 where the plan does not say. */
    gb_set_counter(state, "updates_with_reads", meta_number(entry, "counts.updates_with_reads"),
                   gb_counter_default_k);
    gb_set_counter(state, "reads_undecided", meta_number(entry, "capture.reads_undecided"),
                   gb_counter_default_k);
    gb_set_counter(state, "kernel_launches", meta_number(entry, "capture.launches_written"),
                   gb_counter_default_k);
}

static void run_certify(gb_state_t *state, void *data) {
    runtime_model_t *model = data;
    if (!load(&model->clean)) {
        gb_skip_with_error(state, model->clean.error);
        return;
    }
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    ar_certify_report_t report;
    memset(&report, 0, sizeof report);
    while (gb_keep_running(state, 1)) {
        double start = bench_now_ns();
        ar_status_t status = ar_certify(model->clean.plan, &options, &report);
        bench_slowdown_since(start);
        if (status != ar_status_success_k) {
            char message[256];
            snprintf(message, sizeof message, "ar_certify refused %s/%s: %s", model->family->name,
                     model->name, ar_status_name(status));
            gb_skip_with_error(state, message);
            return;
        }
    }
    model_counters(state, model);
    gb_set_counter(state, "verdict", (double)report.verdict, gb_counter_default_k);
    gb_set_counter(state, "verdict_matches_expect", report.verdict == 0, gb_counter_default_k);
    gb_set_counter(state, "executed_launches", (double)report.executed_launches,
                   gb_counter_default_k);
    gb_set_counter(state, "words_per_second",
                   (double)gb_iterations(state) * (double)model->clean.plan->words_count,
                   gb_counter_rate_k);
}

static void run_precision(gb_state_t *state, void *data) {
    runtime_model_t *model = data;
    runtime_plan_t *plans[3] = {&model->clean, &model->fault_b, &model->fault_d};
    uint64_t exact_verdict[3], exact_sites[3], exact_accepted[3];
    for (int i = 0; i != 3; ++i) {
        if (!load(plans[i])) {
            gb_skip_with_error(state, plans[i]->error);
            return;
        }
        ar_certify_options_t options;
        ar_certify_options_default(&options);
        options.exact = options.all_sites = true;
        ar_certify_report_t report;
        if (ar_certify(plans[i]->plan, &options, &report) != ar_status_success_k) {
            gb_skip_with_error(state, "the exact oracle refused a runtime's plan");
            return;
        }
        exact_verdict[i] = report.verdict;
        exact_sites[i] = report.sites_checked;
        exact_accepted[i] = report.sites_accepted;
    }
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.all_sites = true;
    uint64_t sites = 0, exact_ok = 0, cert_ok = 0, exact_safe = 0, cert_safe = 0, unsound = 0;
    uint64_t classes_match = 0;
    bool first = true;
    while (gb_keep_running(state, 1)) {
        for (int i = 0; i != 3; ++i) {
            ar_certify_report_t report;
            double start = bench_now_ns();
            ar_status_t status = ar_certify(plans[i]->plan, &options, &report);
            bench_slowdown_since(start);
            if (status != ar_status_success_k) {
                gb_skip_with_error(state, "ar_certify refused a runtime's plan");
                return;
            }
            if (!first) continue;
            sites += exact_sites[i];
            exact_ok += exact_accepted[i];
            cert_ok += report.sites_accepted;
            exact_safe += exact_verdict[i] == 0;
            cert_safe += exact_verdict[i] == 0 && report.verdict == 0;
            unsound += exact_verdict[i] != 0 && report.verdict == 0;
            classes_match += verdict_class(plans[i]->plan, report.verdict) ==
                             expected_class(plans[i], model->family);
        }
        first = false;
    }
    gb_set_counter(state, "plans", 3, gb_counter_default_k);
    bench_precision_counters(state, sites, exact_ok, cert_ok, exact_safe, cert_safe, unsound);
    gb_set_counter(state, "verdict_classes_match", (double)classes_match, gb_counter_default_k);
    gb_set_counter(state, "fault_b_verdict", (double)exact_verdict[1], gb_counter_default_k);
    gb_set_counter(state, "fault_d_verdict", (double)exact_verdict[2], gb_counter_default_k);
}

/* The placement problem the exporter wrote beside the plan, read once per model. */
static ar_place_csv_t *problem_get(runtime_model_t *model, char *error, size_t cap) {
    if (model->csv || model->csv_error[0]) {
        snprintf(error, cap, "%s", model->csv_error);
        return model->csv;
    }
    ar_place_csv_error_t csv_error = {0};
    if (ar_place_csv_read_file(model->problem, &model->csv, &csv_error) != ar_status_success_k) {
        snprintf(model->csv_error, sizeof model->csv_error, "cannot read %.500s: %.500s",
                 model->problem, csv_error.message);
        model->csv = NULL;
    }
    snprintf(error, cap, "%s", model->csv_error);
    return model->csv;
}

static void run_placement(gb_state_t *state, void *data) {
    runtime_place_case_t const *c = data;
    char error[1200] = "";
    if (!load(&c->model->clean)) {
        gb_skip_with_error(state, c->model->clean.error);
        return;
    }
    ar_place_csv_t *csv = problem_get(c->model, error, sizeof error);
    if (!csv) {
        gb_skip_with_error(state, error);
        return;
    }
    ar_place_problem_t const *problem = &csv->problem;
    runtime_family_t const *family = c->model->family;
    double own = meta_number(&c->model->clean, family->own_key);
    uint64_t *offsets = calloc(problem->count ? problem->count : 1, sizeof *offsets);
    if (!offsets) {
        gb_skip_with_error(state, "out of memory");
        return;
    }
    ar_place_options_t options;
    ar_place_options_default(&options);
    options.strategy = c->strategy;
    options.alignment = family->alignment; /* the runtime's: offsets as it could use them */
    options.time_limit_s = strcmp(bench_profile.name, "full") == 0 ? 60.0 : 5.0;
    ar_place_result_t result = {0};
    while (gb_keep_running(state, 1)) {
        double start = bench_now_ns();
        if (c->own) {
            ar_place_lower_bound(problem); /* the runtime placed already: time the bound */
        } else if (ar_place(problem, &options, offsets, &result) != ar_status_success_k) {
            snprintf(error, sizeof error, "ar_place(%s) refused %s/%s: %s",
                     ar_place_strategy_name(c->strategy), family->name, c->model->name,
                     result.message);
            free(offsets);
            gb_skip_with_error(state, error);
            return;
        }
        bench_slowdown_since(start);
    }
    uint64_t bound = ar_place_lower_bound(problem);
    uint64_t top = c->own ? (uint64_t)own : ar_place_height(problem, offsets);
    bool valid = c->own || ar_place_check(problem, offsets, family->alignment, NULL);
    /* The certificate's verdict on the placement: the runtime's own plan, or ours as a plan. */
    ar_certify_report_t report;
    double verdict = -1;
    if (c->own) {
        if (ar_certify(c->model->clean.plan, NULL, &report) == ar_status_success_k)
            verdict = (double)report.verdict;
    } else {
        ar_plan_t *plan = NULL;
        char message[512];
        if (ar_place_to_plan(problem, (char const *const *)csv->ids, offsets, family->alignment,
                             0x7f0000000000ull, &plan, message,
                             sizeof message) == ar_status_success_k &&
            ar_certify(plan, NULL, &report) == ar_status_success_k)
            verdict = (double)report.verdict;
        ar_plan_free(plan);
    }
    free(offsets);
    size_t buffers = 0; /* rows of one group are one buffer: its first row counts it */
    for (size_t i = 0; i < problem->count; ++i) buffers += !csv->groups || csv->groups[i] == i;
    gb_set_counter(state, "buffers", (double)buffers, gb_counter_default_k);
    gb_set_counter(state, "rows", (double)problem->count, gb_counter_default_k);
    gb_set_counter(state, "height_bytes", (double)top, gb_counter_default_k);
    gb_set_counter(state, family->own_counter, own, gb_counter_default_k);
    gb_set_counter(state, "lower_bound_bytes", (double)bound, gb_counter_default_k);
    gb_set_counter(state, "height_over_lower_bound", bound ? (double)top / (double)bound : 0,
                   gb_counter_default_k);
    gb_set_counter(state, family->over_counter, own > 0 ? (double)top / own : 0,
                   gb_counter_default_k);
    gb_set_counter(state, "valid", valid, gb_counter_default_k);
    gb_set_counter(state, "verdict", verdict, gb_counter_default_k);
    if (!c->own) {
        gb_set_counter(state, "optimal", result.optimal, gb_counter_default_k);
        gb_set_counter(state, "nodes", (double)result.nodes, gb_counter_default_k);
    }
}

static void run_unavailable(gb_state_t *state, void *data) {
    runtime_family_t const *family = data;
    gb_skip_with_error(state, family->unavailable);
}

static runtime_model_t *models_read(runtime_family_t *family, size_t *count) {
    char path[1100];
    snprintf(path, sizeof path, "%s/index.tsv", plans_dir(family));
    FILE *file = fopen(path, "r");
    if (!file) {
        snprintf(family->unavailable, sizeof family->unavailable,
                 "no %s (scripts/bench exports it with %s)", path, family->exporter);
        return NULL;
    }
    runtime_model_t *models = NULL;
    char line[4200];
    *count = 0;
    while (fgets(line, sizeof line, file)) {
        char name[96], variant[32], plan[1024], problem[1024];
        if (sscanf(line, "%95[^\t]\t%31[^\t]\t%1023[^\t]\t%1023[^\t\n]", name, variant, plan,
                   problem) != 4 ||
            strcmp(name, "model") == 0)
            continue;
        runtime_model_t *model = *count ? &models[*count - 1] : NULL;
        if (!model || strcmp(model->name, name) != 0) {
            runtime_model_t *grown = realloc(models, (*count + 1) * sizeof *grown);
            if (!grown) break;
            models = grown;
            model = &models[(*count)++];
            memset(model, 0, sizeof *model);
            model->family = family;
            snprintf(model->name, sizeof model->name, "%s", name);
            snprintf(model->problem, sizeof model->problem, "%s", problem);
        }
        runtime_plan_t *entry = strcmp(variant, "clean") == 0     ? &model->clean
                                : strcmp(variant, "fault-B") == 0 ? &model->fault_b
                                : strcmp(variant, "fault-D") == 0 ? &model->fault_d
                                                                  : NULL;
        if (entry) snprintf(entry->path, sizeof entry->path, "%s", plan);
    }
    fclose(file);
    if (!*count)
        snprintf(family->unavailable, sizeof family->unavailable, "%s lists no model", path);
    return models;
}

static void run_refused(gb_state_t *state, void *data) {
    runtime_refused_t const *refused = data;
    gb_skip_with_error(state, refused->reason);
}

/* refused.tsv (model, reason), where the exporter writes one: a skipped entry each. */
static size_t register_refused(runtime_family_t const *family) {
    char path[1100], line[2200], name[256];
    snprintf(path, sizeof path, "%s/refused.tsv", plans_dir(family));
    FILE *file = fopen(path, "r");
    size_t count = 0;
    if (!file) return 0;
    while (fgets(line, sizeof line, file)) {
        char model[96], reason[1000];
        if (sscanf(line, "%95[^\t]\t%999[^\n]", model, reason) != 2 ||
            strcmp(model, "model") == 0)
            continue;
        runtime_refused_t *refused = calloc(1, sizeof *refused);
        if (!refused) break;
        snprintf(refused->reason, sizeof refused->reason, "refused: %s", reason);
        snprintf(name, sizeof name, "certify/%s/%s", family->name, model);
        if (gb_register(name, run_refused, refused)) ++count;
    }
    fclose(file);
    return count;
}

static void register_family(runtime_family_t *family) {
    size_t count = 0;
    runtime_model_t *models = NULL;
    char name[256];
    if (!plans_dir(family))
        snprintf(family->unavailable, sizeof family->unavailable,
                 "%s is not set (scripts/bench exports the plans with %s and sets it)", family->env,
                 family->exporter);
    else
        models = models_read(family, &count);
    if (plans_dir(family) && count) register_refused(family);
    if (!count) {
        snprintf(name, sizeof name, "certify/%s/unavailable", family->name);
        gb_register(name, run_unavailable, family);
        return;
    }
    for (size_t m = 0; m != count; ++m) {
        runtime_model_t *model = &models[m];
        snprintf(name, sizeof name, "certify/%s/%s", family->name, model->name);
        gb_benchmark_t *b = gb_register(name, run_certify, model);
        if (b) gb_repetitions(gb_unit(b, gb_time_unit_us_k), bench_profile.regression_repetitions);
        snprintf(name, sizeof name, "precision/%s/%s", family->name, model->name);
        if ((b = gb_register(name, run_precision, model))) gb_unit(b, gb_time_unit_us_k);
        for (int s = -1; s != (int)ar_place_strategy_count_k; ++s) {
            runtime_place_case_t *c = calloc(1, sizeof *c);
            if (!c) return;
            c->model = model;
            c->own = s < 0;
            c->strategy = c->own ? ar_place_greedy_by_size_k : (ar_place_strategy_t)s;
            snprintf(name, sizeof name, "placement/%s/%s/%s", family->name, model->name,
                     c->own ? family->own : ar_place_strategy_name(c->strategy));
            if (!(b = gb_register(name, run_placement, c))) continue;
            gb_unit(b, gb_time_unit_us_k);
            /* The search may run to its time limit: once; its height is deterministic. */
            if ((c->strategy == ar_place_search_k || c->strategy == ar_place_lns_k) && !c->own)
                gb_iterations_fixed(b, 1);
        }
    }
}

void bench_register_runtimes(void) {
    for (size_t f = 0; f != sizeof families / sizeof families[0]; ++f)
        register_family(&families[f]);
}
