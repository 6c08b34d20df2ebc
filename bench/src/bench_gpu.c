/* GPU arena steady state: the arena on a VRAM executor against allocating every call's outputs
 * with cudaMalloc/cudaFree (which synchronise the device) or with cudaMallocAsync/cudaFreeAsync
 * on a stream (the default pool, its release threshold raised so memory stays cached, as an
 * arena would), over the fixed and heavy-tailed streams of stream.c. */
#include "bench.h"

#ifdef ARENAREF_BENCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaref/arena.h"
#include "stream.h"

/* Time is manual, from CUDA events recorded on the legacy default stream around each call and
 * waited for: the blocking arena call returns only when its outputs are final, and the other
 * strategies synchronise their stream before the stop event, so the events bracket the whole
 * call. The cudaMalloc strategies run the same encoder as a kernel (gpu_encode.cu), with the
 * batch's tokens and offsets copied in as the arena call does. Built only with CUDA; on a
 * machine without a device every GPU benchmark is skipped with the reason "no CUDA device". */

int bench_gpu_encode(uint32_t const *tokens, size_t const *offsets, size_t count, size_t dimensions,
                     float *embeddings, float *states, cudaStream_t stream);

typedef enum gpu_strategy_t {
    gpu_arena_k,
    gpu_malloc_k,
    gpu_malloc_async_k,
    gpu_strategies_k
} gpu_strategy_t;
static char const *const gpu_names[] = {"arena", "cudaMalloc", "cudaMallocAsync"};

typedef struct gpu_case_t {
    gpu_strategy_t strategy;
    stream_kind_t kind;
} gpu_case_t;

static bool have_device(char *reason, size_t capacity) {
    int count = 0;
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error == cudaSuccess && count > 0) return true;
    snprintf(reason, capacity, "no CUDA device (%s)",
             error != cudaSuccess ? cudaGetErrorString(error) : "none found");
    return false;
}

/* One call of a cudaMalloc strategy: allocate inputs and outputs, copy, encode, free. */
static cudaError_t allocating_call(gpu_strategy_t strategy, stream_batch_t const *batch,
                                   cudaStream_t stream, uint64_t *allocations) {
    size_t sizes[4] = {batch->tokens_count * sizeof(uint32_t) + 4,
                       (batch->count + 1) * sizeof(size_t), batch->embeddings_bytes,
                       batch->states_bytes};
    void *buffers[4] = {0};
    cudaError_t error = cudaSuccess;
    for (int i = 0; i != 4 && error == cudaSuccess; ++i) {
        error = strategy == gpu_malloc_k ? cudaMalloc(&buffers[i], sizes[i])
                                         : cudaMallocAsync(&buffers[i], sizes[i], stream);
        ++*allocations;
    }
    if (error == cudaSuccess)
        error = cudaMemcpyAsync(buffers[0], batch->tokens, sizes[0] - 4, cudaMemcpyHostToDevice,
                                stream);
    if (error == cudaSuccess)
        error =
            cudaMemcpyAsync(buffers[1], batch->offsets, sizes[1], cudaMemcpyHostToDevice, stream);
    if (error == cudaSuccess &&
        bench_gpu_encode(buffers[0], buffers[1], batch->count, STREAM_DIMENSIONS, buffers[2],
                         buffers[3], stream) != 0)
        error = cudaErrorLaunchFailure;
    for (int i = 0; i != 4; ++i)
        if (buffers[i])
            strategy == gpu_malloc_k ? cudaFree(buffers[i]) : cudaFreeAsync(buffers[i], stream);
    cudaError_t sync = cudaStreamSynchronize(stream);
    return error != cudaSuccess ? error : sync;
}

typedef struct gpu_run_t {
    gpu_strategy_t strategy;
    ar_executor_t executor;
    ar_arena_t arena;
    cudaStream_t stream;
    cudaEvent_t start, stop;
    uint64_t allocations;
    char message[256];
} gpu_run_t;

/* One call, bracketed by events on the legacy default stream; false with run->message set. */
static bool gpu_call(gpu_run_t *run, stream_batch_t const *batch, float *milliseconds) {
    char *message = run->message;
    size_t capacity = sizeof run->message;
    cudaError_t error = cudaEventRecord(run->start, 0);
    if (error == cudaSuccess && run->strategy == gpu_arena_k) {
        ar_outcome_t outcome = {0};
        ar_rows_view_t embeddings;
        ar_rows_tape_view_t states;
        ar_text_encode(&(ar_text_encode_t){.executor = run->executor,
                                           .arena = run->arena,
                                           .texts = stream_tape(batch),
                                           .dimensions = STREAM_DIMENSIONS,
                                           .embeddings = &embeddings,
                                           .states = &states,
                                           .outcome = &outcome});
        if (outcome.status != ar_status_success_k) {
            snprintf(message, capacity, "ar_text_encode on the GPU failed: %s (%s)",
                     ar_status_name(outcome.status),
                     outcome.message ? outcome.message : "no message");
            return false;
        }
    } else if (error == cudaSuccess) {
        error = allocating_call(run->strategy, batch, run->stream, &run->allocations);
    }
    if (error == cudaSuccess) error = cudaEventRecord(run->stop, 0);
    if (error == cudaSuccess) error = cudaEventSynchronize(run->stop);
    if (error == cudaSuccess) error = cudaEventElapsedTime(milliseconds, run->start, run->stop);
    if (error != cudaSuccess) {
        snprintf(message, capacity, "%s failed: %s", gpu_names[run->strategy],
                 cudaGetErrorString(error));
        return false;
    }
    return true;
}

