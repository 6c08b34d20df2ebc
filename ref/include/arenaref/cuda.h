/* arenaref CUDA helpers (optional): for callers that mix their own CUDA work with arena calls.
 * arenaref.h never includes this header; it needs the CUDA runtime's headers, and only the
 * CUDA library (arenaref_cuda, built where nvcc is found) defines these functions. Errors
 * follow status.h: each returns its status. */
#ifndef ARENAREF_CUDA_H
#define ARENAREF_CUDA_H

#include <cuda_runtime_api.h>

#include "arenaref/arena.h"
#include "arenaref/cuda_register.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The executor's own first stream, where its calls run and its arenas grow: work a caller
 * enqueues there after a call sees that call's outputs. invalid_argument for NULL arguments or
 * a RAM executor. */
ar_status_t ar_executor_cuda_stream(ar_executor_t executor, cudaStream_t *stream);

/* Copies a call's embeddings (device memory of a VRAM arena, or host pages) into `host`
 * (rows x columns f32, packed), waiting for the copy. invalid_argument for a zeroed view, a
 * non-f32 view or NULL; the view must be current (a stale view traps, as the accessors do). */
ar_status_t ar_rows_copy_to_host(ar_rows_view_t const *view, float *host);

#ifdef __cplusplus
}
#endif
#endif
