/* Rule D at scale: a decoder-shaped plan whose (D) violation lies after many repeat iterations
 * and many merged schedule references; k is computed by arithmetic, checked against the naive
 * walker on a small version, then asserted exactly on versions far too large to walk (10^6
 * references, 10^9 and 2^63 token iterations). The plan: see decoder(). */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "../../ref/src/cert/certify_internal.h"
#include "arenaref/plan.h"
#include "expect.h"
#include "cert_test_util.h"

#define CACHE 0x100000u
#define SCRATCH 0x200000u
#define LAUNCHES 6u

/* Launches: 0 prefill (phase "prefill", declares "cache"); 1 attn_qkv and 2 attn_out (phase
 * "attn", cache carried, "scratch" fresh); 3 mlp and 4 sample (phase "mlp", "act" fresh over
 * scratch's bytes); 5 evict (phase "evict", "junk" fresh over cache). Repeat 0 runs the layer
 * [1, 4) `layers` times (attn_qkv's word walks the cache by 0x100 per layer). A token is the
 * layer repeat then sample: sample merges into the layer's last mlp instance (across a reference
 * boundary, or across the body of a token repeat), so each token adds 2 x layers instances.
 * Instances: prefill 0; token t, layer l: attn 1 + 2(tL + l), mlp 2 + 2(tL + l). After T1
 * tokens, evict is instance 1 + 2 L T1 and the next attn breaks (D) at k = 2 + 2 L T1. */
/* tokens_as_references: each token is two references ([1,4) and [4,5)); otherwise one
 * reference [1,5) to a token repeat of `tokens_before` iterations (and another after evict). */
static ar_plan_t *decoder(uint64_t layers, uint64_t tokens_before, uint64_t tokens_after,
                          bool evict, bool tokens_as_references) {
    ar_plan_t *plan = NULL;
    require_true(ar_plan_create(&plan) == ar_status_success_k);
    ar_plan_set_alignment(plan, 256);
    ar_plan_add_window(plan, CACHE, 0x200000);
    ar_plan_add_phase(plan, "prefill");
    ar_plan_add_plane(plan, "cache", CACHE, 0x10000, false);
    ar_plan_add_phase(plan, "attn");
    ar_plan_add_plane(plan, "cache", CACHE, 0x10000, true);
    ar_plan_add_plane(plan, "scratch", SCRATCH, 0x1000, false);
    ar_plan_add_phase(plan, "mlp");
    ar_plan_add_plane(plan, "act", SCRATCH, 0x2000, false);
    ar_plan_add_phase(plan, "evict");
    ar_plan_add_plane(plan, "junk", CACHE + 0x8000, 0x100, false);
    uint64_t cache_word = CACHE, scratch_word = SCRATCH, act_word = SCRATCH + 0x1f00;
    ar_plan_add_launch(plan, "prefill", "prefill", &cache_word, 1, NULL);
    ar_plan_add_launch(plan, "attn_qkv", "attn", &cache_word, 1, NULL);
    ar_plan_add_launch(plan, "attn_out", "attn", &scratch_word, 1, NULL);
    ar_plan_add_launch(plan, "mlp", "mlp", &act_word, 1, NULL);
    ar_plan_add_launch(plan, "sample", "mlp", &act_word, 1, NULL);
    ar_plan_add_launch(plan, "evict", "evict", NULL, 0, NULL);
    ar_shift_t walk = {1, 0, 0x100};
    require_true(ar_plan_add_repeat_deltas(plan, 1, 3, layers, &walk, 1) == ar_status_success_k);
    ar_plan_add_reference(plan, 0, 1);
    if (tokens_as_references) {
        for (uint64_t t = 0; t < tokens_before; ++t)
            ar_plan_add_reference(plan, 1, 3), ar_plan_add_reference(plan, 4, 1);
        if (evict) ar_plan_add_reference(plan, 5, 1);
        for (uint64_t t = 0; t < tokens_after; ++t)
            ar_plan_add_reference(plan, 1, 3), ar_plan_add_reference(plan, 4, 1);
    } else {
        require_true(ar_plan_add_repeat_deltas(plan, 1, 4, tokens_before, NULL, 0) ==
                     ar_status_success_k);
        ar_plan_add_reference(plan, 1, 4);
        if (evict) ar_plan_add_reference(plan, 5, 1);
        if (tokens_after) ar_plan_add_reference(plan, 1, 4); /* the same repeat again */
    }
    require_finished(plan);
    return plan;
}

static ar_certify_report_t certify(ar_plan_t const *plan, bool exact) {
    ar_certify_options_t options;
    ar_certify_options_default(&options);
    options.exact = exact;
    ar_certify_report_t report;
    ar_status_t status = ar_certify(plan, &options, &report);
    if (status != ar_status_success_k) fprintf(stderr, "certify: %s\n", report.message);
    require_true(status == ar_status_success_k);
    return report;
}

