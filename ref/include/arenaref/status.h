/* arenaref: the one error convention of the whole public API.
 *
 * Every call reports an `ar_status_t`. Arena verbs (`void ar_VERB(ar_VERB_t *)`) report it
 * through `arguments->outcome`, an `ar_outcome_t` the caller owns (NULL where the caller does
 * not care); plan and certificate calls return it and, where a message needs details (a JSON
 * path, a line and column), fill an `ar_plan_error_t`. `message` strings in an outcome are
 * static: they never need freeing and never dangle.
 */
#ifndef ARENAREF_STATUS_H
#define ARENAREF_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum ar_status_t {
    ar_status_success_k = 0,          /* done */
    ar_status_deferred_k = 1,         /* submitted, not final yet */
    ar_status_invalid_argument_k = 2, /* NULL where something is required, counts that do not
                                         match, inputs inside the arena a call rewinds, a
                                         malformed plan */
    ar_status_contended_k = 3,        /* the arena is held by another call */
    ar_status_device_k = 4,           /* another residency or device than the arena's */
    ar_status_out_of_memory_k = 5,    /* growth failed; a GPU never falls back to host pages */
    ar_status_unsupported_k = 6,      /* this build or machine lacks it, or a documented limit */
    ar_status_io_k = 7,               /* a file could not be read or written */
    ar_status_cancelled_k = 8,        /* a deferred call cancelled by ar_outcome_cancel */
    ar_status_stale_k = 9,            /* a view whose arena was rewound by a later call */
} ar_status_t;

/* A call's outcome. A deferred call finishes on its executor's thread while the caller may
 * look at it: the library stores `status` atomically (release) after everything else, so a
 * caller reads it with `ar_outcome_status` (acquire) or waits with `ar_outcome_wait`; once
 * final, plain reads are fine. */
typedef struct ar_outcome_t {
    ar_status_t status;      /* ar_status_deferred_k until final */
    char const *message;     /* static text saying what went wrong, NULL on success */
} ar_outcome_t;

/* The status as of now, read atomically: safe while a deferred call may still finish. */
ar_status_t ar_outcome_status(ar_outcome_t const *outcome);

/* The name of a status, such as "invalid_argument"; "unknown" for values out of range. */
char const *ar_status_name(ar_status_t status);

#ifdef __cplusplus
}
#endif
#endif
