/* The JSON loader for `arena-plan/1` (CERTIFICATE.md §1; its readings: ref/README.md).
 *
 * A plan of hundreds of MB must not become a jansson tree (about ten times its text), so the
 * loader walks the top-level object and its big arrays itself and hands jansson one element at
 * a time (JSON_DISABLE_EOF_CHECK reports the bytes consumed). Each element goes straight into
 * the plan's flat arrays and is freed at once: peak memory is the text, the plan and one
 * element. Syntax errors keep jansson's wording, mapped onto the whole file's line and column.
 * Structural rules are ar_plan_finish's, with the same JSON paths.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "cert/plan_load_fields.h"

/* ---- Elements ------------------------------------------------------------------------------
 * Each converts one array element (already parsed by jansson) into the plan. */

typedef struct loader_t {
    char const *text;
    size_t length;
    size_t position;
    ar_plan_t *plan;
    ar_plan_error_t *error;
    ar_shift_t *scratch; /* one frame's entries */
    size_t scratch_capacity;
    ar_plane_range_t *ranges; /* one plane's reads, then its writes */
    size_t ranges_capacity;
} loader_t;

static ar_status_t pooled(loader_t *loader, char const *text, size_t length, char const **out) {
    *out = arp_plan_intern_n(loader->plan, text, length);
    return *out ? ar_status_success_k : ar_status_out_of_memory_k;
}

static ar_status_t load_window(loader_t *loader, json_t const *element, breach_t *where) {
    uint64_t base, size;
    ar_status_t status = arp_json_expect_object(element, where);
    if (!status) status = arp_json_member_u64(element, "base", &base, where);
    if (!status) status = arp_json_member_u64(element, "size", &size, where);
    if (!status) status = ar_plan_add_window(loader->plan, base, size);
    return status;
}

static ar_status_t load_global(loader_t *loader, json_t const *element, breach_t *where) {
    uint64_t base, size;
    char const *name;
    size_t name_length;
    ar_status_t status = arp_json_expect_object(element, where);
    if (!status)
        status = arp_json_member_string(element, "name", true, NULL, &name, &name_length, where);
    if (!status) status = arp_json_member_u64(element, "base", &base, where);
    if (!status) status = arp_json_member_u64(element, "size", &size, where);
    if (!status) status = pooled(loader, name, name_length, &name);
    if (!status) status = ar_plan_add_global(loader->plan, name, base, size);
    return status;
}

/* A plane's `reads` or `writes` into loader->ranges from `*count` on: absent or null is omitted
 * (*present false), else an array of {offset, size} objects. */
static ar_status_t load_plane_list(loader_t *loader, json_t const *plane, char const *key,
                                   bool *present, size_t *count, breach_t *where) {
    json_t const *list = json_object_get(plane, key);
    *present = list && !json_is_null(list);
    if (!*present) return ar_status_success_k;
    if (!json_is_array(list)) {
        snprintf(where->text, sizeof where->text,
                 "expected an array of {offset, size} ranges (absent or null: omitted), found %s",
                 arp_json_type_name(list));
        return arp_json_breach(where, ".%s", key);
    }
    size_t n = json_array_size(list);
    if (*count + n > loader->ranges_capacity) {
        ar_plane_range_t *grown = realloc(loader->ranges, (*count + n) * sizeof *grown);
        if (!grown) return ar_status_out_of_memory_k;
        loader->ranges = grown;
        loader->ranges_capacity = *count + n;
    }
    for (size_t k = 0; k < n; ++k) {
        json_t const *entry = json_array_get(list, k);
        ar_plane_range_t *range = &loader->ranges[*count + k];
        breach_t inner;
        inner.field[0] = '\0';
        ar_status_t status = arp_json_expect_object(entry, &inner);
        if (!status) status = arp_json_member_u64(entry, "offset", &range->offset, &inner);
        if (!status) status = arp_json_member_u64(entry, "size", &range->size, &inner);
        if (status) {
            snprintf(where->text, sizeof where->text, "%s", inner.text);
            return arp_json_breach(where, ".%s[%zu]%s", key, k, inner.field);
        }
    }
    *count += n;
    return ar_status_success_k;
}

