/* ar_outcome_cancel (ARENAS.md): a queued call never runs, a running one stops at its next
 * check, either becomes final with cancelled, outputs zeroed, arena released; a final call is
 * left as it is. Deterministic parts use the test hooks (a paused worker keeps calls queued; the
 * check hook holds a running job at its first check until the cancel flag is up). The race of
 * cancel against completion runs many times on two threads (label `threads`: TSan in CI): each
 * call ends either exactly right or cancelled and zeroed, never in between, never hung. */
#include <pthread.h>
#include <sched.h>

#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

static void expect_cancelled(ar_outcome_t const *outcome, ar_rows_view_t const *embeddings,
                             ar_rows_tape_view_t const *states, ar_arena_t arena) {
    expect_int_eq(outcome->status, ar_status_cancelled_k);
    expect_str_contains(outcome->message, "cancelled");
    expect_true(test_all_zero(embeddings, sizeof *embeddings));
    expect_true(test_all_zero(states, sizeof *states));
    expect_false(arp_testing_arena_held(arena));
}

static int hook_started_;
static void hold_until_cancelled(int const *cancel) {
    __atomic_store_n(&hook_started_, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(cancel, __ATOMIC_ACQUIRE)) sched_yield();
}

typedef struct racer_t {
    ar_outcome_t *outcome;
    int *go;
    int delay; /* yields before cancelling, so some calls finish first */
    ar_status_t returned;
} racer_t;

static void *cancel_when_told(void *argument) {
    racer_t *racer = argument;
    while (!__atomic_load_n(racer->go, __ATOMIC_ACQUIRE)) sched_yield();
    for (int i = 0; i < racer->delay; ++i) sched_yield();
    racer->returned = ar_outcome_cancel(racer->outcome);
    return NULL;
}

typedef struct blocking_t {
    ar_text_encode_t call;
    ar_status_t returned;
} blocking_t;

static void *encode_blocking(void *argument) {
    blocking_t *blocking = argument;
    ar_text_encode(&blocking->call);
    blocking->returned = ar_outcome_status(blocking->call.outcome);
    return NULL;
}

