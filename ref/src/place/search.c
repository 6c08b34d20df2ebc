/* `search`: MiniMalloc's ideas (Moffitt, ASPLOS 2023) as a decision procedure, "is there a
 * placement within this limit?", complete unless it runs out of nodes. A canonical solution
 * rests every buffer on the highest buffer below it in its lifetime (or on 0) and places them
 * in non-decreasing offset (ties: rank), so a node branches over the unplaced buffers at their
 * resting offsets, below the lowest top any unplaced buffer could reach (else a gap stays open
 * for it). Inference cuts a node when a section's lowest reachable floor plus its unplaced
 * bytes passes the limit; a candidate that lifts the floor past what a section's unplaced bytes
 * allow ends the node's loop unvisited. Where no section of a part has slack, each is filled
 * solid: runs of them must be tileable at their tops, and a node branches only over the buffers
 * over one such byte (with seeded restarts where that dominates). Once no unplaced buffer spans a time boundary, each
 * side is solved alone. Three preorders take turns on doubling node budgets. Minimising bisects
 * the height between the max-live bound and the incumbent with that procedure. A buffer of
 * several rows occupies several runs of sections (spans): it rests on the highest top over all
 * of them, its bytes count as unplaced in each, and for splitting it spans its hull, so its
 * rows stay in one part and get one offset. */
#include <stdlib.h>
#include <string.h>

#include "place/engine.h"

#define NONE SIZE_MAX

/* What a node or a partition ends with: found, none (refuted) or stopped (engine.h). */
typedef arp_result_t outcome_t;
#define found_k arp_found_k
#define not_found_k arp_none_k
#define stopped_k arp_stopped_k

/* The order buffers are ranked in (MiniMalloc's preorders): T is the most bytes live in a
 * section the buffer spans, W its lifetime, A lifetime times size, each larger first. */
typedef enum preorder_t { wat_k, taw_k, twa_k, preorder_count_k } preorder_t;

typedef struct rank_t {
    uint64_t a, b, c;
    size_t index; /* ties: input order */
    uint32_t who;
} rank_t;

static int by_rank(void const *x, void const *y) {
    rank_t const *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->c != q->c) return p->c < q->c ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

typedef struct candidate_t {
    uint64_t off, key; /* key: the order among equal offsets (the rank, or a tight node's) */
    uint32_t rank, b;
} candidate_t;

typedef struct search_t {
    size_t m, sections;
    /* Per buffer, the same in every run (prepare's): its index among the problem's buffers,
     * size, alignment, the hull of its sections [sl, su), lifetime and area; its spans
     * [sf[b], sf[b + 1]), each the sections [lo, hi) of one row. */
    size_t const *orig;
    uint64_t const *size, *align, *width, *area;
    uint32_t const *sl, *su, *sf, *lo, *hi;
    uint64_t const *pin; /* NULL, or per buffer a fixed offset (UINT64_MAX: free) */
    uint64_t *solution;
    uint64_t *floor;     /* scratch per node: each unplaced buffer's resting offset */
    uint64_t *raw, *rem; /* per section: top of the highest placed buffer; unplaced bytes */
    uint64_t *infl;      /* per section: lowest offset an unplaced buffer there can take */
    uint32_t *cuts;      /* per boundary k|k+1: unplaced buffers spanning it */
    uint32_t *cover;     /* scratch per node and tight section: buffers whose floor is its top */
    uint32_t *head;      /* scratch per section: the first piece starting there (NONE32) */
    uint8_t *reach;      /* scratch per boundary: a run's sections before it exactly covered */
    uint32_t *piece_end, *piece_next; /* the pieces: where each ends, the next from its start */
    size_t pieces_capacity;
    uint64_t *undo; /* a stack: the floors a placement raised (at most every span once) */
    size_t undo_count, undo_capacity;
    bool *placed;
    uint64_t limit;
    uint64_t max_align;       /* the largest alignment */
    uint64_t salt;            /* 0, or a seed breaking ties among a tight node's candidates */
    uint64_t tight_nodes;     /* nodes that branched on a tight section */
    uint64_t nodes, budget;   /* nodes that passed inference (MiniMalloc counts those); the most */
    uint64_t probes;          /* every node entered: the deadline is read every 16 */
    uint64_t probe_cap;       /* the most nodes entered (UINT64_MAX: no cap) */
    uint64_t work, work_read; /* sections visited; and when the clock was last read */
    double deadline;
    arp_clock_t *clock;
    bool several; /* some buffer has several spans */
    bool timed_out, out_of_nodes, oom, too_deep;
    size_t depth;
    candidate_t *cands; /* a stack: each node's candidates */
    size_t cands_count, cands_capacity;
    uint32_t *members; /* a stack: each partition's buffers, in rank order */
    uint32_t *saved;   /* beside members: the rank each had in the enclosing partition */
    uint32_t *rank;    /* per buffer: its place in its partition's order */
    preorder_t order;
    size_t members_count, members_capacity, saved_capacity;
    struct rank_t *keys; /* scratch for ranking a partition */
    size_t keys_capacity;
} search_t;

