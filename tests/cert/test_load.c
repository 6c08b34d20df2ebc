/* The JSON loader and writer: a full plan loads into the flat arrays; write then load gives the
 * same plan; every malformed input is refused with its JSON path, line and column (a rule
 * checked on the flat arrays is located by its path), leaving *plan NULL (ASan builds check
 * that nothing leaks on those paths). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arenaref/plan.h"
#include "expect.h"

static char const good_plan[] =
    "{\n"
    "  \"format\": \"arena-plan/1\",\n"
    "  \"meta\": {\"why\": \"a plan of every kind of field\", \"n\": [1, 2]},\n"
    "  \"alignment\": 256,\n"
    "  \"extra\": {\"ignored\": [1, 2, 3]},\n"
    "  \"windows\":  [ { \"base\": \"0x7f0000000000\", \"size\": \"0x100000000\" } ],\n"
    "  \"globals\":  [ { \"name\": \"weights\", \"base\": \"0x7f0000000000\", \"size\": 1048576 } "
    "],\n"
    "  \"phases\":   [ { \"id\": \"attn\", \"planes\": [ { \"name\": \"qkv\", \"base\": "
    "\"0x7f0000100000\", \"size\": 4096, \"carried\": false },\n"
    "                                               { \"name\": \"kv\", \"base\": "
    "\"0x7f0000200000\", \"size\": \"0x10\", \"carried\": true, \"becomes\": \"kv_next\", "
    "\"reads\": [ { \"offset\": 0, \"size\": 4 } ], \"writes\": [ { \"offset\": \"0x8\", \"size\": "
    "8 "
    "}, { \"offset\": 4, \"size\": \"0x1\", \"note\": \"ignored\" } ] } ] "
    "},\n"
    "                  { \"id\": \"mlp\", \"planes\": [] } ],\n"
    "  \"launches\": [ { \"kernel\": \"gemm\", \"phase\": \"attn\", \"words\": [ "
    "\"0x7f0000000000\", 4096, \"0x7f0000100000\" ] },\n"
    "                { \"words\": [] },\n"
    "                { \"kernel\": \"gemm\", \"phase\": \"nope\", \"words\": [ "
    "\"0xFFFFFFFFFFFFFFFF\" ] } ],\n"
    "  \"repeats\":  [ { \"first\": 0, \"count\": 3, \"iterations\": 2, \"frames\": [ [ "
    "{\"launch\": 2, \"word\": 0, \"offset\": \"-0x8000000000000000\"} ], [] ] },\n"
    "                { \"first\": 0, \"count\": 1, \"iterations\": 12, \"deltas\": [ { \"launch\": "
    "0, \"word\": 0, \"delta\": -65536 }, { \"launch\": 0, \"word\": 2, \"delta\": "
    "\"0x7fffffffffffffff\" } ] } ],\n"
    "  \"schedule\": [ { \"first\": 0, \"count\": 3 }, { \"first\": 0, \"count\": 3 } ]\n"
    "}\n";

static void test_good(void) {
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    expect_int_eq(ar_plan_load_buffer(good_plan, strlen(good_plan), &plan, &error),
                  ar_status_success_k);
    require_true(plan != NULL);
    expect_true(plan->finished);
    expect_u64_eq(plan->alignment, 256);
    expect_size_eq(plan->windows_count, 1);
    expect_u64_eq(plan->windows[0].size, 0x100000000ull);
    expect_str_eq(plan->globals[0].name, "weights");
    expect_size_eq(plan->phases_count, 2);
    expect_size_eq(plan->phases[1].planes_count, 0);
    expect_size_eq(plan->planes_count, 2);
    expect_true(plan->planes[1].carried);
    expect_false(plan->planes[0].carried);
    expect_ptr_null(plan->planes[0].becomes);
    expect_str_eq(plan->planes[1].becomes, "kv_next");
    expect_true(plan->planes[1].updates);
    expect_false(plan->planes[0].updates);
    expect_size_eq(plan->updates_count, 1);
    /* reads/writes: the kv plane's lists, none on qkv. */
    require_true(plan->plane_access != NULL);
    expect_false(plan->plane_access[0].has_reads || plan->plane_access[0].has_writes);
    ar_plane_access_t const *kv = &plan->plane_access[1];
    expect_true(kv->has_reads && kv->has_writes);
    expect_size_eq(kv->reads_count, 1);
    expect_size_eq(kv->writes_count, 2);
    expect_u64_eq(plan->plane_ranges[kv->reads_first].size, 4);
    expect_u64_eq(plan->plane_ranges[kv->writes_first].offset, 8);
    expect_u64_eq(plan->plane_ranges[kv->writes_first + 1].offset, 4);
    expect_u64_eq(plan->plane_ranges[kv->writes_first + 1].size, 1);
    expect_size_eq(plan->launches_count, 3);
    expect_str_eq(plan->launches[1].kernel, "");
    expect_ptr_null(plan->launches[1].phase_name);
    expect_i64_eq(plan->launches[0].phase, 0);
    expect_i64_eq(plan->launches[2].phase, -1);
    expect_u64_eq(plan->words[1], 4096);
    expect_u64_eq(plan->words[3], UINT64_MAX);
    expect_true(plan->repeats[0].has_frames);
    expect_i64_eq(plan->shifts[0].shift, INT64_MIN);
    expect_i64_eq(plan->shifts[plan->repeats[1].shifts_first].shift, -65536);
    expect_i64_eq(plan->shifts[plan->repeats[1].shifts_first + 1].shift, INT64_MAX);
    expect_str_eq(plan->meta_json, "{\"why\":\"a plan of every kind of field\",\"n\":[1,2]}");
    expect_size_eq(plan->schedule_count, 2);

    /* Round trip: write, load, same plan; and writing again gives the same text. */
    char *text = NULL;
    size_t length = 0;
    expect_int_eq(ar_plan_write_string(plan, &text, &length, &error), ar_status_success_k);
    require_true(text != NULL);
    expect_size_eq(strlen(text), length);
    ar_plan_t *again = NULL;
    expect_int_eq(ar_plan_load_buffer(text, length, &again, &error), ar_status_success_k);
    if (!again) fprintf(stderr, "reload: %s\n%s\n", error.message, text);
    expect_true(ar_plan_equal(plan, again));
    char *text2 = NULL;
    expect_int_eq(ar_plan_write_string(again, &text2, NULL, &error), ar_status_success_k);
    expect_str_eq(text, text2);
    /* The FILE writer writes the same bytes. */
    FILE *file = tmpfile();
    require_true(file != NULL);
    expect_int_eq(ar_plan_write_file(plan, file, &error), ar_status_success_k);
    rewind(file);
    char *read_back = calloc(length + 2, 1);
    expect_size_eq(fread(read_back, 1, length + 1, file), length);
    expect_str_eq(read_back, text);
    fclose(file);
    free(read_back);
    free(text);
    free(text2);
    ar_plan_free(again);
    ar_plan_free(plan);
}

