/* Perfect packings cut apart. Where the bytes live at every time of a problem's span equal the
 * limit, a placement within it leaves no byte free: a time no buffer spans splits the problem
 * in two, and otherwise a placement is strips stacked one on another, each a set of buffers
 * whose load is the same at every time. Strips are told apart by arithmetic: at each time the
 * bytes ending and starting balance within every strip, so sets no balanced subset separates
 * lie in one strip (too many to enumerate: pairs that cancel); where no set then stands apart,
 * a group balanced at every time is guessed (balance.c), else the part is cut again without
 * pairs, else coarser sets stand in for the exact search. Each strip is cut again, in passes
 * of growing budgets. It finds placements, never refutes one: the result is checked. */
#include <stdlib.h>
#include <string.h>

#include "place/engine.h"

/* Subsets of up to this many joined sets are enumerated at a time; more, and the time is left
 * undecided (coincidences among that many sums separate everything anyway). */
#define ARP_STRIPS_UNITS 18
/* Balanced subsets read at one time before it is left undecided. */
#define ARP_STRIPS_SUBSETS 4096
/* The exact search's node budget a run on a part of n rows (in the first pass): a part it
 * cannot place soon is seldom placed later, and the caller has its own search for the time
 * left. */
#define ARP_STRIPS_NODES(n) (5000 + 25 * (uint64_t)(n))
/* Deeper cuts than this are not followed (the recursion's stack). */
#define ARP_STRIPS_DEPTH 4096
/* Passes over the whole problem, each with the budgets below times 2^(ARP_STRIPS_GROWTH x the
 * pass): most packings are cut in the first, whose guesses are cheap to lose, and the time a
 * hard one needs goes to it alone. */
#define ARP_STRIPS_PASSES 4
#define ARP_STRIPS_GROWTH 2
/* The balanced-group search's choices and subsets looked at (balance.c), a part. */
#define ARP_STRIPS_VISITS 20000
#define ARP_STRIPS_WORK 20000000
/* Parts that fail with pair joins and are cut again without them, a pass (one stuck before
 * any strip was cut costs little and is always cut again). */
#define ARP_STRIPS_RETRIES 2
/* Stand-ins of more rows than this are not searched (the search seldom places so many). */
#define ARP_STRIPS_ROWS 256

typedef struct strips_t {
    uint64_t const *lo, *hi, *size; /* per item (a buffer holding bytes) */
    uint64_t *at;                   /* per item: its offset */
    uint32_t *parent;               /* union-find over items, by item */
    int64_t *sums;                  /* 2^ARP_STRIPS_UNITS subset sums */
    uint32_t *tree;                 /* per item: the node of the joins its set is */
    uint32_t (*kids)[2];            /* NULL, or where joins are logged: node m + j joined kids[j] */
    size_t merges, m;               /* joins logged; items (nodes below m are items) */
    uint32_t *slot;                 /* per item: scratch (a set's number) */
    arp_clock_t *clock;
    double deadline;
    arp_decider_t decide; /* the parts neither cut splits */
    unsigned pass;        /* budgets grow with it */
    long retries;         /* parts still to cut again without pairs, this pass */
    bool pairs;           /* pairs are joined at crowded times */
    size_t paired;        /* pair joins in the part being joined */
    bool oom;
} strips_t;

/* A budget at this pass. */
static uint64_t scaled(strips_t const *s, uint64_t budget) {
    return budget << (ARP_STRIPS_GROWTH * s->pass);
}

typedef struct unit_t {
    uint32_t root;
    int64_t net; /* bytes ending minus bytes starting */
} unit_t;

static uint32_t find(uint32_t *parent, uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
}

static bool join(strips_t *s, uint32_t a, uint32_t b) {
    a = find(s->parent, a), b = find(s->parent, b);
    if (a == b) return false;
    uint32_t root = a < b ? a : b;
    if (s->kids) {
        s->kids[s->merges][0] = s->tree[a], s->kids[s->merges][1] = s->tree[b];
        s->tree[root] = (uint32_t)(s->m + s->merges++);
    }
    s->parent[a < b ? b : a] = root;
    return true;
}

static int by_u32(void const *x, void const *y) {
    uint32_t p = *(uint32_t const *)x, q = *(uint32_t const *)y;
    return p < q ? -1 : p > q;
}

static int by_root(void const *x, void const *y) {
    unit_t const *p = x, *q = y;
    return p->root < q->root ? -1 : p->root > q->root;
}

static int by_u64(void const *x, void const *y) { return arp_place_by_u64(x, y); }

/* The sets with a nonzero net at the j-th time: units[0, k) (returned). From first[2j] `list`
 * holds the items ending there, from first[2j + 1] those starting there, up to first[2j + 2]. */