static ar_status_t load_phase(loader_t *loader, json_t const *element, breach_t *where) {
    char const *id;
    size_t id_length;
    ar_status_t status = arp_json_expect_object(element, where);
    if (!status) status = arp_json_member_string(element, "id", true, NULL, &id, &id_length, where);
    if (status) return status;
    json_t const *planes = json_object_get(element, "planes");
    if (planes && json_is_null(planes)) planes = NULL;
    if (planes && !json_is_array(planes)) {
        snprintf(where->text, sizeof where->text, "expected an array, found %s",
                 arp_json_type_name(planes));
        return arp_json_breach(where, ".planes");
    }
    if (!status) status = pooled(loader, id, id_length, &id);
    if (!status) status = ar_plan_add_phase(loader->plan, id);
    for (size_t j = 0; j < json_array_size(planes) && !status; ++j) {
        json_t const *plane = json_array_get(planes, j);
        breach_t inner;
        char const *name, *becomes = NULL;
        size_t name_length, becomes_length = 0;
        uint64_t base, size;
        bool carried = false;
        status = arp_json_expect_object(plane, &inner);
        if (!status)
            status = arp_json_member_string(plane, "name", true, NULL, &name, &name_length, &inner);
        if (!status) status = arp_json_member_u64(plane, "base", &base, &inner);
        if (!status) status = arp_json_member_u64(plane, "size", &size, &inner);
        if (!status) {
            json_t const *flag = json_object_get(plane, "carried");
            if (flag && !json_is_boolean(flag) && !json_is_null(flag)) {
                snprintf(inner.text, sizeof inner.text,
                         "expected true or false (absent or null means fresh), found %s",
                         arp_json_type_name(flag));
                status = arp_json_breach(&inner, ".carried");
            }
            carried = flag && json_is_true(flag);
        }
        if (!status)
            status = arp_json_member_string(plane, "becomes", false, NULL, &becomes,
                                            &becomes_length, &inner);
        bool has_reads = false, has_writes = false;
        size_t reads = 0, ranges = 0;
        if (!status) status = load_plane_list(loader, plane, "reads", &has_reads, &ranges, &inner);
        reads = ranges;
        if (!status)
            status = load_plane_list(loader, plane, "writes", &has_writes, &ranges, &inner);
        if (status == ar_status_invalid_argument_k) {
            snprintf(where->text, sizeof where->text, "%s", inner.text);
            return arp_json_breach(where, ".planes[%zu]%s", j, inner.field);
        }
        if (!status) status = pooled(loader, name, name_length, &name);
        if (!status && becomes) status = pooled(loader, becomes, becomes_length, &becomes);
        if (!status)
            status = ar_plan_add_plane_becomes(loader->plan, name, base, size, carried, becomes);
        if (!status && has_reads)
            status = ar_plan_set_plane_reads(loader->plan, loader->ranges, reads);
        if (!status && has_writes)
            status = ar_plan_set_plane_writes(
                loader->plan, ranges > reads ? loader->ranges + reads : NULL, ranges - reads);
    }
    return status;
}

static ar_status_t load_launch(loader_t *loader, json_t const *element, breach_t *where) {
    ar_status_t status = arp_json_expect_object(element, where);
    char const *kernel, *phase;
    size_t kernel_length, phase_length;
    if (!status)
        status =
            arp_json_member_string(element, "kernel", false, "", &kernel, &kernel_length, where);
    if (!status)
        status =
            arp_json_member_string(element, "phase", false, NULL, &phase, &phase_length, where);
    if (status) return status;
    json_t const *words = json_object_get(element, "words");
    if (words && json_is_null(words)) words = NULL;
    if (words && !json_is_array(words)) {
        snprintf(where->text, sizeof where->text, "expected an array, found %s",
                 arp_json_type_name(words));
        return arp_json_breach(where, ".words");
    }
    status = pooled(loader, kernel, kernel_length, &kernel);
    if (!status && phase) status = pooled(loader, phase, phase_length, &phase);
    size_t count = json_array_size(words);
    uint64_t *destination;
    if (!status)
        status = arp_plan_add_launch_pooled(loader->plan, kernel, phase, count, &destination);
    for (size_t w = 0; w < count && !status; ++w)
        if (arp_json_to_u64(json_array_get(words, w), &destination[w], where))
            return arp_json_breach(where, ".words[%zu]", w);
    return status;
}

