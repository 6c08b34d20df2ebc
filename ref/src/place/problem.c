/* The placement problem: strategy names, the default options, validation of the rows, the
 * max-live bound (the sweep's, sweep.c) and the height. Everything here reads rows. */
#include <stdlib.h>
#include <string.h>

#include "place/engine.h"

static char const *const strategy_names[ar_place_strategy_count_k] = {
    "greedy-by-size", "greedy-by-breadth", "first-fit", "best-fit", "search", "lns",
};

char const *ar_place_strategy_name(ar_place_strategy_t strategy) {
    return (unsigned)strategy < ar_place_strategy_count_k ? strategy_names[strategy] : NULL;
}

bool ar_place_strategy_from_name(char const *name, ar_place_strategy_t *strategy) {
    for (int s = 0; name && s < ar_place_strategy_count_k; ++s)
        if (strcmp(name, strategy_names[s]) == 0) {
            *strategy = (ar_place_strategy_t)s;
            return true;
        }
    return false;
}

void ar_place_options_default(ar_place_options_t *options) {
    memset(options, 0, sizeof *options);
    options->strategy = ar_place_greedy_by_size_k;
    options->time_limit_s = AR_PLACE_TIME_LIMIT_DEFAULT;
}

static bool power_of_two(uint64_t value) { return value && !(value & (value - 1)); }

bool arp_place_rows_valid(ar_place_problem_t const *problem, char *message, size_t size) {
    if (!problem || (problem->count && !problem->buffers)) {
        snprintf(message, size, "no problem (NULL buffers)");
        return false;
    }
    for (size_t i = 0; i < problem->count; ++i) {
        ar_place_buffer_t const *b = &problem->buffers[i];
        char const *why = NULL;
        if (b->lower > b->upper)
            why = "lower > upper";
        else if (b->upper >= AR_PLACE_MAX_TIME)
            why = "a time at or past 2^63";
        else if (b->size >= AR_PLACE_MAX_BYTES)
            why = "a size at or past 2^56";
        else if (b->alignment >= AR_PLACE_MAX_BYTES)
            why = "an alignment at or past 2^56";
        else if (b->alignment > 1 && !power_of_two(b->alignment))
            why = "an alignment that is not a power of two";
        if (why) {
            snprintf(message, size, "buffer %zu: %s", i, why);
            return false;
        }
    }
    return true;
}

bool ar_place_problem_valid(ar_place_problem_t const *problem, char *message, size_t size) {
    if (!arp_place_rows_valid(problem, message, size)) return false;
    if (!problem->groups) return true;
    arp_place_groups_t groups;
    if (arp_place_groups_make(problem, &groups, message, size) != ar_status_success_k) return false;
    arp_place_groups_free(&groups);
    return true;
}

uint64_t ar_place_lower_bound(ar_place_problem_t const *problem) {
    arp_sweep_t sweep;
    if (arp_sweep_make(problem, 0, &sweep) != ar_status_success_k) return 0;
    uint64_t bound = sweep.bound;
    arp_sweep_free(&sweep);
    return bound;
}

uint64_t ar_place_height(ar_place_problem_t const *problem, uint64_t const *offsets) {
    uint64_t height = 0;
    for (size_t i = 0; i < problem->count; ++i)
        if (arp_place_holds(&problem->buffers[i]) && offsets[i] + problem->buffers[i].size > height)
            height = offsets[i] + problem->buffers[i].size;
    return height;
}
