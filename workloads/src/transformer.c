/* One transformer layer written once per body and walked by a repeat over the layers, the
 * machinery every family builds from: the layer's phases and planes (a stage), its launches,
 * the embedding and the head. Weights walk the layer bank by the layer stride; per-layer tensors
 * (the KV cache, saved activations) walk their plane. Attention is ragged: one scores and one
 * softmax-V launch per sequence, so a batch's lengths (jittered by the seed) show in the words.
 * A moe stage replaces the MLP by a router and top-k experts, each expert launch the body of a
 * frames repeat over the routed slots nested in the layers repeat; with expert skew, each
 * expert in its own phases and planes instead, so uneven experts get staggered lifetimes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transformer.h"

static arp_tf_dims_t make_dims(arp_wl_t const *wl, bool moe) {
    arp_wl_model_t const *m = wl->model;
    arp_tf_dims_t d = {0};
    d.d = m->d;
    d.heads = m->heads;
    d.kv_dim = m->d / m->heads * m->kv_heads;
    d.ffn = m->ffn;
    d.up = m->gated ? 2 * m->ffn : m->ffn;
    d.vocab = m->vocab;
    d.experts = m->experts;
    d.top_k = m->top_k;
    uint64_t at = 0;
#define PLACE(field, bytes) (d.field = at, at = arp_wl_align(at + (bytes), ARP_WL_ALIGNMENT))
    PLACE(off_ln1, d.d * ARP_WL_BF16);
    PLACE(off_wqkv, d.d * (d.d + 2 * d.kv_dim) * ARP_WL_BF16);
    PLACE(off_wo, d.d * d.d * ARP_WL_BF16);
    PLACE(off_ln2, d.d * ARP_WL_BF16);
    if (moe) {
        PLACE(off_router, d.d * d.experts * ARP_WL_BF16);
    } else {
        PLACE(off_wup, d.d * d.up * ARP_WL_BF16);
        PLACE(off_wdown, d.ffn * d.d * ARP_WL_BF16);
    }
#undef PLACE
    d.stride = at;
    d.expert_up = arp_wl_align(d.d * d.up * ARP_WL_BF16, ARP_WL_ALIGNMENT);
    d.expert_size = d.expert_up + arp_wl_align(d.ffn * d.d * ARP_WL_BF16, ARP_WL_ALIGNMENT);
    /* Expert skew: expert e's width is the model's less up to skew percent, drawn from a hash
     * of the seed (not the generation's stream, so routing and lengths keep their draws), in
     * multiples of 64; the experts are packed, so each has its own weight offsets. */
    uint64_t at_expert = 0;
    d.ffn_max = 0;
    for (uint64_t e = 0; moe && e < d.experts && e < ARP_TF_MAX_EXPERTS; ++e) {
        uint64_t w = d.ffn;
        if (wl->expert_skew) {
            uint64_t h = arp_wl_mix(wl->seed ^ (0x9e3779b97f4a7c15ull * (e + 1)));
            uint64_t cut = d.ffn * wl->expert_skew / 100 * (h % 1001) / 1000;
            w = (d.ffn - cut) / 64 * 64;
            if (w < 64) w = 64;
        }
        uint64_t up = m->gated ? 2 * w : w;
        d.expert_ffn[e] = w;
        d.expert_off[e] = at_expert;
        d.expert_down[e] = arp_wl_align(d.d * up * ARP_WL_BF16, ARP_WL_ALIGNMENT);
        at_expert += d.expert_down[e] + arp_wl_align(w * d.d * ARP_WL_BF16, ARP_WL_ALIGNMENT);
        if (w > d.ffn_max) d.ffn_max = w;
    }
    d.expert_layer = at_expert;
    return d;
}

arp_tf_t *arp_tf_begin(arp_wl_t *wl, size_t size, bool moe) {
    arp_tf_t *tf = arp_wl_family_state(wl, size);
    if (!tf) return NULL;
    tf->moe = moe;
    tf->dims = make_dims(wl, moe);
    return tf;
}

static char const *name(char *buffer, char const *prefix, char const *suffix) {
    snprintf(buffer, 48, "%s.%s", prefix, suffix);
    return buffer;
}

/* Expert skew: each expert's up and down phases, in the order they run: expert e + 1's up
 * before expert e's down (the next expert's up-projection overlaps this one's down-projection),
 * so each expert's hidden activations live across its neighbour's up. */
static void declare_expert_phases(arp_wl_t *wl, arp_tf_stage_t *st, char const *prefix) {
    char b[48], id[24];
    int E = (int)ARP_TF(wl)->dims.experts, at = 0;
    for (int e = 0; e < E; ++e) {
        st->expert_order[at++] = e;
        if (e > 0) st->expert_order[at++] = ~(e - 1);
    }
    st->expert_order[at++] = ~(E - 1);
    for (int k = 0; k < at; ++k) {
        int e = st->expert_order[k] >= 0 ? st->expert_order[k] : ~st->expert_order[k];
        bool up = st->expert_order[k] >= 0;
        snprintf(id, sizeof id, "%s.%d", up ? "expert_up" : "expert_down", e);
        int phase = arp_wl_phase(wl, name(b, prefix, id));
        if (up)
            st->expert_up[e] = phase;
        else
            st->expert_down[e] = phase;
    }
    st->ph[PH_UP] = st->expert_up[0];
    st->ph[PH_DOWN] = st->expert_down[E - 1];
}

