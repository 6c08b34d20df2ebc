/* The benchmark suite's shared parts: the profile, timing helpers, the planted slowdown, and
 * the cache of generated plans. Each bench_*.c registers one family of benchmarks. */
#ifndef ARENAREF_BENCH_BENCH_H
#define ARENAREF_BENCH_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "gbench.h"

#define BENCH_WORKLOAD_SEED 1u    /* every generated plan */
#define BENCH_STREAM_SEED 0x5eedu /* the arena benchmarks' batch stream */
#define BENCH_JSON_SEED 0x5eedu   /* jansson's hash seed: counts repeat run to run */

/* quick: the default of scripts/bench (minutes on 2 cores); full: publication. */
typedef struct bench_profile_t {
    char const *name;
    char const *presets[4]; /* certificate-time sizes, smallest first; NULL-terminated */
    size_t presets_count;
    int regression_repetitions; /* of the regression set, for compare.py's U-test (>= 9) */
    int repetitions;            /* of everything else */
    double min_time;            /* seconds per timed benchmark run */
    int ratio_samples;          /* measurements behind each median of the ratio benchmark */
} bench_profile_t;

extern bench_profile_t bench_profile;

double bench_now_ns(void);
/* CPU time of the whole process (all threads): what the ratio benchmarks measure, since on a
 * shared machine wall time also counts the time spent waiting for a core. */
double bench_cpu_now_ns(void);
double bench_median(double *values, size_t count); /* sorts values */
/* Keep the compiler from dropping a computed value. */
void bench_sink_u64(uint64_t value);

/* The planted slowdown for testing scripts/compare: with ARENAREF_BENCH_SLOWDOWN=F (F > 1), a
 * timed region that began at `start_ns` spins until it has lasted F times as long. */
double bench_slowdown_factor(void);
void bench_slowdown_since(double start_ns);

/* The planted extra certificate work: ARENAREF_BENCH_EXTRA_PASS=F (0 < F <= 16), else 0. */
double bench_extra_pass(void);

/* A directory for the suite's temporary files, removed at exit. */
char const *bench_temp_dir(void);

/* A generated plan, with what the benchmarks derive from it, created on first use. */
typedef struct bench_plan_t {
    char key[128];
    ar_plan_t *plan;
    ar_workload_info_t info;
    char json_path[512]; /* written on first use by bench_plan_json */
    uint64_t json_bytes;
    bool json_too_big;    /* the JSON passed the reading cap: readers skip (see ->error) */
    ar_plan_t *scaled[2]; /* iterations x1 and x8, shifts zeroed: bench_plan_scaled */
    char error[1200];     /* why the plan could not be made; "" when plan != NULL */
} bench_plan_t;

/* The plan for (family, preset, fault), generated with BENCH_WORKLOAD_SEED; fault NULL or ""
 * for a clean plan. A few recent plans are kept; never NULL (see ->error). */
bench_plan_t *bench_plan_get(char const *family, char const *preset, char const *fault);
/* The plan written to JSON in the temp dir; false with ->error set on failure. */
bool bench_plan_json(bench_plan_t *entry);
/* A copy with every repeat's iterations multiplied by 8 (index 1) or 1 (index 0), built
 * through the builder; both copies turn every shift into a zero delta, so (C) does the same
 * work on both and the verdict stays that of iteration 0: the time difference is (D)'s. */
ar_plan_t *bench_plan_scaled(bench_plan_t *entry, int index);

/* The precision counters every precision benchmark reports: sites and plans the exact oracle
 * and the certificate accept, their ratios (1 when the oracle accepts none), unsound plans. */
void bench_precision_counters(gb_state_t *state, uint64_t sites, uint64_t exact_accepted,
                              uint64_t cert_accepted, uint64_t exact_safe, uint64_t cert_safe,
                              uint64_t unsound);
void bench_register_certify(void);
/* The child of the loader's peak-memory measure: load PATH and exit ("" loads nothing). */
int bench_load_peak_main(char const *path);
void bench_register_precision(void);
void bench_register_arena(void);
void bench_register_gpu(void);
void bench_register_placement(void); /* bench_placement.c */
/* Real runtimes' plans (bench_runtimes.c): LiteRT's from $ARENAREF_TFLITE_PLANS, llama.cpp's
 * from $ARENAREF_LLAMA_PLANS, XLA's from $ARENAREF_XLA_PLANS. */
void bench_register_runtimes(void);
/* Adds the environment record to the JSON context. topology_xml: where to export the hwloc
 * topology, or NULL. */
void bench_record_environment(char const *topology_xml);

#endif