static size_t gather(strips_t *s, uint32_t const *list, size_t const *first, size_t j,
                     unit_t *units) {
    size_t k = 0;
    for (size_t x = first[2 * j]; x < first[2 * j + 1]; ++x)
        units[k++] = (unit_t){find(s->parent, list[x]), (int64_t)s->size[list[x]]};
    for (size_t x = first[2 * j + 1]; x < first[2 * j + 2]; ++x)
        units[k++] = (unit_t){find(s->parent, list[x]), -(int64_t)s->size[list[x]]};
    qsort(units, k, sizeof *units, by_root);
    size_t kept = 0;
    for (size_t x = 0; x < k;) {
        unit_t u = units[x++];
        while (x < k && units[x].root == u.root) u.net += units[x++].net;
        if (u.net) units[kept++] = u;
    }
    return kept;
}

/* Join the units no balanced subset separates; true when anything was joined. */
static bool join_inseparable(strips_t *s, unit_t const *units, size_t k) {
    if (k < 2) return false;
    if (k == 2) return join(s, units[0].root, units[1].root);
    if (k > ARP_STRIPS_UNITS) {
        /* Too many to enumerate (and among that many sums coincidences separate everything):
         * join a pair whose nets cancel where no other unit has either value, the two halves of
         * a piece cut here. Likely, not proven: a wrong join leaves strips that do not tile (the
         * result is checked, and the part is cut again without pairs). */
        bool joined = false;
        if (!s->pairs) return false;
        for (size_t i = 0; i < k; ++i) {
            if (units[i].net <= 0) continue;
            size_t match = SIZE_MAX, same = 0, other = 0;
            for (size_t j = 0; j < k; ++j) {
                if (units[j].net == -units[i].net) match = j, ++other;
                if (units[j].net == units[i].net) ++same;
            }
            if (match != SIZE_MAX && same == 1 && other == 1 &&
                join(s, units[i].root, units[match].root))
                joined = true, ++s->paired;
        }
        return joined;
    }
    uint32_t full = ((uint32_t)1 << k) - 1, cls[ARP_STRIPS_UNITS] = {0}, classes = 1, seen = 0;
    s->sums[0] = 0;
    for (uint32_t m = 1; m <= full; ++m) {
        uint32_t low = m & -m;
        s->sums[m] = s->sums[m ^ low] + units[__builtin_ctz(m)].net;
    }
    /* A strip's units are a balanced subset, and so is the rest: those holding unit 0 say
     * everything. */
    for (uint32_t m = 1; m < full; m += 2) {
        if (s->sums[m]) continue;
        if (++seen > ARP_STRIPS_SUBSETS) return false;
        uint32_t renumber[2 * ARP_STRIPS_UNITS], next = 0;
        for (uint32_t c = 0; c < 2 * classes; ++c) renumber[c] = UINT32_MAX;
        for (size_t j = 0; j < k; ++j) {
            uint32_t key = 2 * cls[j] + (m >> j & 1);
            if (renumber[key] == UINT32_MAX) renumber[key] = next++;
            cls[j] = renumber[key];
        }
        classes = next;
        if (classes == k) return false; /* every unit apart: nothing to join */
    }
    bool joined = false;
    for (size_t j = 1; j < k; ++j)
        for (size_t i = 0; i < j; ++i)
            if (cls[i] == cls[j]) {
                joined |= join(s, units[i].root, units[j].root);
                break;
            }
    return joined;
}

/* One set's imbalance at one time. */
typedef struct entry_t {
    uint32_t root, time;
    int64_t net;
} entry_t;

static int by_root_time(void const *x, void const *y) {
    entry_t const *p = x, *q = y;
    if (p->root != q->root) return p->root < q->root ? -1 : 1;
    return p->time < q->time ? -1 : p->time > q->time;
}

/* A set's imbalances, entries[start, start + length), with digests of them and of their
 * negation. */
typedef struct vector_t {
    uint64_t digest, negated;
    size_t start, length;
    uint32_t root;
    bool paired;
} vector_t;

static int by_digest(void const *x, void const *y) {
    vector_t const *p = x, *q = y;
    return p->digest < q->digest ? -1 : p->digest > q->digest;
}

static uint64_t mix(uint64_t h, uint64_t v) {
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return h ^ h >> 29;
}

