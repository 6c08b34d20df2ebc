/* The sorted views rule C reads: the windows' union, built once A and B hold (they leave the
 * globals and each phase's planes by base, so one phase's allowed ranges are disjoint).
 * Lookups: does an interval meet a window, does an allowed range hold it; and rule C's one-line
 * diagnostic, shared by the certificate and the exact oracle.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

static int compare_spans(void const *a, void const *b) {
    arp_span_t const *x = a, *y = b;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    return x->window < y->window ? -1 : x->window > y->window;
}

/* "name" [0xbase, 0xend) */
void arp_cert_describe_range(char const *name, uint64_t base, arp_u128_t end, char *text,
                             size_t size) {
    char end_text[40];
    arp_u128_hex(end, end_text, sizeof end_text);
    snprintf(text, size, "\"%s\" [0x%" PRIx64 ", %s)", name ? name : "", base, end_text);
}

bool arp_cert_meets_window(arp_cert_t const *cert, uint64_t lo, uint64_t hi, size_t *window) {
    /* The first span whose end passes lo meets [lo, hi] iff it starts at or before hi. */
    size_t left = arp_cert_span_past(cert, lo);
    if (left == cert->spans_count || cert->spans[left].base > hi) return false;
    if (window) {
        /* Name an original window that meets the interval, not just the union's piece. */
        ar_plan_t const *plan = cert->plan;
        *window = cert->spans[left].window;
        for (size_t w = 0; w < plan->windows_count; ++w) {
            arp_u128_t end = (arp_u128_t)plan->windows[w].base + plan->windows[w].size;
            if (plan->windows[w].size && plan->windows[w].base <= hi && end > lo) {
                *window = w;
                break;
            }
        }
    }
    return true;
}

bool arp_cert_global_holds(arp_cert_t const *cert, uint64_t lo, uint64_t hi) {
    size_t left = 0, right = cert->plan->globals_count; /* the first global with base > lo */
    while (left < right) {
        size_t middle = left + (right - left) / 2;
        if (arp_cert_global(cert, middle)->base <= lo)
            left = middle + 1;
        else
            right = middle;
    }
    if (left == 0) return false;
    ar_global_t const *g = arp_cert_global(cert, left - 1);
    return (arp_u128_t)hi < (arp_u128_t)g->base + g->size;
}

bool arp_cert_allowed(arp_cert_t const *cert, int64_t phase, uint64_t lo, uint64_t hi) {
    ar_plan_t const *plan = cert->plan;
    if (phase >= 0 && (size_t)phase < plan->phases_count) {
        ar_phase_t const *p = &plan->phases[phase];
        size_t first = p->planes_first + (size_t)phase, left = 0, right = p->planes_count;
        while (left < right) { /* the first plane with base > lo */
            size_t middle = left + (right - left) / 2;
            if (cert->plane_lo[first + middle] <= lo)
                left = middle + 1;
            else
                right = middle;
        }
        if (left && hi <= cert->plane_hi[first + left - 1]) return true;
    }
    return arp_cert_global_holds(cert, lo, hi);
}

/* Distance from [lo, hi] to [base, end), for naming the nearest allowed range. */
static arp_u128_t distance_to(uint64_t base, arp_u128_t end, uint64_t lo, uint64_t hi) {
    if ((arp_u128_t)lo >= end) return (arp_u128_t)lo - end + 1;
    if (hi < base) return (arp_u128_t)(base - hi);
    return 0;
}

