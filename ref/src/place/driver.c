/* ar_place: the one driver over the engines (engine.h). It validates, gathers the buffers and
 * sweeps time once, then runs the strategy's phases in order, each an engine handed the sweep,
 * a clock, a deadline and a random source, and keeps the best valid placement met so far. It
 * alone owns the goal (below), the time shares (the ARP_* constants below, all of them) and the
 * order of the phases:
 *   greedy-by-size, greedy-by-breadth, first-fit, best-fit: one order and gap rule
 *   search: the four heuristics; strips (a perfect packing); perturbed orders; then the exact
 *           search asked for the goal (fit) or bisecting from the bound (minimise), and the
 *           order local search where a fit stays undecided; lns moves instead of the exact
 *           search where one node of its tree costs more than ARP_SEARCH_NODE_WORK
 *   lns:    five lowest-gap orders; strips (large) or the search's phases (small); lns moves
 * Every phase reads the deadline, and none starts past it; a phase that runs out of memory
 * leaves the best placement so far (only the first incumbent's failing fails the call).
 * With threads (search and lns), worker 0 runs the strategy as one thread would; once it posts
 * its first incumbent (greedy-by-size's, the first order of both), worker 1 runs the other of
 * search and lns and workers 2 and up lns with seeds seed + k, starting from that placement
 * instead of making it again; each on its own clock: the first to meet the goal (or prove its
 * height optimal) stops the others, and the lowest height wins (ties: the lower worker). On a
 * tick clock the height is never above one thread's and is the same every run; the offsets
 * are too unless two workers meet the goal.
 * The goal is the capacity where only a fit is asked, else the max-live bound. The bound is
 * already a multiple of the grain (the grain divides every size, the bound is a sum of sizes),
 * so rounding it up to the grain, as lns once did, changes nothing: one goal, not two. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "place/engine.h"

/* ---- The time shares, of the strategy's time limit or of what is left of it ----------------
 * strips: at most 1/ARP_CUTS_PART of the limit; perturbed orders: up to ARP_PERTURBED_ORDERS
 * within 1/ARP_PERTURBED_PART of it; a fit-only question: ARP_FIT_SHARE of it (an undecided one
 * leaves the rest to the local search over orders); minimising: the bound asked first with
 * 1/ARP_BOUND_PART of what is left (inference is strongest there), then each question an even
 * share of what is left; lns up to ARP_LNS_EXACT_BUFFERS buffers: the search's phases first,
 * with ARP_LNS_EXACT_SHARE of the limit. */
#define ARP_CUTS_PART 2
#define ARP_PERTURBED_PART 20
#define ARP_PERTURBED_ORDERS 1024
#define ARP_FIT_SHARE 0.9
#define ARP_BOUND_PART 3
#define ARP_LNS_EXACT_SHARE 0.9
#define ARP_LNS_EXACT_BUFFERS 2048
/* Past this many sections visited by one node of the exact search (each timed row's, summed),
 * its tree cannot answer within any limit a user waits for (a real trace of 10^5 buffers visits
 * 10^9): the time left after the incumbents goes to lns moves instead. PanGu 2.6B visits
 * 1.3 x 10^7. */
#define ARP_SEARCH_NODE_WORK ((uint64_t)1 << 26)
/* The random sources' first states: perturbed order k, the order local search, lns moves. */
#define ARP_SEED_MIX 0x9e3779b97f4a7c15ull
#define ARP_SEED_IMPROVE 0x2545f4914f6cdd1dull

/* What every phase of a run reads and writes. */
typedef struct drive_t {
    ar_place_problem_t const *problem;
    arp_place_groups_t const *groups;
    arp_sweep_t const *sweep;
    ar_place_options_t const *options;
    arp_clock_t *clock;
    double start;   /* when the call began: every share is of the limit from then */
    double limit_s; /* the time limit */
    double setup_s; /* what gathering the buffers and the sweep took (0 on small problems) */
    uint64_t goal;
    uint64_t *offsets; /* the best so far (per row), of height `best` (UINT64_MAX: none yet) */
    uint64_t best;
    uint64_t *trial; /* scratch per row */
    ar_place_result_t *result;
    arp_phases_t *phases;  /* NULL, or the phases started */
    struct board_t *board; /* worker 0 of several: where its first incumbent goes */
    uint64_t const *first; /* other workers: worker 0's first order, greedy-by-size's, per row
                              (the first order of search and lns alike), not made again */
} drive_t;

