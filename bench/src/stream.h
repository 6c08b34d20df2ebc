/* The arena benchmarks' input: a seeded stream of ar_text_encode batches, and the reference
 * encoder (arena.h's exact formula) the non-arena strategies compute with. Each stream has its
 * own dimensions and number of batches (the GPU benchmarks use fixed and heavy, which keep
 * STREAM_DIMENSIONS and STREAM_BATCHES). */
#ifndef ARENAREF_BENCH_STREAM_H
#define ARENAREF_BENCH_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaref/arena.h"

#define STREAM_DIMENSIONS 32u /* fixed, uniform, heavy */
#define STREAM_BATCHES 256u   /* the most batches a stream has (fixed, uniform, heavy, small) */

/* New kinds go last: a kind's seed depends on its index, so the older streams stay the same. */
typedef enum stream_kind_t {
    stream_fixed_k,
    stream_uniform_k,
    stream_heavy_k,
    stream_small_k, /* 1-4 items of 1-8 tokens, 4 dimensions: allocation dominates the call */
    stream_large_k, /* 8 items of 2048-16384 tokens, 16 dimensions: ~4.5 MiB per call, 16 batches */
    stream_kinds_k
} stream_kind_t;

typedef struct stream_batch_t {
    uint32_t *tokens;
    size_t *offsets; /* bytes, count + 1 */
    size_t count, tokens_count;
    size_t embeddings_bytes, states_bytes, offsets_bytes; /* what the outputs need */
} stream_batch_t;

typedef struct stream_t {
    stream_kind_t kind;
    size_t dimensions;    /* D of every call */
    size_t batches_count; /* <= STREAM_BATCHES; a pass over the stream */
    stream_batch_t batches[STREAM_BATCHES];
    size_t max_embeddings_bytes, max_states_bytes, max_offsets_bytes, max_call_bytes;
    uint64_t tokens_total;
    uint64_t bytes_total; /* output bytes over one pass (embeddings, states, offsets) */
} stream_t;

char const *stream_kind_name(stream_kind_t kind);
/* The stream of `kind`, made once (seed BENCH_STREAM_SEED); NULL when out of memory. */
stream_t const *stream_get(stream_kind_t kind);
ar_tape_view_t stream_tape(stream_batch_t const *batch);
/* The reference encoder: writes what ar_text_encode writes, into caller buffers. */
void stream_encode(stream_batch_t const *batch, size_t dimensions, float *embeddings, float *states,
                   size_t *row_offsets);

#endif
