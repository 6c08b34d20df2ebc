/* The plan builder and ar_plan_finish: a well-formed plan finishes and resolves launch phases;
 * each structural rule of CERTIFICATE.md §1 is refused with the JSON path its breach would have
 * in the plan's JSON form; builder calls out of order are refused; interning and equality. */
#include <stdint.h>
#include <string.h>

#include "arenaref/plan.h"
#include "cert_test_util.h"
#include "expect.h"

/* A small well-formed plan: 6 launches, a deltas repeat [1,3) nested in a frames repeat [1,4),
 * schedule referencing whole repeats. Each test mutates one thing through `tweak`. */
typedef struct tweak_t {
    uint64_t alignment;
    uint64_t global_size;     /* of "w", at 0x1000 */
    char const *second_phase; /* id of phase 1 */
    size_t outer_first, outer_count;
    uint64_t outer_iterations;
    size_t outer_frames;
    size_t inner_first, inner_count;
    ar_shift_t delta0, delta1;
    ar_shift_t frame_entry;  /* put into frame 0 of the outer repeat */
    ar_shift_t frame_entry2; /* also frame 0 */
    size_t reference_first, reference_count;
    bool extra_repeat;
    size_t extra_first, extra_count;
} tweak_t;

static tweak_t good(void) {
    return (tweak_t){
        .alignment = 256,
        .global_size = 0x100,
        .second_phase = "mlp",
        .outer_first = 1,
        .outer_count = 3,
        .outer_iterations = 2,
        .outer_frames = 2,
        .inner_first = 1,
        .inner_count = 2,
        .delta0 = {1, 0, 16},
        .delta1 = {2, 1, -16},
        .frame_entry = {3, 0, 64},
        .frame_entry2 = {1, 1, 8},
        .reference_first = 0,
        .reference_count = 6,
    };
}

static ar_plan_t *build(tweak_t t) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    require_true(ar_plan_set_alignment(plan, t.alignment) == ar_status_success_k);
    require_true(ar_plan_add_window(plan, 0x1000, 0x10000) == ar_status_success_k);
    require_true(ar_plan_add_global(plan, "w", 0x1000, t.global_size) == ar_status_success_k);
    require_true(ar_plan_add_phase(plan, "attn") == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "qkv", 0x2000, 0x100, false) == ar_status_success_k);
    require_true(ar_plan_add_phase(plan, t.second_phase) == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "h", 0x2000, 0x100, false) == ar_status_success_k);
    require_true(ar_plan_add_plane(plan, "qkv", 0x3000, 0x100, true) == ar_status_success_k);
    uint64_t words[2] = {0x1000, 0x2000};
    char const *phases[6] = {"attn", "attn", "mlp", "mlp", NULL, "nowhere"};
    for (size_t i = 0; i < 6; ++i) {
        size_t index = 99;
        require_true(ar_plan_add_launch(plan, "gemm", phases[i], words, 2, &index) ==
                     ar_status_success_k);
        require_true(index == i);
    }
    require_true(ar_plan_add_repeat_frames(plan, t.outer_first, t.outer_count,
                                           t.outer_iterations) == ar_status_success_k);
    for (size_t f = 0; f < t.outer_frames; ++f) {
        ar_shift_t entries[2] = {t.frame_entry, t.frame_entry2};
        require_true(ar_plan_add_frame(plan, entries, f == 0 ? 2 : 0) == ar_status_success_k);
    }
    ar_shift_t deltas[2] = {t.delta0, t.delta1};
    require_true(ar_plan_add_repeat_deltas(plan, t.inner_first, t.inner_count, 4, deltas, 2) ==
                 ar_status_success_k);
    if (t.extra_repeat)
        require_true(ar_plan_add_repeat_deltas(plan, t.extra_first, t.extra_count, 2, NULL, 0) ==
                     ar_status_success_k);
    require_true(ar_plan_add_reference(plan, t.reference_first, t.reference_count) ==
                 ar_status_success_k);
    require_true(ar_plan_add_reference(plan, 1, 3) == ar_status_success_k);
    return plan;
}