/* What worker 0 of a portfolio hands the others: its first incumbent, once. */
typedef struct board_t {
    pthread_mutex_t lock;
    pthread_cond_t posted;
    bool ready, has; /* worker 0 posted (or ended without an incumbent); one is there */
    uint64_t *offsets, best;
} board_t;

/* The first incumbent to the other workers (no-op after the first call, or alone). */
static void post(drive_t const *d, bool has) {
    board_t *b = d->board;
    if (!b) return;
    pthread_mutex_lock(&b->lock);
    if (!b->ready) {
        if (has) memcpy(b->offsets, d->offsets, d->problem->count * sizeof *b->offsets);
        b->best = d->best, b->has = has, b->ready = true;
        pthread_cond_broadcast(&b->posted);
    }
    pthread_mutex_unlock(&b->lock);
}

/* Whether another order can start before `deadline`: not past it, and, on a problem large
 * enough for an order to take time (ARP_CLOCK_BUFFERS rows), with as much time left as the last
 * order took (*took: from `*since`, the read before it, to this read, which becomes *since; a
 * negative *since keeps *took): an order its deadline cuts short is only worth finishing as
 * the first, and its last moments go past the deadline. One read, as a plain check was. */
static bool order_fits(drive_t const *d, double *since, double *took, double deadline) {
    if (arp_clock_past(d->clock, deadline)) return false;
    double now = d->clock->last;
    if (*since >= 0) *took = now - *since;
    *since = now;
    return d->problem->count < ARP_CLOCK_BUFFERS || now + *took <= deadline;
}

/* A phase starts. */
static void enter(drive_t *d, arp_phase_t phase) {
    arp_phases_t *p = d->phases;
    if (p && p->count < sizeof p->phase / sizeof *p->phase &&
        (!p->count || p->phase[p->count - 1] != phase))
        p->phase[p->count++] = phase;
}

/* Keep trial as the best when it is lower. */
static void keep_if_lower(drive_t *d, uint64_t const *trial) {
    uint64_t height = ar_place_height(d->problem, trial);
    if (height < d->best) {
        d->best = height;
        memcpy(d->offsets, trial, d->problem->count * sizeof *d->offsets);
    }
}

/* A decision's answer (per buffer) as rows, kept when lower. */
static void keep_found(drive_t *d, uint64_t const *at) {
    arp_place_groups_spread(d->problem, d->groups, at, d->trial);
    keep_if_lower(d, d->trial);
}

/* The heuristics' order and gap rule, by strategy. */
static arp_order_t const heuristic_order[] = {arp_order_size_k, arp_order_breadth_k,
                                              arp_order_start_k, arp_order_size_length_k};

static arp_result_t heuristic(drive_t *d, ar_place_strategy_t strategy, double deadline,
                              uint64_t *offsets) {
    enter(d, arp_phase_greedy_k);
    return arp_greedy(d->problem, d->groups, d->sweep, heuristic_order[strategy],
                      strategy == ar_place_best_fit_k, d->options->alignment, d->clock, deadline,
                      offsets, NULL);
}

/* Sections one node of the exact search visits: every timed row's, and the sections. */
static uint64_t node_work(drive_t const *d) {
    uint64_t work = d->sweep->sections;
    for (size_t i = 0; i < d->problem->count; ++i)
        work += d->sweep->row_hi[i] - d->sweep->row_lo[i];
    return work;
}

/* lns moves from the best so far until `deadline` (or the goal, or max_moves): lns's last
 * phase, and the search's where its tree cannot afford a node. Out of memory: the best stands. */