/* Expert e's planes: its hidden activations (its up-projection's width; up carries the
 * normalized input and the routes, declares them) and its activated values (its FFN width;
 * down declares them, carries the hidden activations and the routes). */
static void declare_expert_planes(arp_wl_t *wl, arp_tf_stage_t *st, char const *prefix) {
    arp_tf_dims_t const *d = &ARP_TF(wl)->dims;
    char b[48], id[24];
    for (uint64_t e = 0; e < d->experts; ++e) {
        int up = st->expert_up[e], down = st->expert_down[e];
        uint64_t w = d->expert_ffn[e], width = wl->model->gated ? 2 * w : w;
        arp_wl_plane(wl, up, name(b, prefix, "x_norm2"), 0, true);
        arp_wl_plane(wl, up, name(b, prefix, "route"), 0, true);
        snprintf(id, sizeof id, "expert_h.%d", (int)e);
        st->expert_h[e] =
            arp_wl_plane(wl, up, name(b, prefix, id), st->rows * width * ARP_WL_BF16, false);
        arp_wl_plane(wl, down, name(b, prefix, id), 0, true);
        arp_wl_plane(wl, down, name(b, prefix, "route"), 0, true);
        snprintf(id, sizeof id, "expert_a.%d", (int)e);
        st->expert_a[e] =
            arp_wl_plane(wl, down, name(b, prefix, id), st->rows * w * ARP_WL_BF16, false);
    }
}

/* Declare one stage's phases, in program order, and their planes. `train` saves activations in
 * per-layer slices; `kv_layers` keeps a persistent every-layer KV cache; `head` adds the final
 * norm, LM head and sampling. */
