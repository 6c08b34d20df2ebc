/* The fault table: each fault plants one defect at a site the family recorded, at one stage of
 * generation, and its verdict follows from its class and that site (generate.c), never from
 * certifying. Adding a fault adds its plant function and one entry below (and its test). The
 * two probes are safe plans the interval hull rejects: the exact oracle certifies them. */
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "wl.h"

/* ---- Ranges: rules A and B, and the planes rule D trips on --------------------------------- */

/* params_layers slides back over params_embed's last 256 bytes: (A) fails. */
static bool overlap_globals(arp_wl_t *wl) {
    wl->globals[1].base = wl->globals[0].base + wl->globals[0].size - ARP_WL_ALIGNMENT;
    return true;
}

/* The first stage's x_norm1 plane moves 8 bytes off alignment: (B) fails. */
static bool misalign_plane(arp_wl_t *wl) {
    wl->planes[wl->phases[wl->clobber_phase].planes[0]].base += 8;
    return true;
}

/* The first ln1 phase gains a fresh plane on the last global: (B) fails. */
static bool plane_over_global(arp_wl_t *wl) {
    int n = arp_wl_plane(wl, wl->clobber_phase, "over_residual", 4096, false);
    wl->planes[n].unplanned = true;
    wl->planes[n].base = wl->globals[wl->globals_count - 1].base;
    return true;
}

/* The first stage's qkv phase gains a carried plane "ghost" that no phase declares. */
static bool ghost_plane(arp_wl_t *wl) {
    int n = arp_wl_plane(wl, wl->ghost_phase, "ghost", 4096, true);
    wl->planes[n].unplanned = true;
    wl->planes[n].base = wl->slack_base + 65536;
    return true;
}

/* The first ln1 phase gains a fresh plane "clobber" over "mask", which the embedding declares
 * and the first scores phase carries. */
static bool clobber_mask(arp_wl_t *wl) {
    int mask = arp_wl_plane_index(wl, "mask");
    int n = arp_wl_plane(wl, wl->clobber_phase, "clobber", wl->planes[mask].size, false);
    wl->planes[n].unplanned = true;
    wl->planes[n].base = wl->planes[mask].base;
    wl->planes[n].size = wl->planes[mask].size;
    return true;
}

/* In place: the phase that reads what an in-place update left reads the update's input instead
 * (same bytes), which is gone: the first stage's qkv carries x_norm1, which ln1_scale has just
 * updated into x_scaled1; or (training) its ln2 carries resid, which out_proj's add has just
 * updated into resid_attn. A family that lays out its own ranges (flat) plants it there. */
static bool read_after_update(arp_wl_t *wl) {
    if (wl->family->ranges) return true;
    arp_wl_phase_t *ph = &wl->phases[wl->read_after_phase];
    for (int j = 0; j < ph->count; ++j)
        if (wl->planes[ph->planes[j]].host >= 0) {
            ph->planes[j] = wl->planes[ph->planes[j]].host;
            return true;
        }
    arp_wl_fail(wl, ar_status_invalid_argument_k, "no in-place update to read after");
    return false;
}

/* In place, across elements: the update whose output the in-place phase reads (as above) also
 * reads its input across elements, at bytes it overwrites (a shift by an eighth of the value):
 * its plane gets `reads`/`writes` that share bytes, and the update's phase breaks D at its first
 * instance. Flat marks its op (family_flat.c, ranges). */
static bool cross_read(arp_wl_t *wl) {
    if (wl->family->ranges) {
        wl->cross_phase = wl->read_after_phase - 1, wl->cross_slot = 0;
        return true;
    }
    arp_wl_phase_t const *reader = &wl->phases[wl->read_after_phase];
    for (int j = 0; j < reader->count; ++j) {
        int value = reader->planes[j], host = wl->planes[value].host;
        if (host < 0) continue;
        for (int p = 0; p < wl->phases_count; ++p)
            for (int i = 0; i < wl->phases[p].count; ++i)
                if (wl->phases[p].planes[i] == host && wl->phases[p].becomes[i] == value) {
                    wl->cross_phase = p, wl->cross_slot = i;
                    return true;
                }
    }
    arp_wl_fail(wl, ar_status_invalid_argument_k, "no in-place update to read across");
    return false;
}

