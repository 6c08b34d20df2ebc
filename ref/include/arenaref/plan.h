/* arenaref: the device arena plan (`arena-plan/1`, ../shared/CERTIFICATE.md §1) and its
 * certificate. A plan is flat arrays (every launch's words end to end in `words`, every delta
 * and frame entry in `shifts`), strings in a pool the plan owns (kernel names interned). It is
 * built by the JSON loader or the builder calls, and usable once ar_plan_finish accepted it
 * (every structural rule checked, phases resolved, facts for the certificate derived); the
 * certificate never changes it. Errors follow status.h; `ar_status_invalid_argument_k` is a
 * malformed plan (or a builder call out of order), and `ar_plan_error_t` says what and where.
 */
#ifndef ARENAREF_PLAN_H
#define ARENAREF_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "arenaref/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What went wrong and where. `path` is a JSON path such as `$.repeats[3].frames[7][0].offset`
 * (for an in-memory plan, the path its JSON form would have); `line` and `column` are 1-based
 * and set only for syntax errors (0 otherwise). `message` holds the whole sentence, path and
 * position included, ready to print. */
typedef struct ar_plan_error_t {
    ar_status_t status;
    char path[256];
    int line, column;
    char message[768];
} ar_plan_error_t;

typedef struct ar_window_t {
    uint64_t base, size;
} ar_window_t;

typedef struct ar_global_t {
    char const *name;
    uint64_t base, size;
} ar_global_t;

typedef struct ar_plane_t {
    char const *name; /* the plane's identity: the same name in two phases is one tensor */
    uint64_t base, size;
    bool carried; /* holds a value an earlier phase left; false: fresh */
    /* `becomes` as written: the value a carried plane's phase leaves over its bytes (an in-place
     * update), or NULL when absent. `updates`, set by ar_plan_finish: becomes names a value other
     * than `name` (becomes equal to the plane's own name changes nothing). */
    char const *becomes;
    bool updates;
} ar_plane_t;

/* A byte range inside a plane, relative to its base: `[base + offset, base + offset + size)`. */
typedef struct ar_plane_range_t {
    uint64_t offset, size;
} ar_plane_range_t;

/* What an in-place update (a plane with `becomes`) does inside its own bytes (CERTIFICATE.md
 * §1): `reads`, the bytes of the carried value it reads across elements, and `writes`, the bytes
 * it overwrites, each plan->plane_ranges[first, first + count). `has_reads`/`has_writes` false:
 * the list is absent (reads: elementwise, trusted; writes: the whole plane); true with count 0:
 * an empty list. */
typedef struct ar_plane_access_t {
    size_t reads_first, reads_count;
    size_t writes_first, writes_count;
    bool has_reads, has_writes;
} ar_plane_access_t;

typedef struct ar_phase_t {
    char const *id;
    size_t planes_first, planes_count; /* this phase's planes: plan->planes[first, first+count) */
} ar_phase_t;

/* `phase` is the index of the phase the launch's `phase_name` names, or -1 where the name is
 * absent (`phase_name` NULL) or names no declared phase: such a launch breaks rule (C). */
typedef struct ar_launch_t {
    char const *kernel;              /* interned; "" when the JSON gave none */
    char const *phase_name;          /* as written; NULL when absent */
    int64_t phase;                   /* set by ar_plan_finish */
    size_t words_first, words_count; /* plan->words[first, first+count) */
} ar_launch_t;

/* One delta `{launch, word, delta}` or one frame entry `{launch, word, offset}`. */
typedef struct ar_shift_t {
    size_t launch, word;
    int64_t shift;
} ar_shift_t;

/* A repeat runs launches[first, first+count) `iterations` times.
 * Deltas: its entries are shifts[shifts_first, shifts_first+shifts_count); at iteration i
 * (from 0) a listed word moves by i * delta.
 * Frames (`has_frames`): frame f's entries are shifts[frame_starts[frames_first + f],
 * frame_starts[frames_first + f + 1]), for f < iterations; at iteration i a listed word moves by
 * frame i's offset. shifts_first/shifts_count then span all frames together. */
typedef struct ar_repeat_t {
    size_t first, count;
    uint64_t iterations;
    bool has_frames;
    size_t shifts_first, shifts_count;
    size_t frames_first; /* index into plan->frame_starts; meaningful only with has_frames */
} ar_repeat_t;

/* A submission-schedule reference: runs launches[first, first+count), repeats included. */
typedef struct ar_reference_t {
    size_t first, count;
} ar_reference_t;