/* Replace the first `from` in good_plan with `to`, load, expect malformed at `path` on `line`;
 * and where `mark` is given (a text inside `to`), at the column where it starts. */
static void expect_refused_at(char const *from, char const *to, char const *path, char const *words,
                              int line, char const *mark) {
    char const *at = strstr(good_plan, from);
    require_true(at != NULL);
    size_t prefix = (size_t)(at - good_plan);
    size_t length = strlen(good_plan) - strlen(from) + strlen(to);
    char *text = malloc(length + 1);
    memcpy(text, good_plan, prefix);
    strcpy(text + prefix, to);
    strcat(text, at + strlen(from));
    ar_plan_t *plan = (ar_plan_t *)(uintptr_t)1;
    ar_plan_error_t error;
    expect_int_eq(ar_plan_load_buffer(text, length, &plan, &error), ar_status_invalid_argument_k);
    expect_ptr_null(plan);
    expect_str_eq(error.path, path);
    expect_str_contains(error.message, path);
    expect_str_contains(error.message, words);
    expect_int_eq(error.line, line);
    if (line) {
        char position[48];
        snprintf(position, sizeof position, "line %d, column %d", line, error.column);
        expect_str_contains(error.message, position);
        expect_true(error.column > 0);
    }
    if (mark) {
        char const *target = strstr(text + prefix, mark);
        require_true(target != NULL);
        char const *line_start = target;
        while (line_start > text && line_start[-1] != '\n') --line_start;
        expect_int_eq(error.column, (int)(target - line_start) + 1);
    }
    ar_plan_free(plan);
    free(text);
}

