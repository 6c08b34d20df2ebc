/* Helpers the placement tests share: a seeded generator of random problems, and an
 * independent overlap checker (all pairs, written apart from the library's sweep). */
#ifndef ARENAREF_PLACE_TEST_UTIL_H
#define ARENAREF_PLACE_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "arenaref/place.h"

static inline uint64_t place_test_next(uint64_t *state) { /* splitmix64 */
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline uint64_t place_test_below(uint64_t *state, uint64_t n) {
    return n ? place_test_next(state) % n : 0;
}

/* n buffers over times [0, horizon), sizes in [1, max_size] (some 0 and some empty lifetimes
 * when `odd`), alignment 1, 2, 4 or 8 when `aligned`. */
static inline void place_test_random(uint64_t *state, ar_place_buffer_t *buffers, size_t n,
                                     uint64_t horizon, uint64_t max_size, bool odd, bool aligned) {
    for (size_t i = 0; i < n; ++i) {
        uint64_t a = place_test_below(state, horizon), b = place_test_below(state, horizon);
        if (a > b) {
            uint64_t t = a;
            a = b;
            b = t;
        }
        if (a == b && !odd) ++b;
        buffers[i].lower = a;
        buffers[i].upper = b;
        buffers[i].size = 1 + place_test_below(state, max_size);
        if (odd && place_test_below(state, 10) == 0) buffers[i].size = 0;
        buffers[i].alignment = aligned ? (uint64_t)1 << place_test_below(state, 4) : 0;
    }
}

/* The independent checker: every pair, straight from the definition. */
static inline bool place_test_valid(ar_place_buffer_t const *buffers, size_t n,
                                    uint64_t const *offsets, uint64_t alignment) {
    for (size_t i = 0; i < n; ++i) {
        ar_place_buffer_t const *x = &buffers[i];
        if (!x->size || x->lower >= x->upper) continue;
        uint64_t a = x->alignment > alignment ? x->alignment : alignment;
        if (a > 1 && offsets[i] % a) return false;
        for (size_t j = i + 1; j < n; ++j) {
            ar_place_buffer_t const *y = &buffers[j];
            if (!y->size || y->lower >= y->upper) continue;
            bool live = x->lower < y->upper && y->lower < x->upper;
            bool bytes = offsets[i] < offsets[j] + y->size && offsets[j] < offsets[i] + x->size;
            if (live && bytes) return false;
        }
    }
    return true;
}

#endif