void arp_tf_declare_stage(arp_wl_t *wl, arp_tf_stage_t *st, char const *prefix, uint64_t tokens,
                          bool decoding, bool kv_layers, bool train, bool head, bool moe) {
    arp_tf_t *tf = ARP_TF(wl);
    arp_tf_dims_t const *d = &tf->dims;
    char b[48];
    memset(st, 0xff, sizeof st->ph + sizeof st->pl);
    memset(st->slice, 0, sizeof st->slice);
    st->tokens = tokens;
    st->rows = wl->batch * tokens;
    st->kv_layers = kv_layers;
    st->moe = moe;
    st->outer_rows = 0;
    st->stash_phase = -1;
    st->pages_phase = -1;
    st->pages_count = 0;
    uint64_t rows = st->rows, L = wl->layers;
    static char const *const phase_names[PH_COUNT] = {
        "embed", "ln1",    "ln1_scale", "qkv",      "kv_store", "scores", "softmax", "out_proj",
        "ln2",   "mlp_up", "mlp_act",   "mlp_down", "router",   "ln_f",   "lm_head", "sample"};
    st->per_expert = moe && wl->expert_skew;
    for (int p = 0; p < PH_COUNT; ++p) {
        if (p == PH_ROUTER) continue;
        if (p == PH_LN1_SCALE && !(wl->in_place & AR_WORKLOAD_IN_PLACE_NORM)) continue;
        if (p == PH_KV_STORE &&
            !(decoding && kv_layers && (wl->in_place & AR_WORKLOAD_IN_PLACE_KV)))
            continue;
        if (moe && p == PH_UP) st->ph[PH_ROUTER] = arp_wl_phase(wl, name(b, prefix, "router"));
        if (moe && p == PH_ACT) continue;
        if (st->per_expert && p == PH_UP) {
            declare_expert_phases(wl, st, prefix);
            continue;
        }
        if (st->per_expert && p == PH_DOWN) continue;
        if (!head && p >= PH_LNF) continue;
        st->ph[p] = arp_wl_phase(wl, name(b, prefix,
                                          moe && p == PH_UP     ? "experts_up"
                                          : moe && p == PH_DOWN ? "experts_down"
                                                                : phase_names[p]));
    }
    uint64_t act_layers = train ? L : 1;
#define SLICE(plane, bytes)                                                                        \
    (st->slice[plane] = train ? arp_wl_align((bytes), ARP_WL_ALIGNMENT) : 0,                       \
     arp_wl_align((bytes), ARP_WL_ALIGNMENT) * act_layers)
    uint64_t x_bytes = rows * d->d * ARP_WL_BF16;
    st->pl[PL_MASK] = arp_wl_plane(wl, st->ph[PH_EMBED], "mask", wl->batch * 64, false);
    st->pl[PL_X1] =
        arp_wl_plane(wl, st->ph[PH_LN1], name(b, prefix, "x_norm1"), SLICE(PL_X1, x_bytes), false);
    if (wl->in_place & AR_WORKLOAD_IN_PLACE_RESIDUAL) {
        /* The stream as a plane: the embedding writes it; each add writes over it, a pair of
         * names a layer (out_proj: resid -> resid_attn; the MLP's down: back to resid), so the
         * next layer, and the head after the last, read resid. */
        char resid[48], attn[48];
        snprintf(resid, sizeof resid, "%s.resid", prefix);
        snprintf(attn, sizeof attn, "%s.resid_attn", prefix);
        uint64_t res_bytes = (decoding ? rows : tf->residual_rows) * d->d * ARP_WL_BF16;
        st->pl[PL_RES] = arp_wl_plane(wl, st->ph[PH_EMBED], resid, res_bytes, false);
        arp_wl_plane(wl, st->ph[PH_LN1], resid, 0, true);
        st->pl[PL_RES_ATTN] = arp_wl_becomes(wl, st->ph[PH_OUT], st->pl[PL_RES], attn);
        arp_wl_plane(wl, st->ph[PH_LN2], attn, 0, true);
        arp_wl_becomes(wl, st->ph[PH_DOWN], st->pl[PL_RES_ATTN], resid);
        if (head) {
            arp_wl_plane(wl, st->ph[PH_LNF], resid, 0, true);
            arp_wl_plane(wl, st->ph[PH_HEAD], resid, 0, true);
        }
    }
    if (wl->in_place & AR_WORKLOAD_IN_PLACE_NORM) {
        /* the scale multiplies x_norm1 in place; qkv reads the result */
        st->pl[PL_X1_SCALED] =
            arp_wl_becomes(wl, st->ph[PH_LN1_SCALE], st->pl[PL_X1], name(b, prefix, "x_scaled1"));
        arp_wl_plane(wl, st->ph[PH_QKV], name(b, prefix, "x_scaled1"), 0, true);
    } else {
        arp_wl_plane(wl, st->ph[PH_QKV], name(b, prefix, "x_norm1"), 0, true);
    }
    st->pl[PL_QKV] =
        arp_wl_plane(wl, st->ph[PH_QKV], name(b, prefix, "qkv"),
                     SLICE(PL_QKV, rows * (d->d + 2 * d->kv_dim) * ARP_WL_BF16), false);
    arp_wl_plane(wl, st->ph[PH_SCORES], name(b, prefix, "qkv"), 0, true);
    arp_wl_plane(wl, st->ph[PH_SCORES], "mask", 0, true);
    /* The KV cache: the decoder's holds every layer and every slot's whole context; an
     * encoder's (or a training step's) holds one layer's keys and values of this batch. */
    tf->slot_bytes = wl->seq * 2 * d->kv_dim * ARP_WL_BF16;
    char const *kv_name = kv_layers ? "kv_cache" : name(b, prefix, "kv");
    char kv[48];
    snprintf(kv, sizeof kv, "%s", kv_name);
    uint64_t kv_bytes = tf->slot_bytes * wl->batch * (kv_layers ? L : 1);
    /* A paged cache (kv_page tokens a page): the prompt's pages, rounded up to whole pages,
     * from prefill on. With one epoch, the decoded tokens' pages are a second persistent plane
     * from the start of decoding on; over epochs, each wave's requests hold their own pages
     * (family_decoder.c), which the layer appends to in the wave's phase. */
    uint64_t page = wl->kv_page, page_bytes = page * 2 * d->kv_dim * ARP_WL_BF16;
    if (page && kv_layers) {
        tf->slot_bytes = (wl->seq + page - 1) / page * page_bytes;
        kv_bytes = tf->slot_bytes * wl->batch * L;
    }
    st->pl[PL_KV] = arp_wl_plane(wl, st->ph[PH_SCORES], kv, kv_bytes, decoding);
    if (kv_layers) arp_wl_persistent(wl, st->pl[PL_KV]);
    if (st->ph[PH_KV_STORE] >= 0) { /* the cache is written in place and keeps its name */
        arp_wl_plane(wl, st->ph[PH_KV_STORE], name(b, prefix, "qkv"), 0, true);
        arp_wl_becomes(wl, st->ph[PH_KV_STORE], st->pl[PL_KV], kv);
    }
    if (page && kv_layers && decoding && wl->epochs <= 1) {
        uint64_t tokens_each = (wl->decode + wl->epochs - 1) / (wl->epochs ? wl->epochs : 1);
        tf->pages_bytes = (tokens_each + page - 1) / page * page_bytes;
        st->pl[PL_PAGES] =
            arp_wl_plane(wl, st->ph[PH_SCORES], "kv_pages", tf->pages_bytes * wl->batch * L, false);
        arp_wl_persistent(wl, st->pl[PL_PAGES]);
    }
    st->pl[PL_SCORES] = arp_wl_plane(wl, st->ph[PH_SCORES], name(b, prefix, "scores"),
                                     rows * d->heads * 64 * 4, false);
    arp_wl_plane(wl, st->ph[PH_SOFTMAX], name(b, prefix, "scores"), 0, true);
    arp_wl_plane(wl, st->ph[PH_SOFTMAX], kv, 0, true);
    st->pl[PL_CTX] =
        arp_wl_plane(wl, st->ph[PH_SOFTMAX], name(b, prefix, "ctx"), SLICE(PL_CTX, x_bytes), false);
    arp_wl_plane(wl, st->ph[PH_OUT], name(b, prefix, "ctx"), 0, true);
    st->pl[PL_X2] =
        arp_wl_plane(wl, st->ph[PH_LN2], name(b, prefix, "x_norm2"), SLICE(PL_X2, x_bytes), false);
    if (st->per_expert) {
        arp_wl_plane(wl, st->ph[PH_ROUTER], name(b, prefix, "x_norm2"), 0, true);
        st->pl[PL_ROUTE] = arp_wl_plane(wl, st->ph[PH_ROUTER], name(b, prefix, "route"),
                                        rows * d->experts * 4, false);
        declare_expert_planes(wl, st, prefix);
    } else if (moe) {
        arp_wl_plane(wl, st->ph[PH_ROUTER], name(b, prefix, "x_norm2"), 0, true);
        st->pl[PL_ROUTE] = arp_wl_plane(wl, st->ph[PH_ROUTER], name(b, prefix, "route"),
                                        rows * d->experts * 4, false);
        arp_wl_plane(wl, st->ph[PH_UP], name(b, prefix, "x_norm2"), 0, true);
        arp_wl_plane(wl, st->ph[PH_UP], name(b, prefix, "route"), 0, true);
        st->pl[PL_H] = arp_wl_plane(wl, st->ph[PH_UP], name(b, prefix, "expert_h"),
                                    d->top_k * rows * d->ffn_max * ARP_WL_BF16, false);
        arp_wl_plane(wl, st->ph[PH_DOWN], name(b, prefix, "expert_h"), 0, true);
        arp_wl_plane(wl, st->ph[PH_DOWN], name(b, prefix, "route"), 0, true);
    } else {
        arp_wl_plane(wl, st->ph[PH_UP], name(b, prefix, "x_norm2"), 0, true);
        st->pl[PL_H] = arp_wl_plane(wl, st->ph[PH_UP], name(b, prefix, "h"),
                                    SLICE(PL_H, rows * d->up * ARP_WL_BF16), false);
        arp_wl_plane(wl, st->ph[PH_ACT], name(b, prefix, "h"), 0, true);
        st->pl[PL_A] = arp_wl_plane(wl, st->ph[PH_ACT], name(b, prefix, "a"),
                                    rows * d->ffn * ARP_WL_BF16, false);
        arp_wl_plane(wl, st->ph[PH_DOWN], name(b, prefix, "a"), 0, true);
    }
#undef SLICE
    if (head) {
        st->pl[PL_XF] = arp_wl_plane(wl, st->ph[PH_LNF], name(b, prefix, "x_final"),
                                     wl->batch * d->d * ARP_WL_BF16, false);
        arp_wl_plane(wl, st->ph[PH_HEAD], name(b, prefix, "x_final"), 0, true);
        st->pl[PL_LOGITS] = arp_wl_plane(wl, st->ph[PH_HEAD], name(b, prefix, "logits"),
                                         wl->batch * d->vocab * 4, false);
        arp_wl_plane(wl, st->ph[PH_SAMPLE], name(b, prefix, "logits"), 0, true);
    }
    arp_wl_loop(wl, st->ph[PH_LN1], st->ph[PH_DOWN]);
}

