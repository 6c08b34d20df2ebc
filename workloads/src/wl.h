/* The generators' internals: one generation's state, the table entries that define a family
 * and a fault, and the calls families declare and emit through. A family declares globals,
 * phases and named planes (with loops over the phase order), the planner places them, and the
 * family emits launches, repeats and references into the plan, twice: once only counting, so
 * the plan reserves every array once, then for real from the same seed. Families record
 * sites (a launch, a phase) where faults plant their defects. */
#ifndef ARENAREF_WL_H
#define ARENAREF_WL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaref/plan.h"
#include "arenaref/workloads.h"
#include "common/u128.h"

#define ARP_WL_MAX_GLOBALS 16
#define ARP_WL_MAX_PHASES 96
#define ARP_WL_MAX_NAMES 120 /* with ARP_WL_MAX_TENSOR, any sum of sizes stays below 2^63 */
#define ARP_WL_MAX_PHASE_PLANES 12
#define ARP_WL_MAX_LOOPS 16
#define ARP_WL_MAX_SEGMENTS 34       /* training, recompute: ceil(L / floor(sqrt(L))), L <= 1024 */
#define ARP_WL_MAX_SKEWED_EXPERTS 16 /* moe, expert skew: two phases an expert a stage */
#define ARP_WL_MAX_SKEWED_MICRO 32   /* pipeline, micro skew: two phases a micro-batch */
#define ARP_WL_MAX_KV_WAVES 16       /* decoder, moe, paged over epochs: a phase a wave */
#define ARP_WL_KV_SPAN 3             /* ... a request lives 1 to 3 waves */
#define ARP_WL_WINDOW_BASE 0x7f0000000000ull
#define ARP_WL_ALIGNMENT 256u
#define ARP_WL_BF16 2u
#define ARP_WL_MAX_TENSOR (1ull << 56) /* so sums of 120 sizes stay below 2^63 */

typedef struct arp_wl_t arp_wl_t;

typedef struct arp_wl_model_t {
    char const *name;
    uint64_t layers, d, heads, kv_heads, ffn, vocab, experts, top_k;
    bool gated; /* a gated MLP (SwiGLU): the up projection holds two matrices */
} arp_wl_model_t;

/* A preset's knobs. `decode` is the loop's schedule references (generated tokens, steps or
 * batches), `epochs` the distinct bodies written for it, `layers` 0 keeps the model's, `micro`
 * the pipeline's micro-batches (0 elsewhere). */
typedef struct arp_wl_preset_t {
    char const *model;
    uint64_t layers, batch, seq, decode, epochs, micro;
    uint64_t ops, globals; /* the flat family's (0 elsewhere) */
} arp_wl_preset_t;

enum { ARP_WL_PRESETS = 4 }; /* tiny, small, medium, large */

/* A family: one table entry in its own file, family_NAME.c (CMake lists those files). */
typedef struct arp_wl_family_t {
    char const *name;
    arp_wl_preset_t presets[ARP_WL_PRESETS];
    bool needs_experts;            /* refuse models without experts */
    void (*declare)(arp_wl_t *wl); /* globals, phases, planes, loops, fault sites */
    void (*emit)(arp_wl_t *wl);    /* launches, repeats, references */
    /* Optional, for a family too large for the declaration tables above (flat): its declare
     * places its own ranges (and sets the window, workspace and bound), the planner is not
     * run, and this adds its globals, phases and planes to the plan. */
    ar_status_t (*ranges)(arp_wl_t *wl, ar_plan_t *plan);
    /* Optional: the faults that apply (NULL-terminated names); NULL: every fault. */
    char const *const *faults;
    /* The in-place kinds it takes (AR_WORKLOAD_IN_PLACE_*), and the one the fault that reads an
     * updated input plants in (it turns that kind on). */
    uint64_t in_place, in_place_fault;
} arp_wl_family_t;

/* Launch sites a family records for faults (launch indexes as written; SIZE_MAX: none). */
typedef enum arp_wl_site_t {
    ARP_WL_SITE_VICTIM,       /* a launch outside repeats with an unnamed address word */
    ARP_WL_SITE_LAYER_WEIGHT, /* the first layer body's launch reading weights at offset 0 */
    ARP_WL_SITE_FIRST_SCORES, /* the first launch (table order) of a phase carrying "mask" */
    ARP_WL_SITE_GHOST,        /* the first launch of the phase the ghost plane is added to */
    ARP_WL_SITE_PROBE,        /* a probe's launch whose word the hull rejects */
    ARP_WL_SITE_READ_AFTER,   /* the first launch of wl->read_after_phase */
    ARP_WL_SITE_CROSS,        /* the first launch of wl->cross_phase */
    ARP_WL_SITE_COUNT
} arp_wl_site_t;

/* Where a fault plants its defect. */
typedef enum arp_wl_stage_t {
    ARP_WL_PLACED,  /* in the declarations, once placed: globals and planes */
    ARP_WL_EMITTED, /* its own phase, launches and reference after the family's (a probe) */
    ARP_WL_BUILT,   /* in the built plan's launches and repeats */
} arp_wl_stage_t;