static void moves(drive_t *d, double deadline) {
    arp_place_groups_t const *g = d->groups;
    size_t m = g->count;
    /* Setting the moves up sorts and indexes every buffer, at most what the sweep cost: it
     * starts only with that much time left (on 10^6 buffers, 0.1 s past a 1 s limit). */
    if (arp_clock_past(d->clock, deadline - d->setup_s)) return;
    uint64_t *at = calloc(m + 1, sizeof *at);
    if (!at) return;
    for (size_t b = 0; b < m; ++b)
        at[b] = arp_place_group_holds(g, b) ? d->offsets[g->first[b]] : 0;
    arp_rng_t rng = arp_rng_make(d->options->seed * ARP_SEED_MIX ^ ARP_SEED_IMPROVE);
    arp_lns_t lns = {.goal = d->goal, .max_moves = d->options->max_moves};
    enter(d, arp_phase_moves_k);
    if (arp_lns(d->problem, g, d->sweep, d->options->alignment, &lns, d->clock, deadline, &rng,
                arp_search_decide_rows, at) == arp_found_k) {
        arp_place_groups_spread(d->problem, g, at, d->offsets);
        d->best = lns.height;
        d->result->nodes += lns.moves;
    }
    free(at);
}

/* `search`: the incumbents, strips, perturbed orders, then the exact search. */
static arp_result_t drive_search(drive_t *d, double limit_s) {
    ar_place_options_t const *options = d->options;
    ar_place_result_t *result = d->result;
    arp_clock_t *clock = d->clock;
    double start = d->start, end = start + limit_s;
    double since = start, took = 0;
    for (int h = 0; h < ar_place_search_k; ++h) {
        if (h && !order_fits(d, &since, &took, end)) break;
        arp_result_t made = arp_found_k;
        if (h == 0 && d->first)
            memcpy(d->trial, d->first, d->problem->count * sizeof *d->trial);
        else
            made = heuristic(d, (ar_place_strategy_t)h, end, d->trial);
        if (made != arp_found_k) {
            if (h == 0) return made;
            break;
        }
        keep_if_lower(d, d->trial);
        post(d, true);
        /* Nothing can be lower than the bound, and a later order only replaces a lower one. */
        if (d->best <= d->sweep->bound) break;
    }
    uint64_t bound = d->sweep->bound, goal = d->goal;
    bool fit_only = options->capacity && !options->minimize;
    double cuts_end = start + limit_s / ARP_CUTS_PART;
    if (d->best > goal && !arp_clock_past(clock, cuts_end)) {
        /* Ends at once on a problem whose load is not level at the goal. */
        enter(d, arp_phase_strips_k);
        arp_result_t cut = arp_strips(d->problem, d->groups, options->alignment, goal, clock,
                                      cuts_end, arp_search_decide_rows, d->trial);
        if (cut == arp_found_k) keep_if_lower(d, d->trial);
    }
    since = -1; /* the first perturbed order takes what the last heuristic took */
    for (uint64_t k = 1; d->best > goal && k <= ARP_PERTURBED_ORDERS &&
                         order_fits(d, &since, &took, start + limit_s / ARP_PERTURBED_PART);
         ++k) {
        arp_rng_t rng = arp_rng_make(k * ARP_SEED_MIX + 1);
        enter(d, arp_phase_perturbed_k);
        arp_result_t made = arp_greedy_perturbed(d->problem, d->groups, d->sweep,
                                                 options->alignment, (unsigned)(k & 3), &rng, clock,
                                                 start + limit_s / ARP_PERTURBED_PART, d->trial);
        if (made == arp_oom_k) break;
        if (made == arp_found_k) keep_if_lower(d, d->trial);
    }
    result->nodes = 0;
    result->optimal = d->best <= bound;
    if (d->best <= goal || d->best == 0) return arp_found_k;
    if (node_work(d) > ARP_SEARCH_NODE_WORK) {
        moves(d, end);
        result->optimal = d->best <= bound;
        return arp_found_k;
    }
    arp_search_t *search = arp_search_make(d->problem, d->groups, d->sweep, options->alignment);
    uint64_t *at = calloc(d->groups->count + 1, sizeof *at);
    if (!search || !at) { /* the exact search cannot start: the best so far stands */
        arp_search_free(search), free(at);
        return arp_found_k;
    }
    arp_result_t out = arp_found_k;
    if (fit_only) {
        /* One question: a placement within the capacity. */
        enter(d, arp_phase_tree_k);
        out = arp_search_decide(search, options->capacity, clock, start + limit_s * ARP_FIT_SHARE,
                                UINT64_MAX, at, &result->nodes);
        if (out == arp_found_k) keep_found(d, at);
        if (out == arp_stopped_k) {
            /* Undecided: the rest of the limit polishes the best instead. */
            arp_rng_t rng = arp_rng_make(ARP_SEED_IMPROVE);
            enter(d, arp_phase_improve_k);
            arp_greedy_improve(d->problem, d->groups, d->sweep, options->alignment, goal,
                               UINT64_MAX, clock, end, &rng, d->offsets);
            d->best = ar_place_height(d->problem, d->offsets);
        }
    } else {
        /* Bisect: lo is the least height not yet ruled out, best a height found. Each question
         * gets an even share of the time left; one not decided in its share is treated as
         * ruled out, so the result is then not proven optimal. Heights of lowest-gap
         * placements are multiples of the grain, so only those are asked (the bound is one). */
        uint64_t grain = d->sweep->grain, lo = bound;
        bool proven = true;
        if (lo < d->best) {
            double now = arp_clock_now(clock);
            enter(d, arp_phase_tree_k);
            out = arp_search_decide(search, lo, clock, now + (end - now) / ARP_BOUND_PART,
                                    UINT64_MAX, at, &result->nodes);
            if (out == arp_found_k)
                keep_found(d, at);
            else if (out == arp_none_k)
                lo += grain;
        }
        while (lo < d->best && out != arp_oom_k) {
            if (arp_clock_past(clock, end)) {
                proven = false;
                break;
            }
            double now = clock->last;
            uint64_t steps = 1, gap = (d->best - lo) / grain;
            while (gap >>= 1) ++steps;
            uint64_t mid = lo + (d->best - lo) / grain / 2 * grain;
            enter(d, arp_phase_tree_k);
            out = arp_search_decide(search, mid, clock, now + (end - now) / (double)steps,
                                    UINT64_MAX, at, &result->nodes);
            if (out == arp_found_k) {
                keep_found(d, at);
            } else {
                proven = proven && out == arp_none_k;
                lo = mid + grain;
            }
        }
        result->optimal = proven && lo >= d->best;
    }
    arp_search_free(search), free(at);
    result->optimal = result->optimal || d->best <= bound; /* the best may have come down */
    return arp_found_k; /* out of memory in the search: the best so far stands */
}

