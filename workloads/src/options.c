/* Options against the tables: the family, its preset, the model and the fault by name, each knob
 * from the options or else the preset, and the limits that keep every tensor below 2^56 bytes
 * and generation proportional to what is written. A refusal names the option and why. */
#include <stdio.h>
#include <string.h>

#include "arenaref/place.h"
#include "wl.h"

static ar_status_t refuse(ar_plan_error_t *error, char const *path, char const *message) {
    if (error) {
        memset(error, 0, sizeof *error);
        error->status = ar_status_invalid_argument_k;
        snprintf(error->path, sizeof error->path, "%s", path);
        snprintf(error->message, sizeof error->message, "%s", message);
    }
    return ar_status_invalid_argument_k;
}

/* "a, b or c" from a NULL-terminated list, into `text`. */
static void list_names(char const *const *names, char *text, size_t size) {
    size_t used = 0, count = 0;
    while (names[count]) ++count;
    text[0] = '\0';
    for (size_t i = 0; i < count && used < size; ++i) {
        char const *glue = i == 0 ? "" : i + 1 == count ? " or " : ", ";
        int n = snprintf(text + used, size - used, "%s%s", glue, names[i]);
        if (n > 0) used += (size_t)n;
    }
}

/* The limits (the presets sit far below them); NULL when the knobs are within them. */
static char const *over_limit(arp_wl_t const *wl) {
    arp_u128_t tokens = (arp_u128_t)wl->batch * wl->seq;
    if (wl->layers > 1024) return "layers must be at most 1024";
    if (wl->batch > (1u << 20)) return "batch must be at most 1048576";
    if (wl->seq > (1u << 24)) return "seq must be at most 16777216";
    if (tokens > (1ull << 32)) return "batch x seq must be at most 2^32 tokens";
    if (wl->micro > 4096) return "micro must be at most 4096";
    if (tokens * wl->micro * wl->layers > (1ull << 40))
        return "micro x layers x batch x seq must be at most 2^40";
    if (wl->decode > (1u << 24)) return "decode must be at most 16777216 references";
    if ((arp_u128_t)wl->epochs * (wl->batch + 16) > (1u << 26))
        return "epochs x (batch + 16) must be at most 2^26 (the launches written)";
    if (wl->micro_skew && (arp_u128_t)wl->micro * wl->epochs * (wl->batch + 16) > (1u << 26))
        return "with micro skew, micro x epochs x (batch + 16) must be at most 2^26";
    return NULL;
}

static char const *const kind_names[] = {"norm", "residual", "kv", "elementwise", "all"};
enum { KINDS = sizeof kind_names / sizeof *kind_names };

bool ar_workload_in_place_parse(char const *text, uint64_t *kinds) {
    if (!text || !kinds || !*text) return false;
    uint64_t bits = 0;
    for (char const *at = text;;) {
        size_t length = strcspn(at, ",");
        int k = 0;
        while (k < KINDS && (strlen(kind_names[k]) != length || strncmp(at, kind_names[k], length)))
            ++k;
        if (k == KINDS) return false; /* unknown, or empty between commas */
        bits |= 1ull << k;
        if (!at[length]) break;
        at += length + 1;
    }
    *kinds = bits;
    return true;
}

void ar_workload_in_place_name(uint64_t kinds, char *text, size_t size) {
    size_t used = 0;
    if (size) text[0] = '\0';
    for (int k = 0; k < KINDS; ++k)
        if (kinds & (1ull << k)) {
            int n = snprintf(text + used, size - used, "%s%s", used ? "," : "", kind_names[k]);
            if (n < 0 || (size_t)n >= size - used) return;
            used += (size_t)n;
        }
}

/* The in-place kinds this plan makes: those asked for (all: every kind the family takes that
 * combines with the other knobs), and the family's fault kind when the fault reads an updated
 * input. A kind the family does not take, or that the other knobs exclude, is refused. */
