/* Stale views trap. Death tests: each case runs in a forked child that must die by SIGABRT with
 * the library's message, while the parent checks how it died:
 *   - a checked read of a view whose arena a later call rewound (rows and rows-tape views),
 *   - a row, column or offset index out of range, a zeroed view.
 * A current view reads fine, and ar_rows_view_current says which is which without trapping.
 * In AddressSanitizer builds a raw read of a stale row that the next call did not rewrite is
 * reported too (the rewind poisons the previous outputs). */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena_test_util.h"
#include "expect.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_ASAN 1
#endif
#endif

static ar_arena_t arena;
static test_tape_t tape_big, tape_small;
static ar_rows_view_t old_rows, new_rows;
static ar_rows_tape_view_t old_states, new_states;

typedef void (*death_t)(void);

/* Runs `body` in a child; returns the signal that ended it (0 if it exited normally), and
 * `exit_code` the code of a normal exit. */
static int run_child(death_t body, int *exit_code) {
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    require_true(pid >= 0);
    if (pid == 0) {
        body();
        _exit(0); /* survived: the test fails */
    }
    int status = 0;
    require_true(waitpid(pid, &status, 0) == pid);
    *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static volatile float sink;
static void read_stale_row(void) { sink = ar_rows_f32(&old_rows, 0, 0); }
static void read_stale_state(void) { sink = ar_rows_tape_f32(&old_states, 0, 0); }
static void read_stale_offset(void) { sink = (float)ar_rows_tape_offset(&old_states, 1); }
static void read_row_out_of_range(void) { sink = ar_rows_f32(&new_rows, new_rows.count, 0); }
static void read_column_out_of_range(void) { sink = ar_rows_f32(&new_rows, 0, new_rows.columns); }
static void read_offset_out_of_range(void) {
    sink = (float)ar_rows_tape_offset(&new_states, new_states.count + 1);
}
static void read_zeroed(void) {
    ar_rows_view_t zeroed = {0};
    sink = ar_rows_f32(&zeroed, 0, 0);
}
static void read_current(void) {
    sink = ar_rows_f32(&new_rows, new_rows.count - 1, new_rows.columns - 1);
    sink = ar_rows_tape_f32(&new_states, new_states.rows - 1, 0);
}
#ifdef HAVE_ASAN
/* The old view's last row lies past everything the smaller second call wrote. */
static void read_stale_raw(void) {
    float const *last =
        (float const *)((char const *)old_rows.data + (old_rows.count - 1) * old_rows.stride);
    sink = last[0];
}
#endif

int main(void) {
    ar_outcome_t outcome = {0};
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .outcome = &outcome});
    tape_big = test_tape_simple(64, 1);
    tape_small = test_tape_simple(4, 2);
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape_big.view,
                                       .dimensions = 8,
                                       .embeddings = &old_rows,
                                       .states = &old_states,
                                       .outcome = &outcome});
    require_true(outcome.status == ar_status_success_k);
    expect_true(ar_rows_view_current(&old_rows));
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape_small.view,
                                       .dimensions = 8,
                                       .embeddings = &new_rows,
                                       .states = &new_states,
                                       .outcome = &outcome});
    require_true(outcome.status == ar_status_success_k);
    expect_false(ar_rows_view_current(&old_rows));
    expect_false(ar_rows_tape_view_current(&old_states));
    expect_true(ar_rows_view_current(&new_rows));
    expect_true(ar_rows_tape_view_current(&new_states));

    struct {
        char const *name;
        death_t body;
    } const deaths[] = {
        {"stale rows", read_stale_row},
        {"stale states", read_stale_state},
        {"stale offsets", read_stale_offset},
        {"row out of range", read_row_out_of_range},
        {"column out of range", read_column_out_of_range},
        {"offset out of range", read_offset_out_of_range},
        {"zeroed view", read_zeroed},
    };
    for (size_t k = 0; k < sizeof deaths / sizeof deaths[0]; ++k) {
        int code = 0;
        int signal_number = run_child(deaths[k].body, &code);
        if (signal_number != SIGABRT)
            fprintf(stderr, "case %s: signal %d, exit %d\n", deaths[k].name, signal_number, code);
        expect_int_eq(signal_number, SIGABRT);
    }
    int code = -1;
    expect_int_eq(run_child(read_current, &code), 0);
    expect_int_eq(code, 0);
#ifdef HAVE_ASAN
    /* AddressSanitizer ends the child with its own exit code (1 by default) or by abort. */
    int signal_number = run_child(read_stale_raw, &code);
    expect_true(signal_number != 0 || code != 0);
    printf("raw stale read under AddressSanitizer: signal %d, exit %d\n", signal_number, code);
#endif
    ar_arena_free(arena);
    test_tape_free(&tape_big);
    test_tape_free(&tape_small);
    return expect_finish();
}
