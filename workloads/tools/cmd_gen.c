/* `arenacert gen`: list the generators, or generate one plan as JSON on standard output.
 *
 *   arenacert gen --list
 *   arenacert gen FAMILY [--preset NAME] [--model NAME] [--layers N] [--batch N] [--seq N]
 *                 [--decode N] [--epochs N] [--micro N] [--seed N] [--fault NAME] [--info]
 *
 * Options are parsed strictly (a number is digits only, in range); anything unknown is a usage
 * error with exit status 2, as is a generator's refusal. `--info` prints the plan's facts
 * (sizes, expected verdict, generation time) on standard error. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../ref/tools/commands.h"
#include "arenaref/plan.h"
#include "arenaref/workloads.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: arenacert gen --list\n"
            "       arenacert gen FAMILY [--preset NAME] [--model NAME] [--layers N] [--batch N]\n"
            "                     [--seq N] [--decode N] [--epochs N] [--micro N] [--seed N]\n"
            "                     [--fault NAME] [--strategy NAME] [--recompute]\n"
            "                     [--in-place[=LIST]]\n"
            "                     [--expert-skew PERCENT] [--kv-page TOKENS]\n"
            "                     [--micro-skew PERCENT] [--ops N] [--globals N] [--info]\n"
            "--recompute: training recomputes its layers in backward, segment by segment;\n"
            "--in-place[=LIST]: in-place updates, declared with `becomes`; LIST is a comma-\n"
            "separated list of norm (decoder, moe, encoder, pipeline: the norm's scale over\n"
            "its input), residual (every transformer family: the residual adds over the\n"
            "stream), kv (decoder, moe: the KV-cache write), elementwise (flat: LiteRT's\n"
            "in-place ops) and all (every kind the family takes); bare, norm; `--in-place\n"
            "LIST` also reads;\n"
            "--expert-skew P (moe, 1..90): expert FFN widths fall short of the model's by up\n"
            "to P percent, each expert in its own phases;\n"
            "--kv-page N (decoder, moe; 1..seq): a paged KV cache of N tokens a page; over\n"
            "epochs, requests come and go in waves, each group's pages their own plane;\n"
            "--micro-skew P (pipeline, 1..90): micro-batches fall short by up to P percent,\n"
            "run one forward, one backward, each with its own stash;\n"
            "--ops N, --globals N (flat): ops (one phase each) and weights (globals).\n"
            "Writes the plan as JSON on standard output; `gen --list` names the families,\n"
            "faults, models and presets.\n");
}

static int list(void) {
    char const *const *names;
    for (names = ar_workload_families(); *names; ++names) printf("family %s\n", *names);
    for (names = ar_workload_faults(); *names; ++names) printf("fault %s\n", *names);
    for (names = ar_workload_models(); *names; ++names) printf("model %s\n", *names);
    for (names = ar_workload_presets(); *names; ++names) printf("preset %s\n", *names);
    return 0;
}

static int parse_count(char const *option, char const *text, uint64_t *out) {
    char *end = NULL;
    if (!text || !*text || *text < '0' || *text > '9') {
        fprintf(stderr, "arenacert gen: %s expects a non-negative integer, got '%s'\n", option,
                text ? text : "");
        return 2;
    }
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno || *end) {
        fprintf(stderr, "arenacert gen: %s expects a non-negative integer below 2^64, got '%s'\n",
                option, text);
        return 2;
    }
    *out = value;
    return 0;
}

int arenacert_gen_main(int argc, char **argv) {
    ar_workload_options_t options;
    memset(&options, 0, sizeof options);
    bool info_wanted = false;
    for (int i = 0; i < argc; ++i) {
        char const *arg = argv[i];
        if (strcmp(arg, "--list") == 0) {
            if (argc != 1) {
                fprintf(stderr, "arenacert gen: --list takes no other arguments\n");
                return 2;
            }
            return list();
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(arg, "--info") == 0) {
            info_wanted = true;
            continue;
        }
        if (strcmp(arg, "--recompute") == 0) {
            options.recompute = 1;
            continue;
        }
        if (strcmp(arg, "--in-place") == 0 || strncmp(arg, "--in-place=", 11) == 0) {
            /* bare: the norm's scale (the knob's first meaning); a list as `=LIST` or as the
             * next argument when that reads as one (a family name never does) */
            uint64_t kinds = AR_WORKLOAD_IN_PLACE_NORM;
            if (arg[10] == '=' && !ar_workload_in_place_parse(arg + 11, &kinds)) {
                fprintf(stderr,
                        "arenacert gen: --in-place expects a list of norm, residual, kv, "
                        "elementwise or all, got '%s'\n",
                        arg + 11);
                return 2;
            }
            if (arg[10] != '=' && i + 1 < argc && ar_workload_in_place_parse(argv[i + 1], &kinds))
                ++i;
            options.in_place |= kinds;
            continue;
        }
        if (arg[0] != '-') {
            if (options.family) {
                fprintf(stderr, "arenacert gen: one family only (got '%s' and '%s')\n",
                        options.family, arg);
                return 2;
            }
            options.family = arg;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "arenacert gen: %s needs a value\n", arg);
            return 2;
        }
        char const *value = argv[++i];
        int bad = 0;
        if (strcmp(arg, "--preset") == 0)
            options.preset = value;
        else if (strcmp(arg, "--model") == 0)
            options.model = value;
        else if (strcmp(arg, "--fault") == 0)
            options.fault = value;
        else if (strcmp(arg, "--strategy") == 0)
            options.strategy = value;
        else if (strcmp(arg, "--layers") == 0)
            bad = parse_count(arg, value, &options.layers);
        else if (strcmp(arg, "--batch") == 0)
            bad = parse_count(arg, value, &options.batch);
        else if (strcmp(arg, "--seq") == 0)
            bad = parse_count(arg, value, &options.seq);
        else if (strcmp(arg, "--decode") == 0)
            bad = parse_count(arg, value, &options.decode);
        else if (strcmp(arg, "--epochs") == 0)
            bad = parse_count(arg, value, &options.epochs);
        else if (strcmp(arg, "--micro") == 0)
            bad = parse_count(arg, value, &options.micro);
        else if (strcmp(arg, "--seed") == 0)
            bad = parse_count(arg, value, &options.seed);
        else if (strcmp(arg, "--expert-skew") == 0)
            bad = parse_count(arg, value, &options.expert_skew);
        else if (strcmp(arg, "--kv-page") == 0)
            bad = parse_count(arg, value, &options.kv_page);
        else if (strcmp(arg, "--micro-skew") == 0)
            bad = parse_count(arg, value, &options.micro_skew);
        else if (strcmp(arg, "--ops") == 0)
            bad = parse_count(arg, value, &options.ops);
        else if (strcmp(arg, "--globals") == 0)
            bad = parse_count(arg, value, &options.globals);
        else {
            fprintf(stderr, "arenacert gen: unknown option '%s'\n", arg);
            usage(stderr);
            return 2;
        }
        if (bad) return bad;
    }
    if (!options.family) {
        fprintf(stderr, "arenacert gen: which family? (see `arenacert gen --list`)\n");
        usage(stderr);
        return 2;
    }

    struct timespec start, stop;
    clock_gettime(CLOCK_MONOTONIC, &start);
    ar_plan_t *plan = NULL;
    ar_workload_info_t info;
    ar_plan_error_t error;
    ar_status_t status = ar_workload_generate(&options, &plan, &info, &error);
    clock_gettime(CLOCK_MONOTONIC, &stop);
    if (status) {
        fprintf(stderr, "arenacert gen: %s: %s\n", error.path, error.message);
        return 2;
    }
    double seconds =
        (double)(stop.tv_sec - start.tv_sec) + 1e-9 * (double)(stop.tv_nsec - start.tv_nsec);
    if (info_wanted)
        fprintf(stderr,
                "family %s model %s preset %s fault %s expect %s expect_exact %s\n"
                "launches %" PRIu64 " words %" PRIu64 " repeats %" PRIu64 " references %" PRIu64
                " executed_launches %" PRIu64 " instances %" PRIu64 "\n"
                "workspace_bytes %" PRIu64 " lower_bound_bytes %" PRIu64 " generate_seconds %.3f\n",
                info.family, info.model, info.preset, info.fault[0] ? info.fault : "none",
                info.expect_text, info.expect_exact_text, info.launches, info.words, info.repeats,
                info.references, info.executed_launches, info.instances, info.workspace_bytes,
                info.lower_bound_bytes, seconds);
    status = ar_plan_write_file(plan, stdout, &error);
    ar_plan_free(plan);
    if (status) {
        fprintf(stderr, "arenacert gen: writing the plan: %s\n", error.message);
        return 2;
    }
    if (fflush(stdout) != 0) {
        fprintf(stderr, "arenacert gen: writing the plan: %s\n", strerror(errno));
        return 2;
    }
    return 0;
}