static bool gpu_setup(gpu_run_t *run) {
    char *message = run->message;
    size_t capacity = sizeof run->message;
    cudaError_t error = cudaSetDevice(0);
    if (error == cudaSuccess)
        error = cudaStreamCreateWithFlags(&run->stream, cudaStreamNonBlocking);
    if (error == cudaSuccess) error = cudaEventCreate(&run->start);
    if (error == cudaSuccess) error = cudaEventCreate(&run->stop);
    if (error == cudaSuccess && run->strategy == gpu_malloc_async_k) {
        cudaMemPool_t pool;
        uint64_t keep = UINT64_MAX; /* keep freed memory cached in the pool, as an arena would */
        error = cudaDeviceGetDefaultMemPool(&pool, 0);
        if (error == cudaSuccess)
            error = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    }
    if (error != cudaSuccess) {
        snprintf(message, capacity, "CUDA setup failed: %s", cudaGetErrorString(error));
        return false;
    }
    if (run->strategy == gpu_arena_k) {
        ar_outcome_t outcome = {0};
        ar_executor_init(&(ar_executor_init_t){.executor = &run->executor,
                                               .residency = ar_residency_vram_k,
                                               .device = 0,
                                               .outcome = &outcome});
        if (outcome.status == ar_status_success_k)
            ar_arena_init(&(ar_arena_init_t){
                .arena = &run->arena, .executor = run->executor, .outcome = &outcome});
        if (outcome.status != ar_status_success_k) {
            snprintf(message, capacity, "cannot make a VRAM executor and arena: %s (%s)",
                     ar_status_name(outcome.status),
                     outcome.message ? outcome.message : "no message");
            return false;
        }
    }
    return true;
}

static uint64_t arena_growths(ar_arena_t arena, uint64_t *reserved) {
    ar_arena_stats_t stats;
    memset(&stats, 0, sizeof stats);
    if (arena) ar_arena_stats(arena, &stats);
    *reserved = stats.reserved;
    return stats.growths;
}

static void run_gpu(gb_state_t *state, void *data) {
    gpu_case_t const *c = data;
    gpu_run_t run = {.strategy = c->strategy};
    stream_t const *stream = stream_get(c->kind);
    bool ok = have_device(run.message, sizeof run.message);
    if (ok && !stream)
        snprintf(run.message, sizeof run.message, "out of memory making the batch stream"),
            ok = false;
    if (ok) ok = gpu_setup(&run);
    float milliseconds = 0;
    size_t next = 0;
    for (; ok && next != STREAM_BATCHES; ++next)
        ok = gpu_call(&run, &stream->batches[next], &milliseconds); /* warm-up */
    uint64_t reserved = 0, growths_before = arena_growths(run.arena, &reserved), calls = 0;
    run.allocations = 0;
    if (ok) {
        while (gb_keep_running(state, 1)) {
            if (!gpu_call(&run, &stream->batches[next++ % STREAM_BATCHES], &milliseconds)) {
                ok = false;
                break;
            }
            gb_set_iteration_time(state, milliseconds * 1e-3 * bench_slowdown_factor());
            ++calls;
        }
    }
    if (ok) {
        if (run.arena) run.allocations = arena_growths(run.arena, &reserved) - growths_before;
        gb_set_counter(state, "allocations_per_call",
                       calls ? (double)run.allocations / (double)calls : 0, gb_counter_default_k);
        gb_set_counter(state, "high_water_bytes", (double)stream->max_call_bytes,
                       gb_counter_default_k);
        if (run.arena)
            gb_set_counter(state, "reserved_bytes", (double)reserved, gb_counter_default_k);
    } else {
        gb_skip_with_error(state, run.message);
    }
    ar_arena_free(run.arena);
    ar_executor_free(run.executor);
    if (run.start) cudaEventDestroy(run.start);
    if (run.stop) cudaEventDestroy(run.stop);
    if (run.stream) cudaStreamDestroy(run.stream);
}

void bench_register_gpu(void) {
    stream_kind_t const kinds[] = {stream_fixed_k, stream_heavy_k};
    for (size_t k = 0; k != sizeof kinds / sizeof *kinds; ++k) {
        for (int strategy = 0; strategy != gpu_strategies_k; ++strategy) {
            gpu_case_t *c = malloc(sizeof *c);
            if (!c) return;
            *c = (gpu_case_t){(gpu_strategy_t)strategy, kinds[k]};
            char name[96];
            snprintf(name, sizeof name, "gpu/%s/%s", stream_kind_name(kinds[k]),
                     gpu_names[strategy]);
            gb_benchmark_t *b = gb_register(name, run_gpu, c);
            if (!b) return;
            gb_use_manual_time(b);
            gb_unit(b, gb_time_unit_us_k);
        }
    }
}

#else
/* Without CUDA in this build there is nothing to register: the environment record says
 * "none (built without CUDA)". */
void bench_register_gpu(void) {}
#endif
