/* The subcommands of `arenacert`: one row each in ARENACERT_COMMANDS, the one table that
 * registers them. arenacert.c dispatches and writes --help from it alone (tests/docs checks that
 * --help lists every row and that every arenacert_*_main in the tree has one). Each main lives
 * with the part that owns it, takes argv after the subcommand's name and returns the exit status
 * (2: bad usage). */
#ifndef ARENACERT_COMMANDS_H
#define ARENACERT_COMMANDS_H

/* X(NAME, ENTRY, ARGUMENTS, WHAT): WHAT's lines ("\n" between them) print indented under NAME. */
#define ARENACERT_COMMANDS(X)                                                                      \
    /* ref/tools/cmd_certify.c */                                                                  \
    X("certify", arenacert_certify_main, "PLAN.json [--few K] [--exact] [--stats] [--json]",       \
      "check a device arena plan (CERTIFICATE.md); prints \"verdict: N\" and the reason;\n"        \
      "exit 0 certified, 1 rejected, 2 malformed plan or bad usage. PLAN \"-\" reads\n"            \
      "standard input.")                                                                           \
    /* workloads/tools/cmd_gen.c */                                                                \
    X("gen", arenacert_gen_main, "FAMILY [OPTIONS] | --list",                                      \
      "generate a workload plan (arenacert gen --help)")                                           \
    /* workloads/tools/cmd_packing.c */                                                            \
    X("gen-packing", arenacert_packing_main, "N [OPTIONS]",                                        \
      "a perfect packing of N buffers, optimum known (CSV; arenacert gen-packing --help)")         \
    /* ref/tools/cmd_place.c */                                                                    \
    X("place", arenacert_place_main,                                                               \
      "PROBLEM.csv [--strategy NAME] [--capacity B] [--time-limit S]",                             \
      "place buffers (MiniMalloc's CSV); --list: the strategies")                                  \
    X("import", arenacert_import_main, "SOLUTION.csv [--alignment N] [--base ADDR]",               \
      "a placement as a plan that certifies exactly when it is valid")                             \
    X("export-problem", arenacert_export_problem_main, "PLAN.json",                                \
      "a plan's planes as a problem CSV")

#define ARENACERT_DECLARE(name, entry, arguments, what) int entry(int argc, char **argv);
ARENACERT_COMMANDS(ARENACERT_DECLARE)
#undef ARENACERT_DECLARE

#endif