/* Join the pairs of sets whose imbalances cancel, then every other unbalanced set together. */
static void pair_off(strips_t *s, entry_t *entries, size_t total) {
    qsort(entries, total, sizeof *entries, by_root_time);
    size_t sets = 0;
    for (size_t x = 0; x < total; ++x) sets += x == 0 || entries[x].root != entries[x - 1].root;
    vector_t *v = malloc((sets + 1) * sizeof *v);
    if (!v) { /* all together: coarser, still strips */
        for (size_t x = 1; x < total; ++x) join(s, entries[0].root, entries[x].root);
        return;
    }
    size_t n = 0;
    for (size_t x = 0; x < total;) {
        vector_t w = {0, 0, x, 0, entries[x].root, false};
        for (; x < total && entries[x].root == w.root; ++x, ++w.length) {
            w.digest = mix(mix(w.digest, entries[x].time), (uint64_t)entries[x].net);
            w.negated = mix(mix(w.negated, entries[x].time), (uint64_t)-entries[x].net);
        }
        v[n++] = w;
    }
    qsort(v, n, sizeof *v, by_digest);
    uint32_t rest = UINT32_MAX;
    for (size_t x = 0; x < n; ++x) {
        if (v[x].paired) continue;
        size_t lo = 0, hi = n; /* the first with the negated digest */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (v[mid].digest < v[x].negated)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < n && v[lo].digest == v[x].negated && !v[x].paired; ++lo) {
            if (lo == x || v[lo].paired || v[lo].length != v[x].length) continue;
            bool cancel = true;
            for (size_t e = 0; e < v[x].length && cancel; ++e) {
                entry_t const *p = &entries[v[x].start + e], *q = &entries[v[lo].start + e];
                cancel = p->time == q->time && p->net == -q->net;
            }
            if (!cancel) continue;
            join(s, v[x].root, v[lo].root);
            v[x].paired = v[lo].paired = true;
        }
        if (v[x].paired) continue;
        if (rest == UINT32_MAX)
            rest = v[x].root;
        else
            join(s, rest, v[x].root);
    }
    free(v);
}

static bool solve(strips_t *s, uint32_t *items, size_t count, uint64_t t0, uint64_t t1, uint64_t h,
                  uint64_t base, size_t depth);

typedef struct event_t {
    uint64_t time;
    int64_t change;
} event_t;

static int by_time(void const *x, void const *y) {
    event_t const *p = x, *q = y;
    return p->time < q->time ? -1 : p->time > q->time;
}

/* Whether members[0, count) hold one load over their own span [*a, *b): *height. */
static bool level(strips_t const *s, uint32_t const *members, size_t count, event_t *events,
                  uint64_t *a, uint64_t *b, uint64_t *height) {
    *a = UINT64_MAX, *b = 0;
    for (size_t x = 0; x < count; ++x) {
        uint32_t i = members[x];
        if (s->lo[i] < *a) *a = s->lo[i];
        if (s->hi[i] > *b) *b = s->hi[i];
        events[2 * x] = (event_t){s->lo[i], (int64_t)s->size[i]};
        events[2 * x + 1] = (event_t){s->hi[i], -(int64_t)s->size[i]};
    }
    qsort(events, 2 * count, sizeof *events, by_time);
    __int128 live = 0, first = -1; /* wide: a load reaches count x 2^56 */
    for (size_t x = 0; x < 2 * count;) {
        uint64_t t = events[x].time;
        while (x < 2 * count && events[x].time == t) live += events[x++].change;
        if (t == *b) break;
        if (first < 0) first = live;
        if (live != first) return false;
    }
    *height = (uint64_t)first;
    return first > 0 && first < AR_PLACE_MAX_BYTES;
}

/* What a part that stays whole stands in for: rows, each members[from_of[r], from_of[r + 1]). */
typedef struct stand_in_t {
    uint32_t const (*kids)[2]; /* the part's joins: node m + j joined kids[j] */
    uint32_t *members, *stack;
    event_t *events;
    ar_place_buffer_t *rows;
    size_t *from_of;
    size_t rows_count, members_count, whole;
} stand_in_t;

/* A node of the joins: its items, if their load is level over their span and they can be
 * cut apart there, stand in as one row; otherwise its two halves are tried, down to items. */
