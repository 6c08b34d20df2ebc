/* Rule D (CERTIFICATE.md §3), the fixed-point walker: a "last declared key" per elementary
 * interval, a flat array, runs (rule_d_runs.c) or a segment tree. Painting is idempotent and last-writer-wins, so
 * from its third pass on a repeat body behaves like its second (with rule B holding): two
 * passes are walked and the rest counted, and so are runs of identical schedule references. A
 * unit met again (a reference, or a repeat's whole run) replays a summary of its first walk,
 * so cost follows the plan as written, not its iterations or nesting depth (up to
 * SUMMARY_CELLS_MAX cells). A phase that reads across elements bytes it writes (finish found
 * which) breaks at its first instance. Counts: see walker_t. One entry point, arp_rule_d.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"
#include "cert/plan_internal.h"

#define KEY_NONE (-1)
#define KEY_MIXED INT32_MIN
#define NO_PHASE INT64_MIN
#define BLOCK_PERIOD_MAX 8
/* Up to this many elementary intervals the state is a flat array; up to RUNS_CELLS, runs
 * (rule_d_runs.c); past that a segment tree, whose cost per plane stays logarithmic. */
#define FLAT_CELLS 256
#define RUNS_CELLS ((size_t)1 << 16)
/* Up to this many, units are summarised (recording marks cells one by one). */
#define SUMMARY_CELLS_MAX 4096
/* A repeat with no repeat inside it and up to this many launches is always walked: its walk (two
 * passes of a few runs) costs less than recording it, and a walk with nothing nested inside
 * cannot compound. */
#define SMALL_LEAF_LAUNCHES 8

/* When a repeat is recorded (see walk_repeat). */
enum { MEMO_NEVER, MEMO_FIRST, MEMO_SECOND };

/* ---- The fixed-point walker ----------------------------------------------------------------- */

/* A schedule reference's effect (or a repeat's, all its iterations: a "unit"), recorded the
 * first time the unit is walked (up to SUMMARY_CELLS_MAX cells) and replayed when it comes
 * again: the cells it needs to find holding a key (the carried-plane checks on cells it has not
 * itself painted by then), the keys it declares in the order of their last declaration (with
 * the instance of that declaration, relative to its start: repainting their planes in that
 * order leaves each cell as the walk left it), and its counts. Walking a unit depends on
 * the state it meets only through those needs and through whether its first launch's phase
 * continues the current instance (a summary is kept for each case): when the needs hold, every
 * check in it passes, the walk is the recorded one, and the summary is its exact effect. When
 * they do not hold, D breaks inside it, and it is walked launch run by launch run (its inner
 * units replayed where their own needs hold) for the exact k and diagnostic. */
typedef struct cell_key_t {
    uint32_t cell;
    int32_t key;
} cell_key_t;

typedef struct declared_key_t {
    int32_t key;
    int64_t phase;
    arp_u128_t stamp; /* relative to the reference's first instance */
} declared_key_t;

typedef struct summary_t {
    bool recorded;
    size_t needs_first, needs_count, keys_first, keys_count;
    arp_u128_t instances, executed;
    int64_t end_phase;
} summary_t;

/* A reference's summaries: [merged] for when its first launch continues the current instance,
 * or not. Its first launch's phase is kept here, so a replay reads nothing of the launches. */
typedef struct summary_entry_t {
    size_t first, count; /* count 0: a free slot */
    bool repeat;         /* a repeat's whole run (first: its order position), not a reference */
    int64_t first_phase;
    summary_t as[2];
} summary_entry_t;

/* A need found while recording, before the recording ends: `prior` is the cell's paint mark
 * when it was checked (the epoch of the innermost recording that had painted it), so the
 * recording around it can tell whether it had painted the cell itself. */
typedef struct pending_need_t {
    uint32_t cell;
    int32_t key;
    uint32_t prior;
} pending_need_t;

typedef struct summaries_t {
    bool enabled;
    summary_entry_t *table; /* open addressing by (first, count, repeat) */
    size_t capacity, used;
    cell_key_t *needs;
    size_t needs_count, needs_capacity;
    declared_key_t *keys;
    size_t keys_count, keys_capacity;
    /* Recording nests (a repeat inside a repeat inside a reference): each recording has an
     * epoch, larger than any before it, and `top` is the innermost one in progress (0: none).
     * painted[c] is the epoch of the innermost recording that painted cell c last, so recording
     * e has painted c so far iff painted[c] >= e (those that start inside e have larger epochs,
     * those before it smaller). Needs pile up on a stack; a recording that ends keeps its own
     * (deduplicated) and hands on to the one around it the needs that one had not painted. */
    uint32_t top, last_epoch;
    uint32_t *painted, *needed; /* per cell: paint mark; the epoch that last listed it a need */
    pending_need_t *pending;
    size_t pending_count, pending_capacity;
    uint32_t scratch;               /* a fresh mark per deduplication */
    uint32_t *cell_seen, *key_seen; /* per cell, per key: the scratch mark last set */
} summaries_t;