static void expect_k(ar_plan_t const *plan, u128 k, char const *what) {
    double start = now();
    ar_certify_report_t r = certify(plan, false);
    double seconds = now() - start;
    char k_text[48], verdict_text[48];
    decimal(k, k_text);
    decimal(k + 2 + LAUNCHES, verdict_text);
    printf("%s: verdict %s in %.3f s\n", what, r.verdict_text, seconds);
    expect_int_eq(r.rule, ar_rule_d_k);
    expect_str_eq(r.instance_text, k_text);
    expect_str_eq(r.verdict_text, verdict_text);
    u128 verdict = k + 2 + LAUNCHES;
    expect_u64_eq(r.verdict, verdict > UINT64_MAX ? UINT64_MAX : (uint64_t)verdict);
    expect_str_contains(r.message, "\"junk\"");
    expect_str_contains(r.message, "phase \"evict\"");
}

int main(void) {
    /* Small: the naive walker, the fast one and the arithmetic agree, both schedule shapes. */
    for (int shape = 0; shape < 2; ++shape) {
        ar_plan_t *plan = decoder(3, 4, 2, true, shape == 0);
        u128 k = 2 + 2 * 3 * 4;
        arp_rule_d_t fast, naive;
        require_true(arp_rule_d(plan, &fast) == ar_status_success_k);
        require_true(arp_rule_d_naive(plan, 1u << 20, &naive) == ar_status_success_k);
        expect_true(naive.broken);
        expect_u64_eq((uint64_t)naive.instance, (uint64_t)k);
        expect_u64_eq((uint64_t)fast.instance, (uint64_t)k);
        expect_k(plan, k, shape == 0 ? "small, references" : "small, token repeat");
        expect_u64_eq(certify(plan, true).verdict, (uint64_t)k + 2 + LAUNCHES);
        /* The message names the instance that declared junk: evict, k - 1. */
        char declared[64];
        snprintf(declared, sizeof declared, "instance %" PRIu64 " (phase \"evict\")",
                 (uint64_t)k - 1);
        expect_str_contains(certify(plan, false).message, declared);
        ar_plan_free(plan);

        /* Clean: 6 tokens as references; as a repeat, the 4-token repeat runs twice. */
        uint64_t tokens = shape == 0 ? 6 : 8;
        plan = decoder(3, 4, 2, false, shape == 0);
        require_true(arp_rule_d_naive(plan, 1u << 20, &naive) == ar_status_success_k);
        ar_certify_report_t r = certify(plan, false);
        expect_u64_eq(r.verdict, 0);
        expect_false(naive.broken);
        expect_u64_eq(r.instances, (uint64_t)naive.instances);
        expect_u64_eq(r.instances, 1 + 2 * 3 * tokens);
        expect_u64_eq(r.executed_launches, (uint64_t)naive.executed_launches);
        expect_u64_eq(r.executed_launches, 1 + tokens * (3 * 3 + 1));
        ar_plan_free(plan);
    }

    /* 10^6 token references over a 96-layer repeat: about 3 x 10^8 executed launches. */
    ar_plan_t *plan = decoder(96, 1000000, 0, false, true);
    double start = now();
    ar_certify_report_t r = certify(plan, false);
    printf("10^6 references x 96 layers: verdict %s, %" PRIu64 " executed launches, %" PRIu64
           " instances, in %.3f s\n",
           r.verdict_text, r.executed_launches, r.instances, now() - start);
    expect_u64_eq(r.verdict, 0);
    expect_u64_eq(r.instances, 1 + 2ull * 96 * 1000000);
    expect_u64_eq(r.executed_launches, 1 + 1000000ull * (3 * 96 + 1));
    ar_plan_free(plan);

    /* The violation half way through 10^6 merged references. */
    plan = decoder(96, 500000, 500000, true, true);
    expect_k(plan, 2 + (u128)2 * 96 * 500000, "evict after 500000 of 10^6 references");
    ar_plan_free(plan);

    /* A token repeat of 10^9 iterations, then evict, then the token repeat again. */
    plan = decoder(96, 1000000000, 1, true, false);
    expect_k(plan, 2 + (u128)2 * 96 * 1000000000, "evict after a 10^9-token repeat");
    expect_u64_eq(certify(plan, true).verdict, 2 + LAUNCHES + 2 + 2ull * 96 * 1000000000);
    ar_plan_free(plan);

    /* 2^63 tokens: k passes 2^64; the verdict saturates, its text stays exact. */
    plan = decoder(96, (uint64_t)1 << 63, 1, true, false);
    expect_k(plan, 2 + (u128)2 * 96 * ((u128)1 << 63), "evict after a 2^63-token repeat");
    ar_plan_free(plan);
    return expect_finish();
}
