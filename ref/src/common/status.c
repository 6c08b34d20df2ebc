/* Status names and the atomic read of an outcome: the part of the error convention every
 * half of the library shares. */
#include "arenaref/status.h"

char const *ar_status_name(ar_status_t status) {
    switch (status) {
    case ar_status_success_k: return "success";
    case ar_status_deferred_k: return "deferred";
    case ar_status_invalid_argument_k: return "invalid_argument";
    case ar_status_contended_k: return "contended";
    case ar_status_device_k: return "device";
    case ar_status_out_of_memory_k: return "out_of_memory";
    case ar_status_unsupported_k: return "unsupported";
    case ar_status_io_k: return "io";
    case ar_status_cancelled_k: return "cancelled";
    case ar_status_stale_k: return "stale";
    }
    return "unknown";
}

ar_status_t ar_outcome_status(ar_outcome_t const *outcome) {
    return (ar_status_t)__atomic_load_n((int const *)&outcome->status, __ATOMIC_ACQUIRE);
}
