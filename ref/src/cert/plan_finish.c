/* ar_plan_finish: the structural rules of CERTIFICATE.md §1, checked in the order the plan's
 * JSON reads, the first breach reported with its JSON path; and the facts the certificate
 * reads, derived once (repeat order and parents, phase indices and runs; the values' keys in
 * plan_keys.c, reads across elements in plan_access.c, the globals' order in plan_globals.c).
 * Near-linear: phase ids through a hash; repeats sorted as intervals and swept with a stack;
 * duplicate entries by sorting each list; a reference cuts a repeat exactly when an end lies
 * strictly inside a body, which a difference array over launch boundaries answers in O(1).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/plan_internal.h"

/* ---- Finishing: the structural rules of CERTIFICATE.md §1 --------------------------------- */

/* A range [base, base + size) runs past 2^64 when base + size overflows (== 2^64 is fine). */
static bool range_past_end(uint64_t base, uint64_t size) {
    return size > 0 && size - 1 > UINT64_MAX - base;
}

static ar_status_t check_range(ar_plan_error_t *error, char const *path, char const *what,
                               uint64_t base, uint64_t size) {
    if (!range_past_end(base, size)) return ar_status_success_k;
    return arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                         "%s [0x%llx, 0x%llx + 0x%llx) runs past 2^64", what,
                         (unsigned long long)base, (unsigned long long)base,
                         (unsigned long long)size);
}

/* A hash of phase ids: open addressing over indices into plan->phases, by content. */
typedef struct phase_table_t {
    int64_t *slots; /* phase index, or -1 */
    size_t mask;
} phase_table_t;

static int64_t phase_table_find(phase_table_t const *table, ar_plan_t const *plan, char const *id,
                                uint64_t hash) {
    for (size_t at = (size_t)hash & table->mask;; at = (at + 1) & table->mask) {
        int64_t index = table->slots[at];
        if (index < 0) return -1;
        if (strcmp(plan->phases[index].id, id) == 0) return index;
    }
}

/* An entry of a repeat (or frame) being checked for duplicate (launch, word) pairs. */
typedef struct site_t {
    size_t launch, word, index;
} site_t;

static int compare_sites(void const *a, void const *b) {
    site_t const *x = a, *y = b;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    if (x->word != y->word) return x->word < y->word ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Check one list of shifts (a repeat's deltas, or one frame): each launch in the body, each word
 * inside its launch, no (launch, word) twice. `prefix` is the list's JSON path; `field` names the
 * shift ("delta" or "offset"). Breaches are reported in list order. */
static ar_status_t check_shift_list(ar_plan_t const *plan, size_t r, size_t frame,
                                    ar_shift_t const *shifts, size_t count, site_t **scratch,
                                    size_t *scratch_capacity, ar_plan_error_t *error) {
    if (count == 0) return ar_status_success_k;
    ar_repeat_t const *repeat = &plan->repeats[r];
    /* Find the earliest entry that repeats a pair: sort a copy when the list is long, compare
     * pairs when it is short (most frames hold a few entries). */
    size_t duplicate = SIZE_MAX, duplicate_of = 0;
    if (count <= 8) {
        for (size_t j = 1; j < count && duplicate == SIZE_MAX; ++j)
            for (size_t i = 0; i < j; ++i)
                if (shifts[i].launch == shifts[j].launch && shifts[i].word == shifts[j].word) {
                    duplicate = j;
                    duplicate_of = i;
                    break;
                }
    } else {
        if (count > *scratch_capacity) {
            site_t *grown = realloc(*scratch, count * sizeof *grown);
            if (!grown) return ar_status_out_of_memory_k;
            *scratch = grown;
            *scratch_capacity = count;
        }
        site_t *sites = *scratch;
        for (size_t j = 0; j < count; ++j) sites[j] = (site_t){shifts[j].launch, shifts[j].word, j};
        qsort(sites, count, sizeof *sites, compare_sites);
        /* Within a run of equal pairs, sorted by index, the run's first is the original and every
         * later one a duplicate of it. */
        for (size_t j = 1, start = 0; j < count; ++j) {
            if (sites[j].launch != sites[start].launch || sites[j].word != sites[start].word) {
                start = j;
                continue;
            }
            if (sites[j].index < duplicate) {
                duplicate = sites[j].index;
                duplicate_of = sites[start].index;
            }
        }
    }
    for (size_t j = 0; j < count; ++j) {
        ar_shift_t const *shift = &shifts[j];
        bool outside =
            shift->launch < repeat->first || shift->launch - repeat->first >= repeat->count;
        bool word_out = !outside && shift->word >= plan->launches[shift->launch].words_count;
        if (!outside && !word_out && j != duplicate) continue;
        /* The JSON path, formatted only now: frames can number millions. */
        char path[160];
        int used =
            frame == SIZE_MAX
                ? snprintf(path, sizeof path, "$.repeats[%zu].deltas[%zu]", r, j)
                : snprintf(path, sizeof path, "$.repeats[%zu].frames[%zu][%zu]", r, frame, j);
        if (outside) {
            snprintf(path + used, sizeof path - (size_t)used, ".launch");
            return arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                 "launch %zu lies outside the repeat's body, launches [%zu, %zu)",
                                 shift->launch, repeat->first, repeat->first + repeat->count);
        }
        if (word_out) {
            snprintf(path + used, sizeof path - (size_t)used, ".word");
            return arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                 "word %zu is out of range: launch %zu has %zu words", shift->word,
                                 shift->launch, plan->launches[shift->launch].words_count);
        }
        return arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                             "(launch %zu, word %zu) appears twice, also at [%zu]", shift->launch,
                             shift->word, duplicate_of);
    }
    return ar_status_success_k;
}

