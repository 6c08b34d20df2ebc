/* Where a buffer fits among the placed ones: the lowest (or the tightest) gap in the bytes the
 * placed buffers live with it hold. A segment tree over the sweep's sections keeps at each node
 * the union of the byte ranges of every placed buffer live somewhere in its range, merged into
 * disjoint pieces; a buffer's span is a few canonical nodes, whose unions together are exactly
 * its conflicts, in pieces (few: what lies below a lowest gap is mostly solid). A buffer added
 * over a whole node is a tag there, pushed to the children when a query passes. So a buffer
 * costs O(log T) set operations, each a binary search over a node's pieces, plus the pieces the
 * gap search passes, where a scan of the placed buffers in offset order cost O(n). The answer
 * is the scan's: the least aligned offset whose window meets no piece (lowest), or the
 * tightest gap between pieces that holds the buffer, else on top (tightest). */
#include <stdlib.h>
#include <string.h>

#include "place/engine.h"

/* A set of disjoint, non-touching byte ranges [v[i][0], v[i][1]), in order. */
typedef struct iset_t {
    uint64_t (*v)[2];
    uint32_t n, cap;
} iset_t;

/* The sets' storage: blocks of 2^k pieces cut from large slabs, a free list per k, all of it
 * given back at once (millions of small sets, each its own malloc, took seconds to free). */
typedef uint64_t piece_t[2];

typedef struct pool_t {
    piece_t **slabs;
    size_t slabs_count, slabs_capacity;
    piece_t *bump;          /* the current slab's unused part */
    size_t left;            /* pieces left there */
    piece_t *free_list[32]; /* per k: a released block of 2^k, the next one in its first */
} pool_t;

#define ARP_GAPS_SLAB ((size_t)1 << 16) /* pieces a slab holds, at least */

static piece_t *pool_take(pool_t *p, unsigned k) {
    piece_t *block = p->free_list[k];
    if (block) {
        piece_t *next; /* a free block holds the next one's address in its first bytes */
        memcpy(&next, block, sizeof next);
        p->free_list[k] = next;
        return block;
    }
    size_t need = (size_t)1 << k;
    if (p->left < need) {
        size_t size = need > ARP_GAPS_SLAB ? need : ARP_GAPS_SLAB;
        if (p->slabs_count == p->slabs_capacity) {
            size_t cap = p->slabs_capacity ? 2 * p->slabs_capacity : 64;
            piece_t **bigger = realloc(p->slabs, cap * sizeof *bigger);
            if (!bigger) return NULL;
            p->slabs = bigger, p->slabs_capacity = cap;
        }
        piece_t *slab = malloc(size * sizeof *slab);
        if (!slab) return NULL;
        p->slabs[p->slabs_count++] = slab;
        p->bump = slab, p->left = size;
    }
    block = p->bump;
    p->bump += need, p->left -= need;
    return block;
}

static void pool_give(pool_t *p, piece_t *block, unsigned k) {
    piece_t *next = p->free_list[k];
    memcpy(block, &next, sizeof next);
    p->free_list[k] = block;
}

static void pool_free(pool_t *p) {
    for (size_t j = 0; j < p->slabs_count; ++j) free(p->slabs[j]);
    free(p->slabs);
}

struct arp_gaps_t {
    pool_t pool;
    size_t leaves;       /* a power of two at least the sections */
    int height;          /* log2(leaves) */
    iset_t *sub;         /* per node: the union of what was added at it or below it */
    iset_t *whole;       /* per node: what was added over its whole range (pairwise disjoint) */
    iset_t const **sets; /* scratch: a query's sets */
    uint32_t *first;     /* scratch beside them: the next piece of each */
    size_t nodes_cap, nodes_count;
    uint64_t work;
    bool oom;
};