/* Entries kept over all summaries; past this, references are no longer recorded. */
#define SUMMARY_ENTRIES_MAX ((size_t)1 << 20)

typedef struct walker_t {
    ar_plan_t const *plan;
    size_t const *order; /* repeats, outer before inner (from finish) */
    /* Events: the launches where a run of one phase starts or a repeat starts, sorted, with
     * (chain) the position in order of the largest repeat starting there (SIZE_MAX: none).
     * Walking goes event to event, so nothing is kept per launch. after_end[q]: the first
     * event past the end of the repeat at order position q. */
    size_t *event_at, *event_chain, *after_end;
    int64_t *event_phase; /* the phase of the launch at each event (read once, not per walk) */
    size_t *start_event;  /* per order position: the event at the repeat's first launch */
    /* Per order position: when the repeat is recorded (MEMO_*), and whether it was met yet. */
    unsigned char *memo_rule;
    bool *met;
    size_t events;
    /* The plan's keys (plan_keys.c, from finish): per plane its value's and the one it leaves
     * (its becomes' when it updates in place, else its own); per key a plane with it. */
    int32_t const *plane_key, *leave_key;
    size_t const *key_plane;
    size_t keys_count;
    /* Per phase, its plane that reads across elements bytes it writes (plan_access.c, from
     * finish): such a phase breaks D at its first instance. NULL when no phase has one. */
    struct arp_cross_t const *cross;
    bool *declared;
    arp_u128_t *stamp; /* the instance that last declared the key */
    int64_t *stamp_phase;
    uint32_t *plane_lo, *plane_hi;
    size_t cells;
    int32_t *tree;
    bool flat; /* few cells: tree[c] is cell c's key, painted and read directly */
    bool use_runs;
    arp_runs_t runs;
    int64_t current;
    arp_u128_t instances, executed;
    /* The keys declared, in order, while some walk will read them back (`logging` > 0: the
     * second of more than two passes, or a recording); else nothing is logged. */
    int32_t *log;
    size_t log_count, log_capacity;
    unsigned logging;
    unsigned depth;
    summaries_t sums;
    /* Instances and stamps count modulo 2^128 (modulus 0) or modulo a prime below 2^64, and
     * executed launches saturate: the result is exact unless they saturated, and then
     * rule_d_wide.c rebuilds k from residues. */
    uint64_t modulus;
    uint32_t *pass_mark, pass_epoch; /* per key: deduplicates a pass's keys (wide walks) */
    ar_status_t status;
    arp_rule_d_t *result;
} walker_t;

static inline arp_u128_t count_add(walker_t const *w, arp_u128_t a, arp_u128_t b) {
    if (__builtin_expect(w->modulus != 0, 0)) return (a + b % w->modulus) % w->modulus;
    return a + b;
}
static inline arp_u128_t count_mul(walker_t const *w, arp_u128_t a, arp_u128_t b) {
    if (__builtin_expect(w->modulus != 0, 0))
        return (a % w->modulus) * (b % w->modulus) % w->modulus;
    return a * b;
}
static inline arp_u128_t count_sub(walker_t const *w, arp_u128_t a, arp_u128_t b) {
    if (__builtin_expect(w->modulus != 0, 0)) return (a + w->modulus - b % w->modulus) % w->modulus;
    return a - b;
}

static void tree_assign(int32_t *tree, size_t node, size_t nl, size_t nr, size_t l, size_t r,
                        int32_t value) {
    if (r <= nl || nr <= l) return;
    if (l <= nl && nr <= r) {
        tree[node] = value;
        return;
    }
    if (tree[node] != KEY_MIXED) tree[2 * node] = tree[2 * node + 1] = tree[node];
    size_t mid = nl + (nr - nl) / 2;
    tree_assign(tree, 2 * node, nl, mid, l, r, value);
    tree_assign(tree, 2 * node + 1, mid, nr, l, r, value);
    tree[node] = tree[2 * node] == tree[2 * node + 1] ? tree[2 * node] : KEY_MIXED;
}

static bool tree_uniform(int32_t const *tree, size_t node, size_t nl, size_t nr, size_t l, size_t r,
                         int32_t value) {
    if (r <= nl || nr <= l) return true;
    if (tree[node] != KEY_MIXED) return tree[node] == value;
    if (l <= nl && nr <= r) return false; /* mixed: two different keys here */
    size_t mid = nl + (nr - nl) / 2;
    return tree_uniform(tree, 2 * node, nl, mid, l, r, value) &&
           tree_uniform(tree, 2 * node + 1, mid, nr, l, r, value);
}

/* A key other than `value` found in [l, r), or `value` when there is none. */
static int32_t tree_other(int32_t const *tree, size_t node, size_t nl, size_t nr, size_t l,
                          size_t r, int32_t value) {
    if (r <= nl || nr <= l) return value;
    if (tree[node] != KEY_MIXED) return tree[node];
    size_t mid = nl + (nr - nl) / 2;
    int32_t left = tree_other(tree, 2 * node, nl, mid, l, r, value);
    if (left != value) return left;
    return tree_other(tree, 2 * node + 1, mid, nr, l, r, value);
}

