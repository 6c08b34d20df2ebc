/* `lns`: an anytime large-neighbourhood search for instances the exact search cannot finish.
 * A target one grain below the best height makes every buffer whose top passes it an excess.
 * Two kinds of move, each on a random time window around a buffer over the target: ruin and
 * recreate (lift the window's highest buffers, or a column above a level, and put them back at
 * their lowest gaps in a random order; kept when the excess does not grow), and an exact one
 * (the window's highest buffers free, every other row there pinned, the search asked for a
 * placement within the target). They take turns by gains over counted work. Within 1% of the
 * goal the target is the goal itself. A move reads only the buffers in offset order that meet
 * its window. Up to 2,048 buffers the search goes first. */
#include <stdlib.h>
#include <string.h>

#include "place/engine.h"

/* Moves aimed at the goal without a new least excess before the target goes back to one grain
 * below the best. */
#define ARP_LNS_AIM_STALL 2048

/* An exact move's window holds at most this many rows (a node costs rows x sections there). */
#define ARP_LNS_EXACT_ROWS 512

/* A column lifts at most this many buffers, the highest (on a real trace one time can have
 * 10^5 buffers live: putting each back scans the window, 10^10 steps for one move). */
#define ARP_LNS_COLUMN 4096

/* A move putting back more buffers than this reads the clock every so many of them, and is
 * undone when past the deadline. */
#define ARP_LNS_MOVE_READS 256

/* On problems of ARP_CLOCK_BUFFERS rows or more, it reads the clock instead after every so
 * many window records scanned (a window there can hold every buffer). */
#define ARP_LNS_MOVE_SCAN ((uint64_t)1 << 20)

typedef unsigned __int128 excess_t;

/* What a scan for the lowest gap reads of a placed buffer, side by side in memory (a scan
 * over a move's window reads thousands of them per buffer put back on large problems). */
typedef struct record_t {
    uint64_t lower, upper, at, top, several;
} record_t;

/* A list of placed buffers in offset order (ties: index); `records` (NULL: none kept) beside
 * `items`, one each. */
typedef struct view_t {
    size_t *items, count;
    record_t *records;
} view_t;

typedef struct lns_t {
    ar_place_problem_t const *problem;
    arp_place_groups_t const *g;
    size_t m;
    uint64_t *at, *size, *align; /* per buffer */
    view_t all;                  /* every placed buffer */
    view_t local;                /* scratch: those a move's window meets */
    size_t *scratch;             /* m + 1 */
    bool *lifted;
    uint64_t const *times, *load; /* the sweep's: bytes live over [times[k], times[k+1]) */
    size_t sections;
    /* An exact move's problem: rows in the window, pins, answers, each row's buffer. */
    ar_place_buffer_t *sub;
    uint64_t *pin, *sub_at;
    size_t *sub_of;
    uint64_t nodes; /* the exact moves' */
    uint64_t work;  /* what the moves cost, counted (buffers scanned, rows times nodes) */
    arp_rng_t *rng;
    arp_clock_t *clock;
    double deadline;
    bool large; /* ARP_CLOCK_BUFFERS rows or more: the clock read per move and per scan budget */
    arp_decider_t decide;
} lns_t;

static uint64_t next(lns_t *s) { return arp_rng_next(s->rng); }

static uint64_t below(lns_t *s, uint64_t n) { return arp_rng_below(s->rng, n); }

