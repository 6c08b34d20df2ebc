/* Property test on thousands of seeded random small plans (windows, globals, phases sharing
 * bytes, words in and out of windows, nested deltas and frames repeats, repeated references):
 *  1. soundness: certificate 0 => exact 0, and per site accepted => accepted by the oracle;
 *  2. A/B agree; when the certificate's (C) passes the verdicts are equal; when the exact (C)
 *     breaks at launch j, the certificate's breaks at a launch <= j;
 *  3. rule D's walker equals its naive twin: same break, k and counts;
 *  4. monotone in `few`: raising it never rejects an accepted site;
 *  5. precise where it should be: no word named twice and few >= every repeat's iterations
 *     gives the exact oracle's verdict;
 *  6. in-place updates (`becomes`): on plans built for rule D (values updated in place inside
 *     and across nested repeats, read under the old name or the new), the walker equals its
 *     naive twin (break, k, counts, whether the value there came from an update), and the
 *     certificate's and the exact oracle's verdicts are 2 + n + k; some updates say what they
 *     read across elements and write (`reads`/`writes`: absent, empty, disjoint, touching or
 *     sharing bytes), so the twin also checks which update breaks D by reading bytes it writes
 *     (plane, read and write) and the verdicts still agree.
 * A failure prints the seed; `test_property SEED` reruns one plan (`test_property u SEED`, one
 * plan of part 6). */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../ref/src/cert/certify_internal.h"
#include "arenaref/plan.h"
#include "expect.h"
#include "cert_test_util.h"

#define PLANS 20000

typedef struct generated_t {
    ar_plan_t *plan;
    bool double_named; /* some word is named by two repeats */
    uint64_t max_iterations;
} generated_t;

static uint64_t random_word(ar_plan_t const *plan) {
    switch (below(8)) {
    case 0: return 0x1000 + 16 * below(0x300);               /* anywhere in the windows */
    case 1: return below(2) ? 0x100 : 0xffffffffffffff00ull; /* far outside */
    case 2: {
        slot_t const *s = &slots[below(SLOTS)];
        return s->base + s->size; /* one past a slot */
    }
    case 3: {
        slot_t const *s = &slots[below(SLOTS)];
        return s->base + s->size - 1;
    }
    case 4: return plan->globals_count ? plan->globals[below(plan->globals_count)].base : 0x1000;
    default: {
        slot_t const *s = &slots[below(SLOTS)];
        return s->base + 16 * below(s->size / 16);
    }
    }
}

static int64_t random_shift(void) {
    static int64_t const shifts[] = {0,    16,    -16,       0x40,      -0x40,
                                     0x80, 0x100, INT64_MAX, INT64_MIN, 0x7000000000000000};
    return shifts[below(sizeof shifts / sizeof shifts[0])];
}

/* Valid cut points of the schedule: not strictly inside any repeat. */
static bool cuttable(size_t cut, size_t const (*repeats)[2], size_t count) {
    for (size_t r = 0; r < count; ++r)
        if (cut > repeats[r][0] && cut < repeats[r][0] + repeats[r][1]) return false;
    return true;
}

