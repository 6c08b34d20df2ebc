/* `arenacert`: the project's command line. main only dispatches to a subcommand (commands.h),
 * so each subcommand lives with the part that owns it: `certify` (ref/tools/cmd_certify.c) and
 * `gen` (workloads/tools/cmd_gen.c). Exit status 2 is bad usage, as for every subcommand. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "counting_malloc.h"

#ifndef ARENAREF_VERSION
#define ARENAREF_VERSION "0.1.0"
#endif

static void usage(FILE *out) {
    fprintf(out,
            "usage: arenacert COMMAND [ARGS]\n"
            "\n"
            "commands:\n"
            "  certify PLAN.json [--few K] [--exact] [--stats] [--json]\n"
            "                    check a device arena plan (CERTIFICATE.md); prints\n"
            "                    \"verdict: N\" and the reason; exit 0 certified, 1 rejected,\n"
            "                    2 malformed plan or bad usage. PLAN \"-\" reads standard input.\n"
            "  gen ...           generate a workload plan (arenacert gen --help)\n"
            "  gen-packing N     a perfect packing of N buffers, optimum known (CSV)\n"
            "  place PROBLEM.csv [--strategy NAME] [--capacity B] [--time-limit S]\n"
            "                    place buffers (MiniMalloc's CSV); --list: the strategies\n"
            "  import SOLUTION.csv [--alignment N] [--base ADDR]\n"
            "                    a placement as a plan that certifies exactly when it is valid\n"
            "  export-problem PLAN.json\n"
            "                    a plan's planes as a problem CSV\n"
            "\n"
            "  --help            this text\n"
            "  --version         the version\n");
}

static int arenacert_main(int argc, char **argv) {
    /* Counted under callgrind, jansson's hash seed is fixed too: a random one changes the order
     * keys land in and the heap the loader leaves, hence the count of what follows. */
    if (arp_counting_malloc_active()) json_object_seed(0x5eed);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    char const *command = argv[1];
    if (strcmp(command, "--help") == 0 || strcmp(command, "-h") == 0 ||
        strcmp(command, "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(command, "--version") == 0) {
        printf("arenacert %s\n", ARENAREF_VERSION);
        return 0;
    }
    if (strcmp(command, "certify") == 0) return arenacert_certify_main(argc - 2, argv + 2);
    if (strcmp(command, "gen") == 0) return arenacert_gen_main(argc - 2, argv + 2);
    if (strcmp(command, "gen-packing") == 0) return arenacert_packing_main(argc - 2, argv + 2);
    if (strcmp(command, "place") == 0) return arenacert_place_main(argc - 2, argv + 2);
    if (strcmp(command, "import") == 0) return arenacert_import_main(argc - 2, argv + 2);
    if (strcmp(command, "export-problem") == 0)
        return arenacert_export_problem_main(argc - 2, argv + 2);
    fprintf(stderr, "arenacert: unknown command \"%s\"\n", command);
    usage(stderr);
    return 2;
}

/* Counted under callgrind, on a stack at one page offset whatever the environment's size. */
int main(int argc, char **argv) { return arp_counting_main(arenacert_main, argc, argv); }
