/* The validity check, the one judge of every strategy's placement: it sweeps time once (ends
 * before starts at one time, as lifetimes are half-open) and keeps the live byte ranges in a
 * treap ordered by offset, so a new range meets only its two neighbours: O(n log n), where
 * all-pairs checkers (TFLite Micro's, MiniMalloc's validator) are O(n^2). It reads rows: a
 * buffer of several rows is several live ranges, which never meet one another (validation:
 * disjoint lifetimes), at the one offset the check asks of them. Its sweep is its own, apart
 * from the engines' (sweep.c): the judge shares no code with what it judges. */
#include <stdlib.h>
#include <string.h>

#include "place/place_internal.h"

typedef struct event_t {
    uint64_t time;
    uint64_t size; /* signed change of live bytes: start +size, end -size (two's complement) */
    int kind;      /* 0 end, 1 start: ends first at one time */
    size_t buffer;
} event_t;

static int by_event(void const *a, void const *b) {
    event_t const *x = a, *y = b;
    if (x->time != y->time) return x->time < y->time ? -1 : 1;
    if (x->kind != y->kind) return x->kind - y->kind;
    return x->buffer < y->buffer ? -1 : x->buffer > y->buffer;
}

/* Events of the buffers that hold bytes, sorted; NULL when out of memory (count 0: non-NULL). */
static event_t *sorted_events(ar_place_problem_t const *problem, size_t *count) {
    event_t *events = malloc(2 * problem->count * sizeof *events + 1);
    if (!events) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < problem->count; ++i) {
        ar_place_buffer_t const *b = &problem->buffers[i];
        if (!arp_place_holds(b)) continue;
        events[n++] = (event_t){b->lower, b->size, 1, i};
        events[n++] = (event_t){b->upper, b->size, 0, i};
    }
    qsort(events, n, sizeof *events, by_event);
    *count = n;
    return events;
}

/* ---- The treap of live ranges, by offset (node i is buffer i) --------------------------- */

typedef struct treap_t {
    size_t *left, *right;
    uint32_t *priority;
    uint64_t const *key;
    size_t root;
} treap_t;

#define NIL SIZE_MAX

static size_t treap_merge(treap_t *t, size_t a, size_t b) {
    if (a == NIL) return b;
    if (b == NIL) return a;
    if (t->priority[a] > t->priority[b]) {
        t->right[a] = treap_merge(t, t->right[a], b);
        return a;
    }
    t->left[b] = treap_merge(t, a, t->left[b]);
    return b;
}

/* Split into keys < key and keys >= key. */
static void treap_split(treap_t *t, size_t node, uint64_t key, size_t *lo, size_t *hi) {
    if (node == NIL) {
        *lo = *hi = NIL;
    } else if (t->key[node] < key) {
        treap_split(t, t->right[node], key, &t->right[node], hi);
        *lo = node;
    } else {
        treap_split(t, t->left[node], key, lo, &t->left[node]);
        *hi = node;
    }
}

static size_t treap_max(treap_t const *t, size_t node) {
    while (node != NIL && t->right[node] != NIL) node = t->right[node];
    return node;
}

static size_t treap_min(treap_t const *t, size_t node) {
    while (node != NIL && t->left[node] != NIL) node = t->left[node];
    return node;
}

bool arp_place_one_offset(ar_place_problem_t const *problem, uint64_t const *offsets,
                          ar_place_violation_t *violation) {
    size_t n = problem->count, *head = malloc((n + 1) * sizeof *head);
    for (size_t i = 0; head && i < n; ++i) head[i] = SIZE_MAX;
    for (size_t i = 0; i < n; ++i) {
        size_t label = problem->groups[i], first = SIZE_MAX;
        if (!arp_place_holds(&problem->buffers[i])) continue;
        if (head && label < n) {
            first = head[label];
            if (first == SIZE_MAX) head[label] = i;
        } else {
            for (size_t j = 0; j < i && first == SIZE_MAX; ++j)
                if (problem->groups[j] == label && arp_place_holds(&problem->buffers[j])) first = j;
        }
        if (first != SIZE_MAX && offsets[first] != offsets[i]) {
            *violation = (ar_place_violation_t){first, i};
            free(head);
            return false;
        }
    }
    free(head);
    return true;
}

bool ar_place_check(ar_place_problem_t const *problem, uint64_t const *offsets, uint64_t alignment,
                    ar_place_violation_t *violation) {
    ar_place_violation_t none = {SIZE_MAX, SIZE_MAX};
    if (!violation) violation = &none;
    for (size_t i = 0; i < problem->count; ++i) {
        ar_place_buffer_t const *b = &problem->buffers[i];
        if (!arp_place_holds(b)) continue;
        if (offsets[i] % arp_place_alignment(b, alignment) != 0) {
            *violation = (ar_place_violation_t){i, SIZE_MAX};
            return false;
        }
    }
    if (problem->groups && !arp_place_one_offset(problem, offsets, violation)) return false;
    size_t n = 0, count = problem->count;
    event_t *events = sorted_events(problem, &n);
    treap_t t = {malloc((count + 1) * sizeof(size_t)), malloc((count + 1) * sizeof(size_t)),
                 malloc((count + 1) * sizeof(uint32_t)), offsets, NIL};
    bool ok = true;
    if (!events || !t.left || !t.right || !t.priority) {
        /* Out of memory: fall back to all pairs, which needs nothing. */
        for (size_t i = 0; ok && i < count; ++i)
            for (size_t j = i + 1; ok && j < count; ++j) {
                ar_place_buffer_t const *a = &problem->buffers[i], *b = &problem->buffers[j];
                if (arp_place_holds(a) && arp_place_holds(b) && a->lower < b->upper &&
                    b->lower < a->upper && offsets[i] < offsets[j] + b->size &&
                    offsets[j] < offsets[i] + a->size) {
                    *violation = (ar_place_violation_t){i, j};
                    ok = false;
                }
            }
    } else {
        arp_rng_t rng = arp_rng_make(2463534242u); /* priorities: any sequence is correct */
        for (size_t e = 0; ok && e < n; ++e) {
            size_t i = events[e].buffer;
            uint64_t key = offsets[i];
            size_t lo, hi, mid, rest;
            if (events[e].kind == 0) { /* remove i: keys < key | key | > key */
                treap_split(&t, t.root, key, &lo, &hi);
                treap_split(&t, hi, key + 1, &mid, &rest);
                t.root = treap_merge(&t, lo, rest);
                continue;
            }
            treap_split(&t, t.root, key, &lo, &hi);
            size_t below = treap_max(&t, lo), above = treap_min(&t, hi);
            if (below != NIL && offsets[below] + problem->buffers[below].size > key) {
                *violation = (ar_place_violation_t){below < i ? below : i, below < i ? i : below};
                ok = false;
            } else if (above != NIL && offsets[above] < key + problem->buffers[i].size) {
                *violation = (ar_place_violation_t){above < i ? above : i, above < i ? i : above};
                ok = false;
            }
            t.left[i] = t.right[i] = NIL;
            t.priority[i] = (uint32_t)(arp_rng_next(&rng) >> 32);
            t.root = treap_merge(&t, treap_merge(&t, lo, i), hi);
        }
    }
    free(events);
    free(t.left);
    free(t.right);
    free(t.priority);
    return ok;
}