/* The state, over cells [l, r): a flat array when the cells are few (a plane covers one or two
 * of them, so painting is a store or two), else the segment tree. */
static inline bool state_uniform(walker_t const *w, size_t l, size_t r, int32_t value) {
    if (!w->cells) return false;
    if (w->flat) {
        for (size_t c = l; c < r; ++c)
            if (w->tree[c] != value) return false;
        return true;
    }
    if (w->use_runs) return arp_runs_uniform(&w->runs, l, r, value);
    return tree_uniform(w->tree, 1, 0, w->cells, l, r, value);
}

static inline void state_assign(walker_t *w, size_t l, size_t r, int32_t value) {
    if (!w->cells) return;
    if (w->flat) {
        for (size_t c = l; c < r; ++c) w->tree[c] = value;
        return;
    }
    if (w->use_runs) {
        arp_runs_assign(&w->runs, l, r, value);
        return;
    }
    tree_assign(w->tree, 1, 0, w->cells, l, r, value);
}

static int32_t state_other(walker_t const *w, size_t l, size_t r, int32_t value) {
    if (!w->cells) return KEY_NONE;
    if (w->flat) {
        for (size_t c = l; c < r; ++c)
            if (w->tree[c] != value) return w->tree[c];
        return value;
    }
    if (w->use_runs) return arp_runs_other(&w->runs, l, r, value);
    return tree_other(w->tree, 1, 0, w->cells, l, r, value);
}

static void report_break(walker_t *w, int64_t phase, size_t plane) {
    arp_rule_d_t *result = w->result;
    int32_t key = w->plane_key[plane];
    result->broken = true;
    result->instance = w->instances;
    result->phase = (size_t)phase;
    result->plane = plane;
    result->plane_declared = w->declared[key];
    int32_t other = state_other(w, w->plane_lo[plane], w->plane_hi[plane], key);
    result->other_plane = other >= 0 ? w->key_plane[other] : SIZE_MAX;
    result->other_phase = other >= 0 ? w->stamp_phase[other] : -1;
    result->other_stamp = other >= 0 ? w->stamp[other] : 0;
    /* The plane that declared it: the one of that phase that leaves its key. */
    int64_t op = result->other_phase;
    if (other >= 0 && op >= 0 && (size_t)op < w->plan->phases_count) {
        ar_phase_t const *p = &w->plan->phases[op];
        for (size_t i = p->planes_first; i < p->planes_first + p->planes_count; ++i)
            if (w->leave_key[i] == other) result->other_plane = i;
    }
}

static bool log_grow(walker_t *w) {
    size_t capacity = w->log_capacity ? 2 * w->log_capacity : 256;
    int32_t *grown = realloc(w->log, capacity * sizeof *grown);
    if (!grown) {
        w->status = ar_status_out_of_memory_k;
        return false;
    }
    w->log = grown, w->log_capacity = capacity;
    return true;
}

static inline bool log_key(walker_t *w, int32_t key) {
    if (!w->logging) return true;
    if (w->log_count == w->log_capacity && !log_grow(w)) return false;
    w->log[w->log_count++] = key;
    return true;
}

static bool grow(void **array, size_t *capacity, size_t needed, size_t size) {
    if (needed <= *capacity) return true;
    size_t next = *capacity ? *capacity : 64;
    while (next < needed) next *= 2;
    void *grown = realloc(*array, next * size);
    if (!grown) return false;
    *array = grown, *capacity = next;
    return true;
}

/* While recording: cell c is checked for `key`. Unless the innermost recording has painted it
 * by now (then it holds what the recording left, the same every time), it is a need. */
static bool record_need_cell(walker_t *w, uint32_t c, int32_t key) {
    summaries_t *m = &w->sums;
    if (m->painted[c] >= m->top || m->needed[c] == m->top) return true;
    m->needed[c] = m->top;
    if (!grow((void **)&m->pending, &m->pending_capacity, m->pending_count + 1,
              sizeof *m->pending)) {
        w->status = ar_status_out_of_memory_k;
        return false;
    }
    m->pending[m->pending_count++] = (pending_need_t){c, key, m->painted[c]};
    return true;
}

/* While recording: carried plane i is checked, plane i is painted. */
static bool record_needs(walker_t *w, size_t i) {
    for (uint32_t c = w->plane_lo[i]; c < w->plane_hi[i]; ++c)
        if (!record_need_cell(w, c, w->plane_key[i])) return false;
    return true;
}

static void record_paint(walker_t *w, size_t i) {
    for (uint32_t c = w->plane_lo[i]; c < w->plane_hi[i]; ++c) w->sums.painted[c] = w->sums.top;
}