static void expect_refused(char const *from, char const *to, char const *path, char const *words,
                           int line) {
    expect_refused_at(from, to, path, words, line, NULL);
}

/* A plane's reads and writes: every malformed case of the contract's reading rules, each with
 * its path, line and column (the kv plane's line is 9). */
static void test_refused_reads_writes(void) {
    char const *reads = "\"reads\": [ { \"offset\": 0, \"size\": 4 } ]";
    char const *first_write = "{ \"offset\": \"0x8\", \"size\": 8 }";
    /* Found by the loader. */
    expect_refused_at(reads, "\"reads\": 5", "$.phases[0].planes[1].reads",
                      "expected an array of {offset, size}", 9, "5");
    expect_refused_at(reads, "\"reads\": {\"offset\": 0, \"size\": 4}",
                      "$.phases[0].planes[1].reads", "found an object", 9, "{\"offset\": 0, \"s");
    expect_refused_at(reads, "\"reads\": [ 7 ]", "$.phases[0].planes[1].reads[0]",
                      "expected an object, found an integer", 9, "7 ]");
    expect_refused_at(first_write, "{ \"offset\": \"0x8\" }",
                      "$.phases[0].planes[1].writes[0].size", "missing required field \"size\"", 9,
                      "{ \"offset\": \"0x8\" }");
    expect_refused_at(reads, "\"reads\": [ { \"size\": 4 } ]",
                      "$.phases[0].planes[1].reads[0].offset", "missing required field \"offset\"",
                      9, "{ \"size\": 4 }");
    expect_refused_at(reads, "\"reads\": [ { \"offset\": 1.0, \"size\": 4 } ]",
                      "$.phases[0].planes[1].reads[0].offset", "found a float", 9, "1.0");
    expect_refused_at(reads, "\"reads\": [ { \"offset\": -4, \"size\": 4 } ]",
                      "$.phases[0].planes[1].reads[0].offset", "negative", 9, "-4");
    expect_refused_at(first_write, "{ \"offset\": \"0x8\", \"size\": \"0X8\" }",
                      "$.phases[0].planes[1].writes[0].size", "1 to 16 hex", 9, "\"0X8\"");
    expect_refused_at(first_write, "{ \"offset\": \"0x8\", \"size\": \"8\" }",
                      "$.phases[0].planes[1].writes[0].size", "1 to 16 hex", 9, "\"8\"");
    expect_refused_at(first_write, "{ \"offset\": \"0x8\", \"size\": null }",
                      "$.phases[0].planes[1].writes[0].size", "found null", 9, "null");
    expect_refused_at(first_write, "{ \"offset\": \"0x8\", \"size\": true }",
                      "$.phases[0].planes[1].writes[0].size", "found a boolean", 9, "true }");
    expect_refused_at(first_write, "{ \"offset\": \"0x8\", \"size\": \"0x00000000000000008\" }",
                      "$.phases[0].planes[1].writes[0].size", "1 to 16 hex", 9, "\"0x000");
    /* JSON integers hold [0, 2^63): 2^63 itself is a syntax error at its place. */
    expect_refused(first_write, "{ \"offset\": 9223372036854775808, \"size\": 8 }", "$.phases[0]",
                   "too big integer", 9);
    expect_refused(first_write, "{ \"offset\": 0, \"offset\": 0, \"size\": 8 }", "$.phases[0]",
                   "duplicate object key", 9);
    /* Found by ar_plan_finish, located by their path. */
    expect_refused_at(reads, "\"reads\": [ { \"offset\": 0, \"size\": 0 } ]",
                      "$.phases[0].planes[1].reads[0].size", "size 0", 9, "0 } ]");
    expect_refused_at(first_write, "{ \"offset\": \"0x8\", \"size\": 9 }",
                      "$.phases[0].planes[1].writes[0]", "runs past the plane's end", 9,
                      "{ \"offset\": \"0x8\", \"size\": 9 }");
    expect_refused_at(first_write, "{ \"offset\": \"0x10\", \"size\": 1 }",
                      "$.phases[0].planes[1].writes[0]", "plane \"kv\" holds 0x10 bytes", 9,
                      "{ \"offset\": \"0x10\"");
    expect_refused_at(first_write, "{ \"offset\": \"0xffffffffffffffff\", \"size\": 2 }",
                      "$.phases[0].planes[1].writes[0]", "past 2^64", 9, "{ \"offset\": \"0xfff");
    expect_refused_at(first_write, "{ \"offset\": 1, \"size\": \"0xffffffffffffffff\" }",
                      "$.phases[0].planes[1].writes[0]", "past 2^64", 9, "{ \"offset\": 1,");
    expect_refused_at("\"becomes\": \"kv_next\", ", "", "$.phases[0].planes[1].reads",
                      "\"reads\" on carried plane \"kv\" without \"becomes\"", 9,
                      "[ { \"offset\": 0");
    expect_refused_at("\"becomes\": \"kv_next\", ", "\"becomes\": null, ",
                      "$.phases[0].planes[1].reads", "without \"becomes\"", 9, "[ { \"offset\": 0");
    expect_refused_at("\"becomes\": \"kv_next\", \"reads\": [ { \"offset\": 0, \"size\": 4 } ], ",
                      "", "$.phases[0].planes[1].writes", "\"writes\" on carried plane", 9,
                      "[ { \"offset\": \"0x8\"");
    expect_refused_at("4096, \"carried\": false }", "4096, \"carried\": false, \"writes\": [] }",
                      "$.phases[0].planes[0].writes", "\"writes\" on fresh plane \"qkv\"", 8,
                      "[] }");
    /* becomes on a fresh plane is reported first, at becomes. */
    expect_refused("4096, \"carried\": false }",
                   "4096, \"carried\": false, \"becomes\": \"q\", \"reads\": [] }",
                   "$.phases[0].planes[0].becomes", "fresh plane", 8);
}

