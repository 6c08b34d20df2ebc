/* An outside program built against an installed arenaref (tests/consumer/run), compiled as C
 * and as C++11 (consumer.cpp includes this file); what it uses follows the component it links:
 *   CONSUMER_ARENA  a RAM arena: one batch encoded, every value equal to ar_text_encode_value;
 *                   without CONSUMER_CUDA, a VRAM executor is refused (no GPU backend linked)
 *   CONSUMER_CERT   a plan loaded from JSON and certified (verdict 0); a word outside it (not 0)
 *   CONSUMER_CUDA   the CUDA library registered itself: a VRAM executor works, or is refused
 *                   only for want of a device (the message says so, not "no GPU backend")
 * Prints one line per check; exit 0 when every check passes, 1 otherwise. */
#include <stdio.h>
#include <string.h>

#include "arenaref/arenaref.h"
#ifdef CONSUMER_CUDA
#include "arenaref/cuda_register.h"
#endif

static int failures;

static void check(int ok, char const *what) {
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    if (!ok) ++failures;
}

#ifdef CONSUMER_ARENA
static void arena_checks(void) {
    enum { items_k = 3, dimensions_k = 8 };
    static uint32_t const tokens[] = {7, 1, 2, 3, 40000, 5};
    static size_t const offsets[items_k + 1] = {0, 4, 4, 24}; /* bytes: 1, 0 and 5 tokens */
    ar_outcome_t outcome;
    ar_arena_t arena = NULL;
    ar_arena_init_t init;
    memset(&outcome, 0, sizeof outcome);
    memset(&init, 0, sizeof init);
    init.arena = &arena;
    init.outcome = &outcome;
    ar_arena_init(&init);
    check(outcome.status == ar_status_success_k && arena, "ar_arena_init (host pages)");

    ar_rows_view_t rows;
    ar_text_encode_t encode;
    memset(&encode, 0, sizeof encode);
    encode.arena = arena;
    encode.texts.data = tokens;
    encode.texts.offsets = offsets;
    encode.texts.count = items_k;
    encode.dimensions = dimensions_k;
    encode.embeddings = &rows;
    encode.outcome = &outcome;
    ar_text_encode(&encode);
    check(outcome.status == ar_status_success_k && rows.count == items_k, "ar_text_encode");
    int same = outcome.status == ar_status_success_k;
    for (size_t d = 0; same && d < dimensions_k; ++d) {
        same &= ar_rows_f32(&rows, 0, d) == ar_text_encode_value(7, 0, d);
        same &= ar_rows_f32(&rows, 1, d) == 0.0f;
    }
    check(same, "values as arena.h defines them");
    printf("status name: %s\n", ar_status_name(ar_status_contended_k));
    check(strcmp(ar_status_name(ar_status_contended_k), "contended") == 0, "ar_status_name");
    ar_arena_free(arena);
#ifndef CONSUMER_CUDA
    ar_executor_t executor = NULL;
    ar_executor_init_t vram;
    memset(&vram, 0, sizeof vram);
    vram.executor = &executor;
    vram.residency = ar_residency_vram_k;
    vram.outcome = &outcome;
    ar_executor_init(&vram);
    check(outcome.status == ar_status_unsupported_k && !executor,
          "without the CUDA library a VRAM executor is unsupported");
#endif
}
#endif

#ifdef CONSUMER_CERT
static uint64_t certify_text(char const *json) {
    ar_plan_t *plan = NULL;
    ar_plan_error_t error;
    ar_certify_report_t report;
    memset(&error, 0, sizeof error);
    if (ar_plan_load_buffer(json, strlen(json), &plan, &error) != ar_status_success_k) {
        printf("load: %s\n", error.message);
        return UINT64_MAX - 1;
    }
    ar_status_t status = ar_certify(plan, NULL, &report);
    ar_plan_free(plan);
    if (status != ar_status_success_k) return UINT64_MAX - 1;
    printf("verdict %s: %s\n", report.verdict_text, report.message);
    return report.verdict;
}

static char const plan_head[] =
    "{\"format\": \"arena-plan/1\", \"alignment\": 256,"
    " \"windows\": [{\"base\": \"0x10000\", \"size\": \"0x10000\"}],"
    " \"globals\": [{\"name\": \"weights\", \"base\": \"0x10000\", \"size\": \"0x1000\"}],"
    " \"phases\": [{\"id\": \"p\", \"planes\": [{\"name\": \"x\", \"base\": \"0x12000\","
    " \"size\": \"0x100\", \"carried\": false}]}], \"launches\": [{\"kernel\": \"k\","
    " \"phase\": \"p\", \"words\": [\"0x10000\", ";
static char const plan_tail[] =
    "]}], \"repeats\": [], \"schedule\": [{\"first\": 0, \"count\": 1}]}";

static void cert_checks(void) {
    char json[1024];
    snprintf(json, sizeof json, "%s\"0x12000\"%s", plan_head, plan_tail);
    check(certify_text(json) == 0, "a plan inside its declarations certifies (verdict 0)");
    snprintf(json, sizeof json, "%s\"0x11000\"%s", plan_head, plan_tail);
    uint64_t verdict = certify_text(json);
    check(verdict != 0 && verdict != UINT64_MAX - 1, "a word outside them does not");
}
#endif

#ifdef CONSUMER_CUDA
static void cuda_checks(void) {
    ar_cuda_register(); /* already done when the library loaded; a second call is harmless */
    ar_outcome_t outcome;
    ar_executor_t executor = NULL;
    ar_executor_init_t init;
    memset(&outcome, 0, sizeof outcome);
    memset(&init, 0, sizeof init);
    init.executor = &executor;
    init.residency = ar_residency_vram_k;
    init.device = 0;
    init.outcome = &outcome;
    ar_executor_init(&init);
    printf("VRAM executor: %s%s%s\n", ar_status_name(outcome.status),
           outcome.message ? ": " : "", outcome.message ? outcome.message : "");
    check(outcome.status == ar_status_success_k ||
              (outcome.status == ar_status_unsupported_k && outcome.message &&
               !strstr(outcome.message, "no GPU backend")),
          "the CUDA backend registered itself");
    ar_executor_free(executor);
}
#endif

int main(void) {
#ifdef CONSUMER_ARENA
    arena_checks();
#endif
#ifdef CONSUMER_CERT
    cert_checks();
#endif
#ifdef CONSUMER_CUDA
    cuda_checks();
#endif
    printf("%s\n", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
