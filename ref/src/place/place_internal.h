/* The placement library's internals: what the strategies share (which rows hold bytes,
 * effective alignments, buffers of several rows) and the entry of each strategy file.
 * problem.c validates and dispatches; groups.c gathers each buffer's rows; greedy.c holds the
 * four heuristics; search.c the exact search; strips.c cuts perfect packings apart before it;
 * lns.c the large-neighbourhood search; csv.c and plan_io.c the file and plan forms. */
#ifndef ARENAREF_PLACE_INTERNAL_H
#define ARENAREF_PLACE_INTERNAL_H

#include "arenaref/place.h"

/* A row holds bytes at some time: size > 0 and lower < upper. */
static inline bool arp_place_holds(ar_place_buffer_t const *buffer) {
    return buffer->size > 0 && buffer->lower < buffer->upper;
}

/* The buffer's alignment, at least `floor` (both may be 0: 1). */
static inline uint64_t arp_place_alignment(ar_place_buffer_t const *buffer, uint64_t floor) {
    uint64_t a = buffer->alignment > 1 ? buffer->alignment : 1;
    return floor > a ? floor : a;
}

static inline uint64_t arp_place_align_up(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) & ~(alignment - 1);
}

/* The greatest common divisor (a grain that every size and alignment is a multiple of). */
static inline uint64_t arp_place_gcd(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* qsort's order of uint64_t values. */
static inline int arp_place_by_u64(void const *a, void const *b) {
    uint64_t x = *(uint64_t const *)a, y = *(uint64_t const *)b;
    return x < y ? -1 : x > y;
}

/* How many of the sorted values[0, count) are below t. */
static inline size_t arp_place_count_below(uint64_t const *values, size_t count, uint64_t t) {
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (values[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A hash set of rows' strings, ids or group names (csv.c): row + 1 per slot, 0 empty; free
 * `slots` when done. */
typedef struct arp_place_name_set_t {
    size_t *slots;
    size_t count;
} arp_place_name_set_t;

/* Adds names[row] (rows in any order; the table grows with the largest); *previous is the row
 * holding that string already (SIZE_MAX: none, and row is now added). false: out of memory. */
bool arp_place_name_set_add(arp_place_name_set_t *set, char *const *names, size_t row,
                            size_t *previous);

/* The rows that live at some time (lower < upper) as keys sorted by (group_of[row], lower, row):
 * rows of one group that live at once then include two next to each other. keys has room for
 * count; returns how many it holds (groups.c). */
typedef struct arp_place_row_key_t {
    size_t group, row;
    uint64_t lower;
} arp_place_row_key_t;
size_t arp_place_sort_rows(ar_place_buffer_t const *rows, size_t count, size_t const *group_of,
                           arp_place_row_key_t *keys);

/* A problem's buffers (groups.c): problem->groups' rows of one label, numbered in the order
 * of their first rows (without groups, buffer i is row i). A buffer holds bytes when its size
 * is not 0 and one of its rows has lower < upper; only those rows are in its list. */
typedef struct arp_place_hull_t {
    uint64_t lower, upper; /* the hull of its rows with lower < upper (0, 0 when none) */
    uint64_t size;
    uint64_t several; /* more than one such row */
} arp_place_hull_t;

typedef struct arp_place_groups_t {
    size_t count;           /* buffers */
    size_t *of;             /* per row: its buffer */
    size_t *first;          /* per buffer: its first row (ties between buffers break on it) */
    size_t *start, *rows;   /* buffer b's rows with lower < upper, by lower: rows[start[b],
                               start[b + 1]) */
    arp_place_hull_t *hull; /* per buffer: what a scan over buffers reads, in one place */
    uint64_t *width;        /* per buffer: the total length of its rows */
} arp_place_groups_t;

/* Gather the buffers; ar_status_invalid_argument_k (message names the rows) when rows of one
 * buffer differ in size or alignment, live at once, or a label is not below count. */
ar_status_t arp_place_groups_make(ar_place_problem_t const *problem, arp_place_groups_t *groups,
                                  char *message, size_t message_size);
void arp_place_groups_free(arp_place_groups_t *groups);

static inline bool arp_place_group_holds(arp_place_groups_t const *g, size_t b) {
    return g->hull[b].size > 0 && g->start[b] < g->start[b + 1];
}

/* Whether two buffers of several rows meet: a merge of their sorted rows. */
bool arp_place_rows_meet(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                         size_t a, size_t b);

/* Whether buffers a and b are live at one time: their hulls meet, and where either has several
 * rows, two of their rows do. */
static inline bool arp_place_groups_meet(ar_place_problem_t const *problem,
                                         arp_place_groups_t const *g, size_t a, size_t b) {
    arp_place_hull_t const *x = &g->hull[a], *y = &g->hull[b];
    if (!(x->lower < y->upper && y->lower < x->upper)) return false;
    return !(x->several | y->several) || arp_place_rows_meet(problem, g, a, b);
}

/* offsets[row] = at[its buffer], for every row. */
void arp_place_groups_spread(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                             uint64_t const *at, uint64_t *offsets);

/* The rows against the limits (ar_place_problem_valid less the groups, which
 * arp_place_groups_make checks as it gathers them); false with a message naming the row. */
bool arp_place_rows_valid(ar_place_problem_t const *problem, char *message, size_t size);

/* With problem->groups: the rows of a buffer that hold bytes share one offset (their first's,
 * in row order); false with *violation the first row and the one that differs. Out of memory,
 * each row is compared with the rows before it. */
bool arp_place_one_offset(ar_place_problem_t const *problem, uint64_t const *offsets,
                          ar_place_violation_t *violation);

/* Heuristics: fill offsets[] (every row). ar_status_out_of_memory_k or success. */
ar_status_t arp_place_heuristic(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                                ar_place_strategy_t strategy, uint64_t alignment,
                                uint64_t *offsets);

/* One perturbed greedy order (seeded), lowest or tightest gaps: the search's incumbent. */
ar_status_t arp_place_perturbed(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                                uint64_t alignment, uint64_t seed, uint64_t *offsets);

/* Local search over placement orders from a valid placement (offsets[] in and out). */
ar_status_t arp_place_improve(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                              uint64_t alignment, uint64_t goal, uint64_t moves, double deadline,
                              uint64_t *offsets);

/* The exact search: offsets[] holds an incumbent (valid) on entry and the best on return. */
ar_status_t arp_place_search(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                             ar_place_options_t const *options, uint64_t *offsets,
                             ar_place_result_t *result);

/* The exact search's decision on rows (one buffer each; each row's own alignment), some pinned:
 * pin[i] != UINT64_MAX fixes row i at that offset. 1: a placement within `limit` (offsets[]
 * per row, pinned rows at their pins), 0: none, -1: undecided within `most` nodes a run, the
 * deadline came, or out of memory. */
int arp_place_decide_pinned(ar_place_problem_t const *problem, uint64_t const *pin, uint64_t limit,
                            double deadline, uint64_t most, uint64_t *offsets, uint64_t *nodes);

/* A placement within `limit` of a problem whose load is `limit` at every time of its span, by
 * cutting it in time and into strips (strips.c); parts neither cut splits go to the exact
 * search until `deadline`. 1: found (offsets[] per row, checked valid and within the limit),
 * 0: not found or the problem is not of that kind, -1: out of memory. */
int arp_place_strips(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                     uint64_t alignment, uint64_t limit, double deadline, uint64_t *offsets);

/* The large-neighbourhood search (lns.c): offsets[] gets its best. */
ar_status_t arp_place_lns(ar_place_problem_t const *problem, arp_place_groups_t const *groups,
                          ar_place_options_t const *options, uint64_t *offsets,
                          ar_place_result_t *result);

double arp_place_now(void);

#endif
