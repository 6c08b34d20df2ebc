/* The `arenacert` command line (CERTIFICATE.md §5): usage and its errors (exit 2), --help,
 * --version, verdict lines and exit statuses, standard input, --stats, --json, a malformed plan
 * naming its path and line:column on stderr, and the exact oracle's refusal (exit 2). The binary
 * is found beside this test's own (build/bin/); the test is skipped when it is not built. */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "expect.h"

static char arenacert[PATH_MAX];

static char *slurp(char const *path) {
    FILE *file = fopen(path, "rb");
    require_true(file != NULL);
    char *text = calloc(1 << 20, 1);
    size_t got = fread(text, 1, (1 << 20) - 1, file);
    text[got] = '\0';
    fclose(file);
    return text;
}

typedef struct run_t {
    int code;
    char *out, *err;
} run_t;

/* Run arenacert with `args` (NULL-terminated), stdin from the text `input` (NULL: empty). */
static run_t run(char const *input, char const *const *args) {
    char in_path[] = "/tmp/cli_in_XXXXXX", out_path[] = "/tmp/cli_out_XXXXXX",
         err_path[] = "/tmp/cli_err_XXXXXX";
    int in_fd = mkstemp(in_path), out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    require_true(in_fd >= 0 && out_fd >= 0 && err_fd >= 0);
    if (input) require_true(write(in_fd, input, strlen(input)) == (ssize_t)strlen(input));
    lseek(in_fd, 0, SEEK_SET);
    char *argv[16];
    int argc = 0;
    argv[argc++] = arenacert;
    for (; args[argc - 1] && argc < 15; ++argc) argv[argc] = (char *)args[argc - 1];
    argv[argc] = NULL;
    fflush(NULL);
    pid_t child = fork();
    require_true(child >= 0);
    if (child == 0) {
        dup2(in_fd, 0);
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    require_true(waitpid(child, &status, 0) == child);
    close(in_fd);
    close(out_fd);
    close(err_fd);
    run_t result = {WIFEXITED(status) ? WEXITSTATUS(status) : 128, slurp(out_path),
                    slurp(err_path)};
    unlink(in_path);
    unlink(out_path);
    unlink(err_path);
    return result;
}

static void done(run_t *r) {
    free(r->out);
    free(r->err);
}

#define RUN(input, ...) run(input, (char const *const[]){__VA_ARGS__, NULL})

/* Launch 0's word starts at 0x1000 (global a) and moves by 0x200 over 2 iterations to 0x1200
 * (global b). Two points (few >= 2) both pass: certified. With few 1 one hull [0x1000, 0x1200]
 * spans the gap between the globals: launch 0 breaks (C), verdict 2. The exact oracle: 0. */
static char const plan_text[] =
    "{\"format\":\"arena-plan/1\",\"alignment\":256,\n"
    " \"windows\":[{\"base\":\"0x1000\",\"size\":\"0x1000\"}],\n"
    " \"globals\":[{\"name\":\"a\",\"base\":\"0x1000\",\"size\":\"0x100\"},{\"name\":\"b\","
    "\"base\":\"0x1200\",\"size\":\"0x100\"}],\n"
    " \"phases\":[{\"id\":\"p\",\"planes\":[]}],\n"
    " \"launches\":[{\"kernel\":\"k\",\"phase\":\"p\",\"words\":[\"0x1000\"]}],\n"
    " \"repeats\":[{\"first\":0,\"count\":1,\"iterations\":2,\"deltas\":[{\"launch\":0,\"word\":0,"
    "\"delta\":512}]}],\n"
    " \"schedule\":[{\"first\":0,\"count\":1}]}\n";

static void test_usage(void) {
    run_t r = RUN(NULL, "--help");
    expect_int_eq(r.code, 0);
    expect_str_contains(r.out, "certify PLAN.json");
    done(&r);
    r = RUN(NULL, "certify", "--help");
    expect_int_eq(r.code, 0);
    expect_str_contains(r.out, "--few K");
    done(&r);
    r = RUN(NULL, "--version");
    expect_int_eq(r.code, 0);
    expect_str_contains(r.out, "arenacert ");
    done(&r);
    char const *const bad[][4] = {
        {"certify", NULL},                /* no plan */
        {"certify", "-", "--few", "0"},   /* few 0 */
        {"certify", "-", "--few", "abc"}, /* not a number */
        {"certify", "-", "--few", "-3"},
        {"certify", "-", "--few", NULL}, /* no value */
        {"certify", "-", "--bogus", NULL},
        {"certify", "-", "-", NULL}, /* two plans */
        {"frobnicate", NULL, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        r = run(plan_text, bad[i]);
        expect_int_eq(r.code, 2);
        expect_str_eq(r.out, "");
        expect_str_contains(r.err, "usage");
        done(&r);
    }
    r = run(NULL, (char const *const[]){NULL});
    expect_int_eq(r.code, 2);
    done(&r);
}

static void test_verdicts(void) {
    /* Two points (few 16) both lie in a global: certified. */
    run_t r = RUN(plan_text, "certify", "-");
    expect_int_eq(r.code, 0);
    expect_str_eq(r.out, "verdict: 0\ncertified\n");
    done(&r);
    /* few 1: one hull [0x1000, 0x1200] spans the gap between the globals: launch 0, verdict 2. */
    r = RUN(plan_text, "certify", "-", "--few", "1");
    expect_int_eq(r.code, 1);
    expect_true(strncmp(r.out, "verdict: 2\n", 11) == 0);
    expect_str_contains(r.out, "launch 0");
    done(&r);
    r = RUN(plan_text, "certify", "--few=1", "-", "--exact");
    expect_int_eq(r.code, 0); /* the exact oracle has no few */
    expect_true(strncmp(r.out, "verdict: 0\n", 11) == 0);
    done(&r);
    r = RUN(plan_text, "certify", "-", "--stats");
    expect_int_eq(r.code, 0);
    expect_str_contains(r.out, "\nsites_checked: 1\n");
    expect_str_contains(r.out, "\npoints: 2\n");
    done(&r);
    r = RUN(plan_text, "certify", "-", "--json", "--few", "1");
    expect_int_eq(r.code, 1);
    json_error_t error;
    json_t *object = json_loads(r.out, 0, &error);
    expect_true(object != NULL);
    expect_int_eq((int)json_integer_value(json_object_get(object, "verdict")), 2);
    expect_str_eq(json_string_value(json_object_get(object, "rule")), "C");
    json_decref(object);
    done(&r);
}

static void test_errors(void) {
    /* A malformed plan: exit 2, nothing on stdout, the path and line:column on stderr. */
    run_t r = RUN("{\"format\": \"arena-plan/1\",\n \"alignment\": 256 256}", "certify", "-");
    expect_int_eq(r.code, 2);
    expect_str_eq(r.out, "");
    expect_str_contains(r.err, "line 2, column");
    expect_str_contains(r.err, "malformed plan");
    done(&r);
    char text[sizeof plan_text + 16];
    snprintf(text, sizeof text, "%s", plan_text);
    char *at = strstr(text, "\"iterations\":2");
    require_true(at != NULL);
    memcpy(at, "\"iterations\":0", 14);
    r = RUN(text, "certify", "-");
    expect_int_eq(r.code, 2);
    expect_str_contains(r.err, "$.repeats[0].iterations");
    done(&r);
    r = RUN(NULL, "certify", "/nonexistent/plan.json");
    expect_int_eq(r.code, 2);
    expect_str_contains(r.err, "/nonexistent/plan.json");
    done(&r);
    /* 2^40 iterations: the certificate answers from one hull; the exact oracle refuses. */
    snprintf(text, sizeof text, "%s", plan_text);
    at = strstr(text, "\"iterations\":2");
    char huge[sizeof text + 32];
    snprintf(huge, sizeof huge, "%.*s\"iterations\":\"0x10000000000\"%s", (int)(at - text), text,
             at + strlen("\"iterations\":2"));
    r = RUN(huge, "certify", "-");
    expect_int_eq(r.code, 1); /* the hull leaves the globals */
    done(&r);
    r = RUN(huge, "certify", "-", "--exact");
    expect_int_eq(r.code, 2);
    expect_str_eq(r.out, "");
    expect_str_contains(r.err, "exact");
    done(&r);
}

int main(void) {
    ssize_t n = readlink("/proc/self/exe", arenacert, sizeof arenacert - 16);
    require_true(n > 0);
    arenacert[n] = '\0';
    char *slash = strrchr(arenacert, '/');
    require_true(slash != NULL);
    strcpy(slash + 1, "arenacert");
    if (access(arenacert, X_OK) != 0) skip_test("arenacert is not built beside this test");
    test_usage();
    test_verdicts();
    test_errors();
    return expect_finish();
}
