/* The five families, all built from one transformer layer written once per body and walked by a
 * repeat over the layers: weights walk the layer bank (params_layers) by the layer stride, and
 * per-layer tensors (the decoder's KV cache, training's saved activations) walk their plane.
 * Attention is ragged: one scores launch and one softmax·V launch per sequence per layer, so a
 * batch's lengths (jittered by the seed) are visible in the words. A loop of schedule
 * references runs the bodies: generated tokens (decoder, moe), training steps (training,
 * pipeline), or bucketed batches (encoder); `epochs` bodies are written (continuous batching's
 * changing batches, or shape buckets), which is what makes the large presets large as written.
 *
 *   decoder   prefill once, then per epoch a decode body referenced once per token; the KV
 *             cache is a persistent plane every scores/softmax phase carries.
 *   moe       the decoder with the MLP replaced by a router and top-k experts: each expert
 *             launch is the body of a frames repeat over the routed slots (the batch's routing
 *             table picks the experts), nested in the layers repeat (deltas), so expert words
 *             are named by frames and by deltas and take the hull.
 *   training  forward layers save activations in per-layer slices (carried planes) that the
 *             backward layers, walking the bank downwards, carry; gradients and optimizer
 *             moments are globals.
 *   pipeline  micro-batches ⊃ layers: the stash of layer inputs is named by both repeats.
 *   encoder   BERT-like: embedding, layers, pooler; batches from shape buckets.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_internal.h"

enum { PH_EMBED, PH_LN1, PH_QKV, PH_SCORES, PH_SOFTMAX, PH_OUT, PH_LN2, PH_UP, PH_ACT, PH_DOWN,
       PH_ROUTER, PH_LNF, PH_HEAD, PH_SAMPLE, PH_COUNT };
enum { PL_MASK, PL_X1, PL_QKV, PL_SCORES, PL_CTX, PL_X2, PL_H, PL_A, PL_KV, PL_ROUTE, PL_XF,
       PL_LOGITS, PL_STASH, PL_COUNT };

typedef struct dims_t {
    uint64_t d, kv_dim, heads, ffn, up, vocab, experts, top_k;
    uint64_t off_ln1, off_wqkv, off_wo, off_ln2, off_wup, off_wdown, off_router, stride;
    uint64_t expert_up, expert_size; /* moe: one expert's w_down offset and size */
} dims_t;

typedef struct stage_t {
    int ph[PH_COUNT];
    int pl[PL_COUNT];
    uint64_t slice[PL_COUNT]; /* a plane walked per layer: its slice; 0: one layer's worth */
    uint64_t tokens;          /* tokens per sequence this stage computes (1 when decoding) */
    uint64_t rows;            /* token rows the planes hold: batch x tokens */
    bool kv_layers;           /* the KV cache holds every layer (walked per layer) */
    bool moe;
    uint64_t outer_rows;      /* pipeline: residual rows one micro-batch spans; 0 otherwise */
} stage_t;

typedef struct family_t {
    dims_t dims;
    int g_embed, g_layers, g_experts, g_head, g_residual, g_tokens;
    int g_grads, g_grads_embed, g_grads_head, g_adam_m, g_adam_v, g_grad_residual, g_recv, g_send;
    stage_t first, second; /* prefill & decode, forward & (unused), or the only stage */
    int bwd[6];            /* training: mlp, attn_out, attention, qkv, embed, opt */
    int p_dh, p_dctx, p_dqkv, p_dlogits, p_opt;
    int pp_flush;
    uint64_t slot_bytes;   /* KV bytes of one sequence slot in one layer */
} family_t;

/* The family's state lives in the wl_t (generations are independent and may run in threads). */
#define fam (*(family_t *)wl->family_state)

static dims_t make_dims(wl_t const *wl) {
    wl_model_t const *m = wl->model;
    dims_t d = {0};
    d.d = m->d;
    d.heads = m->heads;
    d.kv_dim = m->d / m->heads * m->kv_heads;
    d.ffn = m->ffn;
    d.up = m->gated ? 2 * m->ffn : m->ffn;
    d.vocab = m->vocab;
    d.experts = m->experts;
    d.top_k = m->top_k;
    uint64_t at = 0;
#define PLACE(field, bytes) (d.field = at, at = wl_align(at + (bytes), WL_ALIGNMENT))
    PLACE(off_ln1, d.d * WL_BF16);
    PLACE(off_wqkv, d.d * (d.d + 2 * d.kv_dim) * WL_BF16);
    PLACE(off_wo, d.d * d.d * WL_BF16);
    PLACE(off_ln2, d.d * WL_BF16);
    if (strcmp(wl->family, "moe") == 0) {
        PLACE(off_router, d.d * d.experts * WL_BF16);
    } else {
        PLACE(off_wup, d.d * d.up * WL_BF16);
        PLACE(off_wdown, d.ffn * d.d * WL_BF16);
    }
#undef PLACE
    d.stride = at;
    d.expert_up = wl_align(d.d * d.up * WL_BF16, WL_ALIGNMENT);
    d.expert_size = d.expert_up + wl_align(d.ffn * d.d * WL_BF16, WL_ALIGNMENT);
    return d;
}

static char const *name(char *buffer, char const *prefix, char const *suffix) {
    snprintf(buffer, 48, "%s.%s", prefix, suffix);
    return buffer;
}