static generated_t generate(void) {
    generated_t g = {0};
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    g.plan = plan;
    ar_plan_set_alignment(plan, chance(10) ? 0x80 : 16);
    ar_plan_add_window(plan, 0x1000, 0x1000 + 0x100 * below(20));
    if (chance(40)) ar_plan_add_window(plan, 0x2000 + 0x80 * below(8), 0x400);
    if (chance(5)) ar_plan_add_window(plan, 0xfffffffffffff000ull, 0x1000);
    size_t globals = below(3);
    for (size_t i = 0; i < globals; ++i) {
        uint64_t base = chance(90) ? 0x1000 + 0x400 * i : 0x1100 + 8 * below(4);
        ar_plan_add_global(plan, i ? "bias" : "weights", base, chance(95) ? 0x200 : 0);
    }
    size_t phases = 1 + below(3);
    for (size_t p = 0; p < phases; ++p) {
        ar_plan_add_phase(plan, phase_ids[p]);
        size_t planes = below(4);
        uint64_t used[SLOTS][2];
        size_t used_count = 0;
        for (size_t k = 0; k < planes; ++k) {
            slot_t const *s = &slots[below(SLOTS)];
            bool clash = false;
            for (size_t u = 0; u < used_count; ++u)
                if (s->base < used[u][0] + used[u][1] && used[u][0] < s->base + s->size)
                    clash = true;
            if (clash && chance(95)) continue;
            used[used_count][0] = s->base, used[used_count][1] = s->size, ++used_count;
            ar_plan_add_plane(plan, s->name, s->base, s->size, chance(50));
        }
    }
    size_t launches = 1 + below(6);
    for (size_t l = 0; l < launches; ++l) {
        uint64_t words[4];
        size_t count = below(4);
        for (size_t w = 0; w < count; ++w) words[w] = random_word(plan);
        char const *phase = phase_ids[below(phases)];
        if (chance(3))
            phase = NULL;
        else if (chance(3))
            phase = "ghost";
        ar_plan_add_launch(plan, "k", phase, words, count, NULL);
    }
    /* Up to two repeats: nested (strictly) or disjoint. */
    size_t ranges[2][2];
    size_t repeats = 0;
    if (chance(70)) {
        size_t first = below(launches), count = 1 + below(launches - first);
        ranges[repeats][0] = first, ranges[repeats][1] = count, ++repeats;
        if (chance(50)) {
            size_t f2, c2;
            if (count >= 2 && chance(60)) { /* strictly inside */
                c2 = 1 + below(count - 1);
                f2 = first + below(count - c2 + 1);
            } else { /* disjoint, when there is room */
                f2 = first + count;
                c2 = f2 < launches ? 1 + below(launches - f2) : 0;
            }
            if (c2) ranges[repeats][0] = f2, ranges[repeats][1] = c2, ++repeats;
        }
    }
    for (size_t r = 0; r < repeats; ++r) {
        uint64_t iterations = chance(80) ? 1 + below(5) : 1 + below(24);
        if (iterations > g.max_iterations) g.max_iterations = iterations;
        size_t first = ranges[r][0], count = ranges[r][1];
        bool frames = chance(40);
        /* Entries: distinct (launch, word) of the body. */
        ar_shift_t entries[16];
        size_t entries_count = 0;
        for (size_t l = first; l < first + count; ++l) {
            ar_launch_t const *launch = &plan->launches[l];
            for (size_t w = 0; w < launch->words_count && entries_count < 16; ++w)
                if (chance(60)) entries[entries_count++] = (ar_shift_t){l, w, random_shift()};
        }
        if (!frames) {
            ar_plan_add_repeat_deltas(plan, first, count, iterations, entries, entries_count);
        } else {
            ar_plan_add_repeat_frames(plan, first, count, iterations);
            for (uint64_t f = 0; f < iterations; ++f) {
                ar_shift_t frame[16];
                size_t n = 0;
                for (size_t e = 0; e < entries_count; ++e)
                    if (chance(70)) frame[n] = entries[e], frame[n].shift = random_shift(), ++n;
                ar_plan_add_frame(plan, frame, n);
            }
        }
    }
    if (repeats == 2 && ranges[1][0] >= ranges[0][0] &&
        ranges[1][0] + ranges[1][1] <= ranges[0][0] + ranges[0][1]) {
        /* Nested: a word both repeats list is named twice. */
        for (size_t a = 0; a < plan->repeats[0].shifts_count; ++a)
            for (size_t b = 0; b < plan->repeats[1].shifts_count; ++b) {
                ar_shift_t const *x = &plan->shifts[plan->repeats[0].shifts_first + a];
                ar_shift_t const *y = &plan->shifts[plan->repeats[1].shifts_first + b];
                if (x->launch == y->launch && x->word == y->word) g.double_named = true;
            }
    }
    /* References between cut points; some repeated back to back. */
    size_t references = 1 + below(5);
    for (size_t s = 0; s < references; ++s) {
        size_t a, b, tries = 0;
        do {
            a = below(launches), b = a + 1 + below(launches - a);
        } while ((!cuttable(a, (size_t const(*)[2])ranges, repeats) ||
                  !cuttable(b, (size_t const(*)[2])ranges, repeats)) &&
                 ++tries < 50);
        if (tries >= 50) a = 0, b = launches;
        size_t copies = chance(30) ? 2 + below(4) : 1;
        for (size_t c = 0; c < copies; ++c) ar_plan_add_reference(plan, a, b - a);
    }
    /* A block of the last 2 or 3 references repeated back to back (a decode loop's shape). */
    size_t period = 2 + below(2);
    if (chance(30) && plan->schedule_count >= period) {
        size_t from = plan->schedule_count - period, copies = 1 + below(4);
        for (size_t c = 0; c < copies; ++c)
            for (size_t t = 0; t < period; ++t)
                ar_plan_add_reference(plan, plan->schedule[from + t].first,
                                      plan->schedule[from + t].count);
    }
    return g;
}

