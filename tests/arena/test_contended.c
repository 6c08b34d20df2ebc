/* contended: an arena serves one call at a time.
 * - A deferred call holds its arena until final: a blocking call naming it is refused, and a
 *   second deferred call is refused at submission (its outcome is final, not deferred).
 * - A blocking call holds it until it returns: a deferred call submitted meanwhile is refused.
 * The holder is kept busy with the test hook that pauses an executor's worker, never timing.
 * The refused calls leave the holder's outputs and the arena's counters untouched. */
#include <pthread.h>
#include <sched.h>

#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

typedef struct blocking_t {
    ar_executor_t executor;
    ar_arena_t arena;
    ar_tape_view_t texts;
    ar_rows_view_t embeddings;
    ar_outcome_t outcome;
} blocking_t;

static void *blocking_call(void *argument) {
    blocking_t *call = argument;
    ar_text_encode(&(ar_text_encode_t){.executor = call->executor,
                                       .arena = call->arena,
                                       .texts = call->texts,
                                       .dimensions = 8,
                                       .embeddings = &call->embeddings,
                                       .outcome = &call->outcome});
    return NULL;
}

int main(void) {
    ar_outcome_t outcome = {0};
    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1, .outcome = &outcome});
    require_true(executor != NULL);
    ar_arena_t arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor});
    require_true(arena != NULL);
    test_tape_t tape = test_tape_simple(10, 9);

    /* 1. deferred holder vs blocking and deferred callers */
    arp_testing_executor_pause(executor, true);
    ar_outcome_t held = {0};
    ar_rows_view_t embeddings, refused;
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 8,
                                       .deferred = true,
                                       .embeddings = &embeddings,
                                       .outcome = &held});
    expect_int_eq(ar_outcome_status(&held), ar_status_deferred_k);
    expect_true(arp_testing_arena_held(arena));

    memset(&refused, 0x11, sizeof refused);
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 8,
                                       .embeddings = &refused,
                                       .outcome = &outcome}); /* blocking, calling thread */
    expect_int_eq(outcome.status, ar_status_contended_k);
    expect_str_contains(outcome.message, "held");
    expect_true(test_all_zero(&refused, sizeof refused));
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 8,
                                       .embeddings = &refused,
                                       .outcome = &outcome}); /* blocking, executor */
    expect_int_eq(outcome.status, ar_status_contended_k);
    ar_outcome_t second = {.status = ar_status_success_k};
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 8,
                                       .deferred = true,
                                       .embeddings = &refused,
                                       .outcome = &second});
    expect_int_eq(ar_outcome_status(&second),
                  ar_status_contended_k); /* at submission: already final */
    expect_int_eq(ar_outcome_status(&held), ar_status_deferred_k);

    arp_testing_executor_pause(executor, false);
    expect_int_eq(ar_outcome_wait(&held), ar_status_success_k);
    expect_false(arp_testing_arena_held(arena));
    expect_size_eq(test_embedding_mismatches(&tape, &embeddings, 8), 0);
    ar_arena_stats_t stats;
    ar_arena_stats(arena, &stats);
    expect_u64_eq(stats.calls, 1);
    expect_u64_eq(stats.contended, 3);

    /* Once final, the arena serves the next call. */
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 8,
                                       .embeddings = &embeddings,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);

    /* 2. blocking holder vs a deferred caller: the blocking call runs on the paused executor
     *    in another thread, holding the arena until it returns. */
    arp_testing_executor_pause(executor, true);
    blocking_t call = {.executor = executor, .arena = arena, .texts = tape.view};
    pthread_t thread;
    require_true(pthread_create(&thread, NULL, blocking_call, &call) == 0);
    while (!arp_testing_arena_held(arena)) sched_yield();
    ar_outcome_t deferred = {0};
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 8,
                                       .deferred = true,
                                       .embeddings = &refused,
                                       .outcome = &deferred});
    expect_int_eq(ar_outcome_status(&deferred), ar_status_contended_k);
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 8,
                                       .embeddings = &refused,
                                       .deferred = true,
                                       .outcome = &deferred}); /* NULL executor, deferred */
    expect_int_eq(ar_outcome_status(&deferred), ar_status_contended_k);
    arp_testing_executor_pause(executor, false);
    pthread_join(thread, NULL);
    expect_int_eq(call.outcome.status, ar_status_success_k);
    expect_size_eq(test_embedding_mismatches(&tape, &call.embeddings, 8), 0);

    /* Two arenas on one executor: both deferred calls queue and both succeed. */
    ar_arena_t arena2 = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena2, .executor = executor});
    ar_outcome_t a = {0}, b = {0};
    ar_rows_view_t ea, eb;
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 8,
                                       .deferred = true,
                                       .embeddings = &ea,
                                       .outcome = &a});
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena2,
                                       .texts = tape.view,
                                       .dimensions = 8,
                                       .deferred = true,
                                       .embeddings = &eb,
                                       .outcome = &b});
    expect_int_eq(ar_outcome_wait(&a), ar_status_success_k);
    expect_int_eq(ar_outcome_wait(&b), ar_status_success_k);
    expect_size_eq(test_embedding_mismatches(&tape, &eb, 8), 0);

    ar_arena_free(arena2);
    ar_arena_free(arena);
    ar_executor_free(executor);
    test_tape_free(&tape);
    return expect_finish();
}
