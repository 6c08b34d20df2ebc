/* Arena steady state on host pages: strategies side by side over the same stream of
 * ar_text_encode calls (stream.c: fixed, uniform and heavy-tailed batch sizes; small calls whose
 * compute is ~100 ns; large calls writing MiBs). */
#define _GNU_SOURCE
#include <hwloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#include "arenaref/arena.h"
#include "bench.h"
#include "stream.h"

/*   arena      ar_text_encode into one arena (NULL executor: the calling thread's host pages)
 *   glibc      a fresh allocation per output per call (three: embeddings, states, offsets),
 *   mimalloc   freed once the caller has consumed it, with glibc's malloc, mimalloc's
 *   jemalloc   mi_malloc_aligned, or jemalloc's mallocx (its non-standard, always-present API)
 *   mmap       (large stream only) a fresh anonymous mapping per output, unmapped after use:
 *              what glibc's malloc does for a block above its mmap threshold (128 KiB at start;
 *              it rises to the largest block freed, up to 32 MiB, so on this stream glibc itself
 *              stops mapping after the first calls): every call page-faults its outputs in
 *   pool       a size-class caching pool: power-of-two classes with free lists, never returned
 *              to the system, as deep-learning caching allocators keep blocks
 *   floor      caller-owned buffers sized in advance for the largest batch of the stream
 * The non-arena strategies compute with the reference encoder (stream_encode), whose output is
 * checked bit for bit against ar_text_encode before timing (`bits_match_library`).
 *
 * One iteration is one call, so the time per iteration is ns per call. The stream is run once
 * before timing (warm-up); after it the counters report, per call: allocations (arena growths,
 * malloc calls, pool misses), minor page faults (getrusage of the thread), and the bytes the
 * strategy holds (reserved) next to the largest bytes one call writes (high water), and the
 * NUMA node its output pages lie on (hwloc, after they were written).
 *
 * The timed loop carries no instrumentation. After it, a probe pass (a whole pass over the
 * stream, or as many calls as were timed, at most 1024) measures the strategy's own allocation
 * path per call with CLOCK_MONOTONIC (vDSO, TSC here): around its three allocations and around
 * its three frees (pool: pops and pushes; floor: the same two intervals around nothing, which
 * shows the measurement's zero), minus the median cost of an empty interval (`timer_overhead_ns`),
 * reported as the median and the mean over the probe calls. The arena cannot be taken apart from
 * outside: its per-call path (argument check, holder CAS, rewind, reserve check, release) is
 * timed as an ar_text_encode of an empty batch on the same warm arena, interleaved with the
 * stream's calls; growths are counted separately (none after warm-up). First-touch page faults
 * of fresh memory are paid where the encoder writes, not in the allocation path: they show in
 * the total time per call and in `minor_faults_per_call`. */

/* glibc's malloc by its own names: in a counted run the process's malloc is another
 * (ref/tools/counting_malloc.c), and this strategy is glibc's whatever the process's is. */
void *__libc_memalign(size_t alignment, size_t size);
void __libc_free(void *pointer);

#ifdef ARENAREF_BENCH_HAVE_MIMALLOC
void *mi_malloc_aligned(size_t size, size_t alignment);
void mi_free(void *pointer);
typedef struct mi_heap_s mi_heap_t;
typedef int mi_arena_id_t;
bool mi_manage_os_memory_ex(void *start, size_t size, bool is_committed, bool is_large,
                            bool is_zero, int numa_node, bool exclusive, mi_arena_id_t *arena_id);
mi_heap_t *mi_heap_new_in_arena(mi_arena_id_t arena_id);
void *mi_heap_malloc_aligned(mi_heap_t *heap, size_t size, size_t alignment);

/* Counted, mimalloc takes its pages from an arena at one fixed address: where the OS maps its
 * segments otherwise follows everything mapped before (valgrind's own memory too), and its
 * paths follow those addresses. NULL (mimalloc's default heap) natively or if that fails. */
