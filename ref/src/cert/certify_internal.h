/* The certificate's internals: what each rule's file offers the verdict (certify.c) and the
 * next rule, in the order they run (A and B, the views and namings C reads, C, D), and what
 * the tests reach (the rule D walker's twin and its modes). Nothing here is public API. */
#ifndef ARENAREF_CERTIFY_INTERNAL_H
#define ARENAREF_CERTIFY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaref/plan.h"

#include "../common/u128.h"

/* The naive rule-D walker (the tests' twin) unrolls at most this many executed launches. */
#define ARP_NAIVE_D_LAUNCH_LIMIT ((uint64_t)1 << 24)
/* Repeats nested deeper than this are refused (ar_status_unsupported_k): the walkers recurse
 * once per level, and this bounds their stack. */
#define ARP_MAX_REPEAT_DEPTH 4096u

/* A piece of the union of the windows, sorted; `window` is the first window that forms it. */
typedef struct arp_span_t {
    uint64_t base;
    arp_u128_t end;
    size_t window;
} arp_span_t;

/* One repeat naming one site (a site is a word of a launch), summarised once from the repeat's
 * deltas or frames: a delta's value, or the least and greatest offset over the frames that list
 * the site and how many do (fewer than the iterations: 0 joins them). Where a frames repeat's
 * offsets are needed one by one (points, and the exact oracle), they are kept in frame order in
 * arp_cert_t.frame_entries[entries_first, +listed). */
typedef struct arp_naming_t {
    size_t repeat;
    int64_t least, greatest; /* deltas: least == greatest == the delta */
    uint64_t listed;         /* frames listing the site (1 for a delta) */
    size_t entries_first;    /* SIZE_MAX where the offsets are not kept */
} arp_naming_t;

typedef struct arp_frame_entry_t {
    uint64_t frame;
    int64_t offset;
} arp_frame_entry_t;

/* A naming with the site it names, in a repeat's list sorted by (launch, word). */
typedef struct arp_summary_t {
    size_t launch, word;
    arp_naming_t naming;
} arp_summary_t;

/* A naming with the word it names, as the naming stream hands it out for one launch. */
typedef struct arp_site_naming_t {
    size_t word;
    arp_naming_t naming;
} arp_site_naming_t;

/* One repeat's namings sorted by (launch, word), each site once: a frames repeat's summary, built
 * once; a deltas repeat's own deltas, read in place when the stream opens the repeat and finds
 * them so sorted (the usual case, so nothing is copied; the check reads them just before they
 * are used), else sorted then by the stream. */
typedef struct arp_naming_list_t {
    ar_shift_t const *deltas;     /* in place, or NULL */
    arp_summary_t const *summary; /* when deltas is NULL */
    size_t count;
} arp_naming_list_t;

/* The sorted views of a plan that rule C (both modes) reads. Built only after A and B pass, so
 * the allowed ranges of any one phase (its planes and the globals) are pairwise disjoint. */
typedef struct arp_cert_t {
    ar_plan_t const *plan;
    ar_certify_options_t options;
    /* The globals by base: plan->globals[global_order[i]], or as written where global_order is
     * NULL (given sorted, the usual case); their union as inclusive pieces, touching globals
     * joined (a few, where weights are packed). */
    size_t *global_order;
    uint64_t const *pieces; /* lo at [2k], hi at [2k + 1]: the plan's (from finish), or owned */
    uint64_t *pieces_owned;
    size_t pieces_count;
    /* Each phase's planes by base, inclusive [plane_lo, plane_hi], and the plane each is, over
     * one array: phase ph's slice starts at planes_first + ph and ends in a sentinel
     * [2^64 - 1, 2^64 - 1] (rule C scans it with no bound). */
    uint64_t *plane_lo, *plane_hi;
    size_t *plane_index;
    arp_span_t *spans; /* the union of the windows */
    size_t spans_count;
    /* Per repeat, its namings sorted by site; NULL when the plan has no shifts. Nothing here is
     * proportional to the words: only named sites are listed. */
    arp_naming_list_t *lists;
    arp_summary_t *summaries;
    arp_frame_entry_t *frame_entries;
} arp_cert_t;

/* Rules A and B (rule_ab.c): the rule broken (none, a or b) into *rule with its message; fills
 * the sorted views above (the caller frees them) for rule C. Out of memory is the only
 * failure. */
ar_status_t arp_rule_ab(arp_cert_t *cert, ar_rule_t *rule, char *message, size_t size);
/* Global i by base. */
static inline ar_global_t const *arp_cert_global(arp_cert_t const *cert, size_t i) {
    return &cert->plan->globals[cert->global_order ? cert->global_order[i] : i];
}
/* The windows' union (ranges.c) and each repeat's namings (namings.c), for rule C. */
ar_status_t arp_cert_windows(arp_cert_t *cert);
ar_status_t arp_namings_build(arp_cert_t *cert);
void arp_namings_free(arp_cert_t *cert);
/* "name" [base, end) for diagnostics. */
void arp_cert_describe_range(char const *name, uint64_t base, arp_u128_t end, char *text,
                             size_t size);

