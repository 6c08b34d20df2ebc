/* ar_workload_generate: resolve the options against the preset and model, declare the family,
 * add the fault's extra planes or probe, place every plane, emit twice (count, then build into
 * reserved arrays), plant the fault's launch-level edits, and compute the verdict it must give
 * from the generator's own structure: the launch index it planted it at, or the executed phase
 * instance, counted arithmetically from the schedule (builder.c), never by certifying. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_internal.h"

enum {
    F_NONE = -1, F_OVERLAPPING_GLOBALS, F_MISALIGNED_PLANE, F_PLANE_OVER_GLOBAL, F_STRAY_POINTER,
    F_OTHER_PHASE_PLANE, F_UNDECLARED_PHASE, F_DELTA_OFF_BANK, F_CARRIED_NEVER_DECLARED,
    F_CARRIED_CLOBBERED, F_PINGPONG_FRAMES, F_TWO_REPEAT_WORD
};

static void set_error(ar_plan_error_t *error, ar_status_t status, char const *path,
                      char const *message) {
    if (!error) return;
    memset(error, 0, sizeof *error);
    error->status = status;
    snprintf(error->path, sizeof error->path, "%s", path);
    snprintf(error->message, sizeof error->message, "%s", message);
}

static void u128_text(unsigned __int128 value, char *out, size_t size) {
    char digits[48];
    int n = 0;
    do {
        digits[n++] = (char)('0' + (int)(value % 10));
        value /= 10;
    } while (value && n < 47);
    int i = 0;
    for (; i < n && (size_t)i + 1 < size; ++i) out[i] = digits[n - 1 - i];
    out[i] = '\0';
}

static uint64_t saturate(unsigned __int128 value) {
    return value > UINT64_MAX ? UINT64_MAX : (uint64_t)value;
}

/* ---- Probes: safe plans the interval hull rejects ---------------------------------------- */

typedef struct probe_t {
    int phase, a, b;
    size_t launch; /* the launch whose word the hull rejects */
} probe_t;

static void declare_probe(wl_t *wl, int fault, probe_t *probe) {
    if (fault == F_PINGPONG_FRAMES) {
        probe->phase = wl_phase(wl, "probe.pingpong");
        probe->a = wl_plane(wl, probe->phase, "probe.ping", 65536, false);
        probe->b = wl_plane(wl, probe->phase, "probe.pong", 65536, false);
    } else {
        probe->phase = wl_phase(wl, "probe.gather");
        probe->a = wl_plane(wl, probe->phase, "probe.stash_a", 65536, false);
        probe->b = wl_plane(wl, probe->phase, "probe.stash_b", 65536, false);
    }
}

/* Ping-pong: iteration i reads one buffer and writes the other, alternating through frames;
 * every value lies in ping or pong, but with more than `few` iterations the word's interval is
 * the hull from one buffer to the other. Two-repeat word: an outer repeat picks stash a or b,
 * an inner one walks inside it; two repeats name the word, so it gets the hull, which runs
 * from a into b. */
