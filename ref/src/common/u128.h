/* 128-bit unsigned counts: saturating arithmetic and decimal and hex text. Executed launches
 * and phase instances outgrow 64 bits long before they outgrow 128, so the certificate and the
 * workload generators count in 128 bits and saturate only past that. Header-only: nothing here
 * is a symbol of the libraries. */
#ifndef ARENAREF_U128_H
#define ARENAREF_U128_H

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef unsigned __int128 arp_u128_t;
#define ARP_U128_MAX (~(arp_u128_t)0)
#define ARP_TWO_64 ((arp_u128_t)1 << 64)

static inline arp_u128_t arp_u128_add_sat(arp_u128_t a, arp_u128_t b) {
    arp_u128_t s = a + b;
    return s < a ? ARP_U128_MAX : s;
}

static inline arp_u128_t arp_u128_mul_sat(arp_u128_t a, arp_u128_t b) {
    if (!(a >> 64) && !(b >> 64)) return a * b; /* fits: no 128-bit division on the hot path */
    if (a == 0 || b == 0) return 0;
    if (a > ARP_U128_MAX / b) return ARP_U128_MAX;
    return a * b;
}

static inline uint64_t arp_u128_to_u64_sat(arp_u128_t a) {
    return a > UINT64_MAX ? UINT64_MAX : (uint64_t)a;
}

/* Decimal text of `value` (up to 39 digits) into `text`, truncated to `size`. */
static inline void arp_u128_decimal(arp_u128_t value, char *text, size_t size) {
    char digits[40];
    size_t length = 0;
    do {
        digits[length++] = (char)('0' + (int)(value % 10));
        value /= 10;
    } while (value != 0);
    size_t out = 0;
    while (length > 0 && out + 1 < size) text[out++] = digits[--length];
    if (size > 0) text[out] = '\0';
}

/* "0x…" text of `value` into `text` (36 bytes hold any value). */
static inline void arp_u128_hex(arp_u128_t value, char *text, size_t size) {
    if (value >> 64)
        snprintf(text, size, "0x%" PRIx64 "%016" PRIx64, (uint64_t)(value >> 64), (uint64_t)value);
    else
        snprintf(text, size, "0x%" PRIx64, (uint64_t)value);
}

#endif