/* The namings of a launch's words, in (word, repeat) order, produced launch by launch in
 * increasing order by merging the lists of the repeats around the launch (a small heap keyed
 * by (launch, word, repeat): its size is the nesting depth, since a repeat's namings lie in its
 * body and its list is opened when the walk reaches its first launch). */
typedef struct arp_naming_cursor_t {
    size_t launch, word, repeat, next; /* the key of the list's entry `next` */
    arp_naming_list_t list;
} arp_naming_cursor_t;

typedef struct arp_naming_stream_t {
    arp_naming_cursor_t *heap;
    size_t heap_count, heap_capacity;
    arp_summary_t **owned; /* lists the stream sorted itself (deltas not in site order) */
    size_t owned_count;
    size_t opened;     /* repeats of plan->repeat_order (outer first) opened so far */
    size_t next_first; /* the first launch of the next repeat to open; SIZE_MAX: none */
    arp_site_naming_t *out;
    size_t out_capacity;
} arp_naming_stream_t;

/* Points `c` at entry `next` of its repeat's list; false past the end. */
static inline bool arp_namings_cursor_load(arp_naming_cursor_t *c) {
    arp_naming_list_t const *list = &c->list;
    if (c->next >= list->count) return false;
    if (list->deltas)
        c->launch = list->deltas[c->next].launch, c->word = list->deltas[c->next].word;
    else
        c->launch = list->summary[c->next].launch, c->word = list->summary[c->next].word;
    return true;
}

void arp_namings_stream_begin(arp_cert_t const *cert, arp_naming_stream_t *stream);
void arp_namings_stream_end(arp_naming_stream_t *stream);
ar_status_t arp_namings_stream_fill(arp_cert_t const *cert, arp_naming_stream_t *stream,
                                    size_t launch, size_t *count);
/* The namings of launch `launch` into stream->out[0, *count); launches must be asked for in
 * increasing order (those skipped lose their namings). Out of memory is the only failure. */
static inline ar_status_t arp_namings_stream_launch(arp_cert_t const *cert,
                                                    arp_naming_stream_t *stream, size_t launch,
                                                    size_t *count) {
    if (stream->next_first > launch &&
        (stream->heap_count == 0 || stream->heap[0].launch > launch)) {
        *count = 0;
        return ar_status_success_k;
    }
    return arp_namings_stream_fill(cert, stream, launch, count);
}

/* The first piece of the windows' union that ends past `lo` (spans_count: none), by binary
 * search. */
static inline size_t arp_cert_span_past(arp_cert_t const *cert, uint64_t lo) {
    size_t left = 0, right = cert->spans_count;
    while (left < right) {
        size_t middle = left + (right - left) / 2;
        if (cert->spans[middle].end <= (arp_u128_t)lo)
            left = middle + 1;
        else
            right = middle;
    }
    return left;
}
/* Whether [lo, hi] (inclusive) meets a window; the window it meets goes to *window. */
bool arp_cert_meets_window(arp_cert_t const *cert, uint64_t lo, uint64_t hi, size_t *window);
/* Whether a global holds all of [lo, hi]; whether an allowed range of `phase` (a plane of it
 * or a global) does. */
bool arp_cert_global_holds(arp_cert_t const *cert, uint64_t lo, uint64_t hi);
bool arp_cert_allowed(arp_cert_t const *cert, int64_t phase, uint64_t lo, uint64_t hi);
/* The shift of naming `n` at ordinal `i` of its repeat, mod 2^64; `cursor` (start it at
 * n->entries_first) makes increasing ordinals cost O(1) each. Needs the frame entries for a
 * frames repeat. */
static inline uint64_t arp_cert_shift_at(arp_cert_t const *cert, arp_naming_t const *n, bool frames,
                                         uint64_t i, size_t *cursor) {
    if (!frames) return i * (uint64_t)n->least;
    size_t end = n->entries_first + n->listed;
    if (*cursor < n->entries_first || (*cursor < end && cert->frame_entries[*cursor].frame > i))
        *cursor = n->entries_first;
    while (*cursor < end && cert->frame_entries[*cursor].frame < i) ++*cursor;
    if (*cursor < end && cert->frame_entries[*cursor].frame == i)
        return (uint64_t)cert->frame_entries[*cursor].offset;
    return 0;
}
/* One sentence for a word of launch `launch` that breaks rule C at [lo, hi]; `detail` says
 * how the value arises (an iteration, a hull, ordinals). */
void arp_cert_describe_c(arp_cert_t const *cert, size_t launch, size_t word, uint64_t lo,
                         uint64_t hi, char const *detail, char *message, size_t size);

/* Rule C, the certificate's (rule_c.c) or the exact oracle's (rule_c_exact.c): the first
 * failing launch goes to *failed_launch (SIZE_MAX: none), where and why to the report's
 * launch, word, lo, hi and message, and the site counts too. The exact oracle refuses
 * (ar_status_unsupported_k, message in the report) a plan past options.exact_limit. */
ar_status_t arp_rule_c(arp_cert_t const *cert, ar_certify_report_t *report, size_t *failed_launch);
ar_status_t arp_rule_c_exact(arp_cert_t const *cert, ar_certify_report_t *report,
                             size_t *failed_launch);

