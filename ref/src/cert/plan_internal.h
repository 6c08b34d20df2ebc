/* Internals of the plan model shared by the builder (plan.c), the JSON loader (plan_load.c) and
 * the writer (plan_write.c): array capacities, the string pool and intern table, the builder's
 * state, and the error formatter every plan call uses. Nothing here is public API. */
#ifndef ARENAREF_PLAN_INTERNAL_H
#define ARENAREF_PLAN_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaref/plan.h"

typedef struct arp_pool_chunk_t arp_pool_chunk_t;

typedef struct arp_intern_slot_t {
    char const *text; /* pooled; NULL marks an empty slot */
    uint64_t hash;
} arp_intern_slot_t;

struct ar_plan_internals_t {
    size_t windows_capacity, globals_capacity, phases_capacity, planes_capacity;
    size_t launches_capacity, words_capacity, repeats_capacity, shifts_capacity;
    size_t frame_starts_capacity, schedule_capacity;
    size_t plane_ranges_capacity;
    size_t plane_access_capacity; /* plane_access mirrors planes: planes_capacity once it exists */
    /* Frames given so far per repeat (parallel to plan->repeats; 0 for delta repeats): a repeat
     * does not record its frame count, since a finished plan has exactly `iterations`. */
    size_t *repeat_frames;
    /* Strings live in chunks that never move: pooled pointers stay valid while the pool grows. */
    arp_pool_chunk_t *pool;
    arp_intern_slot_t *intern_slots;
    size_t intern_capacity, intern_used; /* capacity a power of two, at most half full */
    /* Rule D's keys, derived by ar_plan_finish (plan_keys.c): per plane the key of its value
     * and of the value it leaves (leave_key is plane_key itself without updates), and per key
     * its first plane (for a becomes' key, the updating plane). */
    int32_t *plane_key, *leave_key;
    size_t *key_plane;
    size_t keys_count;
    /* Rule D's reads across elements, derived by ar_plan_finish (plan_access.c): per phase, its
     * first plane with `becomes` whose `reads` share a byte with its `writes` (the first such
     * read as written and the first write it meets), so the phase breaks D at its first
     * instance; NULL when no phase has one. */
    struct arp_cross_t *cross;
    size_t cross_phases;
    /* The globals' order, derived by ar_plan_finish (plan_globals.c): whether they come sorted,
     * disjoint, aligned and non-empty, and then their union, inclusive pieces lo at [2k], hi at
     * [2k + 1]. */
    bool globals_in_order;
    uint64_t *global_pieces;
    size_t global_pieces_count;
};

/* 64-bit FNV-1a, folded with a final mix so that short, similar names spread well. */
uint64_t arp_plan_hash_text(char const *text, size_t length);

/* Intern `length` bytes (not NUL-terminated) and return the pooled NUL-terminated copy. */
char const *arp_plan_intern_n(ar_plan_t *plan, char const *text, size_t length);

/* Make room for `more` entries in an array (amortized doubling). */
ar_status_t arp_plan_reserve_shifts(ar_plan_t *plan, size_t more);

/* Append a launch whose `words_count` words the caller then writes into
 * plan->words[plan->words_count - words_count ...] (the loader parses straight into the plan).
 * `kernel` and `phase_name` must already be pooled (ar_plan_intern). */
ar_status_t arp_plan_add_launch_pooled(ar_plan_t *plan, char const *kernel, char const *phase_name,
                                       size_t words_count, uint64_t **words_out);

/* Fill `error` (may be NULL): status, path, position, and "PATH: text" (or "line L, column C:
 * text" when line > 0) in message. Returns status, so callers can `return arp_plan_fail(...)`. */
ar_status_t arp_plan_fail(ar_plan_error_t *error, ar_status_t status, char const *path, int line,
                          int column, char const *format, ...)
    __attribute__((format(printf, 6, 7)));

/* The keys above, for a plan whose planes and updates_count are final; out of memory is the only
 * failure. Free resets them. */
ar_status_t arp_plan_keys_derive(ar_plan_t *plan);
void arp_plan_keys_free(struct ar_plan_internals_t *internals);
/* The globals' order above; out of memory is the only failure. Free resets it. */
ar_status_t arp_plan_globals_derive(ar_plan_t *plan);
void arp_plan_globals_free(struct ar_plan_internals_t *internals);

/* A phase's read across elements of bytes it writes (plane SIZE_MAX: none). `read` and `write`
 * index plan->plane_ranges; `write` is SIZE_MAX where the plane's writes are absent (the whole
 * plane). */
typedef struct arp_cross_t {
    size_t plane, read, write;
} arp_cross_t;

/* The reads/writes rules of CERTIFICATE.md §1 for plane `j` of phase `p` (the first breach with
 * its JSON path into `error`), and the cross facts above for a plan whose planes passed them. */
ar_status_t arp_plan_access_check(ar_plan_t const *plan, size_t p, size_t j,
                                  ar_plan_error_t *error);
ar_status_t arp_plan_cross_derive(ar_plan_t *plan);
void arp_plan_cross_free(struct ar_plan_internals_t *internals);

/* Whether the plan takes builder calls (created, not finished). */
bool arp_plan_building(ar_plan_t const *plan);

/* Clear an error to success. */
void arp_plan_error_clear(ar_plan_error_t *error);

#endif
