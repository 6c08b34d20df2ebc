/* The GPU entry points of the arena core: each forwards to the registered backend (the CUDA
 * library registers itself when loaded), or, with none registered, reports no devices and
 * `unsupported`. The backend pointer is set once, before or between calls, so an atomic load
 * (acquire) is all a call pays; the core library itself never links the CUDA runtime. */
#include "arenaref/cuda_register.h"
#include "gpu_backend.h"

static arp_gpu_backend_t const *registered;

void ar_gpu_backend_register(void const *backend) {
    arp_gpu_backend_t const *none = NULL;
    __atomic_compare_exchange_n(&registered, &none, (arp_gpu_backend_t const *)backend, false,
                                __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

static arp_gpu_backend_t const *backend(void) {
    return __atomic_load_n(&registered, __ATOMIC_ACQUIRE);
}

size_t arp_gpu_count(void) { return backend() ? backend()->count() : 0; }

ar_status_t arp_gpu_describe(int32_t ordinal, ar_gpu_device_t *device) {
    return backend() ? backend()->describe(ordinal, device) : ar_status_unsupported_k;
}

ar_status_t arp_gpu_open(int32_t ordinal, arp_gpu_state_t **state, char const **message) {
    if (backend()) return backend()->open(ordinal, state, message);
    *state = NULL;
    *message = "VRAM executor: no GPU backend (link the CUDA library, arenaref_cuda)";
    return ar_status_unsupported_k;
}

/* The rest take a state only an open that succeeded made, so a backend is registered. */
void arp_gpu_close(arp_gpu_state_t *state) {
    if (state) backend()->close(state);
}

bool arp_gpu_cpuset(arp_gpu_state_t *state, hwloc_topology_t topology, hwloc_bitmap_t cpuset) {
    return state && backend()->cpuset(state, topology, cpuset);
}

ar_status_t arp_gpu_alloc(arp_gpu_state_t *state, size_t size, void **pointer) {
    *pointer = NULL;
    return state ? backend()->alloc(state, size, pointer) : ar_status_unsupported_k;
}

void arp_gpu_free(arp_gpu_state_t *state, void *pointer) {
    if (state) backend()->free(state, pointer);
}

ar_status_t arp_gpu_text_encode(arp_gpu_state_t *state, arp_gpu_encode_layout_t const *layout,
                                void const *token_data, size_t tokens, size_t const *starts,
                                size_t count, size_t dimensions, char const **message) {
    if (state)
        return backend()->text_encode(state, layout, token_data, tokens, starts, count, dimensions,
                                      message);
    *message = "ar_text_encode: no GPU backend (link the CUDA library, arenaref_cuda)";
    return ar_status_unsupported_k;
}
