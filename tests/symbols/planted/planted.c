/* A shared library that leaks an internal name, for symbols.check_finds_private_export: the
 * check must report arp_planted (and accepts ar_planted_declared, declared in planted.h). */
#include "planted.h"

int arp_planted(void) { return 1; }

int ar_planted_declared(void) { return arp_planted(); }
