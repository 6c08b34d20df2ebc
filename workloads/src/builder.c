/* The calls families build through: declaring globals, phases and planes (with loops over the
 * phase order), and emitting launches, repeats and references into the plan, or, on the first
 * pass, only counting them so the plan reserves its arrays once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl.h"

uint64_t arp_wl_align(uint64_t value, uint64_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

void arp_wl_fail(arp_wl_t *wl, ar_status_t status, char const *message) {
    if (wl->status) return;
    wl->status = status;
    snprintf(wl->error, sizeof wl->error, "%s", message);
}

/* splitmix64: small, fast, and the same on every platform. */
uint64_t arp_wl_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint64_t arp_wl_random(arp_wl_t *wl) { return arp_wl_mix(wl->rng += 0x9e3779b97f4a7c15ull); }

uint64_t arp_wl_random_between(arp_wl_t *wl, uint64_t lo, uint64_t hi) {
    return hi <= lo ? lo : lo + arp_wl_random(wl) % (hi - lo + 1);
}

void *arp_wl_family_state(arp_wl_t *wl, size_t size) {
    if (!wl->family_state) wl->family_state = malloc(size);
    if (!wl->family_state) {
        arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
        return NULL;
    }
    memset(wl->family_state, 0xff, size);
    return wl->family_state;
}

int arp_wl_global(arp_wl_t *wl, char const *name, uint64_t size, uint64_t gap_after) {
    if (wl->globals_count == ARP_WL_MAX_GLOBALS) {
        arp_wl_fail(wl, ar_status_unsupported_k, "too many globals");
        return 0;
    }
    if (size > ARP_WL_MAX_TENSOR) {
        arp_wl_fail(wl, ar_status_unsupported_k, "a global would span more than 2^56 bytes");
        return 0;
    }
    arp_wl_global_t *g = &wl->globals[wl->globals_count];
    snprintf(g->name, sizeof g->name, "%s", name);
    g->size = arp_wl_align(size ? size : 1, ARP_WL_ALIGNMENT);
    g->gap_after = gap_after;
    return wl->globals_count++;
}

int arp_wl_phase(arp_wl_t *wl, char const *id) {
    for (int p = 0; p < wl->phases_count; ++p)
        if (strcmp(wl->phases[p].id, id) == 0) return p;
    if (wl->phases_count == ARP_WL_MAX_PHASES) {
        arp_wl_fail(wl, ar_status_unsupported_k, "too many phases");
        return 0;
    }
    arp_wl_phase_t *phase = &wl->phases[wl->phases_count];
    memset(phase, 0, sizeof *phase);
    snprintf(phase->id, sizeof phase->id, "%s", id);
    return wl->phases_count++;
}

int arp_wl_plane_index(arp_wl_t const *wl, char const *name) {
    for (int n = 0; n < wl->planes_count; ++n)
        if (strcmp(wl->planes[n].name, name) == 0) return n;
    return -1;
}

/* The plane named `name`, made if new (-1 when the table is full). */
static int named_plane(arp_wl_t *wl, char const *name) {
    int n = arp_wl_plane_index(wl, name);
    if (n < 0) {
        if (wl->planes_count == ARP_WL_MAX_NAMES) {
            arp_wl_fail(wl, ar_status_unsupported_k, "too many planes");
            return -1;
        }
        n = wl->planes_count++;
        memset(&wl->planes[n], 0, sizeof wl->planes[n]);
        snprintf(wl->planes[n].name, sizeof wl->planes[n].name, "%s", name);
        wl->planes[n].host = -1;
    }
    return n;
}

/* Declare that `phase` holds plane `name` (fresh or carried). The same name is the same tensor
 * everywhere, so its size is the largest any phase asks for. */
