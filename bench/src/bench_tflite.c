/* The tflite family: arena plans LiteRT's interpreter made for real models (scripts/tflite-plan),
 * read from the directory ARENAREF_TFLITE_PLANS names (scripts/bench exports every shipped model
 * there once per run, cached by model digest; index.tsv lists model, variant, plan, problem).
 *   certify/tflite/MODEL          the certificate on the clean plan (a regression entry)
 *   precision/tflite/MODEL        exact oracle vs certificate on the clean plan and two faults
 *   placement/tflite/MODEL/NAME   the same lifetimes placed by each of `arenacert place --list`'s
 *                                 strategies, beside LiteRT's own arena (NAME litert) and the
 *                                 max-live bound
 * Plans are made by Python, so the bench only reads files; without them each entry is skipped
 * with the reason. */
#define _GNU_SOURCE
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define TFLITE_MAX_STRATEGIES 32

typedef struct tflite_plan_t {
    char path[1024];
    ar_plan_t *plan;
    json_t *meta;
    bool loaded;
    char error[1200];
} tflite_plan_t;

typedef struct tflite_model_t {
    char name[96];
    tflite_plan_t clean, fault_b, fault_d;
    char problem[1024];
} tflite_model_t;

typedef struct tflite_place_case_t {
    tflite_model_t *model;
    char strategy[64]; /* "litert": LiteRT's own arena */
} tflite_place_case_t;

typedef struct tflite_buffer_t {
    uint64_t lower, upper, size, offset;
} tflite_buffer_t;

static char tflite_unavailable[1200];

static char const *plans_dir(void) {
    char const *dir = getenv("ARENAREF_TFLITE_PLANS");
    return dir && *dir ? dir : NULL;
}

static bool load(tflite_plan_t *entry) {
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
        snprintf(entry->error, sizeof entry->error, "%s has no meta (not from scripts/tflite-plan)",
                 entry->path);
        ar_plan_free(entry->plan);
        entry->plan = NULL;
        return false;
    }
    return true;
}

static double meta_number(tflite_plan_t const *entry, char const *key) {
    json_t *value = json_object_get(entry->meta, key);
    return json_is_number(value) ? json_number_value(value) : -1;
}

/* The verdict class a planted fault's meta expects: 'B' (verdict 1) or 'D' (2 + launches on). */
static char expected_class(tflite_plan_t const *entry) {
    char const *text = json_string_value(json_object_get(entry->meta, "expect_class"));
    return text ? text[0] : '0';
}

static char verdict_class(ar_plan_t const *plan, uint64_t verdict) {
    if (verdict == 0) return '0';
    if (verdict == 1) return 'B';
    return verdict >= 2 + plan->launches_count ? 'D' : 'C';
}

/* ---- the placement problem (id,lower,upper,size[,offset]) ----------------------------------- */

/* Reads a CSV with a header naming at least lower, upper and size (and offset if `offsets`). */
static size_t read_buffers(FILE *file, bool offsets, tflite_buffer_t **out, char *error,
                           size_t cap) {
    char line[512];
    int column[4] = {-1, -1, -1, -1}; /* lower, upper, size, offset */
    static char const *const names[4] = {"lower", "upper", "size", "offset"};
    if (!fgets(line, sizeof line, file)) {
        snprintf(error, cap, "empty CSV");
        return 0;
    }
    int index = 0;
    for (char *save = NULL, *field = strtok_r(line, ",\r\n", &save); field;
         field = strtok_r(NULL, ",\r\n", &save), ++index)
        for (int k = 0; k != 4; ++k)
            if (strcmp(field, names[k]) == 0) column[k] = index;
    for (int k = 0; k != (offsets ? 4 : 3); ++k)
        if (column[k] < 0) {
            snprintf(error, cap, "the CSV header has no '%s' column", names[k]);
            return 0;
        }
    size_t count = 0, capacity = 0;
    tflite_buffer_t *buffers = NULL;
    while (fgets(line, sizeof line, file)) {
        if (line[0] == '\n' || line[0] == '\0') continue;
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 64;
            tflite_buffer_t *grown = realloc(buffers, capacity * sizeof *grown);
            if (!grown) break;
            buffers = grown;
        }
        uint64_t values[4] = {0};
        index = 0;
        for (char *save = NULL, *field = strtok_r(line, ",\r\n", &save); field;
             field = strtok_r(NULL, ",\r\n", &save), ++index)
            for (int k = 0; k != 4; ++k)
                if (column[k] == index) values[k] = strtoull(field, NULL, 10);
        buffers[count++] = (tflite_buffer_t){values[0], values[1], values[2], values[3]};
    }
    *out = buffers;
    if (!count) snprintf(error, cap, "the CSV has no rows");
    return count;
}

