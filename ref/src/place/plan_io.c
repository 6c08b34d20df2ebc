/* A placement as an arena-plan/1 plan, and a plan's planes as a placement problem. The plan
 * form lets the certificate judge any strategy's layout: each distinct start time is a phase
 * (one launch, no words), a row is declared fresh where it starts and carried at the last
 * start before its end, and nowhere else, so the plan holds at most two planes per row and
 * rule (D) checks the rest of its lifetime without a phase per time step (place.h says why a
 * meeting pair always breaks (B) or (D)). The rows of one buffer are one name at one base,
 * declared fresh again where each starts, which (D) allows: what lay on those bytes in between
 * is gone. Back from a plan, a name's runs between fresh declarations are its rows: one group,
 * the name, of unique ids (the name, then NAME.1, NAME.2, ...). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "place/place_internal.h"

ar_status_t ar_place_to_plan(ar_place_problem_t const *problem, char const *const *ids,
                             uint64_t const *offsets, uint64_t alignment, uint64_t base,
                             ar_plan_t **out, char *message, size_t message_size) {
    *out = NULL;
    if (alignment == 0) alignment = 1;
    if (alignment & (alignment - 1) || alignment >= AR_PLACE_MAX_BYTES) {
        snprintf(message, message_size, "alignment %" PRIu64 " is not a power of two below 2^56",
                 alignment);
        return ar_status_invalid_argument_k;
    }
    if (base % alignment) {
        snprintf(message, message_size,
                 "base 0x%" PRIx64 " is not a multiple of alignment %" PRIu64, base, alignment);
        return ar_status_invalid_argument_k;
    }
    if (!arp_place_rows_valid(problem, message, message_size)) return ar_status_invalid_argument_k;
    arp_place_groups_t g; /* gathering them checks them */
    ar_status_t made = arp_place_groups_make(problem, &g, message, message_size);
    if (made != ar_status_success_k) return made;
    ar_place_violation_t split;
    if (problem->groups && !arp_place_one_offset(problem, offsets, &split)) {
        snprintf(message, message_size,
                 "rows %zu and %zu are one buffer at offsets %" PRIu64 " and %" PRIu64
                 " (a plane name has one base)",
                 split.first, split.second, offsets[split.first], offsets[split.second]);
        arp_place_groups_free(&g);
        return ar_status_invalid_argument_k;
    }
    size_t n = problem->count, held = 0;
    for (size_t i = 0; i < n; ++i) {
        ar_place_buffer_t const *b = &problem->buffers[i];
        if (!arp_place_holds(b)) continue;
        if (offsets[i] >= AR_PLACE_MAX_BYTES || base > UINT64_MAX - offsets[i] - b->size) {
            snprintf(message, message_size,
                     "buffer %zu: base + offset + size passes 2^64 (offset %" PRIu64 ")", i,
                     offsets[i]);
            arp_place_groups_free(&g);
            return ar_status_invalid_argument_k;
        }
        ++held;
    }
    uint64_t *starts = malloc((held + 1) * sizeof *starts);
    size_t *per_phase = NULL, *slots = NULL;
    ar_plan_t *plan = NULL;
    ar_status_t status = ar_status_out_of_memory_k;
    if (!starts) goto done;
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
        if (arp_place_holds(&problem->buffers[i])) starts[k++] = problem->buffers[i].lower;
    qsort(starts, held, sizeof *starts, arp_place_by_u64);
    size_t phases = 0;
    for (k = 0; k < held; ++k)
        if (!phases || starts[k] != starts[phases - 1]) starts[phases++] = starts[k];
    /* Planes per phase (counting sort): entry = 2 * buffer + carried. */
    per_phase = calloc(phases + 2, sizeof *per_phase);
    slots = malloc((2 * held + 1) * sizeof *slots);
    if (!per_phase || !slots) goto done;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < n; ++i) {
            ar_place_buffer_t const *b = &problem->buffers[i];
            if (!arp_place_holds(b)) continue;
            size_t fresh = arp_place_count_below(starts, phases, b->lower);
            size_t carried = arp_place_count_below(starts, phases, b->upper) - 1;
            if (pass == 0) {
                ++per_phase[fresh + 1];
                if (carried > fresh) ++per_phase[carried + 1];
            } else {
                slots[per_phase[fresh]++] = 2 * i;
                if (carried > fresh) slots[per_phase[carried]++] = 2 * i + 1;
            }
        }
        if (pass == 0)
            for (size_t p = 0; p < phases; ++p) per_phase[p + 1] += per_phase[p];
        else
            for (size_t p = phases; p > 0; --p) per_phase[p] = per_phase[p - 1];
        if (pass == 1) per_phase[0] = 0;
    }
    if (ar_plan_create(&plan) != ar_status_success_k) goto done;
    if (ar_plan_reserve(plan, phases, 0, 0) != ar_status_success_k) goto done;
    if (ar_plan_set_alignment(plan, alignment) != ar_status_success_k) goto done;
    char name[48];
    for (size_t p = 0; p < phases; ++p) {
        snprintf(name, sizeof name, "t%" PRIu64, starts[p]);
        if (ar_plan_add_phase(plan, name) != ar_status_success_k) goto done;
        for (size_t s = per_phase[p]; s < per_phase[p + 1]; ++s) {
            size_t i = slots[s] / 2, head = g.first[g.of[i]];
            char const *id = ids ? ids[head] : NULL;
            if (!id) {
                snprintf(name, sizeof name, "b%zu", head);
                id = name;
            }
            if (ar_plan_add_plane(plan, id, base + offsets[i], problem->buffers[i].size,
                                  slots[s] & 1) != ar_status_success_k)
                goto done;
        }
    }
    for (size_t p = 0; p < phases; ++p) {
        snprintf(name, sizeof name, "t%" PRIu64, starts[p]);
        if (ar_plan_add_launch(plan, "step", name, NULL, 0, NULL) != ar_status_success_k) goto done;
    }
    if (phases && ar_plan_add_reference(plan, 0, phases) != ar_status_success_k) goto done;
    char meta[160];
    snprintf(meta, sizeof meta,
             "{\"source\":\"arenacert import\",\"buffers\":%zu,\"height\":%" PRIu64 "}", n,
             ar_place_height(problem, offsets));
    if (ar_plan_set_meta(plan, meta) != ar_status_success_k) goto done;
    ar_plan_error_t error;
    status = ar_plan_finish(plan, &error);
    if (status != ar_status_success_k) snprintf(message, message_size, "%s", error.message);
