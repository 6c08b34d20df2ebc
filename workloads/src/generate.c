/* ar_workload_generate: resolve the options (options.c), declare the family, let the fault
 * declare what it brings, place every plane, plant a fault on the placed declarations, emit
 * twice (count, then build into arrays reserved once), plant a fault in the built plan, and
 * work out the verdict it must give from its class and site: the launch it names, or the
 * executed phase instance of that launch's first run, counted from the schedule's structure
 * (count.c), never by certifying. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaref/place.h"
#include "wl.h"

static void set_error(ar_plan_error_t *error, ar_status_t status, char const *path,
                      char const *message) {
    if (!error) return;
    memset(error, 0, sizeof *error);
    error->status = status;
    snprintf(error->path, sizeof error->path, "%s", path);
    snprintf(error->message, sizeof error->message, "%s", message);
}

/* The index of the executed phase instance that the first run of `launch` starts or lies in. */
static arp_u128_t instance_of_first_run(arp_wl_t const *wl, size_t launch) {
    bool found = false;
    arp_wl_summary_t prefix = arp_wl_summarize_schedule(wl, launch, &found);
    if (prefix.empty) return 0;
    return prefix.last_phase == wl->launch_phase[launch] ? prefix.runs - 1 : prefix.runs;
}

/* The plan's "meta" object: what it is and what it must give. */
static char *meta_json(arp_wl_t const *wl, ar_workload_info_t const *info) {
    size_t size = 2048;
    char *text = malloc(size);
    if (!text) return NULL;
    char fault[64], exact[64];
    if (info->fault[0])
        snprintf(fault, sizeof fault, "\"%s\"", info->fault);
    else
        snprintf(fault, sizeof fault, "null");
    if (info->has_expect_exact)
        snprintf(exact, sizeof exact, "%s", info->expect_exact_text);
    else
        snprintf(exact, sizeof exact, "%s", info->expect_text);
    snprintf(text, size,
             "{\"family\":\"%s\",\"model\":\"%s\",\"preset\":\"%s\",\"fault\":%s,"
             "\"seed\":%" PRIu64 ",\"expect\":%s,\"expect_exact\":%s,\"few\":%" PRIu64 ","
             "\"layers\":%" PRIu64 ",\"batch\":%" PRIu64 ",\"seq\":%" PRIu64 ",\"decode\":%" PRIu64
             ",\"epochs\":%" PRIu64 ",\"micro\":%" PRIu64 ","
             "\"launches\":%" PRIu64 ",\"words\":%" PRIu64 ",\"repeats\":%" PRIu64
             ",\"references\":%" PRIu64 ",\"executed_launches\":%" PRIu64 ",\"instances\":%" PRIu64
             ",\"workspace_bytes\":%" PRIu64 ",\"lower_bound_bytes\":%" PRIu64 "}",
             info->family, info->model, info->preset, fault, wl->seed, info->expect_text, exact,
             wl->few, wl->layers, wl->batch, wl->seq, wl->decode, wl->epochs, wl->micro,
             info->launches, info->words, info->repeats, info->references, info->executed_launches,
             info->instances, info->workspace_bytes, info->lower_bound_bytes);
    if (wl->recompute) {
        size_t length = strlen(text);
        snprintf(text + length - 1, size - length + 1,
                 ",\"recompute\":true,\"segments\":%" PRIu64 "}", wl->segments);
    }
    if (wl->expert_skew) {
        size_t length = strlen(text);
        snprintf(text + length - 1, size - length + 1,
                 ",\"expert_skew\":%" PRIu64 ",\"expert_phases\":true}", wl->expert_skew);
    }
    if (wl->kv_page) {
        size_t length = strlen(text);
        snprintf(text + length - 1, size - length + 1, ",\"kv_page\":%" PRIu64 "}", wl->kv_page);
    }
    if (wl->kv_waves) {
        size_t length = strlen(text);
        snprintf(text + length - 1, size - length + 1,
                 ",\"kv_waves\":%" PRIu64 ",\"kv_groups\":%" PRIu64 "}", wl->kv_waves,
                 wl->kv_groups);
    }
    if (wl->micro_skew) {
        size_t length = strlen(text);
        snprintf(text + length - 1, size - length + 1,
                 ",\"micro_skew\":%" PRIu64 ",\"schedule\":\"1f1b\"}", wl->micro_skew);
    }
    if (wl->family->ranges) {
        size_t length = strlen(text);
        snprintf(text + length - 1, size - length + 1,
                 ",\"ops\":%" PRIu64 ",\"globals\":%" PRIu64 "}", wl->ops, wl->globals_wanted);
    }
    if (wl->in_place) {
        char kinds[64];
        ar_workload_in_place_name(wl->in_place, kinds, sizeof kinds);
        size_t length = strlen(text);
        snprintf(text + length - 1, size - length + 1, ",\"in_place\":\"%s\"}", kinds);
    }
    if (wl->strategy_named) { /* only then, so default plans keep their bytes */
        size_t length = strlen(text);
        snprintf(text + length - 1, size - length + 1, ",\"strategy\":\"%s\"}",
                 ar_place_strategy_name((ar_place_strategy_t)wl->strategy));
    }
    return text;
}