static bool grow(void **array, size_t *capacity, size_t need, size_t item) {
    if (need <= *capacity) return true;
    size_t cap = *capacity ? *capacity : 1024;
    while (cap < need) cap *= 2;
    void *bigger = realloc(*array, cap * item);
    if (!bigger) return false;
    *array = bigger;
    *capacity = cap;
    return true;
}

/* Sections visited between two reads of the clock, besides the read every 16 nodes: a node on
 * a large problem visits millions (each unplaced buffer's sections), so the deadline is read
 * within one node too. Small problems never reach it between two nodes' reads. */
#define ARP_SEARCH_CLOCK_WORK ((uint64_t)1 << 22)

/* `work` more sections visited; true when out of time (the clock read when due). */
static inline bool out_of_time(search_t *s, uint64_t work) {
    s->work += work;
    if (s->work - s->work_read < ARP_SEARCH_CLOCK_WORK) return s->timed_out;
    s->work_read = s->work;
    if (arp_clock_past(s->clock, s->deadline)) s->timed_out = true;
    return s->timed_out;
}

static int by_offset(void const *x, void const *y) {
    candidate_t const *p = x, *q = y;
    if (p->off != q->off) return p->off < q->off ? -1 : 1;
    return p->key < q->key ? -1 : p->key > q->key;
}

static outcome_t solve_range(search_t *s, uint32_t lo, uint32_t hi, size_t first, size_t count);

/* The key of b in the run's order, with T the most unplaced bytes now in a section b spans:
 * each part split off is ranked afresh, as MiniMalloc does. */
static rank_t key_of(search_t const *s, uint32_t b) {
    uint64_t total = 0;
    for (uint32_t j = s->sf[b]; j < s->sf[b + 1]; ++j)
        for (uint32_t k = s->lo[j]; k < s->hi[j]; ++k)
            if (s->rem[k] > total) total = s->rem[k];
    uint64_t w = ~s->width[b], a = ~s->area[b], t = ~total;
    if (s->order == taw_k) return (rank_t){t, a, w, s->orig[b], b};
    if (s->order == twa_k) return (rank_t){t, w, a, s->orig[b], b};
    return (rank_t){w, a, t, s->orig[b], b};
}

/* Sort a partition's members (stack [start, start + count)) in the run's order and give each
 * its rank there, keeping its enclosing rank beside it. */
static void rank_partition(search_t *s, size_t start, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        uint32_t b = s->members[start + i];
        s->keys[i] = key_of(s, b);
        out_of_time(s, 1 + s->su[b] - s->sl[b]); /* read by the caller's next node */
    }
    qsort(s->keys, count, sizeof *s->keys, by_rank);
    for (size_t i = 0; i < count; ++i) {
        uint32_t b = s->keys[i].who;
        s->members[start + i] = b;
        s->saved[start + i] = s->rank[b];
        s->rank[b] = (uint32_t)i;
    }
}

/* The partition's unplaced buffers at their resting offsets (floor[]), the lowest top any
 * can reach, how many there are (*unplaced) and the most unplaced bytes in one section (*most);
 * false when the limit cannot be met: a buffer's top passes it, or a section's lowest reachable
 * floor (no lower than `base`) plus its unplaced bytes does. With `push`, the candidates (resting at or above `base`, below that lowest top) go on
 * the stack: only they can be placed next. The search's hot loop: made twice, with `several`
 * false (every buffer one span, its hull: the loops read nothing more) and true. */