/* ---- Launches: rule C at a launch as written --------------------------------------------- */

static bool named(ar_plan_t const *plan, size_t launch, size_t word) {
    for (size_t s = 0; s < plan->shifts_count; ++s)
        if (plan->shifts[s].launch == launch && plan->shifts[s].word == word) return true;
    return false;
}

static bool in_window(arp_wl_t const *wl, uint64_t value) {
    return value >= wl->window_base && value - wl->window_base < wl->window_size;
}

/* The first word of `launch` that is an address and that no repeat moves, or SIZE_MAX. */
static size_t plain_address_word(arp_wl_t const *wl, size_t launch) {
    ar_launch_t const *l = &wl->plan->launches[launch];
    for (size_t w = 0; w < l->words_count; ++w)
        if (in_window(wl, wl->plan->words[l->words_first + w]) && !named(wl->plan, launch, w))
            return w;
    return SIZE_MAX;
}

static bool in_phase_planes(arp_wl_t const *wl, int phase, uint64_t address) {
    arp_wl_phase_t const *ph = &wl->phases[phase];
    for (int j = 0; j < ph->count; ++j) {
        arp_wl_plane_t const *p = &wl->planes[ph->planes[j]];
        if (address >= p->base && address - p->base < p->size) return true;
    }
    return false;
}

/* An address inside some other phase's plane that no plane of `phase` covers (globals lie
 * apart from the workspace): the start of such a plane, or the end of one of `phase`'s planes
 * that lies inside it. UINT64_MAX when every other plane is covered. */
static uint64_t other_phase_address(arp_wl_t const *wl, int phase) {
    for (int q = 0; q < wl->phases_count; ++q) {
        if (q == phase) continue;
        for (int j = 0; j < wl->phases[q].count; ++j) {
            arp_wl_plane_t const *other = &wl->planes[wl->phases[q].planes[j]];
            if (!in_phase_planes(wl, phase, other->base)) return other->base;
            arp_wl_phase_t const *own = &wl->phases[phase];
            for (int i = 0; i < own->count; ++i) {
                arp_wl_plane_t const *p = &wl->planes[own->planes[i]];
                uint64_t end = p->base + p->size;
                if (end > other->base && end - other->base < other->size &&
                    !in_phase_planes(wl, phase, end))
                    return end;
            }
        }
    }
    return UINT64_MAX;
}

/* The victim's first plain address word points at `address` (UINT64_MAX: none found). */
static bool repoint_victim(arp_wl_t *wl, bool other_phase) {
    size_t l = wl->site[ARP_WL_SITE_VICTIM];
    size_t w = l == SIZE_MAX ? SIZE_MAX : plain_address_word(wl, l);
    uint64_t address = !other_phase    ? wl->slack_base + 4096
                       : w == SIZE_MAX ? UINT64_MAX
                                       : other_phase_address(wl, wl->launch_phase[l]);
    if (w == SIZE_MAX || address == UINT64_MAX) {
        arp_wl_fail(wl, ar_status_invalid_argument_k, "no launch to plant it in");
        return false;
    }
    wl->plan->words[wl->plan->launches[l].words_first + w] = address;
    return true;
}

/* An unwalked address word of a launch outside repeats points past the workspace, in the
 * window, in no range. */
static bool stray_pointer(arp_wl_t *wl) { return repoint_victim(wl, false); }

/* The same word points into another phase's plane, at a byte none of its own planes cover. */
static bool other_phase_plane(arp_wl_t *wl) { return repoint_victim(wl, true); }

