/* The plan model: the builder, the string pool, structural checking (ar_plan_finish) and
 * equality.
 *
 * Every table is one flat array grown by doubling, so building costs amortized O(1) per entry
 * and nothing is allocated per launch. Strings are copied into a chunked pool whose chunks never
 * move (a pooled pointer stays valid for the plan's life) and are interned through an
 * open-addressing hash table, so a million launches of "gemm" share one string.
 *
 * ar_plan_finish checks CERTIFICATE.md §1 in the order the plan's JSON form reads (alignment,
 * windows, globals, phases, repeats, schedule) and reports the first breach with the JSON path
 * it would have. The costly checks stay near-linear: phase ids and launch phases go through a
 * hash of phase ids; the "disjoint or strictly nested" rule for repeats sorts them as intervals
 * and sweeps with a stack; duplicate (launch, word) entries are found by sorting each repeat's
 * (or frame's) entries; a schedule reference cuts a repeat exactly when one of its two ends lies
 * strictly inside some repeat's body, which a difference array over launch boundaries answers in
 * O(1) per reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cert/plan_internal.h"

/* ---- Errors ------------------------------------------------------------------------------ */

void arp_plan_error_clear(ar_plan_error_t *error) {
    if (!error) return;
    error->status = ar_status_success_k;
    error->path[0] = '\0';
    error->line = error->column = 0;
    error->message[0] = '\0';
}

