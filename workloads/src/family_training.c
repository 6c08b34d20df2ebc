/* The training family: forward layers write activations into per-layer slices of saved planes
 * (fwd.x_norm1, fwd.qkv, fwd.ctx, fwd.x_norm2, fwd.h) that the backward layers carry, walking
 * the bank downwards from the last layer (negative deltas); gradients, Adam moments and the
 * gradient residual are globals. `epochs` step bodies are written (one per batch shape) and the
 * schedule references them in turn, one reference per step. With recompute the forward keeps
 * only each layer's input, and the backward recomputes the layers segment by segment, each
 * segment's activations its own plane, the next segment's recompute running before this one's
 * backward: staggered lifetimes of uneven sizes, which placement strategies handle unequally. */
#include <stdlib.h>

#include "transformer.h"

typedef struct training_t {
    arp_tf_t tf;
    int g_grads, g_grads_embed, g_grads_head, g_adam_m, g_adam_v, g_grad_residual;
    int bwd[6]; /* mlp, attn_out, attention, qkv, embed, opt */
    int p_dh, p_dctx, p_dqkv, p_dlogits, p_opt;
    /* recompute: per segment (from the first layers up) its first layer, layer count,
     * recompute and backward phases and activations plane; one layer's activations in a
     * segment plane (bytes, and each role's offset in them) */
    int segments;
    uint64_t seg_first[ARP_WL_MAX_SEGMENTS], seg_layers[ARP_WL_MAX_SEGMENTS];
    int seg_redo[ARP_WL_MAX_SEGMENTS], seg_bwd[ARP_WL_MAX_SEGMENTS], seg_plane[ARP_WL_MAX_SEGMENTS];
    uint64_t act_bytes, act_off[PL_COUNT];
} training_t;

/* Bytes of the step's token rows (batch x seq) of `width` bf16 values. */
static uint64_t rows_bytes(arp_wl_t const *wl, uint64_t width) {
    return wl->batch * wl->seq * width * ARP_WL_BF16;
}

/* Recompute segments: floor(sqrt(L)) layers each from the first layer up, the last one
 * holding what remains (fewer layers when L is not a multiple). */
static void segment(arp_wl_t *wl, training_t *tr) {
    uint64_t L = wl->layers, k = 1;
    while ((k + 1) * (k + 1) <= L) ++k;
    tr->segments = 0;
    for (uint64_t first = 0; first < L; first += k) {
        tr->seg_first[tr->segments] = first;
        tr->seg_layers[tr->segments++] = first + k <= L ? k : L - first;
    }
    wl->segments = (uint64_t)tr->segments;
}

/* Recompute: the forward copies each layer's input into fwd.inputs (its own phase, inside the
 * layers loop); the backward then runs, from the last segment down, each segment's recompute
 * (carrying the inputs, declaring the segment's activations) one step ahead of its backward
 * (carrying them), so a segment's activations live from its recompute, across the backward of
 * the segment above it, to its own backward. */
static void declare_recompute(arp_wl_t *wl, training_t *tr) {
    arp_tf_t *tf = &tr->tf;
    arp_tf_dims_t const *d = &tf->dims;
    arp_tf_stage_t *st = &tf->first;
    uint64_t rows = wl->batch * wl->seq, x = rows * d->d * ARP_WL_BF16;
    int copy = arp_wl_phase(wl, "fwd.checkpoint");
    st->pl[PL_STASH] = arp_wl_plane(wl, copy, "fwd.inputs", wl->layers * x, false);
    st->stash_phase = copy;
    arp_tf_reads_residual(wl, st, copy);
    st->stash_layer_rows = rows;
    arp_wl_loop(wl, st->ph[PH_LN1], copy);
    uint64_t at = 0;
    int const roles[] = {PL_X1, PL_QKV, PL_CTX, PL_X2, PL_H};
    uint64_t const bytes[] = {x, rows * (d->d + 2 * d->kv_dim) * ARP_WL_BF16, x, x,
                              rows * d->up * ARP_WL_BF16};
    for (int r = 0; r < 5; ++r) {
        tr->act_off[roles[r]] = at;
        at += arp_wl_align(bytes[r], ARP_WL_ALIGNMENT);
    }
    tr->act_bytes = at;
    segment(wl, tr);
}

