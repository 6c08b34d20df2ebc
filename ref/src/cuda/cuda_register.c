/* ar_cuda_register: hands the CUDA backend to the arena core. It runs by itself when the CUDA
 * library is loaded (a constructor in this file), so linking arenaref_cuda is all a program
 * does; a static link must keep this object (-Wl,--undefined=ar_cuda_register, which the
 * CMake package and the .pc files add) and a shared one the library (--no-as-needed). */
#include "arenaref/cuda_register.h"
#include "cuda_internal.h"

static arp_gpu_backend_t const cuda_backend = {
    .count = arp_cuda_count,
    .describe = arp_cuda_describe,
    .open = arp_cuda_open,
    .close = arp_cuda_close,
    .cpuset = arp_cuda_cpuset,
    .alloc = arp_cuda_alloc,
    .free = arp_cuda_free,
    .text_encode = arp_cuda_text_encode,
};

void ar_cuda_register(void) { ar_gpu_backend_register(&cuda_backend); }

__attribute__((constructor)) static void register_when_loaded(void) { ar_cuda_register(); }
