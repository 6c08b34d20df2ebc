/* Which repeats name each word, for rule C and the exact oracle. Each repeat's namings are
 * listed once, sorted by site (a deltas repeat's own deltas in place when already so, the usual
 * case); a stream merges the lists of the repeats around each launch as launches are read in
 * order (a heap as deep as the nesting), so a word finds its naming repeats with no search.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

/* (launch, word) order, the order of sites. */
static inline bool site_before(size_t launch_a, size_t word_a, size_t launch_b, size_t word_b) {
    return launch_a != launch_b ? launch_a < launch_b : word_a < word_b;
}

static bool valid_site(ar_plan_t const *plan, size_t launch, size_t word) {
    return launch < plan->launches_count && word < plan->launches[launch].words_count;
}

/* A frame entry gathered for sorting: its site, its frame, its offset. */
typedef struct gathered_t {
    size_t launch, word;
    uint64_t frame;
    int64_t offset;
} gathered_t;

static int compare_gathered(void const *a, void const *b) {
    gathered_t const *x = a, *y = b;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    if (x->word != y->word) return x->word < y->word ? -1 : 1;
    return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int compare_summaries(void const *a, void const *b) {
    arp_summary_t const *x = a, *y = b;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    if (x->word != y->word) return x->word < y->word ? -1 : 1;
    return x->naming.least < y->naming.least ? -1 : x->naming.least > y->naming.least;
}

/* Whether the repeat's deltas are in strictly increasing (launch, word) order, so they serve as
 * its list in place. (Finish checks every delta names a word of a launch of the body; where one
 * would not, the stream drops it as it hands namings out, as the certificate always has.) */
static bool deltas_in_order(ar_plan_t const *plan, ar_repeat_t const *rep) {
    ar_shift_t const *s = plan->shifts + rep->shifts_first;
    for (size_t k = 1; k < rep->shifts_count; ++k)
        if (!site_before(s[k - 1].launch, s[k - 1].word, s[k].launch, s[k].word)) return false;
    return true;
}

/* Whether every frame of a frames repeat lists the same sites as frame 0, in the same order,
 * and frame 0's are valid and strictly increasing: then its list is frame 0's sites and the
 * frames are walked in lockstep, with no sort. */
static bool frames_in_lockstep(ar_plan_t const *plan, ar_repeat_t const *rep) {
    size_t const *starts = plan->frame_starts + rep->frames_first;
    size_t width = starts[1] - starts[0];
    ar_shift_t const *zero = plan->shifts + starts[0];
    for (size_t k = 0; k < width; ++k) {
        if (!valid_site(plan, zero[k].launch, zero[k].word)) return false;
        if (k && !site_before(zero[k - 1].launch, zero[k - 1].word, zero[k].launch, zero[k].word))
            return false;
    }
    for (uint64_t f = 1; f < rep->iterations; ++f) {
        if (starts[f + 1] - starts[f] != width) return false;
        ar_shift_t const *frame = plan->shifts + starts[f];
        for (size_t k = 0; k < width; ++k)
            if (frame[k].launch != zero[k].launch || frame[k].word != zero[k].word) return false;
    }
    return true;
}

/* Per repeat, its namings sorted by site. Deltas are read in place (the stream checks their
 * order when it opens the repeat, and sorts a copy if need be); a frames repeat is summarised
 * per site (least and greatest offset, frames listing it), by walking its frames in lockstep
 * when they all list the
 * same sites in order, else by sorting its entries. Frame entries are kept, in frame order, for
 * frames repeats read one offset at a time (exact mode, or at most `few` iterations). Cost
 * O(shifts) in the usual cases, O(s log s) per repeat otherwise; nothing per word. */
ar_status_t arp_namings_build(arp_cert_t *cert) {
    ar_plan_t const *plan = cert->plan;
    size_t r_count = plan->repeats_count;
    if (plan->shifts_count == 0 || plan->words_count == 0 || r_count == 0)
        return ar_status_success_k;
    cert->lists = calloc(r_count, sizeof *cert->lists);
    if (!cert->lists) return ar_status_out_of_memory_k;

    /* Which repeats read in place; room for the others' summaries and kept frame entries. */
    size_t summaries = 0, entries = 0, gather = 0;
    bool *lockstep = calloc(r_count, sizeof *lockstep);
    if (!lockstep) return ar_status_out_of_memory_k;
    for (size_t r = 0; r < r_count; ++r) {
        ar_repeat_t const *rep = &plan->repeats[r];
        if (rep->shifts_count == 0) continue;
        if (!rep->has_frames) { /* checked (and sorted if need be) when the stream opens it */
            cert->lists[r] =
                (arp_naming_list_t){plan->shifts + rep->shifts_first, NULL, rep->shifts_count};
            continue;
        }
        bool keep = cert->options.exact || rep->iterations <= cert->options.few;
        summaries += rep->shifts_count;
        if (keep) entries += rep->shifts_count;
        lockstep[r] = frames_in_lockstep(plan, rep);
        if (!lockstep[r] && rep->shifts_count > gather) gather = rep->shifts_count;
    }
    if (summaries == 0) {
        free(lockstep);
        return ar_status_success_k;
    }
    cert->summaries = malloc(summaries * sizeof *cert->summaries);
    cert->frame_entries = entries ? malloc(entries * sizeof *cert->frame_entries) : NULL;
    gathered_t *gathered = gather ? malloc(gather * sizeof *gathered) : NULL;
    if (!cert->summaries || (entries && !cert->frame_entries) || (gather && !gathered)) {
        free(lockstep), free(gathered);
        return ar_status_out_of_memory_k;
    }

    size_t used = 0, kept = 0;
    for (size_t r = 0; r < r_count; ++r) {
        ar_repeat_t const *rep = &plan->repeats[r];
        if (rep->shifts_count == 0 || cert->lists[r].deltas) continue;
        arp_summary_t *list = cert->summaries + used;
        size_t count = 0;
        if (lockstep[r]) {
            bool keep = cert->options.exact || rep->iterations <= cert->options.few;
            size_t const *starts = plan->frame_starts + rep->frames_first;
            size_t width = starts[1] - starts[0];
            for (size_t k = 0; k < width; ++k) {
                ar_shift_t const *zero = &plan->shifts[starts[0] + k];
                arp_naming_t n = {r, zero->shift, zero->shift, rep->iterations,
                                  keep ? kept : SIZE_MAX};
                for (uint64_t f = 0; f < rep->iterations; ++f) {
                    int64_t offset = plan->shifts[starts[f] + k].shift;
                    if (offset < n.least) n.least = offset;
                    if (offset > n.greatest) n.greatest = offset;
                    if (keep) cert->frame_entries[kept++] = (arp_frame_entry_t){f, offset};
                }
                list[count++] = (arp_summary_t){zero->launch, zero->word, n};
            }
        } else {
            bool keep = cert->options.exact || rep->iterations <= cert->options.few;
            size_t g = 0;
            for (uint64_t f = 0; f < rep->iterations; ++f) {
                size_t from = plan->frame_starts[rep->frames_first + f];
                size_t to = plan->frame_starts[rep->frames_first + f + 1];
                for (size_t k = from; k < to; ++k)
                    if (valid_site(plan, plan->shifts[k].launch, plan->shifts[k].word))
                        gathered[g++] = (gathered_t){plan->shifts[k].launch, plan->shifts[k].word,
                                                     f, plan->shifts[k].shift};
            }
            qsort(gathered, g, sizeof *gathered, compare_gathered);
            for (size_t k = 0; k < g;) {
                arp_naming_t n = {r, gathered[k].offset, gathered[k].offset, 0,
                                  keep ? kept : SIZE_MAX};
                size_t j = k;
                for (; j < g && gathered[j].launch == gathered[k].launch &&
                       gathered[j].word == gathered[k].word;
                     ++j) {
                    if (gathered[j].offset < n.least) n.least = gathered[j].offset;
                    if (gathered[j].offset > n.greatest) n.greatest = gathered[j].offset;
                    ++n.listed;
                    if (keep)
                        cert->frame_entries[kept++] =
                            (arp_frame_entry_t){gathered[j].frame, gathered[j].offset};
                }
                list[count++] = (arp_summary_t){gathered[k].launch, gathered[k].word, n};
                k = j;
            }
        }
        cert->lists[r] = (arp_naming_list_t){NULL, list, count};
        used += count;
    }
    free(lockstep), free(gathered);
    return ar_status_success_k;
}

/* ---- The naming stream --------------------------------------------------------------------- */

static inline bool cursor_before(arp_naming_cursor_t const *a, arp_naming_cursor_t const *b) {
    if (a->launch != b->launch) return a->launch < b->launch;
    if (a->word != b->word) return a->word < b->word;
    return a->repeat < b->repeat;
}

static void heap_down(arp_naming_cursor_t *heap, size_t count, size_t i) {
    arp_naming_cursor_t moving = heap[i];
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= count) break;
        if (child + 1 < count && cursor_before(&heap[child + 1], &heap[child])) ++child;
        if (!cursor_before(&heap[child], &moving)) break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = moving;
}

