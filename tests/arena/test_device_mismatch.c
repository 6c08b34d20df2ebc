/* device: a call on another residency or device than the arena's.
 * Everywhere: a VRAM executor without a GPU (or without CUDA in this build) is unsupported;
 * host-page arenas serve any RAM executor and NULL (same residency: never `device`), including
 * an executor on another (synthetic) node. Where a GPU exists: a GPU arena named with NULL, a
 * RAM executor, or another VRAM executor is refused with `device` (outputs zeroed, arena
 * untouched), and a host-page arena named with a VRAM executor is refused likewise. */
#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

static ar_status_t encode(ar_executor_t executor, ar_arena_t arena, test_tape_t const *tape,
                          ar_rows_view_t *rows) {
    ar_outcome_t outcome = {0};
    memset(rows, 0x77, sizeof *rows);
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape->view,
                                       .dimensions = 8,
                                       .embeddings = rows,
                                       .outcome = &outcome});
    if (outcome.status != ar_status_success_k) expect_true(test_all_zero(rows, sizeof *rows));
    if (outcome.status == ar_status_device_k) expect_ptr_not_null(outcome.message);
    return outcome.status;
}

int main(void) {
    test_tape_t tape = test_tape_simple(7, 3);
    ar_rows_view_t rows;
    ar_outcome_t outcome = {0};
    ar_executor_t ram = NULL, synthetic = NULL;
    ar_executor_init(
        &(ar_executor_init_t){.executor = &ram, .residency = ar_residency_ram_k, .device = -1});
    arp_testing_executor_init_synthetic(
        &(ar_executor_init_t){.executor = &synthetic, .residency = ar_residency_ram_k, .device = 1},
        "numa:2 core:2 pu:1");
    require_true(ram && synthetic);
    ar_arena_t host = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &host, .executor = ram});
    expect_int_eq(encode(ram, host, &tape, &rows), ar_status_success_k);
    expect_int_eq(encode(NULL, host, &tape, &rows), ar_status_success_k);
    expect_int_eq(encode(synthetic, host, &tape, &rows), ar_status_success_k);
    expect_size_eq(test_embedding_mismatches(&tape, &rows, 8), 0);

    size_t gpus = 0;
    ar_gpu_devices(&(ar_gpu_devices_t){.count = &gpus, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    if (gpus == 0) {
        ar_executor_t vram = NULL;
        ar_executor_init(&(ar_executor_init_t){
            .executor = &vram, .residency = ar_residency_vram_k, .device = 0, .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_unsupported_k);
        expect_ptr_null(vram);
        printf("no GPU: checked the host side and that VRAM executors are unsupported\n");
    } else {
        ar_executor_t vram = NULL, vram2 = NULL;
        ar_executor_init(&(ar_executor_init_t){
            .executor = &vram, .residency = ar_residency_vram_k, .device = 0, .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_success_k);
        ar_executor_init(&(ar_executor_init_t){.executor = &vram2,
                                               .residency = ar_residency_vram_k,
                                               .device = 0,
                                               .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_success_k);
        ar_arena_t gpu = NULL;
        ar_arena_init(&(ar_arena_init_t){.arena = &gpu, .executor = vram});
        expect_int_eq(encode(vram, gpu, &tape, &rows), ar_status_success_k);
        ar_rows_view_t kept = rows;
        expect_int_eq(encode(NULL, gpu, &tape, &rows), ar_status_device_k);
        expect_int_eq(encode(ram, gpu, &tape, &rows), ar_status_device_k);
        expect_int_eq(encode(vram2, gpu, &tape, &rows), ar_status_device_k);
        expect_int_eq(encode(vram, host, &tape, &rows), ar_status_device_k);
        expect_true(ar_rows_view_current(&kept)); /* refused calls did not rewind */
        ar_arena_stats_t stats;
        ar_arena_stats(gpu, &stats);
        expect_u64_eq(stats.calls, 1);
        ar_arena_free(gpu);
        ar_executor_free(vram2);
        ar_executor_free(vram);
        printf("GPU: checked NULL, RAM and another VRAM executor on a GPU arena, and VRAM on host "
               "pages\n");
    }
    ar_arena_free(host);
    ar_executor_free(synthetic);
    ar_executor_free(ram);
    test_tape_free(&tape);
    return expect_finish();
}
