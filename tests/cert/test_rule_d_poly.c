/* Rule D's exact verdict at any size, checked against polynomials. With every repeat set to N
 * iterations, k is a polynomial in N of degree at most the nesting depth for N >= 2 (from its
 * second pass on a body meets the same state and phase at its start, so the first break lies in
 * the first or second iteration of each repeat around it, or after it). Each plan is fitted from
 * the naive walker at N = 2 .. depth + 2 (Newton's forward differences, exact); the fit must
 * predict the naive walker and the certifier at three more N, then the certifier's decimal
 * verdict at N = 2^63 - 1, 2^64 - 1, 2^40 and a random N, in exact big integers. Random plans
 * nest 2 or 3 deep, bodies often starting and ending with one phase (instances merge across
 * iterations); two fixed shapes merge them across references and three nesting levels. */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ref/src/cert/certify_internal.h"
#include "arenaref/plan.h"
#include "cert_test_util.h"
#include "expect.h"

/* ---- Exact unsigned big integers (little-endian 64-bit limbs) ------------------------------ */

#define LIMBS 8
typedef struct big_t {
    uint64_t limb[LIMBS];
} big_t;

static big_t big_of(u128 x) {
    big_t b = {{(uint64_t)x, (uint64_t)(x >> 64)}};
    return b;
}

static void big_mul(big_t *x, uint64_t a) {
    u128 carry = 0;
    for (int i = 0; i < LIMBS; ++i) {
        carry += (u128)x->limb[i] * a;
        x->limb[i] = (uint64_t)carry;
        carry >>= 64;
    }
    require_true(carry == 0);
}

static uint64_t big_div(big_t *x, uint64_t d) { /* returns the remainder */
    u128 rest = 0;
    for (int i = LIMBS; i-- > 0;) {
        u128 cur = rest << 64 | x->limb[i];
        x->limb[i] = (uint64_t)(cur / d);
        rest = cur % d;
    }
    return (uint64_t)rest;
}

static void big_add(big_t *x, big_t const *y) {
    u128 carry = 0;
    for (int i = 0; i < LIMBS; ++i) {
        carry += (u128)x->limb[i] + y->limb[i];
        x->limb[i] = (uint64_t)carry;
        carry >>= 64;
    }
    require_true(carry == 0);
}

static bool big_less(big_t const *x, big_t const *y) {
    for (int i = LIMBS; i-- > 0;)
        if (x->limb[i] != y->limb[i]) return x->limb[i] < y->limb[i];
    return false;
}

static void big_sub(big_t *x, big_t const *y) { /* x >= y */
    require_true(!big_less(x, y));
    uint64_t borrow = 0;
    for (int i = 0; i < LIMBS; ++i) {
        uint64_t a = x->limb[i], b = y->limb[i];
        x->limb[i] = a - b - borrow;
        borrow = a < b || (a == b && borrow);
    }
}

static bool big_past_128(big_t const *x) {
    for (int i = 2; i < LIMBS; ++i)
        if (x->limb[i]) return true;
    return false;
}

static void big_decimal(big_t x, char *text, size_t size) {
    char digits[LIMBS * 20 + 1];
    size_t n = 0;
    big_t zero = {{0}};
    do digits[n++] = (char)('0' + big_div(&x, 10));
    while (big_less(&zero, &x));
    require_true(n < size);
    for (size_t i = 0; i < n; ++i) text[i] = digits[n - 1 - i];
    text[n] = '\0';
}

/* ---- The polynomial: Newton's form from N0, f(N0 + t) = sum_j diff[j] C(t, j) -------------- */

#define DEPTH_MAX 3
#define FIT_FIRST 2u   /* N from which k is a polynomial */
#define EXTRA_POINTS 3 /* small N past the fit that it must predict */
#define POINTS_MAX (DEPTH_MAX + 1 + EXTRA_POINTS)

typedef struct poly_t {
    int64_t diff[POINTS_MAX];
    unsigned terms; /* diff[0 .. terms) */
} poly_t;

