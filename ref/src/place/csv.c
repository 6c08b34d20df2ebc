/* MiniMalloc's CSV, read and written. The header names the columns (either of its two
 * spellings, in any order); each row is checked as it is read, and the first bad one is
 * reported by line and field with what was wrong (a missing or extra field, a number that is
 * not a plain decimal or is out of range, lower > upper, an alignment that is not a power of two,
 * an empty or duplicate id: a hash set of ids finds duplicates in O(1) each). An optional
 * `group` column (ours, not MiniMalloc's) makes rows one buffer of several lifetimes, so ids stay
 * unique as MiniMalloc's are: a second hash set finds a row's group's first row, whose size and
 * alignment it must repeat; once all are read, one sort of the repeated groups' rows by lower
 * finds two that live at once. Rows with size 0 or an empty lifetime are kept: they hold no byte
 * and conflict with nothing. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "place/place_internal.h"

/* The optional columns follow the required ones. */
enum { COL_ID, COL_LOWER, COL_UPPER, COL_SIZE, COL_ALIGNMENT, COL_OFFSET, COL_GROUP, COL_COUNT };

static char const *const column_names[COL_COUNT][2] = {
    {"id", "buffer"},    {"lower", "start"}, {"upper", "end"}, {"size", NULL},
    {"alignment", NULL}, {"offset", NULL},   {"group", NULL},
};

static void fail(ar_place_csv_error_t *error, size_t line, size_t column, char const *format, ...) {
    char what[400];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    error->line = line;
    error->column = column;
    if (column)
        snprintf(error->message, sizeof error->message, "line %zu, column %zu: %s", line, column,
                 what);
    else if (line)
        snprintf(error->message, sizeof error->message, "line %zu: %s", line, what);
    else
        snprintf(error->message, sizeof error->message, "%s", what);
}

void ar_place_csv_free(ar_place_csv_t *csv) {
    if (!csv) return;
    if (csv->ids)
        for (size_t i = 0; i < csv->problem.count; ++i) free(csv->ids[i]);
    free(csv->ids);
    if (csv->group_names)
        for (size_t i = 0; i < csv->problem.count; ++i) free(csv->group_names[i]);
    free(csv->group_names);
    free(csv->rows);
    free(csv->offsets);
    free(csv->lines);
    free(csv->groups);
    free(csv);
}

/* A field [begin, end) without surrounding spaces or tabs. */
static void trim(char const **begin, char const **end) {
    while (*begin < *end && (**begin == ' ' || **begin == '\t')) ++*begin;
    while (*end > *begin && ((*end)[-1] == ' ' || (*end)[-1] == '\t')) --*end;
}

/* Decimal, no sign, below 2^63. */
static bool parse_number(char const *begin, char const *end, uint64_t *value) {
    if (begin == end) return false;
    uint64_t v = 0;
    for (char const *at = begin; at < end; ++at) {
        if (*at < '0' || *at > '9') return false;
        if (v > (AR_PLACE_MAX_TIME - 1 - (uint64_t)(*at - '0')) / 10) return false;
        v = v * 10 + (uint64_t)(*at - '0');
    }
    *value = v;
    return true;
}

static uint64_t hash_text(char const *text, size_t length) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < length; ++i) h = (h ^ (unsigned char)text[i]) * 1099511628211ull;
    return h;
}

bool arp_place_name_set_add(arp_place_name_set_t *set, char *const *names, size_t row,
                            size_t *previous) {
    if (2 * (row + 1) > set->count) {
        size_t count = set->count ? 2 * set->count : 1024;
        size_t *slots = calloc(count, sizeof *slots);
        if (!slots) return false;
        for (size_t k = 0; k < set->count; ++k) {
            if (!set->slots[k]) continue;
            char const *name = names[set->slots[k] - 1];
            size_t at = hash_text(name, strlen(name)) & (count - 1);
            while (slots[at]) at = (at + 1) & (count - 1);
            slots[at] = set->slots[k];
        }
        free(set->slots);
        set->slots = slots;
        set->count = count;
    }
    char const *name = names[row];
    size_t at = hash_text(name, strlen(name)) & (set->count - 1);
    while (set->slots[at]) {
        if (strcmp(names[set->slots[at] - 1], name) == 0) {
            *previous = set->slots[at] - 1;
            return true;
        }
        at = (at + 1) & (set->count - 1);
    }
    set->slots[at] = row + 1;
    *previous = SIZE_MAX;
    return true;
}

