/* Several threads calling on one arena (run under ThreadSanitizer in CI, label "threads").
 * 1. Deterministic rounds: the executor's worker is paused, every thread calls at once with
 *    its own input; exactly one takes the arena (its call waits on the paused worker), every
 *    other one gets contended at once. Then the worker goes on and the winner's outputs are
 *    exactly its own input's values (no output corrupted by the losers).
 * 2. A free-for-all: threads hammer the arena (NULL executor, blocking; and the executor,
 *    deferred) with no pause; every call ends success or contended, the counts add up with the
 *    arena's stats, and the view that is current at the end holds right values.
 * Each thread's input differs (its own seed), so a mixed-up output would show. */
#include <pthread.h>
#include <sched.h>

#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

enum { threads_k = 6, rounds_k = 20, hammer_calls_k = 200, dimensions_k = 12 };

typedef struct shared_t {
    ar_executor_t executor;
    ar_arena_t arena;
    pthread_barrier_t start;
    int returned_contended; /* atomic */
} shared_t;

typedef struct worker_t {
    shared_t *shared;
    size_t index;
    test_tape_t tape;
    ar_rows_view_t embeddings;
    ar_outcome_t outcome;
    size_t successes, contended, others;
    bool deferred;
} worker_t;

static void *round_call(void *argument) {
    worker_t *worker = argument;
    pthread_barrier_wait(&worker->shared->start);
    ar_text_encode(&(ar_text_encode_t){.executor = worker->shared->executor,
                                       .arena = worker->shared->arena,
                                       .texts = worker->tape.view,
                                       .dimensions = dimensions_k,
                                       .embeddings = &worker->embeddings,
                                       .outcome = &worker->outcome});
    if (worker->outcome.status == ar_status_contended_k)
        __atomic_add_fetch(&worker->shared->returned_contended, 1, __ATOMIC_ACQ_REL);
    return NULL;
}

static void *hammer(void *argument) {
    worker_t *worker = argument;
    pthread_barrier_wait(&worker->shared->start);
    for (int k = 0; k < hammer_calls_k; ++k) {
        ar_outcome_t outcome = {0};
        ar_rows_view_t embeddings;
        bool deferred = worker->deferred && (k % 2);
        ar_text_encode(&(ar_text_encode_t){.executor = deferred ? worker->shared->executor : NULL,
                                           .arena = worker->shared->arena,
                                           .texts = worker->tape.view,
                                           .dimensions = dimensions_k,
                                           .deferred = deferred,
                                           .embeddings = &embeddings,
                                           .outcome = &outcome});
        ar_status_t status = ar_outcome_wait(&outcome);
        if (status == ar_status_success_k) {
            ++worker->successes;
            if (embeddings.count != worker->tape.count || embeddings.columns != dimensions_k)
                ++worker->others;
        } else if (status == ar_status_contended_k) {
            ++worker->contended;
        } else {
            ++worker->others;
        }
    }
    return NULL;
}

int main(void) {
    shared_t shared = {0};
    ar_executor_init(&(ar_executor_init_t){
        .executor = &shared.executor, .residency = ar_residency_ram_k, .device = -1});
    require_true(shared.executor != NULL);
    ar_arena_init(&(ar_arena_init_t){.arena = &shared.arena, .executor = shared.executor});
    require_true(shared.arena != NULL);
    worker_t workers[threads_k];
    for (size_t t = 0; t < threads_k; ++t)
        workers[t] = (worker_t){
            .shared = &shared, .index = t, .tape = test_tape_simple(10 + t * 3, 1000 + t)};

    /* 1. rounds */
    for (int round = 0; round < rounds_k; ++round) {
        pthread_barrier_init(&shared.start, NULL, threads_k);
        __atomic_store_n(&shared.returned_contended, 0, __ATOMIC_RELEASE);
        arp_testing_executor_pause(shared.executor, true);
        pthread_t threads[threads_k];
        for (size_t t = 0; t < threads_k; ++t) {
            workers[t].outcome = (ar_outcome_t){0};
            require_true(pthread_create(&threads[t], NULL, round_call, &workers[t]) == 0);
        }
        /* Every loser returns while the winner is stuck on the paused worker. */
        while (__atomic_load_n(&shared.returned_contended, __ATOMIC_ACQUIRE) < threads_k - 1)
            sched_yield();
        expect_true(arp_testing_arena_held(shared.arena));
        arp_testing_executor_pause(shared.executor, false);
        for (size_t t = 0; t < threads_k; ++t) pthread_join(threads[t], NULL);
        pthread_barrier_destroy(&shared.start);
        int winners = 0;
        for (size_t t = 0; t < threads_k; ++t) {
            if (workers[t].outcome.status == ar_status_success_k) {
                ++winners;
                expect_true(ar_rows_view_current(&workers[t].embeddings));
                expect_size_eq(test_embedding_mismatches(&workers[t].tape, &workers[t].embeddings,
                                                         dimensions_k),
                               0);
            } else {
                expect_int_eq(workers[t].outcome.status, ar_status_contended_k);
                expect_ptr_null(workers[t].embeddings.data);
            }
        }
        expect_int_eq(winners, 1);
    }
    ar_arena_stats_t stats;
    ar_arena_stats(shared.arena, &stats);
    expect_u64_eq(stats.calls, rounds_k);
    expect_u64_eq(stats.contended, rounds_k * (threads_k - 1));

    /* 2. free-for-all */
    pthread_barrier_init(&shared.start, NULL, threads_k);
    pthread_t threads[threads_k];
    for (size_t t = 0; t < threads_k; ++t) {
        workers[t].deferred = t % 2;
        require_true(pthread_create(&threads[t], NULL, hammer, &workers[t]) == 0);
    }
    size_t successes = 0, contended = 0;
    for (size_t t = 0; t < threads_k; ++t) {
        pthread_join(threads[t], NULL);
        expect_size_eq(workers[t].others, 0);
        expect_size_eq(workers[t].successes + workers[t].contended, hammer_calls_k);
        successes += workers[t].successes;
        contended += workers[t].contended;
    }
    pthread_barrier_destroy(&shared.start);
    ar_arena_stats(shared.arena, &stats);
    expect_u64_eq(stats.calls, rounds_k + successes);
    expect_u64_eq(stats.contended, rounds_k * (threads_k - 1) + contended);
    expect_u64_ge(successes, 1);
    printf("free-for-all: %zu successes, %zu contended\n", successes, contended);

    /* One more call, alone: right values. */
    ar_outcome_t outcome = {0};
    ar_rows_view_t embeddings;
    ar_text_encode(&(ar_text_encode_t){.arena = shared.arena,
                                       .texts = workers[0].tape.view,
                                       .dimensions = dimensions_k,
                                       .embeddings = &embeddings,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    expect_size_eq(test_embedding_mismatches(&workers[0].tape, &embeddings, dimensions_k), 0);

    ar_arena_free(shared.arena);
    ar_executor_free(shared.executor);
    for (size_t t = 0; t < threads_k; ++t) test_tape_free(&workers[t].tape);
    return expect_finish();
}