/* Forward differences of values at N0, N0 + 1, ...; the degree is the last nonzero one. */
static poly_t fit(u128 const *values, unsigned count, unsigned *degree) {
    poly_t p = {.terms = count};
    int64_t row[POINTS_MAX];
    for (unsigned i = 0; i < count; ++i) {
        require_true(values[i] < ((u128)1 << 62));
        row[i] = (int64_t)values[i];
    }
    *degree = 0;
    for (unsigned j = 0; j < count; ++j) {
        p.diff[j] = row[0];
        if (row[0] != 0) *degree = j;
        for (unsigned i = 0; i + 1 < count - j; ++i) row[i] = row[i + 1] - row[i];
    }
    return p;
}

static big_t evaluate(poly_t const *p, uint64_t n) {
    big_t plus = {{0}}, minus = {{0}};
    uint64_t t = n - FIT_FIRST;
    uint64_t factorial = 1;
    for (unsigned j = 0; j < p->terms; ++j) {
        if (j) factorial *= j;
        if (p->diff[j] == 0 || t < j) continue;
        big_t c = big_of(1); /* C(t, j) = t (t - 1) ... (t - j + 1) / j! */
        for (unsigned i = 0; i < j; ++i) big_mul(&c, t - i);
        require_true(big_div(&c, factorial) == 0);
        big_mul(&c, (uint64_t)(p->diff[j] < 0 ? -p->diff[j] : p->diff[j]));
        big_add(p->diff[j] < 0 ? &minus : &plus, &c);
    }
    big_sub(&plus, &minus);
    return plus;
}

/* ---- Plan shapes, built at any N ------------------------------------------------------------ */

#define LAUNCHES_MAX 40
#define PHASES_MAX 5

typedef struct shape_t {
    size_t phases;
    size_t planes[PHASES_MAX];
    struct {
        uint8_t slot;
        bool carried;
    } plane[PHASES_MAX][4];
    size_t launches;
    uint8_t phase_of[LAUNCHES_MAX];
    size_t repeats;
    size_t rep[8][2]; /* first, count */
    size_t refs;
    size_t ref[12][2];
    unsigned depth;   /* of the repeats' nesting */
    size_t outermost; /* the repeat at level 1 */
} shape_t;

static char const *const ids[PHASES_MAX] = {"p0", "p1", "p2", "p3", "p4"};

static ar_plan_t *build(shape_t const *s, uint64_t n) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 16);
    ar_plan_add_window(plan, 0x2000, 0x1000);
    for (size_t p = 0; p < s->phases; ++p) {
        ar_plan_add_phase(plan, ids[p]);
        for (size_t k = 0; k < s->planes[p]; ++k) {
            slot_t const *slot = &slots[s->plane[p][k].slot];
            ar_plan_add_plane(plan, slot->name, slot->base, slot->size, s->plane[p][k].carried);
        }
    }
    for (size_t l = 0; l < s->launches; ++l)
        ar_plan_add_launch(plan, "k", ids[s->phase_of[l]], NULL, 0, NULL);
    for (size_t r = 0; r < s->repeats; ++r)
        require_true(ar_plan_add_repeat_deltas(plan, s->rep[r][0], s->rep[r][1], n, NULL, 0) ==
                     ar_status_success_k);
    for (size_t r = 0; r < s->refs; ++r) ar_plan_add_reference(plan, s->ref[r][0], s->ref[r][1]);
    require_finished(plan);
    return plan;
}

/* Launches of the body at nesting `level` (0: the top level): a few launches, the repeat one
 * level in (until `depth`), sometimes a small sibling repeat, a few more launches. A body is
 * never exactly the range of the repeat inside it. */