/* One entry {launch, word, delta|offset}. */
static ar_status_t load_shift(json_t const *entry, char const *shift_key, ar_shift_t *out,
                              breach_t *where) {
    ar_status_t status = arp_json_expect_object(entry, where);
    if (!status) status = arp_json_member_index(entry, "launch", &out->launch, where);
    if (!status) status = arp_json_member_index(entry, "word", &out->word, where);
    if (status) return status;
    json_t const *shift = json_object_get(entry, shift_key);
    if (!shift) return arp_json_missing(where, shift_key, "a signed 64-bit shift");
    if (arp_json_to_i64(shift, &out->shift, where)) return arp_json_breach(where, ".%s", shift_key);
    return ar_status_success_k;
}

/* Convert an array of entries into loader->scratch; the breach field is `prefix[j]…`. */
static ar_status_t load_shift_list(loader_t *loader, json_t const *list, char const *shift_key,
                                   char const *prefix, size_t *count, breach_t *where) {
    if (!json_is_array(list)) {
        snprintf(where->text, sizeof where->text,
                 "expected an array of {launch, word, %s}, found %s", shift_key,
                 arp_json_type_name(list));
        return arp_json_breach(where, "%s", prefix);
    }
    size_t n = json_array_size(list);
    if (n > loader->scratch_capacity) {
        ar_shift_t *grown = realloc(loader->scratch, n * sizeof *grown);
        if (!grown) return ar_status_out_of_memory_k;
        loader->scratch = grown;
        loader->scratch_capacity = n;
    }
    for (size_t j = 0; j < n; ++j) {
        breach_t inner;
        ar_status_t status =
            load_shift(json_array_get(list, j), shift_key, &loader->scratch[j], &inner);
        if (status) {
            snprintf(where->text, sizeof where->text, "%s", inner.text);
            return arp_json_breach(where, "%s[%zu]%s", prefix, j, inner.field);
        }
    }
    *count = n;
    return ar_status_success_k;
}

static ar_status_t load_reference(loader_t *loader, json_t const *element, breach_t *where) {
    size_t first, count;
    ar_status_t status = arp_json_expect_object(element, where);
    if (!status) status = arp_json_member_index(element, "first", &first, where);
    if (!status) status = arp_json_member_index(element, "count", &count, where);
    if (!status) status = ar_plan_add_reference(loader->plan, first, count);
    return status;
}

/* ---- The top-level walk --------------------------------------------------------------------- */

/* Line and column (1-based, in bytes) of byte `offset` of the whole text. */
static void locate(loader_t const *loader, size_t offset, int *line, int *column) {
    long long l = 1, c = 1;
    for (size_t i = 0; i < offset && i < loader->length; ++i) {
        if (loader->text[i] == '\n') {
            ++l;
            c = 1;
        } else {
            ++c;
        }
    }
    *line = l > INT32_MAX ? INT32_MAX : (int)l;
    *column = c > INT32_MAX ? INT32_MAX : (int)c;
}

/* A syntax error at byte `offset` (the walker's own: missing comma, colon, bracket). */
static ar_status_t syntax_at(loader_t *loader, size_t offset, char const *path, char const *what) {
    int line, column;
    locate(loader, offset, &line, &column);
    return arp_plan_fail(loader->error, ar_status_invalid_argument_k, path, line, column,
                         "syntax error: %s", what);
}

static void skip_space(loader_t *loader) {
    while (loader->position < loader->length) {
        char c = loader->text[loader->position];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
        ++loader->position;
    }
}

static int peek(loader_t *loader) {
    skip_space(loader);
    return loader->position < loader->length ? (unsigned char)loader->text[loader->position] : -1;
}

