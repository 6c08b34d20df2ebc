/* `arenacert certify PLAN.json [--few K] [--exact] [--stats] [--json]` (CERTIFICATE.md §5).
 *
 * Loads the plan (all or nothing), certifies it, and prints `verdict: N` then the report's one
 * line saying which rule broke and where. Exit status: 0 certified, 1 rejected, 2 a malformed
 * plan, bad usage, an unreadable file, or the exact oracle refusing a plan over its limit (each
 * with its message on stderr; a malformed plan's message names the JSON path, and line:column for
 * syntax errors). `--stats` adds the report's counters, one `name: value` line each, after the
 * two lines; `--json` prints one JSON object instead (the same facts, machine-readable). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "arenaref/plan.h"
#include "commands.h"

static void certify_usage(FILE *out) {
    fprintf(out,
            "usage: arenacert certify PLAN.json [--few K] [--exact] [--stats] [--json]\n"
            "  PLAN.json   an arena-plan/1 file; \"-\" reads standard input\n"
            "  --few K     a repeat of at most K iterations gives one point per iteration\n"
            "              instead of a hull (1 <= K <= %" PRIu64 "; default %u)\n"
            "  --exact     the exact oracle: every word at every ordinal (slow, ground truth)\n"
            "  --stats     also print the report's counters\n"
            "  --json      print one JSON object instead of text\n"
            "exit status: 0 certified, 1 rejected, 2 malformed plan or bad usage\n",
            AR_CERTIFY_FEW_MAX, AR_CERTIFY_FEW_DEFAULT);
}

static int usage_error(char const *what, char const *detail) {
    fprintf(stderr, "arenacert certify: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    certify_usage(stderr);
    return 2;
}

/* A positive decimal integer that fits 64 bits; nothing else (no sign, no spaces, no suffix). */
static bool parse_positive(char const *text, uint64_t *value) {
    if (!text || !*text) return false;
    uint64_t result = 0;
    for (char const *at = text; *at; ++at) {
        if (*at < '0' || *at > '9') return false;
        unsigned digit = (unsigned)(*at - '0');
        if (result > (UINT64_MAX - digit) / 10) return false;
        result = result * 10 + digit;
    }
    if (result == 0) return false;
    *value = result;
    return true;
}

static char const *rule_name(ar_rule_t rule) {
    switch (rule) {
    case ar_rule_none_k: return "none";
    case ar_rule_a_k: return "A";
    case ar_rule_b_k: return "B";
    case ar_rule_c_k: return "C";
    case ar_rule_d_k: return "D";
    }
    return "unknown";
}

typedef struct counter_t {
    char const *name;
    uint64_t value;
} counter_t;

static size_t report_counters(ar_certify_report_t const *report, counter_t *counters) {
    counter_t all[] = {
        {"sites_checked", report->sites_checked},
        {"sites_accepted", report->sites_accepted},
        {"points", report->points},
        {"hulls", report->hulls},
        {"hull_slack_bytes", report->hull_slack_bytes},
        {"executed_launches", report->executed_launches},
        {"instances", report->instances},
        {"evaluations", report->evaluations},
    };
    memcpy(counters, all, sizeof all);
    return sizeof all / sizeof *all;
}

static void print_json_error(char const *kind, ar_plan_error_t const *error, char const *text) {
    json_t *object = json_pack("{s:s, s:s}", "error", kind, "message", text);
    if (object && error && error->path[0])
        json_object_set_new(object, "path", json_string(error->path));
    if (object && error && error->line > 0) {
        json_object_set_new(object, "line", json_integer(error->line));
        json_object_set_new(object, "column", json_integer(error->column));
    }
    if (object) {
        json_dumpf(object, stdout, JSON_COMPACT);
        fputc('\n', stdout);
        json_decref(object);
    }
}

