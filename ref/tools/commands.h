/* The subcommands of `arenacert`, one file each: certify (ref/tools/cmd_certify.c) and gen
 * (workloads/tools/cmd_gen.c). Each takes argv after the subcommand name and returns the exit
 * status. */
#ifndef ARENACERT_COMMANDS_H
#define ARENACERT_COMMANDS_H
int arenacert_certify_main(int argc, char **argv);
int arenacert_gen_main(int argc, char **argv);
int arenacert_packing_main(int argc, char **argv); /* workloads/tools/cmd_packing.c */
int arenacert_place_main(int argc, char **argv);          /* ref/tools/cmd_place.c */
int arenacert_import_main(int argc, char **argv);
int arenacert_export_problem_main(int argc, char **argv);
#endif