/* Declare one stage's phases, in program order, and their planes. `train` saves activations in
 * per-layer slices; `kv_layers` keeps a persistent every-layer KV cache; `head` adds the final
 * norm, LM head and sampling. */
static void declare_stage(wl_t *wl, stage_t *st, char const *prefix, uint64_t tokens,
                          bool decoding, bool kv_layers, bool train, bool head, bool moe) {
    dims_t const *d = &fam.dims;
    char b[48];
    memset(st, 0xff, sizeof st->ph + sizeof st->pl);
    memset(st->slice, 0, sizeof st->slice);
    st->tokens = tokens;
    st->rows = wl->batch * tokens;
    st->kv_layers = kv_layers;
    st->moe = moe;
    st->outer_rows = 0;
    uint64_t rows = st->rows, L = wl->layers;
    static char const *const phase_names[PH_COUNT] = {
        "embed", "ln1", "qkv", "scores", "softmax", "out_proj", "ln2", "mlp_up", "mlp_act",
        "mlp_down", "router", "ln_f", "lm_head", "sample"};
    for (int p = 0; p < PH_COUNT; ++p) {
        if (p == PH_ROUTER) continue;
        if (moe && p == PH_UP) st->ph[PH_ROUTER] = wl_phase(wl, name(b, prefix, "router"));
        if (moe && p == PH_ACT) continue;
        if (!head && p >= PH_LNF) continue;
        st->ph[p] = wl_phase(wl, name(b, prefix, moe && p == PH_UP     ? "experts_up"
                                                 : moe && p == PH_DOWN ? "experts_down"
                                                                       : phase_names[p]));
    }
    uint64_t act_layers = train ? L : 1;
#define SLICE(plane, bytes) (st->slice[plane] = train ? wl_align((bytes), WL_ALIGNMENT) : 0, \
                             wl_align((bytes), WL_ALIGNMENT) * act_layers)
    uint64_t x_bytes = rows * d->d * WL_BF16;
    st->pl[PL_MASK] = wl_plane(wl, st->ph[PH_EMBED], "mask", wl->batch * 64, false);
    st->pl[PL_X1] = wl_plane(wl, st->ph[PH_LN1], name(b, prefix, "x_norm1"), SLICE(PL_X1, x_bytes), false);
    wl_plane(wl, st->ph[PH_QKV], name(b, prefix, "x_norm1"), 0, true);
    st->pl[PL_QKV] = wl_plane(wl, st->ph[PH_QKV], name(b, prefix, "qkv"),
                              SLICE(PL_QKV, rows * (d->d + 2 * d->kv_dim) * WL_BF16), false);
    wl_plane(wl, st->ph[PH_SCORES], name(b, prefix, "qkv"), 0, true);
    wl_plane(wl, st->ph[PH_SCORES], "mask", 0, true);
    /* The KV cache: the decoder's holds every layer and every slot's whole context; an
     * encoder's (or a training step's) holds one layer's keys and values of this batch. */
    fam.slot_bytes = wl->seq * 2 * d->kv_dim * WL_BF16;
    char const *kv_name = kv_layers ? "kv_cache" : name(b, prefix, "kv");
    char kv[48];
    snprintf(kv, sizeof kv, "%s", kv_name);
    uint64_t kv_bytes = fam.slot_bytes * wl->batch * (kv_layers ? L : 1);
    st->pl[PL_KV] = wl_plane(wl, st->ph[PH_SCORES], kv, kv_bytes, decoding);
    if (kv_layers) wl_persistent(wl, st->pl[PL_KV]);
    st->pl[PL_SCORES] = wl_plane(wl, st->ph[PH_SCORES], name(b, prefix, "scores"),
                                 rows * d->heads * 64 * 4, false);
    wl_plane(wl, st->ph[PH_SOFTMAX], name(b, prefix, "scores"), 0, true);
    wl_plane(wl, st->ph[PH_SOFTMAX], kv, 0, true);
    st->pl[PL_CTX] = wl_plane(wl, st->ph[PH_SOFTMAX], name(b, prefix, "ctx"), SLICE(PL_CTX, x_bytes), false);
    wl_plane(wl, st->ph[PH_OUT], name(b, prefix, "ctx"), 0, true);
    st->pl[PL_X2] = wl_plane(wl, st->ph[PH_LN2], name(b, prefix, "x_norm2"), SLICE(PL_X2, x_bytes), false);
    if (moe) {
        wl_plane(wl, st->ph[PH_ROUTER], name(b, prefix, "x_norm2"), 0, true);
        st->pl[PL_ROUTE] = wl_plane(wl, st->ph[PH_ROUTER], name(b, prefix, "route"),
                                    rows * d->experts * 4, false);
        wl_plane(wl, st->ph[PH_UP], name(b, prefix, "x_norm2"), 0, true);
        wl_plane(wl, st->ph[PH_UP], name(b, prefix, "route"), 0, true);
        st->pl[PL_H] = wl_plane(wl, st->ph[PH_UP], name(b, prefix, "expert_h"),
                                d->top_k * rows * d->ffn * WL_BF16, false);
        wl_plane(wl, st->ph[PH_DOWN], name(b, prefix, "expert_h"), 0, true);
        wl_plane(wl, st->ph[PH_DOWN], name(b, prefix, "route"), 0, true);
    } else {
        wl_plane(wl, st->ph[PH_UP], name(b, prefix, "x_norm2"), 0, true);
        st->pl[PL_H] = wl_plane(wl, st->ph[PH_UP], name(b, prefix, "h"),
                                SLICE(PL_H, rows * d->up * WL_BF16), false);
        wl_plane(wl, st->ph[PH_ACT], name(b, prefix, "h"), 0, true);
        st->pl[PL_A] = wl_plane(wl, st->ph[PH_ACT], name(b, prefix, "a"), rows * d->ffn * WL_BF16, false);
        wl_plane(wl, st->ph[PH_DOWN], name(b, prefix, "a"), 0, true);
    }