static void stand_in(strips_t *s, stand_in_t *t, uint32_t node, size_t depth, size_t down) {
    size_t from = t->members_count, top = 0;
    t->stack[top++] = node;
    while (top) {
        uint32_t x = t->stack[--top];
        if (x < s->m) {
            t->members[t->members_count++] = x;
        } else {
            t->stack[top++] = t->kids[x - s->m][0];
            t->stack[top++] = t->kids[x - s->m][1];
        }
    }
    size_t count = t->members_count - from;
    /* Too deep a walk (a chain of joins costs its length at every level), or no time left:
     * its items stand for themselves. */
    bool items = down > ARP_STRIPS_DEPTH || arp_clock_past(s->clock, s->deadline);
    uint64_t a, b, height;
    if (count == 1 || (!items && count < t->whole &&
                       level(s, t->members + from, count, t->events, &a, &b, &height) &&
                       solve(s, t->members + from, count, a, b, height, 0, depth + 1))) {
        uint32_t i = t->members[from];
        if (count == 1) s->at[i] = 0, a = s->lo[i], b = s->hi[i], height = s->size[i];
        t->from_of[t->rows_count] = from;
        t->rows[t->rows_count++] = (ar_place_buffer_t){a, b, height, 0};
        return;
    }
    if (items) {
        for (size_t x = from; x < t->members_count; ++x) {
            uint32_t i = t->members[x];
            s->at[i] = 0;
            t->from_of[t->rows_count] = x;
            t->rows[t->rows_count++] = (ar_place_buffer_t){s->lo[i], s->hi[i], s->size[i], 0};
        }
        return;
    }
    t->members_count = from;
    stand_in(s, t, t->kids[node - s->m][0], depth, down + 1);
    stand_in(s, t, t->kids[node - s->m][1], depth, down + 1);
}

static int strips_rows(strips_t const *from, ar_place_buffer_t const *rows, size_t m,
                       uint64_t limit, unsigned passes, uint64_t *at);

/* A part neither cut splits. Each of its sets (set_of: per item, the node of its joins) stands
 * in as few rows as can (stand_in), and the exact search places those rows within h, until the
 * deadline. */
static bool solve_contracted(strips_t *s, uint32_t const *set_of, uint32_t const (*kids)[2],
                             size_t count, uint64_t h, uint64_t base, size_t depth) {
    stand_in_t t = {kids,
                    malloc((count + 1) * sizeof *t.members),
                    malloc((count + 1) * sizeof *t.stack),
                    malloc((2 * count + 1) * sizeof *t.events),
                    malloc((count + 1) * sizeof *t.rows),
                    malloc((count + 2) * sizeof *t.from_of),
                    0,
                    0,
                    count};
    uint32_t *nodes = malloc((count + 1) * sizeof *nodes);
    uint64_t *pin = malloc((count + 1) * sizeof *pin), *at = malloc((count + 1) * sizeof *at);
    bool found = false;
    if (!t.members || !t.stack || !t.events || !t.rows || !t.from_of || !nodes || !pin || !at) {
        s->oom = true;
        goto done;
    }
    /* The sets' nodes, once each. */
    memcpy(nodes, set_of, count * sizeof *nodes);
    qsort(nodes, count, sizeof *nodes, by_u32);
    for (size_t x = 0; x < count; ++x)
        if (x == 0 || nodes[x] != nodes[x - 1]) stand_in(s, &t, nodes[x], depth, 0);
    t.from_of[t.rows_count] = t.members_count;
    /* Nothing stood in for more than itself at the top: that is the caller's own search. */
    if (t.rows_count == count && depth == 0) goto done;
    /* The rows are a perfect packing again, of fewer buffers: cut that first. */
    int cut = t.rows_count < count ? strips_rows(s, t.rows, t.rows_count, h, 1, at) : 0;
    if (cut < 0) s->oom = true;
    found = cut == 1;
    if (cut == 0 && t.rows_count <= scaled(s, ARP_STRIPS_ROWS)) {
        for (size_t r = 0; r < t.rows_count; ++r) pin[r] = UINT64_MAX;
        ar_place_problem_t part = {t.rows, t.rows_count, NULL};
        uint64_t explored = 0;
        found = s->decide(&part, pin, h, s->clock, s->deadline,
                          scaled(s, ARP_STRIPS_NODES(t.rows_count)), at, &explored) == arp_found_k;
    }
    for (size_t r = 0; found && r < t.rows_count; ++r)
        for (size_t x = t.from_of[r]; x < t.from_of[r + 1]; ++x)
            s->at[t.members[x]] += base + at[r];
done:
    free(t.members), free(t.stack), free(t.events), free(t.rows), free(t.from_of), free(nodes);
    free(pin), free(at);
    return found;
}

/* A part's times and its sets at each (gather): `list` and `first`, slots 2j and 2j + 1 the
 * items ending and starting at the j-th time; `seen` per time the digest of its sets when it
 * was last read. */
typedef struct joins_t {
    uint32_t const *list;
    size_t const *first;
    size_t distinct;
    unit_t *units;
    uint64_t *seen;
} joins_t;