static void emit_probe(wl_t *wl, int fault, probe_t *probe) {
    uint64_t a = wl_p(wl, probe->a, 0), b = wl_p(wl, probe->b, 0);
    int64_t apart = (int64_t)(b - a);
    if (fault == F_PINGPONG_FRAMES) {
        uint64_t iterations = wl->few + 1 + 2 * wl->layers;
        uint64_t words[3] = {a, b, 65536};
        size_t l = wl_launch(wl, "pingpong_step", probe->phase, words, 3);
        probe->launch = l;
        ++wl->repeats_count;
        wl->shifts_count += 2 * iterations;
        if (!wl->counting && !wl->status) {
            ar_status_t status = ar_plan_add_repeat_frames(wl->plan, l, 1, iterations);
            for (uint64_t i = 0; !status && i < iterations; ++i) {
                int64_t flip = (i & 1) ? apart : 0;
                ar_shift_t frame[2] = {{l, 0, flip}, {l, 1, -flip}};
                status = ar_plan_add_frame(wl->plan, frame, 2);
            }
            if (status) wl_fail(wl, status, "could not add the ping-pong frames");
        }
        wl_reference(wl, l, 1);
    } else {
        uint64_t load[2] = {a, 16384}, gather[2] = {a, 16384};
        size_t l0 = wl_launch(wl, "probe_load", probe->phase, load, 2);
        size_t l1 = wl_launch(wl, "probe_gather", probe->phase, gather, 2);
        probe->launch = l1;
        ar_shift_t inner[1] = {{l1, 0, 16384}};
        ar_shift_t outer[2] = {{l0, 0, apart}, {l1, 0, apart}};
        wl_repeat_list(wl, l1, 1, 4, inner, 1);
        wl_repeat_list(wl, l0, 2, 2, outer, 2);
        wl_reference(wl, l0, 2);
    }
}

/* ---- Launch-level faults ----------------------------------------------------------------- */

static bool named(ar_plan_t const *plan, size_t launch, size_t word) {
    for (size_t s = 0; s < plan->shifts_count; ++s)
        if (plan->shifts[s].launch == launch && plan->shifts[s].word == word) return true;
    return false;
}

static bool in_window(wl_t const *wl, uint64_t value) {
    return value >= wl->window_base && value - wl->window_base < wl->window_size;
}

/* The first word of `launch` that is an address and that no repeat moves, or SIZE_MAX. */
static size_t plain_address_word(wl_t const *wl, size_t launch) {
    ar_launch_t const *l = &wl->plan->launches[launch];
    for (size_t w = 0; w < l->words_count; ++w)
        if (in_window(wl, wl->plan->words[l->words_first + w]) && !named(wl->plan, launch, w))
            return w;
    return SIZE_MAX;
}

static bool in_phase_planes(wl_t const *wl, int phase, uint64_t address) {
    wl_phase_t const *ph = &wl->phases[phase];
    for (int j = 0; j < ph->count; ++j) {
        wl_plane_t const *p = &wl->planes[ph->planes[j]];
        if (address >= p->base && address - p->base < p->size) return true;
    }
    return false;
}

/* An address inside some other phase's plane that no plane of `phase` covers (globals lie
 * apart from the workspace): the start of such a plane, or the end of one of `phase`'s planes
 * that lies inside it. UINT64_MAX when every other plane is covered. */
static uint64_t other_phase_address(wl_t const *wl, int phase) {
    for (int q = 0; q < wl->phases_count; ++q) {
        if (q == phase) continue;
        for (int j = 0; j < wl->phases[q].count; ++j) {
            wl_plane_t const *other = &wl->planes[wl->phases[q].planes[j]];
            if (!in_phase_planes(wl, phase, other->base)) return other->base;
            wl_phase_t const *own = &wl->phases[phase];
            for (int i = 0; i < own->count; ++i) {
                wl_plane_t const *p = &wl->planes[own->planes[i]];
                uint64_t end = p->base + p->size;
                if (end > other->base && end - other->base < other->size &&
                    !in_phase_planes(wl, phase, end))
                    return end;
            }
        }
    }
    return UINT64_MAX;
}

/* The index of the executed phase instance that the first run of `launch` starts or lies in. */
static unsigned __int128 instance_of_first_run(wl_t const *wl, size_t launch) {
    bool found = false;
    wl_summary_t prefix = wl_summarize_schedule(wl, launch, &found);
    if (prefix.empty) return 0;
    return prefix.last_phase == wl->launch_phase[launch] ? prefix.runs - 1 : prefix.runs;
}

/* ---- Meta -------------------------------------------------------------------------------- */

