/* Placement in order of start (first-fit's order, and lns's by start alone), at lowest gaps,
 * as a sweep: placed in that order, a buffer meets exactly the placed ones still live at its
 * start, so those are all a gap search needs. They are kept in a treap by offset whose nodes
 * know their subtree's lowest start, highest end and widest gap between two of its buffers;
 * the ones that ended before a start leave it first (a heap by end). The search walks the
 * treap in offset order and skips every subtree holding no gap wide enough: O(log n) a buffer
 * where gaps.c passes every piece of a fragmented live set (91 s for a real trace of 840,000
 * buffers). The answer is gaps.c's: the least aligned offset that meets no live buffer. Only
 * for buffers of one row (a later row meets buffers that start after the first). */
#include <stdlib.h>

#include "place/engine.h"

#define NIL UINT32_MAX

typedef struct treap_t {
    uint32_t *left, *right, *prio;
    uint64_t *start, *end;      /* per buffer placed: its bytes */
    uint64_t *low, *high, *gap; /* per subtree: lowest start, highest end, widest gap */
    uint32_t root;
    uint64_t work;
} treap_t;

static void pull(treap_t *t, uint32_t x) {
    uint32_t l = t->left[x], r = t->right[x];
    t->low[x] = l != NIL ? t->low[l] : t->start[x];
    t->high[x] = r != NIL ? t->high[r] : t->end[x];
    uint64_t gap = 0;
    if (l != NIL) gap = t->gap[l] > t->start[x] - t->high[l] ? t->gap[l] : t->start[x] - t->high[l];
    if (r != NIL) {
        uint64_t g = t->gap[r] > t->low[r] - t->end[x] ? t->gap[r] : t->low[r] - t->end[x];
        if (g > gap) gap = g;
    }
    t->gap[x] = gap;
}

static uint32_t merge(treap_t *t, uint32_t a, uint32_t b) {
    ++t->work;
    if (a == NIL) return b;
    if (b == NIL) return a;
    if (t->prio[a] > t->prio[b]) {
        t->right[a] = merge(t, t->right[a], b);
        pull(t, a);
        return a;
    }
    t->left[b] = merge(t, a, t->left[b]);
    pull(t, b);
    return b;
}

/* Into starts < key and starts >= key. */
static void split(treap_t *t, uint32_t x, uint64_t key, uint32_t *lo, uint32_t *hi) {
    ++t->work;
    if (x == NIL) {
        *lo = *hi = NIL;
    } else if (t->start[x] < key) {
        split(t, t->right[x], key, &t->right[x], hi);
        pull(t, x);
        *lo = x;
    } else {
        split(t, t->left[x], key, lo, &t->left[x]);
        pull(t, x);
        *hi = x;
    }
}

/* The lowest aligned offset in subtree x's gaps (the first one from *prev, the end of what
 * lies before it) that holds `size`; UINT64_MAX when none, *prev then x's highest end. */
static uint64_t search(treap_t *t, uint32_t x, uint64_t *prev, uint64_t size, uint64_t align) {
    if (x == NIL) return UINT64_MAX;
    ++t->work;
    if (t->low[x] - *prev < size && t->gap[x] < size) { /* no gap here wide enough */
        *prev = t->high[x];
        return UINT64_MAX;
    }
    uint64_t c = search(t, t->left[x], prev, size, align);
    if (c != UINT64_MAX) return c;
    c = arp_place_align_up(*prev, align);
    if (c + size <= t->start[x]) return c;
    *prev = t->end[x];
    return search(t, t->right[x], prev, size, align);
}

/* A min-heap of placed buffers by end. */
typedef struct heap_t {
    uint32_t *item;
    size_t count;
} heap_t;

static void heap_push(heap_t *h, uint64_t const *end, uint32_t b) {
    size_t k = h->count++;
    while (k && end[h->item[(k - 1) / 2]] > end[b])
        h->item[k] = h->item[(k - 1) / 2], k = (k - 1) / 2;
    h->item[k] = b;
}

