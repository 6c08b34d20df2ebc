/* The arena benchmarks' input: a seeded stream of ar_text_encode batches, and the reference
 * encoder (arena.h's exact formula) the non-arena strategies compute with. */
#ifndef ARENAREF_BENCH_STREAM_H
#define ARENAREF_BENCH_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaref/arena.h"

#define STREAM_DIMENSIONS 32u
#define STREAM_BATCHES 256u

typedef enum stream_kind_t { stream_fixed_k, stream_uniform_k, stream_heavy_k, stream_kinds_k } stream_kind_t;

typedef struct stream_batch_t {
    uint32_t *tokens;
    size_t *offsets; /* bytes, count + 1 */
    size_t count, tokens_count;
    size_t embeddings_bytes, states_bytes, offsets_bytes; /* what the outputs need */
} stream_batch_t;

typedef struct stream_t {
    stream_kind_t kind;
    stream_batch_t batches[STREAM_BATCHES];
    size_t max_embeddings_bytes, max_states_bytes, max_offsets_bytes, max_call_bytes;
    uint64_t tokens_total;
} stream_t;

char const *stream_kind_name(stream_kind_t kind);
/* The stream of `kind`, made once (seed BENCH_STREAM_SEED); NULL when out of memory. */
stream_t const *stream_get(stream_kind_t kind);
ar_tape_view_t stream_tape(stream_batch_t const *batch);
/* The reference encoder: writes what ar_text_encode writes, into caller buffers. */
void stream_encode(stream_batch_t const *batch, size_t dimensions, float *embeddings, float *states,
                   size_t *row_offsets);

#endif
