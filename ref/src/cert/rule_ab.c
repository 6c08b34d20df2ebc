/* Rules A and B (CERTIFICATE.md §3): globals, then each phase's planes, aligned, non-empty and
 * pairwise disjoint, planes off the globals. Each list is checked in written order for
 * alignment and size, then sorted and neighbours compared; each of a phase's sorted planes
 * looks up the one global that may meet it, so a phase costs its planes, not the globals. The
 * sorted lists stay for rule C.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

static int compare_named_ranges(void const *a, void const *b) {
    arp_named_range_t const *x = a, *y = b;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* A phase's planes are a few: insertion sort (the order is total, so the result is qsort's).
 * Many ranges (the globals) mostly come in address order: checked in one pass first. */
static void sort_ranges(arp_named_range_t *r, size_t count) {
    if (count > 16) {
        size_t i = 1;
        while (i < count && compare_named_ranges(&r[i - 1], &r[i]) < 0) ++i;
        if (i < count) qsort(r, count, sizeof *r, compare_named_ranges);
        return;
    }
    for (size_t i = 1; i < count; ++i) {
        arp_named_range_t x = r[i];
        size_t j = i;
        for (; j > 0 && compare_named_ranges(&r[j - 1], &x) > 0; --j) r[j] = r[j - 1];
        r[j] = x;
    }
}

/* The message's prefix: "rule A: ", or "rule B: phase \"ID\": " (made only on a breach). */
static void make_prefix(ar_phase_t const *phase, char *prefix, size_t size) {
    if (!phase)
        snprintf(prefix, size, "rule A: ");
    else
        snprintf(prefix, size, "rule B: phase \"%s\": ", phase->id ? phase->id : "");
}

/* Checks one list of ranges (already copied into `sorted`, in written order): aligned and
 * non-empty in written order, then sorted and disjoint. `what` is "global" or "plane";
 * `phase` NULL for the globals. Returns false and writes the message on the first breach. */
static bool check_ranges(arp_named_range_t *sorted, size_t count, uint64_t alignment,
                         ar_phase_t const *phase, char const *what, char *message, size_t size) {
    char a[160], b[160], prefix[160];
    for (size_t i = 0; i < count; ++i) {
        arp_named_range_t const *r = &sorted[i];
        if (r->end == (arp_u128_t)r->base) {
            arp_cert_describe_range(r->name, r->base, r->end, a, sizeof a);
            make_prefix(phase, prefix, sizeof prefix);
            snprintf(message, size, "%s%s %zu %s is empty (size 0)", prefix, what, i, a);
            return false;
        }
        if (alignment && r->base % alignment != 0) {
            arp_cert_describe_range(r->name, r->base, r->end, a, sizeof a);
            make_prefix(phase, prefix, sizeof prefix);
            snprintf(message, size, "%s%s %zu %s is not aligned to %" PRIu64 " bytes", prefix, what,
                     i, a, alignment);
            return false;
        }
    }
    sort_ranges(sorted, count);
    /* Sorted by base, an overlap exists iff some range starts before the furthest end so far. */
    size_t furthest = 0;
    for (size_t i = 1; i < count; ++i) {
        if ((arp_u128_t)sorted[i].base < sorted[furthest].end) {
            arp_cert_describe_range(sorted[furthest].name, sorted[furthest].base,
                                    sorted[furthest].end, a, sizeof a);
            arp_cert_describe_range(sorted[i].name, sorted[i].base, sorted[i].end, b, sizeof b);
            make_prefix(phase, prefix, sizeof prefix);
            snprintf(message, size, "%s%ss %s and %s overlap", prefix, what, a, b);
            return false;
        }
        if (sorted[i].end > sorted[furthest].end) furthest = i;
    }
    return true;
}

/* Rules A and B; returns the rule broken (none, a or b) and fills the message. Leaves
 * cert->globals and cert->planes sorted. */
ar_rule_t arp_rule_ab(arp_cert_t *cert, char *message, size_t size) {
    ar_plan_t const *plan = cert->plan;
    for (size_t i = 0; i < plan->globals_count; ++i) {
        ar_global_t const *g = &plan->globals[i];
        cert->globals[i] =
            (arp_named_range_t){g->base, (arp_u128_t)g->base + g->size, g->name, i, true};
    }
    if (!check_ranges(cert->globals, plan->globals_count, plan->alignment, NULL, "global", message,
                      size))
        return ar_rule_a_k;
    for (size_t i = 0; i < plan->planes_count; ++i) {
        ar_plane_t const *p = &plan->planes[i];
        cert->planes[i] =
            (arp_named_range_t){p->base, (arp_u128_t)p->base + p->size, p->name, i, false};
    }
    for (size_t ph = 0; ph < plan->phases_count; ++ph) {
        ar_phase_t const *phase = &plan->phases[ph];
        arp_named_range_t *planes = cert->planes + phase->planes_first;
        if (!check_ranges(planes, phase->planes_count, plan->alignment, phase, "plane", message,
                          size))
            return ar_rule_b_k;
        /* The globals are sorted and disjoint, so their ends rise: the first global ending past
         * a plane's base is the only one that can be the first to meet it. The first plane (by
         * base) that meets a global, with the first global it meets, is what a merge of the two
         * lists would find. */
        for (size_t i = 0; i < phase->planes_count; ++i) {
            arp_named_range_t const *p = &planes[i];
            /* Past the last global's end (the usual workspace), none can meet it. */
            if (!plan->globals_count ||
                (arp_u128_t)p->base >= cert->globals[plan->globals_count - 1].end)
                continue;
            size_t lo = 0, hi = plan->globals_count;
            while (lo < hi) {
                size_t middle = lo + (hi - lo) / 2;
                if (cert->globals[middle].end <= (arp_u128_t)p->base)
                    lo = middle + 1;
                else
                    hi = middle;
            }
            if (lo == plan->globals_count || p->end <= (arp_u128_t)cert->globals[lo].base) continue;
            arp_named_range_t const *g = &cert->globals[lo];
            char a[160], b[160], prefix[160];
            make_prefix(phase, prefix, sizeof prefix);
            arp_cert_describe_range(p->name, p->base, p->end, a, sizeof a);
            arp_cert_describe_range(g->name, g->base, g->end, b, sizeof b);
            snprintf(message, size, "%splane %s overlaps global %s", prefix, a, b);
            return ar_rule_b_k;
        }
    }
    return ar_rule_none_k;
}
