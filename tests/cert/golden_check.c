/* golden_check PLAN.json ARENACERT: one golden plan, checked through the library and the CLI.
 * The plan's top-level "meta" says what it expects (read from the raw text, so a plan with a
 * syntax error can too): "expect" (a verdict, decimal text for huge ones, "malformed", or
 * "refused" for options past a limit), "expect_exact", "few", "expect_path",
 * "expect_message", and "why" (required). Checks: load or refusal (path, message); the
 * certificate and the exact oracle's verdicts; load -> write -> load gives the same plan and
 * verdict; `ARENACERT certify PLAN [--few K]` and `certify - --exact < PLAN` print
 * `verdict: N` first and exit 0/1 (2, naming the path, for a malformed plan). Where rule D is
 * reached and the schedule executes at most ARP_NAIVE_D_LAUNCH_LIMIT launches, rule D's naive
 * twin gives the same instance and plane. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "../../ref/src/cert/certify_internal.h"
#include "arenaref/plan.h"
#include "expect.h"

typedef struct expectation_t {
    bool malformed, refused;
    char verdict[AR_VERDICT_TEXT_SIZE], verdict_exact[AR_VERDICT_TEXT_SIZE];
    uint64_t few;
    char const *path, *message, *why;
    json_t *meta;
} expectation_t;

static char *read_text(char const *path, size_t *length) {
    FILE *file = fopen(path, "rb");
    if (!file) return NULL;
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    rewind(file);
    char *text = malloc((size_t)size + 1);
    if (text && fread(text, 1, (size_t)size, file) != (size_t)size) {
        free(text);
        text = NULL;
    }
    fclose(file);
    if (text) {
        text[size] = '\0';
        *length = (size_t)size;
    }
    return text;
}

/* A verdict as decimal text from an integer or a decimal string. */
static bool verdict_text(json_t const *value, char *out, size_t size) {
    if (json_is_integer(value) && json_integer_value(value) >= 0) {
        snprintf(out, size, "%lld", (long long)json_integer_value(value));
        return true;
    }
    if (json_is_string(value) &&
        strspn(json_string_value(value), "0123456789") == strlen(json_string_value(value)) &&
        json_string_length(value) > 0) {
        snprintf(out, size, "%s", json_string_value(value));
        return true;
    }
    return false;
}

static void read_expectation(char const *text, expectation_t *e) {
    memset(e, 0, sizeof *e);
    e->few = AR_CERTIFY_FEW_DEFAULT;
    char const *at = strstr(text, "\"meta\"");
    require_true(at != NULL); /* every golden plan says what it expects */
    at += 6;
    while (*at == ' ' || *at == '\n' || *at == '\t' || *at == '\r') ++at;
    require_true(*at == ':');
    ++at;
    json_error_t error;
    e->meta = json_loadb(at, strlen(at), JSON_DISABLE_EOF_CHECK, &error);
    if (!e->meta) fprintf(stderr, "meta: %s\n", error.text);
    require_true(e->meta && json_is_object(e->meta));
    json_t *expect = json_object_get(e->meta, "expect");
    require_true(expect != NULL);
    if (json_is_string(expect) && strcmp(json_string_value(expect), "malformed") == 0) {
        e->malformed = true;
    } else if (json_is_string(expect) && strcmp(json_string_value(expect), "refused") == 0) {
        e->refused = true;
    } else {
        require_true(verdict_text(expect, e->verdict, sizeof e->verdict));
        json_t *exact = json_object_get(e->meta, "expect_exact");
        if (exact)
            require_true(verdict_text(exact, e->verdict_exact, sizeof e->verdict_exact));
        else
            memcpy(e->verdict_exact, e->verdict, sizeof e->verdict);
    }
    json_t *few = json_object_get(e->meta, "few");
    if (few) {
        require_true(json_is_integer(few) && json_integer_value(few) >= 1);
        e->few = (uint64_t)json_integer_value(few);
    }
    e->path = json_string_value(json_object_get(e->meta, "expect_path"));
    e->message = json_string_value(json_object_get(e->meta, "expect_message"));
    e->why = json_string_value(json_object_get(e->meta, "why"));
    expect_true(e->why != NULL && strlen(e->why) > 10); /* a golden says why it exists */
    if (e->malformed) expect_true(e->path != NULL);     /* and a malformed one where */
}

