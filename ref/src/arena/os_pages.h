/* The one OS layer of the arena half: every host allocation the arena code makes goes through
 * here, so binding, huge pages, NUMA read-back and fault injection live in one place.
 * - Small bookkeeping blocks (handles) come from arp_host_calloc / arp_host_free.
 * - Arena pages come from arp_host_pages_alloc: hwloc_alloc_membind by nodeset on the machine's
 *   topology, HWLOC_MEMBIND_STRICT first; where the OS refuses strict binding it retries
 *   without STRICT and records the fallback in the pages (never hidden). Large blocks ask for
 *   transparent huge pages (madvise MADV_HUGEPAGE).
 * - Fault injection (tests only): arp_host_fault_arm(n) makes the n-th host allocation from now
 *   fail, pages and small blocks alike; a live-allocation count lets tests see leaks.
 */
#ifndef ARENAREF_OS_PAGES_H
#define ARENAREF_OS_PAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "arenaref/status.h"

/* The machine's topology, loaded once; NULL if hwloc could not load it. Never freed. */
hwloc_topology_t arp_machine_topology(void);

/* The NUMA node whose cores hold the calling thread's last CPU in `topology` (this machine's),
 * or NULL when unknown (no topology, no node with that CPU). */
hwloc_obj_t arp_calling_thread_node(hwloc_topology_t topology);

void *arp_host_calloc(size_t count, size_t size); /* NULL when out of memory or injected */
void arp_host_free(void *pointer);                /* NULL is safe */

typedef struct arp_host_pages_t {
    void *data;
    size_t size;    /* bytes mapped (a multiple of the page size) */
    int32_t node;   /* the node asked for, or -1 for unbound */
    bool strict;    /* bound with HWLOC_MEMBIND_STRICT */
    bool fallback;  /* strict binding refused: preferred or unbound pages instead */
    bool huge;      /* MADV_HUGEPAGE accepted */
    bool via_hwloc; /* freed with hwloc_free (else munmap) */
} arp_host_pages_t;

/* Pages of at least `size` bytes (size > 0) bound to NUMA node `node` (OS index of the machine;
 * -1 or a node the machine lacks: unbound, recorded as a fallback). ar_status_out_of_memory_k
 * leaves *pages zeroed. */
ar_status_t arp_host_pages_alloc(int32_t node, size_t size, arp_host_pages_t *pages);
void arp_host_pages_free(arp_host_pages_t *pages); /* zeroes *pages; zeroed pages are fine */

/* Where the first `length` bytes of `data` lie as the OS reports it (the pages must have been
 * written): the node's OS index, or -1 when unknown or spread over several nodes. */
int32_t arp_host_pages_node(void const *data, size_t length);

/* Fault injection: the n-th host allocation from now fails (n >= 1); 0 disarms. */
void arp_host_fault_arm(uint64_t n);
uint64_t arp_host_fault_allocations(void); /* allocations counted since the last arm */
int64_t arp_host_live_allocations(void);   /* blocks and page runs not yet freed */

#endif