static ar_status_t in_place_kinds(ar_workload_options_t const *options,
                                  arp_wl_family_t const *family, arp_wl_fault_t const *fault,
                                  arp_wl_t *wl, ar_plan_error_t *error) {
    char message[256], names[64];
    uint64_t asked = options->in_place;
    if (asked >> KINDS)
        return refuse(error, "in_place",
                      "in_place is a set of AR_WORKLOAD_IN_PLACE_* bits (norm 1, residual 2, kv 4, "
                      "elementwise 8, all 16)");
    uint64_t excluded = 0; /* kinds the other knobs rule out */
    if (options->expert_skew) excluded |= AR_WORKLOAD_IN_PLACE_RESIDUAL;
    if (options->kv_page) excluded |= AR_WORKLOAD_IN_PLACE_KV;
    uint64_t kinds = asked & ~(uint64_t)AR_WORKLOAD_IN_PLACE_ALL;
    if (kinds & ~family->in_place) {
        char taken[64];
        ar_workload_in_place_name(kinds & ~family->in_place, names, sizeof names);
        ar_workload_in_place_name(family->in_place, taken, sizeof taken);
        snprintf(message, sizeof message,
                 "in-place %s does not apply to the %s family (it takes %s)", names, family->name,
                 family->in_place ? taken : "none");
        return refuse(error, "in_place", message);
    }
    if (kinds & excluded)
        return refuse(error, "in_place",
                      kinds & excluded & AR_WORKLOAD_IN_PLACE_RESIDUAL
                          ? "in-place residual does not combine with expert skew (each routed "
                            "expert adds into the residual in a phase of its own)"
                          : "in-place kv does not combine with kv_page (a paged cache appends to "
                            "pages of its own)");
    if (asked & AR_WORKLOAD_IN_PLACE_ALL) kinds |= family->in_place & ~excluded;
    if (fault && fault->in_place) kinds |= family->in_place_fault;
    wl->in_place = kinds;
    return ar_status_success_k;
}