/* The joins no balanced subset separates (and pairs at crowded times), to a fixpoint. */
static void settle(strips_t *s, joins_t *jn) {
    bool changed = true;
    for (int round = 0; changed && round < 64 && !arp_clock_past(s->clock, s->deadline); ++round) {
        changed = false;
        for (size_t j = 0; j < jn->distinct; ++j) {
            /* A round over many times takes long: the deadline every 1,024 of them. */
            if (arp_clock_dead(s->clock) ||
                ((j & 1023) == 1023 && arp_clock_past(s->clock, s->deadline)))
                break;
            size_t k = gather(s, jn->list, jn->first, j, jn->units);
            uint64_t digest = k + 1;
            for (size_t u = 0; u < k; ++u)
                digest =
                    (digest ^ jn->units[u].root) * 0x100000001b3ull ^ (uint64_t)jn->units[u].net;
            if (jn->seen[j] == digest) continue;
            jn->seen[j] = digest;
            changed |= join_inseparable(s, jn->units, k);
        }
    }
}

/* Whether a set of items[0, count) is balanced at every time beside others (a strip apart):
 * 1; everything one set: 2; else 0, *crowded the time with the most sets (SIZE_MAX: none with
 * three or more). */
static int apart(strips_t *s, joins_t *jn, uint32_t const *items, size_t count, size_t *crowded) {
    size_t sets = 0, unbalanced = 0, most = 2;
    *crowded = SIZE_MAX;
    for (size_t x = 0; x < count; ++x) s->slot[items[x]] = 0;
    for (size_t j = 0; j < jn->distinct; ++j) {
        size_t k = gather(s, jn->list, jn->first, j, jn->units);
        for (size_t u = 0; u < k; ++u) s->slot[jn->units[u].root] = 1;
        if (k > most) most = k, *crowded = j;
    }
    for (size_t x = 0; x < count; ++x)
        if (find(s->parent, items[x]) == items[x]) ++sets, unbalanced += s->slot[items[x]];
    return sets == 1 ? 2 : sets > unbalanced;
}

/* The part's sets as vectors of their nets over the times (balance.c): a balanced group found
 * is joined, and so is the rest. */
static arp_result_t split_balanced(strips_t *s, joins_t *jn, uint32_t const *items, size_t count) {
    size_t cells = 0, times = 0, sets = 0;
    for (size_t j = 0; j < jn->distinct; ++j) {
        size_t k = gather(s, jn->list, jn->first, j, jn->units);
        cells += k, times += k > 0;
    }
    size_t *first = malloc((times + 1) * sizeof *first);
    uint32_t *set = malloc((cells + 1) * sizeof *set), *root = malloc((count + 1) * sizeof *root);
    int64_t *net = malloc((cells + 1) * sizeof *net);
    uint8_t *in = malloc(count + 1);
    arp_result_t result = arp_oom_k;
    if (!first || !set || !root || !net || !in) goto done;
    for (size_t x = 0; x < count; ++x) s->slot[items[x]] = UINT32_MAX;
    size_t t = 0, c = 0;
    for (size_t j = 0; j < jn->distinct; ++j) {
        size_t k = gather(s, jn->list, jn->first, j, jn->units);
        if (!k) continue;
        first[t++] = c;
        for (size_t u = 0; u < k; ++u, ++c) {
            uint32_t r = jn->units[u].root;
            if (s->slot[r] == UINT32_MAX) s->slot[r] = (uint32_t)sets, root[sets++] = r;
            set[c] = s->slot[r], net[c] = jn->units[u].net;
        }
    }
    first[t] = c;
    result = arp_balance(sets, times, first, set, net, scaled(s, ARP_STRIPS_VISITS),
                         scaled(s, ARP_STRIPS_WORK), s->clock, s->deadline, in);
    if (result == arp_found_k) {
        uint32_t group[2] = {UINT32_MAX, UINT32_MAX};
        for (size_t x = 0; x < sets; ++x) {
            uint32_t *g = &group[in[x]];
            if (*g == UINT32_MAX)
                *g = root[x];
            else
                join(s, *g, root[x]);
        }
    }
done:
    free(first), free(set), free(root), free(net), free(in);
    return result;
}

/* Coarser sets: all of the most crowded time's together, until a set stands apart or one is
 * left. Each set still lies within a strip of some placement (a time's strips stacked next to
 * one another are a strip), so the stand-ins it leaves are larger and as sound. */
static void coarsen(strips_t *s, joins_t *jn, uint32_t const *items, size_t count) {
    size_t crowded;
    while (!arp_clock_past(s->clock, s->deadline) && apart(s, jn, items, count, &crowded) == 0 &&
           crowded != SIZE_MAX) {
        size_t k = gather(s, jn->list, jn->first, crowded, jn->units);
        for (size_t u = 1; u < k; ++u) join(s, jn->units[0].root, jn->units[u].root);
        settle(s, jn);
    }
}

/* A part no time cuts, times[0, distinct) its inner times, into strips: sets joined (pairs at
 * crowded times when `pairs`; *paired counts them); where none stands apart, a balanced group
 * guessed (balance.c); failing that, *stuck where pairs were joined (the caller cuts it again
 * without), else coarser sets standing in for the exact search. Each strip is solved. */
