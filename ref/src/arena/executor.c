/* Executors: where calls compute. A RAM executor is one worker thread pinned (hwloc) to the
 * cores of one NUMA node; a VRAM executor is a GPU, its own first stream (gpu_backend.h) and a
 * worker thread near it that issues the GPU work. Calls reach the worker through a FIFO of job
 * slots that the arenas own, so submitting allocates nothing; the worker drains the queue before
 * it stops, so freeing an executor finishes what was submitted; in a fork()ed child the next
 * submission starts a new worker. The handle is reference counted: a GPU arena holds its
 * executor's stream, so the executor's memory and stream outlive ar_executor_free until the
 * last such arena is freed. */
#include <stdio.h>
#include <string.h>

#include "arena_testing.h"
#include "internal.h"

static void executor_destroy(struct ar_executor_handle_t *executor) {
    if (!executor->gpu_lost) arp_gpu_close(executor->gpu); /* CUDA did not survive a fork */
    if (executor->cpuset) hwloc_bitmap_free(executor->cpuset);
    if (executor->owns_topology) hwloc_topology_destroy(executor->topology);
    pthread_cond_destroy(&executor->wake);
    pthread_mutex_destroy(&executor->lock);
    arp_host_free(executor);
}

void arp_executor_retain(struct ar_executor_handle_t *executor) {
    __atomic_add_fetch(&executor->references, 1, __ATOMIC_ACQ_REL);
}

void arp_executor_release(struct ar_executor_handle_t *executor) {
    if (__atomic_sub_fetch(&executor->references, 1, __ATOMIC_ACQ_REL) == 0)
        executor_destroy(executor);
}

static void *worker_main(void *argument);

/* Starts the worker and pins it, synchronously, so `bound` is known when init returns (a
 * synthetic topology is not this machine: its placement is computed but never applied). Init
 * calls it, and a call in a fork()ed child, whose worker did not survive the fork. */
static bool start_worker(struct ar_executor_handle_t *executor) {
    if (pthread_create(&executor->worker, NULL, worker_main, executor) != 0) return false;
    executor->worker_started = true;
    executor->bound =
        hwloc_topology_is_thissystem(executor->topology) &&
        hwloc_set_thread_cpubind(executor->topology, executor->worker, executor->cpuset, 0) == 0;
    return true;
}

static void *worker_main(void *argument) {
    struct ar_executor_handle_t *executor = argument;
    pthread_mutex_lock(&executor->lock);
    for (;;) {
        while ((!executor->head && !executor->stopping) || (executor->paused && executor->head))
            pthread_cond_wait(&executor->wake, &executor->lock);
        arp_job_t *job = executor->head;
        if (!job) break; /* stopping, and nothing left to run */
        executor->head = job->next;
        if (!executor->head) executor->tail = NULL;
        executor->running = job; /* cleared by the job before it releases its arena */
        pthread_mutex_unlock(&executor->lock);
        arp_job_run(job, executor);
        pthread_mutex_lock(&executor->lock);
        executor->finishing = NULL; /* published */
    }
    pthread_mutex_unlock(&executor->lock);
    return NULL;
}

bool arp_executor_submit(struct ar_executor_handle_t *executor, arp_job_t *job,
                         ar_outcome_t *outcome) {
    job->next = NULL;
    pthread_mutex_lock(&executor->lock);
    if (!executor->worker_started && !start_worker(executor)) { /* a fork()ed child */
        pthread_mutex_unlock(&executor->lock);
        return false;
    }
    /* Deferred until the worker publishes the final status: stored before the job is queued,
     * so the worker's final store comes after it, and under the lock, so ar_outcome_cancel,
     * which searches under it, finds the job whenever it sees deferred. */
    __atomic_store_n((int *)&outcome->status, (int)ar_status_deferred_k, __ATOMIC_RELEASE);
    __atomic_store_n(&outcome->message, NULL, __ATOMIC_RELAXED);
    if (executor->tail)
        executor->tail->next = job;
    else
        executor->head = job;
    executor->tail = job;
    pthread_cond_signal(&executor->wake);
    pthread_mutex_unlock(&executor->lock);
    return true;
}