static inline __attribute__((always_inline)) bool
infer_spans(search_t *s, uint32_t lo, uint32_t hi, size_t first, size_t count, uint64_t base,
            bool push, size_t *unplaced, uint64_t *most, bool several) {
    for (uint32_t k = lo; k < hi; ++k) s->infl[k] = UINT64_MAX;
    uint64_t min_top = UINT64_MAX;
    *unplaced = 0;
    for (size_t i = first; i < first + count; ++i) {
        uint32_t b = s->members[i];
        if (s->placed[b]) continue;
        ++*unplaced;
        uint64_t floor = 0;
        if (!several) {
            for (uint32_t k = s->sl[b]; k < s->su[b]; ++k)
                if (s->raw[k] > floor) floor = s->raw[k];
        } else {
            for (uint32_t j = s->sf[b]; j < s->sf[b + 1]; ++j)
                for (uint32_t k = s->lo[j]; k < s->hi[j]; ++k)
                    if (s->raw[k] > floor) floor = s->raw[k];
        }
        if (s->pin && s->pin[b] != UINT64_MAX) {
            /* Pinned: only at its offset, and in offset order (nothing placed lies above it). */
            if (floor > s->pin[b] || s->pin[b] < base) return false;
            floor = s->pin[b];
        } else {
            floor = arp_place_align_up(floor, s->align[b]);
        }
        if (floor + s->size[b] > s->limit) return false;
        if (out_of_time(s, 1 + s->su[b] - s->sl[b])) return false; /* the caller sees why */
        if (floor + s->size[b] < min_top) min_top = floor + s->size[b];
        uint64_t reach = floor < base ? arp_place_align_up(base, s->align[b]) : floor;
        if (!several) {
            for (uint32_t k = s->sl[b]; k < s->su[b]; ++k)
                if (reach < s->infl[k]) s->infl[k] = reach;
        } else {
            for (uint32_t j = s->sf[b]; j < s->sf[b + 1]; ++j)
                for (uint32_t k = s->lo[j]; k < s->hi[j]; ++k)
                    if (reach < s->infl[k]) s->infl[k] = reach;
        }
        s->floor[b] = floor;
    }
    uint64_t largest = 0;
    for (uint32_t k = lo; k < hi; ++k) {
        if (s->rem[k] && s->infl[k] + s->rem[k] > s->limit) return false;
        if (s->rem[k] > largest) largest = s->rem[k];
    }
    *most = largest;
    if (!push) return true;
    if (!grow((void **)&s->cands, &s->cands_capacity, s->cands_count + *unplaced,
              sizeof *s->cands)) {
        s->oom = true;
        return false;
    }
    for (size_t i = first; i < first + count; ++i) {
        uint32_t b = s->members[i];
        if (!s->placed[b] && s->floor[b] >= base && s->floor[b] < min_top)
            s->cands[s->cands_count++] = (candidate_t){s->floor[b], s->rank[b], s->rank[b], b};
    }
    return true;
}

static bool infer(search_t *s, uint32_t lo, uint32_t hi, size_t first, size_t count, uint64_t base,
                  bool push, size_t *unplaced, uint64_t *most) {
    return s->several ? infer_spans(s, lo, hi, first, count, base, push, unplaced, most, true)
                      : infer_spans(s, lo, hi, first, count, base, push, unplaced, most, false);
}

#define NONE32 UINT32_MAX

/* A section with no slack (its top plus its unplaced bytes is the limit) is filled solid from
 * its top up, so the buffer over its lowest free byte rests on that top: one whose floor (the
 * highest top in its lifetime) is that top. Where consecutive such sections share a top (a run),
 * those buffers tile the run exactly, side by side in time, at that top: a walk over each run's
 * boundaries checks that pieces of them can (a node fails when one cannot). And at the level
 * (the lowest floor of a candidate) a buffer over such a section comes next in some canonical
 * order of every completion: only those over one section need be tried (one of them covers
 * that byte in each completion, so none is reached twice), the section fewest cover (fail
 * first). Narrows the candidates cands[top, top + *n) to it (*n 0: the node fails) and
 * returns true; false when no section at the level is tight, or some section of the part has
 * slack. */
