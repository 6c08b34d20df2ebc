/* What the placement driver (driver.c) hands its engines and what they hand back. The driver
 * alone owns the goal, the time shares and the order of a strategy's phases; each engine does
 * one thing on what it is given and never calls another engine (where one needs a sub-problem
 * decided, the driver passes it a decider):
 *   sweep.c   the problem's times, sections, load and bound, computed once per problem
 *   greedy.c  lowest-gap and tightest-gap placement in an order (the heuristics, the
 *             incumbents' orders, perturbed orders, a local search over orders), on gaps.c
 *   search.c  the exact search as a decision: a placement within a limit, or none
 *   strips.c  perfect packings cut apart in time and into strips (balance.c: its guesses)
 *   lns.c     large-neighbourhood moves from an incumbent
 * Every engine reads the clock it is given (never a global one) against the deadline it is
 * given, and draws from the random source it is given (place_internal.h). */
#ifndef ARENAREF_PLACE_ENGINE_H
#define ARENAREF_PLACE_ENGINE_H

#include "place_internal.h"

/* ---- One result convention ------------------------------------------------------------- */

typedef enum arp_result_t {
    arp_found_k,   /* a placement (within the limit asked, where one was) */
    arp_none_k,    /* proven: none exists (or, for a heuristic engine, not of its kind) */
    arp_stopped_k, /* the deadline, a node budget or a depth cap came first: undecided */
    arp_oom_k,     /* out of memory */
} arp_result_t;

/* ---- The clock -------------------------------------------------------------------------
 * The wall clock (CLOCK_MONOTONIC), or a tick clock that moves `tick_s` at each read, so the
 * work done before a deadline follows from the input alone. `expire_after` (tests): past that
 * many reads the clock reads as far past any deadline; `stop` (another engine's thread met the
 * goal): the same once it is set. Once expired, it stays so. One clock per thread. */
typedef struct arp_clock_t {
    double tick_s;         /* > 0: a tick clock */
    double ticks;          /* a tick clock's time */
    uint64_t reads;        /* reads so far */
    uint64_t expire_after; /* 0: never */
    int const *stop;       /* NULL, or a flag another thread sets (read atomically) */
    bool expired;
    double last; /* the last time read, expired or not */
} arp_clock_t;

/* Far past any deadline: deadlines computed from it (now + a share of what is left) stay
 * below it, so every later comparison reads expired too. */
#define ARP_CLOCK_EXPIRED 1e300

/* A clock: the wall clock when tick_s <= 0. */
static inline arp_clock_t arp_clock_make(double tick_s) {
    arp_clock_t clock = {tick_s > 0 ? tick_s : 0, 0, 0, 0, NULL, false, 0};
    return clock;
}

/* Seconds (from an arbitrary origin), or ARP_CLOCK_EXPIRED. */
double arp_clock_now(arp_clock_t *clock);

/* Whether the clock has expired (after its reads, or another thread's flag), without reading
 * it: what engines check at every step, so an expired clock stops them at once and a live one
 * is read no more often than before. */
static inline bool arp_clock_dead(arp_clock_t const *clock) {
    return clock->expired || (clock->stop && __atomic_load_n(clock->stop, __ATOMIC_RELAXED));
}

/* Whether it is past `deadline`, an expired clock always (deadlines made from the time an
 * expired clock reads are not below it): one read. */
static inline bool arp_clock_past(arp_clock_t *clock, double deadline) {
    double now = arp_clock_now(clock);
    return clock->expired || now > deadline;
}

/* An engine placing buffers one by one reads the clock every ARP_CLOCK_EVERY of them, on
 * problems of at least ARP_CLOCK_BUFFERS (smaller ones take milliseconds: never, so a tick
 * clock's reads, and what they decide, stay what they were). */
#define ARP_CLOCK_BUFFERS 4096
#define ARP_CLOCK_EVERY 64

/* An order of `count` buffers at its k-th: whether it goes on. The clock is read every
 * ARP_CLOCK_EVERY buffers from ARP_CLOCK_BUFFERS up, and an expired clock is seen at once (no
 * clock: never). Past the deadline it stops without `finish`, and with it goes on stacking the
 * rest (*stacking set from then on). */
static inline bool arp_order_goes_on(arp_clock_t *clock, size_t count, size_t k, double deadline,
                                     bool finish, bool *stacking) {
    if (*stacking || !clock) return true;
    if (((count >= ARP_CLOCK_BUFFERS && k % ARP_CLOCK_EVERY == ARP_CLOCK_EVERY - 1) ||
         arp_clock_dead(clock)) &&
        arp_clock_past(clock, deadline)) {
        if (!finish) return false;
        *stacking = true;
    }
    return true;
}

/* ---- The driver (driver.c) -------------------------------------------------------------
 * ar_place on a clock of the caller's (ar_place makes one from the options' clock_tick_s):
 * tests hand it one that expires after K reads. `phases` (NULL: none) gets the phases the
 * driver started, in order (a phase run several times in a row once). */
