/* Private structures shared by the arena core's files (executor.c, arena.c, text_encode.c)
 * and the CUDA helpers. Nothing here is public API. */
#ifndef ARENAREF_ARENA_INTERNAL_H
#define ARENAREF_ARENA_INTERNAL_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdbool.h>
#include <stdint.h>

#include <hwloc.h>

#include "arenaref/arena.h"
#include "arena_testing.h"
#include "gpu_backend.h"
#include "os_pages.h"

/* gcc says __SANITIZE_ADDRESS__, clang says __has_feature(address_sanitizer). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer) && !defined(__SANITIZE_ADDRESS__)
#define __SANITIZE_ADDRESS__ 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define ARP_POISON(address, size) ASAN_POISON_MEMORY_REGION((address), (size))
#define ARP_UNPOISON(address, size) ASAN_UNPOISON_MEMORY_REGION((address), (size))
#else
#define ARP_POISON(address, size) ((void)(address), (void)(size))
#define ARP_UNPOISON(address, size) ((void)(address), (void)(size))
#endif

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
    /* The outcome the worker is publishing (after `running` is cleared, until it takes the
     * lock again), so a fork()ed child can publish it if the fork came in between. */
    ar_outcome_t *finishing;
    ar_status_t finishing_status;
    char const *finishing_message;
    struct ar_executor_handle_t *registered_next; /* registry.c's list of live executors */
    bool gpu_lost; /* a GPU executor in a fork()ed child: CUDA did not survive the fork */
    bool stopping;
    bool paused; /* test hook: the worker waits before its next job */
    bool worker_started;
    pthread_t worker;
};

/* The arena's holder word: bit 0, a call holds it; above, how many exports hold it (steps of
 * arp_holder_export_k). A call takes it 0 -> call with one compare-and-swap, the fixed path's
 * one atomic read-modify-write, and gives it back with a plain release store (nobody else
 * writes the word while a call holds it), waking nobody. An export adds a step while no call
 * holds it, and drops it under `lock`, waking ar_arena_free. ar_arena_free sleeps on
 * `released` for exports and worker-run calls (in_flight) and polls, with growing naps, for a
 * call run inline on another thread, whose release wakes nobody. */
enum { arp_holder_free_k = 0, arp_holder_call_k = 1, arp_holder_export_k = 2 };

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
     * while the holder writes), so ar_arena_stats reads a consistent snapshot, retrying while a
     * write is in progress, and a call pays no lock for them. `contended` is the exception: refused
     * callers add to it atomically, outside the sequence (no other field depends on it). */
    uint64_t stats_sequence;
    ar_arena_stats_t stats;
    bool numa_known; /* numa_node read back since the latest host growth (holder only) */

    arp_job_t job;
    struct ar_arena_handle_t *registered_previous, *registered_next; /* registry.c's list */
};

/* executor.c */
/* Marks `outcome` deferred and queues the job, both under the executor's lock; false when the
 * executor has no worker and none could be started (in a fork()ed child): nothing queued. */
bool arp_executor_submit(struct ar_executor_handle_t *executor, arp_job_t *job,
                         ar_outcome_t *outcome);
void arp_executor_release(struct ar_executor_handle_t *executor); /* drop one reference */
void arp_executor_retain(struct ar_executor_handle_t *executor);

/* arena.c */
void arp_arena_call_begins(struct ar_arena_handle_t *arena); /* in_flight++ (holder taken) */
void arp_arena_call_final(struct ar_arena_handle_t *arena);  /* in_flight--, wakes free */
ar_status_t arp_arena_grow_host(struct ar_arena_handle_t *arena, size_t size);
ar_status_t arp_arena_reserve_device(struct ar_arena_handle_t *arena, size_t size);

/* The fixed path's steps, inline so a warm call pays no function calls for them. */

