/* The counting allocator (counting_malloc.c): whether this process allocates through it (only
 * under a valgrind tool that leaves malloc alone), and the counted regions it lays out afresh. */
#ifndef ARENAREF_COUNTING_MALLOC_H
#define ARENAREF_COUNTING_MALLOC_H
#include <stdbool.h>

bool arp_counting_malloc_active(void);
/* Begin (true) or end (false) the calling thread's region: inside, blocks and their addresses
 * follow from the region's own calls. Beginning one ends the one before. Nothing where the
 * allocator is not active. */
void arp_counting_malloc_region(bool begin);
/* body(argc, argv): main's whole body, in a counted program. Where the allocator is active, on a
 * stack moved to one page offset whatever the environment's size, and in a region of its own. */
int arp_counting_main(int (*body)(int, char **), int argc, char **argv);

#endif