/* `lns`: the incumbents' orders, then strips or the search's phases, then the moves. */
static arp_result_t drive_lns(drive_t *d) {
    ar_place_options_t const *options = d->options;
    arp_place_groups_t const *g = d->groups;
    arp_clock_t *clock = d->clock;
    double start = d->start, deadline = start + d->limit_s;
    size_t m = g->count, held = 0;
    for (size_t b = 0; b < m; ++b) held += arp_place_group_holds(g, b);
    /* Lowest gaps by size (greedy-by-size), size times lifetime, start, and the buffers live at
     * the peak first (longest lowest), the rest by size or by size times lifetime; ties go to
     * the later orders. */
    static arp_order_t const orders[] = {arp_order_size_k, arp_order_area_k, arp_order_start_only_k,
                                         arp_order_peak_size_k, arp_order_peak_area_k};
    double since = start, took = 0;
    for (int k = 0; k < 5; ++k) {
        if (k && !order_fits(d, &since, &took, deadline)) break;
        enter(d, arp_phase_greedy_k);
        arp_result_t made = arp_found_k;
        if (k == 0 && d->first)
            memcpy(d->trial, d->first, d->problem->count * sizeof *d->trial);
        else
            made = arp_greedy(d->problem, g, d->sweep, orders[k], false, options->alignment, clock,
                              deadline, d->trial, NULL);
        if (made != arp_found_k) {
            if (k == 0) return made;
            break;
        }
        uint64_t h = ar_place_height(d->problem, d->trial);
        if (h < d->best || (h == d->best && k >= 3)) {
            d->best = h;
            memcpy(d->offsets, d->trial, d->problem->count * sizeof *d->offsets);
        }
        post(d, true);
        /* At the bound nothing is left to do (the later orders' ties only give moves a start). */
        if (d->best <= d->sweep->bound) break;
    }
    uint64_t goal = d->goal;
    bool proven = false;
    double cuts_end = start + d->limit_s / ARP_CUTS_PART;
    if (held > ARP_LNS_EXACT_BUFFERS && d->best > goal && !arp_clock_past(clock, cuts_end)) {
        /* A perfect packing, cut apart (the search's phases do this below that size). */
        enter(d, arp_phase_strips_k);
        arp_result_t cut = arp_strips(d->problem, g, options->alignment, goal, clock, cuts_end,
                                      arp_search_decide_rows, d->trial);
        if (cut == arp_found_k) {
            d->best = ar_place_height(d->problem, d->trial);
            memcpy(d->offsets, d->trial, d->problem->count * sizeof *d->offsets);
        }
    }
    if (held <= ARP_LNS_EXACT_BUFFERS && d->best > goal) {
        /* Small enough for the search to finish often: its phases go first. */
        drive_t exact = *d;
        ar_place_result_t answer = {0};
        exact.result = &answer;
        exact.best = UINT64_MAX;
        exact.offsets = malloc((d->problem->count + 1) * sizeof *exact.offsets);
        arp_result_t out =
            exact.offsets ? drive_search(&exact, d->limit_s * ARP_LNS_EXACT_SHARE) : arp_oom_k;
        if (out == arp_found_k && exact.best < d->best) {
            d->best = exact.best;
            memcpy(d->offsets, exact.offsets, d->problem->count * sizeof *d->offsets);
        }
        free(exact.offsets);
        if (out == arp_found_k) {
            proven = answer.optimal;
            d->result->nodes = answer.nodes;
        }
    }
    d->result->optimal = proven;
    if (!proven && held && d->best > goal) moves(d, deadline);
    return arp_found_k;
}

