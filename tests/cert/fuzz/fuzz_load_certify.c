/* libFuzzer target: the plan loader and the certificate on arbitrary bytes.
 *
 * Any input must either be refused (a malformed plan: *plan NULL, an error that names a path) or
 * load into a finished plan that the certificate judges without crashing. On a loaded plan it
 * also checks two properties that must hold for every input: the writer round-trips
 * (load(write(p)) equals p), and soundness (a certificate verdict 0 implies an exact verdict 0
 * whenever the exact oracle runs). The oracle's limit is kept small so one input stays fast; a
 * plan past it is refused by the oracle, which is fine. `few` varies with the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaref/plan.h"

static void fail(char const *what, char const *detail) {
    fprintf(stderr, "fuzz_load_certify: %s: %s\n", what, detail);
    abort();
}

int LLVMFuzzerTestOneInput(uint8_t const *data, size_t size) {
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    ar_status_t status = ar_plan_load_buffer((char const *)data, size, &plan, &error);
    if (status != ar_status_success_k) {
        if (plan) fail("a refused plan came back non-NULL", error.message);
        if (status == ar_status_invalid_argument_k && !error.message[0])
            fail("a malformed plan without a message", "");
        return 0;
    }
    if (!plan || !plan->finished) fail("a loaded plan is not finished", "");

    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.few = 1 + size % 5; /* exercise points and hulls both */
    options.exact_limit = 1u << 16;
    ar_certify_report_t certificate, exact;
    status = ar_certify(plan, &options, &certificate);
    if (status != ar_status_success_k && status != ar_status_unsupported_k &&
        status != ar_status_out_of_memory_k)
        fail("certificate failed on a finished plan", certificate.message);
    options.exact = true;
    ar_status_t exact_status = ar_certify(plan, &options, &exact);
    if (status == ar_status_success_k && exact_status == ar_status_success_k &&
        certificate.verdict == 0 && exact.verdict != 0)
        fail("unsound: the certificate says 0 and the exact oracle does not", exact.message);

    char *text = NULL;
    size_t length = 0;
    if (ar_plan_write_string(plan, &text, &length, &error) != ar_status_success_k)
        fail("cannot write a loaded plan", error.message);
    ar_plan_t *again = NULL;
    if (ar_plan_load_buffer(text, length, &again, &error) != ar_status_success_k)
        fail("a written plan does not load", error.message);
    if (!ar_plan_equal(plan, again)) fail("load(write(plan)) differs from plan", "");
    free(text);
    ar_plan_free(again);
    ar_plan_free(plan);
    return 0;
}