/* The max-live bound: the largest sum of sizes live at one time ([lower, upper) half-open). */
static uint64_t max_live(tflite_buffer_t const *buffers, size_t count) {
    uint64_t best = 0;
    for (size_t i = 0; i != count; ++i) { /* the maximum is reached at some buffer's lower */
        uint64_t live = 0;
        for (size_t j = 0; j != count; ++j)
            if (buffers[j].lower <= buffers[i].lower && buffers[i].lower < buffers[j].upper)
                live += buffers[j].size;
        best = live > best ? live : best;
    }
    return best;
}

/* Height of a placement, and whether two buffers live at once share a byte (0 = valid). */
static uint64_t height(tflite_buffer_t const *buffers, size_t count, uint64_t *conflicts) {
    uint64_t top = 0;
    *conflicts = 0;
    for (size_t i = 0; i != count; ++i) {
        tflite_buffer_t const *a = &buffers[i];
        top = a->offset + a->size > top ? a->offset + a->size : top;
        for (size_t j = i + 1; j != count; ++j) {
            tflite_buffer_t const *b = &buffers[j];
            bool in_time = a->lower < b->upper && b->lower < a->upper;
            bool in_space = a->offset < b->offset + b->size && b->offset < a->offset + a->size;
            *conflicts += in_time && in_space && a->size && b->size;
        }
    }
    return top;
}

static char const *arenacert_path(void) {
    static char path[PATH_MAX];
    if (path[0]) return path;
    char const *given = getenv("ARENAREF_ARENACERT");
    if (given && *given) {
        snprintf(path, sizeof path, "%s", given);
        return path;
    }
    char self[PATH_MAX - 16];
    ssize_t length = readlink("/proc/self/exe", self, sizeof self - 1);
    if (length <= 0) return "arenacert";
    self[length] = '\0';
    char *slash = strrchr(self, '/');
    if (slash) *slash = '\0';
    snprintf(path, sizeof path, "%s/arenacert", self);
    return path;
}

/* ---- the benchmarks ----------------------------------------------------------------------- */

static void model_counters(gb_state_t *state, tflite_plan_t const *entry) {
    gb_set_counter(state, "ops", meta_number(entry, "ops"), gb_counter_default_k);
    gb_set_counter(state, "tensors", meta_number(entry, "tensors"), gb_counter_default_k);
    gb_set_counter(state, "planes", meta_number(entry, "planes"), gb_counter_default_k);
    gb_set_counter(state, "launches", (double)entry->plan->launches_count, gb_counter_default_k);
    gb_set_counter(state, "words", (double)entry->plan->words_count, gb_counter_default_k);
    gb_set_counter(state, "litert_arena_bytes", meta_number(entry, "arena_bytes"),
                   gb_counter_default_k);
    gb_set_counter(state, "lower_bound_bytes", meta_number(entry, "lower_bound_bytes"),
                   gb_counter_default_k);
    gb_set_counter(state, "export_seconds", meta_number(entry, "export_seconds"),
                   gb_counter_default_k);
}

static void run_certify(gb_state_t *state, void *data) {
    tflite_model_t *model = data;
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
            snprintf(message, sizeof message, "ar_certify refused tflite/%s: %s", model->name,
                     ar_status_name(status));
            gb_skip_with_error(state, message);
            return;
        }
    }
    model_counters(state, &model->clean);
    gb_set_counter(state, "verdict", (double)report.verdict, gb_counter_default_k);
    gb_set_counter(state, "verdict_matches_expect", report.verdict == 0, gb_counter_default_k);
    gb_set_counter(state, "executed_launches", (double)report.executed_launches,
                   gb_counter_default_k);
    gb_set_counter(state, "words_per_second",
                   (double)gb_iterations(state) * (double)model->clean.plan->words_count,
                   gb_counter_rate_k);
}