#undef SLICE
    if (head) {
        st->pl[PL_XF] = wl_plane(wl, st->ph[PH_LNF], name(b, prefix, "x_final"), wl->batch * d->d * WL_BF16, false);
        wl_plane(wl, st->ph[PH_HEAD], name(b, prefix, "x_final"), 0, true);
        st->pl[PL_LOGITS] = wl_plane(wl, st->ph[PH_HEAD], name(b, prefix, "logits"),
                                     wl->batch * d->vocab * 4, false);
        wl_plane(wl, st->ph[PH_SAMPLE], name(b, prefix, "logits"), 0, true);
    }
    wl_loop(wl, st->ph[PH_LN1], st->ph[PH_DOWN]);
}

/* Per-sequence lengths for one body: prompt or context lengths, jittered by the seed. */
static void draw_lengths(wl_t *wl, uint64_t *lengths, uint64_t lo) {
    for (uint64_t s = 0; s < wl->batch; ++s)
        lengths[s] = wl_random_between(wl, lo < 1 ? 1 : lo, wl->seq);
}

#define LAUNCH(kernel, phase, ...)                                                             \
    wl_launch(wl, kernel, phase, (uint64_t const[]){__VA_ARGS__},                              \
              sizeof((uint64_t const[]){__VA_ARGS__}) / sizeof(uint64_t))

/* Record that word `word` of `launch` walks the layers by `delta`, and, in a pipeline, that a
 * word on the residual stream walks the micro-batches. */
static void per_layer(wl_t *wl, size_t launch, size_t word, int64_t delta) {
    if (delta) wl_walk(wl, 1, launch, word, delta, -1);
}
static void per_micro(wl_t *wl, stage_t const *st, size_t launch, size_t word, uint64_t row_bytes) {
    if (st->outer_rows) wl_walk(wl, 0, launch, word, (int64_t)(st->outer_rows * row_bytes), -1);
}

/* One transformer layer as written (the caller wraps it in the layers repeat). `lengths` are the
 * sequences' context lengths; a stage computes `st->tokens` query tokens per sequence (1 when
 * decoding, else the whole length); `experts` is the moe routing table. Returns the first
 * launch; records the layer walks at level 1 (and micro-batch walks at level 0). */
