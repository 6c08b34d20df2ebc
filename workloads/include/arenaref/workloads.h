/* arenaref workloads: transformer-shaped device arena plans, generated in memory.
 *
 * Each family (decoder, moe, training, pipeline, encoder) turns a model shape (public
 * configurations: gpt2-small, gpt2-xl, llama2-7b, llama2-70b, mixtral-8x7b, gpt3-175b) plus
 * batch, sequence length and decode steps into a plan built with the plan builder (plan.h):
 * globals laid out first, phase planes placed by a greedy-by-size planner over the phases'
 * lifetimes. A plan is deterministic for its options and seed. A fault plants one defect whose
 * verdict is known by construction and reported in `expect` (and, for precision probes, in
 * `expect_exact`). The plan carries the same facts in its "meta" object.
 */
#ifndef ARENAREF_WORKLOADS_H
#define ARENAREF_WORKLOADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaref/place.h"
#include "arenaref/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zero or NULL fields take the family's (or preset's) default. */
typedef struct ar_workload_options_t {
    char const *family; /* required: "decoder", "moe", "training", "pipeline", "encoder", "flat" */
    char const *preset; /* "tiny", "small", "medium", "large"; NULL: "tiny" */
    char const *model;  /* a model name from ar_workload_models(); NULL: the preset's */
    uint64_t layers, batch, seq, decode; /* override the preset; 0 keeps it */
    uint64_t seed;
    char const *fault; /* NULL or "" for a clean plan */
    /* Added: bodies written for the loop (decode epochs, training steps, shape buckets), and
     * the pipeline's micro-batches; 0 keeps the preset's. `decode` is the loop's references:
     * generated tokens (decoder, moe), steps (training, pipeline), batches (encoder). */
    uint64_t epochs, micro;
    /* The placement strategy of the phase planes (ar_place_strategy_name, arenaref/place.h);
     * NULL or "": greedy-by-size, whose plans are the same bytes as before strategies existed.
     * Another strategy adds "strategy" to the plan's meta. */
    char const *strategy;
    /* Knobs that make lifetimes interleave (0: off, and the plan is the same bytes as without
     * them). recompute (training only): activation recomputation; the forward keeps only each
     * layer's input, and the backward recomputes the layers in segments of floor(sqrt(layers))
     * (the last one holds the rest), each segment's activations its own plane, the next
     * segment's recompute running before this one's backward. expert_skew (moe only, 1..90, at
     * most 16 experts): experts of uneven sizes; expert e's FFN width is the model's less up
     * to expert_skew percent (drawn from the seed), packed in the expert bank, and each expert
     * runs in its own phases with its own hidden planes, the next expert's up-projection
     * before this one's down-projection. kv_page (decoder, moe; tokens a page, 1..seq): a
     * paged KV cache; the prompt's pages from prefill on; with one epoch, the decoded tokens'
     * pages (a second persistent plane) from the start of decoding on; over epochs, requests
     * come and go in waves (at most 16), each group admitted and finishing together holding its
     * own pages, live from its wave to its last (a request runs 1 to 3 waves, drawn from the
     * seed; one admitted after the first wave brings its prompt's pages). micro_skew (pipeline, 1..90, at most 32
     * micro-batches): uneven micro-batches; micro-batch m holds the batch less up to micro_skew
     * percent of its sequences (drawn from the seed), and the stage runs a one-forward-one-
     * backward schedule in which each micro-batch's stash is its own plane, sized by it and
     * live from its forward to its backward. */
    uint64_t recompute;
    uint64_t expert_skew;
    uint64_t kv_page;
    uint64_t micro_skew;
    /* in_place: the in-place updates runtimes make, as a set of AR_WORKLOAD_IN_PLACE_* bits (0:
     * none, and the plan is the same bytes as without the knob). Each is declared with `becomes`
     * on a carried plane. norm (decoder, moe, encoder, pipeline): llama.cpp's MUL by the norm's
     * weight written over its RMS_NORM output; each layer's ln1_scale phase carries x_norm1 and
     * leaves x_scaled1. residual (every transformer family; not with expert skew): the residual
     * stream is a plane of each stage instead of a global, and each residual add writes over
     * it: out_proj carries resid and leaves resid_attn, the MLP's down projection carries
     * resid_attn and leaves resid, which the next layer reads. kv (decoder, moe; not with
     * kv_page): each decode layer's kv_store phase writes the token's keys and values into the
     * cache it carries, which keeps its name (`becomes` kv_cache). elementwise (flat): one in
     * four of the elementwise ops after the first whose first input has no later reader writes
     * its output over it (LiteRT's in-place ADD). all: every kind the family takes that combines with the other
     * knobs. A kind the family does not take is refused. */
    uint64_t in_place;
    /* The flat family (one phase per op, weights as globals): its ops and its globals; 0 keeps
     * the preset's. Refused for the other families. */
    uint64_t ops, globals;
} ar_workload_options_t;

