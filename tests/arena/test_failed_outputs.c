/* A call that fails leaves its outputs NULL: whatever the views held before, every failure
 * (invalid argument, contended, device, out of memory) zeroes them, so `data` is NULL, and the
 * checked accessors treat them as zeroed views. Out of memory comes from the host fault hook. */
#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

static ar_rows_view_t embeddings;
static ar_rows_tape_view_t states;

static void dirty(void) {
    memset(&embeddings, 0xEE, sizeof embeddings);
    memset(&states, 0xEE, sizeof states);
}

static void expect_zeroed(ar_outcome_t const *outcome, ar_status_t status) {
    expect_int_eq(outcome->status, status);
    expect_ptr_not_null(outcome->message);
    expect_ptr_null(embeddings.data);
    expect_true(test_all_zero(&embeddings, sizeof embeddings));
    expect_true(test_all_zero(&states, sizeof states));
    expect_false(ar_rows_view_current(&embeddings));
    expect_false(ar_rows_tape_view_current(&states));
}

int main(void) {
    ar_outcome_t outcome = {0};
    test_tape_t tape = test_tape_simple(12, 5);
    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1});
    require_true(executor != NULL);
    ar_arena_t arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor});

    /* invalid argument */
    dirty();
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 0,
                                       .embeddings = &embeddings,
                                       .states = &states,
                                       .outcome = &outcome});
    expect_zeroed(&outcome, ar_status_invalid_argument_k);

    /* contended */
    arp_testing_executor_pause(executor, true);
    ar_outcome_t holder = {0};
    ar_rows_view_t held;
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 3,
                                       .deferred = true,
                                       .embeddings = &held,
                                       .outcome = &holder});
    dirty();
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 3,
                                       .embeddings = &embeddings,
                                       .states = &states,
                                       .outcome = &outcome});
    expect_zeroed(&outcome, ar_status_contended_k);
    arp_testing_executor_pause(executor, false);
    expect_int_eq(ar_outcome_wait(&holder), ar_status_success_k);

    /* out of memory, blocking and deferred: the growth's page allocation is the first host
     * allocation of the call (the arena holds less than this call needs). */
    test_tape_t big = test_tape_simple(500, 2);
    for (int deferred = 0; deferred < 2; ++deferred) {
        dirty();
        arp_host_fault_arm(1);
        ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                           .arena = arena,
                                           .texts = big.view,
                                           .dimensions = 64,
                                           .deferred = deferred,
                                           .embeddings = &embeddings,
                                           .states = &states,
                                           .outcome = &outcome});
        ar_outcome_wait(&outcome);
        arp_host_fault_arm(0);
        expect_zeroed(&outcome, ar_status_out_of_memory_k);
        ar_arena_stats_t stats;
        ar_arena_stats(arena, &stats);
        expect_u64_eq(stats.reserved, 0); /* the old pages went, the new ones never came */
    }
    /* and the arena recovers */
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = big.view,
                                       .dimensions = 64,
                                       .embeddings = &embeddings,
                                       .states = &states,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    expect_size_eq(test_embedding_mismatches(&big, &embeddings, 64), 0);

    ar_arena_free(arena);
    ar_executor_free(executor);
    test_tape_free(&big);
    test_tape_free(&tape);
    return expect_finish();
}
