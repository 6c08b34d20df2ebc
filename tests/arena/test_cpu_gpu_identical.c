/* CPU and GPU give the same bits: for many tapes (empty items, long items, unaligned starts,
 * token ids across the whole uint32 range) and widths, the embeddings and states a VRAM
 * executor writes, copied to the host, equal byte for byte those a RAM executor writes; also
 * with the token tape itself in device memory. Exits 77 without CUDA or a device. */
#include "arena_test_util.h"
#include "expect.h"

#ifdef ARENAREF_HAVE_CUDA
#include "arenaref/cuda.h"

static void compare(ar_executor_t cpu, ar_arena_t cpu_arena, ar_executor_t gpu,
                    ar_arena_t gpu_arena, ar_tape_view_t texts, ar_tape_view_t gpu_texts,
                    size_t dimensions) {
    ar_outcome_t outcome = {0};
    ar_rows_view_t a, b;
    ar_rows_tape_view_t sa, sb;
    ar_text_encode(&(ar_text_encode_t){.executor = cpu,
                                       .arena = cpu_arena,
                                       .texts = texts,
                                       .dimensions = dimensions,
                                       .embeddings = &a,
                                       .states = &sa,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    ar_text_encode(&(ar_text_encode_t){.executor = gpu,
                                       .arena = gpu_arena,
                                       .texts = gpu_texts,
                                       .dimensions = dimensions,
                                       .embeddings = &b,
                                       .states = &sb,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    size_t bytes = a.count * a.stride, state_bytes = sa.rows * sa.stride;
    unsigned char *host = malloc(bytes + state_bytes + 1);
    require_true(host != NULL);
    expect_int_eq(ar_rows_copy_to_host(&b, (float *)host), ar_status_success_k);
    expect_true(memcmp(host, a.data, bytes) == 0);
    if (state_bytes) {
        expect_int_eq(cudaMemcpy(host, sb.data, state_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
        expect_true(memcmp(host, sa.data, state_bytes) == 0);
    }
    for (size_t i = 0; i <= sa.count; ++i) expect_size_eq(sa.offsets[i], sb.offsets[i]);
    free(host);
}

int main(void) {
    size_t count = 0;
    ar_gpu_devices(&(ar_gpu_devices_t){.count = &count});
    if (count == 0) skip_test("no CUDA device on this machine");
    ar_outcome_t outcome = {0};
    ar_executor_t cpu = NULL, gpu = NULL;
    ar_executor_init(
        &(ar_executor_init_t){.executor = &cpu, .residency = ar_residency_ram_k, .device = -1});
    ar_executor_init(&(ar_executor_init_t){
        .executor = &gpu, .residency = ar_residency_vram_k, .device = 0, .outcome = &outcome});
    require_true(cpu && gpu);
    ar_arena_t cpu_arena = NULL, gpu_arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &cpu_arena, .executor = cpu});
    ar_arena_init(&(ar_arena_init_t){.arena = &gpu_arena, .executor = gpu});

    size_t const widths[] = {1, 7, 32, 128, 129, 1000};
    size_t cases = 0;
    for (size_t w = 0; w < 6; ++w)
        for (uint64_t seed = 0; seed < 6; ++seed) {
            size_t items = 1 + (size_t)(seed * 37 % 300);
            size_t *lengths = malloc(items * sizeof(size_t));
            for (size_t i = 0; i < items; ++i)
                lengths[i] = (i * 31 + seed) % 5 == 0 ? 0 : (i * 17 + seed * 3) % 300;
            test_tape_t tape = test_tape_make(items, lengths, seed * 1000 + w);
            free(lengths);
            compare(cpu, cpu_arena, gpu, gpu_arena, tape.view, tape.view, widths[w]);
            /* the same tape from device memory */
            void *device_tokens = NULL;
            require_true(cudaMalloc(&device_tokens, tape.total * 4 + 4) == cudaSuccess);
            cudaMemcpy(device_tokens, tape.tokens, tape.total * 4, cudaMemcpyHostToDevice);
            ar_tape_view_t on_device = tape.view;
            on_device.data = device_tokens;
            compare(cpu, cpu_arena, gpu, gpu_arena, tape.view, on_device, widths[w]);
            cudaFree(device_tokens);
            test_tape_free(&tape);
            cases += 2;
        }
    printf("CPU and GPU bit-identical over %zu cases\n", cases);
    ar_arena_free(gpu_arena);
    ar_arena_free(cpu_arena);
    ar_executor_free(gpu);
    ar_executor_free(cpu);
    return expect_finish();
}
#else
int main(void) { skip_test("this build has no CUDA support"); }
#endif
