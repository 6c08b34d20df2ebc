/* Arenas: memory the library lends each call's outputs, placed once where the executor that
 * made it computes. A RAM arena is one run of host pages bound to the executor's NUMA node; a
 * VRAM arena is one stream-ordered device block on its executor's stream plus a small run of
 * host pages for the row offsets (which the contract keeps in host memory).
 * Each part grows only when a call needs more than it holds (free, then allocate exactly what
 * is needed, rounded to pages), so a steady loop allocates once it reaches its high-water mark.
 * Rewinding bumps an epoch that views remember, so the checked accessors can tell a stale view;
 * under AddressSanitizer it also poisons what the previous call wrote (the unused rest of the
 * pages stays poisoned), so a raw read of a stale row the next call did not rewrite is
 * reported; pages are unpoisoned before they go back to the OS. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arena_testing.h"
#include "internal.h"

void ar_arena_init(ar_arena_init_t *arguments) {
    if (!arguments) return;
    if (!arguments->arena) {
        arp_report(arguments->outcome, ar_status_invalid_argument_k,
                   "ar_arena_init: `arena` is NULL");
        return;
    }
    *arguments->arena = NULL;
    struct ar_executor_handle_t *executor = arguments->executor;
    struct ar_arena_handle_t *arena = arp_host_calloc(1, sizeof *arena);
    if (!arena) {
        arp_report(arguments->outcome, ar_status_out_of_memory_k,
                   "ar_arena_init: out of host memory for the arena");
        return;
    }
    pthread_mutex_init(&arena->lock, NULL);
    pthread_cond_init(&arena->released, NULL);
    arena->host.node = -1;
    if (executor && executor->residency == ar_residency_vram_k) {
        arena->residency = ar_residency_vram_k;
        arena->device = executor->device;
        arena->requested_node = -1;
        arena->gpu_executor = executor;
        arp_executor_retain(executor);
    } else {
        arena->residency = ar_residency_ram_k;
        arena->device = -1;
        if (executor) {
            arena->requested_node = executor->numa_node;
        } else {
            /* NULL executor: the calling thread's node, decided once, here. */
            hwloc_obj_t node = arp_calling_thread_node(arp_machine_topology());
            arena->requested_node = node ? (int32_t)node->os_index : -1;
        }
    }
    arena->stats = (ar_arena_stats_t){
        .numa_node = -1,
        .requested_node = arena->requested_node,
        .residency = arena->residency,
        .device = arena->device,
    };
    arp_registry_add_arena(arena);
    *arguments->arena = arena;
    arp_report(arguments->outcome, ar_status_success_k, NULL);
}

static void release_host(struct ar_arena_handle_t *arena) {
    if (arena->host.data) ARP_UNPOISON(arena->host.data, arena->host.size);
    arp_host_pages_free(&arena->host);
    arena->host_written = 0;
}

void ar_arena_free(ar_arena_t arena) {
    if (!arena) return;
    /* Wait for every holder: worker-run calls (in_flight, dropped at their last touch) and
     * exports wake us through `released`; a call run inline on another thread releases with a
     * plain store and wakes nobody, so we look again after a nap (1 us growing to 1 ms): such
     * a call lasts as long as its work, and freeing an arena in use is rare. */
    long nap_ns = 1000;
    pthread_mutex_lock(&arena->lock);
    for (;;) {
        int holder = __atomic_load_n(&arena->holder, __ATOMIC_ACQUIRE);
        if (holder == arp_holder_free_k && arena->in_flight == 0) break;
        if (arena->in_flight || holder != arp_holder_call_k) {
            pthread_cond_wait(&arena->released, &arena->lock);
            continue;
        }
        pthread_mutex_unlock(&arena->lock);
        nanosleep(&(struct timespec){.tv_nsec = nap_ns}, NULL);
        nap_ns = nap_ns < 1000000 ? nap_ns * 2 : nap_ns;
        pthread_mutex_lock(&arena->lock);
    }
    pthread_mutex_unlock(&arena->lock);
    arp_registry_remove_arena(arena);

    release_host(arena);
    /* In a fork()ed child a GPU arena's memory is the parent's CUDA context's: left alone. */
    if (arena->device_block && !arena->gpu_executor->gpu_lost)
        arp_gpu_free(arena->gpu_executor->gpu, arena->device_block);
    if (arena->gpu_executor) arp_executor_release(arena->gpu_executor);
    pthread_cond_destroy(&arena->released);
    pthread_mutex_destroy(&arena->lock);
    arp_host_free(arena);
}

bool arp_testing_arena_held(ar_arena_t arena) {
    return arena && __atomic_load_n(&arena->holder, __ATOMIC_ACQUIRE) != 0;
}