static bool narrow_to_tight(search_t *s, uint32_t lo, uint32_t hi, size_t first, size_t count,
                            size_t top, size_t *n) {
    uint64_t level = UINT64_MAX;
    for (size_t c = top; c < top + *n; ++c)
        if (s->cands[c].off < level) level = s->cands[c].off;
    bool any = false, at_level = false;
    for (uint32_t k = lo; k < hi; ++k) {
        bool tight = s->rem[k] && s->raw[k] + s->rem[k] == s->limit;
        s->cover[k] = tight ? 0 : NONE32;
        s->head[k] = NONE32;
        /* A run starts here: reached from the start. */
        s->reach[k] = tight && (k == lo || s->cover[k - 1] == NONE32 || s->raw[k - 1] != s->raw[k]);
        any |= tight;
        at_level |= tight && s->raw[k] == level;
    }
    if (!any) return false;
    /* Only where the whole part is without slack: elsewhere MiniMalloc's order of candidates
     * finds placements far sooner (B, E and F of its instances by 6x to 50x in nodes). */
    for (uint32_t k = lo; k < hi; ++k)
        if (s->rem[k] && s->cover[k] == NONE32) return false;
    s->reach[hi] = 0;
    /* Each unplaced buffer: the tight sections at its floor that it covers, and its pieces
     * there (its runs of them, each listed from where it starts). */
    size_t pieces = 0;
    for (size_t i = first; i < first + count; ++i) {
        uint32_t b = s->members[i];
        if (s->placed[b]) continue;
        if (out_of_time(s, 1 + s->su[b] - s->sl[b])) {
            *n = 0; /* the caller sees why */
            return true;
        }
        uint64_t f = s->floor[b];
        for (uint32_t j = s->sf[b]; j < s->sf[b + 1]; ++j)
            for (uint32_t k = s->lo[j]; k < s->hi[j]; ++k) {
                if (s->cover[k] == NONE32 || s->raw[k] != f) continue;
                ++s->cover[k];
                if (k > s->lo[j] && s->cover[k - 1] != NONE32 && s->raw[k - 1] == f) continue;
                uint32_t end = k + 1;
                while (end < s->hi[j] && s->cover[end] != NONE32 && s->raw[end] == f) ++end;
                if (pieces == s->pieces_capacity) {
                    size_t cap = s->pieces_capacity ? 2 * s->pieces_capacity : 1024;
                    uint32_t *e = realloc(s->piece_end, cap * sizeof *e);
                    if (e) s->piece_end = e;
                    uint32_t *x = e ? realloc(s->piece_next, cap * sizeof *x) : NULL;
                    if (!x) {
                        s->oom = true;
                        *n = 0;
                        return true;
                    }
                    s->piece_next = x;
                    s->pieces_capacity = cap;
                }
                s->piece_end[pieces] = end;
                s->piece_next[pieces] = s->head[k];
                s->head[k] = (uint32_t)pieces++;
            }
    }
    /* Every run must be reached from its start to its end. */
    for (uint32_t k = lo; k < hi; ++k) {
        if (s->cover[k] == NONE32) continue;
        if (s->reach[k])
            for (uint32_t x = s->head[k]; x != NONE32; x = s->piece_next[x])
                s->reach[s->piece_end[x]] = 1;
        bool last = k + 1 == hi || s->cover[k + 1] == NONE32 || s->raw[k + 1] != s->raw[k];
        if (last && !s->reach[k + 1]) {
            *n = 0; /* a run no pieces tile */
            return true;
        }
        if (last && k + 1 < hi) s->reach[k + 1] = s->cover[k + 1] != NONE32; /* the next run */
    }
    if (!at_level) return false;
    ++s->tight_nodes;
    uint32_t best = NONE32;
    for (uint32_t k = lo; k < hi; ++k)
        if (s->cover[k] != NONE32 && s->raw[k] == level &&
            (best == NONE32 || s->cover[k] < s->cover[best]))
            best = k;
    size_t kept = top;
    for (size_t c = top; c < top + *n; ++c) {
        if (s->cands[c].off != level) continue;
        uint32_t b = s->cands[c].b;
        bool over = false;
        for (uint32_t j = s->sf[b]; j < s->sf[b + 1] && !over; ++j)
            over = s->lo[j] <= best && best < s->hi[j];
        if (!over) continue;
        /* Try first what fills the run's width exactly, then what meets a wall's top (one
         * preorder keeps the rank alone: orders that help one instance hurt another). */
        uint64_t t = level + s->size[b];
        uint32_t a = best, z = best + 1;
        while (a > lo && s->cover[a - 1] != NONE32 && s->raw[a - 1] == level) --a;
        while (z < hi && s->cover[z] != NONE32 && s->raw[z] == level) ++z;
        uint64_t cls = s->sl[b] == a && s->su[b] == z ? 0
                       : (s->sl[b] > lo && s->raw[s->sl[b] - 1] == t) ||
                               (s->su[b] < hi && s->raw[s->su[b]] == t)
                           ? 1
                           : 2;
        if (s->salt) {
            uint64_t h = (b + 1) * 0x9e3779b97f4a7c15ull ^ s->salt;
            h ^= h >> 31, h *= 0xbf58476d1ce4e5b9ull, h ^= h >> 29;
            s->cands[c].key = cls << 32 | h >> 32;
        } else if (s->order != taw_k) {
            s->cands[c].key = cls << 32 | s->cands[c].rank;
        }
        s->cands[kept++] = s->cands[c];
    }
    *n = kept - top;
    return true;
}

/* Where every section of the part has one top, a candidate live over the whole part goes
 * there at once, alone: in any completion it can be moved down to that top and what lay
 * between lifted by its size (nothing there reaches past the part), so no other order need be
 * tried. True with the candidates narrowed to it. */
