/* The driver and its engines apart (ref/src/place/engine.h). Each engine alone: the greedy
 * orders against a reference scan written here from the definition (random problems with
 * alignments and buffers of several rows), their work counted at two sizes (per buffer it
 * grows like log n, not like n: 10^6 identical rows and a synthetic allocation trace), the
 * exact search's decisions, strips with a decider that never decides, lns moves from an
 * incumbent. The driver: the order of its phases (tick clocks), and a clock that expires after
 * K reads,
 * under a limit of 10^9 s, so only the clock can stop a phase: every strategy still returns a
 * valid placement at once, and reads the dead clock only a few times more. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../ref/src/place/engine.h"
#include "arenaref/workloads.h"
#include "expect.h"
#include "place_test_util.h"

/* ---- The reference: placement in an order, by definition ---------------------------------- */

/* Each buffer's rows that live at some time (rows of an empty lifetime live at none), listed
 * by owner: list[head[b]], list[head[b] + 1], ... up to head[b + 1]. */
static size_t head[302], list[300];

static void list_rows(ar_place_problem_t const *p, size_t const *owner, size_t buffers) {
    memset(head, 0, (buffers + 2) * sizeof *head);
    for (size_t i = 0; i < p->count; ++i)
        if (p->buffers[i].lower < p->buffers[i].upper) ++head[owner[i] + 2];
    for (size_t b = 2; b < buffers + 2; ++b) head[b] += head[b - 1];
    for (size_t i = 0; i < p->count; ++i)
        if (p->buffers[i].lower < p->buffers[i].upper) list[head[owner[i] + 1]++] = i;
}

static bool rows_meet(ar_place_problem_t const *p, size_t a, size_t b) {
    for (size_t x = head[a]; x < head[a + 1]; ++x)
        for (size_t y = head[b]; y < head[b + 1]; ++y) {
            ar_place_buffer_t const *u = &p->buffers[list[x]], *v = &p->buffers[list[y]];
            if (u->lower < v->upper && v->lower < u->upper) return true;
        }
    return false;
}

/* Buffers in `order` (labels of owner[]), each at the least aligned offset whose bytes meet no
 * placed buffer live with it (lowest), or in the narrowest gap between such buffers that holds
 * it, lowest of equals, else on top of them (tightest). at[] per label. */
static void reference(ar_place_problem_t const *p, size_t const *order, size_t count, bool tightest,
                      uint64_t const *size, uint64_t const *align, uint64_t *at) {
    static size_t placed[512];
    for (size_t k = 0; k < count; ++k) {
        size_t b = order[k], n = 0;
        for (size_t j = 0; j < k; ++j)
            if (rows_meet(p, order[j], b)) placed[n++] = order[j];
        for (size_t x = 1; x < n; ++x) /* by offset */
            for (size_t y = x; y > 0 && at[placed[y - 1]] > at[placed[y]]; --y) {
                size_t t = placed[y];
                placed[y] = placed[y - 1];
                placed[y - 1] = t;
            }
        uint64_t c = 0, best = UINT64_MAX, best_gap = UINT64_MAX;
        for (size_t j = 0; j < n; ++j) {
            uint64_t start = at[placed[j]], end = start + size[placed[j]];
            if (c + size[b] <= start && start - c < best_gap) best_gap = start - c, best = c;
            if (end > c) c = (end + align[b] - 1) / align[b] * align[b];
        }
        uint64_t low = 0; /* lowest: the least candidate that meets nothing */
        for (bool moved = true; moved;) {
            moved = false;
            for (size_t j = 0; j < n; ++j) {
                uint64_t start = at[placed[j]], end = start + size[placed[j]];
                if (start < low + size[b] && low < end) {
                    low = (end + align[b] - 1) / align[b] * align[b];
                    moved = true;
                }
            }
        }
        at[b] = tightest ? (best != UINT64_MAX ? best : c) : low;
    }
}

