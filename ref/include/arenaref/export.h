/* arenaref: zero-copy export of a call's views to Apache Arrow's C Data Interface and to
 * DLPack, so pyarrow, numpy, PyTorch or a USearch index read the arena's rows where they lie.
 * An export holds its arena as a call does, until the consumer releases it (below). */
#ifndef ARENAREF_EXPORT_H
#define ARENAREF_EXPORT_H

#include <stdint.h>

#include "arenaref/arena.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The C Data Interface's two structs, declared by the producer as the specification says. */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    /* Array type description */
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;

    /* Release callback */
    void (*release)(struct ArrowSchema *);
    /* Opaque producer-specific data */
    void *private_data;
};

struct ArrowArray {
    /* Array data description */
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;

    /* Release callback */
    void (*release)(struct ArrowArray *);
    /* Opaque producer-specific data */
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

struct DLManagedTensor; /* <dlpack/dlpack.h> */

/* Lifetime: until the consumer runs the release callback of the ArrowArray (the ArrowSchema
 * holds no data and is released on its own) or the DLManagedTensor's deleter, a call naming
 * the view's arena is refused with ar_status_contended_k, so exported data never changes under
 * its reader, and ar_arena_free waits for it. Several exports of one arena may be held at
 * once; exporting from an arena a call holds is refused with contended. A release or deleter
 * may run on any thread, exactly once.
 *
 * Statuses (returned): invalid_argument (a NULL argument, a zeroed view: a failed call's or
 * never written, an unknown scalar), ar_status_stale_k (the view's arena was rewound by a
 * later call), contended, device (an Arrow export of device memory: the C Data Interface is
 * for host memory; DLPack exports a VRAM view as kDLCUDA), unsupported (rows not packed, for
 * Arrow; a stride that is not a whole number of scalars, for DLPack; more than 2^31 - 1
 * columns), out_of_memory. On failure the ArrowSchema's and ArrowArray's `release` are NULL
 * and `*tensor` is NULL: there is nothing to release.
 *
 * Arrow: a rows view is a fixed-size list `+w:COLUMNS` (one entry per row) of the scalar, a
 * rows tape a large list `+L` (64-bit offsets: the view's own, in rows, zero-copy) of that.
 * Scalars: f32 `f`, f16 `e`, f64 `g`, i8 `c`, u8 `C`, u32 `I`; bf16 has no Arrow type and goes
 * as its raw bits, uint16 `S`. No nulls; child fields are named "item".
 * DLPack (0.6; this header does not need `<dlpack/dlpack.h>`): a 2-D tensor [count, columns],
 * strides in elements [stride / scalar bytes, 1], dtypes kDLFloat 32/16/64, kDLBfloat 16,
 * kDLInt 8, kDLUInt 8/32, lanes 1; device kDLCPU 0, or kDLCUDA and the arena's GPU ordinal.
 *
 * USearch: ar_scalar_name() gives USearch's own scalar names ("f32", "f16", "bf16", "f64",
 * "i8"), which its Python `Index(dtype=...)` takes. Its C enum counts differently from
 * ar_scalar_t (v2.21: usearch_scalar_f32_k 1, f64 2, f16 3, i8 4, b1 5, bf16 6): map by name or
 * by this table, never by value. u8 and u32 have no USearch scalar there. */

/* Fills `schema` and `array` (caller-owned structs) with the rows view: no copy. */
ar_status_t ar_rows_view_to_arrow(ar_rows_view_t const *view, struct ArrowSchema *schema,
                                  struct ArrowArray *array);

/* Fills `schema` and `array` with the rows tape: a large list of its items' rows; no copy. */
ar_status_t ar_rows_tape_view_to_arrow(ar_rows_tape_view_t const *view, struct ArrowSchema *schema,
                                       struct ArrowArray *array);

/* Sets `*tensor` to a new DLManagedTensor over the rows view: no copy. */
ar_status_t ar_rows_view_to_dlpack(ar_rows_view_t const *view, struct DLManagedTensor **tensor);

#ifdef __cplusplus
}
#endif
#endif
