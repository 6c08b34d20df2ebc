/* Rule C, the certificate's way (CERTIFICATE.md §3): a word's intervals (points, or a hull in
 * O(naming repeats), never O(iterations)) tested against flat sorted arrays: the phase's own
 * planes, and tables every phase shares (where a point passes among the globals and the
 * windows' gaps, the globals, the windows' union), so the tables cost planes + globals +
 * windows, not phases x globals. A launch no repeat names is one tight loop, and so is a run
 * of one phase named by one deltas list.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

/* Sorted, disjoint inclusive ranges [lo[i], hi[i]] as flat arrays. A set of a few ranges (the
 * usual case: a phase's planes, the globals joined with the gaps) is scanned from the start with plain
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
            if (set->hi[i + half - 1] < v)
                i += half, n -= half;
            else
                n = half;
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

/* One phase's lookups: its planes, disjoint (B holds), sorted. With the shared tables a point
 * passes where it lies off every window or in an allowed range, that is, in one of the
 * phase's planes or in `good` (the globals and the windows' gaps, touching pieces joined,
 * which changes nothing for points); a hull must lie whole in one plane or one global. */
typedef struct phase_table_t {
    range_set_t planes;
} phase_table_t;

typedef struct rule_c_t {
    arp_cert_t const *cert;
    range_set_t spans;         /* the windows' union */
    uint64_t *gap_lo, *gap_hi; /* the stretches between (and around) the spans */
    size_t gaps_count;
    range_set_t good;      /* the globals and the gaps, joined */
    phase_table_t *tables; /* per phase, into A and B's sorted planes (each with its sentinel) */
    uint64_t *space;
} rule_c_t;

/* A point: `short_sets` when the phase's planes and `good` are short (a compile-time constant
 * in each copy of the span loop). */
static inline __attribute__((always_inline)) bool
point_passes(rule_c_t const *c, phase_table_t const *t, uint64_t v, bool short_sets) {
    if (short_sets) return short_set_holds(&t->planes, v) || short_set_holds(&c->good, v);
    return set_holds(&t->planes, v) || set_holds(&c->good, v);
}

static inline bool set_holds_all(range_set_t const *set, uint64_t lo, uint64_t hi) {
    size_t i = set_first_ending(set, lo); /* the only range that may hold lo */
    return i < set->count && set->lo[i] <= lo && hi <= set->hi[i];
}

static inline bool table_passes(rule_c_t const *c, phase_table_t const *t, uint64_t lo,
                                uint64_t hi) {
    if (lo == hi) return point_passes(c, t, lo, false);
    if (set_holds_all(&t->planes, lo, hi) || arp_cert_global_holds(c->cert, lo, hi)) return true;
    size_t j = set_first_ending(&c->spans, lo); /* the first span that may meet [lo, hi] */
    return j == c->spans.count || c->spans.lo[j] > hi;
}

static ar_status_t rule_c_begin(rule_c_t *c, arp_cert_t const *cert) {
    ar_plan_t const *plan = cert->plan;
    memset(c, 0, sizeof *c);
    c->cert = cert;
    size_t s = cert->spans_count, padded = s + 1, G = cert->pieces_count;
    size_t phases = plan->phases_count;
    /* spans, gaps, good (the globals' pieces + gaps + sentinel) */
    size_t good = G + s + 2, entries = 2 * padded + 2 * (s + 1) + 2 * good;
    c->space = malloc(entries * sizeof *c->space);
    c->tables = malloc((phases + 1) * sizeof *c->tables);
    if (!c->space || !c->tables) return ar_status_out_of_memory_k;
    uint64_t *at = c->space;
    c->spans.lo = at, c->spans.hi = at + padded, at += 2 * padded;
    c->gap_lo = at, c->gap_hi = at + s + 1, at += 2 * (s + 1);
    c->good.lo = at, c->good.hi = at + good;
    c->spans.count = s;
    uint64_t next = 0; /* the first address not yet covered */
    bool done = false;
    for (size_t i = 0; i < s; ++i) {
        c->spans.lo[i] = cert->spans[i].base, c->spans.hi[i] = (uint64_t)(cert->spans[i].end - 1);
        if (c->spans.lo[i] > next)
            c->gap_lo[c->gaps_count] = next, c->gap_hi[c->gaps_count++] = c->spans.lo[i] - 1;
        if (c->spans.hi[i] == UINT64_MAX)
            done = true;
        else
            next = c->spans.hi[i] + 1;
    }
    if (!done) c->gap_lo[c->gaps_count] = next, c->gap_hi[c->gaps_count++] = UINT64_MAX;
    set_sentinel(&c->spans);
    /* Good: the gaps merged with the globals' pieces, both sorted by lo; overlapping or
     * touching pieces joined. */
    uint64_t const *piece = cert->pieces;
    size_t g = 0, a = 0, k = 0;
    while (a < G || k < c->gaps_count) {
        uint64_t lo, hi;
        if (k == c->gaps_count || (a < G && piece[2 * a] < c->gap_lo[k]))
            lo = piece[2 * a], hi = piece[2 * a + 1], ++a;
        else
            lo = c->gap_lo[k], hi = c->gap_hi[k], ++k;
        if (g && (c->good.hi[g - 1] == UINT64_MAX || lo <= c->good.hi[g - 1] + 1)) {
            if (hi > c->good.hi[g - 1]) c->good.hi[g - 1] = hi;
        } else
            c->good.lo[g] = lo, c->good.hi[g] = hi, ++g;
    }
    c->good.count = g;
    set_sentinel(&c->good);
    /* Each phase's sorted planes, as rule B left them. */
    for (size_t ph = 0; ph < phases; ++ph) {
        ar_phase_t const *phase = &plan->phases[ph];
        size_t first = phase->planes_first + ph;
        c->tables[ph].planes =
            (range_set_t){cert->plane_lo + first, cert->plane_hi + first, phase->planes_count};
    }
    return ar_status_success_k;
}

