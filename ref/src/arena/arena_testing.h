/* Test hooks of the arena half (not public API): tests/arena includes this from ref/src.
 * - A synthetic hwloc topology for an executor ("numa:2 core:4 pu:1"), so placement logic for
 *   many nodes is tested on a one-node machine.
 * - The worker's cpuset as text ("4-7"), to check where an executor computes.
 * - Host fault injection and the live-allocation count (os_pages.h). */
#ifndef ARENAREF_ARENA_TESTING_H
#define ARENAREF_ARENA_TESTING_H

#include <stdbool.h>
#include <stddef.h>

#include "arenaref/arena.h"
#include "os_pages.h"

/* ar_executor_init on a synthetic topology (a RAM executor only); the executor owns the
 * topology. Memory of its arenas binds on the machine only where the node exists there (else
 * unbound, recorded as binding_fallback). */
void arp_testing_executor_init_synthetic(ar_executor_init_t *arguments, char const *synthetic);

/* Writes the executor's cpuset in hwloc list form ("0-3") into `text`; returns its length,
 * 0 when there is none. */
size_t arp_testing_executor_cpuset(ar_executor_t executor, char *text, size_t capacity);

/* Holds the executor's worker before its next job (true) or lets it go on (false), so a test
 * can keep a submitted call holding its arena for as long as it needs, without timing. */
void arp_testing_executor_pause(ar_executor_t executor, bool paused);

/* Whether a call holds the arena now. */
bool arp_testing_arena_held(ar_arena_t arena);

/* Called (when not NULL) at each cancellation check of a job a worker runs, with the job's
 * cancel flag (atomic), so a test can hold a running job at a check until it is cancelled. */
extern void (*arp_testing_check_hook)(int const *cancel);

#endif