static bool whole_width(search_t *s, uint32_t lo, uint32_t hi, size_t top, size_t *n) {
    if (s->pin) return false; /* a pinned buffer cannot be lifted */
    for (uint32_t k = lo + 1; k < hi; ++k)
        if (s->raw[k] != s->raw[lo]) return false;
    for (size_t c = top; c < top + *n; ++c) {
        uint32_t b = s->cands[c].b;
        if (s->sl[b] == lo && s->su[b] == hi && s->sf[b + 1] - s->sf[b] == 1 &&
            s->size[b] % s->max_align == 0 && /* what it lifts stays aligned */
            s->cands[c].off == s->raw[lo]) {
            s->cands[top] = s->cands[c];
            *n = 1;
            return true;
        }
    }
    return false;
}

/* Buffers live in sections [lo, hi), members[first, first + count) (some already placed), all
 * at or above `base`; the last placed at `base` had rank `last` (NONE: none). */
static outcome_t node(search_t *s, uint32_t lo, uint32_t hi, size_t first, size_t count,
                      uint64_t base, size_t last);

static outcome_t node_body(search_t *s, uint32_t lo, uint32_t hi, size_t first, size_t count,
                           uint64_t base, size_t last) {
    if ((++s->probes & 15) == 0) {
        s->work_read = s->work;
        if (arp_clock_past(s->clock, s->deadline)) s->timed_out = true;
    }
    if (arp_clock_dead(s->clock)) s->timed_out = true;
    if (s->probes > s->probe_cap) s->out_of_nodes = true;
    if (s->timed_out || s->too_deep || s->out_of_nodes) return stopped_k;
    size_t top = s->cands_count, unplaced;
    uint64_t most; /* the most unplaced bytes in a section of the part */
    if (!infer(s, lo, hi, first, count, base, true, &unplaced, &most)) {
        s->cands_count = top;
        return s->oom || s->timed_out ? stopped_k : not_found_k;
    }
    if (++s->nodes > s->budget) {
        s->out_of_nodes = true;
        s->cands_count = top;
        return stopped_k;
    }
    if (unplaced == 0) return found_k;
    size_t n = s->cands_count - top;
    outcome_t out = not_found_k;
    bool tight =
        n && (whole_width(s, lo, hi, top, &n) || narrow_to_tight(s, lo, hi, first, count, top, &n));
    if (tight && !n) { /* a run of sections without slack that nothing can tile */
        s->cands_count = top;
        return s->oom || s->timed_out ? stopped_k : not_found_k;
    }
    qsort(s->cands + top, n, sizeof *s->cands, by_offset);
    for (size_t c = top; c < top + n; ++c) {
        uint64_t at = s->cands[c].off;
        uint32_t b = s->cands[c].b, rank = s->cands[c].rank;
        if (at == base && last != NONE && rank <= last) continue; /* that order was explored */
        /* A child's floor is at least `at` everywhere, so a section's unplaced bytes must fit
         * over it: infer would cut every candidate from here on (they are in offset order). */
        if (at > s->limit - most) break;
        size_t raised = 0;
        for (uint32_t j = s->sf[b]; j < s->sf[b + 1]; ++j) raised += s->hi[j] - s->lo[j];
        if (!grow((void **)&s->undo, &s->undo_capacity, s->undo_count + raised, sizeof *s->undo)) {
            s->oom = true;
            out = stopped_k;
            break;
        }
        for (uint32_t j = s->sf[b]; j < s->sf[b + 1]; ++j)
            for (uint32_t k = s->lo[j]; k < s->hi[j]; ++k) {
                s->undo[s->undo_count++] = s->raw[k];
                s->raw[k] = at + s->size[b];
                s->rem[k] -= s->size[b];
            }
        s->placed[b] = true;
        s->solution[b] = at;
        bool hatless = true; /* no unplaced buffer lives with b: its offset is forced */
        for (uint32_t j = s->sf[b]; j < s->sf[b + 1] && hatless; ++j)
            for (uint32_t k = s->lo[j]; k < s->hi[j] && hatless; ++k) hatless = s->rem[k] == 0;
        bool cut = false;
        for (uint32_t k = s->sl[b]; k + 1 < s->su[b]; ++k) cut |= --s->cuts[k] == 0;
        if (!cut) {
            /* Past a tight node the order among equal offsets is not by rank: no rule. */
            out = node(s, lo, hi, first, count, at, tight ? NONE : rank);
        } else {
            /* Check the whole partition from `at` first: the parts start again from 0. */
            size_t ignored;
            uint64_t unused;
            bool feasible = infer(s, lo, hi, first, count, at, false, &ignored, &unused);
            out = s->oom || s->timed_out ? stopped_k
                  : feasible             ? solve_range(s, lo, hi, first, count)
                                         : not_found_k;
        }
        for (uint32_t j = s->sf[b + 1]; j-- > s->sf[b];)
            for (uint32_t k = s->hi[j]; k-- > s->lo[j];) {
                s->raw[k] = s->undo[--s->undo_count];
                s->rem[k] += s->size[b];
            }
        for (uint32_t k = s->sl[b]; k + 1 < s->su[b]; ++k) ++s->cuts[k];
        s->placed[b] = false;
        /* A hatless b sits where it must in every completion, and placing it first changed
         * nothing for the others: if that failed, so does every other candidate here. */
        if (out != not_found_k || hatless) break;
    }
    s->cands_count = top;
    return out;
}