/* Where (at, b) goes in the view: the count of buffers ordered before it. */
static size_t position(lns_t const *s, view_t const *v, uint64_t at, size_t b) {
    size_t lo = 0, hi = v->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2, o = v->items[mid];
        if (s->at[o] < at || (s->at[o] == at && o < b))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Put b at the lowest gap the view's buffers live with it leave (the view holds every placed
 * buffer that meets b): one scan in offset order that stops at the first gap wide enough
 * (greedy.c's rule); b joins the view. */
static void place_lowest(lns_t *s, view_t *v, size_t b) {
    uint64_t c = 0, size = s->size[b], align = s->align[b];
    arp_place_hull_t const *hb = &s->g->hull[b];
    size_t k = 0;
    if (v->records && !hb->several) {
        for (; k < v->count; ++k) {
            record_t const *r = &v->records[k];
            if (!(r->lower < hb->upper && hb->lower < r->upper)) continue;
            if (r->several && !arp_place_rows_meet(s->problem, s->g, v->items[k], b)) continue;
            if (c + size <= r->at) break;
            if (r->top > c) c = arp_place_align_up(r->top, align);
        }
    } else {
        for (; k < v->count; ++k) {
            size_t o = v->items[k];
            if (!arp_place_groups_meet(s->problem, s->g, o, b)) continue;
            if (c + size <= s->at[o]) break;
            if (s->at[o] + s->size[o] > c) c = arp_place_align_up(s->at[o] + s->size[o], align);
        }
    }
    s->work += k + 1;
    s->at[b] = c;
    k = position(s, v, c, b);
    memmove(v->items + k + 1, v->items + k, (v->count - k) * sizeof *v->items);
    v->items[k] = b;
    if (v->records) {
        memmove(v->records + k + 1, v->records + k, (v->count - k) * sizeof *v->records);
        v->records[k] = (record_t){hb->lower, hb->upper, c, c + size, hb->several};
    }
    ++v->count;
}

typedef struct lns_key_t {
    uint64_t key;
    size_t b;
} lns_key_t;

static int by_key(void const *x, void const *y) {
    lns_key_t const *p = x, *q = y;
    if (p->key != q->key) return p->key < q->key ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

static uint64_t height_of(lns_t const *s) {
    uint64_t h = 0;
    for (size_t b = 0; b < s->m; ++b)
        if (s->size[b] && s->at[b] + s->size[b] > h) h = s->at[b] + s->size[b];
    return h;
}

static excess_t excess_of(lns_t const *s, size_t b, uint64_t target) {
    uint64_t top = s->at[b] + s->size[b];
    return s->size[b] && top > target ? (excess_t)(top - target) : 0;
}

static void lns_free(lns_t *s) {
    free(s->at), free(s->size), free(s->align), free(s->all.items), free(s->local.items),
        free(s->local.records);
    free(s->scratch), free(s->lifted);
    free(s->sub), free(s->pin), free(s->sub_at), free(s->sub_of);
}

static ar_status_t lns_make(lns_t *s, ar_place_problem_t const *problem,
                            arp_place_groups_t const *g, arp_sweep_t const *sweep,
                            uint64_t alignment) {
    size_t m = g->count;
    *s = (lns_t){.problem = problem, .g = g, .m = m};
    s->at = calloc(m + 1, sizeof *s->at);
    s->size = calloc(m + 1, sizeof *s->size);
    s->align = calloc(m + 1, sizeof *s->align);
    s->all.items = malloc((m + 1) * sizeof *s->all.items);
    s->local.items = malloc((m + 1) * sizeof *s->local.items);
    s->local.records = malloc((m + 1) * sizeof *s->local.records);
    s->scratch = malloc((m + 1) * sizeof *s->scratch);
    s->lifted = calloc(m + 1, sizeof *s->lifted);
    if (!s->at || !s->size || !s->align || !s->all.items || !s->local.items || !s->local.records ||
        !s->scratch || !s->lifted) {
        lns_free(s);
        return ar_status_out_of_memory_k;
    }
    size_t rows = 0;
    for (size_t b = 0; b < m; ++b) {
        if (!arp_place_group_holds(g, b)) continue;
        s->size[b] = g->hull[b].size;
        s->align[b] = arp_place_alignment(&problem->buffers[g->first[b]], alignment);
        rows += g->start[b + 1] - g->start[b];
    }
    /* The load over time, for the columns a move lifts: the sweep's. */
    s->times = sweep->times;
    s->load = sweep->load;
    s->sections = sweep->sections;
    s->sub = malloc((rows + 1) * sizeof *s->sub);
    s->pin = malloc((rows + 1) * sizeof *s->pin);
    s->sub_at = malloc((rows + 1) * sizeof *s->sub_at);
    s->sub_of = malloc((rows + 1) * sizeof *s->sub_of);
    if (!s->sub || !s->pin || !s->sub_at || !s->sub_of) {
        lns_free(s);
        return ar_status_out_of_memory_k;
    }
    return ar_status_success_k;
}

/* The lifted buffers (saved_b[0, count), at their new offsets) back into the list of all:
 * the others in their order, merged with them by offset. */
static void commit(lns_t *s, lns_key_t *cand, size_t const *saved_b, size_t count) {
    for (size_t k = 0; k < count; ++k) cand[k] = (lns_key_t){s->at[saved_b[k]], saved_b[k]};
    qsort(cand, count, sizeof *cand, by_key);
    size_t *out = s->scratch, n = 0, j = 0;
    for (size_t k = 0; k < s->all.count; ++k) {
        size_t o = s->all.items[k];
        if (s->lifted[o]) continue;
        while (j < count && (cand[j].key < s->at[o] || (cand[j].key == s->at[o] && cand[j].b < o)))
            out[n++] = cand[j++].b;
        out[n++] = o;
    }
    while (j < count) out[n++] = cand[j++].b;
    for (size_t k = 0; k < count; ++k) s->lifted[saved_b[k]] = false;
    s->scratch = s->all.items;
    s->all.items = out;
}

/* An exact move: a random time window around a buffer v over the target; the buffers inside
 * it with the highest offsets (v among them, up to a random cap) are free, every other row
 * that meets the window is pinned where it is (cut to the window), and the exact search asks
 * for a placement within the target in a short time slice. Found: the free ones move there
 * (the excess only falls). Buffers of several rows stay pinned. */
static void exact_move(lns_t *s, uint64_t target, lns_key_t *cand, size_t *saved_b, excess_t *total,
                       double deadline) {
    arp_place_groups_t const *g = s->g;
    size_t v = SIZE_MAX, over = 0;
    for (size_t b = 0; b < s->m; ++b)
        if (s->size[b] && s->at[b] + s->size[b] > target && below(s, ++over) == 0) v = b;
    if (v == SIZE_MAX || g->hull[v].several) return;
    uint64_t l = g->hull[v].lower, u = g->hull[v].upper, w = u - l;
    int widen = (int)below(s, 6);
    uint64_t left = widen ? below(s, (w << (widen - 1)) + 1) : 0;
    uint64_t right = widen ? below(s, (w << (widen - 1)) + 1) : 0;
    l = l > left ? l - left : 0;
    u = u + right < AR_PLACE_MAX_TIME ? u + right : AR_PLACE_MAX_TIME;
    size_t cap = (size_t)8 << below(s, 6), count = 0;
    saved_b[count++] = v;
    s->lifted[v] = true;
    for (size_t k = s->all.count; k-- > 0 && count < cap;) {
        size_t o = s->all.items[k];
        if (o != v && !g->hull[o].several && l <= g->hull[o].lower && g->hull[o].upper <= u) {
            saved_b[count++] = o;
            s->lifted[o] = true;
        }
    }
    /* A floor: free buffers stay at or above a random level y at most their lowest offset, so
     * only rows reaching above y matter (their parts below y cut off), under one pinned row
     * [0, y) over the window. */
    uint64_t y = UINT64_MAX;
    for (size_t k = 0; k < count; ++k)
        if (s->at[saved_b[k]] < y) y = s->at[saved_b[k]];
    y -= below(s, (y >> below(s, 12)) + 1);
    size_t rows = 0;
    bool hopeless = false;
    if (y) {
        s->sub[rows] = (ar_place_buffer_t){l, u, y, 1};
        s->pin[rows] = 0;
        s->sub_of[rows++] = SIZE_MAX;
    }
    for (size_t k = 0; k < s->all.count && !hopeless; ++k) {
        size_t o = s->all.items[k];
        if (!(g->hull[o].lower < u && l < g->hull[o].upper)) continue;
        if (s->lifted[o]) {
            s->sub[rows] =
                (ar_place_buffer_t){g->hull[o].lower, g->hull[o].upper, s->size[o], s->align[o]};
            s->pin[rows] = UINT64_MAX;
            s->sub_of[rows++] = o;
            continue;
        }
        uint64_t top = s->at[o] + s->size[o];
        if (top <= y) continue;
        hopeless = top > target; /* a pinned one over the target */
        uint64_t bottom = s->at[o] > y ? s->at[o] : y;
        for (size_t j = g->start[o]; j < g->start[o + 1]; ++j) {
            ar_place_buffer_t const *row = &s->problem->buffers[g->rows[j]];
            uint64_t lo = row->lower > l ? row->lower : l, hi = row->upper < u ? row->upper : u;
            if (lo >= hi) continue;
            s->sub[rows] = (ar_place_buffer_t){lo, hi, top - bottom, 1};
            s->pin[rows] = bottom;
            s->sub_of[rows++] = o;
        }
    }
    if (!hopeless && rows <= ARP_LNS_EXACT_ROWS) {
        ar_place_problem_t sub = {s->sub, rows, NULL};
        uint64_t nodes = s->nodes;
        bool found =
            s->decide(&sub, s->pin, target, s->clock, deadline, (uint64_t)(rows + 1) << below(s, 3),
                      s->sub_at, &s->nodes) == arp_found_k;
        s->work += 128 * rows * (1 + (s->nodes - nodes)); /* about a scan step's time each */
        if (found) {
            excess_t before = 0;
            for (size_t k = 0; k < count; ++k) before += excess_of(s, saved_b[k], target);
            for (size_t r = 0; r < rows; ++r)
                if (s->pin[r] == UINT64_MAX) s->at[s->sub_of[r]] = s->sub_at[r];
            *total -= before; /* every free one is within the target now */
            commit(s, cand, saved_b, count);
            return;
        }
    }
    for (size_t k = 0; k < count; ++k) s->lifted[saved_b[k]] = false;
}

/* One move: ruin a window around a buffer over the target and recreate it, kept when the
 * total excess (*total) does not grow, else undone. */
static void move(lns_t *s, uint64_t target, lns_key_t *cand, size_t *saved_b, uint64_t *saved_at,
                 excess_t *total) {
    arp_place_groups_t const *g = s->g;
    /* A buffer over the target, uniformly. */
    size_t v = SIZE_MAX, over = 0;
    for (size_t b = 0; b < s->m; ++b)
        if (s->size[b] && s->at[b] + s->size[b] > target && below(s, ++over) == 0) v = b;
    if (v == SIZE_MAX) return;
    uint64_t l = g->hull[v].lower, u = g->hull[v].upper, w = u - l;
    size_t count = 0;
    saved_b[count++] = v;
    view_t *local = &s->local;
    local->count = 0;
    if (below(s, 2)) {
        /* A column: every buffer live at one time of v's (its most loaded, or a random one)
         * above a random level, and the window their hulls span. */
        size_t lo = arp_place_count_below(s->times, s->sections + 1, l);
        size_t hi = arp_place_count_below(s->times, s->sections + 1, u), at = lo;
        if (below(s, 2))
            at = lo + below(s, hi - lo);
        else
            for (size_t k = lo; k < hi; ++k)
                if (s->load[k] > s->load[at]) at = k;
        uint64_t t = s->times[at], level = below(s, s->at[v] + 1);
        size_t column = 0;
        for (size_t k = 0; k < s->all.count; ++k) {
            size_t o = s->all.items[k];
            column += o != v && g->hull[o].lower <= t && t < g->hull[o].upper &&
                      s->at[o] + s->size[o] > level;
        }
        /* Past the cap, the highest of them (the list is in offset order). */
        bool capped = column >= ARP_LNS_COLUMN;
        for (size_t j = 0; j < s->all.count && count < ARP_LNS_COLUMN; ++j) {
            size_t o = s->all.items[capped ? s->all.count - 1 - j : j];
            if (o != v && g->hull[o].lower <= t && t < g->hull[o].upper &&
                s->at[o] + s->size[o] > level) {
                saved_b[count++] = o;
                if (g->hull[o].lower < l) l = g->hull[o].lower;
                if (g->hull[o].upper > u) u = g->hull[o].upper;
            }
        }
        for (size_t k = 0; k < s->all.count; ++k) {
            size_t o = s->all.items[k];
            if (g->hull[o].lower < u && l < g->hull[o].upper) local->items[local->count++] = o;
        }
    } else {
        /* A window around v: v and the buffers inside it with the highest offsets, up to a
         * random cap. */
        int widen = (int)below(s, 6);
        uint64_t left = widen ? below(s, (w << (widen - 1)) + 1) : 0;
        uint64_t right = widen ? below(s, (w << (widen - 1)) + 1) : 0;
        l = l > left ? l - left : 0;
        u = u + right < AR_PLACE_MAX_TIME ? u + right : AR_PLACE_MAX_TIME;
        for (size_t k = 0; k < s->all.count; ++k) {
            size_t o = s->all.items[k];
            if (g->hull[o].lower < u && l < g->hull[o].upper) local->items[local->count++] = o;
        }
        size_t cap = (size_t)16 << below(s, 8);
        for (size_t k = local->count; k-- > 0 && count < cap;) {
            size_t o = local->items[k];
            if (o != v && l <= g->hull[o].lower && g->hull[o].upper <= u) saved_b[count++] = o;
        }
    }
    /* Every buffer a lifted one meets is in `local`: lifted ones lie inside [l, u). */
    excess_t before = 0, after = 0;
    for (size_t k = 0; k < count; ++k) {
        size_t b = saved_b[k];
        saved_at[k] = s->at[b];
        before += excess_of(s, b, target);
        s->lifted[b] = true;
    }
    size_t kept = 0;
    for (size_t k = 0; k < local->count; ++k) {
        size_t o = local->items[k];
        if (s->lifted[o]) continue;
        local->items[kept] = o;
        local->records[kept++] = (record_t){g->hull[o].lower, g->hull[o].upper, s->at[o],
                                            s->at[o] + s->size[o], g->hull[o].several};
    }
    local->count = kept;
    /* A random order: sizes scaled by a random factor, times lifetimes, at random, or the old
     * offsets. */
    int how = (int)below(s, 4);
    for (size_t k = 0; k < count; ++k) {
        size_t b = saved_b[k];
        uint64_t factor = 512 + below(s, 1024), key;
        if (how == 0)
            key = saved_at[k];
        else if (how == 1)
            key = ~(uint64_t)((double)s->size[b] * (double)g->width[b] * (double)factor / 1024.0);
        else if (how == 2)
            key = next(s);
        else
            key = ~(uint64_t)((double)s->size[b] * (double)factor / 1024.0);
        cand[k] = (lns_key_t){key, b};
    }
    qsort(cand, count, sizeof *cand, by_key);
    bool late = false;
    uint64_t scanned = 0;
    for (size_t k = 0; k < count && !late; ++k) {
        place_lowest(s, local, cand[k].b);
        after += excess_of(s, cand[k].b, target);
        if (s->large) {
            /* Each put-back scans the window: on a real trace 10^6 records, a millisecond. */
            scanned += local->count + 1;
            if (scanned >= ARP_LNS_MOVE_SCAN) {
                scanned = 0;
                late = arp_clock_past(s->clock, s->deadline);
            }
        } else {
            late = count > ARP_LNS_MOVE_READS && k % ARP_LNS_MOVE_READS == ARP_LNS_MOVE_READS - 1 &&
                   arp_clock_past(s->clock, s->deadline);
        }
    }
    if (late || after > before) { /* undone */
        for (size_t k = 0; k < count; ++k)
            s->at[saved_b[k]] = saved_at[k], s->lifted[saved_b[k]] = false;
        return;
    }
    *total = *total - before + after;
    commit(s, cand, saved_b, count);
}

arp_result_t arp_lns(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                     arp_sweep_t const *sweep, uint64_t alignment, arp_lns_t *out,
                     arp_clock_t *clock, double deadline, arp_rng_t *rng, arp_decider_t decide,
                     uint64_t *best) {
    lns_t s;
    if (lns_make(&s, problem, g, sweep, alignment) != ar_status_success_k) return arp_oom_k;
    s.rng = rng, s.clock = clock, s.deadline = deadline, s.decide = decide;
    s.large = problem->count >= ARP_CLOCK_BUFFERS;
    size_t m = s.m, held = 0;
    lns_key_t *cand = malloc((m + 1) * sizeof *cand);
    size_t *saved_b = malloc((m + 1) * sizeof *saved_b);
    uint64_t *saved_at = malloc((m + 1) * sizeof *saved_at);
    if (!cand || !saved_b || !saved_at) {
        free(cand), free(saved_b), free(saved_at);
        lns_free(&s);
        return arp_oom_k;
    }
    for (size_t b = 0; b < m; ++b) held += s.size[b] != 0;
    uint64_t grain = sweep->grain, goal = out->goal;
    memcpy(s.at, best, m * sizeof *best);
    uint64_t best_height = height_of(&s);
    s.all.count = 0; /* the list, of the best */
    for (size_t b = 0; b < m; ++b)
        if (s.size[b]) cand[s.all.count++] = (lns_key_t){s.at[b], b};
    qsort(cand, s.all.count, sizeof *cand, by_key);
    for (size_t k = 0; k < s.all.count; ++k) s.all.items[k] = cand[k].b;
    uint64_t moves = 0, limit = out->max_moves ? out->max_moves : UINT64_MAX;
    /* Within 1% of the goal, the goal itself is the target: the bytes over it are few, and a
     * move that lowers them counts even while the height stands (every placement found on the
     * way is kept when lower). Where that stalls, or farther off, one grain below the best. */
    bool aim = best_height - goal <= goal / 100;
    uint64_t target = aim ? goal : best_height > grain ? best_height - grain : 0;
    uint64_t since = 0; /* moves aimed at the goal since the excess last fell below its least */
    excess_t least = 0;
    excess_t total = 0;
    for (size_t b = 0; b < m; ++b) total += excess_of(&s, b, target);
    uint64_t gains[2] = {0, 0}, cost[2] = {0, 0};
    /* On large problems a move passes every buffer (tens of ms at 10^6, where eight between
     * reads overran a 2 s limit by 0.4 s): the clock is read before each, and one starts only
     * with as much time left as the last took. Small ones read it every eight moves, as ever. */
    double last = -1, took = 0;
    while (held && best_height > goal && moves < limit && !arp_clock_dead(clock)) {
        if (s.large) {
            if (arp_clock_past(clock, deadline)) break;
            double now = clock->last;
            if (last >= 0) took = now - last;
            last = now;
            if (now + took > deadline) break;
        } else if (!(moves & 7) && arp_clock_past(clock, deadline)) {
            break;
        }
        ++moves;
        /* The two kinds of move take turns by their record: each is picked with weight its
         * improvements (plus one) over the work it cost (counted, so a seed decides). */
        excess_t was = total;
        uint64_t work = s.work;
        int kind = (double)(gains[0] + 1) * (double)(cost[1] + 1) >=
                           (double)(gains[1] + 1) * (double)(cost[0] + 1)
                       ? 0
                       : 1;
        if (kind)
            exact_move(&s, target, cand, saved_b, &total, deadline);
        else
            move(&s, target, cand, saved_b, saved_at, &total);
        cost[kind] += s.work - work;
        gains[kind] += total < was;
        if (aim && total) {
            if (total < was) {
                uint64_t h = height_of(&s);
                if (h < best_height) {
                    best_height = h;
                    memcpy(best, s.at, m * sizeof *best);
                }
            }
            if (total < least || !least)
                least = total, since = 0;
            else if (++since > ARP_LNS_AIM_STALL) {
                aim = false;
                target = best_height > grain ? best_height - grain : 0;
                total = 0;
                for (size_t b = 0; b < m; ++b) total += excess_of(&s, b, target);
            }
            continue;
        }
        if (total == 0) {
            best_height = height_of(&s);
            memcpy(best, s.at, m * sizeof *best);
            target = best_height > grain ? best_height - grain : 0;
            for (size_t b = 0; b < m; ++b) total += excess_of(&s, b, target);
        }
    }
    out->height = best_height;
    out->moves = moves;
    free(cand), free(saved_b), free(saved_at);
    lns_free(&s);
    return arp_found_k;
}