int arenacert_certify_main(int argc, char **argv) {
    char const *plan_path = NULL;
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    bool stats = false, as_json = false;
    for (int i = 0; i < argc; ++i) {
        char const *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            certify_usage(stdout);
            return 0;
        }
        if (strcmp(arg, "--exact") == 0) {
            options.exact = true;
        } else if (strcmp(arg, "--stats") == 0) {
            stats = true;
        } else if (strcmp(arg, "--json") == 0) {
            as_json = true;
        } else if (strcmp(arg, "--few") == 0 || strncmp(arg, "--few=", 6) == 0) {
            char const *value = arg[5] == '=' ? arg + 6 : (i + 1 < argc ? argv[++i] : NULL);
            if (!value) return usage_error("--few needs a value", NULL);
            if (!parse_positive(value, &options.few))
                return usage_error("--few takes a positive integer (K >= 1), not", value);
            if (options.few > AR_CERTIFY_FEW_MAX) /* listing its points could take hours */
                return usage_error("--few is above its limit 16777216 (2^24)", value);
        } else if (arg[0] == '-' && arg[1] != '\0') {
            return usage_error("unknown option", arg);
        } else if (plan_path) {
            return usage_error("one plan at a time; extra argument", arg);
        } else {
            plan_path = arg;
        }
    }
    if (!plan_path) return usage_error("no plan given (PLAN.json, or - for standard input)", NULL);

    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    ar_status_t status = ar_plan_load_file(plan_path, &plan, &error);
    if (status) {
        char const *kind = status == ar_status_invalid_argument_k ? "malformed plan"
                           : status == ar_status_io_k             ? "cannot read the plan"
                                                                  : "cannot load the plan";
        fprintf(stderr, "arenacert certify: %s: %s: %s\n", kind,
                strcmp(plan_path, "-") == 0 ? "<stdin>" : plan_path, error.message);
        if (as_json)
            print_json_error(status == ar_status_invalid_argument_k ? "malformed" : "io", &error,
                             error.message);
        return 2;
    }

    ar_certify_report_t report;
    status = ar_certify(plan, &options, &report);
    ar_plan_free(plan);
    if (status) {
        fprintf(stderr, "arenacert certify: no verdict (%s): %s\n", ar_status_name(status),
                report.message);
        if (as_json) print_json_error(ar_status_name(status), NULL, report.message);
        return 2;
    }

    counter_t counters[16];
    size_t counters_count = report_counters(&report, counters);
    if (as_json) {
        json_t *object = json_object();
        /* The verdict as a number when it fits, with its exact decimal text beside it. */
        json_object_set_new(object, "verdict",
                            report.verdict < (uint64_t)INT64_MAX
                                ? json_integer((json_int_t)report.verdict)
                                : json_string(report.verdict_text));
        json_object_set_new(object, "verdict_text", json_string(report.verdict_text));
        json_object_set_new(object, "rule", json_string(rule_name(report.rule)));
        json_object_set_new(object, "message", json_string(report.message));
        json_object_set_new(
            object, "few",
            json_integer((json_int_t)(options.few > INT64_MAX ? INT64_MAX : options.few)));
        json_object_set_new(object, "exact", json_boolean(options.exact));
        json_t *counts = json_object();
        for (size_t i = 0; i < counters_count; ++i)
            json_object_set_new(
                counts, counters[i].name,
                json_integer(
                    (json_int_t)(counters[i].value > INT64_MAX ? INT64_MAX : counters[i].value)));
        json_object_set_new(object, "stats", counts);
        json_dumpf(object, stdout, JSON_COMPACT);
        fputc('\n', stdout);
        json_decref(object);
    } else {
        printf("verdict: %s\n%s\n", report.verdict_text, report.message);
        if (stats)
            for (size_t i = 0; i < counters_count; ++i)
                printf("%s: %" PRIu64 "\n", counters[i].name, counters[i].value);
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "arenacert certify: cannot write the result: %s\n", strerror(errno));
        return 2;
    }
    return report.rule == ar_rule_none_k ? 0 : 1;
}