/* The tree recurses once per placement: past ARP_SEARCH_DEPTH levels it stops (the best so far
 * stands) rather than risk the caller's stack. */
#define ARP_SEARCH_DEPTH 8192

static outcome_t node(search_t *s, uint32_t lo, uint32_t hi, size_t first, size_t count,
                      uint64_t base, size_t last) {
    if (s->depth >= ARP_SEARCH_DEPTH) {
        s->too_deep = true;
        return stopped_k;
    }
    ++s->depth;
    outcome_t out = node_body(s, lo, hi, first, count, base, last);
    --s->depth;
    return out;
}

/* Split [lo, hi) at every boundary no unplaced buffer spans; solve each side from offset 0
 * (buffers on either side share no time, so the sides are independent). */
static outcome_t solve_range(search_t *s, uint32_t lo, uint32_t hi, size_t first, size_t count) {
    size_t top = s->members_count;
    if (!grow((void **)&s->members, &s->members_capacity, top + count, sizeof *s->members) ||
        !grow((void **)&s->saved, &s->saved_capacity, top + count, sizeof *s->saved) ||
        !grow((void **)&s->keys, &s->keys_capacity, count, sizeof *s->keys)) {
        s->oom = true;
        return stopped_k;
    }
    outcome_t out = found_k;
    for (uint32_t from = lo; from < hi && out == found_k;) {
        uint32_t to = from + 1;
        while (to < hi && s->cuts[to - 1] > 0) ++to;
        size_t start = s->members_count;
        for (size_t i = first; i < first + count; ++i) {
            uint32_t b = s->members[i];
            if (!s->placed[b] && s->sl[b] >= from && s->su[b] <= to)
                s->members[s->members_count++] = b;
        }
        size_t part = s->members_count - start;
        if (part) {
            rank_partition(s, start, part);
            out = node(s, from, to, start, part, 0, NONE);
            for (size_t i = start; i < start + part; ++i) s->rank[s->members[i]] = s->saved[i];
        }
        s->members_count = start;
        from = to;
    }
    s->members_count = top;
    return out;
}

/* The problem cut into the sweep's sections once; each run ranks the buffers in its order. */
struct arp_search_t {
    size_t m, sections;
    size_t *index; /* the index (among the problem's buffers) of each buffer that holds bytes */
    uint64_t *size, *align, *width, *area;
    uint32_t *lo, *hi;                /* the hull of its sections */
    uint32_t *sf, *span_lo, *span_hi; /* its spans [sf[k], sf[k + 1]): one row's sections each */
    uint64_t *rem;                    /* per section: bytes live */
    uint64_t *pin;                    /* NULL, or each buffer's fixed offset (UINT64_MAX: free) */
    uint64_t probe_cap;               /* 0, or the most nodes a run enters (failing ones too) */
};

void arp_search_free(arp_search_t *p) {
    if (!p) return;
    free(p->index), free(p->size), free(p->align), free(p->width), free(p->area);
    free(p->lo), free(p->hi), free(p->sf), free(p->span_lo), free(p->span_hi), free(p->rem);
    free(p->pin);
    free(p);
}

/* Lifetime times size, saturated (times reach 2^63 and sizes 2^56): only an order's key. */
static uint64_t area_of(uint64_t width, uint64_t size) {
    uint64_t area;
    return __builtin_mul_overflow(width, size, &area) ? UINT64_MAX : area;
}

