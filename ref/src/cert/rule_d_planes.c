/* Rule D's view of planes, shared by its walker and its naive twin: each plane's elementary
 * intervals (the sorted distinct plane endpoints cut the address space into cells), keys (a
 * distinct (name, base, size) each: the naive twin's, hashing the text, where the walker reads
 * finish's from plan_keys.c), and the diagnostic of a carried plane that breaks D.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

/* Sorts in place: insertion sort (comparisons inline) for the few endpoints of a small plan
 * (compress_many sorts the rest). */
static void sort_u128(arp_u128_t *values, size_t count) {
    for (size_t i = 1; i < count; ++i) {
        arp_u128_t value = values[i];
        size_t j = i;
        for (; j > 0 && values[j - 1] > value; --j) values[j] = values[j - 1];
        values[j] = value;
    }
}

/* A value's identity (name, base, size) hashed: FNV-1a over the name, then mixed. */
static uint64_t identity_hash(char const *name, uint64_t base, uint64_t size) {
    uint64_t h = 1469598103934665603ull;
    for (char const *c = name ? name : ""; *c; ++c) h = (h ^ (unsigned char)*c) * 1099511628211ull;
    h = (h ^ base) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 31) ^ size) * 0x94d049bb133111ebull;
    return h ^ (h >> 29);
}

void arp_cert_describe_plane(ar_plane_t const *plane, char *text, size_t size) {
    arp_cert_describe_range(plane->name, plane->base, (arp_u128_t)plane->base + plane->size, text,
                            size);
}

bool arp_cert_same_plane(ar_plane_t const *a, ar_plane_t const *b) {
    return a->base == b->base && a->size == b->size &&
           strcmp(a->name ? a->name : "", b->name ? b->name : "") == 0;
}

/* Radix-sorts `count` keys on bits [low, low + bits) (digits of at most 11 bits), from `a`
 * through `b` (as long); returns the array holding the result. */
static uint64_t *radix_sort(uint64_t *a, uint64_t *b, size_t count, int low, int bits) {
    int passes = (bits + 10) / 11, width = passes ? (bits + passes - 1) / passes : 0;
    uint32_t counts[1 << 11];
    for (int pass = 0; pass < passes; ++pass) {
        int shift = low + pass * width;
        uint64_t digit_mask = ((uint64_t)1 << width) - 1;
        memset(counts, 0, ((size_t)1 << width) * sizeof *counts);
        for (size_t i = 0; i < count; ++i) ++counts[(a[i] >> shift) & digit_mask];
        uint32_t at = 0;
        for (size_t d = 0; d <= digit_mask; ++d) {
            uint32_t c = counts[d];
            counts[d] = at, at += c;
        }
        for (size_t i = 0; i < count; ++i) b[counts[(a[i] >> shift) & digit_mask]++] = a[i];
        uint64_t *t = a;
        a = b, b = t;
    }
    return a;
}

/* Many endpoints: each tagged with its key and end (2k base, 2k + 1 end), sorted by a radix
 * sort, those at 2^64 last; then one walk gives the unique endpoints and each key's range
 * (key k's first cell at key_cell[k], its end at key_cell[keys_count + k]).
 * Endpoints share their high bytes and, aligned, their low bits: what lies between, offset
 * from the least endpoint, is what is sorted on, packed with its tag into one word (when it
 * fits 32 bits: an arena under 4 GiB at its alignment), else beside it. Returns false out of
 * memory. */
