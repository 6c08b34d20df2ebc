/* arenaref: the CUDA library's registration, declared apart from cuda.h so that calling it
 * needs no CUDA headers. Linking arenaref_cuda (libarenaref_cuda, or the umbrella libarenaref
 * of a CUDA build) registers the backend by itself when the library is loaded; without it,
 * VRAM executors are `unsupported` and ar_gpu_devices lists none. */
#ifndef ARENAREF_CUDA_REGISTER_H
#define ARENAREF_CUDA_REGISTER_H

#ifdef __cplusplus
extern "C" {
#endif

/* Makes this process's arenas use the CUDA backend (defined only in the CUDA library). Safe to
 * call more than once and from any thread; cannot fail (a machine without a device then has
 * no devices). Call it before the first GPU request where the library's own constructor did
 * not run, e.g. a static link that dropped the registering object. */
void ar_cuda_register(void);

/* The seam ar_cuda_register goes through, defined in the arena library: makes `backend` (the
 * CUDA library's private table, static storage) the process's GPU backend; the first one
 * registered stays. It is exported only because the CUDA library is a shared library of its
 * own; a program has no use for it. */
void ar_gpu_backend_register(void const *backend);

#ifdef __cplusplus
}
#endif
#endif