/* A random problem of n rows; some pairs of rows of one size, apart in time, made one buffer
 * (labels[]: NULL when none). */
static void random_problem(uint64_t *state, ar_place_buffer_t *rows, size_t *labels, size_t n,
                           bool grouped) {
    place_test_random(state, rows, n, 2 + place_test_below(state, 60),
                      1 + place_test_below(state, 100), place_test_below(state, 3) == 0,
                      place_test_below(state, 2) == 0);
    for (size_t i = 0; i < n; ++i) labels[i] = i;
    static bool joined[512]; /* a row in a pair already */
    memset(joined, 0, sizeof joined);
    for (size_t tries = 0; grouped && tries < n; ++tries) {
        size_t a = place_test_below(state, n), b = place_test_below(state, n);
        if (a >= b || joined[a] || joined[b]) continue;
        if (rows[a].upper <= rows[b].lower) {
            rows[b].size = rows[a].size, rows[b].alignment = rows[a].alignment;
            labels[b] = a;
            joined[a] = joined[b] = true;
        }
    }
}

static void expect_greedy_is_reference(void) {
    uint64_t state = 4242;
    static ar_place_buffer_t rows[300];
    static size_t labels[300], owner[300], order[300];
    static uint64_t offsets[300], at[300], size[300], align[300], width[300], lower[300];
    for (int round = 0; round < 150; ++round) {
        size_t n = 1 + place_test_below(&state, 300);
        bool grouped = round % 2 == 1;
        random_problem(&state, rows, labels, n, grouped);
        ar_place_problem_t p = {rows, n, grouped ? labels : NULL};
        uint64_t floor = round % 5 == 0 ? 8 : 0;
        arp_place_groups_t g;
        char message[128];
        require_true(arp_place_groups_make(&p, &g, message, sizeof message) == ar_status_success_k);
        arp_sweep_t sweep;
        require_true(arp_sweep_make(&p, floor, &sweep) == ar_status_success_k);
        /* Each buffer that holds bytes, by the groups' numbering: its size, alignment, total
         * length and first start, as the orders read them. */
        size_t m = 0;
        for (size_t b = 0; b < g.count; ++b) {
            if (!arp_place_group_holds(&g, b)) continue;
            size[b] = g.hull[b].size;
            align[b] = arp_place_alignment(&rows[g.first[b]], floor);
            width[b] = g.width[b];
            lower[b] = g.hull[b].lower;
            order[m++] = b;
        }
        for (size_t i = 0; i < n; ++i) owner[i] = g.of[i];
        list_rows(&p, owner, g.count);
        /* greedy-by-size, best-fit and first-fit: their keys, ties on the buffer. */
        for (int how = 0; how < 3; ++how) {
            for (size_t x = 1; x < m; ++x) /* insertion sort by the order's key */
                for (size_t y = x; y > 0; --y) {
                    size_t u = order[y - 1], v = order[y];
                    uint64_t ku[3] = {~size[u], how == 1 ? ~width[u] : 0, u};
                    uint64_t kv[3] = {~size[v], how == 1 ? ~width[v] : 0, v};
                    if (how == 2) {
                        ku[0] = lower[u], ku[1] = ~size[u];
                        kv[0] = lower[v], kv[1] = ~size[v];
                    }
                    int x = 0;
                    while (x < 2 && ku[x] == kv[x]) ++x;
                    if (ku[x] < kv[x]) break; /* u before v: in order */
                    order[y - 1] = v, order[y] = u;
                }
            reference(&p, order, m, how == 1, size, align, at);
            arp_order_t o = how == 0   ? arp_order_size_k
                            : how == 1 ? arp_order_size_length_k
                                       : arp_order_start_k;
            uint64_t work = 0;
            expect_int_eq(arp_greedy(&p, &g, &sweep, o, how == 1, floor, NULL, 0, offsets, &work),
                          arp_found_k);
            bool same = true;
            for (size_t k = 0; k < m; ++k)
                for (size_t j = g.start[order[k]]; j < g.start[order[k] + 1]; ++j)
                    same &= offsets[g.rows[j]] == at[order[k]];
            if (!same) printf("round %d order %d: not the reference's offsets\n", round, how);
            expect_true(same);
            expect_true(ar_place_check(&p, offsets, floor, NULL));
        }
        arp_sweep_free(&sweep);
        arp_place_groups_free(&g);
    }
}