/* Per-sequence lengths for one body: prompt or context lengths, jittered by the seed. */
void arp_tf_draw_lengths(arp_wl_t *wl, uint64_t *lengths, uint64_t lo) {
    for (uint64_t s = 0; s < wl->batch; ++s)
        lengths[s] = arp_wl_random_between(wl, lo < 1 ? 1 : lo, wl->seq);
}

/* Record that word `word` of `launch` walks the layers by `delta`, and, in a pipeline, that a
 * word on the residual stream walks the micro-batches. */
static void per_layer(arp_wl_t *wl, size_t launch, size_t word, int64_t delta) {
    if (delta) arp_wl_walk(wl, 1, launch, word, delta, -1);
}
void arp_tf_per_micro(arp_wl_t *wl, arp_tf_stage_t const *st, size_t launch, size_t word,
                      uint64_t row_bytes) {
    if (st->outer_rows) arp_wl_walk(wl, 0, launch, word, (int64_t)(st->outer_rows * row_bytes), -1);
}

/* The frames of an expert launch's routing repeat: frame k picks expert experts[k] (its weight
 * word, written at expert 0's: shifted by the expert's offset, and for w_down by the difference
 * of the experts' w_up sizes) and hidden slot k. */
typedef struct routing_t {
    size_t launch, hidden_word;
    bool down;
    uint64_t const *experts;
    arp_tf_dims_t const *d;
    uint64_t h_slot;
} routing_t;