typedef struct repeat_interval_t {
    size_t first, end, index;
} repeat_interval_t;

static int compare_intervals(void const *a, void const *b) {
    repeat_interval_t const *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1; /* longer first: outer before inner */
    return (x->index > y->index) - (x->index < y->index);
}

/* Any two repeats disjoint or strictly nested: sort as intervals, sweep with a stack of the
 * enclosing chain. Reports the later repeat (in JSON order) of the first clashing pair found.
 * The sorted order and each repeat's parent are kept in the plan. */
static ar_status_t check_nesting(ar_plan_t *plan, ar_plan_error_t *error) {
    size_t n = plan->repeats_count;
    free(plan->repeat_order), free(plan->repeat_parent); /* from a finish that failed later */
    plan->repeat_order = malloc((n + 1) * sizeof *plan->repeat_order);
    plan->repeat_parent = malloc((n + 1) * sizeof *plan->repeat_parent);
    repeat_interval_t *intervals = malloc((n + 1) * sizeof *intervals);
    size_t *stack = malloc((n + 1) * sizeof *stack);
    if (!intervals || !stack || !plan->repeat_order || !plan->repeat_parent) {
        free(intervals);
        free(stack);
        return ar_status_out_of_memory_k;
    }
    for (size_t r = 0; r < n; ++r)
        intervals[r] = (repeat_interval_t){plan->repeats[r].first,
                                           plan->repeats[r].first + plan->repeats[r].count, r};
    qsort(intervals, n, sizeof *intervals, compare_intervals);
    size_t depth = 0, clash_a = SIZE_MAX, clash_b = SIZE_MAX;
    bool identical = false;
    for (size_t k = 0; k < n; ++k) {
        repeat_interval_t const *current = &intervals[k];
        plan->repeat_order[k] = current->index;
        while (depth && intervals[stack[depth - 1]].end <= current->first) --depth;
        plan->repeat_parent[current->index] = depth ? intervals[stack[depth - 1]].index : SIZE_MAX;
        if (depth) {
            repeat_interval_t const *outer = &intervals[stack[depth - 1]];
            bool same = outer->first == current->first && outer->end == current->end;
            if (same || current->end > outer->end) {
                size_t a = outer->index < current->index ? outer->index : current->index;
                size_t b = outer->index < current->index ? current->index : outer->index;
                if (b < clash_b || (b == clash_b && a < clash_a)) {
                    clash_a = a;
                    clash_b = b;
                    identical = same;
                }
                continue; /* keep the chain nested: do not push a clashing interval */
            }
        }
        stack[depth++] = k;
    }
    free(intervals);
    free(stack);
    if (clash_b == SIZE_MAX) return ar_status_success_k;
    ar_repeat_t const *a = &plan->repeats[clash_a], *b = &plan->repeats[clash_b];
    char path[64];
    snprintf(path, sizeof path, "$.repeats[%zu]", clash_b);
    if (identical)
        return arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                             "repeat %zu has the same body as repeat %zu, launches [%zu, %zu): "
                             "identical repeats are not strictly nested",
                             clash_b, clash_a, b->first, b->first + b->count);
    return arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                         "repeat %zu (launches [%zu, %zu)) overlaps repeat %zu (launches [%zu, "
                         "%zu)) without nesting in it",
                         clash_b, b->first, b->first + b->count, clash_a, a->first,
                         a->first + a->count);
}