static void test_refused(void) {
    /* Scalars. */
    expect_refused("\"size\": 1048576", "\"size\": -1", "$.globals[0].size", "negative", 7);
    expect_refused("\"size\": 1048576", "\"size\": 1.5", "$.globals[0].size", "found a float", 7);
    expect_refused("\"size\": 1048576", "\"size\": \"0x\"", "$.globals[0].size", "1 to 16 hex", 7);
    expect_refused("\"size\": 1048576", "\"size\": \"0x00000000000000001\"", "$.globals[0].size",
                   "1 to 16 hex", 7);
    expect_refused("\"size\": 1048576", "\"size\": \"0xg\"", "$.globals[0].size", "1 to 16 hex", 7);
    expect_refused("\"size\": 1048576", "\"size\": \"12\"", "$.globals[0].size", "1 to 16 hex", 7);
    expect_refused("\"size\": 1048576", "\"size\": \"0X12\"", "$.globals[0].size", "1 to 16 hex",
                   7);
    expect_refused("\"size\": 1048576", "\"size\": null", "$.globals[0].size", "found null", 7);
    expect_refused("4096, \"0x7f0000100000\"", "4096, true", "$.launches[0].words[2]",
                   "found a boolean", 11);
    expect_refused("\"delta\": -65536", "\"delta\": \"-0x8000000000000001\"",
                   "$.repeats[1].deltas[0].delta", "signed 64-bit range", 15);
    expect_refused("\"delta\": -65536", "\"delta\": \"0x8000000000000000\"",
                   "$.repeats[1].deltas[0].delta", "signed 64-bit range", 15);
    expect_refused("\"offset\": \"-0x8000000000000000\"", "\"offset\": 0.0",
                   "$.repeats[0].frames[0][0].offset", "found a float", 14);
    expect_refused("\"alignment\": 256", "\"alignment\": \"256\"", "$.alignment", "hex digits", 4);
    expect_refused("\"alignment\": 256", "\"alignment\": 3", "$.alignment", "power of two", 4);
    expect_refused("\"carried\": true", "\"carried\": 1", "$.phases[0].planes[1].carried",
                   "true or false", 9);
    expect_refused("\"becomes\": \"kv_next\"", "\"becomes\": 3", "$.phases[0].planes[1].becomes",
                   "expected a string, found an integer", 9);
    expect_refused("\"becomes\": \"kv_next\"", "\"becomes\": true", "$.phases[0].planes[1].becomes",
                   "expected a string", 9);
    expect_refused("4096, \"carried\": false }", "4096, \"carried\": false, \"becomes\": \"q2\" }",
                   "$.phases[0].planes[0].becomes", "fresh plane \"qkv\"", 8);
    expect_refused("4096, \"carried\": false }", "4096, \"becomes\": \"q2\" }",
                   "$.phases[0].planes[0].becomes", "only a carried plane", 8);
    expect_refused("\"becomes\": \"kv_next\"", "\"becomes\": \"kv_next\", \"becomes\": \"z\"",
                   "$.phases[0]", "duplicate object key", 9);
    expect_refused("\"kernel\": \"gemm\"", "\"kernel\": 7", "$.launches[0].kernel",
                   "expected a string", 11);
    expect_refused("\"phase\": \"attn\"", "\"phase\": 1", "$.launches[0].phase",
                   "expected a string", 11);
    /* Missing and mistyped structure. */
    expect_refused("\"format\": \"arena-plan/1\"", "\"format\": \"arena-plan/2\"", "$.format",
                   "arena-plan/1", 2);
    expect_refused("\"format\": \"arena-plan/1\"", "\"fmt\": \"arena-plan/1\"", "$.format",
                   "missing", 1);
    expect_refused("\"schedule\"", "\"schedul\"", "$.schedule", "missing", 1);
    expect_refused("{ \"name\": \"weights\", ", "{ ", "$.globals[0].name", "missing", 7);
    expect_refused("\"windows\":  [", "\"windows\":  [ 5, ", "$.windows[0]", "expected an object",
                   6);
    expect_refused("\"windows\":  [ { \"base\": \"0x7f0000000000\", \"size\": \"0x100000000\" } ]",
                   "\"windows\": {}", "$.windows", "expected an array", 6);
    expect_refused("\"words\": [] }", "\"words\": 5 }", "$.launches[1].words", "expected an array",
                   12);
    expect_refused("\"windows\":  [", "\"windows\": 7, \"w\": [", "$.windows", "expected an array",
                   6);
    expect_refused("\"schedule\": [", "\"schedule\": null, \"s\": [", "$.schedule",
                   "expected an array", 16);
    expect_refused("\"planes\": [] }", "\"planes\": {} }", "$.phases[1].planes",
                   "expected an array", 10);
    expect_refused("\"iterations\": 12, \"deltas\"",
                   "\"iterations\": 12, \"frames\": [], \"deltas\"", "$.repeats[1]", "not both",
                   15);
    expect_refused("\"iterations\": 12, \"deltas\": [ { \"launch\": 0, \"word\": 0, \"delta\": "
                   "-65536 }, { \"launch\": 0, \"word\": 2, \"delta\": \"0x7fffffffffffffff\" } ]",
                   "\"iterations\": 12", "$.repeats[1]", "needs \"deltas\" or \"frames\"", 15);
    expect_refused("[ [ {\"launch\"", "[ 7, [ {\"launch\"", "$.repeats[0].frames[0]",
                   "expected an array", 14);
    expect_refused("{\"launch\": 2, \"word\": 0, \"offset\"", "{\"word\": 0, \"offset\"",
                   "$.repeats[0].frames[0][0].launch", "missing", 14);
    /* Structural rules, through ar_plan_finish. */
    expect_refused("\"size\": 1048576", "\"size\": \"0xffffff0000000000\"", "$.globals[0].size",
                   "past 2^64", 7);
    expect_refused("\"id\": \"mlp\"", "\"id\": \"attn\"", "$.phases[1].id", "not unique", 10);
    expect_refused("[ {\"launch\": 2, \"word\": 0, \"offset\": \"-0x8000000000000000\"} ], [] ]",
                   "[] ]", "$.repeats[0].frames", "1 frames for 2", 14);
    expect_refused("{\"launch\": 2, \"word\": 0,", "{\"launch\": 2, \"word\": 1,",
                   "$.repeats[0].frames[0][0].word", "out of range", 14);
    expect_refused("{ \"launch\": 0, \"word\": 2,", "{ \"launch\": 0, \"word\": 0,",
                   "$.repeats[1].deltas[1]", "appears twice", 15);
    expect_refused("{ \"first\": 0, \"count\": 3 }, {", "{ \"first\": 1, \"count\": 2 }, {",
                   "$.schedule[0]", "cuts repeat", 16);
    expect_refused("{ \"first\": 0, \"count\": 3 }, {", "{ \"first\": 0, \"count\": 4 }, {",
                   "$.schedule[0]", "past the launch table", 16);
    expect_refused("{ \"first\": 0, \"count\": 3 }, {", "{ \"first\": 0, \"count\": 0 }, {",
                   "$.schedule[0].count", "count is 0", 16);
    expect_refused("\"first\": 0, \"count\": 1, \"iterations\": 12",
                   "\"first\": 0, \"count\": 3, \"iterations\": 12", "$.repeats[1]", "identical",
                   15);
    /* Syntax errors carry line and column. */
    expect_refused("\"alignment\": 256,", "\"alignment\": 256,,", "$", "syntax error", 4);
    expect_refused("\"words\": [] }", "\"words\": [ }", "$.launches[1]", "syntax error", 12);
    expect_refused("\"size\": 1048576", "\"size\": 99999999999999999999", "$.globals[0]",
                   "too big integer", 7);
    expect_refused("\"kernel\": \"gemm\", \"phase\": \"attn\"",
                   "\"kernel\": \"gemm\", \"kernel\": \"attn\"", "$.launches[0]", "duplicate", 11);
    expect_refused("\"alignment\": 256,", "\"alignment\": 256, \"alignment\": 256,", "$.alignment",
                   "duplicate field", 4);
    expect_refused("\"extra\": {", "\"extra\": 1, \"extra\": {", "$.extra", "duplicate field", 5);
    expect_refused(
        "\"schedule\": [ { \"first\": 0, \"count\": 3 }, { \"first\": 0, \"count\": 3 } ]\n}",
        "\"schedule\": []\n} x", "$", "extra text", 17);
    expect_refused(
        "\"schedule\": [ { \"first\": 0, \"count\": 3 }, { \"first\": 0, \"count\": 3 } ]\n}\n",
        "\"schedule\": [", "$.schedule[0]", "syntax error", 16);
}