/* One strategy on one drive. */
static arp_result_t run(drive_t *d) {
    if (d->options->strategy == ar_place_search_k) return drive_search(d, d->limit_s);
    if (d->options->strategy == ar_place_lns_k) return drive_lns(d);
    arp_result_t out = heuristic(d, d->options->strategy, d->start + d->limit_s, d->offsets);
    d->best = ar_place_height(d->problem, d->offsets);
    return out;
}

/* A worker of the portfolio: its own options, clock, placement and result. */
typedef struct worker_t {
    drive_t d;
    ar_place_options_t options;
    arp_clock_t clock;
    ar_place_result_t result;
    arp_result_t out;
    int *stop; /* set by the first to meet the goal */
    board_t *board;
    pthread_t thread;
    bool started;
} worker_t;

static void stop_if_done(worker_t *w) {
    if (w->out == arp_found_k && (w->d.best <= w->d.goal || w->result.optimal))
        __atomic_store_n(w->stop, 1, __ATOMIC_RELAXED);
}

/* Worker 0: the strategy as one thread runs it. */
static void *lead(void *argument) {
    worker_t *w = argument;
    w->out = run(&w->d);
    post(&w->d, false); /* ended before posting: the others have nothing to start from */
    stop_if_done(w);
    return NULL;
}

/* Workers 1 and up: once worker 0 posts its first incumbent (greedy-by-size's placement, the
 * first order of search and lns alike), the other of search and lns (worker 1) or lns with
 * seed + k, taking that placement for their first order instead of making it again: each ends
 * as it would alone, and on a problem where one order is most of the limit, that order has the
 * processor to itself until it is done. */
