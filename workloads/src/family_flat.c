/* The flat family: a plan shaped like a runtime's export of one graph (scripts/tflite-plan):
 * one phase per op, no repeats, one reference. Op k reads the value op k-1 wrote and, one op
 * in four, a value from up to 32 ops back (a skip connection); it reads its weights (0, 1 or 2
 * globals, consecutive in the weight bank) and writes one fresh value. Its phase carries the
 * values it reads and declares the one it writes. Values sit in a ring of 33 slots of the
 * largest value's size, so no value is overwritten before its last reader. In place, an
 * elementwise op whose first input has no later reader may write its output over it, in its
 * slot (`becomes`), as LiteRT's in-place ADD does. The shape's
 * calibration against the LiteRT exports is in workloads/README.md. Too large for the
 * declaration tables, it lays out its own ranges (the family entry's `ranges`). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl.h"

enum { SKIP_MAX = 32, RING = SKIP_MAX + 1 };

typedef struct flat_t {
    uint64_t ops, globals, slot_bytes;
    uint64_t *global_base, *global_size; /* [globals] */
    uint64_t *value_size;                /* [ops + 1]: value 0 the input, k + 1 op k's output */
    uint64_t *weight_first;              /* [ops]: op k's first weight */
    uint32_t *skip;                      /* [ops]: its second input value, or UINT32_MAX */
    uint32_t *slot;                      /* [ops + 1]: the ring slot of each value */
    uint8_t *weights;                    /* [ops]: 0, 1 or 2 */
    uint8_t *in_place;                   /* [ops]: op k writes v(k+1) over v(k) */
    uint64_t read_after;                 /* the fault: the op whose input a later phase reads */
} flat_t;

/* A draw for (seed, what, k): the plan is the same bytes for the same options and seed. */
static uint64_t draw(arp_wl_t const *wl, uint64_t what, uint64_t k) {
    return arp_wl_mix(wl->seed * 0x9e3779b97f4a7c15ull ^ (what << 56) ^ (k + 1));
}

/* log-uniform between 2^lo and 2^hi bytes, aligned */
static uint64_t log_size(uint64_t h, unsigned lo, unsigned hi) {
    unsigned e = lo + (unsigned)(h % (hi - lo));
    uint64_t base = 1ull << e;
    return arp_wl_align(base + (h >> 16) % base, ARP_WL_ALIGNMENT);
}

static uint64_t value_base(arp_wl_t const *wl, flat_t const *f, uint64_t v) {
    return wl->workspace_base + f->slot[v] * f->slot_bytes;
}

static char const *kind(flat_t const *f, uint64_t k) {
    static char const *const weighted[3] = {"RELU", "MUL", "CONV_2D"};
    if (f->weights[k] == 0 && f->skip[k] != UINT32_MAX) return "ADD";
    return weighted[f->weights[k]];
}

/* In place (one in four of the elementwise ops, RELU, MUL or ADD, after the first, whose first
 * input v(k) has no later reader): op k writes v(k+1) over v(k), so v(k+1) takes v(k)'s size
 * and slot and v(k) is no longer live past its declaring phase (`last`, for the bound). The
 * fault forces the first such op in place if the draws made none, and its next phase reads
 * v(k) (ranges). Without in-place ops value v sits in slot v mod RING; an in-place chain
 * keeps one slot, so a slot is taken again only after RING fresh values (more ops than any
 * value's reach). */
static void choose_in_place(arp_wl_t *wl, flat_t *f, uint64_t *last) {
    uint64_t N = f->ops, fresh = 0;
    bool fault = wl->fault && wl->fault->in_place;
    f->read_after = UINT64_MAX;
    for (uint64_t k = 0; k < N; ++k) {
        bool eligible = (wl->in_place & AR_WORKLOAD_IN_PLACE_ELEMENTWISE) && k >= 1 &&
                        f->weights[k] <= 1 && last[k] == k + 1;
        f->in_place[k] = eligible && draw(wl, 4, k) % 4 == 0;
        if (fault && f->read_after == UINT64_MAX && f->in_place[k]) f->read_after = k;
    }
    for (uint64_t k = 1; fault && f->read_after == UINT64_MAX && k < N; ++k)
        if (f->weights[k] <= 1 && last[k] == k + 1) f->in_place[f->read_after = k] = 1;
    if (fault && f->read_after == UINT64_MAX) {
        arp_wl_fail(wl, ar_status_invalid_argument_k,
                    "in-place-input-read-later needs an elementwise op after the first whose "
                    "input has no later reader");
        return;
    }
    f->slot[0] = 0;
    for (uint64_t k = 0; k < N; ++k) {
        if (f->in_place[k]) {
            f->value_size[k + 1] = f->value_size[k];
            f->slot[k + 1] = f->slot[k];
            last[k] = k;
        } else {
            f->slot[k + 1] = (uint32_t)(++fresh % RING);
        }
    }
    /* op k reads v(k) at phase k + 1; the next op's phase (or the outputs') is k + 2 */
    wl->read_after_phase = fault ? (int)(f->read_after + 2) : -1;
}

