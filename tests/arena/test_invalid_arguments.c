/* invalid_argument: a NULL arena, a NULL required output, dimensions 0, counts that do not
 * match, malformed offsets, NULL token data; each with a message naming what is wrong, the
 * outputs zeroed, and the arena untouched (no call counted, previous outputs still current).
 * Also describe/stats/wait with NULL, and executor arguments that name nothing. */
#include "arena_test_util.h"
#include "expect.h"

int main(void) {
    ar_outcome_t outcome = {0};
    test_tape_t tape = test_tape_simple(5, 2);
    ar_rows_view_t embeddings;
    ar_rows_tape_view_t states;

    /* NULL arena */
    memset(&embeddings, 0xAB, sizeof embeddings);
    memset(&states, 0xAB, sizeof states);
    ar_text_encode(&(ar_text_encode_t){.arena = NULL,
                                       .texts = tape.view,
                                       .dimensions = 4,
                                       .embeddings = &embeddings,
                                       .states = &states,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    expect_str_contains(outcome.message, "arena");
    expect_true(test_all_zero(&embeddings, sizeof embeddings));
    expect_true(test_all_zero(&states, sizeof states));
    ar_text_encode(&(ar_text_encode_t){.arena = NULL,
                                       .texts = tape.view,
                                       .dimensions = 4,
                                       .embeddings = &embeddings,
                                       .deferred = true,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    ar_text_encode(NULL); /* nothing to report to: must not crash */
    ar_text_encode(&(ar_text_encode_t){.arena = NULL, .dimensions = 4}); /* NULL outcome */

    ar_arena_t arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    ar_arena_init(&(ar_arena_init_t){.arena = NULL, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);

    /* A good call first, to see that refused calls leave it current. */
    ar_rows_view_t good;
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 4,
                                       .embeddings = &good,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);

    struct {
        char const *why, *message_part;
        ar_text_encode_t call;
    } cases[] = {
        {"NULL embeddings", "embeddings", {.arena = arena, .texts = tape.view, .dimensions = 4}},
        {"zero dimensions",
         "dimensions",
         {.arena = arena, .texts = tape.view, .dimensions = 0, .embeddings = &embeddings}},
        {"count mismatch",
         "count",
         {.arena = arena,
          .texts = tape.view,
          .count = 4,
          .dimensions = 4,
          .embeddings = &embeddings}},
        {"NULL offsets",
         "offsets",
         {.arena = arena,
          .texts = {.data = tape.tokens, .count = 5},
          .dimensions = 4,
          .embeddings = &embeddings}},
        {"NULL data",
         "data",
         {.arena = arena,
          .texts = {.offsets = tape.offsets, .count = 5},
          .dimensions = 4,
          .embeddings = &embeddings}},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        memset(&embeddings, 0xCD, sizeof embeddings);
        cases[k].call.outcome = &outcome;
        ar_text_encode(&cases[k].call);
        if (outcome.status != ar_status_invalid_argument_k)
            fprintf(stderr, "case: %s\n", cases[k].why);
        expect_int_eq(outcome.status, ar_status_invalid_argument_k);
        expect_str_contains(outcome.message, cases[k].message_part);
        if (cases[k].call.embeddings) expect_true(test_all_zero(&embeddings, sizeof embeddings));
    }
    /* decreasing offsets, and an item that is not whole uint32_t ids */
    size_t bad_offsets[3] = {0, 8, 4};
    ar_text_encode(
        &(ar_text_encode_t){.arena = arena,
                            .texts = {.data = tape.tokens, .offsets = bad_offsets, .count = 2},
                            .dimensions = 4,
                            .embeddings = &embeddings,
                            .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    expect_str_contains(outcome.message, "decrease");
    size_t ragged_offsets[3] = {0, 6, 8};
    ar_text_encode(
        &(ar_text_encode_t){.arena = arena,
                            .texts = {.data = tape.tokens, .offsets = ragged_offsets, .count = 2},
                            .dimensions = 4,
                            .embeddings = &embeddings,
                            .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    expect_str_contains(outcome.message, "uint32_t");

    /* Refused calls never ran: one call counted, the good view still current and right. */
    ar_arena_stats_t stats;
    expect_int_eq(ar_arena_stats(arena, &stats), ar_status_success_k);
    expect_u64_eq(stats.calls, 1);
    expect_true(ar_rows_view_current(&good));
    expect_size_eq(test_embedding_mismatches(&tape, &good, 4), 0);

    /* describe, stats, wait with NULL */
    ar_arena_description_t description;
    ar_arena_describe(
        &(ar_arena_describe_t){.arena = NULL, .description = &description, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    ar_arena_describe(
        &(ar_arena_describe_t){.arena = arena, .description = NULL, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    expect_int_eq(ar_arena_stats(NULL, &stats), ar_status_invalid_argument_k);
    expect_int_eq(ar_arena_stats(arena, NULL), ar_status_invalid_argument_k);
    expect_int_eq(ar_outcome_wait(NULL), ar_status_invalid_argument_k);

    /* executors that name nothing */
    ar_executor_t executor = (ar_executor_t)&outcome; /* must be overwritten with NULL */
    ar_executor_init(&(ar_executor_init_t){.executor = &executor,
                                           .residency = ar_residency_ram_k,
                                           .device = 4096,
                                           .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    expect_ptr_null(executor);
    expect_str_contains(outcome.message, "NUMA");
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = (ar_residency_t)7, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    ar_executor_init(&(ar_executor_init_t){.executor = NULL, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    size_t gpus = 99;
    ar_gpu_devices(&(ar_gpu_devices_t){.count = NULL, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    ar_gpu_devices(
        &(ar_gpu_devices_t){.count = &gpus, .capacity = 3, .devices = NULL, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);

    ar_executor_free(NULL);
    ar_arena_free(NULL);
    ar_arena_free(arena);
    test_tape_free(&tape);
    return expect_finish();
}
