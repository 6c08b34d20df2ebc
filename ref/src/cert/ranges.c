/* The sorted views rules C reads, built once A and B hold: globals and each phase's planes by
 * base (so one phase's allowed ranges are disjoint), and the windows' union. Lookups: does an
 * interval meet a window, which allowed range holds it; and rule C's one-line diagnostic,
 * shared by the certificate and the exact oracle.
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

/* The range of sorted, pairwise disjoint `ranges` holding all of [lo, hi], or NULL. */
static arp_named_range_t const *find_holding(arp_named_range_t const *ranges, size_t count,
                                             uint64_t lo, uint64_t hi) {
    size_t left = 0, right = count; /* the first range with base > lo */
    while (left < right) {
        size_t middle = left + (right - left) / 2;
        if (ranges[middle].base <= lo)
            left = middle + 1;
        else
            right = middle;
    }
    if (left == 0) return NULL;
    arp_named_range_t const *candidate = &ranges[left - 1];
    return (arp_u128_t)hi < candidate->end ? candidate : NULL;
}

arp_named_range_t const *arp_cert_allowed(arp_cert_t const *cert, int64_t phase, uint64_t lo,
                                          uint64_t hi) {
    ar_plan_t const *plan = cert->plan;
    if (phase >= 0 && (size_t)phase < plan->phases_count) {
        ar_phase_t const *p = &plan->phases[phase];
        arp_named_range_t const *plane =
            find_holding(cert->planes + p->planes_first, p->planes_count, lo, hi);
        if (plane) return plane;
    }
    return find_holding(cert->globals, plan->globals_count, lo, hi);
}

/* Distance from [lo, hi] to a range, for naming the nearest allowed one. */
static arp_u128_t distance_to(arp_named_range_t const *range, uint64_t lo, uint64_t hi) {
    if ((arp_u128_t)lo >= range->end) return (arp_u128_t)lo - range->end + 1;
    if (hi < range->base) return (arp_u128_t)(range->base - hi);
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
    /* The nearest allowed range: linear, since this runs once per report. */
    arp_named_range_t const *nearest = NULL;
    arp_u128_t best = ARP_U128_MAX;
    bool nearest_is_plane = false;
    if (l->phase >= 0 && (size_t)l->phase < plan->phases_count) {
        ar_phase_t const *p = &plan->phases[l->phase];
        for (size_t i = 0; i < p->planes_count; ++i) {
            arp_named_range_t const *r = &cert->planes[p->planes_first + i];
            arp_u128_t d = distance_to(r, lo, hi);
            if (!nearest || d < best) nearest = r, best = d, nearest_is_plane = true;
        }
    }
    for (size_t i = 0; i < plan->globals_count; ++i) {
        arp_u128_t d = distance_to(&cert->globals[i], lo, hi);
        if (!nearest || d < best) nearest = &cert->globals[i], best = d, nearest_is_plane = false;
    }
    if (nearest) {
        char range[160];
        arp_cert_describe_range(nearest->name, nearest->base, nearest->end, range, sizeof range);
        snprintf(nearest_text, sizeof nearest_text, "%s %s", nearest_is_plane ? "plane" : "global",
                 range);
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
