/* `arenacert`: the project's command line. main only dispatches to a subcommand, and --help
 * lists them, both from the one table that registers them (ARENACERT_COMMANDS in commands.h),
 * so each subcommand lives with the part that owns it and adding one is one row there. Exit
 * status 2 is bad usage, as for every subcommand. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "counting_malloc.h"

#ifndef ARENAREF_VERSION
#define ARENAREF_VERSION "0.1.0"
#endif

typedef struct {
    char const *name;
    int (*entry)(int argc, char **argv);
    char const *arguments, *what;
} command_t;

#define ARENACERT_ROW(name, entry, arguments, what) {name, entry, arguments, what},
static command_t const commands[] = {ARENACERT_COMMANDS(ARENACERT_ROW)};
#undef ARENACERT_ROW

static void usage(FILE *out) {
    fputs("usage: arenacert COMMAND [ARGS]\n\ncommands:\n", out);
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c) {
        fprintf(out, "  %s %s\n", commands[c].name, commands[c].arguments);
        for (char const *line = commands[c].what; *line;) {
            size_t n = strcspn(line, "\n");
            fprintf(out, "      %.*s\n", (int)n, line);
            line += n + (line[n] == '\n');
        }
    }
    fputs("\n  --help            this text\n  --version         the version\n", out);
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
    for (size_t c = 0; c < sizeof commands / sizeof commands[0]; ++c)
        if (strcmp(command, commands[c].name) == 0) return commands[c].entry(argc - 2, argv + 2);
    fprintf(stderr, "arenacert: unknown command \"%s\"\n", command);
    usage(stderr);
    return 2;
}

/* Counted under callgrind, on a stack at one page offset whatever the environment's size. */
int main(int argc, char **argv) { return arp_counting_main(arenacert_main, argc, argv); }