/* Optional fields given as null count as absent: kernel "", phase none, carried false. */
static void test_null_is_absent(void) {
    char const *text =
        "{\"format\":\"arena-plan/1\",\"alignment\":1,\"windows\":[],\"globals\":[],"
        "\"phases\":[{\"id\":\"p\",\"planes\":[{\"name\":\"x\",\"base\":0,\"size\":1,\"carried\":"
        "null,\"becomes\":null,\"reads\":null,\"writes\":null}]}],"
        "\"launches\":[{\"kernel\":null,\"phase\":null,\"words\":[1]}],\"repeats\":[],"
        "\"schedule\":[{\"first\":0,\"count\":1}],\"meta\":null}";
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    expect_int_eq(ar_plan_load_buffer(text, strlen(text), &plan, &error), ar_status_success_k);
    require_true(plan != NULL);
    expect_str_eq(plan->launches[0].kernel, "");
    expect_ptr_null(plan->launches[0].phase_name);
    expect_i64_eq(plan->launches[0].phase, -1);
    expect_false(plan->planes[0].carried);
    expect_ptr_null(plan->planes[0].becomes);
    expect_size_eq(plan->updates_count, 0);
    expect_ptr_null(plan->plane_access); /* reads and writes null: absent */
    expect_ptr_null(plan->meta_json);
    ar_plan_free(plan);
}

