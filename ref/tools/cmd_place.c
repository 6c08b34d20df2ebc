/* `arenacert place|import|export-problem`: the placement library on files.
 *   place PROBLEM.csv    solve with a strategy; the rows and an offset column on stdout, a
 *                        summary on stderr; exit 1 when nothing fits the capacity
 *   import SOLUTION.csv  a placement as an arena-plan/1 plan (place.h: the encoding)
 *   export-problem PLAN  a plan's planes as a problem CSV, for other solvers
 * Bad input exits 2 with what and where (a CSV's line and column). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaref/place.h"
#include "arenaref/plan.h"
#include "commands.h"

#define PLACE_TIME_LIMIT_CLI 10.0
#define IMPORT_BASE_DEFAULT 0x7f0000000000ull

static void place_usage(FILE *out) {
    fprintf(
        out,
        "usage: arenacert place PROBLEM.csv [--strategy NAME] [--capacity BYTES]\n"
        "                       [--time-limit SECONDS] [--minimize] [--alignment N]\n"
        "                       [--seed N] [--moves N] [--threads N]\n"
        "       arenacert place --check SOLUTION.csv [--alignment N]\n"
        "       arenacert place --list\n"
        "  PROBLEM.csv     MiniMalloc's CSV: id|buffer, lower|start, upper|end, size\n"
        "                  [, alignment] [, group] [, offset (ignored)]; \"-\" reads standard\n"
        "                  input; ids are unique; rows with one group value are one buffer\n"
        "                  over disjoint lifetimes\n"
        "  --strategy      greedy-by-size, greedy-by-breadth, first-fit, best-fit, search or\n"
        "                  lns (large-neighbourhood search, for large instances; default\n"
        "                  search)\n"
        "  --capacity      the placement must fit in [0, BYTES); exit 1 when none is found\n"
        "  --time-limit    every strategy: return the best valid placement found by then,\n"
        "                  reading and writing aside (default %g s)\n"
        "  --minimize      search, lns: with --capacity, go on lowering the height once it\n"
        "                  fits\n"
        "  --seed N        lns: its random choices (default 0)\n"
        "  --moves N       lns: stop after N moves (with a seed: the same answer every run,\n"
        "                  unless the time limit comes first)\n"
        "  --threads N     search, lns: N workers side by side, the strategy as one thread\n"
        "                  runs it, the other of search and lns, lns with other seeds;\n"
        "                  the lowest height wins, the first to meet the goal stops the rest\n"
        "                  (default 1; at most %d)\n"
        "  --alignment     every offset a multiple of N (a power of two) at least\n"
        "  --list          the strategies, one per line\n"
        "  --check         judge the CSV's offset column instead (ar_place_check): height,\n"
        "                  lower bound, valid yes/no and the rows that break it (line and\n"
        "                  id); exit 0 valid, 1 invalid\n"
        "stdout: the rows with an offset column (id,lower,upper,size[,alignment][,group],\n"
        "offset); stderr: strategy, buffers (and rows, where a group has several), height,\n"
        "lower bound, their ratio, fits, optimal, nodes, seconds.\n"
        "exit status: 0 placed (within the capacity), 1 none within the capacity, 2 bad input\n",
        PLACE_TIME_LIMIT_CLI, AR_PLACE_THREADS_MAX);
}

static void import_usage(FILE *out) {
    fprintf(out,
            "usage: arenacert import SOLUTION.csv [--alignment N] [--base ADDR]\n"
            "  SOLUTION.csv    a problem CSV with an offset column (\"-\": standard input)\n"
            "  --alignment N   the plan's alignment (a power of two; default 1)\n"
            "  --base ADDR     the arena's address, decimal or 0x hex (default 0x%llx)\n"
            "stdout: an arena-plan/1 plan that `arenacert certify` accepts exactly when the\n"
            "placement is valid: one phase per distinct start time with one launch, each buffer\n"
            "declared fresh where it starts and carried at the last start before its end.\n"
            "Rows of one group are one buffer: one plane name (its first row's id), declared\n"
            "for each row. A row whose offset breaks its own alignment column, or rows of one\n"
            "group at two offsets, are reported here (exit 1): a plan has one alignment, a name\n"
            "one base.\n"
            "exit status: 0 written, 1 misaligned row or one group at two offsets, 2 bad input\n",
            (unsigned long long)IMPORT_BASE_DEFAULT);
}

static void export_usage(FILE *out) {
    fprintf(
        out,
        "usage: arenacert export-problem PLAN.json [--no-offsets]\n"
        "  PLAN.json      an arena-plan/1 plan (\"-\": standard input)\n"
        "  --no-offsets   leave out the offset column (the plan's own placement)\n"
        "stdout: a row per plane name and run: live from the first phase (in the plan's phase\n"
        "order) that declares it, or a later one declaring it fresh, to one past the last\n"
        "declaring it before the next fresh one; its size, the plan's alignment where above 1,\n"
        "its offset from the lowest plane. A name's later runs are ids NAME.1, NAME.2, ...;\n"
        "where a name has several, a group column gives every row its name.\n"
        "exit status: 0 written, 2 bad input\n");
}

static int bad(char const *command, void (*usage)(FILE *), char const *what, char const *detail) {
    fprintf(stderr, "arenacert %s: %s%s%s\n", command, what, detail ? ": " : "",
            detail ? detail : "");
    if (usage) usage(stderr);
    return 2;
}

/* Decimal, or 0x hex; the whole text; 64 bits. */
static bool parse_u64(char const *text, uint64_t *value) {
    if (!text || !*text || *text == '-' || *text == '+' || *text == ' ') return false;
    errno = 0;
    char *end = NULL;
    bool hex = text[0] == '0' && text[1] == 'x';
    unsigned long long v = strtoull(hex ? text + 2 : text, &end, hex ? 16 : 10);
    if (errno || !end || *end || end == (hex ? text + 2 : text)) return false;
    *value = v;
    return true;
}