arp_search_t *arp_search_make(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                              arp_sweep_t const *sweep, uint64_t alignment) {
    arp_search_t *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    size_t m = 0, spans = 0;
    for (size_t b = 0; b < g->count; ++b)
        if (arp_place_group_holds(g, b)) ++m, spans += g->start[b + 1] - g->start[b];
    p->m = m;
    p->index = malloc((m + 1) * sizeof *p->index);
    p->lo = malloc((m + 1) * sizeof *p->lo);
    p->hi = malloc((m + 1) * sizeof *p->hi);
    p->sf = malloc((m + 1) * sizeof *p->sf);
    p->span_lo = malloc((spans + 1) * sizeof *p->span_lo);
    p->span_hi = malloc((spans + 1) * sizeof *p->span_hi);
    p->size = malloc((m + 1) * sizeof *p->size);
    p->align = malloc((m + 1) * sizeof *p->align);
    p->width = malloc((m + 1) * sizeof *p->width);
    p->area = malloc((m + 1) * sizeof *p->area);
    p->sections = sweep->sections;
    p->rem = malloc((p->sections + 1) * sizeof *p->rem);
    if (!p->index || !p->lo || !p->hi || !p->sf || !p->span_lo || !p->span_hi || !p->size ||
        !p->align || !p->width || !p->area || !p->rem) {
        arp_search_free(p);
        return NULL;
    }
    memcpy(p->rem, sweep->load, p->sections * sizeof *p->rem);
    p->rem[p->sections] = 0;
    p->sf[m] = (uint32_t)spans;
    for (size_t b = 0, k = 0, span = 0; b < g->count; ++b) {
        if (!arp_place_group_holds(g, b)) continue;
        ar_place_buffer_t const *head = &problem->buffers[g->first[b]];
        p->index[k] = b;
        p->size[k] = head->size;
        p->align[k] = arp_place_alignment(head, alignment);
        p->width[k] = g->width[b];
        p->area[k] = area_of(p->width[k], head->size);
        p->sf[k] = (uint32_t)span;
        for (size_t j = g->start[b]; j < g->start[b + 1]; ++j, ++span) {
            p->span_lo[span] = sweep->row_lo[g->rows[j]];
            p->span_hi[span] = sweep->row_hi[g->rows[j]];
        }
        p->lo[k] = p->span_lo[p->sf[k]];
        p->hi[k] = p->span_hi[span - 1];
        ++k;
    }
    return p;
}

/* One run: a placement within `limit` in at[] (per buffer; found_k), none exists
 * (not_found_k), or the budget or the deadline ran out first (stopped_k). */
static outcome_t run(arp_search_t const *p, preorder_t order, uint64_t salt, uint64_t limit,
                     uint64_t budget, arp_clock_t *clock, double deadline, uint64_t *at,
                     uint64_t *nodes, bool *oom, bool *too_deep, uint64_t *tight_nodes) {
    search_t s = {.m = p->m,
                  .sections = p->sections,
                  .orig = p->index,
                  .size = p->size,
                  .align = p->align,
                  .width = p->width,
                  .area = p->area,
                  .sl = p->lo,
                  .su = p->hi,
                  .sf = p->sf,
                  .lo = p->span_lo,
                  .hi = p->span_hi,
                  .several = p->sf[p->m] > p->m,
                  .pin = p->pin,
                  .probe_cap = p->probe_cap ? p->probe_cap : UINT64_MAX,
                  .limit = limit,
                  .budget = budget,
                  .clock = clock,
                  .deadline = deadline,
                  .order = order,
                  .salt = salt};
    size_t m = p->m;
    outcome_t out = stopped_k;
    s.rank = calloc(m + 1, sizeof *s.rank);
    s.solution = malloc((m + 1) * sizeof *s.solution);
    s.floor = malloc((m + 1) * sizeof *s.floor);
    s.placed = calloc(m + 1, sizeof *s.placed);
    s.raw = calloc(p->sections + 1, sizeof *s.raw);
    s.rem = malloc((p->sections + 1) * sizeof *s.rem);
    s.infl = malloc((p->sections + 1) * sizeof *s.infl);
    s.cuts = calloc(p->sections + 1, sizeof *s.cuts);
    s.cover = malloc((p->sections + 1) * sizeof *s.cover);
    s.head = malloc((p->sections + 1) * sizeof *s.head);
    s.reach = malloc(p->sections + 2);
    s.members = malloc((m + 1) * sizeof *s.members);
    s.members_capacity = m + 1;
    if (!s.rank || !s.solution || !s.floor || !s.placed || !s.raw || !s.rem || !s.infl || !s.cuts ||
        !s.cover || !s.head || !s.reach || !s.members) {
        s.oom = true;
        goto done;
    }
    memcpy(s.rem, p->rem, (p->sections + 1) * sizeof *s.rem);
    s.max_align = 1;
    for (size_t b = 0; b < m; ++b)
        if (s.align[b] > s.max_align) s.max_align = s.align[b];
    /* The boundaries each buffer spans, by differences and a prefix sum. */
    for (size_t b = 0; b < m; ++b) {
        if (s.sl[b] + 1 < s.su[b]) ++s.cuts[s.sl[b]], --s.cuts[s.su[b] - 1];
        s.members[b] = (uint32_t)b; /* solve_range ranks them */
    }
    for (size_t k = 1; k < p->sections; ++k) s.cuts[k] += s.cuts[k - 1];
    s.members_count = m;
    out = solve_range(&s, 0, (uint32_t)p->sections, 0, m);
    if (out == found_k)
        for (size_t b = 0; b < m; ++b) at[s.orig[b]] = s.solution[b];
done:
    *nodes += s.nodes;
    *tight_nodes += s.tight_nodes;
    *oom = s.oom;
    *too_deep = s.too_deep;
    free(s.rank), free(s.solution), free(s.floor), free(s.placed), free(s.raw), free(s.rem);
    free(s.infl), free(s.cuts), free(s.cover), free(s.members), free(s.cands), free(s.undo),
        free(s.saved);
    free(s.keys), free(s.head), free(s.reach), free(s.piece_end), free(s.piece_next);
    return s.oom ? stopped_k : out;
}

