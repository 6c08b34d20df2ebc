/* The encoder family, BERT-like: embedding, layers, pooler. `epochs` bodies are written, one per
 * shape bucket (each with its own sequence lengths), and each batch of the schedule references
 * the body of the bucket its shape falls in. */
#include <stdlib.h>

#include "transformer.h"

static void declare(arp_wl_t *wl) {
    arp_tf_t *tf = arp_tf_begin(wl, sizeof(arp_tf_t), false);
    if (!tf) return;
    uint64_t B = wl->batch, T = wl->seq;
    arp_tf_globals(wl, B * T);
    arp_tf_declare_stage(wl, &tf->first, "enc", T, false, false, false, false, false);
    int pool = arp_wl_phase(wl, "enc.pool");
    arp_wl_plane(wl, pool, "enc.pooled", B * tf->dims.d * ARP_WL_BF16, false);
    tf->first.ph[PH_HEAD] = pool;
    arp_tf_reads_residual(wl, &tf->first, pool);
    arp_tf_fault_phases(wl);
}

static void emit(arp_wl_t *wl) {
    arp_tf_t *tf = ARP_TF(wl);
    arp_tf_stage_t const *st = &tf->first;
    uint64_t B = wl->batch, E = wl->epochs;
    uint64_t *lengths = malloc(B * sizeof *lengths);
    size_t *firsts = malloc(E * sizeof *firsts), *counts = malloc(E * sizeof *counts);
    if (!lengths || !firsts || !counts) {
        arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory");
    } else {
        for (uint64_t e = 0; e < E; ++e) {
            arp_tf_draw_lengths(wl, lengths, wl->seq / 4);
            uint64_t rows = 0;
            for (uint64_t s = 0; s < B; ++s) rows += lengths[s];
            firsts[e] = wl->launches_count;
            arp_tf_emit_embed(wl, st, rows);
            arp_tf_emit_layers(wl, st, lengths);
            size_t pool = LAUNCH(
                "pool", st->ph[PH_HEAD], arp_tf_residual(wl, st), arp_wl_g(wl, tf->g_head, 0),
                arp_wl_p(wl, arp_wl_plane_index(wl, "enc.pooled"), 0), B, tf->dims.d);
            if (wl->site[ARP_WL_SITE_VICTIM] == SIZE_MAX) wl->site[ARP_WL_SITE_VICTIM] = pool;
            counts[e] = wl->launches_count - firsts[e];
        }
        /* Bucketed serving: each batch runs the body of the bucket its shape falls in. */
        for (uint64_t t = 0; t < wl->decode; ++t) {
            uint64_t e = t < E ? t : arp_wl_random(wl) % E;
            arp_wl_reference(wl, firsts[e], counts[e]);
        }
    }
    free(lengths);
    free(firsts);
    free(counts);
}

/* Presets: model, layers (0: the model's), batch, seq, decode (batches), epochs (buckets),
 * micro. */
arp_wl_family_t const arp_wl_family_encoder = {
    .name = "encoder",
    .presets = {{"gpt2-small", 2, 4, 8, 2, 2, 0, 0, 0},
                {"gpt2-small", 0, 8, 128, 16, 2, 0, 0, 0},
                {"gpt2-xl", 0, 32, 512, 256, 16, 0, 0, 0},
                {"gpt2-xl", 0, 256, 512, 50000, 4000, 0, 0, 0}},
    .declare = declare,
    .emit = emit,
    .in_place = AR_WORKLOAD_IN_PLACE_NORM | AR_WORKLOAD_IN_PLACE_RESIDUAL,
    .in_place_fault = AR_WORKLOAD_IN_PLACE_NORM,
};
