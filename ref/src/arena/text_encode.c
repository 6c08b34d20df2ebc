/* ar_text_encode, the synthetic verb, and the outcome plumbing every verb shares. A call checks
 * its arguments, takes the arena (one compare-and-swap; losers get contended), refuses inputs
 * inside it, rewinds it and runs: inline for a NULL executor, else on the executor's worker.
 * Running sizes, grows, writes, counts, releases the arena (a release store), and only then
 * publishes the status, so a caller who sees it final may call again at once; a worker's last
 * touch is its in-flight count, which ar_arena_free waits for. The fixed path (a warm host
 * arena, NULL executor) is its own branch: no lock, no wake-up, no function call, one atomic
 * read-modify-write. Values are integer hashes turned into exact floats summed in token order,
 * so this loop and the CUDA kernels (ref/src/cuda/) give the same bits (arena.h defines them).
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

void arp_outcome_finish_watched(ar_outcome_t *outcome, ar_status_t status, char const *message) {
    __atomic_store_n(&outcome->message, message, __ATOMIC_RELAXED);
    __atomic_store_n((int *)&outcome->status, (int)status, __ATOMIC_SEQ_CST); /* also a release */
    if (__atomic_load_n(&outcome_waiters_, __ATOMIC_SEQ_CST) == 0) return;
    pthread_mutex_lock(&outcome_lock_);
    pthread_cond_broadcast(&outcome_final_);
    pthread_mutex_unlock(&outcome_lock_);
}