static void routing_frame(void *context, uint64_t k, ar_shift_t *frame) {
    routing_t const *r = context;
    uint64_t e = r->experts[k];
    int64_t shift = (int64_t)r->d->expert_off[e];
    if (r->down) shift += (int64_t)r->d->expert_down[e] - (int64_t)r->d->expert_down[0];
    frame[0] = (ar_shift_t){r->launch, 1, shift};
    frame[1] = (ar_shift_t){r->launch, r->hidden_word, (int64_t)(k * r->h_slot)};
}

/* Expert skew: the routed experts, each in its own phases, in the order the phases run (an
 * expert the batch does not route to is skipped); weights walk the layers of the expert bank. */
static void emit_routed_experts(arp_wl_t *wl, arp_tf_stage_t const *st, uint64_t const *experts,
                                uint64_t rows) {
    arp_tf_t *tf = ARP_TF(wl);
    arp_tf_dims_t const *d = &tf->dims;
    int64_t expert_layer = (int64_t)d->expert_layer;
    uint64_t bank = arp_wl_g(wl, tf->g_experts, 0), res = arp_tf_residual(wl, st);
    uint64_t route = arp_wl_p(wl, st->pl[PL_ROUTE], 0);
    for (uint64_t k = 0; k < 2 * d->experts; ++k) {
        int o = st->expert_order[k];
        uint64_t e = (uint64_t)(o >= 0 ? o : ~o), w = d->expert_ffn[e];
        bool routed = false;
        for (uint64_t j = 0; j < d->top_k; ++j) routed = routed || experts[j] == e;
        if (!routed) continue;
        uint64_t h = arp_wl_p(wl, st->expert_h[e], 0), a = arp_wl_p(wl, st->expert_a[e], 0);
        size_t l;
        if (o >= 0) {
            l = LAUNCH("expert_up", st->expert_up[e], arp_wl_p(wl, st->pl[PL_X2], 0),
                       bank + d->expert_off[e], h, route, rows, d->d, w);
            per_layer(wl, l, 1, expert_layer);
        } else {
            LAUNCH(wl->model->gated ? "silu_mul" : "gelu", st->expert_down[e], h, a, rows * w);
            l = LAUNCH("expert_down", st->expert_down[e], a,
                       bank + d->expert_off[e] + d->expert_down[e], res, route, rows, w, d->d);
            per_layer(wl, l, 1, expert_layer);
        }
    }
}

/* Pipeline: the copy that keeps the layer input for the backward pass (in ln1's phase, or a
 * micro-batch's own), before the norm's in-place scale so ln1 runs once a layer. */
static void emit_stash(arp_wl_t *wl, arp_tf_stage_t const *st, uint64_t rows) {
    if (st->pl[PL_STASH] < 0) return;
    uint64_t res = arp_tf_residual(wl, st), row = ARP_TF(wl)->dims.d * ARP_WL_BF16;
    int phase = st->stash_phase >= 0 ? st->stash_phase : st->ph[PH_LN1];
    size_t l = LAUNCH("copy", phase, res, arp_wl_p(wl, st->pl[PL_STASH], 0), rows * row);
    arp_tf_per_micro(wl, st, l, 0, row);
    arp_tf_per_micro(wl, st, l, 1, row * st->stash_micro_layers);
    per_layer(wl, l, 1, (int64_t)(st->stash_layer_rows * row));
}

/* One transformer layer as written (the caller wraps it in the layers repeat). `lengths` are the
 * sequences' context lengths; a stage computes `st->tokens` query tokens per sequence (1 when
 * decoding, else the whole length); `experts` is the moe routing table. Returns the first
 * launch; records the layer walks at level 1 (and micro-batch walks at level 0). */
