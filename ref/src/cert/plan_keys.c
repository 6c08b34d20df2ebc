/* The values' keys, a fact ar_plan_finish derives once for rule D (so certifying a plan again,
 * or walking it again modulo primes, costs nothing here): each plane's key, a distinct
 * (name, base, size) numbered in order of first appearance, and with in-place updates the key
 * of the value each plane leaves (its becomes'), numbered after them. Names are interned, so
 * one text is one pointer: the table hashes and compares pointers, never the text.
 */
#include <stdlib.h>
#include <string.h>

#include "cert/plan_internal.h"

static size_t identity_slot(char const *name, uint64_t base, uint64_t size, size_t mask) {
    uint64_t h = (uint64_t)(uintptr_t)name * 0x9e3779b97f4a7c15ull;
    h = (h ^ (h >> 29) ^ base) * 0xbf58476d1ce4e5b9ull;
    h = (h ^ (h >> 31) ^ size) * 0x94d049bb133111ebull;
    return (size_t)(h ^ (h >> 29)) & mask;
}

void arp_plan_keys_free(struct ar_plan_internals_t *internals) {
    if (internals->leave_key != internals->plane_key) free(internals->leave_key);
    free(internals->plane_key), free(internals->key_plane);
    internals->plane_key = internals->leave_key = NULL, internals->key_plane = NULL;
    internals->keys_count = 0;
}

ar_status_t arp_plan_keys_derive(ar_plan_t *plan) {
    struct ar_plan_internals_t *in = plan->internals;
    arp_plan_keys_free(in);
    size_t p = plan->planes_count, u = plan->updates_count, capacity = 64;
    while (capacity < 2 * (p + u)) capacity *= 2;
    /* slot: key + 1 (0: free); the leaving name of each key, to compare becomes' keys. */
    uint32_t *slots = calloc(capacity, sizeof *slots);
    char const **key_name = malloc((p + u + 1) * sizeof *key_name);
    in->plane_key = malloc((p + 1) * sizeof *in->plane_key);
    in->leave_key = u ? malloc((p + 1) * sizeof *in->leave_key) : in->plane_key;
    in->key_plane = malloc((p + u + 1) * sizeof *in->key_plane);
    if (!slots || !key_name || !in->plane_key || !in->leave_key || !in->key_plane) {
        free(slots), free(key_name);
        arp_plan_keys_free(in);
        return ar_status_out_of_memory_k;
    }
    size_t keys = 0, mask = capacity - 1;
    /* Pass 0: the planes' own values; pass 1: the values updates leave. */
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < p && (pass == 0 || u); ++i) {
            ar_plane_t const *plane = &plan->planes[i];
            if (pass == 1 && !plane->updates) {
                in->leave_key[i] = in->plane_key[i];
                continue;
            }
            char const *name = pass == 0 ? plane->name : plane->becomes;
            size_t at = identity_slot(name, plane->base, plane->size, mask);
            for (;; at = (at + 1) & mask) {
                uint32_t s = slots[at];
                if (!s) break;
                ar_plane_t const *first = &plan->planes[in->key_plane[s - 1]];
                if (key_name[s - 1] == name && first->base == plane->base &&
                    first->size == plane->size)
                    break;
            }
            if (!slots[at]) {
                slots[at] = (uint32_t)keys + 1;
                key_name[keys] = name;
                in->key_plane[keys++] = i;
            }
            (pass == 0 ? in->plane_key : in->leave_key)[i] = (int32_t)(slots[at] - 1);
        }
    }
    in->keys_count = keys;
    free(slots), free(key_name);
    return ar_status_success_k;
}
