/* The placement problem: strategy names, validation, the max-live bound, the height, the
 * validity check, and ar_place, which validates and hands the problem to a strategy. The check
 * sweeps time once (ends before starts at one time, as lifetimes are half-open) and keeps the
 * live byte ranges in a treap ordered by offset, so a new range meets only its two neighbours:
 * O(n log n), where all-pairs checkers (TFLite Micro's, MiniMalloc's validator) are O(n^2).
 * Everything here reads rows: a buffer of several rows is several live ranges, which never
 * meet one another (validation: disjoint lifetimes), at the one offset the check asks of them. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "place/place_internal.h"

static char const *const strategy_names[ar_place_strategy_count_k] = {
    "greedy-by-size", "greedy-by-breadth", "first-fit", "best-fit", "search", "lns",
};

char const *ar_place_strategy_name(ar_place_strategy_t strategy) {
    return (unsigned)strategy < ar_place_strategy_count_k ? strategy_names[strategy] : NULL;
}

bool ar_place_strategy_from_name(char const *name, ar_place_strategy_t *strategy) {
    for (int s = 0; name && s < ar_place_strategy_count_k; ++s)
        if (strcmp(name, strategy_names[s]) == 0) {
            *strategy = (ar_place_strategy_t)s;
            return true;
        }
    return false;
}

void ar_place_options_default(ar_place_options_t *options) {
    memset(options, 0, sizeof *options);
    options->strategy = ar_place_greedy_by_size_k;
    options->time_limit_s = AR_PLACE_TIME_LIMIT_DEFAULT;
}

/* The calling thread's ar_place reads a tick clock when its options ask for one. */
static _Thread_local double arp_tick_s, arp_ticks_now;

double arp_place_now(void) {
    if (arp_tick_s > 0) return arp_ticks_now += arp_tick_s;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool power_of_two(uint64_t value) { return value && !(value & (value - 1)); }

bool arp_place_rows_valid(ar_place_problem_t const *problem, char *message, size_t size) {
    if (!problem || (problem->count && !problem->buffers)) {
        snprintf(message, size, "no problem (NULL buffers)");
        return false;
    }
    for (size_t i = 0; i < problem->count; ++i) {
        ar_place_buffer_t const *b = &problem->buffers[i];
        char const *why = NULL;
        if (b->lower > b->upper)
            why = "lower > upper";
        else if (b->upper >= AR_PLACE_MAX_TIME)
            why = "a time at or past 2^63";
        else if (b->size >= AR_PLACE_MAX_BYTES)
            why = "a size at or past 2^56";
        else if (b->alignment >= AR_PLACE_MAX_BYTES)
            why = "an alignment at or past 2^56";
        else if (b->alignment > 1 && !power_of_two(b->alignment))
            why = "an alignment that is not a power of two";
        if (why) {
            snprintf(message, size, "buffer %zu: %s", i, why);
            return false;
        }
    }
    return true;
}

bool ar_place_problem_valid(ar_place_problem_t const *problem, char *message, size_t size) {
    if (!arp_place_rows_valid(problem, message, size)) return false;
    if (!problem->groups) return true;
    arp_place_groups_t groups;
    if (arp_place_groups_make(problem, &groups, message, size) != ar_status_success_k) return false;
    arp_place_groups_free(&groups);
    return true;
}

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

uint64_t ar_place_lower_bound(ar_place_problem_t const *problem) {
    size_t n = 0;
    event_t *events = sorted_events(problem, &n);
    if (!events) return 0;
    uint64_t live = 0, best = 0;
    for (size_t e = 0; e < n; ++e) {
        if (events[e].kind)
            live += events[e].size;
        else
            live -= events[e].size;
        if (live > best) best = live;
    }
    free(events);
    return best;
}

uint64_t ar_place_height(ar_place_problem_t const *problem, uint64_t const *offsets) {
    uint64_t height = 0;
    for (size_t i = 0; i < problem->count; ++i)
        if (arp_place_holds(&problem->buffers[i]) && offsets[i] + problem->buffers[i].size > height)
            height = offsets[i] + problem->buffers[i].size;
    return height;
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
        uint32_t seed = 2463534242u;
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
            seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
            t.left[i] = t.right[i] = NIL;
            t.priority[i] = seed;
            t.root = treap_merge(&t, treap_merge(&t, lo, i), hi);
        }
    }
    free(events);
    free(t.left);
    free(t.right);
    free(t.priority);
    return ok;
}

ar_status_t ar_place(ar_place_problem_t const *problem, ar_place_options_t const *options,
                     uint64_t *offsets, ar_place_result_t *result) {
    ar_place_result_t ignored;
    if (!result) result = &ignored;
    memset(result, 0, sizeof *result);
    ar_place_options_t defaults;
    if (!options) {
        ar_place_options_default(&defaults);
        options = &defaults;
    }
    if (!problem || (problem->count && !offsets)) {
        snprintf(result->message, sizeof result->message, "no problem or no offsets array");
        return ar_status_invalid_argument_k;
    }
    if ((unsigned)options->strategy >= ar_place_strategy_count_k) {
        snprintf(result->message, sizeof result->message, "unknown strategy %d",
                 (int)options->strategy);
        return ar_status_invalid_argument_k;
    }
    if (options->alignment > 1 &&
        (!power_of_two(options->alignment) || options->alignment >= AR_PLACE_MAX_BYTES)) {
        snprintf(result->message, sizeof result->message,
                 "the alignment floor %llu is not a power of two below 2^56",
                 (unsigned long long)options->alignment);
        return ar_status_invalid_argument_k;
    }
    if (!arp_place_rows_valid(problem, result->message, sizeof result->message))
        return ar_status_invalid_argument_k;
    arp_tick_s = options->clock_tick_s > 0 ? options->clock_tick_s : 0;
    arp_ticks_now = 0;
    double start = arp_place_now();
    arp_place_groups_t groups; /* gathering them checks them: once per call */
    ar_status_t status =
        arp_place_groups_make(problem, &groups, result->message, sizeof result->message);
    if (status != ar_status_success_k) {
        arp_tick_s = 0;
        return status;
    }
    if (options->strategy == ar_place_search_k) {
        status = arp_place_search(problem, &groups, options, offsets, result);
    } else if (options->strategy == ar_place_lns_k) {
        status = arp_place_lns(problem, &groups, options, offsets, result);
    } else {
        status =
            arp_place_heuristic(problem, &groups, options->strategy, options->alignment, offsets);
        if (status == ar_status_success_k) result->height = ar_place_height(problem, offsets);
    }
    arp_place_groups_free(&groups);
    double end = arp_place_now();
    arp_tick_s = 0;
    if (status == ar_status_out_of_memory_k)
        snprintf(result->message, sizeof result->message, "out of memory");
    if (status != ar_status_success_k) return status;
    result->lower_bound = ar_place_lower_bound(problem);
    result->fits = !options->capacity || result->height <= options->capacity;
    if (result->height == result->lower_bound) result->optimal = true;
    result->seconds = end - start;
    return ar_status_success_k;
}