static bool layers(strips_t *s, uint32_t *items, size_t count, uint64_t t0, uint64_t t1, uint64_t h,
                   uint64_t base, size_t depth, uint64_t const *times, size_t distinct, bool pairs,
                   size_t *paired, bool *stuck) {
    bool ok = true;
    *paired = 0, *stuck = false;
    /* Items ending and starting at each time, then joined sets to a fixpoint. */
    size_t *first = calloc(2 * (distinct + 1), sizeof *first);
    uint32_t *list = malloc((2 * count + 1) * sizeof *list);
    unit_t *units = malloc((2 * count + 1) * sizeof *units);
    if (!first || !list || !units) {
        free(first), free(list), free(units);
        s->oom = true;
        return false;
    }
    /* Slot 2j: items ending at times[j]; slot 2j + 1: starting there. */
    for (size_t x = 0; x < count; ++x) {
        uint32_t i = items[x];
        if (s->hi[i] < t1) ++first[2 * arp_place_count_below(times, distinct, s->hi[i]) + 1];
        if (s->lo[i] > t0) ++first[2 * arp_place_count_below(times, distinct, s->lo[i]) + 2];
    }
    for (size_t j = 1; j <= 2 * distinct; ++j) first[j] += first[j - 1];
    size_t *fill = malloc((2 * distinct + 1) * sizeof *fill);
    if (!fill) {
        free(first), free(list), free(units);
        s->oom = true;
        return false;
    }
    memcpy(fill, first, 2 * distinct * sizeof *fill);
    for (size_t x = 0; x < count; ++x) {
        uint32_t i = items[x];
        s->parent[i] = i, s->tree[i] = i;
        if (s->hi[i] < t1) list[fill[2 * arp_place_count_below(times, distinct, s->hi[i])]++] = i;
        if (s->lo[i] > t0)
            list[fill[2 * arp_place_count_below(times, distinct, s->lo[i]) + 1]++] = i;
    }
    free(fill);
    /* A time whose sets are as they were in the last round would join nothing new. */
    uint64_t *seen = calloc(distinct + 1, sizeof *seen);
    if (!seen) {
        free(first), free(list), free(units);
        s->oom = true;
        return false;
    }
    uint32_t(*kids)[2] = malloc((count + 1) * sizeof *kids);
    if (!kids) {
        free(first), free(list), free(units), free(seen);
        s->oom = true;
        return false;
    }
    s->kids = kids, s->merges = 0;
    s->pairs = pairs, s->paired = 0;
    joins_t jn = {list, first, distinct, units, seen};
    settle(s, &jn);
    size_t crowded;
    if (apart(s, &jn, items, count, &crowded) == 0) {
        arp_result_t split = split_balanced(s, &jn, items, count);
        if (split == arp_oom_k) s->oom = true;
        if (split != arp_found_k && pairs && s->paired && !s->oom) {
            free(first), free(list), free(units), free(seen), free(kids);
            s->kids = NULL;
            *paired = s->paired, *stuck = true;
            return false;
        }
        if (split != arp_found_k) coarsen(s, &jn, items, count);
    }
    *paired = s->paired;
    free(seen);
    s->kids = NULL;
    /* A set unbalanced at some time is not a strip alone. Two whose imbalances cancel at every
     * time go together (the two halves of a strip's piece cut where another strip is cut too);
     * the rest all go together. */
    entry_t *entries = malloc((2 * count + 1) * sizeof *entries);
    if (!entries || s->oom) {
        free(first), free(list), free(units), free(entries), free(kids);
        s->oom = true;
        return false;
    }
    size_t total = 0;
    for (size_t j = 0; j < distinct; ++j) {
        size_t k = gather(s, list, first, j, units);
        for (size_t u = 0; u < k; ++u)
            entries[total++] = (entry_t){units[u].root, (uint32_t)j, units[u].net};
    }
    free(first), free(list);
    /* Each item's set before they are paired off (for a part that stays whole). */
    uint32_t *set_of = malloc((count + 1) * sizeof *set_of);
    if (!set_of) {
        free(units), free(entries), free(kids);
        s->oom = true;
        return false;
    }
    for (size_t x = 0; x < count; ++x) set_of[x] = s->tree[find(s->parent, items[x])];
    pair_off(s, entries, total);
    free(entries);
    /* Items by their strip's root, each strip's height its bytes at t0. */
    size_t strips = 0; /* a set's root is one of its items */
    for (size_t x = 0; x < count; ++x) strips += find(s->parent, items[x]) == items[x];
    if (strips == 1) {
        free(units);
        ok = solve_contracted(s, set_of, (uint32_t const(*)[2])kids, count, h, base, depth);
        free(set_of), free(kids);
        return ok;
    }
    free(set_of), free(kids);
    for (size_t x = 0; x < count; ++x)
        units[x] = (unit_t){find(s->parent, items[x]), (int64_t)items[x]};
    qsort(units, count, sizeof *units, by_root);
    for (size_t x = 0; x < count; ++x) items[x] = (uint32_t)units[x].net;
    free(units);
    uint64_t stacked = 0;
    for (size_t from = 0; ok && from < count;) {
        uint32_t root = find(s->parent, items[from]);
        size_t to = from;
        uint64_t height = 0;
        while (to < count && find(s->parent, items[to]) == root) {
            if (s->lo[items[to]] == t0) height += s->size[items[to]];
            ++to;
        }
        ok = height && stacked + height <= h &&
             solve(s, items + from, to - from, t0, t1, height, base + stacked, depth + 1);
        stacked += height;
        from = to;
    }
    return ok && stacked == h;
}

