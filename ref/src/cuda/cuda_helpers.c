/* The public CUDA helpers (arenaref/cuda.h) and the GPU's CPU locality: plain C compiled only
 * with CUDA, since they need the CUDA runtime's headers (hwloc's cudart helper included). */
#include <hwloc.h>
#include <hwloc/cudart.h>

#include "arenaref/cuda.h"
#include "arena/internal.h"
#include "cuda_internal.h"

bool arp_cuda_cpuset(arp_gpu_state_t *state, hwloc_topology_t topology, hwloc_bitmap_t cpuset) {
    /* hwloc reads the device's local_cpus from sysfs; all CPUs when that fails. */
    return state && hwloc_topology_is_thissystem(topology) &&
           hwloc_cudart_get_device_cpuset(topology, arp_gpu_ordinal(state), cpuset) == 0;
}

ar_status_t ar_executor_cuda_stream(ar_executor_t executor, cudaStream_t *stream) {
    if (!executor || !stream || executor->residency != ar_residency_vram_k || !executor->gpu)
        return ar_status_invalid_argument_k;
    *stream = (cudaStream_t)arp_gpu_stream(executor->gpu);
    return ar_status_success_k;
}

ar_status_t ar_rows_copy_to_host(ar_rows_view_t const *view, float *host) {
    if (!view || !host || !view->data || !view->arena_ || view->scalar != ar_scalar_f32_k)
        return ar_status_invalid_argument_k;
    if (!ar_rows_view_current(view))
        arp_trap("ar_rows_copy_to_host: stale view (its arena was rewound by a later call)");
    size_t row_bytes = view->columns * sizeof(float);
    cudaError_t error = cudaMemcpy2D(host, row_bytes, view->data, view->stride, row_bytes,
                                     view->count, cudaMemcpyDefault);
    if (error != cudaSuccess) {
        cudaGetLastError();
        return error == cudaErrorMemoryAllocation ? ar_status_out_of_memory_k : ar_status_device_k;
    }
    return ar_status_success_k;
}