done:
    if (status == ar_status_out_of_memory_k) snprintf(message, message_size, "out of memory");
    if (status == ar_status_success_k)
        *out = plan;
    else
        ar_plan_free(plan);
    free(starts), free(per_phase), free(slots);
    arp_place_groups_free(&g);
    return status;
}

typedef struct entry_t {
    char const *name;
    uint64_t base, size;
    size_t origin;      /* the phase first declaring it */
    size_t first, last; /* its open run: phases [first, last] */
    size_t runs;        /* runs closed before it */
} entry_t;

typedef struct run_t {
    size_t entry, first, last;
} run_t;

static uint64_t hash_name(char const *text) {
    uint64_t h = 1469598103934665603ull;
    for (; *text; ++text) h = (h ^ (unsigned char)*text) * 1099511628211ull;
    return h;
}

/* Ids stay unique (a CSV refuses a repeated one): a name's later rows are NAME.K, K = 1, 2, ...
 * in phase order, skipping any K whose id a plane's name (every first row's id) or an earlier
 * row already holds. false: out of memory. */
static bool name_later_runs(ar_place_csv_t *csv, entry_t const *entries, size_t count,
                            size_t const *row_of) {
    arp_place_name_set_t taken = {NULL, 0};
    size_t previous;
    bool ok = true;
    for (size_t i = 0; i < count && ok; ++i) {
        csv->ids[row_of[i]] = (char *)entries[i].name; /* borrowed until the ids are copied */
        ok = arp_place_name_set_add(&taken, csv->ids, row_of[i], &previous);
    }
    for (size_t i = 0; i < count && ok; ++i) {
        size_t length = strlen(entries[i].name) + 24, k = 0;
        for (size_t r = row_of[i] + 1; r <= row_of[i] + entries[i].runs && ok; ++r) {
            char *id = malloc(length);
            ok = id != NULL;
            csv->ids[r] = id;
            for (previous = 0; ok && previous != SIZE_MAX;) {
                snprintf(id, length, "%s.%zu", entries[i].name, ++k);
                ok = arp_place_name_set_add(&taken, csv->ids, r, &previous);
            }
        }
    }
    for (size_t i = 0; i < count; ++i) csv->ids[row_of[i]] = NULL;
    free(taken.slots);
    return ok;
}