/* Parse one JSON value at the current position with jansson. On a syntax error, report it at
 * its line and column in the whole text, naming the path `format` gives (formatted only then:
 * the loader parses millions of elements). */
static ar_status_t parse_value(loader_t *loader, json_t **value, char const *format, ...)
    __attribute__((format(printf, 3, 4)));
static ar_status_t parse_value(loader_t *loader, json_t **value, char const *format, ...) {
    skip_space(loader);
    size_t start = loader->position;
    json_error_t json_error;
    *value =
        json_loadb(loader->text + start, loader->length - start,
                   JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES, &json_error);
    if (*value) {
        loader->position = start + (size_t)json_error.position;
        return ar_status_success_k;
    }
    char path[256];
    va_list args;
    va_start(args, format);
    vsnprintf(path, sizeof path, format, args);
    va_end(args);
    /* jansson's line/column count from the value's start: shift them onto the whole text. */
    int line0, column0;
    locate(loader, start, &line0, &column0);
    int line = json_error.line > 0 ? line0 + json_error.line - 1 : line0;
    int column = json_error.line == 1    ? column0 + json_error.column - 1
                 : json_error.column > 0 ? json_error.column
                                         : column0;
    return arp_plan_fail(loader->error, ar_status_invalid_argument_k, path, line, column,
                         "syntax error: %s", json_error.text);
}

/* Refuse the value at the current position, which is not what `path` needs (`expected`). */
static ar_status_t wrong_type(loader_t *loader, char const *path, char const *expected) {
    json_t *value;
    ar_status_t status = parse_value(loader, &value, "%s", path);
    if (status) return status;
    status = arp_plan_fail(loader->error, ar_status_invalid_argument_k, path, 0, 0,
                           "expected %s, found %s", expected, arp_json_type_name(value));
    json_decref(value);
    return status;
}

/* Walk the JSON array at the current position (`path` names it): `element` consumes each
 * element in turn, at its index. */
typedef ar_status_t (*array_walker_t)(loader_t *, size_t index, void *context);
static ar_status_t walk_array(loader_t *loader, char const *path, char const *expected,
                              array_walker_t element, void *context) {
    if (peek(loader) != '[') return wrong_type(loader, path, expected);
    ++loader->position;
    if (peek(loader) == ']') {
        ++loader->position;
        return ar_status_success_k;
    }
    for (size_t index = 0;; ++index) {
        ar_status_t status = element(loader, index, context);
        if (status) return status;
        int next = peek(loader);
        if (next == ',') {
            ++loader->position;
            continue;
        }
        if (next == ']') {
            ++loader->position;
            return ar_status_success_k;
        }
        return syntax_at(loader, loader->position, path,
                         next < 0 ? "the text ends inside an array: expected ',' or ']'"
                                  : "expected ',' or ']' after an array element");
    }
}

/* Walk the JSON object at the current position (`path` names it): `member` consumes each
 * member's value, given its key. Duplicate keys are refused, as jansson refuses them inside
 * elements. */
typedef ar_status_t (*object_walker_t)(loader_t *, char const *key, char const *path,
                                       void *context);
static ar_status_t walk_object(loader_t *loader, char const *path, object_walker_t member,
                               void *context) {
    if (peek(loader) != '{') {
        if (peek(loader) < 0)
            return syntax_at(loader, loader->position, path, "the text ends here");
        return wrong_type(loader, path, "an object");
    }
    ++loader->position;
    if (peek(loader) == '}') {
        ++loader->position;
        return ar_status_success_k;
    }
    json_t *seen = json_object();
    if (!seen) return ar_status_out_of_memory_k;
    ar_status_t status;
    for (;;) {
        if (peek(loader) != '"') {
            status = syntax_at(loader, loader->position, path, "expected a field name in quotes");
            break;
        }
        size_t key_offset = loader->position;
        json_t *key;
        status = parse_value(loader, &key, "%s", path);
        if (status) break;
        char const *name = json_string_value(key);
        char member_path[256];
        snprintf(member_path, sizeof member_path, "%s.%.160s", path, name);
        bool duplicate = json_object_get(seen, name) != NULL;
        if (!duplicate && json_object_set(seen, name, json_true()))
            status = ar_status_out_of_memory_k;
        if (duplicate)
            status = syntax_at(loader, key_offset, member_path, "duplicate field");
        else if (!status && peek(loader) != ':')
            status =
                syntax_at(loader, loader->position, member_path, "expected ':' after a field name");
        if (!status) {
            ++loader->position;
            status = member(loader, name, member_path, context);
        }
        json_decref(key);
        if (status) break;
        int next = peek(loader);
        if (next == ',') {
            ++loader->position;
            continue;
        }
        if (next == '}') {
            ++loader->position;
            break;
        }
        status = syntax_at(loader, loader->position, path,
                           next < 0 ? "the text ends inside an object: expected ',' or '}'"
                                    : "expected ',' or '}' after a field");
        break;
    }
    json_decref(seen);
    return status;
}