ar_status_t arp_plan_fail(ar_plan_error_t *error, ar_status_t status, char const *path, int line,
                         int column, char const *format, ...) {
    if (!error) return status;
    error->status = status;
    snprintf(error->path, sizeof error->path, "%s", path ? path : "");
    error->line = line;
    error->column = column;
    /* "PATH: " or "line L, column C: PATH: " first, then the text after it. */
    size_t size = sizeof error->message, used = 0;
    int written = 0;
    if (line > 0) written = snprintf(error->message, size, "line %d, column %d: ", line, column);
    if (written > 0) used = (size_t)written < size ? (size_t)written : size - 1;
    if (path && path[0]) {
        written = snprintf(error->message + used, size - used, "%s: ", path);
        if (written > 0) used += (size_t)written < size - used ? (size_t)written : size - used - 1;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(error->message + used, size - used, format, args);
    va_end(args);
    return status;
}

/* ---- Growth ------------------------------------------------------------------------------ */

/* Ensure room for `count + more` items of `size` bytes; doubles, so appends are amortized O(1). */
static ar_status_t grow_array(void **array, size_t *capacity, size_t count, size_t more,
                              size_t size) {
    if (more > SIZE_MAX - count) return ar_status_out_of_memory_k;
    size_t need = count + more;
    /* Allocate even for nothing more, so that an array in use is never NULL (NULL + 0 is UB). */
    if (need <= *capacity && *array) return ar_status_success_k;
    size_t next = *capacity ? *capacity : 8;
    while (next < need) {
        if (next > SIZE_MAX / 2) {
            next = need;
            break;
        }
        next *= 2;
    }
    if (next > SIZE_MAX / size) return ar_status_out_of_memory_k;
    void *grown = realloc(*array, next * size);
    if (!grown) return ar_status_out_of_memory_k;
    *array = grown;
    *capacity = next;
    return ar_status_success_k;
}

#define GROW(plan, field, more)                                                                \
    grow_array((void **)&(plan)->field, &(plan)->internals->field##_capacity,                 \
               (plan)->field##_count, (more), sizeof *(plan)->field)

ar_status_t arp_plan_reserve_shifts(ar_plan_t *plan, size_t more) {
    return GROW(plan, shifts, more);
}

/* ---- The string pool and intern table ---------------------------------------------------- */

struct arp_pool_chunk_t {
    arp_pool_chunk_t *next;
    size_t used, capacity;
    char bytes[];
};

enum { pool_chunk_bytes = 64 * 1024 };

/* Copy `length` bytes plus a NUL into the pool; a string longer than a chunk gets its own. */
static char *pool_copy(struct ar_plan_internals_t *internals, char const *text, size_t length) {
    arp_pool_chunk_t *chunk = internals->pool;
    if (!chunk || chunk->capacity - chunk->used < length + 1) {
        size_t capacity = length + 1 > pool_chunk_bytes ? length + 1 : pool_chunk_bytes;
        arp_pool_chunk_t *fresh = malloc(sizeof *fresh + capacity);
        if (!fresh) return NULL;
        fresh->used = 0;
        fresh->capacity = capacity;
        if (chunk && capacity > pool_chunk_bytes) {
            /* A big string: keep the current chunk in front, it still has room for small ones. */
            fresh->next = chunk->next;
            chunk->next = fresh;
        } else {
            fresh->next = chunk;
            internals->pool = fresh;
        }
        chunk = fresh;
    }
    char *copy = chunk->bytes + chunk->used;
    memcpy(copy, text, length);
    copy[length] = '\0';
    chunk->used += length + 1;
    return copy;
}

uint64_t arp_plan_hash_text(char const *text, size_t length) {
    uint64_t hash = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < length; ++i) {
        hash ^= (unsigned char)text[i];
        hash *= 0x100000001b3ull;
    }
    hash ^= hash >> 31;
    hash *= 0x7fb5d329728ea185ull;
    hash ^= hash >> 27;
    return hash;
}

static ar_status_t intern_rehash(struct ar_plan_internals_t *internals, size_t capacity) {
    arp_intern_slot_t *slots = calloc(capacity, sizeof *slots);
    if (!slots) return ar_status_out_of_memory_k;
    for (size_t i = 0; i < internals->intern_capacity; ++i) {
        arp_intern_slot_t slot = internals->intern_slots[i];
        if (!slot.text) continue;
        size_t at = (size_t)slot.hash & (capacity - 1);
        while (slots[at].text) at = (at + 1) & (capacity - 1);
        slots[at] = slot;
    }
    free(internals->intern_slots);
    internals->intern_slots = slots;
    internals->intern_capacity = capacity;
    return ar_status_success_k;
}

char const *arp_plan_intern_n(ar_plan_t *plan, char const *text, size_t length) {
    if (!plan || !text) return NULL;
    char const *nul = memchr(text, '\0', length); /* a C string ends at its first NUL */
    if (nul) length = (size_t)(nul - text);
    struct ar_plan_internals_t *internals = plan->internals;
    if ((internals->intern_used + 1) * 2 > internals->intern_capacity &&
        intern_rehash(internals, internals->intern_capacity ? internals->intern_capacity * 2 : 64))
        return NULL;
    uint64_t hash = arp_plan_hash_text(text, length);
    size_t mask = internals->intern_capacity - 1, at = (size_t)hash & mask;
    for (;; at = (at + 1) & mask) {
        arp_intern_slot_t *slot = &internals->intern_slots[at];
        if (!slot->text) break;
        if (slot->hash == hash && strncmp(slot->text, text, length) == 0 &&
            slot->text[length] == '\0')
            return slot->text;
    }
    char *copy = pool_copy(internals, text, length);
    if (!copy) return NULL;
    internals->intern_slots[at].text = copy;
    internals->intern_slots[at].hash = hash;
    ++internals->intern_used;
    return copy;
}

char const *ar_plan_intern(ar_plan_t *plan, char const *text) {
    return text ? arp_plan_intern_n(plan, text, strlen(text)) : NULL;
}

/* ---- Life cycle -------------------------------------------------------------------------- */

ar_status_t ar_plan_create(ar_plan_t **plan) {
    if (!plan) return ar_status_invalid_argument_k;
    *plan = NULL;
    ar_plan_t *fresh = calloc(1, sizeof *fresh);
    if (!fresh) return ar_status_out_of_memory_k;
    fresh->internals = calloc(1, sizeof *fresh->internals);
    if (!fresh->internals) {
        free(fresh);
        return ar_status_out_of_memory_k;
    }
    *plan = fresh;
    return ar_status_success_k;
}

void ar_plan_free(ar_plan_t *plan) {
    if (!plan) return;
    free(plan->windows);
    free(plan->globals);
    free(plan->phases);
    free(plan->planes);
    free(plan->launches);
    free(plan->words);
    free(plan->repeats);
    free(plan->shifts);
    free(plan->frame_starts);
    free(plan->schedule);
    free(plan->meta_json);
    free(plan->repeat_order);
    free(plan->repeat_parent);
    free(plan->run_starts);
    if (plan->internals) {
        free(plan->internals->repeat_frames);
        free(plan->internals->intern_slots);
        for (arp_pool_chunk_t *chunk = plan->internals->pool, *next; chunk; chunk = next) {
            next = chunk->next;
            free(chunk);
        }
        free(plan->internals);
    }
    free(plan);
}

ar_status_t ar_plan_reserve(ar_plan_t *plan, size_t launches, size_t words, size_t shifts) {
    if (!plan || plan->finished) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, launches, launches);
    if (!status) status = GROW(plan, words, words);
    if (!status) status = GROW(plan, shifts, shifts);
    return status;
}

/* ---- Builder ----------------------------------------------------------------------------- */

