/* The four heuristics. Each is an order over the buffers and a rule for choosing among the
 * gaps that the already placed buffers live at the same time leave: the lowest gap that fits
 * (greedy-by-size, greedy-by-breadth, first-fit) or the tightest (best-fit, else on top). The
 * placed buffers, kept in offset order, are scanned once per buffer, so a strategy costs
 * O(n^2) at worst and needs O(n) memory: no caps. Sorts are made stable by the index of a
 * buffer's first row, so a strategy gives the same offsets on every platform. A buffer of
 * several rows is placed whole, clear of everything live with any of its rows (groups.c tells
 * which meet); with one row per buffer every order and gap is what it was per row. */
#include <stdlib.h>
#include <string.h>

#include "place/engine.h"

/* Place buffers in `order` (count of them), each by the lowest or the tightest gap, at[] per
 * buffer. The placed buffers are kept sorted by offset (binary search and a move), so the
 * conflicts of a new buffer are met in offset order by one scan that skips those not live with
 * it: O(n) per buffer (times the rows of a buffer of several). */
static ar_status_t place_in_order(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                                  size_t const *order, size_t count, bool tightest,
                                  uint64_t alignment, uint64_t *at) {
    size_t *placed = malloc((count + 1) * sizeof *placed);
    if (!placed) return ar_status_out_of_memory_k;
    for (size_t k = 0; k < count; ++k) {
        size_t i = order[k];
        uint64_t size = g->hull[i].size;
        uint64_t align = arp_place_alignment(&problem->buffers[g->first[i]], alignment);
        uint64_t candidate = 0, best = UINT64_MAX, best_gap = UINT64_MAX;
        for (size_t j = 0; j < k; ++j) {
            size_t other = placed[j];
            if (!arp_place_groups_meet(problem, g, other, i)) continue;
            uint64_t start = at[other], end = start + g->hull[other].size;
            if (candidate + size <= start) {
                if (!tightest) break;
                uint64_t gap = start - candidate;
                if (gap < best_gap) best_gap = gap, best = candidate;
            }
            if (end > candidate) candidate = arp_place_align_up(end, align);
        }
        /* candidate: the lowest gap (lowest rule), or the top of the conflicts. */
        uint64_t here = tightest && best != UINT64_MAX ? best : candidate;
        at[i] = here;
        size_t lo = 0, hi = k; /* insert after every placed offset <= here */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (at[placed[mid]] <= here)
                lo = mid + 1;
            else
                hi = mid;
        }
        memmove(placed + lo + 1, placed + lo, (k - lo) * sizeof *placed);
        placed[lo] = i;
    }
    free(placed);
    return ar_status_success_k;
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

/* Whether buffer b has a row live at t. */
static bool live_at(ar_place_problem_t const *problem, arp_place_groups_t const *g, size_t b,
                    uint64_t t) {
    if (!(g->hull[b].lower <= t && t < g->hull[b].upper)) return false;
    for (size_t k = g->start[b]; k < g->start[b + 1]; ++k) {
        ar_place_buffer_t const *row = &problem->buffers[g->rows[k]];
        if (row->lower <= t && t < row->upper) return true;
    }
    return false;
}

typedef struct point_t {
    uint64_t time, breadth;
} point_t;

static int by_breadth(void const *a, void const *b) {
    point_t const *x = a, *y = b;
    if (x->breadth != y->breadth) return x->breadth > y->breadth ? -1 : 1;
    return x->time < y->time ? -1 : x->time > y->time;
}

/* Greedy by breadth: the time points (distinct starts of rows, where the live set grows) by
 * non-increasing breadth (the bytes live there: the sweep's load of the section starting
 * there); at each, its live unplaced buffers by non-increasing size. The live sets come from a
 * scan per point: O(n T). */