/* The first layer's ln1 launch names a phase no one declares. */
static bool undeclared_phase(arp_wl_t *wl) {
    ar_plan_t *plan = wl->plan;
    size_t l = wl->site[ARP_WL_SITE_LAYER_WEIGHT];
    plan->launches[l].phase_name = ar_plan_intern(plan, "undeclared.phase");
    if (plan->launches[l].phase_name) return true;
    arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
    return false;
}

/* The ln1 weight word's layer delta grows by ceil(S/(L-1)) (S the layer stride): it stays in
 * params_layers for layers 0..L-2 and lands in the guard gap after it only at the last. */
static bool delta_off_bank(arp_wl_t *wl) {
    ar_plan_t *plan = wl->plan;
    ar_repeat_t const *r = &plan->repeats[wl->layer_repeat]; /* deltas */
    size_t l = wl->site[ARP_WL_SITE_LAYER_WEIGHT], w = wl->layer_weight_word;
    for (size_t s = r->shifts_first; s < r->shifts_first + r->shifts_count; ++s) {
        if (plan->shifts[s].launch != l || plan->shifts[s].word != w) continue;
        uint64_t S = wl->layer_stride, L = wl->layers;
        plan->shifts[s].shift = (int64_t)(S + (S + L - 2) / (L - 1));
        return true;
    }
    arp_wl_fail(wl, ar_status_invalid_argument_k, "the layer walk was not found");
    return false;
}

/* ---- Probes: a phase, launches and a reference of their own -------------------------------- */

static void declare_pingpong(arp_wl_t *wl) {
    wl->probe_phase = arp_wl_phase(wl, "probe.pingpong");
    wl->probe_a = arp_wl_plane(wl, wl->probe_phase, "probe.ping", 65536, false);
    wl->probe_b = arp_wl_plane(wl, wl->probe_phase, "probe.pong", 65536, false);
}

typedef struct pingpong_t {
    size_t launch;
    int64_t apart;
} pingpong_t;

static void pingpong_frame(void *context, uint64_t i, ar_shift_t *frame) {
    pingpong_t const *p = context;
    int64_t flip = (i & 1) ? p->apart : 0;
    frame[0] = (ar_shift_t){p->launch, 0, flip};
    frame[1] = (ar_shift_t){p->launch, 1, -flip};
}

/* Iteration i reads one buffer and writes the other, alternating through frames: every value
 * lies in ping or pong, but with more than `few` iterations the word's interval is the hull
 * from one buffer to the other. */
static bool pingpong(arp_wl_t *wl) {
    uint64_t a = arp_wl_p(wl, wl->probe_a, 0), b = arp_wl_p(wl, wl->probe_b, 0);
    uint64_t iterations = wl->few + 1 + 2 * wl->layers;
    uint64_t words[3] = {a, b, 65536};
    size_t l = arp_wl_launch(wl, "pingpong_step", wl->probe_phase, words, 3);
    wl->site[ARP_WL_SITE_PROBE] = l;
    pingpong_t context = {l, (int64_t)(b - a)};
    arp_wl_repeat_each(wl, l, 1, iterations, 2, pingpong_frame, &context);
    arp_wl_reference(wl, l, 1);
    return true;
}

static void declare_gather(arp_wl_t *wl) {
    wl->probe_phase = arp_wl_phase(wl, "probe.gather");
    wl->probe_a = arp_wl_plane(wl, wl->probe_phase, "probe.stash_a", 65536, false);
    wl->probe_b = arp_wl_plane(wl, wl->probe_phase, "probe.stash_b", 65536, false);
}

/* An outer repeat (2 iterations) picks stash a or b, an inner one (4) walks inside it: two
 * repeats name the word, so it gets the hull, which runs from a into b. */
