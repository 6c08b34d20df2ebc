/* The CUDA library's side of gpu_backend.h: the functions cuda_register.c puts in the backend
 * table it registers with the arena core (each as the arp_gpu_* call of the same name). */
#ifndef ARENAREF_CUDA_INTERNAL_H
#define ARENAREF_CUDA_INTERNAL_H

#include "arena/gpu_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

size_t arp_cuda_count(void);
ar_status_t arp_cuda_describe(int32_t ordinal, ar_gpu_device_t *device);
ar_status_t arp_cuda_open(int32_t ordinal, arp_gpu_state_t **state, char const **message);
void arp_cuda_close(arp_gpu_state_t *state);
bool arp_cuda_cpuset(arp_gpu_state_t *state, hwloc_topology_t topology, hwloc_bitmap_t cpuset);
ar_status_t arp_cuda_alloc(arp_gpu_state_t *state, size_t size, void **pointer);
void arp_cuda_free(arp_gpu_state_t *state, void *pointer);
ar_status_t arp_cuda_text_encode(arp_gpu_state_t *state, arp_gpu_encode_layout_t const *layout,
                                 void const *token_data, size_t tokens, size_t const *starts,
                                 size_t count, size_t dimensions, char const **message);

#ifdef __cplusplus
}
#endif
#endif