typedef struct ar_plan_t {
    uint64_t alignment;
    ar_window_t *windows;
    size_t windows_count;
    ar_global_t *globals;
    size_t globals_count;
    ar_phase_t *phases;
    size_t phases_count;
    ar_plane_t *planes;
    size_t planes_count;
    ar_launch_t *launches;
    size_t launches_count;
    uint64_t *words;
    size_t words_count;
    ar_repeat_t *repeats;
    size_t repeats_count;
    ar_shift_t *shifts;
    size_t shifts_count;
    size_t *frame_starts;
    size_t frame_starts_count;
    ar_reference_t *schedule;
    size_t schedule_count;
    /* The top-level "meta" object, serialized as compact JSON, or NULL. The loader keeps it and
     * the writer writes it back; the certificate ignores it. Other unknown fields are dropped. */
    char *meta_json;
    /* Facts ar_plan_finish derives once for the certificate: the repeats outer before inner (by
     * first launch, longer first, then as written), each repeat's innermost enclosing repeat
     * (SIZE_MAX: none), and the launches where a run of one phase starts (0, and each launch
     * whose phase differs from the one before it). */
    size_t *repeat_order, *repeat_parent;
    size_t *run_starts;
    size_t run_starts_count;
    size_t updates_count; /* planes with `updates` set: 0 means rule (D) reads no in-place update */
    bool finished;        /* set by ar_plan_finish; the certificate refuses an unfinished plan */
    struct ar_plan_internals_t *internals; /* capacities, the string pool, the intern table */
    /* `reads`/`writes` (added after 0.1.0, hence here): per plane, parallel to `planes`, or NULL
     * while no plane has either list; their ranges end to end in `plane_ranges`. */
    ar_plane_access_t *plane_access;
    ar_plane_range_t *plane_ranges;
    size_t plane_ranges_count;
} ar_plan_t;

/* ---- Building ---------------------------------------------------------------------------
 * Builder calls append; each returns ar_status_success_k, ar_status_out_of_memory_k, or
 * ar_status_invalid_argument_k when called out of order (a plane with no phase, a frame with no
 * frames repeat, anything after finish). Strings are copied into the plan. */

ar_status_t ar_plan_create(ar_plan_t **plan);
void ar_plan_free(ar_plan_t *plan); /* NULL is safe */

/* Reserve room for what is coming, so building a big plan does not reallocate (optional). */
ar_status_t ar_plan_reserve(ar_plan_t *plan, size_t launches, size_t words, size_t shifts);

/* Copy a string into the plan's pool once and return the pooled copy (same input, same
 * pointer), or NULL when out of memory. */
char const *ar_plan_intern(ar_plan_t *plan, char const *text);

ar_status_t ar_plan_set_alignment(ar_plan_t *plan, uint64_t alignment);
ar_status_t ar_plan_add_window(ar_plan_t *plan, uint64_t base, uint64_t size);
ar_status_t ar_plan_add_global(ar_plan_t *plan, char const *name, uint64_t base, uint64_t size);
/* A new phase; the planes added next belong to it, until the next ar_plan_add_phase. */
ar_status_t ar_plan_add_phase(ar_plan_t *plan, char const *id);
ar_status_t ar_plan_add_plane(ar_plan_t *plan, char const *name, uint64_t base, uint64_t size,
                              bool carried);
/* The same with `becomes` (NULL: absent): the phase updates the carried value `name` in place and
 * leaves `becomes` over the same bytes. `becomes` on a fresh plane is accepted here and refused by
 * ar_plan_finish (malformed, at `$.phases[p].planes[j].becomes`), as the loader reads it. */
ar_status_t ar_plan_add_plane_becomes(ar_plan_t *plan, char const *name, uint64_t base,
                                      uint64_t size, bool carried, char const *becomes);
/* The `reads` or `writes` list of the plane added last (CERTIFICATE.md §1): `count` ranges
 * relative to its base (`ranges` may be NULL when count is 0: an empty list, which for writes
 * overwrites nothing). A list never set stays absent. Once per list and plane; ar_plan_finish
 * checks them as the loader reads them (malformed: on a plane without `becomes`, a size 0, a
 * range past the plane). */
ar_status_t ar_plan_set_plane_reads(ar_plan_t *plan, ar_plane_range_t const *ranges, size_t count);
ar_status_t ar_plan_set_plane_writes(ar_plan_t *plan, ar_plane_range_t const *ranges, size_t count);
/* `phase_name` may be NULL (absent). `words` may be NULL when words_count is 0. The index of the
 * new launch goes to *index when index is not NULL. */
ar_status_t ar_plan_add_launch(ar_plan_t *plan, char const *kernel, char const *phase_name,
                               uint64_t const *words, size_t words_count, size_t *index);
ar_status_t ar_plan_add_repeat_deltas(ar_plan_t *plan, size_t first, size_t count,
                                      uint64_t iterations, ar_shift_t const *deltas,
                                      size_t deltas_count);
/* A frames repeat: then exactly `iterations` calls of ar_plan_add_frame, in order. */
ar_status_t ar_plan_add_repeat_frames(ar_plan_t *plan, size_t first, size_t count,
                                      uint64_t iterations);
ar_status_t ar_plan_add_frame(ar_plan_t *plan, ar_shift_t const *offsets, size_t offsets_count);
ar_status_t ar_plan_add_reference(ar_plan_t *plan, size_t first, size_t count);
/* Keep `meta_json` (a serialized JSON object, copied) to be written back with the plan. */
ar_status_t ar_plan_set_meta(ar_plan_t *plan, char const *meta_json);

/* Check every rule of CERTIFICATE.md §1 that makes a plan malformed, resolve launch phases,
 * and mark the plan finished. A malformed plan gets ar_status_invalid_argument_k and `error`
 * (may be NULL) names the first breach by JSON path; the plan is then left unfinished. */
