/* ar_text_encode writes exactly the values arena.h defines (recomputed here from the header's
 * formula), embeddings and per-token states with their offsets, on the calling thread and on a
 * RAM executor, blocking and deferred; empty items, a zero-item call and a tape whose items do
 * not start on 4-byte boundaries included. */
#include "arena_test_util.h"
#include "expect.h"

static void check_call(ar_executor_t executor, bool deferred, size_t count, size_t dimensions,
                       uint64_t seed) {
    ar_arena_t arena = NULL;
    ar_outcome_t outcome = {0};
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    test_tape_t tape = test_tape_simple(count, seed);
    ar_rows_view_t embeddings;
    ar_rows_tape_view_t states;
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = dimensions,
                                       .deferred = deferred,
                                       .embeddings = &embeddings,
                                       .states = &states,
                                       .outcome = &outcome});
    if (deferred && executor) expect_int_eq(ar_outcome_wait(&outcome), ar_status_success_k);
    expect_int_eq(ar_outcome_status(&outcome), ar_status_success_k);
    expect_ptr_null(outcome.message);
    expect_ptr_not_null(embeddings.data);
    expect_size_eq(embeddings.count, count);
    expect_size_eq(embeddings.columns, dimensions);
    expect_size_eq(embeddings.stride, dimensions * sizeof(float));
    expect_int_eq(embeddings.scalar, ar_scalar_f32_k);
    expect_u64_eq((uintptr_t)embeddings.data % 64, 0);
    expect_size_eq(states.count, count);
    expect_size_eq(states.rows, tape.total);
    expect_int_eq(states.scalar, ar_scalar_f32_k);
    expect_size_eq(test_embedding_mismatches(&tape, &embeddings, dimensions), 0);
    expect_size_eq(test_state_mismatches(&tape, &states, dimensions), 0);
    test_tape_free(&tape);
    ar_arena_free(arena);
}

int main(void) {
    ar_executor_t executor = NULL;
    ar_outcome_t outcome = {0};
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1, .outcome = &outcome});
    require_true(outcome.status == ar_status_success_k);

    size_t const dims[] = {1, 3, 16, 129};
    for (size_t k = 0; k < 4; ++k) {
        check_call(NULL, false, 9, dims[k], 1 + k);
        check_call(NULL, true, 5, dims[k], 11 + k);
        check_call(executor, false, 17, dims[k], 21 + k);
        check_call(executor, true, 4, dims[k], 31 + k);
    }
    check_call(NULL, false, 0, 8, 5); /* no items: success, zero rows */
    check_call(executor, true, 0, 8, 5);

    /* A spot value by hand: one item of token 7, d = 0: the mean of one value is the value. */
    {
        uint32_t token = 7;
        size_t offsets[2] = {0, 4};
        ar_arena_t arena = NULL;
        ar_arena_init(&(ar_arena_init_t){.arena = &arena});
        ar_rows_view_t embeddings;
        ar_text_encode(
            &(ar_text_encode_t){.arena = arena,
                                .texts = {.data = &token, .offsets = offsets, .count = 1},
                                .dimensions = 2,
                                .embeddings = &embeddings,
                                .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_success_k);
        uint32_t h = 7u * 0x9E3779B1u ^ 1u * 0x85EBCA77u ^ 1u * 0xC2B2AE3Du;
        h ^= h >> 16, h *= 0x85EBCA6Bu, h ^= h >> 13, h *= 0xC2B2AE35u, h ^= h >> 16;
        float expected = (float)((int32_t)(h >> 8) - 8388608) / 8388608.0f;
        expect_dbl_eq(ar_rows_f32(&embeddings, 0, 0), expected);
        expect_true(expected >= -1.0f && expected < 1.0f);
        ar_arena_free(arena);
    }

    /* Unaligned tape: items start at odd byte offsets inside a byte buffer. */
    {
        unsigned char buffer[1 + 5 * 4];
        uint32_t tokens[5] = {1, 2, 3, 4, 5};
        memcpy(buffer + 1, tokens, sizeof tokens);
        size_t offsets[3] = {1, 1 + 8, 1 + 20};
        ar_arena_t arena = NULL;
        ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor});
        ar_rows_view_t embeddings;
        ar_text_encode(
            &(ar_text_encode_t){.executor = executor,
                                .arena = arena,
                                .texts = {.data = buffer, .offsets = offsets, .count = 2},
                                .dimensions = 5,
                                .embeddings = &embeddings,
                                .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_success_k);
        for (size_t d = 0; d < 5; ++d) {
            expect_dbl_eq(ar_rows_f32(&embeddings, 0, d), ref_embedding(tokens, 2, d));
            expect_dbl_eq(ar_rows_f32(&embeddings, 1, d), ref_embedding(tokens + 2, 3, d));
        }
        ar_arena_free(arena);
    }

    /* `count` given on the call instead of on the tape. */
    {
        test_tape_t tape = test_tape_simple(6, 3);
        ar_arena_t arena = NULL;
        ar_arena_init(&(ar_arena_init_t){.arena = &arena});
        ar_rows_view_t embeddings;
        ar_tape_view_t texts = tape.view;
        texts.count = 0;
        ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                           .texts = texts,
                                           .count = 6,
                                           .dimensions = 4,
                                           .embeddings = &embeddings,
                                           .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_success_k);
        expect_size_eq(embeddings.count, 6);
        expect_size_eq(test_embedding_mismatches(&tape, &embeddings, 4), 0);
        test_tape_free(&tape);
        ar_arena_free(arena);
    }
    ar_executor_free(executor);
    return expect_finish();
}
