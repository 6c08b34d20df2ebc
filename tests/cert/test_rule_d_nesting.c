/* Rule D under deep nesting: without summaries a plan nested d deep costs 2^d walks of its
 * innermost body. Chains nested 40 and 60 deep (2 iterations each) must certify, or break (D)
 * at a k computed by arithmetic; small ones and a few thousand seeded random plans (nested up
 * to 6 deep) are checked against the naive walker, with few elementary intervals and, padded,
 * over 256 (the other state). Walks modulo 2^128 and primes give residues of the same counts. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../ref/src/cert/certify_internal.h"
#include "arenaref/plan.h"
#include "expect.h"
#include "cert_test_util.h"

#define NO_EVICT UINT64_MAX

/* A phase no launch runs, with `count` small planes: 2 x count more elementary intervals. 200
 * puts the walker's state in its segment tree rather than its flat array; 2100 past the cells
 * it summarises (then it walks two passes per nesting level). */
static void add_padding(ar_plan_t *plan, uint64_t count) {
    ar_plan_add_phase(plan, "padding");
    for (uint64_t i = 0; i < count; ++i)
        ar_plan_add_plane(plan, "pad", 0x100000 + 0x20 * i, 0x10, false);
}

/* The chain of depth D: launch 0 "init" (phase "prod", declares "buf"); launch 1 "use" (phase
 * "use", buf carried); launch 2 "prod"; launches 3 .. D+1 "tail" (phase "prod", or "evict" at
 * the level chosen to clobber buf: levels 0 .. D-2 have a tail). Repeat j (j = 0 .. D-1) is
 * [1, D+2-j), 2 iterations: all share launch 1 as their first, repeat D-1 = [1, 3) is the
 * innermost, and repeat j's body is repeat j+1 then launch D+1-j. Executed: E(D-1) = use prod
 * use prod; E(j) = E(j+1) tail E(j+1) tail. A prod tail merges into the prod before it, so
 * E(j) has 2^(D+1-j) instances.
 * An evict tail at level m: the next "use" (the second E(m+1)'s first launch) breaks (D) at
 * k = 1 + 2^(D-m) + 1 (init, the first E(m+1), the evict).
 * `evict_level`: the repeat whose tail clobbers buf (NO_EVICT: none). `again`: after the first
 * reference [0, D+2), a reference to an "evict" launch and one to [1, D+2) (which starts with a
 * use of the clobbered buf). */
static ar_plan_t *chain(uint64_t depth, uint64_t evict_level, bool again, uint64_t padding) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 16);
    ar_plan_add_window(plan, 0x1000, 0x1000);
    ar_plan_add_phase(plan, "prod");
    ar_plan_add_plane(plan, "buf", 0x1000, 0x100, false);
    ar_plan_add_phase(plan, "use");
    ar_plan_add_plane(plan, "buf", 0x1000, 0x100, true);
    ar_plan_add_phase(plan, "evict");
    ar_plan_add_plane(plan, "junk", 0x1040, 0x10, false);
    if (padding) add_padding(plan, padding);
    ar_plan_add_launch(plan, "init", "prod", NULL, 0, NULL);
    ar_plan_add_launch(plan, "use", "use", NULL, 0, NULL);
    ar_plan_add_launch(plan, "prod", "prod", NULL, 0, NULL);
    for (uint64_t l = 3; l <= depth + 1; ++l) /* launch l is the tail of repeat D + 1 - l */
        ar_plan_add_launch(plan, "tail", depth + 1 - l == evict_level ? "evict" : "prod", NULL, 0,
                           NULL);
    size_t evict_launch = 0;
    if (again) ar_plan_add_launch(plan, "evict", "evict", NULL, 0, &evict_launch);
    for (uint64_t j = 0; j < depth; ++j)
        require_true(ar_plan_add_repeat_deltas(plan, 1, depth + 1 - j, 2, NULL, 0) ==
                     ar_status_success_k);
    ar_plan_add_reference(plan, 0, depth + 2);
    if (again) {
        ar_plan_add_reference(plan, evict_launch, 1);
        ar_plan_add_reference(plan, 1, depth + 1);
    }
    require_finished(plan);
    return plan;
}

/* Executed launches of E(0) for depth D: X(D-1) = 4, X(j) = 2 (X(j+1) + 1). */
static u128 chain_launches(uint64_t depth) {
    u128 x = 4;
    for (uint64_t j = depth - 1; j-- > 0;) x = 2 * (x + 1);
    return x;
}

