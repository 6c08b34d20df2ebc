/* The device arena certificate (CERTIFICATE.md §3): rules A and B by sorting, rule C by binary
 * search over sorted ranges, the verdict and its one-line diagnostic. Rule D lives in
 * certify_d.c, the exact oracle's rule C in exact.c.
 *
 * Cost follows the plan as written. (A)/(B): the globals are sorted once and each phase's
 * planes once; neighbours are compared, and each phase's sorted planes are merged against the
 * sorted globals. (C): every delta and frame entry is keyed by its site (words_first of its
 * launch + its word) and sorted, so a word finds the repeats that name it by binary search; a
 * word's intervals are tested against the union of the windows and the phase's allowed ranges
 * by binary search. A hull costs O(naming repeats), never O(iterations); points cost O(few).
 *
 * How this file reads the places where CERTIFICATE.md is not explicit:
 *  - (A)/(B): each range is first checked for alignment and non-emptiness in the order written;
 *    only then are overlaps looked for, so the diagnostic names the first bad range as written,
 *    else a pair that overlaps (found by sorting, not necessarily the first pair as written).
 *  - Windows may overlap each other; "lies in a window" means lies in their union, and a window
 *    of size 0 holds nothing.
 *  - An interval "lies whole inside one allowed range": a hull that spans two adjacent planes
 *    (or a plane and an adjacent global) fails, though each of its values may be allowed.
 *  - Hulls are closed: [lo, hi] with lo and hi values the word can take (its extreme shifts);
 *    a hull that leaves [0, 2^64) becomes [0, 2^64 - 1], which meets every window.
 *  - A frames repeat whose frames do not all list a word moves it by 0 in the silent frames, so
 *    0 joins its least/greatest shift. A repeat with one iteration that lists a word still
 *    names it (so two such repeats give a hull, not points).
 *  - `few` 0 means the default (16), as exact_limit 0 does, so zeroed options behave; nothing is
 *    lost, since few 1 already gives a 1-iteration repeat's single value, which is its hull.
 *    A huge `few` is honoured as asked: a repeat of that many iterations is walked point by
 *    point.
 *  - A launch with no phase (absent, or naming no declared phase) breaks (C) even with no words;
 *    with all_sites its words count as checked and not accepted.
 *  - Sites without all_sites are counted up to the word that breaks (C), that word included.
 *  - The verdict 2 + n + k is printed exactly in verdict_text (k is counted in 128 bits and
 *    saturates only past 2^128); report.verdict saturates at UINT64_MAX.
 *  - hull_slack_bytes (not defined by the contract): over every hull tested, its width
 *    (hi - lo + 1) less the number of ordinal tuples of its naming repeats, where the width is
 *    larger, saturated at 2^64 - 1; points add nothing.
 *  - (D): a "different plane" is any plane whose (name, base, size) differs from the carried
 *    plane's, so the same name at the same base with another size clobbers it, and a carried
 *    plane read at another size than it was declared at was never declared. The check runs
 *    when an instance starts, before the instance's own planes (fresh and carried) count as
 *    declared by it. Instances merge across reference and iteration boundaries, as the
 *    contract says; launches of no phase never reach (D), since (C) rejects them first.
 *  - The exact oracle counts its unrolled evaluations (per site of a launch with a phase, the
 *    product of its naming repeats' iterations; 1 where none names it) before evaluating and
 *    refuses past options.exact_limit (default 2^32) with ar_status_unsupported_k; its (D) is
 *    the naive walker up to 2^24 executed launches, else the fixed-point walker (exact too).
 *  - Repeats nested more than 4096 deep are refused (ar_status_unsupported_k) rather than
 *    risking the stack.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

void ar_u128_decimal(ar_u128_t value, char *text, size_t size) {
    char digits[48];
    size_t length = 0;
    do {
        digits[length++] = (char)('0' + (int)(value % 10));
        value /= 10;
    } while (value != 0);
    size_t out = 0;
    while (length > 0 && out + 1 < size) text[out++] = digits[--length];
    if (size > 0) text[out] = '\0';
}

void ar_u128_hex(ar_u128_t value, char *text, size_t size) {
    if (value >> 64)
        snprintf(text, size, "0x%" PRIx64 "%016" PRIx64, (uint64_t)(value >> 64), (uint64_t)value);
    else
        snprintf(text, size, "0x%" PRIx64, (uint64_t)value);
}

void ar_certify_options_default(ar_certify_options_t *options) {
    if (!options) return;
    memset(options, 0, sizeof *options);
    options->few = AR_CERTIFY_FEW_DEFAULT;
}

/* ---- Ranges ------------------------------------------------------------------------------ */

