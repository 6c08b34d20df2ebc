/* `arenacert gen-packing N`: a perfect packing (ar_workload_packing) as MiniMalloc's CSV on
 * standard output, the instance family whose optimum is known: the strip's height.
 *
 *   arenacert gen-packing N [--seed S] [--height BYTES] [--span TIMES] [--offsets]
 *
 * Numbers are digits only; anything else, or arguments the generator refuses, is a usage error
 * (exit status 2). `--offsets` adds the planted placement (a solution of the optimum height). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ref/tools/commands.h"
#include "arenaref/workloads.h"

#define PACKING_HEIGHT_DEFAULT 1048576u
#define PACKING_SPAN_DEFAULT 1000u

static void usage(FILE *out) {
    fprintf(out,
            "usage: arenacert gen-packing N [--seed S] [--height BYTES] [--span TIMES]\n"
            "                              [--offsets]\n"
            "A strip of BYTES (default %u) over times [0, TIMES) (default %u) cut by random\n"
            "guillotine cuts into N buffers: MiniMalloc's CSV (id,lower,upper,size) on standard\n"
            "output. The max-live bound and the optimum are BYTES. --offsets adds an offset\n"
            "column: where each buffer was cut from (a placement of that height).\n",
            PACKING_HEIGHT_DEFAULT, PACKING_SPAN_DEFAULT);
}

static bool number(char const *text, uint64_t *value) {
    if (!text || *text < '0' || *text > '9') return false;
    errno = 0;
    char *end = NULL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end) return false;
    *value = v;
    return true;
}

int arenacert_packing_main(int argc, char **argv) {
    uint64_t n = 0, seed = 1, height = PACKING_HEIGHT_DEFAULT, span = PACKING_SPAN_DEFAULT;
    bool with_offsets = false, have_n = false;
    for (int i = 0; i < argc; ++i) {
        char const *arg = argv[i];
        uint64_t *target = NULL;
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--offsets") == 0) {
            with_offsets = true;
            continue;
        } else if (strcmp(arg, "--seed") == 0) {
            target = &seed;
        } else if (strcmp(arg, "--height") == 0) {
            target = &height;
        } else if (strcmp(arg, "--span") == 0) {
            target = &span;
        } else if (arg[0] != '-' && !have_n) {
            if (!number(arg, &n) || !n) {
                fprintf(stderr, "arenacert gen-packing: N must be a positive integer, got '%s'\n",
                        arg);
                return 2;
            }
            have_n = true;
            continue;
        } else {
            fprintf(stderr, "arenacert gen-packing: unexpected argument '%s'\n", arg);
            usage(stderr);
            return 2;
        }
        if (i + 1 >= argc || !number(argv[i + 1], target)) {
            fprintf(stderr, "arenacert gen-packing: %s expects a non-negative integer, got '%s'\n",
                    arg, i + 1 < argc ? argv[i + 1] : "nothing");
            return 2;
        }
        ++i;
    }
    if (!have_n) {
        fprintf(stderr, "arenacert gen-packing: no N (the number of buffers)\n");
        usage(stderr);
        return 2;
    }
    ar_place_buffer_t *buffers = n < SIZE_MAX / 2 ? malloc(n * sizeof *buffers) : NULL;
    uint64_t *offsets = n < SIZE_MAX / 2 ? malloc(n * sizeof *offsets) : NULL;
    if (!buffers || !offsets) {
        fprintf(stderr, "arenacert gen-packing: out of memory for %" PRIu64 " buffers\n", n);
        free(buffers), free(offsets);
        return 2;
    }
    if (ar_workload_packing((size_t)n, seed, height, span, buffers, offsets) !=
        ar_status_success_k) {
        fprintf(stderr,
                "arenacert gen-packing: cannot cut %" PRIu64 " buffers from %" PRIu64
                " bytes over %" PRIu64 " times (each positive, below 2^56 and 2^63, and N at "
                "most BYTES x TIMES)\n",
                n, height, span);
        free(buffers), free(offsets);
        return 2;
    }
    printf("id,lower,upper,size%s\n", with_offsets ? ",offset" : "");
    for (size_t i = 0; i < n; ++i) {
        printf("%zu,%" PRIu64 ",%" PRIu64 ",%" PRIu64, i, buffers[i].lower, buffers[i].upper,
               buffers[i].size);
        if (with_offsets) printf(",%" PRIu64, offsets[i]);
        putchar('\n');
    }
    free(buffers), free(offsets);
    return fflush(stdout) == 0 ? 0 : 2;
}