static bool parse_seconds(char const *text, double *value) {
    if (!text || !*text) return false;
    char *end = NULL;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || !end || *end || !(v > 0) || v > 1e9) return false;
    *value = v;
    return true;
}

/* The value of an option given as `--name VALUE` or `--name=VALUE`; NULL when missing. */
static char const *option_value(int argc, char **argv, int *i, char const *name) {
    size_t length = strlen(name);
    if (argv[*i][length] == '=') return argv[*i] + length + 1;
    return *i + 1 < argc ? argv[++*i] : NULL;
}

static bool is_option(char const *arg, char const *name) {
    size_t length = strlen(name);
    return strncmp(arg, name, length) == 0 && (arg[length] == '\0' || arg[length] == '=');
}

static int read_csv(char const *command, char const *path, ar_place_csv_t **csv) {
    ar_place_csv_error_t error;
    ar_status_t status = ar_place_csv_read_file(path, csv, &error);
    if (status == ar_status_success_k) return 0;
    fprintf(stderr, "arenacert %s: %s: %s\n", command, strcmp(path, "-") ? path : "<stdin>",
            error.message);
    return 2;
}

/* `place --check`: the offset column judged by ar_place_check; 0 valid, 1 not, 2 no column. */
static int check_placement(char const *path, ar_place_csv_t const *csv, uint64_t alignment) {
    if (!csv->offsets) {
        fprintf(stderr, "arenacert place: %s: --check needs an offset column\n", path);
        return 2;
    }
    ar_place_problem_t const *problem = &csv->problem;
    ar_place_violation_t violation;
    bool valid = ar_place_check(problem, csv->offsets, alignment, &violation);
    uint64_t height = ar_place_height(problem, csv->offsets);
    uint64_t bound = ar_place_lower_bound(problem);
    printf("height: %" PRIu64 "\nlower_bound: %" PRIu64 "\nheight/lower_bound: %.6f\nvalid: %s\n",
           height, bound, bound ? (double)height / (double)bound : 1.0, valid ? "yes" : "no");
    if (!valid && violation.second == SIZE_MAX)
        printf("misaligned: line %zu (id %s)\n", csv->lines[violation.first],
               csv->ids[violation.first]);
    else if (!valid)
        printf("overlap: lines %zu and %zu (ids %s and %s)\n", csv->lines[violation.first],
               csv->lines[violation.second], csv->ids[violation.first], csv->ids[violation.second]);
    return valid ? 0 : 1;
}

