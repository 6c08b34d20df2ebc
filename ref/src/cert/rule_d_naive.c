/* Rule D's naive walker, the fixed-point walker's test twin: every executed launch one by one,
 * with the plane last declared on each elementary interval. Exact and slow on purpose; it
 * refuses a plan executing more than a given number of launches (counted by prefix sums).
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

#define NO_PHASE INT64_MIN

/* Launches the schedule executes, by prefix sums over the launch table (saturated). */
static ar_status_t executed_launches(ar_plan_t const *plan, arp_u128_t *count) {
    size_t n = plan->launches_count;
    arp_u128_t *weight = malloc((n + 1) * sizeof *weight);
    size_t const *order = plan->repeat_order;
    if (!weight) return ar_status_out_of_memory_k;
    for (size_t i = 0; i < n; ++i) weight[i] = 1;
    /* Innermost first: fold each body into the weight of its first launch. */
    for (size_t q = plan->repeats_count; q-- > 0;) {
        ar_repeat_t const *rep = &plan->repeats[order[q]];
        arp_u128_t body = 0;
        for (size_t i = rep->first; i < rep->first + rep->count; ++i) {
            body = arp_u128_add_sat(body, weight[i]);
            weight[i] = 0;
        }
        weight[rep->first] = arp_u128_mul_sat(body, rep->iterations);
    }
    /* Prefix sums; a reference executes prefix[end] - prefix[first]. */
    arp_u128_t running = 0;
    bool saturated = false;
    for (size_t i = 0; i < n; ++i) {
        arp_u128_t w = weight[i];
        if (w == ARP_U128_MAX) saturated = true;
        weight[i] = running;
        arp_u128_t next = running + w;
        if (next < running) saturated = true;
        running = next;
    }
    weight[n] = running;
    arp_u128_t total = 0;
    for (size_t s = 0; s < plan->schedule_count && !saturated; ++s) {
        ar_reference_t const *ref = &plan->schedule[s];
        total = arp_u128_add_sat(total, weight[ref->first + ref->count] - weight[ref->first]);
    }
    *count = saturated ? ARP_U128_MAX : total;
    free(weight);
    return ar_status_success_k;
}

typedef struct naive_t {
    ar_plan_t const *plan;
    size_t *last; /* per elementary interval: the plane declared there last, or SIZE_MAX */
    uint32_t *lo, *hi;
    int64_t current;
    arp_u128_t instances, executed;
    unsigned depth;
    ar_status_t status;
    arp_rule_d_t *result;
} naive_t;

/* Whether plane `last`, declared over a cell, left there the value carried plane c holds: the
 * value it leaves (its becomes when it updates in place) is c's name, at c's base and size. */
static bool leaves_value(ar_plane_t const *last, ar_plane_t const *c) {
    return last->base == c->base && last->size == c->size &&
           strcmp(arp_cert_leaves_name(last), c->name) == 0;
}

/* Whether plane i (with becomes) reads across elements bytes it writes, every read against
 * every write as written (writes absent: the whole plane), the first such pair into *read,
 * *write. Computed here, not read from finish's facts: the twin checks them. */
static bool naive_cross(ar_plan_t const *plan, size_t i, size_t *read, size_t *write) {
    ar_plane_access_t const *a = plan->plane_access ? &plan->plane_access[i] : NULL;
    if (!a || !plan->planes[i].becomes || !a->has_reads) return false;
    for (size_t r = a->reads_first; r < a->reads_first + a->reads_count; ++r) {
        arp_u128_t r_lo = plan->plane_ranges[r].offset, r_hi = r_lo + plan->plane_ranges[r].size;
        if (!a->has_writes) {
            *read = r, *write = SIZE_MAX;
            return r_hi > r_lo && r_lo < plan->planes[i].size;
        }
        for (size_t w = a->writes_first; w < a->writes_first + a->writes_count; ++w) {
            arp_u128_t w_lo = plan->plane_ranges[w].offset,
                       w_hi = w_lo + plan->plane_ranges[w].size;
            if (r_lo < w_hi && w_lo < r_hi) {
                *read = r, *write = w;
                return true;
            }
        }
    }
    return false;
}

