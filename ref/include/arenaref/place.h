/* arenaref: placement, the device arena strategy. A problem is buffers, each live over a
 * half-open lifetime [lower, upper) (or over several disjoint ones: `groups`) and needing `size`
 * bytes at an offset that is a multiple of its alignment; a solution gives each an offset so
 * that no two buffers whose lifetimes overlap share a byte. The height of a solution is its
 * largest offset + size; the max-live bound (the most bytes live at one time) is a lower bound
 * on any height. */
#ifndef ARENAREF_PLACE_H
#define ARENAREF_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arenaref/plan.h"
#include "arenaref/status.h"

/* Several strategies (ar_place_strategy_t) solve the same problem, so a plan's strategy can be
 * compared on the same instances, and every layout can be judged by the certificate: a solution
 * becomes an arena-plan/1 plan (ar_place_to_plan) that certifies exactly when it is valid.
 * There are no fixed caps: sizes of arrays are bounded by memory only.
 *
 * Buffers with size 0 or an empty lifetime (lower == upper) hold no byte at any time: they
 * conflict with nothing and get offset 0.
 *
 * A buffer of several rows (`groups`) is placed whole by every strategy: at an offset clear of
 * every buffer live with any of its rows. Where an order below reads a lifetime, it reads the
 * buffer's first start, its last end and its total length (the sum of its rows'). */