static ar_status_t check_repeats(ar_plan_t *plan, ar_plan_error_t *error) {
    site_t *scratch = NULL;
    size_t scratch_capacity = 0;
    ar_status_t status = ar_status_success_k;
    char path[256];
    for (size_t r = 0; r < plan->repeats_count && !status; ++r) {
        ar_repeat_t const *repeat = &plan->repeats[r];
        if (repeat->first > plan->launches_count) {
            snprintf(path, sizeof path, "$.repeats[%zu].first", r);
            status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                   "first launch %zu is past the launch table (%zu launches)",
                                   repeat->first, plan->launches_count);
        } else if (repeat->count == 0) {
            snprintf(path, sizeof path, "$.repeats[%zu].count", r);
            status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                   "count is 0: a repeat's body needs at least one launch");
        } else if (repeat->count > plan->launches_count - repeat->first) {
            snprintf(path, sizeof path, "$.repeats[%zu]", r);
            status =
                arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                              "body, launches [%zu, %zu + %zu), runs past the launch table "
                              "(%zu launches)",
                              repeat->first, repeat->first, repeat->count, plan->launches_count);
        } else if (repeat->iterations == 0) {
            snprintf(path, sizeof path, "$.repeats[%zu].iterations", r);
            status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                   "iterations is 0: a repeat runs at least once");
        } else if (!repeat->has_frames) {
            status = check_shift_list(plan, r, SIZE_MAX, plan->shifts + repeat->shifts_first,
                                      repeat->shifts_count, &scratch, &scratch_capacity, error);
        } else {
            size_t frames = plan->internals->repeat_frames[r];
            if (frames != repeat->iterations) {
                snprintf(path, sizeof path, "$.repeats[%zu].frames", r);
                status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                       "%zu frames for %llu iterations: a frames repeat needs "
                                       "exactly one frame per iteration",
                                       frames, (unsigned long long)repeat->iterations);
            }
            for (size_t f = 0; f < frames && !status; ++f) {
                size_t begin = plan->frame_starts[repeat->frames_first + f];
                size_t end = plan->frame_starts[repeat->frames_first + f + 1];
                status = check_shift_list(plan, r, f, plan->shifts + begin, end - begin, &scratch,
                                          &scratch_capacity, error);
            }
        }
    }
    free(scratch);
    if (status) return status;
    return check_nesting(plan, error);
}

/* A reference [s, e) cuts a repeat [f, g) when it overlaps it without containing it, which is
 * exactly when s or e lies strictly inside (f, g). Mark each launch boundary that some repeat's
 * body strictly contains, then test each reference's two ends. */
static ar_status_t check_schedule(ar_plan_t const *plan, ar_plan_error_t *error) {
    size_t n = plan->launches_count;
    char path[64];
    unsigned char *inside = NULL;
    if (plan->repeats_count && plan->schedule_count) {
        int64_t *change = calloc(n + 2, sizeof *change);
        inside = malloc(n + 1);
        if (!change || !inside) {
            free(change);
            free(inside);
            return ar_status_out_of_memory_k;
        }
        for (size_t r = 0; r < plan->repeats_count; ++r) {
            ar_repeat_t const *repeat = &plan->repeats[r];
            /* Boundaries first+1 .. first+count-1 are strictly inside the body. */
            ++change[repeat->first + 1];
            --change[repeat->first + repeat->count];
        }
        int64_t running = 0;
        for (size_t p = 0; p <= n; ++p) {
            running += change[p];
            inside[p] = running > 0;
        }
        free(change);
    }
    ar_status_t status = ar_status_success_k;
    for (size_t k = 0; k < plan->schedule_count && !status; ++k) {
        ar_reference_t const *reference = &plan->schedule[k];
        if (reference->count == 0) {
            snprintf(path, sizeof path, "$.schedule[%zu].count", k);
            status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                   "count is 0: a reference runs at least one launch");
        } else if (reference->first > n || reference->count > n - reference->first) {
            snprintf(path, sizeof path, "$.schedule[%zu]", k);
            status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                   "launches [%zu, %zu + %zu) run past the launch table (%zu "
                                   "launches)",
                                   reference->first, reference->first, reference->count, n);
        } else if (inside &&
                   (inside[reference->first] || inside[reference->first + reference->count])) {
            size_t s = reference->first, e = reference->first + reference->count;
            for (size_t r = 0; r < plan->repeats_count; ++r) {
                ar_repeat_t const *repeat = &plan->repeats[r];
                size_t f = repeat->first, g = repeat->first + repeat->count;
                if ((f < s && s < g) || (f < e && e < g)) {
                    snprintf(path, sizeof path, "$.schedule[%zu]", k);
                    status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                           "reference to launches [%zu, %zu) cuts repeat %zu's "
                                           "body, launches [%zu, %zu): it overlaps it without "
                                           "containing it",
                                           s, e, r, f, g);
                    break;
                }
            }
        }
    }
    free(inside);
    return status;
}

