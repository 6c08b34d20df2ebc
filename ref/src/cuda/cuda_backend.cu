/* The CUDA backend of the arena core (gpu_backend.h; cuda_register.c registers it): one state
 * per VRAM executor holding the device ordinal and the executor's own first stream, created
 * non-blocking so it never serialises with the legacy default stream. Arena memory is
 * stream-ordered (cudaMallocAsync / cudaFreeAsync on that stream) from the device's default
 * pool, whose release threshold is raised to "never" so what the arena frees while growing
 * stays in the pool. Out of memory is reported, never worked around.
 *
 * The encode kernel recomputes each value from the documented integer hash and sums in token
 * order with explicitly rounded operations (__fadd_rn, __fdiv_rn: no contraction into FMA, no
 * reassociation), so it matches the CPU loop in text_encode.c bit for bit. */
#include <cuda_runtime.h>

#include <stdlib.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cuda_internal.h"

struct arp_gpu_state_t {
    int device;
    cudaStream_t stream;
};

static ar_status_t status_of(cudaError_t error) {
    if (error == cudaSuccess) return ar_status_success_k;
    cudaGetLastError(); /* clear the sticky-free error so later calls start clean */
    return error == cudaErrorMemoryAllocation ? ar_status_out_of_memory_k : ar_status_device_k;
}

extern "C" size_t arp_cuda_count(void) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count > 0 ? (size_t)count : 0;
}

extern "C" ar_status_t arp_cuda_describe(int32_t ordinal, ar_gpu_device_t *device) {
    cudaDeviceProp properties;
    cudaError_t error = cudaGetDeviceProperties(&properties, ordinal);
    if (error != cudaSuccess) return status_of(error);
    memset(device, 0, sizeof *device);
    device->ordinal = ordinal;
    snprintf(device->name, sizeof device->name, "%s", properties.name);
    device->memory_bytes = (uint64_t)properties.totalGlobalMem;
    return ar_status_success_k;
}

extern "C" ar_status_t arp_cuda_open(int32_t ordinal, arp_gpu_state_t **state,
                                    char const **message) {
    *state = NULL;
    size_t count = arp_cuda_count();
    if (count == 0) {
        *message = "ar_executor_init: no CUDA device (or driver) on this machine";
        return ar_status_unsupported_k;
    }
    if (ordinal < 0 || (size_t)ordinal >= count) {
        *message = "ar_executor_init: `device` is not a GPU ordinal ar_gpu_devices lists";
        return ar_status_invalid_argument_k;
    }
    int pools = 0;
    cudaError_t error = cudaSetDevice(ordinal);
    if (error == cudaSuccess)
        error = cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, ordinal);
    if (error != cudaSuccess) {
        *message = cudaGetErrorString(error);
        return status_of(error);
    }
    if (!pools) {
        *message = "ar_executor_init: this GPU has no stream-ordered memory pools";
        return ar_status_unsupported_k;
    }
    arp_gpu_state_t *opened = (arp_gpu_state_t *)calloc(1, sizeof *opened);
    if (!opened) {
        *message = "ar_executor_init: out of host memory";
        return ar_status_out_of_memory_k;
    }
    opened->device = ordinal;
    cudaMemPool_t pool;
    uint64_t keep_everything = UINT64_MAX;
    error = cudaStreamCreateWithFlags(&opened->stream, cudaStreamNonBlocking);
    if (error == cudaSuccess) error = cudaDeviceGetDefaultMemPool(&pool, ordinal);
    if (error == cudaSuccess)
        error = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep_everything);
    if (error != cudaSuccess) {
        if (opened->stream) cudaStreamDestroy(opened->stream);
        free(opened);
        *message = cudaGetErrorString(error);
        return status_of(error);
    }
    *state = opened;
    return ar_status_success_k;
}

extern "C" void arp_cuda_close(arp_gpu_state_t *state) {
    if (!state) return;
    cudaSetDevice(state->device);
    cudaStreamSynchronize(state->stream);
    cudaStreamDestroy(state->stream);
    free(state);
}

extern "C" int32_t arp_gpu_ordinal(arp_gpu_state_t const *state) {
    return state ? state->device : -1;
}
extern "C" void *arp_gpu_stream(arp_gpu_state_t const *state) {
    return state ? (void *)state->stream : NULL;
}

