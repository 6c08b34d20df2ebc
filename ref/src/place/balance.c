/* A balanced group among vectors: a nonempty proper subset of sets whose nets sum to zero at
 * every time (strips.c asks it where its arithmetic leaves a part whole: at crowded times
 * coincidental sums separate everything, but a subset balanced at every time at once is
 * rarely a coincidence). One set is in (it or the rest holds it: say the subset); then, time
 * by time, the open time with fewest undecided sets is closed: the undecided sets that balance
 * it go in and the others out, all in first, then few in or few out, each choice followed
 * depth first. Choices are counted and so are the subsets looked at: a guess, bounded, that
 * the caller checks (a wrong group leaves strips that do not tile). */
#include <stdlib.h>
#include <string.h>

#include "place/engine.h"

/* Subsets of up to this many sets are tried, in or out, while enumerating those of one size
 * looks at most 1/ARP_BALANCE_SHARE of the work budget's smaller ones (a larger budget reaches
 * larger subsets of crowded times). */
#define ARP_BALANCE_PICK 8
#define ARP_BALANCE_SHARE 64
/* The clock is read every this many choices, and every ARP_BALANCE_CLOCK_WORK subsets looked
 * at (one choice's subsets can be many). */
#define ARP_BALANCE_CLOCK 256
#define ARP_BALANCE_CLOCK_WORK (1u << 20)

typedef struct balance_t {
    size_t sets, times;
    size_t const *first;          /* by time: cells [first[j], first[j + 1]) */
    uint32_t const *set;          /* per cell */
    int64_t const *net;           /* per cell */
    size_t *by_set;               /* by set: its cells' times [by_set[x], by_set[x + 1]) */
    uint32_t *time_of;            /* ... the time */
    int64_t *net_of;              /* ... and the net */
    uint8_t *in;                  /* per set: 0 undecided, 1 in, 2 out */
    int64_t *need;                /* per time: the sum of the in sets' nets */
    uint8_t *closed;              /* per time */
    uint32_t *decided, *closings; /* stacks: sets decided and times closed, for undoing */
    size_t decided_count, closings_count, in_count;
    uint32_t *scratch; /* the undecided sets of the times on the path */
    int64_t *values;   /* ... and their nets */
    size_t scratch_count;
    uint64_t visits, visits_left, work_left, cap; /* cap: one size's enumeration */
    uint64_t unread;                              /* subsets looked at since the clock */
    arp_clock_t *clock;
    double deadline;
    bool stopped;
} balance_t;

static void decide(balance_t *b, uint32_t x, uint8_t in) {
    b->in[x] = in;
    b->decided[b->decided_count++] = x;
    if (in != 1) return;
    ++b->in_count;
    for (size_t c = b->by_set[x]; c < b->by_set[x + 1]; ++c) b->need[b->time_of[c]] += b->net_of[c];
}

static void undo(balance_t *b, size_t decided, size_t closings) {
    while (b->decided_count > decided) {
        uint32_t x = b->decided[--b->decided_count];
        if (b->in[x] == 1) {
            --b->in_count;
            for (size_t c = b->by_set[x]; c < b->by_set[x + 1]; ++c)
                b->need[b->time_of[c]] -= b->net_of[c];
        }
        b->in[x] = 0;
    }
    while (b->closings_count > closings) b->closed[b->closings[--b->closings_count]] = 0;
}

static int grow(balance_t *b);

/* u[pick[0, k)] go in (out when `flip`), time j's other undecided sets the other way, j is
 * closed, and the growing goes on: 1 found, 0 not below, -1 stopped. */
static int choose(balance_t *b, size_t j, uint32_t const *u, size_t count, size_t const *pick,
                  size_t k, bool flip) {
    size_t decided = b->decided_count, closings = b->closings_count;
    for (size_t q = 0; q < k; ++q) decide(b, u[pick[q]], flip ? 2 : 1);
    for (size_t x = 0; x < count; ++x)
        if (!b->in[u[x]]) decide(b, u[x], flip ? 1 : 2);
    b->closed[j] = 1;
    b->closings[b->closings_count++] = (uint32_t)j;
    int found = grow(b);
    if (found != 1) undo(b, decided, closings);
    return found;
}

/* The k-subsets of u[from, count) (nets v, ascending) summing to `target`, after pick[0,
 * depth): the last one by binary search. */
static int subsets(balance_t *b, size_t j, uint32_t const *u, int64_t const *v, size_t count,
                   size_t *pick, size_t depth, size_t k, size_t from, int64_t target, bool flip) {
    if (depth + 1 == k) {
        size_t lo = from, hi = count;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (v[mid] < target)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < count && v[lo] == target; ++lo) {
            pick[depth] = lo;
            int found = choose(b, j, u, count, pick, k, flip);
            if (found) return found;
        }
        return 0;
    }
    if (b->work_left < count - from) return b->stopped = true, -1;
    b->work_left -= count - from;
    if ((b->unread += count - from) > ARP_BALANCE_CLOCK_WORK) {
        b->unread = 0;
        if (arp_clock_past(b->clock, b->deadline)) return b->stopped = true, -1;
    }
    for (size_t x = from; x < count; ++x) {
        pick[depth] = x;
        int found = subsets(b, j, u, v, count, pick, depth + 1, k, x + 1, target - v[x], flip);
        if (found) return found;
    }
    return 0;
}