/* Finish a tweaked plan and expect it malformed at `path` (exactly) with `words` in the text. */
static void expect_malformed(tweak_t t, char const *path, char const *words) {
    ar_plan_t *plan = build(t);
    ar_plan_error_t error;
    expect_int_eq(ar_plan_finish(plan, &error), ar_status_invalid_argument_k);
    expect_int_eq(error.status, ar_status_invalid_argument_k);
    expect_str_eq(error.path, path);
    expect_str_contains(error.message, path);
    expect_str_contains(error.message, words);
    expect_int_eq(error.line, 0);
    expect_false(plan->finished);
    ar_plan_free(plan);
}

static void test_good_plan(void) {
    ar_plan_t *plan = build(good());
    ar_plan_error_t error;
    expect_int_eq(ar_plan_finish(plan, &error), ar_status_success_k);
    expect_true(plan->finished);
    expect_size_eq(plan->launches_count, 6);
    expect_size_eq(plan->words_count, 12);
    expect_i64_eq(plan->launches[0].phase, 0);
    expect_i64_eq(plan->launches[2].phase, 1);
    expect_i64_eq(plan->launches[4].phase, -1); /* absent */
    expect_i64_eq(plan->launches[5].phase, -1); /* names no phase: not malformed */
    expect_ptr_null(plan->launches[4].phase_name);
    expect_str_eq(plan->launches[5].phase_name, "nowhere");
    /* Kernel names and plane names are interned: one string each. */
    expect_ptr_eq(plan->launches[0].kernel, plan->launches[5].kernel);
    expect_ptr_eq(plan->planes[0].name, plan->planes[2].name);
    expect_ptr_eq(ar_plan_intern(plan, "gemm"), plan->launches[0].kernel);
    /* Frames layout: frame 0 has 2 entries, frame 1 none. */
    ar_repeat_t const *outer = &plan->repeats[0];
    expect_true(outer->has_frames);
    expect_size_eq(
        plan->frame_starts[outer->frames_first + 1] - plan->frame_starts[outer->frames_first], 2);
    expect_size_eq(plan->frame_starts[outer->frames_first + 2] -
                       plan->frame_starts[outer->frames_first + 1],
                   0);
    expect_size_eq(plan->repeats[1].shifts_count, 2);
    expect_i64_eq(plan->shifts[plan->repeats[1].shifts_first + 1].shift, -16);
    /* After finish the builder refuses everything. */
    expect_int_eq(ar_plan_add_window(plan, 0, 1), ar_status_invalid_argument_k);
    expect_int_eq(ar_plan_finish(plan, &error), ar_status_invalid_argument_k);

    ar_plan_t *same = build(good());
    expect_true(ar_plan_equal(plan, same));
    expect_int_eq(ar_plan_set_meta(same, "{ \"why\" : 1 }"), ar_status_success_k);
    expect_str_eq(same->meta_json, "{\"why\":1}");
    expect_false(ar_plan_equal(plan, same));
    expect_int_eq(ar_plan_set_meta(same, NULL), ar_status_success_k);
    expect_true(ar_plan_equal(plan, same));
    expect_int_eq(ar_plan_set_meta(same, "[1]"), ar_status_invalid_argument_k);
    expect_int_eq(ar_plan_set_meta(same, "{"), ar_status_invalid_argument_k);
    tweak_t t = good();
    t.delta1.shift = -17;
    ar_plan_t *other = build(t);
    expect_false(ar_plan_equal(plan, other));
    ar_plan_free(other);
    ar_plan_free(same);
    ar_plan_free(plan);
}