static void lay_out(shape_t *s, unsigned level, unsigned depth) {
    if (level == depth) {
        for (size_t i = 1 + below(4); i-- > 0;) s->phase_of[s->launches++] = 0;
        return;
    }
    size_t before = below(3), after = below(3);
    if (level > 0 && before + after == 0) *(chance(50) ? &before : &after) = 1;
    s->launches += before;
    size_t first = s->launches;
    lay_out(s, level + 1, depth);
    if (level == 0) s->outermost = s->repeats;
    s->rep[s->repeats][0] = first, s->rep[s->repeats][1] = s->launches - first, ++s->repeats;
    if (chance(20)) {
        size_t at = s->launches, count = 1 + below(3);
        s->launches += count;
        s->rep[s->repeats][0] = at, s->rep[s->repeats][1] = count, ++s->repeats;
    }
    s->launches += after;
}

static bool inside_repeat(shape_t const *s, size_t cut) {
    for (size_t r = 0; r < s->repeats; ++r)
        if (cut > s->rep[r][0] && cut < s->rep[r][0] + s->rep[r][1]) return true;
    return false;
}

/* Phases for a break deep in the run: p0 declares the live planes kv, tmp and res (slots 0, 4,
 * 6); p1 .. p3 carry some of them (or declare one again, fresh, which repairs it); p4 evicts,
 * declaring a plane over kv's or res's bytes (slot 3, 1 or 7). Launch 0 is p0, one or two
 * others p4: the first use of an evicted plane lies wherever the evict and the references put
 * it (the first or second iteration of a repeat, after one, in a later reference). */
static void evicting_phases(shape_t *s) {
    static uint8_t const live[3] = {0, 4, 6}, clobber[3] = {3, 1, 7};
    s->phases = 5;
    s->planes[0] = 3;
    for (size_t k = 0; k < 3; ++k) s->plane[0][k].slot = live[k], s->plane[0][k].carried = false;
    for (size_t p = 1; p < 4; ++p) {
        for (size_t k = 0; k < 3; ++k) {
            if (!chance(50)) continue;
            s->plane[p][s->planes[p]].slot = live[k];
            s->plane[p][s->planes[p]++].carried = !chance(15);
        }
        if (chance(30)) { /* out: no live bytes */
            s->plane[p][s->planes[p]].slot = 5;
            s->plane[p][s->planes[p]++].carried = false;
        }
    }
    s->planes[4] = 1;
    s->plane[4][0].slot = clobber[below(3)], s->plane[4][0].carried = false;
    for (size_t l = 0; l < s->launches; ++l) s->phase_of[l] = (uint8_t)(1 + below(3));
    s->phase_of[0] = 0;
}

/* One or two evicts: at any launch, at the end of a repeat's body (its uses before it break in
 * the second iteration, after whole runs of the repeats inside), or just past a repeat. */
static void place_evicts(shape_t *s) {
    for (size_t e = 1 + below(2); e-- > 0;) {
        size_t r = chance(50) ? s->outermost : below(s->repeats), at = 1 + below(s->launches - 1);
        size_t end = s->rep[r][0] + s->rep[r][1];
        if (chance(45))
            at = end - 1;
        else if (chance(70) && end < s->launches)
            at = end;
        s->phase_of[at] = 4;
    }
}