/* The verdict a fault gives, from its site: 1; 2 + i (i the site); 2 + n + k (k the instance
 * of the site's first run); or a probe's 2 + i that the exact oracle certifies (0). */
typedef enum arp_wl_verdict_t {
    ARP_WL_RANGES,
    ARP_WL_LAUNCH,
    ARP_WL_INSTANCE,
    ARP_WL_PROBE,
} arp_wl_verdict_t;

/* A fault: one entry of the table in faults.c. `declare` (optional) runs before placement;
 * `plant` at its stage, and returns false with wl->error set when the plan has no room. */
typedef struct arp_wl_fault_t {
    char const *name;
    arp_wl_stage_t stage;
    arp_wl_verdict_t verdict;
    arp_wl_site_t site; /* the launch the verdict names (unused for ARP_WL_RANGES) */
    uint64_t min_layers;
    void (*declare)(arp_wl_t *wl);
    bool (*plant)(arp_wl_t *wl);
    bool in_place; /* plants its defect in an in-place update: turns the family's kind on */
} arp_wl_fault_t;

typedef struct arp_wl_global_t {
    char name[32];
    uint64_t size, base, gap_after;
} arp_wl_global_t;

typedef struct arp_wl_plane_t {
    char name[32];
    uint64_t size, base;
    int first, last; /* lifetime over phase positions, after loop extension */
    bool persistent; /* lives from its first declaration to the end of the program */
    bool unplanned;  /* a fault's plane placed by hand, not by the planner */
    int host;        /* -1, or the plane an in-place update left this value over */
} arp_wl_plane_t;

typedef struct arp_wl_phase_t {
    char id[48];
    int planes[ARP_WL_MAX_PHASE_PLANES];
    bool carried[ARP_WL_MAX_PHASE_PLANES];
    int becomes[ARP_WL_MAX_PHASE_PLANES]; /* -1, or the plane a carried one is updated into */
    int count;
} arp_wl_phase_t;

typedef struct arp_wl_loop_t {
    int first, last; /* phase positions a repeat or a schedule loop runs over */
} arp_wl_loop_t;

/* Summary of an executed stretch, for counting phase instances arithmetically. */
typedef struct arp_wl_summary_t {
    bool empty;
    int first_phase, last_phase;
    arp_u128_t runs, launches;
} arp_wl_summary_t;

struct arp_wl_t {
    /* what to build */
    arp_wl_family_t const *family;
    arp_wl_fault_t const *fault; /* NULL: clean */
    arp_wl_model_t const *model;
    uint64_t layers, batch, seq, decode, epochs, micro, seed;
    uint64_t few;
    int strategy;         /* an ar_place_strategy_t */
    bool strategy_named;  /* given, and not the default: recorded in meta */
    bool recompute;       /* training: recompute the layers in backward, segment by segment */
    uint64_t expert_skew; /* moe: percent by which expert FFN widths may fall short (0: even) */
    uint64_t kv_page;     /* decoder, moe: tokens a KV page holds (0: one unpaged cache) */
    uint64_t micro_skew;  /* pipeline: percent by which micro-batches may fall short (0: even) */
    uint64_t in_place;    /* the in-place kinds made (AR_WORKLOAD_IN_PLACE_*, never _ALL) */
    uint64_t ops, globals_wanted; /* flat: ops and globals */

    /* declaration */
    arp_wl_global_t globals[ARP_WL_MAX_GLOBALS];
    int globals_count;
    arp_wl_phase_t phases[ARP_WL_MAX_PHASES];
    int phases_count;
    arp_wl_plane_t planes[ARP_WL_MAX_NAMES];
    int planes_count;
    arp_wl_loop_t loops[ARP_WL_MAX_LOOPS];
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
    int8_t *walk_slot[2]; /* -1, or the routed expert slot a frames repeat resolves */
    size_t walks_count[2], walks_capacity[2];
    ar_shift_t *frame; /* one frame being built */
    size_t frame_capacity;
    uint64_t rng;

    /* sites the family records for faults */
    size_t site[ARP_WL_SITE_COUNT];
    size_t layer_weight_word; /* the word of the layer-weight site the layers repeat walks */
    size_t layer_repeat;      /* the repeat (index) walking that word */
    int clobber_phase;        /* a phase run between mask's declaration and its first carrier */
    int ghost_phase;          /* the phase a ghost carried plane is added to */
    int read_after_phase;     /* the phase that reads the value an in-place update left (-1) */
    /* The in-place update a fault says reads across elements bytes it overwrites: its phase
     * (-1: none) and the plane's slot there; the plan gives it `reads`/`writes` that share
     * bytes (arp_wl_read_across). */
    int cross_phase, cross_slot;
    uint64_t layer_stride;    /* bytes one layer of params_layers spans */
    uint64_t expert_stride;   /* bytes one expert spans (moe) */
    int layers_global;
    int probe_phase, probe_a, probe_b; /* a probe's phase and its two planes */
    uint64_t segments;                 /* training with recompute: the backward's segments */
    uint64_t kv_waves, kv_groups;      /* paged KV over epochs: waves, page planes (0: none) */
    void *family_state;                /* the family's declarations, freed with the state */