static void test_out_of_order(void) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    expect_int_eq(ar_plan_add_plane(plan, "p", 0, 1, false), ar_status_invalid_argument_k);
    ar_shift_t entry = {0, 0, 1};
    expect_int_eq(ar_plan_add_frame(plan, &entry, 1), ar_status_invalid_argument_k);
    expect_int_eq(ar_plan_add_repeat_deltas(plan, 0, 1, 1, NULL, 0), ar_status_success_k);
    expect_int_eq(ar_plan_add_frame(plan, &entry, 1), ar_status_invalid_argument_k);
    expect_int_eq(ar_plan_add_global(plan, NULL, 0, 1), ar_status_invalid_argument_k);
    expect_int_eq(ar_plan_add_launch(plan, "k", NULL, NULL, 3, NULL), ar_status_invalid_argument_k);
    ar_plan_error_t error;
    /* Alignment never set (0): malformed. */
    expect_int_eq(ar_plan_finish(plan, &error), ar_status_invalid_argument_k);
    expect_str_eq(error.path, "$.alignment");
    ar_plan_free(plan);
    ar_plan_free(NULL);
    expect_int_eq(ar_plan_finish(NULL, NULL), ar_status_invalid_argument_k);
}

static void test_malformed(void) {
    tweak_t t;
    t = good();
    t.alignment = 3;
    expect_malformed(t, "$.alignment", "power of two");
    t = good();
    t.alignment = 0;
    expect_malformed(t, "$.alignment", "power of two");
    t = good();
    t.global_size = UINT64_MAX;
    expect_malformed(t, "$.globals[0].size", "past 2^64");
    t = good();
    t.second_phase = "attn";
    expect_malformed(t, "$.phases[1].id", "not unique");
    t = good();
    t.outer_frames = 1;
    expect_malformed(t, "$.repeats[0].frames", "1 frames for 2");
    t = good();
    t.outer_frames = 3;
    expect_malformed(t, "$.repeats[0].frames", "3 frames for 2");
    t = good();
    t.outer_iterations = 0;
    t.outer_frames = 0;
    expect_malformed(t, "$.repeats[0].iterations", "iterations is 0");
    t = good();
    t.outer_count = 0;
    expect_malformed(t, "$.repeats[0].count", "count is 0");
    t = good();
    t.outer_first = 4;
    expect_malformed(t, "$.repeats[0]", "past the launch table");
    t = good();
    t.outer_first = 7;
    expect_malformed(t, "$.repeats[0].first", "past the launch");
    t = good();
    t.frame_entry.launch = 4;
    expect_malformed(t, "$.repeats[0].frames[0][0].launch", "outside the repeat's body");
    t = good();
    t.frame_entry2.word = 2;
    expect_malformed(t, "$.repeats[0].frames[0][1].word", "out of range");
    t = good();
    t.frame_entry2 = t.frame_entry;
    expect_malformed(t, "$.repeats[0].frames[0][1]", "appears twice");
    t = good();
    t.delta1 = t.delta0;
    t.delta1.shift = 5;
    expect_malformed(t, "$.repeats[1].deltas[1]", "appears twice");
    t = good();
    t.delta0.launch = 3;
    expect_malformed(t, "$.repeats[1].deltas[0].launch", "outside");
    /* Overlapping without nesting: [1,4) and [2,5). */
    t = good();
    t.extra_repeat = true;
    t.extra_first = 2;
    t.extra_count = 3;
    expect_malformed(t, "$.repeats[2]", "without nesting");
    /* Identical bodies. */
    t = good();
    t.extra_repeat = true;
    t.extra_first = 1;
    t.extra_count = 2;
    expect_malformed(t, "$.repeats[2]", "identical");
    /* Disjoint and strictly nested repeats are fine. */
    t = good();
    t.extra_repeat = true;
    t.extra_first = 4;
    t.extra_count = 2;
    {
        ar_plan_t *plan = build(t);
        expect_int_eq(ar_plan_finish(plan, NULL), 0);
        ar_plan_free(plan);
    }
    t = good();
    t.extra_repeat = true;
    t.extra_first = 2;
    t.extra_count = 1;
    {
        ar_plan_t *plan = build(t);
        expect_int_eq(ar_plan_finish(plan, NULL), 0);
        ar_plan_free(plan);
    }
    /* Schedule: count 0, past the table, cutting a repeat at either end. */
    t = good();
    t.reference_count = 0;
    expect_malformed(t, "$.schedule[0].count", "count is 0");
    t = good();
    t.reference_count = 7;
    expect_malformed(t, "$.schedule[0]", "past the launch table");
    t = good();
    t.reference_first = 2;
    t.reference_count = 4;
    expect_malformed(t, "$.schedule[0]", "cuts repeat");
    t = good();
    t.reference_first = 0;
    t.reference_count = 3;
    expect_malformed(t, "$.schedule[0]", "cuts repeat");
    /* A reference that ends exactly at a body's start, or starts at its end, cuts nothing. */
    t = good();
    t.reference_first = 0;
    t.reference_count = 1;
    {
        ar_plan_t *plan = build(t);
        expect_int_eq(ar_plan_finish(plan, NULL), 0);
        ar_plan_free(plan);
    }
    t = good();
    t.reference_first = 4;
    t.reference_count = 2;
    {
        ar_plan_t *plan = build(t);
        expect_int_eq(ar_plan_finish(plan, NULL), 0);
        ar_plan_free(plan);
    }
}