static void run_precision(gb_state_t *state, void *data) {
    tflite_model_t *model = data;
    tflite_plan_t *plans[3] = {&model->clean, &model->fault_b, &model->fault_d};
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
            gb_skip_with_error(state, "the exact oracle refused a tflite plan");
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
                gb_skip_with_error(state, "ar_certify refused a tflite plan");
                return;
            }
            if (!first) continue;
            sites += exact_sites[i];
            exact_ok += exact_accepted[i];
            cert_ok += report.sites_accepted;
            exact_safe += exact_verdict[i] == 0;
            cert_safe += exact_verdict[i] == 0 && report.verdict == 0;
            unsound += exact_verdict[i] != 0 && report.verdict == 0;
            classes_match +=
                verdict_class(plans[i]->plan, report.verdict) == expected_class(plans[i]);
        }
        first = false;
    }
    gb_set_counter(state, "plans", 3, gb_counter_default_k);
    gb_set_counter(state, "sites", (double)sites, gb_counter_default_k);
    gb_set_counter(state, "sites_exact_accepted", (double)exact_ok, gb_counter_default_k);
    gb_set_counter(state, "sites_certificate_accepted", (double)cert_ok, gb_counter_default_k);
    gb_set_counter(state, "site_precision", exact_ok ? (double)cert_ok / (double)exact_ok : 1.0,
                   gb_counter_default_k);
    gb_set_counter(state, "plans_exact_safe", (double)exact_safe, gb_counter_default_k);
    gb_set_counter(state, "plans_certificate_safe", (double)cert_safe, gb_counter_default_k);
    gb_set_counter(state, "plan_precision",
                   exact_safe ? (double)cert_safe / (double)exact_safe : 1.0, gb_counter_default_k);
    gb_set_counter(state, "unsound_plans", (double)unsound, gb_counter_default_k);
    gb_set_counter(state, "verdict_classes_match", (double)classes_match, gb_counter_default_k);
    gb_set_counter(state, "fault_b_verdict", (double)exact_verdict[1], gb_counter_default_k);
    gb_set_counter(state, "fault_d_verdict", (double)exact_verdict[2], gb_counter_default_k);
}

/* One placement by `arenacert place`, read back: its buffers with offsets, or 0 with error. */
static size_t place_once(tflite_place_case_t const *c, tflite_buffer_t **buffers, char *error,
                         size_t cap) {
    char command[2600];
    snprintf(command, sizeof command, "'%s' place '%s' --strategy '%s' 2>/dev/null",
             arenacert_path(), c->model->problem, c->strategy);
    FILE *pipe = popen(command, "r");
    if (!pipe) {
        snprintf(error, cap, "cannot run %.1000s", command);
        return 0;
    }
    size_t count = read_buffers(pipe, true, buffers, error, cap);
    int status = pclose(pipe);
    if (status != 0) {
        snprintf(error, cap, "arenacert place --strategy %s on %s failed (status %d)", c->strategy,
                 c->model->problem, status);
        free(*buffers);
        *buffers = NULL;
        return 0;
    }
    return count;
}

static void run_placement(gb_state_t *state, void *data) {
    tflite_place_case_t const *c = data;
    char error[1200] = "";
    if (!load(&c->model->clean)) {
        gb_skip_with_error(state, c->model->clean.error);
        return;
    }
    FILE *file = fopen(c->model->problem, "r");
    tflite_buffer_t *problem = NULL;
    size_t count = file ? read_buffers(file, false, &problem, error, sizeof error) : 0;
    if (file) fclose(file);
    if (!count) {
        char message[1400];
        snprintf(message, sizeof message, "cannot read %s: %s", c->model->problem,
                 file ? error : "no such file");
        gb_skip_with_error(state, message);
        free(problem);
        return;
    }
    double litert = meta_number(&c->model->clean, "arena_bytes");
    bool own = strcmp(c->strategy, "litert") == 0;
    uint64_t bound = 0, top = 0, conflicts = 0;
    while (gb_keep_running(state, 1)) {
        double start = bench_now_ns();
        if (own) {
            bound = max_live(problem, count); /* LiteRT placed already: time the bound */
        } else {
            tflite_buffer_t *placed = NULL;
            size_t placed_count = place_once(c, &placed, error, sizeof error);
            if (placed_count != count) {
                if (placed_count)
                    snprintf(error, sizeof error, "placed %zu buffers of %zu", placed_count, count);
                free(placed);
                free(problem);
                gb_skip_with_error(state, error);
                return;
            }
            top = height(placed, count, &conflicts);
            free(placed);
        }
        bench_slowdown_since(start);
    }
    if (!own) bound = max_live(problem, count);
    if (own) top = (uint64_t)litert;
    free(problem);
    gb_set_counter(state, "buffers", (double)count, gb_counter_default_k);
    gb_set_counter(state, "height_bytes", (double)top, gb_counter_default_k);
    gb_set_counter(state, "litert_arena_bytes", litert, gb_counter_default_k);
    gb_set_counter(state, "lower_bound_bytes", (double)bound, gb_counter_default_k);
    gb_set_counter(state, "height_over_lower_bound", bound ? (double)top / (double)bound : 0,
                   gb_counter_default_k);
    gb_set_counter(state, "height_over_litert", litert > 0 ? (double)top / litert : 0,
                   gb_counter_default_k);
    gb_set_counter(state, "overlaps", (double)conflicts, gb_counter_default_k);
}

