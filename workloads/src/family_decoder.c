/* The decoder family: prefill once (embedding, layers, final norm, LM head, sampling), then per
 * epoch a decode body referenced once per generated token (continuous batching: each epoch's
 * batch has its own context lengths). The KV cache holds every layer and slot: a persistent
 * plane prefill's scores phase declares and every decode scores/softmax phase carries. Paged
 * over epochs (kv_page, epochs > 1), requests come and go as in a serving runtime: each wave of
 * epochs admits requests into the slots finished ones free, and each group of requests admitted
 * together and finishing together holds its own pages, live from its wave to its last, so page
 * planes of uneven sizes start and end at different waves. The moe family (family_moe.c) is
 * this with the MLP replaced by routed experts. */
#include <stdio.h>
#include <stdlib.h>

#include "transformer.h"

/* The decoder's state: with paged waves, each wave's phase and the page planes it names. */
typedef struct decoder_t {
    arp_tf_t tf;
    uint64_t waves; /* 0: no waves */
    int wave_phase[ARP_WL_MAX_KV_WAVES], wave_count[ARP_WL_MAX_KV_WAVES];
    int wave_planes[ARP_WL_MAX_KV_WAVES][2 * ARP_WL_KV_SPAN];
    uint64_t wave_layer[ARP_WL_MAX_KV_WAVES][2 * ARP_WL_KV_SPAN];
} decoder_t;

/* How many waves the request admitted into `slot` at `wave` runs (1 to ARP_WL_KV_SPAN), from a
 * hash of the seed (the generation's stream keeps its draws). */
static uint64_t request_waves(arp_wl_t const *wl, uint64_t slot, uint64_t wave) {
    uint64_t h = arp_wl_mix(wl->seed ^ (0xbf58476d1ce4e5b9ull * (slot * 64 + wave + 1)));
    return 1 + h % ARP_WL_KV_SPAN;
}

/* The prompt of the request admitted into `slot` at `wave` > 0, in tokens (seq/2 to seq, from
 * a hash of the seed); wave 0's requests are the prefilled batch, whose prompts are kv_cache. */
static uint64_t request_prompt(arp_wl_t const *wl, uint64_t slot, uint64_t wave) {
    if (wave == 0) return 0;
    uint64_t h = arp_wl_mix(wl->seed ^ (0x94d049bb133111ebull * (slot * 64 + wave + 1)));
    return wl->seq / 2 + h % (wl->seq - wl->seq / 2 + 1);
}

/* Bytes past 2^56 (the plane refuses them) stay past it, never wrap. */
static uint64_t capped(arp_u128_t bytes) {
    return bytes > ARP_WL_MAX_TENSOR ? ARP_WL_MAX_TENSOR + 1 : (uint64_t)bytes;
}

/* The name of the page plane of the requests admitted at wave `from` and done before `to`. */
static void group_name(char *buffer, uint64_t from, uint64_t to) {
    snprintf(buffer, 32, "kv_pages.%d.%d", (int)from, (int)to);
}

/* Paged over epochs: the epochs fall into waves (at most ARP_WL_MAX_KV_WAVES). Every slot
 * admits a request at wave 0 and again each time its request finishes; the requests admitted
 * at one wave that finish at one wave form a group, whose pages (each request's tokens rounded
 * up to whole pages, every layer) are its own plane: declared by the admitting wave's phase and
 * carried by the later ones it runs through. A request's tokens are those it decodes, plus,
 * after wave 0, its prompt (its prefill is not in the plan). The decode stage's planes serve
 * every wave, so they live to the end (persistent); the pages interleave above them. */
