/* Host memory for arenas: see os_pages.h. Pages are mapped through hwloc on the machine's
 * topology (loaded once, never freed, so pages can always be freed with the topology that
 * mapped them, whatever executor or synthetic topology asked for them). Counters are atomics
 * so fault injection and leak counts stay exact while worker threads allocate. */
#include "os_pages.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static hwloc_topology_t machine_topology_;
static pthread_once_t machine_topology_once_ = PTHREAD_ONCE_INIT;

static void machine_topology_load(void) {
    hwloc_topology_t topology;
    if (hwloc_topology_init(&topology) != 0) return;
    if (hwloc_topology_load(topology) != 0) {
        hwloc_topology_destroy(topology);
        return;
    }
    machine_topology_ = topology;
}

hwloc_topology_t arp_machine_topology(void) {
    pthread_once(&machine_topology_once_, machine_topology_load);
    return machine_topology_;
}

static uint64_t fault_at_;      /* 0: disarmed */
static uint64_t fault_counter_; /* allocations since the last arm */
static int64_t live_allocations_;

void arp_host_fault_arm(uint64_t n) {
    __atomic_store_n(&fault_counter_, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&fault_at_, n, __ATOMIC_SEQ_CST);
}

uint64_t arp_host_fault_allocations(void) {
    return __atomic_load_n(&fault_counter_, __ATOMIC_SEQ_CST);
}

int64_t arp_host_live_allocations(void) {
    return __atomic_load_n(&live_allocations_, __ATOMIC_SEQ_CST);
}

/* True when this allocation is the injected failure. */
static bool fault_hits(void) {
    uint64_t at = __atomic_load_n(&fault_at_, __ATOMIC_SEQ_CST);
    uint64_t nth = __atomic_add_fetch(&fault_counter_, 1, __ATOMIC_SEQ_CST);
    return at != 0 && nth == at;
}

void *arp_host_calloc(size_t count, size_t size) {
    if (fault_hits()) return NULL;
    void *pointer = calloc(count ? count : 1, size ? size : 1);
    if (pointer) __atomic_add_fetch(&live_allocations_, 1, __ATOMIC_SEQ_CST);
    return pointer;
}

void arp_host_free(void *pointer) {
    if (!pointer) return;
    __atomic_sub_fetch(&live_allocations_, 1, __ATOMIC_SEQ_CST);
    free(pointer);
}

enum { huge_page_threshold_k = 2u << 20 }; /* below one huge page THP cannot help */

ar_status_t arp_host_pages_alloc(int32_t node, size_t size, arp_host_pages_t *pages) {
    *pages = (arp_host_pages_t){.node = node};
    if (size == 0 || fault_hits()) return ar_status_out_of_memory_k;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (size > SIZE_MAX - page) return ar_status_out_of_memory_k;
    size = (size + page - 1) / page * page;

    hwloc_topology_t topology = arp_machine_topology();
    hwloc_obj_t numa = (topology && node >= 0)
                           ? hwloc_get_numanode_obj_by_os_index(topology, (unsigned)node)
                           : NULL;
    void *data = NULL;
    if (numa) {
        data = hwloc_alloc_membind(topology, size, numa->nodeset, HWLOC_MEMBIND_BIND,
                                   HWLOC_MEMBIND_BYNODESET | HWLOC_MEMBIND_STRICT);
        if (data) {
            pages->strict = true;
        } else {
            /* Strict binding refused (no mbind in this container, a policy forbids it, or no
             * memory on that node): hwloc binds as it can or allocates unbound. */
            data = hwloc_alloc_membind(topology, size, numa->nodeset, HWLOC_MEMBIND_BIND,
                                       HWLOC_MEMBIND_BYNODESET);
            pages->fallback = true;
        }
        pages->via_hwloc = data != NULL;
    }
    if (!data) {
        /* No such node on this machine (a synthetic topology's node) or no topology at all:
         * plain pages, recorded as a fallback. */
        if (!numa) pages->fallback = true;
        void *mapped = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        data = mapped == MAP_FAILED ? NULL : mapped;
        pages->via_hwloc = false;
    }
    if (!data) {
        *pages = (arp_host_pages_t){.node = node};
        return ar_status_out_of_memory_k;
    }
    if (size >= huge_page_threshold_k) pages->huge = madvise(data, size, MADV_HUGEPAGE) == 0;
    pages->data = data;
    pages->size = size;
    __atomic_add_fetch(&live_allocations_, 1, __ATOMIC_SEQ_CST);
    return ar_status_success_k;
}

void arp_host_pages_free(arp_host_pages_t *pages) {
    if (pages->data) {
        if (pages->via_hwloc)
            hwloc_free(arp_machine_topology(), pages->data, pages->size);
        else
            munmap(pages->data, pages->size);
        __atomic_sub_fetch(&live_allocations_, 1, __ATOMIC_SEQ_CST);
    }
    *pages = (arp_host_pages_t){.node = -1};
}

hwloc_obj_t arp_calling_thread_node(hwloc_topology_t topology) {
    hwloc_bitmap_t where = topology ? hwloc_bitmap_alloc() : NULL;
    if (!where) return NULL;
    hwloc_obj_t found = NULL;
    if (hwloc_get_last_cpu_location(topology, where, HWLOC_CPUBIND_THREAD) == 0) {
        hwloc_obj_t node = NULL;
        while (!found && (node = hwloc_get_next_obj_by_type(topology, HWLOC_OBJ_NUMANODE, node)))
            if (node->cpuset && hwloc_bitmap_intersects(node->cpuset, where)) found = node;
    }
    hwloc_bitmap_free(where);
    return found;
}

int32_t arp_host_pages_node(void const *data, size_t length) {
    hwloc_topology_t topology = arp_machine_topology();
    if (!topology || !data || !length) return -1;
    hwloc_bitmap_t nodes = hwloc_bitmap_alloc();
    if (!nodes) return -1;
    int32_t node = -1;
    if (hwloc_get_area_memlocation(topology, data, length, nodes, HWLOC_MEMBIND_BYNODESET) == 0 &&
        hwloc_bitmap_weight(nodes) == 1)
        node = hwloc_bitmap_first(nodes);
    hwloc_bitmap_free(nodes);
    return node;
}
