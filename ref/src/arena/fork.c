/* fork(): a child has only the thread that forked, so every executor's worker is gone there,
 * and any lock another thread held at fork would stay held forever. The handlers
 * (pthread_atfork, installed by registry.c) make the child usable, never hung:
 * - prepare: the forking thread takes every library lock (registry, then each executor's,
 *   then each arena's, then the outcomes'), so none is mid-update when memory is copied;
 *   parent: it lets them go;
 * - child: it lets them go too, gives every condition variable a fresh state (waiters of the
 *   parent are not in the child), ends each call that was queued or running on a worker with
 *   ar_status_unsupported_k (outputs zeroed, arena released: its worker cannot finish it),
 *   frees each arena from holders that no longer exist (calls run inline by other threads)
 *   and marks each executor workerless: its next call starts a new worker in the child, so a
 *   RAM executor works there. A GPU executor does not: CUDA does not survive fork, so its
 *   calls are refused with ar_status_unsupported_k and its memory is left to the parent. */
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