int arenacert_place_main(int argc, char **argv) {
    char const *path = NULL;
    bool check = false;
    ar_place_options_t options;
    ar_place_options_default(&options);
    options.strategy = ar_place_search_k;
    options.time_limit_s = PLACE_TIME_LIMIT_CLI;
    for (int i = 0; i < argc; ++i) {
        char const *arg = argv[i], *value;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            place_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--list") == 0) {
            for (int s = 0; s < ar_place_strategy_count_k; ++s)
                printf("%s\n", ar_place_strategy_name((ar_place_strategy_t)s));
            return 0;
        } else if (strcmp(arg, "--minimize") == 0) {
            options.minimize = true;
        } else if (strcmp(arg, "--check") == 0) {
            check = true;
        } else if (is_option(arg, "--strategy")) {
            value = option_value(argc, argv, &i, "--strategy");
            if (!value) return bad("place", place_usage, "--strategy needs a name", NULL);
            if (!ar_place_strategy_from_name(value, &options.strategy))
                return bad("place", place_usage, "unknown strategy (see --list)", value);
        } else if (is_option(arg, "--capacity")) {
            value = option_value(argc, argv, &i, "--capacity");
            if (!parse_u64(value, &options.capacity) || options.capacity == 0)
                return bad("place", place_usage, "--capacity takes a positive byte count", value);
        } else if (is_option(arg, "--time-limit")) {
            value = option_value(argc, argv, &i, "--time-limit");
            if (!parse_seconds(value, &options.time_limit_s))
                return bad("place", place_usage, "--time-limit takes positive seconds", value);
        } else if (is_option(arg, "--seed")) {
            value = option_value(argc, argv, &i, "--seed");
            if (!parse_u64(value, &options.seed))
                return bad("place", place_usage, "--seed takes a non-negative integer", value);
        } else if (is_option(arg, "--moves")) {
            value = option_value(argc, argv, &i, "--moves");
            if (!parse_u64(value, &options.max_moves) || !options.max_moves)
                return bad("place", place_usage, "--moves takes a positive integer", value);
        } else if (is_option(arg, "--threads")) {
            value = option_value(argc, argv, &i, "--threads");
            uint64_t threads = 0;
            if (!parse_u64(value, &threads) || !threads || threads > AR_PLACE_THREADS_MAX)
                return bad("place", place_usage, "--threads takes 1 to 64", value);
            options.threads = (unsigned)threads;
        } else if (is_option(arg, "--alignment")) {
            value = option_value(argc, argv, &i, "--alignment");
            if (!parse_u64(value, &options.alignment) || !options.alignment ||
                (options.alignment & (options.alignment - 1)) ||
                options.alignment >= AR_PLACE_MAX_BYTES)
                return bad("place", place_usage, "--alignment takes a power of two", value);
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return bad("place", place_usage, "unknown option", arg);
        } else if (path) {
            return bad("place", place_usage, "one problem at a time; extra argument", arg);
        } else {
            path = arg;
        }
    }
    if (!path) return bad("place", place_usage, "no problem given (PROBLEM.csv or -)", NULL);
    ar_place_csv_t *csv = NULL;
    int rc = read_csv("place", path, &csv);
    if (rc) return rc;
    if (check) {
        rc = check_placement(path, csv, options.alignment);
        ar_place_csv_free(csv);
        return rc;
    }
    uint64_t *offsets = malloc((csv->problem.count + 1) * sizeof *offsets);
    ar_place_result_t result;
    ar_status_t status =
        offsets ? ar_place(&csv->problem, &options, offsets, &result) : ar_status_out_of_memory_k;
    if (status != ar_status_success_k) {
        fprintf(stderr, "arenacert place: %s: %s\n", path,
                offsets ? result.message : "out of memory");
        free(offsets);
        ar_place_csv_free(csv);
        return 2;
    }
    size_t buffers = 0;
    for (size_t i = 0; i < csv->problem.count; ++i) buffers += !csv->groups || csv->groups[i] == i;
    fprintf(stderr, "strategy: %s\nbuffers: %zu\n", ar_place_strategy_name(options.strategy),
            buffers);
    if (options.threads > 1) fprintf(stderr, "threads: %u\n", options.threads);
    if (csv->groups) fprintf(stderr, "rows: %zu\n", csv->problem.count);
    fprintf(stderr, "height: %" PRIu64 "\nlower_bound: %" PRIu64 "\nheight/lower_bound: %.4f\n",
            result.height, result.lower_bound,
            result.lower_bound ? (double)result.height / (double)result.lower_bound : 1.0);
    if (options.capacity)
        fprintf(stderr, "capacity: %" PRIu64 "\nfits: %s\n", options.capacity,
                result.fits ? "yes" : "no");
    fprintf(stderr, "optimal: %s\nnodes: %" PRIu64 "\nseconds: %.3f\n",
            result.optimal ? "yes" : "not proven", result.nodes, result.seconds);
    rc = 0;
    if (!result.fits) {
        fprintf(stderr,
                "arenacert place: no placement within capacity %" PRIu64
                " found (best height %" PRIu64 ")\n",
                options.capacity, result.height);
        rc = 1;
    } else if (!ar_place_csv_write(stdout, csv, offsets)) {
        fprintf(stderr, "arenacert place: cannot write the placement: %s\n", strerror(errno));
        rc = 2;
    }
    free(offsets);
    ar_place_csv_free(csv);
    return rc;
}