static void heap_up(arp_naming_cursor_t *heap, size_t i) {
    arp_naming_cursor_t moving = heap[i];
    while (i > 0 && cursor_before(&moving, &heap[(i - 1) / 2])) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = moving;
}

static size_t next_first_of(arp_cert_t const *cert, size_t opened) {
    ar_plan_t const *plan = cert->plan;
    if (!cert->lists || opened >= plan->repeats_count) return SIZE_MAX;
    return plan->repeats[plan->repeat_order[opened]].first;
}

void arp_namings_stream_begin(arp_cert_t const *cert, arp_naming_stream_t *stream) {
    memset(stream, 0, sizeof *stream);
    stream->next_first = next_first_of(cert, 0);
}

void arp_namings_stream_end(arp_naming_stream_t *stream) {
    for (size_t i = 0; i < stream->owned_count; ++i) free(stream->owned[i]);
    free(stream->owned);
    free(stream->heap);
    free(stream->out);
    memset(stream, 0, sizeof *stream);
}

ar_status_t arp_namings_stream_fill(arp_cert_t const *cert, arp_naming_stream_t *stream,
                                    size_t launch, size_t *count) {
    ar_plan_t const *plan = cert->plan;
    *count = 0;
    /* Open the repeats that start by this launch: their namings lie in their bodies. */
    while (stream->next_first <= launch) {
        size_t r = plan->repeat_order[stream->opened++];
        stream->next_first = next_first_of(cert, stream->opened);
        arp_naming_cursor_t c = {0, 0, r, 0, cert->lists[r]};
        if (c.list.deltas && !deltas_in_order(plan, &plan->repeats[r])) {
            /* Deltas out of site order: this stream sorts a copy (valid sites only). */
            ar_repeat_t const *rep = &plan->repeats[r];
            arp_summary_t *list = malloc((rep->shifts_count + 1) * sizeof *list);
            arp_summary_t **owned =
                realloc(stream->owned, (stream->owned_count + 1) * sizeof *owned);
            if (owned) stream->owned = owned;
            if (!list || !owned) {
                free(list);
                return ar_status_out_of_memory_k;
            }
            stream->owned[stream->owned_count++] = list;
            size_t count = 0;
            ar_shift_t const *s = plan->shifts + rep->shifts_first;
            for (size_t k = 0; k < rep->shifts_count; ++k)
                if (valid_site(plan, s[k].launch, s[k].word))
                    list[count++] = (arp_summary_t){
                        s[k].launch, s[k].word, {r, s[k].shift, s[k].shift, 1, SIZE_MAX}};
            qsort(list, count, sizeof *list, compare_summaries);
            c.list = (arp_naming_list_t){NULL, list, count};
        }
        if (!arp_namings_cursor_load(&c)) continue;
        if (stream->heap_count == stream->heap_capacity) {
            size_t capacity = stream->heap_capacity ? 2 * stream->heap_capacity : 16;
            arp_naming_cursor_t *grown = realloc(stream->heap, capacity * sizeof *grown);
            if (!grown) return ar_status_out_of_memory_k;
            stream->heap = grown, stream->heap_capacity = capacity;
        }
        stream->heap[stream->heap_count] = c;
        heap_up(stream->heap, stream->heap_count++);
    }
    while (stream->heap_count && stream->heap[0].launch <= launch) {
        arp_naming_cursor_t *top = &stream->heap[0];
        arp_naming_list_t const *list = &top->list;
        /* Take the top list's entries in a row while they come before every other list's
         * (with one list open, the usual case, all of this launch's), so the heap is
         * restored once per switch of list, not once per entry. */
        arp_naming_cursor_t const *second = NULL;
        if (stream->heap_count > 1) {
            second = &stream->heap[1];
            if (stream->heap_count > 2 && cursor_before(&stream->heap[2], second))
                second = &stream->heap[2];
        }
        bool alive;
        do {
            if (top->launch == launch && top->word < plan->launches[launch].words_count) {
                if (*count == stream->out_capacity) {
                    size_t capacity = stream->out_capacity ? 2 * stream->out_capacity : 64;
                    arp_site_naming_t *grown = realloc(stream->out, capacity * sizeof *grown);
                    if (!grown) return ar_status_out_of_memory_k;
                    stream->out = grown, stream->out_capacity = capacity;
                }
                arp_site_naming_t *o = &stream->out[(*count)++];
                o->word = top->word;
                if (list->deltas) {
                    int64_t d = list->deltas[top->next].shift;
                    o->naming = (arp_naming_t){top->repeat, d, d, 1, SIZE_MAX};
                } else
                    o->naming = list->summary[top->next].naming;
            } /* else a launch skipped by the caller (or a word past the launch's, which
               * finish refuses): dropped */
            ++top->next;
            alive = arp_namings_cursor_load(top);
        } while (alive && top->launch <= launch && (!second || cursor_before(top, second)));
        if (!alive) {
            if (--stream->heap_count)
                stream->heap[0] = stream->heap[stream->heap_count];
            else
                break;
        }
        if (stream->heap_count > 1) heap_down(stream->heap, stream->heap_count, 0);
    }
    return ar_status_success_k;
}

void arp_namings_free(arp_cert_t *cert) {
    free(cert->lists);
    free(cert->summaries);
    free(cert->frame_entries);
}