/* A run of `length` launches of `phase`. Returns false when D breaks or on error. */
static bool walk_run(walker_t *w, int64_t phase, size_t length) {
    w->executed = arp_u128_add_sat(w->executed, length);
    if (phase == w->current) return true;
    w->current = phase;
    if (phase >= 0 && (size_t)phase < w->plan->phases_count) {
        ar_phase_t const *p = &w->plan->phases[phase];
        for (size_t i = p->planes_first; i < p->planes_first + p->planes_count; ++i) {
            if (!w->plan->planes[i].carried) continue;
            if (w->sums.top && !record_needs(w, i)) return false;
            if (!state_uniform(w, w->plane_lo[i], w->plane_hi[i], w->plane_key[i])) {
                report_break(w, phase, i);
                w->instances = count_add(w, w->instances, 1);
                return false;
            }
        }
        /* A summary replayed never holds such an instance: its first walk would have broken. */
        if (__builtin_expect(w->cross != NULL, 0) && w->cross[phase].plane != SIZE_MAX) {
            arp_rule_d_t *result = w->result;
            result->broken = result->cross = true;
            result->instance = w->instances;
            result->phase = (size_t)phase;
            result->plane = w->cross[phase].plane;
            result->read = w->cross[phase].read, result->write = w->cross[phase].write;
            result->other_plane = SIZE_MAX, result->other_phase = -1;
            w->instances = count_add(w, w->instances, 1);
            return false;
        }
        for (size_t i = p->planes_first; i < p->planes_first + p->planes_count; ++i) {
            int32_t key = w->leave_key[i];
            if (w->sums.top) record_paint(w, i);
            /* A carried plane that leaves its own key was just found holding it. */
            if (!w->plan->planes[i].carried || key != w->plane_key[i])
                state_assign(w, w->plane_lo[i], w->plane_hi[i], key);
            w->declared[key] = true;
            w->stamp[key] = w->instances;
            w->stamp_phase[key] = phase;
            if (!log_key(w, key)) return false;
        }
    }
    w->instances = count_add(w, w->instances, 1);
    return true;
}

static bool walk_range(walker_t *w, size_t begin, size_t end, size_t container);
static bool walk_repeat(walker_t *w, size_t q);

static size_t summary_slot(summaries_t const *m, size_t first, size_t count, bool repeat) {
    uint64_t h =
        ((uint64_t)first * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)count * 0xc2b2ae3d27d4eb4full);
    h ^= repeat ? 0x5851f42d4c957f2dull : 0;
    h ^= h >> 29;
    size_t slot = (size_t)h & (m->capacity - 1);
    while (m->table[slot].count &&
           !(m->table[slot].first == first && m->table[slot].count == count &&
             m->table[slot].repeat == repeat))
        slot = (slot + 1) & (m->capacity - 1);
    return slot;
}

/* An empty table of `capacity` slots: a slot is free while its count is 0 (an entry is written
 * whole when taken), so only the counts are cleared. */
static summary_entry_t *summary_table(size_t capacity) {
    summary_entry_t *table = malloc(capacity * sizeof *table);
    for (size_t k = 0; table && k < capacity; ++k) table[k].count = 0;
    return table;
}

/* Replays summary `s` when its needs hold; false when they do not (nothing changed then). Its
 * paints are its keys' planes, assigned in the order of their last declaration (last writer
 * wins, so that leaves every cell as the walk left it). While a recording is in progress, the
 * replay's needs and paints are its too. */
static bool replay(walker_t *w, summary_t const *s) {
    summaries_t *m = &w->sums;
    for (size_t k = s->needs_first; k < s->needs_first + s->needs_count; ++k)
        if (!state_uniform(w, m->needs[k].cell, m->needs[k].cell + 1, m->needs[k].key))
            return false;
    if (m->top)
        for (size_t k = s->needs_first; k < s->needs_first + s->needs_count; ++k)
            if (!record_need_cell(w, m->needs[k].cell, m->needs[k].key))
                return true; /* no memory */
    arp_u128_t const start = w->instances;
    uint64_t const modulus = w->modulus;
    for (size_t k = s->keys_first; k < s->keys_first + s->keys_count; ++k) {
        declared_key_t const *d = &m->keys[k];
        size_t plane = w->key_plane[d->key];
        if (m->top) record_paint(w, plane);
        state_assign(w, w->plane_lo[plane], w->plane_hi[plane], d->key);
        w->declared[d->key] = true;
        w->stamp[d->key] = modulus ? (start + d->stamp) % modulus : start + d->stamp;
        w->stamp_phase[d->key] = d->phase;
        if (!log_key(w, d->key)) return true; /* status says out of memory */
    }
    w->instances = count_add(w, w->instances, s->instances);
    w->executed = arp_u128_add_sat(w->executed, s->executed);
    w->current = s->end_phase;
    return true;
}

static bool walk_passes(walker_t *w, int kind, size_t a, size_t b, uint64_t passes);

/* The walk a summary stands for: repeat at order position `first` (all its iterations), or
 * schedule reference [first, first + count). */
static bool walk_unit(walker_t *w, bool repeat, size_t first, size_t count) {
    if (repeat) return walk_passes(w, 0, first, 0, w->plan->repeats[w->order[first]].iterations);
    return walk_range(w, first, first + count, SIZE_MAX);
}

/* Walks a unit (see walk_unit) whose first launch has phase `first_phase`: replayed from its
 * summary when it has one whose needs hold, else walked (and recorded, the first time). A
 * recording may run inside another (a repeat in a repeat): each inner unit is then recorded on
 * its first walk and replayed after, so every unit is walked (two passes) at most twice (merged
 * or not), whatever the nesting depth. */