static bool naive_launch(naive_t *v, size_t launch) {
    ar_plan_t const *plan = v->plan;
    int64_t phase = plan->launches[launch].phase;
    ++v->executed;
    if (phase == v->current) return true;
    v->current = phase;
    if (phase >= 0 && (size_t)phase < plan->phases_count) {
        ar_phase_t const *p = &plan->phases[phase];
        for (size_t i = p->planes_first; i < p->planes_first + p->planes_count; ++i) {
            if (!plan->planes[i].carried) continue;
            for (uint32_t c = v->lo[i]; c < v->hi[i]; ++c) {
                ar_plane_t const *last = v->last[c] != SIZE_MAX ? &plan->planes[v->last[c]] : NULL;
                if (last && leaves_value(last, &plan->planes[i])) continue;
                char k_text[48], c_text[200];
                arp_u128_decimal(v->instances, k_text, sizeof k_text);
                arp_cert_describe_plane(&plan->planes[i], c_text, sizeof c_text);
                v->result->broken = true;
                v->result->instance = v->instances;
                arp_u128_decimal(v->instances, v->result->instance_text,
                                 sizeof v->result->instance_text);
                v->result->phase = (size_t)phase;
                v->result->plane = i;
                snprintf(v->result->message, sizeof v->result->message,
                         "rule D: instance %s (phase \"%s\") starts with carried plane %s, "
                         "which does not hold its value: %s",
                         k_text, p->id ? p->id : "", c_text,
                         !last ? "never declared there"
                         : last->updates && arp_cert_same_plane(last, &plan->planes[i])
                             ? "it was updated in place"
                             : "another plane was declared over it");
                ++v->instances;
                return false;
            }
        }
        for (size_t i = p->planes_first; i < p->planes_first + p->planes_count; ++i) {
            size_t read, write;
            if (!naive_cross(plan, i, &read, &write)) continue;
            char k_text[48];
            arp_u128_decimal(v->instances, k_text, sizeof k_text);
            arp_rule_d_t *result = v->result;
            result->broken = result->cross = true;
            result->instance = v->instances;
            arp_u128_decimal(v->instances, result->instance_text, sizeof result->instance_text);
            result->phase = (size_t)phase;
            result->plane = i, result->read = read, result->write = write;
            result->other_plane = SIZE_MAX, result->other_phase = -1;
            arp_rule_d_message(plan, result, k_text, "0");
            ++v->instances;
            return false;
        }
        for (size_t i = p->planes_first; i < p->planes_first + p->planes_count; ++i)
            for (uint32_t c = v->lo[i]; c < v->hi[i]; ++c) v->last[c] = i;
    }
    ++v->instances;
    return true;
}

/* Every executed launch of [begin, end) inside repeat `container` (SIZE_MAX: top level). */
static bool naive_range(naive_t *v, size_t begin, size_t end, size_t container) {
    ar_plan_t const *plan = v->plan;
    for (size_t i = begin; i < end;) {
        size_t best = SIZE_MAX;
        for (size_t r = 0; r < plan->repeats_count; ++r) {
            ar_repeat_t const *rep = &plan->repeats[r];
            if (r == container || rep->first != i || rep->count > end - i) continue;
            if (container != SIZE_MAX && rep->first == plan->repeats[container].first &&
                rep->count >= plan->repeats[container].count)
                continue; /* the container itself, or one around it */
            if (best == SIZE_MAX || rep->count > plan->repeats[best].count) best = r;
        }
        if (best == SIZE_MAX) {
            if (!naive_launch(v, i)) return false;
            ++i;
            continue;
        }
        ar_repeat_t const *rep = &plan->repeats[best];
        if (++v->depth > ARP_MAX_REPEAT_DEPTH) {
            v->status = ar_status_unsupported_k;
            snprintf(v->result->message, sizeof v->result->message,
                     "rule D: repeats nest deeper than the supported %u levels",
                     ARP_MAX_REPEAT_DEPTH);
            return false;
        }
        for (uint64_t it = 0; it < rep->iterations; ++it)
            if (!naive_range(v, rep->first, rep->first + rep->count, best)) return false;
        --v->depth;
        i = rep->first + rep->count;
    }
    return true;
}

ar_status_t arp_rule_d_naive(ar_plan_t const *plan, uint64_t launch_limit, arp_rule_d_t *result) {
    memset(result, 0, sizeof *result);
    arp_u128_t executed = 0;
    ar_status_t status = executed_launches(plan, &executed);
    if (status) return status;
    if (executed > launch_limit) {
        char count[48];
        arp_u128_decimal(executed, count, sizeof count);
        snprintf(result->message, sizeof result->message,
                 "rule D (naive): the plan executes %s launches, past the naive walker's limit "
                 "of %" PRIu64,
                 count, launch_limit);
        return ar_status_unsupported_k;
    }
    naive_t v = {
        .plan = plan, .current = NO_PHASE, .status = ar_status_success_k, .result = result};
    arp_u128_t *coords = NULL;
    size_t coords_count = 0, keys_count = 0, p = plan->planes_count;
    int32_t *plane_key = malloc((p + 1) * sizeof *plane_key);
    size_t *key_plane = malloc((p + 1) * sizeof *key_plane);
    status = ar_status_out_of_memory_k;
    if (plane_key && key_plane)
        status = arp_cert_plane_keys(plan, plane_key, key_plane, NULL, &keys_count);
    if (!status)
        status = arp_cert_compress(plan, plane_key, key_plane, keys_count, &coords, &coords_count,
                                   &v.lo, &v.hi);
    free(plane_key), free(key_plane);
    if (status) return status;
    v.last = malloc((coords_count + 1) * sizeof *v.last);
    if (!v.last)
        status = ar_status_out_of_memory_k;
    else {
        for (size_t i = 0; i <= coords_count; ++i) v.last[i] = SIZE_MAX;
        for (size_t s = 0; s < plan->schedule_count; ++s) {
            ar_reference_t const *ref = &plan->schedule[s];
            if (!naive_range(&v, ref->first, ref->first + ref->count, SIZE_MAX)) break;
        }
        status = v.status;
        result->instances = v.instances;
        result->executed_launches = v.executed;
    }
    free(coords), free(v.lo), free(v.hi), free(v.last);
    return status;
}
