/* fork(): the child has only the forking thread, so workers are gone and locks held by other
 * threads would stay held. pthread_atfork handlers (installed by registry.c): prepare takes
 * every library lock (registry, executors', arenas', outcomes'), parent gives them back; the
 * child gives them back, re-inits condition variables, ends each call queued or running on a
 * worker with ar_status_unsupported_k (outputs zeroed, arena released), publishes a status a
 * worker was publishing, clears holders that were other threads, and marks executors
 * workerless: a RAM executor's next call starts a new worker (it works there); a GPU executor
 * is refused with unsupported, since CUDA does not survive fork. */
#include "internal.h"

static void lock_everything(void) {
    arp_registry_lock();
    for (struct ar_executor_handle_t *e = arp_registry_executors(); e; e = e->registered_next)
        pthread_mutex_lock(&e->lock);
    for (struct ar_arena_handle_t *a = arp_registry_arenas(); a; a = a->registered_next)
        pthread_mutex_lock(&a->lock);
    arp_outcomes_lock();
}

static void unlock_everything(void) {
    arp_outcomes_unlock();
    for (struct ar_arena_handle_t *a = arp_registry_arenas(); a; a = a->registered_next)
        pthread_mutex_unlock(&a->lock);
    for (struct ar_executor_handle_t *e = arp_registry_executors(); e; e = e->registered_next)
        pthread_mutex_unlock(&e->lock);
}

static void in_parent(void) {
    unlock_everything();
    arp_registry_unlock();
}

static void in_child(void) {
    unlock_everything();
    arp_outcomes_after_fork();
    /* Still under the registry lock: no other thread exists, but cancel and free take it. */
    arp_job_t *orphans = NULL;
    for (struct ar_executor_handle_t *e = arp_registry_executors(); e; e = e->registered_next) {
        pthread_cond_init(&e->wake, NULL);
        if (e->running) {
            e->running->next = orphans;
            orphans = e->running;
        }
        while (e->head) {
            arp_job_t *job = e->head;
            e->head = job->next;
            job->next = orphans;
            orphans = job;
        }
        e->tail = NULL;
        e->running = NULL;
        ar_outcome_t *finishing = e->finishing;
        if (finishing && ar_outcome_status(finishing) == ar_status_deferred_k)
            arp_outcome_finish(finishing, e->finishing_status, e->finishing_message);
        e->finishing = NULL;
        e->worker_started = false; /* nothing to join: the next call starts a new worker */
        e->paused = false;         /* a test hook of the parent's worker */
        if (e->residency == ar_residency_vram_k) e->gpu_lost = true;
    }
    for (struct ar_arena_handle_t *a = arp_registry_arenas(); a; a = a->registered_next)
        pthread_cond_init(&a->released, NULL);
    while (orphans) {
        arp_job_t *job = orphans;
        orphans = job->next;
        arp_job_end(job, ar_status_unsupported_k,
                    "ar_text_encode: the call was in flight on an executor's worker at fork(); "
                    "that thread does not exist in the child");
    }
    for (struct ar_arena_handle_t *a = arp_registry_arenas(); a; a = a->registered_next) {
        /* Holders left are threads of the parent (a call run inline, a worker past its
         * release): none of them exists here. Exports stay: their consumers were copied. */
        __atomic_and_fetch(&a->holder, ~arp_holder_call_k, __ATOMIC_RELEASE);
        a->in_flight = 0;
    }
    arp_registry_unlock();
}

void arp_fork_install(void) { pthread_atfork(lock_everything, in_parent, in_child); }