/* The kinds of in-place update (ar_workload_options_t.in_place). */
enum {
    AR_WORKLOAD_IN_PLACE_NORM = 1,
    AR_WORKLOAD_IN_PLACE_RESIDUAL = 2,
    AR_WORKLOAD_IN_PLACE_KV = 4,
    AR_WORKLOAD_IN_PLACE_ELEMENTWISE = 8,
    AR_WORKLOAD_IN_PLACE_ALL = 16,
};

typedef struct ar_workload_info_t {
    char family[32], model[32], preset[16], fault[48]; /* fault "" when clean */
    uint64_t expect;       /* the verdict by construction (0 clean), saturated */
    char expect_text[48];  /* the same in exact decimal */
    bool has_expect_exact; /* a precision probe: the exact oracle's verdict differs */
    uint64_t expect_exact;
    char expect_exact_text[48];
    uint64_t launches, words, repeats, references; /* as written */
    uint64_t executed_launches, instances;         /* executed, saturated */
    uint64_t workspace_bytes;                      /* bytes the planner's workspace spans */
    uint64_t lower_bound_bytes;                    /* the largest sum of planes live at once */
} ar_workload_info_t;

/* NULL-terminated lists of names, static. */
char const *const *ar_workload_families(void);
char const *const *ar_workload_faults(void);
char const *const *ar_workload_models(void);
char const *const *ar_workload_presets(void);
/* Whether `fault` applies to `family` (some faults need frames, nested repeats, carried planes). */
bool ar_workload_fault_applies(char const *family, char const *fault);

/* Reads a comma-separated list of in-place kinds ("norm", "residual", "kv", "elementwise",
 * "all") into AR_WORKLOAD_IN_PLACE_* bits; false (and *kinds untouched) on an empty list, an
 * empty item or an unknown name. */
bool ar_workload_in_place_parse(char const *text, uint64_t *kinds);
/* The kinds in `kinds` as that list ("norm,residual"), into `text` (size bytes, at least 48). */
void ar_workload_in_place_name(uint64_t kinds, char *text, size_t size);

/* Build the plan (finished, ready for ar_certify) and describe it. `info` may be NULL.
 * Unknown family, model, preset or fault, or a fault that does not apply:
 * ar_status_invalid_argument_k with `error` saying which. *plan stays NULL on failure. */
ar_status_t ar_workload_generate(ar_workload_options_t const *options, ar_plan_t **plan,
                                 ar_workload_info_t *info, ar_plan_error_t *error);

/* A perfect packing (workloads/src/packing.c): a strip of `height` bytes over times
 * [0, span) cut by random guillotine cuts into n buffers (buffers[0, n)), offsets[] where each
 * was cut from: a placement of height `height`, which is also the max-live bound, so the
 * optimum is `height`. Deterministic for its arguments. ar_status_invalid_argument_k when n,
 * height or span is 0, past place.h's limits, or n > height x span. */
ar_status_t ar_workload_packing(size_t n, uint64_t seed, uint64_t height, uint64_t span,
                                ar_place_buffer_t *buffers, uint64_t *offsets);

#ifdef __cplusplus
}
#endif
#endif
