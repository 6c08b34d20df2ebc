/* ar_text_encode, the synthetic verb, and the outcome plumbing every verb shares.
 *
 * A call goes through the same steps on every executor: check the arguments (nothing written
 * yet), check residency and device, take the arena with a compare-and-swap on its holder
 * (losers get contended), refuse inputs that lie inside the arena it would rewind, then rewind
 * and run: inline on the calling thread for a NULL executor, else on the executor's worker
 * (a blocking call waits for it there, a deferred one returns). Running sizes the outputs,
 * grows the arena if they outsize it, writes them, updates the stats, releases the arena, and
 * only then publishes the final status (release store), so a caller that sees the status final
 * may call on the arena again at once. ar_arena_free waits for the holder, and for a worker's
 * last touch of the arena, which comes after the status (the in-flight count); a call run
 * inline touches the arena last when it releases the holder, so it is not counted. The common
 * blocking call thus takes no lock: two compare-and-swaps on the holder, the stats under a
 * sequence lock (arena.c), and no wake-up unless someone waits.
 *
 * The values are integer hashes turned into exact floats and summed in token order, so the
 * CPU loop here and the CUDA kernels (ref/src/cuda/) give the same bits (arena.h defines them).
 */
#include <string.h>

#include "internal.h"

/* ---- Outcomes ------------------------------------------------------------------------------ */

/* One condition variable for every waiter: completions are rare next to the work they end, and
 * a waiter re-checks its own status. Most calls finish with nobody waiting (a blocking call, a
 * failed argument check), so a finisher wakes only when a waiter registered: the waiter counts
 * itself, then re-reads the status; the finisher stores the status, then reads the count. Both
 * pairs are sequentially consistent, so at least one side sees the other (either the waiter
 * reads the final status and does not sleep, or the finisher sees it and broadcasts under the
 * lock it sleeps with): no wake-up is lost. */
static pthread_mutex_t outcome_lock_ = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t outcome_final_ = PTHREAD_COND_INITIALIZER;
static int outcome_waiters_; /* threads inside ar_outcome_wait's loop (atomic) */