static ar_certify_report_t run(ar_plan_t const *plan, uint64_t few, bool exact, bool all_sites) {
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.few = few, options.exact = exact, options.all_sites = all_sites;
    ar_certify_report_t report;
    ar_status_t status = ar_certify(plan, &options, &report);
    if (status != ar_status_success_k) fprintf(stderr, "certify: %s\n", report.message);
    require_true(status == ar_status_success_k);
    return report;
}

/* The first launch breaking C, or n when C passed (or was not reached: A/B). */
static uint64_t c_launch(ar_certify_report_t const *r, size_t n) {
    return r->rule == ar_rule_c_k ? r->launch : n;
}

static int check_one(uint64_t seed, size_t *finished, size_t *stats) {
    rng_state = seed;
    int before = expect_failures_;
    generated_t g = generate();
    ar_plan_t *plan = g.plan;
    ar_plan_error_t error;
    if (ar_plan_finish(plan, &error) != ar_status_success_k) {
        ar_plan_free(plan);
        return 0;
    }
    ++*finished;
    size_t n = plan->launches_count;
    uint64_t few = (uint64_t[]){1, 2, 3, 5, 16}[below(5)];
    ar_certify_report_t cert = run(plan, few, false, false);
    ar_certify_report_t exact = run(plan, few, true, false);
    char text[48];
    arp_u128_decimal(cert.verdict, text, sizeof text);
    expect_str_eq(cert.verdict_text, text);
    ++stats[cert.rule];

    /* 1, 2 */
    if (cert.verdict == 0) expect_u64_eq(exact.verdict, 0);
    expect_int_eq(cert.verdict == 1, exact.verdict == 1);
    if (cert.rule != ar_rule_c_k) expect_u64_eq(cert.verdict, exact.verdict);
    if (exact.rule == ar_rule_c_k) {
        expect_int_eq(cert.rule, ar_rule_c_k);
        expect_u64_le(cert.launch, exact.launch);
    }
    if (cert.rule == ar_rule_c_k && cert.verdict != exact.verdict) ++stats[5]; /* false rejection */

    /* 3: fast D == naive D, where B holds. */
    if (cert.verdict != 1) {
        arp_rule_d_t fast, naive;
        require_true(arp_rule_d(plan, &fast) == ar_status_success_k);
        require_true(arp_rule_d_naive(plan, ARP_NAIVE_D_LAUNCH_LIMIT, &naive) ==
                     ar_status_success_k);
        expect_int_eq(fast.broken, naive.broken);
        expect_u64_eq((uint64_t)fast.instances, (uint64_t)naive.instances);
        if (fast.broken && naive.broken) {
            expect_u64_eq((uint64_t)fast.instance, (uint64_t)naive.instance);
            expect_size_eq(fast.plane, naive.plane);
        } else {
            expect_u64_eq((uint64_t)fast.executed_launches, (uint64_t)naive.executed_launches);
        }
    }

    /* 1 per site, 4: with all_sites, accepted sites grow with few and never pass the exact. */
    if (cert.verdict != 1) {
        ar_certify_report_t lo = run(plan, few, false, true), hi = run(plan, few + 5, false, true);
        ar_certify_report_t ex = run(plan, few, true, true);
        expect_u64_eq(lo.sites_checked, ex.sites_checked);
        expect_u64_le(lo.sites_accepted, hi.sites_accepted);
        expect_u64_le(hi.sites_accepted, ex.sites_accepted);
        expect_u64_le(c_launch(&lo, n), c_launch(&hi, n));
        expect_u64_eq(lo.verdict, cert.verdict);
    }

    /* 5 */
    if (!g.double_named) {
        ar_certify_report_t precise = run(plan, g.max_iterations, false, false);
        expect_u64_eq(precise.verdict, exact.verdict);
    }
    ar_plan_free(plan);
    if (expect_failures_ != before) {
        fprintf(stderr,
                "property failed for seed %" PRIu64 " (few %" PRIu64
                "): cert %s [%s] exact %s [%s]\n",
                seed, few, cert.verdict_text, cert.message, exact.verdict_text, exact.message);
        return 1;
    }
    return 0;
}