static void run_unavailable(gb_state_t *state, void *data) {
    (void)data;
    gb_skip_with_error(state, tflite_unavailable);
}

/* The strategies `arenacert place --list` names: the first word of each line. */
static size_t list_strategies(char names[][64], size_t cap) {
    char command[PATH_MAX + 64], line[256];
    snprintf(command, sizeof command, "'%s' place --list 2>/dev/null", arenacert_path());
    FILE *pipe = popen(command, "r");
    if (!pipe) return 0;
    size_t count = 0;
    while (fgets(line, sizeof line, pipe))
        if (count != cap && sscanf(line, "%63s", names[count]) == 1 && names[count][0] != '#')
            ++count;
    return pclose(pipe) == 0 ? count : 0;
}

static tflite_model_t *models_read(size_t *count) {
    char path[1100];
    snprintf(path, sizeof path, "%s/index.tsv", plans_dir());
    FILE *file = fopen(path, "r");
    if (!file) {
        snprintf(tflite_unavailable, sizeof tflite_unavailable,
                 "no %s (scripts/bench exports it with scripts/tflite-plan --export-all)", path);
        return NULL;
    }
    tflite_model_t *models = NULL;
    char line[4200];
    *count = 0;
    while (fgets(line, sizeof line, file)) {
        char name[96], variant[32], plan[1024], problem[1024];
        if (sscanf(line, "%95[^\t]\t%31[^\t]\t%1023[^\t]\t%1023[^\t\n]", name, variant, plan,
                   problem) != 4 ||
            strcmp(name, "model") == 0)
            continue;
        tflite_model_t *model = *count ? &models[*count - 1] : NULL;
        if (!model || strcmp(model->name, name) != 0) {
            tflite_model_t *grown = realloc(models, (*count + 1) * sizeof *grown);
            if (!grown) break;
            models = grown;
            model = &models[(*count)++];
            memset(model, 0, sizeof *model);
            snprintf(model->name, sizeof model->name, "%s", name);
            snprintf(model->problem, sizeof model->problem, "%s", problem);
        }
        tflite_plan_t *entry = strcmp(variant, "clean") == 0     ? &model->clean
                               : strcmp(variant, "fault-B") == 0 ? &model->fault_b
                               : strcmp(variant, "fault-D") == 0 ? &model->fault_d
                                                                 : NULL;
        if (entry) snprintf(entry->path, sizeof entry->path, "%s", plan);
    }
    fclose(file);
    if (!*count) snprintf(tflite_unavailable, sizeof tflite_unavailable, "%s lists no model", path);
    return models;
}

void bench_register_tflite(void) {
    size_t count = 0;
    tflite_model_t *models = NULL;
    if (!plans_dir())
        snprintf(tflite_unavailable, sizeof tflite_unavailable,
                 "ARENAREF_TFLITE_PLANS is not set (scripts/bench exports the plans and sets it)");
    else
        models = models_read(&count);
    if (!count) {
        gb_register("certify/tflite/unavailable", run_unavailable, NULL);
        return;
    }
    static char strategies[TFLITE_MAX_STRATEGIES][64];
    size_t strategies_count = list_strategies(strategies, TFLITE_MAX_STRATEGIES);
    char name[256];
    for (size_t m = 0; m != count; ++m) {
        tflite_model_t *model = &models[m];
        snprintf(name, sizeof name, "certify/tflite/%s", model->name);
        gb_benchmark_t *b = gb_register(name, run_certify, model);
        if (b) gb_repetitions(gb_unit(b, gb_time_unit_us_k), bench_profile.regression_repetitions);
        snprintf(name, sizeof name, "precision/tflite/%s", model->name);
        if ((b = gb_register(name, run_precision, model))) gb_unit(b, gb_time_unit_us_k);
        for (size_t s = 0; s <= strategies_count; ++s) {
            tflite_place_case_t *c = calloc(1, sizeof *c);
            if (!c) return;
            c->model = model;
            snprintf(c->strategy, sizeof c->strategy, "%s", s == 0 ? "litert" : strategies[s - 1]);
            snprintf(name, sizeof name, "placement/tflite/%s/%s", model->name, c->strategy);
            /* One placement per run: a strategy may take seconds; its height is deterministic. */
            if ((b = gb_register(name, run_placement, c)))
                gb_iterations_fixed(gb_unit(b, gb_time_unit_ms_k), s ? 1 : 100);
        }
    }
}