static mi_heap_t *counted_mimalloc_heap(void) {
    static mi_heap_t *heap;
    static bool tried;
    if (tried) return heap; /* decided once: the timed path pays one test per allocation */
    tried = true;
    if (!gb_counting_instructions()) return NULL;
    size_t const size = (size_t)1 << 30;
    void *const at = (void *)(uintptr_t)0x3f0000000000u;
    void *mapped = mmap(at, size, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (mapped != at) {
        if (mapped != MAP_FAILED) munmap(mapped, size);
        fprintf(stderr, "arena bench: mimalloc's fixed arena could not be mapped at %p\n", at);
        return NULL;
    }
    mi_arena_id_t arena;
    if (mi_manage_os_memory_ex(at, size, true, false, true, -1, true, &arena))
        heap = mi_heap_new_in_arena(arena);
    return heap;
}
#endif
#ifdef ARENAREF_BENCH_HAVE_JEMALLOC
/* jemalloc's own API (Debian builds it without a prefix); flags 6 = MALLOCX_LG_ALIGN(6), 64 B. */
void *mallocx(size_t size, int flags);
void dallocx(void *pointer, int flags);
#define JEMALLOC_ALIGN_64 6
#endif

typedef enum strategy_t {
    strategy_arena_k,
    strategy_glibc_k,
    strategy_mimalloc_k,
    strategy_jemalloc_k,
    strategy_mmap_k,
    strategy_pool_k,
    strategy_floor_k,
    strategies_k
} strategy_t;

static char const *const strategy_names[] = {"arena", "glibc", "mimalloc", "jemalloc",
                                             "mmap",  "pool",  "floor"};

/* ---- The size-class caching pool ---------------------------------------------------------- */

enum { pool_classes_k = 48 };
typedef struct pool_block_t {
    struct pool_block_t *next;
} pool_block_t;
typedef struct pool_t {
    pool_block_t *free_lists[pool_classes_k];
    uint64_t misses, reserved;
    void **owned; /* every block, for freeing the pool */
    size_t owned_count, owned_capacity;
} pool_t;

static unsigned pool_class(size_t bytes) {
    unsigned lg = 8; /* 256 B smallest */
    while (((size_t)1 << lg) < bytes) ++lg;
    return lg;
}

static void *pool_alloc(pool_t *pool, size_t bytes) {
    unsigned lg = pool_class(bytes);
    if (lg >= pool_classes_k) return NULL;
    pool_block_t *block = pool->free_lists[lg];
    if (block) {
        pool->free_lists[lg] = block->next;
        return block;
    }
    if (pool->owned_count == pool->owned_capacity) {
        size_t capacity = pool->owned_capacity ? 2 * pool->owned_capacity : 64;
        void **grown = realloc(pool->owned, capacity * sizeof *grown);
        if (!grown) return NULL;
        pool->owned = grown, pool->owned_capacity = capacity;
    }
    void *fresh = aligned_alloc(64, (size_t)1 << lg);
    if (!fresh) return NULL;
    pool->owned[pool->owned_count++] = fresh;
    ++pool->misses;
    pool->reserved += (size_t)1 << lg;
    return fresh;
}

static void pool_release(pool_t *pool, void *pointer, size_t bytes) {
    unsigned lg = pool_class(bytes);
    pool_block_t *block = pointer;
    block->next = pool->free_lists[lg];
    pool->free_lists[lg] = block;
}

static void pool_destroy(pool_t *pool) {
    for (size_t i = 0; i != pool->owned_count; ++i) free(pool->owned[i]);
    free(pool->owned);
    memset(pool, 0, sizeof *pool);
}

/* ---- One strategy's state ----------------------------------------------------------------- */

typedef struct runner_t {
    strategy_t strategy;
    stream_t const *stream;
    size_t next; /* batch index */
    ar_arena_t arena;
    pool_t pool;
    void *floor_buffers[3];
    uint64_t allocations; /* calls to an allocator (arena: growths, read from its stats) */
    uint64_t peak_live;   /* malloc strategies: the most bytes held at once */
    uint64_t checksum;
    void *last_output; /* a page of the latest outputs, for the NUMA node */
    size_t last_output_bytes;
    bool probing;      /* time the allocation path of each call (the probe pass) */
    uint64_t probe_ns; /* the latest call's allocation path: both intervals, raw */
    char error[256];
} runner_t;

static void *strategy_alloc(runner_t *runner, size_t bytes) {
    ++runner->allocations;
    switch (runner->strategy) {
    case strategy_glibc_k: return __libc_memalign(64, bytes);
#ifdef ARENAREF_BENCH_HAVE_MIMALLOC
    case strategy_mimalloc_k: {
        mi_heap_t *heap = counted_mimalloc_heap();
        return heap ? mi_heap_malloc_aligned(heap, bytes, 64) : mi_malloc_aligned(bytes, 64);
    }
#endif
#ifdef ARENAREF_BENCH_HAVE_JEMALLOC
    case strategy_jemalloc_k: return mallocx(bytes, JEMALLOC_ALIGN_64);
#endif
    case strategy_mmap_k: {
        void *mapped =
            mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return mapped == MAP_FAILED ? NULL : mapped;
    }
    case strategy_pool_k: --runner->allocations; return pool_alloc(&runner->pool, bytes);
    default: return NULL;
    }
}

static void strategy_free(runner_t *runner, void *pointer, size_t bytes) {
    switch (runner->strategy) {
    case strategy_glibc_k: __libc_free(pointer); return;
#ifdef ARENAREF_BENCH_HAVE_MIMALLOC
    case strategy_mimalloc_k: mi_free(pointer); return;
#endif
#ifdef ARENAREF_BENCH_HAVE_JEMALLOC
    case strategy_jemalloc_k: dallocx(pointer, JEMALLOC_ALIGN_64); return;
#endif
    case strategy_mmap_k: munmap(pointer, bytes); return;
    case strategy_pool_k: pool_release(&runner->pool, pointer, bytes); return;
    default: return;
    }
}

/* What a caller does with the outputs before the next call: reads one value of each. */
static void consume(runner_t *runner, float const *embeddings, float const *states, size_t rows) {
    uint32_t a, b = 0;
    memcpy(&a, embeddings, sizeof a);
    if (rows) memcpy(&b, states + (rows - 1) * runner->stream->dimensions, sizeof b);
    runner->checksum += a ^ b;
}

/* CLOCK_MONOTONIC in ns as an integer: the probe's clock (vDSO, no system call with the TSC). */
static inline uint64_t probe_clock_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static bool run_call(runner_t *runner) {
    stream_batch_t const *batch = &runner->stream->batches[runner->next];
    size_t const dimensions = runner->stream->dimensions;
    runner->next = (runner->next + 1) % runner->stream->batches_count;
    if (runner->strategy == strategy_arena_k) {
        ar_outcome_t outcome = {0};
        ar_rows_view_t embeddings;
        ar_rows_tape_view_t states;
        ar_text_encode(&(ar_text_encode_t){.arena = runner->arena,
                                           .texts = stream_tape(batch),
                                           .dimensions = dimensions,
                                           .embeddings = &embeddings,
                                           .states = &states,
                                           .outcome = &outcome});
        if (outcome.status != ar_status_success_k) {
            snprintf(runner->error, sizeof runner->error, "ar_text_encode failed: %s (%s)",
                     ar_status_name(outcome.status),
                     outcome.message ? outcome.message : "no message");
            return false;
        }
        consume(runner, embeddings.data, states.data, states.rows);
        runner->last_output = states.rows ? states.data : embeddings.data;
        runner->last_output_bytes = states.rows ? states.rows * states.stride : embeddings.stride;
        return true;
    }
    float *embeddings, *states;
    size_t *offsets;
    uint64_t alloc_start = runner->probing ? probe_clock_ns() : 0;
    if (runner->strategy == strategy_floor_k) {
        embeddings = runner->floor_buffers[0], states = runner->floor_buffers[1],
        offsets = runner->floor_buffers[2];
        __asm__ volatile("" : : "r"(embeddings), "r"(states), "r"(offsets) : "memory");
    } else {
        embeddings = strategy_alloc(runner, batch->embeddings_bytes);
        states = strategy_alloc(runner, batch->states_bytes);
        offsets = strategy_alloc(runner, batch->offsets_bytes);
        if (!embeddings || !states || !offsets) {
            snprintf(runner->error, sizeof runner->error, "%s could not allocate",
                     strategy_names[runner->strategy]);
            return false;
        }
        uint64_t live = batch->embeddings_bytes + batch->states_bytes + batch->offsets_bytes;
        if (live > runner->peak_live) runner->peak_live = live;
    }
    uint64_t alloc_ns = runner->probing ? probe_clock_ns() - alloc_start : 0;
    stream_encode(batch, dimensions, embeddings, states, offsets);
    consume(runner, embeddings, states, batch->tokens_count);
    runner->last_output = batch->tokens_count ? (void *)states : (void *)embeddings;
    runner->last_output_bytes =
        batch->tokens_count ? batch->tokens_count * dimensions * sizeof(float) : 64;
    uint64_t free_start = runner->probing ? probe_clock_ns() : 0;
    if (runner->strategy != strategy_floor_k) {
        bench_sink_u64((uint64_t)(uintptr_t)runner->last_output);
        strategy_free(runner, embeddings, batch->embeddings_bytes);
        strategy_free(runner, states, batch->states_bytes);
        strategy_free(runner, offsets, batch->offsets_bytes);
    }
    if (runner->probing) runner->probe_ns = alloc_ns + (probe_clock_ns() - free_start);
    return true;
}

static uint64_t arena_growths(runner_t *runner, ar_arena_stats_t *stats) {
    memset(stats, 0, sizeof *stats);
    stats->numa_node = -1;
    if (!runner->arena || ar_arena_stats(runner->arena, stats) != ar_status_success_k) return 0;
    return stats->growths;
}

static long minor_faults(void) {
    struct rusage usage;
    getrusage(RUSAGE_THREAD, &usage);
    return usage.ru_minflt;
}

/* The NUMA node (OS index) of the page at `address`, or -1 when the OS cannot say. */
static int numa_node_of(void const *address, size_t bytes) {
    static hwloc_topology_t topology;
    static bool loaded;
    if (!loaded) {
        loaded = true;
        if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0)
            topology = NULL;
    }
    if (!topology || !address) return -1;
    hwloc_nodeset_t nodes = hwloc_bitmap_alloc();
    int node = -1;
    if (nodes &&
        hwloc_get_area_memlocation(topology, address, bytes ? bytes : 1, nodes,
                                   HWLOC_MEMBIND_BYNODESET) == 0 &&
        hwloc_bitmap_weight(nodes) == 1)
        node = hwloc_bitmap_first(nodes);
    hwloc_bitmap_free(nodes);
    return node;
}

