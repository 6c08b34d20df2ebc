/* The GPU arena, self-contained for a machine with a GPU (exits 77 without CUDA or a device):
 *   devices listed; a VRAM executor and its arena; values right (copied to host) for blocking
 *   and deferred calls; the row offsets in host memory; a steady loop over varying batches
 *   stops growing after warm-up; more than the device holds gives out_of_memory (no host
 *   fallback: outputs zeroed, nothing reserved on the host side for them) and the arena
 *   recovers; device mismatch both ways; a host read of device rows traps (death test); the
 *   executor's own stream is exposed; an executor freed before its arena keeps the arena
 *   usable until it is freed. Every check prints what it did. */
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arena_test_util.h"
#include "expect.h"

#ifdef ARENAREF_HAVE_CUDA
#include "arenaref/cuda.h"

enum { dimensions_k = 40 };

static size_t device_mismatches(test_tape_t const *tape, ar_rows_view_t const *rows) {
    float *host = malloc((rows->count ? rows->count : 1) * rows->columns * sizeof(float));
    require_true(host != NULL);
    expect_int_eq(ar_rows_copy_to_host(rows, host), ar_status_success_k);
    size_t mismatches = 0;
    for (size_t i = 0; i < tape->count; ++i)
        for (size_t d = 0; d < rows->columns; ++d) {
            float expected = ref_embedding(tape->tokens + tape->offsets[i] / 4,
                                           (tape->offsets[i + 1] - tape->offsets[i]) / 4, d);
            if (memcmp(&expected, &host[i * rows->columns + d], sizeof expected)) ++mismatches;
        }
    free(host);
    return mismatches;
}

static volatile float sink;
static ar_rows_view_t death_rows;

int main(void) {
    size_t count = 0;
    ar_gpu_device_t devices[16];
    ar_outcome_t outcome = {0};
    ar_gpu_devices(&(ar_gpu_devices_t){
        .devices = devices, .capacity = 16, .count = &count, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    if (count == 0) skip_test("no CUDA device on this machine");
    printf("GPU 0: %s, %" PRIu64 " bytes\n", devices[0].name, devices[0].memory_bytes);

    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_vram_k, .device = 0, .outcome = &outcome});
    require_true(outcome.status == ar_status_success_k && executor);
    cudaStream_t stream = NULL;
    expect_int_eq(ar_executor_cuda_stream(executor, &stream), ar_status_success_k);
    expect_ptr_not_null(stream);
    ar_arena_t arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor, .outcome = &outcome});
    require_true(arena != NULL);
    printf("executor and arena on GPU 0: ok\n");

    /* values, blocking and deferred */
    test_tape_t tape = test_tape_simple(50, 9);
    for (int deferred = 0; deferred < 2; ++deferred) {
        ar_rows_view_t rows;
        ar_rows_tape_view_t states;
        ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                           .arena = arena,
                                           .texts = tape.view,
                                           .dimensions = dimensions_k,
                                           .deferred = deferred,
                                           .embeddings = &rows,
                                           .states = &states,
                                           .outcome = &outcome});
        expect_int_eq(ar_outcome_wait(&outcome), ar_status_success_k);
        expect_size_eq(device_mismatches(&tape, &rows), 0);
        struct cudaPointerAttributes attributes;
        expect_int_eq(cudaPointerGetAttributes(&attributes, rows.data), cudaSuccess);
        expect_int_eq(attributes.type, cudaMemoryTypeDevice);
        for (size_t i = 0; i <= tape.count; ++i)
            expect_size_eq(states.offsets[i], tape.offsets[i] / 4); /* host */
        expect_size_eq(states.rows, tape.total);
    }
    printf("values (blocking and deferred), device memory, host offsets: checked\n");

    /* steady loop */
    size_t const sizes[] = {5, 80, 20, 80, 1, 60};
    test_tape_t tapes[6];
    for (int k = 0; k < 6; ++k) tapes[k] = test_tape_simple(sizes[k], 50 + k);
    ar_arena_stats_t stats, warm = {0};
    for (int round = 0; round < 4; ++round) {
        for (int k = 0; k < 6; ++k) {
            ar_rows_view_t rows;
            ar_rows_tape_view_t states;
            ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                               .arena = arena,
                                               .texts = tapes[k].view,
                                               .dimensions = dimensions_k,
                                               .embeddings = &rows,
                                               .states = &states,
                                               .outcome = &outcome});
            expect_int_eq(outcome.status, ar_status_success_k);
            if (round == 3) expect_size_eq(device_mismatches(&tapes[k], &rows), 0);
        }
        ar_arena_stats(arena, &stats);
        if (round == 0) warm = stats;
        expect_u64_eq(stats.growths, warm.growths);
        expect_u64_eq(stats.reserved, warm.reserved);
    }
    printf("steady loop: growths %" PRIu64 " after warm-up, constant over 3 more cycles\n",
           warm.growths);

    /* out of memory: one item whose row is larger than the whole device */
    uint32_t token = 1;
    size_t offsets[2] = {0, 4};
    ar_rows_view_t rows;
    memset(&rows, 0x33, sizeof rows);
    ar_text_encode(
        &(ar_text_encode_t){.executor = executor,
                            .arena = arena,
                            .texts = {.data = &token, .offsets = offsets, .count = 1},
                            .dimensions = (size_t)(devices[0].memory_bytes / 4 + (1u << 20)),
                            .embeddings = &rows,
                            .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_out_of_memory_k);
    printf("more than the device holds: %s (%s)\n", ar_status_name(outcome.status),
           outcome.message ? outcome.message : "");
    expect_true(test_all_zero(&rows, sizeof rows));
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = dimensions_k,
                                       .embeddings = &rows,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    expect_size_eq(device_mismatches(&tape, &rows), 0);
    printf("recovered after out of memory: ok\n");

    /* device mismatch both ways */
    ar_executor_t ram = NULL;
    ar_executor_init(
        &(ar_executor_init_t){.executor = &ram, .residency = ar_residency_ram_k, .device = -1});
    ar_arena_t host = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &host, .executor = ram});
    ar_rows_view_t other;
    ar_text_encode(&(ar_text_encode_t){.executor = NULL,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 4,
                                       .embeddings = &other,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_device_k);
    ar_text_encode(&(ar_text_encode_t){.executor = ram,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 4,
                                       .embeddings = &other,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_device_k);
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = host,
                                       .texts = tape.view,
                                       .dimensions = 4,
                                       .embeddings = &other,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_device_k);
    expect_true(ar_rows_view_current(&rows));
    printf("device mismatch (NULL, RAM executor on a GPU arena; VRAM executor on host pages): "
           "device\n");

    /* a host read of device rows traps */
    death_rows = rows;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        sink = ar_rows_f32(&death_rows, 0, 0);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    expect_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    printf("host read of device rows: trapped\n");

    /* the executor freed before its arena: the arena stays usable until freed */
    ar_executor_free(executor);
    ar_arena_stats(arena, &stats);
    expect_int_eq(stats.residency, ar_residency_vram_k);
    expect_int_eq(stats.numa_node, -1);
    ar_arena_free(arena);
    printf("executor freed before its arena: arena freed cleanly\n");

    ar_arena_free(host);
    ar_executor_free(ram);
    for (int k = 0; k < 6; ++k) test_tape_free(&tapes[k]);
    test_tape_free(&tape);
    return expect_finish();
}
#else
int main(void) { skip_test("this build has no CUDA support"); }
#endif
