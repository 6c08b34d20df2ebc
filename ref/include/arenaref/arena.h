/* arenaref: executors, arenas, views and the synthetic verb `ar_text_encode`
 * (../shared/ARENAS.md maps the seeds onto these names). The contract every declaration here
 * keeps (errors, ownership, one call per arena at a time) opens the declarations below. */
#ifndef ARENAREF_ARENA_H
#define ARENAREF_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Error convention (status.h's one convention, stated once): every verb is
 * `void ar_VERB(ar_VERB_t *arguments)` and reports through `arguments->outcome`, an
 * `ar_outcome_t` the caller owns, or NULL where the caller does not care. `message` is static
 * text saying what went wrong and where (which field), NULL on success. A deferred call returns
 * with `ar_status_deferred_k` and the library stores the final status with a release store
 * after writing every output, so `ar_outcome_status` (acquire) or `ar_outcome_wait` sees the
 * outputs complete once the status leaves deferred. The few plain functions (`ar_arena_stats`,
 * `ar_*_free`) return their status or cannot fail. Bad input never crashes: it gets
 * `ar_status_invalid_argument_k` with a message. Only two things trap (print a message to
 * stderr and abort): a checked accessor given a stale view or an out-of-range index, as an
 * out-of-bounds index would in a safe language.
 *
 * Ownership: an arena is a handle the library allocates; every output whose length scales with
 * a call (rows, per-token states, their offsets) lives inside the arena given to that call and
 * stays valid until the next call given that arena rewinds it, or until the arena is freed.
 * Views are plain structs the caller owns; they point into the arena.
 *
 * Arenas serve one call at a time: a call takes the arena with an atomic compare-and-swap on its
 * holder and releases it when final (a blocking call when it returns, a deferred call when its
 * status becomes final). A second call naming a held arena is refused with
 * `ar_status_contended_k` at once (a deferred one at submission), and leaves the arena and the
 * holder's outputs untouched. An export of a view (export.h) holds its arena the same way until
 * its consumer releases it.
 */

/* ---- Residency, executors, devices ------------------------------------------------------- */

typedef enum ar_residency_t {
    ar_residency_ram_k = 0,  /* host pages, computed on host cores of one NUMA node */
    ar_residency_vram_k = 1, /* one GPU's memory, computed on that GPU */
} ar_residency_t;

typedef struct ar_executor_handle_t *ar_executor_t;
typedef struct ar_arena_handle_t *ar_arena_t;

/* Makes an executor. RAM: `device` is a NUMA node's OS index (as hwloc and `numa_node` in
 * stats report it), or -1 for the node of the calling thread; a worker thread bound to that
 * node's cores runs its calls. VRAM: `device` is a GPU ordinal as `ar_gpu_devices` lists it;
 * the executor owns that device's first stream (non-blocking) and a worker thread near it.
 * Statuses: invalid_argument (NULL `executor`, a node or ordinal that does not exist, an
 * unknown residency), unsupported (VRAM without CUDA in this build or without a device),
 * out_of_memory. On failure `*executor` is NULL. */
typedef struct ar_executor_init_t {
    ar_executor_t *executor; /* output */
    ar_residency_t residency;
    int32_t device;
    ar_outcome_t *outcome;
} ar_executor_init_t;

void ar_executor_init(ar_executor_init_t *arguments);

/* Finishes every call queued on the executor, stops its worker and frees it; NULL is safe.
 * Arenas of host pages it made stay usable (with other executors or NULL). A GPU arena must be
 * freed before its executor; its stream is kept alive until the last such arena is freed. */
void ar_executor_free(ar_executor_t executor);

/* Where an executor computes (an addition to the contract, for tests and benchmarks). */
typedef struct ar_executor_description_t {
    ar_residency_t residency;
    int32_t device;    /* the GPU ordinal, or -1 for host cores */
    int32_t numa_node; /* the NUMA node (OS index) whose cores run its calls; -1 for a GPU
                          executor or when unknown */
    uint32_t cpus;     /* how many PUs its worker is bound to (0 when unbound) */
    bool bound;        /* the worker thread is pinned to those PUs */
} ar_executor_description_t;