/* The NUMA node (OS index) of the calling thread's CPU, or the first node. */
static hwloc_obj_t node_of_calling_thread(hwloc_topology_t topology) {
    hwloc_obj_t found =
        hwloc_topology_is_thissystem(topology) ? arp_calling_thread_node(topology) : NULL;
    return found ? found : hwloc_get_obj_by_type(topology, HWLOC_OBJ_NUMANODE, 0);
}

static void executor_init(ar_executor_init_t *arguments, hwloc_topology_t synthetic) {
    ar_outcome_t *outcome = arguments ? arguments->outcome : NULL;
    if (!arguments || !arguments->executor) {
        if (synthetic) hwloc_topology_destroy(synthetic);
        arp_report(outcome, ar_status_invalid_argument_k, "ar_executor_init: `executor` is NULL");
        return;
    }
    *arguments->executor = NULL;
    if (arguments->residency != ar_residency_ram_k && arguments->residency != ar_residency_vram_k) {
        if (synthetic) hwloc_topology_destroy(synthetic);
        arp_report(outcome, ar_status_invalid_argument_k,
                   "ar_executor_init: `residency` is neither RAM nor VRAM");
        return;
    }
    struct ar_executor_handle_t *executor = arp_host_calloc(1, sizeof *executor);
    if (!executor) {
        if (synthetic) hwloc_topology_destroy(synthetic);
        arp_report(outcome, ar_status_out_of_memory_k,
                   "ar_executor_init: out of host memory for the executor");
        return;
    }
    pthread_mutex_init(&executor->lock, NULL);
    pthread_cond_init(&executor->wake, NULL);
    executor->references = 1;
    executor->residency = arguments->residency;
    executor->device = -1;
    executor->numa_node = -1;
    executor->topology = synthetic ? synthetic : arp_machine_topology();
    executor->owns_topology = synthetic != NULL;

    ar_status_t status = ar_status_success_k;
    char const *message = NULL;
    if (!executor->topology) {
        status = ar_status_unsupported_k,
        message = "ar_executor_init: hwloc could not load the machine's topology";
        goto failed;
    }
    executor->cpuset = hwloc_bitmap_alloc();
    if (!executor->cpuset) {
        status = ar_status_out_of_memory_k,
        message = "ar_executor_init: out of host memory for a cpuset";
        goto failed;
    }
    if (arguments->residency == ar_residency_ram_k) {
        hwloc_obj_t node = arguments->device < 0
                               ? node_of_calling_thread(executor->topology)
                               : hwloc_get_numanode_obj_by_os_index(executor->topology,
                                                                    (unsigned)arguments->device);
        if (!node || arguments->device < -1) {
            status = ar_status_invalid_argument_k,
            message =
                "ar_executor_init: `device` names no NUMA node of this machine (OS index, or -1)";
            goto failed;
        }
        executor->numa_node = (int32_t)node->os_index;
        /* A memory-only node (no cores of its own) computes on every core. */
        hwloc_bitmap_copy(executor->cpuset,
                          node->cpuset && !hwloc_bitmap_iszero(node->cpuset)
                              ? node->cpuset
                              : hwloc_topology_get_topology_cpuset(executor->topology));
    } else {
        if (arguments->device < 0) {
            status = ar_status_invalid_argument_k,
            message = "ar_executor_init: a VRAM executor needs a GPU ordinal in `device`";
            goto failed;
        }
        status = arp_gpu_open(arguments->device, &executor->gpu, &message);
        if (status != ar_status_success_k) goto failed;
        executor->device = arguments->device;
        if (!arp_gpu_cpuset(executor->gpu, executor->topology, executor->cpuset))
            hwloc_bitmap_copy(executor->cpuset,
                              hwloc_topology_get_topology_cpuset(executor->topology));
    }

    if (!start_worker(executor)) {
        status = ar_status_out_of_memory_k,
        message = "ar_executor_init: could not start the worker thread";
        goto failed;
    }
    arp_registry_add_executor(executor);
    *arguments->executor = executor;
    arp_report(outcome, ar_status_success_k, NULL);
    return;

failed:
    executor_destroy(executor);
    arp_report(outcome, status, message);
}

