/* arenaref_bench: the whole benchmark suite in one executable.
 *
 * Our own flags come first and are taken out of argv; the rest goes to Google Benchmark
 * (--benchmark_filter, --benchmark_out, ...). The profile decides sizes and repetitions:
 *   quick (default)  presets tiny..medium; the regression set (certify/, arena/)
 *                    repeated 9 times, as compare.py's U-test needs; minutes on 2 cores
 *   full             presets tiny..large, more repetitions, longer runs: publication
 * The environment record goes into the JSON context before anything runs. */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "counting_malloc.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: arenaref_bench [--arenaref_profile=quick|full] [--arenaref_topology_xml=PATH]\n"
            "                      [Google Benchmark flags: --benchmark_filter=REGEX, "
            "--benchmark_out=FILE,\n"
            "                       --benchmark_out_format=json, --benchmark_list_tests, ...]\n"
            "environment: ARENAREF_BENCH_SLOWDOWN=F (F > 1) spins every timed region to F times "
            "its length,\n"
            "             to test scripts/compare; ARENAREF_COMMIT / ARENAREF_DIRTY override what "
            "git says.\n");
}

static int bench_main(int argc, char **argv) {
    char const *profile = "quick", *topology_xml = NULL;
    int kept = 1;
    for (int i = 1; i != argc; ++i) {
        if (strncmp(argv[i], "--arenaref_profile=", 19) == 0) {
            profile = argv[i] + 19;
        } else if (strncmp(argv[i], "--arenaref_topology_xml=", 24) == 0) {
            topology_xml = argv[i] + 24;
        } else if (strncmp(argv[i], "--arenaref_load_peak=", 21) == 0) {
            return bench_load_peak_main(argv[i] + 21); /* internal: see bench_certify.c */
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strncmp(argv[i], "--arenaref", 10) == 0) {
            fprintf(stderr, "arenaref_bench: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            argv[kept++] = argv[i];
        }
    }
    argc = kept;
    argv[argc] = NULL;
    if (strcmp(profile, "quick") == 0) {
        bench_profile = (bench_profile_t){.name = "quick",
                                          .presets = {"tiny", "small", "medium"},
                                          .presets_count = 3,
                                          .regression_repetitions = 9,
                                          .repetitions = 1,
                                          .min_time = 0.1,
                                          .ratio_samples = 5};
    } else if (strcmp(profile, "full") == 0) {
        bench_profile = (bench_profile_t){.name = "full",
                                          .presets = {"tiny", "small", "medium", "large"},
                                          .presets_count = 4,
                                          .regression_repetitions = 15,
                                          .repetitions = 5,
                                          .min_time = 0.2,
                                          .ratio_samples = 11};
    } else {
        fprintf(stderr, "arenaref_bench: unknown profile '%s' (quick or full)\n", profile);
        return 2;
    }
    /* The profile's minimum time goes to Google Benchmark as a flag rather than per benchmark,
     * so names stay free of a "/min_time:" suffix; a --benchmark_min_time given wins. */
    char min_time_flag[64];
    char **arguments = calloc((size_t)argc + 2, sizeof *arguments);
    if (!arguments) return 1;
    bool has_min_time = false;
    for (int i = 0; i != argc; ++i) {
        arguments[i] = argv[i];
        has_min_time |= strncmp(argv[i], "--benchmark_min_time", 20) == 0;
    }
    if (!has_min_time) {
        snprintf(min_time_flag, sizeof min_time_flag, "--benchmark_min_time=%g",
                 bench_profile.min_time);
        arguments[argc++] = min_time_flag;
    }
    /* jansson seeds its hash tables at random otherwise, which moves instruction counts of
     * everything that reads JSON by ~0.1% from run to run. */
    json_object_seed(BENCH_JSON_SEED);
    bench_record_environment(topology_xml);
    bench_register_certify();
    bench_register_precision();
    bench_register_arena();
    bench_register_gpu();
    bench_register_placement();
    bench_register_runtimes();
    int status = gb_main(argc, arguments);
    free(arguments);
    return status;
}

/* Counted, on a stack at one page offset and a heap laid out per run (counting_malloc.h). */
int main(int argc, char **argv) { return arp_counting_main(bench_main, argc, argv); }
