/* The four heuristics. Each is an order over the buffers and a rule for choosing among the
 * gaps that the already placed buffers live at the same time leave: the lowest gap that fits
 * (greedy-by-size, greedy-by-breadth, first-fit) or the tightest (best-fit, else on top). The
 * placed buffers, kept in offset order, are scanned once per buffer, so a strategy costs
 * O(n^2) at worst and needs O(n) memory: no caps. Sorts are made stable by
 * the input index, so a strategy gives the same offsets on every platform. */
#include <stdlib.h>
#include <string.h>

#include "place/place_internal.h"

/* Place buffers in `order` (count of them), each by the lowest or the tightest gap. The placed
 * buffers are kept sorted by offset (binary search and a move), so the conflicts of a new buffer
 * are met in offset order by one scan that skips those not live with it: O(n) per buffer. */
static ar_status_t place_in_order(ar_place_problem_t const *problem, size_t const *order,
                                  size_t count, bool tightest, uint64_t alignment,
                                  uint64_t *offsets) {
    size_t *placed = malloc((count + 1) * sizeof *placed);
    if (!placed) return ar_status_out_of_memory_k;
    ar_place_buffer_t const *buffers = problem->buffers;
    for (size_t k = 0; k < count; ++k) {
        size_t i = order[k];
        ar_place_buffer_t const *b = &buffers[i];
        uint64_t align = arp_place_alignment(b, alignment);
        uint64_t candidate = 0, best = UINT64_MAX, best_gap = UINT64_MAX;
        for (size_t j = 0; j < k; ++j) {
            size_t other = placed[j];
            ar_place_buffer_t const *o = &buffers[other];
            if (!(o->lower < b->upper && b->lower < o->upper)) continue;
            uint64_t start = offsets[other], end = start + o->size;
            if (candidate + b->size <= start) {
                if (!tightest) break;
                uint64_t gap = start - candidate;
                if (gap < best_gap) best_gap = gap, best = candidate;
            }
            if (end > candidate) candidate = arp_place_align_up(end, align);
        }
        /* candidate: the lowest gap (lowest rule), or the top of the conflicts. */
        uint64_t at = tightest && best != UINT64_MAX ? best : candidate;
        offsets[i] = at;
        size_t lo = 0, hi = k; /* insert after every placed offset <= at */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (offsets[placed[mid]] <= at)
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

/* Sort order[0, count) by the keys `make` gives each buffer. */
static void sort_by(ar_place_buffer_t const *buffers, size_t *order, size_t count,
                    order_key_t *keys, order_key_t (*make)(ar_place_buffer_t const *, size_t)) {
    for (size_t k = 0; k < count; ++k) keys[k] = make(&buffers[order[k]], order[k]);
    qsort(keys, count, sizeof *keys, by_key);
    for (size_t k = 0; k < count; ++k) order[k] = keys[k].index;
}

static order_key_t size_key(ar_place_buffer_t const *b, size_t i) {
    return (order_key_t){~b->size, 0, 0, i};
}

static order_key_t size_length_key(ar_place_buffer_t const *b, size_t i) {
    return (order_key_t){~b->size, ~(b->upper - b->lower), 0, i};
}

static order_key_t start_key(ar_place_buffer_t const *b, size_t i) {
    return (order_key_t){b->lower, ~b->size, 0, i};
}

static order_key_t end_key(ar_place_buffer_t const *b, size_t i) {
    return (order_key_t){b->upper, 0, 0, i};
}

typedef struct point_t {
    uint64_t time, breadth;
} point_t;

static int by_breadth(void const *a, void const *b) {
    point_t const *x = a, *y = b;
    if (x->breadth != y->breadth) return x->breadth > y->breadth ? -1 : 1;
    return x->time < y->time ? -1 : x->time > y->time;
}

/* Greedy by breadth: the time points (distinct starts, where the live set grows) by
 * non-increasing breadth (bytes live there, from a sweep over start- and end-sorted lists); at
 * each, its live unplaced buffers by non-increasing size. The live sets come from a scan per
 * point: O(n T). */
static ar_status_t breadth_order(ar_place_problem_t const *problem, size_t *order, size_t count,
                                 size_t const *held, order_key_t *keys) {
    ar_place_buffer_t const *buffers = problem->buffers;
    point_t *points = malloc((count + 1) * sizeof *points);
    size_t *by_end = malloc((count + 1) * sizeof *by_end);
    bool *done = calloc(problem->count + 1, sizeof *done);
    if (!points || !by_end || !done) {
        free(points), free(by_end), free(done);
        return ar_status_out_of_memory_k;
    }
    memcpy(order, held, count * sizeof *order);
    sort_by(buffers, order, count, keys, start_key);
    memcpy(by_end, held, count * sizeof *by_end);
    sort_by(buffers, by_end, count, keys, end_key);
    size_t times = 0;
    for (size_t k = 0; k < count; ++k)
        if (!times || buffers[order[k]].lower != points[times - 1].time)
            points[times++].time = buffers[order[k]].lower;
    uint64_t started = 0, ended = 0;
    for (size_t p = 0, s = 0, e = 0; p < times; ++p) {
        uint64_t t = points[p].time;
        while (s < count && buffers[order[s]].lower <= t) started += buffers[order[s++]].size;
        while (e < count && buffers[by_end[e]].upper <= t) ended += buffers[by_end[e++]].size;
        points[p].breadth = started - ended;
    }
    qsort(points, times, sizeof *points, by_breadth);
    size_t filled = 0;
    for (size_t p = 0; p < times && filled < count; ++p) {
        uint64_t t = points[p].time;
        size_t first = filled;
        for (size_t k = 0; k < count; ++k) {
            size_t i = held[k];
            if (!done[i] && buffers[i].lower <= t && t < buffers[i].upper) {
                done[i] = true;
                order[filled++] = i;
            }
        }
        sort_by(buffers, order + first, filled - first, keys, size_key);
    }
    free(points), free(by_end), free(done);
    return ar_status_success_k;
}

ar_status_t arp_place_heuristic(ar_place_problem_t const *problem, ar_place_strategy_t strategy,
                                uint64_t alignment, uint64_t *offsets) {
    size_t n = problem->count, count = 0;
    size_t *held = malloc((n + 1) * sizeof *held), *order = malloc((n + 1) * sizeof *order);
    order_key_t *keys = malloc((n + 1) * sizeof *keys);
    if (!held || !order || !keys) {
        free(held), free(order), free(keys);
        return ar_status_out_of_memory_k;
    }
    for (size_t i = 0; i < n; ++i) {
        offsets[i] = 0;
        if (arp_place_holds(&problem->buffers[i])) held[count++] = i;
    }
    ar_status_t status = ar_status_success_k;
    ar_place_buffer_t const *buffers = problem->buffers;
    memcpy(order, held, count * sizeof *order);
    switch (strategy) {
    case ar_place_greedy_by_breadth_k:
        status = breadth_order(problem, order, count, held, keys);
        break;
    case ar_place_first_fit_k: sort_by(buffers, order, count, keys, start_key); break;
    case ar_place_best_fit_k: sort_by(buffers, order, count, keys, size_length_key); break;
    default: sort_by(buffers, order, count, keys, size_key); break;
    }
    if (status == ar_status_success_k)
        status = place_in_order(problem, order, count, strategy == ar_place_best_fit_k, alignment,
                                offsets);
    free(held), free(order), free(keys);
    return status;
}

/* Lowest-gap placement in a perturbed order: by size scaled by a random factor in [1/2, 3/2)
 * (seeded), or by a random priority mixed with the lifetime. The least height over all orders
 * is the optimum (gravity), so many perturbed orders improve the search's incumbent. */
ar_status_t arp_place_perturbed(ar_place_problem_t const *problem, uint64_t alignment,
                                uint64_t seed, uint64_t *offsets) {
    size_t n = problem->count, count = 0;
    size_t *order = malloc((n + 1) * sizeof *order);
    order_key_t *keys = malloc((n + 1) * sizeof *keys);
    if (!order || !keys) {
        free(order), free(keys);
        return ar_status_out_of_memory_k;
    }
    uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; ++i) {
        offsets[i] = 0;
        ar_place_buffer_t const *b = &problem->buffers[i];
        if (!arp_place_holds(b)) continue;
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        uint64_t factor = 512 + (state >> 54); /* [512, 1536) / 1024 */
        double weight = (double)b->size * (double)factor;
        if (seed & 1) weight *= (double)(b->upper - b->lower);
        keys[count] = (order_key_t){~(uint64_t)(weight / 1024.0), 0, 0, i};
        order[count++] = i;
    }
    qsort(keys, count, sizeof *keys, by_key);
    for (size_t k = 0; k < count; ++k) order[k] = keys[k].index;
    ar_status_t status = place_in_order(problem, order, count, (seed & 2) != 0, alignment, offsets);
    free(order), free(keys);
    return status;
}

/* Local search over orders, from a valid placement: the order of its offsets (placed at lowest
 * gaps it is no higher), then moves of a buffer on top (offset + size = height), or any buffer
 * one time in four, to an earlier random place in the order, kept when the height does not
 * rise. Stops at `goal`, after `moves` moves, or at `deadline`; offsets[] ends at the best. */
ar_status_t arp_place_improve(ar_place_problem_t const *problem, uint64_t alignment, uint64_t goal,
                              uint64_t moves, double deadline, uint64_t *offsets) {
    size_t n = problem->count, count = 0;
    size_t *order = calloc(n + 1, sizeof *order), *trial_order = calloc(n + 1, sizeof *order);
    order_key_t *keys = malloc((n + 1) * sizeof *keys);
    uint64_t *trial = malloc((n + 1) * sizeof *trial);
    if (!order || !trial_order || !keys || !trial) {
        free(order), free(trial_order), free(keys), free(trial);
        return ar_status_out_of_memory_k;
    }
    for (size_t i = 0; i < n; ++i)
        if (arp_place_holds(&problem->buffers[i]))
            keys[count++] = (order_key_t){offsets[i], 0, 0, i};
    qsort(keys, count, sizeof *keys, by_key);
    for (size_t k = 0; k < count; ++k) order[k] = keys[k].index;
    ar_status_t status = place_in_order(problem, order, count, false, alignment, trial);
    uint64_t best = ar_place_height(problem, offsets), height = ar_place_height(problem, trial);
    if (status == ar_status_success_k && height <= best) {
        memcpy(offsets, trial, n * sizeof *offsets);
        best = height;
    }
    uint64_t state = 0x2545f4914f6cdd1dull;
    for (uint64_t move = 0; status == ar_status_success_k && count > 1 && best > goal &&
                            move < moves && ((move & 15) || arp_place_now() < deadline);
         ++move) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        size_t from = (size_t)(state % count);
        if (state >> 62) { /* three times in four: a buffer on top */
            size_t tops = 0;
            for (size_t k = 0; k < count; ++k)
                if (offsets[order[k]] + problem->buffers[order[k]].size == best &&
                    (state >> 20) % ++tops == 0)
                    from = k;
        }
        if (from == 0) continue;
        size_t to = (size_t)((state >> 33) % from);
        memcpy(trial_order, order, count * sizeof *order);
        size_t moved = trial_order[from];
        memmove(trial_order + to + 1, trial_order + to, (from - to) * sizeof *order);
        trial_order[to] = moved;
        status = place_in_order(problem, trial_order, count, false, alignment, trial);
        height = ar_place_height(problem, trial);
        if (status == ar_status_success_k && height <= best) {
            memcpy(order, trial_order, count * sizeof *order);
            memcpy(offsets, trial, n * sizeof *offsets);
            best = height;
        }
    }
    free(order), free(trial_order), free(keys), free(trial);
    return status;
}
