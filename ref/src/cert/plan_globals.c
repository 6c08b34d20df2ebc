/* The globals' order, a fact ar_plan_finish derives once for rules A and B (a runtime's export
 * lists thousands of weights, in address order): whether they come sorted by base, disjoint,
 * aligned and non-empty (then rule A holds, with nothing to sort), and their union as a few
 * inclusive pieces, a global that starts where the one before ends extending the piece.
 * Globals in any other order leave the fact unset, and rule_ab.c sorts and checks them.
 */
#include <stdlib.h>

#include "cert/plan_internal.h"

void arp_plan_globals_free(struct ar_plan_internals_t *internals) {
    free(internals->global_pieces);
    internals->global_pieces = NULL;
    internals->global_pieces_count = 0;
    internals->globals_in_order = false;
}

ar_status_t arp_plan_globals_derive(ar_plan_t *plan) {
    struct ar_plan_internals_t *in = plan->internals;
    arp_plan_globals_free(in);
    ar_global_t const *globals = plan->globals;
    size_t count = plan->globals_count, pieces = 0, i = 0;
    uint64_t mask = plan->alignment - 1; /* finish: a power of two */
    if (!count || !globals[0].size || (globals[0].base & mask)) return ar_status_success_k;
    /* pieces: lo at [2k], hi at [2k + 1] */
    uint64_t *piece = malloc(2 * count * sizeof *piece);
    if (!piece) return ar_status_out_of_memory_k;
    uint64_t first = globals[0].base, next = first + globals[0].size; /* 0: at 2^64 */
    for (i = 1; i < count && next; ++i) {
        uint64_t base = globals[i].base, bytes = globals[i].size;
        if (!bytes || (base & mask) || base < next) break;
        if (base != next) piece[2 * pieces] = first, piece[2 * pieces++ + 1] = next - 1;
        if (base != next) first = base;
        next = base + bytes; /* finish checked base + size <= 2^64 */
    }
    piece[2 * pieces] = first, piece[2 * pieces++ + 1] = next - 1;
    if (i < count) { /* out of order, or rule A breaks: rule_ab.c reads them as written */
        free(piece);
        return ar_status_success_k;
    }
    in->global_pieces = piece, in->global_pieces_count = pieces, in->globals_in_order = true;
    return ar_status_success_k;
}