static bool building(ar_plan_t const *plan) { return plan && plan->internals && !plan->finished; }

ar_status_t ar_plan_set_alignment(ar_plan_t *plan, uint64_t alignment) {
    if (!building(plan)) return ar_status_invalid_argument_k;
    plan->alignment = alignment;
    return ar_status_success_k;
}

ar_status_t ar_plan_add_window(ar_plan_t *plan, uint64_t base, uint64_t size) {
    if (!building(plan)) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, windows, 1);
    if (status) return status;
    plan->windows[plan->windows_count++] = (ar_window_t){base, size};
    return ar_status_success_k;
}

ar_status_t ar_plan_add_global(ar_plan_t *plan, char const *name, uint64_t base, uint64_t size) {
    if (!building(plan) || !name) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, globals, 1);
    if (status) return status;
    char const *pooled = ar_plan_intern(plan, name);
    if (!pooled) return ar_status_out_of_memory_k;
    plan->globals[plan->globals_count++] = (ar_global_t){pooled, base, size};
    return ar_status_success_k;
}

ar_status_t ar_plan_add_phase(ar_plan_t *plan, char const *id) {
    if (!building(plan) || !id) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, phases, 1);
    if (status) return status;
    char const *pooled = ar_plan_intern(plan, id);
    if (!pooled) return ar_status_out_of_memory_k;
    plan->phases[plan->phases_count++] = (ar_phase_t){pooled, plan->planes_count, 0};
    return ar_status_success_k;
}

ar_status_t ar_plan_add_plane(ar_plan_t *plan, char const *name, uint64_t base, uint64_t size,
                              bool carried) {
    if (!building(plan) || !name || plan->phases_count == 0) return ar_status_invalid_argument_k;
    ar_phase_t *phase = &plan->phases[plan->phases_count - 1];
    /* Planes of a phase are contiguous: they must follow their phase directly. */
    if (phase->planes_first + phase->planes_count != plan->planes_count)
        return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, planes, 1);
    if (status) return status;
    char const *pooled = ar_plan_intern(plan, name);
    if (!pooled) return ar_status_out_of_memory_k;
    plan->planes[plan->planes_count++] = (ar_plane_t){pooled, base, size, carried};
    ++phase->planes_count;
    return ar_status_success_k;
}

ar_status_t arp_plan_add_launch_pooled(ar_plan_t *plan, char const *kernel, char const *phase_name,
                                      size_t words_count, uint64_t **words_out) {
    ar_status_t status = GROW(plan, launches, 1);
    if (!status) status = GROW(plan, words, words_count);
    if (status) return status;
    plan->launches[plan->launches_count++] = (ar_launch_t){
        .kernel = kernel,
        .phase_name = phase_name,
        .phase = -1,
        .words_first = plan->words_count,
        .words_count = words_count,
    };
    *words_out = plan->words + plan->words_count;
    plan->words_count += words_count;
    return ar_status_success_k;
}

ar_status_t ar_plan_add_launch(ar_plan_t *plan, char const *kernel, char const *phase_name,
                               uint64_t const *words, size_t words_count, size_t *index) {
    if (!building(plan) || (!words && words_count)) return ar_status_invalid_argument_k;
    char const *pooled_kernel = ar_plan_intern(plan, kernel ? kernel : "");
    char const *pooled_phase = phase_name ? ar_plan_intern(plan, phase_name) : NULL;
    if (!pooled_kernel || (phase_name && !pooled_phase)) return ar_status_out_of_memory_k;
    uint64_t *destination;
    ar_status_t status =
        arp_plan_add_launch_pooled(plan, pooled_kernel, pooled_phase, words_count, &destination);
    if (status) return status;
    if (words_count) memcpy(destination, words, words_count * sizeof *words);
    if (index) *index = plan->launches_count - 1;
    return ar_status_success_k;
}

static ar_status_t add_repeat(ar_plan_t *plan, size_t first, size_t count, uint64_t iterations,
                              bool has_frames) {
    struct ar_plan_internals_t *internals = plan->internals;
    ar_status_t status = GROW(plan, repeats, 1);
    if (!status) status = GROW(plan, shifts, 0); /* every repeat points into shifts */
    if (status) return status;
    /* repeat_frames mirrors repeats: keep its capacity equal to theirs. */
    if (internals->repeats_capacity) {
        size_t *grown = realloc(internals->repeat_frames,
                                internals->repeats_capacity * sizeof *internals->repeat_frames);
        if (!grown) return ar_status_out_of_memory_k;
        internals->repeat_frames = grown;
    }
    size_t frames_first = 0;
    if (has_frames) {
        status = GROW(plan, frame_starts, 1);
        if (status) return status;
        frames_first = plan->frame_starts_count;
        plan->frame_starts[plan->frame_starts_count++] = plan->shifts_count;
    }
    internals->repeat_frames[plan->repeats_count] = 0;
    plan->repeats[plan->repeats_count++] = (ar_repeat_t){
        .first = first,
        .count = count,
        .iterations = iterations,
        .has_frames = has_frames,
        .shifts_first = plan->shifts_count,
        .shifts_count = 0,
        .frames_first = frames_first,
    };
    return ar_status_success_k;
}