static bool walk_memo(walker_t *w, bool repeat, size_t first, size_t count, int64_t first_phase) {
    summaries_t *m = &w->sums;
    size_t slot = summary_slot(m, first, count, repeat);
    summary_entry_t *entry = &m->table[slot];
    bool merged = first_phase == w->current;
    if (entry->count && entry->as[merged].recorded) {
        if (replay(w, &entry->as[merged])) return !w->status;
        return walk_unit(w, repeat, first, count); /* D breaks in it */
    }
    if (m->needs_count + m->keys_count > SUMMARY_ENTRIES_MAX || m->last_epoch == UINT32_MAX ||
        m->scratch > UINT32_MAX - 2)
        return walk_unit(w, repeat, first, count);
    /* Record it. */
    uint32_t parent = m->top, epoch = ++m->last_epoch;
    m->top = epoch;
    size_t pending_mark = m->pending_count, log_mark = w->log_count;
    arp_u128_t instances = w->instances, executed = w->executed;
    ++w->logging;
    bool ok = walk_unit(w, repeat, first, count);
    --w->logging;
    m->top = parent;
    if (!ok) return false;
    summary_t s = {true,
                   m->needs_count,
                   0,
                   m->keys_count,
                   0,
                   count_sub(w, w->instances, instances),
                   w->executed - executed,
                   w->current};
    /* Needs: each cell once; those the recording around had not painted are its needs too. */
    uint32_t seen = ++m->scratch;
    size_t kept = pending_mark;
    for (size_t k = pending_mark; k < m->pending_count; ++k) {
        pending_need_t need = m->pending[k];
        if (m->cell_seen[need.cell] == seen) continue;
        m->cell_seen[need.cell] = seen;
        if (!grow((void **)&m->needs, &m->needs_capacity, m->needs_count + 1, sizeof *m->needs))
            goto oom;
        m->needs[m->needs_count++] = (cell_key_t){need.cell, need.key};
        if (parent && need.prior < parent) {
            m->pending[kept++] = need;
            m->needed[need.cell] = parent;
        }
    }
    m->pending_count = kept;
    s.needs_count = m->needs_count - s.needs_first;
    /* Keys: each once, in the order of its last declaration (the log read backwards, then the
     * list turned around). */
    seen = ++m->scratch;
    for (size_t k = w->log_count; k-- > log_mark;) {
        int32_t key = w->log[k];
        if (m->key_seen[key] == seen) continue;
        m->key_seen[key] = seen;
        if (!grow((void **)&m->keys, &m->keys_capacity, m->keys_count + 1, sizeof *m->keys))
            goto oom;
        m->keys[m->keys_count++] =
            (declared_key_t){key, w->stamp_phase[key], count_sub(w, w->stamp[key], instances)};
    }
    for (size_t x = s.keys_first, y = m->keys_count; x + 1 < y; ++x, --y) {
        declared_key_t t = m->keys[x];
        m->keys[x] = m->keys[y - 1], m->keys[y - 1] = t;
    }
    s.keys_count = m->keys_count - s.keys_first;
    slot = summary_slot(m, first, count, repeat); /* inner recordings may have grown the table */
    if (!m->table[slot].count) {
        if (2 * (m->used + 1) > m->capacity) { /* grow the table */
            summary_entry_t *old = m->table;
            size_t old_capacity = m->capacity;
            summary_entry_t *table = summary_table(2 * old_capacity);
            if (!table) goto oom;
            m->table = table, m->capacity = 2 * old_capacity;
            for (size_t k = 0; k < old_capacity; ++k)
                if (old[k].count)
                    m->table[summary_slot(m, old[k].first, old[k].count, old[k].repeat)] = old[k];
            free(old);
            slot = summary_slot(m, first, count, repeat);
        }
        m->table[slot] = (summary_entry_t){first, count, repeat, first_phase, {{0}, {0}}};
        ++m->used;
    }
    m->table[slot].as[merged] = s;
    return true;
oom:
    w->status = ar_status_out_of_memory_k;
    return false;
}

/* Walks the repeat at order position q (all its iterations). Recording costs a mark per cell
 * per declaration or check in it, so a repeat is recorded only where that can pay: one inside a
 * repeat that iterates (met in both passes of it) on its first meeting, since nesting compounds
 * there; a repeat that nothing iterating encloses is met only when a schedule reference around
 * it is walked, which is once per reference (and way of entering it) when the references are
 * summarised, so it is recorded only when it is met a second time; a small repeat with none
 * inside it never (see SMALL_LEAF_LAUNCHES). Replaying and walking give the same effect, so the
 * choice changes the cost only. */
static bool walk_repeat(walker_t *w, size_t q) {
    ar_repeat_t const *rep = &w->plan->repeats[w->order[q]];
    if (w->sums.enabled) {
        unsigned char rule = w->memo_rule[q];
        if (rule == MEMO_FIRST || (rule == MEMO_SECOND && w->met[q]))
            return walk_memo(w, true, q, rep->count, w->plan->launches[rep->first].phase);
        w->met[q] = true;
    }
    return walk_passes(w, 0, q, 0, rep->iterations);
}