/* Rule D's outcome, from either walker. */
typedef struct arp_rule_d_t {
    bool broken;
    arp_u128_t instance;          /* k, the first instance that breaks D (when broken), saturated */
    arp_u128_t instances;         /* instances executed, up to and including k when broken */
    arp_u128_t executed_launches; /* launches executed, up to the break when broken */
    size_t phase, plane;          /* the breaking instance's phase and its carried plane */
    bool plane_declared;          /* the carried plane's key was declared before */
    size_t other_plane;           /* the plane of the instance that declared the value now over
                                     the carried one's bytes (its becomes, when it updates in
                                     place), or SIZE_MAX */
    int64_t other_phase;          /* the phase of the instance that declared it last */
    arp_u128_t other_stamp;       /* that instance */
    /* Broken because `plane` (with becomes) reads across elements bytes it writes: its read and
     * write that share a byte, as indices into plan->plane_ranges (write SIZE_MAX: its writes
     * are absent, the whole plane). The carried planes' check comes first at an instance. */
    bool cross;
    size_t read, write;
    char instance_text[AR_VERDICT_TEXT_SIZE]; /* k exactly, in decimal */
    char message[1024 + AR_VERDICT_TEXT_SIZE];
} arp_rule_d_t;

/* Rule D (rule_d.c), the one entry point: reads the plan alone. Exact at any size: k and the
 * clobbering instance in decimal in instance_text and message. */
ar_status_t arp_rule_d(ar_plan_t const *plan, arp_rule_d_t *result);
/* The fixed-point walker: k, stamps and instances modulo 2^128 (modulus 0) or `modulus`,
 * executed launches saturated (exact unless they saturate). `wide`: deduplicate without
 * comparing counts, so residues stay right past 2^128. The message is left to
 * arp_rule_d_message. */
ar_status_t arp_rule_d_walk(ar_plan_t const *plan, uint64_t modulus, bool wide,
                            arp_rule_d_t *result);
/* Rule D's counts past 2^128: walks again modulo 2^128 and enough primes, and rebuilds k and
 * the counts exactly by the Chinese remainder theorem (rule_d_wide.c). */
ar_status_t arp_rule_d_wide(ar_plan_t const *plan, arp_rule_d_t *result);
/* The diagnostic of a broken result, given k and the clobbering instance in decimal. */
void arp_rule_d_message(ar_plan_t const *plan, arp_rule_d_t *result, char const *k_text,
                        char const *j_text);
/* Planes for rule D (rule_d_planes.c): keys, the naive twin's (the walker reads the same,
 * derived by finish: plan_keys.c) (plane_key holds planes_count + 1 entries,
 * key_plane planes_count + updates_count + 1; leave_key, NULL or planes_count + 1 entries, is
 * filled only when the plan has updates: the key of the value each plane leaves), then
 * elementary intervals (sorted distinct endpoints into *coords, each plane's cell range into
 * lo/hi), identity and text. */
ar_status_t arp_cert_plane_keys(ar_plan_t const *plan, int32_t *plane_key, size_t *key_plane,
                                int32_t *leave_key, size_t *keys_count);
ar_status_t arp_cert_compress(ar_plan_t const *plan, int32_t const *plane_key,
                              size_t const *key_plane, size_t keys_count, arp_u128_t **coords,
                              size_t *count, uint32_t **lo, uint32_t **hi);
char const *arp_cert_leaves_name(ar_plane_t const *plane);
bool arp_cert_same_plane(ar_plane_t const *a, ar_plane_t const *b);
void arp_cert_describe_plane(ar_plane_t const *plane, char *text, size_t size);
/* Rule D's state as runs of one key over many cells (rule_d_runs.c): a bit per cell where a
 * run starts, the key at its first cell. Cells [l, r). */
typedef struct arp_runs_t {
    uint64_t *starts;
    int32_t *key;
    size_t cells;
} arp_runs_t;
ar_status_t arp_runs_init(arp_runs_t *runs, size_t cells, int32_t none);
void arp_runs_free(arp_runs_t *runs);
bool arp_runs_uniform(arp_runs_t const *runs, size_t l, size_t r, int32_t value);
void arp_runs_assign(arp_runs_t *runs, size_t l, size_t r, int32_t value);
/* The first key (by cell) in [l, r) other than `value`, or `value` when there is none. */
int32_t arp_runs_other(arp_runs_t const *runs, size_t l, size_t r, int32_t value);
/* Rule D's naive walker (rule_d_naive.c), the tests' twin of arp_rule_d: every executed
 * launch, one by one; refuses (ar_status_unsupported_k) a plan executing more than
 * `launch_limit` launches. */
ar_status_t arp_rule_d_naive(ar_plan_t const *plan, uint64_t launch_limit, arp_rule_d_t *result);

/* Rule C's diagnostic for launch `li`, whose phase is absent or names no declared phase: one
 * message for the certificate and the exact oracle. */
void arp_cert_report_phaseless(ar_certify_report_t *report, ar_plan_t const *plan, size_t li);

#endif
