/* Executed launches and phase instances, counted arithmetically from the schedule's structure,
 * never by running the certificate: faults that break rule D know their k from here. A summary
 * of a stretch is its first and last phase, its runs of equal phases and its launches; two
 * stretches concatenated merge one run when the first ends in the phase the second starts with,
 * and a body repeated N times merges N-1 runs when it starts and ends in one phase. A body is
 * summarized once, however many iterations or references run it. */
#include <stdlib.h>

#include "wl.h"

static arp_wl_summary_t single(int phase) { return (arp_wl_summary_t){false, phase, phase, 1, 1}; }

static arp_wl_summary_t concat(arp_wl_summary_t a, arp_wl_summary_t b) {
    if (a.empty) return b;
    if (b.empty) return a;
    arp_wl_summary_t s = {false, a.first_phase, b.last_phase, a.runs + b.runs,
                          a.launches + b.launches};
    if (a.last_phase == b.first_phase) --s.runs;
    return s;
}

static arp_wl_summary_t times(arp_wl_summary_t a, uint64_t n) {
    if (a.empty || n == 0) return (arp_wl_summary_t){.empty = true};
    arp_wl_summary_t s = a;
    s.runs = a.runs * n - (a.first_phase == a.last_phase ? (unsigned __int128)(n - 1) : 0);
    s.launches = a.launches * n;
    return s;
}

typedef struct counter_t {
    arp_wl_t const *wl;
    size_t *order; /* repeats by first ascending, then count descending: outer before inner */
    size_t count;
} counter_t;

typedef struct repeat_key_t {
    size_t first, count, index;
} repeat_key_t;

static int by_nesting(void const *a, void const *b) {
    repeat_key_t const *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return 0;
}

static size_t first_rank_at(counter_t const *c, size_t launch) {
    size_t lo = 0, hi = c->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->wl->plan->repeats[c->order[mid]].first < launch)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Launches [a, b) as they run, each repeat that lies whole inside expanded; a repeat ranked at
 * or before `rank` is the one being expanded (or an enclosing one) and is walked plainly. */
static arp_wl_summary_t summarize(counter_t const *c, size_t a, size_t b, size_t rank) {
    ar_plan_t const *plan = c->wl->plan;
    arp_wl_summary_t s = {.empty = true};
    size_t i = a;
    while (i < b) {
        size_t k = first_rank_at(c, i);
        if (k < rank) k = rank;
        bool expanded = false;
        for (; k < c->count && plan->repeats[c->order[k]].first == i; ++k) {
            ar_repeat_t const *r = &plan->repeats[c->order[k]];
            if (r->first + r->count <= b) {
                s = concat(s, times(summarize(c, i, i + r->count, k + 1), r->iterations));
                i += r->count;
                expanded = true;
                break;
            }
        }
        if (!expanded) s = concat(s, single(c->wl->launch_phase[i++]));
    }
    return s;
}

arp_wl_summary_t arp_wl_summarize_schedule(arp_wl_t const *wl, size_t stop_launch, bool *found) {
    arp_wl_summary_t total = {.empty = true};
    if (found) *found = false;
    counter_t c = {wl, malloc((wl->plan->repeats_count + 1) * sizeof(size_t)),
                   wl->plan->repeats_count};
    repeat_key_t *keys = malloc((c.count + 1) * sizeof *keys);
    if (!c.order || !keys) {
        free(c.order);
        free(keys);
        return total;
    }
    for (size_t r = 0; r < c.count; ++r)
        keys[r] = (repeat_key_t){wl->plan->repeats[r].first, wl->plan->repeats[r].count, r};
    qsort(keys, c.count, sizeof *keys, by_nesting);
    for (size_t r = 0; r < c.count; ++r) c.order[r] = keys[r].index;
    free(keys);

    enum { cache_size = 4 };
    struct {
        size_t first, count;
        arp_wl_summary_t summary;
    } cache[cache_size];
    int cached = 0, next = 0;
    for (size_t r = 0; r < wl->plan->schedule_count; ++r) {
        ar_reference_t ref = wl->plan->schedule[r];
        if (stop_launch >= ref.first && stop_launch < ref.first + ref.count) {
            total = concat(total, summarize(&c, ref.first, stop_launch, 0));
            if (found) *found = true;
            break;
        }
        int hit = -1;
        for (int k = 0; k < cached; ++k)
            if (cache[k].first == ref.first && cache[k].count == ref.count) hit = k;
        if (hit < 0) {
            hit = next;
            cache[next].first = ref.first;
            cache[next].count = ref.count;
            cache[next].summary = summarize(&c, ref.first, ref.first + ref.count, 0);
            next = (next + 1) % cache_size;
            if (cached < cache_size) ++cached;
        }
        total = concat(total, cache[hit].summary);
    }
    free(c.order);
    return total;
}