/* ---- 6: in-place updates -------------------------------------------------------------- */

#define UPDATE_PLANS 20000

/* Values at the same bytes under three names, the same name elsewhere and at another size, and
 * a bystander: updates chain, and reading the old name (or a name from elsewhere) breaks D. */
static slot_t const update_slots[] = {
    {"x", 0x2000, 0x100}, {"y", 0x2000, 0x100}, {"z", 0x2000, 0x100}, {"x", 0x2100, 0x100},
    {"y", 0x2100, 0x100}, {"t", 0x2200, 0x100}, {"x", 0x2000, 0x80},
};
#define UPDATE_SLOTS (sizeof update_slots / sizeof update_slots[0])

typedef struct update_stats_t {
    size_t plans, with_becomes, becomes_in_repeat, broken, broken_by_update;
    size_t with_lists, broken_by_cross, cross_phase_unreached;
} update_stats_t;

/* A random `reads` or `writes` list for a plane of `size` bytes: 0 to 3 ranges, small ones at
 * any byte (so they overlap, touch or miss), now and then the whole plane. */
static void random_list(uint64_t size, bool writes, ar_plan_t *plan) {
    ar_plane_range_t ranges[3];
    size_t count = below(4);
    for (size_t k = 0; k < count; ++k) {
        uint64_t offset = chance(50) ? 8 * below(size / 8) : below(size);
        uint64_t length = (uint64_t[]){1, 8, 32, 64}[below(4)];
        if (chance(10)) offset = 0, length = size;
        if (length > size - offset) length = size - offset;
        ranges[k] = (ar_plane_range_t){offset, length};
    }
    require_true((writes ? ar_plan_set_plane_writes
                         : ar_plan_set_plane_reads)(plan, ranges, count) == ar_status_success_k);
}

static bool valid_repeat(size_t first, size_t count, size_t const (*ranges)[2], size_t n) {
    for (size_t r = 0; r < n; ++r) {
        size_t f = ranges[r][0], e = f + ranges[r][1], g = first + count;
        bool disjoint = g <= f || e <= first;
        bool inside = f <= first && g <= e && count < ranges[r][1];
        bool around = first <= f && e <= g && ranges[r][1] < count;
        if (!disjoint && !inside && !around) return false;
    }
    return true;
}