typedef struct ar_executor_describe_t {
    ar_executor_t executor;
    ar_outcome_t *outcome;
    ar_executor_description_t *description; /* output */
} ar_executor_describe_t;

void ar_executor_describe(ar_executor_describe_t *arguments);

typedef struct ar_gpu_device_t {
    int32_t ordinal;
    char name[256];
    uint64_t memory_bytes; /* total device memory */
} ar_gpu_device_t;

/* Lists the GPUs. `*count` gets how many there are (0 without CUDA in this build, or without a
 * device or driver); the first min(count, capacity) go to `devices` (may be NULL when capacity
 * is 0). NULL `count`: invalid_argument. */
typedef struct ar_gpu_devices_t {
    ar_gpu_device_t *devices; /* output, `capacity` entries */
    size_t capacity;
    size_t *count; /* output */
    ar_outcome_t *outcome;
} ar_gpu_devices_t;

void ar_gpu_devices(ar_gpu_devices_t *arguments);

/* ---- Arenas ------------------------------------------------------------------------------- */

/* An empty arena placed where `executor` computes (NULL: host pages for calls on the calling
 * thread, on that thread's NUMA node); it allocates nothing until a call writes into it.
 * Statuses: invalid_argument (NULL `arena`), out_of_memory. On failure `*arena` is NULL. */
typedef struct ar_arena_init_t {
    ar_arena_t *arena; /* output */
    ar_executor_t executor;
    ar_outcome_t *outcome;
} ar_arena_init_t;

void ar_arena_init(ar_arena_init_t *arguments);

/* Frees the arena and every output in it; NULL is safe; cannot fail. Waits until every deferred
 * call naming the arena is final (and until a blocking call holding it returns). */
void ar_arena_free(ar_arena_t arena);

typedef struct ar_arena_description_t {
    ar_residency_t residency; /* RAM: host pages; VRAM: one device's memory */
    int32_t device;           /* the GPU ordinal, or -1 for host pages */
} ar_arena_description_t;

/* Statuses: invalid_argument (NULL arena or description). */
typedef struct ar_arena_describe_t {
    ar_arena_t arena;
    ar_outcome_t *outcome;
    ar_arena_description_t *description; /* output */
} ar_arena_describe_t;

void ar_arena_describe(ar_arena_describe_t *arguments);

/* A fixed-size report the caller owns. Counters cover the arena's whole life. */
typedef struct ar_arena_stats_t {
    uint64_t calls;        /* calls that ran on the arena (rewound it), successful or not */
    uint64_t failed_calls; /* of those, how many failed (out_of_memory) */
    uint64_t cancelled;    /* of those, how many ar_outcome_cancel stopped or never ran */
    uint64_t contended;    /* calls refused because the arena was held */
    uint64_t growths;      /* how many times the arena allocated memory */
    uint64_t reserved;     /* bytes held now (device and host parts together) */
    uint64_t high_water;   /* largest bytes any one call wrote */
    uint64_t bytes_written_last_call; /* bytes the latest successful call wrote */
    int32_t numa_node;     /* where its host pages lie as the OS reports it (read back after
                              the pages were written); -1 for a GPU arena, before the first
                              allocation, or when the OS cannot say */
    int32_t requested_node; /* the node the pages were bound to; -1 for a GPU arena */
    bool strict_binding;   /* the latest host allocation was bound strictly to the node */
    bool binding_fallback; /* a host allocation could not be bound strictly and fell back to
                              preferred or unbound pages (recorded, never hidden) */
    bool huge_pages;       /* transparent huge pages were asked for (large arenas) */
    ar_residency_t residency;
    int32_t device; /* GPU ordinal or -1 */
} ar_arena_stats_t;

/* Fills `stats`. Returns invalid_argument for a NULL arena or stats (stats then untouched),
 * else success. Safe while a deferred call runs (the counters are a consistent snapshot). */
ar_status_t ar_arena_stats(ar_arena_t arena, ar_arena_stats_t *stats);

/* ---- Views -------------------------------------------------------------------------------- */

