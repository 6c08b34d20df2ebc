/* The transformer layer every family builds from (transformer.c): a stage's phases and planes,
 * the layer's launches inside the layers repeat, the embedding and the head. A family's state
 * starts with an arp_tf_t (arp_tf_begin allocates it, with room for the family's own fields). */
#ifndef ARENAREF_TRANSFORMER_H
#define ARENAREF_TRANSFORMER_H

#include "wl.h"

/* A stage's phases and planes, by role. */
enum {
    PH_EMBED,
    PH_LN1,
    PH_LN1_SCALE, /* in place: the norm's scale, written over its input */
    PH_QKV,
    PH_KV_STORE, /* in place: a decode layer writes the token's keys and values into the cache */
    PH_SCORES,
    PH_SOFTMAX,
    PH_OUT,
    PH_LN2,
    PH_UP,
    PH_ACT,
    PH_DOWN,
    PH_ROUTER,
    PH_LNF,
    PH_HEAD,
    PH_SAMPLE,
    PH_COUNT
};
enum {
    PL_MASK,
    PL_X1,
    PL_QKV,
    PL_SCORES,
    PL_CTX,
    PL_X2,
    PL_H,
    PL_A,
    PL_KV,
    PL_ROUTE,
    PL_XF,
    PL_LOGITS,
    PL_STASH,
    PL_PAGES,
    PL_X1_SCALED, /* in place: the scaled norm over x_norm1's bytes */
    PL_RES,       /* in place: the residual stream, a plane of the stage */
    PL_RES_ATTN,  /* in place: the stream after the attention's add, over resid's bytes */
    PL_COUNT
};

#define ARP_TF_MAX_EXPERTS 64

typedef struct arp_tf_dims_t {
    uint64_t d, kv_dim, heads, ffn, up, vocab, experts, top_k;
    uint64_t off_ln1, off_wqkv, off_wo, off_ln2, off_wup, off_wdown, off_router, stride;
    uint64_t expert_up, expert_size; /* moe: the widest expert's w_down offset and size */
    /* moe: expert e's FFN width, its offset in a layer's experts and its w_down offset from
     * there; one layer's experts span expert_layer bytes (all equal without expert skew). */
    uint64_t expert_ffn[ARP_TF_MAX_EXPERTS], expert_off[ARP_TF_MAX_EXPERTS];
    uint64_t expert_down[ARP_TF_MAX_EXPERTS], expert_layer, ffn_max;
} arp_tf_dims_t;

typedef struct arp_tf_stage_t {
    int ph[PH_COUNT];
    int pl[PL_COUNT];
    uint64_t slice[PL_COUNT]; /* a plane walked per layer: its slice; 0: one layer's worth */
    uint64_t tokens;          /* tokens per sequence this stage computes (1 when decoding) */
    uint64_t rows;            /* token rows the planes hold: batch x tokens */
    bool kv_layers;           /* the KV cache holds every layer (walked per layer) */
    bool moe;
    uint64_t outer_rows; /* pipeline: residual rows one micro-batch spans; 0 otherwise */
    /* pipeline: rows a layer's stash slice spans, and the layers a micro-batch's stash step
     * spans (micro-batch major: layers). */
    uint64_t stash_layer_rows, stash_micro_layers;
    int stash_phase; /* the phase of the stash copy: -1, ln1's; else a micro-batch's own */
    /* moe with expert skew: each expert's up and down phases and its hidden and activated
     * planes; the order the phases run in (e for expert e's up, ~e for its down) */
    int expert_up[ARP_WL_MAX_SKEWED_EXPERTS], expert_down[ARP_WL_MAX_SKEWED_EXPERTS];
    int expert_h[ARP_WL_MAX_SKEWED_EXPERTS], expert_a[ARP_WL_MAX_SKEWED_EXPERTS];
    int expert_order[2 * ARP_WL_MAX_SKEWED_EXPERTS];
    bool per_expert;
    /* decoder, paged KV over epochs: the running wave's phase (-1: none) and the page planes
     * it names, with the bytes one layer of each spans */
    int pages_phase, pages_count;
    int pages[2 * ARP_WL_KV_SPAN];
    uint64_t pages_layer[2 * ARP_WL_KV_SPAN];
} arp_tf_stage_t;