static void rule_c_end(rule_c_t *c) { free(c->tables), free(c->space); }

/* An interval passes when it meets no window or lies whole in one allowed range. */
static inline bool interval_passes(rule_c_t *c, phase_table_t const *t, int64_t phase, uint64_t lo,
                                   uint64_t hi) {
    (void)phase;
    return table_passes(c, t, lo, hi);
}

/* Intervals tested, as the report counts them. */
typedef struct tally_t {
    uint64_t points, hulls;
    arp_u128_t slack;
} tally_t;

/* Tests a site that `groups` repeats name (site[0, groups), in repeat order), adding what it
 * tests to *tally. Where it fails, the failing value or interval goes to *bad_lo, *bad_hi and,
 * when `detail` is not NULL, how it arises. One repeat of at most `few` iterations: one point
 * per iteration; otherwise the hull [w + sum of least shifts, w + sum of greatest shifts]. */
static bool site_passes(rule_c_t *c, phase_table_t const *t, int64_t phase, uint64_t word,
                        arp_site_naming_t const *site, size_t groups, tally_t *tally,
                        uint64_t *bad_lo, uint64_t *bad_hi, char *detail, size_t detail_size) {
    arp_cert_t const *cert = c->cert;
    ar_plan_t const *plan = cert->plan;
    if (groups == 1 && plan->repeats[site[0].naming.repeat].iterations <= cert->options.few) {
        arp_naming_t const *n = &site[0].naming;
        ar_repeat_t const *rep = &plan->repeats[n->repeat];
        size_t cursor = n->entries_first;
        for (uint64_t i = 0; i < rep->iterations; ++i) {
            uint64_t value = word + arp_cert_shift_at(cert, n, rep->has_frames, i, &cursor);
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
    arp_u128_t values = 1;
    for (size_t g = 0; g < groups; ++g) {
        arp_naming_t const *n = &site[g].naming;
        ar_repeat_t const *rep = &plan->repeats[n->repeat];
        values = arp_u128_mul_sat(values, rep->iterations);
        if (wrapped) continue;
        __int128 least, greatest;
        if (!rep->has_frames) {
            __int128 last =
                (__int128)(rep->iterations ? rep->iterations - 1 : 0) * (__int128)n->least;
            least = last < 0 ? last : 0;
            greatest = last > 0 ? last : 0;
        } else {
            bool silent = n->listed < rep->iterations;
            least = silent && n->least > 0 ? 0 : n->least;
            greatest = silent && n->greatest < 0 ? 0 : n->greatest;
        }
        lo += least, hi += greatest;
        if (lo < 0 || hi >= (__int128)ARP_TWO_64) wrapped = true;
    }
    uint64_t hull_lo = wrapped ? 0 : (uint64_t)lo;
    uint64_t hull_hi = wrapped ? UINT64_MAX : (uint64_t)hi;
    arp_u128_t width = (arp_u128_t)hull_hi - hull_lo + 1;
    if (width > values) tally->slack = arp_u128_add_sat(tally->slack, width - values);
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
                                 uint64_t const *words, size_t count,
                                 arp_site_naming_t const *named, size_t named_count,
                                 tally_t *tally) {
    bool all = true;
    size_t w = 0, named_words = 0;
    arp_site_naming_t const *g = named, *end = named_count ? named + named_count : named;
    while (g < end && all) {
        size_t at = g->word;
        arp_site_naming_t const *first = g;
        while (g < end && g->word == at) ++g;
        for (; w < at; ++w) all &= point_passes(c, t, words[w], false);
        uint64_t lo, hi;
        all &= site_passes(c, t, phase, words[at], first, (size_t)(g - first), tally, &lo, &hi,
                           NULL, 0);
        w = at + 1, ++named_words;
    }
    for (; w < count; ++w) all &= point_passes(c, t, words[w], false);
    tally->points += count - named_words;
    return all;
}

/* site_passes for a site one deltas repeat names, shift `delta`, without the generic loops;
 * `points` when the repeat has at most `few` iterations. `short_good`: the phase's planes and the
 * shared good set are short (a compile-time constant in each copy of the span loop). */
static inline __attribute__((always_inline)) bool
delta_site_passes(rule_c_t *c, phase_table_t const *t, uint64_t word, int64_t delta,
                  uint64_t iterations, bool points, bool short_good, tally_t *tally) {
    if (points) {
        for (uint64_t i = 0; i < iterations; ++i) {
            ++tally->points;
            uint64_t value = word + i * (uint64_t)delta;
            if (!point_passes(c, t, value, short_good)) return false;
        }
        return true;
    }
    __int128 last = (__int128)(iterations - 1) * delta;
    __int128 lo = (__int128)word + (last < 0 ? last : 0),
             hi = (__int128)word + (last > 0 ? last : 0);
    bool wrapped = lo < 0 || hi >= (__int128)ARP_TWO_64;
    uint64_t hull_lo = wrapped ? 0 : (uint64_t)lo, hull_hi = wrapped ? UINT64_MAX : (uint64_t)hi;
    arp_u128_t width = (arp_u128_t)hull_hi - hull_lo + 1;
    if (width > iterations) tally->slack = arp_u128_add_sat(tally->slack, width - iterations);
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
        for (; w < at; ++w) all &= point_passes(c, t, words[w], short_good);
        all &= delta_site_passes(c, t, words[at], named[e].shift, iterations, points, short_good,
                                 tally);
        w = at + 1;
    }
    for (; w < count; ++w) all &= point_passes(c, t, words[w], short_good);
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

/* Takes launches li, li + 1, ... while they come before `limit` (where a repeat opens), pass
 * whole and have a phase whose planes this copy of the loop scans (short ones when
 * `short_good`; a runtime's export changes phase at every launch, and takes them all here);
 * returns the first launch not taken (li when none is). A launch that fails, or names a word
 * it does not have, is left to the general path. */
static inline __attribute__((always_inline)) size_t span_loop(rule_c_t *c, phase_table_t const *t,
                                                              size_t li, size_t limit, span_t *span,
                                                              bool short_good) {
    ar_plan_t const *plan = c->cert->plan;
    ar_launch_t const *launches = plan->launches;
    uint64_t const *all_words = plan->words;
    int64_t phase = launches[li].phase;
    size_t phases = plan->phases_count;
    ar_shift_t const *named = span->named, *named_end = span->named_end;
    uint64_t sites = 0, iterations = span->iterations;
    bool points = iterations <= c->cert->options.few;
    tally_t tally = span->tally;
    if (limit > plan->launches_count) limit = plan->launches_count;
    size_t l = li;
    for (; l < limit; ++l) {
        ar_launch_t const *launch = &launches[l];
        if (launch->phase != phase) {
            if (launch->phase < 0 || (size_t)launch->phase >= phases) break; /* phaseless */
            phase_table_t const *next = &c->tables[launch->phase];
            if (short_good && next->planes.count > SCAN_RANGES) break;
            phase = launch->phase, t = next;
        }
        uint64_t const *words = all_words + launch->words_first;
        /* `named` is NULL when the span names nothing: never offset it then (NULL + 0 is
         * undefined behaviour, which clang's UBSan reports). */
        size_t count = launch->words_count, k = 0;
        size_t left = named ? (size_t)(named_end - named) : 0;
        while (k < left && named[k].launch == l) ++k;
        if (left && named->launch < l) break; /* a launch behind: general path */
        if (k && named[k - 1].word >= count) break;
        tally_t mine = tally;
        if (!launch_passes_deltas(c, t, words, count, named, k, iterations, points, short_good,
                                  &mine))
            break;
        sites += count, tally = mine;
        if (k) named += k;
    }
    span->named = named, span->sites = sites, span->tally = tally;
    return l;
}

static size_t fast_span(rule_c_t *c, phase_table_t const *t, size_t li, size_t limit,
                        span_t *span) {
    if (t->planes.count <= SCAN_RANGES && c->good.count <= SCAN_RANGES)
        return span_loop(c, t, li, limit, span, true);
    return span_loop(c, t, li, limit, span, false);
}

/* Rule C with points and hulls. Sets report fields; returns the first failing launch through
 * *failed (SIZE_MAX when none).
 *
 * Each launch first takes the fast pass (launch_passes); when every word passes, its sites and
 * intervals are counted at once. A launch that fails (or whose phase has no table) goes word by
 * word, which counts and reports exactly as the reading above says. */
ar_status_t arp_rule_c(arp_cert_t const *cert, ar_certify_report_t *report, size_t *failed) {
    ar_plan_t const *plan = cert->plan;
    tally_t tally = {0, 0, 0};
    uint64_t sites_checked = 0, sites_accepted = 0;
    rule_c_t c;
    arp_naming_stream_t stream;
    arp_namings_stream_begin(cert, &stream);
    ar_status_t status = rule_c_begin(&c, cert);
    *failed = SIZE_MAX;
    for (size_t li = 0; li < plan->launches_count && !status; ++li) {
        ar_launch_t const *launch = &plan->launches[li];
        int64_t phase = launch->phase;
        bool phaseless = phase < 0 || (size_t)phase >= plan->phases_count;
        uint64_t const *words = plan->words + launch->words_first;
        size_t count = launch->words_count;
        phase_table_t const *table = phaseless ? NULL : &c.tables[phase];
        /* The usual case first: at most one deltas list open, read in place, no copies; the
         * launches that follow in the same phase are taken in the same tight loop (span). */
        bool in_place =
            stream.heap_count == 1 && stream.heap[0].launch >= li && stream.heap[0].list.deltas;
        if (table && stream.next_first > li &&
            (stream.heap_count == 0 || in_place || stream.heap[0].launch > li)) {
            /* in place: one deltas list; else launches up to the next named one (none named) */
            arp_naming_cursor_t *top = in_place ? &stream.heap[0] : NULL;
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
                if (span.tally.slack) tally.slack = arp_u128_add_sat(tally.slack, span.tally.slack);
                if (top) { /* consume what the span read */
                    top->next = (size_t)(span.named - top->list.deltas);
                    if (!arp_namings_cursor_load(top)) stream.heap_count = 0;
                }
                li = end - 1;
                continue;
            }
        }
        size_t named = 0;
        status = arp_namings_stream_launch(cert, &stream, li, &named);
        if (status) break;
        if (phaseless) {
            if (*failed == SIZE_MAX) {
                *failed = li;
                arp_cert_report_phaseless(report, plan, li);
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
                if (mine.slack) tally.slack = arp_u128_add_sat(tally.slack, mine.slack);
                continue;
            }
        }
        bool launch_ok = true;
        arp_site_naming_t const *next = stream.out, *end = named ? stream.out + named : stream.out;
        for (size_t w = 0; w < count; ++w) {
            ++sites_checked;
            arp_site_naming_t const *first = next;
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
                arp_cert_describe_c(cert, li, w, bad_lo, bad_hi, detail, report->message,
                                    sizeof report->message);
            }
            if (!cert->options.all_sites) break;
        }
        if (!launch_ok && !cert->options.all_sites) break;
    }
    rule_c_end(&c);
    arp_namings_stream_end(&stream);
    if (status) return status;
    report->sites_checked = sites_checked, report->sites_accepted = sites_accepted;
    report->points = tally.points, report->hulls = tally.hulls;
    /* hull_slack_bytes: over all hulls tested, the hull's width (hi - lo + 1) less the number
     * of ordinal tuples of its naming repeats (the most values it can stand for), where the
     * width is larger; saturated. Points add nothing. */
    report->hull_slack_bytes = arp_u128_to_u64_sat(tally.slack);
    return ar_status_success_k;
}