/* Segment j's recompute phase: it carries the layer inputs and declares the activations. */
static void declare_redo(arp_wl_t *wl, training_t *tr, int j) {
    char phase[48], plane[48];
    snprintf(phase, sizeof phase, "bwd.recompute.%d", j);
    snprintf(plane, sizeof plane, "bwd.segment.%d", j);
    tr->seg_redo[j] = arp_wl_phase(wl, phase);
    arp_wl_plane(wl, tr->seg_redo[j], "fwd.inputs", 0, true);
    tr->seg_plane[j] =
        arp_wl_plane(wl, tr->seg_redo[j], plane, tr->seg_layers[j] * tr->act_bytes, false);
}

/* Segment j's backward phase: it carries the activations and the mask, and declares the
 * gradients (one layer's, shared by every segment). */
static void declare_segment_backward(arp_wl_t *wl, training_t *tr, int j) {
    char phase[48], plane[48];
    uint64_t rows = wl->batch * wl->seq;
    arp_tf_dims_t const *d = &tr->tf.dims;
    snprintf(phase, sizeof phase, "bwd.layers.%d", j);
    snprintf(plane, sizeof plane, "bwd.segment.%d", j);
    int ph = tr->seg_bwd[j] = arp_wl_phase(wl, phase);
    arp_wl_plane(wl, ph, plane, 0, true);
    arp_wl_plane(wl, ph, "mask", 0, true);
    tr->p_dh = arp_wl_plane(wl, ph, "bwd.dh", rows * d->up * ARP_WL_BF16, false);
    tr->p_dctx = arp_wl_plane(wl, ph, "bwd.dctx", rows * d->d * ARP_WL_BF16, false);
    tr->p_dqkv =
        arp_wl_plane(wl, ph, "bwd.dqkv", rows * (d->d + 2 * d->kv_dim) * ARP_WL_BF16, false);
}

/* The segments' phases in the order they run: the last segment's recompute, then for each
 * segment from the last down, the next one's recompute (ahead) and its own backward. */
static void declare_segments(arp_wl_t *wl, training_t *tr) {
    declare_redo(wl, tr, tr->segments - 1);
    for (int j = tr->segments - 1; j >= 0; --j) {
        if (j > 0) declare_redo(wl, tr, j - 1);
        declare_segment_backward(wl, tr, j);
    }
}

