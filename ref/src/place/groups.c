/* Buffers of several rows. problem->groups maps each row to its buffer (NULL: each row its
 * own), so a buffer can live over several disjoint intervals at one offset (a loop's state,
 * free between its runs in the loop's written order). The strategies work on buffers: built
 * once per call, each buffer's rows that hold time sorted by lower (one sort of all rows by
 * buffer and lower: O(n log n)), with its hull and total lifetime. The same sort finds the
 * rows of one buffer that disagree on size or alignment, or live at once. */
#include <stdlib.h>
#include <string.h>

#include "place/place_internal.h"

void arp_place_groups_free(arp_place_groups_t *g) {
    free(g->of), free(g->first), free(g->start), free(g->rows);
    free(g->hull), free(g->width);
    memset(g, 0, sizeof *g);
}

static int by_group_lower(void const *a, void const *b) {
    arp_place_row_key_t const *x = a, *y = b;
    if (x->group != y->group) return x->group < y->group ? -1 : 1;
    if (x->lower != y->lower) return x->lower < y->lower ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

size_t arp_place_sort_rows(ar_place_buffer_t const *rows, size_t count, size_t const *group_of,
                           arp_place_row_key_t *keys) {
    size_t timed = 0;
    for (size_t i = 0; i < count; ++i)
        if (rows[i].lower < rows[i].upper)
            keys[timed++] = (arp_place_row_key_t){group_of[i], i, rows[i].lower};
    qsort(keys, timed, sizeof *keys, by_group_lower);
    return timed;
}

static uint64_t alignment_of(ar_place_buffer_t const *b) {
    return b->alignment > 1 ? b->alignment : 1;
}

ar_status_t arp_place_groups_make(ar_place_problem_t const *problem, arp_place_groups_t *g,
                                  char *message, size_t message_size) {
    size_t n = problem->count;
    memset(g, 0, sizeof *g);
    g->of = calloc(n + 1, sizeof *g->of); /* calloc: gcc cannot see the loop fill it all */
    g->first = malloc((n + 1) * sizeof *g->first);
    g->start = malloc((n + 2) * sizeof *g->start);
    g->rows = malloc((n + 1) * sizeof *g->rows);
    g->hull = malloc((n + 1) * sizeof *g->hull);
    g->width = malloc((n + 1) * sizeof *g->width);
    size_t *by_label = problem->groups ? malloc((n + 1) * sizeof *by_label) : NULL;
    arp_place_row_key_t *keys = problem->groups ? malloc((n + 1) * sizeof *keys) : NULL;
    ar_status_t status = ar_status_out_of_memory_k;
    if (!g->of || !g->first || !g->start || !g->rows || !g->hull || !g->width ||
        (problem->groups && (!by_label || !keys))) {
        snprintf(message, message_size, "out of memory");
        goto done;
    }
    ar_place_buffer_t const *rows = problem->buffers;
    if (!problem->groups) { /* each row its own buffer: nothing to sort */
        size_t k = 0;
        for (size_t i = 0; i < n; ++i) {
            g->of[i] = g->first[i] = i;
            g->start[i] = k;
            bool timed = rows[i].lower < rows[i].upper;
            if (timed) g->rows[k++] = i;
            g->hull[i] = (arp_place_hull_t){timed ? rows[i].lower : 0, timed ? rows[i].upper : 0,
                                            rows[i].size, 0};
            g->width[i] = rows[i].upper - rows[i].lower;
        }
        g->start[n] = k;
        g->count = n;
        status = ar_status_success_k;
        goto done;
    }
    status = ar_status_invalid_argument_k;
    for (size_t i = 0; i < n; ++i) by_label[i] = SIZE_MAX;
    size_t count = 0;
    for (size_t i = 0; i < n; ++i) {
        size_t label = problem->groups[i];
        if (label >= n) {
            snprintf(message, message_size, "row %zu: buffer label %zu is not below the %zu rows",
                     i, label, n);
            goto done;
        }
        if (by_label[label] == SIZE_MAX) {
            by_label[label] = count;
            g->first[count++] = i;
        }
        size_t group = by_label[label], head = g->first[group];
        g->of[i] = group;
        if (rows[i].size != rows[head].size) {
            snprintf(message, message_size,
                     "rows %zu and %zu are one buffer with sizes %llu and %llu (one size)", head, i,
                     (unsigned long long)rows[head].size, (unsigned long long)rows[i].size);
            goto done;
        }
        if (alignment_of(&rows[i]) != alignment_of(&rows[head])) {
            snprintf(message, message_size,
                     "rows %zu and %zu are one buffer with alignments %llu and %llu (one "
                     "alignment)",
                     head, i, (unsigned long long)alignment_of(&rows[head]),
                     (unsigned long long)alignment_of(&rows[i]));
            goto done;
        }
    }
    size_t timed = arp_place_sort_rows(rows, n, g->of, keys);
    for (size_t k = 0; k < timed; ++k) {
        g->rows[k] = keys[k].row;
        /* Sorted by lower: rows that meet include a pair next to each other. */
        if (k && keys[k - 1].group == keys[k].group &&
            rows[keys[k].row].lower < rows[keys[k - 1].row].upper) {
            size_t a = keys[k - 1].row, b = keys[k].row;
            snprintf(message, message_size,
                     "rows %zu and %zu are one buffer live at once ([%llu, %llu) and [%llu, %llu))",
                     a < b ? a : b, a < b ? b : a, (unsigned long long)rows[a].lower,
                     (unsigned long long)rows[a].upper, (unsigned long long)rows[b].lower,
                     (unsigned long long)rows[b].upper);
            goto done;
        }
    }
    for (size_t group = 0, k = 0; group < count; ++group) {
        arp_place_hull_t *h = &g->hull[group];
        *h = (arp_place_hull_t){0, 0, rows[g->first[group]].size, 0};
        g->start[group] = k;
        g->width[group] = 0;
        if (k < timed && keys[k].group == group) h->lower = rows[keys[k].row].lower;
        for (; k < timed && keys[k].group == group; ++k) {
            h->upper = rows[keys[k].row].upper;
            g->width[group] += rows[keys[k].row].upper - rows[keys[k].row].lower;
        }
        h->several = k - g->start[group] > 1;
    }
    g->start[count] = timed;
    g->count = count;
    status = ar_status_success_k;
done:
    free(by_label), free(keys);
    if (status != ar_status_success_k) arp_place_groups_free(g);
    return status;
}

bool arp_place_rows_meet(ar_place_problem_t const *problem, arp_place_groups_t const *g, size_t a,
                         size_t b) {
    size_t i = g->start[a], ie = g->start[a + 1], j = g->start[b], je = g->start[b + 1];
    while (i < ie && j < je) {
        ar_place_buffer_t const *x = &problem->buffers[g->rows[i]];
        ar_place_buffer_t const *y = &problem->buffers[g->rows[j]];
        if (x->lower < y->upper && y->lower < x->upper) return true;
        if (x->upper <= y->upper)
            ++i;
        else
            ++j;
    }
    return false;
}

void arp_place_groups_spread(ar_place_problem_t const *problem, arp_place_groups_t const *g,
                             uint64_t const *at, uint64_t *offsets) {
    for (size_t i = 0; i < problem->count; ++i) offsets[i] = at[g->of[i]];
}