typedef struct reader_t {
    ar_place_csv_t *csv;
    size_t capacity;
    arp_place_name_set_t ids, groups;
} reader_t;

/* Room for `need` rows; offsets and groups only where the file has those columns. */
static bool reserve_rows(reader_t *r, size_t need, bool offsets, bool grouped) {
    if (need <= r->capacity) return true;
    size_t cap = r->capacity ? 2 * r->capacity : 256;
    ar_place_csv_t *c = r->csv;
    ar_place_buffer_t *rows = realloc(c->rows, cap * sizeof *rows);
    if (rows) c->rows = rows;
    char **ids = realloc(c->ids, cap * sizeof *ids);
    if (ids) c->ids = ids;
    size_t *lines = realloc(c->lines, cap * sizeof *lines);
    if (lines) c->lines = lines;
    size_t *groups = grouped ? realloc(c->groups, cap * sizeof *groups) : NULL;
    if (groups) c->groups = groups;
    char **names = grouped ? realloc(c->group_names, cap * sizeof *names) : NULL;
    if (names) c->group_names = names;
    uint64_t *offs = offsets ? realloc(c->offsets, cap * sizeof *offs) : NULL;
    if (offs) c->offsets = offs;
    if (!rows || !ids || !lines || (grouped && (!groups || !names)) || (offsets && !offs))
        return false;
    r->capacity = cap;
    return true;
}

/* The rows of each group live at disjoint times: sorted by group and lower, rows that meet
 * include two next to each other. Of every such pair, the one whose later line comes first is
 * named. */
static ar_status_t disjoint(ar_place_csv_t const *csv, size_t group_column,
                            ar_place_csv_error_t *error) {
    size_t n = csv->problem.count;
    arp_place_row_key_t *rows = malloc((n + 1) * sizeof *rows);
    if (!rows) {
        fail(error, 0, 0, "out of memory");
        return ar_status_out_of_memory_k;
    }
    size_t count = arp_place_sort_rows(csv->rows, n, csv->groups, rows);
    size_t a = SIZE_MAX, b = SIZE_MAX;
    for (size_t k = 1; k < count; ++k) {
        size_t x = rows[k - 1].row, y = rows[k].row;
        if (rows[k - 1].group != rows[k].group || csv->rows[y].lower >= csv->rows[x].upper)
            continue;
        if (x > y) {
            size_t t = x;
            x = y;
            y = t;
        }
        if (b == SIZE_MAX || y < b || (y == b && x < a)) a = x, b = y;
    }
    free(rows);
    if (b == SIZE_MAX) return ar_status_success_k;
    ar_place_buffer_t const *first = &csv->rows[a], *second = &csv->rows[b];
    fail(error, csv->lines[b], group_column,
         "group \"%.40s\" on lines %zu and %zu: lifetimes [%llu, %llu) and [%llu, %llu) overlap "
         "(rows of one group are one buffer, live over disjoint intervals)",
         csv->group_names[b], csv->lines[a], csv->lines[b], (unsigned long long)first->lower,
         (unsigned long long)first->upper, (unsigned long long)second->lower,
         (unsigned long long)second->upper);
    return ar_status_invalid_argument_k;
}

