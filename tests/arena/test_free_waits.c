/* ar_arena_free waits until every deferred call naming the arena is final: with the worker
 * paused, a deferred call is queued; another thread frees the arena and records the call's
 * status the moment free returns; only then is the worker let go. If free did not wait, it
 * would return while the status is still deferred (and the worker would then write into freed
 * memory, which AddressSanitizer reports). A deferred call with a NULL outcome is waited for
 * too, an executor freed with calls queued finishes them first, and free waits for a long
 * blocking call another thread runs inline (it polls: that release wakes nobody). */
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

typedef struct freer_t {
    ar_arena_t arena;
    ar_outcome_t *outcome;
    int started;
    ar_status_t status_after_free;
} freer_t;

static void *free_arena(void *argument) {
    freer_t *freer = argument;
    __atomic_store_n(&freer->started, 1, __ATOMIC_RELEASE);
    ar_arena_free(freer->arena);
    freer->status_after_free =
        freer->outcome ? ar_outcome_status(freer->outcome) : ar_status_success_k;
    return NULL;
}

typedef struct inline_t {
    test_tape_t const *tape;
    ar_arena_t arena;
    ar_status_t status;
    int done;
} inline_t;

static void *encode_inline(void *argument) {
    inline_t *call = argument;
    ar_outcome_t outcome = {0};
    ar_rows_view_t embeddings;
    ar_text_encode(&(ar_text_encode_t){.arena = call->arena,
                                       .texts = call->tape->view,
                                       .dimensions = 256,
                                       .embeddings = &embeddings,
                                       .outcome = &outcome});
    call->status = outcome.status;
    __atomic_store_n(&call->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

int main(void) {
    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1});
    require_true(executor != NULL);
    test_tape_t tape = test_tape_simple(32, 7);

    for (int with_outcome = 1; with_outcome >= 0; --with_outcome) {
        ar_arena_t arena = NULL;
        ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor});
        arp_testing_executor_pause(executor, true);
        ar_outcome_t outcome = {0};
        ar_rows_view_t embeddings;
        ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                           .arena = arena,
                                           .texts = tape.view,
                                           .dimensions = 16,
                                           .deferred = true,
                                           .embeddings = &embeddings,
                                           .outcome = with_outcome ? &outcome : NULL});
        if (with_outcome) expect_int_eq(ar_outcome_status(&outcome), ar_status_deferred_k);
        freer_t freer = {.arena = arena,
                         .outcome = with_outcome ? &outcome : NULL,
                         .status_after_free = ar_status_deferred_k};
        pthread_t thread;
        require_true(pthread_create(&thread, NULL, free_arena, &freer) == 0);
        while (!__atomic_load_n(&freer.started, __ATOMIC_ACQUIRE)) sched_yield();
        usleep(
            20000); /* give free a chance to run ahead (it must not); the check holds either way */
        arp_testing_executor_pause(executor, false);
        pthread_join(thread, NULL);
        expect_int_eq(freer.status_after_free, ar_status_success_k);
        if (with_outcome) expect_int_eq(outcome.status, ar_status_success_k);
    }

    /* A blocking call run inline on another thread: free returns after it let go (under
     * AddressSanitizer, a free that did not wait shows as a use after free). */
    {
        test_tape_t big = test_tape_simple(4000, 3);
        inline_t call = {.tape = &big};
        ar_arena_init(&(ar_arena_init_t){.arena = &call.arena});
        pthread_t thread;
        require_true(pthread_create(&thread, NULL, encode_inline, &call) == 0);
        while (!arp_testing_arena_held(call.arena) &&
               !__atomic_load_n(&call.done, __ATOMIC_ACQUIRE))
            sched_yield();
        ar_arena_free(call.arena);
        pthread_join(thread, NULL);
        expect_int_eq(call.status, ar_status_success_k);
        test_tape_free(&big);
    }

    /* Freeing the executor with calls queued runs them first. */
    ar_arena_t arenas[3] = {NULL, NULL, NULL};
    ar_outcome_t outcomes[3];
    ar_rows_view_t views[3];
    arp_testing_executor_pause(executor, true);
    for (int k = 0; k < 3; ++k) {
        ar_arena_init(&(ar_arena_init_t){.arena = &arenas[k], .executor = executor});
        ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                           .arena = arenas[k],
                                           .texts = tape.view,
                                           .dimensions = 4,
                                           .deferred = true,
                                           .embeddings = &views[k],
                                           .outcome = &outcomes[k]});
        expect_int_eq(ar_outcome_status(&outcomes[k]), ar_status_deferred_k);
    }
    ar_executor_free(executor);
    for (int k = 0; k < 3; ++k) {
        expect_int_eq(ar_outcome_status(&outcomes[k]), ar_status_success_k);
        expect_size_eq(test_embedding_mismatches(&tape, &views[k], 4),
                       0); /* host arenas outlive it */
        ar_arena_free(arenas[k]);
    }
    test_tape_free(&tape);
    return expect_finish();
}