static ar_status_t check_phases_and_resolve(ar_plan_t *plan, ar_plan_error_t *error) {
    size_t capacity = 16;
    while (capacity < plan->phases_count * 2 + 2) capacity *= 2;
    phase_table_t table = {malloc(capacity * sizeof *table.slots), capacity - 1};
    if (!table.slots) return ar_status_out_of_memory_k;
    for (size_t i = 0; i < capacity; ++i) table.slots[i] = -1;
    char path[256];
    ar_status_t status = ar_status_success_k;
    plan->updates_count = 0;
    for (size_t p = 0; p < plan->phases_count && !status; ++p) {
        ar_phase_t const *phase = &plan->phases[p];
        uint64_t hash = arp_plan_hash_text(phase->id, strlen(phase->id));
        int64_t earlier = phase_table_find(&table, plan, phase->id, hash);
        if (earlier >= 0) {
            snprintf(path, sizeof path, "$.phases[%zu].id", p);
            status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                   "phase id \"%.200s\" is not unique: phase %lld has it too",
                                   phase->id, (long long)earlier);
            break;
        }
        size_t at = (size_t)hash & table.mask;
        while (table.slots[at] >= 0) at = (at + 1) & table.mask;
        table.slots[at] = (int64_t)p;
        for (size_t j = 0; j < phase->planes_count && !status; ++j) {
            ar_plane_t *plane = &plan->planes[phase->planes_first + j];
            snprintf(path, sizeof path, "$.phases[%zu].planes[%zu].size", p, j);
            status = check_range(error, path, "plane", plane->base, plane->size);
            if (!status && plane->becomes && !plane->carried) {
                snprintf(path, sizeof path, "$.phases[%zu].planes[%zu].becomes", p, j);
                status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                       "\"becomes\" on fresh plane \"%.200s\": only a carried "
                                       "plane is updated in place",
                                       plane->name);
            }
            if (!status) status = arp_plan_access_check(plan, p, j, error);
            /* Pooled strings: the same text is the same pointer. */
            plane->updates = plane->becomes && strcmp(plane->becomes, plane->name) != 0;
            plan->updates_count += plane->updates;
        }
    }
    if (!status) {
        /* Consecutive launches mostly share their phase name: remember the last lookup. */
        char const *last_name = NULL;
        int64_t last_index = -1;
        size_t runs = 0;
        for (size_t i = 0; i < plan->launches_count; ++i) {
            ar_launch_t *launch = &plan->launches[i];
            if (!launch->phase_name) {
                launch->phase = -1;
            } else {
                if (launch->phase_name != last_name) {
                    last_name = launch->phase_name;
                    last_index = phase_table_find(&table, plan, last_name,
                                                  arp_plan_hash_text(last_name, strlen(last_name)));
                }
                launch->phase = last_index;
            }
            runs += i == 0 || launch->phase != launch[-1].phase;
        }
        free(plan->run_starts); /* from a finish that failed later */
        plan->run_starts_count = 0;
        plan->run_starts = malloc((runs + 1) * sizeof *plan->run_starts);
        if (!plan->run_starts) status = ar_status_out_of_memory_k;
        for (size_t i = 0; i < plan->launches_count && !status; ++i)
            if (i == 0 || plan->launches[i].phase != plan->launches[i - 1].phase)
                plan->run_starts[plan->run_starts_count++] = i;
    }
    free(table.slots);
    return status;
}

ar_status_t ar_plan_finish(ar_plan_t *plan, ar_plan_error_t *error) {
    arp_plan_error_clear(error);
    if (!arp_plan_building(plan))
        return arp_plan_fail(error, ar_status_invalid_argument_k, "$", 0, 0,
                             plan ? "the plan is already finished" : "no plan");
    if (plan->alignment == 0 || (plan->alignment & (plan->alignment - 1)))
        return arp_plan_fail(error, ar_status_invalid_argument_k, "$.alignment", 0, 0,
                             "alignment %llu is not a power of two (1, 2, 4, ...)",
                             (unsigned long long)plan->alignment);
    char path[128];
    for (size_t i = 0; i < plan->windows_count; ++i) {
        snprintf(path, sizeof path, "$.windows[%zu].size", i);
        ar_status_t status =
            check_range(error, path, "window", plan->windows[i].base, plan->windows[i].size);
        if (status) return status;
    }
    for (size_t i = 0; i < plan->globals_count; ++i) {
        snprintf(path, sizeof path, "$.globals[%zu].size", i);
        ar_status_t status =
            check_range(error, path, "global", plan->globals[i].base, plan->globals[i].size);
        if (status) return status;
    }
    ar_status_t status = check_phases_and_resolve(plan, error);
    if (!status) status = check_repeats(plan, error);
    if (!status) status = check_schedule(plan, error);
    if (!status) status = arp_plan_keys_derive(plan);
    if (!status) status = arp_plan_cross_derive(plan);
    if (!status) status = arp_plan_globals_derive(plan);
    if (status == ar_status_out_of_memory_k)
        arp_plan_fail(error, status, "$", 0, 0, "out of memory while checking the plan");
    if (status) return status;
    plan->finished = true;
    return ar_status_success_k;
}