    /* outcome */
    ar_status_t status;
    char error[256];
};

/* The tables, by name (NULL when unknown): registry.c, faults.c, models.c. */
arp_wl_family_t const *arp_wl_find_family(char const *name);
arp_wl_fault_t const *arp_wl_find_fault(char const *name);
arp_wl_model_t const *arp_wl_find_model(char const *name);
int arp_wl_preset_index(char const *name); /* 0 tiny .. 3 large, -1 unknown */

/* options.c: the options against the tables and limits; fills wl's what-to-build fields. */
ar_status_t arp_wl_resolve(ar_workload_options_t const *options, arp_wl_t *wl,
                           char const **preset_name, ar_plan_error_t *error);

/* builder.c: declaration */
uint64_t arp_wl_align(uint64_t value, uint64_t alignment);
void *arp_wl_family_state(arp_wl_t *wl, size_t size); /* allocated once, filled with 0xff */
int arp_wl_global(arp_wl_t *wl, char const *name, uint64_t size, uint64_t gap_after);
int arp_wl_phase(arp_wl_t *wl, char const *id);
int arp_wl_plane(arp_wl_t *wl, int phase, char const *name, uint64_t size, bool carried);
int arp_wl_plane_index(arp_wl_t const *wl, char const *name);
/* `phase` carries `plane` and updates it in place into the value `name` (same bytes); returns
 * the new value's plane, which later phases carry. `name` may be the plane's own (a write that
 * keeps the name) or the value it was itself updated from (a loop-carried pair). */
int arp_wl_becomes(arp_wl_t *wl, int phase, int plane, char const *name);
void arp_wl_persistent(arp_wl_t *wl, int plane);
/* The plane just added to `plan` (`size` bytes) reads across elements bytes it writes: a kernel
 * that shifts its buffer up by an eighth in place, reads [0, size - size/8) and writes
 * [size/8, size). */
ar_status_t arp_wl_read_across(ar_plan_t *plan, uint64_t size);
void arp_wl_loop(arp_wl_t *wl, int first_phase, int last_phase);
void arp_wl_fail(arp_wl_t *wl, ar_status_t status, char const *message);
uint64_t arp_wl_mix(uint64_t z); /* splitmix64's finaliser */
uint64_t arp_wl_random(arp_wl_t *wl);
uint64_t arp_wl_random_between(arp_wl_t *wl, uint64_t lo, uint64_t hi);

/* planner.c: lifetimes, offsets from the public planner (wl->strategy), the lower bound; lays
 * out the window */
void arp_wl_place(arp_wl_t *wl);

/* builder.c: emission */
uint64_t arp_wl_g(arp_wl_t const *wl, int global, uint64_t offset);
uint64_t arp_wl_p(arp_wl_t const *wl, int plane, uint64_t offset);
size_t arp_wl_launch(arp_wl_t *wl, char const *kernel, int phase, uint64_t const *words,
                     size_t count);
/* The same for a family that keeps its own phases (`ranges`): phase `phase` named `id`. */
size_t arp_wl_launch_in(arp_wl_t *wl, char const *kernel, int phase, char const *id,
                        uint64_t const *words, size_t count);
void arp_wl_walk(arp_wl_t *wl, int level, size_t launch, size_t word, int64_t delta, int slot);
/* A deltas repeat over a level's walks (which it then clears), or over a given list. */
size_t arp_wl_repeat_deltas(arp_wl_t *wl, int level, size_t first, size_t count,
                            uint64_t iterations);
size_t arp_wl_repeat_list(arp_wl_t *wl, size_t first, size_t count, uint64_t iterations,
                          ar_shift_t const *deltas, size_t deltas_count);
/* A frames repeat over the walks: frame i shifts each walk by i*delta, plus, for a routed
 * slot s, expert(i, s) * wl->expert_stride. */
size_t arp_wl_repeat_frames(arp_wl_t *wl, int level, size_t first, size_t count,
                            uint64_t iterations, uint64_t const *experts /* [it][top_k] */);
/* A frames repeat given frame by frame: `frame(wl, i, out)` writes frame i's `width` entries. */
size_t arp_wl_repeat_each(arp_wl_t *wl, size_t first, size_t count, uint64_t iterations,
                          size_t width, void (*frame)(void *, uint64_t, ar_shift_t *),
                          void *context);
void arp_wl_reference(arp_wl_t *wl, size_t first, size_t count);

/* count.c: executed launches and phase instances, arithmetically */
arp_wl_summary_t arp_wl_summarize_schedule(arp_wl_t const *wl, size_t stop_launch, bool *found);

#endif