/* ---- Arrays of small elements: parse one with jansson, convert it, free it ----------------- */

typedef ar_status_t (*element_loader_t)(loader_t *, json_t const *, breach_t *);
typedef struct element_array_t {
    char const *path; /* the array's path, "$.launches" */
    element_loader_t load;
} element_array_t;

static ar_status_t walk_element(loader_t *loader, size_t index, void *context) {
    element_array_t const *array = context;
    json_t *element;
    ar_status_t status = parse_value(loader, &element, "%s[%zu]", array->path, index);
    if (status) return status;
    breach_t where;
    where.field[0] = where.text[0] = '\0';
    status = array->load(loader, element, &where);
    json_decref(element);
    if (status == ar_status_invalid_argument_k) {
        char path[256];
        snprintf(path, sizeof path, "%s[%zu]%s", array->path, index, where.field);
        return arp_plan_fail(loader->error, status, path, 0, 0, "%s", where.text);
    }
    return status;
}

static ar_status_t load_elements(loader_t *loader, char const *path, element_loader_t load) {
    element_array_t array = {path, load};
    return walk_array(loader, path, "an array", walk_element, &array);
}

/* ---- Repeats: walked member by member, so that millions of frames or deltas never form one
 * jansson tree. The repeat is created when its deltas or frames begin (its shifts follow it in
 * plan->shifts) and its first, count and iterations are filled in when its object closes. ---- */

typedef struct repeat_walk_t {
    size_t index;    /* in $.repeats */
    char path[64];   /* "$.repeats[index]" */
    json_t *scalars; /* first, count, iterations as given */
    bool has_deltas, has_frames;
    size_t repeat; /* index in plan->repeats once created */
} repeat_walk_t;

static ar_status_t walk_delta(loader_t *loader, size_t index, void *context) {
    repeat_walk_t const *walk = context;
    json_t *entry;
    ar_status_t status = parse_value(loader, &entry, "%s.deltas[%zu]", walk->path, index);
    if (status) return status;
    breach_t where;
    where.field[0] = where.text[0] = '\0';
    ar_shift_t shift;
    status = load_shift(entry, "delta", &shift, &where);
    json_decref(entry);
    if (status == ar_status_invalid_argument_k) {
        char path[256];
        snprintf(path, sizeof path, "%s.deltas[%zu]%s", walk->path, index, where.field);
        return arp_plan_fail(loader->error, status, path, 0, 0, "%s", where.text);
    }
    ar_plan_t *plan = loader->plan;
    if (!status) status = arp_plan_reserve_shifts(plan, 1);
    if (status) return status;
    plan->shifts[plan->shifts_count++] = shift;
    ++plan->repeats[walk->repeat].shifts_count;
    return ar_status_success_k;
}

static ar_status_t walk_frame(loader_t *loader, size_t index, void *context) {
    repeat_walk_t const *walk = context;
    json_t *frame;
    ar_status_t status = parse_value(loader, &frame, "%s.frames[%zu]", walk->path, index);
    if (status) return status;
    breach_t where;
    where.field[0] = where.text[0] = '\0';
    size_t count = 0;
    status = load_shift_list(loader, frame, "offset", "", &count, &where);
    json_decref(frame);
    if (status == ar_status_invalid_argument_k) {
        char path[256];
        snprintf(path, sizeof path, "%s.frames[%zu]%s", walk->path, index, where.field);
        return arp_plan_fail(loader->error, status, path, 0, 0, "%s", where.text);
    }
    if (!status) status = ar_plan_add_frame(loader->plan, loader->scratch, count);
    return status;
}

