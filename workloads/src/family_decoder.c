/* The decoder family: prefill once (embedding, layers, final norm, LM head, sampling), then per
 * epoch a decode body referenced once per generated token (continuous batching: each epoch's
 * batch has its own context lengths). The KV cache holds every layer and slot: a persistent
 * plane prefill's scores phase declares and every decode scores/softmax phase carries. The moe
 * family (family_moe.c) is this with the MLP replaced by routed experts. */
#include <stdlib.h>

#include "transformer.h"

void arp_decoder_declare(arp_wl_t *wl, bool moe) {
    arp_tf_t *tf = arp_tf_begin(wl, sizeof(arp_tf_t), moe);
    if (!tf) return;
    uint64_t T = wl->seq;
    arp_tf_globals(wl, wl->batch * T);
    arp_tf_declare_stage(wl, &tf->first, "prefill", T, false, true, false, true, moe);
    arp_tf_declare_stage(wl, &tf->second, "decode", 1, true, true, false, true, moe);
    arp_wl_loop(wl, tf->second.ph[PH_EMBED], tf->second.ph[PH_SAMPLE]);
    arp_tf_fault_phases(wl);
}

static void declare(arp_wl_t *wl) { arp_decoder_declare(wl, false); }

/* Distribute `references` over `bodies` in order (a decode epoch runs its tokens, then the next
 * epoch's batch takes over). */
static void reference_epochs(arp_wl_t *wl, size_t const *firsts, size_t const *counts,
                             uint64_t bodies, uint64_t references) {
    for (uint64_t e = 0; e < bodies; ++e) {
        uint64_t n = references / bodies + (e < references % bodies ? 1 : 0);
        for (uint64_t t = 0; t < n; ++t) arp_wl_reference(wl, firsts[e], counts[e]);
    }
}

void arp_decoder_emit(arp_wl_t *wl) {
    arp_tf_t *tf = ARP_TF(wl);
    uint64_t B = wl->batch, E = wl->epochs;
    uint64_t *lengths = malloc(B * sizeof *lengths);
    size_t *firsts = malloc(E * sizeof *firsts), *counts = malloc(E * sizeof *counts);
    if (!lengths || !firsts || !counts) {
        arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
    } else {
        arp_tf_stage_t const *pre = &tf->first, *dec = &tf->second;
        arp_tf_draw_lengths(wl, lengths, wl->seq / 2);
        uint64_t rows = 0;
        for (uint64_t s = 0; s < B; ++s) rows += lengths[s];
        arp_tf_emit_embed(wl, pre, rows);
        arp_tf_emit_layers(wl, pre, lengths);
        wl->site[ARP_WL_SITE_VICTIM] = arp_tf_emit_head(wl, pre);
        arp_wl_reference(wl, 0, wl->launches_count);
        for (uint64_t e = 0; e < E; ++e) {
            arp_tf_draw_lengths(wl, lengths, 1); /* context lengths of this epoch's batch */
            firsts[e] = wl->launches_count;
            arp_tf_emit_embed(wl, dec, B);
            arp_tf_emit_layers(wl, dec, lengths);
            arp_tf_emit_head(wl, dec);
            counts[e] = wl->launches_count - firsts[e];
        }
        reference_epochs(wl, firsts, counts, E, wl->decode);
    }
    free(lengths);
    free(firsts);
    free(counts);
}

/* Presets: model, layers (0: the model's), batch, seq, decode (tokens), epochs, micro. */
arp_wl_family_t const arp_wl_family_decoder = {
    .name = "decoder",
    .presets = {{"gpt2-small", 2, 2, 8, 2, 1, 0},
                {"gpt2-small", 0, 4, 64, 16, 2, 0},
                {"llama2-7b", 0, 32, 1024, 256, 16, 0},
                {"llama2-70b", 0, 256, 4096, 30000, 4000, 0}},
    .declare = declare,
    .emit = arp_decoder_emit,
};