ar_status_t ar_plan_add_repeat_deltas(ar_plan_t *plan, size_t first, size_t count,
                                      uint64_t iterations, ar_shift_t const *deltas,
                                      size_t deltas_count) {
    if (!building(plan) || (!deltas && deltas_count)) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, shifts, deltas_count);
    if (!status) status = add_repeat(plan, first, count, iterations, false);
    if (status) return status;
    if (deltas_count) memcpy(plan->shifts + plan->shifts_count, deltas, deltas_count * sizeof *deltas);
    plan->shifts_count += deltas_count;
    plan->repeats[plan->repeats_count - 1].shifts_count = deltas_count;
    return ar_status_success_k;
}

ar_status_t ar_plan_add_repeat_frames(ar_plan_t *plan, size_t first, size_t count,
                                      uint64_t iterations) {
    if (!building(plan)) return ar_status_invalid_argument_k;
    return add_repeat(plan, first, count, iterations, true);
}

ar_status_t ar_plan_add_frame(ar_plan_t *plan, ar_shift_t const *offsets, size_t offsets_count) {
    if (!building(plan) || (!offsets && offsets_count) || plan->repeats_count == 0)
        return ar_status_invalid_argument_k;
    ar_repeat_t *repeat = &plan->repeats[plan->repeats_count - 1];
    if (!repeat->has_frames) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, shifts, offsets_count);
    if (!status) status = GROW(plan, frame_starts, 1);
    if (status) return status;
    if (offsets_count)
        memcpy(plan->shifts + plan->shifts_count, offsets, offsets_count * sizeof *offsets);
    plan->shifts_count += offsets_count;
    repeat->shifts_count += offsets_count;
    plan->frame_starts[plan->frame_starts_count++] = plan->shifts_count;
    ++plan->internals->repeat_frames[plan->repeats_count - 1];
    return ar_status_success_k;
}

ar_status_t ar_plan_add_reference(ar_plan_t *plan, size_t first, size_t count) {
    if (!building(plan)) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, schedule, 1);
    if (status) return status;
    plan->schedule[plan->schedule_count++] = (ar_reference_t){first, count};
    return ar_status_success_k;
}

ar_status_t ar_plan_set_meta(ar_plan_t *plan, char const *meta_json) {
    if (!building(plan)) return ar_status_invalid_argument_k;
    char *copy = NULL;
    if (meta_json) {
        /* Keep meta in the loader's compact form so that a built plan and its reloaded JSON form
         * compare equal. */
        json_error_t json_error;
        json_t *meta = json_loads(meta_json, JSON_DECODE_ANY, &json_error);
        if (!meta) return ar_status_invalid_argument_k;
        if (!json_is_object(meta)) {
            json_decref(meta);
            return ar_status_invalid_argument_k;
        }
        copy = json_dumps(meta, JSON_COMPACT);
        json_decref(meta);
        if (!copy) return ar_status_out_of_memory_k;
    }
    free(plan->meta_json);
    plan->meta_json = copy;
    return ar_status_success_k;
}

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

static int64_t phase_table_find(phase_table_t const *table, ar_plan_t const *plan,
                                char const *id, uint64_t hash) {
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
        bool outside = shift->launch < repeat->first || shift->launch - repeat->first >= repeat->count;
        bool word_out = !outside && shift->word >= plan->launches[shift->launch].words_count;
        if (!outside && !word_out && j != duplicate) continue;
        /* The JSON path, formatted only now: frames can number millions. */
        char path[160];
        int used = frame == SIZE_MAX
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
            status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                  "body, launches [%zu, %zu + %zu), runs past the launch table "
                                  "(%zu launches)",
                                  repeat->first, repeat->first, repeat->count,
                                  plan->launches_count);
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
                status = check_shift_list(plan, r, f, plan->shifts + begin, end - begin,
                                          &scratch, &scratch_capacity, error);
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
        snprintf(path, sizeof path, "$.schedule[%zu]", k);
        if (reference->count == 0) {
            snprintf(path, sizeof path, "$.schedule[%zu].count", k);
            status = arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                  "count is 0: a reference runs at least one launch");
        } else if (reference->first > n || reference->count > n - reference->first) {
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
            ar_plane_t const *plane = &plan->planes[phase->planes_first + j];
            snprintf(path, sizeof path, "$.phases[%zu].planes[%zu].size", p, j);
            status = check_range(error, path, "plane", plane->base, plane->size);
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
                    last_index = phase_table_find(
                        &table, plan, last_name, arp_plan_hash_text(last_name, strlen(last_name)));
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
    if (!building(plan))
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
    if (status == ar_status_out_of_memory_k)
        arp_plan_fail(error, status, "$", 0, 0, "out of memory while checking the plan");
    if (status) return status;
    plan->finished = true;
    return ar_status_success_k;
}

