/* Exports and cancellation on a GPU arena (exits 77 without CUDA or a device): DLPack gives a
 * kDLCUDA tensor on the arena's GPU over the device rows (no copy) and holds the arena until
 * its deleter; Arrow's C Data Interface, host memory only, refuses device rows with
 * ar_status_device_k; a call queued on a paused GPU executor is cancelled without running. */
#include <dlpack/dlpack.h>

#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

int main(void) {
#ifndef ARENAREF_HAVE_CUDA
    skip_test("this build has no CUDA");
#else
    size_t count = 0;
    ar_outcome_t outcome = {0};
    ar_gpu_devices(&(ar_gpu_devices_t){.count = &count, .outcome = &outcome});
    if (count == 0) skip_test("no CUDA device on this machine");
    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_vram_k, .device = 0, .outcome = &outcome});
    require_true(outcome.status == ar_status_success_k && executor);
    ar_arena_t arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor, .outcome = &outcome});
    require_true(arena != NULL);
    test_tape_t tape = test_tape_simple(12, 2);
    ar_rows_view_t rows;
    ar_text_encode_t call = {.executor = executor,
                             .arena = arena,
                             .texts = tape.view,
                             .dimensions = 8,
                             .embeddings = &rows,
                             .outcome = &outcome};
    ar_text_encode(&call);
    require_true(outcome.status == ar_status_success_k);

    DLManagedTensor *tensor = NULL;
    expect_int_eq(ar_rows_view_to_dlpack(&rows, &tensor), ar_status_success_k);
    require_true(tensor != NULL);
    expect_int_eq(tensor->dl_tensor.device.device_type, kDLCUDA);
    expect_int_eq(tensor->dl_tensor.device.device_id, 0);
    expect_ptr_eq(tensor->dl_tensor.data, rows.data);
    expect_i64_eq(tensor->dl_tensor.shape[0], 12);
    ar_rows_view_t other;
    call.embeddings = &other;
    ar_text_encode(&call);
    expect_int_eq(outcome.status, ar_status_contended_k);
    tensor->deleter(tensor);
    call.embeddings = &rows;
    ar_text_encode(&call);
    expect_int_eq(outcome.status, ar_status_success_k);

    struct ArrowSchema schema;
    struct ArrowArray array;
    expect_int_eq(ar_rows_view_to_arrow(&rows, &schema, &array), ar_status_device_k);
    expect_ptr_null(array.release);

    arp_testing_executor_pause(executor, true);
    call.deferred = true;
    ar_text_encode(&call);
    expect_int_eq(ar_outcome_status(&outcome), ar_status_deferred_k);
    expect_int_eq(ar_outcome_cancel(&outcome), ar_status_cancelled_k);
    expect_ptr_null(rows.data);
    arp_testing_executor_pause(executor, false);
    printf("GPU exports and cancel: %s\n", expect_failures_ ? "failed" : "ok");

    ar_arena_free(arena);
    ar_executor_free(executor);
    test_tape_free(&tape);
    return expect_finish();
#endif
}
