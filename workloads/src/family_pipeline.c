/* The pipeline family: one stage's loop over micro-batches (recv, layers, send) around the
 * layers repeat. The stash of layer inputs (pp.stash, micro-batch x layer slices) is named by
 * both repeats and so takes the hull; an offload after the loop carries it. */
#include <stdlib.h>

#include "transformer.h"

typedef struct pipeline_t {
    arp_tf_t tf;
    int g_recv, g_send;
    int pp_flush;
    uint64_t stash_bytes;
} pipeline_t;

/* Micro skew: micro-batch m holds the batch less up to micro_skew percent of its sequences
 * (at least one), drawn from a hash of the seed and m (the generation's stream keeps its
 * draws). The body is written for the whole batch; a smaller micro-batch is its first rows. */
static uint64_t micro_batch(arp_wl_t const *wl, uint64_t m) {
    if (!wl->micro_skew) return wl->batch;
    uint64_t h = arp_wl_mix(wl->seed ^ (0xd1b54a32d192ed03ull * (m + 1)));
    uint64_t cut = wl->batch * wl->micro_skew * (h % 1001) / 100000;
    return cut >= wl->batch ? 1 : wl->batch - cut;
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
    st->outer_rows = B * T;
    uint64_t sequences = 0; /* over the micro-batches */
    for (uint64_t m = 0; m < M; ++m) sequences += micro_batch(wl, m);
    st->stash_layer_rows = wl->micro_skew ? sequences * T : B * T;
    st->stash_micro_layers = wl->micro_skew ? 1 : wl->layers;
    pp->stash_bytes = wl->layers * sequences * T * d->d * ARP_WL_BF16;
    st->pl[PL_STASH] = arp_wl_plane(wl, st->ph[PH_LN1], "pp.stash", pp->stash_bytes, false);
    int send = arp_wl_phase(wl, "pp.send");
    arp_wl_plane(wl, send, "pp.send_scratch", 4096, false);
    tf->first.ph[PH_HEAD] = send;
    pp->pp_flush = arp_wl_phase(wl, "pp.flush");
    arp_wl_plane(wl, pp->pp_flush, "pp.stash", 0, true);
    arp_wl_loop(wl, st->ph[PH_EMBED], send);
    arp_tf_fault_phases(wl);
}

static void emit(arp_wl_t *wl) {
    pipeline_t *pp = wl->family_state;
    uint64_t B = wl->batch, E = wl->epochs;
    uint64_t *lengths = malloc(B * sizeof *lengths);
    size_t *firsts = malloc(E * sizeof *firsts), *counts = malloc(E * sizeof *counts);
    uint64_t *starts = wl->micro_skew ? malloc(wl->micro * sizeof *starts) : NULL;
    for (uint64_t m = 0, at = 0; starts && m < wl->micro; at += micro_batch(wl, m++))
        starts[m] = at; /* in sequences */
    if (!lengths || !firsts || !counts || (wl->micro_skew && !starts)) {
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
            size_t l = LAUNCH("recv", st->ph[PH_EMBED], arp_wl_g(wl, pp->g_recv, 0),
                              arp_wl_g(wl, pp->tf.g_residual, 0), arp_wl_p(wl, st->pl[PL_MASK], 0),
                              rows * row);
            arp_tf_per_micro(wl, st, l, 0, row);
            arp_tf_per_micro(wl, st, l, 1, row);
            arp_tf_emit_layers(wl, st, lengths);
            l = LAUNCH("send", st->ph[PH_HEAD], arp_wl_g(wl, pp->tf.g_residual, 0),
                       arp_wl_g(wl, pp->g_send, 0),
                       arp_wl_p(wl, arp_wl_plane_index(wl, "pp.send_scratch"), 0), rows * row);
            arp_tf_per_micro(wl, st, l, 0, row);
            arp_tf_per_micro(wl, st, l, 1, row);
            if (starts)
                arp_wl_repeat_uneven(wl, 0, firsts[e], wl->launches_count - firsts[e], wl->micro,
                                     starts, B);
            else
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
    free(starts);
}

/* Presets: model, layers (0: the model's), batch (sequences per micro-batch), seq, decode
 * (steps), epochs, micro (micro-batches). */
arp_wl_family_t const arp_wl_family_pipeline = {
    .name = "pipeline",
    .presets = {{"gpt2-small", 2, 4, 8, 2, 2, 2},
                {"gpt2-small", 0, 4, 64, 4, 2, 4},
                {"llama2-7b", 0, 8, 512, 32, 8, 8},
                {"gpt3-175b", 0, 256, 2048, 4000, 4000, 16}},
    .declare = declare,
    .emit = emit,
};