static void *follow(void *argument) {
    worker_t *w = argument;
    board_t *b = w->board;
    pthread_mutex_lock(&b->lock);
    while (!b->ready) pthread_cond_wait(&b->posted, &b->lock);
    bool has = b->has;
    pthread_mutex_unlock(&b->lock);
    if (!has) return NULL;
    w->d.first = b->offsets; /* read-only once posted */
    w->out = run(&w->d);
    stop_if_done(w);
    return NULL;
}

/* The strategy on `threads` workers side by side (d: what they share; the winner's placement
 * is copied into d->offsets). */
static arp_result_t portfolio(drive_t *d, unsigned threads) {
    worker_t *w = calloc(threads, sizeof *w);
    size_t n = d->problem->count;
    board_t board = {.offsets = malloc((n + 1) * sizeof *board.offsets)};
    if (!w || !board.offsets) {
        free(w), free(board.offsets);
        return run(d); /* one thread, then */
    }
    pthread_mutex_init(&board.lock, NULL);
    pthread_cond_init(&board.posted, NULL);
    int stop = 0;
    for (unsigned k = 0; k < threads; ++k) {
        w[k].options = *d->options;
        if (k == 1)
            w[k].options.strategy =
                d->options->strategy == ar_place_search_k ? ar_place_lns_k : ar_place_search_k;
        if (k >= 2) w[k].options.strategy = ar_place_lns_k, w[k].options.seed += k;
        w[k].clock = *d->clock;
        w[k].clock.stop = &stop;
        w[k].stop = &stop;
        w[k].board = &board;
        w[k].d = *d;
        w[k].d.options = &w[k].options;
        w[k].d.clock = &w[k].clock;
        w[k].d.result = &w[k].result;
        w[k].d.phases = k == 0 ? d->phases : NULL;
        w[k].d.board = k == 0 ? &board : NULL;
        w[k].d.offsets = malloc((n + 1) * sizeof *w[k].d.offsets);
        w[k].d.trial = malloc((n + 1) * sizeof *w[k].d.trial);
        w[k].out = arp_oom_k;
    }
    for (unsigned k = 1; k < threads; ++k)
        if (w[k].d.offsets && w[k].d.trial)
            w[k].started = pthread_create(&w[k].thread, NULL, follow, &w[k]) == 0;
    if (w[0].d.offsets && w[0].d.trial)
        lead(&w[0]);
    else
        post(&w[0].d, false);
    for (unsigned k = 1; k < threads; ++k)
        if (w[k].started) pthread_join(w[k].thread, NULL);
    unsigned best = threads;
    bool proven = false;
    for (unsigned k = 0; k < threads; ++k) {
        if (w[k].out != arp_found_k) continue;
        if (best == threads || w[k].d.best < w[best].d.best) best = k;
    }
    for (unsigned k = 0; k < threads; ++k)
        proven |= w[k].out == arp_found_k && w[k].result.optimal && best < threads &&
                  w[k].d.best == w[best].d.best;
    arp_result_t out = w[0].out == arp_oom_k ? arp_oom_k : arp_found_k;
    if (best < threads) {
        memcpy(d->offsets, w[best].d.offsets, n * sizeof *d->offsets);
        d->best = w[best].d.best;
        d->result->nodes = w[best].result.nodes;
        d->result->optimal = proven;
        out = arp_found_k;
    }
    *d->clock = w[0].clock; /* the call's time is worker 0's */
    d->clock->stop = NULL;
    for (unsigned k = 0; k < threads; ++k) free(w[k].d.offsets), free(w[k].d.trial);
    pthread_mutex_destroy(&board.lock);
    pthread_cond_destroy(&board.posted);
    free(board.offsets), free(w);
    return out;
}

