/* The N-th host allocation failing, for every N: a whole scenario (executor, two arenas, calls
 * that grow them, blocking and deferred, describe, stats, frees) runs with the N-th host
 * allocation made to fail, for N = 1, 2, ... until a run makes fewer than N allocations. Each
 * step either succeeds or reports out_of_memory with its outputs NULL; nothing else happens,
 * and after every run the library holds no allocation (its live count is back to zero; in CI
 * LeakSanitizer checks the same for everything). Values are right whenever a call succeeds. */
#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

static size_t failures_seen;

static bool step_ok(ar_outcome_t const *outcome, char const *step, uint64_t n) {
    if (outcome->status == ar_status_success_k) return true;
    if (outcome->status != ar_status_out_of_memory_k)
        fprintf(stderr, "N=%" PRIu64 ", %s: %s (%s)\n", n, step, ar_status_name(outcome->status),
                outcome->message ? outcome->message : "");
    expect_int_eq(outcome->status, ar_status_out_of_memory_k);
    expect_ptr_not_null(outcome->message);
    ++failures_seen;
    return false;
}

static void scenario(uint64_t n, test_tape_t const *small, test_tape_t const *large) {
    ar_outcome_t outcome = {0};
    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1, .outcome = &outcome});
    if (!step_ok(&outcome, "executor", n)) {
        expect_ptr_null(executor);
        executor = NULL; /* calls below then run on the calling thread */
    }
    ar_arena_t arenas[2] = {NULL, NULL};
    for (int k = 0; k < 2; ++k) {
        ar_arena_init(
            &(ar_arena_init_t){.arena = &arenas[k], .executor = executor, .outcome = &outcome});
        if (!step_ok(&outcome, "arena", n)) expect_ptr_null(arenas[k]);
    }
    for (int k = 0; k < 2; ++k) {
        if (!arenas[k]) continue;
        test_tape_t const *tapes[3] = {small, large, small};
        for (int c = 0; c < 3; ++c) {
            ar_rows_view_t embeddings;
            ar_rows_tape_view_t states;
            ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                               .arena = arenas[k],
                                               .texts = tapes[c]->view,
                                               .dimensions = 16,
                                               .deferred = (c == 1),
                                               .embeddings = &embeddings,
                                               .states = &states,
                                               .outcome = &outcome});
            ar_outcome_wait(&outcome);
            if (step_ok(&outcome, "encode", n)) {
                expect_size_eq(test_embedding_mismatches(tapes[c], &embeddings, 16), 0);
            } else {
                expect_true(test_all_zero(&embeddings, sizeof embeddings));
                expect_true(test_all_zero(&states, sizeof states));
            }
        }
        ar_arena_stats_t stats;
        expect_int_eq(ar_arena_stats(arenas[k], &stats), ar_status_success_k);
        expect_u64_eq(stats.calls, 3);
    }
    ar_arena_free(arenas[0]);
    ar_executor_free(executor); /* before the second arena: host arenas outlive executors */
    ar_arena_free(arenas[1]);
}

int main(void) {
    test_tape_t small = test_tape_simple(4, 1), large = test_tape_simple(400, 2);
    int64_t baseline = arp_host_live_allocations();
    expect_i64_eq(baseline, 0);
    uint64_t n = 1;
    for (;; ++n) {
        arp_host_fault_arm(n);
        scenario(n, &small, &large);
        uint64_t made = arp_host_fault_allocations();
        arp_host_fault_arm(0);
        expect_i64_eq(arp_host_live_allocations(), baseline);
        if (made < n) break; /* the N-th allocation never came: every failure point was covered */
        require_true(n < 10000);
    }
    printf("host allocations in the scenario: %" PRIu64 "; injected failures reported: %zu\n",
           n - 1, failures_seen);
    expect_u64_ge(n - 1, 6); /* executor, 2 arenas, growths: the scenario does allocate */
    expect_u64_ge(failures_seen, n - 1); /* every injected failure surfaced as out_of_memory */
    test_tape_free(&small);
    test_tape_free(&large);
    return expect_finish();
}
