/* Zero-copy export of views (export.h): Arrow's C Data Interface and DLPack 0.6. Each export
 * is one heap record holding the structs a consumer reads (children, buffer tables, shape and
 * strides) and the arena it holds. Holding is a step on the arena's holder word (arena.c):
 * added by compare-and-swap while no call holds the word, dropped under the arena's lock with
 * a broadcast, so ar_arena_free, which sleeps on that lock, wakes when the last export ends.
 * A view is exported only if still current, checked again once held (a call cannot rewind
 * the arena after that). The schema record is separate and holds nothing: pyarrow releases
 * the schema as soon as it has read the type, the array only when its data dies. */
#include <dlpack/dlpack.h>
#include <stdio.h>
#include <stdlib.h>

#include "arenaref/export.h"
#include "internal.h"

/* ---- Holding the arena ----------------------------------------------------------------- */

/* The export's last touch of the arena: ar_arena_free may go on once the lock is given back. */
static void let_go(struct ar_arena_handle_t *arena) {
    pthread_mutex_lock(&arena->lock);
    __atomic_sub_fetch(&arena->holder, arp_holder_export_k, __ATOMIC_RELEASE);
    pthread_cond_broadcast(&arena->released);
    pthread_mutex_unlock(&arena->lock);
}

/* Holds the arena for a view: stale before or once held, contended while a call holds it.
 * Callers have refused a zeroed view (NULL arena or data) already. */
static ar_status_t hold_current(struct ar_arena_handle_t *arena, uint64_t epoch) {
    if (__atomic_load_n(&arena->epoch, __ATOMIC_ACQUIRE) != epoch) return ar_status_stale_k;
    int holder = __atomic_load_n(&arena->holder, __ATOMIC_RELAXED);
    do {
        if (holder & arp_holder_call_k) return ar_status_contended_k;
    } while (!__atomic_compare_exchange_n(&arena->holder, &holder, holder + arp_holder_export_k,
                                          true, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED));
    if (__atomic_load_n(&arena->epoch, __ATOMIC_ACQUIRE) != epoch) { /* rewound meanwhile */
        let_go(arena);
        return ar_status_stale_k;
    }
    return ar_status_success_k;
}

/* ---- Arrow ----------------------------------------------------------------------------- */

static char const *arrow_format(ar_scalar_t scalar) {
    switch (scalar) {
    case ar_scalar_f32_k: return "f";
    case ar_scalar_f16_k: return "e";
    case ar_scalar_bf16_k: return "S"; /* raw bits: Arrow has no bfloat16 */
    case ar_scalar_f64_k: return "g";
    case ar_scalar_i8_k: return "c";
    case ar_scalar_u8_k: return "C";
    case ar_scalar_u32_k: return "I";
    case ar_scalar_unknown_k: break;
    }
    return NULL;
}

/* Up to three levels: [large list] -> fixed-size list -> values. The caller's structs are the
 * top level; the record owns the ones below. */
enum { levels_k = 3 };

typedef struct schema_record_t {
    char list_format[32]; /* "+w:COLUMNS" */
    struct ArrowSchema nodes[levels_k - 1];
    struct ArrowSchema *links[levels_k - 1];
} schema_record_t;

typedef struct array_record_t {
    struct ar_arena_handle_t *arena;
    struct ArrowArray nodes[levels_k - 1];
    struct ArrowArray *links[levels_k - 1];
    void const *buffers[levels_k][2];
} array_record_t;

static void release_child_schema(struct ArrowSchema *schema) { schema->release = NULL; }
static void release_child_array(struct ArrowArray *array) { array->release = NULL; }

static void release_schema(struct ArrowSchema *schema) {
    free(schema->private_data);
    schema->release = NULL;
}

static void release_array(struct ArrowArray *array) {
    array_record_t *record = array->private_data;
    struct ar_arena_handle_t *arena = record->arena;
    free(record);
    array->release = NULL;
    let_go(arena);
}