/* Whether the reference encoder gives ar_text_encode's bits on the stream's first batches. */
static int matches_library(stream_t const *stream, char *error, size_t capacity) {
    ar_arena_t arena = NULL;
    ar_outcome_t outcome = {0};
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .outcome = &outcome});
    if (outcome.status != ar_status_success_k) {
        snprintf(error, capacity, "ar_arena_init failed: %s", ar_status_name(outcome.status));
        return -1;
    }
    int same = 1;
    for (size_t b = 0; b != 4 && same; ++b) {
        stream_batch_t const *batch = &stream->batches[b];
        float *embeddings = malloc(batch->embeddings_bytes), *states = malloc(batch->states_bytes);
        size_t *offsets = malloc(batch->offsets_bytes);
        ar_rows_view_t e;
        ar_rows_tape_view_t s;
        ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                           .texts = stream_tape(batch),
                                           .dimensions = stream->dimensions,
                                           .embeddings = &e,
                                           .states = &s,
                                           .outcome = &outcome});
        if (!embeddings || !states || !offsets || outcome.status != ar_status_success_k) {
            snprintf(error, capacity, "ar_text_encode failed: %s (%s)",
                     ar_status_name(outcome.status),
                     outcome.message ? outcome.message : "no message");
            same = -1;
        } else {
            stream_encode(batch, stream->dimensions, embeddings, states, offsets);
            for (size_t i = 0; i != batch->count && same == 1; ++i)
                same = memcmp((char *)e.data + i * e.stride, embeddings + i * stream->dimensions,
                              stream->dimensions * sizeof(float)) == 0;
            for (size_t r = 0; r != s.rows && same == 1; ++r)
                same = memcmp((char *)s.data + r * s.stride, states + r * stream->dimensions,
                              stream->dimensions * sizeof(float)) == 0;
            for (size_t i = 0; i <= batch->count && same == 1; ++i)
                same = s.offsets[i] == offsets[i];
        }
        free(embeddings), free(states), free(offsets);
    }
    ar_arena_free(arena);
    return same;
}