static void test_ranges(void) {
    /* A range ending exactly at 2^64 is fine; one byte more is malformed. */
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 1);
    ar_plan_add_window(plan, 0, UINT64_MAX);
    ar_plan_add_window(plan, UINT64_MAX, 1);
    ar_plan_add_window(plan, 0x10, UINT64_MAX - 0xf);
    expect_int_eq(ar_plan_finish(plan, NULL), ar_status_success_k);
    ar_plan_free(plan);
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 1);
    ar_plan_add_window(plan, 0, 0);
    ar_plan_add_window(plan, 0x10, UINT64_MAX - 0xe);
    ar_plan_error_t error;
    expect_int_eq(ar_plan_finish(plan, &error), ar_status_invalid_argument_k);
    expect_str_eq(error.path, "$.windows[1].size");
    ar_plan_free(plan);
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 1);
    ar_plan_add_phase(plan, "p");
    ar_plan_add_plane(plan, "a", 0, 1, false);
    ar_plan_add_plane(plan, "b", 2, UINT64_MAX, false);
    expect_int_eq(ar_plan_finish(plan, &error), ar_status_invalid_argument_k);
    expect_str_eq(error.path, "$.phases[0].planes[1].size");
    ar_plan_free(plan);
}

static void test_big_build(void) {
    /* Many launches and interned names: arrays grow, pooled strings never move. */
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 64);
    char const *first = ar_plan_intern(plan, "kernel-0");
    char name[32];
    for (size_t i = 0; i < 20000; ++i) {
        snprintf(name, sizeof name, "kernel-%zu", i % 5000);
        uint64_t words[3] = {i, i + 1, i + 2};
        require_true(ar_plan_add_launch(plan, name, "p", words, 3, NULL) == 0);
    }
    ar_plan_add_reference(plan, 0, 20000);
    expect_int_eq(ar_plan_finish(plan, NULL), ar_status_success_k);
    expect_ptr_eq(plan->launches[0].kernel, first);
    expect_ptr_eq(plan->launches[5000].kernel, first);
    expect_str_eq(first, "kernel-0");
    expect_u64_eq(plan->words[3 * 19999 + 2], 20001);
    ar_plan_free(plan);
}

/* `becomes`: on a carried plane it is kept (and compared by equality); equal to the plane's
 * own name it changes nothing; on a fresh plane finish refuses it at its JSON path. */