void arp_arena_call_begins(struct ar_arena_handle_t *arena) {
    pthread_mutex_lock(&arena->lock);
    arena->in_flight++;
    pthread_mutex_unlock(&arena->lock);
}

void arp_arena_call_final(struct ar_arena_handle_t *arena) {
    pthread_mutex_lock(&arena->lock);
    arena->in_flight--;
    pthread_cond_broadcast(&arena->released);
    pthread_mutex_unlock(&arena->lock);
}

ar_status_t arp_arena_grow_host(struct ar_arena_handle_t *arena, size_t size) {
    release_host(arena);
    arp_host_pages_t pages;
    ar_status_t status = arp_host_pages_alloc(arena->requested_node, size, &pages);
    uint64_t sequence = arp_arena_stats_begin(arena);
    if (status == ar_status_success_k) {
        arena->host = pages;
        ARP_POISON(pages.data, pages.size); /* nothing written yet */
        ARP_STAT_SET(arena, growths, arena->stats.growths + 1);
        if (arena->residency == ar_residency_ram_k) {
            /* A GPU arena's host part (row offsets) is bound nowhere in particular. */
            ARP_STAT_SET(arena, strict_binding, pages.strict);
            ARP_STAT_SET(arena, binding_fallback, arena->stats.binding_fallback || pages.fallback);
        }
        ARP_STAT_SET(arena, huge_pages, arena->stats.huge_pages || pages.huge);
        arena->numa_known = false;
    }
    ARP_STAT_SET(arena, reserved, arena->host.size + arena->device_size);
    arp_arena_stats_end(arena, sequence);
    return status;
}

ar_status_t arp_arena_reserve_device(struct ar_arena_handle_t *arena, size_t size) {
    if (size <= arena->device_size) return ar_status_success_k;
    arp_gpu_state_t *gpu = arena->gpu_executor->gpu;
    if (arena->device_block) arp_gpu_free(gpu, arena->device_block);
    arena->device_block = NULL;
    arena->device_size = 0;
    void *block = NULL;
    ar_status_t status = arp_gpu_alloc(gpu, size, &block);
    uint64_t sequence = arp_arena_stats_begin(arena);
    if (status == ar_status_success_k) {
        arena->device_block = block;
        arena->device_size = size;
        ARP_STAT_SET(arena, growths, arena->stats.growths + 1);
    }
    ARP_STAT_SET(arena, reserved, arena->host.size + arena->device_size);
    arp_arena_stats_end(arena, sequence);
    return status;
}

void ar_arena_describe(ar_arena_describe_t *arguments) {
    if (!arguments) return;
    if (!arguments->arena || !arguments->description) {
        arp_report(arguments->outcome, ar_status_invalid_argument_k,
                   !arguments->arena ? "ar_arena_describe: `arena` is NULL"
                                     : "ar_arena_describe: `description` is NULL");
        return;
    }
    *arguments->description = (ar_arena_description_t){
        .residency = arguments->arena->residency,
        .device = arguments->arena->device,
    };
    arp_report(arguments->outcome, ar_status_success_k, NULL);
}

ar_status_t ar_arena_stats(ar_arena_t arena, ar_arena_stats_t *stats) {
    if (!arena || !stats) return ar_status_invalid_argument_k;
    ar_arena_stats_t const *from = &arena->stats;
    ar_arena_stats_t copy;
    for (unsigned attempt = 0;; ++attempt) {
        uint64_t before = __atomic_load_n(&arena->stats_sequence, __ATOMIC_ACQUIRE);
        copy = (ar_arena_stats_t){
#define ARP_STAT_GET(field) .field = __atomic_load_n(&from->field, __ATOMIC_ACQUIRE)
            ARP_STAT_GET(calls),
            ARP_STAT_GET(failed_calls),
            ARP_STAT_GET(cancelled),
            ARP_STAT_GET(contended),
            ARP_STAT_GET(growths),
            ARP_STAT_GET(reserved),
            ARP_STAT_GET(high_water),
            ARP_STAT_GET(bytes_written_last_call),
            ARP_STAT_GET(numa_node),
            ARP_STAT_GET(strict_binding),
            ARP_STAT_GET(binding_fallback),
            ARP_STAT_GET(huge_pages),
#undef ARP_STAT_GET
            /* fixed at init, before the arena was published */
            .requested_node = from->requested_node,
            .residency = from->residency,
            .device = from->device,
        };
        uint64_t after = __atomic_load_n(&arena->stats_sequence, __ATOMIC_RELAXED);
        if (before == after && before % 2 == 0) break;
        if (attempt >= 16) sched_yield(); /* the writer may have been preempted mid-write */
    }
    *stats = copy;
    return ar_status_success_k;
}