static void declare(arp_wl_t *wl) {
    uint64_t N = wl->ops, G = wl->globals_wanted;
    size_t bytes = sizeof(flat_t) + (2 * G + 2 * N + 1) * sizeof(uint64_t) +
                   (2 * N + 1) * sizeof(uint32_t) + 2 * N;
    flat_t *f = arp_wl_family_state(wl, bytes);
    if (!f) return;
    f->ops = N, f->globals = G;
    f->global_base = (uint64_t *)(f + 1);
    f->global_size = f->global_base + G;
    f->value_size = f->global_size + G;
    f->weight_first = f->value_size + N + 1;
    f->skip = (uint32_t *)(f->weight_first + N);
    f->slot = f->skip + N;
    f->weights = (uint8_t *)(f->slot + N + 1);
    f->in_place = f->weights + N;
    uint64_t cursor = ARP_WL_WINDOW_BASE;
    for (uint64_t g = 0; g < G; ++g) {
        f->global_base[g] = cursor;
        f->global_size[g] = log_size(draw(wl, 1, g), 10, 18); /* 1 KB .. 256 KB */
        cursor += f->global_size[g];
    }
    wl->workspace_base = arp_wl_align(cursor, 1u << 20);
    uint64_t largest = 0, weight = 0;
    for (uint64_t v = 0; v <= N; ++v) {
        f->value_size[v] = log_size(draw(wl, 2, v), 14, 20); /* 16 KB .. 1 MB */
        if (f->value_size[v] > largest) largest = f->value_size[v];
    }
    f->slot_bytes = largest;
    for (uint64_t k = 0; k < N; ++k) {
        uint64_t h = draw(wl, 3, k);
        f->weights[k] = G == 0 ? 0 : (uint8_t)((h & 3) < 2 ? (h & 3) : 2);
        f->weight_first[k] = weight % (G ? G : 1);
        weight += f->weights[k];
        f->skip[k] = UINT32_MAX;
        /* one op in four; mostly 2-4 ops back, a quarter of them 5-32 */
        if (k >= 1 && ((h >> 2) & 3) == 0) {
            uint64_t d = ((h >> 4) & 3) ? 2 + (h >> 8) % 3 : 5 + (h >> 8) % (SKIP_MAX - 4);
            if (d <= k + 1) f->skip[k] = (uint32_t)(k + 1 - d);
        }
    }
    /* The bound: the largest sum of values live at one phase (value v from phase v to its
     * last reader), by a difference array over the phases. */
    int64_t *delta = calloc(N + 3, sizeof *delta);
    uint64_t *last = malloc((N + 1) * sizeof *last);
    if (!delta || !last) {
        free(delta), free(last);
        arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
        return;
    }
    for (uint64_t v = 0; v <= N; ++v) last[v] = v + 1; /* op v reads it, or the outputs */
    for (uint64_t k = 0; k < N; ++k)
        if (f->skip[k] != UINT32_MAX && last[f->skip[k]] < k + 1) last[f->skip[k]] = k + 1;
    choose_in_place(wl, f, last);
    if (wl->status) {
        free(delta), free(last);
        return;
    }
    for (uint64_t v = 0; v <= N; ++v) {
        delta[v] += (int64_t)f->value_size[v];
        delta[last[v] + 1] -= (int64_t)f->value_size[v];
    }
    int64_t live = 0, bound = 0;
    for (uint64_t p = 0; p < N + 2; ++p) {
        live += delta[p];
        if (live > bound) bound = live;
    }
    free(delta), free(last);
    uint64_t ring = (N + 1 < RING ? N + 1 : RING) * largest;
    wl->workspace_bytes = ring;
    wl->lower_bound = (uint64_t)bound;
    wl->slack_base = arp_wl_align(wl->workspace_base + ring, 1u << 20);
    wl->window_base = ARP_WL_WINDOW_BASE;
    wl->window_size = wl->slack_base + (1u << 20) - ARP_WL_WINDOW_BASE;
}

/* Value v as a plane, named `named` (its own name but where the fault renames it). */
static ar_status_t add_value(arp_wl_t const *wl, flat_t const *f, ar_plan_t *plan, uint64_t v,
                             uint64_t named, bool carried, bool update) {
    char name[32], next[32];
    snprintf(name, sizeof name, "v%" PRIu64, named);
    snprintf(next, sizeof next, "v%" PRIu64, v + 1);
    return ar_plan_add_plane_becomes(plan, name, value_base(wl, f, v), f->value_size[v], carried,
                                     update ? next : NULL);
}