static void declare(arp_wl_t *wl) {
    training_t *tr = (training_t *)arp_tf_begin(wl, sizeof(training_t), false);
    if (!tr) return;
    arp_tf_t *tf = &tr->tf;
    arp_tf_dims_t const *d = &tf->dims;
    uint64_t B = wl->batch, T = wl->seq;
    arp_tf_globals(wl, B * T);
    uint64_t params = wl->layers * d->stride;
    tr->g_grads = arp_wl_global(wl, "grads_layers", params, 0);
    tr->g_grads_embed = arp_wl_global(wl, "grads_embed", d->vocab * d->d * ARP_WL_BF16, 0);
    tr->g_grads_head = arp_wl_global(wl, "grads_head", d->vocab * d->d * ARP_WL_BF16, 0);
    tr->g_adam_m = arp_wl_global(wl, "adam_m", params * 2, 0); /* fp32 moments */
    tr->g_adam_v = arp_wl_global(wl, "adam_v", params * 2, 0);
    tr->g_grad_residual = arp_wl_global(wl, "grad_residual", B * T * d->d * ARP_WL_BF16, 0);
    arp_tf_stage_t *st = &tf->first;
    arp_tf_declare_stage(wl, st, "fwd", T, false, false, !wl->recompute, false, false);
    if (wl->recompute) declare_recompute(wl, tr);
    int head = arp_wl_phase(wl, "fwd.lm_head"), loss = arp_wl_phase(wl, "fwd.loss");
    st->ph[PH_HEAD] = head;
    st->ph[PH_SAMPLE] = loss;
    arp_tf_reads_residual(wl, st, head);
    st->pl[PL_LOGITS] = arp_wl_plane(wl, head, "fwd.logits", B * T * d->vocab * ARP_WL_BF16, false);
    arp_wl_plane(wl, loss, "fwd.logits", 0, true);
    tr->p_dlogits = arp_wl_plane(wl, loss, "bwd.dlogits", B * T * d->vocab * ARP_WL_BF16, false);
    int bhead = arp_wl_phase(wl, "bwd.lm_head");
    arp_wl_plane(wl, bhead, "bwd.dlogits", 0, true);
    if (wl->recompute) {
        declare_segments(wl, tr);
        tr->bwd[4] = arp_wl_phase(wl, "bwd.embed");
        tr->bwd[5] = arp_wl_phase(wl, "opt.adam");
        tf->second.ph[PH_HEAD] = bhead;
        arp_wl_plane(wl, tr->bwd[4], "bwd.embed_scratch", B * T * 4, false);
        tr->p_opt = arp_wl_plane(wl, tr->bwd[5], "opt.norm_scratch", 4096, false);
        arp_tf_fault_phases(wl);
        return;
    }
    tr->bwd[0] = arp_wl_phase(wl, "bwd.mlp");
    tr->bwd[1] = arp_wl_phase(wl, "bwd.attn_out");
    tr->bwd[2] = arp_wl_phase(wl, "bwd.attention");
    tr->bwd[3] = arp_wl_phase(wl, "bwd.qkv");
    tr->bwd[4] = arp_wl_phase(wl, "bwd.embed");
    tr->bwd[5] = arp_wl_phase(wl, "opt.adam");
    tf->second.ph[PH_HEAD] = bhead;
    uint64_t rows = B * T;
    arp_wl_plane(wl, tr->bwd[0], "fwd.x_norm2", 0, true);
    arp_wl_plane(wl, tr->bwd[0], "fwd.h", 0, true);
    tr->p_dh = arp_wl_plane(wl, tr->bwd[0], "bwd.dh", rows * d->up * ARP_WL_BF16, false);
    arp_wl_plane(wl, tr->bwd[1], "fwd.ctx", 0, true);
    tr->p_dctx = arp_wl_plane(wl, tr->bwd[1], "bwd.dctx", rows * d->d * ARP_WL_BF16, false);
    arp_wl_plane(wl, tr->bwd[2], "fwd.qkv", 0, true);
    arp_wl_plane(wl, tr->bwd[2], "bwd.dctx", 0, true);
    arp_wl_plane(wl, tr->bwd[2], "mask", 0, true);
    tr->p_dqkv = arp_wl_plane(wl, tr->bwd[2], "bwd.dqkv",
                              rows * (d->d + 2 * d->kv_dim) * ARP_WL_BF16, false);
    arp_wl_plane(wl, tr->bwd[3], "fwd.x_norm1", 0, true);
    arp_wl_plane(wl, tr->bwd[3], "bwd.dqkv", 0, true);
    arp_wl_plane(wl, tr->bwd[4], "bwd.embed_scratch", rows * 4, false);
    tr->p_opt = arp_wl_plane(wl, tr->bwd[5], "opt.norm_scratch", 4096, false);
    arp_wl_loop(wl, tr->bwd[0], tr->bwd[3]);
    arp_tf_fault_phases(wl);
}

/* The embedding's gradient and the optimizer step, after the layers' backward. */
static void emit_update(arp_wl_t *wl, uint64_t rows) {
    training_t *tr = wl->family_state;
    arp_tf_t *tf = &tr->tf;
    arp_tf_dims_t const *d = &tf->dims;
    uint64_t gres = arp_wl_g(wl, tr->g_grad_residual, 0);
    LAUNCH("embedding_bwd", tr->bwd[4], arp_wl_g(wl, tf->g_tokens, 0), gres,
           arp_wl_g(wl, tr->g_grads_embed, 0),
           arp_wl_p(wl, arp_wl_plane_index(wl, "bwd.embed_scratch"), 0), rows, d->d);
    uint64_t params = wl->layers * d->stride;
    LAUNCH("adam", tr->bwd[5], arp_wl_g(wl, tf->g_layers, 0), arp_wl_g(wl, tr->g_grads, 0),
           arp_wl_g(wl, tr->g_adam_m, 0), arp_wl_g(wl, tr->g_adam_v, 0), arp_wl_p(wl, tr->p_opt, 0),
           params / 2);
}

