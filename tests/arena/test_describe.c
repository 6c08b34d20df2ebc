/* ar_arena_describe: where an arena's outputs live, as the executor that made it decided:
 * host pages (RAM, device -1) for a NULL or RAM executor; a GPU's memory (VRAM, its ordinal) for
 * a VRAM executor, checked where a GPU exists. Describing allocates nothing and works before
 * and after calls; executors describe themselves too. */
#include "arena_test_util.h"
#include "expect.h"

static void expect_description(ar_arena_t arena, ar_residency_t residency, int32_t device) {
    ar_outcome_t outcome = {0};
    ar_arena_description_t description = {.residency = (ar_residency_t)99, .device = 99};
    ar_arena_describe(
        &(ar_arena_describe_t){.arena = arena, .outcome = &outcome, .description = &description});
    expect_int_eq(outcome.status, ar_status_success_k);
    expect_int_eq(description.residency, residency);
    expect_int_eq(description.device, device);
}

int main(void) {
    ar_outcome_t outcome = {0};
    ar_arena_t arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = NULL, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    expect_description(arena, ar_residency_ram_k, -1);
    ar_arena_stats_t stats;
    ar_arena_stats(arena, &stats);
    expect_u64_eq(stats.reserved, 0); /* nothing allocated until a call writes */
    expect_u64_eq(stats.growths, 0);
    test_tape_t tape = test_tape_simple(3, 1);
    ar_rows_view_t embeddings;
    ar_text_encode(&(ar_text_encode_t){
        .arena = arena, .texts = tape.view, .dimensions = 4, .embeddings = &embeddings});
    expect_description(arena, ar_residency_ram_k, -1);
    ar_arena_free(arena);

    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1, .outcome = &outcome});
    require_true(executor != NULL);
    ar_executor_description_t about;
    ar_executor_describe(&(ar_executor_describe_t){
        .executor = executor, .outcome = &outcome, .description = &about});
    expect_int_eq(outcome.status, ar_status_success_k);
    expect_int_eq(about.residency, ar_residency_ram_k);
    expect_int_eq(about.device, -1);
    expect_true(about.numa_node >= 0);
    expect_true(about.cpus >= 1);
    ar_executor_describe(
        &(ar_executor_describe_t){.executor = NULL, .outcome = &outcome, .description = &about});
    expect_int_eq(outcome.status, ar_status_invalid_argument_k);
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor, .outcome = &outcome});
    expect_description(arena, ar_residency_ram_k, -1);
    ar_arena_free(arena);
    ar_executor_free(executor);

    size_t count = 0;
    ar_gpu_device_t devices[8];
    ar_gpu_devices(&(ar_gpu_devices_t){
        .devices = devices, .capacity = 8, .count = &count, .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    printf("GPUs: %zu\n", count);
    for (size_t i = 0; i < count && i < 8; ++i) {
        expect_int_eq(devices[i].ordinal, (int)i);
        printf("  %d: %s, %" PRIu64 " bytes\n", devices[i].ordinal, devices[i].name,
               devices[i].memory_bytes);
        ar_executor_t gpu = NULL;
        ar_executor_init(&(ar_executor_init_t){.executor = &gpu,
                                               .residency = ar_residency_vram_k,
                                               .device = (int32_t)i,
                                               .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_success_k);
        ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = gpu, .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_success_k);
        expect_description(arena, ar_residency_vram_k, (int32_t)i);
        ar_arena_stats(arena, &stats);
        expect_int_eq(stats.numa_node, -1);
        ar_arena_free(arena);
        ar_executor_free(gpu);
    }
    if (count == 0) {
        /* Without a GPU (or without CUDA in this build) a VRAM executor is unsupported. */
        ar_executor_t gpu = (ar_executor_t)&outcome;
        ar_executor_init(&(ar_executor_init_t){
            .executor = &gpu, .residency = ar_residency_vram_k, .device = 0, .outcome = &outcome});
        expect_int_eq(outcome.status, ar_status_unsupported_k);
        expect_ptr_null(gpu);
    }
    test_tape_free(&tape);
    return expect_finish();
}