/* Optional fields may be omitted, or given as null: windows, globals, repeats, a phase's planes,
 * a launch's words, kernel and phase. */
static void test_optional_omitted(void) {
    char const *texts[] = {
        "{\"format\":\"arena-plan/1\",\"alignment\":1,\"phases\":[{\"id\":\"p\"}],"
        "\"launches\":[{}],\"schedule\":[{\"first\":0,\"count\":1}]}",
        "{\"format\":\"arena-plan/1\",\"alignment\":1,\"windows\":null,\"globals\":null,"
        "\"repeats\":null,\"phases\":[{\"id\":\"p\",\"planes\":null}],"
        "\"launches\":[{\"words\":null,\"kernel\":null,\"phase\":null}],"
        "\"schedule\":[{\"first\":0,\"count\":1}]}",
    };
    for (size_t t = 0; t < 2; ++t) {
        ar_plan_t *plan = NULL;
        ar_plan_error_t error;
        expect_int_eq(ar_plan_load_buffer(texts[t], strlen(texts[t]), &plan, &error),
                      ar_status_success_k);
        require_true(plan != NULL);
        expect_size_eq(plan->windows_count + plan->globals_count + plan->repeats_count, 0);
        expect_size_eq(plan->planes_count + plan->words_count, 0);
        expect_size_eq(plan->launches_count, 1);
        expect_str_eq(plan->launches[0].kernel, "");
        expect_ptr_null(plan->launches[0].phase_name);
        ar_plan_free(plan);
    }
}

