/* What an in-place update does inside its bytes (`reads`, `writes`, CERTIFICATE.md §1): the
 * reading rules ar_plan_finish checks for each plane, and the fact it derives once for rule D,
 * each phase's first plane that reads across elements bytes it also writes (such a phase breaks
 * D at its first instance, so the walkers test one entry per instance and plans without reads
 * test a NULL pointer). Near-linear: each plane's writes are sorted and joined once, and each
 * read looked up among them by binary search.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/plan_internal.h"

static ar_status_t check_list(ar_plan_t const *plan, size_t p, size_t j, bool writes,
                              ar_plan_error_t *error) {
    size_t i = plan->phases[p].planes_first + j;
    ar_plane_t const *plane = &plan->planes[i];
    ar_plane_access_t const *access = &plan->plane_access[i];
    char const *key = writes ? "writes" : "reads";
    size_t first = writes ? access->writes_first : access->reads_first;
    size_t count = writes ? access->writes_count : access->reads_count;
    char path[160];
    for (size_t k = 0; k < count; ++k) {
        ar_plane_range_t const *range = &plan->plane_ranges[first + k];
        int used = snprintf(path, sizeof path, "$.phases[%zu].planes[%zu].%s[%zu]", p, j, key, k);
        if (range->size == 0) {
            snprintf(path + used, sizeof path - (size_t)used, ".size");
            return arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                                 "size 0: a range of \"%s\" holds at least one byte", key);
        }
        unsigned __int128 end = (unsigned __int128)range->offset + range->size;
        if (end > plane->size)
            return arp_plan_fail(
                error, ar_status_invalid_argument_k, path, 0, 0,
                "range [0x%llx, 0x%llx + 0x%llx) runs past %s: plane \"%.200s\" holds 0x%llx bytes",
                (unsigned long long)range->offset, (unsigned long long)range->offset,
                (unsigned long long)range->size,
                end >> 64 ? "2^64 and the plane's end" : "the plane's end", plane->name,
                (unsigned long long)plane->size);
    }
    return ar_status_success_k;
}

ar_status_t arp_plan_access_check(ar_plan_t const *plan, size_t p, size_t j,
                                  ar_plan_error_t *error) {
    if (!plan->plane_access) return ar_status_success_k;
    size_t i = plan->phases[p].planes_first + j;
    ar_plane_t const *plane = &plan->planes[i];
    ar_plane_access_t const *access = &plan->plane_access[i];
    if (!access->has_reads && !access->has_writes) return ar_status_success_k;
    if (!plane->becomes) {
        char path[160];
        char const *key = access->has_reads ? "reads" : "writes";
        snprintf(path, sizeof path, "$.phases[%zu].planes[%zu].%s", p, j, key);
        return arp_plan_fail(error, ar_status_invalid_argument_k, path, 0, 0,
                             "\"%s\" on %s plane \"%.200s\" without \"becomes\": only an in-place "
                             "update says what it reads and writes",
                             key, plane->carried ? "carried" : "fresh", plane->name);
    }
    ar_status_t status = check_list(plan, p, j, false, error);
    if (!status) status = check_list(plan, p, j, true, error);
    return status;
}

void arp_plan_cross_free(struct ar_plan_internals_t *internals) {
    free(internals->cross);
    internals->cross = NULL;
    internals->cross_phases = 0;
}

static int compare_ranges(void const *a, void const *b) {
    ar_plane_range_t const *x = a, *y = b;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

static bool meets(ar_plane_range_t const *a, ar_plane_range_t const *b) {
    return a->offset < b->offset + b->size && b->offset < a->offset + a->size;
}

/* The first read of plane i (in written order) that shares a byte with one of its writes, and
 * the first such write (SIZE_MAX: writes absent, the whole plane). `joined` has room for the
 * plane's writes. Ranges lie inside the plane (checked), so offset + size does not wrap. */
static bool plane_cross(ar_plan_t const *plan, size_t i, ar_plane_range_t *joined, size_t *read,
                        size_t *write) {
    ar_plane_access_t const *access = &plan->plane_access[i];
    if (!plan->planes[i].becomes || !access->has_reads || access->reads_count == 0) return false;
    ar_plane_range_t const *reads = plan->plane_ranges + access->reads_first;
    ar_plane_range_t const *writes = plan->plane_ranges + access->writes_first;
    if (!access->has_writes) {
        *read = access->reads_first, *write = SIZE_MAX;
        return true;
    }
    /* The writes' union: sorted by offset, touching or overlapping ones joined. */
    size_t n = access->writes_count, pieces = 0;
    if (n) memcpy(joined, writes, n * sizeof *joined);
    qsort(joined, n, sizeof *joined, compare_ranges);
    for (size_t k = 0; k < n; ++k) {
        uint64_t end = joined[k].offset + joined[k].size;
        if (pieces && joined[k].offset <= joined[pieces - 1].offset + joined[pieces - 1].size) {
            ar_plane_range_t *last = &joined[pieces - 1];
            if (end > last->offset + last->size) last->size = end - last->offset;
        } else {
            joined[pieces++] = joined[k];
        }
    }
    for (size_t r = 0; r < access->reads_count; ++r) {
        /* The last piece starting before the read's end meets it iff it ends past its start. */
        size_t lo = 0, hi = pieces;
        while (lo < hi) {
            size_t middle = lo + (hi - lo) / 2;
            if (joined[middle].offset < reads[r].offset + reads[r].size)
                lo = middle + 1;
            else
                hi = middle;
        }
        if (lo == 0 || joined[lo - 1].offset + joined[lo - 1].size <= reads[r].offset) continue;
        for (size_t w = 0; w < n; ++w)
            if (meets(&reads[r], &writes[w])) {
                *read = access->reads_first + r, *write = access->writes_first + w;
                return true;
            }
    }
    return false;
}

ar_status_t arp_plan_cross_derive(ar_plan_t *plan) {
    struct ar_plan_internals_t *in = plan->internals;
    arp_plan_cross_free(in);
    if (!plan->plane_access) return ar_status_success_k;
    size_t most = 0;
    for (size_t i = 0; i < plan->planes_count; ++i)
        if (plan->plane_access[i].writes_count > most) most = plan->plane_access[i].writes_count;
    ar_plane_range_t *joined = malloc((most + 1) * sizeof *joined);
    if (!joined) return ar_status_out_of_memory_k;
    ar_status_t status = ar_status_success_k;
    for (size_t p = 0; p < plan->phases_count && !status; ++p) {
        ar_phase_t const *phase = &plan->phases[p];
        for (size_t i = phase->planes_first; i < phase->planes_first + phase->planes_count; ++i) {
            size_t read, write;
            if (!plane_cross(plan, i, joined, &read, &write)) continue;
            if (!in->cross) {
                in->cross = malloc(plan->phases_count * sizeof *in->cross);
                if (!in->cross) {
                    status = ar_status_out_of_memory_k;
                    break;
                }
                for (size_t q = 0; q < plan->phases_count; ++q)
                    in->cross[q] = (arp_cross_t){SIZE_MAX, SIZE_MAX, SIZE_MAX};
            }
            in->cross[p] = (arp_cross_t){i, read, write};
            ++in->cross_phases;
            break;
        }
    }
    free(joined);
    if (status) arp_plan_cross_free(in);
    return status;
}