/* The Arrow description of `depth` levels (2: a rows view, 3: a rows tape) over held data. */
static ar_status_t arrow_export(struct ar_arena_handle_t *arena, int depth, ar_scalar_t scalar,
                                size_t columns, size_t rows, size_t count, void const *data,
                                size_t const *offsets, struct ArrowSchema *schema,
                                struct ArrowArray *array) {
    schema_record_t *schema_record = calloc(1, sizeof *schema_record);
    array_record_t *array_record = calloc(1, sizeof *array_record);
    if (!schema_record || !array_record) {
        free(schema_record), free(array_record);
        return ar_status_out_of_memory_k;
    }
    snprintf(schema_record->list_format, sizeof schema_record->list_format, "+w:%zu", columns);
    /* Level i describes: 0 the top, depth - 1 the values. */
    char const *formats[levels_k] = {"+L", schema_record->list_format, arrow_format(scalar)};
    int64_t lengths[levels_k] = {(int64_t)count, (int64_t)rows, (int64_t)(rows * columns)};
    int first = levels_k - depth; /* a rows view starts at the fixed-size list */
    array_record->arena = arena;
    array_record->buffers[0][1] = offsets;
    array_record->buffers[2][1] = data;
    for (int level = first; level < levels_k; ++level) {
        bool top = level == first, values = level == levels_k - 1;
        struct ArrowSchema *node_schema = top ? schema : &schema_record->nodes[level - 1];
        struct ArrowArray *node_array = top ? array : &array_record->nodes[level - 1];
        *node_schema = (struct ArrowSchema){
            .format = formats[level],
            .name = top ? "" : "item",
            .n_children = values ? 0 : 1,
            .children = values ? NULL : &schema_record->links[level],
            .release = top ? release_schema : release_child_schema,
            .private_data = top ? schema_record : NULL,
        };
        *node_array = (struct ArrowArray){
            .length = lengths[level],
            .n_buffers = level == 1 ? 1 : 2, /* validity (none), then offsets or values */
            .n_children = values ? 0 : 1,
            .buffers = array_record->buffers[level],
            .children = values ? NULL : &array_record->links[level],
            .release = top ? release_array : release_child_array,
            .private_data = top ? array_record : NULL,
        };
        if (!values) {
            schema_record->links[level] = &schema_record->nodes[level];
            array_record->links[level] = &array_record->nodes[level];
        }
    }
    return ar_status_success_k;
}

static ar_status_t arrow_refuse(struct ArrowSchema *schema, struct ArrowArray *array,
                                ar_status_t status) {
    if (schema) schema->release = NULL;
    if (array) array->release = NULL;
    return status;
}

/* What Arrow cannot take zero-copy, before holding anything. */
static ar_status_t arrow_shape(struct ar_arena_handle_t const *arena, void const *data,
                               ar_scalar_t scalar, size_t columns, size_t stride) {
    if (!arena || !data) return ar_status_invalid_argument_k;
    if (!arrow_format(scalar)) return ar_status_invalid_argument_k;
    if (arena->residency != ar_residency_ram_k) return ar_status_device_k;
    if (columns == 0 || columns > INT32_MAX || stride != columns * ar_scalar_bytes(scalar))
        return ar_status_unsupported_k; /* Arrow's values are packed, its list size int32 */
    return ar_status_success_k;
}

/* Holds the view's arena and describes it (2 levels: rows; 3: a rows tape), or refuses. */
static ar_status_t arrow_hold_and_export(ar_status_t status, struct ar_arena_handle_t *arena,
                                         uint64_t epoch, int depth, ar_scalar_t scalar,
                                         size_t columns, size_t rows, size_t count,
                                         void const *data, size_t const *offsets,
                                         struct ArrowSchema *schema, struct ArrowArray *array) {
    if (status == ar_status_success_k) status = hold_current(arena, epoch);
    if (status != ar_status_success_k) return arrow_refuse(schema, array, status);
    status = arrow_export(arena, depth, scalar, columns, rows, count, data, offsets, schema, array);
    if (status != ar_status_success_k) {
        let_go(arena);
        return arrow_refuse(schema, array, status);
    }
    return ar_status_success_k;
}

ar_status_t ar_rows_view_to_arrow(ar_rows_view_t const *view, struct ArrowSchema *schema,
                                  struct ArrowArray *array) {
    if (!view || !schema || !array)
        return arrow_refuse(schema, array, ar_status_invalid_argument_k);
    ar_status_t status =
        arrow_shape(view->arena_, view->data, view->scalar, view->columns, view->stride);
    return arrow_hold_and_export(status, view->arena_, view->epoch_, 2, view->scalar, view->columns,
                                 view->count, view->count, view->data, NULL, schema, array);
}