typedef enum ar_scalar_t {
    ar_scalar_unknown_k = 0,
    ar_scalar_f32_k,
    ar_scalar_f16_k,
    ar_scalar_bf16_k,
    ar_scalar_f64_k,
    ar_scalar_i8_k,
    ar_scalar_u8_k,
    ar_scalar_u32_k,
} ar_scalar_t;

/* Bytes of one scalar; 0 for unknown values. */
size_t ar_scalar_bytes(ar_scalar_t scalar);

/* The scalar's short name: "f32", "f16", "bf16", "f64", "i8", "u8", "u32" (USearch's and
 * NumPy-style names; export.h maps them to USearch's enum), "unknown" otherwise. */
char const *ar_scalar_name(ar_scalar_t scalar);

/* One row per item: USearch's rows field for field (`data`, `stride`, `columns`, `scalar`),
 * plus `count` rows and the private fields the checked accessors use. A zeroed view (data NULL)
 * is what a failed call leaves. */
typedef struct ar_rows_view_t {
    void *data;
    size_t stride; /* bytes between rows */
    size_t columns;
    ar_scalar_t scalar;
    size_t count; /* rows */
    /* private: the arena the view reads and its epoch when written */
    struct ar_arena_handle_t *arena_;
    uint64_t epoch_;
} ar_rows_view_t;

/* An input tape laid out as Apache Arrow lays one: items end to end in `data`, item i is bytes
 * [offsets[i], offsets[i + 1]) of `data`; `offsets` has count + 1 entries in host memory and
 * does not decrease. */
typedef struct ar_tape_view_t {
    void const *data;
    size_t const *offsets;
    size_t count;
} ar_tape_view_t;

/* A ragged output: packed rows (`data`, `stride`, `columns`, `scalar`), `rows` of them, and
 * `count + 1` row offsets in host memory: item i owns rows [offsets[i], offsets[i + 1]). */
typedef struct ar_rows_tape_view_t {
    void *data;
    size_t stride;
    size_t columns;
    ar_scalar_t scalar;
    size_t const *offsets; /* count + 1, in rows, host memory (also for a GPU arena) */
    size_t count;          /* items */
    size_t rows;           /* offsets[count] */
    struct ar_arena_handle_t *arena_;
    uint64_t epoch_;
} ar_rows_tape_view_t;

/* Checked accessors. Each traps (message to stderr, then abort) when the view is zeroed, when
 * its arena was rewound since the view was written (stale), when an index is out of range, or,
 * for host reads, when the view holds device memory. A view must not be used after its arena
 * is freed. */
bool ar_rows_view_current(ar_rows_view_t const *view); /* false: zeroed or stale; never traps */
void *ar_rows_row(ar_rows_view_t const *view, size_t row); /* row's address (device too) */
float ar_rows_f32(ar_rows_view_t const *view, size_t row, size_t column); /* host f32 read */

bool ar_rows_tape_view_current(ar_rows_tape_view_t const *view);
size_t ar_rows_tape_offset(ar_rows_tape_view_t const *view, size_t item); /* item <= count */
void *ar_rows_tape_row(ar_rows_tape_view_t const *view, size_t row);     /* row < rows */
float ar_rows_tape_f32(ar_rows_tape_view_t const *view, size_t row, size_t column);

/* ---- The synthetic verb ------------------------------------------------------------------ */