static size_t emit_layer(wl_t *wl, stage_t const *st, uint64_t const *lengths,
                         uint64_t const *experts) {
    dims_t const *d = &fam.dims;
    int64_t S = (int64_t)d->stride;
    uint64_t rows = 0;
    for (uint64_t s = 0; s < wl->batch; ++s) rows += st->tokens == 1 ? 1 : lengths[s];
    uint64_t res = wl_g(wl, fam.g_residual, 0), bank = wl_g(wl, fam.g_layers, 0);
    uint64_t row = d->d * WL_BF16, qkv_row = (d->d + 2 * d->kv_dim) * WL_BF16;
    size_t l;

    size_t first = l = LAUNCH("rmsnorm", st->ph[PH_LN1], res, bank + d->off_ln1,
                              wl_p(wl, st->pl[PL_X1], 0), rows, d->d);
    per_micro(wl, st, l, 0, row);
    per_layer(wl, l, 1, S);
    per_layer(wl, l, 2, (int64_t)st->slice[PL_X1]);
    if (l == wl->site_layer_weight || wl->site_layer_weight == SIZE_MAX) {
        wl->site_layer_weight = l;
        wl->site_layer_weight_word = 1;
    }
    if (st->pl[PL_STASH] >= 0) { /* pipeline: keep the layer input for the backward pass */
        l = LAUNCH("copy", st->ph[PH_LN1], res, wl_p(wl, st->pl[PL_STASH], 0), rows * row);
        per_micro(wl, st, l, 0, row);
        per_micro(wl, st, l, 1, row * wl->layers);
        per_layer(wl, l, 1, (int64_t)(st->outer_rows * row));
    }
    l = LAUNCH("gemm", st->ph[PH_QKV], wl_p(wl, st->pl[PL_X1], 0), bank + d->off_wqkv,
               wl_p(wl, st->pl[PL_QKV], 0), rows, d->d, d->d + 2 * d->kv_dim);
    per_layer(wl, l, 0, (int64_t)st->slice[PL_X1]);
    per_layer(wl, l, 1, S);
    per_layer(wl, l, 2, (int64_t)st->slice[PL_QKV]);
    if (wl->site_ghost_launch == SIZE_MAX) wl->site_ghost_launch = l;

    /* Ragged attention: a scores launch per sequence, then a softmax·V launch per sequence. */
    int64_t kv_layer = st->kv_layers ? (int64_t)(fam.slot_bytes * wl->batch) : 0;
    uint64_t kv = wl_p(wl, st->pl[PL_KV], 0), v_part = wl->seq * d->kv_dim * WL_BF16;
    uint64_t score_row = d->heads * 64 * 4;
    for (int pass = 0; pass < 2; ++pass) {
        uint64_t at = 0;
        for (uint64_t s = 0; s < wl->batch; ++s) {
            uint64_t q = st->tokens == 1 ? 1 : lengths[s];
            if (pass == 0) {
                l = LAUNCH("attention_scores", st->ph[PH_SCORES],
                           wl_p(wl, st->pl[PL_QKV], at * qkv_row), kv + s * fam.slot_bytes,
                           wl_p(wl, st->pl[PL_SCORES], at * score_row),
                           wl_p(wl, st->pl[PL_MASK], s * 64), lengths[s], q);
                per_layer(wl, l, 0, (int64_t)st->slice[PL_QKV]);
                per_layer(wl, l, 1, kv_layer);
                if (wl->site_first_scores == SIZE_MAX) wl->site_first_scores = l;
            } else {
                l = LAUNCH("attention_softmax_v", st->ph[PH_SOFTMAX],
                           wl_p(wl, st->pl[PL_SCORES], at * score_row),
                           kv + s * fam.slot_bytes + v_part,
                           wl_p(wl, st->pl[PL_CTX], at * row), lengths[s], q);
                per_layer(wl, l, 1, kv_layer);
                per_layer(wl, l, 2, (int64_t)st->slice[PL_CTX]);
            }
            at += q;
        }
    }
    l = LAUNCH("gemm_residual", st->ph[PH_OUT], wl_p(wl, st->pl[PL_CTX], 0), bank + d->off_wo, res,
               rows, d->d, d->d);
    per_layer(wl, l, 0, (int64_t)st->slice[PL_CTX]);
    per_layer(wl, l, 1, S);
    per_micro(wl, st, l, 2, row);
    l = LAUNCH("rmsnorm", st->ph[PH_LN2], res, bank + d->off_ln2, wl_p(wl, st->pl[PL_X2], 0),
               rows, d->d);
    per_micro(wl, st, l, 0, row);
    per_layer(wl, l, 1, S);
    per_layer(wl, l, 2, (int64_t)st->slice[PL_X2]);

    if (st->moe) {
        l = LAUNCH("router_topk", st->ph[PH_ROUTER], wl_p(wl, st->pl[PL_X2], 0), bank + d->off_router,
                   wl_p(wl, st->pl[PL_ROUTE], 0), rows, d->experts, d->top_k);
        per_layer(wl, l, 1, S);
        /* Experts: the batch's routing table picks top_k experts; each expert launch is the
         * body of a frames repeat over the routed slots (frame k: expert experts[k], hidden
         * slot k), nested in the layers repeat (deltas: the next layer's experts). The expert
         * weight word is so named by two repeats and takes the hull over the expert bank. */
        int64_t expert_layer = (int64_t)(d->expert_size * d->experts);
        uint64_t experts_bank = wl_g(wl, fam.g_experts, 0);
        uint64_t h_slot = st->rows * d->ffn * WL_BF16;
        for (int down = 0; down < 2; ++down) {
            if (!down)
                l = LAUNCH("expert_up", st->ph[PH_UP], wl_p(wl, st->pl[PL_X2], 0), experts_bank,
                           wl_p(wl, st->pl[PL_H], 0), wl_p(wl, st->pl[PL_ROUTE], 0), rows, d->d,
                           d->ffn);
            else
                l = LAUNCH("expert_down", st->ph[PH_DOWN], wl_p(wl, st->pl[PL_H], 0),
                           experts_bank + d->expert_up, res, wl_p(wl, st->pl[PL_ROUTE], 0), rows,
                           d->ffn, d->d);
            per_layer(wl, l, 1, expert_layer);
            size_t hidden_word = down ? 0 : 2;
            ++wl->repeats_count;
            wl->shifts_count += 2 * d->top_k;
            if (wl->counting || wl->status) continue;
            ar_status_t status = ar_plan_add_repeat_frames(wl->plan, l, 1, d->top_k);
            for (uint64_t k = 0; !status && k < d->top_k; ++k) {
                ar_shift_t frame[2] = {{l, 1, (int64_t)(experts[k] * d->expert_size)},
                                       {l, hidden_word, (int64_t)(k * h_slot)}};
                status = ar_plan_add_frame(wl->plan, frame, 2);
            }
            if (status) wl_fail(wl, status, "could not add the routing frames");
        }
    } else {
        l = LAUNCH("gemm", st->ph[PH_UP], wl_p(wl, st->pl[PL_X2], 0), bank + d->off_wup,
                   wl_p(wl, st->pl[PL_H], 0), rows, d->d, d->up);
        per_layer(wl, l, 0, (int64_t)st->slice[PL_X2]);
        per_layer(wl, l, 1, S);
        per_layer(wl, l, 2, (int64_t)st->slice[PL_H]);
        l = LAUNCH(wl->model->gated ? "silu_mul" : "gelu", st->ph[PH_ACT], wl_p(wl, st->pl[PL_H], 0),
                   wl_p(wl, st->pl[PL_A], 0), rows * d->ffn);
        per_layer(wl, l, 0, (int64_t)st->slice[PL_H]);
        l = LAUNCH("gemm_residual", st->ph[PH_DOWN], wl_p(wl, st->pl[PL_A], 0), bank + d->off_wdown,
                   res, rows, d->ffn, d->d);
        per_layer(wl, l, 1, S);
        per_micro(wl, st, l, 2, row);
    }
    return first;
}

