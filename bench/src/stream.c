/* The batch stream of the arena benchmarks and the reference encoder. */
#include "stream.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* Five kinds of batch sizes, each a fixed, seeded sequence of batches so every strategy and every
 * run sees the same stream: fixed (32 items of 64 tokens), uniform (1-64 items of 1-128 tokens),
 * and heavy-tailed (1-64 items whose lengths follow a Pareto law with shape 1.2, capped at 4096
 * tokens: mostly short, now and then one very long item), all with 32 dimensions and 256
 * batches; small (1-4 items of 1-8 tokens, 4 dimensions: the encoder's compute is ~100 ns, so a
 * call costs about what its allocations cost); large (8 items of 2048-16384 tokens, 16
 * dimensions, 16 batches: 4.5 MiB per call on average, 5 MiB at most, past glibc's initial
 * 128 KiB mmap threshold, where an allocator that maps fresh pages pays first-touch faults).
 * The encoder follows arena.h's definition bit for bit, so the strategies that do not use the
 * library compute the same outputs. */

static uint64_t next_random(uint64_t *state) { /* xorshift64* */
    uint64_t x = *state;
    x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1Dull;
}
static double next_unit(uint64_t *state) { return (double)(next_random(state) >> 11) * 0x1p-53; }

char const *stream_kind_name(stream_kind_t kind) {
    static char const *const names[] = {"fixed", "uniform", "heavy", "small", "large"};
    return kind < stream_kinds_k ? names[kind] : "unknown";
}

static size_t round64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

static bool make_stream(stream_t *stream, stream_kind_t kind) {
    uint64_t random = BENCH_STREAM_SEED * 0x9E3779B97F4A7C15ull + (uint64_t)kind + 1;
    stream->kind = kind;
    stream->dimensions = kind == stream_small_k   ? 4
                         : kind == stream_large_k ? 16
                                                  : STREAM_DIMENSIONS;
    stream->batches_count = kind == stream_large_k ? 16 : STREAM_BATCHES;
    size_t const dimensions = stream->dimensions;
    for (size_t b = 0; b != stream->batches_count; ++b) {
        stream_batch_t *batch = &stream->batches[b];
        size_t count = kind == stream_fixed_k   ? 32
                       : kind == stream_small_k ? 1 + (size_t)(next_random(&random) % 4)
                       : kind == stream_large_k ? 8
                                                : 1 + (size_t)(next_random(&random) % 64);
        size_t *lengths = malloc(count * sizeof *lengths);
        batch->offsets = malloc((count + 1) * sizeof *batch->offsets);
        if (!lengths || !batch->offsets) return free(lengths), false;
        size_t total = 0;
        for (size_t i = 0; i != count; ++i) {
            size_t length = 64;
            if (kind == stream_uniform_k) length = 1 + (size_t)(next_random(&random) % 128);
            if (kind == stream_heavy_k) {
                double u = 1.0 - next_unit(&random); /* (0, 1] */
                double pareto = 8.0 / pow(u, 1.0 / 1.2);
                length = pareto > 4096 ? 4096 : (size_t)pareto;
            }
            if (kind == stream_small_k) length = 1 + (size_t)(next_random(&random) % 8);
            if (kind == stream_large_k)
                length = 2048 + (size_t)(next_random(&random) % (16384 - 2048 + 1));
            lengths[i] = length;
            total += length;
        }
        batch->tokens = malloc((total ? total : 1) * sizeof *batch->tokens);
        if (!batch->tokens) return free(lengths), false;
        batch->offsets[0] = 0;
        for (size_t i = 0, t = 0; i != count; ++i) {
            for (size_t j = 0; j != lengths[i]; ++j)
                batch->tokens[t++] = (uint32_t)(next_random(&random) % 50257);
            batch->offsets[i + 1] = batch->offsets[i] + lengths[i] * sizeof(uint32_t);
        }
        free(lengths);
        batch->count = count;
        batch->tokens_count = total;
        batch->embeddings_bytes = round64(count * dimensions * sizeof(float));
        batch->states_bytes = round64((total ? total : 1) * dimensions * sizeof(float));
        batch->offsets_bytes = round64((count + 1) * sizeof(size_t));
        size_t call = batch->embeddings_bytes + batch->states_bytes + batch->offsets_bytes;
        if (batch->embeddings_bytes > stream->max_embeddings_bytes)
            stream->max_embeddings_bytes = batch->embeddings_bytes;
        if (batch->states_bytes > stream->max_states_bytes)
            stream->max_states_bytes = batch->states_bytes;
        if (batch->offsets_bytes > stream->max_offsets_bytes)
            stream->max_offsets_bytes = batch->offsets_bytes;
        if (call > stream->max_call_bytes) stream->max_call_bytes = call;
        stream->tokens_total += total;
        stream->bytes_total += call;
    }
    return true;
}

stream_t const *stream_get(stream_kind_t kind) {
    static stream_t *streams[stream_kinds_k];
    if (kind >= stream_kinds_k) return NULL;
    if (!streams[kind]) {
        stream_t *stream = calloc(1, sizeof *stream);
        if (!stream || !make_stream(stream, kind))
            return free(stream), NULL; /* leaks a partial stream: at exit */
        streams[kind] = stream;
    }
    return streams[kind];
}

ar_tape_view_t stream_tape(stream_batch_t const *batch) {
    return (ar_tape_view_t){
        .data = batch->tokens, .offsets = batch->offsets, .count = batch->count};
}

void stream_encode(stream_batch_t const *batch, size_t dimensions, float *embeddings, float *states,
                   size_t *row_offsets) {
    size_t row = 0;
    for (size_t i = 0; i != batch->count; ++i) {
        size_t first = batch->offsets[i] / sizeof(uint32_t),
               n = batch->offsets[i + 1] / sizeof(uint32_t) - first;
        if (row_offsets) row_offsets[i] = row;
        float *sum = embeddings + i * dimensions;
        for (size_t d = 0; d != dimensions; ++d) sum[d] = 0;
        for (size_t j = 0; j != n; ++j, ++row) {
            uint32_t token = batch->tokens[first + j];
            for (size_t d = 0; d != dimensions; ++d) {
                float value = ar_text_encode_value(token, j, d);
                if (states) states[row * dimensions + d] = value;
                sum[d] += value;
            }
        }
        for (size_t d = 0; d != dimensions; ++d) sum[d] = n ? sum[d] / (float)n : 0.0f;
    }
    if (row_offsets) row_offsets[batch->count] = row;
}
