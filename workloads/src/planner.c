/* Placement. Globals are laid out first, end to end from the window's base (aligned, with the guard
 * gap a global asks for). Phase planes then get offsets in one workspace from the public planner
 * (arenaref/place.h) with the chosen strategy; the default, greedy-by-size, is TensorFlow Lite's:
 * planes sorted by size, non-increasing, each placed at the lowest aligned offset where it overlaps
 * no already placed plane whose lifetime overlaps its own. A plane's lifetime is the span of phase
 * positions (the program's phase order, one pass) that declare it, widened to a whole loop when it
 * crosses a loop's boundary (a value that must survive the loop's next iteration), and to the end
 * of the program for a persistent plane (the KV cache). Two planes live at one position never share
 * a byte, which gives rules (B) and (D) by construction. The lower bound is the largest sum of
 * plane sizes live at one position; the workspace is the planner's high-water mark. */
#include <stdlib.h>

#include "arenaref/place.h"
#include "wl.h"

static void lifetimes(arp_wl_t *wl) {
    for (int n = 0; n < wl->planes_count; ++n) wl->planes[n].first = -1;
    for (int p = 0; p < wl->phases_count; ++p)
        for (int j = 0; j < wl->phases[p].count; ++j) {
            arp_wl_plane_t *plane = &wl->planes[wl->phases[p].planes[j]];
            if (plane->first < 0) plane->first = p;
            plane->last = p;
        }
    /* An in-place update's value lives in its host's bytes: the host spans both lifetimes. */
    for (int n = 0; n < wl->planes_count; ++n) {
        arp_wl_plane_t const *value = &wl->planes[n];
        if (value->host < 0 || value->first < 0) continue;
        arp_wl_plane_t *host = &wl->planes[value->host];
        if (host->first < 0 || value->first < host->first) host->first = value->first;
        if (value->last > host->last) host->last = value->last;
    }
    for (int n = 0; n < wl->planes_count; ++n) {
        arp_wl_plane_t *plane = &wl->planes[n];
        if (plane->first < 0) plane->first = plane->last = 0;
        if (plane->persistent) plane->last = wl->phases_count - 1;
    }
    /* Widen to whole loops until nothing moves (loops nest, so a few rounds settle it). */
    for (bool moved = true; moved;) {
        moved = false;
        for (int n = 0; n < wl->planes_count; ++n)
            for (int l = 0; l < wl->loops_count; ++l) {
                arp_wl_plane_t *plane = &wl->planes[n];
                arp_wl_loop_t loop = wl->loops[l];
                bool meets = plane->first <= loop.last && loop.first <= plane->last;
                bool inside = loop.first <= plane->first && plane->last <= loop.last;
                if (meets && !inside && (plane->first > loop.first || plane->last < loop.last)) {
                    if (plane->first > loop.first) plane->first = loop.first;
                    if (plane->last < loop.last) plane->last = loop.last;
                    moved = true;
                }
            }
    }
}

void arp_wl_place(arp_wl_t *wl) {
    uint64_t cursor = ARP_WL_WINDOW_BASE;
    for (int g = 0; g < wl->globals_count; ++g) {
        wl->globals[g].base = arp_wl_align(cursor, ARP_WL_ALIGNMENT);
        cursor = wl->globals[g].base + wl->globals[g].size + wl->globals[g].gap_after;
    }
    wl->workspace_base = arp_wl_align(cursor, 1u << 20);

    lifetimes(wl);
    /* The planned planes as a problem for the public planner, in declaration order (its sorts
     * are stable by index, so greedy-by-size gives the offsets this file always gave). */
    ar_place_buffer_t buffers[ARP_WL_MAX_NAMES];
    uint64_t offsets[ARP_WL_MAX_NAMES] = {0};
    int which[ARP_WL_MAX_NAMES], count = 0;
    bool done[ARP_WL_MAX_NAMES] = {false};
    for (int n = 0; n < wl->planes_count; ++n)
        if (!wl->planes[n].unplanned && wl->planes[n].host < 0) {
            arp_wl_plane_t const *plane = &wl->planes[n];
            buffers[count] = (ar_place_buffer_t){(uint64_t)plane->first, (uint64_t)plane->last + 1,
                                                 plane->size, 0};
            which[count++] = n;
            done[n] = true;
        }
    ar_place_problem_t problem = {buffers, (size_t)count, NULL};
    ar_place_options_t options;
    ar_place_options_default(&options);
    options.strategy = (ar_place_strategy_t)wl->strategy;
    options.alignment = ARP_WL_ALIGNMENT;
    options.time_limit_s = 2.0; /* search: its best within 2 s (the generators stay fast) */
    ar_place_result_t result;
    ar_status_t status = ar_place(&problem, &options, offsets, &result);
    if (status != ar_status_success_k) {
        arp_wl_fail(wl, status, result.message);
        return;
    }
    uint64_t high = result.height;
    for (int k = 0; k < count; ++k) wl->planes[which[k]].base = wl->workspace_base + offsets[k];
    for (int n = 0; n < wl->planes_count; ++n)
        if (wl->planes[n].host >= 0) {
            wl->planes[n].base = wl->planes[wl->planes[n].host].base;
            wl->planes[n].size = wl->planes[wl->planes[n].host].size;
        }
    wl->workspace_bytes = high;

    uint64_t bound = 0;
    for (int p = 0; p < wl->phases_count; ++p) {
        uint64_t live = 0;
        for (int n = 0; n < wl->planes_count; ++n)
            if (done[n] && wl->planes[n].first <= p && p <= wl->planes[n].last)
                live += wl->planes[n].size;
        if (live > bound) bound = live;
    }
    wl->lower_bound = bound;
    wl->slack_base = arp_wl_align(wl->workspace_base + high, 1u << 20);
    wl->window_base = ARP_WL_WINDOW_BASE;
    wl->window_size = wl->slack_base + (1u << 20) - ARP_WL_WINDOW_BASE;
}