/* Segment j's recompute: its layers' forward again, from each layer's saved input, into the
 * segment's activations (one layer's worth a layer, walked up). */
static void emit_redo(arp_wl_t *wl, int j, uint64_t rows) {
    training_t *tr = wl->family_state;
    arp_tf_dims_t const *d = &tr->tf.dims;
    uint64_t x = rows_bytes(wl, d->d), first = tr->seg_first[j];
    size_t l = LAUNCH("layer_recompute", tr->seg_redo[j],
                      arp_wl_p(wl, tr->tf.first.pl[PL_STASH], first * x),
                      arp_wl_g(wl, tr->tf.g_layers, first * d->stride),
                      arp_wl_p(wl, tr->seg_plane[j], 0), rows, d->d);
    arp_wl_walk(wl, 1, l, 0, (int64_t)x, -1);
    arp_wl_walk(wl, 1, l, 1, (int64_t)d->stride, -1);
    arp_wl_walk(wl, 1, l, 2, (int64_t)tr->act_bytes, -1);
    arp_wl_repeat_deltas(wl, 1, l, 1, tr->seg_layers[j]);
}

/* Segment j's backward: its layers from the last down, reading the recomputed activations
 * (the same launches as the saved-activation backward, in the segment's own phase). */
static void emit_segment_backward(arp_wl_t *wl, int j, uint64_t const *lengths, uint64_t rows) {
    training_t *tr = wl->family_state;
    arp_tf_dims_t const *d = &tr->tf.dims;
    int ph = tr->seg_bwd[j];
    uint64_t top = tr->seg_first[j] + tr->seg_layers[j] - 1;
    int64_t S = (int64_t)d->stride, A = (int64_t)tr->act_bytes;
    uint64_t bank = arp_wl_g(wl, tr->tf.g_layers, top * d->stride);
    uint64_t grads = arp_wl_g(wl, tr->g_grads, top * d->stride);
    uint64_t gres = arp_wl_g(wl, tr->g_grad_residual, 0);
    uint64_t act = arp_wl_p(wl, tr->seg_plane[j], (tr->seg_layers[j] - 1) * tr->act_bytes);
#define ACT(role) (act + tr->act_off[role])
    size_t first, l;
    first = l = LAUNCH("gemm_bwd_data", ph, gres, bank + d->off_wdown, arp_wl_p(wl, tr->p_dh, 0),
                       ACT(PL_H), rows, d->ffn, d->d);
    arp_wl_walk(wl, 1, l, 1, -S, -1);
    arp_wl_walk(wl, 1, l, 3, -A, -1);
    l = LAUNCH("gemm_bwd_weight", ph, ACT(PL_X2), arp_wl_p(wl, tr->p_dh, 0), grads + d->off_wup,
               grads + d->off_wdown, rows);
    arp_wl_walk(wl, 1, l, 0, -A, -1);
    arp_wl_walk(wl, 1, l, 2, -S, -1);
    arp_wl_walk(wl, 1, l, 3, -S, -1);
    l = LAUNCH("gemm_bwd_data", ph, gres, bank + d->off_wo, arp_wl_p(wl, tr->p_dctx, 0), rows,
               d->d);
    arp_wl_walk(wl, 1, l, 1, -S, -1);
    l = LAUNCH("gemm_bwd_weight", ph, ACT(PL_CTX), gres, grads + d->off_wo, rows);
    arp_wl_walk(wl, 1, l, 0, -A, -1);
    arp_wl_walk(wl, 1, l, 2, -S, -1);
    uint64_t at = 0, qkv_row = (d->d + 2 * d->kv_dim) * ARP_WL_BF16, row = d->d * ARP_WL_BF16;
    for (uint64_t s = 0; s < wl->batch; ++s) {
        l = LAUNCH("attention_bwd", ph, ACT(PL_QKV) + at * qkv_row,
                   arp_wl_p(wl, tr->p_dctx, at * row), arp_wl_p(wl, tr->p_dqkv, at * qkv_row),
                   arp_wl_p(wl, tr->tf.first.pl[PL_MASK], s * 64), lengths[s]);
        arp_wl_walk(wl, 1, l, 0, -A, -1);
        at += lengths[s];
    }
    l = LAUNCH("gemm_bwd_data", ph, arp_wl_p(wl, tr->p_dqkv, 0), bank + d->off_wqkv, gres, rows,
               d->d);
    arp_wl_walk(wl, 1, l, 1, -S, -1);
    l = LAUNCH("gemm_bwd_weight", ph, ACT(PL_X1), arp_wl_p(wl, tr->p_dqkv, 0), grads + d->off_wqkv,
               rows);
    arp_wl_walk(wl, 1, l, 0, -A, -1);
    arp_wl_walk(wl, 1, l, 2, -S, -1);
#undef ACT
    arp_wl_repeat_deltas(wl, 1, first, wl->launches_count - first, tr->seg_layers[j]);
}

