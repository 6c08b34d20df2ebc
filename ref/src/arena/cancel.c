/* ar_outcome_cancel: finding a call by its outcome and stopping it. The outcome is the caller's
 * plain struct, so the library keeps no pointer in it; instead cancel searches the live
 * executors (registry.c: a list under one lock, touched by init, free, cancel and fork) for a
 * queued job naming the outcome, which it unlinks and ends as cancelled, or for the running one,
 * which it flags so the job stops at its next check. Each executor is searched under its own
 * lock, which the worker takes to dequeue a job and again to clear `running` before it
 * releases the job's arena, so cancel never touches a job slot another call may be reusing.
 * Cancel then waits for the outcome to be final and returns its status. */
#include "internal.h"

/* Under the executor's lock: unlinks a queued job naming `outcome` and returns it, or flags
 * the running one (returns NULL). */
static arp_job_t *take_or_flag(struct ar_executor_handle_t *executor, ar_outcome_t *outcome,
                               bool *found) {
    arp_job_t *previous = NULL;
    for (arp_job_t *job = executor->head; job; previous = job, job = job->next) {
        if (job->outcome != outcome) continue;
        if (previous)
            previous->next = job->next;
        else
            executor->head = job->next;
        if (executor->tail == job) executor->tail = previous;
        *found = true;
        return job;
    }
    if (executor->running && executor->running->outcome == outcome) {
        __atomic_store_n(&executor->running->cancel, 1, __ATOMIC_RELEASE);
        *found = true;
    }
    return NULL;
}

ar_status_t ar_outcome_cancel(ar_outcome_t *outcome) {
    if (!outcome) return ar_status_invalid_argument_k;
    ar_status_t status = ar_outcome_status(outcome);
    if (status != ar_status_deferred_k) return status; /* final: left as it is */
    arp_job_t *queued = NULL;
    bool found = false;
    arp_registry_lock();
    for (struct ar_executor_handle_t *executor = arp_registry_executors(); executor && !found;
         executor = executor->registered_next) {
        pthread_mutex_lock(&executor->lock);
        queued = take_or_flag(executor, outcome, &found);
        pthread_mutex_unlock(&executor->lock);
    }
    /* Never run: it holds its arena (taken and rewound at submission) and is counted in the
     * arena's in_flight, as a worker's job is; end it here, still under the registry lock so a
     * fork() never copies it half ended. */
    if (queued)
        arp_job_end(queued, ar_status_cancelled_k,
                    "ar_text_encode: cancelled by ar_outcome_cancel before it ran");
    arp_registry_unlock();
    /* Not found: it is past its last check, publishing its status. */
    return ar_outcome_wait(outcome);
}
