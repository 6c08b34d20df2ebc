/* `arenacert gen` as a user runs it (argv[1] is the arenacert binary): `--list` names every
 * family, fault, model and preset one a line; a generated plan on stdout loads and equals the
 * library's plan for the same options; bad options exit 2 with a message on stderr. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

static char *run(char const *command, int *status) {
    FILE *pipe = popen(command, "r");
    if (!pipe) return NULL;
    size_t capacity = 1 << 16, length = 0;
    char *text = malloc(capacity);
    for (size_t got; text && (got = fread(text + length, 1, capacity - length - 1, pipe)) > 0;) {
        length += got;
        if (capacity - length < 4096) {
            char *grown = realloc(text, capacity *= 2);
            if (!grown) {
                free(text);
                text = NULL;
            }
            text = grown;
        }
    }
    int raw = pclose(pipe);
    *status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    if (text) text[length] = '\0';
    return text;
}

static void expect_line(char const *listing, char const *kind, char const *name) {
    char line[96];
    snprintf(line, sizeof line, "%s %s\n", kind, name);
    expect_str_contains(listing, line);
}

static void expect_usage_error(char const *tool, char const *arguments, char const *says) {
    char command[512];
    snprintf(command, sizeof command, "%s gen %s 2>&1 >/dev/null", tool, arguments);
    int status = 0;
    char *text = run(command, &status);
    expect_int_eq(status, 2);
    expect_str_contains(text, says);
    free(text);
}

int main(int argc, char **argv) {
    if (argc < 2) skip_test("needs the arenacert path");
    char const *tool = argv[1];
    char command[512];
    int status = 0;

    snprintf(command, sizeof command, "%s gen --list", tool);
    char *listing = run(command, &status);
    require_true(listing);
    expect_int_eq(status, 0);
    for (char const *const *n = ar_workload_families(); *n; ++n) expect_line(listing, "family", *n);
    for (char const *const *n = ar_workload_faults(); *n; ++n) expect_line(listing, "fault", *n);
    for (char const *const *n = ar_workload_models(); *n; ++n) expect_line(listing, "model", *n);
    for (char const *const *n = ar_workload_presets(); *n; ++n) expect_line(listing, "preset", *n);
    free(listing);

    snprintf(command, sizeof command,
             "%s gen moe --preset small --layers 3 --batch 3 --seed 9 --fault carried-clobbered",
             tool);
    char *json = run(command, &status);
    require_true(json);
    expect_int_eq(status, 0);
    ar_plan_t *loaded = NULL, *built = NULL;
    ar_plan_error_t error;
    expect_int_eq(ar_plan_load_buffer(json, strlen(json), &loaded, &error), ar_status_success_k);
    ar_workload_options_t options = {.family = "moe",
                                     .preset = "small",
                                     .layers = 3,
                                     .batch = 3,
                                     .seed = 9,
                                     .fault = "carried-clobbered"};
    ar_workload_info_t info;
    expect_int_eq(ar_workload_generate(&options, &built, &info, &error), ar_status_success_k);
    expect_true(loaded && built && ar_plan_equal(loaded, built));
    if (loaded) {
        char needle[96];
        snprintf(needle, sizeof needle, "\"expect\":%s", info.expect_text);
        expect_str_contains(loaded->meta_json, needle);
        expect_str_contains(loaded->meta_json, "\"fault\":\"carried-clobbered\"");
    }
    ar_plan_free(loaded);
    ar_plan_free(built);
    free(json);

    expect_usage_error(tool, "decoder --bogus 1", "unknown option '--bogus'");
    expect_usage_error(tool, "decoder --layers x", "--layers expects a non-negative integer");
    expect_usage_error(tool, "decoder --layers -3", "--layers expects a non-negative integer");
    expect_usage_error(tool, "decoder --seed 99999999999999999999999", "below 2^64");
    expect_usage_error(tool, "decoder --layers", "--layers needs a value");
    expect_usage_error(tool, "transformer", "unknown family");
    expect_usage_error(tool, "decoder --fault nope", "unknown fault 'nope'");
    expect_usage_error(tool, "decoder --model gpt5", "unknown model 'gpt5'");
    expect_usage_error(tool, "decoder --preset huge", "unknown preset");
    expect_usage_error(tool, "moe --model gpt2-small", "needs a model with experts");
    expect_usage_error(tool, "decoder --layers 1 --fault delta-off-bank-last-layer",
                       "at least 2 layers");
    expect_usage_error(tool, "decoder encoder", "one family only");
    /* --in-place: bare is the norm; a list as =LIST or as the next argument */
    char const *const forms[][2] = {{"--in-place decoder", "\"in_place\":\"norm\""},
                                    {"--in-place=residual,kv decoder", "\"residual,kv\""},
                                    {"decoder --in-place all", "\"norm,residual,kv\""},
                                    {"--in-place residual training", "\"residual\""},
                                    {"flat --in-place=all", "\"elementwise\""}};
    for (size_t i = 0; i < sizeof forms / sizeof *forms; ++i) {
        snprintf(command, sizeof command, "%s gen %s", tool, forms[i][0]);
        char *plan = run(command, &status);
        expect_int_eq(status, 0);
        if (plan) expect_str_contains(plan, forms[i][1]);
        free(plan);
    }
    expect_usage_error(tool, "decoder --in-place=bogus", "--in-place expects a list");
    expect_usage_error(tool, "decoder --in-place=", "--in-place expects a list");
    expect_usage_error(tool, "training --in-place", "in-place norm does not apply");
    expect_usage_error(tool, "encoder --in-place kv", "in-place kv does not apply");
    expect_usage_error(tool, "moe --expert-skew 20 --in-place residual", "expert skew");
    expect_usage_error(tool, "", "which family");
    return expect_finish();
}
