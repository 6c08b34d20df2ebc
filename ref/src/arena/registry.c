/* The live executors and arenas, each list under one lock: what ar_outcome_cancel searches
 * (executors' queues) and what the fork handlers lock and repair (fork.c). Only init, free,
 * cancel and fork touch the lists, never a call, so the fixed path pays nothing for them. The
 * fork handlers are installed (pthread_atfork) with the first executor or arena. */
#include "internal.h"

static pthread_mutex_t registry_lock_ = PTHREAD_MUTEX_INITIALIZER;
static struct ar_executor_handle_t *executors_;
static struct ar_arena_handle_t *arenas_;
static pthread_once_t fork_handlers_once_ = PTHREAD_ONCE_INIT;

void arp_registry_lock(void) { pthread_mutex_lock(&registry_lock_); }
void arp_registry_unlock(void) { pthread_mutex_unlock(&registry_lock_); }
struct ar_executor_handle_t *arp_registry_executors(void) {
    return executors_;
}
struct ar_arena_handle_t *arp_registry_arenas(void) {
    return arenas_;
}

void arp_registry_add_executor(struct ar_executor_handle_t *executor) {
    pthread_once(&fork_handlers_once_, arp_fork_install);
    arp_registry_lock();
    executor->registered_next = executors_;
    executors_ = executor;
    arp_registry_unlock();
}

void arp_registry_remove_executor(struct ar_executor_handle_t *executor) {
    arp_registry_lock();
    for (struct ar_executor_handle_t **link = &executors_; *link; link = &(*link)->registered_next)
        if (*link == executor) {
            *link = executor->registered_next;
            break;
        }
    arp_registry_unlock();
}

void arp_registry_add_arena(struct ar_arena_handle_t *arena) {
    pthread_once(&fork_handlers_once_, arp_fork_install);
    arp_registry_lock();
    arena->registered_previous = NULL;
    arena->registered_next = arenas_;
    if (arenas_) arenas_->registered_previous = arena;
    arenas_ = arena;
    arp_registry_unlock();
}

void arp_registry_remove_arena(struct ar_arena_handle_t *arena) {
    arp_registry_lock();
    if (arena->registered_previous)
        arena->registered_previous->registered_next = arena->registered_next;
    else
        arenas_ = arena->registered_next;
    if (arena->registered_next)
        arena->registered_next->registered_previous = arena->registered_previous;
    arp_registry_unlock();
}