/* Items[0, count), each live within [t0, t1), load h at every time there, placed in
 * [base, base + h). */
static bool solve(strips_t *s, uint32_t *items, size_t count, uint64_t t0, uint64_t t1, uint64_t h,
                  uint64_t base, size_t depth) {
    if (count == 1) {
        uint32_t i = items[0];
        s->at[i] = base;
        return s->lo[i] == t0 && s->hi[i] == t1 && s->size[i] == h;
    }
    if (depth > ARP_STRIPS_DEPTH || arp_clock_past(s->clock, s->deadline)) return false;
    /* The times inside (t0, t1) where an item starts or ends. */
    uint64_t *times = malloc((2 * count + 1) * sizeof *times);
    int32_t *spans = calloc(2 * count + 2, sizeof *spans);
    if (!times || !spans) goto oom;
    size_t n = 0;
    for (size_t x = 0; x < count; ++x) {
        uint32_t i = items[x];
        if (s->lo[i] > t0) times[n++] = s->lo[i];
        if (s->hi[i] < t1) times[n++] = s->hi[i];
    }
    qsort(times, n, sizeof *times, by_u64);
    size_t distinct = 0;
    for (size_t j = 0; j < n; ++j)
        if (!distinct || times[j] != times[distinct - 1]) times[distinct++] = times[j];
    /* Times no item spans cut the part: spans[j] counts items over times[j]. */
    for (size_t x = 0; x < count; ++x) {
        uint32_t i = items[x];
        size_t a = arp_place_count_below(times, distinct, s->lo[i] + 1),
               b = arp_place_count_below(times, distinct, s->hi[i]);
        if (a < b) ++spans[a], --spans[b];
    }
    size_t cuts = 0;
    int64_t live = 0;
    for (size_t j = 0; j < distinct; ++j) {
        live += spans[j];
        if (!live) times[cuts++] = times[j]; /* times[cuts] <= times[j]: safe in place */
    }
    free(spans);
    spans = NULL;
    bool ok = true;
    if (cuts) {
        /* Items by the piece they fall in, each piece solved on its own. */
        uint32_t *sorted = malloc((count + 1) * sizeof *sorted);
        size_t *piece = calloc(cuts + 2, sizeof *piece);
        if (!sorted || !piece) {
            free(sorted), free(piece);
            goto oom;
        }
        for (size_t x = 0; x < count; ++x)
            ++piece[arp_place_count_below(times, cuts, s->lo[items[x]] + 1) + 1];
        for (size_t j = 1; j <= cuts + 1; ++j) piece[j] += piece[j - 1];
        for (size_t x = 0; x < count; ++x)
            sorted[piece[arp_place_count_below(times, cuts, s->lo[items[x]] + 1)]++] = items[x];
        memcpy(items, sorted, count * sizeof *items);
        free(sorted);
        uint64_t *edges = malloc((cuts + 2) * sizeof *edges);
        if (!edges) {
            free(piece);
            goto oom;
        }
        edges[0] = t0, edges[cuts + 1] = t1;
        memcpy(edges + 1, times, cuts * sizeof *edges);
        free(times);
        for (size_t j = 0, from = 0; ok && j <= cuts; ++j) {
            size_t to = piece[j];
            ok = to > from &&
                 solve(s, items + from, to - from, edges[j], edges[j + 1], h, base, depth + 1);
            from = to;
        }
        free(piece), free(edges);
        return ok;
    }
    /* No cut in time: strips, pairs joined at crowded times; cut again without them where that
     * leaves the part stuck, or (a few times a pass) where a strip did not tile. */
    size_t paired = 0;
    bool stuck = false;
    ok = layers(s, items, count, t0, t1, h, base, depth, times, distinct, true, &paired, &stuck);
    if (!ok && paired && !s->oom && (stuck || (s->retries > 0 && s->retries--)) &&
        !arp_clock_past(s->clock, s->deadline))
        ok = layers(s, items, count, t0, t1, h, base, depth, times, distinct, false, &paired,
                    &stuck);
    free(times);
    return ok;
oom:
    free(times), free(spans);
    s->oom = true;
    return false;
}

