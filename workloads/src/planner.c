/* Placement. Globals are laid out first, end to end from the window's base (aligned, with the
 * guard gap a global asks for). Phase planes then get offsets in one workspace from the
 * greedy-by-size planner of TensorFlow Lite's arena planner: planes sorted by size,
 * non-increasing, each placed at the lowest aligned offset where it overlaps no already placed
 * plane whose lifetime overlaps its own. A plane's lifetime is the span of phase positions (the
 * program's phase order, one pass) that declare it, widened to a whole loop when it crosses a
 * loop's boundary (a value that must survive the loop's next iteration), and to the end of the
 * program for a persistent plane (the KV cache). Two planes live at one position never share a
 * byte, which gives rules (B) and (D) by construction. The lower bound is the largest sum of
 * plane sizes live at one position; the workspace is the planner's high-water mark. */
#include <stdlib.h>

#include "wl.h"

static void lifetimes(arp_wl_t *wl) {
    for (int n = 0; n < wl->planes_count; ++n) wl->planes[n].first = -1;
    for (int p = 0; p < wl->phases_count; ++p)
        for (int j = 0; j < wl->phases[p].count; ++j) {
            arp_wl_plane_t *plane = &wl->planes[wl->phases[p].planes[j]];
            if (plane->first < 0) plane->first = p;
            plane->last = p;
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

typedef struct placed_t {
    uint64_t offset, end;
} placed_t;

static int by_offset(void const *a, void const *b) {
    placed_t const *x = a, *y = b;
    return x->offset < y->offset ? -1 : x->offset > y->offset;
}

void arp_wl_place(arp_wl_t *wl) {
    uint64_t cursor = ARP_WL_WINDOW_BASE;
    for (int g = 0; g < wl->globals_count; ++g) {
        wl->globals[g].base = arp_wl_align(cursor, ARP_WL_ALIGNMENT);
        cursor = wl->globals[g].base + wl->globals[g].size + wl->globals[g].gap_after;
    }
    wl->workspace_base = arp_wl_align(cursor, 1u << 20);

    lifetimes(wl);
    int order[ARP_WL_MAX_NAMES], count = 0;
    for (int n = 0; n < wl->planes_count; ++n)
        if (!wl->planes[n].unplanned) order[count++] = n;
    /* Sort by size, non-increasing; ties keep declaration order (insertion sort: stable). */
    for (int i = 1; i < count; ++i)
        for (int j = i; j > 0 && wl->planes[order[j]].size > wl->planes[order[j - 1]].size; --j) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    uint64_t offsets[ARP_WL_MAX_NAMES] = {0};
    bool done[ARP_WL_MAX_NAMES] = {false};
    uint64_t high = 0;
    for (int i = 0; i < count; ++i) {
        arp_wl_plane_t *plane = &wl->planes[order[i]];
        placed_t conflicts[ARP_WL_MAX_NAMES];
        int c = 0;
        for (int j = 0; j < i; ++j) {
            arp_wl_plane_t const *other = &wl->planes[order[j]];
            if (other->first <= plane->last && plane->first <= other->last)
                conflicts[c++] = (placed_t){offsets[order[j]], offsets[order[j]] + other->size};
        }
        qsort(conflicts, (size_t)c, sizeof *conflicts, by_offset);
        uint64_t candidate = 0;
        for (int j = 0; j < c; ++j) {
            if (candidate + plane->size <= conflicts[j].offset) break;
            if (conflicts[j].end > candidate)
                candidate = arp_wl_align(conflicts[j].end, ARP_WL_ALIGNMENT);
        }
        offsets[order[i]] = candidate;
        done[order[i]] = true;
        if (candidate + plane->size > high) high = candidate + plane->size;
    }
    for (int n = 0; n < wl->planes_count; ++n)
        if (done[n]) wl->planes[n].base = wl->workspace_base + offsets[n];
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