ar_status_t ar_plan_finish(ar_plan_t *plan, ar_plan_error_t *error);

/* ---- JSON --------------------------------------------------------------------------------
 * Loading is all or nothing: on any error *plan stays NULL and nothing leaks. A finished plan
 * comes back. `path` "-" reads standard input. */

ar_status_t ar_plan_load_file(char const *path, ar_plan_t **plan, ar_plan_error_t *error);
ar_status_t ar_plan_load_buffer(char const *text, size_t length, ar_plan_t **plan,
                                ar_plan_error_t *error);
/* Write `plan` as JSON; load(write(plan)) gives the same plan. Addresses as "0x…" strings. */
ar_status_t ar_plan_write_file(ar_plan_t const *plan, FILE *file, ar_plan_error_t *error);
/* The same into a malloc'd, NUL-terminated string the caller frees. */
ar_status_t ar_plan_write_string(ar_plan_t const *plan, char **text, size_t *length,
                                 ar_plan_error_t *error);
/* Same plan: every field equal (names by content), meta included. */
bool ar_plan_equal(ar_plan_t const *a, ar_plan_t const *b);

/* ---- The certificate ---------------------------------------------------------------------
 * CERTIFICATE.md §3 (rules A–D, the verdict) and §4 (the exact oracle). */

typedef enum ar_rule_t {
    ar_rule_none_k = 0, /* certified */
    ar_rule_a_k,        /* globals: aligned, non-empty, pairwise disjoint */
    ar_rule_b_k,        /* each phase's planes: aligned, non-empty, disjoint, off the globals */
    ar_rule_c_k,        /* every word in a window lies in an allowed range */
    ar_rule_d_k,        /* carried planes still hold their value when a phase starts, and no
                           in-place update reads across elements bytes it writes */
} ar_rule_t;

typedef struct ar_certify_options_t {
    uint64_t few;         /* a repeat of at most `few` iterations gives points, not a hull; 16 */
    bool exact;           /* the exact oracle: (C) at every ordinal tuple */
    bool all_sites;       /* (C) goes on past the first failing launch and counts every site,
                             for precision figures; the verdict is unchanged */
    uint64_t exact_limit; /* the exact oracle refuses (ar_status_unsupported_k) a plan whose
                             unrolled word evaluations exceed this; 0 means the default, 2^32 */
} ar_certify_options_t;

#define AR_CERTIFY_FEW_DEFAULT 16u
/* A larger `few` is refused (ar_status_invalid_argument_k): listing that many points per word
 * could take hours. */
#define AR_CERTIFY_FEW_MAX ((uint64_t)1 << 24)
/* Room for a verdict's exact decimal text; a verdict with more digits is refused
 * (ar_status_unsupported_k). */
#define AR_VERDICT_TEXT_SIZE 1024

/* Defaults: few 16, not exact, not all_sites, exact_limit default. */
void ar_certify_options_default(ar_certify_options_t *options);

typedef struct ar_certify_report_t {
    ar_rule_t rule;                          /* the first rule broken, or ar_rule_none_k */
    uint64_t verdict;                        /* CERTIFICATE.md's verdict, saturated at UINT64_MAX */
    char verdict_text[AR_VERDICT_TEXT_SIZE]; /* the exact verdict in decimal, at any size */
    char message[1024 + AR_VERDICT_TEXT_SIZE]; /* which rule broke and where; "certified" */

    /* Where (C) broke: launch as written, word, the value or interval, the ordinal. */
    size_t launch, word;
    uint64_t lo, hi; /* the failing point (lo == hi) or interval */
    /* Where (D) broke: the executed instance, saturated; instance_text exact. */
    uint64_t instance;
    char instance_text[AR_VERDICT_TEXT_SIZE];

    /* Counts, for benchmarks and precision figures. Sites are (launch, word) pairs as written;
     * with all_sites every site is counted, else only those checked before the verdict. */
    uint64_t sites_checked;
    uint64_t sites_accepted;    /* sites every interval (or value) of which passes */
    uint64_t points, hulls;     /* intervals tested by kind (certificate mode) */
    uint64_t hull_slack_bytes;  /* sum over hulls of (hull width - values the hull stands for),
                                  saturated: the bytes a hull claims that no iteration touches
                                  at stride granularity */
    uint64_t executed_launches; /* saturated */
    uint64_t instances;         /* phase instances executed, saturated; 0 if (D) not reached */
    uint64_t evaluations;       /* word evaluations the exact oracle made */
} ar_certify_report_t;

/* Certify a finished plan. Returns ar_status_success_k with the verdict in `report` (0 or not);
 * ar_status_invalid_argument_k for a NULL or unfinished plan or NULL report;
 * ar_status_unsupported_k when the exact oracle refuses a plan over its limit;
 * ar_status_out_of_memory_k. `options` NULL means the defaults. */
ar_status_t ar_certify(ar_plan_t const *plan, ar_certify_options_t const *options,
                       ar_certify_report_t *report);

#ifdef __cplusplus
}
#endif
#endif
