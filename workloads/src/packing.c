/* Perfect packings: placement problems whose optimum is known by construction. A strip of
 * `height` bytes over times [0, span) is cut by guillotine cuts (a piece split in time or in
 * bytes at a random point) until it is n pieces; each piece is a buffer live over its times with
 * its bytes' size. Every time is covered by pieces summing to `height`, so the max-live bound is
 * `height`, and the pieces where they were cut are a placement of that height: the optimum.
 * The piece cut next is the largest of two drawn at random, so sizes and lifetimes spread
 * without collapsing into slivers. Deterministic for (n, seed, height, span). */
#include <stdlib.h>

#include "arenaref/workloads.h"

static uint64_t next(uint64_t *state) {
    *state ^= *state << 13, *state ^= *state >> 7, *state ^= *state << 17;
    return *state;
}

static unsigned __int128 area(ar_place_buffer_t const *b) {
    return (unsigned __int128)(b->upper - b->lower) * b->size;
}

ar_status_t ar_workload_packing(size_t n, uint64_t seed, uint64_t height, uint64_t span,
                                ar_place_buffer_t *buffers, uint64_t *offsets) {
    if (!n || !height || !span || height >= AR_PLACE_MAX_BYTES || span >= AR_PLACE_MAX_TIME ||
        (unsigned __int128)height * span < n || !buffers || !offsets)
        return ar_status_invalid_argument_k;
    uint64_t state = seed * 0x9e3779b97f4a7c15ull + 0x2545f4914f6cdd1dull;
    if (!state) state = 1;
    buffers[0] = (ar_place_buffer_t){0, span, height, 0};
    offsets[0] = 0;
    for (size_t count = 1; count < n;) {
        size_t i = (size_t)(next(&state) % count), j = (size_t)(next(&state) % count);
        if (area(&buffers[j]) > area(&buffers[i])) i = j;
        ar_place_buffer_t *b = &buffers[i];
        uint64_t width = b->upper - b->lower;
        if (width < 2 && b->size < 2) {
            /* A unit piece: take the first piece that can still be cut (one exists: n pieces
             * fit in height x span). */
            for (i = 0; buffers[i].upper - buffers[i].lower < 2 && buffers[i].size < 2; ++i) {}
            b = &buffers[i];
            width = b->upper - b->lower;
        }
        bool in_time = width >= 2 && (b->size < 2 || next(&state) & 1);
        if (in_time) {
            uint64_t cut = b->lower + 1 + next(&state) % (width - 1);
            buffers[count] = (ar_place_buffer_t){cut, b->upper, b->size, 0};
            offsets[count] = offsets[i];
            b->upper = cut;
        } else {
            uint64_t cut = 1 + next(&state) % (b->size - 1);
            buffers[count] = (ar_place_buffer_t){b->lower, b->upper, b->size - cut, 0};
            offsets[count] = offsets[i] + cut;
            b->size = cut;
        }
        ++count;
    }
    return ar_status_success_k;
}
