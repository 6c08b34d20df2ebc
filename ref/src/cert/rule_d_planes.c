/* Rule D's view of planes, shared by its walker and its naive twin: each plane's elementary
 * intervals (the sorted distinct plane endpoints cut the address space into cells), keys (a
 * distinct (name, base, size) each), and the diagnostic of a carried plane that breaks D.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

typedef struct plane_key_t {
    char const *name;
    uint64_t base, size;
    size_t index;
} plane_key_t;

static int compare_plane_keys(void const *a, void const *b) {
    plane_key_t const *x = a, *y = b;
    int c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
    if (c) return c;
    if (x->base != y->base) return x->base < y->base ? -1 : 1;
    if (x->size != y->size) return x->size < y->size ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int compare_u128(void const *a, void const *b) {
    arp_u128_t x = *(arp_u128_t const *)a, y = *(arp_u128_t const *)b;
    return x < y ? -1 : x > y;
}

/* Repeat indices sorted by (first ascending, count descending): outer before inner. */

void arp_cert_describe_plane(ar_plane_t const *plane, char *text, size_t size) {
    char end[40];
    arp_u128_hex((arp_u128_t)plane->base + plane->size, end, sizeof end);
    snprintf(text, size, "\"%s\" [0x%" PRIx64 ", %s)", plane->name ? plane->name : "", plane->base,
             end);
}

bool arp_cert_same_plane(ar_plane_t const *a, ar_plane_t const *b) {
    return a->base == b->base && a->size == b->size &&
           strcmp(a->name ? a->name : "", b->name ? b->name : "") == 0;
}

/* Sorted unique endpoints of every plane, and each plane's elementary index range. */
ar_status_t arp_cert_compress(ar_plan_t const *plan, arp_u128_t **coords_out, size_t *count_out,
                              uint32_t **lo_out, uint32_t **hi_out) {
    size_t p = plan->planes_count;
    arp_u128_t *coords = malloc((2 * p + 1) * sizeof *coords);
    uint32_t *lo = malloc((p + 1) * sizeof *lo), *hi = malloc((p + 1) * sizeof *hi);
    if (!coords || !lo || !hi) {
        free(coords), free(lo), free(hi);
        return ar_status_out_of_memory_k;
    }
    for (size_t i = 0; i < p; ++i) {
        coords[2 * i] = plan->planes[i].base;
        coords[2 * i + 1] = (arp_u128_t)plan->planes[i].base + plan->planes[i].size;
    }
    qsort(coords, 2 * p, sizeof *coords, compare_u128);
    size_t unique = 0;
    for (size_t i = 0; i < 2 * p; ++i)
        if (!unique || coords[unique - 1] != coords[i]) coords[unique++] = coords[i];
    for (size_t i = 0; i < p; ++i) {
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

/* Each plane's key (distinct name, base and size, numbered in identity order) into plane_key,
 * and a plane of each key into key_plane; the number of keys goes to *keys_count. */
ar_status_t arp_cert_plane_keys(ar_plan_t const *plan, int32_t *plane_key, size_t *key_plane,
                                size_t *keys_count) {
    size_t p = plan->planes_count;
    plane_key_t *by_identity = malloc((p + 1) * sizeof *by_identity);
    if (!by_identity) return ar_status_out_of_memory_k;
    for (size_t i = 0; i < p; ++i)
        by_identity[i] =
            (plane_key_t){plan->planes[i].name, plan->planes[i].base, plan->planes[i].size, i};
    qsort(by_identity, p, sizeof *by_identity, compare_plane_keys);
    *keys_count = 0;
    for (size_t i = 0; i < p; ++i) {
        if (i == 0 || !arp_cert_same_plane(&plan->planes[by_identity[i - 1].index],
                                           &plan->planes[by_identity[i].index]))
            key_plane[(*keys_count)++] = by_identity[i].index;
        plane_key[by_identity[i].index] = (int32_t)(*keys_count - 1);
    }
    free(by_identity);
    return ar_status_success_k;
}

void arp_rule_d_message(ar_plan_t const *plan, arp_rule_d_t *result, char const *k_text,
                        char const *j_text) {
    char c_text[200], other_text[200] = "", when[96 + AR_VERDICT_TEXT_SIZE] = "";
    arp_cert_describe_plane(&plan->planes[result->plane], c_text, sizeof c_text);
    if (result->other_plane != SIZE_MAX) {
        arp_cert_describe_plane(&plan->planes[result->other_plane], other_text, sizeof other_text);
        int64_t op = result->other_phase;
        snprintf(when, sizeof when, " by instance %s (phase \"%s\")", j_text,
                 op >= 0 ? plan->phases[op].id : "");
    }
    char const *pid = plan->phases[result->phase].id ? plan->phases[result->phase].id : "";
    if (!result->plane_declared && result->other_plane == SIZE_MAX)
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