/* The layers repeat around one emitted layer: deltas, or (moe) frames drawn from the routing
 * table. Returns the repeat's index. */
static size_t emit_layers(wl_t *wl, stage_t const *st, uint64_t const *lengths) {
    uint64_t experts[64] = {0};
    if (st->moe) { /* this batch's routing table: top_k distinct experts */
        uint64_t k = fam.dims.top_k < 64 ? fam.dims.top_k : 64, E = fam.dims.experts;
        for (uint64_t j = 0; j < k; ++j) {
            uint64_t e = wl_random(wl) % E;
            for (bool clash = true; clash;) {
                clash = false;
                for (uint64_t i = 0; i < j; ++i)
                    if (experts[i] == e) clash = true;
                if (clash) e = (e + 1) % E;
            }
            experts[j] = e;
        }
    }
    size_t first = emit_layer(wl, st, lengths, experts);
    size_t index = wl_repeat_deltas(wl, 1, first, wl->launches_count - first, wl->layers);
    if (wl->site_layer_repeat == SIZE_MAX) wl->site_layer_repeat = index;
    return index;
}

static void emit_embed(wl_t *wl, stage_t const *st, uint64_t rows) {
    size_t l = LAUNCH("embedding", st->ph[PH_EMBED], wl_g(wl, fam.g_tokens, 0),
                      wl_g(wl, fam.g_embed, 0), wl_g(wl, fam.g_residual, 0),
                      wl_p(wl, st->pl[PL_MASK], 0), rows, fam.dims.d);
    per_micro(wl, st, l, 0, 4);
    per_micro(wl, st, l, 2, fam.dims.d * WL_BF16);
}

static size_t emit_head(wl_t *wl, stage_t const *st) {
    dims_t const *d = &fam.dims;
    LAUNCH("rmsnorm", st->ph[PH_LNF], wl_g(wl, fam.g_residual, 0), wl_g(wl, fam.g_head, 0),
           wl_p(wl, st->pl[PL_XF], 0), wl->batch, d->d);
    size_t head = LAUNCH("gemm", st->ph[PH_HEAD], wl_g(wl, fam.g_residual, 0),
                         wl_g(wl, fam.g_head, 0), wl_p(wl, st->pl[PL_XF], 0),
                         wl_p(wl, st->pl[PL_LOGITS], 0), wl->batch, d->d, d->vocab);
    LAUNCH("sample", st->ph[PH_SAMPLE], wl_p(wl, st->pl[PL_LOGITS], 0), wl_g(wl, fam.g_tokens, 0),
           wl->batch, d->vocab, wl->seed);
    return head;
}

/* ---- Declaration ------------------------------------------------------------------------- */

static void declare_common_globals(wl_t *wl, uint64_t residual_rows);

/* The phases the D faults use: a ghost carried plane goes to the first stage's qkv phase; a
 * clobbering plane to its ln1 phase, which runs between the embedding (which declares "mask")
 * and the first scores launch (which carries it). */
static void record_fault_phases(wl_t *wl) {
    wl->site_ghost_phase = fam.first.ph[PH_QKV];
    wl->site_clobber_phase = fam.first.ph[PH_LN1];
}

static void declare_common_globals(wl_t *wl, uint64_t residual_rows) {
    dims_t const *d = &fam.dims;
    uint64_t L = wl->layers;
    fam.g_embed = wl_global(wl, "params_embed", d->vocab * d->d * WL_BF16, 0);
    /* A guard gap after the layer bank: a walk one step too far lands in it, in no range. */
    fam.g_layers = wl_global(wl, "params_layers", L * d->stride, wl_align(L + 65536, WL_ALIGNMENT));
    wl->layers_global = fam.g_layers;
    wl->layer_stride = d->stride;
    fam.g_experts = -1;
    if (strcmp(wl->family, "moe") == 0) {
        fam.g_experts = wl_global(wl, "params_experts", L * d->experts * d->expert_size, 0);
        wl->expert_stride = d->expert_size;
    }
    fam.g_head = wl_global(wl, "params_head", d->vocab * d->d * WL_BF16 + d->d * WL_BF16, 0);
    fam.g_residual = wl_global(wl, "residual", residual_rows * d->d * WL_BF16, 0);
    fam.g_tokens = wl_global(wl, "tokens", residual_rows * 4, 0);
}

