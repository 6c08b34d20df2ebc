/* The C shim over Google Benchmark, tested end to end: benchmarks registered from C with
 * arguments, counters of each kind, manual time, fixed iterations and skip-with-error run
 * through gb_main into a JSON file, which is then read back (jansson) and checked: names,
 * arguments, counter values, the manual time, the error message, the custom context. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "expect.h"
#include "gbench.h"

static void counters_benchmark(gb_state_t *state, void *user_data) {
    int64_t *runs = user_data;
    int64_t argument = gb_range(state, 0), units = 0;
    while (gb_keep_running(state, 4)) units += 4;
    ++*runs;
    gb_set_counter(state, "plain", (double)argument, gb_counter_default_k);
    gb_set_counter(state, "per_iteration", 2.0 * (double)units, gb_counter_avg_iterations_k);
    gb_set_counter(state, "rate", (double)units, gb_counter_rate_k);
    gb_set_counter(state, "units_match", units == gb_iterations(state), gb_counter_default_k);
}

static void manual_benchmark(gb_state_t *state, void *user_data) {
    (void)user_data;
    while (gb_keep_running(state, 1)) gb_set_iteration_time(state, 0.002);
}

static void skipped_benchmark(gb_state_t *state, void *user_data) {
    (void)user_data;
    gb_skip_with_error(state, "no such device: skipped on purpose");
}

static json_t const *find_run(json_t const *benchmarks, char const *name) {
    size_t index;
    json_t *entry;
    json_array_foreach(benchmarks, index, entry) {
        if (strcmp(json_string_value(json_object_get(entry, "name")), name) == 0) return entry;
    }
    return NULL;
}

static double number(json_t const *object, char const *key) {
    return object ? json_number_value(json_object_get(object, key)) : -1.0;
}

int main(void) {
    char path[] = "/tmp/arenaref-shim-test-XXXXXX";
    int fd = mkstemp(path);
    require_true(fd >= 0);
    close(fd);
    char out_flag[600];
    snprintf(out_flag, sizeof out_flag, "--benchmark_out=%s", path);
    char *argv[] = {"shim_test", out_flag, "--benchmark_out_format=json",
                    "--benchmark_min_time=0.001", NULL};

    static int64_t runs = 0;
    gb_benchmark_t *b = gb_register("shim/counters", counters_benchmark, &runs);
    require_true(b != NULL);
    gb_arg_name(gb_arg(gb_arg(b, 3), 5), "n");
    gb_iterations_fixed(gb_register("shim/fixed", counters_benchmark, &runs), 12);
    gb_unit(gb_use_manual_time(
                gb_iterations_fixed(gb_register("shim/manual", manual_benchmark, NULL), 3)),
            gb_time_unit_ms_k);
    gb_register("shim/skipped", skipped_benchmark, NULL);
    gb_add_custom_context("shim_test_key", "shim test value");
    expect_int_eq(gb_main(4, argv), 0);
    expect_true(runs >= 3);
    expect_str_eq(gb_library_version(), ARENAREF_BENCHMARK_VERSION_EXPECTED);

    json_error_t error;
    json_t *root = json_load_file(path, 0, &error);
    unlink(path);
    require_true(root != NULL);
    json_t const *context = json_object_get(root, "context");
    expect_str_eq(json_string_value(json_object_get(context, "shim_test_key")), "shim test value");
    json_t const *benchmarks = json_object_get(root, "benchmarks");

    json_t const *three = find_run(benchmarks, "shim/counters/n:3"),
                 *five = find_run(benchmarks, "shim/counters/n:5");
    expect_true(three != NULL && five != NULL);
    expect_dbl_eq(number(three, "plain"), 3.0);
    expect_dbl_eq(number(five, "plain"), 5.0);
    expect_dbl_eq(number(three, "per_iteration"), 2.0); /* 2 x units / iterations */
    expect_dbl_eq(number(three, "units_match"), 1.0);
    double iterations = number(three, "iterations"), cpu_seconds = number(three, "cpu_time") * 1e-9;
    expect_true(iterations >= 4 && (int64_t)iterations % 4 == 0);   /* batches of 4 */
    double expected_rate = iterations / (cpu_seconds * iterations); /* units / total CPU seconds */
    expect_true(number(three, "rate") > 0.99 * expected_rate &&
                number(three, "rate") < 1.01 * expected_rate);

    json_t const *fixed = find_run(benchmarks, "shim/fixed/iterations:12");
    expect_true(fixed != NULL);
    expect_dbl_eq(number(fixed, "iterations"), 12.0);
    expect_dbl_eq(number(fixed, "plain"), 0.0); /* gb_range past the arguments: 0, no crash */

    json_t const *manual = find_run(benchmarks, "shim/manual/iterations:3/manual_time");
    expect_true(manual != NULL);
    expect_str_eq(json_string_value(json_object_get(manual, "time_unit")), "ms");
    expect_true(number(manual, "real_time") > 1.999 && number(manual, "real_time") < 2.001);

    json_t const *skipped = find_run(benchmarks, "shim/skipped");
    expect_true(skipped != NULL);
    expect_true(json_is_true(json_object_get(skipped, "error_occurred")));
    expect_str_eq(json_string_value(json_object_get(skipped, "error_message")),
                  "no such device: skipped on purpose");
    json_decref(root);
    return expect_finish();
}