static void random_shape(shape_t *s) {
    memset(s, 0, sizeof *s);
    s->depth = 2 + (unsigned)below(2);
    bool evicting = chance(75);
    if (evicting) s->launches = 1; /* launch 0: p0 */
    lay_out(s, 0, s->depth);
    s->phases = chance(30) ? 2 : 3 + below(PHASES_MAX - 2);
    for (size_t p = 0; p < s->phases; ++p) {
        uint64_t used[4][2];
        size_t count = below(4);
        for (size_t k = 0; k < count; ++k) {
            uint8_t slot = (uint8_t)below(SLOTS);
            bool clash = false;
            for (size_t u = 0; u < s->planes[p]; ++u)
                clash = clash || (slots[slot].base < used[u][0] + used[u][1] &&
                                  used[u][0] < slots[slot].base + slots[slot].size);
            if (clash) continue; /* rule B: a phase's planes are disjoint */
            used[s->planes[p]][0] = slots[slot].base, used[s->planes[p]][1] = slots[slot].size;
            s->plane[p][s->planes[p]].slot = slot;
            s->plane[p][s->planes[p]++].carried = chance(45);
        }
    }
    bool alternate = chance(30);
    for (size_t l = 0; l < s->launches; ++l)
        s->phase_of[l] = (uint8_t)(alternate ? l % 2 : below(s->phases));
    if (evicting) {
        memset(s->planes, 0, sizeof s->planes);
        evicting_phases(s);
    }
    /* Bodies that start and end with one phase: instances merge across iterations. */
    for (size_t r = 0; r < s->repeats; ++r)
        if (chance(50)) s->phase_of[s->rep[r][0] + s->rep[r][1] - 1] = s->phase_of[s->rep[r][0]];
    if (evicting) place_evicts(s);
    /* References: between cuts outside every repeat, some of them again. */
    size_t cuts[LAUNCHES_MAX + 1], cut_count = 0;
    for (size_t c = 0; c <= s->launches; ++c)
        if (!inside_repeat(s, c)) cuts[cut_count++] = c;
    if (chance(30)) {
        s->ref[s->refs][0] = 0, s->ref[s->refs][1] = s->launches, ++s->refs;
    } else {
        for (size_t r = 1 + below(6); r-- > 0 && s->refs < 10;) {
            size_t a = evicting && !s->refs ? 0 : below(cut_count - 1);
            size_t b = a + 1 + below(cut_count - 1 - a);
            for (size_t copies = chance(30) ? 2 + below(2) : 1; copies-- > 0 && s->refs < 12;)
                s->ref[s->refs][0] = cuts[a], s->ref[s->refs][1] = cuts[b] - cuts[a], ++s->refs;
        }
    }
}

/* Random shapes by default: fewer under the sanitizers (about 5x slower), so their stage runs it. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define DEFAULT_SHAPES 2000
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define DEFAULT_SHAPES 2000
#endif
#endif
#ifndef DEFAULT_SHAPES
#define DEFAULT_SHAPES 10000
#endif

/* ---- The check ------------------------------------------------------------------------------ */

typedef struct tally_t {
    size_t plans, broken, huge, huge_past_128, skipped;
    size_t by_degree[DEPTH_MAX + 1];
} tally_t;

/* The verdict text for k (or certified), 2 + n + k. */
static void verdict_of(bool broken, big_t k, size_t launches, char *text, size_t size) {
    if (!broken) {
        snprintf(text, size, "0");
        return;
    }
    big_t add = big_of(2 + launches);
    big_add(&k, &add);
    big_decimal(k, text, size);
}

static void describe(shape_t const *s) {
    fprintf(stderr, "  launches:");
    for (size_t l = 0; l < s->launches; ++l) fprintf(stderr, " %s", ids[s->phase_of[l]]);
    fprintf(stderr, "\n  repeats:");
    for (size_t r = 0; r < s->repeats; ++r)
        fprintf(stderr, " [%zu,+%zu)", s->rep[r][0], s->rep[r][1]);
    fprintf(stderr, "\n  references:");
    for (size_t r = 0; r < s->refs; ++r) fprintf(stderr, " [%zu,+%zu)", s->ref[r][0], s->ref[r][1]);
    fprintf(stderr, "\n");
    for (size_t p = 0; p < s->phases; ++p) {
        fprintf(stderr, "  %s:", ids[p]);
        for (size_t k = 0; k < s->planes[p]; ++k) {
            slot_t const *slot = &slots[s->plane[p][k].slot];
            fprintf(stderr, " %s@%#" PRIx64 "+%#" PRIx64 "%s", slot->name, slot->base, slot->size,
                    s->plane[p][k].carried ? " carried" : "");
        }
        fprintf(stderr, "\n");
    }
}

/* Fits the shape's k from the naive walker, checks the certifier at small and huge N. Returns
 * the polynomial at 2^63 - 1 through *at_huge when `at_huge` is given. */
