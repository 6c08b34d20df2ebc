/* A steady loop allocates once it reaches its high-water mark: calls over batches of varying
 * size (a cycle that peaks mid-way) grow the arena while the batches set new highs, then never
 * again: `growths` and `reserved` stay constant over every later cycle, the outputs of every
 * call are right, and `high_water` equals the largest bytes one call wrote. A batch larger
 * than everything before grows it exactly once more. Run with and without an executor. */
#include "arena_test_util.h"
#include "expect.h"

static void steady(ar_executor_t executor, bool deferred) {
    size_t const cycle[] = {3, 40, 7, 64, 1, 0, 33, 64, 12, 50};
    size_t const cycle_length = sizeof cycle / sizeof cycle[0];
    test_tape_t tapes[sizeof cycle / sizeof cycle[0]];
    for (size_t k = 0; k < cycle_length; ++k) tapes[k] = test_tape_simple(cycle[k], 100 + k);

    ar_arena_t arena = NULL;
    ar_outcome_t outcome = {0};
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor, .outcome = &outcome});
    require_true(arena != NULL);
    ar_arena_stats_t stats, after_warm_up = {0};
    uint64_t largest_written = 0;
    void *first_data = NULL;
    for (size_t round = 0; round < 5; ++round) {
        for (size_t k = 0; k < cycle_length; ++k) {
            ar_rows_view_t embeddings;
            ar_rows_tape_view_t states;
            ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                               .arena = arena,
                                               .texts = tapes[k].view,
                                               .dimensions = 24,
                                               .deferred = deferred,
                                               .embeddings = &embeddings,
                                               .states = &states,
                                               .outcome = &outcome});
            if (deferred && executor) ar_outcome_wait(&outcome);
            expect_int_eq(outcome.status, ar_status_success_k);
            expect_size_eq(test_embedding_mismatches(&tapes[k], &embeddings, 24), 0);
            expect_size_eq(test_state_mismatches(&tapes[k], &states, 24), 0);
            ar_arena_stats(arena, &stats);
            if (stats.bytes_written_last_call > largest_written)
                largest_written = stats.bytes_written_last_call;
            expect_u64_eq(stats.high_water, largest_written);
            expect_u64_le(stats.high_water, stats.reserved);
            if (round > 0) {
                /* After the first cycle (warm-up) nothing allocates: same memory, same counts. */
                expect_u64_eq(stats.growths, after_warm_up.growths);
                expect_u64_eq(stats.reserved, after_warm_up.reserved);
                expect_ptr_eq(embeddings.data, first_data);
            }
        }
        if (round == 0) {
            ar_arena_stats(arena, &after_warm_up);
            /* Growth happens only when a call outsizes everything before: 3, 40, 64 items here
             * (the second 64 fits), so at most 3 allocations. */
            expect_u64_ge(after_warm_up.growths, 1);
            expect_u64_le(after_warm_up.growths, 3);
            ar_rows_view_t probe;
            ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                               .arena = arena,
                                               .texts = tapes[0].view,
                                               .dimensions = 24,
                                               .embeddings = &probe,
                                               .outcome = &outcome});
            first_data = probe.data;
            ar_arena_stats(arena, &after_warm_up);
        }
    }
    expect_u64_eq(stats.calls, 5 * cycle_length + 1);

    /* A larger batch than ever: exactly one more growth, then steady again. */
    test_tape_t big = test_tape_simple(200, 3);
    for (int k = 0; k < 3; ++k) {
        ar_rows_view_t embeddings;
        ar_rows_tape_view_t states;
        ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                           .arena = arena,
                                           .texts = big.view,
                                           .dimensions = 24,
                                           .embeddings = &embeddings,
                                           .states = &states,
                                           .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_success_k);
        ar_arena_stats(arena, &stats);
        expect_u64_eq(stats.growths, after_warm_up.growths + 1);
        expect_size_eq(test_state_mismatches(&big, &states, 24), 0);
    }
    test_tape_free(&big);
    for (size_t k = 0; k < cycle_length; ++k) test_tape_free(&tapes[k]);
    ar_arena_free(arena);
}

int main(void) {
    steady(NULL, false);
    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1});
    require_true(executor != NULL);
    steady(executor, false);
    steady(executor, true);
    ar_executor_free(executor);
    return expect_finish();
}
