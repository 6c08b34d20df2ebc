/* Inputs inside the arena the call would rewind: feeding a call's own outputs (reinterpreted as
 * a tape) back into the same arena is refused with invalid_argument before anything is
 * written: the earlier outputs stay current and unchanged. Given another arena, the same inputs
 * are fine. Offsets inside the arena, and output structs inside it, are refused too. */
#include "arena_test_util.h"
#include "expect.h"

int main(void) {
    ar_outcome_t outcome = {0};
    ar_arena_t arena = NULL, other = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .outcome = &outcome});
    ar_arena_init(&(ar_arena_init_t){.arena = &other, .outcome = &outcome});
    require_true(arena && other);

    test_tape_t tape = test_tape_simple(8, 4);
    ar_rows_view_t first;
    ar_rows_tape_view_t states;
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 6,
                                       .embeddings = &first,
                                       .states = &states,
                                       .outcome = &outcome});
    require_true(outcome.status == ar_status_success_k);
    size_t const bytes = first.count * first.stride;
    unsigned char *before = malloc(bytes);
    require_true(before != NULL);
    memcpy(before, first.data, bytes);

    /* The embeddings' bytes as token ids: 2 items over the first call's rows. */
    size_t offsets[3] = {0, bytes / 2 / 4 * 4, bytes / 4 * 4};
    ar_tape_view_t inside = {.data = first.data, .offsets = offsets, .count = 2};
    ar_rows_view_t second;
    memset(&second, 0x5A, sizeof second);
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = inside,
                                       .dimensions = 6,
                                       .embeddings = &second,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    expect_str_contains(outcome.message, "inside the arena");
    expect_true(test_all_zero(&second, sizeof second));
    expect_true(ar_rows_view_current(&first));
    expect_true(memcmp(before, first.data, bytes) == 0);
    /* deferred on an executor: refused at submission just the same */
    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1});
    require_true(executor != NULL);
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = inside,
                                       .dimensions = 6,
                                       .embeddings = &second,
                                       .deferred = true,
                                       .outcome = &outcome});
    expect_int_eq(ar_outcome_status(&outcome), ar_status_invalid_argument_k);
    expect_true(ar_rows_view_current(&first));

    /* A single byte of the input inside the arena is enough: the last token of the tape. */
    size_t tail_offsets[2] = {bytes - 4, bytes};
    ar_text_encode(
        &(ar_text_encode_t){.arena = arena,
                            .texts = {.data = first.data, .offsets = tail_offsets, .count = 1},
                            .dimensions = 6,
                            .embeddings = &second,
                            .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);

    /* Offsets in the arena: the states' row offsets, used as a tape's offsets. */
    ar_text_encode(
        &(ar_text_encode_t){.arena = arena,
                            .texts = {.data = tape.tokens, .offsets = states.offsets, .count = 1},
                            .dimensions = 6,
                            .embeddings = &second,
                            .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);

    /* The output struct itself inside the arena. */
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 6,
                                       .embeddings = (ar_rows_view_t *)states.data,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    expect_true(ar_rows_view_current(&first));

    ar_arena_stats_t stats;
    ar_arena_stats(arena, &stats);
    expect_u64_eq(stats.calls, 1);

    /* The same inputs into another arena: fine, and they read what the first call wrote. */
    ar_text_encode(&(ar_text_encode_t){.arena = other,
                                       .texts = inside,
                                       .dimensions = 6,
                                       .embeddings = &second,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    expect_size_eq(second.count, 2);
    expect_true(ar_rows_view_current(&first));

    ar_executor_free(executor);
    free(before);
    test_tape_free(&tape);
    ar_arena_free(arena);
    ar_arena_free(other);
    return expect_finish();
}
