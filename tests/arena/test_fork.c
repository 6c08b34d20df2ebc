/* Fork safety: executors and arenas made before fork() either work in the child or fail with
 * a clear status, never hang. Before forking, the parent leaves one call queued on a paused
 * worker and one running (held at its first check by the test hook) on another executor. The
 * child must see both end with ar_status_unsupported_k (outputs zeroed), then use the same
 * executors and arenas: blocking, deferred and inline calls give the documented values, and
 * everything frees. The parent's own calls finish normally. A hang fails the test: the parent
 * waits for the child at most 60 s, then kills it (and alarm() bounds the parent itself). */
#include <signal.h>
#include <sched.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

enum { dimensions = 6 };
static int hook_entered_, hook_release_;

static void hold_until_released(int const *cancel) {
    (void)cancel;
    __atomic_store_n(&hook_entered_, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&hook_release_, __ATOMIC_ACQUIRE)) sched_yield();
}

static void expect_orphaned(ar_outcome_t const *outcome, ar_rows_view_t const *view) {
    expect_int_eq(ar_outcome_status(outcome), ar_status_unsupported_k);
    expect_str_contains(outcome->message, "fork()");
    expect_true(test_all_zero(view, sizeof *view));
}

static int child(test_tape_t const *tape, ar_executor_t executor, ar_executor_t held_executor,
                 ar_arena_t arenas[4], ar_outcome_t outcomes[4], ar_rows_view_t views[4]) {
    __atomic_store_n(&arp_testing_check_hook, NULL, __ATOMIC_RELEASE);
    /* The calls in flight at fork: final, clearly. */
    expect_orphaned(&outcomes[1], &views[1]);
    expect_orphaned(&outcomes[3], &views[3]);
    expect_false(arp_testing_arena_held(arenas[1]));
    expect_false(arp_testing_arena_held(arenas[3]));
    /* The executor works: a blocking call and a deferred one, each on a fresh worker. */
    for (int k = 0; k < 2; ++k) {
        ar_outcome_t outcome = {0};
        ar_rows_view_t view;
        ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                           .arena = arenas[k],
                                           .texts = tape->view,
                                           .dimensions = dimensions,
                                           .deferred = k == 1,
                                           .embeddings = &view,
                                           .outcome = &outcome});
        expect_int_eq(ar_outcome_wait(&outcome), ar_status_success_k);
        expect_size_eq(test_embedding_mismatches(tape, &view, dimensions), 0);
    }
    /* An arena of the calling thread, and one whose executor's call was running at fork. */
    for (int k = 2; k < 4; ++k) {
        ar_outcome_t outcome = {0};
        ar_rows_view_t view;
        ar_text_encode(&(ar_text_encode_t){.executor = k == 3 ? held_executor : NULL,
                                           .arena = arenas[k],
                                           .texts = tape->view,
                                           .dimensions = dimensions,
                                           .embeddings = &view,
                                           .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_success_k);
        expect_size_eq(test_embedding_mismatches(tape, &view, dimensions), 0);
    }
    for (int k = 0; k < 4; ++k) ar_arena_free(arenas[k]);
    ar_executor_free(executor);
    ar_executor_free(held_executor);
    (void)views, (void)outcomes;
    return expect_finish();
}

int main(void) {
    alarm(120); /* a hang in the parent (fork handlers) fails rather than blocks */
    test_tape_t tape = test_tape_simple(16, 9);
    ar_executor_t executor = NULL, held_executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1});
    ar_executor_init(&(ar_executor_init_t){
        .executor = &held_executor, .residency = ar_residency_ram_k, .device = -1});
    require_true(executor && held_executor);
    /* arenas[0]: executor, warm; [1]: executor, a call queued at fork; [2]: NULL executor;
     * [3]: held_executor, a call running at fork. */
    ar_arena_t arenas[4];
    ar_outcome_t outcomes[4] = {{0}};
    ar_rows_view_t views[4];
    ar_executor_t makers[4] = {executor, executor, NULL, held_executor};
    for (int k = 0; k < 4; ++k)
        ar_arena_init(&(ar_arena_init_t){.arena = &arenas[k], .executor = makers[k]});
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arenas[0],
                                       .texts = tape.view,
                                       .dimensions = dimensions,
                                       .embeddings = &views[0],
                                       .outcome = &outcomes[0]});
    expect_int_eq(outcomes[0].status, ar_status_success_k);
    arp_testing_executor_pause(executor, true);
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arenas[1],
                                       .texts = tape.view,
                                       .dimensions = dimensions,
                                       .deferred = true,
                                       .embeddings = &views[1],
                                       .outcome = &outcomes[1]});
    __atomic_store_n(&arp_testing_check_hook, hold_until_released, __ATOMIC_RELEASE);
    ar_text_encode(&(ar_text_encode_t){.executor = held_executor,
                                       .arena = arenas[3],
                                       .texts = tape.view,
                                       .dimensions = dimensions,
                                       .deferred = true,
                                       .embeddings = &views[3],
                                       .outcome = &outcomes[3]});
    while (!__atomic_load_n(&hook_entered_, __ATOMIC_ACQUIRE)) sched_yield();

    fflush(stdout), fflush(stderr);
    pid_t pid = fork();
    require_true(pid >= 0);
    if (pid == 0) _exit(child(&tape, executor, held_executor, arenas, outcomes, views));

    /* The parent's calls go on as if nothing happened. */
    __atomic_store_n(&hook_release_, 1, __ATOMIC_RELEASE);
    arp_testing_executor_pause(executor, false);
    expect_int_eq(ar_outcome_wait(&outcomes[1]), ar_status_success_k);
    expect_int_eq(ar_outcome_wait(&outcomes[3]), ar_status_success_k);
    __atomic_store_n(&arp_testing_check_hook, NULL, __ATOMIC_RELEASE);
    expect_size_eq(test_embedding_mismatches(&tape, &views[1], dimensions), 0);
    expect_size_eq(test_embedding_mismatches(&tape, &views[3], dimensions), 0);

    int status = 0, waited = 0;
    for (int ms = 0; ms < 60000 && !waited; ms += 10) {
        waited = waitpid(pid, &status, WNOHANG) == pid;
        if (!waited) nanosleep(&(struct timespec){.tv_nsec = 10 * 1000 * 1000}, NULL);
    }
    if (!waited) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        fprintf(stderr, "the child hung (killed after 60 s)\n");
    }
    expect_true(waited);
    expect_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    for (int k = 0; k < 4; ++k) ar_arena_free(arenas[k]);
    ar_executor_free(executor);
    ar_executor_free(held_executor);
    test_tape_free(&tape);
    return expect_finish();
}