ar_status_t ar_rows_tape_view_to_arrow(ar_rows_tape_view_t const *view, struct ArrowSchema *schema,
                                       struct ArrowArray *array) {
    if (!view || !schema || !array)
        return arrow_refuse(schema, array, ar_status_invalid_argument_k);
    ar_status_t status =
        arrow_shape(view->arena_, view->data, view->scalar, view->columns, view->stride);
    /* The offsets are the view's own, read as Arrow's int64: size_t must be 64 bits. */
    if (status == ar_status_success_k && (sizeof(size_t) != sizeof(int64_t) || !view->offsets))
        status = !view->offsets ? ar_status_invalid_argument_k : ar_status_unsupported_k;
    return arrow_hold_and_export(status, view->arena_, view->epoch_, 3, view->scalar, view->columns,
                                 view->rows, view->count, view->data, view->offsets, schema, array);
}

/* ---- DLPack ---------------------------------------------------------------------------- */

typedef struct dlpack_record_t {
    DLManagedTensor tensor;
    int64_t shape[2], strides[2];
    struct ar_arena_handle_t *arena;
} dlpack_record_t;

static void dlpack_delete(DLManagedTensor *tensor) {
    dlpack_record_t *record = tensor->manager_ctx;
    struct ar_arena_handle_t *arena = record->arena;
    free(record);
    let_go(arena);
}

static bool dlpack_type(ar_scalar_t scalar, DLDataType *type) {
    switch (scalar) {
    case ar_scalar_f32_k: *type = (DLDataType){kDLFloat, 32, 1}; return true;
    case ar_scalar_f16_k: *type = (DLDataType){kDLFloat, 16, 1}; return true;
    case ar_scalar_bf16_k: *type = (DLDataType){kDLBfloat, 16, 1}; return true;
    case ar_scalar_f64_k: *type = (DLDataType){kDLFloat, 64, 1}; return true;
    case ar_scalar_i8_k: *type = (DLDataType){kDLInt, 8, 1}; return true;
    case ar_scalar_u8_k: *type = (DLDataType){kDLUInt, 8, 1}; return true;
    case ar_scalar_u32_k: *type = (DLDataType){kDLUInt, 32, 1}; return true;
    case ar_scalar_unknown_k: break;
    }
    return false;
}

ar_status_t ar_rows_view_to_dlpack(ar_rows_view_t const *view, struct DLManagedTensor **tensor) {
    if (tensor) *tensor = NULL;
    if (!view || !tensor || !view->arena_ || !view->data) return ar_status_invalid_argument_k;
    DLDataType type;
    if (!dlpack_type(view->scalar, &type)) return ar_status_invalid_argument_k;
    size_t bytes = ar_scalar_bytes(view->scalar);
    if (view->stride % bytes || view->count > INT64_MAX || view->columns > INT64_MAX)
        return ar_status_unsupported_k;
    struct ar_arena_handle_t *arena = view->arena_;
    ar_status_t status = hold_current(arena, view->epoch_);
    if (status != ar_status_success_k) return status;
    dlpack_record_t *record = calloc(1, sizeof *record);
    if (!record) {
        let_go(arena);
        return ar_status_out_of_memory_k;
    }
    record->arena = arena;
    record->shape[0] = (int64_t)view->count, record->shape[1] = (int64_t)view->columns;
    record->strides[0] = (int64_t)(view->stride / bytes), record->strides[1] = 1;
    bool device = arena->residency == ar_residency_vram_k;
    record->tensor = (DLManagedTensor){
        .dl_tensor =
            {
                .data = view->data,
                .device = {device ? kDLCUDA : kDLCPU, device ? arena->device : 0},
                .ndim = 2,
                .dtype = type,
                .shape = record->shape,
                .strides = record->strides,
                .byte_offset = 0,
            },
        .manager_ctx = record,
        .deleter = dlpack_delete,
    };
    *tensor = &record->tensor;
    return ar_status_success_k;
}