static size_t emit_layer(arp_wl_t *wl, arp_tf_stage_t const *st, uint64_t const *lengths,
                         uint64_t const *experts) {
    arp_tf_t *tf = ARP_TF(wl);
    arp_tf_dims_t const *d = &tf->dims;
    int64_t S = (int64_t)d->stride;
    uint64_t rows = 0;
    for (uint64_t s = 0; s < wl->batch; ++s) rows += st->tokens == 1 ? 1 : lengths[s];
    uint64_t res = arp_tf_residual(wl, st), bank = arp_wl_g(wl, tf->g_layers, 0);
    uint64_t row = d->d * ARP_WL_BF16, qkv_row = (d->d + 2 * d->kv_dim) * ARP_WL_BF16;
    size_t l;

    size_t first;
    if (wl->in_place & AR_WORKLOAD_IN_PLACE_NORM) {
        /* llama.cpp's RMS_NORM, then its MUL by the scale over the output */
        first = l =
            LAUNCH("rms_norm", st->ph[PH_LN1], res, arp_wl_p(wl, st->pl[PL_X1], 0), rows, d->d);
        arp_tf_per_micro(wl, st, l, 0, row);
        per_layer(wl, l, 1, (int64_t)st->slice[PL_X1]);
        emit_stash(wl, st, rows);
        l = LAUNCH("mul_inplace", st->ph[PH_LN1_SCALE], arp_wl_p(wl, st->pl[PL_X1], 0),
                   bank + d->off_ln1, rows, d->d);
        per_layer(wl, l, 0, (int64_t)st->slice[PL_X1]);
        per_layer(wl, l, 1, S);
    } else {
        first = l = LAUNCH("rmsnorm", st->ph[PH_LN1], res, bank + d->off_ln1,
                           arp_wl_p(wl, st->pl[PL_X1], 0), rows, d->d);
        arp_tf_per_micro(wl, st, l, 0, row);
        per_layer(wl, l, 1, S);
        per_layer(wl, l, 2, (int64_t)st->slice[PL_X1]);
    }
    if (l == wl->site[ARP_WL_SITE_LAYER_WEIGHT] || wl->site[ARP_WL_SITE_LAYER_WEIGHT] == SIZE_MAX) {
        wl->site[ARP_WL_SITE_LAYER_WEIGHT] = l;
        wl->layer_weight_word = 1;
    }
    if (!(wl->in_place & AR_WORKLOAD_IN_PLACE_NORM)) emit_stash(wl, st, rows);
    l = LAUNCH("gemm", st->ph[PH_QKV], arp_wl_p(wl, st->pl[PL_X1], 0), bank + d->off_wqkv,
               arp_wl_p(wl, st->pl[PL_QKV], 0), rows, d->d, d->d + 2 * d->kv_dim);
    per_layer(wl, l, 0, (int64_t)st->slice[PL_X1]);
    per_layer(wl, l, 1, S);
    per_layer(wl, l, 2, (int64_t)st->slice[PL_QKV]);
    if (wl->site[ARP_WL_SITE_GHOST] == SIZE_MAX) wl->site[ARP_WL_SITE_GHOST] = l;
    int64_t kv_layer = st->kv_layers ? (int64_t)(tf->slot_bytes * wl->batch) : 0;
    uint64_t kv = arp_wl_p(wl, st->pl[PL_KV], 0);
    if (st->ph[PH_KV_STORE] >= 0) { /* the token's keys and values into this layer's cache */
        l = LAUNCH("kv_store", st->ph[PH_KV_STORE],
                   arp_wl_p(wl, st->pl[PL_QKV], d->d * ARP_WL_BF16), kv, wl->batch, d->kv_dim);
        per_layer(wl, l, 1, kv_layer);
    }
    /* Paged over epochs: the new token's keys and values go to the pages of each request
     * group live in this wave (the wave's own groups and the older ones still running). */
    for (int i = 0; i < st->pages_count; ++i) {
        l = LAUNCH("kv_page_append", st->pages_phase, arp_wl_p(wl, st->pl[PL_QKV], 0),
                   arp_wl_p(wl, st->pages[i], 0), wl->batch, wl->kv_page, d->kv_dim);
        per_layer(wl, l, 1, (int64_t)st->pages_layer[i]);
    }

    /* Ragged attention: a scores launch per sequence, then a softmax·V launch per sequence. */
    uint64_t v_part = wl->seq * d->kv_dim * ARP_WL_BF16;
    uint64_t score_row = d->heads * 64 * 4;
    for (int pass = 0; pass < 2; ++pass) {
        uint64_t at = 0;
        for (uint64_t s = 0; s < wl->batch; ++s) {
            uint64_t q = st->tokens == 1 ? 1 : lengths[s];
            if (pass == 0 && st->pl[PL_PAGES] >= 0) { /* paged: the new token's page too */
                l = LAUNCH("attention_scores", st->ph[PH_SCORES],
                           arp_wl_p(wl, st->pl[PL_QKV], at * qkv_row), kv + s * tf->slot_bytes,
                           arp_wl_p(wl, st->pl[PL_SCORES], at * score_row),
                           arp_wl_p(wl, st->pl[PL_MASK], s * 64), lengths[s], q,
                           arp_wl_p(wl, st->pl[PL_PAGES], s * tf->pages_bytes));
                per_layer(wl, l, 0, (int64_t)st->slice[PL_QKV]);
                per_layer(wl, l, 1, kv_layer);
                per_layer(wl, l, 6, (int64_t)(tf->pages_bytes * wl->batch));
            } else if (pass == 0) {
                l = LAUNCH("attention_scores", st->ph[PH_SCORES],
                           arp_wl_p(wl, st->pl[PL_QKV], at * qkv_row), kv + s * tf->slot_bytes,
                           arp_wl_p(wl, st->pl[PL_SCORES], at * score_row),
                           arp_wl_p(wl, st->pl[PL_MASK], s * 64), lengths[s], q);
                per_layer(wl, l, 0, (int64_t)st->slice[PL_QKV]);
                per_layer(wl, l, 1, kv_layer);
                if (wl->site[ARP_WL_SITE_FIRST_SCORES] == SIZE_MAX)
                    wl->site[ARP_WL_SITE_FIRST_SCORES] = l;
            } else {
                l = LAUNCH("attention_softmax_v", st->ph[PH_SOFTMAX],
                           arp_wl_p(wl, st->pl[PL_SCORES], at * score_row),
                           kv + s * tf->slot_bytes + v_part, arp_wl_p(wl, st->pl[PL_CTX], at * row),
                           lengths[s], q);
                per_layer(wl, l, 1, kv_layer);
                per_layer(wl, l, 2, (int64_t)st->slice[PL_CTX]);
            }
            at += q;
        }
    }
    l = LAUNCH("gemm_residual", st->ph[PH_OUT], arp_wl_p(wl, st->pl[PL_CTX], 0), bank + d->off_wo,
               res, rows, d->d, d->d);
    per_layer(wl, l, 0, (int64_t)st->slice[PL_CTX]);
    per_layer(wl, l, 1, S);
    arp_tf_per_micro(wl, st, l, 2, row);
    l = LAUNCH("rmsnorm", st->ph[PH_LN2], res, bank + d->off_ln2, arp_wl_p(wl, st->pl[PL_X2], 0),
               rows, d->d);
    arp_tf_per_micro(wl, st, l, 0, row);
    per_layer(wl, l, 1, S);
    per_layer(wl, l, 2, (int64_t)st->slice[PL_X2]);

    if (st->per_expert) {
        l = LAUNCH("router_topk", st->ph[PH_ROUTER], arp_wl_p(wl, st->pl[PL_X2], 0),
                   bank + d->off_router, arp_wl_p(wl, st->pl[PL_ROUTE], 0), rows, d->experts,
                   d->top_k);
        per_layer(wl, l, 1, S);
        emit_routed_experts(wl, st, experts, rows);
    } else if (st->moe) {
        l = LAUNCH("router_topk", st->ph[PH_ROUTER], arp_wl_p(wl, st->pl[PL_X2], 0),
                   bank + d->off_router, arp_wl_p(wl, st->pl[PL_ROUTE], 0), rows, d->experts,
                   d->top_k);
        per_layer(wl, l, 1, S);
        /* Experts: the batch's routing table picks top_k experts; each expert launch is the
         * body of a frames repeat over the routed slots (frame k: expert experts[k], hidden
         * slot k), nested in the layers repeat (deltas: the next layer's experts). The expert
         * weight word is so named by two repeats and takes the hull over the expert bank. */
        int64_t expert_layer = (int64_t)d->expert_layer;
        uint64_t experts_bank = arp_wl_g(wl, tf->g_experts, 0);
        uint64_t h_slot = st->rows * d->ffn_max * ARP_WL_BF16;
        for (int down = 0; down < 2; ++down) {
            if (!down)
                l = LAUNCH("expert_up", st->ph[PH_UP], arp_wl_p(wl, st->pl[PL_X2], 0), experts_bank,
                           arp_wl_p(wl, st->pl[PL_H], 0), arp_wl_p(wl, st->pl[PL_ROUTE], 0), rows,
                           d->d, d->ffn_max);
            else
                l = LAUNCH("expert_down", st->ph[PH_DOWN], arp_wl_p(wl, st->pl[PL_H], 0),
                           experts_bank + d->expert_down[0], res, arp_wl_p(wl, st->pl[PL_ROUTE], 0),
                           rows, d->ffn_max, d->d);
            per_layer(wl, l, 1, expert_layer);
            routing_t routing = {l, down ? 0 : 2, down != 0, experts, d, h_slot};
            arp_wl_repeat_each(wl, l, 1, d->top_k, 2, routing_frame, &routing);
        }
    } else {
        l = LAUNCH("gemm", st->ph[PH_UP], arp_wl_p(wl, st->pl[PL_X2], 0), bank + d->off_wup,
                   arp_wl_p(wl, st->pl[PL_H], 0), rows, d->d, d->up);
        per_layer(wl, l, 0, (int64_t)st->slice[PL_X2]);
        per_layer(wl, l, 1, S);
        per_layer(wl, l, 2, (int64_t)st->slice[PL_H]);
        l = LAUNCH(wl->model->gated ? "silu_mul" : "gelu", st->ph[PH_ACT],
                   arp_wl_p(wl, st->pl[PL_H], 0), arp_wl_p(wl, st->pl[PL_A], 0), rows * d->ffn);
        per_layer(wl, l, 0, (int64_t)st->slice[PL_H]);
        l = LAUNCH("gemm_residual", st->ph[PH_DOWN], arp_wl_p(wl, st->pl[PL_A], 0),
                   bank + d->off_wdown, res, rows, d->ffn, d->d);
        per_layer(wl, l, 1, S);
        arp_tf_per_micro(wl, st, l, 2, row);
    }
    return first;
}