/* Is there a placement within `limit`? The three orders take turns, each budget twice the
 * last (MiniMalloc's round robin), up to `most` nodes a run; a run that ends without running
 * out decides. Where most nodes so far branched on tight sections, the choice among their
 * candidates is heavy-tailed (one wrong early choice is refuted only after a huge subtree,
 * another order finds a placement at once), so each round also makes as many short runs (the
 * first budget) with those ties broken by a seeded hash as its long runs had budgets:
 * restarts, about half the work. */
arp_result_t arp_search_decide(arp_search_t *p, uint64_t limit, arp_clock_t *clock, double deadline,
                               uint64_t most, uint64_t *at, uint64_t *nodes) {
    uint64_t first = 2 * (p->m + 1), salt = 0, tight = 0, start = *nodes;
    bool oom = false;
    for (uint64_t budget = first; budget <= most; budget *= 2) {
        for (int o = 0; o < preorder_count_k; ++o) {
            bool too_deep = false;
            outcome_t out = run(p, (preorder_t)o, 0, limit, budget, clock, deadline, at, nodes,
                                &oom, &too_deep, &tight);
            if (oom) return arp_oom_k;
            if (too_deep) return stopped_k; /* a larger budget would stop there too */
            if (out != stopped_k) return out;
            if (arp_clock_past(clock, deadline)) return stopped_k;
        }
        for (uint64_t runs = budget / first; 2 * tight > *nodes - start && runs-- > 0;) {
            bool too_deep = false;
            outcome_t out = run(p, wat_k, ++salt, limit, first, clock, deadline, at, nodes, &oom,
                                &too_deep, &tight);
            if (oom) return arp_oom_k;
            if (out != stopped_k) return out;
            if (arp_clock_past(clock, deadline)) return stopped_k;
        }
        if (budget > UINT64_MAX / 4) return stopped_k;
    }
    return stopped_k;
}

arp_result_t arp_search_decide_rows(ar_place_problem_t const *problem, uint64_t const *pin,
                                    uint64_t limit, arp_clock_t *clock, double deadline,
                                    uint64_t most, uint64_t *offsets, uint64_t *nodes) {
    arp_place_groups_t g;
    char message[64];
    if (arp_place_groups_make(problem, &g, message, sizeof message) != ar_status_success_k)
        return arp_oom_k; /* rows of one buffer each: only memory can fail */
    arp_sweep_t sweep;
    arp_search_t *p = NULL;
    uint64_t *at = calloc(g.count + 1, sizeof *at);
    arp_result_t answer = arp_oom_k;
    if (at && arp_sweep_make(problem, 0, &sweep) == ar_status_success_k) {
        p = arp_search_make(problem, &g, &sweep, 0);
        arp_sweep_free(&sweep);
    }
    if (p) p->pin = malloc((p->m + 1) * sizeof *p->pin);
    if (p && p->pin) {
        for (size_t k = 0; k < p->m; ++k) p->pin[k] = pin[p->index[k]];
        p->probe_cap = most < UINT64_MAX / 8 ? 8 * most : UINT64_MAX; /* failing nodes too */
        answer = arp_search_decide(p, limit, clock, deadline, most, at, nodes);
        if (answer == arp_found_k) arp_place_groups_spread(problem, &g, at, offsets);
    }
    arp_search_free(p);
    free(at);
    arp_place_groups_free(&g);
    return answer;
}