#ifdef __cplusplus
extern "C" {
#endif

/* Values a problem may hold: times below 2^63, sizes, alignments and offsets below 2^56, so
 * an offset + size never wraps and a plan built from it stays in 64 bits. */
#define AR_PLACE_MAX_TIME ((uint64_t)1 << 63)
#define AR_PLACE_MAX_BYTES ((uint64_t)1 << 56)

typedef struct ar_place_buffer_t {
    uint64_t lower, upper; /* live over [lower, upper); lower <= upper */
    uint64_t size;         /* bytes */
    uint64_t alignment;    /* the offset's alignment, a power of two; 0 or 1: none */
} ar_place_buffer_t;

/* A problem's rows are `buffers`. `groups` (optional) makes several rows one buffer: rows with
 * the same groups[i] (a label below count) are one buffer, live over the union of their
 * lifetimes at one offset; they have one size and one alignment, and their lifetimes are
 * pairwise disjoint (half-open: touching is fine). NULL: every row its own buffer. Offsets stay
 * per row (every row of a buffer gets the buffer's offset); the max-live bound counts each row
 * while it is live, and heights and checks read rows. `groups` was added after 0.1.0 as the last
 * field: code built against an older header passes a shorter struct and must be rebuilt. */
typedef struct ar_place_problem_t {
    ar_place_buffer_t const *buffers;
    size_t count;
    size_t const *groups; /* NULL, or each row's buffer label */
} ar_place_problem_t;

typedef enum ar_place_strategy_t {
    /* Non-increasing size (ties: input order), each at the lowest offset clear of the placed
     * buffers live with it. TensorFlow Lite Micro's GreedyMemoryPlanner (TFLite's arena
     * planner orders the same way). The gaps come from a segment tree over time holding the
     * placed buffers' bytes as merged pieces: O(log n) set operations a buffer plus the pieces a
     * gap search passes (where a scan of the placed buffers was O(n^2)). */
    ar_place_greedy_by_size_k = 0,
    /* TFLite GPU's "greedy by breadth" (Pisarchyk & Lee 2020) as offsets: time points in
     * non-increasing breadth (bytes live there), each point's unplaced buffers by non-increasing
     * size, each at the lowest clear offset. O(n log n) plus the gap searches' pieces. */
    ar_place_greedy_by_breadth_k,
    /* In order of start (ties: larger first, then input order), each at the lowest clear
     * offset: a linear-scan allocator. O(n log n) plus the gap searches' pieces. */
    ar_place_first_fit_k,
    /* XLA's heap simulator (GlobalDecreasingSizeBestFitHeap): non-increasing size (ties: longer
     * lifetime, then input order), each into the tightest gap between the placed buffers live
     * with it, else on top of them. O(n log n) plus the pieces below the top of each buffer's
     * conflicts. */
    ar_place_best_fit_k,
    /* MiniMalloc's search (Moffitt, ASPLOS 2023), written here from the paper's ideas, as a
     * decision "is there a placement within L?", complete unless a node budget runs out. A
     * canonical solution rests each buffer on the highest buffer below it in its lifetime (or on
     * 0) and places buffers in non-decreasing offset; a node branches over the unplaced buffers
     * at their resting offsets, in offset then rank order, below the lowest top any unplaced
     * buffer could reach (a lower gap would stay open for it). Inference cuts a node when a
     * time section's lowest reachable floor plus its unplaced bytes passes L. A buffer with
     * nothing unplaced beside it is placed where it must be (no alternative is tried); once no
     * unplaced buffer spans a time boundary, the two sides are solved apart, each re-ranked (a
     * buffer of several rows rests on the highest top in any of its rows' sections, and spans
     * its first row's start to its last row's end for that split, so its rows stay together).
     * A candidate whose offset leaves a section's unplaced bytes no room above it ends the
     * node's loop (the later ones are higher). Where every section of a part is without slack
     * (its top plus its unplaced bytes is L), each must be filled solid: a
     * node fails when a run of such sections at one top cannot be tiled, side by side in time,
     * by buffers that can rest there; at the lowest such top it branches only over the buffers
     * over one such section (the one fewest cover; first those that fill the run's width or
     * meet a neighbour's top), so no completion is reached twice and a perfect packing is built
     * without waste; a buffer over a whole part whose tops are level goes there alone.
     * Ranks: three preorders (lifetime, area, most bytes in a spanned section; and two
     * permutations) take turns on doubling node budgets; where most nodes branched on sections
     * without slack, each round also makes short restarts (the first budget, as many as the
     * round's budget holds) with those ties broken by a seeded hash: one wrong early choice
     * there can take a huge subtree to refute (seeded: under `clock_tick_s` the same offsets
     * every run). Where the load is the goal at every time (a perfect packing), the problem is
     * first cut apart (half the time at most): at times no buffer spans, and into strips,
     * sets of buffers whose load is level, stacked (a set no balanced subset of the bytes
     * ending and starting at a time separates lies in one strip; where too many meet at one
     * time, a pair that cancels); a part neither cut splits
     * stands in as its level sets (each cut apart alone) for the tree. Starts from the best of the other
     * strategies and of up to 1024 perturbed greedy orders (a twentieth of the time limit).
     * With a capacity, L is the capacity (90% of the limit; an undecided search leaves the rest
     * to a local search over orders from the incumbent). Minimising asks the max-live bound
     * first (a third of the time: inference is strongest there), then bisects L between it and
     * the best height found, in steps of the sizes' and alignments' common divisor, each
     * question an even share of the time left (one not decided in its share counts as no: the
     * result is then not proven optimal). The tree goes at most 8,192
     * placements deep. Returns the best found at its time limit. Exponential in the worst
     * case; a node costs O(n + sections spanned), and the deadline is read within a node too.
     * Where one node would visit more than 2^26 sections (a real trace of 10^5 buffers visits
     * 10^9), the tree cannot answer in time: lns moves (below) take its place, and nodes
     * counts their moves. */
    ar_place_search_k,
    /* A large-neighbourhood search, for instances too large for `search` to finish. From the
     * best of five lowest-gap orders (by size: greedy-by-size's offsets; size times lifetime;
     * start; and the buffers live at the most loaded time first, longest lifetime lowest, then
     * the rest by size or by size times lifetime), a target one grain below the best height;
     * moves on a random time window around a buffer over the target either lift the window's
     * highest buffers (or those live at one time above a level) and put them back at their
     * lowest gaps in a random order, kept when the bytes over the target do not grow, or free
     * the window's highest buffers, pin every other row there, and ask `search` for a placement
     * within the target (a node budget). No byte over the target: a lower height, a lower
     * target (within 1% of the goal the target is the goal itself, and every lower placement
     * met on the way is kept, until 2,048 moves pass without a new least excess over it). The
     * kinds take turns by improvements over counted work. Up to 2,048 buffers
     * `search` goes first with 90% of the time; above, a perfect packing is first cut apart
     * as `search` does. Never higher than greedy-by-size. Stops at the
     * goal (the max-live bound, or the capacity without `minimize`), the time limit or
     * `max_moves`; seeded (`seed`): the same offsets every run when `max_moves` ends it and
     * `search`, where it runs, decides within its time. A move costs O(n) to gather its window
     * plus O(k w) for k buffers lifted in a window of w. */
    ar_place_lns_k,
    ar_place_strategy_count_k
} ar_place_strategy_t;

/* "greedy-by-size", "greedy-by-breadth", "first-fit", "best-fit", "search", "lns"; NULL out of
 * range. */
char const *ar_place_strategy_name(ar_place_strategy_t strategy);
/* The strategy of that name; false when none has it. */
bool ar_place_strategy_from_name(char const *name, ar_place_strategy_t *strategy);

typedef struct ar_place_options_t {
    ar_place_strategy_t strategy;
    uint64_t capacity;   /* a solution must fit in [0, capacity); 0: no capacity */
    double time_limit_s; /* every strategy: return the best valid placement so far by then (an
                            order cut short puts its last buffers on top); <= 0: the default */
    bool minimize;       /* search only: with a capacity, go on lowering the height once it
                            fits (without a capacity the height is always minimised) */
    uint64_t alignment;  /* a floor on every buffer's alignment (0 or 1: none) */
    /* Added after 0.1.0, last (callers built with an older header must be rebuilt): */
    uint64_t seed;       /* lns: its random choices (0 is a seed like any other) */
    uint64_t max_moves;  /* lns: stop after this many moves (0: none); result->nodes says how
                            many were made */
    double clock_tick_s; /* > 0: the time limit is kept on a clock that moves this much at each
                            read instead of the wall clock, so the work done (and its
                            instruction count) follows from the input and options alone */
    /* Added after 0.1.0, last: */
    unsigned threads; /* search, lns: 0 or 1 one thread; more: a portfolio side by side, the
                         strategy as one thread runs it, then (from its first placement) the
                         other of search and lns, and lns with seeds seed + k; the lowest
                         height wins (the first to meet the goal stops the rest). On a tick
                         clock its height is never above one thread's and the same every run.
                         At most AR_PLACE_THREADS_MAX; the heuristics run on one */
} ar_place_options_t;

#define AR_PLACE_THREADS_MAX 64

#define AR_PLACE_TIME_LIMIT_DEFAULT 60.0

/* greedy-by-size, no capacity, the default time limit, no minimise, no alignment floor. */
void ar_place_options_default(ar_place_options_t *options);

typedef struct ar_place_result_t {
    uint64_t height;      /* max offset + size (0 for an empty problem) */
    uint64_t lower_bound; /* the max-live bound */
    bool fits;            /* height <= capacity, or no capacity */
    bool optimal;         /* the height is proven the least possible: it equals the bound,
                              or the search exhausted its tree */
    double seconds;       /* wall time of the solve */
    uint64_t nodes;       /* search: nodes explored that passed inference; lns: moves made */
    char message[256];    /* why not, when the call fails */
} ar_place_result_t;

/* Place every buffer: offsets[i] for buffer i (the caller's array of problem->count). Returns
 * ar_status_success_k with a valid placement in `offsets` (even when it does not fit the
 * capacity: result->fits says so), ar_status_invalid_argument_k for a bad problem (a lifetime
 * with lower > upper, a value past the limits above, an alignment not a power of two; message
 * names the buffer), ar_status_out_of_memory_k. `options` NULL means the defaults. */
ar_status_t ar_place(ar_place_problem_t const *problem, ar_place_options_t const *options,
                     uint64_t *offsets, ar_place_result_t *result);

/* Check a problem against the limits above and the rules of `groups`; false with a message
 * naming the row (rows). */
bool ar_place_problem_valid(ar_place_problem_t const *problem, char *message, size_t size);

/* The max-live bound: the largest sum of sizes live at one time. O(n log n). */
uint64_t ar_place_lower_bound(ar_place_problem_t const *problem);

/* max over rows of offset + size (rows holding no byte count 0). */
uint64_t ar_place_height(ar_place_problem_t const *problem, uint64_t const *offsets);

/* Why a placement is not valid, by rows: the first misaligned row (second == SIZE_MAX), two
 * rows of one buffer at different offsets, or a pair of rows live together whose byte ranges
 * meet. */
typedef struct ar_place_violation_t {
    size_t first, second;
} ar_place_violation_t;

/* true when every offset is aligned, the rows of a buffer that hold bytes share one offset, and
 * no two rows live together share a byte (a sweep over time with an ordered set of live
 * ranges: O(n log n)). Otherwise false, and *violation (may be NULL) names one. `alignment` is a
 * floor on every row's alignment (0: none). */
bool ar_place_check(ar_place_problem_t const *problem, uint64_t const *offsets, uint64_t alignment,
                    ar_place_violation_t *violation);

/* ---- CSV: MiniMalloc's format ---------------------------------------------------------------
 * A header naming columns (any order): `id` or `buffer`, `lower` or `start`, `upper` or `end`,
 * `size`, and optionally `alignment`, `offset` and `group`; then one row per lifetime interval.
 * Numbers are decimal, with no sign; ids are unique (a repeated one is an error naming its first
 * line), non-empty, and hold no comma or quote. `group` is ours, not MiniMalloc's: rows with one
 * group value (non-empty, no comma or quote, like an id) are one buffer live over the union of
 * their intervals: the same size (and alignment), and intervals pairwise disjoint (half-open),
 * else an error naming both lines. A row whose group value is its own, or every row of a file
 * without the column, is a buffer alone. Blank lines are skipped; CRLF line ends are accepted. */

typedef struct ar_place_csv_t {
    ar_place_problem_t problem; /* buffers point into `rows` */
    ar_place_buffer_t *rows;
    char **ids;         /* each row's id, unique */
    uint64_t *offsets;  /* each row's offset; NULL without an `offset` column */
    bool has_alignment; /* the file had an `alignment` column */
    size_t *lines;      /* each row's line in the file (1-based) */
    size_t *groups;     /* each row's buffer (its group's first row); NULL when no group
                                   value repeats. problem.groups points here */
    char **group_names; /* each row's group value; NULL without a `group` column (added
                                   last: only the library allocates this struct) */
} ar_place_csv_t;

/* Where a CSV was bad: line and column are 1-based (column: the field's number; 0 when the
 * error is about the whole line or file). `message` is the whole sentence, ready to print. */
typedef struct ar_place_csv_error_t {
    size_t line, column;
    char message[512];
} ar_place_csv_error_t;

/* Read a CSV from text or a file ("-": standard input). ar_status_invalid_argument_k for a
 * bad file (error says where), ar_status_io_k when it cannot be read. */
ar_status_t ar_place_csv_parse(char const *text, size_t length, ar_place_csv_t **csv,
                               ar_place_csv_error_t *error);
ar_status_t ar_place_csv_read_file(char const *path, ar_place_csv_t **csv,
                                   ar_place_csv_error_t *error);
void ar_place_csv_free(ar_place_csv_t *csv); /* NULL is safe */

/* Write the rows, with `offsets` (NULL: no offset column): header `id,lower,upper,size` (plus
 * `,alignment` when the CSV had one, `,group` when it had one) and `,offset`; one row per row
 * read, so a buffer of several intervals keeps its rows, each with its offset. Returns false on
 * a write error. */
bool ar_place_csv_write(FILE *file, ar_place_csv_t const *csv, uint64_t const *offsets);

/* ---- Plans ----------------------------------------------------------------------------------
 * A placement as an arena-plan/1 plan. Times become phases: one phase per distinct start time
 * ("t" + the time) in order, one launch each (no words), one schedule reference over all. A
 * buffer is a plane named by its id at base + offset, declared fresh in the phase of its start
 * and carried in the phase of the last start time before its end (when that is a later phase).
 * Rule (B) then finds two buffers that meet and start at one time; rule (D) any other meeting
 * pair, because the later one's fresh plane lands on the earlier one's bytes before the earlier
 * one's carried declaration. Buffers holding no byte are left out. The plan's alignment is
 * `alignment` (0: 1), so it certifies exactly when ar_place_check with that floor accepts.
 * `ids` NULL names planes "b" + the index. A buffer of several rows is one name (its first
 * row's id, or "b" + its first row) at one base, declared so for each row: declaring it fresh
 * again where a later row starts is allowed by (D), and anything placed on its bytes between
 * two of its rows is overwritten before it is read. Rows of one buffer at different offsets are
 * refused (ar_status_invalid_argument_k, naming both): one name has one base. */
ar_status_t ar_place_to_plan(ar_place_problem_t const *problem, char const *const *ids,
                             uint64_t const *offsets, uint64_t alignment, uint64_t base,
                             ar_plan_t **plan, char *message, size_t message_size);

/* A plan's planes as a problem: one buffer per plane name, its size, the plan's alignment, its
 * offset relative to the lowest plane base; live (positions in the plan's phase order) from
 * its first phase, and from each later phase that declares it fresh, to one past the last phase
 * declaring it before the next fresh one: one row per such run (runs that touch are one row).
 * A row's id is its name, or for a name's later runs NAME.1, NAME.2, ... (skipping any a plane
 * is named: ids stay unique). Where some name has several rows, `groups` and `group_names` are
 * set (every row's group value is its name); otherwise both are NULL. */
ar_status_t ar_place_from_plan(ar_plan_t const *plan, ar_place_csv_t **csv, char *message,
                               size_t message_size);

#ifdef __cplusplus
}
#endif
#endif