/* The segments in the order they run (declare_segments). */
static void emit_segments(arp_wl_t *wl, uint64_t const *lengths) {
    training_t *tr = wl->family_state;
    uint64_t rows = 0;
    for (uint64_t s = 0; s < wl->batch; ++s) rows += lengths[s];
    emit_redo(wl, tr->segments - 1, rows);
    for (int j = tr->segments - 1; j >= 0; --j) {
        if (j > 0) emit_redo(wl, j - 1, rows);
        emit_segment_backward(wl, j, lengths, rows);
    }
}

static void emit_backward(arp_wl_t *wl, uint64_t const *lengths) {
    training_t *tr = wl->family_state;
    arp_tf_t *tf = &tr->tf;
    arp_tf_dims_t const *d = &tf->dims;
    arp_tf_stage_t const *st = &tf->first;
    uint64_t L = wl->layers, rows = 0;
    for (uint64_t s = 0; s < wl->batch; ++s) rows += lengths[s];
    int64_t S = (int64_t)d->stride;
    uint64_t top = (L - 1) * d->stride; /* backward starts at the last layer and walks down */
    uint64_t bank = arp_wl_g(wl, tf->g_layers, top), grads = arp_wl_g(wl, tr->g_grads, top);
    uint64_t gres = arp_wl_g(wl, tr->g_grad_residual, 0);
#define SAVED(plane) arp_wl_p(wl, st->pl[plane], (L - 1) * st->slice[plane])
#define DOWN(launch, word, plane) arp_wl_walk(wl, 1, launch, word, -(int64_t)st->slice[plane], -1)
    size_t first, l;
    if (wl->recompute) {
        emit_segments(wl, lengths);
        emit_update(wl, rows);
        return;
    }
    first = l = LAUNCH("gemm_bwd_data", tr->bwd[0], gres, bank + d->off_wdown,
                       arp_wl_p(wl, tr->p_dh, 0), SAVED(PL_H), rows, d->ffn, d->d);
    arp_wl_walk(wl, 1, l, 1, -S, -1);
    DOWN(l, 3, PL_H);
    l = LAUNCH("gemm_bwd_weight", tr->bwd[0], SAVED(PL_X2), arp_wl_p(wl, tr->p_dh, 0),
               grads + d->off_wup, grads + d->off_wdown, rows);
    DOWN(l, 0, PL_X2);
    arp_wl_walk(wl, 1, l, 2, -S, -1);
    arp_wl_walk(wl, 1, l, 3, -S, -1);
    l = LAUNCH("gemm_bwd_data", tr->bwd[1], gres, bank + d->off_wo, arp_wl_p(wl, tr->p_dctx, 0),
               rows, d->d);
    arp_wl_walk(wl, 1, l, 1, -S, -1);
    l = LAUNCH("gemm_bwd_weight", tr->bwd[1], SAVED(PL_CTX), gres, grads + d->off_wo, rows);
    DOWN(l, 0, PL_CTX);
    arp_wl_walk(wl, 1, l, 2, -S, -1);
    uint64_t at = 0, qkv_row = (d->d + 2 * d->kv_dim) * ARP_WL_BF16, row = d->d * ARP_WL_BF16;
    for (uint64_t s = 0; s < wl->batch; ++s) {
        l = LAUNCH("attention_bwd", tr->bwd[2], SAVED(PL_QKV) + at * qkv_row,
                   arp_wl_p(wl, tr->p_dctx, at * row), arp_wl_p(wl, tr->p_dqkv, at * qkv_row),
                   arp_wl_p(wl, st->pl[PL_MASK], s * 64), lengths[s]);
        DOWN(l, 0, PL_QKV);
        at += lengths[s];
    }
    l = LAUNCH("gemm_bwd_data", tr->bwd[3], arp_wl_p(wl, tr->p_dqkv, 0), bank + d->off_wqkv, gres,
               rows, d->d);
    arp_wl_walk(wl, 1, l, 1, -S, -1);
    l = LAUNCH("gemm_bwd_weight", tr->bwd[3], SAVED(PL_X1), arp_wl_p(wl, tr->p_dqkv, 0),
               grads + d->off_wqkv, rows);
    DOWN(l, 0, PL_X1);
    arp_wl_walk(wl, 1, l, 2, -S, -1);
#undef SAVED
#undef DOWN
    arp_wl_repeat_deltas(wl, 1, first, wl->launches_count - first, L);
    emit_update(wl, rows);
}