int main(void) {
    test_tape_t tape = test_tape_simple(24, 3);
    enum { dimensions = 8 };
    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1});
    require_true(executor != NULL);
    ar_rows_view_t embeddings;
    ar_rows_tape_view_t states;
    ar_arena_stats_t stats;

    /* NULL, and calls already final (inline, refused): left as they are. */
    expect_int_eq(ar_outcome_cancel(NULL), ar_status_invalid_argument_k);
    ar_arena_t arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena});
    ar_outcome_t outcome = {0};
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape.view,
                                       .dimensions = dimensions,
                                       .deferred = true,
                                       .embeddings = &embeddings,
                                       .outcome = &outcome});
    expect_int_eq(ar_outcome_cancel(&outcome), ar_status_success_k);
    expect_int_eq(outcome.status, ar_status_success_k);
    expect_true(ar_rows_view_current(&embeddings));
    expect_size_eq(test_embedding_mismatches(&tape, &embeddings, dimensions), 0);
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 0,
                                       .embeddings = &embeddings,
                                       .outcome = &outcome});
    expect_int_eq(ar_outcome_cancel(&outcome), ar_status_invalid_argument_k);
    ar_arena_free(arena);

    /* A queue of deferred calls: cancelling queued ones ends them at once, never run. */
    enum { queued = 4 };
    ar_arena_t arenas[queued];
    ar_outcome_t outcomes[queued];
    ar_rows_view_t views[queued];
    ar_rows_tape_view_t tapes[queued];
    arp_testing_executor_pause(executor, true);
    for (int k = 0; k < queued; ++k) {
        ar_arena_init(&(ar_arena_init_t){.arena = &arenas[k], .executor = executor});
        ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                           .arena = arenas[k],
                                           .texts = tape.view,
                                           .dimensions = dimensions,
                                           .deferred = true,
                                           .embeddings = &views[k],
                                           .states = &tapes[k],
                                           .outcome = &outcomes[k]});
        expect_int_eq(ar_outcome_status(&outcomes[k]), ar_status_deferred_k);
    }
    for (int k = 1; k < queued; k += 2) {
        expect_int_eq(ar_outcome_cancel(&outcomes[k]), ar_status_cancelled_k);
        expect_cancelled(&outcomes[k], &views[k], &tapes[k], arenas[k]);
        expect_int_eq(ar_arena_stats(arenas[k], &stats), ar_status_success_k);
        expect_u64_eq(stats.calls, 1);
        expect_u64_eq(stats.cancelled, 1);
        expect_u64_eq(stats.failed_calls, 0);
        expect_u64_eq(stats.growths, 0); /* it never ran: nothing was sized or written */
        /* Released: the arena takes another call while the worker is still paused. */
        ar_text_encode(&(ar_text_encode_t){.arena = arenas[k],
                                           .texts = tape.view,
                                           .dimensions = dimensions,
                                           .embeddings = &views[k],
                                           .outcome = &outcomes[k]});
        expect_int_eq(outcomes[k].status, ar_status_success_k);
        expect_int_eq(ar_outcome_cancel(&outcomes[k]), ar_status_success_k); /* final */
    }
    arp_testing_executor_pause(executor, false);
    for (int k = 0; k < queued; ++k) {
        expect_int_eq(ar_outcome_wait(&outcomes[k]), ar_status_success_k);
        expect_size_eq(test_embedding_mismatches(&tape, &views[k], dimensions), 0);
        ar_arena_free(arenas[k]);
    }

    /* A running call stops at its next check. */
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor});
    __atomic_store_n(&arp_testing_check_hook, hold_until_cancelled, __ATOMIC_RELEASE);
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = dimensions,
                                       .deferred = true,
                                       .embeddings = &embeddings,
                                       .states = &states,
                                       .outcome = &outcome});
    while (!__atomic_load_n(&hook_started_, __ATOMIC_ACQUIRE)) sched_yield();
    expect_int_eq(ar_outcome_status(&outcome), ar_status_deferred_k);
    expect_int_eq(ar_outcome_cancel(&outcome), ar_status_cancelled_k);
    __atomic_store_n(&arp_testing_check_hook, NULL, __ATOMIC_RELEASE);
    expect_cancelled(&outcome, &embeddings, &states, arena);
    expect_int_eq(ar_arena_stats(arena, &stats), ar_status_success_k);
    expect_u64_eq(stats.cancelled, 1);
    expect_u64_eq(stats.growths, 1); /* it ran: sized and grew before its first check */
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = dimensions,
                                       .embeddings = &embeddings,
                                       .states = &states,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    expect_size_eq(test_state_mismatches(&tape, &states, dimensions), 0);
    ar_arena_free(arena);

    /* A blocking call waited for on another thread, cancelled while queued. */
    arp_testing_executor_pause(executor, true);
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor});
    blocking_t blocking = {.call = {.executor = executor,
                                    .arena = arena,
                                    .texts = tape.view,
                                    .dimensions = dimensions,
                                    .embeddings = &embeddings,
                                    .outcome = &outcome}};
    outcome.status = ar_status_success_k;
    pthread_t caller;
    require_true(pthread_create(&caller, NULL, encode_blocking, &blocking) == 0);
    while (ar_outcome_status(&outcome) != ar_status_deferred_k) sched_yield();
    expect_int_eq(ar_outcome_cancel(&outcome), ar_status_cancelled_k);
    pthread_join(caller, NULL);
    expect_int_eq(blocking.returned, ar_status_cancelled_k);
    expect_ptr_null(embeddings.data);
    arp_testing_executor_pause(executor, false);
    ar_arena_free(arena);

    /* Cancel races completion: each outcome is exactly right or cancelled and zeroed. */
    int outcomes_seen[2] = {0, 0};
    for (int round = 0; round < 200; ++round) {
        ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor});
        int go = 0;
        racer_t racer = {.outcome = &outcome, .go = &go, .delay = round % 8};
        pthread_t thread;
        require_true(pthread_create(&thread, NULL, cancel_when_told, &racer) == 0);
        ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                           .arena = arena,
                                           .texts = tape.view,
                                           .dimensions = dimensions,
                                           .deferred = true,
                                           .embeddings = &embeddings,
                                           .states = &states,
                                           .outcome = &outcome});
        __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
        ar_status_t final = ar_outcome_wait(&outcome);
        pthread_join(thread, NULL);
        expect_int_eq(racer.returned, final);
        if (final == ar_status_success_k) {
            ++outcomes_seen[0];
            expect_size_eq(test_embedding_mismatches(&tape, &embeddings, dimensions), 0);
            expect_size_eq(test_state_mismatches(&tape, &states, dimensions), 0);
        } else {
            ++outcomes_seen[1];
            expect_cancelled(&outcome, &embeddings, &states, arena);
        }
        ar_arena_free(arena); /* waits for finality: already there */
    }
    printf("race: %d finished first, %d cancelled\n", outcomes_seen[0], outcomes_seen[1]);
    expect_int_eq(outcomes_seen[0] + outcomes_seen[1], 200);

    ar_executor_free(executor);
    test_tape_free(&tape);
    return expect_finish();
}