/* ---- Work, counted --------------------------------------------------------------------- */

/* n buffers allocated one per time step: 40% live to the end, the rest a few hundred steps at
 * most; sizes 16 bytes to 1 KiB. */
static void synthetic_trace(uint64_t seed, ar_place_buffer_t *rows, size_t n) {
    uint64_t state = seed;
    for (size_t i = 0; i < n; ++i) {
        uint64_t upper = place_test_below(&state, 100) < 40
                             ? n
                             : i + 1 + place_test_below(&state, 1 + place_test_below(&state, 256));
        rows[i] = (ar_place_buffer_t){i, upper < n ? upper : n,
                                      (uint64_t)16 << place_test_below(&state, 7), 0};
    }
}

static uint64_t work_of(ar_place_buffer_t *rows, size_t n, arp_order_t order, bool tightest) {
    ar_place_problem_t p = {rows, n, NULL};
    arp_place_groups_t g;
    char message[64];
    require_true(arp_place_groups_make(&p, &g, message, sizeof message) == ar_status_success_k);
    arp_sweep_t sweep;
    require_true(arp_sweep_make(&p, 0, &sweep) == ar_status_success_k);
    uint64_t *offsets = malloc(n * sizeof *offsets), work = 0;
    require_true(offsets != NULL);
    expect_int_eq(arp_greedy(&p, &g, &sweep, order, tightest, 0, NULL, 0, offsets, &work),
                  arp_found_k);
    expect_true(ar_place_check(&p, offsets, 0, NULL));
    free(offsets);
    arp_sweep_free(&sweep);
    arp_place_groups_free(&g);
    return work;
}

/* 8 times the buffers: at most 8 x (log 8n / log n) x 1.5 the work, where a scan of the placed
 * buffers is O(n) a buffer (64 times the work); on the trace and on identical rows. */
static void expect_work_n_log_n(void) {
    enum { SMALL = 1 << 12, LARGE = 1 << 15 };
    static ar_place_buffer_t rows[LARGE];
    double bound = 8.0 * log2((double)LARGE) / log2((double)SMALL) * 1.5;
    arp_order_t const orders[] = {arp_order_size_k, arp_order_breadth_k, arp_order_start_k,
                                  arp_order_size_length_k};
    for (int o = 0; o < 4; ++o) {
        bool tight = orders[o] == arp_order_size_length_k;
        synthetic_trace(9, rows, SMALL);
        uint64_t small = work_of(rows, SMALL, orders[o], tight);
        synthetic_trace(9, rows, LARGE);
        uint64_t large = work_of(rows, LARGE, orders[o], tight);
        printf("trace, order %d: work per buffer %.1f at %d, %.1f at %d (x%.2f for x8 buffers)\n",
               o, (double)small / SMALL, SMALL, (double)large / LARGE, LARGE,
               (double)large / (double)small);
        expect_true((double)large <= bound * (double)small);
        for (size_t i = 0; i < LARGE; ++i) rows[i] = (ar_place_buffer_t){0, 10, 1, 0};
        small = work_of(rows, SMALL, orders[o], tight);
        large = work_of(rows, LARGE, orders[o], tight);
        printf("identical rows, order %d: work per buffer %.1f, %.1f\n", o, (double)small / SMALL,
               (double)large / LARGE);
        expect_true((double)large <= bound * (double)small);
    }
}

/* ---- The other engines alone ------------------------------------------------------------ */