typedef enum arp_phase_t {
    arp_phase_greedy_k,    /* one order at lowest or tightest gaps (a heuristic, an incumbent) */
    arp_phase_strips_k,    /* strips.c */
    arp_phase_perturbed_k, /* perturbed orders */
    arp_phase_tree_k,      /* the exact search's decisions */
    arp_phase_improve_k,   /* the local search over orders */
    arp_phase_moves_k,     /* lns moves */
} arp_phase_t;

typedef struct arp_phases_t {
    size_t count;
    arp_phase_t phase[32];
} arp_phases_t;

ar_status_t arp_place_with(ar_place_problem_t const *problem, ar_place_options_t const *options,
                           arp_clock_t *clock, arp_phases_t *phases, uint64_t *offsets,
                           ar_place_result_t *result);

/* ---- The sweep: computed once per problem (sweep.c) -------------------------------------
 * Over the rows that hold bytes (arp_place_holds; of a buffer of several rows, those with
 * lower < upper): their distinct bounds in order, `times[0, sections + 1)`; section k is
 * [times[k], times[k + 1]) and `load[k]` the bytes live there; `bound` the largest load (the
 * max-live bound); each such row's sections [row_lo[i], row_hi[i]) (0, 0 for other rows);
 * `grain` the greatest common divisor of the sizes and effective alignments (every height a
 * lowest-gap placement makes is a multiple, and so is the bound); `peak` the first section of
 * the most load. */
typedef struct arp_sweep_t {
    size_t sections;
    uint64_t *times, *load;
    uint32_t *row_lo, *row_hi;
    uint64_t bound, grain;
    size_t peak;
} arp_sweep_t;

/* `alignment` the floor on every alignment (for the grain). ar_status_out_of_memory_k, or
 * success; rows past 2^31 sections are not refused (sections are uint32_t below 2^32). */
ar_status_t arp_sweep_make(ar_place_problem_t const *problem, uint64_t alignment,
                           arp_sweep_t *sweep);
void arp_sweep_free(arp_sweep_t *sweep);

/* ---- greedy.c: placement in an order ----------------------------------------------------- */

/* The orders buffers are placed in; ties break on the buffer's first row. */
typedef enum arp_order_t {
    arp_order_size_k,        /* non-increasing size (greedy-by-size) */
    arp_order_breadth_k,     /* time points by breadth, each one's buffers by size */
    arp_order_start_k,       /* start, then larger first (first-fit) */
    arp_order_size_length_k, /* size, then longer lifetime (best-fit) */
    arp_order_area_k,        /* size times total lifetime */
    arp_order_start_only_k,  /* start alone */
    arp_order_peak_size_k,   /* live at the peak first (longest lowest), then by size */
    arp_order_peak_area_k,   /* live at the peak first, then by size times lifetime */
    arp_order_count_k
} arp_order_t;

/* Each buffer in `order` at the lowest gap the placed buffers live with it leave (`tightest`:
 * the tightest gap, else on top); offsets[] per row. Past the deadline (read every
 * ARP_CLOCK_EVERY buffers from ARP_CLOCK_BUFFERS up; clock NULL: never) the rest go on top of
 * everything, O(1) each, so it always places all at once. `work` (NULL: none) gets the set
 * operations gaps.c counted. arp_found_k or arp_oom_k. */
arp_result_t arp_greedy(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                        arp_sweep_t const *sweep, arp_order_t order, bool tightest,
                        uint64_t alignment, arp_clock_t *clock, double deadline, uint64_t *offsets,
                        uint64_t *work);

/* A perturbed order at lowest gaps (bit 0 of `variant`: size times lifetime, else size; bit 1:
 * tightest gaps), sizes scaled by factors the random source draws. arp_stopped_k (offsets[]
 * untouched) when the deadline comes first. */
arp_result_t arp_greedy_perturbed(ar_place_problem_t const *problem,
                                  arp_place_groups_t const *groups, arp_sweep_t const *sweep,
                                  uint64_t alignment, unsigned variant, arp_rng_t *rng,
                                  arp_clock_t *clock, double deadline, uint64_t *offsets);

/* Local search over orders from a valid placement (offsets[] in and out): moves of a buffer to
 * an earlier place in the order, kept when the height does not rise. Stops at `goal`, after
 * `moves` moves, or at the deadline (a move it cuts short is dropped). */
arp_result_t arp_greedy_improve(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                                arp_sweep_t const *sweep, uint64_t alignment, uint64_t goal,
                                uint64_t moves, arp_clock_t *clock, double deadline, arp_rng_t *rng,
                                uint64_t *offsets);

/* ---- gaps.c: where a buffer fits among the placed ones ----------------------------------
 * A buffer is its spans, sections [lo[j], hi[j]) of the sweep (one per timed row). */
typedef struct arp_gaps_t arp_gaps_t;
arp_gaps_t *arp_gaps_make(size_t sections); /* NULL: out of memory */
void arp_gaps_free(arp_gaps_t *gaps);
/* The least offset, a multiple of `align`, where `size` bytes meet no placed buffer live in
 * the spans; the tightest such gap between placed ones (else the aligned top of them). */
uint64_t arp_gaps_lowest(arp_gaps_t *gaps, uint32_t const *lo, uint32_t const *hi, size_t spans,
                         uint64_t size, uint64_t align);