/* ar_text_encode: a deterministic, cheap stand-in for a text encoder whose outputs scale with
 * the call.
 *
 * Inputs: `texts`, a tape of uint32_t token ids (item i has n_i = (offsets[i+1] - offsets[i])
 * / 4 tokens; every offset must be a multiple of 4 apart); `dimensions` D > 0, the columns of
 * every output row. `count`, if not 0, must equal `texts.count` (texts.count 0 then takes it).
 * Token data and offsets are host memory (for a VRAM executor, `data` may also be device
 * memory of that GPU); for a deferred call they must stay valid until the call is final, as
 * must `embeddings`, `states` and `outcome`.
 *
 * Output values, exactly (so every executor kind gives the same bits):
 *   mix(t, j, d) = fmix32(t * 0x9E3779B1 ^ (j + 1) * 0x85EBCA77 ^ (d + 1) * 0xC2B2AE3D)
 *     with uint32_t wrap-around arithmetic and MurmurHash3's finalizer
 *     fmix32(h): h ^= h >> 16; h *= 0x85EBCA6B; h ^= h >> 13; h *= 0xC2B2AE35; h ^= h >> 16;
 *   value(t, j, d) = (float)((int32_t)(mix(t, j, d) >> 8) - 8388608) * 0x1p-23f
 *     an exact float in [-1, 1) (an integer below 2^24 times a power of two: no rounding).
 *   states (optional): row r = offsets[i] + j holds value(t_ij, j, d) for d < D, where t_ij is
 *     item i's token j (j counts from 0 within the item).
 *   embeddings (required): row i, column d = s / (float)n_i, correctly rounded, where
 *     s = ((0 + value(t_i0, 0, d)) + value(t_i1, 1, d)) + ... summed in float in token order
 *     with each addition rounded to nearest (no reassociation, no fused operations); 0 for an
 *     empty item.
 * All rows are f32, packed (stride = D * 4), 64-byte aligned starts.
 *
 * Statuses: invalid_argument (NULL arena or embeddings, D == 0, counts that do not match,
 * malformed offsets, NULL data with tokens, inputs inside the arena this call rewinds: checked
 * before anything is written); device (another residency or device than the arena's; a GPU
 * arena with another executor than its own, NULL included); contended (the arena is held);
 * out_of_memory (growth failed; a GPU never falls back to host pages); cancelled
 * (ar_outcome_cancel); unsupported (a GPU executor in a fork()ed child). On failure every
 * output view is zeroed. With `deferred`, the call returns with ar_status_deferred_k after
 * taking the arena and finishes on the executor's worker (with a NULL executor it runs to
 * completion before returning).
 *
 * fork(): executors and arenas made before a fork work in the child (a RAM executor starts a
 * new worker at its next call); calls that were queued or running on a worker at the fork end
 * there with ar_status_unsupported_k; a GPU executor's calls are refused with unsupported
 * (CUDA does not survive fork). Exports stay held in the child until released there. */
typedef struct ar_text_encode_t {
    ar_executor_t executor;
    ar_arena_t arena;
    ar_tape_view_t texts;
    size_t count; /* optional: 0 or texts.count */
    size_t dimensions;
    bool deferred;
    ar_rows_view_t *embeddings;  /* output, required */
    ar_rows_tape_view_t *states; /* output, optional */
    ar_outcome_t *outcome;
} ar_text_encode_t;

void ar_text_encode(ar_text_encode_t *arguments);

/* value(t, j, d) of ar_text_encode's definition above, as code: state row j of a text, column
 * d, for token t. Inline so that a caller recomputing outputs (the benchmarks' other
 * strategies) runs exactly the library's arithmetic at the library's speed. */
static inline float ar_text_encode_value(uint32_t token, size_t position, size_t column) {
    uint32_t h = token * 0x9E3779B1u ^ (uint32_t)(position + 1) * 0x85EBCA77u ^
                 (uint32_t)(column + 1) * 0xC2B2AE3Du;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return (float)((int32_t)(h >> 8) - 8388608) * (1.0f / 8388608.0f); /* 2^-23, exact */
}

/* Blocks until `outcome`'s status leaves ar_status_deferred_k and returns it. NULL: returns
 * ar_status_invalid_argument_k. */
ar_status_t ar_outcome_wait(ar_outcome_t *outcome);

/* Cancels the call an executor runs for `outcome` (a deferred call, or a blocking one waited
 * for on another thread) and returns its final status, waiting for it: a call still queued
 * never runs; a running one stops at its next check (between items; on a GPU, before its
 * kernels); either becomes final with ar_status_cancelled_k, its outputs zeroed and its arena
 * released (counted in the arena's `calls` and `cancelled`). A call that finished first keeps
 * its own status, which is returned; so is the status of an outcome already final. A call
 * that ran inline (NULL executor) is final when it returns. NULL: invalid_argument. The
 * outcome must be one the library made deferred (or final); its arena and executor must not
 * be freed by another thread while this runs. */
ar_status_t ar_outcome_cancel(ar_outcome_t *outcome);

#ifdef __cplusplus
}
#endif
#endif