static bool planted_at(arp_wl_t const *wl, arp_wl_stage_t stage) {
    return wl->fault && wl->fault->stage == stage && !wl->status;
}

/* One emission pass: the family's, then a probe's, from the same seed every time. */
static void emit_all(arp_wl_t *wl) {
    wl->rng = wl->seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
    wl->launches_count = wl->words_count = wl->shifts_count = 0;
    wl->repeats_count = wl->references_count = 0;
    wl->walks_count[0] = wl->walks_count[1] = 0;
    for (int s = 0; s < ARP_WL_SITE_COUNT; ++s) wl->site[s] = SIZE_MAX;
    wl->layer_repeat = SIZE_MAX;
    wl->family->emit(wl);
    if (planted_at(wl, ARP_WL_EMITTED)) wl->fault->plant(wl);
}

/* The plan's ranges from the placed declarations, in arrays reserved for the second pass. */
static ar_status_t build_ranges(arp_wl_t *wl, ar_plan_t *plan) {
    ar_status_t status =
        ar_plan_reserve(plan, wl->launches_count, wl->words_count, wl->shifts_count);
    if (!status) status = ar_plan_set_alignment(plan, ARP_WL_ALIGNMENT);
    if (!status) status = ar_plan_add_window(plan, wl->window_base, wl->window_size);
    if (!status && wl->family->ranges) return wl->family->ranges(wl, plan);
    for (int g = 0; !status && g < wl->globals_count; ++g)
        status =
            ar_plan_add_global(plan, wl->globals[g].name, wl->globals[g].base, wl->globals[g].size);
    for (int p = 0; !status && p < wl->phases_count; ++p) {
        status = ar_plan_add_phase(plan, wl->phases[p].id);
        for (int j = 0; !status && j < wl->phases[p].count; ++j) {
            arp_wl_plane_t const *pl = &wl->planes[wl->phases[p].planes[j]];
            int becomes = wl->phases[p].becomes[j];
            status = becomes < 0 ? ar_plan_add_plane(plan, pl->name, pl->base, pl->size,
                                                     wl->phases[p].carried[j])
                                 : ar_plan_add_plane_becomes(plan, pl->name, pl->base, pl->size,
                                                             wl->phases[p].carried[j],
                                                             wl->planes[becomes].name);
            if (!status && p == wl->cross_phase && j == wl->cross_slot)
                status = arp_wl_read_across(plan, pl->size);
        }
    }
    return status;
}

/* The verdicts the fault must give (0 when clean): expect, and the exact oracle's. */
static void expectations(arp_wl_t const *wl, arp_u128_t *expect, arp_u128_t *exact,
                         bool *has_exact) {
    *expect = *exact = 0;
    *has_exact = false;
    if (!wl->fault) return;
    size_t site = wl->site[wl->fault->site];
    switch (wl->fault->verdict) {
    case ARP_WL_RANGES: *expect = 1; break;
    case ARP_WL_LAUNCH: *expect = 2 + (arp_u128_t)site; break;
    case ARP_WL_INSTANCE:
        *expect = 2 + (arp_u128_t)wl->launches_count + instance_of_first_run(wl, site);
        break;
    case ARP_WL_PROBE:
        *expect = 2 + (arp_u128_t)site;
        *has_exact = true;
        break;
    }
    if (!*has_exact) *exact = *expect;
}

