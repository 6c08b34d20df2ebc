/* The device arena certificate (CERTIFICATE.md §3): rules A and B by sorting, rule C by binary
 * search over sorted ranges, the verdict and its one-line diagnostic. Rule D lives in
 * certify_d.c, the exact oracle's rule C in exact.c.
 *
 * Cost follows the plan as written. (A)/(B): the globals are sorted once and each phase's
 * planes once; neighbours are compared, and each phase's sorted planes are merged against the
 * sorted globals. (C): each repeat's namings are listed once sorted by site (its deltas in
 * place when already so, the usual case), and a stream merges the lists of the repeats around
 * each launch as the launches are walked in order, so a word finds the repeats that name it
 * with no search and nothing is built per word. A word's intervals are tested against its
 * phase's table: flat sorted arrays (where a point passes; the allowed ranges; the windows'
 * union) searched branch-free. A launch no repeat names, the usual case, is checked in one
 * tight loop, and so is a run of launches of one phase whose namings come from one deltas list.
 * A hull costs O(naming repeats), never O(iterations); points cost O(few). The tables of all
 * phases together are held to about 2^20 entries (plus 16 per plane, global and window): past
 * that, phases x globals being large, a phase uses the general sorted views (two binary
 * searches, with a small cache), so memory stays bounded. Rule C hands rule D the launches
 * where a phase run starts, so D never reads the launch table again.
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
 *    A `few` above AR_CERTIFY_FEW_MAX (2^24) is refused: listing its points could take hours.
 *  - A launch with no phase (absent, or naming no declared phase) breaks (C) even with no words;
 *    with all_sites its words count as checked and not accepted.
 *  - Sites without all_sites are counted up to the word that breaks (C), that word included.
 *  - The verdict 2 + n + k is printed exactly in verdict_text at any size (rule_d_wide.c counts
 *    past 2^128); report.verdict saturates at UINT64_MAX.
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

void ar_cert_report_phaseless(ar_certify_report_t *report, ar_plan_t const *plan, size_t li) {
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

/* The decimal text of `add` + the number `decimal` spells, of any length; false when the sum
 * does not fit `size`. */
