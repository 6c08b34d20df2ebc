/* Helpers shared by the arena tests: token tapes, and ar_text_encode's values recomputed here
 * from arena.h's definition alone (never from the library), so a test compares the library
 * against the documented contract. */
#ifndef ARENAREF_ARENA_TEST_UTIL_H
#define ARENAREF_ARENA_TEST_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arenaref/arenaref.h"

static inline uint32_t ref_fmix32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

static inline float ref_value(uint32_t t, size_t j, size_t d) {
    uint32_t h = ref_fmix32(t * 0x9E3779B1u ^ (uint32_t)(j + 1) * 0x85EBCA77u ^
                            (uint32_t)(d + 1) * 0xC2B2AE3Du);
    return (float)((int32_t)(h >> 8) - 8388608) * 0x1p-23f;
}

/* The documented embedding: the token-order float sum divided by n; 0 for an empty item. */
static inline float ref_embedding(uint32_t const *tokens, size_t n, size_t d) {
    volatile float sum = 0.0f; /* volatile: one rounded addition at a time, as documented */
    for (size_t j = 0; j < n; ++j) sum = sum + ref_value(tokens[j], j, d);
    return n ? sum / (float)n : 0.0f;
}

/* A tape of `count` items; item i has lengths[i] tokens drawn from `seed`. Owns its memory. */
typedef struct test_tape_t {
    uint32_t *tokens;
    size_t *offsets;
    size_t count, total;
    ar_tape_view_t view;
} test_tape_t;

static inline uint32_t test_next(uint64_t *state) {
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 32);
}

static inline test_tape_t test_tape_make(size_t count, size_t const *lengths, uint64_t seed) {
    test_tape_t tape = {.count = count};
    for (size_t i = 0; i < count; ++i) tape.total += lengths[i];
    tape.tokens = malloc((tape.total ? tape.total : 1) * sizeof(uint32_t));
    tape.offsets = malloc((count + 1) * sizeof(size_t));
    if (!tape.tokens || !tape.offsets) abort();
    tape.offsets[0] = 0;
    for (size_t i = 0; i < count; ++i)
        tape.offsets[i + 1] = tape.offsets[i] + lengths[i] * sizeof(uint32_t);
    for (size_t k = 0; k < tape.total; ++k) tape.tokens[k] = test_next(&seed);
    tape.view = (ar_tape_view_t){.data = tape.tokens, .offsets = tape.offsets, .count = count};
    return tape;
}

/* count items of lengths (i * 7 + seed) % 13 */
static inline test_tape_t test_tape_simple(size_t count, uint64_t seed) {
    size_t *lengths = malloc((count ? count : 1) * sizeof(size_t));
    if (!lengths) abort();
    for (size_t i = 0; i < count; ++i) lengths[i] = (i * 7 + seed) % 13;
    test_tape_t tape = test_tape_make(count, lengths, seed);
    free(lengths);
    return tape;
}

static inline void test_tape_free(test_tape_t *tape) {
    free(tape->tokens);
    free(tape->offsets);
    memset(tape, 0, sizeof *tape);
}

/* How many of the embeddings (host view) differ in bits from the documented values. */
static inline size_t test_embedding_mismatches(test_tape_t const *tape, ar_rows_view_t const *view,
                                               size_t dimensions) {
    size_t mismatches = 0;
    for (size_t i = 0; i < tape->count; ++i) {
        uint32_t const *tokens = tape->tokens + tape->offsets[i] / sizeof(uint32_t);
        size_t n = (tape->offsets[i + 1] - tape->offsets[i]) / sizeof(uint32_t);
        for (size_t d = 0; d < dimensions; ++d) {
            float expected = ref_embedding(tokens, n, d), got = ar_rows_f32(view, i, d);
            if (memcmp(&expected, &got, sizeof got) != 0) ++mismatches;
        }
    }
    return mismatches;
}

static inline size_t test_state_mismatches(test_tape_t const *tape, ar_rows_tape_view_t const *view,
                                           size_t dimensions) {
    size_t mismatches = 0;
    for (size_t i = 0; i < tape->count; ++i) {
        size_t n = (tape->offsets[i + 1] - tape->offsets[i]) / sizeof(uint32_t);
        size_t first = tape->offsets[i] / sizeof(uint32_t);
        if (ar_rows_tape_offset(view, i) != first ||
            ar_rows_tape_offset(view, i + 1) != first + n) {
            ++mismatches;
            continue;
        }
        for (size_t j = 0; j < n; ++j)
            for (size_t d = 0; d < dimensions; ++d) {
                float expected = ref_value(tape->tokens[first + j], j, d),
                      got = ar_rows_tape_f32(view, first + j, d);
                if (memcmp(&expected, &got, sizeof got) != 0) ++mismatches;
            }
    }
    return mismatches;
}

static inline int test_all_zero(void const *bytes, size_t size) {
    unsigned char const *p = bytes;
    for (size_t i = 0; i < size; ++i)
        if (p[i]) return 0;
    return 1;
}

#endif
