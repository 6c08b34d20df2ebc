// gpu_encode.cu: the reference encoder (arena.h's formula) as a CUDA kernel, for the GPU
// strategies of bench_gpu.c that allocate with cudaMalloc or cudaMallocAsync: they do the same
// work as ar_text_encode on a VRAM arena, into memory they allocate themselves. One thread per
// (item, dimension) sums its item's tokens in order, as the definition requires.
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

namespace {

__device__ uint32_t fmix32(uint32_t h) {
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    return h;
}

__device__ float value_of(uint32_t token, uint32_t j, uint32_t d) {
    uint32_t mix = fmix32(token * 0x9E3779B1u ^ (j + 1) * 0x85EBCA77u ^ (d + 1) * 0xC2B2AE3Du);
    return (float)((int32_t)(mix >> 8) - 8388608) * 0x1p-23f;
}

__global__ void encode(uint32_t const *tokens, size_t const *offsets, size_t count,
                       size_t dimensions, float *embeddings, float *states) {
    size_t index = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (index >= count * dimensions) return;
    size_t item = index / dimensions, d = index % dimensions;
    size_t first = offsets[item] / 4, n = offsets[item + 1] / 4 - first;
    float sum = 0;
    for (size_t j = 0; j != n; ++j) {
        float value = value_of(tokens[first + j], (uint32_t)j, (uint32_t)d);
        states[(first + j) * dimensions + d] = value;
        sum = __fadd_rn(sum, value);
    }
    embeddings[item * dimensions + d] = n ? __fdiv_rn(sum, (float)n) : 0.0f;
}

} // namespace

extern "C" int bench_gpu_encode(uint32_t const *tokens, size_t const *offsets, size_t count,
                                size_t dimensions, float *embeddings, float *states,
                                cudaStream_t stream) {
    size_t threads = count * dimensions;
    if (threads == 0) return 0;
    unsigned blocks = (unsigned)((threads + 255) / 256);
    encode<<<blocks, 256, 0, stream>>>(tokens, offsets, count, dimensions, embeddings, states);
    return cudaGetLastError() == cudaSuccess ? 0 : -1;
}