ar_status_t ar_place_csv_parse(char const *text, size_t length, ar_place_csv_t **out,
                               ar_place_csv_error_t *error) {
    ar_place_csv_error_t ignored;
    if (!error) error = &ignored;
    memset(error, 0, sizeof *error);
    *out = NULL;
    reader_t r = {calloc(1, sizeof(ar_place_csv_t)), 0, {NULL, 0}, {NULL, 0}};
    if (!r.csv) return ar_status_out_of_memory_k;
    int map[64]; /* field -> column kind */
    size_t fields = 0, line = 0;
    bool header = false;
    int present[COL_COUNT];
    bool grouped = false;
    for (int k = 0; k < COL_COUNT; ++k) present[k] = -1;
    ar_status_t status = ar_status_invalid_argument_k;
    char const *at = text, *stop = text + length;
    while (at < stop) {
        char const *eol = memchr(at, '\n', (size_t)(stop - at));
        char const *line_end = eol ? eol : stop;
        char const *next = eol ? eol + 1 : stop;
        ++line;
        if (line_end > at && line_end[-1] == '\r') --line_end;
        char const *b = at, *e = line_end;
        trim(&b, &e);
        if (memchr(at, '\0', (size_t)(line_end - at))) {
            fail(error, line, 0, "a NUL byte");
            goto bad;
        }
        if (b == e) { /* a blank line */
            at = next;
            continue;
        }
        /* Split into fields. */
        char const *begins[66], *ends[66];
        size_t count = 0;
        for (char const *f = at;; ++count) {
            char const *comma = memchr(f, ',', (size_t)(line_end - f));
            char const *fe = comma ? comma : line_end;
            if (count < 65) begins[count] = f, ends[count] = fe;
            if (!comma) {
                ++count;
                break;
            }
            f = comma + 1;
        }
        if (!header) {
            if (count > 64) {
                fail(error, line, 0, "a header of %zu columns (at most 64)", count);
                goto bad;
            }
            for (size_t f = 0; f < count; ++f) {
                char const *fb = begins[f], *fe = ends[f];
                trim(&fb, &fe);
                int kind = -1;
                for (int k = 0; k < COL_COUNT && kind < 0; ++k)
                    for (int s = 0; s < 2; ++s)
                        if (column_names[k][s] && strlen(column_names[k][s]) == (size_t)(fe - fb) &&
                            memcmp(column_names[k][s], fb, (size_t)(fe - fb)) == 0)
                            kind = k;
                if (kind < 0) {
                    fail(error, line, f + 1,
                         "unknown column \"%.*s\" (known: id|buffer, lower|start, upper|end, size, "
                         "alignment, offset, group)",
                         (int)(fe - fb > 40 ? 40 : fe - fb), fb);
                    goto bad;
                }
                if (present[kind] >= 0) {
                    fail(error, line, f + 1, "column \"%s\" given twice", column_names[kind][0]);
                    goto bad;
                }
                present[kind] = (int)f;
                map[f] = kind;
            }
            for (int k = 0; k < COL_OFFSET; ++k)
                if (k != COL_ALIGNMENT && present[k] < 0) {
                    fail(error, line, 0, "the header lacks the column \"%s\"%s%s%s",
                         column_names[k][0], column_names[k][1] ? " (or \"" : "",
                         column_names[k][1] ? column_names[k][1] : "",
                         column_names[k][1] ? "\")" : "");
                    goto bad;
                }
            fields = count;
            header = true;
            r.csv->has_alignment = present[COL_ALIGNMENT] >= 0;
            at = next;
            continue;
        }
        if (count != fields) {
            fail(error, line, count < fields ? count + 1 : fields + 1,
                 "%zu fields where the header has %zu", count, fields);
            goto bad;
        }
        size_t row = r.csv->problem.count;
        bool has_group = present[COL_GROUP] >= 0;
        if (!reserve_rows(&r, row + 1, present[COL_OFFSET] >= 0, has_group)) {
            status = ar_status_out_of_memory_k;
            fail(error, line, 0, "out of memory");
            goto bad;
        }
        ar_place_buffer_t buffer = {0, 0, 0, 0};
        uint64_t offset = 0;
        char *id = NULL, *group = NULL;
        for (size_t f = 0; f < count; ++f) {
            char const *fb = begins[f], *fe = ends[f];
            trim(&fb, &fe);
            if (map[f] == COL_ID || map[f] == COL_GROUP) {
                char const *what = column_names[map[f]][0];
                if (fb == fe) {
                    fail(error, line, f + 1, "an empty %s", what);
                    goto bad_row;
                }
                if (memchr(fb, '"', (size_t)(fe - fb))) {
                    fail(error, line, f + 1, "a quoted %s (quotes are not supported)", what);
                    goto bad_row;
                }
                char *copy = malloc((size_t)(fe - fb) + 1);
                if (!copy) {
                    status = ar_status_out_of_memory_k;
                    fail(error, line, 0, "out of memory");
                    goto bad_row;
                }
                memcpy(copy, fb, (size_t)(fe - fb));
                copy[fe - fb] = '\0';
                *(map[f] == COL_ID ? &id : &group) = copy;
                continue;
            }
            uint64_t value;
            if (!parse_number(fb, fe, &value)) {
                fail(error, line, f + 1, "%s \"%.*s\" is not a decimal integer below 2^63",
                     column_names[map[f]][0], (int)(fe - fb > 40 ? 40 : fe - fb), fb);
                goto bad_row;
            }
            char const *why = NULL;
            switch (map[f]) {
            case COL_LOWER: buffer.lower = value; break;
            case COL_UPPER: buffer.upper = value; break;
            case COL_SIZE:
                buffer.size = value;
                if (value >= AR_PLACE_MAX_BYTES) why = "size at or past 2^56";
                break;
            case COL_ALIGNMENT:
                buffer.alignment = value;
                if (value == 0 || (value & (value - 1)) || value >= AR_PLACE_MAX_BYTES)
                    why = "alignment is not a power of two below 2^56";
                break;
            case COL_OFFSET:
                offset = value;
                if (value >= AR_PLACE_MAX_BYTES) why = "offset at or past 2^56";
                break;
            }
            if (why) {
                fail(error, line, f + 1, "%s", why);
                goto bad_row;
            }
        }
        if (buffer.lower > buffer.upper) {
            fail(error, line, (size_t)present[COL_UPPER] + 1, "upper %llu is below lower %llu",
                 (unsigned long long)buffer.upper, (unsigned long long)buffer.lower);
            goto bad_row;
        }
        r.csv->ids[row] = id;
        if (has_group) r.csv->group_names[row] = group;
        r.csv->rows[row] = buffer;
        r.csv->lines[row] = line;
        if (present[COL_OFFSET] >= 0) r.csv->offsets[row] = offset;
        r.csv->problem.count = row + 1; /* the csv owns id and group from here */
        size_t previous;
        if (!arp_place_name_set_add(&r.ids, r.csv->ids, row, &previous)) goto out_of_memory;
        if (previous != SIZE_MAX) {
            fail(error, line, (size_t)present[COL_ID] + 1,
                 "duplicate id \"%.40s\" (first on line %zu)", id, r.csv->lines[previous]);
            goto bad;
        }
        if (!has_group) {
            at = next;
            continue;
        }
        if (!arp_place_name_set_add(&r.groups, r.csv->group_names, row, &previous))
            goto out_of_memory;
        r.csv->groups[row] = previous == SIZE_MAX ? row : previous;
        if (previous != SIZE_MAX) {
            ar_place_buffer_t const *first = &r.csv->rows[previous];
            char const *what = first->size != buffer.size             ? "size"
                               : first->alignment != buffer.alignment ? "alignment"
                                                                      : NULL;
            if (what) {
                bool size = what[0] == 's';
                fail(error, line, (size_t)present[COL_GROUP] + 1,
                     "group \"%.40s\" (first on line %zu) with %s %llu, not %llu: rows of one "
                     "group are one buffer, of one %s",
                     group, r.csv->lines[previous], what,
                     (unsigned long long)(size ? buffer.size : buffer.alignment),
                     (unsigned long long)(size ? first->size : first->alignment), what);
                goto bad;
            }
            grouped = true;
        }
        at = next;
        continue;
    bad_row: /* id and group not yet the csv's */
        free(id);
        free(group);
        goto bad;
    }
    if (!header) {
        fail(error, line ? line : 1, 0, "no header (an empty file)");
        goto bad;
    }
    if (grouped) {
        status = disjoint(r.csv, (size_t)present[COL_GROUP] + 1, error);
        if (status != ar_status_success_k) goto bad;
        status = ar_status_invalid_argument_k;
    } else {
        free(r.csv->groups); /* every group once, or no group column: no groups */
        r.csv->groups = NULL;
    }
    if (present[COL_GROUP] >= 0 && !r.csv->group_names) {
        r.csv->group_names = malloc(sizeof *r.csv->group_names); /* no rows: still "has groups" */
        if (!r.csv->group_names) goto out_of_memory;
    }
    if (present[COL_OFFSET] >= 0 && !r.csv->offsets) {
        r.csv->offsets = malloc(sizeof *r.csv->offsets); /* no rows: still "has offsets" */
        if (!r.csv->offsets) goto out_of_memory;
    }
    r.csv->problem.buffers = r.csv->rows;
    r.csv->problem.groups = r.csv->groups;
    free(r.ids.slots);
    free(r.groups.slots);
    *out = r.csv;
    return ar_status_success_k;
out_of_memory:
    status = ar_status_out_of_memory_k;
    fail(error, line, 0, "out of memory");
bad:
    free(r.ids.slots);
    free(r.groups.slots);
    ar_place_csv_free(r.csv);
    return status;
}