void ar_executor_init(ar_executor_init_t *arguments) { executor_init(arguments, NULL); }

void arp_testing_executor_init_synthetic(ar_executor_init_t *arguments, char const *synthetic) {
    hwloc_topology_t topology = NULL;
    if (!synthetic || hwloc_topology_init(&topology) != 0) {
        if (arguments && arguments->outcome)
            arp_outcome_finish(arguments->outcome, ar_status_invalid_argument_k,
                               "synthetic topology: cannot init");
        return;
    }
    if (hwloc_topology_set_synthetic(topology, synthetic) != 0 ||
        hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        if (arguments && arguments->outcome)
            arp_outcome_finish(arguments->outcome, ar_status_invalid_argument_k,
                               "synthetic topology: description refused by hwloc");
        return;
    }
    executor_init(arguments, topology);
}

size_t arp_testing_executor_cpuset(ar_executor_t executor, char *text, size_t capacity) {
    if (!executor || !executor->cpuset || !text || !capacity) return 0;
    int length = hwloc_bitmap_list_snprintf(text, capacity, executor->cpuset);
    return length > 0 ? (size_t)length : 0;
}

void arp_testing_executor_pause(ar_executor_t executor, bool paused) {
    if (!executor) return;
    pthread_mutex_lock(&executor->lock);
    executor->paused = paused;
    pthread_cond_broadcast(&executor->wake);
    pthread_mutex_unlock(&executor->lock);
}

void ar_executor_free(ar_executor_t executor) {
    if (!executor) return;
    if (executor->worker_started) {
        pthread_mutex_lock(&executor->lock);
        executor->stopping = true;
        executor->paused = false; /* freeing finishes what was submitted */
        pthread_cond_broadcast(&executor->wake);
        pthread_mutex_unlock(&executor->lock);
        pthread_join(executor->worker, NULL);
        executor->worker_started = false;
    }
    arp_registry_remove_executor(executor);
    arp_executor_release(executor);
}

void ar_executor_describe(ar_executor_describe_t *arguments) {
    if (!arguments) return;
    if (!arguments->executor || !arguments->description) {
        arp_report(arguments->outcome, ar_status_invalid_argument_k,
                   !arguments->executor ? "ar_executor_describe: `executor` is NULL"
                                        : "ar_executor_describe: `description` is NULL");
        return;
    }
    struct ar_executor_handle_t *executor = arguments->executor;
    int weight = executor->cpuset ? hwloc_bitmap_weight(executor->cpuset) : 0;
    *arguments->description = (ar_executor_description_t){
        .residency = executor->residency,
        .device = executor->device,
        .numa_node = executor->numa_node,
        .cpus = weight > 0 ? (uint32_t)weight : 0,
        .bound = executor->bound,
    };
    arp_report(arguments->outcome, ar_status_success_k, NULL);
}

void ar_gpu_devices(ar_gpu_devices_t *arguments) {
    if (!arguments) return;
    if (!arguments->count) {
        arp_report(arguments->outcome, ar_status_invalid_argument_k,
                   "ar_gpu_devices: `count` is NULL");
        return;
    }
    if (arguments->capacity && !arguments->devices) {
        arp_report(arguments->outcome, ar_status_invalid_argument_k,
                   "ar_gpu_devices: `devices` is NULL with a capacity");
        return;
    }
    size_t count = arp_gpu_count();
    for (size_t i = 0; i < count && i < arguments->capacity; ++i) {
        ar_status_t status = arp_gpu_describe((int32_t)i, &arguments->devices[i]);
        if (status != ar_status_success_k) {
            *arguments->count = 0;
            arp_report(arguments->outcome, status,
                       "ar_gpu_devices: the CUDA runtime could not describe a device");
            return;
        }
    }
    *arguments->count = count;
    arp_report(arguments->outcome, ar_status_success_k, NULL);
}
