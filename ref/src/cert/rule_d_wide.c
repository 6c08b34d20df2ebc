/* Rule D's counts past 2^128, exactly. The walker only adds, subtracts and multiplies counts,
 * so it can count modulo any number with the same control flow: walked once modulo 2^128 and
 * once modulo each of enough primes below 2^64, its residues give k, the clobbering instance
 * and the counts by the Chinese remainder theorem, as numbers of any size (limbs of 64 bits).
 * How many primes: enough that their product with 2^128 passes a bound on executed launches,
 * found from the nesting of repeats. Slow only where it is needed: past 2^128.
 */
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

/* Values below 2^WIDE_BITS_MAX have fewer digits than a verdict holds (3 bits < 1 digit); the
 * product of the moduli needs up to two limbs more. */
#define WIDE_BITS_MAX ((AR_VERDICT_TEXT_SIZE - 32) * 3)
#define WIDE_LIMBS (WIDE_BITS_MAX / 64 + 3)

typedef struct wide_t {
    uint64_t limb[WIDE_LIMBS]; /* little-endian */
} wide_t;

static unsigned bit_length(uint64_t x) { return x ? 64u - (unsigned)__builtin_clzll(x) : 0u; }

/* An upper bound, in bits, on the launches the schedule executes: each repeat's body folded
 * into its first launch, innermost first, in bits (a sum of c values below 2^u is below
 * 2^(u + bit_length(c))). */
static ar_status_t executed_bits(ar_plan_t const *plan, unsigned long *bits) {
    size_t n = plan->launches_count, r = plan->repeats_count;
    unsigned long *u = malloc((n + 1) * sizeof *u);
    size_t const *order = plan->repeat_order;
    if (!u) return ar_status_out_of_memory_k;
    for (size_t i = 0; i < n; ++i) u[i] = 1;
    for (size_t q = r; q-- > 0;) {
        ar_repeat_t const *rep = &plan->repeats[order[q]];
        unsigned long body = 0;
        for (size_t i = rep->first; i < rep->first + rep->count; ++i) {
            if (u[i] > body) body = u[i];
            u[i] = 0;
        }
        u[rep->first] = body + bit_length(rep->count) + bit_length(rep->iterations);
    }
    unsigned long most = 0;
    for (size_t i = 0; i < n; ++i)
        if (u[i] > most) most = u[i];
    *bits = most + bit_length(n) + bit_length(plan->schedule_count);
    free(u);
    return ar_status_success_k;
}

static uint64_t mul_mod(uint64_t a, uint64_t b, uint64_t m) {
    return (uint64_t)((arp_u128_t)a * b % m);
}

/* a - b mod m, for a, b < m: m is near 2^64, so a + m - b would wrap. */
static uint64_t sub_mod(uint64_t a, uint64_t b, uint64_t m) { return a >= b ? a - b : a + (m - b); }

static uint64_t pow_mod(uint64_t a, uint64_t e, uint64_t m) {
    uint64_t result = 1 % m;
    for (a %= m; e; e >>= 1, a = mul_mod(a, a, m))
        if (e & 1) result = mul_mod(result, a, m);
    return result;
}

/* Miller-Rabin with bases that decide every 64-bit number. */
static bool is_prime(uint64_t n) {
    static uint64_t const bases[] = {2, 325, 9375, 28178, 450775, 9780504, 1795265022};
    if (n < 2 || n % 2 == 0) return n == 2;
    uint64_t d = n - 1;
    unsigned s = 0;
    while (d % 2 == 0) d /= 2, ++s;
    for (size_t b = 0; b < sizeof bases / sizeof *bases; ++b) {
        uint64_t a = bases[b] % n;
        if (a == 0) continue;
        uint64_t x = pow_mod(a, d, n);
        if (x == 1 || x == n - 1) continue;
        bool composite = true;
        for (unsigned i = 1; i < s && composite; ++i) {
            x = mul_mod(x, x, n);
            if (x == n - 1) composite = false;
        }
        if (composite) return false;
    }
    return true;
}

/* x mod p, for p < 2^64. */
static uint64_t wide_mod(wide_t const *x, uint64_t p) {
    arp_u128_t rest = 0;
    for (size_t i = WIDE_LIMBS; i-- > 0;) rest = ((rest << 64) | x->limb[i]) % p;
    return (uint64_t)rest;
}

/* x += a * y (no overflow: values stay below 2^WIDE_BITS_MAX by the bound). */
static void wide_add_mul(wide_t *x, wide_t const *y, uint64_t a) {
    arp_u128_t carry = 0;
    for (size_t i = 0; i < WIDE_LIMBS; ++i) {
        carry += (arp_u128_t)y->limb[i] * a + x->limb[i];
        x->limb[i] = (uint64_t)carry;
        carry >>= 64;
    }
}

