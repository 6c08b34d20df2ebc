/* The generators' shared machinery (not public): a workload is declared as globals, phases and
 * named planes (with their lifetimes over the program's phase order), the planes are placed by
 * the greedy-by-size planner, and then the family emits launches, repeats and references
 * straight into an ar_plan_t. Emission runs twice: once only counting (so the plan can reserve
 * every array once) and once for real, from the same seed. */
#ifndef ARENAREF_WL_INTERNAL_H
#define ARENAREF_WL_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaref/plan.h"
#include "arenaref/workloads.h"

#define WL_MAX_GLOBALS 16
#define WL_MAX_PHASES 96
#define WL_MAX_NAMES 96
#define WL_MAX_PHASE_PLANES 12
#define WL_MAX_LOOPS 16
#define WL_WINDOW_BASE 0x7f0000000000ull
#define WL_ALIGNMENT 256u
#define WL_BF16 2u
#define WL_MAX_TENSOR (1ull << 56) /* so sums of a hundred sizes stay below 2^63 */

typedef struct wl_model_t {
    char const *name;
    uint64_t layers, d, heads, kv_heads, ffn, vocab, experts, top_k;
    bool gated; /* a gated MLP (SwiGLU): the up projection holds two matrices */
} wl_model_t;

typedef struct wl_preset_t {
    char const *model;
    uint64_t layers, batch, seq, decode, epochs; /* layers 0: the model's */
} wl_preset_t;

typedef struct wl_global_t {
    char name[32];
    uint64_t size, base, gap_after;
} wl_global_t;

typedef struct wl_plane_t {
    char name[32];
    uint64_t size, base;
    int first, last;  /* lifetime over phase positions, after loop extension */
    bool persistent;  /* lives from its first declaration to the end of the program */
    bool unplanned;   /* a fault's plane placed by hand, not by the planner */
} wl_plane_t;

typedef struct wl_phase_t {
    char id[48];
    int planes[WL_MAX_PHASE_PLANES];
    bool carried[WL_MAX_PHASE_PLANES];
    int count;
} wl_phase_t;

typedef struct wl_loop_t {
    int first, last; /* phase positions a repeat or a schedule loop runs over */
} wl_loop_t;

/* Summary of an executed stretch, for counting phase instances arithmetically. */
typedef struct wl_summary_t {
    bool empty;
    int first_phase, last_phase;
    unsigned __int128 runs, launches;
} wl_summary_t;

typedef struct wl_t {
    /* what to build */
    char const *family, *fault;
    wl_model_t const *model;
    uint64_t layers, batch, seq, decode, epochs, micro, seed;
    uint64_t few;

    /* declaration */
    wl_global_t globals[WL_MAX_GLOBALS];
    int globals_count;
    wl_phase_t phases[WL_MAX_PHASES];
    int phases_count;
    wl_plane_t planes[WL_MAX_NAMES];
    int planes_count;
    wl_loop_t loops[WL_MAX_LOOPS];
    int loops_count;

    /* placement */
    uint64_t window_base, window_size, workspace_base, workspace_bytes, lower_bound, slack_base;

    /* emission */
    ar_plan_t *plan;
    bool counting;
    size_t launches_count, words_count, shifts_count, repeats_count, references_count;
    int32_t *launch_phase; /* the phase position of each launch (real pass only) */
    /* The walks of the repeat bodies being emitted: level 0 an outer repeat (micro-batches),
     * level 1 the layers. */
    ar_shift_t *walks[2];
    int8_t *walk_slot[2];  /* -1, or the routed expert slot a frames repeat resolves */
    size_t walks_count[2], walks_capacity[2];
    ar_shift_t *frame;     /* one frame being built */
    size_t frame_capacity;
    uint64_t rng;

    /* sites the family records for faults (launch indexes as written; SIZE_MAX: none) */
    size_t site_victim;        /* a launch outside repeats with an unnamed address word */
    size_t site_layer_weight;  /* the first layer body's launch reading layer weights at offset 0 */
    size_t site_layer_weight_word;
    size_t site_layer_repeat;  /* the repeat (index) walking that word */
    size_t site_first_scores;  /* first launch (table order) of a phase carrying "mask" */
    int site_clobber_phase;    /* a phase run between mask's declaration and that launch */
    size_t site_ghost_launch;  /* first launch of the phase the ghost plane is added to */
    int site_ghost_phase;
    uint64_t layer_stride;     /* bytes one layer of params_layers spans */
    uint64_t expert_stride;    /* bytes one expert spans (moe) */
    int layers_global;
    void *family_state; /* families.c's declarations, freed by generate.c */

    /* outcome */
    ar_status_t status;
    char error[256];
} wl_t;

/* models.c */
wl_model_t const *wl_find_model(char const *name);
bool wl_find_preset(char const *family, char const *preset, wl_preset_t *out);
uint64_t wl_preset_micro(char const *family, char const *preset);
int wl_family_index(char const *family);
int wl_fault_index(char const *fault);

/* builder.c: declaration */
uint64_t wl_align(uint64_t value, uint64_t alignment);
int wl_global(wl_t *wl, char const *name, uint64_t size, uint64_t gap_after);
int wl_phase(wl_t *wl, char const *id);
int wl_plane(wl_t *wl, int phase, char const *name, uint64_t size, bool carried);
int wl_plane_index(wl_t const *wl, char const *name);
void wl_persistent(wl_t *wl, int plane);
void wl_loop(wl_t *wl, int first_phase, int last_phase);
void wl_fail(wl_t *wl, ar_status_t status, char const *message);
uint64_t wl_random(wl_t *wl);
uint64_t wl_random_between(wl_t *wl, uint64_t lo, uint64_t hi);

/* planner.c: lifetimes, greedy-by-size offsets, the lower bound; lays out the window */
void wl_place(wl_t *wl);

/* builder.c: emission */
uint64_t wl_g(wl_t const *wl, int global, uint64_t offset);
uint64_t wl_p(wl_t const *wl, int plane, uint64_t offset);
size_t wl_launch(wl_t *wl, char const *kernel, int phase, uint64_t const *words, size_t count);
void wl_walk(wl_t *wl, int level, size_t launch, size_t word, int64_t delta, int slot);
/* A deltas repeat over a level's walks (which it then clears), or over a given list. */
size_t wl_repeat_deltas(wl_t *wl, int level, size_t first, size_t count, uint64_t iterations);
size_t wl_repeat_list(wl_t *wl, size_t first, size_t count, uint64_t iterations,
                      ar_shift_t const *deltas, size_t deltas_count);
/* A frames repeat over the walks: frame i shifts each walk by i*delta, plus, for a routed
 * slot s, expert(i, s) * wl->expert_stride. */
size_t wl_repeat_frames(wl_t *wl, int level, size_t first, size_t count, uint64_t iterations,
                        uint64_t const *experts /* [iterations][top_k] or NULL */);
void wl_reference(wl_t *wl, size_t first, size_t count);

/* builder.c: counting */
wl_summary_t wl_summarize_schedule(wl_t const *wl, size_t stop_launch, bool *found);

/* families.c */
void wl_declare_family(wl_t *wl);
void wl_emit_family(wl_t *wl);

#endif
