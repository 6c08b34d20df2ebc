/* The plan model: the builder, the string pool and equality. Every table is one flat array
 * grown by doubling, so nothing is allocated per launch. Strings are copied into a chunked
 * pool whose chunks never move and interned through an open-addressing table, so a million
 * launches of "gemm" share one string. Finishing (the structural rules) is plan_finish.c.
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

#define GROW(plan, field, more)                                                                    \
    grow_array((void **)&(plan)->field, &(plan)->internals->field##_capacity,                      \
               (plan)->field##_count, (more), sizeof *(plan)->field)

/* plane_access mirrors planes: keep its capacity equal to theirs, once it exists. */
static ar_status_t mirror_planes(ar_plan_t *plan) {
    struct ar_plan_internals_t *internals = plan->internals;
    if (internals->plane_access_capacity == internals->planes_capacity) return ar_status_success_k;
    ar_plane_access_t *grown =
        realloc(plan->plane_access, internals->planes_capacity * sizeof *grown);
    if (!grown) return ar_status_out_of_memory_k;
    plan->plane_access = grown;
    internals->plane_access_capacity = internals->planes_capacity;
    return ar_status_success_k;
}

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
    free(plan->plane_access);
    free(plan->plane_ranges);
    if (plan->internals) {
        arp_plan_keys_free(plan->internals);
        arp_plan_cross_free(plan->internals);
        arp_plan_globals_free(plan->internals);
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

bool arp_plan_building(ar_plan_t const *plan) { return plan && plan->internals && !plan->finished; }

ar_status_t ar_plan_set_alignment(ar_plan_t *plan, uint64_t alignment) {
    if (!arp_plan_building(plan)) return ar_status_invalid_argument_k;
    plan->alignment = alignment;
    return ar_status_success_k;
}

ar_status_t ar_plan_add_window(ar_plan_t *plan, uint64_t base, uint64_t size) {
    if (!arp_plan_building(plan)) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, windows, 1);
    if (status) return status;
    plan->windows[plan->windows_count++] = (ar_window_t){base, size};
    return ar_status_success_k;
}

ar_status_t ar_plan_add_global(ar_plan_t *plan, char const *name, uint64_t base, uint64_t size) {
    if (!arp_plan_building(plan) || !name) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, globals, 1);
    if (status) return status;
    char const *pooled = ar_plan_intern(plan, name);
    if (!pooled) return ar_status_out_of_memory_k;
    plan->globals[plan->globals_count++] = (ar_global_t){pooled, base, size};
    return ar_status_success_k;
}

ar_status_t ar_plan_add_phase(ar_plan_t *plan, char const *id) {
    if (!arp_plan_building(plan) || !id) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, phases, 1);
    if (status) return status;
    char const *pooled = ar_plan_intern(plan, id);
    if (!pooled) return ar_status_out_of_memory_k;
    plan->phases[plan->phases_count++] = (ar_phase_t){pooled, plan->planes_count, 0};
    return ar_status_success_k;
}

ar_status_t ar_plan_add_plane(ar_plan_t *plan, char const *name, uint64_t base, uint64_t size,
                              bool carried) {
    return ar_plan_add_plane_becomes(plan, name, base, size, carried, NULL);
}

ar_status_t ar_plan_add_plane_becomes(ar_plan_t *plan, char const *name, uint64_t base,
                                      uint64_t size, bool carried, char const *becomes) {
    if (!arp_plan_building(plan) || !name || plan->phases_count == 0)
        return ar_status_invalid_argument_k;
    ar_phase_t *phase = &plan->phases[plan->phases_count - 1];
    /* Planes of a phase are contiguous: they must follow their phase directly. */
    if (phase->planes_first + phase->planes_count != plan->planes_count)
        return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, planes, 1);
    if (!status && plan->plane_access) status = mirror_planes(plan);
    if (status) return status;
    char const *pooled = ar_plan_intern(plan, name);
    char const *pooled_becomes = becomes ? ar_plan_intern(plan, becomes) : NULL;
    if (!pooled || (becomes && !pooled_becomes)) return ar_status_out_of_memory_k;
    if (plan->plane_access) plan->plane_access[plan->planes_count] = (ar_plane_access_t){0};
    plan->planes[plan->planes_count++] =
        (ar_plane_t){pooled, base, size, carried, pooled_becomes, false};
    ++phase->planes_count;
    return ar_status_success_k;
}