/* A built plan with awkward names and values past 2^63 survives write → load. */
static void test_built_round_trip(void) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, (uint64_t)1 << 63);
    ar_plan_add_window(plan, UINT64_MAX, 1);
    ar_plan_add_global(plan, "quote\" back\\ nl\n tab\t ctl\x01 utf8 \xc3\xa9", 0, UINT64_MAX);
    ar_plan_add_phase(plan, "");
    ar_plan_add_plane(plan, "/", (uint64_t)1 << 63, 1, true);
    ar_plan_add_phase(plan, "in place");
    ar_plan_add_plane_becomes(plan, "/", (uint64_t)1 << 63, 1, true, "after \"/\"");
    ar_plan_add_plane_becomes(plan, "same", 0, 1, true, "same");
    uint64_t words[3] = {0, UINT64_MAX, (uint64_t)1 << 63};
    ar_plan_add_launch(plan, "k\"", "", words, 3, NULL);
    ar_plan_add_launch(plan, NULL, NULL, NULL, 0, NULL);
    ar_shift_t deltas[2] = {{0, 2, INT64_MIN}, {0, 1, INT64_MAX}};
    ar_plan_add_repeat_deltas(plan, 0, 2, UINT64_MAX, deltas, 2);
    ar_plan_add_repeat_frames(plan, 0, 1, 2);
    ar_shift_t offset = {0, 0, -1};
    ar_plan_add_frame(plan, &offset, 1);
    ar_plan_add_frame(plan, NULL, 0);
    ar_plan_add_reference(plan, 0, 2);
    ar_plan_add_reference(plan, 0, 2);
    ar_plan_set_meta(plan, "{\"note\": \"caf\u00e9\"}");
    ar_plan_error_t error;
    expect_int_eq(ar_plan_finish(plan, &error), ar_status_success_k);
    char *text = NULL;
    size_t length = 0;
    expect_int_eq(ar_plan_write_string(plan, &text, &length, &error), ar_status_success_k);
    ar_plan_t *again = NULL;
    expect_int_eq(ar_plan_load_buffer(text, length, &again, &error), ar_status_success_k);
    if (!again) fprintf(stderr, "%s\n%s\n", error.message, text);
    expect_true(ar_plan_equal(plan, again));
    expect_str_contains(text, "\"iterations\": \"0xffffffffffffffff\"");
    expect_str_contains(text, "\"becomes\": \"after \\\"/\\\"\"");
    expect_str_contains(text, "\"becomes\": \"same\"");
    expect_size_eq(again->updates_count, 1); /* becomes equal to the name changes nothing */
    expect_false(again->planes[2].updates);
    expect_true(again->planes[1].updates);
    expect_str_contains(text, "\"alignment\": \"0x8000000000000000\"");
    free(text);
    ar_plan_free(again);
    ar_plan_free(plan);
}