void wl_declare_family(wl_t *wl) {
    wl->family_state = malloc(sizeof(family_t));
    if (!wl->family_state) {
        wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
        return;
    }
    memset(&fam, 0xff, sizeof fam);
    fam.dims = make_dims(wl);
    dims_t const *d = &fam.dims;
    uint64_t B = wl->batch, T = wl->seq;
    char const *f = wl->family;
    if (strcmp(f, "decoder") == 0 || strcmp(f, "moe") == 0) {
        bool moe = strcmp(f, "moe") == 0;
        declare_common_globals(wl, B * T);
        declare_stage(wl, &fam.first, "prefill", T, false, true, false, true, moe);
        declare_stage(wl, &fam.second, "decode", 1, true, true, false, true, moe);
        wl_loop(wl, fam.second.ph[PH_EMBED], fam.second.ph[PH_SAMPLE]);
    } else if (strcmp(f, "encoder") == 0) {
        declare_common_globals(wl, B * T);
        declare_stage(wl, &fam.first, "enc", T, false, false, false, false, false);
        int pool = wl_phase(wl, "enc.pool");
        wl_plane(wl, pool, "enc.pooled", B * d->d * WL_BF16, false);
        fam.first.ph[PH_HEAD] = pool;
    } else if (strcmp(f, "training") == 0) {
        declare_common_globals(wl, B * T);
        uint64_t params = wl->layers * d->stride;
        fam.g_grads = wl_global(wl, "grads_layers", params, 0);
        fam.g_grads_embed = wl_global(wl, "grads_embed", d->vocab * d->d * WL_BF16, 0);
        fam.g_grads_head = wl_global(wl, "grads_head", d->vocab * d->d * WL_BF16, 0);
        fam.g_adam_m = wl_global(wl, "adam_m", params * 2, 0); /* fp32 moments */
        fam.g_adam_v = wl_global(wl, "adam_v", params * 2, 0);
        fam.g_grad_residual = wl_global(wl, "grad_residual", B * T * d->d * WL_BF16, 0);
        stage_t *st = &fam.first;
        declare_stage(wl, st, "fwd", T, false, false, true, false, false);
        int head = wl_phase(wl, "fwd.lm_head"), loss = wl_phase(wl, "fwd.loss");
        st->ph[PH_HEAD] = head;
        st->ph[PH_SAMPLE] = loss;
        st->pl[PL_LOGITS] = wl_plane(wl, head, "fwd.logits", B * T * d->vocab * WL_BF16, false);
        wl_plane(wl, loss, "fwd.logits", 0, true);
        fam.p_dlogits = wl_plane(wl, loss, "bwd.dlogits", B * T * d->vocab * WL_BF16, false);
        int bhead = wl_phase(wl, "bwd.lm_head");
        wl_plane(wl, bhead, "bwd.dlogits", 0, true);
        fam.bwd[0] = wl_phase(wl, "bwd.mlp");
        fam.bwd[1] = wl_phase(wl, "bwd.attn_out");
        fam.bwd[2] = wl_phase(wl, "bwd.attention");
        fam.bwd[3] = wl_phase(wl, "bwd.qkv");
        fam.bwd[4] = wl_phase(wl, "bwd.embed");
        fam.bwd[5] = wl_phase(wl, "opt.adam");
        fam.second.ph[PH_HEAD] = bhead;
        uint64_t rows = B * T;
        wl_plane(wl, fam.bwd[0], "fwd.x_norm2", 0, true);
        wl_plane(wl, fam.bwd[0], "fwd.h", 0, true);
        fam.p_dh = wl_plane(wl, fam.bwd[0], "bwd.dh", rows * d->up * WL_BF16, false);
        wl_plane(wl, fam.bwd[1], "fwd.ctx", 0, true);
        fam.p_dctx = wl_plane(wl, fam.bwd[1], "bwd.dctx", rows * d->d * WL_BF16, false);
        wl_plane(wl, fam.bwd[2], "fwd.qkv", 0, true);
        wl_plane(wl, fam.bwd[2], "bwd.dctx", 0, true);
        wl_plane(wl, fam.bwd[2], "mask", 0, true);
        fam.p_dqkv = wl_plane(wl, fam.bwd[2], "bwd.dqkv", rows * (d->d + 2 * d->kv_dim) * WL_BF16, false);
        wl_plane(wl, fam.bwd[3], "fwd.x_norm1", 0, true);
        wl_plane(wl, fam.bwd[3], "bwd.dqkv", 0, true);
        wl_plane(wl, fam.bwd[4], "bwd.embed_scratch", rows * 4, false);
        fam.p_opt = wl_plane(wl, fam.bwd[5], "opt.norm_scratch", 4096, false);
        wl_loop(wl, fam.bwd[0], fam.bwd[3]);
    } else { /* pipeline */
        uint64_t M = wl->micro;
        declare_common_globals(wl, M * B * T);
        fam.g_recv = wl_global(wl, "p2p_recv", M * B * T * d->d * WL_BF16, 0);
        fam.g_send = wl_global(wl, "p2p_send", M * B * T * d->d * WL_BF16, 0);
        stage_t *st = &fam.first;
        declare_stage(wl, st, "pp", T, false, false, false, false, false);
        st->outer_rows = B * T;
        st->pl[PL_STASH] = wl_plane(wl, st->ph[PH_LN1], "pp.stash",
                                    M * wl->layers * B * T * d->d * WL_BF16, false);
        int send = wl_phase(wl, "pp.send");
        wl_plane(wl, send, "pp.send_scratch", 4096, false);
        fam.first.ph[PH_HEAD] = send;
        fam.pp_flush = wl_phase(wl, "pp.flush");
        wl_plane(wl, fam.pp_flush, "pp.stash", 0, true);
        wl_loop(wl, st->ph[PH_EMBED], send);
    }
    record_fault_phases(wl);
}

/* ---- Emission ---------------------------------------------------------------------------- */

