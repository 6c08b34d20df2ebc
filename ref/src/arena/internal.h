/* Private structures shared by the arena core's files (executor.c, arena.c, text_encode.c)
 * and the CUDA helpers. Nothing here is public API. */
#ifndef ARENAREF_ARENA_INTERNAL_H
#define ARENAREF_ARENA_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <hwloc.h>

#include "arenaref/arena.h"
#include "arena_testing.h"
#include "gpu_backend.h"
#include "os_pages.h"

/* One call, queued on an executor's worker. Each arena embeds the one job slot it needs (an
 * arena serves one call at a time), so queuing a call allocates nothing. */
typedef struct arp_job_t {
    struct arp_job_t *next;
    ar_text_encode_t call; /* a copy: the caller's argument struct may be a temporary */
    ar_outcome_t *outcome; /* the caller's, or for a blocking call a slot it waits on */
    int cancel; /* atomic: ar_outcome_cancel asks the running job to stop at its next check */
} arp_job_t;

struct ar_executor_handle_t {
    ar_residency_t residency;
    int32_t device;    /* GPU ordinal, or -1 */
    int32_t numa_node; /* the node (OS index, in `topology`) whose cores compute; -1 for GPU */
    hwloc_topology_t topology;
    bool owns_topology; /* a synthetic topology given by a test */
    hwloc_bitmap_t cpuset;
    bool bound;
    arp_gpu_state_t *gpu;
    int references; /* the handle, plus one per live GPU arena (atomic) */

    pthread_mutex_t lock;
    pthread_cond_t wake;
    arp_job_t *head, *tail;
    arp_job_t *running; /* the job the worker runs now, until it releases its arena */
    struct ar_executor_handle_t *registered_next; /* cancel.c's list of live executors */
    bool stopping;
    bool paused; /* test hook: the worker waits before its next job */
    bool worker_started;
    pthread_t worker;
};

/* The arena's holder word. A call takes it free -> taken and gives it back taken -> free with
 * compare-and-swap, touching nothing else: no lock, no wake-up, in the common case. Only
 * ar_arena_free waits for a holder; it marks the word watched (under `lock`) before it sleeps,
 * so the release finds watched instead, and then releases under `lock` and wakes it. */
enum { arp_holder_free_k = 0, arp_holder_taken_k = 1, arp_holder_watched_k = 2 };

struct ar_arena_handle_t {
    ar_residency_t residency;
    int32_t device;
    int32_t requested_node;                    /* node its host pages bind to, -1 unbound */
    struct ar_executor_handle_t *gpu_executor; /* VRAM: the executor that made it (referenced) */

    int holder;     /* arp_holder_*_k: taken by compare-and-swap (atomic) */
    uint64_t epoch; /* bumped at each rewind, by the holder only; views remember theirs (atomic) */
    int in_flight;  /* calls run by an executor's worker, accepted and not yet final; guarded by
                       `lock`. Such a call releases the holder before it publishes its status
                       (so a caller who sees it final can call again at once), and drops this
                       after: free waits for both. A call run inline on the caller's thread
                       is not counted: releasing the holder is its last touch of the arena. */

    arp_host_pages_t host; /* RAM: all outputs; VRAM: the row offsets (host memory) */
    void *device_block;    /* VRAM: embeddings, states and input staging */
    size_t device_size;
    size_t host_written; /* bytes of `host` the latest call wrote (ASan poisoning) */

    pthread_mutex_t lock; /* guards in_flight; with `released`, lets free wait */
    pthread_cond_t released;
    /* Stats: written only by the holder (which excludes other writers), each field with a
     * release store (ARP_STAT_SET) between arp_arena_stats_begin and _end (a sequence lock: odd
     * while the holder writes), so ar_arena_stats reads a consistent snapshot, retrying while a write
     * is in progress, and a call pays no lock for them. `contended` is the exception: refused
     * callers add to it atomically, outside the sequence (no other field depends on it). */
    uint64_t stats_sequence;
    ar_arena_stats_t stats;
    bool numa_known; /* numa_node read back since the latest host growth (holder only) */

    arp_job_t job;
};

/* executor.c */
void arp_executor_submit(struct ar_executor_handle_t *executor, arp_job_t *job);
void arp_executor_release(struct ar_executor_handle_t *executor); /* drop one reference */
void arp_executor_retain(struct ar_executor_handle_t *executor);

/* arena.c */
bool arp_arena_take_holder(struct ar_arena_handle_t *arena); /* false: held (contended) */
void arp_arena_release_holder(struct ar_arena_handle_t *arena);
void arp_arena_call_begins(struct ar_arena_handle_t *arena); /* in_flight++ (holder taken) */
void arp_arena_call_final(struct ar_arena_handle_t *arena);  /* in_flight--, wakes free */
void arp_arena_rewind(struct ar_arena_handle_t *arena);      /* epoch++, poison the old outputs */
void arp_arena_stats_begin(struct ar_arena_handle_t *arena); /* holder only; then ARP_STAT_SET */
void arp_arena_stats_end(struct ar_arena_handle_t *arena);
#define ARP_STAT_SET(arena, field, value)                                                          \
    __atomic_store_n(&(arena)->stats.field, (value), __ATOMIC_RELEASE)
/* Grows the host part to `size` bytes if it holds less; out_of_memory leaves it empty. */
ar_status_t arp_arena_reserve_host(struct ar_arena_handle_t *arena, size_t size);
ar_status_t arp_arena_reserve_device(struct ar_arena_handle_t *arena, size_t size);
void arp_arena_mark_written(struct ar_arena_handle_t *arena, size_t host_bytes); /* unpoison */

/* cancel.c: the executors ar_outcome_cancel searches (added by init, removed by free) */
void arp_cancel_register(struct ar_executor_handle_t *executor);
void arp_cancel_unregister(struct ar_executor_handle_t *executor);

/* text_encode.c */
/* Runs a taken call to the end and makes it final. `executor`: the worker running it (counted
 * in in_flight by arp_arena_call_begins; checks for cancellation), NULL: inline. */
void arp_job_run(arp_job_t *job, struct ar_executor_handle_t *executor);
/* Makes a taken call that ends without running (or stopped) final with `status`: zeroes its
 * outputs, counts it, releases the arena; `on_worker` as for arp_job_run. */
void arp_job_end(arp_job_t *job, ar_status_t status, char const *message, bool on_worker);
void arp_outcome_finish(ar_outcome_t *outcome, ar_status_t status, char const *message);

/* Traps: message to stderr and abort. */
_Noreturn void arp_trap(char const *what);

#endif
