/* Helpers the certificate tests share: a seeded splitmix64 generator, the named slots random
 * plans draw planes from, finishing a built plan or stopping the test, and exact decimal text
 * for 128-bit counts (computed here, not by the library under test). Static and header-only:
 * each test includes what it uses; unused pieces are marked so -Werror stays quiet. */
#ifndef ARENAREF_CERT_TEST_UTIL_H
#define ARENAREF_CERT_TEST_UTIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "arenaref/plan.h"
#include "expect.h"

typedef unsigned __int128 u128;

__attribute__((unused)) static uint64_t rng_state;
static inline uint64_t next_random(void) { /* splitmix64 */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static inline uint64_t below(uint64_t n) { return n ? next_random() % n : 0; }
static inline bool chance(unsigned percent) { return below(100) < percent; }

typedef struct slot_t {
    char const *name;
    uint64_t base, size;
} slot_t;

/* Named slots the phases of random plans draw planes from: the same name at two places, and
 * overlapping slots, so phases share bytes and redeclare names elsewhere. */
__attribute__((unused)) static slot_t const slots[] = {
    {"kv", 0x2000, 0x100}, {"kv", 0x2000, 0x80},  {"kv", 0x2100, 0x100},  {"act", 0x2080, 0x100},
    {"tmp", 0x2200, 0x40}, {"out", 0x2240, 0x40}, {"res", 0x2300, 0x100}, {"act", 0x2300, 0x80},
};
#define SLOTS (sizeof slots / sizeof slots[0])
__attribute__((unused)) static char const *const phase_ids[] = {"p0", "p1", "p2", "p3"};

/* Finish a plan the test built, or stop the test saying why it is malformed. */
static inline void require_finished(ar_plan_t *plan) {
    ar_plan_error_t error;
    ar_status_t status = ar_plan_finish(plan, &error);
    if (status != ar_status_success_k) fprintf(stderr, "finish: %s\n", error.message);
    require_true(status == ar_status_success_k);
}

static inline void decimal(u128 value, char *text) {
    char digits[48];
    int n = 0;
    do digits[n++] = (char)('0' + (int)(value % 10)), value /= 10;
    while (value);
    for (int i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    text[n] = '\0';
}

static inline double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