/* ---- The probe pass: each strategy's own allocation path, per call ----------------------- */

enum { probe_calls_max_k = 1024 };

typedef struct probe_t {
    double median_ns, mean_ns, timer_overhead_ns, timer_resolution_ns;
    size_t calls;
} probe_t;

/* The median cost of an empty interval (two back-to-back reads of the probe's clock), and the
 * smallest step the clock was seen to take (its effective resolution). */
static double timer_overhead(double *resolution) {
    static double samples[1001];
    uint64_t smallest = UINT64_MAX;
    for (size_t i = 0; i != 1001; ++i) {
        uint64_t start = probe_clock_ns(), end = probe_clock_ns();
        samples[i] = (double)(end - start);
        if (end != start && end - start < smallest) smallest = end - start;
    }
    *resolution = smallest == UINT64_MAX ? 0 : (double)smallest;
    return bench_median(samples, 1001);
}

/* One empty-batch ar_text_encode on the runner's arena, timed: the arena's fixed per-call path. */
static bool arena_empty_call(runner_t *runner, uint64_t *ns) {
    ar_outcome_t outcome = {0};
    ar_rows_view_t embeddings;
    ar_rows_tape_view_t states;
    ar_text_encode_t call = {.arena = runner->arena,
                             .dimensions = runner->stream->dimensions,
                             .embeddings = &embeddings,
                             .states = &states,
                             .outcome = &outcome};
    uint64_t start = probe_clock_ns();
    ar_text_encode(&call);
    *ns = probe_clock_ns() - start;
    if (outcome.status != ar_status_success_k) {
        snprintf(runner->error, sizeof runner->error,
                 "ar_text_encode of an empty batch failed: %s (%s)", ar_status_name(outcome.status),
                 outcome.message ? outcome.message : "no message");
        return false;
    }
    return true;
}

