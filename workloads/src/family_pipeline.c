/* The pipeline family: one stage's loop over micro-batches (recv, layers, send) around the
 * layers repeat. The stash of layer inputs (pp.stash, micro-batch x layer slices) is named by
 * both repeats and so takes the hull; an offload after the loop carries it. With micro skew
 * (uneven micro-batches) the stage runs a one-forward-one-backward schedule instead: each
 * micro-batch's stash is its own plane, sized by that micro-batch and live from its forward
 * to its backward, so the stashes' lifetimes overlap in a staircase, the shape that separates
 * placement strategies. */
#include <stdio.h>
#include <stdlib.h>

#include "transformer.h"

typedef struct pipeline_t {
    arp_tf_t tf;
    int g_recv, g_send;
    int pp_flush;
    uint64_t stash_bytes;
    /* one-forward-one-backward (micro skew): each micro-batch's forward phase (its stash
     * copy), backward phase and stash plane; the order forwards and backwards run in (m for
     * micro-batch m's forward, ~m for its backward); the backwards' shared gradient plane */
    int fwd[ARP_WL_MAX_SKEWED_MICRO], bwd[ARP_WL_MAX_SKEWED_MICRO], stash[ARP_WL_MAX_SKEWED_MICRO];
    int redo[ARP_WL_MAX_SKEWED_MICRO]; /* a backward's recomputed layer, its own size */
    int order[2 * ARP_WL_MAX_SKEWED_MICRO];
    int p_dx;
} pipeline_t;

/* Micro skew: micro-batch m holds the batch less up to micro_skew percent of its sequences
 * (at least one), drawn from a hash of the seed and m (the generation's stream keeps its
 * draws); its sequences are the first of the batch's. */
static uint64_t micro_batch(arp_wl_t const *wl, uint64_t m) {
    if (!wl->micro_skew) return wl->batch;
    uint64_t h = arp_wl_mix(wl->seed ^ (0xd1b54a32d192ed03ull * (m + 1)));
    uint64_t cut = wl->batch * wl->micro_skew * (h % 1001) / 100000;
    return cut >= wl->batch ? 1 : wl->batch - cut;
}

/* The stage is the first of two: one warm-up forward, then a forward and a backward in turn
 * (micro-batch m + 1's forward before m's backward), then the last backward. */
static void schedule_1f1b(pipeline_t *pp, uint64_t M) {
    uint64_t at = 0;
    pp->order[at++] = 0;
    for (uint64_t m = 0; m < M; ++m) {
        if (m + 1 < M) pp->order[at++] = (int)(m + 1);
        pp->order[at++] = ~(int)m;
    }
}

/* One-forward-one-backward: the stage's compute planes serve every micro-batch, so they live
 * through the whole step (persistent); then each micro-batch's forward phase (declaring its
 * stash) and backward phase (carrying it), in the order they run, which gives each stash its
 * own lifetime. */
static void declare_1f1b(arp_wl_t *wl, pipeline_t *pp) {
    arp_tf_dims_t const *d = &pp->tf.dims;
    uint64_t T = wl->seq, M = wl->micro, row = d->d * ARP_WL_BF16;
    for (int n = 0; n < wl->planes_count; ++n) arp_wl_persistent(wl, n);
    schedule_1f1b(pp, M);
    char name[48];
    for (uint64_t k = 0; k < 2 * M; ++k) {
        int m = pp->order[k] >= 0 ? pp->order[k] : ~pp->order[k];
        snprintf(name, sizeof name, "pp.stash.%d", m);
        if (pp->order[k] >= 0) {
            char phase[48];
            snprintf(phase, sizeof phase, "pp.fwd.%d", m);
            pp->fwd[m] = arp_wl_phase(wl, phase);
            uint64_t bytes = wl->layers * micro_batch(wl, (uint64_t)m) * T * row;
            pp->stash[m] = arp_wl_plane(wl, pp->fwd[m], name, bytes, false);
            arp_tf_reads_residual(wl, &pp->tf.first, pp->fwd[m]); /* its stash copy */
        } else {
            char phase[48];
            snprintf(phase, sizeof phase, "pp.bwd.%d", m);
            pp->bwd[m] = arp_wl_phase(wl, phase);
            arp_wl_plane(wl, pp->bwd[m], name, 0, true);
            snprintf(name, sizeof name, "pp.redo.%d", m);
            uint64_t redo_rows = micro_batch(wl, (uint64_t)m) * T;
            pp->redo[m] =
                arp_wl_plane(wl, pp->bwd[m], name, redo_rows * (d->d + d->up) * ARP_WL_BF16, false);
            pp->p_dx = arp_wl_plane(wl, pp->bwd[m], "pp.dx", wl->batch * T * row, false);
        }
    }
}

