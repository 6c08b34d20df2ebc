/* `search`: anytime branch and bound over canonical solutions (after MiniMalloc, Moffitt,
 * ASPLOS 2023). Time is cut into sections, each with a floor; buffers go in non-decreasing
 * offset order, each on the highest floor it spans, never below the last offset (the base).
 * A node places one buffer at m, the lowest offset any unplaced buffer can take, or skips m;
 * buffers at one offset go in rank order. Inference cuts a node when a section's lowest
 * reachable floor plus its unplaced bytes, or a buffer's floor plus its size, passes the limit.
 * Fast passes (three candidate orders, a gap rule, with and without skip: quick to a fit, not
 * exact) run in turn on doubling slices; then the exact pass (skip, no gap rule) proves or
 * improves. Skip and base keep the exact pass complete: any valid solution falls by
 * gravity to a canonical one no higher. */
#include <stdlib.h>
#include <string.h>

#include "place/place_internal.h"

#define NONE SIZE_MAX

typedef struct search_t {
    size_t m, sections;
    size_t *orig; /* problem index of each search buffer (rank order) */
    uint64_t *size, *align;
    uint32_t *sl, *su; /* sections [sl, su) */
    uint64_t *raw, *rem, *infl, *off, *pos;
    bool *placed;
    size_t placed_count;
    uint64_t base;
    size_t last_rank; /* the buffer placed last at `base`, NONE after a skip */
    uint64_t limit, best_height, lower_bound;
    bool minimize, stop, timed_out, found;
    uint64_t nodes;
    double deadline;
    uint64_t *offsets; /* the caller's: the best so far */
    ar_place_buffer_t const *buffers;
    uint64_t *undo;
    size_t undo_count, undo_capacity;
    uint32_t *candidates;
    size_t candidates_count, candidates_capacity;
    bool oom;
    bool gap_rule, skip; /* the fast passes' gap rule; skip branches (always when exact) */
    uint64_t node_limit; /* nodes to explore at most (tests may cut a run short) */
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

static void record(search_t *s) {
    uint64_t height = 0;
    for (size_t b = 0; b < s->m; ++b)
        if (s->pos[b] + s->size[b] > height) height = s->pos[b] + s->size[b];
    if (height >= s->best_height) return;
    s->best_height = height;
    s->found = true;
    for (size_t b = 0; b < s->m; ++b) s->offsets[s->orig[b]] = s->pos[b];
    if (!s->minimize || height <= s->lower_bound)
        s->stop = true;
    else
        s->limit = height - 1;
}

static void place(search_t *s, size_t b, uint64_t at) {
    for (uint32_t k = s->sl[b]; k < s->su[b]; ++k) {
        s->undo[s->undo_count++] = s->raw[k];
        s->raw[k] = at + s->size[b];
        s->rem[k] -= s->size[b];
    }
    s->pos[b] = at;
    s->placed[b] = true;
    ++s->placed_count;
}

static void unplace(search_t *s, size_t b) {
    for (uint32_t k = s->su[b]; k-- > s->sl[b];) {
        s->raw[k] = s->undo[--s->undo_count];
        s->rem[k] += s->size[b];
    }
    s->placed[b] = false;
    --s->placed_count;
}

/* b at `at` fills a gap: the sections on either side of its lifetime stand at least `at` + its
 * size high, so mostly buffers living within b's lifetime compete for that space. MiniMalloc
 * tries no other buffer there after such a b; it can miss the optimum (a buffer straddling b's
 * top), so only the fast passes use it. */
static bool fills_gap(search_t const *s, size_t b, uint64_t at) {
    uint64_t top = at + s->size[b];
    if (s->sl[b] > 0 && s->raw[s->sl[b] - 1] < top) return false;
    if (s->su[b] < s->sections && s->raw[s->su[b]] < top) return false;
    return true;
}

static void node(search_t *s) {
    if (s->stop) return;
    if ((++s->nodes & 1023) == 0 && arp_place_now() > s->deadline) {
        s->stop = s->timed_out = true;
        return;
    }
    if (s->nodes > s->node_limit) {
        s->stop = s->timed_out = true;
        return;
    }
    if (s->placed_count == s->m) {
        record(s);
        return;
    }
    for (size_t k = 0; k < s->sections; ++k) s->infl[k] = UINT64_MAX;
    uint64_t lowest = UINT64_MAX;
    for (size_t b = 0; b < s->m; ++b) {
        if (s->placed[b]) continue;
        uint64_t floor = 0;
        for (uint32_t k = s->sl[b]; k < s->su[b]; ++k)
            if (s->raw[k] > floor) floor = s->raw[k];
        floor = arp_place_align_up(floor, s->align[b]);
        /* Dominance: b fits whole below the base on its own sections' floors; every later
         * placement is at or above the base, so b could drop there in any completion: a
         * solution with a smaller sum of offsets, and no higher, is explored elsewhere. */
        if (floor + s->size[b] <= s->base) return;
        if (floor < s->base) floor = arp_place_align_up(s->base, s->align[b]);
        if (floor + s->size[b] > s->limit) return;
        s->off[b] = floor;
        if (floor < lowest) lowest = floor;
        for (uint32_t k = s->sl[b]; k < s->su[b]; ++k)
            if (floor < s->infl[k]) s->infl[k] = floor;
    }
    for (size_t k = 0; k < s->sections; ++k)
        if (s->rem[k] && s->infl[k] + s->rem[k] > s->limit) return;
    uint64_t next = UINT64_MAX;
    size_t first = s->candidates_count;
    if (!grow((void **)&s->candidates, &s->candidates_capacity, first + s->m, sizeof(uint32_t))) {
        s->stop = s->oom = true;
        return;
    }
    for (size_t b = 0; b < s->m; ++b) {
        if (s->placed[b]) continue;
        if (s->off[b] > lowest) {
            if (s->off[b] < next) next = s->off[b];
        } else if (!(s->last_rank != NONE && lowest == s->base && b <= s->last_rank)) {
            s->candidates[s->candidates_count++] = (uint32_t)b;
        }
    }
    size_t last = s->candidates_count;
    uint64_t base = s->base;
    size_t last_rank = s->last_rank;
    bool filled = false;
    for (size_t c = first; c < last && !s->stop; ++c) {
        size_t b = s->candidates[c];
        place(s, b, lowest);
        s->base = lowest;
        s->last_rank = b;
        node(s);
        unplace(s, b);
        if (s->gap_rule && fills_gap(s, b, lowest)) {
            filled = true;
            break;
        }
    }
    s->candidates_count = first;
    s->base = base;
    s->last_rank = last_rank;
    if (s->stop || filled || !s->skip || next == UINT64_MAX) return;
    s->base = next;
    s->last_rank = NONE;
    node(s);
    s->base = base;
    s->last_rank = last_rank;
}

/* Orders of the candidates: T is the most bytes live in a section the buffer spans, W its
 * lifetime, A lifetime times size (each larger first). */
typedef enum order_t {
    arp_order_twa_k, /* these three use the gap rule: fast to a fit, not exact */
    arp_order_taw_k,
    arp_order_wat_k,
    arp_order_width_k, /* lifetime, then size; no gap rule: the exact pass */
} order_t;

typedef struct rank_t {
    uint64_t a, b, c;
    size_t index;
} rank_t;

static int by_rank(void const *x, void const *y) {
    rank_t const *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    if (p->b != q->b) return p->b < q->b ? -1 : 1;
    if (p->c != q->c) return p->c < q->c ? -1 : 1;
    return p->index < q->index ? -1 : p->index > q->index;
}

static uint32_t section_of(uint64_t const *times, size_t count, uint64_t t) {
    return (uint32_t)arp_place_count_below(times, count, t);
}

/* Run the search from the incumbent in offsets[]. */
static ar_status_t run(ar_place_problem_t const *problem, ar_place_options_t const *options,
                       uint64_t *offsets, ar_place_result_t *result, uint64_t incumbent,
                       double deadline, order_t order, bool skip, bool *exhausted) {
    search_t s = {0};
    size_t n = problem->count, m = 0;
    for (size_t i = 0; i < n; ++i) m += arp_place_holds(&problem->buffers[i]);
    s.m = m;
    s.buffers = problem->buffers;
    s.offsets = offsets;
    s.best_height = incumbent;
    s.lower_bound = ar_place_lower_bound(problem);
    s.last_rank = NONE;
    s.minimize = !options->capacity || options->minimize;
    s.limit = !s.minimize                                          ? options->capacity
              : options->capacity && incumbent > options->capacity ? options->capacity
                                                                   : incumbent - 1;
    s.deadline = deadline;
    rank_t *ranks = malloc((m + 1) * sizeof *ranks);
    uint64_t *times = malloc((2 * m + 1) * sizeof *times);
    s.orig = malloc((m + 1) * sizeof *s.orig);
    s.size = malloc((m + 1) * sizeof *s.size);
    s.align = malloc((m + 1) * sizeof *s.align);
    s.sl = malloc((m + 1) * sizeof *s.sl);
    s.su = malloc((m + 1) * sizeof *s.su);
    s.off = malloc((m + 1) * sizeof *s.off);
    s.pos = malloc((m + 1) * sizeof *s.pos);
    s.placed = calloc(m + 1, sizeof *s.placed);
    ar_status_t status = ar_status_out_of_memory_k;
    if (!ranks || !times || !s.orig || !s.size || !s.align || !s.sl || !s.su || !s.off || !s.pos ||
        !s.placed)
        goto done;
    size_t t = 0;
    for (size_t i = 0; i < n; ++i) {
        ar_place_buffer_t const *b = &problem->buffers[i];
        if (!arp_place_holds(b)) continue;
        times[t++] = b->lower;
        times[t++] = b->upper;
    }
    qsort(times, t, sizeof *times, arp_place_by_u64);
    size_t distinct = 0;
    for (size_t k = 0; k < t; ++k)
        if (!distinct || times[k] != times[distinct - 1]) times[distinct++] = times[k];
    s.sections = distinct ? distinct - 1 : 0;
    s.raw = calloc(s.sections + 1, sizeof *s.raw);
    s.rem = calloc(s.sections + 1, sizeof *s.rem);
    s.infl = calloc(s.sections + 1, sizeof *s.infl);
    if (!s.raw || !s.rem || !s.infl) goto done;
    for (size_t i = 0; i < n; ++i) {
        ar_place_buffer_t const *b = &problem->buffers[i];
        if (!arp_place_holds(b)) continue;
        uint32_t lo = section_of(times, distinct, b->lower),
                 hi = section_of(times, distinct, b->upper);
        for (uint32_t k = lo; k < hi; ++k) s.rem[k] += b->size;
    }
    /* Rank: RANKDOC */
    for (size_t i = 0, k = 0; i < n; ++i) {
        ar_place_buffer_t const *b = &problem->buffers[i];
        if (!arp_place_holds(b)) continue;
        uint32_t lo = section_of(times, distinct, b->lower),
                 hi = section_of(times, distinct, b->upper);
        uint64_t total = 0, width = b->upper - b->lower, area = width * b->size;
        for (uint32_t j = lo; j < hi; ++j)
            if (s.rem[j] > total) total = s.rem[j];
        rank_t r = {~width, ~b->size, 0, i};
        if (order == arp_order_twa_k) r = (rank_t){~total, ~width, ~area, i};
        if (order == arp_order_taw_k) r = (rank_t){~total, ~area, ~width, i};
        if (order == arp_order_wat_k) r = (rank_t){~width, ~area, ~total, i};
        ranks[k++] = r;
    }
    qsort(ranks, m, sizeof *ranks, by_rank);
    size_t spans = 0;
    for (size_t b = 0; b < m; ++b) {
        ar_place_buffer_t const *x = &problem->buffers[ranks[b].index];
        s.orig[b] = ranks[b].index;
        s.size[b] = x->size;
        s.align[b] = arp_place_alignment(x, options->alignment);
        s.sl[b] = section_of(times, distinct, x->lower);
        s.su[b] = section_of(times, distinct, x->upper);
        spans += s.su[b] - s.sl[b];
    }
    if (!grow((void **)&s.undo, &s.undo_capacity, spans + 1, sizeof *s.undo)) goto done;
    s.node_limit = UINT64_MAX;
    s.gap_rule = order != arp_order_width_k;
    s.skip = skip || !s.gap_rule;
    node(&s);
    status = s.oom ? ar_status_out_of_memory_k : ar_status_success_k;
    result->nodes = s.nodes;
    result->height = s.best_height;
    /* Exhausted without a time-out: nothing lower exists (minimising), or nothing within the
     * capacity (not minimising, nothing found). */
    result->optimal = (!s.timed_out && s.minimize) || s.best_height <= s.lower_bound;
    *exhausted = !s.timed_out && !s.oom;
done:
    free(ranks), free(times), free(s.orig), free(s.size), free(s.align), free(s.sl), free(s.su);
    free(s.off), free(s.pos), free(s.placed), free(s.raw), free(s.rem), free(s.infl);
    free(s.undo), free(s.candidates);
    return status;
}

/* Keep trial as the incumbent when it is lower than *best. */
static void keep_if_lower(ar_place_problem_t const *problem, uint64_t const *trial,
                          uint64_t *offsets, uint64_t *best) {
    uint64_t height = ar_place_height(problem, trial);
    if (height < *best) {
        *best = height;
        memcpy(offsets, trial, problem->count * sizeof *offsets);
    }
}

ar_status_t arp_place_search(ar_place_problem_t const *problem, ar_place_options_t const *options,
                             uint64_t *offsets, ar_place_result_t *result) {
    /* The incumbent: the best of the heuristics. */
    size_t n = problem->count;
    uint64_t *trial = malloc((n + 1) * sizeof *trial);
    if (!trial) return ar_status_out_of_memory_k;
    uint64_t best = UINT64_MAX;
    for (int h = 0; h < ar_place_search_k; ++h) {
        ar_status_t status =
            arp_place_heuristic(problem, (ar_place_strategy_t)h, options->alignment, trial);
        if (status != ar_status_success_k) {
            free(trial);
            return status;
        }
        keep_if_lower(problem, trial, offsets, &best);
    }
    /* Then up to 1024 perturbed orders, within a tenth of the time limit, until one fits. */
    double limit_s =
        options->time_limit_s > 0 ? options->time_limit_s : AR_PLACE_TIME_LIMIT_DEFAULT;
    double start = arp_place_now(), until = start + limit_s / 10;
    uint64_t goal =
        options->capacity && !options->minimize ? options->capacity : ar_place_lower_bound(problem);
    for (uint64_t seed = 1; best > goal && seed <= 1024 && arp_place_now() < until; ++seed) {
        ar_status_t status = arp_place_perturbed(problem, options->alignment, seed, trial);
        if (status != ar_status_success_k) {
            free(trial);
            return status;
        }
        keep_if_lower(problem, trial, offsets, &best);
    }
    free(trial);
    /* Then a local search over orders from the best so far: before the tree search when
     * minimising (200 moves a buffer, within 40% of the limit), in the last tenth of the
     * limit when only fitting a capacity (the tree fits sooner). */
    bool fit_only = options->capacity && !options->minimize;
    if (best > goal && !fit_only) {
        ar_status_t status = arp_place_improve(problem, options->alignment, goal, 200 * n + 200,
                                               start + limit_s * 0.4, offsets);
        if (status != ar_status_success_k) return status;
        best = ar_place_height(problem, offsets);
    }
    result->height = best;
    bool fits = !options->capacity || best <= options->capacity;
    if ((fits && options->capacity && !options->minimize) || best == 0 ||
        best <= ar_place_lower_bound(problem)) {
        result->optimal = best <= ar_place_lower_bound(problem);
        return ar_status_success_k;
    }
    double tree_end = fit_only ? start + limit_s * 0.9 : start + limit_s;
    bool exhausted = false; /* fitting only: nothing within the capacity exists */
    /* A portfolio first: the three gap-rule orders in turn, each slice twice the last, over
     * three quarters of the tree's time; then the exact pass until the end. */
    double heuristic_end = arp_place_now() + (tree_end - arp_place_now()) * 0.75;
    uint64_t nodes = 0;
    ar_status_t status = ar_status_success_k;
    for (double slice = 0.25, all_done = false; !all_done && arp_place_now() < heuristic_end;
         slice *= 2) {
        all_done = true; /* every order exhausted its (incomplete) tree: slices would not help */
        for (int pass = 0; pass < 6; ++pass) {
            order_t o = (order_t)(pass % 3);
            bool skip = pass >= 3;
            double now = arp_place_now(), end = now + slice;
            if (now >= heuristic_end) break;
            bool done = false;
            status = run(problem, options, offsets, result, best,
                         end < heuristic_end ? end : heuristic_end, o, skip, &done);
            nodes += result->nodes;
            best = result->height;
            all_done = all_done && done;
            if (status != ar_status_success_k) return status;
            if ((fit_only && best <= options->capacity) || best <= ar_place_lower_bound(problem)) {
                result->nodes = nodes;
                result->optimal = best <= ar_place_lower_bound(problem);
                return status;
            }
        }
    }
    status =
        run(problem, options, offsets, result, best, tree_end, arp_order_width_k, true, &exhausted);
    result->nodes += nodes;
    if (status != ar_status_success_k || !fit_only || result->height <= options->capacity ||
        result->optimal || exhausted)
        return status;
    nodes = result->nodes;
    status = arp_place_improve(problem, options->alignment, goal, UINT64_MAX, start + limit_s,
                               offsets); /* the rest of the limit: nothing else is left to do */
    result->height = ar_place_height(problem, offsets);
    result->nodes = nodes;
    return status;
}