/* Runs max(one pass over the stream, min(timed calls, 1024)) more calls, timing each one's
 * allocation path (the arena: an empty call before each of the stream's calls). The intervals
 * are raw clock differences less the clock's own cost (two intervals for the allocators, one
 * for the arena's single call), clamped at 0. */
static bool probe_allocation_path(runner_t *runner, uint64_t timed_calls, probe_t *probe) {
    static double samples[probe_calls_max_k > STREAM_BATCHES ? probe_calls_max_k : STREAM_BATCHES];
    size_t calls = timed_calls < probe_calls_max_k ? (size_t)timed_calls : probe_calls_max_k;
    if (calls < runner->stream->batches_count) calls = runner->stream->batches_count;
    double resolution;
    double overhead = timer_overhead(&resolution);
    bool arena = runner->strategy == strategy_arena_k;
    double sum = 0;
    runner->probing = !arena;
    for (size_t i = 0; i != calls; ++i) {
        uint64_t ns = 0;
        if (arena && !arena_empty_call(runner, &ns)) return runner->probing = false, false;
        if (!run_call(runner)) return runner->probing = false, false;
        if (!arena) ns = runner->probe_ns;
        double net = (double)ns - (arena ? 1 : 2) * overhead;
        samples[i] = net > 0 ? net : 0;
        sum += samples[i];
    }
    runner->probing = false;
    *probe = (probe_t){.mean_ns = sum / (double)calls,
                       .timer_overhead_ns = overhead,
                       .timer_resolution_ns = resolution,
                       .calls = calls};
    probe->median_ns = bench_median(samples, calls);
    return true;
}