/* Walks schedule reference [first, first + count), through its summary when summaries are on. */
static bool walk_reference(walker_t *w, size_t first, size_t count) {
    summaries_t *m = &w->sums;
    ar_plan_t const *plan = w->plan;
    if (!m->enabled) return walk_range(w, first, first + count, SIZE_MAX);
    size_t slot = summary_slot(m, first, count, false);
    int64_t first_phase =
        m->table[slot].count ? m->table[slot].first_phase : plan->launches[first].phase;
    return walk_memo(w, false, first, count, first_phase);
}

/* Runs a body N times: two passes, the rest counted. kind 0: repeat at order position `a`;
 * kind 1: schedule references [a, a + b). */
static bool walk_body(walker_t *w, int kind, size_t a, size_t b) {
    if (kind == 0) {
        ar_repeat_t const *rep = &w->plan->repeats[w->order[a]];
        return walk_range(w, rep->first, rep->first + rep->count, a);
    }
    for (size_t s = a; s < a + b; ++s) {
        ar_reference_t const *ref = &w->plan->schedule[s];
        if (!walk_reference(w, ref->first, ref->count)) return false;
    }
    return true;
}

static bool walk_passes(walker_t *w, int kind, size_t a, size_t b, uint64_t passes) {
    if (passes == 0) return true;
    if (!walk_body(w, kind, a, b)) return false;
    if (passes == 1) return true;
    size_t log_mark = w->log_count;
    arp_u128_t start_instances = w->instances, start_executed = w->executed;
    w->logging += passes > 2;
    bool ok = walk_body(w, kind, a, b);
    w->logging -= passes > 2;
    if (!ok) return false;
    if (passes == 2) return true;
    arp_u128_t c2 = count_sub(w, w->instances, start_instances);
    arp_u128_t e2 = w->executed - start_executed;
    arp_u128_t skipped_instances = count_mul(w, c2, passes - 2);
    /* Keys last declared in pass 2 are, after pass N, last declared (N-2) x c2 instances on.
     * A key logged twice moves once: its stamp has left pass 2's range, or (in a wide walk,
     * where residues have no order) a mark says so. */
    uint32_t mark = w->pass_mark ? ++w->pass_epoch : 0;
    for (size_t i = log_mark; i < w->log_count; ++i) {
        int32_t key = w->log[i];
        if (w->pass_mark) {
            if (w->pass_mark[key] == mark) continue;
            w->pass_mark[key] = mark;
            w->stamp[key] = count_add(w, w->stamp[key], skipped_instances);
        } else if (w->stamp[key] >= start_instances && w->stamp[key] < start_instances + c2) {
            w->stamp[key] += skipped_instances;
        }
    }
    w->instances = count_add(w, w->instances, skipped_instances);
    w->executed = arp_u128_add_sat(w->executed, arp_u128_mul_sat(e2, passes - 2));
    return true;
}

/* Launches [begin, end) of a container: the top level (container SIZE_MAX) or the body of the
 * repeat at order position `container`. */
static bool walk_range(walker_t *w, size_t begin, size_t end, size_t container) {
    ar_plan_t const *plan = w->plan; /* finish: ranges lie in the table, repeats nest */
    /* at: the event at launch i (SIZE_MAX: none); next: the first event past i. A repeat's body
     * starts at its own event; a reference is looked up. */
    size_t next;
    if (container != SIZE_MAX && w->start_event[container] < w->events &&
        w->event_at[w->start_event[container]] == begin) {
        next = w->start_event[container] + 1;
    } else {
        size_t lo = 0, hi = w->events;
        while (lo < hi) {
            size_t middle = lo + (hi - lo) / 2;
            if (w->event_at[middle] <= begin)
                lo = middle + 1;
            else
                hi = middle;
        }
        next = lo;
    }
    size_t at = next && w->event_at[next - 1] == begin ? next - 1 : SIZE_MAX;
    size_t i = begin;
    while (i < end) {
        size_t q = at != SIZE_MAX ? w->event_chain[at] : SIZE_MAX;
        if (i == begin && container != SIZE_MAX) {
            q = container + 1 < plan->repeats_count &&
                        plan->repeats[w->order[container + 1]].first == begin
                    ? container + 1
                    : SIZE_MAX;
        }
        if (q != SIZE_MAX) {
            ar_repeat_t const *rep = &plan->repeats[w->order[q]];
            if (++w->depth > ARP_MAX_REPEAT_DEPTH) {
                w->status = ar_status_unsupported_k;
                snprintf(w->result->message, sizeof w->result->message,
                         "rule D: repeats nest deeper than the supported %u levels",
                         ARP_MAX_REPEAT_DEPTH);
                return false;
            }
            bool ok = walk_repeat(w, q);
            --w->depth;
            if (!ok) return false;
            i = rep->first + rep->count;
            next = w->after_end[q];
            at = next && w->event_at[next - 1] == i ? next - 1 : SIZE_MAX;
            continue;
        }
        size_t j = next < w->events && w->event_at[next] < end ? w->event_at[next] : end;
        if (!walk_run(w, at != SIZE_MAX ? w->event_phase[at] : plan->launches[i].phase, j - i))
            return false;
        i = j;
        at = next < w->events && w->event_at[next] == i ? next++ : SIZE_MAX;
    }
    return true;
}