static bool compress_many(ar_plan_t const *plan, size_t const *key_plane, size_t keys_count,
                          arp_u128_t *coords, size_t *unique_out, uint32_t *key_cell) {
    size_t n = 2 * keys_count;
    uint64_t *value = malloc(2 * n * sizeof *value);
    uint32_t *tag = malloc(2 * n * sizeof *tag);
    uint32_t *tops = malloc((keys_count + 1) * sizeof *tops);
    if (!value || !tag || !tops) {
        free(value), free(tag), free(tops);
        return false;
    }
    size_t m = 0, top = 0; /* endpoints below 2^64; those at 2^64 are tagged from the end */
    uint64_t differ = 0;   /* the bits in which some endpoint differs from the first */
    uint64_t least = UINT64_MAX, most = 0;
    for (size_t k = 0; k < keys_count; ++k) {
        ar_plane_t const *plane = &plan->planes[key_plane[k]];
        arp_u128_t end = (arp_u128_t)plane->base + plane->size;
        value[m] = plane->base, tag[m++] = (uint32_t)(2 * k);
        if (end >> 64)
            tops[top++] = (uint32_t)(2 * k + 1);
        else
            value[m] = (uint64_t)end, tag[m++] = (uint32_t)(2 * k + 1);
        differ |= (value[m - 1] ^ value[0]) | (plane->base ^ value[0]);
        least = plane->base < least ? plane->base : least;
        most = value[m - 1] > most ? value[m - 1] : most;
    }
    int low = differ ? __builtin_ctzll(differ) : 0;
    uint64_t span = m ? (most - least) >> low : 0;
    bool packed = span < ((uint64_t)1 << 32);
    uint64_t *v = value, *v2 = value + n;
    uint32_t *t = tag, *t2 = tag + n;
    if (packed) { /* (offset >> low) << 32 | tag, sorted on the offset's bits */
        for (size_t i = 0; i < m; ++i) v2[i] = ((value[i] - least) >> low) << 32 | tag[i];
        int bits = span ? 64 - __builtin_clzll(span) : 0;
        v = radix_sort(v2, value, m, 32, bits);
    } else {
        for (int b = 0; b < 8; ++b) {
            if (!(differ >> (8 * b) & 255)) continue; /* one digit: the order stands */
            uint32_t counts[256] = {0};
            for (size_t i = 0; i < m; ++i) ++counts[(v[i] >> (8 * b)) & 255];
            uint32_t at = 0;
            for (int d = 0; d < 256; ++d) {
                uint32_t c = counts[d];
                counts[d] = at, at += c;
            }
            for (size_t i = 0; i < m; ++i) {
                uint32_t to = counts[(v[i] >> (8 * b)) & 255]++;
                v2[to] = v[i], t2[to] = t[i];
            }
            uint64_t *sv = v;
            uint32_t *st = t;
            v = v2, t = t2, v2 = sv, t2 = st;
        }
    }
    size_t unique = 0;
    if (packed) { /* the offsets compared, one word each; tag 2k + e goes to key k's lo or hi */
        uint64_t last = UINT64_MAX; /* no offset (below 2^32) */
        for (size_t i = 0; i < m; ++i) {
            uint64_t offset = v[i] >> 32;
            if (offset != last) coords[unique++] = least + (offset << low), last = offset;
            uint32_t which = (uint32_t)v[i];
            key_cell[(which & 1) * keys_count + which / 2] = (uint32_t)(unique - 1);
        }
    }
    for (size_t i = packed ? m : 0; i < n; ++i) {
        bool past = i >= m; /* at 2^64 */
        arp_u128_t c = past ? (arp_u128_t)1 << 64 : v[i];
        uint32_t which = past ? tops[i - m] : t[i];
        if (!unique || coords[unique - 1] != c) coords[unique++] = c;
        key_cell[(which & 1) * keys_count + which / 2] = (uint32_t)(unique - 1);
    }
    *unique_out = unique;
    free(value), free(tag), free(tops);
    return true;
}

/* Sorted unique endpoints of every key's plane, and each plane's elementary index range (its
 * key's: planes of one key have one range). */