/* A repeat's members may come in any order; null error pointers are fine. */
static void test_member_order(void) {
    char const *text =
        "{\"schedule\":[{\"count\":2,\"first\":0}],\"repeats\":[{\"frames\":[[{\"offset\":1,"
        "\"word\":0,\"launch\":1}],[]],\"iterations\":2,\"count\":2,\"first\":0},"
        "{\"deltas\":[{\"launch\":0,\"word\":0,\"delta\":-4}],\"first\":0,\"count\":1,"
        "\"iterations\":\"0x3\"}],\"launches\":[{\"words\":[5]},{\"words\":[6]}],"
        "\"phases\":[],\"globals\":[],\"windows\":[],\"alignment\":8,\"format\":\"arena-plan/1\"}";
    ar_plan_t *plan = NULL;
    expect_int_eq(ar_plan_load_buffer(text, strlen(text), &plan, NULL), ar_status_success_k);
    require_true(plan != NULL);
    expect_size_eq(plan->repeats_count, 2);
    expect_true(plan->repeats[0].has_frames);
    expect_u64_eq(plan->repeats[0].iterations, 2);
    expect_size_eq(plan->repeats[0].count, 2);
    expect_u64_eq(plan->repeats[1].iterations, 3);
    expect_i64_eq(plan->shifts[plan->repeats[1].shifts_first].shift, -4);
    ar_plan_free(plan);
    /* The same with iterations missing in the second repeat: its path, and no crash without an
     * error to fill. */
    char broken[1024];
    snprintf(broken, sizeof broken, "%s", text);
    char *at = strstr(broken, ",\"iterations\":\"0x3\"");
    require_true(at != NULL);
    memmove(at, at + strlen(",\"iterations\":\"0x3\""),
            strlen(at + strlen(",\"iterations\":\"0x3\"")) + 1);
    expect_int_eq(ar_plan_load_buffer(broken, strlen(broken), &plan, NULL),
                  ar_status_invalid_argument_k);
    ar_plan_error_t error;
    expect_int_eq(ar_plan_load_buffer(broken, strlen(broken), &plan, &error),
                  ar_status_invalid_argument_k);
    expect_str_eq(error.path, "$.repeats[1].iterations");
    expect_ptr_null(plan);
}

static void test_odd_inputs(void) {
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    expect_int_eq(ar_plan_load_buffer("", 0, &plan, &error), ar_status_invalid_argument_k);
    expect_str_contains(error.message, "empty");
    expect_int_eq(ar_plan_load_buffer("[1]", 3, &plan, &error), ar_status_invalid_argument_k);
    expect_str_contains(error.message, "a plan is a JSON object, found an array");
    expect_int_eq(ar_plan_load_buffer("{\"format\": \"arena-plan/1\"}", 26, &plan, &error),
                  ar_status_invalid_argument_k);
    expect_str_eq(error.path, "$.alignment");
    expect_int_eq(ar_plan_load_buffer("{\"a\\u0000\": 1}", 14, &plan, &error),
                  ar_status_invalid_argument_k);
    expect_ptr_null(plan);
    expect_int_eq(ar_plan_load_file("/nonexistent/plan.json", &plan, &error), ar_status_io_k);
    expect_str_contains(error.message, "/nonexistent/plan.json");
    expect_int_eq(ar_plan_load_buffer(NULL, 0, NULL, NULL), ar_status_invalid_argument_k);
    /* Every prefix of a good plan is refused cleanly (no crash, no leak, *plan NULL). */
    size_t length = strlen(good_plan);
    int refused = 0;
    for (size_t cut = 0; cut + 2 < length; ++cut) {
        plan = NULL;
        ar_status_t status = ar_plan_load_buffer(good_plan, cut, &plan, &error);
        refused += status == ar_status_invalid_argument_k && plan == NULL && error.line > 0;
    }
    expect_int_eq(refused, (int)(length - 2));
}

int main(void) {
    test_good();
    test_refused();
    test_refused_reads_writes();
    test_null_is_absent();
    test_optional_omitted();
    test_built_round_trip();
    test_member_order();
    test_odd_inputs();
    return expect_finish();
}
