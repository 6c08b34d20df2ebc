/* The moe family: the decoder (family_decoder.c) with the MLP replaced by a router and top-k
 * experts (Mixtral: 8, top 2). Each expert launch is the body of a frames repeat over the
 * routed slots (the batch's routing table, drawn from the seed), nested in the layers repeat,
 * so expert words are named by frames and by deltas and take the hull over params_experts. */
#include "transformer.h"

static void declare(arp_wl_t *wl) { arp_decoder_declare(wl, true); }

/* Presets: model, layers (0: the model's), batch, seq, decode (tokens), epochs, micro. */
arp_wl_family_t const arp_wl_family_moe = {
    .name = "moe",
    .presets = {{"mixtral-8x7b", 2, 2, 8, 2, 1, 0, 0, 0},
                {"mixtral-8x7b", 12, 4, 64, 16, 2, 0, 0, 0},
                {"mixtral-8x7b", 0, 32, 1024, 256, 16, 0, 0, 0},
                {"mixtral-8x7b", 0, 256, 4096, 64000, 4000, 0, 0, 0}},
    .needs_experts = true,
    .declare = declare,
    .emit = arp_decoder_emit,
    .in_place = AR_WORKLOAD_IN_PLACE_NORM | AR_WORKLOAD_IN_PLACE_RESIDUAL | AR_WORKLOAD_IN_PLACE_KV,
    .in_place_fault = AR_WORKLOAD_IN_PLACE_NORM,
};