/* ---- Equality ---------------------------------------------------------------------------- */

static bool same_text(char const *a, char const *b) {
    if (a == b) return true;
    if (!a || !b) return false;
    return strcmp(a, b) == 0;
}

static bool same_shifts(ar_shift_t const *a, ar_shift_t const *b, size_t count) {
    for (size_t i = 0; i < count; ++i)
        if (a[i].launch != b[i].launch || a[i].word != b[i].word || a[i].shift != b[i].shift)
            return false;
    return true;
}

static size_t frames_of(ar_plan_t const *plan, size_t r) {
    return plan->internals ? plan->internals->repeat_frames[r] : plan->repeats[r].iterations;
}

bool ar_plan_equal(ar_plan_t const *a, ar_plan_t const *b) {
    if (a == b) return true;
    if (!a || !b) return false;
    if (a->alignment != b->alignment || a->windows_count != b->windows_count ||
        a->globals_count != b->globals_count || a->phases_count != b->phases_count ||
        a->planes_count != b->planes_count || a->launches_count != b->launches_count ||
        a->words_count != b->words_count || a->repeats_count != b->repeats_count ||
        a->shifts_count != b->shifts_count || a->schedule_count != b->schedule_count ||
        !same_text(a->meta_json, b->meta_json))
        return false;
    for (size_t i = 0; i < a->windows_count; ++i)
        if (a->windows[i].base != b->windows[i].base || a->windows[i].size != b->windows[i].size)
            return false;
    for (size_t i = 0; i < a->globals_count; ++i)
        if (!same_text(a->globals[i].name, b->globals[i].name) ||
            a->globals[i].base != b->globals[i].base || a->globals[i].size != b->globals[i].size)
            return false;
    for (size_t p = 0; p < a->phases_count; ++p) {
        ar_phase_t const *x = &a->phases[p], *y = &b->phases[p];
        if (!same_text(x->id, y->id) || x->planes_count != y->planes_count) return false;
        for (size_t j = 0; j < x->planes_count; ++j) {
            ar_plane_t const *u = &a->planes[x->planes_first + j], *v = &b->planes[y->planes_first + j];
            if (!same_text(u->name, v->name) || u->base != v->base || u->size != v->size ||
                u->carried != v->carried)
                return false;
        }
    }
    for (size_t i = 0; i < a->launches_count; ++i) {
        ar_launch_t const *x = &a->launches[i], *y = &b->launches[i];
        if (!same_text(x->kernel, y->kernel) || !same_text(x->phase_name, y->phase_name) ||
            x->words_count != y->words_count ||
            (x->words_count && memcmp(a->words + x->words_first, b->words + y->words_first,
                                      x->words_count * sizeof *a->words) != 0))
            return false;
    }
    for (size_t r = 0; r < a->repeats_count; ++r) {
        ar_repeat_t const *x = &a->repeats[r], *y = &b->repeats[r];
        if (x->first != y->first || x->count != y->count || x->iterations != y->iterations ||
            x->has_frames != y->has_frames || x->shifts_count != y->shifts_count ||
            !same_shifts(a->shifts + x->shifts_first, b->shifts + y->shifts_first,
                         x->shifts_count))
            return false;
        if (!x->has_frames) continue;
        size_t frames = frames_of(a, r);
        if (frames != frames_of(b, r)) return false;
        for (size_t f = 0; f <= frames; ++f)
            if (a->frame_starts[x->frames_first + f] - x->shifts_first !=
                b->frame_starts[y->frames_first + f] - y->shifts_first)
                return false;
    }
    for (size_t k = 0; k < a->schedule_count; ++k)
        if (a->schedule[k].first != b->schedule[k].first ||
            a->schedule[k].count != b->schedule[k].count)
            return false;
    return true;
}
