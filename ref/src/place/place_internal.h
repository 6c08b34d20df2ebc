/* The placement library's internals: what the strategies share (which buffers hold bytes,
 * effective alignments, the order-driven greedy core) and the entry of each strategy file.
 * problem.c validates and dispatches; greedy.c holds the four heuristics; search.c the exact
 * search; csv.c and plan_io.c the file and plan forms. */
#ifndef ARENAREF_PLACE_INTERNAL_H
#define ARENAREF_PLACE_INTERNAL_H

#include "arenaref/place.h"

/* A buffer holds bytes at some time: size > 0 and lower < upper. */
static inline bool arp_place_holds(ar_place_buffer_t const *buffer) {
    return buffer->size > 0 && buffer->lower < buffer->upper;
}

/* The buffer's alignment, at least `floor` (both may be 0: 1). */
static inline uint64_t arp_place_alignment(ar_place_buffer_t const *buffer, uint64_t floor) {
    uint64_t a = buffer->alignment > 1 ? buffer->alignment : 1;
    return floor > a ? floor : a;
}

static inline uint64_t arp_place_align_up(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) & ~(alignment - 1);
}

/* qsort's order of uint64_t values. */
static inline int arp_place_by_u64(void const *a, void const *b) {
    uint64_t x = *(uint64_t const *)a, y = *(uint64_t const *)b;
    return x < y ? -1 : x > y;
}

/* How many of the sorted values[0, count) are below t. */
static inline size_t arp_place_count_below(uint64_t const *values, size_t count, uint64_t t) {
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (values[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Heuristics: fill offsets[] (every buffer). ar_status_out_of_memory_k or success. */
ar_status_t arp_place_heuristic(ar_place_problem_t const *problem, ar_place_strategy_t strategy,
                                uint64_t alignment, uint64_t *offsets);

/* One perturbed greedy order (seeded), lowest or tightest gaps: the search's incumbent. */
ar_status_t arp_place_perturbed(ar_place_problem_t const *problem, uint64_t alignment,
                                uint64_t seed, uint64_t *offsets);

/* Local search over placement orders from a valid placement (offsets[] in and out). */
ar_status_t arp_place_improve(ar_place_problem_t const *problem, uint64_t alignment, uint64_t goal,
                              uint64_t moves, double deadline, uint64_t *offsets);

/* The exact search: offsets[] holds an incumbent (valid) on entry and the best on return. */
ar_status_t arp_place_search(ar_place_problem_t const *problem, ar_place_options_t const *options,
                             uint64_t *offsets, ar_place_result_t *result);

double arp_place_now(void);

#endif