/* The layers repeat around one emitted layer: deltas, or (moe) frames drawn from the routing
 * table. Returns the repeat's index. */
size_t arp_tf_emit_layers(arp_wl_t *wl, arp_tf_stage_t const *st, uint64_t const *lengths) {
    arp_tf_t *tf = ARP_TF(wl);
    uint64_t experts[64] = {0};
    if (st->moe) { /* this batch's routing table: top_k distinct experts */
        uint64_t k = tf->dims.top_k < 64 ? tf->dims.top_k : 64, E = tf->dims.experts;
        for (uint64_t j = 0; j < k; ++j) {
            uint64_t e = arp_wl_random(wl) % E;
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
    size_t index = arp_wl_repeat_deltas(wl, 1, first, wl->launches_count - first, wl->layers);
    if (wl->layer_repeat == SIZE_MAX) wl->layer_repeat = index;
    return index;
}

void arp_tf_emit_embed(arp_wl_t *wl, arp_tf_stage_t const *st, uint64_t rows) {
    arp_tf_t *tf = ARP_TF(wl);
    size_t l = LAUNCH("embedding", st->ph[PH_EMBED], arp_wl_g(wl, tf->g_tokens, 0),
                      arp_wl_g(wl, tf->g_embed, 0), arp_tf_residual(wl, st),
                      arp_wl_p(wl, st->pl[PL_MASK], 0), rows, tf->dims.d);
    arp_tf_per_micro(wl, st, l, 0, 4);
    arp_tf_per_micro(wl, st, l, 2, tf->dims.d * ARP_WL_BF16);
}

size_t arp_tf_emit_head(arp_wl_t *wl, arp_tf_stage_t const *st) {
    arp_tf_t *tf = ARP_TF(wl);
    arp_tf_dims_t const *d = &tf->dims;
    LAUNCH("rmsnorm", st->ph[PH_LNF], arp_tf_residual(wl, st), arp_wl_g(wl, tf->g_head, 0),
           arp_wl_p(wl, st->pl[PL_XF], 0), wl->batch, d->d);
    size_t head = LAUNCH("gemm", st->ph[PH_HEAD], arp_tf_residual(wl, st),
                         arp_wl_g(wl, tf->g_head, 0), arp_wl_p(wl, st->pl[PL_XF], 0),
                         arp_wl_p(wl, st->pl[PL_LOGITS], 0), wl->batch, d->d, d->vocab);
    LAUNCH("sample", st->ph[PH_SAMPLE], arp_wl_p(wl, st->pl[PL_LOGITS], 0),
           arp_wl_g(wl, tf->g_tokens, 0), wl->batch, d->vocab, wl->seed);
    return head;
}

/* The phases the D faults use: a ghost carried plane goes to the first stage's qkv phase; a
 * clobbering plane to its ln1 phase, which runs between the embedding (which declares "mask")
 * and the first scores launch (which carries it). */
void arp_tf_fault_phases(arp_wl_t *wl) {
    arp_tf_t *tf = ARP_TF(wl);
    wl->ghost_phase = tf->first.ph[PH_QKV];
    wl->clobber_phase = tf->first.ph[PH_LN1];
    /* The phase that reads what the family's fault kind left: qkv reads the scaled norm, ln2
     * the stream after the attention's add. */
    uint64_t kind = wl->family->in_place_fault & wl->in_place;
    wl->read_after_phase = kind == AR_WORKLOAD_IN_PLACE_NORM       ? tf->first.ph[PH_QKV]
                           : kind == AR_WORKLOAD_IN_PLACE_RESIDUAL ? tf->first.ph[PH_LN2]
                                                                   : -1;
}

void arp_tf_reads_residual(arp_wl_t *wl, arp_tf_stage_t const *st, int phase) {
    if (st->pl[PL_RES] >= 0) arp_wl_plane(wl, phase, wl->planes[st->pl[PL_RES]].name, 0, true);
}

uint64_t arp_tf_residual(arp_wl_t const *wl, arp_tf_stage_t const *st) {
    return st->pl[PL_RES] >= 0 ? arp_wl_p(wl, st->pl[PL_RES], 0)
                               : arp_wl_g(wl, ARP_TF(wl)->g_residual, 0);
}

void arp_tf_globals(arp_wl_t *wl, uint64_t residual_rows) {
    arp_tf_t *tf = ARP_TF(wl);
    arp_tf_dims_t const *d = &tf->dims;
    uint64_t L = wl->layers;
    tf->g_embed = arp_wl_global(wl, "params_embed", d->vocab * d->d * ARP_WL_BF16, 0);
    /* A guard gap after the layer bank: a walk one step too far lands in it, in no range. */
    tf->g_layers = arp_wl_global(wl, "params_layers", L * d->stride,
                                 arp_wl_align(L + 65536, ARP_WL_ALIGNMENT));
    wl->layers_global = tf->g_layers;
    wl->layer_stride = d->stride;
    tf->g_experts = -1;
    if (tf->moe) {
        tf->g_experts = arp_wl_global(wl, "params_experts", L * d->expert_layer, 0);
        wl->expert_stride = d->expert_size;
    }
    tf->g_head =
        arp_wl_global(wl, "params_head", d->vocab * d->d * ARP_WL_BF16 + d->d * ARP_WL_BF16, 0);
    tf->residual_rows = residual_rows;
    tf->g_residual = -1; /* in place, the stream is a plane of each stage */
    if (!(wl->in_place & AR_WORKLOAD_IN_PLACE_RESIDUAL))
        tf->g_residual = arp_wl_global(wl, "residual", residual_rows * d->d * ARP_WL_BF16, 0);
    tf->g_tokens = arp_wl_global(wl, "tokens", residual_rows * 4, 0);
}