int arp_wl_plane(arp_wl_t *wl, int phase, char const *name, uint64_t size, bool carried) {
    int n = named_plane(wl, name);
    if (n < 0) return 0;
    if (size > ARP_WL_MAX_TENSOR) {
        arp_wl_fail(wl, ar_status_unsupported_k, "a plane would span more than 2^56 bytes");
        return n;
    }
    size = arp_wl_align(size ? size : 1, ARP_WL_ALIGNMENT);
    if (size > wl->planes[n].size) wl->planes[n].size = size;
    arp_wl_phase_t *ph = &wl->phases[phase];
    for (int j = 0; j < ph->count; ++j)
        if (ph->planes[j] == n) return n;
    if (ph->count == ARP_WL_MAX_PHASE_PLANES) {
        arp_wl_fail(wl, ar_status_unsupported_k, "too many planes in one phase");
        return n;
    }
    ph->planes[ph->count] = n;
    ph->carried[ph->count] = carried;
    ph->becomes[ph->count] = -1;
    ++ph->count;
    return n;
}

/* The new value is a plane of its own name that the planner does not place: it takes the bytes
 * of its host (the first value of the chain of updates), and its lifetime widens the host's
 * (planner.c). The host itself, updated back into (a loop-carried pair), stays placed. */
int arp_wl_becomes(arp_wl_t *wl, int phase, int plane, char const *name) {
    arp_wl_plane(wl, phase, wl->planes[plane].name, 0, true);
    int n = named_plane(wl, name);
    if (wl->status || n < 0) return plane;
    if (wl->planes[n].size == 0) wl->planes[n].size = ARP_WL_ALIGNMENT;
    arp_wl_phase_t *ph = &wl->phases[phase];
    for (int j = 0; j < ph->count; ++j)
        if (ph->planes[j] == plane) ph->becomes[j] = n;
    int host = wl->planes[plane].host >= 0 ? wl->planes[plane].host : plane;
    if (n != host) wl->planes[n].host = host;
    return n;
}

void arp_wl_persistent(arp_wl_t *wl, int plane) { wl->planes[plane].persistent = true; }

void arp_wl_loop(arp_wl_t *wl, int first_phase, int last_phase) {
    if (wl->loops_count == ARP_WL_MAX_LOOPS) {
        arp_wl_fail(wl, ar_status_unsupported_k, "too many loops");
        return;
    }
    wl->loops[wl->loops_count++] = (arp_wl_loop_t){first_phase, last_phase};
}

uint64_t arp_wl_g(arp_wl_t const *wl, int global, uint64_t offset) {
    return wl->globals[global].base + offset;
}

uint64_t arp_wl_p(arp_wl_t const *wl, int plane, uint64_t offset) {
    return wl->planes[plane].base + offset;
}

ar_status_t arp_wl_read_across(ar_plan_t *plan, uint64_t size) {
    ar_plane_range_t reads = {0, size - size / 8}, writes = {size / 8, size - size / 8};
    ar_status_t status = ar_plan_set_plane_reads(plan, &reads, 1);
    return status ? status : ar_plan_set_plane_writes(plan, &writes, 1);
}

size_t arp_wl_launch(arp_wl_t *wl, char const *kernel, int phase, uint64_t const *words,
                     size_t count) {
    return arp_wl_launch_in(wl, kernel, phase, wl->phases[phase].id, words, count);
}

size_t arp_wl_launch_in(arp_wl_t *wl, char const *kernel, int phase, char const *id,
                        uint64_t const *words, size_t count) {
    size_t index = wl->launches_count++;
    wl->words_count += count;
    if (phase == wl->read_after_phase && wl->site[ARP_WL_SITE_READ_AFTER] == SIZE_MAX)
        wl->site[ARP_WL_SITE_READ_AFTER] = index;
    if (phase == wl->cross_phase && wl->site[ARP_WL_SITE_CROSS] == SIZE_MAX)
        wl->site[ARP_WL_SITE_CROSS] = index;
    if (wl->counting || wl->status) return index;
    size_t added = 0;
    ar_status_t status = ar_plan_add_launch(wl->plan, kernel, id, words, count, &added);
    if (status)
        arp_wl_fail(wl, status, "out of memory adding a launch");
    else
        wl->launch_phase[added] = phase;
    return index;
}