typedef struct arena_case_t {
    strategy_t strategy;
    stream_kind_t kind;
} arena_case_t;

static void run_strategy(gb_state_t *state, void *data) {
    arena_case_t const *c = data;
    stream_t const *stream = stream_get(c->kind);
    if (!stream) {
        gb_skip_with_error(state, "out of memory making the batch stream");
        return;
    }
    runner_t runner = {.strategy = c->strategy, .stream = stream};
    char error[256] = "";
    int same = matches_library(stream, error, sizeof error);
    if (same < 0) {
        gb_skip_with_error(state, error);
        return;
    }
    if (c->strategy == strategy_arena_k) {
        ar_outcome_t outcome = {0};
        ar_arena_init(&(ar_arena_init_t){.arena = &runner.arena, .outcome = &outcome});
        if (outcome.status != ar_status_success_k) {
            gb_skip_with_error(state, "ar_arena_init failed");
            return;
        }
    }
    if (c->strategy == strategy_floor_k) {
        size_t sizes[3] = {stream->max_embeddings_bytes, stream->max_states_bytes,
                           stream->max_offsets_bytes};
        for (int i = 0; i != 3; ++i) runner.floor_buffers[i] = aligned_alloc(64, sizes[i]);
        if (!runner.floor_buffers[0] || !runner.floor_buffers[1] || !runner.floor_buffers[2]) {
            gb_skip_with_error(state, "out of memory for the caller-owned buffers");
            goto done;
        }
        runner.peak_live = sizes[0] + sizes[1] + sizes[2];
        runner.allocations = 3;
    }
    /* Warm-up: the whole stream once, so every strategy has met the largest batch. Its faults
     * are the cold start's first touches (in a process that has run other benchmarks before). */
    long warmup_faults_before = minor_faults();
    for (size_t i = 0; i != stream->batches_count; ++i) {
        if (!run_call(&runner)) {
            gb_skip_with_error(state, runner.error);
            goto done;
        }
    }
    double warmup_faults =
        (double)(minor_faults() - warmup_faults_before) / (double)stream->batches_count;
    ar_arena_stats_t stats;
    uint64_t allocations_before =
        runner.allocations + runner.pool.misses + arena_growths(&runner, &stats);
    long faults_before = minor_faults();
    uint64_t calls = 0;
    while (gb_keep_running(state, 1)) {
        double start = bench_now_ns();
        if (!run_call(&runner)) {
            gb_skip_with_error(state, runner.error);
            goto done;
        }
        bench_slowdown_since(start);
        ++calls;
    }
    long faults = minor_faults() - faults_before;
    uint64_t allocations = runner.allocations + runner.pool.misses +
                           arena_growths(&runner, &stats) - allocations_before;
    probe_t probe = {0};
    /* Under callgrind (scripts/bench --instructions) the probe's clock readings mean nothing and
     * its pass would double the run's cost: left out, and so are its counters. */
    bool counting = gb_counting_instructions();
    if (!counting && !probe_allocation_path(&runner, calls, &probe)) {
        gb_skip_with_error(state, runner.error);
        goto done;
    }
    double calls_divisor = calls ? (double)calls : 1.0; /* divide, so 3n / n is exactly 3 */
    uint64_t reserved = c->strategy == strategy_arena_k  ? stats.reserved
                        : c->strategy == strategy_pool_k ? runner.pool.reserved
                                                         : runner.peak_live;
    int node = c->strategy == strategy_arena_k
                   ? stats.numa_node
                   : numa_node_of(runner.last_output, runner.last_output_bytes);
    gb_set_counter(state, "allocations_per_call", (double)allocations / calls_divisor,
                   gb_counter_default_k);
    gb_set_counter(state, "minor_faults_per_call", (double)faults / calls_divisor,
                   gb_counter_default_k);
    gb_set_counter(state, "warmup_minor_faults_per_call", warmup_faults, gb_counter_default_k);
    gb_set_counter(state, "reserved_bytes", (double)reserved, gb_counter_default_k);
    gb_set_counter(state, "high_water_bytes", (double)stream->max_call_bytes, gb_counter_default_k);
    gb_set_counter(state, "reserved_over_high_water",
                   (double)reserved / (double)stream->max_call_bytes, gb_counter_default_k);
    gb_set_counter(state, "numa_node", node, gb_counter_default_k);
    gb_set_counter(state, "bits_match_library", same, gb_counter_default_k);
    gb_set_counter(state, "tokens_per_second",
                   (double)calls * (double)stream->tokens_total / (double)stream->batches_count,
                   gb_counter_rate_k);
    if (!counting) {
        gb_set_counter(state, "alloc_path_ns", probe.median_ns, gb_counter_default_k);
        gb_set_counter(state, "alloc_path_mean_ns", probe.mean_ns, gb_counter_default_k);
        gb_set_counter(state, "timer_overhead_ns", probe.timer_overhead_ns, gb_counter_default_k);
        gb_set_counter(state, "timer_resolution_ns", probe.timer_resolution_ns,
                       gb_counter_default_k);
        gb_set_counter(state, "probe_calls", (double)probe.calls, gb_counter_default_k);
    }
    gb_set_counter(state, "dimensions", (double)stream->dimensions, gb_counter_default_k);
    gb_set_counter(state, "bytes_per_call",
                   (double)stream->bytes_total / (double)stream->batches_count,
                   gb_counter_default_k);
    if (c->strategy == strategy_arena_k) {
        gb_set_counter(state, "arena_growths_total", (double)stats.growths, gb_counter_default_k);
        gb_set_counter(state, "arena_high_water_bytes", (double)stats.high_water,
                       gb_counter_default_k);
    }
    bench_sink_u64(runner.checksum);
done:
    ar_arena_free(runner.arena);
    pool_destroy(&runner.pool);
    for (int i = 0; i != 3; ++i) free(runner.floor_buffers[i]);
}