static void check_library(char const *plan_path, expectation_t const *e) {
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    ar_status_t status = ar_plan_load_file(plan_path, &plan, &error);
    if (e->malformed) {
        expect_int_eq(status, ar_status_invalid_argument_k);
        expect_ptr_null(plan);
        if (e->path) expect_str_contains(error.message, e->path);
        if (e->message) expect_str_contains(error.message, e->message);
        fprintf(stderr, "library: %s\n", error.message);
        ar_plan_free(plan);
        return;
    }
    if (status != ar_status_success_k) fprintf(stderr, "load failed: %s\n", error.message);
    require_true(status == ar_status_success_k && plan);

    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.few = e->few;
    ar_certify_report_t report;
    if (e->refused) {
        expect_int_ne(ar_certify(plan, &options, &report), ar_status_success_k);
        if (e->message) expect_str_contains(report.message, e->message);
        fprintf(stderr, "refused: %s\n", report.message);
        ar_plan_free(plan);
        return;
    }
    expect_int_eq(ar_certify(plan, &options, &report), ar_status_success_k);
    expect_str_eq(report.verdict_text, e->verdict);
    if (e->message) expect_str_contains(report.message, e->message);
    fprintf(stderr, "certificate: verdict %s: %s\n", report.verdict_text, report.message);
    options.exact = true;
    ar_certify_report_t exact;
    expect_int_eq(ar_certify(plan, &options, &exact), ar_status_success_k);
    expect_str_eq(exact.verdict_text, e->verdict_exact);
    fprintf(stderr, "exact: verdict %s: %s\n", exact.verdict_text, exact.message);

    /* Rule D reached: its naive twin agrees (where it unrolls the plan within its limit). */
    if (report.rule == ar_rule_none_k || report.rule == ar_rule_d_k) {
        arp_rule_d_t naive;
        ar_status_t naive_status = arp_rule_d_naive(plan, ARP_NAIVE_D_LAUNCH_LIMIT, &naive);
        if (naive_status == ar_status_success_k) {
            expect_int_eq(naive.broken, report.rule == ar_rule_d_k);
            if (naive.broken) expect_str_eq(naive.instance_text, report.instance_text);
            fprintf(stderr, "naive D: %s\n", naive.broken ? naive.message : "holds");
        } else {
            expect_int_eq(naive_status, ar_status_unsupported_k);
            fprintf(stderr, "naive D: %s\n", naive.message);
        }
    }

    /* load → write → load: the same plan, the same verdict. */
    char *text = NULL;
    size_t length = 0;
    expect_int_eq(ar_plan_write_string(plan, &text, &length, &error), ar_status_success_k);
    ar_plan_t *again = NULL;
    expect_int_eq(ar_plan_load_buffer(text, length, &again, &error), ar_status_success_k);
    expect_true(ar_plan_equal(plan, again));
    if (again) {
        options.exact = false;
        ar_certify_report_t reloaded;
        expect_int_eq(ar_certify(again, &options, &reloaded), ar_status_success_k);
        expect_str_eq(reloaded.verdict_text, report.verdict_text);
    }
    free(text);
    ar_plan_free(again);
    ar_plan_free(plan);
}

/* Run the CLI with stdin from `input` (or /dev/null); return its exit status, with stdout and
 * stderr in malloc'd strings. */
static int run_cli(char *const argv[], char const *input, char **out, char **err) {
    char out_path[] = "/tmp/golden_out_XXXXXX", err_path[] = "/tmp/golden_err_XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    require_true(out_fd >= 0 && err_fd >= 0);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    require_true(child >= 0);
    if (child == 0) {
        FILE *in = freopen(input ? input : "/dev/null", "rb", stdin);
        if (!in) _exit(127);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int wstatus = 0;
    require_true(waitpid(child, &wstatus, 0) == child);
    close(out_fd);
    close(err_fd);
    size_t ignored;
    *out = read_text(out_path, &ignored);
    *err = read_text(err_path, &ignored);
    unlink(out_path);
    unlink(err_path);
    require_true(*out && *err);
    return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
}

static void check_cli(char const *arenacert, char const *plan_path, expectation_t const *e,
                      bool exact) {
    char few[32];
    snprintf(few, sizeof few, "%llu", (unsigned long long)e->few);
    char *argv[8];
    int argc = 0;
    argv[argc++] = (char *)arenacert;
    argv[argc++] = "certify";
    argv[argc++] = exact ? "-" : (char *)plan_path;
    if (exact)
        argv[argc++] = "--exact";
    else {
        argv[argc++] = "--few";
        argv[argc++] = few;
    }
    argv[argc] = NULL;
    char *out = NULL, *err = NULL;
    int code = run_cli(argv, exact ? plan_path : NULL, &out, &err);
    fprintf(stderr, "cli%s: exit %d, stdout: %.200s\n", exact ? " --exact" : "", code, out);
    if (e->malformed || e->refused) {
        expect_int_eq(code, 2);
        expect_str_eq(out, "");
        if (e->path) expect_str_contains(err, e->path);
        if (e->refused && e->message) expect_str_contains(err, e->message);
    } else {
        char const *verdict = exact ? e->verdict_exact : e->verdict;
        char line[AR_VERDICT_TEXT_SIZE + 16];
        snprintf(line, sizeof line, "verdict: %s\n", verdict);
        expect_true(strncmp(out, line, strlen(line)) == 0);
        if (strncmp(out, line, strlen(line)) != 0)
            fprintf(stderr, "expected first line \"verdict: %s\", got: %.100s\n", verdict, out);
        /* The second line says why: non-empty. */
        char const *second = strchr(out, '\n');
        expect_true(second && second[1] && second[1] != '\n');
        expect_int_eq(code, strcmp(verdict, "0") == 0 ? 0 : 1);
    }
    free(out);
    free(err);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: golden_check PLAN.json ARENACERT\n");
        return 2;
    }
    size_t length = 0;
    char *text = read_text(argv[1], &length);
    require_true(text != NULL);
    expectation_t e;
    read_expectation(text, &e);
    fprintf(stderr, "%s: %s\n", argv[1], e.why ? e.why : "(no why)");
    check_library(argv[1], &e);
    check_cli(argv[2], argv[1], &e, false);
    if (!e.refused) check_cli(argv[2], argv[1], &e, true); /* --exact takes no few */
    json_decref(e.meta);
    free(text);
    return expect_finish();
}
