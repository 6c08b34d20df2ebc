/* Names and tables: the model shapes (from the public configurations), the presets of each
 * family, and the fault list. Everything the CLI lists comes from here, so a name is spelled in
 * exactly one place. */
#include <string.h>

#include "wl_internal.h"

/* layers, d_model, heads, kv heads, FFN, vocabulary, experts, top-k, gated MLP */
static wl_model_t const models[] = {
    {"gpt2-small", 12, 768, 12, 12, 3072, 50257, 0, 0, false},
    {"gpt2-xl", 48, 1600, 25, 25, 6400, 50257, 0, 0, false},
    {"llama2-7b", 32, 4096, 32, 32, 11008, 32000, 0, 0, true},
    {"llama2-70b", 80, 8192, 64, 8, 28672, 32000, 0, 0, true},
    {"mixtral-8x7b", 32, 4096, 32, 8, 14336, 32000, 8, 2, true},
    {"gpt3-175b", 96, 12288, 96, 96, 49152, 50257, 0, 0, false},
};

static char const *const model_names[] = {"gpt2-small", "gpt2-xl",      "llama2-7b",
                                          "llama2-70b", "mixtral-8x7b", "gpt3-175b", NULL};
static char const *const family_names[] = {"decoder", "moe", "training", "pipeline", "encoder",
                                           NULL};
static char const *const preset_names[] = {"tiny", "small", "medium", "large", NULL};
static char const *const fault_names[] = {
    "overlapping-globals", "misaligned-plane",  "plane-over-global",
    "stray-pointer",       "other-phase-plane", "undeclared-phase",
    "delta-off-bank-last-layer", "carried-never-declared", "carried-clobbered",
    "pingpong-frames",     "two-repeat-word",   NULL};

/* Per family, per preset (tiny, small, medium, large). `decode` is the loop's schedule
 * references: generated tokens (decoder, moe), steps (training, pipeline), batches (encoder);
 * `epochs` the distinct bodies written for it (continuous batching's changing batches, bucketed
 * shapes); `layers` 0 keeps the model's. For the pipeline, `batch` is sequences per
 * micro-batch and the micro-batch count is wl_preset_t's fifth field below. */
typedef struct preset_row_t {
    wl_preset_t preset;
    uint64_t micro;
} preset_row_t;

static preset_row_t const presets[5][4] = {
    /* decoder */
    {{{"gpt2-small", 2, 2, 8, 2, 1}, 0},
     {{"gpt2-small", 0, 4, 64, 16, 2}, 0},
     {{"llama2-7b", 0, 32, 1024, 256, 16}, 0},
     {{"llama2-70b", 0, 256, 4096, 30000, 4000}, 0}},
    /* moe */
    {{{"mixtral-8x7b", 2, 2, 8, 2, 1}, 0},
     {{"mixtral-8x7b", 12, 4, 64, 16, 2}, 0},
     {{"mixtral-8x7b", 0, 32, 1024, 256, 16}, 0},
     {{"mixtral-8x7b", 0, 256, 4096, 64000, 4000}, 0}},
    /* training */
    {{{"gpt2-small", 2, 2, 8, 2, 1}, 0},
     {{"gpt2-small", 0, 4, 64, 4, 2}, 0},
     {{"llama2-7b", 0, 16, 512, 32, 8}, 0},
     {{"gpt3-175b", 0, 256, 2048, 14000, 2500}, 0}},
    /* pipeline */
    {{{"gpt2-small", 2, 4, 8, 2, 2}, 2},
     {{"gpt2-small", 0, 4, 64, 4, 2}, 4},
     {{"llama2-7b", 0, 8, 512, 32, 8}, 8},
     {{"gpt3-175b", 0, 256, 2048, 4000, 4000}, 16}},
    /* encoder */
    {{{"gpt2-small", 2, 4, 8, 2, 2}, 0},
     {{"gpt2-small", 0, 8, 128, 16, 2}, 0},
     {{"gpt2-xl", 0, 32, 512, 256, 16}, 0},
     {{"gpt2-xl", 0, 256, 512, 50000, 4000}, 0}},
};

char const *const *ar_workload_families(void) { return family_names; }
char const *const *ar_workload_faults(void) { return fault_names; }
char const *const *ar_workload_models(void) { return model_names; }
char const *const *ar_workload_presets(void) { return preset_names; }

static int index_of(char const *const *names, char const *name) {
    if (!name) return -1;
    for (int i = 0; names[i]; ++i)
        if (strcmp(names[i], name) == 0) return i;
    return -1;
}

int wl_family_index(char const *family) { return index_of(family_names, family); }
int wl_fault_index(char const *fault) { return index_of(fault_names, fault); }

wl_model_t const *wl_find_model(char const *name) {
    int i = index_of(model_names, name);
    return i < 0 ? NULL : &models[i];
}

bool wl_find_preset(char const *family, char const *preset, wl_preset_t *out) {
    int f = wl_family_index(family), p = index_of(preset_names, preset ? preset : "tiny");
    if (f < 0 || p < 0) return false;
    *out = presets[f][p].preset;
    return true;
}

uint64_t wl_preset_micro(char const *family, char const *preset) {
    int f = wl_family_index(family), p = index_of(preset_names, preset ? preset : "tiny");
    return f < 0 || p < 0 ? 0 : presets[f][p].micro;
}

/* Every fault applies to every family: each family has a layer bank walked by a repeat, an
 * embedding phase that declares the "mask" plane every attention-scores phase carries, and
 * phases with planes; the two precision probes bring their own repeats. Whether the plan is big
 * enough (two layers for delta-off-bank-last-layer) is checked when generating. */
bool ar_workload_fault_applies(char const *family, char const *fault) {
    return wl_family_index(family) >= 0 && wl_fault_index(fault) >= 0;
}