static void expect_u128_eq(u128 a, u128 b) {
    char x[48], y[48];
    decimal(a, x), decimal(b, y);
    expect_str_eq(x, y);
}

static void check_chain(uint64_t depth, uint64_t evict_level, bool again, uint64_t padding) {
    ar_plan_t *plan = chain(depth, evict_level, again, padding);
    bool broken = evict_level != NO_EVICT || again;
    u128 k = evict_level != NO_EVICT ? 2 + ((u128)1 << (depth - evict_level))
                                     : 1 + ((u128)1 << (depth + 1)) + 1;
    double start = now();
    arp_rule_d_t fast;
    require_true(arp_rule_d(plan, &fast) == ar_status_success_k);
    double seconds = now() - start;
    char k_text[48];
    decimal(fast.instance, k_text);
    printf("depth %" PRIu64 ", evict level %" PRId64 ", again %d, padding %" PRIu64
           ": %s k %s in %.4f s\n",
           depth, evict_level == NO_EVICT ? (int64_t)-1 : (int64_t)evict_level, again, padding,
           fast.broken ? "broken at" : "certified,", fast.broken ? k_text : "-", seconds);
    expect_int_eq(fast.broken, broken);
    if (broken) {
        expect_u128_eq(fast.instance, k);
        expect_u128_eq(fast.instances, k + 1);
        expect_str_contains(fast.message, "\"buf\"");
        expect_str_contains(fast.message, "\"junk\"");
        expect_str_contains(fast.message, "phase \"use\"");
    } else {
        expect_u128_eq(fast.instances, 1 + ((u128)1 << (depth + 1)));
        expect_u128_eq(fast.executed_launches, 1 + chain_launches(depth));
    }
    /* Through the certificate: the verdict text is exact past 2^64. */
    ar_certify_report_t report;
    require_true(ar_certify(plan, NULL, &report) == ar_status_success_k);
    char verdict[48];
    decimal(broken ? k + 2 + plan->launches_count : 0, verdict);
    expect_str_eq(report.verdict_text, verdict);
    expect_int_eq(report.rule, broken ? ar_rule_d_k : ar_rule_none_k);
    /* Small: the naive walker agrees. */
    if (depth <= 14) {
        arp_rule_d_t naive;
        require_true(arp_rule_d_naive(plan, ARP_NAIVE_D_LAUNCH_LIMIT, &naive) ==
                     ar_status_success_k);
        expect_int_eq(naive.broken, broken);
        expect_u128_eq(naive.instances, fast.instances);
        expect_u128_eq(naive.executed_launches, fast.executed_launches);
        if (broken) {
            expect_u128_eq(naive.instance, k);
            expect_size_eq(naive.plane, fast.plane);
        }
    }
    ar_plan_free(plan);
}

/* ---- Random nested plans against the naive walker ------------------------------------------ */

typedef struct ranges_t {
    size_t r[64][2];
    size_t count;
} ranges_t;

/* Repeats inside [lo, hi): disjoint siblings, each (sometimes) holding more; `whole` says
 * whether a repeat may be exactly [lo, hi) (not when [lo, hi) is itself a repeat's body). */
static void nest(ranges_t *out, size_t lo, size_t hi, bool whole, unsigned depth) {
    size_t at = lo;
    while (at < hi && out->count < 64 && depth < 7 && chance(depth ? 55 : 85)) {
        size_t a = at + below(hi - at), b = a + 1 + below(hi - a);
        if (!whole && a == lo && b == hi) {
            if (b - a < 2) break;
            if (chance(50))
                ++a;
            else
                --b;
        }
        out->r[out->count][0] = a, out->r[out->count][1] = b - a, ++out->count;
        nest(out, a, b, false, depth + 1);
        at = b;
    }
}

static bool cuttable(size_t cut, ranges_t const *ranges) {
    for (size_t r = 0; r < ranges->count; ++r)
        if (cut > ranges->r[r][0] && cut < ranges->r[r][0] + ranges->r[r][1]) return false;
    return true;
}