static char *meta_json(wl_t const *wl, ar_workload_info_t const *info) {
    size_t size = 2048;
    char *text = malloc(size);
    if (!text) return NULL;
    char fault[64], exact[64];
    if (info->fault[0]) snprintf(fault, sizeof fault, "\"%s\"", info->fault);
    else snprintf(fault, sizeof fault, "null");
    if (info->has_expect_exact) snprintf(exact, sizeof exact, "%s", info->expect_exact_text);
    else snprintf(exact, sizeof exact, "%s", info->expect_text);
    snprintf(text, size,
             "{\"family\":\"%s\",\"model\":\"%s\",\"preset\":\"%s\",\"fault\":%s,"
             "\"seed\":%" PRIu64 ",\"expect\":%s,\"expect_exact\":%s,\"few\":%" PRIu64 ","
             "\"layers\":%" PRIu64 ",\"batch\":%" PRIu64 ",\"seq\":%" PRIu64
             ",\"decode\":%" PRIu64 ",\"epochs\":%" PRIu64 ",\"micro\":%" PRIu64 ","
             "\"launches\":%" PRIu64 ",\"words\":%" PRIu64 ",\"repeats\":%" PRIu64
             ",\"references\":%" PRIu64 ",\"executed_launches\":%" PRIu64
             ",\"instances\":%" PRIu64 ",\"workspace_bytes\":%" PRIu64
             ",\"lower_bound_bytes\":%" PRIu64 "}",
             info->family, info->model, info->preset, fault, wl->seed, info->expect_text, exact,
             wl->few, wl->layers, wl->batch, wl->seq, wl->decode, wl->epochs, wl->micro,
             info->launches, info->words, info->repeats, info->references,
             info->executed_launches, info->instances, info->workspace_bytes,
             info->lower_bound_bytes);
    return text;
}

/* ---- Generate ---------------------------------------------------------------------------- */

static void emit_all(wl_t *wl, int fault, probe_t *probe) {
    wl->rng = wl->seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    wl->launches_count = wl->words_count = wl->shifts_count = 0;
    wl->repeats_count = wl->references_count = 0;
    wl->walks_count[0] = wl->walks_count[1] = 0;
    wl->site_victim = wl->site_layer_weight = wl->site_layer_repeat = SIZE_MAX;
    wl->site_first_scores = wl->site_ghost_launch = SIZE_MAX;
    wl_emit_family(wl);
    if (fault == F_PINGPONG_FRAMES || fault == F_TWO_REPEAT_WORD) emit_probe(wl, fault, probe);
}

static void free_wl(wl_t *wl) {
    free(wl->launch_phase);
    for (int level = 0; level < 2; ++level) {
        free(wl->walks[level]);
        free(wl->walk_slot[level]);
    }
    free(wl->frame);
    free(wl->family_state);
}

