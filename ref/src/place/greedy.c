/* Placement in an order: each buffer in turn at the lowest gap the placed buffers live with it
 * leave (greedy-by-size, greedy-by-breadth, first-fit, the incumbents' orders) or the tightest
 * (best-fit, else on top). The gaps come from gaps.c: O(log T) set operations a buffer plus
 * the pieces a gap search passes, so an order costs O(n log n) plus those where a scan of the
 * placed buffers cost O(n^2); the orders are sorts (greedy-by-breadth's a range minimum per
 * buffer). Sorts are made stable by the index of a buffer's first row, so a strategy gives the
 * same offsets on every platform. A buffer of several rows is placed whole, clear of
 * everything live with any of its rows; with one row per buffer every order and gap is what
 * it was per row. Every ARP_CLOCK_EVERY buffers the deadline is read: past it, the rest go on
 * top of everything (O(1) each), or the order is given up. */
#include <stdlib.h>
#include <string.h>

#include "place/engine.h"

/* Each buffer's spans, the sections of its timed rows (the sweep's): lo[start[b], start[b+1]). */
typedef struct spans_t {
    uint32_t *lo, *hi;
} spans_t;

static bool spans_make(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                       arp_sweep_t const *sweep, spans_t *s) {
    (void)problem;
    size_t rows = g->start[g->count];
    s->lo = malloc((rows + 1) * sizeof *s->lo);
    s->hi = malloc((rows + 1) * sizeof *s->hi);
    if (!s->lo || !s->hi) {
        free(s->lo), free(s->hi);
        return false;
    }
    for (size_t j = 0; j < rows; ++j) {
        s->lo[j] = sweep->row_lo[g->rows[j]];
        s->hi[j] = sweep->row_hi[g->rows[j]];
    }
    return true;
}

/* Place buffers in `order` (count of them), each by the lowest or the tightest gap, at[] per
 * buffer. The clock is read every ARP_CLOCK_EVERY buffers (clock NULL: never; nor below
 * ARP_CLOCK_BUFFERS buffers). Past `deadline`, without `finish`: arp_stopped_k; with it the
 * rest are stacked on the highest top so far, O(1) each (valid whatever their lifetimes; the
 * skyline, O(log T) each, was tried: at a third of a gap search's cost it finished no sooner
 * and came out 1.4-17x the bound on real traces). */
static arp_result_t place_in_order(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                                   arp_sweep_t const *sweep, size_t const *order, size_t count,
                                   bool tightest, uint64_t alignment, arp_clock_t *clock,
                                   double deadline, bool finish, uint64_t *at, uint64_t *work) {
    if (!tightest && arp_starts_apply(problem, g, order, count)) /* a sweep: starts.c */
        return arp_starts_place(problem, g, order, count, alignment, clock, deadline, finish, at,
                                work);
    spans_t s;
    if (!spans_make(problem, g, sweep, &s)) return arp_oom_k;
    arp_gaps_t *gaps = arp_gaps_make(sweep->sections);
    arp_result_t out = gaps ? arp_found_k : arp_oom_k;
    bool stacking = false;
    uint64_t top = 0; /* the highest top so far */
    for (size_t k = 0; k < count && out == arp_found_k; ++k) {
        size_t b = order[k];
        uint32_t const *lo = s.lo + g->start[b], *hi = s.hi + g->start[b];
        size_t spans = g->start[b + 1] - g->start[b];
        uint64_t size = g->hull[b].size;
        uint64_t align = arp_place_alignment(&problem->buffers[g->first[b]], alignment);
        if (!arp_order_goes_on(clock, count, k, deadline, finish, &stacking)) {
            out = arp_stopped_k;
            break;
        }
        if (stacking) {
            at[b] = arp_place_align_up(top, align);
        } else {
            at[b] = tightest ? arp_gaps_tightest(gaps, lo, hi, spans, size, align)
                             : arp_gaps_lowest(gaps, lo, hi, spans, size, align);
            arp_gaps_add(gaps, lo, hi, spans, at[b], size);
            if (arp_gaps_failed(gaps)) out = arp_oom_k;
        }
        if (at[b] + size > top) top = at[b] + size;
    }
    if (work && gaps) *work += arp_gaps_work(gaps);
    arp_gaps_free(gaps);
    free(s.lo), free(s.hi);
    return out;
}