static void declare(arp_wl_t *wl) {
    pipeline_t *pp = (pipeline_t *)arp_tf_begin(wl, sizeof(pipeline_t), false);
    if (!pp) return;
    arp_tf_t *tf = &pp->tf;
    arp_tf_dims_t const *d = &tf->dims;
    uint64_t B = wl->batch, T = wl->seq;
    uint64_t M = wl->micro;
    arp_tf_globals(wl, M * B * T);
    pp->g_recv = arp_wl_global(wl, "p2p_recv", M * B * T * d->d * ARP_WL_BF16, 0);
    pp->g_send = arp_wl_global(wl, "p2p_send", M * B * T * d->d * ARP_WL_BF16, 0);
    arp_tf_stage_t *st = &tf->first;
    arp_tf_declare_stage(wl, st, "pp", T, false, false, false, false, false);
    st->outer_rows = wl->micro_skew ? 0 : B * T;
    st->stash_layer_rows = B * T;
    st->stash_micro_layers = wl->layers;
    pp->stash_bytes = wl->layers * M * B * T * d->d * ARP_WL_BF16;
    if (!wl->micro_skew)
        st->pl[PL_STASH] = arp_wl_plane(wl, st->ph[PH_LN1], "pp.stash", pp->stash_bytes, false);
    int send = arp_wl_phase(wl, "pp.send");
    arp_wl_plane(wl, send, "pp.send_scratch", 4096, false);
    tf->first.ph[PH_HEAD] = send;
    arp_tf_reads_residual(wl, st, send);
    if (wl->micro_skew) {
        declare_1f1b(wl, pp);
    } else {
        pp->pp_flush = arp_wl_phase(wl, "pp.flush");
        arp_wl_plane(wl, pp->pp_flush, "pp.stash", 0, true);
        arp_wl_loop(wl, st->ph[PH_EMBED], send);
    }
    arp_tf_fault_phases(wl);
}

/* Micro-batch m's forward: recv, the layers (its sequences, its stash), send. */
static void emit_forward(arp_wl_t *wl, pipeline_t *pp, uint64_t m, uint64_t start,
                         uint64_t const *lengths) {
    arp_tf_stage_t *st = &pp->tf.first;
    uint64_t row = pp->tf.dims.d * ARP_WL_BF16, b = micro_batch(wl, m), rows = 0;
    for (uint64_t s = 0; s < b; ++s) rows += lengths[s];
    uint64_t at = start * wl->seq * row;
    LAUNCH("recv", st->ph[PH_EMBED], arp_wl_g(wl, pp->g_recv, at), arp_tf_residual(wl, st),
           arp_wl_p(wl, st->pl[PL_MASK], 0), rows * row);
    st->pl[PL_STASH] = pp->stash[m];
    st->stash_phase = pp->fwd[m];
    st->stash_layer_rows = b * wl->seq;
    uint64_t batch = wl->batch;
    wl->batch = b; /* the layer's launches cover this micro-batch's sequences */
    arp_tf_emit_layers(wl, st, lengths);
    wl->batch = batch;
    LAUNCH("send", st->ph[PH_HEAD], arp_tf_residual(wl, st), arp_wl_g(wl, pp->g_send, at),
           arp_wl_p(wl, arp_wl_plane_index(wl, "pp.send_scratch"), 0), rows * row);
}

/* Micro-batch m's backward: the gradient in, the layers walked down from the last (each
 * recomputes its activations from its stashed input into the micro-batch's own plane, then
 * back-propagates through them), the gradient out. */
static void emit_backward(arp_wl_t *wl, pipeline_t *pp, uint64_t m, uint64_t start,
                          uint64_t const *lengths) {
    arp_tf_dims_t const *d = &pp->tf.dims;
    uint64_t row = d->d * ARP_WL_BF16, b = micro_batch(wl, m), rows = 0, L = wl->layers;
    for (uint64_t s = 0; s < b; ++s) rows += lengths[s];
    uint64_t at = start * wl->seq * row, slice = b * wl->seq * row;
    int ph = pp->bwd[m];
    LAUNCH("recv_grad", ph, arp_wl_g(wl, pp->g_send, at), arp_wl_p(wl, pp->p_dx, 0), rows * row);
    size_t first = LAUNCH("layer_recompute", ph, arp_wl_p(wl, pp->stash[m], (L - 1) * slice),
                          arp_wl_g(wl, pp->tf.g_layers, (L - 1) * d->stride),
                          arp_wl_p(wl, pp->redo[m], 0), rows, d->d);
    arp_wl_walk(wl, 1, first, 0, -(int64_t)slice, -1);
    arp_wl_walk(wl, 1, first, 1, -(int64_t)d->stride, -1);
    size_t l = LAUNCH("layer_backward", ph, arp_wl_p(wl, pp->redo[m], 0),
                      arp_wl_g(wl, pp->tf.g_layers, (L - 1) * d->stride), arp_wl_p(wl, pp->p_dx, 0),
                      rows, d->d);
    arp_wl_walk(wl, 1, l, 1, -(int64_t)d->stride, -1);
    arp_wl_repeat_deltas(wl, 1, first, 2, L);
    l = LAUNCH("send_grad", ph, arp_wl_p(wl, pp->p_dx, 0), arp_wl_g(wl, pp->g_recv, at),
               rows * row);
    if (wl->site[ARP_WL_SITE_VICTIM] == SIZE_MAX) wl->site[ARP_WL_SITE_VICTIM] = l;
}