ar_status_t ar_place(ar_place_problem_t const *problem, ar_place_options_t const *options,
                     uint64_t *offsets, ar_place_result_t *result) {
    arp_clock_t clock = arp_clock_make(options ? options->clock_tick_s : 0);
    return arp_place_with(problem, options, &clock, NULL, offsets, result);
}

ar_status_t arp_place_with(ar_place_problem_t const *problem, ar_place_options_t const *options,
                           arp_clock_t *clock, arp_phases_t *phases, uint64_t *offsets,
                           ar_place_result_t *result) {
    ar_place_result_t ignored;
    if (!result) result = &ignored;
    memset(result, 0, sizeof *result);
    ar_place_options_t defaults;
    if (!options) {
        ar_place_options_default(&defaults);
        options = &defaults;
    }
    if (!problem || (problem->count && !offsets)) {
        snprintf(result->message, sizeof result->message, "no problem or no offsets array");
        return ar_status_invalid_argument_k;
    }
    if (options->threads > AR_PLACE_THREADS_MAX) {
        snprintf(result->message, sizeof result->message, "%u threads: at most %d",
                 options->threads, AR_PLACE_THREADS_MAX);
        return ar_status_invalid_argument_k;
    }
    if ((unsigned)options->strategy >= ar_place_strategy_count_k) {
        snprintf(result->message, sizeof result->message, "unknown strategy %d",
                 (int)options->strategy);
        return ar_status_invalid_argument_k;
    }
    if (options->alignment > 1 && ((options->alignment & (options->alignment - 1)) ||
                                   options->alignment >= AR_PLACE_MAX_BYTES)) {
        snprintf(result->message, sizeof result->message,
                 "the alignment floor %llu is not a power of two below 2^56",
                 (unsigned long long)options->alignment);
        return ar_status_invalid_argument_k;
    }
    if (!arp_place_rows_valid(problem, result->message, sizeof result->message))
        return ar_status_invalid_argument_k;
    double start = arp_clock_now(clock);
    arp_place_groups_t groups; /* gathering them checks them: once per call */
    ar_status_t status =
        arp_place_groups_make(problem, &groups, result->message, sizeof result->message);
    if (status != ar_status_success_k) return status;
    arp_sweep_t sweep;
    uint64_t *trial = malloc((problem->count + 1) * sizeof *trial);
    arp_result_t out = arp_oom_k;
    if (trial && arp_sweep_make(problem, options->alignment, &sweep) == ar_status_success_k) {
        drive_t d = {.problem = problem,
                     .groups = &groups,
                     .sweep = &sweep,
                     .options = options,
                     .clock = clock,
                     .phases = phases,
                     .start = start,
                     .limit_s = options->time_limit_s > 0 ? options->time_limit_s
                                                          : AR_PLACE_TIME_LIMIT_DEFAULT,
                     /* Small problems read the clock no more than before (tick runs stay). */
                     .setup_s = problem->count >= ARP_CLOCK_BUFFERS
                                    ? arp_clock_now(clock) - start
                                    : 0,
                     .goal =
                         options->capacity && !options->minimize ? options->capacity : sweep.bound,
                     .offsets = offsets,
                     .best = UINT64_MAX,
                     .trial = trial,
                     .result = result};
        unsigned threads = options->threads > 1 ? options->threads : 1;
        if (options->strategy != ar_place_search_k && options->strategy != ar_place_lns_k)
            threads = 1; /* one order: nothing to run beside it */
        out = threads > 1 ? portfolio(&d, threads) : run(&d);
        result->height = d.best == UINT64_MAX ? 0 : d.best;
        result->lower_bound = sweep.bound;
        arp_sweep_free(&sweep);
    }
    free(trial);
    arp_place_groups_free(&groups);
    arp_clock_now(clock);
    double end = clock->last;
    if (out == arp_oom_k) {
        snprintf(result->message, sizeof result->message, "out of memory");
        return ar_status_out_of_memory_k;
    }
    result->fits = !options->capacity || result->height <= options->capacity;
    if (result->height == result->lower_bound) result->optimal = true;
    result->seconds = end - start;
    return ar_status_success_k;
}