ar_status_t arp_wl_resolve(ar_workload_options_t const *options, arp_wl_t *wl,
                           char const **preset_name, ar_plan_error_t *error) {
    char message[256], names[160];
    ar_status_t status;
    arp_wl_family_t const *family = options ? arp_wl_find_family(options->family) : NULL;
    if (!family) {
        list_names(ar_workload_families(), names, sizeof names);
        snprintf(message, sizeof message, "unknown family (expected %s)", names);
        return refuse(error, "family", message);
    }
    *preset_name = options->preset && options->preset[0] ? options->preset : "tiny";
    int p = arp_wl_preset_index(*preset_name);
    if (p < 0) {
        list_names(ar_workload_presets(), names, sizeof names);
        snprintf(message, sizeof message, "unknown preset (expected %s)", names);
        return refuse(error, "preset", message);
    }
    arp_wl_preset_t const *preset = &family->presets[p];
    char const *model_name = options->model && options->model[0] ? options->model : preset->model;
    arp_wl_model_t const *model = arp_wl_find_model(model_name);
    if (!model) {
        snprintf(message, sizeof message, "unknown model '%s' (see `arenacert gen --list`)",
                 model_name);
        return refuse(error, "model", message);
    }
    arp_wl_fault_t const *fault = NULL;
    if (options->fault && options->fault[0]) {
        fault = arp_wl_find_fault(options->fault);
        if (!fault) {
            snprintf(message, sizeof message, "unknown fault '%s' (see `arenacert gen --list`)",
                     options->fault);
            return refuse(error, "fault", message);
        }
        if (!ar_workload_fault_applies(family->name, options->fault)) {
            snprintf(message, sizeof message, "fault '%s' does not apply to the %s family",
                     options->fault, family->name);
            return refuse(error, "fault", message);
        }
    }
    if (family->needs_experts && model->experts < 2) {
        char const *with[16];
        size_t count = 0;
        for (char const *const *m = ar_workload_models(); *m && count < 15; ++m)
            if (arp_wl_find_model(*m)->experts >= 2) with[count++] = *m;
        with[count] = NULL;
        list_names(with, names, sizeof names);
        snprintf(message, sizeof message, "the %s family needs a model with experts (%s)",
                 family->name, names);
        return refuse(error, "model", message);
    }
    ar_place_strategy_t strategy = ar_place_greedy_by_size_k;
    if (options->strategy && options->strategy[0] &&
        !ar_place_strategy_from_name(options->strategy, &strategy)) {
        snprintf(message, sizeof message, "unknown strategy '%s' (see `arenacert place --list`)",
                 options->strategy);
        return refuse(error, "strategy", message);
    }
    if (options->recompute && strcmp(family->name, "training") != 0)
        return refuse(error, "recompute", "recompute applies to the training family only");
    if (options->recompute > 1) return refuse(error, "recompute", "recompute is 0 or 1");
    wl->recompute = options->recompute != 0;
    if (options->expert_skew && strcmp(family->name, "moe") != 0)
        return refuse(error, "expert_skew", "expert skew applies to the moe family only");
    if (options->expert_skew > 90 || model->experts > 64)
        return refuse(error, "expert_skew", "expert skew is a percent from 0 to 90");
    if (options->expert_skew && model->experts > ARP_WL_MAX_SKEWED_EXPERTS)
        return refuse(error, "expert_skew", "expert skew takes a model of at most 16 experts");
    wl->expert_skew = options->expert_skew;
    if (options->kv_page && strcmp(family->name, "decoder") != 0 &&
        strcmp(family->name, "moe") != 0)
        return refuse(error, "kv_page", "a paged KV cache applies to the decoder and moe only");
    wl->kv_page = options->kv_page;
    if (options->micro_skew && strcmp(family->name, "pipeline") != 0)
        return refuse(error, "micro_skew", "micro skew applies to the pipeline family only");
    if (options->micro_skew > 90)
        return refuse(error, "micro_skew", "micro skew is a percent from 0 to 90");
    wl->micro_skew = options->micro_skew;
    status = in_place_kinds(options, family, fault, wl, error);
    if (status) return status;
    bool flat = family->ranges != NULL;
    if ((options->ops || options->globals) && !flat)
        return refuse(error, options->ops ? "ops" : "globals",
                      "ops and globals apply to the flat family only");
    wl->ops = options->ops ? options->ops : preset->ops;
    wl->globals_wanted = options->globals ? options->globals : preset->globals;
    if (flat && (wl->ops < 1 || wl->ops > (1u << 22)))
        return refuse(error, "ops", "ops must be from 1 to 4194304");
    if (flat && wl->globals_wanted > (1u << 20))
        return refuse(error, "globals", "globals must be at most 1048576");
    wl->strategy = (int)strategy;
    wl->strategy_named = strategy != ar_place_greedy_by_size_k;
    wl->family = family;
    wl->fault = fault;
    wl->model = model;
    wl->layers = options->layers  ? options->layers
                 : preset->layers ? preset->layers
                                  : model->layers;
    wl->batch = options->batch ? options->batch : preset->batch;
    wl->seq = options->seq ? options->seq : preset->seq;
    wl->decode = options->decode ? options->decode : preset->decode;
    wl->epochs = options->epochs ? options->epochs : preset->epochs;
    wl->micro = options->micro ? options->micro : preset->micro;
    if (!wl->micro) wl->micro = 1;
    if (wl->epochs > wl->decode) wl->epochs = wl->decode; /* every body written is run */
    if (wl->kv_page > wl->seq) return refuse(error, "kv_page", "kv_page must be at most seq");
    if (wl->micro_skew && wl->micro > ARP_WL_MAX_SKEWED_MICRO)
        return refuse(error, "micro_skew", "micro skew takes at most 32 micro-batches");
    wl->seed = options->seed;
    wl->few = AR_CERTIFY_FEW_DEFAULT;
    char const *limit = over_limit(wl);
    if (!limit && fault && wl->layers < fault->min_layers) {
        snprintf(message, sizeof message, "%s needs at least %llu layers", fault->name,
                 (unsigned long long)fault->min_layers);
        limit = message;
    }
    return limit ? refuse(error, "options", limit) : ar_status_success_k;
}