static size_t emit_step(arp_wl_t *wl, uint64_t const *lengths) {
    training_t *tr = wl->family_state;
    arp_tf_t *tf = &tr->tf;
    arp_tf_dims_t const *d = &tf->dims;
    arp_tf_stage_t const *st = &tf->first;
    uint64_t rows = 0;
    for (uint64_t s = 0; s < wl->batch; ++s) rows += lengths[s];
    size_t first = wl->launches_count;
    arp_tf_emit_embed(wl, st, rows);
    arp_tf_emit_layers(wl, st, lengths);
    size_t head =
        LAUNCH("gemm", st->ph[PH_HEAD], arp_tf_residual(wl, st), arp_wl_g(wl, tf->g_head, 0),
               arp_wl_p(wl, st->pl[PL_LOGITS], 0), rows, d->d, d->vocab);
    if (wl->site[ARP_WL_SITE_VICTIM] == SIZE_MAX) wl->site[ARP_WL_SITE_VICTIM] = head;
    LAUNCH("cross_entropy", st->ph[PH_SAMPLE], arp_wl_p(wl, st->pl[PL_LOGITS], 0),
           arp_wl_g(wl, tf->g_tokens, 0), arp_wl_p(wl, tr->p_dlogits, 0), rows, d->vocab);
    LAUNCH("gemm_bwd", tf->second.ph[PH_HEAD], arp_wl_p(wl, tr->p_dlogits, 0),
           arp_wl_g(wl, tf->g_head, 0), arp_wl_g(wl, tr->g_grad_residual, 0),
           arp_wl_g(wl, tr->g_grads_head, 0), rows, d->vocab);
    emit_backward(wl, lengths);
    return first;
}

static void emit(arp_wl_t *wl) {
    uint64_t B = wl->batch, E = wl->epochs;
    uint64_t *lengths = malloc(B * sizeof *lengths);
    size_t *firsts = malloc(E * sizeof *firsts), *counts = malloc(E * sizeof *counts);
    if (!lengths || !firsts || !counts) {
        arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
    } else {
        for (uint64_t e = 0; e < E; ++e) {
            arp_tf_draw_lengths(wl, lengths, wl->seq / 2);
            firsts[e] = emit_step(wl, lengths);
            counts[e] = wl->launches_count - firsts[e];
        }
        for (uint64_t t = 0; t < wl->decode; ++t)
            arp_wl_reference(wl, firsts[t % E], counts[t % E]);
    }
    free(lengths);
    free(firsts);
    free(counts);
}

/* Presets: model, layers (0: the model's), batch, seq, decode (steps), epochs, micro. */
arp_wl_family_t const arp_wl_family_training = {
    .name = "training",
    .presets = {{"gpt2-small", 2, 2, 8, 2, 1, 0, 0, 0},
                {"gpt2-small", 0, 4, 64, 4, 2, 0, 0, 0},
                {"llama2-7b", 0, 16, 512, 32, 8, 0, 0, 0},
                {"gpt3-175b", 0, 256, 2048, 14000, 2500, 0, 0, 0}},
    .declare = declare,
    .emit = emit,
    .in_place = AR_WORKLOAD_IN_PLACE_RESIDUAL,
    .in_place_fault = AR_WORKLOAD_IN_PLACE_RESIDUAL,
};