/* One-forward-one-backward: per epoch, each micro-batch's forward and backward are bodies of
 * their own; each step references them in the schedule's order. */
static void emit_1f1b(arp_wl_t *wl, pipeline_t *pp) {
    uint64_t B = wl->batch, E = wl->epochs, M = wl->micro;
    uint64_t *lengths = malloc(B * sizeof *lengths);
    size_t *firsts = malloc(E * 2 * M * sizeof *firsts);
    size_t *counts = malloc(E * 2 * M * sizeof *counts);
    if (!lengths || !firsts || !counts) {
        arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
    } else {
        for (uint64_t e = 0; e < E; ++e) {
            arp_tf_draw_lengths(wl, lengths, wl->seq / 2);
            for (uint64_t k = 0, start = 0; k < 2 * M; ++k) {
                size_t body = e * 2 * M + k;
                firsts[body] = wl->launches_count;
                uint64_t m = k < M ? k : k - M;
                if (k == M) start = 0;
                if (k < M)
                    emit_forward(wl, pp, m, start, lengths);
                else
                    emit_backward(wl, pp, m, start, lengths);
                start += micro_batch(wl, m);
                counts[body] = wl->launches_count - firsts[body];
            }
        }
        for (uint64_t t = 0; t < wl->decode; ++t)
            for (uint64_t k = 0; k < 2 * M; ++k) {
                int o = pp->order[k];
                size_t body = t % E * 2 * M + (o >= 0 ? (size_t)o : M + (size_t)~o);
                arp_wl_reference(wl, firsts[body], counts[body]);
            }
    }
    free(lengths);
    free(firsts);
    free(counts);
}

static void emit(arp_wl_t *wl) {
    pipeline_t *pp = wl->family_state;
    if (wl->micro_skew) {
        emit_1f1b(wl, pp);
        return;
    }
    uint64_t B = wl->batch, E = wl->epochs;
    uint64_t *lengths = malloc(B * sizeof *lengths);
    size_t *firsts = malloc(E * sizeof *firsts), *counts = malloc(E * sizeof *counts);
    if (!lengths || !firsts || !counts) {
        arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
    } else {
        arp_tf_stage_t const *st = &pp->tf.first;
        arp_tf_dims_t const *d = &pp->tf.dims;
        uint64_t row = d->d * ARP_WL_BF16;
        for (uint64_t e = 0; e < E; ++e) {
            arp_tf_draw_lengths(wl, lengths, wl->seq / 2);
            uint64_t rows = 0;
            for (uint64_t s = 0; s < B; ++s) rows += lengths[s];
            firsts[e] = wl->launches_count;
            size_t l =
                LAUNCH("recv", st->ph[PH_EMBED], arp_wl_g(wl, pp->g_recv, 0),
                       arp_tf_residual(wl, st), arp_wl_p(wl, st->pl[PL_MASK], 0), rows * row);
            arp_tf_per_micro(wl, st, l, 0, row);
            arp_tf_per_micro(wl, st, l, 1, row);
            arp_tf_emit_layers(wl, st, lengths);
            l = LAUNCH("send", st->ph[PH_HEAD], arp_tf_residual(wl, st),
                       arp_wl_g(wl, pp->g_send, 0),
                       arp_wl_p(wl, arp_wl_plane_index(wl, "pp.send_scratch"), 0), rows * row);
            arp_tf_per_micro(wl, st, l, 0, row);
            arp_tf_per_micro(wl, st, l, 1, row);
            arp_wl_repeat_deltas(wl, 0, firsts[e], wl->launches_count - firsts[e], wl->micro);
            l = LAUNCH("offload", pp->pp_flush, arp_wl_p(wl, st->pl[PL_STASH], 0), pp->stash_bytes);
            if (wl->site[ARP_WL_SITE_VICTIM] == SIZE_MAX) wl->site[ARP_WL_SITE_VICTIM] = l;
            counts[e] = wl->launches_count - firsts[e];
        }
        for (uint64_t t = 0; t < wl->decode; ++t)
            arp_wl_reference(wl, firsts[t % E], counts[t % E]);
    }
    free(lengths);
    free(firsts);
    free(counts);
}

/* Presets: model, layers (0: the model's), batch (sequences per micro-batch), seq, decode
 * (steps), epochs, micro (micro-batches). */
arp_wl_family_t const arp_wl_family_pipeline = {
    .name = "pipeline",
    .presets = {{"gpt2-small", 2, 4, 8, 2, 2, 2, 0, 0},
                {"gpt2-small", 0, 4, 64, 4, 2, 4, 0, 0},
                {"llama2-7b", 0, 8, 512, 32, 8, 8, 0, 0},
                {"gpt3-175b", 0, 256, 2048, 4000, 4000, 16, 0, 0}},
    .declare = declare,
    .emit = emit,
    .in_place = AR_WORKLOAD_IN_PLACE_NORM | AR_WORKLOAD_IN_PLACE_RESIDUAL,
    .in_place_fault = AR_WORKLOAD_IN_PLACE_NORM,
};