static ar_plan_t *generate_updates(bool *in_repeat) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 16);
    size_t phases = 2 + below(3);
    bool updates[4] = {false};
    for (size_t p = 0; p < phases; ++p) {
        ar_plan_add_phase(plan, phase_ids[p]);
        size_t planes = 1 + below(3);
        uint64_t used[3][2];
        size_t used_count = 0;
        for (size_t k = 0; k < planes; ++k) {
            /* Mostly the three names over one range, where the first phase declares x. */
            slot_t const *s = &update_slots[p == 0 && k == 0 ? 0
                                            : chance(60)     ? below(3)
                                                             : below(UPDATE_SLOTS)];
            bool clash = false;
            for (size_t u = 0; u < used_count; ++u)
                if (s->base < used[u][0] + used[u][1] && used[u][0] < s->base + s->size)
                    clash = true;
            if (clash) continue;
            used[used_count][0] = s->base, used[used_count][1] = s->size, ++used_count;
            bool carried = p > 0 && chance(65);
            char const *becomes = NULL;
            if (carried && chance(55)) becomes = (char const *[]){"x", "y", "z"}[below(3)];
            updates[p] |= becomes && strcmp(becomes, s->name) != 0;
            ar_plan_add_plane_becomes(plan, s->name, s->base, s->size, carried, becomes);
            if (becomes && chance(50)) {
                if (chance(80)) random_list(s->size, false, plan);
                if (chance(70)) random_list(s->size, true, plan);
            }
        }
    }
    size_t launches = 2 + below(7);
    for (size_t l = 0; l < launches; ++l)
        ar_plan_add_launch(plan, "k", phase_ids[l == 0 ? 0 : below(phases)], NULL, 0, NULL);
    /* Up to three repeats, disjoint or strictly nested. */
    size_t ranges[3][2], repeats = 0;
    for (size_t tries = 0; tries < 6 && repeats < 3; ++tries) {
        if (!chance(60)) continue;
        size_t first = below(launches), count = 1 + below(launches - first);
        if (!valid_repeat(first, count, (size_t const(*)[2])ranges, repeats)) continue;
        ranges[repeats][0] = first, ranges[repeats][1] = count, ++repeats;
        ar_plan_add_repeat_deltas(plan, first, count, 1 + below(5), NULL, 0);
        for (size_t l = first; l < first + count; ++l)
            *in_repeat |= updates[plan->launches[l].phase_name[1] - '0'];
    }
    size_t references = 1 + below(4);
    for (size_t s = 0; s < references; ++s) {
        size_t a, b, tries = 0;
        do {
            a = s == 0 && chance(70) ? 0 : below(launches), b = a + 1 + below(launches - a);
        } while ((!cuttable(a, (size_t const(*)[2])ranges, repeats) ||
                  !cuttable(b, (size_t const(*)[2])ranges, repeats)) &&
                 ++tries < 50);
        if (tries >= 50) a = 0, b = launches;
        size_t copies = chance(30) ? 2 + below(3) : 1;
        for (size_t c = 0; c < copies; ++c) ar_plan_add_reference(plan, a, b - a);
    }
    return plan;
}