static void test_becomes(void) {
    ar_plan_t *plans[2] = {NULL, NULL};
    for (int v = 0; v < 2; ++v) {
        require_true(ar_plan_create(&plans[v]) == ar_status_success_k);
        ar_plan_t *plan = plans[v];
        ar_plan_set_alignment(plan, 16);
        ar_plan_add_phase(plan, "a");
        ar_plan_add_plane(plan, "x", 0, 16, false);
        ar_plan_add_phase(plan, "b");
        expect_int_eq(ar_plan_add_plane_becomes(plan, "x", 0, 16, true, v ? "z" : "y"),
                      ar_status_success_k);
        expect_int_eq(ar_plan_add_plane_becomes(plan, "s", 32, 16, true, "s"), ar_status_success_k);
        ar_plan_add_launch(plan, "k", "a", NULL, 0, NULL);
        ar_plan_add_reference(plan, 0, 1);
        ar_plan_error_t error;
        expect_int_eq(ar_plan_finish(plan, &error), ar_status_success_k);
        expect_str_eq(plan->planes[1].becomes, v ? "z" : "y");
        expect_true(plan->planes[1].updates);
        expect_false(plan->planes[2].updates);
        expect_size_eq(plan->updates_count, 1);
    }
    expect_false(ar_plan_equal(plans[0], plans[1]));
    ar_plan_free(plans[0]), ar_plan_free(plans[1]);

    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 16);
    ar_plan_add_phase(plan, "a");
    ar_plan_add_plane(plan, "w", 64, 16, false);
    ar_plan_add_phase(plan, "b");
    ar_plan_add_plane(plan, "v", 0, 16, true);
    ar_plan_add_plane_becomes(plan, "x", 32, 16, false, "y");
    ar_plan_add_launch(plan, "k", "a", NULL, 0, NULL);
    ar_plan_add_reference(plan, 0, 1);
    ar_plan_error_t error;
    expect_int_eq(ar_plan_finish(plan, &error), ar_status_invalid_argument_k);
    expect_str_eq(error.path, "$.phases[1].planes[1].becomes");
    expect_str_contains(error.message, "fresh plane \"x\"");
    expect_false(plan->finished);
    ar_plan_free(plan);
}

/* A plan with phase a (x fresh) and phase b updating x in place; `lists` picks what b's plane
 * says: 0 nothing, 1 reads [0, 4) and writes [8, 16), 2 reads [0, 4) and writes [4, 12) (they
 * touch, share no byte), 3 reads only (writes absent: the whole plane), 4 empty lists. Planes after it (many) make the access table grow with the planes. */
static ar_plan_t *access_plan(int lists, size_t more_planes) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 16);
    ar_plan_add_phase(plan, "a");
    ar_plan_add_plane(plan, "x", 0, 16, false);
    ar_plan_add_phase(plan, "b");
    ar_plan_add_plane_becomes(plan, "x", 0, 16, true, "y");
    ar_plane_range_t reads[1] = {{0, 4}}, writes[1] = {{lists == 2 ? 4 : 8, 8}};
    if (lists >= 1 && lists <= 3)
        expect_int_eq(ar_plan_set_plane_reads(plan, reads, 1), ar_status_success_k);
    if (lists == 1 || lists == 2)
        expect_int_eq(ar_plan_set_plane_writes(plan, writes, 1), ar_status_success_k);
    if (lists == 4) {
        expect_int_eq(ar_plan_set_plane_reads(plan, NULL, 0), ar_status_success_k);
        expect_int_eq(ar_plan_set_plane_writes(plan, NULL, 0), ar_status_success_k);
    }
    ar_plan_add_phase(plan, "c");
    for (size_t i = 0; i < more_planes; ++i) ar_plan_add_plane(plan, "t", 64 + 16 * i, 16, false);
    ar_plan_add_launch(plan, "k", "a", NULL, 0, NULL);
    ar_plan_add_launch(plan, "k", "b", NULL, 0, NULL);
    ar_plan_add_reference(plan, 0, 2);
    return plan;
}

/* `reads`/`writes` through the builder: kept, compared by equality (absent, empty and listed
 * differ), the first read sharing a byte with a write breaks D at the phase's first instance;
 * calls out of order refused; finish refuses them where the loader would, at the same path. */