extern "C" ar_status_t arp_cuda_alloc(arp_gpu_state_t *state, size_t size, void **pointer) {
    *pointer = NULL;
    cudaError_t error = cudaSetDevice(state->device);
    if (error == cudaSuccess) error = cudaMallocAsync(pointer, size, state->stream);
    if (error != cudaSuccess) *pointer = NULL;
    return status_of(error);
}

extern "C" void arp_cuda_free(arp_gpu_state_t *state, void *pointer) {
    if (!pointer) return;
    cudaSetDevice(state->device);
    cudaFreeAsync(pointer, state->stream);
    cudaStreamSynchronize(state->stream);
}

__device__ static inline uint32_t fmix32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

__device__ static inline float token_value(uint32_t token, unsigned long long position,
                                           unsigned long long column) {
    uint32_t h = token * 0x9E3779B1u ^ (uint32_t)(position + 1) * 0x85EBCA77u ^
                 (uint32_t)(column + 1) * 0xC2B2AE3Du;
    return __fmul_rn(__int2float_rn((int32_t)(fmix32(h) >> 8) - 8388608),
                     1.1920928955078125e-07f /* 2^-23 */);
}

/* One block per item (grid-strided), threads across columns; each thread sums its column over
 * the item's tokens in order, writing each state row on the way. */
__global__ static void encode_kernel(uint32_t const *tokens, unsigned long long const *starts,
                                     unsigned long long count, unsigned long long dimensions,
                                     float *embeddings, float *states) {
    for (unsigned long long item = blockIdx.x; item < count; item += gridDim.x) {
        unsigned long long first = starts[item], length = starts[item + 1] - first;
        for (unsigned long long d = threadIdx.x; d < dimensions; d += blockDim.x) {
            float sum = 0.0f;
            for (unsigned long long j = 0; j < length; ++j) {
                float value = token_value(tokens[first + j], j, d);
                if (states) states[(first + j) * dimensions + d] = value;
                sum = __fadd_rn(sum, value);
            }
            embeddings[item * dimensions + d] =
                length ? __fdiv_rn(sum, __ull2float_rn(length)) : 0.0f;
        }
    }
}

extern "C" ar_status_t arp_cuda_text_encode(arp_gpu_state_t *state,
                                           arp_gpu_encode_layout_t const *layout,
                                           void const *token_data, size_t tokens,
                                           size_t const *starts, size_t count, size_t dimensions,
                                           char const **message) {
    static_assert(sizeof(size_t) == sizeof(unsigned long long),
                  "row starts are copied as 64-bit words");
    char *block = (char *)layout->device_block;
    uint32_t *device_tokens = (uint32_t *)(block + layout->tokens_offset);
    unsigned long long *device_starts = (unsigned long long *)(block + layout->starts_offset);
    cudaError_t error = cudaSetDevice(state->device);
    if (error == cudaSuccess && tokens)
        error = cudaMemcpyAsync(device_tokens, token_data, tokens * sizeof(uint32_t),
                                cudaMemcpyDefault, state->stream);
    if (error == cudaSuccess)
        error = cudaMemcpyAsync(device_starts, starts, (count + 1) * sizeof(size_t),
                                cudaMemcpyHostToDevice, state->stream);
    if (error == cudaSuccess && count) {
        unsigned blocks = count < (1u << 20) ? (unsigned)count : (1u << 20);
        unsigned threads = dimensions < 128 ? (unsigned)((dimensions + 31) / 32 * 32) : 128;
        encode_kernel<<<blocks, threads, 0, state->stream>>>(
            device_tokens, device_starts, count, dimensions,
            (float *)(block + layout->embeddings_offset),
            layout->with_states ? (float *)(block + layout->states_offset) : NULL);
        error = cudaGetLastError();
    }
    /* The row starts are host pages of the arena: wait before anyone may rewrite them. */
    if (error == cudaSuccess) error = cudaStreamSynchronize(state->stream);
    if (error != cudaSuccess) {
        *message = cudaGetErrorString(error);
        return status_of(error);
    }
    return ar_status_success_k;
}