static bool same_reference(ar_reference_t const *a, ar_reference_t const *b) {
    return a->first == b->first && a->count == b->count;
}

static bool walk_schedule(walker_t *w) {
    ar_plan_t const *plan = w->plan;
    size_t total = plan->schedule_count;
    for (size_t s = 0; s < total;) {
        /* The period (1..8) whose repetition covers the most references from s. */
        size_t best_period = 1, best_reps = 1;
        for (size_t period = 1; period <= BLOCK_PERIOD_MAX && s + 2 * period <= total; ++period) {
            size_t reps = 1;
            for (;;) {
                size_t next = s + reps * period;
                if (next + period > total) break;
                bool equal = true;
                for (size_t t = 0; t < period && equal; ++t)
                    equal = same_reference(&plan->schedule[s + t], &plan->schedule[next + t]);
                if (!equal) break;
                ++reps;
            }
            if (reps >= 2 && reps * period > best_reps * best_period)
                best_period = period, best_reps = reps;
        }
        if (!walk_passes(w, 1, s, best_period, best_reps)) return false;
        s += best_period * best_reps;
        w->log_count = 0; /* no pass is pending at the top level */
    }
    return true;
}

/* Each repeat's MEMO_* rule (see walk_repeat), outer before inner: whether a repeat that
 * iterates encloses it comes from its parent (from finish). */
static bool choose_memo_rules(walker_t *w) {
    ar_plan_t const *plan = w->plan;
    size_t r = plan->repeats_count;
    w->memo_rule = malloc(r + 1);
    w->met = calloc(r + 1, sizeof *w->met);
    bool *iterates = malloc((r + 1) * sizeof *iterates); /* by repeat: it or one around it */
    if (!w->memo_rule || !w->met || !iterates) {
        free(iterates);
        return false;
    }
    for (size_t q = 0; q < r; ++q) {
        size_t index = w->order[q], parent = plan->repeat_parent[index];
        ar_repeat_t const *rep = &plan->repeats[index];
        bool enclosed_iterating = parent != SIZE_MAX && iterates[parent];
        bool leaf = !(q + 1 < r && plan->repeats[w->order[q + 1]].first < rep->first + rep->count);
        if (leaf && rep->count <= SMALL_LEAF_LAUNCHES)
            w->memo_rule[q] = MEMO_NEVER;
        else
            w->memo_rule[q] = enclosed_iterating ? MEMO_FIRST : MEMO_SECOND;
        iterates[index] = enclosed_iterating || rep->iterations >= 2;
    }
    free(iterates);
    return true;
}

ar_status_t arp_rule_d(ar_plan_t const *plan, arp_rule_d_t *result) {
    ar_status_t status = arp_rule_d_walk(plan, 0, false, result);
    if (status) return status;
    if (result->executed_launches == ARP_U128_MAX) /* saturated: count past 2^128 */
        return arp_rule_d_wide(plan, result);
    if (result->broken) {
        char j_text[48];
        arp_u128_decimal(result->instance, result->instance_text, sizeof result->instance_text);
        arp_u128_decimal(result->other_stamp, j_text, sizeof j_text);
        arp_rule_d_message(plan, result, result->instance_text, j_text);
    }
    return ar_status_success_k;
}