ar_status_t arp_cert_compress(ar_plan_t const *plan, int32_t const *plane_key,
                              size_t const *key_plane, size_t keys_count, arp_u128_t **coords_out,
                              size_t *count_out, uint32_t **lo_out, uint32_t **hi_out) {
    size_t p = plan->planes_count;
    arp_u128_t *coords = malloc((2 * keys_count + 1) * sizeof *coords);
    uint32_t *lo = malloc((p + 1) * sizeof *lo), *hi = malloc((p + 1) * sizeof *hi);
    if (!coords || !lo || !hi) {
        free(coords), free(lo), free(hi);
        return ar_status_out_of_memory_k;
    }
    if (2 * keys_count > 64) {
        uint32_t *key_lo = malloc((2 * keys_count + 1) * sizeof *key_lo);
        size_t unique = 0;
        bool ok = key_lo && compress_many(plan, key_plane, keys_count, coords, &unique, key_lo);
        if (ok)
            for (size_t i = 0; i < p; ++i)
                lo[i] = key_lo[plane_key[i]], hi[i] = key_lo[keys_count + (size_t)plane_key[i]];
        free(key_lo);
        if (!ok) {
            free(coords), free(lo), free(hi);
            return ar_status_out_of_memory_k;
        }
        *coords_out = coords, *count_out = unique, *lo_out = lo, *hi_out = hi;
        return ar_status_success_k;
    }
    for (size_t k = 0; k < keys_count; ++k) {
        ar_plane_t const *plane = &plan->planes[key_plane[k]];
        coords[2 * k] = plane->base;
        coords[2 * k + 1] = (arp_u128_t)plane->base + plane->size;
    }
    sort_u128(coords, 2 * keys_count);
    size_t unique = 0;
    for (size_t i = 0; i < 2 * keys_count; ++i)
        if (!unique || coords[unique - 1] != coords[i]) coords[unique++] = coords[i];
    for (size_t i = 0; i < p; ++i) {
        size_t first = key_plane[plane_key[i]];
        if (first < i) { /* a plane of this key came before: its range */
            lo[i] = lo[first], hi[i] = hi[first];
            continue;
        }
        arp_u128_t targets[2] = {plan->planes[i].base,
                                 (arp_u128_t)plan->planes[i].base + plan->planes[i].size};
        uint32_t found[2];
        for (int t = 0; t < 2; ++t) {
            size_t left = 0, right = unique;
            while (left < right) {
                size_t middle = left + (right - left) / 2;
                if (coords[middle] < targets[t])
                    left = middle + 1;
                else
                    right = middle;
            }
            found[t] = (uint32_t)left;
        }
        lo[i] = found[0], hi[i] = found[1];
    }
    *coords_out = coords, *count_out = unique, *lo_out = lo, *hi_out = hi;
    return ar_status_success_k;
}

/* The name a plane leaves over its bytes: its `becomes` when it updates in place. */
char const *arp_cert_leaves_name(ar_plane_t const *plane) {
    return plane->updates ? plane->becomes : plane->name;
}

/* Key k's identity: its first plane's, or (from_becomes[k]) the value that plane leaves. */
static bool key_is(ar_plan_t const *plan, size_t const *key_plane, bool const *from_becomes,
                   size_t k, char const *name, uint64_t base, uint64_t size) {
    ar_plane_t const *plane = &plan->planes[key_plane[k]];
    char const *own = from_becomes && from_becomes[k] ? plane->becomes : plane->name;
    return plane->base == base && plane->size == size &&
           strcmp(own ? own : "", name ? name : "") == 0;
}

/* Each plane's key (distinct name, base and size, numbered in order of first appearance) into
 * plane_key, and the first plane of each key into key_plane; with leave_key (plans with
 * updates), the key of the value each plane leaves (its becomes, same base and size), numbered
 * after the planes' keys, its key_plane the updating plane. The number of keys goes to
 * *keys_count. An open-addressing table of key numbers, on the stack for a small plan. */