static uint32_t heap_pop(heap_t *h, uint64_t const *end) {
    uint32_t top = h->item[0], last = h->item[--h->count];
    size_t k = 0;
    for (;;) {
        size_t c = 2 * k + 1;
        if (c >= h->count) break;
        if (c + 1 < h->count && end[h->item[c + 1]] < end[h->item[c]]) ++c;
        if (end[h->item[c]] >= end[last]) break;
        h->item[k] = h->item[c], k = c;
    }
    if (h->count) h->item[k] = last;
    return top;
}

bool arp_starts_apply(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                      size_t const *order, size_t count) {
    (void)problem;
    for (size_t k = 0; k < count; ++k)
        if (g->hull[order[k]].several) return false;
    for (size_t k = 1; k < count; ++k)
        if (g->hull[order[k]].lower < g->hull[order[k - 1]].lower) return false;
    return true;
}

arp_result_t arp_starts_place(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                              size_t const *order, size_t count, uint64_t alignment,
                              arp_clock_t *clock, double deadline, bool finish, uint64_t *at,
                              uint64_t *work) {
    size_t m = g->count;
    treap_t t = {.left = malloc((m + 1) * sizeof *t.left),
                 .right = malloc((m + 1) * sizeof *t.right),
                 .prio = malloc((m + 1) * sizeof *t.prio),
                 .start = malloc((m + 1) * sizeof *t.start),
                 .end = malloc((m + 1) * sizeof *t.end),
                 .low = malloc((m + 1) * sizeof *t.low),
                 .high = malloc((m + 1) * sizeof *t.high),
                 .gap = malloc((m + 1) * sizeof *t.gap),
                 .root = NIL};
    uint64_t *upper = malloc((m + 1) * sizeof *upper);
    heap_t h = {malloc((count + 1) * sizeof *h.item), 0};
    arp_result_t out = arp_found_k;
    if (!t.left || !t.right || !t.prio || !t.start || !t.end || !t.low || !t.high || !t.gap ||
        !upper || !h.item) {
        out = arp_oom_k;
        goto done;
    }
    arp_rng_t rng = arp_rng_make(0x9e3779b97f4a7c15ull);
    bool stacking = false;
    uint64_t top = 0;
    for (size_t k = 0; k < count; ++k) {
        uint32_t b = (uint32_t)order[k];
        uint64_t size = g->hull[b].size, now = g->hull[b].lower;
        uint64_t align = arp_place_alignment(&problem->buffers[g->first[b]], alignment);
        if (!arp_order_goes_on(clock, count, k, deadline, finish, &stacking)) {
            out = arp_stopped_k;
            break;
        }
        if (stacking) {
            at[b] = arp_place_align_up(top, align);
        } else {
            while (h.count && upper[h.item[0]] <= now) { /* ended: out of the treap */
                uint32_t o = heap_pop(&h, upper), lo, mid, hi;
                split(&t, t.root, t.start[o], &lo, &hi);
                split(&t, hi, t.start[o] + 1, &mid, &hi);
                t.root = merge(&t, lo, hi);
            }
            uint64_t prev = 0;
            at[b] = search(&t, t.root, &prev, size, align);
            if (at[b] == UINT64_MAX) at[b] = arp_place_align_up(t.root == NIL ? 0 : prev, align);
            t.start[b] = at[b], t.end[b] = at[b] + size, upper[b] = g->hull[b].upper;
            t.left[b] = t.right[b] = NIL, t.prio[b] = (uint32_t)(arp_rng_next(&rng) >> 32);
            pull(&t, b);
            uint32_t lo, hi;
            split(&t, t.root, at[b], &lo, &hi);
            t.root = merge(&t, merge(&t, lo, b), hi);
            heap_push(&h, upper, b);
        }
        if (at[b] + size > top) top = at[b] + size;
    }
    if (work) *work += t.work;
done:
    free(t.left), free(t.right), free(t.prio), free(t.start), free(t.end), free(t.low);
    free(t.high), free(t.gap), free(upper), free(h.item);
    return out;
}