static void wide_decimal(wide_t x, char *text, size_t size) {
    char digits[AR_VERDICT_TEXT_SIZE + 32];
    size_t length = 0;
    uint64_t const chunk = 10000000000000000000ull; /* 10^19 */
    for (;;) {
        bool zero = true;
        arp_u128_t rest = 0;
        for (size_t i = WIDE_LIMBS; i-- > 0;) {
            arp_u128_t cur = (rest << 64) | x.limb[i];
            x.limb[i] = (uint64_t)(cur / chunk);
            rest = cur % chunk;
            zero = zero && x.limb[i] == 0;
        }
        for (int d = 0; d < 19 && length + 1 < sizeof digits; ++d, rest /= 10)
            digits[length++] = (char)('0' + (int)(rest % 10));
        if (zero) break;
    }
    while (length > 1 && digits[length - 1] == '0') --length;
    size_t out = 0;
    while (length > 0 && out + 1 < size) text[out++] = digits[--length];
    if (size > 0) text[out] = '\0';
}

/* The quantities rebuilt: k, the clobbering instance, instances (executed launches are past
 * 2^128 here: they saturated). */
enum { Q_K, Q_J, Q_INSTANCES, Q_COUNT };

static void residues(arp_rule_d_t const *r, arp_u128_t out[Q_COUNT]) {
    out[Q_K] = r->instance, out[Q_J] = r->other_stamp, out[Q_INSTANCES] = r->instances;
}

static arp_u128_t saturate(wide_t const *x) {
    for (size_t i = 2; i < WIDE_LIMBS; ++i)
        if (x->limb[i]) return ARP_U128_MAX;
    return (arp_u128_t)x->limb[1] << 64 | x->limb[0];
}

ar_status_t arp_rule_d_wide(ar_plan_t const *plan, arp_rule_d_t *result) {
    unsigned long bits = 0;
    ar_status_t status = executed_bits(plan, &bits);
    if (status) return status;
    if (bits > WIDE_BITS_MAX) {
        snprintf(result->message, sizeof result->message,
                 "rule D: the plan may execute up to 2^%lu launches, so k could pass the %d "
                 "digits a verdict holds",
                 bits, AR_VERDICT_TEXT_SIZE - 1);
        return ar_status_unsupported_k;
    }
    wide_t *value = calloc(Q_COUNT + 1, sizeof *value);
    if (!value) return ar_status_out_of_memory_k;
    wide_t *product = &value[Q_COUNT]; /* of the moduli so far */
    status = arp_rule_d_walk(plan, 0, true, result);
    if (status) goto out;
    arp_u128_t r[Q_COUNT];
    residues(result, r);
    for (int q = 0; q < Q_COUNT; ++q)
        value[q].limb[0] = (uint64_t)r[q], value[q].limb[1] = (uint64_t)(r[q] >> 64);
    product->limb[2] = 1; /* 2^128 */
    arp_rule_d_t *scratch = malloc(sizeof *scratch);
    if (!scratch) {
        status = ar_status_out_of_memory_k;
        goto out;
    }
    unsigned long covered = 128;
    for (uint64_t p = UINT64_MAX; covered <= bits; p -= 2) {
        if (!is_prime(p)) continue;
        status = arp_rule_d_walk(plan, p, false, scratch);
        if (status) break;
        residues(scratch, r);
        /* Garner's step: value += product * ((r - value) / product mod p). */
        uint64_t inverse = pow_mod(wide_mod(product, p), p - 2, p);
        for (int q = 0; q < Q_COUNT; ++q) {
            uint64_t have = wide_mod(&value[q], p), want = (uint64_t)(r[q] % p);
            uint64_t t = mul_mod(sub_mod(want, have, p), inverse, p);
            wide_add_mul(&value[q], product, t);
        }
        wide_t next = {{0}};
        wide_add_mul(&next, product, p);
        *product = next;
        covered += 63;
    }
    free(scratch);
    if (status) goto out;
    result->instance = saturate(&value[Q_K]);
    result->other_stamp = saturate(&value[Q_J]);
    result->instances = saturate(&value[Q_INSTANCES]);
    result->executed_launches = ARP_U128_MAX;
    if (result->broken) {
        char j_text[AR_VERDICT_TEXT_SIZE];
        wide_decimal(value[Q_K], result->instance_text, sizeof result->instance_text);
        wide_decimal(value[Q_J], j_text, sizeof j_text);
        arp_rule_d_message(plan, result, result->instance_text, j_text);
    }
out:
    free(value);
    return status;
}