/* The reads or writes list of the plane added last, appended to plane_ranges. */
static ar_status_t set_plane_list(ar_plan_t *plan, bool writes, ar_plane_range_t const *ranges,
                                  size_t count) {
    if (!arp_plan_building(plan) || (!ranges && count) || plan->phases_count == 0 ||
        plan->phases[plan->phases_count - 1].planes_count == 0)
        return ar_status_invalid_argument_k;
    size_t i = plan->planes_count - 1;
    if (plan->plane_access &&
        (writes ? plan->plane_access[i].has_writes : plan->plane_access[i].has_reads))
        return ar_status_invalid_argument_k; /* once per list and plane */
    ar_status_t status = GROW(plan, plane_ranges, count);
    if (!status && !plan->plane_access) {
        /* The first list of the plan: every plane so far gets an absent pair. */
        plan->plane_access = calloc(plan->internals->planes_capacity, sizeof *plan->plane_access);
        if (!plan->plane_access) status = ar_status_out_of_memory_k;
        plan->internals->plane_access_capacity = plan->internals->planes_capacity;
    }
    if (status) return status;
    ar_plane_access_t *access = &plan->plane_access[i];
    if (count)
        memcpy(plan->plane_ranges + plan->plane_ranges_count, ranges, count * sizeof *ranges);
    if (writes)
        access->writes_first = plan->plane_ranges_count, access->writes_count = count,
        access->has_writes = true;
    else
        access->reads_first = plan->plane_ranges_count, access->reads_count = count,
        access->has_reads = true;
    plan->plane_ranges_count += count;
    return ar_status_success_k;
}

ar_status_t ar_plan_set_plane_reads(ar_plan_t *plan, ar_plane_range_t const *ranges, size_t count) {
    return set_plane_list(plan, false, ranges, count);
}

ar_status_t ar_plan_set_plane_writes(ar_plan_t *plan, ar_plane_range_t const *ranges,
                                     size_t count) {
    return set_plane_list(plan, true, ranges, count);
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
    if (!arp_plan_building(plan) || (!words && words_count)) return ar_status_invalid_argument_k;
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
    if (!arp_plan_building(plan) || (!deltas && deltas_count)) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, shifts, deltas_count);
    if (!status) status = add_repeat(plan, first, count, iterations, false);
    if (status) return status;
    if (deltas_count)
        memcpy(plan->shifts + plan->shifts_count, deltas, deltas_count * sizeof *deltas);
    plan->shifts_count += deltas_count;
    plan->repeats[plan->repeats_count - 1].shifts_count = deltas_count;
    return ar_status_success_k;
}

ar_status_t ar_plan_add_repeat_frames(ar_plan_t *plan, size_t first, size_t count,
                                      uint64_t iterations) {
    if (!arp_plan_building(plan)) return ar_status_invalid_argument_k;
    return add_repeat(plan, first, count, iterations, true);
}

ar_status_t ar_plan_add_frame(ar_plan_t *plan, ar_shift_t const *offsets, size_t offsets_count) {
    if (!arp_plan_building(plan) || (!offsets && offsets_count) || plan->repeats_count == 0)
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
    if (!arp_plan_building(plan)) return ar_status_invalid_argument_k;
    ar_status_t status = GROW(plan, schedule, 1);
    if (status) return status;
    plan->schedule[plan->schedule_count++] = (ar_reference_t){first, count};
    return ar_status_success_k;
}

ar_status_t ar_plan_set_meta(ar_plan_t *plan, char const *meta_json) {
    if (!arp_plan_building(plan)) return ar_status_invalid_argument_k;
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

/* A plane's reads or writes: absent, or a list of ranges. */
static bool same_list(ar_plan_t const *a, ar_plan_t const *b, size_t i, size_t j, bool writes) {
    static ar_plane_access_t const absent = {0};
    ar_plane_access_t const *x = a->plane_access ? &a->plane_access[i] : &absent;
    ar_plane_access_t const *y = b->plane_access ? &b->plane_access[j] : &absent;
    bool has_x = writes ? x->has_writes : x->has_reads,
         has_y = writes ? y->has_writes : y->has_reads;
    size_t first_x = writes ? x->writes_first : x->reads_first;
    size_t first_y = writes ? y->writes_first : y->reads_first;
    size_t count = writes ? x->writes_count : x->reads_count;
    if (has_x != has_y || count != (writes ? y->writes_count : y->reads_count)) return false;
    for (size_t k = 0; k < count; ++k)
        if (a->plane_ranges[first_x + k].offset != b->plane_ranges[first_y + k].offset ||
            a->plane_ranges[first_x + k].size != b->plane_ranges[first_y + k].size)
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
            ar_plane_t const *u = &a->planes[x->planes_first + j],
                             *v = &b->planes[y->planes_first + j];
            if (!same_text(u->name, v->name) || u->base != v->base || u->size != v->size ||
                u->carried != v->carried || !same_text(u->becomes, v->becomes) ||
                !same_list(a, b, x->planes_first + j, y->planes_first + j, false) ||
                !same_list(a, b, x->planes_first + j, y->planes_first + j, true))
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
            !same_shifts(a->shifts + x->shifts_first, b->shifts + y->shifts_first, x->shifts_count))
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