uint64_t arp_gaps_tightest(arp_gaps_t *gaps, uint32_t const *lo, uint32_t const *hi, size_t spans,
                           uint64_t size, uint64_t align);
/* The buffer placed at `at`. */
void arp_gaps_add(arp_gaps_t *gaps, uint32_t const *lo, uint32_t const *hi, size_t spans,
                  uint64_t at, uint64_t size);
uint64_t arp_gaps_work(arp_gaps_t const *gaps); /* set operations so far, counted */
bool arp_gaps_failed(arp_gaps_t const *gaps);   /* ran out of memory on the way */

/* ---- starts.c: lowest gaps in order of start, as a sweep ------------------------------------
 * Whether `order` is by non-decreasing start, every buffer of one row; then each buffer at the
 * least aligned offset clear of the placed ones live at its start (the same as gaps.c's), with
 * arp_greedy's deadline and stacking (`finish`) or arp_stopped_k. */
bool arp_starts_apply(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                      size_t const *order, size_t count);
arp_result_t arp_starts_place(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                              size_t const *order, size_t count, uint64_t alignment,
                              arp_clock_t *clock, double deadline, bool finish, uint64_t *at,
                              uint64_t *work);

/* ---- search.c: the exact search as a decision --------------------------------------------- */

typedef struct arp_search_t arp_search_t;

/* The problem cut into the sweep's sections once (each buffer's spans, size, alignment),
 * ready for any number of decisions. NULL when out of memory. */
arp_search_t *arp_search_make(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                              arp_sweep_t const *sweep, uint64_t alignment);
void arp_search_free(arp_search_t *search);

/* Is there a placement within `limit`? at[] per buffer (groups' numbering) when found. Three
 * preorders take turns on doubling node budgets (up to `most` nodes a run); `nodes` counts
 * the nodes that passed inference. */
arp_result_t arp_search_decide(arp_search_t *search, uint64_t limit, arp_clock_t *clock,
                               double deadline, uint64_t most, uint64_t *at, uint64_t *nodes);

/* A decider: the exact search on rows (one buffer each, each row's own alignment), some pinned
 * (pin[i] != UINT64_MAX fixes row i there): a placement within `limit` in offsets[] (per row),
 * none, or stopped within `most` nodes a run or the deadline. What strips and lns moves are
 * handed for their sub-problems. */
typedef arp_result_t (*arp_decider_t)(ar_place_problem_t const *rows, uint64_t const *pin,
                                      uint64_t limit, arp_clock_t *clock, double deadline,
                                      uint64_t most, uint64_t *offsets, uint64_t *nodes);
arp_result_t arp_search_decide_rows(ar_place_problem_t const *rows, uint64_t const *pin,
                                    uint64_t limit, arp_clock_t *clock, double deadline,
                                    uint64_t most, uint64_t *offsets, uint64_t *nodes);

/* ---- strips.c: perfect packings cut apart ------------------------------------------------- */

/* A placement within `limit` of a problem whose load is `limit` at every time of its span,
 * by cutting it in time and into strips; parts neither cut splits go to `decide` until the
 * deadline. arp_found_k (offsets[] per row, checked valid and within the limit), arp_none_k
 * (not found, or not such a problem), arp_oom_k. */
arp_result_t arp_strips(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                        uint64_t alignment, uint64_t limit, arp_clock_t *clock, double deadline,
                        arp_decider_t decide, uint64_t *offsets);

/* ---- balance.c: a balanced group among a part's sets (for strips.c) ---------------------
 * `sets` sets, `times` times; time j holds cells [first[j], first[j + 1]), each a set and its
 * nonzero net there (set[c], net[c]), the nets of a time summing to 0. A nonempty proper
 * subset whose nets sum to 0 at every time: in[x] (per set) 1 for its sets. Within `visits`
 * choices and `work` subsets looked at, or the deadline: arp_found_k, arp_none_k (none among
 * the choices it makes), arp_stopped_k, arp_oom_k. */
arp_result_t arp_balance(size_t sets, size_t times, size_t const *first, uint32_t const *set,
                         int64_t const *net, uint64_t visits, uint64_t work, arp_clock_t *clock,
                         double deadline, uint8_t *in);

/* ---- lns.c: large-neighbourhood moves ---------------------------------------------------- */

typedef struct arp_lns_t {
    uint64_t goal;      /* stop there */
    uint64_t max_moves; /* 0: none */
    uint64_t moves;     /* out: moves made */
    uint64_t height;    /* out: the best height */
} arp_lns_t;

/* Moves from the placement at[] (per buffer: valid), towards `goal`: ruin-and-recreate moves
 * and exact moves (`decide` on a window), taking turns by gains over counted work; at[] ends
 * at the best. Stops at the goal, after max_moves, or at the deadline. */
arp_result_t arp_lns(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                     arp_sweep_t const *sweep, uint64_t alignment, arp_lns_t *lns,
                     arp_clock_t *clock, double deadline, arp_rng_t *rng, arp_decider_t decide,
                     uint64_t *at);

#endif