static ar_status_t ranges(arp_wl_t *wl, ar_plan_t *plan) {
    flat_t const *f = wl->family_state;
    ar_status_t status = ar_status_success_k;
    char name[48];
    for (uint64_t g = 0; !status && g < f->globals; ++g) {
        snprintf(name, sizeof name, "w%" PRIu64, g);
        status = ar_plan_add_global(plan, name, f->global_base[g], f->global_size[g]);
    }
    if (!status) status = ar_plan_add_phase(plan, "inputs");
    if (!status) status = add_value(wl, f, plan, 0, 0, false, false);
    /* The fault: the op after the one updating v(r) in place carries v(r), which is gone, in
     * place of v(r + 1) (the same bytes); or (wl->cross_phase, op r's phase) op r reads v(r)
     * across elements at bytes it overwrites. */
    uint64_t r = wl->cross_phase < 0 ? f->read_after : UINT64_MAX;
    for (uint64_t k = 0; !status && k <= f->ops; ++k) {
        uint64_t named = r != UINT64_MAX && k == r + 1 ? r : k;
        if (k == f->ops) { /* the outputs */
            status = ar_plan_add_phase(plan, "outputs");
            if (!status) status = add_value(wl, f, plan, k, named, true, false);
            break;
        }
        snprintf(name, sizeof name, "op%" PRIu64 ":%s", k, kind(f, k));
        status = ar_plan_add_phase(plan, name);
        /* in place: v(k) carried, and v(k + 1) left over its bytes */
        if (!status) status = add_value(wl, f, plan, k, named, true, f->in_place[k]);
        if (!status && (int64_t)k + 1 == wl->cross_phase)
            status = arp_wl_read_across(plan, f->value_size[k]);
        if (!status && f->skip[k] != UINT32_MAX)
            status = add_value(wl, f, plan, f->skip[k], f->skip[k], true, false);
        if (!status && !f->in_place[k]) status = add_value(wl, f, plan, k + 1, k + 1, false, false);
    }
    return status;
}

static void emit(arp_wl_t *wl) {
    flat_t const *f = wl->family_state;
    uint64_t words[5];
    char id[48];
    uint64_t input = value_base(wl, f, 0);
    arp_wl_launch_in(wl, "set_inputs", 0, "inputs", &input, 1);
    for (uint64_t k = 0; k < f->ops; ++k) {
        size_t n = 0;
        words[n++] = value_base(wl, f, k);
        if (f->skip[k] != UINT32_MAX) words[n++] = value_base(wl, f, f->skip[k]);
        for (uint64_t w = 0; w < f->weights[k]; ++w)
            words[n++] = f->global_base[(f->weight_first[k] + w) % f->globals];
        words[n++] = value_base(wl, f, k + 1);
        snprintf(id, sizeof id, "op%" PRIu64 ":%s", k, kind(f, k));
        size_t l = arp_wl_launch_in(wl, kind(f, k), (int)(k + 1), id, words, n);
        if (k == 0) wl->site[ARP_WL_SITE_LAYER_WEIGHT] = l;
    }
    uint64_t output = value_base(wl, f, f->ops);
    wl->site[ARP_WL_SITE_VICTIM] =
        arp_wl_launch_in(wl, "get_outputs", (int)(f->ops + 1), "outputs", &output, 1);
    arp_wl_reference(wl, 0, wl->launches_count);
}

/* The faults that need only a launch and the window: the rest plant into the transformer
 * families' declarations. */
static char const *const flat_faults[] = {"stray-pointer", "undeclared-phase",
                                          "in-place-input-read-later", "in-place-cross-read",
                                          NULL};

/* Presets: model (unused), layers, batch, seq, decode, epochs, micro, ops, globals. */
arp_wl_family_t const arp_wl_family_flat = {
    .name = "flat",
    .presets = {{"gpt2-small", 1, 1, 1, 1, 1, 0, 30, 10},
                {"gpt2-small", 1, 1, 1, 1, 1, 0, 1000, 100},
                {"gpt2-small", 1, 1, 1, 1, 1, 0, 10000, 1000},
                {"gpt2-small", 1, 1, 1, 1, 1, 0, 100000, 10000}},
    .declare = declare,
    .emit = emit,
    .ranges = ranges,
    .faults = flat_faults,
    .in_place = AR_WORKLOAD_IN_PLACE_ELEMENTWISE,
    .in_place_fault = AR_WORKLOAD_IN_PLACE_ELEMENTWISE,
};