/* The rows of one group that hold bytes share one offset (a plane name has one base): 1 naming
 * both lines when they do not, 2 out of memory, else 0. */
static int one_offset_per_group(char const *path, ar_place_csv_t const *csv) {
    size_t n = csv->problem.count, *head = malloc((n + 1) * sizeof *head);
    if (!head) {
        fprintf(stderr, "arenacert import: out of memory\n");
        return 2;
    }
    for (size_t i = 0; i < n; ++i) head[i] = SIZE_MAX;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; ++i) {
        ar_place_buffer_t const *row = &csv->rows[i];
        if (!row->size || row->lower >= row->upper) continue;
        size_t *first = &head[csv->groups[i]];
        if (*first == SIZE_MAX) {
            *first = i;
        } else if (csv->offsets[*first] != csv->offsets[i]) {
            fprintf(stderr,
                    "arenacert import: %s: line %zu: offset %" PRIu64 " where line %zu has %" PRIu64
                    " (rows of group %s are one buffer, at one offset)\n",
                    path, csv->lines[i], csv->offsets[i], csv->lines[*first], csv->offsets[*first],
                    csv->group_names[i]);
            rc = 1;
        }
    }
    free(head);
    return rc;
}

int arenacert_import_main(int argc, char **argv) {
    char const *path = NULL;
    uint64_t alignment = 1, base = IMPORT_BASE_DEFAULT;
    for (int i = 0; i < argc; ++i) {
        char const *arg = argv[i], *value;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            import_usage(stdout);
            return 0;
        } else if (is_option(arg, "--alignment")) {
            value = option_value(argc, argv, &i, "--alignment");
            if (!parse_u64(value, &alignment) || !alignment || (alignment & (alignment - 1)) ||
                alignment >= AR_PLACE_MAX_BYTES)
                return bad("import", import_usage, "--alignment takes a power of two", value);
        } else if (is_option(arg, "--base")) {
            value = option_value(argc, argv, &i, "--base");
            if (!parse_u64(value, &base))
                return bad("import", import_usage, "--base takes an address (decimal or 0x hex)",
                           value);
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return bad("import", import_usage, "unknown option", arg);
        } else if (path) {
            return bad("import", import_usage, "one solution at a time; extra argument", arg);
        } else {
            path = arg;
        }
    }
    if (!path) return bad("import", import_usage, "no solution given (SOLUTION.csv or -)", NULL);
    ar_place_csv_t *csv = NULL;
    int rc = read_csv("import", path, &csv);
    if (rc) return rc;
    if (!csv->offsets) {
        fprintf(stderr, "arenacert import: %s: no offset column (a solution has one)\n", path);
        ar_place_csv_free(csv);
        return 2;
    }
    for (size_t i = 0; i < csv->problem.count; ++i) {
        uint64_t a = csv->rows[i].alignment;
        if (a > 1 && csv->rows[i].size && csv->rows[i].lower < csv->rows[i].upper &&
            csv->offsets[i] % a) {
            fprintf(stderr,
                    "arenacert import: %s: line %zu: offset %" PRIu64
                    " is not a multiple of the row's alignment %" PRIu64 "\n",
                    path, csv->lines[i], csv->offsets[i], a);
            ar_place_csv_free(csv);
            return 1;
        }
    }
    if (csv->groups && (rc = one_offset_per_group(path, csv))) {
        ar_place_csv_free(csv);
        return rc;
    }
    ar_plan_t *plan = NULL;
    char message[512];
    ar_status_t status =
        ar_place_to_plan(&csv->problem, (char const *const *)csv->ids, csv->offsets, alignment,
                         base, &plan, message, sizeof message);
    ar_place_csv_free(csv);
    if (status != ar_status_success_k) {
        fprintf(stderr, "arenacert import: %s: %s\n", path, message);
        return 2;
    }
    ar_plan_error_t error;
    status = ar_plan_write_file(plan, stdout, &error);
    ar_plan_free(plan);
    if (status != ar_status_success_k || fflush(stdout) != 0) {
        fprintf(stderr, "arenacert import: cannot write the plan: %s\n", error.message);
        return 2;
    }
    return 0;
}

