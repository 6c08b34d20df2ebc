/* The model shapes, from their public configurations, and the preset names: the tables behind
 * ar_workload_models() and ar_workload_presets(), so a name is spelled in one place. */
#include <string.h>

#include "wl.h"

/* layers, d_model, heads, kv heads, FFN, vocabulary, experts, top-k, gated MLP */
static arp_wl_model_t const models[] = {
    {"gpt2-small", 12, 768, 12, 12, 3072, 50257, 0, 0, false},
    {"gpt2-xl", 48, 1600, 25, 25, 6400, 50257, 0, 0, false},
    {"llama2-7b", 32, 4096, 32, 32, 11008, 32000, 0, 0, true},
    {"llama2-70b", 80, 8192, 64, 8, 28672, 32000, 0, 0, true},
    {"mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 8, 2, true},
    {"gpt3-175b", 96, 12288, 96, 96, 49152, 50257, 0, 0, false},
};

static char const *const model_names[] = {"gpt2-small",   "gpt2-xl",   "llama2-7b", "llama2-70b",
                                          "mixtral-8x7b", "gpt3-175b", NULL};
static char const *const preset_names[ARP_WL_PRESETS + 1] = {"tiny", "small", "medium", "large",
                                                             NULL};

char const *const *ar_workload_models(void) { return model_names; }
char const *const *ar_workload_presets(void) { return preset_names; }

static int index_of(char const *const *names, char const *name) {
    if (!name) return -1;
    for (int i = 0; names[i]; ++i)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

arp_wl_model_t const *arp_wl_find_model(char const *name) {
    int i = index_of(model_names, name);
    return i < 0 ? NULL : &models[i];
}

int arp_wl_preset_index(char const *name) { return index_of(preset_names, name); }