ar_status_t ar_place_csv_read_file(char const *path, ar_place_csv_t **csv,
                                   ar_place_csv_error_t *error) {
    ar_place_csv_error_t ignored;
    if (!error) error = &ignored;
    memset(error, 0, sizeof *error);
    *csv = NULL;
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *file = is_stdin ? stdin : fopen(path, "rb");
    if (!file) {
        fail(error, 0, 0, "cannot open: %s", strerror(errno));
        return ar_status_io_k;
    }
    size_t capacity = 1 << 16, length = 0;
    char *text = malloc(capacity);
    bool oom = !text;
    while (text) {
        if (length == capacity) {
            char *bigger = realloc(text, capacity * 2);
            if (!bigger) {
                oom = true;
                break;
            }
            text = bigger;
            capacity *= 2;
        }
        size_t got = fread(text + length, 1, capacity - length, file);
        length += got;
        if (got == 0) break;
    }
    bool failed = ferror(file);
    if (!is_stdin) fclose(file);
    if (oom || failed) {
        free(text);
        fail(error, 0, 0, oom ? "out of memory" : "cannot read");
        return oom ? ar_status_out_of_memory_k : ar_status_io_k;
    }
    ar_status_t status = ar_place_csv_parse(text, length, csv, error);
    free(text);
    return status;
}

bool ar_place_csv_write(FILE *file, ar_place_csv_t const *csv, uint64_t const *offsets) {
    fprintf(file, "id,lower,upper,size%s%s%s\n", csv->has_alignment ? ",alignment" : "",
            csv->group_names ? ",group" : "", offsets ? ",offset" : "");
    for (size_t i = 0; i < csv->problem.count; ++i) {
        ar_place_buffer_t const *b = &csv->rows[i];
        fprintf(file, "%s,%llu,%llu,%llu", csv->ids[i], (unsigned long long)b->lower,
                (unsigned long long)b->upper, (unsigned long long)b->size);
        if (csv->has_alignment) fprintf(file, ",%llu", (unsigned long long)b->alignment);
        if (csv->group_names) fprintf(file, ",%s", csv->group_names[i]);
        if (offsets) fprintf(file, ",%llu", (unsigned long long)offsets[i]);
        fputc('\n', file);
    }
    return fflush(file) == 0 && !ferror(file);
}