void arp_wl_walk(arp_wl_t *wl, int level, size_t launch, size_t word, int64_t delta, int slot) {
    if (wl->walks_count[level] == wl->walks_capacity[level]) {
        size_t capacity = wl->walks_capacity[level] ? 2 * wl->walks_capacity[level] : 256;
        ar_shift_t *walks = realloc(wl->walks[level], capacity * sizeof *walks);
        if (walks) wl->walks[level] = walks;
        int8_t *slots = walks ? realloc(wl->walk_slot[level], capacity) : NULL;
        if (slots) wl->walk_slot[level] = slots;
        if (!walks || !slots) {
            arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory for a repeat's deltas");
            return;
        }
        wl->walks_capacity[level] = capacity;
    }
    wl->walks[level][wl->walks_count[level]] = (ar_shift_t){launch, word, delta};
    wl->walk_slot[level][wl->walks_count[level]] = (int8_t)slot;
    ++wl->walks_count[level];
}

size_t arp_wl_repeat_list(arp_wl_t *wl, size_t first, size_t count, uint64_t iterations,
                          ar_shift_t const *deltas, size_t deltas_count) {
    size_t index = wl->repeats_count++;
    wl->shifts_count += deltas_count;
    if (wl->counting || wl->status) return index;
    ar_status_t status =
        ar_plan_add_repeat_deltas(wl->plan, first, count, iterations, deltas, deltas_count);
    if (status) arp_wl_fail(wl, status, "could not add a deltas repeat");
    return index;
}

size_t arp_wl_repeat_deltas(arp_wl_t *wl, int level, size_t first, size_t count,
                            uint64_t iterations) {
    size_t index =
        arp_wl_repeat_list(wl, first, count, iterations, wl->walks[level], wl->walks_count[level]);
    wl->walks_count[level] = 0;
    return index;
}

/* Room for one frame of n shifts in wl->frame; false (and the builder failed) without it. */
static bool frame_reserve(arp_wl_t *wl, size_t n) {
    if (n <= wl->frame_capacity) return true;
    ar_shift_t *frame = realloc(wl->frame, n * sizeof *frame);
    if (!frame) {
        arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory for a frame");
        return false;
    }
    wl->frame = frame;
    wl->frame_capacity = n;
    return true;
}

size_t arp_wl_repeat_frames(arp_wl_t *wl, int level, size_t first, size_t count,
                            uint64_t iterations, uint64_t const *experts) {
    size_t index = wl->repeats_count++;
    size_t n = wl->walks_count[level];
    wl->shifts_count += n * iterations;
    wl->walks_count[level] = 0;
    if (wl->counting || wl->status) return index;
    if (!frame_reserve(wl, n)) return index;
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
    if (status) arp_wl_fail(wl, status, "could not add a frames repeat");
    return index;
}

size_t arp_wl_repeat_each(arp_wl_t *wl, size_t first, size_t count, uint64_t iterations,
                          size_t width, void (*frame)(void *, uint64_t, ar_shift_t *),
                          void *context) {
    size_t index = wl->repeats_count++;
    wl->shifts_count += width * iterations;
    if (wl->counting || wl->status) return index;
    if (!frame_reserve(wl, width)) return index;
    ar_status_t status = ar_plan_add_repeat_frames(wl->plan, first, count, iterations);
    for (uint64_t i = 0; !status && i < iterations; ++i) {
        frame(context, i, wl->frame);
        status = ar_plan_add_frame(wl->plan, wl->frame, width);
    }
    if (status) arp_wl_fail(wl, status, "could not add a frames repeat");
    return index;
}

void arp_wl_reference(arp_wl_t *wl, size_t first, size_t count) {
    ++wl->references_count;
    if (wl->counting || wl->status) return;
    ar_status_t status = ar_plan_add_reference(wl->plan, first, count);
    if (status) arp_wl_fail(wl, status, "could not add a reference");
}