static ar_plan_t *random_plan(void) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 16);
    ar_plan_add_window(plan, 0x2000, 0x1000);
    size_t phases = 2 + below(3);
    for (size_t p = 0; p < phases; ++p) {
        ar_plan_add_phase(plan, phase_ids[p]);
        size_t planes = below(4);
        uint64_t used[SLOTS][2];
        size_t used_count = 0;
        for (size_t k = 0; k < planes; ++k) {
            slot_t const *s = &slots[below(SLOTS)];
            bool clash = false;
            for (size_t u = 0; u < used_count; ++u)
                if (s->base < used[u][0] + used[u][1] && used[u][0] < s->base + s->size)
                    clash = true;
            if (clash) continue; /* rule B: a phase's planes are disjoint */
            used[used_count][0] = s->base, used[used_count][1] = s->size, ++used_count;
            ar_plan_add_plane(plan, s->name, s->base, s->size, chance(50));
        }
    }
    if (chance(10)) add_padding(plan, 200);
    size_t launches = 1 + below(10);
    for (size_t l = 0; l < launches; ++l)
        ar_plan_add_launch(plan, "k", chance(4) ? "ghost" : phase_ids[below(phases)], NULL, 0,
                           NULL);
    ranges_t ranges = {.count = 0};
    nest(&ranges, 0, launches, true, 0);
    for (size_t r = 0; r < ranges.count; ++r)
        ar_plan_add_repeat_deltas(plan, ranges.r[r][0], ranges.r[r][1], 1 + below(3), NULL, 0);
    size_t references = 1 + below(5);
    for (size_t s = 0; s < references; ++s) {
        size_t a, b, tries = 0;
        do a = below(launches), b = a + 1 + below(launches - a);
        while ((!cuttable(a, &ranges) || !cuttable(b, &ranges)) && ++tries < 50);
        if (tries >= 50) a = 0, b = launches;
        size_t copies = chance(30) ? 2 + below(3) : 1;
        for (size_t c = 0; c < copies; ++c) ar_plan_add_reference(plan, a, b - a);
    }
    if (chance(30) && plan->schedule_count >= 2) { /* a block of two, again */
        size_t from = plan->schedule_count - 2;
        for (size_t c = 0; c < 2; ++c)
            ar_plan_add_reference(plan, plan->schedule[from + c].first,
                                  plan->schedule[from + c].count);
    }
    return plan;
}

/* Counting modulo 2^128 or a prime, deduplicating without comparisons, walks the same way (the
 * wide verdict rests on it): the same outcome, and residues of the plain walk's counts. */
static void check_residues(ar_plan_t const *plan, arp_rule_d_t const *fast) {
    uint64_t const moduli[3] = {0, 18446744073709551557ull, 1000003};
    for (int m = 0; m < 3; ++m) {
        arp_rule_d_t r;
        require_true(arp_rule_d_walk(plan, moduli[m], m == 0, &r) == ar_status_success_k);
        u128 mod = moduli[m] ? moduli[m] : 0;
        u128 want[2] = {fast->instance, fast->instances};
        u128 got[2] = {r.instance, r.instances};
        expect_int_eq(r.broken, fast->broken);
        for (int q = 0; q < 2; ++q) expect_u128_eq(got[q], mod ? want[q] % mod : want[q]);
        if (r.broken && fast->broken) {
            expect_size_eq(r.plane, fast->plane);
            expect_size_eq(r.other_plane, fast->other_plane);
            expect_u128_eq(r.other_stamp, mod ? fast->other_stamp % mod : fast->other_stamp);
        }
    }
}

/* A key declared twice per pass moves once when the passes past the second are counted: a
 * repeat of 5 over phases P Q P Q (P declares "kv" at instances 4i and 4i + 2), then E, whose
 * carried "x" lies on kv's bytes: the last declaration there is instance 18, in every mode. */
static void check_stamp_moves_once(void) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 16);
    ar_plan_add_phase(plan, "P");
    ar_plan_add_plane(plan, "kv", 0x2000, 0x100, false);
    ar_plan_add_phase(plan, "Q");
    ar_plan_add_phase(plan, "E");
    ar_plan_add_plane(plan, "x", 0x2000, 0x100, true);
    char const *phases[5] = {"P", "Q", "P", "Q", "E"};
    for (int l = 0; l < 5; ++l) ar_plan_add_launch(plan, "k", phases[l], NULL, 0, NULL);
    ar_plan_add_repeat_deltas(plan, 0, 4, 5, NULL, 0);
    ar_plan_add_reference(plan, 0, 5);
    require_finished(plan);
    uint64_t const moduli[3] = {0, 0, 1000003};
    for (int m = 0; m < 3; ++m) {
        arp_rule_d_t r;
        require_true(arp_rule_d_walk(plan, moduli[m], m == 1, &r) == ar_status_success_k);
        expect_true(r.broken);
        expect_u128_eq(r.instance, 20);
        expect_u128_eq(r.other_stamp, 18);
    }
    ar_plan_free(plan);
}

