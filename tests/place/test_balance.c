/* The balanced-group search (balance.c) alone: two groups planted among sets found (either one,
 * checked balanced at every time and proper); none where no proper subset balances; stopped on
 * a spent budget or an expired clock; and on planted groups of random nets, every group it
 * reports is balanced at every time, nonempty and proper, the same on a second run. */
#include <string.h>

#include "../../ref/src/place/engine.h"
#include "expect.h"

enum { SETS = 64, TIMES = 8, CELLS = 512 };
static size_t first[TIMES + 1];
static uint32_t set[CELLS];
static int64_t net[CELLS];
static uint8_t in[SETS], again[SETS];

/* Whether in[] marks a nonempty proper subset whose nets sum to 0 at every time. */
static bool balanced(size_t sets, size_t times) {
    size_t count = 0;
    for (size_t x = 0; x < sets; ++x) count += in[x];
    if (!count || count == sets) return false;
    for (size_t t = 0; t < times; ++t) {
        int64_t sum = 0;
        for (size_t c = first[t]; c < first[t + 1]; ++c) sum += in[set[c]] ? net[c] : 0;
        if (sum) return false;
    }
    return true;
}

static arp_result_t run(size_t sets, size_t times, uint64_t visits) {
    arp_clock_t clock = arp_clock_make(0);
    return arp_balance(sets, times, first, set, net, visits, 1u << 30, &clock,
                       arp_clock_now(&clock) + 3600, in);
}

static uint64_t next(uint64_t *state) {
    *state ^= *state << 13, *state ^= *state >> 7, *state ^= *state << 17;
    return *state;
}

int main(void) {
    /* Sets 0-2 and 3-5, each group balanced at every time: t0 +5 -5 +7 -7, t1 -3 +3 (0, 2),
     * t2 -2 +2 (3, 5). */
    size_t c = 0;
    int64_t const cells[][3] = {{0, 0, 5},  {0, 1, -5}, {0, 3, 7},  {0, 4, -7},
                                {1, 0, -3}, {1, 2, 3},  {2, 3, -2}, {2, 5, 2}};
    for (size_t t = 0, k = 0; t < 3; ++t) {
        first[t] = c;
        for (; k < sizeof cells / sizeof *cells && cells[k][0] == (int64_t)t; ++k, ++c)
            set[c] = (uint32_t)cells[k][1], net[c] = cells[k][2];
    }
    first[3] = c;
    expect_int_eq(run(6, 3, 1000), arp_found_k);
    expect_true(balanced(6, 3));
    expect_true(in[0] == in[1] && in[1] == in[2] && in[3] == in[4] && in[4] == in[5]);
    /* No budget, or an expired clock: stopped, not none. */
    expect_int_eq(run(6, 3, 0), arp_stopped_k);
    arp_clock_t dead = arp_clock_make(0);
    dead.expired = true;
    expect_int_eq(arp_balance(6, 3, first, set, net, 1000, 1000, &dead, 0, in), arp_stopped_k);
    /* One group no proper subset balances: x (+3 at t0, -3 at t1), y (-3 at t0), z (+3 at t1). */
    first[0] = 0, set[0] = 0, net[0] = 3, set[1] = 1, net[1] = -3;
    first[1] = 2, set[2] = 0, net[2] = -3, set[3] = 2, net[3] = 3;
    first[2] = 4;
    expect_int_eq(run(3, 2, 1000), arp_none_k);
    /* Planted groups of 4 sets over 8 times, random nets, many ending and starting at a time:
     * whatever it reports is a balanced proper subset, the same twice. */
    uint64_t state = 0x9e3779b97f4a7c15ull;
    size_t found = 0;
    for (int round = 0; round < 50; ++round) {
        size_t groups = 2 + next(&state) % 6, sets = 4 * groups;
        c = 0;
        for (size_t t = 0; t < TIMES; ++t) {
            first[t] = c;
            for (size_t g = 0; g < groups; ++g) {
                if (next(&state) % 3 == 0) continue; /* the group is not cut here */
                int64_t sum = 0;
                for (size_t k = 0; k < 3; ++k) {
                    set[c] = (uint32_t)(4 * g + k);
                    net[c] = (int64_t)(next(&state) % 64) - 32;
                    if (!net[c]) net[c] = 1;
                    sum += net[c++];
                }
                if (sum) set[c] = (uint32_t)(4 * g + 3), net[c++] = -sum; /* else balanced */
            }
        }
        first[TIMES] = c;
        arp_result_t result = run(sets, TIMES, 100000);
        expect_true(result == arp_found_k || result == arp_none_k || result == arp_stopped_k);
        if (result != arp_found_k) continue;
        ++found;
        expect_true(balanced(sets, TIMES));
        memcpy(again, in, sets);
        expect_int_eq(run(sets, TIMES, 100000), arp_found_k);
        expect_true(memcmp(again, in, sets) == 0);
    }
    expect_true(found >= 40);
    return expect_finish();
}