static bool two_repeat_word(arp_wl_t *wl) {
    uint64_t a = arp_wl_p(wl, wl->probe_a, 0), b = arp_wl_p(wl, wl->probe_b, 0);
    int64_t apart = (int64_t)(b - a);
    uint64_t load[2] = {a, 16384}, gather[2] = {a, 16384};
    size_t l0 = arp_wl_launch(wl, "probe_load", wl->probe_phase, load, 2);
    size_t l1 = arp_wl_launch(wl, "probe_gather", wl->probe_phase, gather, 2);
    wl->site[ARP_WL_SITE_PROBE] = l1;
    ar_shift_t inner[1] = {{l1, 0, 16384}};
    ar_shift_t outer[2] = {{l0, 0, apart}, {l1, 0, apart}};
    arp_wl_repeat_list(wl, l1, 1, 4, inner, 1);
    arp_wl_repeat_list(wl, l0, 2, 2, outer, 2);
    arp_wl_reference(wl, l0, 2);
    return true;
}

/* ---- The table ------------------------------------------------------------------------------ */

/* name, stage, verdict, site, min_layers, declare, plant (and in_place) */
static arp_wl_fault_t const faults[] = {
    {"overlapping-globals", ARP_WL_PLACED, ARP_WL_RANGES, 0, 0, NULL, overlap_globals, false},
    {"misaligned-plane", ARP_WL_PLACED, ARP_WL_RANGES, 0, 0, NULL, misalign_plane, false},
    {"plane-over-global", ARP_WL_PLACED, ARP_WL_RANGES, 0, 0, NULL, plane_over_global, false},
    {"stray-pointer", ARP_WL_BUILT, ARP_WL_LAUNCH, ARP_WL_SITE_VICTIM, 0, NULL, stray_pointer,
     false},
    {"other-phase-plane", ARP_WL_BUILT, ARP_WL_LAUNCH, ARP_WL_SITE_VICTIM, 0, NULL,
     other_phase_plane, false},
    {"undeclared-phase", ARP_WL_BUILT, ARP_WL_LAUNCH, ARP_WL_SITE_LAYER_WEIGHT, 0, NULL,
     undeclared_phase, false},
    {"delta-off-bank-last-layer", ARP_WL_BUILT, ARP_WL_LAUNCH, ARP_WL_SITE_LAYER_WEIGHT, 2, NULL,
     delta_off_bank, false},
    {"carried-never-declared", ARP_WL_PLACED, ARP_WL_INSTANCE, ARP_WL_SITE_GHOST, 0, NULL,
     ghost_plane, false},
    {"carried-clobbered", ARP_WL_PLACED, ARP_WL_INSTANCE, ARP_WL_SITE_FIRST_SCORES, 0, NULL,
     clobber_mask, false},
    {"in-place-input-read-later", ARP_WL_PLACED, ARP_WL_INSTANCE, ARP_WL_SITE_READ_AFTER, 0, NULL,
     read_after_update, true},
    {"in-place-cross-read", ARP_WL_PLACED, ARP_WL_INSTANCE, ARP_WL_SITE_CROSS, 0, NULL, cross_read,
     true},
    {"pingpong-frames", ARP_WL_EMITTED, ARP_WL_PROBE, ARP_WL_SITE_PROBE, 0, declare_pingpong,
     pingpong, false},
    {"two-repeat-word", ARP_WL_EMITTED, ARP_WL_PROBE, ARP_WL_SITE_PROBE, 0, declare_gather,
     two_repeat_word, false},
};

enum { FAULTS = sizeof faults / sizeof *faults };

arp_wl_fault_t const *arp_wl_find_fault(char const *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < FAULTS; ++i)
        if (strcmp(faults[i].name, name) == 0) return &faults[i];
    return NULL;
}

/* The names, NULL-terminated, filled once (generations may run in threads). */
static char const *fault_names[FAULTS + 1];
static once_flag names_once = ONCE_FLAG_INIT;

static void fill_names(void) {
    for (size_t i = 0; i < FAULTS; ++i) fault_names[i] = faults[i].name;
}

char const *const *ar_workload_faults(void) {
    call_once(&names_once, fill_names);
    return fault_names;
}