static void emit_training_backward(wl_t *wl, uint64_t const *lengths) {
    dims_t const *d = &fam.dims;
    stage_t const *st = &fam.first;
    uint64_t L = wl->layers, rows = 0;
    for (uint64_t s = 0; s < wl->batch; ++s) rows += lengths[s];
    int64_t S = (int64_t)d->stride;
    uint64_t top = (L - 1) * d->stride; /* backward starts at the last layer and walks down */
    uint64_t bank = wl_g(wl, fam.g_layers, top), grads = wl_g(wl, fam.g_grads, top);
    uint64_t gres = wl_g(wl, fam.g_grad_residual, 0);
#define SAVED(plane) wl_p(wl, st->pl[plane], (L - 1) * st->slice[plane])
#define DOWN(launch, word, plane) wl_walk(wl, 1, launch, word, -(int64_t)st->slice[plane], -1)
    size_t first, l;
    first = l = LAUNCH("gemm_bwd_data", fam.bwd[0], gres, bank + d->off_wdown, wl_p(wl, fam.p_dh, 0),
                       SAVED(PL_H), rows, d->ffn, d->d);
    wl_walk(wl, 1, l, 1, -S, -1);
    DOWN(l, 3, PL_H);
    l = LAUNCH("gemm_bwd_weight", fam.bwd[0], SAVED(PL_X2), wl_p(wl, fam.p_dh, 0), grads + d->off_wup,
               grads + d->off_wdown, rows);
    DOWN(l, 0, PL_X2);
    wl_walk(wl, 1, l, 2, -S, -1);
    wl_walk(wl, 1, l, 3, -S, -1);
    l = LAUNCH("gemm_bwd_data", fam.bwd[1], gres, bank + d->off_wo, wl_p(wl, fam.p_dctx, 0), rows, d->d);
    wl_walk(wl, 1, l, 1, -S, -1);
    l = LAUNCH("gemm_bwd_weight", fam.bwd[1], SAVED(PL_CTX), gres, grads + d->off_wo, rows);
    DOWN(l, 0, PL_CTX);
    wl_walk(wl, 1, l, 2, -S, -1);
    uint64_t at = 0, qkv_row = (d->d + 2 * d->kv_dim) * WL_BF16, row = d->d * WL_BF16;
    for (uint64_t s = 0; s < wl->batch; ++s) {
        l = LAUNCH("attention_bwd", fam.bwd[2], SAVED(PL_QKV) + at * qkv_row,
                   wl_p(wl, fam.p_dctx, at * row), wl_p(wl, fam.p_dqkv, at * qkv_row),
                   wl_p(wl, st->pl[PL_MASK], s * 64), lengths[s]);
        DOWN(l, 0, PL_QKV);
        at += lengths[s];
    }
    l = LAUNCH("gemm_bwd_data", fam.bwd[3], wl_p(wl, fam.p_dqkv, 0), bank + d->off_wqkv, gres, rows, d->d);
    wl_walk(wl, 1, l, 1, -S, -1);
    l = LAUNCH("gemm_bwd_weight", fam.bwd[3], SAVED(PL_X1), wl_p(wl, fam.p_dqkv, 0),
               grads + d->off_wqkv, rows);
    DOWN(l, 0, PL_X1);
    wl_walk(wl, 1, l, 2, -S, -1);
#undef SAVED
#undef DOWN
    wl_repeat_deltas(wl, 1, first, wl->launches_count - first, L);
    LAUNCH("embedding_bwd", fam.bwd[4], wl_g(wl, fam.g_tokens, 0), gres, wl_g(wl, fam.g_grads_embed, 0),
           wl_p(wl, wl_plane_index(wl, "bwd.embed_scratch"), 0), rows, d->d);
    uint64_t params = L * d->stride;
    LAUNCH("adam", fam.bwd[5], wl_g(wl, fam.g_layers, 0), wl_g(wl, fam.g_grads, 0),
           wl_g(wl, fam.g_adam_m, 0), wl_g(wl, fam.g_adam_v, 0), wl_p(wl, fam.p_opt, 0), params / 2);
}

static size_t emit_training_step(wl_t *wl, uint64_t const *lengths) {
    dims_t const *d = &fam.dims;
    stage_t const *st = &fam.first;
    uint64_t rows = 0;
    for (uint64_t s = 0; s < wl->batch; ++s) rows += lengths[s];
    size_t first = wl->launches_count;
    emit_embed(wl, st, rows);
    emit_layers(wl, st, lengths);
    size_t head = LAUNCH("gemm", st->ph[PH_HEAD], wl_g(wl, fam.g_residual, 0), wl_g(wl, fam.g_head, 0),
                         wl_p(wl, st->pl[PL_LOGITS], 0), rows, d->d, d->vocab);
    if (wl->site_victim == SIZE_MAX) wl->site_victim = head;
    LAUNCH("cross_entropy", st->ph[PH_SAMPLE], wl_p(wl, st->pl[PL_LOGITS], 0), wl_g(wl, fam.g_tokens, 0),
           wl_p(wl, fam.p_dlogits, 0), rows, d->vocab);
    LAUNCH("gemm_bwd", fam.second.ph[PH_HEAD], wl_p(wl, fam.p_dlogits, 0), wl_g(wl, fam.g_head, 0),
           wl_g(wl, fam.g_grad_residual, 0), wl_g(wl, fam.g_grads_head, 0), rows, d->vocab);
    emit_training_backward(wl, lengths);
    return first;
}