static int check_shape(shape_t const *s, char const *what, tally_t *tally, big_t *at_huge) {
    int before = expect_failures_;
    unsigned const points = s->depth + 1 + EXTRA_POINTS;
    u128 k[POINTS_MAX];
    bool broken[POINTS_MAX] = {false};
    /* Small N: the naive walker and the certifier, verdict by verdict (N = 1 too). */
    for (uint64_t n = 1; n < FIT_FIRST + points; ++n) {
        ar_plan_t *plan = build(s, n);
        arp_rule_d_t naive;
        require_true(arp_rule_d_naive(plan, ARP_NAIVE_D_LAUNCH_LIMIT, &naive) ==
                     ar_status_success_k);
        ar_certify_report_t report;
        require_true(ar_certify(plan, NULL, &report) == ar_status_success_k);
        if (report.rule != ar_rule_d_k && report.rule != ar_rule_none_k) { /* not for (D) */
            ar_plan_free(plan);
            ++tally->skipped;
            return 0;
        }
        char want[AR_VERDICT_TEXT_SIZE];
        verdict_of(naive.broken, big_of(naive.instance), s->launches, want, sizeof want);
        expect_str_eq(report.verdict_text, want);
        if (n >= FIT_FIRST) k[n - FIT_FIRST] = naive.instance, broken[n - FIT_FIRST] = naive.broken;
        ar_plan_free(plan);
    }
    for (unsigned i = 1; i < points; ++i) expect_int_eq(broken[i], broken[0]);
    /* The fit from depth + 1 points; the differences past it vanish (degree <= depth), so it
     * predicts the rest. */
    unsigned degree = 0;
    poly_t poly = fit(k, points, &degree);
    if (broken[0]) expect_u64_le(degree, s->depth);
    poly.terms = s->depth + 1;
    for (unsigned i = 0; i < points; ++i) {
        big_t want = big_of(k[i]), got = evaluate(&poly, FIT_FIRST + i);
        expect_true(!big_less(&want, &got) && !big_less(&got, &want));
    }
    /* Huge N: the certifier's exact text against the polynomial. */
    uint64_t const huge[4] = {((uint64_t)1 << 63) - 1, UINT64_MAX,
                              ((uint64_t)1 << 32) + (next_random() >> 1), (uint64_t)1 << 40};
    for (int h = 0; h < 4; ++h) {
        ar_plan_t *plan = build(s, huge[h]);
        ar_certify_report_t report;
        require_true(ar_certify(plan, NULL, &report) == ar_status_success_k);
        big_t value = evaluate(&poly, huge[h]);
        char want[AR_VERDICT_TEXT_SIZE];
        verdict_of(broken[0], value, s->launches, want, sizeof want);
        expect_str_eq(report.verdict_text, want);
        expect_int_eq(report.rule, broken[0] ? ar_rule_d_k : ar_rule_none_k);
        if (h == 0 && at_huge) *at_huge = value;
        if (h == 0 && broken[0] && big_past_128(&value)) ++tally->huge_past_128;
        ar_plan_free(plan);
        ++tally->huge;
    }
    ++tally->plans;
    if (broken[0]) ++tally->broken, ++tally->by_degree[degree];
    if (expect_failures_ != before) {
        fprintf(stderr, "%s: the certifier misses the polynomial\n", what);
        describe(s);
        return 1;
    }
    return 0;
}

/* The phases of the two fixed shapes: p0 declares kv and tmp, p1 carries kv, p2 carries tmp, p3
 * carries nothing, p4 declares act over kv's bytes. */
static shape_t fixed_phases(void) {
    shape_t s = {.phases = 5, .planes = {2, 1, 1, 0, 1}};
    s.plane[0][0].slot = 0, s.plane[0][1].slot = 4;
    s.plane[1][0].slot = 0, s.plane[1][0].carried = true;
    s.plane[2][0].slot = 4, s.plane[2][0].carried = true;
    s.plane[4][0].slot = 3;
    return s;
}

/* Two nested repeats, bodies of 7 and 6 launches whose phases alternate (the outer body starts
 * and ends with p1, so its iterations merge, and so do the references to it), ten references:
 * init, the outer repeat seven times, evict, use. */
