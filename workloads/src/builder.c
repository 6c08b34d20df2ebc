/* The generators' builder: declaring globals, phases and planes; emitting launches, repeats and
 * references into the plan (or only counting them, on the first pass, so the plan reserves its
 * arrays once); and counting executed launches and phase instances arithmetically from the
 * schedule's structure, never by running the certificate. Counting composes summaries (first
 * phase, last phase, runs of equal phases, launches): two stretches concatenated merge one run
 * when the first ends in the phase the second starts with, and a body repeated N times merges
 * N-1 runs when it starts and ends in the same phase. A body is summarized once, however many
 * iterations or references run it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_internal.h"

uint64_t wl_align(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

void wl_fail(wl_t *wl, ar_status_t status, char const *message) {
    if (wl->status) return;
    wl->status = status;
    snprintf(wl->error, sizeof wl->error, "%s", message);
}

/* splitmix64: small, fast, and the same on every platform. */
uint64_t wl_random(wl_t *wl) {
    uint64_t z = (wl->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t wl_random_between(wl_t *wl, uint64_t lo, uint64_t hi) {
    return hi <= lo ? lo : lo + wl_random(wl) % (hi - lo + 1);
}

int wl_global(wl_t *wl, char const *name, uint64_t size, uint64_t gap_after) {
    if (wl->globals_count == WL_MAX_GLOBALS) {
        wl_fail(wl, ar_status_unsupported_k, "too many globals");
        return 0;
    }
    if (size > WL_MAX_TENSOR) {
        wl_fail(wl, ar_status_unsupported_k, "a global would span more than 2^56 bytes");
        return 0;
    }
    wl_global_t *g = &wl->globals[wl->globals_count];
    snprintf(g->name, sizeof g->name, "%s", name);
    g->size = wl_align(size ? size : 1, WL_ALIGNMENT);
    g->gap_after = gap_after;
    return wl->globals_count++;
}

int wl_phase(wl_t *wl, char const *id) {
    for (int p = 0; p < wl->phases_count; ++p)
        if (strcmp(wl->phases[p].id, id) == 0) return p;
    if (wl->phases_count == WL_MAX_PHASES) {
        wl_fail(wl, ar_status_unsupported_k, "too many phases");
        return 0;
    }
    wl_phase_t *phase = &wl->phases[wl->phases_count];
    memset(phase, 0, sizeof *phase);
    snprintf(phase->id, sizeof phase->id, "%s", id);
    return wl->phases_count++;
}

int wl_plane_index(wl_t const *wl, char const *name) {
    for (int n = 0; n < wl->planes_count; ++n)
        if (strcmp(wl->planes[n].name, name) == 0) return n;
    return -1;
}

/* Declare that `phase` holds plane `name` (fresh or carried). The same name is the same tensor
 * everywhere, so its size is the largest any phase asks for. */
int wl_plane(wl_t *wl, int phase, char const *name, uint64_t size, bool carried) {
    int n = wl_plane_index(wl, name);
    if (n < 0) {
        if (wl->planes_count == WL_MAX_NAMES) {
            wl_fail(wl, ar_status_unsupported_k, "too many planes");
            return 0;
        }
        n = wl->planes_count++;
        memset(&wl->planes[n], 0, sizeof wl->planes[n]);
        snprintf(wl->planes[n].name, sizeof wl->planes[n].name, "%s", name);
    }
    if (size > WL_MAX_TENSOR) {
        wl_fail(wl, ar_status_unsupported_k, "a plane would span more than 2^56 bytes");
        return n;
    }
    size = wl_align(size ? size : 1, WL_ALIGNMENT);
    if (size > wl->planes[n].size) wl->planes[n].size = size;
    wl_phase_t *ph = &wl->phases[phase];
    for (int j = 0; j < ph->count; ++j)
        if (ph->planes[j] == n) return n;
    if (ph->count == WL_MAX_PHASE_PLANES) {
        wl_fail(wl, ar_status_unsupported_k, "too many planes in one phase");
        return n;
    }
    ph->planes[ph->count] = n;
    ph->carried[ph->count] = carried;
    ++ph->count;
    return n;
}

void wl_persistent(wl_t *wl, int plane) { wl->planes[plane].persistent = true; }

void wl_loop(wl_t *wl, int first_phase, int last_phase) {
    if (wl->loops_count == WL_MAX_LOOPS) {
        wl_fail(wl, ar_status_unsupported_k, "too many loops");
        return;
    }
    wl->loops[wl->loops_count++] = (wl_loop_t){first_phase, last_phase};
}

uint64_t wl_g(wl_t const *wl, int global, uint64_t offset) {
    return wl->globals[global].base + offset;
}

uint64_t wl_p(wl_t const *wl, int plane, uint64_t offset) {
    return wl->planes[plane].base + offset;
}

size_t wl_launch(wl_t *wl, char const *kernel, int phase, uint64_t const *words, size_t count) {
    size_t index = wl->launches_count++;
    wl->words_count += count;
    if (wl->counting || wl->status) return index;
    size_t added = 0;
    ar_status_t status =
        ar_plan_add_launch(wl->plan, kernel, wl->phases[phase].id, words, count, &added);
    if (status) wl_fail(wl, status, "out of memory adding a launch");
    else wl->launch_phase[added] = phase;
    return index;
}

void wl_walk(wl_t *wl, int level, size_t launch, size_t word, int64_t delta, int slot) {
    if (wl->walks_count[level] == wl->walks_capacity[level]) {
        size_t capacity = wl->walks_capacity[level] ? 2 * wl->walks_capacity[level] : 256;
        ar_shift_t *walks = realloc(wl->walks[level], capacity * sizeof *walks);
        if (walks) wl->walks[level] = walks;
        int8_t *slots = walks ? realloc(wl->walk_slot[level], capacity) : NULL;
        if (slots) wl->walk_slot[level] = slots;
        if (!walks || !slots) {
            wl_fail(wl, ar_status_out_of_memory_k, "out of memory for a repeat's deltas");
            return;
        }
        wl->walks_capacity[level] = capacity;
    }
    wl->walks[level][wl->walks_count[level]] = (ar_shift_t){launch, word, delta};
    wl->walk_slot[level][wl->walks_count[level]] = (int8_t)slot;
    ++wl->walks_count[level];
}

size_t wl_repeat_list(wl_t *wl, size_t first, size_t count, uint64_t iterations,
                      ar_shift_t const *deltas, size_t deltas_count) {
    size_t index = wl->repeats_count++;
    wl->shifts_count += deltas_count;
    if (wl->counting || wl->status) return index;
    ar_status_t status =
        ar_plan_add_repeat_deltas(wl->plan, first, count, iterations, deltas, deltas_count);
    if (status) wl_fail(wl, status, "could not add a deltas repeat");
    return index;
}

size_t wl_repeat_deltas(wl_t *wl, int level, size_t first, size_t count, uint64_t iterations) {
    size_t index = wl_repeat_list(wl, first, count, iterations, wl->walks[level],
                                  wl->walks_count[level]);
    wl->walks_count[level] = 0;
    return index;
}

size_t wl_repeat_frames(wl_t *wl, int level, size_t first, size_t count, uint64_t iterations,
                        uint64_t const *experts) {
    size_t index = wl->repeats_count++;
    size_t n = wl->walks_count[level];
    wl->shifts_count += n * iterations;
    wl->walks_count[level] = 0;
    if (wl->counting || wl->status) return index;
    if (n > wl->frame_capacity) {
        ar_shift_t *frame = realloc(wl->frame, n * sizeof *frame);
        if (!frame) {
            wl_fail(wl, ar_status_out_of_memory_k, "out of memory for a frame");
            return index;
        }
        wl->frame = frame;
        wl->frame_capacity = n;
    }
    ar_status_t status = ar_plan_add_repeat_frames(wl->plan, first, count, iterations);
    uint64_t top_k = wl->model->top_k ? wl->model->top_k : 1;
    ar_shift_t const *walks = wl->walks[level];
    int8_t const *slots = wl->walk_slot[level];
    for (uint64_t i = 0; !status && i < iterations; ++i) {
        for (size_t w = 0; w < n; ++w) {
            int64_t offset = (int64_t)i * walks[w].shift;
            if (slots[w] >= 0 && experts)
                offset += (int64_t)(experts[i * top_k + (uint64_t)slots[w]] * wl->expert_stride);
            wl->frame[w] = (ar_shift_t){walks[w].launch, walks[w].word, offset};
        }
        status = ar_plan_add_frame(wl->plan, wl->frame, n);
    }
    if (status) wl_fail(wl, status, "could not add a frames repeat");
    return index;
}

void wl_reference(wl_t *wl, size_t first, size_t count) {
    ++wl->references_count;
    if (wl->counting || wl->status) return;
    ar_status_t status = ar_plan_add_reference(wl->plan, first, count);
    if (status) wl_fail(wl, status, "could not add a reference");
}

/* ---- Counting ---------------------------------------------------------------------------- */

static wl_summary_t single(int phase) {
    return (wl_summary_t){false, phase, phase, 1, 1};
}

static wl_summary_t concat(wl_summary_t a, wl_summary_t b) {
    if (a.empty) return b;
    if (b.empty) return a;
    wl_summary_t s = {false, a.first_phase, b.last_phase, a.runs + b.runs, a.launches + b.launches};
    if (a.last_phase == b.first_phase) --s.runs;
    return s;
}

static wl_summary_t times(wl_summary_t a, uint64_t n) {
    if (a.empty || n == 0) return (wl_summary_t){.empty = true};
    wl_summary_t s = a;
    s.runs = a.runs * n - (a.first_phase == a.last_phase ? (unsigned __int128)(n - 1) : 0);
    s.launches = a.launches * n;
    return s;
}

typedef struct counter_t {
    wl_t const *wl;
    size_t *order; /* repeats by first ascending, then count descending: outer before inner */
    size_t count;
} counter_t;

typedef struct repeat_key_t {
    size_t first, count, index;
} repeat_key_t;

static int by_nesting(void const *a, void const *b) {
    repeat_key_t const *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return 0;
}

static size_t first_rank_at(counter_t const *c, size_t launch) {
    size_t lo = 0, hi = c->count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->wl->plan->repeats[c->order[mid]].first < launch) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* Launches [a, b) as they run, each repeat that lies whole inside expanded; a repeat ranked at
 * or before `rank` is the one being expanded (or an enclosing one) and is walked plainly. */
static wl_summary_t summarize(counter_t const *c, size_t a, size_t b, size_t rank) {
    ar_plan_t const *plan = c->wl->plan;
    wl_summary_t s = {.empty = true};
    size_t i = a;
    while (i < b) {
        size_t k = first_rank_at(c, i);
        if (k < rank) k = rank;
        bool expanded = false;
        for (; k < c->count && plan->repeats[c->order[k]].first == i; ++k) {
            ar_repeat_t const *r = &plan->repeats[c->order[k]];
            if (r->first + r->count <= b) {
                s = concat(s, times(summarize(c, i, i + r->count, k + 1), r->iterations));
                i += r->count;
                expanded = true;
                break;
            }
        }
        if (!expanded) s = concat(s, single(c->wl->launch_phase[i++]));
    }
    return s;
}

wl_summary_t wl_summarize_schedule(wl_t const *wl, size_t stop_launch, bool *found) {
    wl_summary_t total = {.empty = true};
    if (found) *found = false;
    counter_t c = {wl, malloc((wl->plan->repeats_count + 1) * sizeof(size_t)),
                   wl->plan->repeats_count};
    repeat_key_t *keys = malloc((c.count + 1) * sizeof *keys);
    if (!c.order || !keys) {
        free(c.order);
        free(keys);
        return total;
    }
    for (size_t r = 0; r < c.count; ++r)
        keys[r] = (repeat_key_t){wl->plan->repeats[r].first, wl->plan->repeats[r].count, r};
    qsort(keys, c.count, sizeof *keys, by_nesting);
    for (size_t r = 0; r < c.count; ++r) c.order[r] = keys[r].index;
    free(keys);

    enum { cache_size = 4 };
    struct {
        size_t first, count;
        wl_summary_t summary;
    } cache[cache_size];
    int cached = 0, next = 0;
    for (size_t r = 0; r < wl->plan->schedule_count; ++r) {
        ar_reference_t ref = wl->plan->schedule[r];
        if (stop_launch >= ref.first && stop_launch < ref.first + ref.count) {
            total = concat(total, summarize(&c, ref.first, stop_launch, 0));
            if (found) *found = true;
            break;
        }
        int hit = -1;
        for (int k = 0; k < cached; ++k)
            if (cache[k].first == ref.first && cache[k].count == ref.count) hit = k;
        if (hit < 0) {
            hit = next;
            cache[next].first = ref.first;
            cache[next].count = ref.count;
            cache[next].summary = summarize(&c, ref.first, ref.first + ref.count, 0);
            next = (next + 1) % cache_size;
            if (cached < cache_size) ++cached;
        }
        total = concat(total, cache[hit].summary);
    }
    free(c.order);
    return total;
}
