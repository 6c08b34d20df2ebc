/* The arena's fixed per-call path, for callgrind (not a test: it asserts nothing about cost).
 * Each probe_* function below is one unit callgrind counts with --toggle-collect:
 *   probe_arena     an empty-batch blocking ar_text_encode on a warm arena, NULL executor
 *   probe_glibc     the small stream's three outputs: aligned_alloc(64, ...) x3, then free x3
 *   probe_mimalloc  the same with mi_malloc_aligned / mi_free (when mimalloc is linked)
 * Sizes are the small stream's (bench/src/stream.c): 2 items of 4 tokens each, 4 dimensions,
 * each output rounded up to 64 bytes as the stream's are (64, 128 and 64 bytes). The
 * program checks every call succeeded (exit 1 if not), so a broken path is never counted.
 *   valgrind --tool=callgrind --toggle-collect=probe_arena build/bin/arena_probe_fixed_path
 * and divide the instructions (Ir) by the calls it prints. */
#include <stdio.h>
#include <stdlib.h>

#include "arenaref/arenaref.h"
#ifdef ARENAREF_PROBE_HAVE_MIMALLOC
#include <mimalloc.h>
#endif

enum { calls_k = 1000, dimensions_k = 4, items_k = 2, tokens_k = 8 };
enum {
    /* rounded up to 64 bytes as the stream does (aligned_alloc wants whole alignments) */
    embeddings_bytes_k = (items_k * dimensions_k * 4 + 63) / 64 * 64,
    states_bytes_k = (tokens_k * dimensions_k * 4 + 63) / 64 * 64,
    offsets_bytes_k = ((items_k + 1) * 8 + 63) / 64 * 64
};

ar_status_t probe_arena(ar_text_encode_t *call);
ar_status_t __attribute__((noinline)) probe_arena(ar_text_encode_t *call) {
    ar_text_encode(call);
    return call->outcome->status;
}

static inline int glibc_pairs(void) {
    void *e = aligned_alloc(64, embeddings_bytes_k), *s = aligned_alloc(64, states_bytes_k),
         *o = aligned_alloc(64, offsets_bytes_k);
    int ok = e && s && o;
    __asm__ volatile("" : : "r"(e), "r"(s), "r"(o) : "memory"); /* keep the allocations */
    free(o), free(s), free(e);
    return ok;
}
int probe_glibc(void);
int __attribute__((noinline)) probe_glibc(void) { return glibc_pairs(); }

#ifdef ARENAREF_PROBE_HAVE_MIMALLOC
static inline int mimalloc_pairs(void) {
    void *e = mi_malloc_aligned(embeddings_bytes_k, 64), *s = mi_malloc_aligned(states_bytes_k, 64),
         *o = mi_malloc_aligned(offsets_bytes_k, 64);
    int ok = e && s && o;
    __asm__ volatile("" : : "r"(e), "r"(s), "r"(o) : "memory");
    mi_free(o), mi_free(s), mi_free(e);
    return ok;
}
int probe_mimalloc(void);
int __attribute__((noinline)) probe_mimalloc(void) { return mimalloc_pairs(); }
#endif

int main(void) {
    uint32_t tokens[tokens_k] = {1, 2, 3, 4, 5, 6, 7, 8};
    size_t offsets[items_k + 1] = {0, 16, 32};
    ar_arena_t arena = NULL;
    ar_outcome_t outcome = {0};
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .outcome = &outcome});
    if (outcome.status != ar_status_success_k) return fprintf(stderr, "arena_init failed\n"), 1;
    ar_rows_view_t embeddings;
    ar_rows_tape_view_t states;
    ar_text_encode_t warm = {.arena = arena,
                             .texts = {.data = tokens, .offsets = offsets, .count = items_k},
                             .dimensions = dimensions_k,
                             .embeddings = &embeddings,
                             .states = &states,
                             .outcome = &outcome};
    ar_text_encode(&warm); /* grows the arena once: every call below fits */
    if (outcome.status != ar_status_success_k) return fprintf(stderr, "warm-up failed\n"), 1;
    ar_text_encode_t empty = {.arena = arena,
                              .dimensions = dimensions_k,
                              .embeddings = &embeddings,
                              .states = &states,
                              .outcome = &outcome};
    int failures = 0;
    /* Warm every allocator outside the probes: first calls initialise heaps and pages. */
    for (int i = 0; i < calls_k; ++i) failures += !glibc_pairs();
#ifdef ARENAREF_PROBE_HAVE_MIMALLOC
    for (int i = 0; i < calls_k; ++i) failures += !mimalloc_pairs();
#endif
    for (int i = 0; i < calls_k; ++i) failures += probe_arena(&empty) != ar_status_success_k;
    for (int i = 0; i < calls_k; ++i) failures += !probe_glibc();
#ifdef ARENAREF_PROBE_HAVE_MIMALLOC
    for (int i = 0; i < calls_k; ++i) failures += !probe_mimalloc();
#endif
    ar_arena_free(arena);
    printf("calls per probe: %d; failures: %d\n", calls_k, failures);
    return failures ? 1 : 0;
}
