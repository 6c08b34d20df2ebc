/* The greedy-by-size planner (workloads/src/planner.c) on hand-made lifetimes, with offsets
 * worked out by hand:
 *   - planes whose lifetimes do not overlap share bytes; overlapping ones never do;
 *   - a plane that crosses a loop's boundary is live over the whole loop, a persistent one to
 *     the end;
 *   - greedy by size can exceed the lower bound: X(3)@[0,1] Y(2)@[1,2] Z(2)@[2,3] W(3)@[3,4]
 *     (sizes in 256-byte units) places X 0, W 0, Y 3, Z 5: workspace 7 against a bound of 5. */
#include "expect.h"
#include "wl.h"

#include <string.h>

#define U 256u

static arp_wl_t *fresh(void) {
    static arp_wl_t wl;
    memset(&wl, 0, sizeof wl);
    return &wl;
}

static uint64_t offset(arp_wl_t const *wl, char const *name) {
    int n = arp_wl_plane_index(wl, name);
    require_true(n >= 0);
    return wl->planes[n].base - wl->workspace_base;
}

int main(void) {
    /* Greedy above the bound. */
    arp_wl_t *wl = fresh();
    int p[5];
    char id[8];
    for (int i = 0; i < 5; ++i) {
        snprintf(id, sizeof id, "p%d", i);
        p[i] = arp_wl_phase(wl, id);
    }
    arp_wl_plane(wl, p[0], "X", 3 * U, false);
    arp_wl_plane(wl, p[1], "X", 0, true);
    arp_wl_plane(wl, p[1], "Y", 2 * U, false);
    arp_wl_plane(wl, p[2], "Y", 0, true);
    arp_wl_plane(wl, p[2], "Z", 2 * U, false);
    arp_wl_plane(wl, p[3], "Z", 0, true);
    arp_wl_plane(wl, p[3], "W", 3 * U, false);
    arp_wl_plane(wl, p[4], "W", 0, true);
    arp_wl_place(wl);
    expect_int_eq(wl->status, ar_status_success_k);
    expect_u64_eq(offset(wl, "X"), 0);
    expect_u64_eq(offset(wl, "W"), 0);
    expect_u64_eq(offset(wl, "Y"), 3 * U);
    expect_u64_eq(offset(wl, "Z"), 5 * U);
    expect_u64_eq(wl->workspace_bytes, 7 * U);
    expect_u64_eq(wl->lower_bound, 5 * U);
    expect_u64_eq(wl->workspace_base % (1u << 20), 0);

    /* Sharing, loops and persistence: A@[0] and B@[2] share; C crosses the loop [1,2] from 0
     * and so lives through 2, clashing with B; P is persistent from 1. */
    wl = fresh();
    for (int i = 0; i < 4; ++i) {
        snprintf(id, sizeof id, "q%d", i);
        p[i] = arp_wl_phase(wl, id);
    }
    arp_wl_plane(wl, p[0], "A", 4 * U, false);
    arp_wl_plane(wl, p[2], "B", 4 * U, false);
    arp_wl_plane(wl, p[0], "C", 1 * U, false);
    arp_wl_plane(wl, p[1], "C", 0, true);
    arp_wl_plane(wl, p[1], "P", 2 * U, false);
    arp_wl_persistent(wl, arp_wl_plane_index(wl, "P"));
    arp_wl_plane(wl, p[3], "D", 2 * U, false);
    arp_wl_loop(wl, p[1], p[2]);
    arp_wl_place(wl);
    int c = arp_wl_plane_index(wl, "C"), pp = arp_wl_plane_index(wl, "P");
    expect_int_eq(wl->planes[c].first, 0);
    expect_int_eq(wl->planes[c].last, 2); /* widened over the loop */
    expect_int_eq(wl->planes[pp].last, 3);
    expect_u64_eq(offset(wl, "A"), 0);
    expect_u64_eq(offset(wl, "B"), 0);     /* A and B never live together */
    expect_u64_eq(offset(wl, "P"), 4 * U); /* size order: A, B, then P and D (2), then C */
    expect_u64_eq(offset(wl, "D"), 0);     /* D@[3] meets only P */
    expect_u64_eq(offset(wl, "C"), 6 * U);
    expect_u64_eq(wl->workspace_bytes, 7 * U);
    expect_u64_eq(wl->lower_bound, 7 * U); /* at q2: B + P + C */

    /* Sizes are aligned, globals come first, end to end, with their gaps. */
    wl = fresh();
    int g0 = arp_wl_global(wl, "g0", 10, 0), g1 = arp_wl_global(wl, "g1", 300, 1000),
        g2 = arp_wl_global(wl, "g2", 1, 0);
    arp_wl_place(wl);
    expect_u64_eq(wl->globals[g0].base, ARP_WL_WINDOW_BASE);
    expect_u64_eq(wl->globals[g0].size, U);
    expect_u64_eq(wl->globals[g1].base, ARP_WL_WINDOW_BASE + U);
    expect_u64_eq(wl->globals[g1].size, 2 * U);
    expect_u64_eq(wl->globals[g2].base, arp_wl_align(ARP_WL_WINDOW_BASE + 3 * U + 1000, U));
    expect_true(wl->slack_base >= wl->workspace_base);
    expect_true(wl->window_base + wl->window_size > wl->slack_base);
    return expect_finish();
}