ar_status_t arp_rule_d_walk(ar_plan_t const *plan, uint64_t modulus, bool wide,
                            arp_rule_d_t *result) {
    memset(result, 0, offsetof(arp_rule_d_t, instance_text));
    result->instance_text[0] = result->message[0] = '\0';
    walker_t w = {.plan = plan,
                  .current = NO_PHASE,
                  .result = result,
                  .status = ar_status_success_k,
                  .modulus = modulus};
    size_t n = plan->launches_count, r = plan->repeats_count;
    size_t p = plan->planes_count, most_keys = p + plan->updates_count;
    arp_u128_t *coords = NULL;
    size_t coords_count = 0;
    ar_status_t status = ar_status_out_of_memory_k;
    if (most_keys >= (size_t)INT32_MAX) {
        status = ar_status_unsupported_k;
        snprintf(result->message, sizeof result->message,
                 "rule D: %zu planes and in-place updates is too many", most_keys);
        goto out;
    }
    w.order = plan->repeat_order;
    w.after_end = malloc((r + 1) * sizeof *w.after_end);
    w.plane_key = plan->internals->plane_key, w.leave_key = plan->internals->leave_key;
    w.key_plane = plan->internals->key_plane, w.keys_count = plan->internals->keys_count;
    w.cross = plan->internals->cross;
    size_t keys = w.keys_count;
    w.declared = calloc(keys + 1, sizeof *w.declared);
    w.stamp = malloc((keys + 1) * sizeof *w.stamp); /* written before read, as stamp_phase */
    w.stamp_phase = malloc((keys + 1) * sizeof *w.stamp_phase);
    if (modulus || wide) {
        w.pass_mark = calloc(keys + 1, sizeof *w.pass_mark);
        if (!w.pass_mark) goto out;
    }
    if (!w.after_end || !w.declared || !w.stamp || !w.stamp_phase) goto out;

    /* Events: the phase runs' starts merged with the repeats' (outer first), from finish. */
    size_t const *runs_given = plan->run_starts;
    size_t runs = plan->run_starts_count;
    w.event_at = malloc((runs + r + 1) * sizeof *w.event_at);
    w.event_chain = malloc((runs + r + 1) * sizeof *w.event_chain);
    w.event_phase = malloc((runs + r + 1) * sizeof *w.event_phase);
    w.start_event = malloc((r + 1) * sizeof *w.start_event);
    if (!w.event_at || !w.event_chain || !w.event_phase || !w.start_event) goto out;
    for (size_t q = 0; q < r; ++q) w.start_event[q] = SIZE_MAX;
    for (size_t k = 0, q = 0; k < runs || q < r;) {
        size_t next_run = k < runs ? runs_given[k] : SIZE_MAX;
        size_t next_repeat = q < r ? plan->repeats[w.order[q]].first : SIZE_MAX;
        size_t at = next_run < next_repeat ? next_run : next_repeat;
        if (at >= n) break;
        w.event_at[w.events] = at;
        w.event_chain[w.events] = SIZE_MAX;
        w.event_phase[w.events] = plan->launches[at].phase;
        if (next_repeat == at) {
            w.event_chain[w.events] = q;
            while (q < r && plan->repeats[w.order[q]].first == at) w.start_event[q++] = w.events;
        }
        if (next_run == at) ++k;
        ++w.events;
    }
    for (size_t q = 0; q < r; ++q) {
        size_t end = plan->repeats[w.order[q]].first + plan->repeats[w.order[q]].count;
        size_t lo = 0, hi = w.events;
        while (lo < hi) {
            size_t middle = lo + (hi - lo) / 2;
            if (w.event_at[middle] <= end)
                lo = middle + 1;
            else
                hi = middle;
        }
        w.after_end[q] = lo;
    }

    status = arp_cert_compress(plan, w.plane_key, w.key_plane, w.keys_count, &coords, &coords_count,
                               &w.plane_lo, &w.plane_hi);
    if (status) goto out;
    status = ar_status_out_of_memory_k;
    w.cells = coords_count > 1 ? coords_count - 1 : 0;
    w.flat = w.cells <= FLAT_CELLS;
    w.use_runs = !w.flat && w.cells <= RUNS_CELLS;
    if (w.use_runs && arp_runs_init(&w.runs, w.cells, KEY_NONE)) goto out;
    size_t nodes = w.flat || w.use_runs ? w.cells + 1 : 4 * w.cells + 4;
    w.tree = malloc(nodes * sizeof *w.tree);
    if (!w.tree) goto out;
    for (size_t i = 0; i < nodes; ++i) w.tree[i] = KEY_NONE;

    /* Summaries of references, when the state is flat and some reference comes again. */
    w.sums.enabled = w.cells && w.cells <= SUMMARY_CELLS_MAX && (plan->schedule_count > 1 || r > 0);
    if (w.sums.enabled) {
        w.sums.capacity = 64;
        w.sums.table = summary_table(w.sums.capacity);
        w.sums.painted = calloc(w.cells, sizeof *w.sums.painted);
        w.sums.needed = calloc(w.cells, sizeof *w.sums.needed);
        w.sums.cell_seen = calloc(w.cells, sizeof *w.sums.cell_seen);
        w.sums.key_seen = calloc(w.keys_count + 1, sizeof *w.sums.key_seen);
        if (!w.sums.table || !w.sums.painted || !w.sums.needed || !w.sums.cell_seen ||
            !w.sums.key_seen)
            goto out;
        if (!choose_memo_rules(&w)) goto out;
    }

    bool ok = walk_schedule(&w);
    status = w.status;
    if (ok) status = ar_status_success_k;
    result->instances = w.instances;
    result->executed_launches = w.executed;
out:
    if (status == ar_status_out_of_memory_k)
        snprintf(result->message, sizeof result->message, "rule D: out of memory");
    free(w.after_end), free(w.event_at), free(w.event_chain), free(w.event_phase),
        free(w.start_event);
    free(w.declared), free(w.stamp), free(w.stamp_phase), free(w.plane_lo), free(w.plane_hi);
    free(w.tree), free(w.log), free(coords);
    arp_runs_free(&w.runs);
    free(w.sums.table), free(w.sums.needs), free(w.sums.keys);
    free(w.sums.painted), free(w.sums.needed), free(w.sums.cell_seen), free(w.sums.key_seen);
    free(w.sums.pending), free(w.memo_rule), free(w.met), free(w.pass_mark);
    return status;
}