/* The first piece whose end is past c (`touch`: or at c). */
static uint32_t first_after(iset_t const *s, uint64_t c, bool touch, uint64_t *work) {
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        ++*work;
        if (s->v[mid][1] > c || (touch && s->v[mid][1] == c))
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* [a, b) into the set, merged with every piece it meets or touches. */
static bool iset_add(pool_t *pool, iset_t *s, uint64_t a, uint64_t b, uint64_t *work) {
    uint32_t i = first_after(s, a, true, work), j = i;
    while (j < s->n && s->v[j][0] <= b) ++j, ++*work;
    if (i == j) {
        if (s->n == s->cap) {
            unsigned k = s->cap ? (unsigned)__builtin_ctz(s->cap) + 1 : 1;
            piece_t *bigger = pool_take(pool, k);
            if (!bigger) return false;
            if (s->cap) {
                memcpy(bigger, s->v, s->n * sizeof *s->v);
                pool_give(pool, s->v, k - 1);
            }
            s->v = bigger, s->cap = (uint32_t)1 << k;
        }
        memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof *s->v);
        s->v[i][0] = a, s->v[i][1] = b;
        ++s->n;
        *work += s->n - i;
        return true;
    }
    if (s->v[i][0] < a) a = s->v[i][0];
    if (s->v[j - 1][1] > b) b = s->v[j - 1][1];
    s->v[i][0] = a, s->v[i][1] = b;
    memmove(s->v + i + 1, s->v + j, (s->n - j) * sizeof *s->v);
    s->n -= j - i - 1;
    *work += s->n - i;
    return true;
}

arp_gaps_t *arp_gaps_make(size_t sections) {
    arp_gaps_t *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->leaves = 1;
    while (g->leaves < sections) g->leaves *= 2, ++g->height;
    g->sub = calloc(2 * g->leaves, sizeof *g->sub);
    g->whole = calloc(2 * g->leaves, sizeof *g->whole);
    if (!g->sub || !g->whole) {
        arp_gaps_free(g);
        return NULL;
    }
    return g;
}

void arp_gaps_free(arp_gaps_t *g) {
    if (!g) return;
    pool_free(&g->pool);
    free(g->sub), free(g->whole), free(g->sets), free(g->first);
    free(g);
}

uint64_t arp_gaps_work(arp_gaps_t const *g) { return g->work; }

bool arp_gaps_failed(arp_gaps_t const *g) { return g->oom; }

/* Sections [lo, hi)'s sets appended to g->sets: each canonical node's `sub` and the `whole`
 * of every node above one (what covers it). */
static void canonical(arp_gaps_t *g, uint32_t lo, uint32_t hi) {
    size_t l = lo + g->leaves, r = hi + g->leaves;
    if (g->nodes_count + 4 * (size_t)g->height + 4 > g->nodes_cap) {
        size_t cap = 2 * g->nodes_cap + 4 * (size_t)g->height + 64;
        iset_t const **bigger = realloc(g->sets, cap * sizeof *bigger);
        if (bigger) g->sets = bigger;
        uint32_t *first = bigger ? realloc(g->first, cap * sizeof *first) : NULL;
        if (!first) {
            g->oom = true;
            return;
        }
        g->first = first, g->nodes_cap = cap;
    }
    for (int h = g->height; h > 0; --h) {
        size_t x = (l >> h) << h != l ? l >> h : 0, y = (r >> h) << h != r ? (r - 1) >> h : 0;
        if (x && g->whole[x].n) g->sets[g->nodes_count++] = &g->whole[x];
        if (y && y != x && g->whole[y].n) g->sets[g->nodes_count++] = &g->whole[y];
    }
    for (; l < r; l >>= 1, r >>= 1) {
        if ((l & 1) && g->sub[l].n) g->sets[g->nodes_count++] = &g->sub[l];
        if ((r & 1) && g->sub[r - 1].n) g->sets[g->nodes_count++] = &g->sub[r - 1];
        l += l & 1, r -= r & 1;
        ++g->work;
    }
}

static void gather(arp_gaps_t *g, uint32_t const *lo, uint32_t const *hi, size_t spans) {
    g->nodes_count = 0;
    for (size_t j = 0; j < spans; ++j)
        if (lo[j] < hi[j]) canonical(g, lo[j], hi[j]);
}

