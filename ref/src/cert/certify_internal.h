/* The certificate's internals, shared by certify.c (rules A-C, the verdict), certify_d.c (rule D,
 * fast and naive) and exact.c (the exact oracle's rule C), and visible to tests that compare the
 * fast rule-D walker with the naive one. Nothing here is public API. */
#ifndef ARENAREF_CERTIFY_INTERNAL_H
#define ARENAREF_CERTIFY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaref/plan.h"

typedef unsigned __int128 ar_u128_t;
#define AR_U128_MAX (~(ar_u128_t)0)
#define AR_TWO_64 ((ar_u128_t)1 << 64)

/* The naive rule-D walker (and so the exact oracle's rule D) unrolls at most this many executed
 * launches; past it the exact oracle uses the fixed-point walker, which is exact as well. */
#define AR_NAIVE_D_LAUNCH_LIMIT ((uint64_t)1 << 24)
/* Repeats nested deeper than this are refused (ar_status_unsupported_k): the walkers recurse
 * once per level, and this bounds their stack. */
#define AR_MAX_REPEAT_DEPTH 4096u

static inline ar_u128_t ar_u128_add_sat(ar_u128_t a, ar_u128_t b) {
    ar_u128_t s = a + b;
    return s < a ? AR_U128_MAX : s;
}
static inline ar_u128_t ar_u128_mul_sat(ar_u128_t a, ar_u128_t b) {
    if (!(a >> 64) && !(b >> 64)) return a * b; /* fits: no 128-bit division on the hot path */
    if (a == 0 || b == 0) return 0;
    if (a > AR_U128_MAX / b) return AR_U128_MAX;
    return a * b;
}
static inline uint64_t ar_u128_to_u64_sat(ar_u128_t a) {
    return a > UINT64_MAX ? UINT64_MAX : (uint64_t)a;
}
/* Decimal text of `value` into `text` (at least 40 bytes). */
void ar_u128_decimal(ar_u128_t value, char *text, size_t size);
/* "0x…" text of `value` into `text` (at least 36 bytes). */
void ar_u128_hex(ar_u128_t value, char *text, size_t size);

/* A range with a name: a global or a plane, sorted by base for binary search. */
typedef struct ar_named_range_t {
    uint64_t base;
    ar_u128_t end; /* base + size, up to 2^64 */
    char const *name;
    size_t index; /* into plan->globals or plan->planes */
    bool is_global;
} ar_named_range_t;

/* A piece of the union of the windows, sorted; `window` is the first window that forms it. */
typedef struct ar_span_t {
    uint64_t base;
    ar_u128_t end;
    size_t window;
} ar_span_t;

/* One repeat naming one site (a site is a word of a launch), summarised once from the repeat's
 * deltas or frames: a delta's value, or the least and greatest offset over the frames that list
 * the site and how many do (fewer than the iterations: 0 joins them). Where a frames repeat's
 * offsets are needed one by one (points, and the exact oracle), they are kept in frame order in
 * ar_cert_t.frame_entries[entries_first, +listed). */
typedef struct ar_naming_t {
    size_t repeat;
    int64_t least, greatest; /* deltas: least == greatest == the delta */
    uint64_t listed;         /* frames listing the site (1 for a delta) */
    size_t entries_first;    /* SIZE_MAX where the offsets are not kept */
} ar_naming_t;

typedef struct ar_frame_entry_t {
    uint64_t frame;
    int64_t offset;
} ar_frame_entry_t;

/* A naming with the site it names, in a repeat's list sorted by (launch, word). */
typedef struct ar_summary_t {
    size_t launch, word;
    ar_naming_t naming;
} ar_summary_t;

/* A naming with the word it names, as the naming stream hands it out for one launch. */
typedef struct ar_site_naming_t {
    size_t word;
    ar_naming_t naming;
} ar_site_naming_t;

/* One repeat's namings sorted by (launch, word), each site once: a frames repeat's summary, built
 * once; a deltas repeat's own deltas, read in place when the stream opens the repeat and finds
 * them so sorted (the usual case, so nothing is copied; the check reads them just before they
 * are used), else sorted then by the stream. */
