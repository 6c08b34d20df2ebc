/* NUMA placement. On this machine: an executor on the calling thread's node (-1) and on each
 * node by OS index; an arena it makes binds its pages to that node, and `numa_node`, read back
 * from the OS after the pages are written, equals the executor's node (where the OS cannot
 * bind strictly the fallback is recorded, and the read-back is checked only where it is known).
 * On a synthetic topology ("numa:2 core:4 pu:1", through the test hook): node 1's worker gets
 * PUs 4-7, node 0's PUs 0-3, node 2 does not exist, -1 picks a node; its placement is computed
 * but not applied (the topology is not this machine). */
#include <string.h>
#include <unistd.h>

#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

static void check_node(int32_t node, int32_t expected_node) {
    ar_outcome_t outcome = {0};
    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){.executor = &executor,
                                           .residency = ar_residency_ram_k,
                                           .device = node,
                                           .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    if (!executor) return;
    ar_executor_description_t about;
    ar_executor_describe(&(ar_executor_describe_t){.executor = executor, .description = &about});
    if (expected_node >= 0) expect_int_eq(about.numa_node, expected_node);
    expect_true(about.bound);
    expect_true(about.cpus >= 1);

    ar_arena_t arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor});
    test_tape_t tape = test_tape_simple(300, 1); /* a few pages */
    ar_rows_view_t embeddings;
    ar_rows_tape_view_t states;
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 32,
                                       .embeddings = &embeddings,
                                       .states = &states,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    ar_arena_stats_t stats;
    ar_arena_stats(arena, &stats);
    expect_int_eq(stats.requested_node, about.numa_node);
    printf("executor node %d: pages on node %d, strict %d, fallback %d, huge %d, cpus %u\n",
           about.numa_node, stats.numa_node, stats.strict_binding, stats.binding_fallback,
           stats.huge_pages, about.cpus);
    expect_true(stats.strict_binding !=
                stats.binding_fallback); /* exactly one of them is recorded */
    if (stats.strict_binding || stats.numa_node >= 0)
        expect_int_eq(stats.numa_node, about.numa_node);

    /* A large arena (past one 2 MiB huge page) asks for transparent huge pages. */
    test_tape_t large = test_tape_simple(4000, 2);
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = large.view,
                                       .dimensions = 128,
                                       .embeddings = &embeddings,
                                       .states = &states,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    ar_arena_stats(arena, &stats);
    expect_u64_ge(stats.reserved, 2u << 20);
    printf("large arena: %" PRIu64 " bytes, huge pages asked %d, pages on node %d\n",
           stats.reserved, stats.huge_pages, stats.numa_node);
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0)
        expect_true(stats.huge_pages);
    if (stats.strict_binding) expect_int_eq(stats.numa_node, about.numa_node);
    test_tape_free(&large);

    ar_arena_free(arena);
    ar_executor_free(executor);
    test_tape_free(&tape);
}

static void check_synthetic(int32_t node, ar_status_t status, char const *cpuset,
                            int32_t expected_node) {
    ar_outcome_t outcome = {0};
    ar_executor_t executor = NULL;
    arp_testing_executor_init_synthetic(&(ar_executor_init_t){.executor = &executor,
                                                              .residency = ar_residency_ram_k,
                                                              .device = node,
                                                              .outcome = &outcome},
                                        "numa:2 core:4 pu:1");
    expect_int_eq(outcome.status, status);
    if (status != ar_status_success_k) {
        expect_ptr_null(executor);
        return;
    }
    require_true(executor != NULL);
    char text[64] = "";
    arp_testing_executor_cpuset(executor, text, sizeof text);
    expect_str_eq(text, cpuset);
    ar_executor_description_t about;
    ar_executor_describe(&(ar_executor_describe_t){.executor = executor, .description = &about});
    expect_int_eq(about.numa_node, expected_node);
    expect_int_eq(about.cpus, 4);
    expect_false(about.bound); /* not this machine: never applied */

    /* Its arena asks for pages on that node; a node this machine lacks is a recorded fallback. */
    ar_arena_t arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena, .executor = executor});
    test_tape_t tape = test_tape_simple(5, 1);
    ar_rows_view_t embeddings;
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = arena,
                                       .texts = tape.view,
                                       .dimensions = 4,
                                       .embeddings = &embeddings,
                                       .outcome = &outcome});
    expect_int_eq(outcome.status, ar_status_success_k);
    expect_size_eq(test_embedding_mismatches(&tape, &embeddings, 4), 0);
    ar_arena_stats_t stats;
    ar_arena_stats(arena, &stats);
    expect_int_eq(stats.requested_node, expected_node);
    hwloc_topology_t machine = arp_machine_topology();
    bool machine_has_node =
        machine && hwloc_get_numanode_obj_by_os_index(machine, (unsigned)expected_node) != NULL;
    if (!machine_has_node) expect_true(stats.binding_fallback);
    ar_arena_free(arena);
    ar_executor_free(executor);
    test_tape_free(&tape);
}

int main(void) {
    hwloc_topology_t machine = arp_machine_topology();
    require_true(machine != NULL);
    check_node(-1, -1);
    int nodes = hwloc_get_nbobjs_by_type(machine, HWLOC_OBJ_NUMANODE);
    printf("machine NUMA nodes: %d\n", nodes);
    for (int i = 0; i < nodes; ++i) {
        hwloc_obj_t node = hwloc_get_obj_by_type(machine, HWLOC_OBJ_NUMANODE, (unsigned)i);
        check_node((int32_t)node->os_index, (int32_t)node->os_index);
    }

    check_synthetic(0, ar_status_success_k, "0-3", 0);
    check_synthetic(1, ar_status_success_k, "4-7", 1);
    check_synthetic(-1, ar_status_success_k, "0-3", 0);
    check_synthetic(2, ar_status_invalid_argument_k, "", -1);
    return expect_finish();
}