ar_status_t arp_cert_plane_keys(ar_plan_t const *plan, int32_t *plane_key, size_t *key_plane,
                                int32_t *leave_key, size_t *keys_count) {
    size_t p = plan->planes_count, u = leave_key ? plan->updates_count : 0, capacity = 256;
    while (capacity < 2 * (p + u)) capacity *= 2;
    uint32_t small[256], *slots = capacity == 256 ? small : malloc(capacity * sizeof *slots);
    bool *from_becomes = u ? calloc(p + u + 1, sizeof *from_becomes) : NULL;
    if (!slots || (u && !from_becomes)) {
        if (slots != small) free(slots);
        free(from_becomes);
        return ar_status_out_of_memory_k;
    }
    memset(slots, 0xff, capacity * sizeof *slots); /* UINT32_MAX: free */
    size_t keys = 0, mask = capacity - 1;
    for (size_t i = 0; i < p; ++i) {
        ar_plane_t const *plane = &plan->planes[i];
        size_t at = (size_t)identity_hash(plane->name, plane->base, plane->size) & mask;
        while (slots[at] != UINT32_MAX &&
               !arp_cert_same_plane(&plan->planes[key_plane[slots[at]]], plane))
            at = (at + 1) & mask;
        if (slots[at] == UINT32_MAX) {
            slots[at] = (uint32_t)keys;
            key_plane[keys++] = i;
        }
        plane_key[i] = (int32_t)slots[at];
    }
    for (size_t i = 0; i < p && u; ++i) { /* the values updates leave */
        ar_plane_t const *plane = &plan->planes[i];
        if (!plane->updates) {
            leave_key[i] = plane_key[i];
            continue;
        }
        size_t at = (size_t)identity_hash(plane->becomes, plane->base, plane->size) & mask;
        while (slots[at] != UINT32_MAX && !key_is(plan, key_plane, from_becomes, slots[at],
                                                  plane->becomes, plane->base, plane->size))
            at = (at + 1) & mask;
        if (slots[at] == UINT32_MAX) {
            slots[at] = (uint32_t)keys;
            from_becomes[keys] = true;
            key_plane[keys++] = i;
        }
        leave_key[i] = (int32_t)slots[at];
    }
    *keys_count = keys;
    if (slots != small) free(slots);
    free(from_becomes);
    return ar_status_success_k;
}

/* `LIST[i] [lo, hi) (offset 0x…, size 0x…)` for range `r` of plane `c` (SIZE_MAX: the whole
 * plane, for writes that are absent). */
static void describe_access(ar_plan_t const *plan, ar_plane_t const *c, size_t r, bool writes,
                            char *text, size_t size) {
    ar_plane_access_t const *access = &plan->plane_access[c - plan->planes];
    ar_plane_range_t range = r == SIZE_MAX ? (ar_plane_range_t){0, c->size} : plan->plane_ranges[r];
    char end[40];
    arp_u128_hex((arp_u128_t)c->base + range.offset + range.size, end, sizeof end);
    char which[48];
    if (r == SIZE_MAX)
        snprintf(which, sizeof which, "writes (absent: the whole plane)");
    else
        snprintf(which, sizeof which, "%s[%zu]", writes ? "writes" : "reads",
                 r - (writes ? access->writes_first : access->reads_first));
    snprintf(text, size, "%s [0x%" PRIx64 ", %s) (offset 0x%" PRIx64 ", size 0x%" PRIx64 ")", which,
             c->base + range.offset, end, range.offset, range.size);
}

/* The diagnostic of an update that reads across elements bytes it writes. */
static void cross_message(ar_plan_t const *plan, arp_rule_d_t *result, char const *k_text) {
    ar_plane_t const *c = &plan->planes[result->plane];
    char c_text[200], read_text[160], write_text[160], shared_text[40];
    arp_cert_describe_plane(c, c_text, sizeof c_text);
    describe_access(plan, c, result->read, false, read_text, sizeof read_text);
    describe_access(plan, c, result->write, true, write_text, sizeof write_text);
    ar_plane_range_t r = plan->plane_ranges[result->read];
    ar_plane_range_t w = result->write == SIZE_MAX ? (ar_plane_range_t){0, c->size}
                                                   : plan->plane_ranges[result->write];
    uint64_t lo = r.offset > w.offset ? r.offset : w.offset;
    arp_u128_t hi = (arp_u128_t)r.offset + r.size < (arp_u128_t)w.offset + w.size
                        ? (arp_u128_t)r.offset + r.size
                        : (arp_u128_t)w.offset + w.size;
    arp_u128_hex((arp_u128_t)c->base + hi, shared_text, sizeof shared_text);
    char const *pid = plan->phases[result->phase].id ? plan->phases[result->phase].id : "";
    snprintf(result->message, sizeof result->message,
             "rule D: instance %s (phase \"%s\") updates %s in place into \"%s\" and reads across "
             "elements bytes it overwrites: %s shares [0x%" PRIx64 ", %s) with %s",
             k_text, pid, c_text, c->becomes ? c->becomes : "", read_text, c->base + lo,
             shared_text, write_text);
}

