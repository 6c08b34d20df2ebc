/* Rule D's view of planes against a plain reference: the keys ar_plan_finish derives (interned
 * names, pointers compared) equal those of the text-hashing arp_cert_plane_keys the naive
 * walker uses, updates included; and the elementary intervals (radix-sorted endpoints, packed
 * offsets or not) equal those a qsort of every endpoint gives. Random plans in three address
 * regimes: endpoints within 2^32 alignment units (the packed sort), spread over 2^50 units,
 * and ending at 2^64; with few endpoints too (the insertion sort), and many over 2^25 units
 * (the radix sort in three passes). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../ref/src/cert/certify_internal.h"
#include "../../ref/src/cert/plan_internal.h"
#include "arenaref/plan.h"
#include "expect.h"

static uint64_t state = 0x9e3779b97f4a7c15ull;
static uint64_t next_random(void) { /* splitmix64 */
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int compare_u128(void const *a, void const *b) {
    arp_u128_t x = *(arp_u128_t const *)a, y = *(arp_u128_t const *)b;
    return x < y ? -1 : x > y;
}

/* A plan of `phases` phases, two planes each (disjoint), from `values` values (a value may be
 * carried, and updated in place into another name). */
static ar_plan_t *random_plan(int regime, size_t values, size_t phases) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 256);
    uint64_t *base = malloc(values * sizeof *base), *size = malloc(values * sizeof *size);
    require_true(base && size);
    for (size_t v = 0; v < values; ++v) {
        size[v] = (1 + next_random() % 64) * 256;
        if (regime == 0)
            base[v] = 0x7f0000000000ull + (next_random() % 4096) * 256;
        else if (regime == 1)
            base[v] = (next_random() % ((uint64_t)1 << 50)) * 256;
        else if (regime == 3) /* packed, over 2^25 units: three passes of the radix sort */
            base[v] = 0x7f0000000000ull + (next_random() % ((uint64_t)1 << 25)) * 256;
        else
            base[v] = next_random() % 4 ? (next_random() % 4096) * 256 : 0 - size[v];
    }
    char name[32], becomes[32];
    for (size_t p = 0; p < phases; ++p) {
        snprintf(name, sizeof name, "phase%zu", p);
        ar_plan_add_phase(plan, name);
        size_t a = next_random() % values, b = next_random() % values;
        bool apart = base[a] + size[a] <= base[b] || base[b] + size[b] <= base[a];
        snprintf(name, sizeof name, "v%zu", a);
        snprintf(becomes, sizeof becomes, "u%zu", a);
        bool carried = next_random() % 2;
        ar_plan_add_plane_becomes(plan, name, base[a], size[a], carried,
                                  carried && next_random() % 3 == 0 ? becomes : NULL);
        snprintf(name, sizeof name, "v%zu", b);
        if (apart) ar_plan_add_plane(plan, name, base[b], size[b], false);
    }
    free(base), free(size);
    require_true(ar_plan_add_launch(plan, "k", "phase0", NULL, 0, NULL) == ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 0, 1) == ar_status_success_k);
    require_true(ar_plan_finish(plan, NULL) == ar_status_success_k);
    return plan;
}

static void check_plan(ar_plan_t const *plan) {
    struct ar_plan_internals_t const *in = plan->internals;
    size_t p = plan->planes_count, u = plan->updates_count;
    /* The keys, against the text-hashing twin. */
    int32_t *plane_key = malloc((p + 1) * sizeof *plane_key);
    int32_t *leave_key = malloc((p + 1) * sizeof *leave_key);
    size_t *key_plane = malloc((p + u + 1) * sizeof *key_plane), keys = 0;
    require_true(plane_key && leave_key && key_plane);
    require_true(arp_cert_plane_keys(plan, plane_key, key_plane, u ? leave_key : NULL, &keys) ==
                 ar_status_success_k);
    expect_size_eq(in->keys_count, keys);
    for (size_t i = 0; i < p; ++i) {
        expect_int_eq(in->plane_key[i], plane_key[i]);
        if (u) expect_int_eq(in->leave_key[i], leave_key[i]);
    }
    for (size_t k = 0; k < keys; ++k) expect_size_eq(in->key_plane[k], key_plane[k]);
    /* The cells, against a qsort of every endpoint. */
    size_t own_keys = 0; /* the planes' own keys (no becomes'), as rule D compresses them */
    for (size_t i = 0; i < p; ++i)
        if ((size_t)plane_key[i] + 1 > own_keys) own_keys = (size_t)plane_key[i] + 1;
    arp_u128_t *coords = NULL;
    uint32_t *lo = NULL, *hi = NULL;
    size_t count = 0;
    require_true(arp_cert_compress(plan, in->plane_key, in->key_plane, own_keys, &coords, &count,
                                   &lo, &hi) == ar_status_success_k);
    arp_u128_t *want = malloc((2 * p + 1) * sizeof *want);
    require_true(want != NULL);
    for (size_t i = 0; i < p; ++i)
        want[2 * i] = plan->planes[i].base,
                 want[2 * i + 1] = (arp_u128_t)plan->planes[i].base + plan->planes[i].size;
    qsort(want, 2 * p, sizeof *want, compare_u128);
    size_t unique = 0;
    for (size_t i = 0; i < 2 * p; ++i)
        if (!unique || want[unique - 1] != want[i]) want[unique++] = want[i];
    expect_size_eq(count, unique);
    for (size_t i = 0; i < count && i < unique; ++i) expect_true(coords[i] == want[i]);
    for (size_t i = 0; i < p; ++i) {
        arp_u128_t end = (arp_u128_t)plan->planes[i].base + plan->planes[i].size;
        expect_true(lo[i] < count && coords[lo[i]] == plan->planes[i].base);
        expect_true(hi[i] < count && coords[hi[i]] == end);
    }
    free(plane_key), free(leave_key), free(key_plane), free(coords), free(lo), free(hi);
    free(want);
}

int main(void) {
    size_t plans = 0;
    for (int regime = 0; regime < 3; ++regime)
        for (int trial = 0; trial < 20; ++trial) {
            /* few values: under 64 endpoints (insertion sort); many: the radix sort */
            size_t values = trial % 4 == 0 ? 1 + next_random() % 12 : 50 + next_random() % 400;
            ar_plan_t *plan = random_plan(regime, values, 2 * values);
            check_plan(plan);
            ar_plan_free(plan);
            ++plans;
        }
    for (int regime = 0; regime < 4;
         ++regime) { /* many endpoints, and over 2^25 units: three passes */
        if (regime == 2) continue;
        ar_plan_t *plan = random_plan(regime, 40000, 60000);
        check_plan(plan);
        ar_plan_free(plan);
        ++plans;
    }
    expect_size_eq(plans, 63);
    return expect_finish();
}