static int check_updates(uint64_t seed, update_stats_t *stats) {
    rng_state = seed;
    int before = expect_failures_;
    bool in_repeat = false;
    ar_plan_t *plan = generate_updates(&in_repeat);
    ar_plan_error_t error;
    if (ar_plan_finish(plan, &error) != ar_status_success_k) {
        fprintf(stderr, "seed %" PRIu64 ": %s\n", seed, error.message);
        expect_true(false); /* the generator builds well-formed plans */
        ar_plan_free(plan);
        return 1;
    }
    ++stats->plans;
    stats->with_becomes += plan->updates_count > 0;
    stats->with_lists += plan->plane_access != NULL;
    stats->becomes_in_repeat += in_repeat;
    arp_rule_d_t fast, naive;
    require_true(arp_rule_d(plan, &fast) == ar_status_success_k);
    require_true(arp_rule_d_naive(plan, ARP_NAIVE_D_LAUNCH_LIMIT, &naive) == ar_status_success_k);
    expect_int_eq(fast.broken, naive.broken);
    expect_u64_eq((uint64_t)fast.instances, (uint64_t)naive.instances);
    if (!fast.broken)
        expect_u64_eq((uint64_t)fast.executed_launches, (uint64_t)naive.executed_launches);
    char expected[64] = "0";
    if (fast.broken && naive.broken) {
        expect_u64_eq((uint64_t)fast.instance, (uint64_t)naive.instance);
        expect_size_eq(fast.plane, naive.plane);
        expect_int_eq(fast.cross, naive.cross);
        if (fast.cross && naive.cross) {
            expect_size_eq(fast.read, naive.read);
            expect_size_eq(fast.write, naive.write);
            expect_str_eq(fast.message, naive.message);
        }
        stats->broken_by_cross += fast.cross;
        /* The value over the carried plane came from updating that very value in place. */
        bool direct =
            strstr(fast.message, "updated in place into") && strstr(fast.message, "which instance");
        expect_int_eq(direct, strstr(naive.message, "it was updated in place") != NULL);
        ++stats->broken;
        stats->broken_by_update += strstr(fast.message, "updated in place") != NULL;
        decimal((u128)fast.instance + 2 + plan->launches_count, expected);
    }
    ar_certify_report_t cert = run(plan, 16, false, false), exact = run(plan, 16, true, false);
    expect_str_eq(cert.verdict_text, expected);
    expect_str_eq(exact.verdict_text, expected);
    if (fast.broken) expect_str_eq(cert.message, fast.message);
    /* A phase that reads across elements bytes it writes breaks D at its first instance: when D
     * holds, no such phase ran (some plans have one the schedule never reaches). */
    if (!fast.broken && plan->plane_access) {
        bool crossing = false;
        for (size_t i = 0; i < plan->planes_count; ++i) {
            ar_plane_access_t const *a = &plan->plane_access[i];
            for (size_t r = 0; a->has_reads && r < a->reads_count; ++r) {
                ar_plane_range_t const *x = &plan->plane_ranges[a->reads_first + r];
                crossing |= !a->has_writes;
                for (size_t w = 0; a->has_writes && w < a->writes_count; ++w) {
                    ar_plane_range_t const *y = &plan->plane_ranges[a->writes_first + w];
                    crossing |= x->offset < y->offset + y->size && y->offset < x->offset + x->size;
                }
            }
        }
        stats->cross_phase_unreached += crossing;
    }
    ar_plan_free(plan);
    if (expect_failures_ != before) {
        fprintf(stderr, "update property failed for seed %" PRIu64 ": fast [%s] naive [%s]\n", seed,
                fast.message, naive.message);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    size_t finished = 0, stats[6] = {0};
    update_stats_t updates = {0};
    if (argc > 2 && strcmp(argv[1], "u") == 0) {
        check_updates(strtoull(argv[2], NULL, 0), &updates);
        return expect_finish();
    }
    if (argc > 1) {
        check_one(strtoull(argv[1], NULL, 0), &finished, stats);
        return expect_finish();
    }
    int failed = 0;
    for (uint64_t seed = 1; seed <= PLANS && failed < 5; ++seed)
        failed += check_one(seed * 7919, &finished, stats);
    printf("%zu of %d plans well formed; verdicts: certified %zu, A %zu, B %zu, C %zu, D %zu; "
           "false rejections %zu\n",
           finished, PLANS, stats[0], stats[1], stats[2], stats[3], stats[4], stats[5]);
    /* The generator must exercise every rule, or the properties say little. */
    expect_true(finished > PLANS / 2);
    for (int rule = 0; rule <= 5; ++rule) expect_u64_gt(stats[rule], 10);

    failed = 0;
    for (uint64_t seed = 1; seed <= UPDATE_PLANS && failed < 5; ++seed)
        failed += check_updates(seed * 104729, &updates);
    printf("in-place updates: %zu plans, %zu with becomes (%zu updating inside a repeat), %zu "
           "break D, %zu of them through an update; %zu with reads/writes, %zu break D by reading "
           "across elements bytes they write (%zu hold a phase that would, never run); %d failed "
           "a property\n",
           updates.plans, updates.with_becomes, updates.becomes_in_repeat, updates.broken,
           updates.broken_by_update, updates.with_lists, updates.broken_by_cross,
           updates.cross_phase_unreached, failed);
    expect_u64_gt(updates.with_becomes, UPDATE_PLANS / 4);
    expect_u64_gt(updates.becomes_in_repeat, UPDATE_PLANS / 10);
    expect_u64_gt(updates.broken_by_update, UPDATE_PLANS / 20);
    expect_u64_gt(updates.plans - updates.broken, UPDATE_PLANS / 20); /* some pass */
    expect_u64_gt(updates.with_lists, UPDATE_PLANS / 10);
    expect_u64_gt(updates.broken_by_cross, UPDATE_PLANS / 100);
    expect_u64_gt(updates.with_lists - updates.broken_by_cross, UPDATE_PLANS / 40);
    return expect_finish();
}