/* ---- Views and their checked accessors ---------------------------------------------------- */

size_t ar_scalar_bytes(ar_scalar_t scalar) {
    switch (scalar) {
    case ar_scalar_f32_k: return 4;
    case ar_scalar_f16_k: return 2;
    case ar_scalar_bf16_k: return 2;
    case ar_scalar_f64_k: return 8;
    case ar_scalar_i8_k: return 1;
    case ar_scalar_u8_k: return 1;
    case ar_scalar_u32_k: return 4;
    case ar_scalar_unknown_k: break;
    }
    return 0;
}

char const *ar_scalar_name(ar_scalar_t scalar) {
    switch (scalar) {
    case ar_scalar_f32_k: return "f32";
    case ar_scalar_f16_k: return "f16";
    case ar_scalar_bf16_k: return "bf16";
    case ar_scalar_f64_k: return "f64";
    case ar_scalar_i8_k: return "i8";
    case ar_scalar_u8_k: return "u8";
    case ar_scalar_u32_k: return "u32";
    case ar_scalar_unknown_k: break;
    }
    return "unknown";
}

static bool current(struct ar_arena_handle_t const *arena, uint64_t epoch, void const *data) {
    return arena && data && __atomic_load_n(&arena->epoch, __ATOMIC_ACQUIRE) == epoch;
}

/* Traps unless the view was written by a call and its arena has not been rewound since. */
static void check_view(struct ar_arena_handle_t const *arena, uint64_t epoch, void const *data,
                       char const *zeroed_message, char const *stale_message) {
    if (!arena || !data) arp_trap(zeroed_message);
    if (__atomic_load_n(&arena->epoch, __ATOMIC_ACQUIRE) != epoch) arp_trap(stale_message);
}

#define ROWS_ZEROED "ar_rows_view_t: zeroed view (a failed call's output, or never written)"
#define ROWS_STALE "ar_rows_view_t: stale view (its arena was rewound by a later call)"
#define TAPE_ZEROED "ar_rows_tape_view_t: zeroed view (a failed call's output, or never written)"
#define TAPE_STALE "ar_rows_tape_view_t: stale view (its arena was rewound by a later call)"

bool ar_rows_view_current(ar_rows_view_t const *view) {
    return view && current(view->arena_, view->epoch_, view->data);
}

bool ar_rows_tape_view_current(ar_rows_tape_view_t const *view) {
    return view && current(view->arena_, view->epoch_, view->data);
}

void *ar_rows_row(ar_rows_view_t const *view, size_t row) {
    if (!view) arp_trap("ar_rows_row: NULL view");
    check_view(view->arena_, view->epoch_, view->data, ROWS_ZEROED, ROWS_STALE);
    if (row >= view->count) arp_trap("ar_rows_row: row index out of range");
    return (char *)view->data + row * view->stride;
}

float ar_rows_f32(ar_rows_view_t const *view, size_t row, size_t column) {
    float const *values = ar_rows_row(view, row);
    if (view->scalar != ar_scalar_f32_k) arp_trap("ar_rows_f32: the view's scalar is not f32");
    if (column >= view->columns) arp_trap("ar_rows_f32: column index out of range");
    if (view->arena_->residency != ar_residency_ram_k)
        arp_trap("ar_rows_f32: a host read of device memory (VRAM arena)");
    return values[column];
}

size_t ar_rows_tape_offset(ar_rows_tape_view_t const *view, size_t item) {
    if (!view) arp_trap("ar_rows_tape_offset: NULL view");
    check_view(view->arena_, view->epoch_, view->offsets, TAPE_ZEROED, TAPE_STALE);
    if (item > view->count)
        arp_trap("ar_rows_tape_offset: item index out of range (count + 1 offsets)");
    return view->offsets[item];
}

void *ar_rows_tape_row(ar_rows_tape_view_t const *view, size_t row) {
    if (!view) arp_trap("ar_rows_tape_row: NULL view");
    check_view(view->arena_, view->epoch_, view->data, TAPE_ZEROED, TAPE_STALE);
    if (row >= view->rows) arp_trap("ar_rows_tape_row: row index out of range");
    return (char *)view->data + row * view->stride;
}

float ar_rows_tape_f32(ar_rows_tape_view_t const *view, size_t row, size_t column) {
    float const *values = ar_rows_tape_row(view, row);
    if (view->scalar != ar_scalar_f32_k) arp_trap("ar_rows_tape_f32: the view's scalar is not f32");
    if (column >= view->columns) arp_trap("ar_rows_tape_f32: column index out of range");
    if (view->arena_->residency != ar_residency_ram_k)
        arp_trap("ar_rows_tape_f32: a host read of device memory (VRAM arena)");
    return values[column];
}
