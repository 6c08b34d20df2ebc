/* The seam between the arena core (plain C, no CUDA) and a GPU backend (ref/src/cuda/, the
 * separate CUDA library, built only where nvcc is found). The core calls only the arp_gpu_*
 * functions below; gpu_dispatch.c forwards them to the backend that registered itself
 * (ar_gpu_backend_register, cuda_register.h), or reports no device and `unsupported` when none did, so every public
 * GPU entry point exists and RAM-only programs never load the CUDA runtime.
 * `state` is the backend's per-executor state: the device and its own first stream. */
#ifndef ARENAREF_GPU_BACKEND_H
#define ARENAREF_GPU_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwloc.h>

#include "arenaref/arena.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct arp_gpu_state_t arp_gpu_state_t;

/* How many devices the runtime sees; 0 without CUDA, a driver or a device. */
size_t arp_gpu_count(void);
ar_status_t arp_gpu_describe(int32_t ordinal, ar_gpu_device_t *device);

/* Opens `ordinal`: its own non-blocking stream and a memory pool that keeps what it frees.
 * unsupported without CUDA or device; invalid_argument for an ordinal out of range. */
ar_status_t arp_gpu_open(int32_t ordinal, arp_gpu_state_t **state, char const **message);
void arp_gpu_close(arp_gpu_state_t *state); /* NULL safe; synchronises the stream first */

/* The CPUs near the device (falls back to all CPUs); false when unknown. */
bool arp_gpu_cpuset(arp_gpu_state_t *state, hwloc_topology_t topology, hwloc_bitmap_t cpuset);

/* Stream-ordered device memory on the executor's stream; out_of_memory never falls back. */
ar_status_t arp_gpu_alloc(arp_gpu_state_t *state, size_t size, void **pointer);
void arp_gpu_free(arp_gpu_state_t *state, void *pointer); /* waits for the stream */

/* Where the parts of one ar_text_encode call lie in the arena's device block. */
typedef struct arp_gpu_encode_layout_t {
    void *device_block;
    size_t embeddings_offset, states_offset, tokens_offset, starts_offset; /* bytes */
    bool with_states;
} arp_gpu_encode_layout_t;

/* Copies the tokens (host or device memory, `tokens` ids at `token_data`) and the host row
 * starts (`count + 1`, in tokens, from 0) into the block and runs the encode kernels on the
 * executor's stream, then waits for them. Values as arena.h documents. */
ar_status_t arp_gpu_text_encode(arp_gpu_state_t *state, arp_gpu_encode_layout_t const *layout,
                                void const *token_data, size_t tokens, size_t const *starts,
                                size_t count, size_t dimensions, char const **message);

/* A backend: one function per arp_gpu_* call above (same meaning); every entry is required. */
typedef struct arp_gpu_backend_t {
    size_t (*count)(void);
    ar_status_t (*describe)(int32_t ordinal, ar_gpu_device_t *device);
    ar_status_t (*open)(int32_t ordinal, arp_gpu_state_t **state, char const **message);
    void (*close)(arp_gpu_state_t *state);
    bool (*cpuset)(arp_gpu_state_t *state, hwloc_topology_t topology, hwloc_bitmap_t cpuset);
    ar_status_t (*alloc)(arp_gpu_state_t *state, size_t size, void **pointer);
    void (*free)(arp_gpu_state_t *state, void *pointer);
    ar_status_t (*text_encode)(arp_gpu_state_t *state, arp_gpu_encode_layout_t const *layout,
                               void const *token_data, size_t tokens, size_t const *starts,
                               size_t count, size_t dimensions, char const **message);
} arp_gpu_backend_t;

/* ar_gpu_backend_register (cuda_register.h) makes an arp_gpu_backend_t the process's GPU
 * backend: the one entry the CUDA library, a separate shared library, calls in this one, so it
 * is an ar_ name (only ar_ names leave the shared libraries, exports.map). */

/* CUDA library only (ref/src/cuda/ uses them): the ordinal and the stream (a cudaStream_t). */
int32_t arp_gpu_ordinal(arp_gpu_state_t const *state);
void *arp_gpu_stream(arp_gpu_state_t const *state);

#ifdef __cplusplus
}
#endif

#endif