static ar_status_t walk_repeat_member(loader_t *loader, char const *key, char const *path,
                                      void *context) {
    repeat_walk_t *walk = context;
    bool deltas = strcmp(key, "deltas") == 0, frames = strcmp(key, "frames") == 0;
    if (deltas || frames) {
        if (walk->has_deltas || walk->has_frames)
            return arp_plan_fail(loader->error, ar_status_invalid_argument_k, walk->path, 0, 0,
                                 "a repeat has \"deltas\" or \"frames\", not both");
        /* Placeholders for first, count and iterations until the object closes. */
        ar_status_t status = deltas ? ar_plan_add_repeat_deltas(loader->plan, 0, 0, 0, NULL, 0)
                                    : ar_plan_add_repeat_frames(loader->plan, 0, 0, 0);
        if (status) return status;
        walk->repeat = loader->plan->repeats_count - 1;
        walk->has_deltas = deltas;
        walk->has_frames = frames;
        return deltas
                   ? walk_array(loader, path, "an array of {launch, word, delta}", walk_delta, walk)
                   : walk_array(loader, path, "an array of frames", walk_frame, walk);
    }
    json_t *value;
    ar_status_t status = parse_value(loader, &value, "%s", path);
    if (status) return status;
    if (strcmp(key, "first") == 0 || strcmp(key, "count") == 0 || strcmp(key, "iterations") == 0)
        status = json_object_set(walk->scalars, key, value) ? ar_status_out_of_memory_k
                                                            : ar_status_success_k;
    json_decref(value);
    return status;
}

static ar_status_t walk_repeat(loader_t *loader, size_t index, void *context) {
    (void)context;
    repeat_walk_t walk = {.index = index, .scalars = json_object()};
    if (!walk.scalars) return ar_status_out_of_memory_k;
    snprintf(walk.path, sizeof walk.path, "$.repeats[%zu]", index);
    ar_status_t status = walk_object(loader, walk.path, walk_repeat_member, &walk);
    breach_t where;
    where.field[0] = where.text[0] = '\0';
    size_t first = 0, count = 0;
    uint64_t iterations = 0;
    if (!status) {
        status = arp_json_member_index(walk.scalars, "first", &first, &where);
        if (!status) status = arp_json_member_index(walk.scalars, "count", &count, &where);
        if (!status) status = arp_json_member_u64(walk.scalars, "iterations", &iterations, &where);
        if (status == ar_status_invalid_argument_k) {
            char path[256];
            snprintf(path, sizeof path, "%s%s", walk.path, where.field);
            arp_plan_fail(loader->error, status, path, 0, 0, "%s", where.text);
        }
    }
    if (!status && !walk.has_deltas && !walk.has_frames)
        status = arp_plan_fail(loader->error, ar_status_invalid_argument_k, walk.path, 0, 0,
                               "a repeat needs \"deltas\" or \"frames\" (an empty \"deltas\" "
                               "moves nothing)");
    if (!status) {
        ar_repeat_t *repeat = &loader->plan->repeats[walk.repeat];
        repeat->first = first;
        repeat->count = count;
        repeat->iterations = iterations;
    }
    json_decref(walk.scalars);
    return status;
}

/* ---- The top level ------------------------------------------------------------------------ */

enum {
    field_format,
    field_alignment,
    field_windows,
    field_globals,
    field_phases,
    field_launches,
    field_repeats,
    field_schedule,
    field_meta,
    field_known_count
};
static char const *const field_names[field_known_count] = {
    "format",   "alignment", "windows",  "globals", "phases",
    "launches", "repeats",   "schedule", "meta",
};

typedef struct top_walk_t {
    bool seen[field_known_count];
} top_walk_t;