/* Distribute `references` over `bodies` in order (a decode epoch runs its tokens, then the next
 * epoch's batch takes over). */
static void reference_epochs(wl_t *wl, size_t const *firsts, size_t const *counts, uint64_t bodies,
                             uint64_t references) {
    for (uint64_t e = 0; e < bodies; ++e) {
        uint64_t n = references / bodies + (e < references % bodies ? 1 : 0);
        for (uint64_t t = 0; t < n; ++t) wl_reference(wl, firsts[e], counts[e]);
    }
}

void wl_emit_family(wl_t *wl) {
    char const *f = wl->family;
    uint64_t B = wl->batch, E = wl->epochs;
    uint64_t *lengths = malloc(B * sizeof *lengths);
    size_t *firsts = malloc(E * sizeof *firsts), *counts = malloc(E * sizeof *counts);
    if (!lengths || !firsts || !counts) {
        wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
        goto done;
    }
    if (strcmp(f, "decoder") == 0 || strcmp(f, "moe") == 0) {
        stage_t const *pre = &fam.first, *dec = &fam.second;
        draw_lengths(wl, lengths, wl->seq / 2);
        uint64_t rows = 0;
        for (uint64_t s = 0; s < B; ++s) rows += lengths[s];
        emit_embed(wl, pre, rows);
        emit_layers(wl, pre, lengths);
        wl->site_victim = emit_head(wl, pre);
        wl_reference(wl, 0, wl->launches_count);
        for (uint64_t e = 0; e < E; ++e) {
            draw_lengths(wl, lengths, 1); /* context lengths of this epoch's batch */
            firsts[e] = wl->launches_count;
            emit_embed(wl, dec, B);
            emit_layers(wl, dec, lengths);
            emit_head(wl, dec);
            counts[e] = wl->launches_count - firsts[e];
        }
        reference_epochs(wl, firsts, counts, E, wl->decode);
    } else if (strcmp(f, "encoder") == 0) {
        stage_t const *st = &fam.first;
        for (uint64_t e = 0; e < E; ++e) {
            draw_lengths(wl, lengths, wl->seq / 4);
            uint64_t rows = 0;
            for (uint64_t s = 0; s < B; ++s) rows += lengths[s];
            firsts[e] = wl->launches_count;
            emit_embed(wl, st, rows);
            emit_layers(wl, st, lengths);
            size_t pool = LAUNCH("pool", st->ph[PH_HEAD], wl_g(wl, fam.g_residual, 0),
                                 wl_g(wl, fam.g_head, 0),
                                 wl_p(wl, wl_plane_index(wl, "enc.pooled"), 0), B, fam.dims.d);
            if (wl->site_victim == SIZE_MAX) wl->site_victim = pool;
            counts[e] = wl->launches_count - firsts[e];
        }
        /* Bucketed serving: each batch runs the body of the bucket its shape falls in. */
        for (uint64_t t = 0; t < wl->decode; ++t) {
            uint64_t e = t < E ? t : wl_random(wl) % E;
            wl_reference(wl, firsts[e], counts[e]);
        }
    } else if (strcmp(f, "training") == 0) {
        for (uint64_t e = 0; e < E; ++e) {
            draw_lengths(wl, lengths, wl->seq / 2);
            firsts[e] = emit_training_step(wl, lengths);
            counts[e] = wl->launches_count - firsts[e];
        }
        for (uint64_t t = 0; t < wl->decode; ++t) wl_reference(wl, firsts[t % E], counts[t % E]);
    } else { /* pipeline */
        stage_t const *st = &fam.first;
        dims_t const *d = &fam.dims;
        uint64_t row = d->d * WL_BF16;
        for (uint64_t e = 0; e < E; ++e) {
            draw_lengths(wl, lengths, wl->seq / 2);
            uint64_t rows = 0;
            for (uint64_t s = 0; s < B; ++s) rows += lengths[s];
            firsts[e] = wl->launches_count;
            size_t l = LAUNCH("recv", st->ph[PH_EMBED], wl_g(wl, fam.g_recv, 0),
                              wl_g(wl, fam.g_residual, 0), wl_p(wl, st->pl[PL_MASK], 0), rows * row);
            per_micro(wl, st, l, 0, row);
            per_micro(wl, st, l, 1, row);
            emit_layers(wl, st, lengths);
            l = LAUNCH("send", st->ph[PH_HEAD], wl_g(wl, fam.g_residual, 0), wl_g(wl, fam.g_send, 0),
                       wl_p(wl, wl_plane_index(wl, "pp.send_scratch"), 0), rows * row);
            per_micro(wl, st, l, 0, row);
            per_micro(wl, st, l, 1, row);
            wl_repeat_deltas(wl, 0, firsts[e], wl->launches_count - firsts[e], wl->micro);
            l = LAUNCH("offload", fam.pp_flush, wl_p(wl, st->pl[PL_STASH], 0),
                       wl->micro * wl->layers * B * wl->seq * row);
            if (wl->site_victim == SIZE_MAX) wl->site_victim = l;
            counts[e] = wl->launches_count - firsts[e];
        }
        for (uint64_t t = 0; t < wl->decode; ++t) wl_reference(wl, firsts[t % E], counts[t % E]);
    }
done:
    free(lengths);
    free(firsts);
    free(counts);
}
