/* The sweep over time, computed once per problem and handed to every engine: the distinct
 * bounds of the rows that hold bytes, the load of each section between two of them (a
 * difference array and one prefix sum), the max-live bound, each row's sections, the grain.
 * O(n log n) for n rows (one sort of the bounds, a binary search per row). The validity check
 * (check.c) keeps its own sweep on purpose: the judge shares no code with what it judges. */
#include <stdlib.h>
#include <string.h>

#include "place/engine.h"

void arp_sweep_free(arp_sweep_t *sweep) {
    free(sweep->times), free(sweep->load), free(sweep->row_lo), free(sweep->row_hi);
    memset(sweep, 0, sizeof *sweep);
}

ar_status_t arp_sweep_make(ar_place_problem_t const *problem, uint64_t alignment,
                           arp_sweep_t *sweep) {
    size_t n = problem->count, held = 0;
    ar_place_buffer_t const *rows = problem->buffers;
    memset(sweep, 0, sizeof *sweep);
    for (size_t i = 0; i < n; ++i) held += arp_place_holds(&rows[i]);
    sweep->times = malloc((2 * held + 1) * sizeof *sweep->times);
    sweep->load = calloc(2 * held + 1, sizeof *sweep->load);
    sweep->row_lo = calloc(n + 1, sizeof *sweep->row_lo);
    sweep->row_hi = calloc(n + 1, sizeof *sweep->row_hi);
    if (!sweep->times || !sweep->load || !sweep->row_lo || !sweep->row_hi) {
        arp_sweep_free(sweep);
        return ar_status_out_of_memory_k;
    }
    size_t t = 0;
    uint64_t grain = 0;
    for (size_t i = 0; i < n; ++i) {
        if (!arp_place_holds(&rows[i])) continue;
        sweep->times[t++] = rows[i].lower;
        sweep->times[t++] = rows[i].upper;
        grain = arp_place_gcd(
            grain, arp_place_gcd(rows[i].size, arp_place_alignment(&rows[i], alignment)));
    }
    qsort(sweep->times, t, sizeof *sweep->times, arp_place_by_u64);
    size_t distinct = 0;
    for (size_t k = 0; k < t; ++k)
        if (!distinct || sweep->times[k] != sweep->times[distinct - 1])
            sweep->times[distinct++] = sweep->times[k];
    sweep->sections = distinct ? distinct - 1 : 0;
    for (size_t i = 0; i < n; ++i) { /* differences, then a prefix sum */
        if (!arp_place_holds(&rows[i])) continue;
        size_t lo = arp_place_count_below(sweep->times, distinct, rows[i].lower);
        size_t hi = arp_place_count_below(sweep->times, distinct, rows[i].upper);
        sweep->row_lo[i] = (uint32_t)lo, sweep->row_hi[i] = (uint32_t)hi;
        sweep->load[lo] += rows[i].size;
        sweep->load[hi] -= rows[i].size;
    }
    for (size_t k = 1; k < distinct; ++k) sweep->load[k] += sweep->load[k - 1];
    for (size_t k = 0; k < sweep->sections; ++k) {
        if (sweep->load[k] > sweep->load[sweep->peak]) sweep->peak = k;
        if (sweep->load[k] > sweep->bound) sweep->bound = sweep->load[k];
    }
    sweep->grain = grain ? grain : 1;
    return ar_status_success_k;
}