/* One top-level member's value, at the current position. */
static ar_status_t walk_top_member(loader_t *loader, char const *key, char const *path,
                                   void *context) {
    top_walk_t *walk = context;
    static element_loader_t const loaders[field_known_count] = {
        [field_windows] = load_window,     [field_globals] = load_global,
        [field_phases] = load_phase,       [field_launches] = load_launch,
        [field_schedule] = load_reference,
    };
    int field = -1;
    for (int f = 0; f < field_known_count; ++f)
        if (strcmp(key, field_names[f]) == 0) field = f;
    if (field >= 0) walk->seen[field] = true;
    bool optional = field == field_windows || field == field_globals || field == field_repeats;
    if (optional && peek(loader) == 'n') {
        json_t *value;
        ar_status_t status = parse_value(loader, &value, "%s", path);
        if (status) return status;
        bool is_null = json_is_null(value);
        json_decref(value);
        if (is_null) return ar_status_success_k; /* null means omitted */
        return arp_plan_fail(loader->error, ar_status_invalid_argument_k, path, 0, 0,
                             "expected an array");
    }
    if (field == field_repeats) return walk_array(loader, path, "an array", walk_repeat, NULL);
    if (field >= 0 && loaders[field]) return load_elements(loader, path, loaders[field]);
    json_t *value;
    ar_status_t status = parse_value(loader, &value, "%s", path);
    if (status) return status;
    breach_t where;
    where.field[0] = '\0';
    if (field == field_format) {
        if (!json_is_string(value) || strcmp(json_string_value(value), "arena-plan/1") != 0) {
            char shown[64] = "";
            if (json_is_string(value))
                arp_json_quote(shown, sizeof shown, json_string_value(value),
                               json_string_length(value));
            status = arp_plan_fail(loader->error, ar_status_invalid_argument_k, path, 0, 0,
                                   "format must be \"arena-plan/1\", found %s",
                                   json_is_string(value) ? shown : arp_json_type_name(value));
        }
    } else if (field == field_alignment) {
        uint64_t alignment;
        if (arp_json_to_u64(value, &alignment, &where))
            status = arp_plan_fail(loader->error, ar_status_invalid_argument_k, path, 0, 0, "%s",
                                   where.text);
        else
            status = ar_plan_set_alignment(loader->plan, alignment);
    } else if (field == field_meta && json_is_object(value)) {
        char *compact = json_dumps(value, JSON_COMPACT);
        if (!compact) status = ar_status_out_of_memory_k;
        free(loader->plan->meta_json);
        loader->plan->meta_json = compact;
    }
    json_decref(value);
    return status;
}

static ar_status_t load_text(loader_t *loader) {
    if (peek(loader) < 0) return syntax_at(loader, loader->position, "$", "the text is empty");
    if (peek(loader) != '{') {
        json_t *value;
        ar_status_t status = parse_value(loader, &value, "$");
        if (status) return status;
        status = arp_plan_fail(loader->error, ar_status_invalid_argument_k, "$", 0, 0,
                               "a plan is a JSON object, found %s", arp_json_type_name(value));
        json_decref(value);
        return status;
    }
    top_walk_t walk = {{false}};
    ar_status_t status = walk_object(loader, "$", walk_top_member, &walk);
    if (status) return status;
    if (peek(loader) >= 0)
        return syntax_at(loader, loader->position, "$", "extra text after the plan's object");
    for (int f = 0; f < field_meta; ++f)
        if (!walk.seen[f] && f != field_windows && f != field_globals && f != field_repeats) {
            char path[32];
            snprintf(path, sizeof path, "$.%s", field_names[f]);
            return arp_plan_fail(loader->error, ar_status_invalid_argument_k, path, 0, 0,
                                 "missing required field \"%s\"", field_names[f]);
        }
    return ar_status_success_k;
}

/* A malformed plan's error found on the flat arrays (no position): the line and column of the
 * value its path names, found in the text. */
