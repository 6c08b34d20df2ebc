/* gbench: Google Benchmark (1.7.1) for benchmarks written in C.
 *
 * Modelled on IREE's runtime shim: the state is opaque, and the timed loop is
 * `while (gb_keep_running(state, batch)) { ...batch units of work... }`, which maps onto
 * KeepRunningBatch so the C-to-C++ crossing is paid once per batch, not once per unit.
 * Benchmarks register from C with `gb_register(name, function, user_data)`; the returned handle
 * takes arguments, ranges, iterations, time unit, manual time, minimum time and repetitions,
 * and each setter returns the handle so calls chain. `gb_main` runs what the command line
 * selects. Names are plain C strings, copied by the library. */
#ifndef ARENAREF_BENCH_GBENCH_H
#define ARENAREF_BENCH_GBENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Counters follow benchmark::Counter: plain values, rates (divided by the measured time), and
 * per-iteration averages (divided by the iteration count); flags combine with `|`.
 */

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gb_state_t gb_state_t;         /* a running benchmark: benchmark::State */
typedef struct gb_benchmark_t gb_benchmark_t; /* a registered benchmark, for its settings */
typedef void (*gb_function_t)(gb_state_t *state, void *user_data);

typedef enum gb_counter_flags_t {
    gb_counter_default_k = 0,                  /* reported as set */
    gb_counter_rate_k = 1 << 0,                /* value / seconds: a throughput */
    gb_counter_avg_iterations_k = 1 << 1,      /* value / iterations: a per-iteration average */
    gb_counter_iteration_invariant_k = 1 << 2, /* value x iterations */
    gb_counter_avg_threads_k = 1 << 3,         /* value / threads */
} gb_counter_flags_t;

typedef enum gb_time_unit_t {
    gb_time_unit_ns_k = 0,
    gb_time_unit_us_k,
    gb_time_unit_ms_k,
    gb_time_unit_s_k,
} gb_time_unit_t;

/* ---- Inside a benchmark -------------------------------------------------------------------- */

/* True while the loop should run another `batch` units (batch >= 1); counts them as
 * iterations. False once enough were run, or after gb_skip_with_error. */
bool gb_keep_running(gb_state_t *state, int64_t batch);
/* The index-th argument of this run (gb_arg, gb_args, gb_range_bounds); an index past the
 * arguments the benchmark was registered with prints a message and gives 0. */
int64_t gb_range(gb_state_t *state, size_t index);
/* Iterations run so far (all batches). */
int64_t gb_iterations(gb_state_t const *state);
/* Exclude setup inside the loop from the measured time. */
void gb_pause_timing(gb_state_t *state);
void gb_resume_timing(gb_state_t *state);
/* With gb_use_manual_time: the seconds this iteration (or batch) took, e.g. from CUDA events. */
void gb_set_iteration_time(gb_state_t *state, double seconds);
/* Mark the run failed with a reason (copied); the loop stops or never starts. */
void gb_skip_with_error(gb_state_t *state, char const *message);
bool gb_error_occurred(gb_state_t const *state);
void gb_set_counter(gb_state_t *state, char const *name, double value, int flags);
void gb_set_items_processed(gb_state_t *state, int64_t items);
void gb_set_bytes_processed(gb_state_t *state, int64_t bytes);
void gb_set_label(gb_state_t *state, char const *label);

/* True when this run counts instructions under callgrind (valgrind with
 * ARENAREF_CALLGRIND_REGIONS=1): the shim then counts the timed loop's body only (gbench.cc). */
bool gb_counting_instructions(void);

/* ---- Registration -------------------------------------------------------------------------- */

/* Register `function` under `name`; `user_data` is passed to each run and must outlive gb_main.
 * Returns NULL only when out of memory. */
gb_benchmark_t *gb_register(char const *name, gb_function_t function, void *user_data);
gb_benchmark_t *gb_arg(gb_benchmark_t *benchmark, int64_t value); /* one run per call */
gb_benchmark_t *gb_args(gb_benchmark_t *benchmark, int64_t const *values, size_t count);
gb_benchmark_t *gb_arg_name(gb_benchmark_t *benchmark, char const *name);
gb_benchmark_t *gb_range_bounds(gb_benchmark_t *benchmark, int64_t low, int64_t high);
gb_benchmark_t *gb_range_multiplier(gb_benchmark_t *benchmark, int multiplier);
gb_benchmark_t *gb_iterations_fixed(gb_benchmark_t *benchmark, int64_t iterations);
gb_benchmark_t *gb_unit(gb_benchmark_t *benchmark, gb_time_unit_t unit);
gb_benchmark_t *gb_use_real_time(gb_benchmark_t *benchmark);
gb_benchmark_t *gb_use_manual_time(gb_benchmark_t *benchmark);
gb_benchmark_t *gb_min_time(gb_benchmark_t *benchmark, double seconds);
gb_benchmark_t *gb_repetitions(gb_benchmark_t *benchmark, int repetitions);

/* ---- The run ------------------------------------------------------------------------------- */

/* A string field in the JSON `context` (and the console header). Call before gb_main. */
void gb_add_custom_context(char const *key, char const *value);
/* The version of Google Benchmark this shim was built against, e.g. "1.7.1". */
char const *gb_library_version(void);
/* Parse benchmark flags, reject unknown ones (exit status 1), run, shut down. Returns 0 on
 * success; 1 for bad flags. */
int gb_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