typedef struct arp_tf_t {
    arp_tf_dims_t dims;
    bool moe;
    int g_embed, g_layers, g_experts, g_head, g_residual, g_tokens;
    arp_tf_stage_t first, second; /* prefill & decode, forward & backward, or the only stage */
    uint64_t slot_bytes;          /* KV bytes of one sequence slot in one layer */
    uint64_t pages_bytes;         /* paged KV: one slot's decode pages in one layer (0: off) */
    uint64_t residual_rows;       /* token rows the residual stream holds */
} arp_tf_t;

/* The family's state lives in the generation (generations are independent, may run in
 * threads); it starts with an arp_tf_t. */
#define ARP_TF(wl) ((arp_tf_t *)(wl)->family_state)

/* Allocate the family's state (`size` bytes, at least an arp_tf_t) and the layer's dims. */
arp_tf_t *arp_tf_begin(arp_wl_t *wl, size_t size, bool moe);
/* The globals every family has: embedding, layer bank (with a guard gap), experts (moe), head,
 * residual stream and tokens, for `residual_rows` token rows. */
void arp_tf_globals(arp_wl_t *wl, uint64_t residual_rows);
/* One stage's phases in program order and their planes. `train` saves activations in per-layer
 * slices; `kv_layers` keeps a persistent every-layer KV cache; `head` adds the final norm, LM
 * head and sampling. */
void arp_tf_declare_stage(arp_wl_t *wl, arp_tf_stage_t *st, char const *prefix, uint64_t tokens,
                          bool decoding, bool kv_layers, bool train, bool head, bool moe);
/* The phases the D faults use, from the first stage. */
void arp_tf_fault_phases(arp_wl_t *wl);
/* In-place residual: `phase` (a stage's own, outside the layer's adds) reads the stream. */
void arp_tf_reads_residual(arp_wl_t *wl, arp_tf_stage_t const *st, int phase);
/* The residual stream's address: the stage's plane with in-place residual, else the global. */
uint64_t arp_tf_residual(arp_wl_t const *wl, arp_tf_stage_t const *st);

/* Per-sequence lengths for one body: prompt or context lengths, jittered by the seed. */
void arp_tf_draw_lengths(arp_wl_t *wl, uint64_t *lengths, uint64_t lo);
/* In a pipeline, word `word` of `launch` walks the micro-batches by `row_bytes` per row. */
void arp_tf_per_micro(arp_wl_t *wl, arp_tf_stage_t const *st, size_t launch, size_t word,
                      uint64_t row_bytes);
/* One layer inside the layers repeat (and, moe, its routing repeats); returns the repeat. */
size_t arp_tf_emit_layers(arp_wl_t *wl, arp_tf_stage_t const *st, uint64_t const *lengths);
void arp_tf_emit_embed(arp_wl_t *wl, arp_tf_stage_t const *st, uint64_t rows);
/* Final norm, LM head, sampling; returns the LM head launch. */
size_t arp_tf_emit_head(arp_wl_t *wl, arp_tf_stage_t const *st);

/* The decoder family's declaration and emission, which the moe family shares
 * (family_decoder.c). */
void arp_decoder_declare(arp_wl_t *wl, bool moe);
void arp_decoder_emit(arp_wl_t *wl);

/* A launch of the listed words, in a function with `wl` in scope. */
#define LAUNCH(kernel, phase, ...)                                                                 \
    arp_wl_launch(wl, kernel, phase, (uint64_t const[]){__VA_ARGS__},                              \
                  sizeof((uint64_t const[]){__VA_ARGS__}) / sizeof(uint64_t))

#endif
