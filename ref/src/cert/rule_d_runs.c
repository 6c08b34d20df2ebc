/* Rule D's state as runs, for plans whose planes cover many elementary intervals (a runtime's
 * export: one phase per op, values of many sizes sharing slots): a bit per cell marks where a
 * run of one key starts, and the key is kept at the run's first cell. Painting a plane sets
 * two bits and clears those between, and a check finds the run holding its first cell, so
 * both cost the plane's cells / 64 words, not log(cells) tree nodes with a dozen steps each.
 * Runs need not be maximal (a painted plane starts a run even after one of its own key).
 */
#include <stdlib.h>

#include "cert/certify_internal.h"

ar_status_t arp_runs_init(arp_runs_t *runs, size_t cells, int32_t none) {
    size_t words = cells / 64 + 1;
    runs->cells = cells;
    runs->starts = calloc(words, sizeof *runs->starts);
    runs->key = malloc((cells + 1) * sizeof *runs->key);
    if (!runs->starts || !runs->key) return ar_status_out_of_memory_k;
    runs->starts[0] = 1; /* cell 0 starts the one run, of no key */
    runs->key[0] = none;
    return ar_status_success_k;
}

void arp_runs_free(arp_runs_t *runs) {
    free(runs->starts);
    free(runs->key);
}

/* The start of the run holding cell c: the last set bit at or before c (bit 0 is always set). */
static inline size_t run_of(arp_runs_t const *runs, size_t c) {
    size_t w = c / 64;
    uint64_t bits = runs->starts[w] & (~0ull >> (63 - c % 64));
    while (!bits) bits = runs->starts[--w];
    return w * 64 + 63 - (size_t)__builtin_clzll(bits);
}

/* The first run start in [c, end), or end. */
static inline size_t next_start(arp_runs_t const *runs, size_t c, size_t end) {
    if (c >= end) return end;
    size_t w = c / 64, last = (end - 1) / 64;
    uint64_t bits = runs->starts[w] & (~0ull << (c % 64));
    while (!bits) {
        if (w == last) return end;
        bits = runs->starts[++w];
    }
    size_t at = w * 64 + (size_t)__builtin_ctzll(bits);
    return at < end ? at : end;
}

int32_t arp_runs_other(arp_runs_t const *runs, size_t l, size_t r, int32_t value) {
    if (l >= r) return value;
    int32_t key = runs->key[run_of(runs, l)];
    if (key != value) return key;
    for (size_t c = next_start(runs, l + 1, r); c < r; c = next_start(runs, c + 1, r))
        if (runs->key[c] != value) return runs->key[c];
    return value;
}

bool arp_runs_uniform(arp_runs_t const *runs, size_t l, size_t r, int32_t value) {
    return arp_runs_other(runs, l, r, value) == value;
}

void arp_runs_assign(arp_runs_t *runs, size_t l, size_t r, int32_t value) {
    if (l >= r) return;
    uint64_t *bits = runs->starts;
    /* What lies after the plane keeps its key: it starts a run at r. */
    if (r < runs->cells && !(bits[r / 64] >> (r % 64) & 1)) {
        runs->key[r] = runs->key[run_of(runs, r)];
        bits[r / 64] |= 1ull << (r % 64);
    }
    /* Cells (l, r) start nothing now; l starts the plane's run. */
    size_t a = l + 1, wa = a / 64, wb = (r - 1) / 64;
    if (a < r) {
        uint64_t head = ~0ull << (a % 64), tail = ~0ull >> (63 - (r - 1) % 64);
        if (wa == wb)
            bits[wa] &= ~(head & tail);
        else {
            bits[wa] &= ~head;
            for (size_t w = wa + 1; w < wb; ++w) bits[w] = 0;
            bits[wb] &= ~tail;
        }
    }
    bits[l / 64] |= 1ull << (l % 64);
    runs->key[l] = value;
}