static int undecided_calls;

/* A decider that never decides, counting its calls. */
static arp_result_t never(ar_place_problem_t const *rows, uint64_t const *pin, uint64_t limit,
                          arp_clock_t *clock, double deadline, uint64_t most, uint64_t *offsets,
                          uint64_t *nodes) {
    (void)rows, (void)pin, (void)limit, (void)clock, (void)deadline, (void)most, (void)offsets;
    (void)nodes;
    ++undecided_calls;
    return arp_stopped_k;
}

static void expect_engines_alone(void) {
    /* The exact search: a pinwheel (5 pieces over [0, 3) x [0, 3)) fits 3 and nothing less. */
    ar_place_buffer_t wheel[] = {
        {0, 2, 1, 0}, {2, 3, 2, 0}, {1, 3, 1, 0}, {0, 1, 2, 0}, {1, 2, 1, 0},
    };
    ar_place_problem_t pinwheel = {wheel, 5, NULL};
    arp_place_groups_t g;
    char message[64];
    require_true(arp_place_groups_make(&pinwheel, &g, message, sizeof message) ==
                 ar_status_success_k);
    arp_sweep_t sweep;
    require_true(arp_sweep_make(&pinwheel, 0, &sweep) == ar_status_success_k);
    arp_search_t *search = arp_search_make(&pinwheel, &g, &sweep, 0);
    require_true(search != NULL);
    arp_clock_t clock = arp_clock_make(1e-6);
    uint64_t at[5], nodes = 0, offsets[5];
    expect_int_eq(arp_search_decide(search, 3, &clock, 1e9, UINT64_MAX, at, &nodes), arp_found_k);
    arp_place_groups_spread(&pinwheel, &g, at, offsets);
    expect_true(place_test_valid(wheel, 5, offsets, 0));
    expect_u64_eq(ar_place_height(&pinwheel, offsets), 3);
    expect_int_eq(arp_search_decide(search, 2, &clock, 1e9, UINT64_MAX, at, &nodes), arp_none_k);
    expect_true(nodes > 0);
    /* The same clock dead: stopped, at once. */
    arp_clock_t dead = arp_clock_make(1e-6);
    dead.expired = true;
    expect_int_eq(arp_search_decide(search, 3, &dead, 1e9, UINT64_MAX, at, &nodes), arp_stopped_k);
    arp_search_free(search);
    /* Strips with a decider that never decides: the pinwheel is declined (no cut splits it);
     * guillotine packings are cut apart by the cuts alone. */
    expect_int_eq(arp_strips(&pinwheel, &g, 0, 3, &clock, 1e9, never, offsets), arp_none_k);
    arp_sweep_free(&sweep);
    arp_place_groups_free(&g);
    static ar_place_buffer_t packing[1000];
    static uint64_t planted[1000], placed[1000];
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        require_true(ar_workload_packing(1000, seed, 1 << 20, 1000, packing, planted) ==
                     ar_status_success_k);
        ar_place_problem_t p = {packing, 1000, NULL};
        require_true(arp_place_groups_make(&p, &g, message, sizeof message) == ar_status_success_k);
        undecided_calls = 0;
        arp_result_t cut = arp_strips(&p, &g, 0, 1 << 20, &clock, 1e9, never, placed);
        printf("strips alone, packing of 1000 (seed %llu): %s, the decider asked %d times\n",
               (unsigned long long)seed, cut == arp_found_k ? "found" : "not found",
               undecided_calls);
        if (cut == arp_found_k) {
            expect_true(ar_place_check(&p, placed, 0, NULL));
            expect_u64_eq(ar_place_height(&p, placed), 1 << 20);
        } else {
            expect_true(undecided_calls > 0); /* only a part the decider had to place fails */
        }
        /* lns moves alone, from greedy-by-size, on the packing less a piece (not level): never
         * higher, valid, the same for the same random source. */
        ar_place_problem_t holed = {packing, 999, NULL};
        arp_place_groups_free(&g);
        require_true(arp_place_groups_make(&holed, &g, message, sizeof message) ==
                     ar_status_success_k);
        require_true(arp_sweep_make(&holed, 0, &sweep) == ar_status_success_k);
        expect_int_eq(
            arp_greedy(&holed, &g, &sweep, arp_order_size_k, false, 0, NULL, 0, placed, NULL),
            arp_found_k);
        uint64_t start = ar_place_height(&holed, placed);
        static uint64_t first[1000], second[1000];
        for (int run = 0; run < 2; ++run) {
            uint64_t *buffer_at = run ? second : first;
            memcpy(buffer_at, placed, 999 * sizeof *placed);
            arp_rng_t rng = arp_rng_make(seed);
            arp_lns_t lns = {.goal = sweep.bound, .max_moves = 300};
            expect_int_eq(arp_lns(&holed, &g, &sweep, 0, &lns, &clock, 1e9, &rng, never, buffer_at),
                          arp_found_k);
            expect_u64_le(lns.height, start);
            expect_u64_eq(lns.height, ar_place_height(&holed, buffer_at));
            expect_true(lns.moves <= 300);
            expect_true(ar_place_check(&holed, buffer_at, 0, NULL));
        }
        expect_true(memcmp(first, second, 999 * sizeof *first) == 0);
        arp_sweep_free(&sweep);
        arp_place_groups_free(&g);
    }
}