static bool decimal_add(char const *decimal, uint64_t add, char *out, size_t size) {
    if (size < 2) return false;
    size_t i = strlen(decimal), at = size - 1;
    out[at] = '\0';
    ar_u128_t carry = add;
    while (i > 0 || carry || at == size - 1) {
        if (at == 0) return false;
        if (i > 0) carry += (ar_u128_t)(decimal[--i] - '0');
        out[--at] = (char)('0' + (int)(carry % 10));
        carry /= 10;
    }
    memmove(out, out + at, size - at);
    return true;
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

/* ---- Rule C: the namings of each site ------------------------------------------------------- */

/* (launch, word) order, the order of sites. */
static inline bool site_before(size_t launch_a, size_t word_a, size_t launch_b, size_t word_b) {
    return launch_a != launch_b ? launch_a < launch_b : word_a < word_b;
}

static bool valid_site(ar_plan_t const *plan, size_t launch, size_t word) {
    return launch < plan->launches_count && word < plan->launches[launch].words_count;
}

/* A frame entry gathered for sorting: its site, its frame, its offset. */
typedef struct gathered_t {
    size_t launch, word;
    uint64_t frame;
    int64_t offset;
} gathered_t;

static int compare_gathered(void const *a, void const *b) {
    gathered_t const *x = a, *y = b;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    if (x->word != y->word) return x->word < y->word ? -1 : 1;
    return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int compare_summaries(void const *a, void const *b) {
    ar_summary_t const *x = a, *y = b;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    if (x->word != y->word) return x->word < y->word ? -1 : 1;
    return x->naming.least < y->naming.least ? -1 : x->naming.least > y->naming.least;
}

typedef struct repeat_first_t {
    size_t first, count, index;
} repeat_first_t;

static int compare_repeat_firsts(void const *a, void const *b) {
    repeat_first_t const *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Whether the repeat's deltas are in strictly increasing (launch, word) order, so they serve as
 * its list in place. (Finish checks every delta names a word of a launch of the body; where one
 * would not, the stream drops it as it hands namings out, as the certificate always has.) */
static bool deltas_in_order(ar_plan_t const *plan, ar_repeat_t const *rep) {
    ar_shift_t const *s = plan->shifts + rep->shifts_first;
    for (size_t k = 1; k < rep->shifts_count; ++k)
        if (!site_before(s[k - 1].launch, s[k - 1].word, s[k].launch, s[k].word)) return false;
    return true;
}

/* Whether every frame of a frames repeat lists the same sites as frame 0, in the same order,
 * and frame 0's are valid and strictly increasing: then its list is frame 0's sites and the
 * frames are walked in lockstep, with no sort. */
static bool frames_in_lockstep(ar_plan_t const *plan, ar_repeat_t const *rep) {
    size_t const *starts = plan->frame_starts + rep->frames_first;
    size_t width = starts[1] - starts[0];
    ar_shift_t const *zero = plan->shifts + starts[0];
    for (size_t k = 0; k < width; ++k) {
        if (!valid_site(plan, zero[k].launch, zero[k].word)) return false;
        if (k && !site_before(zero[k - 1].launch, zero[k - 1].word, zero[k].launch, zero[k].word))
            return false;
    }
    for (uint64_t f = 1; f < rep->iterations; ++f) {
        if (starts[f + 1] - starts[f] != width) return false;
        ar_shift_t const *frame = plan->shifts + starts[f];
        for (size_t k = 0; k < width; ++k)
            if (frame[k].launch != zero[k].launch || frame[k].word != zero[k].word) return false;
    }
    return true;
}

/* Per repeat, its namings sorted by site. Deltas are read in place (the stream checks their
 * order when it opens the repeat, and sorts a copy if need be); a frames repeat is summarised
 * per site (least and greatest offset, frames listing it), by walking its frames in lockstep
 * when they all list the
 * same sites in order, else by sorting its entries. Frame entries are kept, in frame order, for
 * frames repeats read one offset at a time (exact mode, or at most `few` iterations). Cost
 * O(shifts) in the usual cases, O(s log s) per repeat otherwise; nothing per word. */
static ar_status_t build_namings(ar_cert_t *cert) {
    ar_plan_t const *plan = cert->plan;
    size_t r_count = plan->repeats_count;
    if (plan->shifts_count == 0 || plan->words_count == 0 || r_count == 0) return ar_status_success_k;
    cert->lists = calloc(r_count, sizeof *cert->lists);
    cert->repeat_order = malloc(r_count * sizeof *cert->repeat_order);
    if (!cert->lists || !cert->repeat_order) return ar_status_out_of_memory_k;

    /* The order the stream opens repeats in: by first launch (outer before inner). */
    bool ordered = true;
    for (size_t r = 1; r < r_count && ordered; ++r) {
        repeat_first_t a = {plan->repeats[r - 1].first, plan->repeats[r - 1].count, r - 1};
        repeat_first_t b = {plan->repeats[r].first, plan->repeats[r].count, r};
        ordered = compare_repeat_firsts(&a, &b) < 0;
    }
    if (ordered) {
        for (size_t r = 0; r < r_count; ++r) cert->repeat_order[r] = r;
    } else {
        repeat_first_t *keys = malloc(r_count * sizeof *keys);
        if (!keys) return ar_status_out_of_memory_k;
        for (size_t r = 0; r < r_count; ++r)
            keys[r] = (repeat_first_t){plan->repeats[r].first, plan->repeats[r].count, r};
        qsort(keys, r_count, sizeof *keys, compare_repeat_firsts);
        for (size_t r = 0; r < r_count; ++r) cert->repeat_order[r] = keys[r].index;
        free(keys);
    }

    /* Which repeats read in place; room for the others' summaries and kept frame entries. */
    size_t summaries = 0, entries = 0, gather = 0;
    bool *lockstep = calloc(r_count, sizeof *lockstep);
    if (!lockstep) return ar_status_out_of_memory_k;
    for (size_t r = 0; r < r_count; ++r) {
        ar_repeat_t const *rep = &plan->repeats[r];
        if (rep->shifts_count == 0) continue;
        if (!rep->has_frames) { /* checked (and sorted if need be) when the stream opens it */
            cert->lists[r] = (ar_naming_list_t){plan->shifts + rep->shifts_first, NULL, rep->shifts_count};
            continue;
        }
        bool keep = cert->options.exact || rep->iterations <= cert->options.few;
        summaries += rep->shifts_count;
        if (keep) entries += rep->shifts_count;
        lockstep[r] = frames_in_lockstep(plan, rep);
        if (!lockstep[r] && rep->shifts_count > gather) gather = rep->shifts_count;
    }
    if (summaries == 0) {
        free(lockstep);
        return ar_status_success_k;
    }
    cert->summaries = malloc(summaries * sizeof *cert->summaries);
    cert->frame_entries = entries ? malloc(entries * sizeof *cert->frame_entries) : NULL;
    gathered_t *gathered = gather ? malloc(gather * sizeof *gathered) : NULL;
    if (!cert->summaries || (entries && !cert->frame_entries) || (gather && !gathered)) {
        free(lockstep), free(gathered);
        return ar_status_out_of_memory_k;
    }

    size_t used = 0, kept = 0;
    for (size_t r = 0; r < r_count; ++r) {
        ar_repeat_t const *rep = &plan->repeats[r];
        if (rep->shifts_count == 0 || cert->lists[r].deltas) continue;
        ar_summary_t *list = cert->summaries + used;
        size_t count = 0;
        if (lockstep[r]) {
            bool keep = cert->options.exact || rep->iterations <= cert->options.few;
            size_t const *starts = plan->frame_starts + rep->frames_first;
            size_t width = starts[1] - starts[0];
            for (size_t k = 0; k < width; ++k) {
                ar_shift_t const *zero = &plan->shifts[starts[0] + k];
                ar_naming_t n = {r, zero->shift, zero->shift, rep->iterations, keep ? kept : SIZE_MAX};
                for (uint64_t f = 0; f < rep->iterations; ++f) {
                    int64_t offset = plan->shifts[starts[f] + k].shift;
                    if (offset < n.least) n.least = offset;
                    if (offset > n.greatest) n.greatest = offset;
                    if (keep) cert->frame_entries[kept++] = (ar_frame_entry_t){f, offset};
                }
                list[count++] = (ar_summary_t){zero->launch, zero->word, n};
            }
        } else {
            bool keep = cert->options.exact || rep->iterations <= cert->options.few;
            size_t g = 0;
            for (uint64_t f = 0; f < rep->iterations; ++f) {
                size_t from = plan->frame_starts[rep->frames_first + f];
                size_t to = plan->frame_starts[rep->frames_first + f + 1];
                for (size_t k = from; k < to; ++k)
                    if (valid_site(plan, plan->shifts[k].launch, plan->shifts[k].word))
                        gathered[g++] = (gathered_t){plan->shifts[k].launch, plan->shifts[k].word, f,
                                                     plan->shifts[k].shift};
            }
            qsort(gathered, g, sizeof *gathered, compare_gathered);
            for (size_t k = 0; k < g;) {
                ar_naming_t n = {r, gathered[k].offset, gathered[k].offset, 0, keep ? kept : SIZE_MAX};
                size_t j = k;
                for (; j < g && gathered[j].launch == gathered[k].launch && gathered[j].word == gathered[k].word; ++j) {
                    if (gathered[j].offset < n.least) n.least = gathered[j].offset;
                    if (gathered[j].offset > n.greatest) n.greatest = gathered[j].offset;
                    ++n.listed;
                    if (keep) cert->frame_entries[kept++] = (ar_frame_entry_t){gathered[j].frame, gathered[j].offset};
                }
                list[count++] = (ar_summary_t){gathered[k].launch, gathered[k].word, n};
                k = j;
            }
        }
        cert->lists[r] = (ar_naming_list_t){NULL, list, count};
        used += count;
    }
    free(lockstep), free(gathered);
    return ar_status_success_k;
}

/* ---- The naming stream ------------------------------------------------------------------------ */

static inline bool cursor_before(ar_naming_cursor_t const *a, ar_naming_cursor_t const *b) {
    if (a->launch != b->launch) return a->launch < b->launch;
    if (a->word != b->word) return a->word < b->word;
    return a->repeat < b->repeat;
}

/* Points `c` at entry `next` of its repeat's list; false past the end. */
static inline bool cursor_load(ar_cert_t const *cert, ar_naming_cursor_t *c) {
    (void)cert;
    ar_naming_list_t const *list = &c->list;
    if (c->next >= list->count) return false;
    if (list->deltas) c->launch = list->deltas[c->next].launch, c->word = list->deltas[c->next].word;
    else c->launch = list->summary[c->next].launch, c->word = list->summary[c->next].word;
    return true;
}

static void heap_down(ar_naming_cursor_t *heap, size_t count, size_t i) {
    ar_naming_cursor_t moving = heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= count) break;
        if (child + 1 < count && cursor_before(&heap[child + 1], &heap[child])) ++child;
        if (!cursor_before(&heap[child], &moving)) break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = moving;
}

static void heap_up(ar_naming_cursor_t *heap, size_t i) {
    ar_naming_cursor_t moving = heap[i];
    while (i > 0 && cursor_before(&moving, &heap[(i - 1) / 2])) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = moving;
}

static size_t next_first_of(ar_cert_t const *cert, size_t opened) {
    ar_plan_t const *plan = cert->plan;
    if (!cert->lists || opened >= plan->repeats_count) return SIZE_MAX;
    return plan->repeats[cert->repeat_order[opened]].first;
}

void ar_cert_stream_begin(ar_cert_t const *cert, ar_naming_stream_t *stream) {
    memset(stream, 0, sizeof *stream);
    stream->next_first = next_first_of(cert, 0);
}

void ar_cert_stream_end(ar_naming_stream_t *stream) {
    for (size_t i = 0; i < stream->owned_count; ++i) free(stream->owned[i]);
    free(stream->owned);
    free(stream->heap);
    free(stream->out);
    memset(stream, 0, sizeof *stream);
}

ar_status_t ar_cert_stream_fill(ar_cert_t const *cert, ar_naming_stream_t *stream, size_t launch,
                                size_t *count) {
    ar_plan_t const *plan = cert->plan;
    *count = 0;
    /* Open the repeats that start by this launch: their namings lie in their bodies. */
    while (stream->next_first <= launch) {
        size_t r = cert->repeat_order[stream->opened++];
        stream->next_first = next_first_of(cert, stream->opened);
        ar_naming_cursor_t c = {0, 0, r, 0, cert->lists[r]};
        if (c.list.deltas && !deltas_in_order(plan, &plan->repeats[r])) {
            /* Deltas out of site order: this stream sorts a copy (valid sites only). */
            ar_repeat_t const *rep = &plan->repeats[r];
            ar_summary_t *list = malloc((rep->shifts_count + 1) * sizeof *list);
            ar_summary_t **owned = realloc(stream->owned, (stream->owned_count + 1) * sizeof *owned);
            if (owned) stream->owned = owned;
            if (!list || !owned) {
                free(list);
                return ar_status_out_of_memory_k;
            }
            stream->owned[stream->owned_count++] = list;
            size_t count = 0;
            ar_shift_t const *s = plan->shifts + rep->shifts_first;
            for (size_t k = 0; k < rep->shifts_count; ++k)
                if (valid_site(plan, s[k].launch, s[k].word))
                    list[count++] = (ar_summary_t){s[k].launch, s[k].word,
                                                   {r, s[k].shift, s[k].shift, 1, SIZE_MAX}};
            qsort(list, count, sizeof *list, compare_summaries);
            c.list = (ar_naming_list_t){NULL, list, count};
        }
        if (!cursor_load(cert, &c)) continue;
        if (stream->heap_count == stream->heap_capacity) {
            size_t capacity = stream->heap_capacity ? 2 * stream->heap_capacity : 16;
            ar_naming_cursor_t *grown = realloc(stream->heap, capacity * sizeof *grown);
            if (!grown) return ar_status_out_of_memory_k;
            stream->heap = grown, stream->heap_capacity = capacity;
        }
        stream->heap[stream->heap_count] = c;
        heap_up(stream->heap, stream->heap_count++);
    }
    while (stream->heap_count && stream->heap[0].launch <= launch) {
        ar_naming_cursor_t *top = &stream->heap[0];
        ar_naming_list_t const *list = &top->list;
        /* Take the top list's entries in a row while they come before every other list's
         * (with one list open, the usual case, all of this launch's), so the heap is
         * restored once per switch of list, not once per entry. */
        ar_naming_cursor_t const *second = NULL;
        if (stream->heap_count > 1) {
            second = &stream->heap[1];
            if (stream->heap_count > 2 && cursor_before(&stream->heap[2], second)) second = &stream->heap[2];
        }
        bool alive;
        do {
            if (top->launch == launch && top->word < plan->launches[launch].words_count) {
                if (*count == stream->out_capacity) {
                    size_t capacity = stream->out_capacity ? 2 * stream->out_capacity : 64;
                    ar_site_naming_t *grown = realloc(stream->out, capacity * sizeof *grown);
                    if (!grown) return ar_status_out_of_memory_k;
                    stream->out = grown, stream->out_capacity = capacity;
                }
                ar_site_naming_t *o = &stream->out[(*count)++];
                o->word = top->word;
                if (list->deltas) {
                    int64_t d = list->deltas[top->next].shift;
                    o->naming = (ar_naming_t){top->repeat, d, d, 1, SIZE_MAX};
                } else
                    o->naming = list->summary[top->next].naming;
            } /* else a launch skipped by the caller (or a word past the launch's, which
               * finish refuses): dropped */
            ++top->next;
            alive = cursor_load(cert, top);
        } while (alive && top->launch <= launch && (!second || cursor_before(top, second)));
        if (!alive) {
            if (--stream->heap_count) stream->heap[0] = stream->heap[stream->heap_count];
            else break;
        }
        if (stream->heap_count > 1) heap_down(stream->heap, stream->heap_count, 0);
    }
    return ar_status_success_k;
}

/* ---- Rule C: windows and allowed ranges -------------------------------------------------------- */

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
 * answers are remembered and tried before any binary search. This is the general path, for a
 * phase whose table (below) was not built. */
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

/* Sorted, disjoint inclusive ranges [lo[i], hi[i]] as flat arrays. A set of a few ranges (the
 * usual case: a phase's good set is a handful of pieces) is scanned from the start with plain
 * branches, which the processor learns: words of one kernel fall in the same pieces launch
 * after launch, so this beats any branch-free search (measured: 2.5x). A larger set is binary
 * searched down to a few candidates first. */
typedef struct range_set_t {
    uint64_t *lo, *hi;
    size_t count;
} range_set_t;

#define SCAN_RANGES 8

/* The index of the first range ending at or after v (count when none does): the only range
 * that can hold v, or the first one past it. The arrays hold a sentinel [2^64-1, 2^64-1] at
 * index count, so the scan needs no bound. */
static inline size_t set_first_ending(range_set_t const *set, uint64_t v) {
    size_t i = 0;
    if (set->count > SCAN_RANGES) {
        size_t n = set->count;
        while (n > SCAN_RANGES) { /* the answer lies in [i, i + n] */
            size_t half = n / 2;
            if (set->hi[i + half - 1] < v) i += half, n -= half;
            else n = half;
        }
    }
    while (set->hi[i] < v) ++i;
    return i;
}

static inline bool set_holds(range_set_t const *set, uint64_t v) {
    size_t i = set_first_ending(set, v);
    return (i < set->count) & (set->lo[i] <= v);
}

/* The same for a set known to be short (count <= SCAN_RANGES): the scan alone. */
static inline bool short_set_holds(range_set_t const *set, uint64_t v) {
    size_t i = 0;
    while (set->hi[i] < v) ++i;
    return (i < set->count) & (set->lo[i] <= v);
}

static void set_sentinel(range_set_t *set) {
    set->lo[set->count] = UINT64_MAX, set->hi[set->count] = UINT64_MAX;
}

/* One phase's lookups:
 *  - good: where a point passes, that is, off every window or in an allowed range; maximal
 *    pieces (touching ones joined, which changes nothing for points), so one search decides;
 *  - allowed: the phase's planes and the globals, disjoint (A and B hold), not joined, since a
 *    hull must lie whole in one of them.
 * The windows' union (spans) is shared by every phase. */
typedef struct phase_table_t {
    range_set_t good, allowed;
} phase_table_t;

typedef struct rule_c_t {
    ar_cert_t const *cert;
    range_set_t spans;          /* the windows' union */
    uint64_t *gap_lo, *gap_hi;  /* the stretches between (and around) the spans */
    size_t gaps_count;
    phase_table_t **tables;     /* per phase, built on first use; NULL until then */
    unsigned char *table_state; /* 0 not tried, 1 built, 2 not built (over the memory budget) */
    size_t budget;              /* table entries still allowed */
    lookup_memo_t memo;         /* the general path's, for phases without a table */
} rule_c_t;

static inline bool table_passes(rule_c_t const *c, phase_table_t const *t, uint64_t lo, uint64_t hi) {
    if (lo == hi) return set_holds(&t->good, lo);
    size_t i = set_first_ending(&t->allowed, lo); /* the only allowed range that may hold lo */
    if (i < t->allowed.count && t->allowed.lo[i] <= lo && hi <= t->allowed.hi[i]) return true;
    size_t j = set_first_ending(&c->spans, lo); /* the first span that may meet [lo, hi] */
    return j == c->spans.count || c->spans.lo[j] > hi;
}

/* The table of `phase`, built on first use; NULL when over the budget (phases x globals can be
 * large: such phases take the general path). */
static phase_table_t const *phase_table(rule_c_t *c, int64_t phase) {
    if (c->table_state[phase] == 1) return c->tables[phase];
    if (c->table_state[phase] == 2) return NULL;
    ar_cert_t const *cert = c->cert;
    ar_plan_t const *plan = cert->plan;
    ar_phase_t const *p = &plan->phases[phase];
    size_t allowed = p->planes_count + plan->globals_count + 1;
    size_t good = p->planes_count + plan->globals_count + c->gaps_count + 1;
    size_t entries = 2 * (allowed + good);
    c->table_state[phase] = 2;
    if (entries > c->budget) return NULL;
    phase_table_t *t = malloc(sizeof *t + entries * sizeof(uint64_t));
    if (!t) return NULL; /* the general path needs no memory */
    c->budget -= entries;
    uint64_t *space = (uint64_t *)(t + 1);
    t->allowed.lo = space, t->allowed.hi = space + allowed;
    t->good.lo = space + 2 * allowed, t->good.hi = t->good.lo + good;
    /* Allowed: merge the phase's sorted planes with the sorted globals. */
    ar_named_range_t const *planes = cert->planes + p->planes_first;
    size_t i = 0, j = 0, n = 0;
    while (i < p->planes_count || j < plan->globals_count) {
        ar_named_range_t const *r;
        if (j == plan->globals_count || (i < p->planes_count && planes[i].base < cert->globals[j].base))
            r = &planes[i++];
        else
            r = &cert->globals[j++];
        t->allowed.lo[n] = r->base, t->allowed.hi[n] = (uint64_t)(r->end - 1), ++n;
    }
    t->allowed.count = n;
    /* Good: the gaps between the windows merged with the allowed ranges, both sorted by lo;
     * overlapping or touching pieces are joined. */
    size_t g = 0, a = 0, k = 0;
    while (a < t->allowed.count || k < c->gaps_count) {
        uint64_t lo, hi;
        if (k == c->gaps_count || (a < t->allowed.count && t->allowed.lo[a] < c->gap_lo[k]))
            lo = t->allowed.lo[a], hi = t->allowed.hi[a], ++a;
        else
            lo = c->gap_lo[k], hi = c->gap_hi[k], ++k;
        if (g && (t->good.hi[g - 1] == UINT64_MAX || lo <= t->good.hi[g - 1] + 1)) {
            if (hi > t->good.hi[g - 1]) t->good.hi[g - 1] = hi;
        } else
            t->good.lo[g] = lo, t->good.hi[g] = hi, ++g;
    }
    t->good.count = g;
    set_sentinel(&t->allowed);
    set_sentinel(&t->good);
    c->tables[phase] = t;
    c->table_state[phase] = 1;
    return t;
}

static ar_status_t rule_c_begin(rule_c_t *c, ar_cert_t const *cert) {
    ar_plan_t const *plan = cert->plan;
    memset(c, 0, sizeof *c);
    c->cert = cert;
    size_t s = cert->spans_count, padded = s + 1;
    c->spans.lo = malloc((2 * padded + 2 * (s + 1)) * sizeof *c->spans.lo);
    c->tables = calloc(plan->phases_count + 1, sizeof *c->tables);
    c->table_state = calloc(plan->phases_count + 1, 1);
    if (!c->spans.lo || !c->tables || !c->table_state) return ar_status_out_of_memory_k;
    c->spans.hi = c->spans.lo + padded;
    c->gap_lo = c->spans.hi + padded, c->gap_hi = c->gap_lo + s + 1;
    c->spans.count = s;
    uint64_t next = 0; /* the first address not yet covered */
    bool done = false;
    for (size_t i = 0; i < s; ++i) {
        c->spans.lo[i] = cert->spans[i].base, c->spans.hi[i] = (uint64_t)(cert->spans[i].end - 1);
        if (c->spans.lo[i] > next)
            c->gap_lo[c->gaps_count] = next, c->gap_hi[c->gaps_count++] = c->spans.lo[i] - 1;
        if (c->spans.hi[i] == UINT64_MAX) done = true;
        else next = c->spans.hi[i] + 1;
    }
    if (!done) c->gap_lo[c->gaps_count] = next, c->gap_hi[c->gaps_count++] = UINT64_MAX;
    set_sentinel(&c->spans);
    /* Tables for every phase fit unless phases x (globals + windows) is large. */
    c->budget = ((size_t)1 << 20) + 16 * (plan->planes_count + plan->globals_count + s);
    return ar_status_success_k;
}

static void rule_c_end(rule_c_t *c, size_t phases) {
    if (c->tables)
        for (size_t p = 0; p < phases; ++p) free(c->tables[p]);
    free(c->tables), free(c->table_state), free(c->spans.lo);
}

/* An interval passes when it meets no window or lies whole in one allowed range. */
static inline bool interval_passes(rule_c_t *c, phase_table_t const *t, int64_t phase,
                                   uint64_t lo, uint64_t hi) {
    if (t) return table_passes(c, t, lo, hi);
    return !memo_meets_window(c->cert, &c->memo, lo, hi) ||
           memo_allowed(c->cert, &c->memo, phase, lo, hi);
}

/* Intervals tested, as the report counts them. */
typedef struct tally_t {
    uint64_t points, hulls;
    ar_u128_t slack;
} tally_t;

/* Tests a site that `groups` repeats name (site[0, groups), in repeat order), adding what it
 * tests to *tally. Where it fails, the failing value or interval goes to *bad_lo, *bad_hi and,
 * when `detail` is not NULL, how it arises. One repeat of at most `few` iterations: one point
 * per iteration; otherwise the hull [w + sum of least shifts, w + sum of greatest shifts]. */
static bool site_passes(rule_c_t *c, phase_table_t const *t, int64_t phase, uint64_t word,
                        ar_site_naming_t const *site, size_t groups, tally_t *tally,
                        uint64_t *bad_lo, uint64_t *bad_hi, char *detail, size_t detail_size) {
    ar_cert_t const *cert = c->cert;
    ar_plan_t const *plan = cert->plan;
    if (groups == 1 && plan->repeats[site[0].naming.repeat].iterations <= cert->options.few) {
        ar_naming_t const *n = &site[0].naming;
        ar_repeat_t const *rep = &plan->repeats[n->repeat];
        size_t cursor = n->entries_first;
        for (uint64_t i = 0; i < rep->iterations; ++i) {
            uint64_t value = word + ar_cert_shift_at(cert, n, rep->has_frames, i, &cursor);
            ++tally->points;
            if (!interval_passes(c, t, phase, value, value)) {
                *bad_lo = *bad_hi = value;
                if (detail)
                    snprintf(detail, detail_size, "at iteration %" PRIu64 " of repeat %zu", i,
                             n->repeat);
                return false;
            }
        }
        return true;
    }
    /* The hull: lo only falls and hi only rises as terms join, so wrap is caught term by term
     * and nothing overflows 128 bits. A deltas repeat moves the word by i * delta for i below
     * its iterations; a frames repeat by its frames' offsets, and by 0 where a frame is silent. */
    __int128 lo = (__int128)word, hi = (__int128)word;
    bool wrapped = false;
    ar_u128_t values = 1;
    for (size_t g = 0; g < groups; ++g) {
        ar_naming_t const *n = &site[g].naming;
        ar_repeat_t const *rep = &plan->repeats[n->repeat];
        values = ar_u128_mul_sat(values, rep->iterations);
        if (wrapped) continue;
        __int128 least, greatest;
        if (!rep->has_frames) {
            __int128 last = (__int128)(rep->iterations ? rep->iterations - 1 : 0) * (__int128)n->least;
            least = last < 0 ? last : 0;
            greatest = last > 0 ? last : 0;
        } else {
            bool silent = n->listed < rep->iterations;
            least = silent && n->least > 0 ? 0 : n->least;
            greatest = silent && n->greatest < 0 ? 0 : n->greatest;
        }
        lo += least, hi += greatest;
        if (lo < 0 || hi >= (__int128)AR_TWO_64) wrapped = true;
    }
    uint64_t hull_lo = wrapped ? 0 : (uint64_t)lo;
    uint64_t hull_hi = wrapped ? UINT64_MAX : (uint64_t)hi;
    ar_u128_t width = (ar_u128_t)hull_hi - hull_lo + 1;
    if (width > values) tally->slack = ar_u128_add_sat(tally->slack, width - values);
    ++tally->hulls;
    if (interval_passes(c, t, phase, hull_lo, hull_hi)) return true;
    *bad_lo = hull_lo, *bad_hi = hull_hi;
    if (detail) {
        int used = snprintf(detail, detail_size, "%s(hull over repeat%s",
                            wrapped ? "(wraps past 2^64) " : "", groups > 1 ? "s" : "");
        for (size_t g = 0; g < groups && used > 0 && (size_t)used < detail_size - 24; ++g)
            used += snprintf(detail + used, detail_size - (size_t)used, "%s %zu", g ? "," : "",
                             site[g].naming.repeat);
        if (used > 0 && (size_t)used < detail_size - 2) strcat(detail, ")");
    }
    return false;
}

/* The fast pass over one launch: whether every word passes, with what it tested in *tally.
 * Words no repeat names are points checked in tight loops between the named ones. */
static inline bool launch_passes(rule_c_t *c, phase_table_t const *t, int64_t phase,
                                 uint64_t const *words, size_t count, ar_site_naming_t const *named,
                                 size_t named_count, tally_t *tally) {
    bool all = true;
    size_t w = 0, named_words = 0;
    ar_site_naming_t const *g = named, *end = named_count ? named + named_count : named;
    while (g < end && all) {
        size_t at = g->word;
        ar_site_naming_t const *first = g;
        while (g < end && g->word == at) ++g;
        for (; w < at; ++w) all &= set_holds(&t->good, words[w]);
        uint64_t lo, hi;
        all &= site_passes(c, t, phase, words[at], first, (size_t)(g - first), tally, &lo, &hi, NULL, 0);
        w = at + 1, ++named_words;
    }
    for (; w < count; ++w) all &= set_holds(&t->good, words[w]);
    tally->points += count - named_words;
    return all;
}

/* site_passes for a site one deltas repeat names, shift `delta`, without the generic loops;
 * `points` when the repeat has at most `few` iterations. `short_good`: the phase's good set is
 * short (a compile-time constant in each copy of the span loop). */
static inline __attribute__((always_inline)) bool
delta_site_passes(rule_c_t *c, phase_table_t const *t, uint64_t word, int64_t delta,
                  uint64_t iterations, bool points, bool short_good, tally_t *tally) {
    if (points) {
        for (uint64_t i = 0; i < iterations; ++i) {
            ++tally->points;
            uint64_t value = word + i * (uint64_t)delta;
            if (!(short_good ? short_set_holds(&t->good, value) : set_holds(&t->good, value)))
                return false;
        }
        return true;
    }
    __int128 last = (__int128)(iterations - 1) * delta;
    __int128 lo = (__int128)word + (last < 0 ? last : 0), hi = (__int128)word + (last > 0 ? last : 0);
    bool wrapped = lo < 0 || hi >= (__int128)AR_TWO_64;
    uint64_t hull_lo = wrapped ? 0 : (uint64_t)lo, hull_hi = wrapped ? UINT64_MAX : (uint64_t)hi;
    ar_u128_t width = (ar_u128_t)hull_hi - hull_lo + 1;
    if (width > iterations) tally->slack = ar_u128_add_sat(tally->slack, width - iterations);
    ++tally->hulls;
    return table_passes(c, t, hull_lo, hull_hi);
}

/* launch_passes for a launch whose only namings are `k` entries of one deltas repeat's list,
 * read in place (the usual case: one repeat open, its deltas sorted). */
static inline __attribute__((always_inline)) bool
launch_passes_deltas(rule_c_t *c, phase_table_t const *t, uint64_t const *words, size_t count,
                     ar_shift_t const *named, size_t k, uint64_t iterations, bool points,
                     bool short_good, tally_t *tally) {
    bool all = true;
    size_t w = 0;
    for (size_t e = 0; e < k && all; ++e) {
        size_t at = named[e].word;
        for (; w < at; ++w)
            all &= short_good ? short_set_holds(&t->good, words[w]) : set_holds(&t->good, words[w]);
        all &= delta_site_passes(c, t, words[at], named[e].shift, iterations, points, short_good, tally);
        w = at + 1;
    }
    for (; w < count; ++w)
        all &= short_good ? short_set_holds(&t->good, words[w]) : set_holds(&t->good, words[w]);
    tally->points += count - k;
    return all;
}

/* A span: launches of one phase taken in one tight loop, their namings (if any) read in place
 * from one deltas list; what they tested is counted once the loop ends. */
typedef struct span_t {
    ar_shift_t const *named, *named_end; /* the list's entries not yet taken */
    uint64_t iterations;                 /* the list's repeat's */
    uint64_t sites;
    tally_t tally;
} span_t;

/* Takes launches li, li + 1, ... while they keep li's phase, come before `limit` (where a
 * repeat opens) and pass whole; returns the first launch not taken (li when none is). A launch
 * that fails, or names a word it does not have, is left to the general path. */
static inline __attribute__((always_inline)) size_t
span_loop(rule_c_t *c, phase_table_t const *t, size_t li, size_t limit, span_t *span,
          bool short_good) {
    ar_plan_t const *plan = c->cert->plan;
    ar_launch_t const *launches = plan->launches;
    uint64_t const *all_words = plan->words;
    int64_t phase = launches[li].phase;
    ar_shift_t const *named = span->named, *named_end = span->named_end;
    uint64_t sites = 0, iterations = span->iterations;
    bool points = iterations <= c->cert->options.few;
    tally_t tally = span->tally;
    if (limit > plan->launches_count) limit = plan->launches_count;
    size_t l = li;
    for (; l < limit; ++l) {
        ar_launch_t const *launch = &launches[l];
        if (launch->phase != phase) break;
        uint64_t const *words = all_words + launch->words_first;
        /* `named` is NULL when the span names nothing: never offset it then (NULL + 0 is
         * undefined behaviour, which clang's UBSan reports). */
        size_t count = launch->words_count, k = 0;
        size_t left = named ? (size_t)(named_end - named) : 0;
        while (k < left && named[k].launch == l) ++k;
        if (left && named->launch < l) break; /* a launch behind: general path */
        if (k && named[k - 1].word >= count) break;
        tally_t mine = tally;
        if (!launch_passes_deltas(c, t, words, count, named, k, iterations, points, short_good, &mine))
            break;
        sites += count, tally = mine;
        if (k) named += k;
    }
    span->named = named, span->sites = sites, span->tally = tally;
    return l;
}

static size_t fast_span(rule_c_t *c, phase_table_t const *t, size_t li, size_t limit, span_t *span) {
    if (t->good.count <= SCAN_RANGES) return span_loop(c, t, li, limit, span, true);
    return span_loop(c, t, li, limit, span, false);
}

/* Rule C with points and hulls. Sets report fields; returns the first failing launch through
 * *failed (SIZE_MAX when none).
 *
 * Each launch first takes the fast pass (launch_passes); when every word passes, its sites and
 * intervals are counted at once. A launch that fails (or whose phase has no table) goes word by
 * word, which counts and reports exactly as the reading above says. */
static ar_status_t certificate_rule_c(ar_cert_t *cert, ar_certify_report_t *report,
                                      size_t *failed) {
    ar_plan_t const *plan = cert->plan;
    tally_t tally = {0, 0, 0};
    uint64_t sites_checked = 0, sites_accepted = 0;
    rule_c_t c;
    ar_naming_stream_t stream;
    ar_cert_stream_begin(cert, &stream);
    ar_status_t status = rule_c_begin(&c, cert);
    *failed = SIZE_MAX;
    for (size_t li = 0; li < plan->launches_count && status == ar_status_success_k; ++li) {
        ar_launch_t const *launch = &plan->launches[li];
        int64_t phase = launch->phase;
        if (li == 0 || phase != plan->launches[li - 1].phase) { /* a run starts: rule D's */
            if (cert->runs_count == cert->runs_capacity) {
                size_t capacity = cert->runs_capacity ? 2 * cert->runs_capacity : 1024;
                size_t *grown = realloc(cert->runs, capacity * sizeof *grown);
                if (!grown) {
                    status = ar_status_out_of_memory_k;
                    break;
                }
                cert->runs = grown, cert->runs_capacity = capacity;
            }
            cert->runs[cert->runs_count++] = li;
        }
        bool phaseless = phase < 0 || (size_t)phase >= plan->phases_count;
        uint64_t const *words = plan->words + launch->words_first;
        size_t count = launch->words_count;
        phase_table_t const *table = phaseless ? NULL : phase_table(&c, phase);
        /* The usual case first: at most one deltas list open, read in place, no copies; the
         * launches that follow in the same phase are taken in the same tight loop (span). */
        bool in_place = stream.heap_count == 1 && stream.heap[0].launch >= li && stream.heap[0].list.deltas;
        if (table && stream.next_first > li &&
            (stream.heap_count == 0 || in_place || stream.heap[0].launch > li)) {
            /* in place: one deltas list; else launches up to the next named one (none named) */
            ar_naming_cursor_t *top = in_place ? &stream.heap[0] : NULL;
            size_t limit = stream.next_first;
            span_t span = {NULL, NULL, 0, 0, {0, 0, 0}};
            if (top) {
                span.named = top->list.deltas + top->next;
                span.named_end = top->list.deltas + top->list.count;
                span.iterations = plan->repeats[top->repeat].iterations;
            } else if (stream.heap_count && stream.heap[0].launch < limit)
                limit = stream.heap[0].launch;
            size_t end = fast_span(&c, table, li, limit, &span);
            if (end > li) {
                sites_checked += span.sites, sites_accepted += span.sites;
                tally.points += span.tally.points, tally.hulls += span.tally.hulls;
                if (span.tally.slack) tally.slack = ar_u128_add_sat(tally.slack, span.tally.slack);
                if (top) { /* consume what the span read */
                    top->next = (size_t)(span.named - top->list.deltas);
                    if (!cursor_load(cert, top)) stream.heap_count = 0;
                }
                li = end - 1;
                continue;
            }
        }
        size_t named = 0;
        status = ar_cert_stream_launch(cert, &stream, li, &named);
        if (status != ar_status_success_k) break;
        if (phaseless) {
            if (*failed == SIZE_MAX) {
                *failed = li;
                ar_cert_report_phaseless(report, plan, li);
            }
            if (!cert->options.all_sites) break;
            sites_checked += launch->words_count; /* counted, never accepted */
            continue;
        }
        if (table) {
            tally_t mine = {0, 0, 0};
            if (launch_passes(&c, table, phase, words, count, stream.out, named, &mine)) {
                sites_checked += count, sites_accepted += count;
                tally.points += mine.points, tally.hulls += mine.hulls;
                if (mine.slack) tally.slack = ar_u128_add_sat(tally.slack, mine.slack);
                continue;
            }
        }
        bool launch_ok = true;
        ar_site_naming_t const *next = stream.out, *end = named ? stream.out + named : stream.out;
        for (size_t w = 0; w < count; ++w) {
            ++sites_checked;
            ar_site_naming_t const *first = next;
            while (next < end && next->word == w) ++next;
            size_t groups = (size_t)(next - first);
            uint64_t bad_lo = words[w], bad_hi = words[w];
            char detail[160] = "";
            bool site_ok;
            if (groups == 0) {
                ++tally.points;
                site_ok = interval_passes(&c, table, phase, words[w], words[w]);
            } else
                site_ok = site_passes(&c, table, phase, words[w], first, groups, &tally, &bad_lo,
                                      &bad_hi, detail, sizeof detail);
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
    rule_c_end(&c, plan->phases_count);
    ar_cert_stream_end(&stream);
    if (status != ar_status_success_k) return status;
    report->sites_checked = sites_checked, report->sites_accepted = sites_accepted;
    report->points = tally.points, report->hulls = tally.hulls;
    /* hull_slack_bytes: over all hulls tested, the hull's width (hi - lo + 1) less the number
     * of ordinal tuples of its naming repeats (the most values it can stand for), where the
     * width is larger; saturated. Points add nothing. */
    report->hull_slack_bytes = ar_u128_to_u64_sat(tally.slack);
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
    if (cert.options.few > AR_CERTIFY_FEW_MAX) {
        char message[160];
        snprintf(message, sizeof message,
                 "few %" PRIu64 " is above the limit %" PRIu64 " (2^24): listing that many points "
                 "per word could take hours",
                 cert.options.few, AR_CERTIFY_FEW_MAX);
        return fail_status(report, ar_status_invalid_argument_k, message);
    }

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
                   : ar_cert_rule_d_fast_runs(plan, cert.runs, cert.runs_count, &d);
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
        snprintf(report->instance_text, sizeof report->instance_text, "%s", d.instance_text);
        if (!decimal_add(d.instance_text, (uint64_t)plan->launches_count + 2, report->verdict_text,
                         sizeof report->verdict_text)) {
            status = fail_status(report, ar_status_unsupported_k,
                                 "the verdict has more digits than a report holds");
            goto out;
        }
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
    free(cert.runs);
    free(cert.lists);
    free(cert.repeat_order);
    free(cert.summaries);
    free(cert.frame_entries);
    return status;
}