void arp_rule_d_message(ar_plan_t const *plan, arp_rule_d_t *result, char const *k_text,
                        char const *j_text) {
    if (result->cross) {
        cross_message(plan, result, k_text);
        return;
    }
    char c_text[200], other_text[200] = "", when[96 + AR_VERDICT_TEXT_SIZE] = "";
    ar_plane_t const *c = &plan->planes[result->plane];
    ar_plane_t const *other =
        result->other_plane != SIZE_MAX ? &plan->planes[result->other_plane] : NULL;
    arp_cert_describe_plane(c, c_text, sizeof c_text);
    char const *pid = plan->phases[result->phase].id ? plan->phases[result->phase].id : "";
    int64_t op = result->other_phase;
    char const *other_pid = op >= 0 && plan->phases[op].id ? plan->phases[op].id : "";
    if (other) {
        arp_cert_describe_range(arp_cert_leaves_name(other), other->base,
                                (arp_u128_t)other->base + other->size, other_text,
                                sizeof other_text);
        snprintf(when, sizeof when, " by instance %s (phase \"%s\")", j_text, other_pid);
    }
    /* A phase that updates c's value in place into the value now there, when the last to
     * declare it was not that update (a reader carried it on since). */
    size_t updater = SIZE_MAX;
    for (size_t q = 0; other && !(other->updates && arp_cert_same_plane(other, c)) &&
                       updater == SIZE_MAX && q < plan->phases_count;
         ++q) {
        ar_phase_t const *phase = &plan->phases[q];
        for (size_t i = phase->planes_first; i < phase->planes_first + phase->planes_count; ++i) {
            ar_plane_t const *u = &plan->planes[i];
            if (u->updates && arp_cert_same_plane(u, c) && u->base == other->base &&
                u->size == other->size && strcmp(u->becomes, arp_cert_leaves_name(other)) == 0)
                updater = q;
        }
    }
    if (other && other->updates && arp_cert_same_plane(other, c))
        snprintf(result->message, sizeof result->message,
                 "rule D: instance %s (phase \"%s\") carries %s, which instance %s (phase \"%s\") "
                 "updated in place into \"%s\"",
                 k_text, pid, c_text, j_text, other_pid, other->becomes);
    else if (updater != SIZE_MAX)
        snprintf(result->message, sizeof result->message,
                 "rule D: instance %s (phase \"%s\") carries %s, which phase \"%s\" updated in "
                 "place into \"%s\" (declared over its bytes last%s)",
                 k_text, pid, c_text, plan->phases[updater].id, arp_cert_leaves_name(other), when);
    else if (!result->plane_declared && !other)
        snprintf(result->message, sizeof result->message,
                 "rule D: instance %s (phase \"%s\") starts with carried plane %s, which no "
                 "earlier instance declared",
                 k_text, pid, c_text);
    else if (!result->plane_declared)
        snprintf(result->message, sizeof result->message,
                 "rule D: instance %s (phase \"%s\") starts with carried plane %s, which no "
                 "earlier instance declared with that name, base and size (its bytes were last "
                 "declared as plane %s%s)",
                 k_text, pid, c_text, other_text, when);
    else
        snprintf(result->message, sizeof result->message,
                 "rule D: instance %s (phase \"%s\") starts with carried plane %s, but plane %s "
                 "was declared over its bytes since, last%s",
                 k_text, pid, c_text, other_text, when);
}