/* ---- The driver ------------------------------------------------------------------------ */

static bool phases_are(arp_phases_t const *got, arp_phase_t const *want, size_t count) {
    bool same = got->count == count;
    for (size_t k = 0; same && k < count; ++k) same = got->phase[k] == want[k];
    if (!same) {
        printf("phases:");
        for (size_t k = 0; k < got->count; ++k) printf(" %d", (int)got->phase[k]);
        printf("\n");
    }
    return same;
}

static void expect_driver_order(void) {
    /* A random problem the heuristics leave above the bound: search runs the heuristics,
     * strips, perturbed orders and the tree; lns its orders, then the search's phases. A tick
     * clock with a limit to spare decides the same every run. */
    uint64_t state = 99;
    static ar_place_buffer_t rows[60];
    static uint64_t offsets[60];
    ar_place_problem_t p = {rows, 60, NULL};
    ar_place_options_t options;
    ar_place_result_t result;
    arp_phases_t phases;
    for (int tries = 0;; ++tries) {
        require_true(tries < 1000);
        place_test_random(&state, rows, 60, 30, 50, false, false);
        ar_place_options_default(&options);
        ar_place_result_t greedy;
        expect_int_eq(ar_place(&p, &options, offsets, &greedy), ar_status_success_k);
        if (greedy.height > greedy.lower_bound) break;
    }
    options.strategy = ar_place_search_k;
    options.time_limit_s = 1;
    arp_clock_t clock = arp_clock_make(1e-3);
    phases.count = 0;
    expect_int_eq(arp_place_with(&p, &options, &clock, &phases, offsets, &result),
                  ar_status_success_k);
    arp_phase_t const search[] = {arp_phase_greedy_k, arp_phase_strips_k, arp_phase_perturbed_k,
                                  arp_phase_tree_k};
    expect_true(phases_are(&phases, search, 4));
    options.strategy = ar_place_lns_k;
    clock = arp_clock_make(1e-3);
    phases.count = 0;
    expect_int_eq(arp_place_with(&p, &options, &clock, &phases, offsets, &result),
                  ar_status_success_k);
    expect_true(phases_are(&phases, search, 4) ||
                (phases.count == 5 && phases.phase[4] == arp_phase_moves_k));
    /* A perfect packing: the heuristics, then strips, which meets the bound: nothing else. */
    static ar_place_buffer_t packing[300];
    static uint64_t planted[300], placed[300];
    require_true(ar_workload_packing(300, 1, 1 << 20, 1000, packing, planted) ==
                 ar_status_success_k);
    ar_place_problem_t level = {packing, 300, NULL};
    options.strategy = ar_place_search_k;
    clock = arp_clock_make(1e-3);
    phases.count = 0;
    expect_int_eq(arp_place_with(&level, &options, &clock, &phases, placed, &result),
                  ar_status_success_k);
    expect_u64_eq(result.height, 1 << 20);
    expect_true(phases_are(&phases, search, 2));
    /* A trace too large for a node of the tree: lns moves take its place (a tick clock: the
     * heuristics, some perturbed orders within their twentieth, then 50 moves). */
    enum { N = 1 << 15 };
    static ar_place_buffer_t trace[N];
    static uint64_t trace_at[N];
    synthetic_trace(3, trace, N);
    ar_place_problem_t large = {trace, N, NULL};
    options.strategy = ar_place_search_k;
    options.time_limit_s = 60;
    options.max_moves = 50;
    clock = arp_clock_make(1e-3);
    phases.count = 0;
    expect_int_eq(arp_place_with(&large, &options, &clock, &phases, trace_at, &result),
                  ar_status_success_k);
    expect_true(ar_place_check(&large, trace_at, 0, NULL));
    arp_phase_t const large_search[] = {arp_phase_greedy_k, arp_phase_strips_k,
                                        arp_phase_perturbed_k, arp_phase_moves_k};
    expect_true(phases_are(&phases, large_search, 4));
    expect_true(result.nodes > 0 && result.nodes <= 50); /* moves made */
}