/* The height of per-buffer offsets: max over the buffers that hold bytes of offset + size. */
static uint64_t height_of(arp_place_groups_t const *g, uint64_t const *at) {
    uint64_t height = 0;
    for (size_t b = 0; b < g->count; ++b)
        if (arp_place_group_holds(g, b) && at[b] + g->hull[b].size > height)
            height = at[b] + g->hull[b].size;
    return height;
}

/* Orders are sorts of keys (no global context, so strategies run on many threads at once):
 * ascending (a, b, c, index); callers negate what they want non-increasing. */
typedef struct order_key_t {
    uint64_t a, b, c;
    size_t index;
} order_key_t;

static int by_key(void const *x, void const *y) {
    order_key_t const *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->c != q->c) return p->c < q->c ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

/* Sort order[0, count) (buffers) by the keys `make` gives each. */
static void sort_by(arp_place_groups_t const *g, size_t *order, size_t count, order_key_t *keys,
                    order_key_t (*make)(arp_place_groups_t const *, size_t)) {
    for (size_t k = 0; k < count; ++k) keys[k] = make(g, order[k]);
    qsort(keys, count, sizeof *keys, by_key);
    for (size_t k = 0; k < count; ++k) order[k] = keys[k].index;
}

static order_key_t size_key(arp_place_groups_t const *g, size_t b) {
    return (order_key_t){~g->hull[b].size, 0, 0, b};
}

static order_key_t size_length_key(arp_place_groups_t const *g, size_t b) {
    return (order_key_t){~g->hull[b].size, ~g->width[b], 0, b};
}

static order_key_t start_key(arp_place_groups_t const *g, size_t b) {
    return (order_key_t){g->hull[b].lower, ~g->hull[b].size, 0, b};
}

typedef struct point_t {
    uint64_t time, breadth;
    uint32_t section;
} point_t;

static int by_breadth(void const *a, void const *b) {
    point_t const *x = a, *y = b;
    if (x->breadth != y->breadth) return x->breadth > y->breadth ? -1 : 1;
    return x->time < y->time ? -1 : x->time > y->time;
}

/* Greedy by breadth: the time points (distinct starts of rows, where the live set grows) by
 * non-increasing breadth (the bytes live there: the sweep's load of the section starting
 * there); at each, its live unplaced buffers by non-increasing size. A buffer goes at the
 * first point in that order where it lives: the least rank of a point in its rows' sections,
 * a range minimum over a tree of the points' ranks; then one sort by (rank, size). */
static arp_result_t breadth_order(arp_place_groups_t const *g, arp_sweep_t const *sweep,
                                  size_t *order, size_t count, order_key_t *keys) {
    size_t leaves = 1;
    while (leaves < sweep->sections) leaves *= 2;
    point_t *points = malloc((sweep->sections + 1) * sizeof *points);
    uint32_t *rank = malloc(2 * leaves * sizeof *rank);
    bool *starts = calloc(sweep->sections + 1, sizeof *starts);
    if (!points || !rank || !starts) {
        free(points), free(rank), free(starts);
        return arp_oom_k;
    }
    for (size_t k = 0; k < count; ++k)
        for (size_t j = g->start[order[k]]; j < g->start[order[k] + 1]; ++j)
            starts[sweep->row_lo[g->rows[j]]] = true;
    size_t times = 0;
    for (size_t k = 0; k < sweep->sections; ++k)
        if (starts[k]) points[times++] = (point_t){sweep->times[k], sweep->load[k], (uint32_t)k};
    qsort(points, times, sizeof *points, by_breadth);
    for (size_t v = 0; v < 2 * leaves; ++v) rank[v] = UINT32_MAX;
    for (size_t p = 0; p < times; ++p) rank[leaves + points[p].section] = (uint32_t)p;
    for (size_t v = leaves - 1; v > 0; --v)
        rank[v] = rank[2 * v] < rank[2 * v + 1] ? rank[2 * v] : rank[2 * v + 1];
    for (size_t k = 0; k < count; ++k) {
        size_t b = order[k];
        uint32_t least = UINT32_MAX;
        for (size_t j = g->start[b]; j < g->start[b + 1]; ++j) {
            size_t l = sweep->row_lo[g->rows[j]] + leaves, r = sweep->row_hi[g->rows[j]] + leaves;
            for (; l < r; l >>= 1, r >>= 1) {
                if ((l & 1) && rank[l] < least) least = rank[l];
                if ((r & 1) && rank[r - 1] < least) least = rank[r - 1];
                l += l & 1, r -= r & 1;
            }
        }
        keys[k] = (order_key_t){least, ~g->hull[b].size, 0, b};
    }
    qsort(keys, count, sizeof *keys, by_key);
    for (size_t k = 0; k < count; ++k) order[k] = keys[k].index;
    free(points), free(rank), free(starts);
    return arp_found_k;
}