void arp_outcome_finish(ar_outcome_t *outcome, ar_status_t status, char const *message) {
    /* Only a status that reads deferred can keep a waiter asleep. An outcome serves one call at
     * a time, and the library stores deferred only into the outcome of a call it then queues
     * (before queuing it, so the worker finishing it sees deferred here); a call that never
     * returned deferred (inline, refused, invalid) finds a final status and needs no wake-up. */
    bool watched =
        __atomic_load_n((int *)&outcome->status, __ATOMIC_RELAXED) == (int)ar_status_deferred_k;
    __atomic_store_n(&outcome->message, message, __ATOMIC_RELAXED);
    if (!watched) {
        __atomic_store_n((int *)&outcome->status, (int)status, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n((int *)&outcome->status, (int)status, __ATOMIC_SEQ_CST); /* also a release */
    if (__atomic_load_n(&outcome_waiters_, __ATOMIC_SEQ_CST) == 0) return;
    pthread_mutex_lock(&outcome_lock_);
    pthread_cond_broadcast(&outcome_final_);
    pthread_mutex_unlock(&outcome_lock_);
}

ar_status_t ar_outcome_wait(ar_outcome_t *outcome) {
    if (!outcome) return ar_status_invalid_argument_k;
    ar_status_t status = ar_outcome_status(outcome);
    if (status != ar_status_deferred_k) return status;
    pthread_mutex_lock(&outcome_lock_);
    __atomic_add_fetch(&outcome_waiters_, 1, __ATOMIC_SEQ_CST);
    while ((status = (ar_status_t)__atomic_load_n((int *)&outcome->status, __ATOMIC_SEQ_CST)) ==
           ar_status_deferred_k)
        pthread_cond_wait(&outcome_final_, &outcome_lock_);
    __atomic_sub_fetch(&outcome_waiters_, 1, __ATOMIC_SEQ_CST);
    pthread_mutex_unlock(&outcome_lock_);
    return status;
}

/* Values: ar_text_encode_value in arena.h, the definition as code, shared with callers. */

/* ---- Layout -------------------------------------------------------------------------------- */

enum { alignment_k = 64 };

/* a + b, rounded up to the alignment; false on overflow. */
static bool add_aligned(size_t a, size_t b, size_t *sum) {
    if (b > SIZE_MAX - a || a + b > SIZE_MAX - (alignment_k - 1)) return false;
    *sum = (a + b + alignment_k - 1) / alignment_k * alignment_k;
    return true;
}

static bool multiply(size_t a, size_t b, size_t *product) {
    return !__builtin_mul_overflow(a, b, product);
}

typedef struct layout_t {
    size_t row_bytes, tokens;
    size_t embeddings, states, tokens_staging, starts; /* offsets in their block */
    size_t device_bytes, host_bytes;                   /* what the call writes in each part */
} layout_t;

/* RAM: host = [embeddings][states][row starts]. VRAM: device = [embeddings][states][tokens]
 * [row starts], host = [row starts] (the offsets the contract keeps in host memory). */
static bool plan_layout(ar_residency_t residency, size_t count, size_t tokens, size_t dimensions,
                        bool states, layout_t *layout) {
    size_t embeddings_bytes, states_bytes = 0, starts_bytes, tokens_bytes;
    *layout = (layout_t){.tokens = tokens};
    if (!multiply(dimensions, sizeof(float), &layout->row_bytes) ||
        !multiply(count, layout->row_bytes, &embeddings_bytes) ||
        (states && !multiply(tokens, layout->row_bytes, &states_bytes)) ||
        !multiply(count + 1, sizeof(size_t), &starts_bytes) ||
        !multiply(tokens, sizeof(uint32_t), &tokens_bytes) || count == SIZE_MAX)
        return false;
    size_t end;
    if (!add_aligned(0, embeddings_bytes, &layout->states) ||
        !add_aligned(layout->states, states_bytes, &end))
        return false;
    if (residency == ar_residency_ram_k) {
        layout->starts = end;
        if (!add_aligned(end, starts_bytes, &layout->host_bytes)) return false;
    } else {
        layout->tokens_staging = end;
        if (!add_aligned(end, tokens_bytes, &layout->starts) ||
            !add_aligned(layout->starts, starts_bytes, &layout->device_bytes) ||
            !add_aligned(0, starts_bytes, &layout->host_bytes))
            return false;
    }
    return true;
}

/* ---- Running --------------------------------------------------------------------------------- */

void (*arp_testing_check_hook)(int const *cancel);

/* A job a worker runs checks for cancellation before each item (and a GPU job before its
 * kernels); `cancel` is NULL for a call run inline, which nobody can cancel. */
static bool cancelled(int const *cancel) {
    if (!cancel) return false;
    void (*hook)(int const *) = __atomic_load_n(&arp_testing_check_hook, __ATOMIC_ACQUIRE);
    if (hook) hook(cancel);
    return __atomic_load_n(cancel, __ATOMIC_ACQUIRE) != 0;
}

/* False when cancelled before it finished. */
static bool encode_on_cpu(ar_text_encode_t const *call, layout_t const *layout, char *block,
                          size_t const *starts, int const *cancel) {
    char const *data = call->texts.data;
    size_t const *offsets = call->texts.offsets;
    size_t dimensions = call->dimensions;
    for (size_t item = 0; item < call->count; ++item) {
        if (cancelled(cancel)) return false;
        float *embedding = (float *)(block + layout->embeddings + item * layout->row_bytes);
        size_t tokens = starts[item + 1] - starts[item];
        char const *item_data = data ? data + offsets[item] : NULL;
        for (size_t d = 0; d < dimensions; ++d) embedding[d] = 0.0f;
        for (size_t j = 0; j < tokens; ++j) {
            uint32_t token;
            memcpy(&token, item_data + j * sizeof token,
                   sizeof token); /* tapes need not be aligned */
            float *state =
                call->states
                    ? (float *)(block + layout->states + (starts[item] + j) * layout->row_bytes)
                    : NULL;
            for (size_t d = 0; d < dimensions; ++d) {
                float value = ar_text_encode_value(token, j, d);
                if (state) state[d] = value;
                embedding[d] += value;
            }
        }
        if (tokens)
            for (size_t d = 0; d < dimensions; ++d) embedding[d] = embedding[d] / (float)tokens;
    }
    return true;
}

static char const cancelled_message[] = "ar_text_encode: cancelled by ar_outcome_cancel";

/* What a call reports to the arena's stats, gathered so they are written in one go. */
typedef struct call_report_t {
    uint64_t written; /* bytes written, on success */
    bool numa_read;   /* numa_node was read back: store it */
    int32_t numa_node;
} call_report_t;

/* Sizes, grows, writes; fills the views on success. Runs with the arena held. */
static ar_status_t encode(struct ar_arena_handle_t *arena, ar_text_encode_t const *call,
                          int const *cancel, char const **message, call_report_t *report) {
    size_t count = call->count;
    size_t const *offsets = call->texts.offsets;
    size_t tokens = count ? (offsets[count] - offsets[0]) / sizeof(uint32_t) : 0;
    layout_t layout;
    if (!plan_layout(arena->residency, count, tokens, call->dimensions, call->states != NULL,
                     &layout)) {
        *message =
            "ar_text_encode: the outputs are too large to address (count x dimensions x tokens)";
        return ar_status_out_of_memory_k;
    }
    ar_status_t status = arp_arena_reserve_host(arena, layout.host_bytes);
    if (status != ar_status_success_k) {
        *message = "ar_text_encode: the arena could not grow: out of host memory";
        return status;
    }
    arp_arena_mark_written(arena, layout.host_bytes);
    char *host = arena->host.data;
    size_t *starts = (size_t *)(host + layout.starts * (arena->residency == ar_residency_ram_k));
    starts[0] = 0;
    for (size_t item = 0; item < count; ++item)
        starts[item + 1] = starts[item] + (offsets[item + 1] - offsets[item]) / sizeof(uint32_t);

    char *block;
    if (arena->residency == ar_residency_ram_k) {
        block = host;
        if (!encode_on_cpu(call, &layout, block, starts, cancel)) {
            *message = cancelled_message;
            return ar_status_cancelled_k;
        }
    } else {
        status = arp_arena_reserve_device(arena, layout.device_bytes);
        if (status != ar_status_success_k) {
            *message = status == ar_status_out_of_memory_k
                           ? "ar_text_encode: the GPU arena could not grow: out of device memory "
                             "(no host fallback)"
                           : "ar_text_encode: the GPU arena could not grow";
            return status;
        }
        block = arena->device_block;
        arp_gpu_encode_layout_t gpu_layout = {
            .device_block = block,
            .embeddings_offset = layout.embeddings,
            .states_offset = layout.states,
            .tokens_offset = layout.tokens_staging,
            .starts_offset = layout.starts,
            .with_states = call->states != NULL,
        };
        char const *token_data =
            count && tokens ? (char const *)call->texts.data + offsets[0] : NULL;
        if (cancelled(cancel)) {
            *message = cancelled_message;
            return ar_status_cancelled_k;
        }
        status = arp_gpu_text_encode(arena->gpu_executor->gpu, &gpu_layout, token_data, tokens,
                                     starts, count, call->dimensions, message);
        if (status != ar_status_success_k) return status;
    }

    uint64_t epoch = __atomic_load_n(&arena->epoch, __ATOMIC_ACQUIRE);
    *call->embeddings = (ar_rows_view_t){
        .data = block + layout.embeddings,
        .stride = layout.row_bytes,
        .columns = call->dimensions,
        .scalar = ar_scalar_f32_k,
        .count = count,
        .arena_ = arena,
        .epoch_ = epoch,
    };
    if (call->states)
        *call->states = (ar_rows_tape_view_t){
            .data = block + layout.states,
            .stride = layout.row_bytes,
            .columns = call->dimensions,
            .scalar = ar_scalar_f32_k,
            .offsets = starts,
            .count = count,
            .rows = tokens,
            .arena_ = arena,
            .epoch_ = epoch,
        };

    report->written = layout.host_bytes + layout.device_bytes;
    if (arena->residency == ar_residency_ram_k && !arena->numa_known) {
        /* Read back where the pages landed, now that they are written (hwloc reports untouched
         * pages as nowhere). One megabyte is enough to see the binding. numa_known is the
         * holder's alone (it and arp_arena_reserve_host run with the arena held). */
        report->numa_node = arp_host_pages_node(
            host, layout.host_bytes < (1u << 20) ? layout.host_bytes : (1u << 20));
        report->numa_read = true;
        arena->numa_known = true;
    }
    return ar_status_success_k;
}

/* The end of every taken call: outputs zeroed on failure, stats, the worker's `running` slot
 * cleared (so ar_outcome_cancel never sees the job once its arena may be reused), the arena
 * released, the status published. */
static void job_end(arp_job_t *job, ar_status_t status, char const *message,
                    call_report_t const *report, struct ar_executor_handle_t *executor,
                    bool on_worker) {
    /* Everything the job needs after the arena is released is read now: the job lives in the
     * arena, which may be freed or taken the moment it is released. */
    struct ar_arena_handle_t *arena = job->call.arena;
    ar_outcome_t *outcome = job->outcome;
    if (status != ar_status_success_k) {
        *job->call.embeddings = (ar_rows_view_t){0};
        if (job->call.states) *job->call.states = (ar_rows_tape_view_t){0};
    }
    arp_arena_stats_begin(arena);
    ARP_STAT_SET(arena, calls, arena->stats.calls + 1);
    if (status == ar_status_cancelled_k) {
        ARP_STAT_SET(arena, cancelled, arena->stats.cancelled + 1);
    } else if (status != ar_status_success_k) {
        ARP_STAT_SET(arena, failed_calls, arena->stats.failed_calls + 1);
    } else {
        ARP_STAT_SET(arena, bytes_written_last_call, report->written);
        if (report->written > arena->stats.high_water)
            ARP_STAT_SET(arena, high_water, report->written);
    }
    if (report->numa_read) ARP_STAT_SET(arena, numa_node, report->numa_node);
    arp_arena_stats_end(arena);
    if (executor) {
        pthread_mutex_lock(&executor->lock);
        if (executor->running == job) executor->running = NULL;
        pthread_mutex_unlock(&executor->lock);
    }
    arp_arena_release_holder(arena); /* inline: the last touch; ar_arena_free may go on */
    if (outcome) arp_outcome_finish(outcome, status, message);
    if (on_worker) arp_arena_call_final(arena); /* the worker's last touch */
}

void arp_job_run(arp_job_t *job, struct ar_executor_handle_t *executor) {
    char const *message = NULL;
    call_report_t report = {0};
    ar_status_t status =
        encode(job->call.arena, &job->call, executor ? &job->cancel : NULL, &message, &report);
    job_end(job, status, message, &report, executor, executor != NULL);
}

void arp_job_end(arp_job_t *job, ar_status_t status, char const *message, bool on_worker) {
    call_report_t report = {0};
    job_end(job, status, message, &report, NULL, on_worker);
}

/* ---- The verb ------------------------------------------------------------------------------ */

static bool overlaps(void const *a, size_t a_size, void const *b, size_t b_size) {
    uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    return a && b && a_size && b_size && a0 < b0 + b_size && b0 < a0 + a_size;
}

static bool inside_arena(struct ar_arena_handle_t const *arena, void const *pointer, size_t size) {
    return overlaps(pointer, size, arena->host.data, arena->host.size) ||
           overlaps(pointer, size, arena->device_block, arena->device_size);
}

/* The argument checks that need no arena: counts, offsets, required pointers. */
static char const *check_arguments(ar_text_encode_t const *arguments, size_t *count) {
    if (!arguments->arena) return "ar_text_encode: `arena` is NULL";
    if (!arguments->embeddings) return "ar_text_encode: `embeddings` (output) is NULL";
    if (arguments->dimensions == 0) return "ar_text_encode: `dimensions` is 0";
    if (arguments->count && arguments->texts.count && arguments->count != arguments->texts.count)
        return "ar_text_encode: `count` does not match `texts.count`";
    *count = arguments->texts.count ? arguments->texts.count : arguments->count;
    size_t const *offsets = arguments->texts.offsets;
    if (*count && !offsets)
        return "ar_text_encode: `texts.offsets` is NULL (count + 1 offsets needed)";
    for (size_t item = 0; item < *count; ++item) {
        if (offsets[item + 1] < offsets[item])
            return "ar_text_encode: `texts.offsets` decrease (item i ends before it starts)";
        if ((offsets[item + 1] - offsets[item]) % sizeof(uint32_t))
            return "ar_text_encode: an item of `texts` is not a whole number of uint32_t token ids";
    }
    if (*count && offsets[*count] != offsets[0] && !arguments->texts.data)
        return "ar_text_encode: `texts.data` is NULL";
    return NULL;
}

void ar_text_encode(ar_text_encode_t *arguments) {
    if (!arguments) return;
    ar_outcome_t local = {.status = ar_status_success_k};
    ar_outcome_t *outcome = arguments->outcome ? arguments->outcome : &local;
    if (arguments->embeddings) *arguments->embeddings = (ar_rows_view_t){0};
    if (arguments->states) *arguments->states = (ar_rows_tape_view_t){0};

    size_t count = 0;
    char const *message = check_arguments(arguments, &count);
    if (message) {
        arp_outcome_finish(outcome, ar_status_invalid_argument_k, message);
        return;
    }
    struct ar_arena_handle_t *arena = arguments->arena;
    struct ar_executor_handle_t *executor = arguments->executor;
    if (arena->residency == ar_residency_vram_k && executor != arena->gpu_executor) {
        arp_outcome_finish(
            outcome, ar_status_device_k,
            executor ? "ar_text_encode: the GPU arena was made by another executor"
                     : "ar_text_encode: a GPU arena needs the executor that made it, not NULL");
        return;
    }
    if (arena->residency == ar_residency_ram_k && executor &&
        executor->residency != ar_residency_ram_k) {
        arp_outcome_finish(outcome, ar_status_device_k,
                           "ar_text_encode: a VRAM executor cannot fill a host-page arena");
        return;
    }

    if (!arp_arena_take_holder(arena)) {
        __atomic_add_fetch(&arena->stats.contended, 1, __ATOMIC_RELAXED);
        arp_outcome_finish(outcome, ar_status_contended_k,
                           "ar_text_encode: the arena is held by another call");
        return;
    }
    /* Held: the arena's blocks cannot move now, so the overlap check is exact. */
    size_t const *offsets = arguments->texts.offsets;
    bool inside =
        (count && inside_arena(arena, offsets, (count + 1) * sizeof *offsets)) ||
        (count && inside_arena(arena, (char const *)arguments->texts.data + offsets[0],
                               offsets[count] - offsets[0])) ||
        inside_arena(arena, arguments->embeddings, sizeof *arguments->embeddings) ||
        (arguments->states && inside_arena(arena, arguments->states, sizeof *arguments->states)) ||
        (arguments->outcome && inside_arena(arena, arguments->outcome, sizeof *arguments->outcome));
    if (inside) {
        arp_arena_release_holder(arena); /* the last touch (outcome is not in the arena) */
        arp_outcome_finish(
            outcome, ar_status_invalid_argument_k,
            "ar_text_encode: an input or output lies inside the arena this call would rewind");
        return;
    }

    arp_arena_rewind(arena);
    arp_job_t *job = &arena->job;
    job->call = *arguments;
    job->call.count = count;
    job->call.texts.count = count;
    if (!executor) {
        job->outcome = outcome; /* runs here, to the end, deferred or not */
        arp_job_run(job, NULL);
        return;
    }
    arp_arena_call_begins(arena); /* the worker's run is counted until its last touch */
    job->cancel = 0;
    /* Deferred until the worker publishes the final status; stored before the job is queued so
     * the worker's final store always comes after it. */
    __atomic_store_n((int *)&outcome->status, (int)ar_status_deferred_k, __ATOMIC_RELEASE);
    outcome->message = NULL;
    if (arguments->deferred) {
        job->outcome = arguments->outcome; /* NULL: nobody waits; ar_arena_free still does */
        arp_executor_submit(executor, job);
        return;
    }
    job->outcome = outcome;
    arp_executor_submit(executor, job);
    ar_outcome_wait(outcome);
}
