/* `arenacert gen`: placeholder until the workload generators land (issue 3). */
#include <stdio.h>
#include "../../ref/tools/commands.h"
int arenacert_gen_main(int argc, char **argv) {
    (void)argc; (void)argv;
    fprintf(stderr, "arenacert gen: the workload generators are not built yet\n");
    return 2;
}
