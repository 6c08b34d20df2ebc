/* The GPU backend of a build without CUDA: no devices, and every GPU request is unsupported.
 * With CUDA (ARENAREF_HAVE_CUDA) ref/src/cuda/ defines these instead and this file is empty. */
#include "gpu_backend.h"

#ifndef ARENAREF_HAVE_CUDA

size_t arp_gpu_count(void) { return 0; }

ar_status_t arp_gpu_describe(int32_t ordinal, ar_gpu_device_t *device) {
    (void)ordinal, (void)device;
    return ar_status_unsupported_k;
}

ar_status_t arp_gpu_open(int32_t ordinal, arp_gpu_state_t **state, char const **message) {
    (void)ordinal;
    *state = NULL;
    *message = "VRAM executor: this build has no CUDA support";
    return ar_status_unsupported_k;
}

void arp_gpu_close(arp_gpu_state_t *state) { (void)state; }

bool arp_gpu_cpuset(arp_gpu_state_t *state, hwloc_topology_t topology, hwloc_bitmap_t cpuset) {
    (void)state, (void)topology, (void)cpuset;
    return false;
}

ar_status_t arp_gpu_alloc(arp_gpu_state_t *state, size_t size, void **pointer) {
    (void)state, (void)size;
    *pointer = NULL;
    return ar_status_unsupported_k;
}

void arp_gpu_free(arp_gpu_state_t *state, void *pointer) { (void)state, (void)pointer; }

ar_status_t arp_gpu_text_encode(arp_gpu_state_t *state, arp_gpu_encode_layout_t const *layout,
                                void const *token_data, size_t tokens, size_t const *starts,
                                size_t count, size_t dimensions, char const **message) {
    (void)state, (void)layout, (void)token_data, (void)tokens, (void)starts, (void)count,
        (void)dimensions;
    *message = "ar_text_encode: this build has no CUDA support";
    return ar_status_unsupported_k;
}

#else
typedef int arp_gpu_none_unused_t; /* ISO C wants a translation unit to declare something */
#endif