/* The buffers that hold bytes, in index order; at[] zeroed. NULL when out of memory. */
static size_t *held_buffers(arp_place_groups_t const *g, uint64_t *at, size_t *count) {
    size_t *held = malloc((g->count + 1) * sizeof *held);
    *count = 0;
    for (size_t b = 0; held && b < g->count; ++b) {
        at[b] = 0;
        if (arp_place_group_holds(g, b)) held[(*count)++] = b;
    }
    return held;
}

/* Orders by one key each, ties on the buffer: the incumbents' orders besides the heuristics'.
 * `peak` is the sweep's time of the most load. */
static uint64_t area_key(arp_place_groups_t const *g, size_t b) {
    return ~(uint64_t)((double)g->hull[b].size * (double)g->width[b]);
}

static order_key_t keyed(arp_place_groups_t const *g, size_t b, arp_order_t order, uint64_t peak) {
    bool at_peak = g->hull[b].lower <= peak && peak < g->hull[b].upper;
    uint64_t key = order == arp_order_area_k         ? area_key(g, b)
                   : order == arp_order_start_only_k ? g->hull[b].lower
                   : at_peak                         ? ~g->width[b] >> 1
                   : order == arp_order_peak_size_k  ? (uint64_t)1 << 63 | ~g->hull[b].size >> 1
                                                     : (uint64_t)1 << 63 | area_key(g, b) >> 1;
    return (order_key_t){key, 0, 0, b};
}

arp_result_t arp_greedy(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                        arp_sweep_t const *sweep, arp_order_t how, bool tightest,
                        uint64_t alignment, arp_clock_t *clock, double deadline, uint64_t *offsets,
                        uint64_t *work) {
    size_t n = problem->count, count = 0;
    uint64_t *at = malloc((g->count + 1) * sizeof *at);
    size_t *held = at ? held_buffers(g, at, &count) : NULL;
    size_t *order = malloc((g->count + 1) * sizeof *order);
    order_key_t *keys = malloc((n + 1) * sizeof *keys);
    if (!at || !held || !order || !keys) {
        free(at), free(held), free(order), free(keys);
        return arp_oom_k;
    }
    arp_result_t out = arp_found_k;
    memcpy(order, held, count * sizeof *order);
    uint64_t peak = sweep->sections ? sweep->times[sweep->peak] : 0;
    switch (how) {
    case arp_order_breadth_k: out = breadth_order(g, sweep, order, count, keys); break;
    case arp_order_start_k: sort_by(g, order, count, keys, start_key); break;
    case arp_order_size_length_k: sort_by(g, order, count, keys, size_length_key); break;
    case arp_order_size_k: sort_by(g, order, count, keys, size_key); break;
    default:
        for (size_t k = 0; k < count; ++k) keys[k] = keyed(g, order[k], how, peak);
        qsort(keys, count, sizeof *keys, by_key);
        for (size_t k = 0; k < count; ++k) order[k] = keys[k].index;
        break;
    }
    if (out == arp_found_k)
        out = place_in_order(problem, g, sweep, order, count, tightest, alignment, clock, deadline,
                             true, at, work);
    if (out == arp_found_k) arp_place_groups_spread(problem, g, at, offsets);
    free(at), free(held), free(order), free(keys);
    return out;
}

/* Lowest-gap placement in a perturbed order: by size scaled by a random factor in [1/2, 3/2)
 * (seeded), or by a random priority mixed with the lifetime. The least height over all orders
 * is the optimum (gravity), so many perturbed orders improve the search's incumbent. */