static ar_status_t breadth_order(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                                 arp_sweep_t const *sweep, size_t *order, size_t count,
                                 size_t const *held, order_key_t *keys) {
    size_t rows = 0;
    for (size_t k = 0; k < count; ++k) rows += g->start[held[k] + 1] - g->start[held[k]];
    point_t *points = malloc((rows + 1) * sizeof *points);
    bool *starts = calloc(sweep->sections + 1, sizeof *starts);
    bool *done = calloc(g->count + 1, sizeof *done);
    if (!points || !starts || !done) {
        free(points), free(starts), free(done);
        return ar_status_out_of_memory_k;
    }
    for (size_t k = 0; k < count; ++k)
        for (size_t j = g->start[held[k]]; j < g->start[held[k] + 1]; ++j)
            starts[sweep->row_lo[g->rows[j]]] = true;
    size_t times = 0;
    for (size_t k = 0; k < sweep->sections; ++k)
        if (starts[k]) points[times++] = (point_t){sweep->times[k], sweep->load[k]};
    qsort(points, times, sizeof *points, by_breadth);
    size_t filled = 0;
    for (size_t p = 0; p < times && filled < count; ++p) {
        uint64_t t = points[p].time;
        size_t first = filled;
        for (size_t k = 0; k < count; ++k) {
            size_t b = held[k];
            if (!done[b] && live_at(problem, g, b, t)) {
                done[b] = true;
                order[filled++] = b;
            }
        }
        sort_by(g, order + first, filled - first, keys, size_key);
    }
    free(points), free(starts), free(done);
    return ar_status_success_k;
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
                        uint64_t alignment, arp_clock_t *clock, double deadline,
                        uint64_t *offsets) {
    (void)clock, (void)deadline;
    size_t n = problem->count, count = 0;
    uint64_t *at = malloc((g->count + 1) * sizeof *at);
    size_t *held = at ? held_buffers(g, at, &count) : NULL;
    size_t *order = malloc((g->count + 1) * sizeof *order);
    order_key_t *keys = malloc((n + 1) * sizeof *keys);
    if (!at || !held || !order || !keys) {
        free(at), free(held), free(order), free(keys);
        return arp_oom_k;
    }
    ar_status_t status = ar_status_success_k;
    memcpy(order, held, count * sizeof *order);
    uint64_t peak = sweep->sections ? sweep->times[sweep->peak] : 0;
    switch (how) {
    case arp_order_breadth_k:
        status = breadth_order(problem, g, sweep, order, count, held, keys);
        break;
    case arp_order_start_k: sort_by(g, order, count, keys, start_key); break;
    case arp_order_size_length_k: sort_by(g, order, count, keys, size_length_key); break;
    case arp_order_size_k: sort_by(g, order, count, keys, size_key); break;
    default:
        for (size_t k = 0; k < count; ++k) keys[k] = keyed(g, order[k], how, peak);
        qsort(keys, count, sizeof *keys, by_key);
        for (size_t k = 0; k < count; ++k) order[k] = keys[k].index;
        break;
    }
    if (status == ar_status_success_k)
        status = place_in_order(problem, g, order, count, tightest, alignment, at);
    if (status == ar_status_success_k) arp_place_groups_spread(problem, g, at, offsets);
    free(at), free(held), free(order), free(keys);
    return status == ar_status_success_k ? arp_found_k : arp_oom_k;
}

/* Lowest-gap placement in a perturbed order: by size scaled by a random factor in [1/2, 3/2)
 * (seeded), or by a random priority mixed with the lifetime. The least height over all orders
 * is the optimum (gravity), so many perturbed orders improve the search's incumbent. */
arp_result_t arp_greedy_perturbed(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                                  uint64_t alignment, unsigned variant, arp_rng_t *rng,
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
    ar_status_t status =
        place_in_order(problem, g, order, count, (variant & 2) != 0, alignment, at);
    if (status == ar_status_success_k) arp_place_groups_spread(problem, g, at, offsets);
    free(order), free(keys), free(at);
    return status == ar_status_success_k ? arp_found_k : arp_oom_k;
}

/* Local search over orders, from a valid placement: the order of its offsets (placed at lowest
 * gaps it is no higher), then moves of a buffer on top (offset + size = height), or any buffer
 * one time in four, to an earlier random place in the order, kept when the height does not
 * rise. Stops at `goal`, after `moves` moves, or at `deadline`; offsets[] ends at the best. */
arp_result_t arp_greedy_improve(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                                uint64_t alignment, uint64_t goal, uint64_t moves,
                                arp_clock_t *clock, double deadline, arp_rng_t *rng,
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
    ar_status_t status = place_in_order(problem, g, order, count, false, alignment, trial);
    uint64_t best = height_of(g, at), height = height_of(g, trial);
    if (status == ar_status_success_k && height <= best) {
        memcpy(at, trial, m * sizeof *at);
        best = height;
    }
    for (uint64_t move = 0; status == ar_status_success_k && count > 1 && best > goal &&
                            move < moves && ((move & 15) || arp_clock_now(clock) < deadline);
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
        status = place_in_order(problem, g, trial_order, count, false, alignment, trial);
        height = height_of(g, trial);
        if (status == ar_status_success_k && height <= best) {
            memcpy(order, trial_order, count * sizeof *order);
            memcpy(at, trial, m * sizeof *at);
            best = height;
        }
    }
    if (status == ar_status_success_k) arp_place_groups_spread(problem, g, at, offsets);
    free(order), free(trial_order), free(keys), free(at), free(trial);
    return status == ar_status_success_k ? arp_found_k : arp_oom_k;
}