static bool strategy_available(strategy_t strategy) {
#ifndef ARENAREF_BENCH_HAVE_MIMALLOC
    if (strategy == strategy_mimalloc_k) return false;
#endif
#ifndef ARENAREF_BENCH_HAVE_JEMALLOC
    if (strategy == strategy_jemalloc_k) return false;
#endif
    (void)strategy;
    return true;
}

void bench_register_arena(void) {
    for (int kind = 0; kind != stream_kinds_k; ++kind) {
        for (int strategy = 0; strategy != strategies_k; ++strategy) {
            if (!strategy_available((strategy_t)strategy)) continue;
            if (strategy == strategy_mmap_k && kind != stream_large_k)
                continue; /* the page-fault case */
            arena_case_t *c = malloc(sizeof *c);
            if (!c) return;
            *c = (arena_case_t){(strategy_t)strategy, (stream_kind_t)kind};
            char name[96];
            snprintf(name, sizeof name, "arena/%s/%s", stream_kind_name((stream_kind_t)kind),
                     strategy_names[strategy]);
            gb_benchmark_t *b = gb_register(name, run_strategy, c);
            if (!b) return;
            gb_unit(b, gb_time_unit_us_k);
            /* The regression set: every strategy on every stream, repeated for the U-test. */
            gb_repetitions(b, bench_profile.regression_repetitions);
        }
    }
}
