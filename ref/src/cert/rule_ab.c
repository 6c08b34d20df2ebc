/* Rules A and B (CERTIFICATE.md §3): globals, then each phase's planes, aligned, non-empty and
 * pairwise disjoint, planes off the globals. Globals given in order were found so when the
 * plan was finished (plan_globals.c, with their union in a few pieces); others are sorted here.
 * One pass per phase checks its planes and leaves them sorted as flat [lo, hi] arrays, the
 * views rule C reads; each plane is looked up among the pieces, so a phase costs its planes,
 * not the globals. Only a list that breaks a rule is gone through again, as written (alignment
 * and size in written order, then sorted neighbours, then the global a plane meets), for the
 * diagnostic.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"
#include "cert/plan_internal.h"

/* ---- Diagnostics: a list that breaks A or B, gone through as written ------------------------ */

typedef struct named_range_t {
    uint64_t base;
    arp_u128_t end; /* base + size, up to 2^64 */
    char const *name;
    size_t index; /* into plan->globals or the phase's planes */
} named_range_t;

static int compare_named_ranges(void const *a, void const *b) {
    named_range_t const *x = a, *y = b;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The message's prefix: "rule A: ", or "rule B: phase \"ID\": " (made only on a breach). */
static void make_prefix(ar_phase_t const *phase, char *prefix, size_t size) {
    if (!phase)
        snprintf(prefix, size, "rule A: ");
    else
        snprintf(prefix, size, "rule B: phase \"%s\": ", phase->id ? phase->id : "");
}

/* One list of ranges (in written order in `r`): aligned and non-empty in written order, then
 * sorted and disjoint. `what` is "global" or "plane"; `phase` NULL for the globals. Returns
 * false and writes the message on the first breach; leaves `r` sorted when it holds. */
static bool check_ranges(named_range_t *r, size_t count, uint64_t alignment,
                         ar_phase_t const *phase, char const *what, char *message, size_t size) {
    char a[160], b[160], prefix[160];
    for (size_t i = 0; i < count; ++i) {
        if (r[i].end == (arp_u128_t)r[i].base) {
            arp_cert_describe_range(r[i].name, r[i].base, r[i].end, a, sizeof a);
            make_prefix(phase, prefix, sizeof prefix);
            snprintf(message, size, "%s%s %zu %s is empty (size 0)", prefix, what, i, a);
            return false;
        }
        if (alignment && r[i].base % alignment != 0) {
            arp_cert_describe_range(r[i].name, r[i].base, r[i].end, a, sizeof a);
            make_prefix(phase, prefix, sizeof prefix);
            snprintf(message, size, "%s%s %zu %s is not aligned to %" PRIu64 " bytes", prefix, what,
                     i, a, alignment);
            return false;
        }
    }
    qsort(r, count, sizeof *r, compare_named_ranges);
    /* Sorted by base, an overlap exists iff some range starts before the furthest end so far. */
    size_t furthest = 0;
    for (size_t i = 1; i < count; ++i) {
        if ((arp_u128_t)r[i].base < r[furthest].end) {
            arp_cert_describe_range(r[furthest].name, r[furthest].base, r[furthest].end, a,
                                    sizeof a);
            arp_cert_describe_range(r[i].name, r[i].base, r[i].end, b, sizeof b);
            make_prefix(phase, prefix, sizeof prefix);
            snprintf(message, size, "%s%ss %s and %s overlap", prefix, what, a, b);
            return false;
        }
        if (r[i].end > r[furthest].end) furthest = i;
    }
    return true;
}

static named_range_t *named_globals(ar_plan_t const *plan) {
    named_range_t *r = malloc((plan->globals_count + 1) * sizeof *r);
    for (size_t i = 0; r && i < plan->globals_count; ++i) {
        ar_global_t const *g = &plan->globals[i];
        r[i] = (named_range_t){g->base, (arp_u128_t)g->base + g->size, g->name, i};
    }
    return r;
}

/* Phase `ph` breaks B (the fast pass found it): its message, as the list reads. A plane
 * meeting a global names the first plane (by base) that does, with the first global it meets,
 * as a merge of the two sorted lists would. */
static ar_status_t diagnose_phase(arp_cert_t const *cert, size_t ph, char *message, size_t size) {
    ar_plan_t const *plan = cert->plan;
    ar_phase_t const *phase = &plan->phases[ph];
    named_range_t *planes = malloc((phase->planes_count + 1) * sizeof *planes);
    named_range_t *globals = named_globals(plan);
    if (!planes || !globals) {
        free(planes), free(globals);
        return ar_status_out_of_memory_k;
    }
    for (size_t i = 0; i < phase->planes_count; ++i) {
        ar_plane_t const *p = &plan->planes[phase->planes_first + i];
        planes[i] = (named_range_t){p->base, (arp_u128_t)p->base + p->size, p->name, i};
    }
    if (check_ranges(planes, phase->planes_count, plan->alignment, phase, "plane", message, size)) {
        qsort(globals, plan->globals_count, sizeof *globals, compare_named_ranges);
        for (size_t i = 0; i < phase->planes_count; ++i) {
            named_range_t const *p = &planes[i];
            size_t lo = 0, hi = plan->globals_count; /* the first global ending past p's base */
            while (lo < hi) {
                size_t middle = lo + (hi - lo) / 2;
                if (globals[middle].end <= (arp_u128_t)p->base)
                    lo = middle + 1;
                else
                    hi = middle;
            }
            if (lo == plan->globals_count || p->end <= (arp_u128_t)globals[lo].base) continue;
            char a[160], b[160], prefix[160];
            make_prefix(phase, prefix, sizeof prefix);
            arp_cert_describe_range(p->name, p->base, p->end, a, sizeof a);
            arp_cert_describe_range(globals[lo].name, globals[lo].base, globals[lo].end, b,
                                    sizeof b);
            snprintf(message, size, "%splane %s overlaps global %s", prefix, a, b);
            break;
        }
    }
    free(planes), free(globals);
    return ar_status_success_k;
}

/* ---- The fast pass -------------------------------------------------------------------------- */

/* The globals: whether A holds (else the message), their order when not given sorted, and
 * their pieces. Given sorted and disjoint (plan_globals.c found it when the plan was
 * finished), there is nothing to do. */
static ar_status_t check_globals(arp_cert_t *cert, bool *holds, char *message, size_t size) {
    ar_plan_t const *plan = cert->plan;
    struct ar_plan_internals_t const *in = plan->internals;
    size_t count = plan->globals_count, pieces = 0;
    *holds = true;
    if (in->globals_in_order || count == 0) {
        cert->pieces = in->global_pieces, cert->pieces_count = in->global_pieces_count;
        return ar_status_success_k;
    }
    /* Broken, or given out of order: sorted once, as written. */
    named_range_t *r = named_globals(plan);
    cert->global_order = malloc((count + 1) * sizeof *cert->global_order);
    uint64_t *piece = cert->pieces_owned = malloc(2 * (count + 1) * sizeof *piece);
    if (!r || !cert->global_order || !piece) {
        free(r);
        return ar_status_out_of_memory_k;
    }
    *holds = check_ranges(r, count, plan->alignment, NULL, "global", message, size);
    for (size_t k = 0; k < count; ++k) cert->global_order[k] = r[k].index;
    free(r);
    for (size_t k = 0; k < count && *holds; ++k) {
        ar_global_t const *g = arp_cert_global(cert, k);
        uint64_t hi = g->base + (g->size - 1);
        if (pieces && piece[2 * pieces - 1] != UINT64_MAX && g->base == piece[2 * pieces - 1] + 1)
            piece[2 * pieces - 1] = hi;
        else
            piece[2 * pieces] = g->base, piece[2 * pieces++ + 1] = hi;
    }
    cert->pieces = piece, cert->pieces_count = pieces;
    return ar_status_success_k;
}

/* Whether inclusive [lo, hi] meets a piece of the globals: the first piece ending at or past
 * lo is the only one that can. */
static bool meets_globals(arp_cert_t const *cert, uint64_t lo, uint64_t hi) {
    size_t n = cert->pieces_count;
    uint64_t const *piece = cert->pieces;
    if (!n || lo > piece[2 * n - 1]) return false; /* past them all: the usual workspace */
    size_t left = 0, right = n;
    while (left < right) {
        size_t middle = left + (right - left) / 2;
        if (piece[2 * middle + 1] < lo)
            left = middle + 1;
        else
            right = middle;
    }
    return piece[2 * left] <= hi;
}

/* One phase's planes into its slice, sorted by (base, end, plane) with the sentinel after;
 * false when B breaks in it. `scratch` holds a long phase's planes for sorting. */
static bool place_phase(arp_cert_t *cert, size_t ph, named_range_t *scratch) {
    ar_plan_t const *plan = cert->plan;
    ar_phase_t const *phase = &plan->phases[ph];
    size_t n = phase->planes_count, first = phase->planes_first;
    uint64_t *lo = cert->plane_lo + first + ph, *hi = cert->plane_hi + first + ph;
    size_t *index = cert->plane_index + first + ph;
    uint64_t mask = plan->alignment - 1;
    for (size_t i = 0; i < n; ++i) {
        ar_plane_t const *p = &plan->planes[first + i];
        if (!p->size || (p->base & mask)) return false;
        uint64_t l = p->base, h = p->base + (p->size - 1);
        if (n > 16) {
            scratch[i] = (named_range_t){l, (arp_u128_t)h + 1, NULL, first + i};
            continue;
        }
        size_t j = i; /* insertion: the order (lo, hi, plane) is total, so this is a sort's */
        for (; j > 0 && (lo[j - 1] > l || (lo[j - 1] == l && hi[j - 1] > h)); --j)
            lo[j] = lo[j - 1], hi[j] = hi[j - 1], index[j] = index[j - 1];
        lo[j] = l, hi[j] = h, index[j] = first + i;
    }
    if (n > 16) {
        qsort(scratch, n, sizeof *scratch, compare_named_ranges);
        for (size_t i = 0; i < n; ++i)
            lo[i] = scratch[i].base, hi[i] = (uint64_t)(scratch[i].end - 1),
            index[i] = scratch[i].index;
    }
    lo[n] = hi[n] = UINT64_MAX;
    /* Sorted by base, an overlap exists iff some plane starts at or before the furthest end. */
    uint64_t furthest = 0;
    for (size_t i = 0; i < n; ++i) {
        if (i && lo[i] <= furthest) return false;
        if (!i || hi[i] > furthest) furthest = hi[i];
        if (meets_globals(cert, lo[i], hi[i])) return false;
    }
    return true;
}

ar_status_t arp_rule_ab(arp_cert_t *cert, ar_rule_t *rule, char *message, size_t size) {
    ar_plan_t const *plan = cert->plan;
    size_t slots = plan->planes_count + plan->phases_count + 1;
    cert->plane_lo = malloc(slots * sizeof *cert->plane_lo);
    cert->plane_hi = malloc(slots * sizeof *cert->plane_hi);
    cert->plane_index = malloc(slots * sizeof *cert->plane_index);
    if (!cert->plane_lo || !cert->plane_hi || !cert->plane_index) return ar_status_out_of_memory_k;
    *rule = ar_rule_none_k;
    bool holds;
    ar_status_t status = check_globals(cert, &holds, message, size);
    if (status) return status;
    if (!holds) {
        *rule = ar_rule_a_k;
        return ar_status_success_k;
    }
    size_t longest = 0;
    for (size_t ph = 0; ph < plan->phases_count; ++ph)
        if (plan->phases[ph].planes_count > longest) longest = plan->phases[ph].planes_count;
    named_range_t *scratch = longest > 16 ? malloc(longest * sizeof *scratch) : NULL;
    if (longest > 16 && !scratch) return ar_status_out_of_memory_k;
    for (size_t ph = 0; ph < plan->phases_count; ++ph) {
        if (place_phase(cert, ph, scratch)) continue;
        *rule = ar_rule_b_k;
        status = diagnose_phase(cert, ph, message, size);
        break;
    }
    free(scratch);
    return status;
}