static int compare_random(uint64_t seed, size_t *compared, size_t *broken, unsigned *deepest) {
    rng_state = seed;
    int before = expect_failures_;
    ar_plan_t *plan = random_plan();
    ar_plan_error_t error;
    if (ar_plan_finish(plan, &error) != ar_status_success_k) {
        ar_plan_free(plan);
        return 0;
    }
    unsigned depth = 0;
    for (size_t l = 0; l < plan->launches_count; ++l) {
        unsigned around = 0;
        for (size_t r = 0; r < plan->repeats_count; ++r)
            around +=
                plan->repeats[r].first <= l && l < plan->repeats[r].first + plan->repeats[r].count;
        if (around > depth) depth = around;
    }
    arp_rule_d_t fast, naive;
    require_true(arp_rule_d(plan, &fast) == ar_status_success_k);
    require_true(arp_rule_d_naive(plan, ARP_NAIVE_D_LAUNCH_LIMIT, &naive) == ar_status_success_k);
    ++*compared;
    *broken += naive.broken;
    if (depth > *deepest) *deepest = depth;
    expect_int_eq(fast.broken, naive.broken);
    expect_u128_eq(fast.instances, naive.instances);
    if (fast.broken && naive.broken) {
        expect_u128_eq(fast.instance, naive.instance);
        expect_size_eq(fast.plane, naive.plane);
        expect_size_eq(fast.phase, naive.phase);
    } else {
        expect_u128_eq(fast.executed_launches, naive.executed_launches);
    }
    check_residues(plan, &fast);
    ar_plan_free(plan);
    if (expect_failures_ != before) {
        fprintf(stderr, "fast D differs from naive D for seed %" PRIu64 "\n", seed);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    /* `test_rule_d_nesting SEED [COUNT]`: COUNT random plans from SEED (default 1, 4000). */
    uint64_t first_seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    uint64_t count = argc > 2 ? strtoull(argv[2], NULL, 0) : 4000;

    for (uint64_t padded = 0; padded < 2; ++padded) {
        for (uint64_t depth = 1; depth <= 12; ++depth) {
            check_chain(depth, NO_EVICT, false, 200 * padded);
            check_chain(depth, NO_EVICT, true, 200 * padded);
            if (depth >= 2) {
                check_chain(depth, 0, false, 200 * padded);
                check_chain(depth, (depth - 2) / 2, false, 200 * padded);
                check_chain(depth, depth - 2, false, 200 * padded);
            }
        }
        for (uint64_t depth = 20; depth <= 60; depth += 20) {
            check_chain(depth, NO_EVICT, false, 200 * padded);
            check_chain(depth, NO_EVICT, true, 200 * padded);
            check_chain(depth, 0, false, 200 * padded);
            check_chain(depth, depth / 2, false, 200 * padded);
            check_chain(depth, depth - 2, false, 200 * padded);
        }
    }

    /* Past the summarised cells: the fallback, checked on small depths. */
    for (uint64_t depth = 1; depth <= 10; depth += 3) {
        check_chain(depth, NO_EVICT, true, 2100);
        if (depth >= 2) check_chain(depth, depth / 2 - 1, false, 2100);
    }

    check_stamp_moves_once();
    size_t compared = 0, broken = 0;
    unsigned deepest = 0;
    int failed = 0;
    for (uint64_t s = 0; s < count && failed < 5; ++s)
        failed += compare_random((first_seed + s) * 104729, &compared, &broken, &deepest);
    printf("random nested plans: %zu compared with the naive walker, %zu break (D), nesting up "
           "to %u deep\n",
           compared, broken, deepest);
    /* The generator must reach deep nesting and both outcomes, or the comparison says little. */
    expect_true(compared > count / 2);
    expect_u64_gt(broken, compared / 10);
    expect_u64_gt(compared - broken, compared / 10);
    expect_true(deepest >= 4 || count < 1000);
    return expect_finish();
}