ar_status_t ar_place_from_plan(ar_plan_t const *plan, ar_place_csv_t **out, char *message,
                               size_t message_size) {
    *out = NULL;
    size_t capacity = 16;
    while (capacity < 2 * plan->planes_count + 2) capacity *= 2;
    entry_t *entries = malloc(plan->planes_count * sizeof *entries + 1);
    run_t *runs = malloc(plan->planes_count * sizeof *runs + 1);
    size_t *table = calloc(capacity, sizeof *table), count = 0, closed = 0, *row_of = NULL;
    ar_place_csv_t *csv = calloc(1, sizeof *csv);
    ar_status_t status = ar_status_out_of_memory_k;
    if (!entries || !runs || !table || !csv) goto done;
    for (size_t p = 0; p < plan->phases_count; ++p) {
        ar_phase_t const *phase = &plan->phases[p];
        for (size_t j = 0; j < phase->planes_count; ++j) {
            ar_plane_t const *plane = &plan->planes[phase->planes_first + j];
            size_t at = hash_name(plane->name) & (capacity - 1);
            while (table[at] && strcmp(entries[table[at] - 1].name, plane->name) != 0)
                at = (at + 1) & (capacity - 1);
            if (!table[at]) {
                entries[count] = (entry_t){plane->name, plane->base, plane->size, p, p, p, 0};
                table[at] = ++count;
                continue;
            }
            entry_t *e = &entries[table[at] - 1];
            if (e->base != plane->base || e->size != plane->size) {
                snprintf(message, message_size,
                         "$.phases[%zu].planes[%zu]: plane \"%.60s\" is declared elsewhere or with "
                         "another size than in phase %zu",
                         p, j, plane->name, e->origin);
                status = ar_status_invalid_argument_k;
                goto done;
            }
            /* Declared fresh past its run's end: a new value there, nothing kept in between. */
            if (!plane->carried && p > e->last + 1) {
                runs[closed++] = (run_t){(size_t)(e - entries), e->first, e->last};
                ++e->runs;
                e->first = p;
            }
            e->last = p;
        }
    }
    uint64_t low = UINT64_MAX;
    for (size_t i = 0; i < count; ++i)
        if (entries[i].base < low) low = entries[i].base;
    size_t rows = count + closed;
    csv->rows = calloc(rows + 1, sizeof *csv->rows);
    csv->ids = calloc(rows + 1, sizeof *csv->ids);
    csv->offsets = calloc(rows + 1, sizeof *csv->offsets);
    csv->lines = calloc(rows + 1, sizeof *csv->lines);
    row_of = malloc((count + 1) * sizeof *row_of);
    if (closed) {
        csv->groups = malloc((rows + 1) * sizeof *csv->groups);
        csv->group_names = calloc(rows + 1, sizeof *csv->group_names);
    }
    if (!csv->rows || !csv->ids || !csv->offsets || !csv->lines || !row_of ||
        (closed && (!csv->groups || !csv->group_names)))
        goto done;
    csv->has_alignment = plan->alignment > 1;
    /* Names in order of first declaration, each name's runs in phase order. */
    for (size_t i = 0, next = 0; i < count; ++i) {
        row_of[i] = next;
        next += entries[i].runs + 1;
    }
    for (size_t i = 0; i < count; ++i) /* the open runs, last of each name */
        runs[closed + i] = (run_t){i, entries[i].first, entries[i].last};
    csv->problem.count = rows; /* ids are NULL until written: freeing them is safe */
    size_t *filled = table;    /* per name: its rows written so far (the table is done) */
    memset(filled, 0, (count + 1) * sizeof *filled);
    for (size_t r = 0; r < rows; ++r) {
        entry_t const *e = &entries[runs[r].entry];
        size_t i = row_of[runs[r].entry] + filled[runs[r].entry]++;
        if (e->size >= AR_PLACE_MAX_BYTES || e->base - low >= AR_PLACE_MAX_BYTES) {
            snprintf(message, message_size, "plane \"%.60s\": size or offset past 2^56", e->name);
            status = ar_status_invalid_argument_k;
            goto done;
        }
        csv->rows[i] = (ar_place_buffer_t){runs[r].first, runs[r].last + 1, e->size,
                                           plan->alignment > 1 ? plan->alignment : 0};
        csv->offsets[i] = e->base - low;
        csv->lines[i] = i + 2;
        if (!csv->groups) continue;
        csv->groups[i] = row_of[runs[r].entry];
        csv->group_names[i] = malloc(strlen(e->name) + 1);
        if (!csv->group_names[i]) goto done;
        strcpy(csv->group_names[i], e->name);
    }
    if (closed && !name_later_runs(csv, entries, count, row_of)) goto done;
    for (size_t i = 0; i < count; ++i) { /* each name's first row: the name */
        char **id = &csv->ids[row_of[i]];
        *id = malloc(strlen(entries[i].name) + 1);
        if (!*id) goto done;
        strcpy(*id, entries[i].name);
    }
    csv->problem.buffers = csv->rows;
    csv->problem.groups = csv->groups;
    status = ar_status_success_k;
done:
    if (status == ar_status_out_of_memory_k) snprintf(message, message_size, "out of memory");
    free(entries), free(runs), free(table), free(row_of);
    if (status == ar_status_success_k)
        *out = csv;
    else
        ar_place_csv_free(csv);
    return status;
}