void arp_outcomes_lock(void) { pthread_mutex_lock(&outcome_lock_); }
void arp_outcomes_unlock(void) { pthread_mutex_unlock(&outcome_lock_); }
void arp_outcomes_after_fork(void) {
    pthread_cond_init(&outcome_final_, NULL);
    __atomic_store_n(&outcome_waiters_, 0, __ATOMIC_SEQ_CST);
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

static inline size_t align_up(size_t bytes) {
    return (bytes + alignment_k - 1) & ~(size_t)(alignment_k - 1);
}

/* a + b, rounded up to the alignment; false on overflow. */
static bool add_aligned(size_t a, size_t b, size_t *sum) {
    if (b > SIZE_MAX - a || a + b > SIZE_MAX - (alignment_k - 1)) return false;
    *sum = align_up(a + b);
    return true;
}

static bool multiply(size_t a, size_t b, size_t *product) {
    return !__builtin_mul_overflow(a, b, product);
}

typedef struct layout_t {
    size_t row_bytes;
    size_t embeddings, states, tokens_staging, starts; /* offsets in their block */
    size_t host_starts;                                /* the row starts in the host part */
    size_t device_bytes, host_bytes;                   /* what the call writes in each part */
} layout_t;

/* The RAM layout of the common case, sized without overflow checks: false unless dimensions
 * < 2^16 and count, tokens < 2^32 (then every product is below 2^50, every sum below 2^52). */
static inline __attribute__((always_inline)) bool ram_layout_unchecked(size_t count, size_t tokens,
                                                                       size_t dimensions,
                                                                       bool states,
                                                                       layout_t *layout) {
    if (((dimensions >> 16) | (count >> 32) | (tokens >> 32)) != 0) return false;
    size_t row_bytes = dimensions * sizeof(float);
    size_t states_offset = align_up(count * row_bytes);
    size_t starts = align_up(states_offset + (states ? tokens * row_bytes : 0));
    *layout = (layout_t){.row_bytes = row_bytes,
                         .states = states_offset,
                         .starts = starts,
                         .host_starts = starts,
                         .host_bytes = align_up(starts + (count + 1) * sizeof(size_t))};
    return true;
}

/* RAM: host = [embeddings][states][row starts]. VRAM: device = [embeddings][states][tokens]
 * [row starts], host = [row starts] (the offsets the contract keeps in host memory). */
static inline __attribute__((always_inline)) bool plan_layout(ar_residency_t residency,
                                                              size_t count, size_t tokens,
                                                              size_t dimensions, bool states,
                                                              layout_t *layout) {
    if (residency == ar_residency_ram_k &&
        ram_layout_unchecked(count, tokens, dimensions, states, layout))
        return true;
    size_t embeddings_bytes, states_bytes = 0, starts_bytes, tokens_bytes;
    *layout = (layout_t){0};
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
        layout->starts = layout->host_starts = end;
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
static inline __attribute__((always_inline)) bool
encode_on_cpu(ar_text_encode_t const *call, size_t count, layout_t const *layout, char *block,
              size_t const *starts, int const *cancel) {
    char const *data = call->texts.data;
    size_t const *offsets = call->texts.offsets;
    size_t dimensions = call->dimensions;
    for (size_t item = 0; item < count; ++item) {
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

/* The row starts (in tokens, from starts[0]) of `count` items of the tape's `offsets` (bytes). */
static inline void count_starts(size_t const *offsets, size_t count, size_t *starts) {
    for (size_t item = 0; item < count; ++item)
        starts[item + 1] = starts[item] + (offsets[item + 1] - offsets[item]) / sizeof(uint32_t);
}

/* What a call reports to the arena's stats, gathered so they are written in one go. */
typedef struct call_report_t {
    uint64_t written; /* bytes written, on success */
    bool numa_read;   /* numa_node was read back: store it */
    int32_t numa_node;
} call_report_t;

/* The outputs' views, on success. */
static inline __attribute__((always_inline)) void
fill_views(struct ar_arena_handle_t *arena, ar_text_encode_t const *call, size_t count,
           size_t tokens, char *embeddings, char *states, size_t const *starts) {
    uint64_t epoch = __atomic_load_n(&arena->epoch, __ATOMIC_RELAXED); /* the holder's own */
    size_t row_bytes = call->dimensions * sizeof(float);
    *call->embeddings = (ar_rows_view_t){
        .data = embeddings,
        .stride = row_bytes,
        .columns = call->dimensions,
        .scalar = ar_scalar_f32_k,
        .count = count,
        .arena_ = arena,
        .epoch_ = epoch,
    };
    if (call->states)
        *call->states = (ar_rows_tape_view_t){
            .data = states,
            .stride = row_bytes,
            .columns = call->dimensions,
            .scalar = ar_scalar_f32_k,
            .offsets = starts,
            .count = count,
            .rows = tokens,
            .arena_ = arena,
            .epoch_ = epoch,
        };
}

/* Sizes, grows, writes; fills the views on success. Runs with the arena held. */
static inline __attribute__((always_inline)) ar_status_t
encode(struct ar_arena_handle_t *arena, ar_text_encode_t const *call, size_t count,
       int const *cancel, char const **message, call_report_t *report) {
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
    size_t *starts = (size_t *)(host + layout.host_starts);
    starts[0] = 0;
    count_starts(offsets, count, starts);

    char *block;
    if (arena->residency == ar_residency_ram_k) {
        block = host;
        if (!encode_on_cpu(call, count, &layout, block, starts, cancel)) {
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

    fill_views(arena, call, count, tokens, block + layout.embeddings, block + layout.states,
               starts);

    report->written = layout.host_bytes + layout.device_bytes;
    if (__builtin_expect(!arena->numa_known, 0) && arena->residency == ar_residency_ram_k) {
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

/* Outputs zeroed on failure, and the stats: the holder's part of ending a call. */
static inline __attribute__((always_inline)) void account(struct ar_arena_handle_t *arena,
                                                          ar_text_encode_t const *call,
                                                          ar_status_t status,
                                                          call_report_t const *report) {
    if (status != ar_status_success_k) {
        *call->embeddings = (ar_rows_view_t){0};
        if (call->states) *call->states = (ar_rows_tape_view_t){0};
    }
    uint64_t sequence = arp_arena_stats_begin(arena);
    ARP_STAT_SET(arena, calls, arena->stats.calls + 1);
    if (status == ar_status_success_k) {
        ARP_STAT_SET(arena, bytes_written_last_call, report->written);
        if (report->written > arena->stats.high_water)
            ARP_STAT_SET(arena, high_water, report->written);
    } else if (status == ar_status_cancelled_k) {
        ARP_STAT_SET(arena, cancelled, arena->stats.cancelled + 1);
    } else {
        ARP_STAT_SET(arena, failed_calls, arena->stats.failed_calls + 1);
    }
    if (report->numa_read) ARP_STAT_SET(arena, numa_node, report->numa_node);
    arp_arena_stats_end(arena, sequence);
}

/* The end of a job an executor ran (or cancel ended unrun): the worker's `running` slot is
 * cleared before the arena is released (so ar_outcome_cancel never sees the job once the slot
 * may be reused), then the status is published, then the in-flight count drops (the last
 * touch, which ar_arena_free waits for). */
static void job_end(arp_job_t *job, ar_status_t status, char const *message,
                    call_report_t const *report, struct ar_executor_handle_t *executor) {
    /* Read now: the job lives in the arena, which may be taken once released. */
    struct ar_arena_handle_t *arena = job->call.arena;
    ar_outcome_t *outcome = job->outcome;
    account(arena, &job->call, status, report);
    if (executor) {
        pthread_mutex_lock(&executor->lock);
        if (executor->running == job) executor->running = NULL;
        executor->finishing = outcome;
        executor->finishing_status = status;
        executor->finishing_message = message;
        pthread_mutex_unlock(&executor->lock);
    }
    arp_arena_release_holder(arena);
    arp_report(outcome, status, message);
    arp_arena_call_final(arena);
}

void arp_job_run(arp_job_t *job, struct ar_executor_handle_t *executor) {
    char const *message = NULL;
    call_report_t report = {0};
    ar_status_t status =
        encode(job->call.arena, &job->call, job->call.count, &job->cancel, &message, &report);
    job_end(job, status, message, &report, executor);
}

void arp_job_end(arp_job_t *job, ar_status_t status, char const *message) {
    call_report_t report = {0};
    job_end(job, status, message, &report, NULL);
}

/* ---- The verb ------------------------------------------------------------------------------ */

/* Whether [pointer, pointer + size) meets [low, low + span); size > 0. A NULL pointer never
 * does (an arena's pages lie far above address `size`). */
static inline bool meets(void const *pointer, size_t size, uintptr_t low, size_t span) {
    uintptr_t p = (uintptr_t)pointer;
    return p < low + span && p + size > low;
}

/* Whether any input or output of the call meets [low, low + span). */
static inline bool inside_part(ar_text_encode_t const *call, size_t count, uintptr_t low,
                               size_t span) {
    size_t const *offsets = call->texts.offsets;
    return meets(call->embeddings, sizeof *call->embeddings, low, span) ||
           meets(call->states, sizeof *call->states, low, span) ||
           meets(call->outcome, sizeof *call->outcome, low, span) ||
           (count &&
            (meets(offsets, (count + 1) * sizeof *offsets, low, span) ||
             (offsets[count] > offsets[0] && meets((char const *)call->texts.data + offsets[0],
                                                   offsets[count] - offsets[0], low, span))));
}

/* Whether any input or output of the call lies in the arena it would rewind. Exact while the
 * arena is held (its blocks cannot move). */
static inline bool inside_arena(struct ar_arena_handle_t const *arena, ar_text_encode_t const *call,
                                size_t count) {
    return inside_part(call, count, (uintptr_t)arena->host.data, arena->host.size) ||
           (arena->device_size &&
            inside_part(call, count, (uintptr_t)arena->device_block, arena->device_size));
}

/* The argument checks that need no arena: counts, offsets, required pointers. */
static char const *check_arguments(ar_text_encode_t const *arguments, size_t *count) {
    if (!arguments->arena) return "ar_text_encode: `arena` is NULL";
    if (!arguments->embeddings) return "ar_text_encode: `embeddings` (output) is NULL";
    if (arguments->dimensions == 0) return "ar_text_encode: `dimensions` is 0";
    *count = arguments->texts.count ? arguments->texts.count : arguments->count;
    if (arguments->count && arguments->count != *count)
        return "ar_text_encode: `count` does not match `texts.count`";
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

/* Every refusal: outputs zeroed, status reported (`outcome` may be NULL). */
static __attribute__((noinline, cold)) void refuse(ar_text_encode_t const *arguments,
                                                   ar_outcome_t *outcome, ar_status_t status,
                                                   char const *message) {
    if (arguments->embeddings) *arguments->embeddings = (ar_rows_view_t){0};
    if (arguments->states) *arguments->states = (ar_rows_tape_view_t){0};
    arp_report(outcome, status, message);
}

/* Takes the arena for the call, then refuses inputs inside it (exact once held: its blocks
 * cannot move); false when refused, and reported. */
static inline bool take(struct ar_arena_handle_t *arena, ar_text_encode_t const *arguments,
                        size_t count, ar_outcome_t *outcome) {
    if (__builtin_expect(!arp_arena_take_holder(arena), 0)) {
        __atomic_add_fetch(&arena->stats.contended, 1, __ATOMIC_RELAXED);
        refuse(arguments, outcome, ar_status_contended_k,
               "ar_text_encode: the arena is held by another call or an export");
        return false;
    }
    if (__builtin_expect(inside_arena(arena, arguments, count), 0)) {
        arp_arena_release_holder(arena); /* the last touch (outcome is not in the arena) */
        refuse(arguments, outcome, ar_status_invalid_argument_k,
               "ar_text_encode: an input or output lies inside the arena this call would rewind");
        return false;
    }
    return true;
}

/* A call naming an executor (or a GPU arena): checked for residency, then queued on the
 * executor's worker; a blocking one waits for it here. */
static __attribute__((noinline)) void encode_on_executor(ar_text_encode_t *arguments,
                                                         size_t count) {
    ar_outcome_t local = {.status = ar_status_success_k};
    ar_outcome_t *outcome = arguments->outcome ? arguments->outcome : &local;
    struct ar_arena_handle_t *arena = arguments->arena;
    struct ar_executor_handle_t *executor = arguments->executor;
    if (arena->residency == ar_residency_vram_k && executor != arena->gpu_executor)
        return refuse(
            arguments, outcome, ar_status_device_k,
            executor ? "ar_text_encode: the GPU arena was made by another executor"
                     : "ar_text_encode: a GPU arena needs the executor that made it, not NULL");
    if (arena->residency == ar_residency_ram_k && executor->residency != ar_residency_ram_k)
        return refuse(arguments, outcome, ar_status_device_k,
                      "ar_text_encode: a VRAM executor cannot fill a host-page arena");
    if (executor->gpu_lost)
        return refuse(arguments, outcome, ar_status_unsupported_k,
                      "ar_text_encode: a GPU executor made before fork() cannot run in the child "
                      "(CUDA does not survive fork)");
    if (!take(arena, arguments, count, outcome)) return;
    arp_arena_rewind(arena);
    *arguments->embeddings = (ar_rows_view_t){0};
    if (arguments->states) *arguments->states = (ar_rows_tape_view_t){0};
    arp_job_t *job = &arena->job;
    job->call = *arguments;
    job->call.count = count;
    job->call.texts.count = count;
    job->cancel = 0;
    arp_arena_call_begins(arena); /* the worker's run is counted until its last touch */
    job->outcome = arguments->deferred ? arguments->outcome : outcome; /* deferred: may be NULL */
    if (!arp_executor_submit(executor, job, outcome)) {
        arp_job_end(job, ar_status_out_of_memory_k,
                    "ar_text_encode: the executor's worker thread could not be started");
        return;
    }
    if (!arguments->deferred) ar_outcome_wait(outcome);
}

/* The fixed path's work per item (kept out of line: an empty batch skips it). */
static __attribute__((noinline)) void encode_items_here(ar_text_encode_t const *call, size_t count,
                                                        size_t row_bytes, size_t states_at,
                                                        char *host, size_t *starts) {
    count_starts(call->texts.offsets, count, starts);
    layout_t layout = {.row_bytes = row_bytes, .states = states_at};
    encode_on_cpu(call, count, &layout, host, starts, NULL);
}

/* The general inline path (growth, the NUMA read-back, sizes that need overflow checks). */
static __attribute__((noinline)) void encode_here(struct ar_arena_handle_t *arena,
                                                  ar_text_encode_t *arguments, size_t count) {
    char const *message = NULL;
    call_report_t report = {0};
    ar_status_t status = encode(arena, arguments, count, NULL, &message, &report);
    account(arena, arguments, status, &report);
    arp_arena_release_holder(arena);
    arp_report(arguments->outcome, status, message);
}

void ar_text_encode(ar_text_encode_t *arguments) {
    if (!arguments) return;
    size_t count = 0;
    char const *message = check_arguments(arguments, &count);
    if (__builtin_expect(message != NULL, 0))
        return refuse(arguments, arguments->outcome, ar_status_invalid_argument_k, message);
    struct ar_arena_handle_t *arena = arguments->arena;
    if (arguments->executor || arena->residency != ar_residency_ram_k)
        return encode_on_executor(arguments, count);

    /* The fixed path: host pages, the calling thread. No job, no lock: one compare-and-swap
     * takes the arena, a plain store releases it (the release is the call's last touch of the
     * arena; ar_arena_free polls for it), the status store is the call's last act. */
    if (!take(arena, arguments, count, arguments->outcome)) return;
    arp_arena_rewind(arena);
    size_t const *offsets = arguments->texts.offsets;
    size_t tokens = count ? (offsets[count] - offsets[0]) / sizeof(uint32_t) : 0;
    /* The common case, sized without overflow checks and fitting the arena as it is: the
     * general path (encode) does the same with the checks, growth and the NUMA read-back. */
    layout_t layout;
    if (__builtin_expect(ram_layout_unchecked(count, tokens, arguments->dimensions,
                                              arguments->states != NULL, &layout),
                         1) &&
        __builtin_expect(layout.host_bytes <= arena->host.size && arena->numa_known, 1)) {
        arp_arena_mark_written(arena, layout.host_bytes);
        char *host = arena->host.data;
        size_t *starts = (size_t *)(host + layout.host_starts);
        starts[0] = 0;
        if (count)
            encode_items_here(arguments, count, layout.row_bytes, layout.states, host, starts);
        fill_views(arena, arguments, count, tokens, host, host + layout.states, starts);
        account(arena, arguments, ar_status_success_k,
                &(call_report_t){.written = layout.host_bytes});
        arp_arena_release_holder(arena);
        arp_report(arguments->outcome, ar_status_success_k, NULL);
        return;
    }
    encode_here(arena, arguments, count);
}