typedef struct ar_naming_list_t {
    ar_shift_t const *deltas;     /* in place, or NULL */
    ar_summary_t const *summary;  /* when deltas is NULL */
    size_t count;
} ar_naming_list_t;

/* The sorted views of a plan that rule C (both modes) reads. Built only after A and B pass, so
 * the allowed ranges of any one phase (its planes and the globals) are pairwise disjoint. */
typedef struct ar_cert_t {
    ar_plan_t const *plan;
    ar_certify_options_t options;
    ar_named_range_t *globals; /* sorted by base */
    ar_named_range_t *planes;  /* each phase's slice [planes_first, +planes_count) sorted */
    ar_span_t *spans;          /* the union of the windows */
    size_t spans_count;
    /* Per repeat, its namings sorted by site; NULL when the plan has no shifts. Nothing here is
     * proportional to the words: only named sites are listed. */
    ar_naming_list_t *lists;
    size_t *repeat_order; /* repeats by first launch, the order the naming stream opens them */
    ar_summary_t *summaries;
    ar_frame_entry_t *frame_entries;
    size_t *runs; /* rule C (certificate mode): the launches where a run of one phase starts */
    size_t runs_count, runs_capacity;
    char error[256]; /* why building these views was refused (ar_status_unsupported_k) */
} ar_cert_t;

/* The namings of a launch's words, in (word, repeat) order, produced launch by launch in
 * increasing order by merging the lists of the repeats around the launch (a small heap keyed
 * by (launch, word, repeat): its size is the nesting depth, since a repeat's namings lie in its
 * body and its list is opened when the walk reaches its first launch). */
typedef struct ar_naming_cursor_t {
    size_t launch, word, repeat, next; /* the key of the list's entry `next` */
    ar_naming_list_t list;
} ar_naming_cursor_t;

typedef struct ar_naming_stream_t {
    ar_naming_cursor_t *heap;
    size_t heap_count, heap_capacity;
    ar_summary_t **owned; /* lists the stream sorted itself (deltas not in site order) */
    size_t owned_count;
    size_t opened;     /* repeats of cert->repeat_order opened so far */
    size_t next_first; /* the first launch of the next repeat to open; SIZE_MAX: none */
    ar_site_naming_t *out;
    size_t out_capacity;
} ar_naming_stream_t;

void ar_cert_stream_begin(ar_cert_t const *cert, ar_naming_stream_t *stream);
void ar_cert_stream_end(ar_naming_stream_t *stream);
ar_status_t ar_cert_stream_fill(ar_cert_t const *cert, ar_naming_stream_t *stream, size_t launch,
                                size_t *count);
/* The namings of launch `launch` into stream->out[0, *count); launches must be asked for in
 * increasing order (those skipped lose their namings). Out of memory is the only failure. */
static inline ar_status_t ar_cert_stream_launch(ar_cert_t const *cert, ar_naming_stream_t *stream,
                                                size_t launch, size_t *count) {
    if (stream->next_first > launch &&
        (stream->heap_count == 0 || stream->heap[0].launch > launch)) {
        *count = 0;
        return ar_status_success_k;
    }
    return ar_cert_stream_fill(cert, stream, launch, count);
}

/* Whether [lo, hi] (inclusive) meets a window; the window it meets goes to *window. */
bool ar_cert_meets_window(ar_cert_t const *cert, uint64_t lo, uint64_t hi, size_t *window);
/* The allowed range of `phase` (a plane of it or a global) that holds all of [lo, hi], or NULL. */
ar_named_range_t const *ar_cert_allowed(ar_cert_t const *cert, int64_t phase, uint64_t lo,
                                        uint64_t hi);
/* The shift of naming `n` at ordinal `i` of its repeat, mod 2^64; `cursor` (start it at
 * n->entries_first) makes increasing ordinals cost O(1) each. Needs the frame entries for a
 * frames repeat. */