/* Every strategy on a clock that dies after K reads, under a limit of 10^9 s: it returns a
 * valid placement, reading the dead clock only a few times more. */
static void expect_dead_clock_stops_every_phase(void) {
    enum { N = 1 << 14 };
    static ar_place_buffer_t trace[N], packing[3000];
    static uint64_t offsets[N], planted[3000];
    synthetic_trace(5, trace, N);
    require_true(ar_workload_packing(3000, 2, 1 << 20, 1000, packing, planted) ==
                 ar_status_success_k);
    ar_place_problem_t problems[] = {{trace, N, NULL}, {packing, 2999, NULL}};
    char const *names[] = {"trace of 16384", "packing of 3000 less a piece"};
    uint64_t const ks[] = {1, 2, 3, 5, 9, 17, 40};
    for (size_t q = 0; q < 2; ++q) {
        uint64_t most = 0;
        for (int s = 0; s < ar_place_strategy_count_k; ++s)
            for (size_t k = 0; k < sizeof ks / sizeof *ks; ++k) {
                ar_place_options_t options;
                ar_place_options_default(&options);
                options.strategy = (ar_place_strategy_t)s;
                options.time_limit_s = 1e9;
                arp_clock_t clock = arp_clock_make(0);
                clock.expire_after = ks[k];
                ar_place_result_t result;
                expect_int_eq(
                    arp_place_with(&problems[q], &options, &clock, NULL, offsets, &result),
                    ar_status_success_k);
                expect_true(ar_place_check(&problems[q], offsets, 0, NULL));
                expect_u64_eq(result.height, ar_place_height(&problems[q], offsets));
                uint64_t after = clock.reads > ks[k] ? clock.reads - ks[k] : 0;
                if (after > most) most = after;
                if (after > 64)
                    printf("strategy %d K %llu: %llu reads after\n", s, (unsigned long long)ks[k],
                           (unsigned long long)after);
                expect_true(after <= 64);
            }
        printf("%s: every strategy, dead after 1-40 reads: valid, at most %llu reads after\n",
               names[q], (unsigned long long)most);
    }
}

int main(void) {
    expect_greedy_is_reference();
    expect_work_n_log_n();
    expect_engines_alone();
    expect_driver_order();
    expect_dead_clock_stops_every_phase();
    return expect_finish();
}