static int compare_named_ranges(void const *a, void const *b) {
    ar_named_range_t const *x = a, *y = b;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int compare_spans(void const *a, void const *b) {
    ar_span_t const *x = a, *y = b;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    return x->window < y->window ? -1 : x->window > y->window;
}

/* "name" [0xbase, 0xend) */
static void describe_range(char const *name, uint64_t base, ar_u128_t end, char *text,
                           size_t size) {
    char end_text[40];
    ar_u128_hex(end, end_text, sizeof end_text);
    snprintf(text, size, "\"%s\" [0x%" PRIx64 ", %s)", name ? name : "", base, end_text);
}

bool ar_cert_meets_window(ar_cert_t const *cert, uint64_t lo, uint64_t hi, size_t *window) {
    /* The first span whose end passes lo; it meets [lo, hi] iff it starts at or before hi. */
    size_t left = 0, right = cert->spans_count;
    while (left < right) {
        size_t middle = left + (right - left) / 2;
        if (cert->spans[middle].end <= (ar_u128_t)lo) left = middle + 1;
        else right = middle;
    }
    if (left == cert->spans_count || cert->spans[left].base > hi) return false;
    if (window) {
        /* Name an original window that meets the interval, not just the union's piece. */
        ar_plan_t const *plan = cert->plan;
        *window = cert->spans[left].window;
        for (size_t w = 0; w < plan->windows_count; ++w) {
            ar_u128_t end = (ar_u128_t)plan->windows[w].base + plan->windows[w].size;
            if (plan->windows[w].size && plan->windows[w].base <= hi && end > lo) {
                *window = w;
                break;
            }
        }
    }
    return true;
}

/* The range of sorted, pairwise disjoint `ranges` holding all of [lo, hi], or NULL. */
static ar_named_range_t const *find_holding(ar_named_range_t const *ranges, size_t count,
                                            uint64_t lo, uint64_t hi) {
    size_t left = 0, right = count; /* the first range with base > lo */
    while (left < right) {
        size_t middle = left + (right - left) / 2;
        if (ranges[middle].base <= lo) left = middle + 1;
        else right = middle;
    }
    if (left == 0) return NULL;
    ar_named_range_t const *candidate = &ranges[left - 1];
    return (ar_u128_t)hi < candidate->end ? candidate : NULL;
}

ar_named_range_t const *ar_cert_allowed(ar_cert_t const *cert, int64_t phase, uint64_t lo,
                                        uint64_t hi) {
    ar_plan_t const *plan = cert->plan;
    if (phase >= 0 && (size_t)phase < plan->phases_count) {
        ar_phase_t const *p = &plan->phases[phase];
        ar_named_range_t const *plane =
            find_holding(cert->planes + p->planes_first, p->planes_count, lo, hi);
        if (plane) return plane;
    }
    return find_holding(cert->globals, plan->globals_count, lo, hi);
}

/* Distance from [lo, hi] to a range, for naming the nearest allowed one. */
static ar_u128_t distance_to(ar_named_range_t const *range, uint64_t lo, uint64_t hi) {
    if ((ar_u128_t)lo >= range->end) return (ar_u128_t)lo - range->end + 1;
    if (hi < range->base) return (ar_u128_t)(range->base - hi);
    return 0;
}

void ar_cert_describe_c(ar_cert_t const *cert, size_t launch, size_t word, uint64_t lo,
                        uint64_t hi, char const *detail, char *message, size_t size) {
    ar_plan_t const *plan = cert->plan;
    ar_launch_t const *l = &plan->launches[launch];
    char value[96], window_text[96], nearest_text[200] = "none: the phase has no planes and there are no globals";
    if (lo == hi) snprintf(value, sizeof value, "0x%" PRIx64, lo);
    else snprintf(value, sizeof value, "[0x%" PRIx64 ", 0x%" PRIx64 "]", lo, hi);
    size_t window = 0;
    window_text[0] = '\0';
    if (ar_cert_meets_window(cert, lo, hi, &window)) {
        char end[40];
        ar_u128_hex((ar_u128_t)plan->windows[window].base + plan->windows[window].size, end,
                    sizeof end);
        snprintf(window_text, sizeof window_text, "window %zu [0x%" PRIx64 ", %s)", window,
                 plan->windows[window].base, end);
    }
    /* The nearest allowed range: linear, since this runs once per report. */
    ar_named_range_t const *nearest = NULL;
    ar_u128_t best = AR_U128_MAX;
    bool nearest_is_plane = false;
    if (l->phase >= 0 && (size_t)l->phase < plan->phases_count) {
        ar_phase_t const *p = &plan->phases[l->phase];
        for (size_t i = 0; i < p->planes_count; ++i) {
            ar_named_range_t const *r = &cert->planes[p->planes_first + i];
            ar_u128_t d = distance_to(r, lo, hi);
            if (!nearest || d < best) nearest = r, best = d, nearest_is_plane = true;
        }
    }
    for (size_t i = 0; i < plan->globals_count; ++i) {
        ar_u128_t d = distance_to(&cert->globals[i], lo, hi);
        if (!nearest || d < best) nearest = &cert->globals[i], best = d, nearest_is_plane = false;
    }
    if (nearest) {
        char range[160];
        describe_range(nearest->name, nearest->base, nearest->end, range, sizeof range);
        snprintf(nearest_text, sizeof nearest_text, "%s %s", nearest_is_plane ? "plane" : "global",
                 range);
    }
    snprintf(message, size,
             "rule C: launch %zu (kernel \"%s\", phase \"%s\") word %zu takes %s%s%s, which meets "
             "%s but lies whole in no plane of its phase nor in a global (nearest allowed: %s)",
             launch, l->kernel ? l->kernel : "", l->phase_name ? l->phase_name : "", word, value,
             detail && *detail ? " " : "", detail ? detail : "", window_text, nearest_text);
}

/* ---- Rules A and B ------------------------------------------------------------------------ */

static void set_verdict(ar_certify_report_t *report, ar_rule_t rule, ar_u128_t verdict) {
    report->rule = rule;
    report->verdict = ar_u128_to_u64_sat(verdict);
    ar_u128_decimal(verdict, report->verdict_text, sizeof report->verdict_text);
}

/* Checks one list of ranges (already copied into `sorted`, in written order): aligned and
 * non-empty in written order, then sorted and disjoint. `what` is "global" or "plane". Returns
 * false and writes the message on the first breach. */
static bool check_ranges(ar_named_range_t *sorted, size_t count, uint64_t alignment,
                         char const *prefix, char const *what, char *message, size_t size) {
    char a[160], b[160];
    for (size_t i = 0; i < count; ++i) {
        ar_named_range_t const *r = &sorted[i];
        if (r->end == (ar_u128_t)r->base) {
            describe_range(r->name, r->base, r->end, a, sizeof a);
            snprintf(message, size, "%s%s %zu %s is empty (size 0)", prefix, what, i, a);
            return false;
        }
        if (alignment && r->base % alignment != 0) {
            describe_range(r->name, r->base, r->end, a, sizeof a);
            snprintf(message, size, "%s%s %zu %s is not aligned to %" PRIu64 " bytes", prefix,
                     what, i, a, alignment);
            return false;
        }
    }
    qsort(sorted, count, sizeof *sorted, compare_named_ranges);
    /* Sorted by base, an overlap exists iff some range starts before the furthest end so far. */
    size_t furthest = 0;
    for (size_t i = 1; i < count; ++i) {
        if ((ar_u128_t)sorted[i].base < sorted[furthest].end) {
            describe_range(sorted[furthest].name, sorted[furthest].base, sorted[furthest].end, a,
                           sizeof a);
            describe_range(sorted[i].name, sorted[i].base, sorted[i].end, b, sizeof b);
            snprintf(message, size, "%s%ss %s and %s overlap", prefix, what, a, b);
            return false;
        }
        if (sorted[i].end > sorted[furthest].end) furthest = i;
    }
    return true;
}

/* Rules A and B; returns the rule broken (none, a or b) and fills the message. Leaves
 * cert->globals and cert->planes sorted. */
static ar_rule_t check_a_b(ar_cert_t *cert, char *message, size_t size) {
    ar_plan_t const *plan = cert->plan;
    for (size_t i = 0; i < plan->globals_count; ++i) {
        ar_global_t const *g = &plan->globals[i];
        cert->globals[i] = (ar_named_range_t){g->base, (ar_u128_t)g->base + g->size, g->name, i, true};
    }
    if (!check_ranges(cert->globals, plan->globals_count, plan->alignment, "rule A: ", "global",
                      message, size))
        return ar_rule_a_k;
    for (size_t i = 0; i < plan->planes_count; ++i) {
        ar_plane_t const *p = &plan->planes[i];
        cert->planes[i] = (ar_named_range_t){p->base, (ar_u128_t)p->base + p->size, p->name, i, false};
    }
    for (size_t ph = 0; ph < plan->phases_count; ++ph) {
        ar_phase_t const *phase = &plan->phases[ph];
        ar_named_range_t *planes = cert->planes + phase->planes_first;
        char prefix[160];
        snprintf(prefix, sizeof prefix, "rule B: phase \"%s\": ", phase->id ? phase->id : "");
        if (!check_ranges(planes, phase->planes_count, plan->alignment, prefix, "plane", message,
                          size))
            return ar_rule_b_k;
        /* Merge the phase's sorted planes against the sorted globals. */
        size_t i = 0, j = 0;
        while (i < phase->planes_count && j < plan->globals_count) {
            ar_named_range_t const *p = &planes[i], *g = &cert->globals[j];
            if (p->end <= (ar_u128_t)g->base) ++i;
            else if (g->end <= (ar_u128_t)p->base) ++j;
            else {
                char a[160], b[160];
                describe_range(p->name, p->base, p->end, a, sizeof a);
                describe_range(g->name, g->base, g->end, b, sizeof b);
                snprintf(message, size, "%splane %s overlaps global %s", prefix, a, b);
                return ar_rule_b_k;
            }
        }
    }
    return ar_rule_none_k;
}

/* ---- Rule C (certificate mode) ------------------------------------------------------------ */

/* One repeat that names a site, with its least and greatest shift over its iterations. */
typedef struct naming_t {
    ar_naming_t const *naming;
    __int128 least, greatest;
} naming_t;

static size_t collect_naming(ar_cert_t const *cert, size_t first, size_t count, naming_t *out) {
    ar_plan_t const *plan = cert->plan;
    for (size_t g = 0; g < count; ++g) {
        ar_naming_t const *n = &cert->namings[first + g];
        ar_repeat_t const *rep = &plan->repeats[n->repeat];
        out[g].naming = n;
        if (!rep->has_frames) {
            __int128 last = (__int128)(rep->iterations ? rep->iterations - 1 : 0) * (__int128)n->least;
            out[g].least = last < 0 ? last : 0;
            out[g].greatest = last > 0 ? last : 0;
        } else {
            bool silent = n->listed < rep->iterations;
            out[g].least = silent && n->least > 0 ? 0 : n->least;
            out[g].greatest = silent && n->greatest < 0 ? 0 : n->greatest;
        }
    }
    return count;
}

/* The site of a delta or frame entry, or SIZE_MAX for one finish would have refused. */
static size_t site_of(ar_plan_t const *plan, ar_shift_t const *shift) {
    if (shift->launch >= plan->launches_count) return SIZE_MAX;
    ar_launch_t const *launch = &plan->launches[shift->launch];
    if (shift->word >= launch->words_count) return SIZE_MAX;
    return launch->words_first + shift->word;
}

/* Summarise every delta and frame entry per (site, repeat), by counting sort over sites: each
 * repeat's entries are visited in order (frame by frame), so a site's namings come out in
 * repeat order and its frame entries in frame order, with no comparison sort. */
static ar_status_t build_namings(ar_cert_t *cert) {
    ar_plan_t const *plan = cert->plan;
    size_t words = plan->words_count;
    if (plan->shifts_count == 0 || words == 0) return ar_status_success_k;
    if (plan->repeats_count >= UINT32_MAX || plan->shifts_count >= UINT32_MAX) {
        snprintf(cert->error, sizeof cert->error,
                 "rule C: %zu repeats or %zu deltas and frame entries is too many", plan->repeats_count,
                 plan->shifts_count);
        return ar_status_unsupported_k;
    }
    /* A deltas repeat lists each site once (finish checks it); only a frames repeat lists a
     * site again, so `last` (the last repeat that listed each site) exists only for those. */
    bool any_frames = false;
    for (size_t r = 0; r < plan->repeats_count; ++r) any_frames |= plan->repeats[r].has_frames;
    uint32_t *last = any_frames ? malloc(words * sizeof *last) : NULL;
    cert->site_start = calloc(words + 1, sizeof *cert->site_start);
    if ((any_frames && !last) || !cert->site_start) {
        free(last);
        return ar_status_out_of_memory_k;
    }
    if (last) memset(last, 0xff, words * sizeof *last);
    for (size_t r = 0; r < plan->repeats_count; ++r) {
        ar_repeat_t const *rep = &plan->repeats[r];
        for (size_t k = rep->shifts_first; k < rep->shifts_first + rep->shifts_count; ++k) {
            size_t site = site_of(plan, &plan->shifts[k]);
            if (site == SIZE_MAX) continue;
            if (rep->has_frames) {
                if (last[site] == r) continue;
                last[site] = (uint32_t)r;
            }
            ++cert->site_start[site + 1];
        }
    }
    for (size_t i = 0; i < words; ++i) cert->site_start[i + 1] += cert->site_start[i];
    cert->namings_count = cert->site_start[words];
    cert->namings = malloc((cert->namings_count + 1) * sizeof *cert->namings);
    if (!cert->namings) {
        free(last);
        return ar_status_out_of_memory_k;
    }
    /* site_start[s] serves as the next free slot of s; shifted back afterwards. */
    if (last) memset(last, 0xff, words * sizeof *last);
    for (size_t r = 0; r < plan->repeats_count; ++r) {
        ar_repeat_t const *rep = &plan->repeats[r];
        for (size_t k = rep->shifts_first; k < rep->shifts_first + rep->shifts_count; ++k) {
            size_t site = site_of(plan, &plan->shifts[k]);
            if (site == SIZE_MAX) continue;
            int64_t shift = plan->shifts[k].shift;
            if (!rep->has_frames || last[site] != r) {
                if (rep->has_frames) last[site] = (uint32_t)r;
                cert->namings[cert->site_start[site]++] = (ar_naming_t){r, shift, shift, 1, SIZE_MAX};
            } else {
                ar_naming_t *n = &cert->namings[cert->site_start[site] - 1];
                if (shift < n->least) n->least = shift;
                if (shift > n->greatest) n->greatest = shift;
                ++n->listed;
            }
        }
    }
    memmove(cert->site_start + 1, cert->site_start, words * sizeof *cert->site_start);
    cert->site_start[0] = 0;
    free(last);

    /* Frame entries, only for frames repeats whose offsets are read one by one. */
    size_t entries = 0;
    for (size_t i = 0; i < cert->namings_count; ++i) {
        ar_naming_t *n = &cert->namings[i];
        ar_repeat_t const *rep = &plan->repeats[n->repeat];
        if (rep->has_frames && (cert->options.exact || rep->iterations <= cert->options.few)) {
            n->entries_first = entries;
            entries += n->listed;
        }
    }
    if (entries == 0) return ar_status_success_k;
    cert->frame_entries = malloc(entries * sizeof *cert->frame_entries);
    uint64_t *filled = calloc(cert->namings_count, sizeof *filled);
    if (!cert->frame_entries || !filled) {
        free(filled);
        return ar_status_out_of_memory_k;
    }
    for (size_t r = 0; r < plan->repeats_count; ++r) {
        ar_repeat_t const *rep = &plan->repeats[r];
        if (!rep->has_frames || !(cert->options.exact || rep->iterations <= cert->options.few)) continue;
        for (uint64_t f = 0; f < rep->iterations; ++f) {
            size_t from = plan->frame_starts[rep->frames_first + f];
            size_t to = plan->frame_starts[rep->frames_first + f + 1];
            for (size_t k = from; k < to; ++k) {
                size_t site = site_of(plan, &plan->shifts[k]);
                if (site == SIZE_MAX) continue;
                size_t slot = cert->site_start[site];
                while (slot < cert->site_start[site + 1] && cert->namings[slot].repeat != r) ++slot;
                ar_naming_t const *n = &cert->namings[slot];
                cert->frame_entries[n->entries_first + filled[slot]++] =
                    (ar_frame_entry_t){f, plan->shifts[k].shift};
            }
        }
    }
    free(filled);
    return ar_status_success_k;
}

static ar_status_t build_sorted_views(ar_cert_t *cert) {
    ar_plan_t const *plan = cert->plan;
    /* Windows: sort, merge overlapping or touching ones into a union. */
    cert->spans = malloc((plan->windows_count ? plan->windows_count : 1) * sizeof *cert->spans);
    if (!cert->spans) return ar_status_out_of_memory_k;
    size_t n = 0;
    for (size_t w = 0; w < plan->windows_count; ++w)
        if (plan->windows[w].size)
            cert->spans[n++] = (ar_span_t){plan->windows[w].base,
                                           (ar_u128_t)plan->windows[w].base + plan->windows[w].size, w};
    qsort(cert->spans, n, sizeof *cert->spans, compare_spans);
    size_t merged = 0;
    for (size_t i = 0; i < n; ++i) {
        if (merged && (ar_u128_t)cert->spans[i].base <= cert->spans[merged - 1].end) {
            if (cert->spans[i].end > cert->spans[merged - 1].end)
                cert->spans[merged - 1].end = cert->spans[i].end;
        } else
            cert->spans[merged++] = cert->spans[i];
    }
    cert->spans_count = merged;

    return build_namings(cert);
}

/* Consecutive words mostly fall in the same window gap, window, plane or global, so the last
 * answers are remembered and tried before any binary search. */
typedef struct lookup_memo_t {
    bool has_gap, has_span;
    uint64_t gap_lo, gap_hi;         /* an inclusive stretch no window meets */
    uint64_t span_lo, span_hi;       /* an inclusive stretch inside one window */
    /* Allowed ranges found lately, direct-mapped by address: words of one launch reach a
     * handful of planes and globals, and the next launches mostly the same ones. A slot holds
     * a range and the phase it was found for (-1: a global, allowed to every phase). */
    ar_named_range_t const *ranges[64];
    int64_t phases[64];
} lookup_memo_t;

static inline size_t memo_slot(uint64_t address) {
    return (size_t)(((address >> 8) * 0x9e3779b97f4a7c15ull) >> 58);
}

static bool memo_meets_window(ar_cert_t const *cert, lookup_memo_t *memo, uint64_t lo, uint64_t hi) {
    if (memo->has_gap && memo->gap_lo <= lo && hi <= memo->gap_hi) return false;
    if (memo->has_span && memo->span_lo <= hi && lo <= memo->span_hi) return true;
    /* The first span ending past lo decides; remember it, or the gap before it. */
    size_t left = 0, right = cert->spans_count;
    while (left < right) {
        size_t middle = left + (right - left) / 2;
        if (cert->spans[middle].end <= (ar_u128_t)lo) left = middle + 1;
        else right = middle;
    }
    uint64_t gap_lo = left ? (uint64_t)(cert->spans[left - 1].end) : 0;
    if (left == cert->spans_count || cert->spans[left].base > hi) {
        memo->has_gap = true;
        memo->gap_lo = gap_lo;
        memo->gap_hi = left == cert->spans_count ? UINT64_MAX : cert->spans[left].base - 1;
        return false;
    }
    memo->has_span = true;
    memo->span_lo = cert->spans[left].base;
    memo->span_hi = (uint64_t)(cert->spans[left].end - 1);
    return true;
}

static bool memo_allowed(ar_cert_t const *cert, lookup_memo_t *memo, int64_t phase, uint64_t lo,
                         uint64_t hi) {
    size_t slot = memo_slot(lo);
    ar_named_range_t const *r = memo->ranges[slot];
    if (r && (memo->phases[slot] < 0 || memo->phases[slot] == phase) && r->base <= lo &&
        (ar_u128_t)hi < r->end)
        return true;
    r = ar_cert_allowed(cert, phase, lo, hi);
    if (!r) return false;
    memo->ranges[slot] = r;
    memo->phases[slot] = r->is_global ? -1 : phase;
    return true;
}

/* An interval passes when it meets no window or lies whole in one allowed range. */
static inline bool interval_passes(ar_cert_t const *cert, lookup_memo_t *memo, int64_t phase,
                                   uint64_t lo, uint64_t hi) {
    return !memo_meets_window(cert, memo, lo, hi) || memo_allowed(cert, memo, phase, lo, hi);
}

/* Rule C with points and hulls. Sets report fields; returns the first failing launch through
 * *failed (SIZE_MAX when none). */
static ar_status_t certificate_rule_c(ar_cert_t const *cert, ar_certify_report_t *report,
                                      size_t *failed) {
    ar_plan_t const *plan = cert->plan;
    uint64_t few = cert->options.few;
    naming_t *naming = NULL;
    size_t naming_capacity = 0;
    ar_u128_t slack = 0;
    lookup_memo_t memo = {0};
    uint64_t sites_checked = 0, sites_accepted = 0, points = 0, hulls = 0;
    *failed = SIZE_MAX;
    for (size_t li = 0; li < plan->launches_count; ++li) {
        ar_launch_t const *launch = &plan->launches[li];
        int64_t phase = launch->phase;
        bool phaseless = phase < 0 || (size_t)phase >= plan->phases_count;
        bool launch_ok = !phaseless;
        if (phaseless && *failed == SIZE_MAX) {
            *failed = li;
            report->launch = li, report->word = 0, report->lo = report->hi = 0;
            if (launch->phase_name)
                snprintf(report->message, sizeof report->message,
                         "rule C: launch %zu (kernel \"%s\") names phase \"%s\", which is not "
                         "declared",
                         li, launch->kernel ? launch->kernel : "", launch->phase_name);
            else
                snprintf(report->message, sizeof report->message,
                         "rule C: launch %zu (kernel \"%s\") carries no phase",
                         li, launch->kernel ? launch->kernel : "");
        }
        if (phaseless && !cert->options.all_sites) break;
        if (phaseless) { /* counted, never accepted */
            sites_checked += launch->words_count;
            continue;
        }
        for (size_t w = 0; w < launch->words_count; ++w) {
            size_t site = launch->words_first + w;
            uint64_t word = plan->words[site];
            ++sites_checked;
            size_t first, count = ar_cert_site_namings(cert, site, &first);
            if (count == 0) { /* the common case: one point */
                ++points;
                if (interval_passes(cert, &memo, phase, word, word)) {
                    ++sites_accepted;
                    continue;
                }
                launch_ok = false;
                if (*failed == SIZE_MAX) {
                    *failed = li;
                    report->launch = li, report->word = w, report->lo = report->hi = word;
                    ar_cert_describe_c(cert, li, w, word, word, "", report->message,
                                       sizeof report->message);
                }
                if (!cert->options.all_sites) break;
                continue;
            }
            if (count > naming_capacity) {
                naming_t *grown = realloc(naming, count * sizeof *naming);
                if (!grown) {
                    free(naming);
                    return ar_status_out_of_memory_k;
                }
                naming = grown, naming_capacity = count;
            }
            size_t groups = collect_naming(cert, first, count, naming);
            bool site_ok = true;
            uint64_t bad_lo = 0, bad_hi = 0;
            char detail[160] = "";
            if (groups == 1 && plan->repeats[naming[0].naming->repeat].iterations <= few) {
                ar_naming_t const *n = naming[0].naming;
                ar_repeat_t const *rep = &plan->repeats[n->repeat];
                size_t cursor = n->entries_first;
                for (uint64_t i = 0; i < rep->iterations; ++i) {
                    uint64_t value = word + ar_cert_shift_at(cert, n, rep->has_frames, i, &cursor);
                    ++points;
                    if (!interval_passes(cert, &memo, phase, value, value)) {
                        site_ok = false, bad_lo = bad_hi = value;
                        snprintf(detail, sizeof detail, "at iteration %" PRIu64 " of repeat %zu", i,
                                 n->repeat);
                        break;
                    }
                }
            } else {
                /* The hull: lo only falls and hi only rises as terms join, so wrap is caught
                 * term by term and nothing overflows 128 bits. */
                __int128 lo = (__int128)word, hi = (__int128)word;
                bool wrapped = false;
                ar_u128_t values = 1;
                for (size_t g = 0; g < groups && !wrapped; ++g) {
                    lo += naming[g].least, hi += naming[g].greatest;
                    if (lo < 0 || hi >= (__int128)AR_TWO_64) wrapped = true;
                }
                for (size_t g = 0; g < groups; ++g)
                    values = ar_u128_mul_sat(values, plan->repeats[naming[g].naming->repeat].iterations);
                uint64_t hull_lo = wrapped ? 0 : (uint64_t)lo;
                uint64_t hull_hi = wrapped ? UINT64_MAX : (uint64_t)hi;
                ar_u128_t width = (ar_u128_t)hull_hi - hull_lo + 1;
                if (width > values) slack = ar_u128_add_sat(slack, width - values);
                ++hulls;
                if (!interval_passes(cert, &memo, phase, hull_lo, hull_hi)) {
                    site_ok = false, bad_lo = hull_lo, bad_hi = hull_hi;
                    int used = snprintf(detail, sizeof detail, "%s(hull over repeat%s",
                                        wrapped ? "(wraps past 2^64) " : "", groups > 1 ? "s" : "");
                    for (size_t g = 0; g < groups && used > 0 && (size_t)used < sizeof detail - 24; ++g)
                        used += snprintf(detail + used, sizeof detail - (size_t)used, "%s %zu",
                                         g ? "," : "", naming[g].naming->repeat);
                    if (used > 0 && (size_t)used < sizeof detail - 2) strcat(detail, ")");
                }
            }
            if (site_ok) {
                ++sites_accepted;
                continue;
            }
            launch_ok = false;
            if (*failed == SIZE_MAX) {
                *failed = li;
                report->launch = li, report->word = w, report->lo = bad_lo, report->hi = bad_hi;
                ar_cert_describe_c(cert, li, w, bad_lo, bad_hi, detail, report->message,
                                   sizeof report->message);
            }
            if (!cert->options.all_sites) break;
        }
        if (!launch_ok && !cert->options.all_sites) break;
    }
    free(naming);
    report->sites_checked = sites_checked, report->sites_accepted = sites_accepted;
    report->points = points, report->hulls = hulls;
    /* hull_slack_bytes: over all hulls tested, the hull's width (hi - lo + 1) less the number
     * of ordinal tuples of its naming repeats (the most values it can stand for), where the
     * width is larger; saturated. Points add nothing. */
    report->hull_slack_bytes = ar_u128_to_u64_sat(slack);
    return ar_status_success_k;
}

/* ---- The verdict --------------------------------------------------------------------------- */

static ar_status_t fail_status(ar_certify_report_t *report, ar_status_t status, char const *why) {
    report->rule = ar_rule_none_k;
    report->verdict = 0;
    snprintf(report->verdict_text, sizeof report->verdict_text, "none");
    snprintf(report->message, sizeof report->message, "%s", why);
    return status;
}

ar_status_t ar_certify(ar_plan_t const *plan, ar_certify_options_t const *options,
                       ar_certify_report_t *report) {
    if (!report) return ar_status_invalid_argument_k;
    memset(report, 0, sizeof *report);
    if (!plan) return fail_status(report, ar_status_invalid_argument_k, "no plan (NULL)");
    if (!plan->finished)
        return fail_status(report, ar_status_invalid_argument_k,
                           "the plan is not finished: call ar_plan_finish first");
    ar_cert_t cert = {.plan = plan};
    if (options) cert.options = *options;
    else ar_certify_options_default(&cert.options);
    if (cert.options.exact_limit == 0) cert.options.exact_limit = (uint64_t)1 << 32;
    if (cert.options.few == 0) cert.options.few = AR_CERTIFY_FEW_DEFAULT;

    set_verdict(report, ar_rule_none_k, 0);
    snprintf(report->message, sizeof report->message, "certified");
    snprintf(report->instance_text, sizeof report->instance_text, "0");

    ar_status_t status = ar_status_out_of_memory_k;
    cert.globals = malloc((plan->globals_count ? plan->globals_count : 1) * sizeof *cert.globals);
    cert.planes = malloc((plan->planes_count ? plan->planes_count : 1) * sizeof *cert.planes);
    if (!cert.globals || !cert.planes) goto out;

    ar_rule_t rule = check_a_b(&cert, report->message, sizeof report->message);
    if (rule != ar_rule_none_k) {
        set_verdict(report, rule, 1);
        status = ar_status_success_k;
        goto out;
    }
    status = build_sorted_views(&cert);
    if (status != ar_status_success_k) {
        if (cert.error[0]) snprintf(report->message, sizeof report->message, "%s", cert.error);
        goto out;
    }

    size_t failed = SIZE_MAX;
    if (cert.options.exact) {
        status = ar_cert_exact_rule_c(&cert, report);
        if (status != ar_status_success_k) goto out;
        if (report->rule == ar_rule_c_k) failed = report->launch;
        report->rule = ar_rule_none_k;
    } else {
        status = certificate_rule_c(&cert, report, &failed);
        if (status != ar_status_success_k) goto out;
    }
    if (failed != SIZE_MAX) {
        set_verdict(report, ar_rule_c_k, (ar_u128_t)2 + failed);
        goto out;
    }

    ar_rule_d_t d;
    memset(&d, 0, sizeof d);
    bool naive = false;
    if (cert.options.exact) {
        ar_u128_t executed = 0;
        status = ar_cert_executed_launches(plan, &executed);
        if (status != ar_status_success_k) goto out;
        naive = executed <= AR_NAIVE_D_LAUNCH_LIMIT;
    }
    status = naive ? ar_cert_rule_d_naive(plan, AR_NAIVE_D_LAUNCH_LIMIT, &d)
                   : ar_cert_rule_d_fast(plan, &d);
    if (status != ar_status_success_k) {
        snprintf(report->message, sizeof report->message, "%s", d.message);
        goto out;
    }
    report->executed_launches = ar_u128_to_u64_sat(d.executed_launches);
    report->instances = ar_u128_to_u64_sat(d.instances);
    if (d.broken) {
        set_verdict(report, ar_rule_d_k,
                    ar_u128_add_sat(ar_u128_add_sat(2, plan->launches_count), d.instance));
        report->instance = ar_u128_to_u64_sat(d.instance);
        ar_u128_decimal(d.instance, report->instance_text, sizeof report->instance_text);
        snprintf(report->message, sizeof report->message, "%s", d.message);
    }
out:
    if (status == ar_status_out_of_memory_k)
        fail_status(report, status, "out of memory while certifying the plan");
    else if (status != ar_status_success_k) {
        report->rule = ar_rule_none_k, report->verdict = 0;
        snprintf(report->verdict_text, sizeof report->verdict_text, "none");
    }
    free(cert.globals);
    free(cert.planes);
    free(cert.spans);
    free(cert.site_start);
    free(cert.namings);
    free(cert.frame_entries);
    return status;
}