static void declare_waves(arp_wl_t *wl, decoder_t *dc) {
    arp_tf_dims_t const *d = &dc->tf.dims;
    uint64_t W = wl->epochs < ARP_WL_MAX_KV_WAVES ? wl->epochs : ARP_WL_MAX_KV_WAVES;
    uint64_t page = wl->kv_page, page_bytes = page * 2 * d->kv_dim * ARP_WL_BF16;
    uint64_t tokens = (wl->decode + W - 1) / W; /* a wave's share of the generated tokens */
    for (int p = dc->tf.second.ph[PH_EMBED]; p < wl->phases_count; ++p)
        for (int j = 0; j < wl->phases[p].count; ++j)
            arp_wl_persistent(wl, wl->phases[p].planes[j]);
    uint64_t pages[ARP_WL_MAX_KV_WAVES][ARP_WL_MAX_KV_WAVES + 1] = {{0}};
    for (uint64_t s = 0; s < wl->batch; ++s)
        for (uint64_t w = 0, f; w < W; w = f) {
            f = w + request_waves(wl, s, w);
            if (f > W) f = W;
            pages[w][f] += (request_prompt(wl, s, w) + (f - w) * tokens + page - 1) / page;
        }
    char name[48];
    dc->waves = W;
    wl->kv_waves = W;
    wl->kv_groups = 0;
    for (uint64_t w = 0; w < W; ++w) {
        snprintf(name, sizeof name, "decode.pages.%d", (int)w);
        int phase = dc->wave_phase[w] = arp_wl_phase(wl, name);
        dc->wave_count[w] = 0;
        arp_wl_plane(wl, phase, "decode.qkv", 0, true);
        for (uint64_t from = w + 1 > ARP_WL_KV_SPAN ? w + 1 - ARP_WL_KV_SPAN : 0; from <= w; ++from)
            for (uint64_t to = w + 1; to <= W && to <= from + ARP_WL_KV_SPAN; ++to) {
                if (!pages[from][to]) continue;
                uint64_t layer = capped((arp_u128_t)pages[from][to] * page_bytes);
                uint64_t size = capped((arp_u128_t)layer * wl->layers);
                group_name(name, from, to);
                int k = dc->wave_count[w]++;
                dc->wave_planes[w][k] = arp_wl_plane(wl, phase, name, size, from < w);
                dc->wave_layer[w][k] = layer;
                if (from == w) ++wl->kv_groups;
            }
    }
}

void arp_decoder_declare(arp_wl_t *wl, bool moe) {
    decoder_t *dc = (decoder_t *)arp_tf_begin(wl, sizeof(decoder_t), moe);
    if (!dc) return;
    arp_tf_t *tf = &dc->tf;
    uint64_t T = wl->seq;
    arp_tf_globals(wl, wl->batch * T);
    arp_tf_declare_stage(wl, &tf->first, "prefill", T, false, true, false, true, moe);
    arp_tf_declare_stage(wl, &tf->second, "decode", 1, true, true, false, true, moe);
    arp_wl_loop(wl, tf->second.ph[PH_EMBED], tf->second.ph[PH_SAMPLE]);
    dc->waves = 0;
    if (wl->kv_page && wl->epochs > 1) declare_waves(wl, dc);
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
    decoder_t *dc = (decoder_t *)ARP_TF(wl);
    arp_tf_t *tf = &dc->tf;
    uint64_t B = wl->batch, E = wl->epochs;
    uint64_t *lengths = malloc(B * sizeof *lengths);
    size_t *firsts = malloc(E * sizeof *firsts), *counts = malloc(E * sizeof *counts);
    if (!lengths || !firsts || !counts) {
        arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
    } else {
        arp_tf_stage_t const *pre = &tf->first;
        arp_tf_stage_t *dec = &tf->second;
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
            if (dc->waves) { /* this epoch's wave: its phase and the pages it appends to */
                uint64_t w = e * dc->waves / E;
                dec->pages_phase = dc->wave_phase[w];
                dec->pages_count = dc->wave_count[w];
                for (int k = 0; k < dc->wave_count[w]; ++k) {
                    dec->pages[k] = dc->wave_planes[w][k];
                    dec->pages_layer[k] = dc->wave_layer[w][k];
                }
            }
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

/* Presets: model, layers (0: the model's), batch, seq, decode (tokens), epochs, micro, and
 * the flat family's ops and globals (0 here). */
arp_wl_family_t const arp_wl_family_decoder = {
    .name = "decoder",
    .presets = {{"gpt2-small", 2, 2, 8, 2, 1, 0, 0, 0},
                {"gpt2-small", 0, 4, 64, 16, 2, 0, 0, 0},
                {"llama2-7b", 0, 32, 1024, 256, 16, 0, 0, 0},
                {"llama2-70b", 0, 256, 4096, 30000, 4000, 0, 0, 0}},
    .declare = declare,
    .emit = arp_decoder_emit,
    .in_place = AR_WORKLOAD_IN_PLACE_NORM | AR_WORKLOAD_IN_PLACE_RESIDUAL | AR_WORKLOAD_IN_PLACE_KV,
    .in_place_fault = AR_WORKLOAD_IN_PLACE_NORM,
};