static void add_position(loader_t const *loader, ar_plan_error_t *error) {
    int line, column;
    locate(loader, arp_json_locate(loader->text, loader->length, error->path), &line, &column);
    char message[sizeof error->message], path[sizeof error->path];
    memcpy(message, error->message, sizeof message);
    memcpy(path, error->path, sizeof path);
    size_t prefix = strlen(path);
    bool named = strncmp(message, path, prefix) == 0 && strncmp(message + prefix, ": ", 2) == 0;
    arp_plan_fail(error, error->status, path, line, column, "%s",
                  named ? message + prefix + 2 : message);
}

ar_status_t ar_plan_load_buffer(char const *text, size_t length, ar_plan_t **plan,
                                ar_plan_error_t *error) {
    arp_plan_error_clear(error);
    if (!plan)
        return arp_plan_fail(error, ar_status_invalid_argument_k, "", 0, 0, "no plan pointer");
    *plan = NULL;
    if (!text && length)
        return arp_plan_fail(error, ar_status_invalid_argument_k, "", 0, 0, "no text");
    loader_t loader = {.text = text ? text : "", .length = length, .error = error};
    ar_status_t status = ar_plan_create(&loader.plan);
    if (status) return arp_plan_fail(error, status, "", 0, 0, "out of memory");
    /* Local error so that an out-of-memory inside a builder call still gets a message. */
    ar_plan_error_t local;
    if (!error) loader.error = &local;
    arp_plan_error_clear(loader.error);
    status = load_text(&loader);
    if (status && !loader.error->status)
        arp_plan_fail(loader.error, status, "", 0, 0, "out of memory while loading the plan");
    free(loader.scratch);
    free(loader.ranges);
    if (!status) status = ar_plan_finish(loader.plan, loader.error);
    if (status == ar_status_invalid_argument_k && error && error->line == 0 && error->path[0])
        add_position(&loader, error);
    if (status) {
        ar_plan_free(loader.plan);
        return status;
    }
    *plan = loader.plan;
    return ar_status_success_k;
}

/* Read a whole stream: one read of the known size for a regular file, doubling otherwise. */
static ar_status_t read_all(FILE *file, char **text, size_t *length) {
    size_t capacity = 1 << 16, used = 0;
    struct stat info;
    if (fstat(fileno(file), &info) == 0 && S_ISREG(info.st_mode) && info.st_size > 0)
        capacity = (size_t)info.st_size + 1;
    char *buffer = malloc(capacity);
    if (!buffer) return ar_status_out_of_memory_k;
    for (;;) {
        if (used == capacity) {
            char *grown = capacity > SIZE_MAX / 2 ? NULL : realloc(buffer, capacity * 2);
            if (!grown) {
                free(buffer);
                return ar_status_out_of_memory_k;
            }
            buffer = grown;
            capacity *= 2;
        }
        size_t got = fread(buffer + used, 1, capacity - used, file);
        used += got;
        if (got == 0) break;
    }
    if (ferror(file)) {
        free(buffer);
        return ar_status_io_k;
    }
    *text = buffer;
    *length = used;
    return ar_status_success_k;
}

ar_status_t ar_plan_load_file(char const *path, ar_plan_t **plan, ar_plan_error_t *error) {
    arp_plan_error_clear(error);
    if (plan) *plan = NULL;
    if (!path || !plan)
        return arp_plan_fail(error, ar_status_invalid_argument_k, "", 0, 0,
                             "no path or plan pointer");
    bool standard_input = strcmp(path, "-") == 0;
    FILE *file = standard_input ? stdin : fopen(path, "rb");
    if (!file)
        return arp_plan_fail(error, ar_status_io_k, "", 0, 0, "cannot open %s: %s", path,
                             strerror(errno));
    char *text = NULL;
    size_t length = 0;
    ar_status_t status = read_all(file, &text, &length);
    int saved = errno;
    if (!standard_input) fclose(file);
    if (status == ar_status_io_k)
        return arp_plan_fail(error, status, "", 0, 0, "cannot read %s: %s",
                             standard_input ? "standard input" : path, strerror(saved));
    if (status) return arp_plan_fail(error, status, "", 0, 0, "out of memory reading %s", path);
    status = ar_plan_load_buffer(text, length, plan, error);
    free(text);
    return status;
}