ar_status_t ar_workload_generate(ar_workload_options_t const *options, ar_plan_t **plan_out,
                                 ar_workload_info_t *info_out, ar_plan_error_t *error) {
    if (!plan_out) {
        set_error(error, ar_status_invalid_argument_k, "$", "ar_workload_generate: plan is NULL");
        return ar_status_invalid_argument_k;
    }
    *plan_out = NULL;
    if (!options || !options->family || wl_family_index(options->family) < 0) {
        set_error(error, ar_status_invalid_argument_k, "family",
                  "unknown family (expected decoder, moe, training, pipeline or encoder)");
        return ar_status_invalid_argument_k;
    }
    wl_preset_t preset;
    char const *preset_name = options->preset && options->preset[0] ? options->preset : "tiny";
    if (!wl_find_preset(options->family, preset_name, &preset)) {
        set_error(error, ar_status_invalid_argument_k, "preset",
                  "unknown preset (expected tiny, small, medium or large)");
        return ar_status_invalid_argument_k;
    }
    char const *model_name = options->model && options->model[0] ? options->model : preset.model;
    wl_model_t const *model = wl_find_model(model_name);
    if (!model) {
        char message[160];
        snprintf(message, sizeof message, "unknown model '%s' (see `arenacert gen --list`)",
                 model_name);
        set_error(error, ar_status_invalid_argument_k, "model", message);
        return ar_status_invalid_argument_k;
    }
    int fault = F_NONE;
    if (options->fault && options->fault[0]) {
        fault = wl_fault_index(options->fault);
        if (fault < 0 || !ar_workload_fault_applies(options->family, options->fault)) {
            char message[160];
            snprintf(message, sizeof message, "unknown fault '%s' (see `arenacert gen --list`)",
                     options->fault);
            set_error(error, ar_status_invalid_argument_k, "fault", message);
            return ar_status_invalid_argument_k;
        }
    }
    if (strcmp(options->family, "moe") == 0 && model->experts < 2) {
        set_error(error, ar_status_invalid_argument_k, "model",
                  "the moe family needs a model with experts (mixtral-8x7b)");
        return ar_status_invalid_argument_k;
    }

    wl_t *wl = calloc(1, sizeof *wl);
    if (!wl) return ar_status_out_of_memory_k;
    wl->family = options->family;
    wl->fault = fault == F_NONE ? "" : options->fault;
    wl->model = model;
    wl->layers = options->layers ? options->layers : preset.layers ? preset.layers : model->layers;
    wl->batch = options->batch ? options->batch : preset.batch;
    wl->seq = options->seq ? options->seq : preset.seq;
    wl->decode = options->decode ? options->decode : preset.decode;
    wl->epochs = options->epochs ? options->epochs : preset.epochs;
    wl->micro = options->micro ? options->micro : wl_preset_micro(options->family, preset_name);
    if (!wl->micro) wl->micro = 1;
    if (wl->epochs > wl->decode) wl->epochs = wl->decode; /* every body written is run */
    wl->seed = options->seed;
    wl->few = AR_CERTIFY_FEW_DEFAULT;

    /* Limits that keep every size below 2^56 bytes, every count in memory, and generation
     * proportional to what is written (the presets sit far below them). */
    char const *limit = NULL;
    unsigned __int128 tokens = (unsigned __int128)wl->batch * wl->seq;
    if (wl->layers > 1024) limit = "layers must be at most 1024";
    else if (wl->batch > (1u << 20)) limit = "batch must be at most 1048576";
    else if (wl->seq > (1u << 24)) limit = "seq must be at most 16777216";
    else if (tokens > (1ull << 32)) limit = "batch x seq must be at most 2^32 tokens";
    else if (wl->micro > 4096) limit = "micro must be at most 4096";
    else if (tokens * wl->micro * wl->layers > (1ull << 40))
        limit = "micro x layers x batch x seq must be at most 2^40";
    else if (wl->decode > (1u << 24)) limit = "decode must be at most 16777216 references";
    else if ((unsigned __int128)wl->epochs * (wl->batch + 16) > (1u << 26))
        limit = "epochs x (batch + 16) must be at most 2^26 (the launches written)";
    else if (fault == F_DELTA_OFF_BANK && wl->layers < 2)
        limit = "delta-off-bank-last-layer needs at least 2 layers";
    if (limit) {
        set_error(error, ar_status_invalid_argument_k, "options", limit);
        free(wl);
        return ar_status_invalid_argument_k;
    }

    ar_workload_info_t info;
    memset(&info, 0, sizeof info);
    probe_t probe = {0};
    ar_plan_t *plan = NULL;
    ar_status_t status = ar_status_success_k;

    wl_declare_family(wl);
    if (fault == F_PINGPONG_FRAMES || fault == F_TWO_REPEAT_WORD) declare_probe(wl, fault, &probe);
    if (!wl->status) wl_place(wl);

    /* Faults in the declarations: rules (A), (B), and the planes rule (D) trips on. */
    unsigned __int128 expect = 0, expect_exact = 0;
    bool has_exact = false;
    if (fault == F_OVERLAPPING_GLOBALS) {
        /* params_layers slides back over params_embed's last 256 bytes: (A) fails. */
        wl->globals[1].base = wl->globals[0].base + wl->globals[0].size - WL_ALIGNMENT;
        expect = 1;
    } else if (fault == F_MISALIGNED_PLANE) {
        wl->planes[wl->phases[wl->site_clobber_phase].planes[0]].base += 8; /* (B): unaligned */
        expect = 1;
    } else if (fault == F_PLANE_OVER_GLOBAL) {
        int n = wl_plane(wl, wl->site_clobber_phase, "over_residual", 4096, false);
        wl->planes[n].unplanned = true;
        wl->planes[n].base = wl->globals[wl->globals_count - 1].base; /* (B): on a global */
        expect = 1;
    } else if (fault == F_CARRIED_NEVER_DECLARED) {
        int n = wl_plane(wl, wl->site_ghost_phase, "ghost", 4096, true);
        wl->planes[n].unplanned = true;
        wl->planes[n].base = wl->slack_base + 65536;
    } else if (fault == F_CARRIED_CLOBBERED) {
        int mask = wl_plane_index(wl, "mask");
        int n = wl_plane(wl, wl->site_clobber_phase, "clobber", wl->planes[mask].size, false);
        wl->planes[n].unplanned = true;
        wl->planes[n].base = wl->planes[mask].base;
        wl->planes[n].size = wl->planes[mask].size;
    }

    /* Pass 1 counts; pass 2 builds into arrays reserved once. */
    if (!wl->status) {
        wl->counting = true;
        emit_all(wl, fault, &probe);
        wl->counting = false;
    }
    if (!wl->status) {
        wl->launch_phase = malloc((wl->launches_count + 1) * sizeof *wl->launch_phase);
        status = ar_plan_create(&plan);
        if (!status && !wl->launch_phase) status = ar_status_out_of_memory_k;
        if (!status) status = ar_plan_reserve(plan, wl->launches_count, wl->words_count, wl->shifts_count);
        if (!status) status = ar_plan_set_alignment(plan, WL_ALIGNMENT);
        if (!status) status = ar_plan_add_window(plan, wl->window_base, wl->window_size);
        for (int g = 0; !status && g < wl->globals_count; ++g)
            status = ar_plan_add_global(plan, wl->globals[g].name, wl->globals[g].base,
                                        wl->globals[g].size);
        for (int p = 0; !status && p < wl->phases_count; ++p) {
            status = ar_plan_add_phase(plan, wl->phases[p].id);
            for (int j = 0; !status && j < wl->phases[p].count; ++j) {
                wl_plane_t const *pl = &wl->planes[wl->phases[p].planes[j]];
                status = ar_plan_add_plane(plan, pl->name, pl->base, pl->size,
                                           wl->phases[p].carried[j]);
            }
        }
        if (status) wl_fail(wl, status, "could not build the plan's ranges");
        wl->plan = plan;
        if (!wl->status) emit_all(wl, fault, &probe);
    }

    /* Faults in the launches: rule (C) at a launch as written. */
    size_t n = wl->launches_count;
    if (!wl->status) {
        char const *why = NULL;
        if (fault == F_STRAY_POINTER || fault == F_OTHER_PHASE_PLANE) {
            size_t l = wl->site_victim, w = l == SIZE_MAX ? SIZE_MAX : plain_address_word(wl, l);
            uint64_t address = fault == F_STRAY_POINTER
                                   ? wl->slack_base + 4096
                                   : w == SIZE_MAX ? UINT64_MAX
                                                   : other_phase_address(wl, wl->launch_phase[l]);
            if (w == SIZE_MAX || address == UINT64_MAX) why = "no launch to plant it in";
            else {
                plan->words[plan->launches[l].words_first + w] = address;
                expect = 2 + (unsigned __int128)l;
            }
        } else if (fault == F_UNDECLARED_PHASE) {
            size_t l = wl->site_layer_weight;
            plan->launches[l].phase_name = ar_plan_intern(plan, "undeclared.phase");
            if (!plan->launches[l].phase_name) why = "out of memory";
            expect = 2 + (unsigned __int128)l;
        } else if (fault == F_DELTA_OFF_BANK) {
            /* The layer-0-offset weight word walks one step too far only at the last layer:
             * into the guard gap after params_layers. */
            ar_repeat_t const *r = &plan->repeats[wl->site_layer_repeat]; /* deltas */
            size_t l = wl->site_layer_weight, w = wl->site_layer_weight_word;
            why = "the layer walk was not found";
            for (size_t s = r->shifts_first; s < r->shifts_first + r->shifts_count; ++s) {
                if (plan->shifts[s].launch != l || plan->shifts[s].word != w) continue;
                uint64_t S = wl->layer_stride, L = wl->layers;
                plan->shifts[s].shift = (int64_t)(S + (S + L - 2) / (L - 1));
                why = NULL;
            }
            expect = 2 + (unsigned __int128)l;
        } else if (fault == F_CARRIED_NEVER_DECLARED) {
            expect = 2 + (unsigned __int128)n + instance_of_first_run(wl, wl->site_ghost_launch);
        } else if (fault == F_CARRIED_CLOBBERED) {
            expect = 2 + (unsigned __int128)n + instance_of_first_run(wl, wl->site_first_scores);
        } else if (fault == F_PINGPONG_FRAMES || fault == F_TWO_REPEAT_WORD) {
            expect = 2 + (unsigned __int128)probe.launch;
            expect_exact = 0;
            has_exact = true;
        }
        if (why) wl_fail(wl, ar_status_invalid_argument_k, why);
    }

    if (!wl->status) {
        wl_summary_t total = wl_summarize_schedule(wl, SIZE_MAX, NULL);
        if (total.empty && plan->schedule_count)
            wl_fail(wl, ar_status_out_of_memory_k, "out of memory counting the schedule");
        snprintf(info.family, sizeof info.family, "%s", wl->family);
        snprintf(info.model, sizeof info.model, "%s", model->name);
        snprintf(info.preset, sizeof info.preset, "%s", preset_name);
        snprintf(info.fault, sizeof info.fault, "%s", wl->fault);
        info.expect = saturate(expect);
        u128_text(expect, info.expect_text, sizeof info.expect_text);
        info.has_expect_exact = has_exact;
        info.expect_exact = has_exact ? saturate(expect_exact) : info.expect;
        u128_text(has_exact ? expect_exact : expect, info.expect_exact_text,
                  sizeof info.expect_exact_text);
        info.launches = plan->launches_count;
        info.words = plan->words_count;
        info.repeats = plan->repeats_count;
        info.references = plan->schedule_count;
        info.executed_launches = total.empty ? 0 : saturate(total.launches);
        info.instances = total.empty ? 0 : saturate(total.runs);
        info.workspace_bytes = wl->workspace_bytes;
        info.lower_bound_bytes = wl->lower_bound;
        char *meta = meta_json(wl, &info);
        status = meta ? ar_plan_set_meta(plan, meta) : ar_status_out_of_memory_k;
        free(meta);
        if (status) wl_fail(wl, status, "could not set the plan's meta");
    }
    if (!wl->status) {
        ar_plan_error_t finish_error;
        status = ar_plan_finish(plan, &finish_error);
        if (status) {
            char message[400];
            snprintf(message, sizeof message, "generator bug: the plan is malformed: %.300s",
                     finish_error.message);
            wl_fail(wl, status, message);
        }
    }
    status = wl->status;
    if (status) {
        set_error(error, status, "$", wl->error[0] ? wl->error : ar_status_name(status));
        ar_plan_free(plan);
    } else {
        *plan_out = plan;
        if (info_out) *info_out = info;
        if (error) memset(error, 0, sizeof *error);
    }
    free_wl(wl);
    free(wl);
    return status;
}