arp_result_t arp_greedy_perturbed(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                                  arp_sweep_t const *sweep, uint64_t alignment, unsigned variant,
                                  arp_rng_t *rng, arp_clock_t *clock, double deadline,
                                  uint64_t *offsets) {
    size_t m = g->count, count = 0;
    size_t *order = malloc((m + 1) * sizeof *order);
    order_key_t *keys = malloc((m + 1) * sizeof *keys);
    uint64_t *at = malloc((m + 1) * sizeof *at);
    if (!order || !keys || !at) {
        free(order), free(keys), free(at);
        return arp_oom_k;
    }
    for (size_t b = 0; b < m; ++b) {
        at[b] = 0;
        if (!arp_place_group_holds(g, b)) continue;
        uint64_t factor = 512 + (arp_rng_next(rng) >> 54); /* [512, 1536) / 1024 */
        double weight = (double)g->hull[b].size * (double)factor;
        if (variant & 1) weight *= (double)g->width[b];
        keys[count] = (order_key_t){~(uint64_t)(weight / 1024.0), 0, 0, b};
        order[count++] = b;
    }
    qsort(keys, count, sizeof *keys, by_key);
    for (size_t k = 0; k < count; ++k) order[k] = keys[k].index;
    arp_result_t out = place_in_order(problem, g, sweep, order, count, (variant & 2) != 0,
                                      alignment, clock, deadline, false, at, NULL);
    if (out == arp_found_k) arp_place_groups_spread(problem, g, at, offsets);
    free(order), free(keys), free(at);
    return out;
}

/* Local search over orders, from a valid placement: the order of its offsets (placed at lowest
 * gaps it is no higher), then moves of a buffer on top (offset + size = height), or any buffer
 * one time in four, to an earlier random place in the order, kept when the height does not
 * rise. Stops at `goal`, after `moves` moves, or at `deadline`; offsets[] ends at the best. */
arp_result_t arp_greedy_improve(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                                arp_sweep_t const *sweep, uint64_t alignment, uint64_t goal,
                                uint64_t moves, arp_clock_t *clock, double deadline, arp_rng_t *rng,
                                uint64_t *offsets) {
    size_t m = g->count, count = 0;
    size_t *order = calloc(m + 1, sizeof *order), *trial_order = calloc(m + 1, sizeof *order);
    order_key_t *keys = malloc((m + 1) * sizeof *keys);
    uint64_t *at = malloc((m + 1) * sizeof *at), *trial = malloc((m + 1) * sizeof *trial);
    if (!order || !trial_order || !keys || !at || !trial) {
        free(order), free(trial_order), free(keys), free(at), free(trial);
        return arp_oom_k;
    }
    for (size_t b = 0; b < m; ++b) {
        at[b] = trial[b] = offsets[g->first[b]];
        if (arp_place_group_holds(g, b)) keys[count++] = (order_key_t){at[b], 0, 0, b};
    }
    qsort(keys, count, sizeof *keys, by_key);
    for (size_t k = 0; k < count; ++k) order[k] = keys[k].index;
    arp_result_t out = place_in_order(problem, g, sweep, order, count, false, alignment, clock,
                                      deadline, false, trial, NULL);
    uint64_t best = height_of(g, at), height = height_of(g, trial);
    if (out == arp_found_k && height <= best) {
        memcpy(at, trial, m * sizeof *at);
        best = height;
    }
    for (uint64_t move = 0;
         out == arp_found_k && count > 1 && best > goal && move < moves && !arp_clock_dead(clock) &&
         ((move & 15) || !arp_clock_past(clock, deadline));
         ++move) {
        uint64_t state = arp_rng_next(rng);
        size_t from = (size_t)(state % count);
        if (state >> 62) { /* three times in four: a buffer on top */
            size_t tops = 0;
            for (size_t k = 0; k < count; ++k)
                if (at[order[k]] + g->hull[order[k]].size == best && (state >> 20) % ++tops == 0)
                    from = k;
        }
        if (from == 0) continue;
        size_t to = (size_t)((state >> 33) % from);
        memcpy(trial_order, order, count * sizeof *order);
        size_t moved = trial_order[from];
        memmove(trial_order + to + 1, trial_order + to, (from - to) * sizeof *order);
        trial_order[to] = moved;
        out = place_in_order(problem, g, sweep, trial_order, count, false, alignment, clock,
                             deadline, false, trial, NULL);
        height = height_of(g, trial);
        if (out == arp_found_k && height <= best) {
            memcpy(order, trial_order, count * sizeof *order);
            memcpy(at, trial, m * sizeof *at);
            best = height;
        }
    }
    /* A move the deadline cut short changes nothing: at[] is the best kept. */
    if (out != arp_oom_k) arp_place_groups_spread(problem, g, at, offsets);
    free(order), free(trial_order), free(keys), free(at), free(trial);
    return out == arp_oom_k ? out : arp_found_k;
}
