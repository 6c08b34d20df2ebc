/* Generated plans survive JSON: write -> load -> ar_plan_equal, for every family at tiny and
 * small, clean and with a fault of each kind (ranges, launches, probes); the meta object comes
 * back with the family and the expected verdict. Generation is deterministic: the same options
 * and seed give the same JSON bytes, and another seed another batch (different bytes). */
#include <stdlib.h>
#include <string.h>

#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "expect.h"

static char *generate_json(char const *family, char const *preset, char const *fault, uint64_t seed,
                           size_t *length) {
    ar_workload_options_t options = {
        .family = family, .preset = preset, .fault = fault, .seed = seed};
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    ar_status_t status = ar_workload_generate(&options, &plan, NULL, &error);
    if (status) {
        expect_fail_("%s/%s: %s", family, preset, error.message);
        return NULL;
    }
    char *text = NULL;
    status = ar_plan_write_string(plan, &text, length, &error);
    expect_int_eq(status, ar_status_success_k);

    ar_plan_t *loaded = NULL;
    status = ar_plan_load_buffer(text, *length, &loaded, &error);
    if (status)
        expect_fail_("%s/%s/%s: reload failed: %s", family, preset, fault ? fault : "clean",
                     error.message);
    else {
        expect_true(ar_plan_equal(plan, loaded));
        expect_ptr_not_null(loaded->meta_json);
        if (loaded->meta_json) {
            char needle[64];
            snprintf(needle, sizeof needle, "\"family\":\"%s\"", family);
            expect_str_contains(loaded->meta_json, needle);
            expect_str_contains(loaded->meta_json, "\"expect\":");
            expect_str_contains(loaded->meta_json, fault ? "\"expect_exact\":" : "\"fault\":null");
        }
    }
    ar_plan_free(loaded);
    ar_plan_free(plan);
    return text;
}

int main(void) {
    char const *const faults[] = {NULL,
                                  "overlapping-globals",
                                  "stray-pointer",
                                  "carried-clobbered",
                                  "pingpong-frames",
                                  "two-repeat-word"};
    for (char const *const *f = ar_workload_families(); *f; ++f) {
        for (size_t k = 0; k < sizeof faults / sizeof *faults; ++k) {
            if (faults[k] && !ar_workload_fault_applies(*f, faults[k])) continue;
            size_t length = 0;
            free(generate_json(*f, "tiny", faults[k], 1, &length));
        }
        size_t a_length = 0, b_length = 0, c_length = 0;
        char *a = generate_json(*f, "small", NULL, 42, &a_length);
        char *b = generate_json(*f, "small", NULL, 42, &b_length);
        char *c = generate_json(*f, "small", NULL, 43, &c_length);
        require_true(a && b && c);
        expect_size_eq(a_length, b_length);
        expect_true(a_length == b_length && memcmp(a, b, a_length) == 0);
        expect_false(a_length == c_length && memcmp(a, c, a_length) == 0);
        free(a);
        free(b);
        free(c);
    }
    return expect_finish();
}