static int grow(balance_t *b) {
    if (!b->visits_left-- || arp_clock_dead(b->clock) ||
        (++b->visits % ARP_BALANCE_CLOCK == 0 && arp_clock_past(b->clock, b->deadline)))
        return b->stopped = true, -1;
    /* The open time the in sets leave unbalanced with the fewest undecided sets. */
    size_t j = SIZE_MAX, fewest = SIZE_MAX;
    for (size_t t = 0; t < b->times; ++t) {
        if (b->closed[t] || !b->need[t]) continue;
        size_t undecided = 0;
        for (size_t c = b->first[t]; c < b->first[t + 1]; ++c) undecided += !b->in[b->set[c]];
        if (undecided < fewest) fewest = undecided, j = t;
    }
    if (j == SIZE_MAX) return b->in_count < b->sets; /* balanced everywhere: found, unless all */
    if (!fewest) return 0;
    /* Its undecided sets by net (insertion: a time's sets are few), on the path's scratch. */
    uint32_t *u = b->scratch + b->scratch_count;
    int64_t *v = b->values + b->scratch_count;
    size_t count = 0;
    int64_t all = 0, target = -b->need[j];
    for (size_t c = b->first[j]; c < b->first[j + 1]; ++c) {
        if (b->in[b->set[c]]) continue;
        size_t y = count++;
        for (; y > 0 && v[y - 1] > b->net[c]; --y) u[y] = u[y - 1], v[y] = v[y - 1];
        u[y] = b->set[c], v[y] = b->net[c], all += b->net[c];
    }
    b->scratch_count += count;
    size_t pick[ARP_BALANCE_PICK];
    int found = all == target ? choose(b, j, u, count, pick, 0, true) : 0;
    double cost = 1; /* C(count, k - 1): the (k - 1)-subsets enumerated for size k */
    for (size_t k = 1; !found && k <= ARP_BALANCE_PICK && k <= count && cost <= (double)b->cap;
         ++k) {
        found = subsets(b, j, u, v, count, pick, 0, k, 0, target, false);
        if (!found && k < count)
            found = subsets(b, j, u, v, count, pick, 0, k, 0, all - target, true);
        cost = cost * (double)(count - k + 1) / (double)k;
    }
    b->scratch_count -= count;
    return found;
}

arp_result_t arp_balance(size_t sets, size_t times, size_t const *first, uint32_t const *set,
                         int64_t const *net, uint64_t visits, uint64_t work, arp_clock_t *clock,
                         double deadline, uint8_t *in) {
    if (sets < 2 || !times) return arp_none_k;
    size_t cells = first[times];
    balance_t b = {.sets = sets, .times = times, .first = first, .set = set, .net = net};
    b.by_set = calloc(sets + 1, sizeof *b.by_set);
    b.time_of = malloc((cells + 1) * sizeof *b.time_of);
    b.net_of = malloc((cells + 1) * sizeof *b.net_of);
    b.in = in;
    b.need = calloc(times, sizeof *b.need);
    b.closed = calloc(times, 1);
    b.decided = malloc((sets + 1) * sizeof *b.decided);
    b.closings = malloc((times + 1) * sizeof *b.closings);
    b.scratch = malloc((cells + 1) * sizeof *b.scratch);
    b.values = malloc((cells + 1) * sizeof *b.values);
    arp_result_t result = arp_oom_k;
    if (!b.by_set || !b.time_of || !b.net_of || !b.need || !b.closed || !b.decided || !b.closings ||
        !b.scratch || !b.values)
        goto done;
    memset(in, 0, sets);
    for (size_t c = 0; c < cells; ++c) ++b.by_set[set[c] + 1];
    for (size_t x = 1; x <= sets; ++x) b.by_set[x] += b.by_set[x - 1];
    size_t *fill = malloc((sets + 1) * sizeof *fill);
    if (!fill) goto done;
    memcpy(fill, b.by_set, sets * sizeof *fill);
    for (size_t t = 0; t < times; ++t)
        for (size_t c = first[t]; c < first[t + 1]; ++c)
            b.time_of[fill[set[c]]] = (uint32_t)t, b.net_of[fill[set[c]]++] = net[c];
    free(fill);
    /* The first set of the time with fewest sets is in. */
    size_t j = 0;
    for (size_t t = 1; t < times; ++t)
        if (first[t + 1] - first[t] < first[j + 1] - first[j]) j = t;
    b.visits_left = visits, b.work_left = work, b.cap = work / ARP_BALANCE_SHARE;
    b.clock = clock, b.deadline = deadline;
    decide(&b, set[first[j]], 1);
    int found = grow(&b);
    result = found == 1 ? arp_found_k : b.stopped ? arp_stopped_k : arp_none_k;
    for (size_t x = 0; x < sets; ++x) in[x] = in[x] == 1;
done:
    free(b.by_set), free(b.time_of), free(b.net_of), free(b.need), free(b.closed);
    free(b.decided), free(b.closings), free(b.scratch), free(b.values);
    return result;
}