static inline uint64_t ar_cert_shift_at(ar_cert_t const *cert, ar_naming_t const *n, bool frames,
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
void ar_cert_describe_c(ar_cert_t const *cert, size_t launch, size_t word, uint64_t lo,
                        uint64_t hi, char const *detail, char *message, size_t size);

/* Rule C of the exact oracle (exact.c): every word at every ordinal tuple. Returns
 * ar_status_unsupported_k (message in report) when the unrolled evaluations pass
 * options.exact_limit. On success, report->rule/verdict/launch/word/lo/hi/message are set when C
 * breaks (report->rule == ar_rule_c_k), and report->evaluations always. */
ar_status_t ar_cert_exact_rule_c(ar_cert_t const *cert, ar_certify_report_t *report);

/* Rule D's outcome, from either walker. */
typedef struct ar_rule_d_t {
    bool broken;
    ar_u128_t instance;          /* k, the first instance that breaks D (when broken), saturated */
    ar_u128_t instances;         /* instances executed, up to and including k when broken */
    ar_u128_t executed_launches; /* launches executed, up to the break when broken */
    size_t phase, plane;         /* the breaking instance's phase and its carried plane */
    bool plane_declared;         /* the carried plane's key was declared before */
    size_t other_plane;          /* a plane declared over the carried one's bytes, or SIZE_MAX */
    int64_t other_phase;         /* the phase of the instance that declared it last */
    ar_u128_t other_stamp;       /* that instance */
    char instance_text[AR_VERDICT_TEXT_SIZE]; /* k exactly, in decimal */
    char message[1024 + AR_VERDICT_TEXT_SIZE];
} ar_rule_d_t;

/* The fixed-point walker: never proportional to iterations or to runs of identical schedule
 * references, nor (with few elementary intervals, see certify_d.c) exponential in the nesting
 * depth of repeats: a repeat met again is replayed from a summary of an earlier walk. Sound and exact when rule B holds (each phase's planes disjoint),
 * which is always so when the certificate reaches rule D. */
ar_status_t ar_cert_rule_d_fast(ar_plan_t const *plan, ar_rule_d_t *result);
/* The same, given the launches where a run of one phase starts (sorted, 0 first: launch i with
 * i == 0 or a phase other than launch i - 1's), which rule C collects as it reads every launch,
 * so the walker need not read the launch table again; runs NULL: it finds them itself. */
ar_status_t ar_cert_rule_d_fast_runs(ar_plan_t const *plan, size_t const *runs, size_t runs_count,
                                     ar_rule_d_t *result);
/* The naive walker: every executed launch, one by one, with a plain array of "last declared
 * plane" per elementary interval. Refuses (ar_status_unsupported_k) a plan that executes more
 * than `launch_limit` launches. */
ar_status_t ar_cert_rule_d_naive(ar_plan_t const *plan, uint64_t launch_limit,
                                 ar_rule_d_t *result);
/* The fixed-point walker counting saturated at 2^128 (modulus 0, !wrap), modulo 2^128 (wrap)
 * or modulo `modulus`; the message is left to ar_cert_rule_d_message. */
ar_status_t ar_cert_rule_d_walk(ar_plan_t const *plan, size_t const *runs, size_t runs_count,
                                uint64_t modulus, bool wrap, ar_rule_d_t *result);
/* Rule D's counts past 2^128: walks again modulo 2^128 and enough primes, and rebuilds k and
 * the counts exactly by the Chinese remainder theorem (rule_d_wide.c). */
ar_status_t ar_cert_rule_d_wide(ar_plan_t const *plan, size_t const *runs, size_t runs_count,
                                ar_rule_d_t *result);
/* The diagnostic of a broken result, given k and the clobbering instance in decimal. */
void ar_cert_rule_d_message(ar_plan_t const *plan, ar_rule_d_t *result, char const *k_text,
                            char const *j_text);
/* Repeat indices sorted by (first ascending, count descending): outer before inner. */
ar_status_t ar_cert_sort_repeats(ar_plan_t const *plan, size_t *order);
/* Launches the schedule executes, by prefix sums over the launch table (saturated). */
ar_status_t ar_cert_executed_launches(ar_plan_t const *plan, ar_u128_t *count);

/* Rule C's diagnostic for launch `li`, whose phase is absent or names no declared phase: one
 * message for the certificate and the exact oracle. */
void ar_cert_report_phaseless(ar_certify_report_t *report, ar_plan_t const *plan, size_t li);

#endif