void arp_cert_describe_c(arp_cert_t const *cert, size_t launch, size_t word, uint64_t lo,
                         uint64_t hi, char const *detail, char *message, size_t size) {
    ar_plan_t const *plan = cert->plan;
    ar_launch_t const *l = &plan->launches[launch];
    char value[96], window_text[96],
        nearest_text[200] = "none: the phase has no planes and there are no globals";
    if (lo == hi)
        snprintf(value, sizeof value, "0x%" PRIx64, lo);
    else
        snprintf(value, sizeof value, "[0x%" PRIx64 ", 0x%" PRIx64 "]", lo, hi);
    size_t window = 0;
    window_text[0] = '\0';
    if (arp_cert_meets_window(cert, lo, hi, &window)) {
        char end[40];
        arp_u128_hex((arp_u128_t)plan->windows[window].base + plan->windows[window].size, end,
                     sizeof end);
        snprintf(window_text, sizeof window_text, "window %zu [0x%" PRIx64 ", %s)", window,
                 plan->windows[window].base, end);
    }
    /* The nearest allowed range (the first by base at the least distance): linear, since this
     * runs once per report. */
    char const *nearest = NULL, *nearest_name = NULL;
    uint64_t nearest_base = 0;
    arp_u128_t nearest_end = 0, best = ARP_U128_MAX;
    if (l->phase >= 0 && (size_t)l->phase < plan->phases_count) {
        ar_phase_t const *p = &plan->phases[l->phase];
        for (size_t i = 0; i < p->planes_count; ++i) {
            size_t slot = p->planes_first + (size_t)l->phase + i;
            ar_plane_t const *r = &plan->planes[cert->plane_index[slot]];
            arp_u128_t end = (arp_u128_t)r->base + r->size, d = distance_to(r->base, end, lo, hi);
            if (!nearest || d < best)
                nearest = "plane", nearest_name = r->name, nearest_base = r->base,
                nearest_end = end, best = d;
        }
    }
    for (size_t i = 0; i < plan->globals_count; ++i) {
        ar_global_t const *g = arp_cert_global(cert, i);
        arp_u128_t end = (arp_u128_t)g->base + g->size, d = distance_to(g->base, end, lo, hi);
        if (!nearest || d < best)
            nearest = "global", nearest_name = g->name, nearest_base = g->base, nearest_end = end,
            best = d;
    }
    if (nearest) {
        char range[160];
        arp_cert_describe_range(nearest_name, nearest_base, nearest_end, range, sizeof range);
        snprintf(nearest_text, sizeof nearest_text, "%s %s", nearest, range);
    }
    snprintf(message, size,
             "rule C: launch %zu (kernel \"%s\", phase \"%s\") word %zu takes %s%s%s, which meets "
             "%s but lies whole in no plane of its phase nor in a global (nearest allowed: %s)",
             launch, l->kernel ? l->kernel : "", l->phase_name ? l->phase_name : "", word, value,
             detail && *detail ? " " : "", detail ? detail : "", window_text, nearest_text);
}

ar_status_t arp_cert_windows(arp_cert_t *cert) {
    ar_plan_t const *plan = cert->plan;
    /* Windows: sort, merge overlapping or touching ones into a union. */
    cert->spans = malloc((plan->windows_count ? plan->windows_count : 1) * sizeof *cert->spans);
    if (!cert->spans) return ar_status_out_of_memory_k;
    size_t n = 0;
    for (size_t w = 0; w < plan->windows_count; ++w)
        if (plan->windows[w].size)
            cert->spans[n++] =
                (arp_span_t){plan->windows[w].base,
                             (arp_u128_t)plan->windows[w].base + plan->windows[w].size, w};
    qsort(cert->spans, n, sizeof *cert->spans, compare_spans);
    size_t merged = 0;
    for (size_t i = 0; i < n; ++i) {
        if (merged && (arp_u128_t)cert->spans[i].base <= cert->spans[merged - 1].end) {
            if (cert->spans[i].end > cert->spans[merged - 1].end)
                cert->spans[merged - 1].end = cert->spans[i].end;
        } else
            cert->spans[merged++] = cert->spans[i];
    }
    cert->spans_count = merged;
    return ar_status_success_k;
}

void arp_cert_report_phaseless(ar_certify_report_t *report, ar_plan_t const *plan, size_t li) {
    ar_launch_t const *launch = &plan->launches[li];
    report->launch = li, report->word = 0, report->lo = report->hi = 0;
    if (launch->phase_name)
        snprintf(report->message, sizeof report->message,
                 "rule C: launch %zu (kernel \"%s\") names phase \"%s\", which is not declared", li,
                 launch->kernel ? launch->kernel : "", launch->phase_name);
    else
        snprintf(report->message, sizeof report->message,
                 "rule C: launch %zu (kernel \"%s\") carries no phase", li,
                 launch->kernel ? launch->kernel : "");
}