static void test_reads_writes(void) {
    ar_plan_t *plans[5];
    for (int v = 0; v < 5; ++v) {
        plans[v] = access_plan(v, v == 1 ? 100 : 0);
        require_finished(plans[v]);
    }
    expect_ptr_null(plans[0]->plane_access);
    require_true(plans[1]->plane_access != NULL);
    expect_false(plans[1]->plane_access[0].has_reads);
    expect_true(plans[1]->plane_access[1].has_reads && plans[1]->plane_access[1].has_writes);
    expect_false(plans[1]->plane_access[101].has_writes); /* grew with the planes */
    for (int a = 0; a < 5; ++a)
        for (int b = 0; b < 5; ++b) expect_int_eq(ar_plan_equal(plans[a], plans[b]), a == b);
    /* Only 3 reads bytes it writes: instance 1 (phase b) breaks D, 2 + 2 + 1. */
    char const *verdicts[5] = {"0", "0", "0", "5", "0"};
    for (int v = 0; v < 5; ++v) {
        ar_certify_report_t report;
        expect_int_eq(ar_certify(plans[v], NULL, &report), ar_status_success_k);
        expect_str_eq(report.verdict_text, verdicts[v]);
        if (v == 3) expect_str_contains(report.message, "writes (absent: the whole plane)");
        ar_plan_free(plans[v]);
    }

    /* Out of order: no plane yet, a plane of an earlier phase, twice, NULL with a count, after
     * finish. */
    ar_plan_t *plan = NULL;
    ar_plane_range_t range = {0, 4};
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    expect_int_eq(ar_plan_set_plane_reads(plan, &range, 1), ar_status_invalid_argument_k);
    ar_plan_add_phase(plan, "a");
    expect_int_eq(ar_plan_set_plane_writes(plan, &range, 1), ar_status_invalid_argument_k);
    ar_plan_add_plane_becomes(plan, "x", 0, 16, true, "y");
    expect_int_eq(ar_plan_set_plane_reads(plan, NULL, 1), ar_status_invalid_argument_k);
    expect_int_eq(ar_plan_set_plane_reads(plan, &range, 1), ar_status_success_k);
    expect_int_eq(ar_plan_set_plane_reads(plan, &range, 1), ar_status_invalid_argument_k);
    ar_plan_add_phase(plan, "b");
    expect_int_eq(ar_plan_set_plane_writes(plan, &range, 1), ar_status_invalid_argument_k);
    ar_plan_set_alignment(plan, 16);
    require_finished(plan);
    expect_int_eq(ar_plan_set_plane_writes(plan, &range, 1), ar_status_invalid_argument_k);
    ar_plan_free(plan);

    /* Malformed, as the loader reads them (no text: no line). */
    struct {
        bool becomes;
        ar_plane_range_t read, write;
        char const *path, *words;
    } const cases[] = {
        {false, {0, 4}, {8, 8}, "$.phases[1].planes[0].reads", "without \"becomes\""},
        {true, {0, 0}, {8, 8}, "$.phases[1].planes[0].reads[0].size", "size 0"},
        {true, {0, 4}, {8, 9}, "$.phases[1].planes[0].writes[0]", "runs past the plane's end"},
        {true, {UINT64_MAX, 1}, {8, 8}, "$.phases[1].planes[0].reads[0]", "past 2^64"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        require_true(ar_plan_create(&plan) == ar_status_success_k);
        ar_plan_set_alignment(plan, 16);
        ar_plan_add_phase(plan, "a");
        ar_plan_add_plane(plan, "x", 0, 16, false);
        ar_plan_add_phase(plan, "b");
        ar_plan_add_plane_becomes(plan, "x", 0, 16, true, cases[c].becomes ? "y" : NULL);
        ar_plan_set_plane_reads(plan, &cases[c].read, 1);
        ar_plan_set_plane_writes(plan, &cases[c].write, 1);
        ar_plan_add_launch(plan, "k", "a", NULL, 0, NULL);
        ar_plan_add_reference(plan, 0, 1);
        ar_plan_error_t error;
        expect_int_eq(ar_plan_finish(plan, &error), ar_status_invalid_argument_k);
        expect_str_eq(error.path, cases[c].path);
        expect_str_contains(error.message, cases[c].words);
        expect_int_eq(error.line, 0);
        ar_plan_free(plan);
    }
}

int main(void) {
    test_reads_writes();
    test_becomes();
    test_good_plan();
    test_out_of_order();
    test_malformed();
    test_ranges();
    test_big_build();
    return expect_finish();
}