/* The gap search over the query's sets, as a scan of the placed buffers in offset order would
 * make it, but over pieces: at each step the next piece (the least start among each set's first
 * piece ending past the candidate, found by a cursor per set that only moves forward); a gap
 * where it starts at or past candidate + size; the candidate then past its aligned end. Pieces
 * lying below the candidate change nothing and are skipped by binary search. Lowest: the
 * first gap. Tightest: the narrowest (the lowest of equals; one exactly the size ends it), else
 * the aligned top. */
static uint64_t walk(arp_gaps_t *g, uint64_t size, uint64_t align, bool tightest) {
    size_t k = g->nodes_count;
    uint32_t *at = g->first;
    if (k) memset(at, 0, k * sizeof *at);
    uint64_t c = 0, best = UINT64_MAX, best_gap = UINT64_MAX;
    for (;;) {
        size_t pick = SIZE_MAX;
        uint64_t start = UINT64_MAX;
        for (size_t x = 0; x < k; ++x) {
            iset_t const *s = g->sets[x];
            uint32_t i = at[x];
            if (i < s->n && s->v[i][1] <= c) {
                /* Past the candidate: one step, else a binary search for the rest. */
                if (++i < s->n && s->v[i][1] <= c) {
                    uint32_t lo = i + 1, hi = s->n;
                    while (lo < hi) {
                        uint32_t mid = lo + (hi - lo) / 2;
                        ++g->work;
                        if (s->v[mid][1] > c)
                            hi = mid;
                        else
                            lo = mid + 1;
                    }
                    i = lo;
                }
                at[x] = i;
            }
            ++g->work;
            if (i < s->n && s->v[i][0] < start) start = s->v[i][0], pick = x;
        }
        if (pick == SIZE_MAX) break;
        uint64_t end = g->sets[pick]->v[at[pick]++][1];
        if (c + size <= start) {
            if (!tightest) return c;
            if (start - c < best_gap) best_gap = start - c, best = c;
            if (best_gap == size) return best;
        }
        if (end > c) c = arp_place_align_up(end, align);
    }
    return best != UINT64_MAX ? best : c;
}

uint64_t arp_gaps_lowest(arp_gaps_t *g, uint32_t const *lo, uint32_t const *hi, size_t spans,
                         uint64_t size, uint64_t align) {
    gather(g, lo, hi, spans);
    return walk(g, size, align, false);
}

uint64_t arp_gaps_tightest(arp_gaps_t *g, uint32_t const *lo, uint32_t const *hi, size_t spans,
                           uint64_t size, uint64_t align) {
    gather(g, lo, hi, spans);
    return walk(g, size, align, true);
}

/* Sections [lo, hi) take [at, top): the `whole` of its canonical nodes, the `sub` of those and
 * of every node above them. */
static void add_span(arp_gaps_t *g, uint32_t lo, uint32_t hi, uint64_t at, uint64_t top) {
    size_t l = lo + g->leaves, r = hi + g->leaves;
    ++g->work;
    for (size_t a = l, b = r; a < b; a >>= 1, b >>= 1) {
        if (a & 1) {
            g->oom |= !iset_add(&g->pool, &g->whole[a], at, top, &g->work);
            g->oom |= !iset_add(&g->pool, &g->sub[a], at, top, &g->work);
            ++a;
        }
        if (b & 1) {
            --b;
            g->oom |= !iset_add(&g->pool, &g->whole[b], at, top, &g->work);
            g->oom |= !iset_add(&g->pool, &g->sub[b], at, top, &g->work);
        }
    }
    for (int h = 1; h <= g->height; ++h) {
        size_t x = (l >> h) << h != l ? l >> h : 0, y = (r >> h) << h != r ? (r - 1) >> h : 0;
        if (x) g->oom |= !iset_add(&g->pool, &g->sub[x], at, top, &g->work);
        if (y && y != x) g->oom |= !iset_add(&g->pool, &g->sub[y], at, top, &g->work);
    }
}

void arp_gaps_add(arp_gaps_t *g, uint32_t const *lo, uint32_t const *hi, size_t spans, uint64_t at,
                  uint64_t size) {
    for (size_t j = 0; j < spans; ++j)
        if (lo[j] < hi[j]) add_span(g, lo[j], hi[j], at, at + size);
}