static void describe(arp_wl_t *wl, char const *preset_name, ar_workload_info_t *info) {
    ar_plan_t *plan = wl->plan;
    arp_wl_summary_t total = arp_wl_summarize_schedule(wl, SIZE_MAX, NULL);
    if (total.empty && plan->schedule_count)
        arp_wl_fail(wl, ar_status_out_of_memory_k, "out of memory counting the schedule");
    arp_u128_t expect, exact;
    expectations(wl, &expect, &exact, &info->has_expect_exact);
    snprintf(info->family, sizeof info->family, "%s", wl->family->name);
    snprintf(info->model, sizeof info->model, "%s", wl->model->name);
    snprintf(info->preset, sizeof info->preset, "%s", preset_name);
    snprintf(info->fault, sizeof info->fault, "%s", wl->fault ? wl->fault->name : "");
    info->expect = arp_u128_to_u64_sat(expect);
    arp_u128_decimal(expect, info->expect_text, sizeof info->expect_text);
    info->expect_exact = arp_u128_to_u64_sat(exact);
    arp_u128_decimal(exact, info->expect_exact_text, sizeof info->expect_exact_text);
    info->launches = plan->launches_count;
    info->words = plan->words_count;
    info->repeats = plan->repeats_count;
    info->references = plan->schedule_count;
    info->executed_launches = total.empty ? 0 : arp_u128_to_u64_sat(total.launches);
    info->instances = total.empty ? 0 : arp_u128_to_u64_sat(total.runs);
    info->workspace_bytes = wl->workspace_bytes;
    info->lower_bound_bytes = wl->lower_bound;
}

static void generate(arp_wl_t *wl, char const *preset_name, ar_workload_info_t *info) {
    wl->read_after_phase = wl->cross_phase = wl->cross_slot = -1;
    wl->family->declare(wl);
    if (wl->fault && wl->fault->declare && !wl->status) wl->fault->declare(wl);
    if (!wl->status && !wl->family->ranges) arp_wl_place(wl);
    if (planted_at(wl, ARP_WL_PLACED)) wl->fault->plant(wl);

    /* Pass 1 counts; pass 2 builds into arrays reserved once. */
    if (wl->status) return;
    wl->counting = true;
    emit_all(wl);
    wl->counting = false;
    if (wl->status) return;
    wl->launch_phase = malloc((wl->launches_count + 1) * sizeof *wl->launch_phase);
    ar_status_t status = ar_plan_create(&wl->plan);
    if (!status && !wl->launch_phase) status = ar_status_out_of_memory_k;
    if (!status) status = build_ranges(wl, wl->plan);
    if (status) arp_wl_fail(wl, status, "could not build the plan's ranges");
    if (!wl->status) emit_all(wl);
    if (planted_at(wl, ARP_WL_BUILT)) wl->fault->plant(wl);

    if (!wl->status) describe(wl, preset_name, info);
    if (!wl->status) {
        char *meta = meta_json(wl, info);
        status = meta ? ar_plan_set_meta(wl->plan, meta) : ar_status_out_of_memory_k;
        free(meta);
        if (status) arp_wl_fail(wl, status, "could not set the plan's meta");
    }
    if (!wl->status) {
        ar_plan_error_t finish_error;
        status = ar_plan_finish(wl->plan, &finish_error);
        if (status) {
            char message[400];
            snprintf(message, sizeof message, "generator bug: the plan is malformed: %.300s",
                     finish_error.message);
            arp_wl_fail(wl, status, message);
        }
    }
}

ar_status_t ar_workload_generate(ar_workload_options_t const *options, ar_plan_t **plan_out,
                                 ar_workload_info_t *info_out, ar_plan_error_t *error) {
    if (!plan_out) {
        set_error(error, ar_status_invalid_argument_k, "$", "ar_workload_generate: plan is NULL");
        return ar_status_invalid_argument_k;
    }
    *plan_out = NULL;
    arp_wl_t *wl = calloc(1, sizeof *wl);
    if (!wl) return ar_status_out_of_memory_k;
    char const *preset_name = NULL;
    ar_status_t status = arp_wl_resolve(options, wl, &preset_name, error);
    if (status) {
        free(wl);
        return status;
    }
    ar_workload_info_t info;
    memset(&info, 0, sizeof info);
    generate(wl, preset_name, &info);
    status = wl->status;
    if (status) {
        set_error(error, status, "$", wl->error[0] ? wl->error : ar_status_name(status));
        ar_plan_free(wl->plan);
    } else {
        *plan_out = wl->plan;
        if (info_out) *info_out = info;
        if (error) memset(error, 0, sizeof *error);
    }
    free(wl->launch_phase);
    for (int level = 0; level < 2; ++level) {
        free(wl->walks[level]);
        free(wl->walk_slot[level]);
    }
    free(wl->frame);
    free(wl->family_state);
    free(wl);
    return status;
}
