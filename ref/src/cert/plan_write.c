/* The JSON writer for `arena-plan/1`: the inverse of the loader (load(write(p)) equals p).
 *
 * It formats straight from the flat arrays into a 64 KiB buffer (flushed to the FILE) or into a
 * growing string, with hand-rolled hex and decimal formatting: no jansson tree, no printf per
 * word. Addresses, sizes, words and the offsets of a plane's reads and writes are "0x…" strings;
 * alignment, indices, counts and iterations are JSON integers (hex strings past 2^63, where a
 * JSON integer cannot hold them); deltas and frame offsets are signed JSON integers, which hold
 * every int64. One launch, range or reference per
 * line keeps big plans greppable. "meta" is written back as the compact JSON it was kept as.
 */
#include <stdlib.h>
#include <string.h>

#include "cert/plan_internal.h"

typedef struct writer_t {
    FILE *file; /* NULL: into `data`, growing */
    char *data;
    size_t used, capacity;
    bool failed; /* a write or allocation failed; the status says which */
    ar_status_t status;
} writer_t;

enum { writer_chunk = 64 * 1024 };

/* Make room for `more` bytes. */
static bool reserve(writer_t *writer, size_t more) {
    if (writer->failed) return false;
    if (writer->capacity - writer->used >= more) return true;
    if (writer->file) {
        if (writer->used && fwrite(writer->data, 1, writer->used, writer->file) != writer->used) {
            writer->failed = true;
            writer->status = ar_status_io_k;
            return false;
        }
        writer->used = 0;
        if (writer->capacity >= more) return true;
    }
    size_t capacity = writer->capacity ? writer->capacity : writer_chunk;
    while (capacity - writer->used < more) {
        if (capacity > SIZE_MAX / 2) {
            writer->failed = true;
            writer->status = ar_status_out_of_memory_k;
            return false;
        }
        capacity *= 2;
    }
    char *grown = realloc(writer->data, capacity);
    if (!grown) {
        writer->failed = true;
        writer->status = ar_status_out_of_memory_k;
        return false;
    }
    writer->data = grown;
    writer->capacity = capacity;
    return true;
}

static void put(writer_t *writer, char const *text, size_t length) {
    if (!reserve(writer, length)) return;
    memcpy(writer->data + writer->used, text, length);
    writer->used += length;
}

static void put_text(writer_t *writer, char const *text) { put(writer, text, strlen(text)); }

static void put_hex(writer_t *writer, uint64_t value) {
    static char const digits[] = "0123456789abcdef";
    char text[20];
    size_t at = sizeof text;
    text[--at] = '"';
    do {
        text[--at] = digits[value & 15];
        value >>= 4;
    } while (value);
    text[--at] = 'x';
    text[--at] = '0';
    text[--at] = '"';
    put(writer, text + at, sizeof text - at);
}