/* False: held by another call or an export (contended). */
static inline bool arp_arena_take_holder(struct ar_arena_handle_t *arena) {
    int expected = arp_holder_free_k;
    return __atomic_compare_exchange_n(&arena->holder, &expected, arp_holder_call_k, false,
                                       __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* The call holds the word alone (exports wait for 0): no read-modify-write is needed. */
static inline void arp_arena_release_holder(struct ar_arena_handle_t *arena) {
    __atomic_store_n(&arena->holder, arp_holder_free_k, __ATOMIC_RELEASE);
}

/* epoch++ and poison the old outputs. Only the holder writes the epoch (taking the holder
 * acquired the previous one's value): a plain increment published with a release store. */
static inline uint64_t arp_arena_rewind(struct ar_arena_handle_t *arena) {
    uint64_t epoch = __atomic_load_n(&arena->epoch, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&arena->epoch, epoch, __ATOMIC_RELEASE);
    if (arena->host.data && arena->host_written) ARP_POISON(arena->host.data, arena->host_written);
    arena->host_written = 0;
    return epoch;
}

/* Unpoisons what the call writes. */
static inline void arp_arena_mark_written(struct ar_arena_handle_t *arena, size_t host_bytes) {
    if (arena->host.data && host_bytes) ARP_UNPOISON(arena->host.data, host_bytes);
    arena->host_written = host_bytes;
}

/* Grows the host part to `size` bytes if it holds less; out_of_memory leaves it empty. */
static inline ar_status_t arp_arena_reserve_host(struct ar_arena_handle_t *arena, size_t size) {
    return size <= arena->host.size ? ar_status_success_k : arp_arena_grow_host(arena, size);
}

/* The sequence lock (Boehm, "Can seqlocks get along with programming language memory
 * models?", 2012), in its fence-free form (ThreadSanitizer does not model fences): the writer
 * makes the sequence odd, stores each field with release (so a reader that sees a new field has
 * seen the odd sequence before it), then makes it even with release; the reader loads the
 * sequence, each field with acquire (so its second load of the sequence cannot come before
 * them), and the sequence again, and retries unless both were the same even value. On x86
 * every one of these is a plain move. One writer at a time: the holder. */
static inline uint64_t arp_arena_stats_begin(struct ar_arena_handle_t *arena) {
    uint64_t odd = __atomic_load_n(&arena->stats_sequence, __ATOMIC_RELAXED) + 1;
    __atomic_store_n(&arena->stats_sequence, odd, __ATOMIC_RELAXED);
    return odd;
}

/* `odd`: what arp_arena_stats_begin returned. */
static inline void arp_arena_stats_end(struct ar_arena_handle_t *arena, uint64_t odd) {
    __atomic_store_n(&arena->stats_sequence, odd + 1, __ATOMIC_RELEASE);
}
/* Between begin and end, by the holder only. */
#define ARP_STAT_SET(arena, field, value)                                                          \
    __atomic_store_n(&(arena)->stats.field, (value), __ATOMIC_RELEASE)

/* registry.c: the live executors and arenas (cancel searches them, fork repairs them). The
 * lists are read only under arp_registry_lock. */
void arp_registry_lock(void);
void arp_registry_unlock(void);
struct ar_executor_handle_t *arp_registry_executors(void); /* then ->registered_next */
struct ar_arena_handle_t *arp_registry_arenas(void);       /* then ->registered_next */
void arp_registry_add_executor(struct ar_executor_handle_t *executor);
void arp_registry_remove_executor(struct ar_executor_handle_t *executor);
void arp_registry_add_arena(struct ar_arena_handle_t *arena);
void arp_registry_remove_arena(struct ar_arena_handle_t *arena);

/* fork.c: the pthread_atfork handlers (installed once by the registry). */
void arp_fork_install(void);

/* text_encode.c */
/* Runs a queued call to the end on `executor`'s worker (counted in in_flight by
 * arp_arena_call_begins; it checks for cancellation) and makes it final. */
void arp_job_run(arp_job_t *job, struct ar_executor_handle_t *executor);
/* Makes a queued call that will not run final with `status`: zeroes its outputs, counts it,
 * releases the arena and its in-flight count. */
void arp_job_end(arp_job_t *job, ar_status_t status, char const *message);
/* Publishes a final status (and its message) with a release store. Only a status that reads
 * deferred can keep a waiter asleep: an outcome serves one call at a time, and the library
 * stores deferred only into the outcome of a call it then queues (before queuing it, so the
 * worker finishing it sees deferred here); a call that never returned deferred (inline,
 * refused, invalid) finds a final status and needs no wake-up. */
void arp_outcome_finish_watched(ar_outcome_t *outcome, ar_status_t status, char const *message);
/* The outcomes' lock, for the fork handlers; after_fork: fresh condition, no waiters. */
void arp_outcomes_lock(void);
void arp_outcomes_unlock(void);
void arp_outcomes_after_fork(void);
static inline void arp_outcome_finish(ar_outcome_t *outcome, ar_status_t status,
                                      char const *message) {
    if (__atomic_load_n((int *)&outcome->status, __ATOMIC_RELAXED) == (int)ar_status_deferred_k)
        return arp_outcome_finish_watched(outcome, status, message);
    __atomic_store_n(&outcome->message, message, __ATOMIC_RELAXED);
    __atomic_store_n((int *)&outcome->status, (int)status, __ATOMIC_RELEASE);
}
/* arp_outcome_finish where the caller asked for an outcome (NULL: nothing to report). */
static inline void arp_report(ar_outcome_t *outcome, ar_status_t status, char const *message) {
    if (outcome) arp_outcome_finish(outcome, status, message);
}

/* Traps: message to stderr and abort. Inline, so the CUDA library has its own and nothing
 * internal crosses between the shared libraries (only ar_ names leave them). */
static inline _Noreturn void arp_trap(char const *what) {
    fprintf(stderr, "arenaref: trap: %s\n", what);
    fflush(stderr);
    abort();
}

#endif