int arenacert_export_problem_main(int argc, char **argv) {
    char const *path = NULL;
    bool offsets = true;
    for (int i = 0; i < argc; ++i) {
        char const *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            export_usage(stdout);
            return 0;
        } else if (strcmp(arg, "--no-offsets") == 0) {
            offsets = false;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return bad("export-problem", export_usage, "unknown option", arg);
        } else if (path) {
            return bad("export-problem", export_usage, "one plan at a time; extra argument", arg);
        } else {
            path = arg;
        }
    }
    if (!path) return bad("export-problem", export_usage, "no plan given (PLAN.json or -)", NULL);
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    ar_status_t status = ar_plan_load_file(path, &plan, &error);
    if (status != ar_status_success_k) {
        fprintf(stderr, "arenacert export-problem: %s: %s\n", strcmp(path, "-") ? path : "<stdin>",
                error.message);
        return 2;
    }
    ar_place_csv_t *csv = NULL;
    char message[512];
    status = ar_place_from_plan(plan, &csv, message, sizeof message);
    ar_plan_free(plan);
    if (status != ar_status_success_k) {
        fprintf(stderr, "arenacert export-problem: %s: %s\n", path, message);
        return 2;
    }
    bool ok = ar_place_csv_write(stdout, csv, offsets ? csv->offsets : NULL);
    ar_place_csv_free(csv);
    if (!ok) {
        fprintf(stderr, "arenacert export-problem: cannot write: %s\n", strerror(errno));
        return 2;
    }
    return 0;
}