static void put_unsigned(writer_t *writer, uint64_t value) {
    if (value > (uint64_t)INT64_MAX) {
        put_hex(writer, value); /* a JSON integer holds [0, 2^63) in this format */
        return;
    }
    char text[24];
    size_t at = sizeof text;
    do {
        text[--at] = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    put(writer, text + at, sizeof text - at);
}

static void put_signed(writer_t *writer, int64_t value) {
    if (value < 0) {
        put(writer, "-", 1);
        uint64_t magnitude = 0 - (uint64_t)value;
        char text[24];
        size_t at = sizeof text;
        do {
            text[--at] = (char)('0' + magnitude % 10);
            magnitude /= 10;
        } while (magnitude);
        put(writer, text + at, sizeof text - at);
        return;
    }
    put_unsigned(writer, (uint64_t)value);
}

/* A JSON string: quotes, backslashes and control characters escaped; other bytes as they are. */
static void put_string(writer_t *writer, char const *text) {
    put(writer, "\"", 1);
    char const *run = text;
    for (char const *at = text;; ++at) {
        unsigned char c = (unsigned char)*at;
        if (c && c != '"' && c != '\\' && c >= 0x20) continue;
        put(writer, run, (size_t)(at - run));
        if (!c) break;
        char escape[8];
        if (c == '"' || c == '\\') {
            escape[0] = '\\';
            escape[1] = (char)c;
            put(writer, escape, 2);
        } else {
            snprintf(escape, sizeof escape, "\\u%04x", c);
            put(writer, escape, 6);
        }
        run = at + 1;
    }
    put(writer, "\"", 1);
}

static void put_range(writer_t *writer, uint64_t base, uint64_t size) {
    put_text(writer, "\"base\": ");
    put_hex(writer, base);
    put_text(writer, ", \"size\": ");
    put_hex(writer, size);
}

static void put_shifts(writer_t *writer, ar_shift_t const *shifts, size_t count,
                       char const *shift_key) {
    put(writer, "[", 1);
    for (size_t j = 0; j < count; ++j) {
        put_text(writer, j ? ", {\"launch\": " : "{\"launch\": ");
        put_unsigned(writer, shifts[j].launch);
        put_text(writer, ", \"word\": ");
        put_unsigned(writer, shifts[j].word);
        put_text(writer, ", \"");
        put_text(writer, shift_key);
        put_text(writer, "\": ");
        put_signed(writer, shifts[j].shift);
        put(writer, "}", 1);
    }
    put(writer, "]", 1);
}

/* A plane's `reads` or `writes`, when present: `, "KEY": [{"offset": "0x…", "size": "0x…"}, …]`. */
static void put_plane_list(writer_t *writer, ar_plan_t const *plan, char const *key, bool present,
                           size_t first, size_t count) {
    if (!present) return;
    put_text(writer, ", \"");
    put_text(writer, key);
    put_text(writer, "\": [");
    for (size_t k = 0; k < count; ++k) {
        put_text(writer, k ? ", {\"offset\": " : "{\"offset\": ");
        put_hex(writer, plan->plane_ranges[first + k].offset);
        put_text(writer, ", \"size\": ");
        put_hex(writer, plan->plane_ranges[first + k].size);
        put(writer, "}", 1);
    }
    put(writer, "]", 1);
}

static void write_plan(writer_t *writer, ar_plan_t const *plan) {
    put_text(writer, "{\n\"format\": \"arena-plan/1\",\n");
    if (plan->meta_json) {
        put_text(writer, "\"meta\": ");
        put_text(writer, plan->meta_json);
        put_text(writer, ",\n");
    }
    put_text(writer, "\"alignment\": ");
    put_unsigned(writer, plan->alignment);

    put_text(writer, ",\n\"windows\": [");
    for (size_t i = 0; i < plan->windows_count; ++i) {
        put_text(writer, i ? ",\n  {" : "\n  {");
        put_range(writer, plan->windows[i].base, plan->windows[i].size);
        put(writer, "}", 1);
    }
    put_text(writer, "],\n\"globals\": [");
    for (size_t i = 0; i < plan->globals_count; ++i) {
        put_text(writer, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
        put_string(writer, plan->globals[i].name);
        put_text(writer, ", ");
        put_range(writer, plan->globals[i].base, plan->globals[i].size);
        put(writer, "}", 1);
    }
    put_text(writer, "],\n\"phases\": [");
    for (size_t p = 0; p < plan->phases_count; ++p) {
        ar_phase_t const *phase = &plan->phases[p];
        put_text(writer, p ? ",\n  {\"id\": " : "\n  {\"id\": ");
        put_string(writer, phase->id);
        put_text(writer, ", \"planes\": [");
        for (size_t j = 0; j < phase->planes_count; ++j) {
            ar_plane_t const *plane = &plan->planes[phase->planes_first + j];
            put_text(writer, j ? ",\n    {\"name\": " : "\n    {\"name\": ");
            put_string(writer, plane->name);
            put_text(writer, ", ");
            put_range(writer, plane->base, plane->size);
            put_text(writer, plane->carried ? ", \"carried\": true" : ", \"carried\": false");
            if (plane->becomes) {
                put_text(writer, ", \"becomes\": ");
                put_string(writer, plane->becomes);
            }
            if (plan->plane_access) {
                ar_plane_access_t const *access = &plan->plane_access[phase->planes_first + j];
                put_plane_list(writer, plan, "reads", access->has_reads, access->reads_first,
                               access->reads_count);
                put_plane_list(writer, plan, "writes", access->has_writes, access->writes_first,
                               access->writes_count);
            }
            put_text(writer, "}");
        }
        put_text(writer, "]}");
    }
    put_text(writer, "],\n\"launches\": [");
    for (size_t i = 0; i < plan->launches_count && !writer->failed; ++i) {
        ar_launch_t const *launch = &plan->launches[i];
        put_text(writer, i ? ",\n  {\"kernel\": " : "\n  {\"kernel\": ");
        put_string(writer, launch->kernel ? launch->kernel : "");
        if (launch->phase_name) {
            put_text(writer, ", \"phase\": ");
            put_string(writer, launch->phase_name);
        }
        put_text(writer, ", \"words\": [");
        uint64_t const *words = plan->words + launch->words_first;
        for (size_t w = 0; w < launch->words_count; ++w) {
            if (w) put(writer, ", ", 2);
            put_hex(writer, words[w]);
        }
        put_text(writer, "]}");
    }
    put_text(writer, "],\n\"repeats\": [");
    for (size_t r = 0; r < plan->repeats_count; ++r) {
        ar_repeat_t const *repeat = &plan->repeats[r];
        put_text(writer, r ? ",\n  {\"first\": " : "\n  {\"first\": ");
        put_unsigned(writer, repeat->first);
        put_text(writer, ", \"count\": ");
        put_unsigned(writer, repeat->count);
        put_text(writer, ", \"iterations\": ");
        put_unsigned(writer, repeat->iterations);
        if (!repeat->has_frames) {
            put_text(writer, ", \"deltas\": ");
            put_shifts(writer, plan->shifts + repeat->shifts_first, repeat->shifts_count, "delta");
        } else {
            put_text(writer, ", \"frames\": [");
            size_t frames =
                plan->internals ? plan->internals->repeat_frames[r] : (size_t)repeat->iterations;
            for (size_t f = 0; f < frames; ++f) {
                size_t begin = plan->frame_starts[repeat->frames_first + f];
                size_t end = plan->frame_starts[repeat->frames_first + f + 1];
                put_text(writer, f ? ",\n    " : "\n    ");
                put_shifts(writer, plan->shifts + begin, end - begin, "offset");
            }
            put(writer, "]", 1);
        }
        put(writer, "}", 1);
    }
    put_text(writer, "],\n\"schedule\": [");
    for (size_t k = 0; k < plan->schedule_count; ++k) {
        put_text(writer, k ? ",\n  {\"first\": " : "\n  {\"first\": ");
        put_unsigned(writer, plan->schedule[k].first);
        put_text(writer, ", \"count\": ");
        put_unsigned(writer, plan->schedule[k].count);
        put(writer, "}", 1);
    }
    put_text(writer, "]\n}\n");
}

ar_status_t ar_plan_write_file(ar_plan_t const *plan, FILE *file, ar_plan_error_t *error) {
    arp_plan_error_clear(error);
    if (!plan || !file)
        return arp_plan_fail(error, ar_status_invalid_argument_k, "", 0, 0, "no plan or file");
    writer_t writer = {.file = file};
    write_plan(&writer, plan);
    if (!writer.failed && writer.used && fwrite(writer.data, 1, writer.used, file) != writer.used) {
        writer.failed = true;
        writer.status = ar_status_io_k;
    }
    free(writer.data);
    if (!writer.failed && fflush(file) != 0) {
        writer.failed = true;
        writer.status = ar_status_io_k;
    }
    if (writer.failed)
        return arp_plan_fail(error, writer.status, "", 0, 0,
                             writer.status == ar_status_io_k ? "cannot write the plan"
                                                             : "out of memory writing the plan");
    return ar_status_success_k;
}

ar_status_t ar_plan_write_string(ar_plan_t const *plan, char **text, size_t *length,
                                 ar_plan_error_t *error) {
    arp_plan_error_clear(error);
    if (text) *text = NULL;
    if (length) *length = 0;
    if (!plan || !text)
        return arp_plan_fail(error, ar_status_invalid_argument_k, "", 0, 0,
                             "no plan or text pointer");
    writer_t writer = {0};
    write_plan(&writer, plan);
    put(&writer, "", 1); /* the NUL */
    if (writer.failed) {
        free(writer.data);
        return arp_plan_fail(error, writer.status, "", 0, 0, "out of memory writing the plan");
    }
    *text = writer.data;
    if (length) *length = writer.used - 1;
    return ar_status_success_k;
}