static shape_t alternating_two_deep(void) {
    shape_t s = fixed_phases();
    uint8_t const phases[10] = {0, 1, 2, 1, 2, 1, 2, 1, 4, 1};
    s.launches = 10, memcpy(s.phase_of, phases, sizeof phases);
    s.repeats = 2, s.depth = 2;
    s.rep[0][0] = 1, s.rep[0][1] = 7, s.rep[1][0] = 1, s.rep[1][1] = 6;
    s.refs = 10;
    s.ref[0][0] = 0, s.ref[0][1] = 1;
    for (int r = 1; r <= 7; ++r) s.ref[r][0] = 1, s.ref[r][1] = 7;
    s.ref[8][0] = 8, s.ref[8][1] = 1, s.ref[9][0] = 9, s.ref[9][1] = 1;
    return s;
}

/* Three nested repeats whose bodies start and end with p1: [1, 4) = p1 p3 p1, [1, 5) adds p1,
 * [1, 6) adds p1; then evict and use. */
static shape_t same_ends_three_deep(void) {
    shape_t s = fixed_phases();
    uint8_t const phases[8] = {0, 1, 3, 1, 1, 1, 4, 1};
    s.launches = 8, memcpy(s.phase_of, phases, sizeof phases);
    s.repeats = 3, s.depth = 3;
    s.rep[0][0] = 1, s.rep[0][1] = 5, s.rep[1][0] = 1, s.rep[1][1] = 4;
    s.rep[2][0] = 1, s.rep[2][1] = 3;
    s.refs = 1, s.ref[0][0] = 0, s.ref[0][1] = 8;
    return s;
}

static void check_fixed(shape_t const *s, char const *what, tally_t *tally) {
    big_t k = {{0}};
    check_shape(s, what, tally, &k);
    ar_plan_t *plan = build(s, ((uint64_t)1 << 63) - 1);
    ar_certify_report_t report;
    require_true(ar_certify(plan, NULL, &report) == ar_status_success_k);
    char want[AR_VERDICT_TEXT_SIZE];
    verdict_of(true, k, s->launches, want, sizeof want);
    printf("%s, N = 2^63 - 1: verdict %s, the polynomial's %s\n", what, report.verdict_text, want);
    expect_true(big_past_128(&k));
    ar_plan_free(plan);
}

int main(int argc, char **argv) {
    /* `test_rule_d_poly [SEED [COUNT]]`: COUNT random shapes from SEED (default 1, DEFAULT_SHAPES). */
    uint64_t first_seed = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
    uint64_t count = argc > 2 ? strtoull(argv[2], NULL, 0) : DEFAULT_SHAPES;
    tally_t tally = {0};
    shape_t fixed = alternating_two_deep();
    check_fixed(&fixed, "two deep, alternating, ten references", &tally);
    fixed = same_ends_three_deep();
    check_fixed(&fixed, "three deep, bodies ending as they start", &tally);
    int failed = 0;
    for (uint64_t i = 0; i < count && failed < 5; ++i) {
        rng_state = (first_seed + i) * 7919;
        shape_t s;
        random_shape(&s);
        char what[64];
        snprintf(what, sizeof what, "seed %" PRIu64, first_seed + i);
        failed += check_shape(&s, what, &tally, NULL);
    }
    printf("random huge plans: %zu shapes fitted, %zu checked at huge N (%zu break (D), %zu of "
           "them past 2^128 at N = 2^63 - 1; %zu skipped, not for (D))\n",
           tally.plans, tally.huge, tally.broken, tally.huge_past_128, tally.skipped);
    printf("degree of k in N among those that break:");
    for (int d = 0; d <= DEPTH_MAX; ++d) printf(" %d: %zu", d, tally.by_degree[d]);
    printf("\n");
    /* The generator must reach breaks deep in the run and past 2^128, or the check says little. */
    if (count >= 1000) {
        expect_u64_gt(tally.by_degree[2] + tally.by_degree[3], count / 50);
        expect_u64_gt(tally.huge_past_128, count / 200);
    }
    return expect_finish();
}