/* Rows (one buffer each, no alignment) within `limit`, at[] per row: 1 found, 0 not (or the
 * load is not `limit` at every time of their span), -1 out of memory. The clock, deadline,
 * decider, pass and retries are `from`'s; `passes` passes from its. */
static int strips_rows(strips_t const *from, ar_place_buffer_t const *rows, size_t m,
                       uint64_t limit, unsigned passes, uint64_t *at) {
    if (!m || m >= UINT32_MAX / 2) return 0; /* node ids of joins go up to 2m */
    uint64_t *lo = malloc(m * sizeof *lo), *hi = malloc(m * sizeof *hi),
             *size = malloc(m * sizeof *size);
    event_t *events = malloc(2 * m * sizeof *events);
    uint32_t *parent = malloc(m * sizeof *parent), *items = malloc(m * sizeof *items),
             *tree = malloc(m * sizeof *tree), *slot = malloc(m * sizeof *slot);
    int64_t *sums = malloc(((size_t)1 << ARP_STRIPS_UNITS) * sizeof *sums);
    int answer = -1;
    if (!lo || !hi || !size || !events || !parent || !tree || !items || !slot || !sums) goto done;
    for (size_t i = 0; i < m; ++i) {
        lo[i] = rows[i].lower, hi[i] = rows[i].upper, size[i] = rows[i].size, at[i] = 0;
        items[i] = (uint32_t)i;
    }
    strips_t s = {.lo = lo,
                  .hi = hi,
                  .size = size,
                  .at = at,
                  .parent = parent,
                  .sums = sums,
                  .tree = tree,
                  .m = m,
                  .slot = slot,
                  .clock = from->clock,
                  .deadline = from->deadline,
                  .decide = from->decide,
                  .pass = from->pass,
                  .retries = from->retries};
    /* Only where the load is the limit at every time of the span. */
    uint64_t t0, t1, load;
    answer = 0;
    if (level(&s, items, m, events, &t0, &t1, &load) && load == limit)
        for (unsigned pass = from->pass; !answer && !s.oom && pass < from->pass + passes &&
                                         !arp_clock_past(s.clock, s.deadline);
             ++pass) {
            if (pass > from->pass) s.pass = pass, s.retries = ARP_STRIPS_RETRIES << pass;
            answer = solve(&s, items, m, t0, t1, limit, 0, 0);
        }
    if (s.oom) answer = -1;
done:
    free(lo), free(hi), free(size), free(events), free(parent), free(tree), free(items);
    free(slot), free(sums);
    return answer;
}

arp_result_t arp_strips(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                        uint64_t alignment, uint64_t limit, arp_clock_t *clock, double deadline,
                        arp_decider_t decide, uint64_t *offsets) {
    size_t m = 0;
    for (size_t b = 0; b < g->count; ++b) {
        if (!arp_place_group_holds(g, b)) continue;
        if (g->hull[b].several) return arp_none_k;
        ++m;
    }
    ar_place_buffer_t *rows = malloc((m + 1) * sizeof *rows);
    uint64_t *at = malloc((m + 1) * sizeof *at), *buffer_at = calloc(g->count + 1, sizeof *at);
    int answer = -1;
    if (rows && at && buffer_at) {
        for (size_t b = 0, i = 0; b < g->count; ++b)
            if (arp_place_group_holds(g, b))
                rows[i++] =
                    (ar_place_buffer_t){g->hull[b].lower, g->hull[b].upper, g->hull[b].size, 0};
        strips_t top = {
            .clock = clock, .deadline = deadline, .decide = decide, .retries = ARP_STRIPS_RETRIES};
        answer = strips_rows(&top, rows, m, limit, ARP_STRIPS_PASSES, at);
        if (answer == 1) {
            for (size_t b = 0, i = 0; b < g->count; ++b)
                if (arp_place_group_holds(g, b)) buffer_at[b] = at[i++];
            arp_place_groups_spread(problem, g, buffer_at, offsets);
            answer = ar_place_check(problem, offsets, alignment, NULL) &&
                     ar_place_height(problem, offsets) <= limit;
        }
    }
    free(rows), free(at), free(buffer_at);
    return answer < 0 ? arp_oom_k : answer ? arp_found_k : arp_none_k;
}
