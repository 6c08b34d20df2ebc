/* Zero-copy export (export.h), checked on the structs themselves: Arrow's formats, lengths,
 * children and buffers point into the arena (no copy) for a rows view and a rows tape; DLPack's
 * shape, strides in elements, dtype and device; every scalar's mapping and name; the lifetime
 * rule (an export refuses calls on its arena with contended until released, several exports
 * may be held, ar_arena_free waits for the last); statuses for NULL, zeroed and stale views and
 * for an arena a call holds. The consumers (pyarrow, numpy, usearch) are tests/arena/consumers. */
#include <dlpack/dlpack.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include "arena_test_util.h"
#include "arena_testing.h"
#include "expect.h"

enum { dimensions = 8 }; /* 32-byte rows: a whole number of every scalar */

static ar_status_t encode(ar_arena_t arena, test_tape_t const *tape, ar_rows_view_t *embeddings,
                          ar_rows_tape_view_t *states) {
    ar_outcome_t outcome = {0};
    ar_text_encode(&(ar_text_encode_t){.arena = arena,
                                       .texts = tape->view,
                                       .dimensions = dimensions,
                                       .embeddings = embeddings,
                                       .states = states,
                                       .outcome = &outcome});
    return outcome.status;
}

typedef struct freer_t {
    ar_arena_t arena;
    int returned;
} freer_t;

static void *free_arena(void *argument) {
    freer_t *freer = argument;
    ar_arena_free(freer->arena);
    __atomic_store_n(&freer->returned, 1, __ATOMIC_RELEASE);
    return NULL;
}

static void check_scalars(ar_rows_view_t const *real) {
    struct {
        ar_scalar_t scalar;
        char const *name, *arrow;
        uint8_t code, bits;
    } const table[] = {
        {ar_scalar_f32_k, "f32", "f", kDLFloat, 32},    {ar_scalar_f16_k, "f16", "e", kDLFloat, 16},
        {ar_scalar_bf16_k, "bf16", "S", kDLBfloat, 16}, {ar_scalar_f64_k, "f64", "g", kDLFloat, 64},
        {ar_scalar_i8_k, "i8", "c", kDLInt, 8},         {ar_scalar_u8_k, "u8", "C", kDLUInt, 8},
        {ar_scalar_u32_k, "u32", "I", kDLUInt, 32},
    };
    for (size_t k = 0; k < sizeof table / sizeof table[0]; ++k) {
        /* The same bytes read as another scalar: packed rows of stride / bytes columns. */
        ar_rows_view_t view = *real;
        view.scalar = table[k].scalar;
        view.columns = real->stride / ar_scalar_bytes(table[k].scalar);
        expect_str_eq(ar_scalar_name(table[k].scalar), table[k].name);
        struct ArrowSchema schema;
        struct ArrowArray array;
        ar_status_t status = ar_rows_view_to_arrow(&view, &schema, &array);
        expect_int_eq(status, ar_status_success_k);
        if (status != ar_status_success_k) continue;
        expect_str_eq(schema.children[0]->format, table[k].arrow);
        expect_i64_eq(array.children[0]->length, (int64_t)(view.count * view.columns));
        schema.release(&schema);
        array.release(&array);
        DLManagedTensor *tensor = NULL;
        status = ar_rows_view_to_dlpack(&view, &tensor);
        expect_int_eq(status, ar_status_success_k);
        if (status != ar_status_success_k) continue;
        expect_int_eq(tensor->dl_tensor.dtype.code, table[k].code);
        expect_int_eq(tensor->dl_tensor.dtype.bits, table[k].bits);
        expect_int_eq(tensor->dl_tensor.dtype.lanes, 1);
        expect_i64_eq(tensor->dl_tensor.shape[1], (int64_t)view.columns);
        tensor->deleter(tensor);
    }
    expect_str_eq(ar_scalar_name(ar_scalar_unknown_k), "unknown");
    expect_str_eq(ar_scalar_name((ar_scalar_t)99), "unknown");
}

int main(void) {
    test_tape_t tape = test_tape_simple(9, 4);
    ar_arena_t arena = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &arena});
    ar_rows_view_t embeddings, stale_rows;
    ar_rows_tape_view_t states, stale_tape;
    require_true(encode(arena, &tape, &stale_rows, &stale_tape) == ar_status_success_k);
    require_true(encode(arena, &tape, &embeddings, &states) == ar_status_success_k);

    /* A rows view: +w:D of f, pointing at the view's rows. */
    struct ArrowSchema schema;
    struct ArrowArray array;
    expect_int_eq(ar_rows_view_to_arrow(&embeddings, &schema, &array), ar_status_success_k);
    expect_str_eq(schema.format, "+w:8");
    expect_i64_eq(schema.n_children, 1);
    expect_str_eq(schema.children[0]->format, "f");
    expect_str_eq(schema.children[0]->name, "item");
    expect_i64_eq(schema.children[0]->n_children, 0);
    expect_i64_eq(array.length, 9);
    expect_i64_eq(array.null_count, 0);
    expect_i64_eq(array.n_buffers, 1);
    expect_ptr_null(array.buffers[0]);
    expect_i64_eq(array.n_children, 1);
    expect_i64_eq(array.children[0]->length, 9 * dimensions);
    expect_i64_eq(array.children[0]->n_buffers, 2);
    expect_ptr_eq(array.children[0]->buffers[1], embeddings.data); /* zero-copy */
    expect_true(array.children[0]->release != NULL);
    schema.release(&schema);
    expect_ptr_null(schema.release);

    /* Held: calls on the arena are refused, the view stays current and its rows unchanged. */
    ar_rows_view_t other;
    expect_int_eq(encode(arena, &tape, &other, NULL), ar_status_contended_k);
    expect_ptr_null(other.data);
    expect_true(ar_rows_view_current(&embeddings));
    expect_size_eq(test_embedding_mismatches(&tape, &embeddings, dimensions), 0);

    /* A rows tape at the same time: +L of +w:D of f, the view's own offsets. */
    struct ArrowSchema tape_schema;
    struct ArrowArray tape_array;
    expect_int_eq(ar_rows_tape_view_to_arrow(&states, &tape_schema, &tape_array),
                  ar_status_success_k);
    expect_str_eq(tape_schema.format, "+L");
    expect_str_eq(tape_schema.children[0]->format, "+w:8");
    expect_str_eq(tape_schema.children[0]->children[0]->format, "f");
    expect_i64_eq(tape_array.length, 9);
    expect_i64_eq(tape_array.n_buffers, 2);
    expect_ptr_eq(tape_array.buffers[1], states.offsets); /* zero-copy int64 offsets */
    int64_t const *offsets = tape_array.buffers[1];
    expect_i64_eq(offsets[9], (int64_t)tape.total);
    expect_i64_eq(tape_array.children[0]->length, (int64_t)tape.total);
    expect_i64_eq(tape_array.children[0]->children[0]->length, (int64_t)tape.total * dimensions);
    expect_ptr_eq(tape_array.children[0]->children[0]->buffers[1], states.data);

    /* DLPack, a third export. */
    DLManagedTensor *tensor = NULL;
    expect_int_eq(ar_rows_view_to_dlpack(&embeddings, &tensor), ar_status_success_k);
    require_true(tensor != NULL);
    expect_ptr_eq(tensor->dl_tensor.data, embeddings.data);
    expect_int_eq(tensor->dl_tensor.device.device_type, kDLCPU);
    expect_int_eq(tensor->dl_tensor.ndim, 2);
    expect_i64_eq(tensor->dl_tensor.shape[0], 9);
    expect_i64_eq(tensor->dl_tensor.shape[1], dimensions);
    expect_i64_eq(tensor->dl_tensor.strides[0], (int64_t)(embeddings.stride / sizeof(float)));
    expect_i64_eq(tensor->dl_tensor.strides[1], 1);
    expect_int_eq(tensor->dl_tensor.dtype.code, kDLFloat);
    expect_u64_eq(tensor->dl_tensor.byte_offset, 0);

    /* Released one by one: the arena stays held until the last. */
    array.release(&array);
    expect_ptr_null(array.release);
    tape_array.release(&tape_array);
    tape_schema.release(&tape_schema);
    expect_int_eq(encode(arena, &tape, &other, NULL), ar_status_contended_k);
    tensor->deleter(tensor);
    expect_false(arp_testing_arena_held(arena));
    require_true(encode(arena, &tape, &embeddings, &states) == ar_status_success_k);

    /* Statuses: NULL arguments, zeroed and stale views; nothing to release on failure. */
    expect_int_eq(ar_rows_view_to_arrow(NULL, &schema, &array), ar_status_invalid_argument_k);
    expect_ptr_null(schema.release);
    expect_ptr_null(array.release);
    expect_int_eq(ar_rows_view_to_arrow(&embeddings, NULL, &array), ar_status_invalid_argument_k);
    expect_int_eq(ar_rows_tape_view_to_arrow(&states, &schema, NULL), ar_status_invalid_argument_k);
    expect_int_eq(ar_rows_view_to_dlpack(&embeddings, NULL), ar_status_invalid_argument_k);
    expect_int_eq(ar_rows_view_to_dlpack(NULL, &tensor), ar_status_invalid_argument_k);
    expect_ptr_null(tensor);
    ar_rows_view_t zeroed = {0};
    ar_rows_tape_view_t zeroed_tape = {0};
    expect_int_eq(ar_rows_view_to_arrow(&zeroed, &schema, &array), ar_status_invalid_argument_k);
    expect_int_eq(ar_rows_tape_view_to_arrow(&zeroed_tape, &schema, &array),
                  ar_status_invalid_argument_k);
    expect_int_eq(ar_rows_view_to_dlpack(&zeroed, &tensor), ar_status_invalid_argument_k);
    expect_int_eq(ar_rows_view_to_arrow(&stale_rows, &schema, &array), ar_status_stale_k);
    expect_ptr_null(schema.release);
    expect_int_eq(ar_rows_tape_view_to_arrow(&stale_tape, &schema, &array), ar_status_stale_k);
    expect_int_eq(ar_rows_view_to_dlpack(&stale_rows, &tensor), ar_status_stale_k);
    expect_str_eq(ar_status_name(ar_status_stale_k), "stale");
    expect_false(arp_testing_arena_held(arena)); /* refusals hold nothing */
    ar_rows_view_t padded = embeddings;
    padded.stride += 4; /* rows with a gap: not Arrow's packed values */
    expect_int_eq(ar_rows_view_to_arrow(&padded, &schema, &array), ar_status_unsupported_k);
    padded.stride += 1; /* not a whole number of floats */
    expect_int_eq(ar_rows_view_to_dlpack(&padded, &tensor), ar_status_unsupported_k);
    ar_rows_view_t unknown = embeddings;
    unknown.scalar = ar_scalar_unknown_k;
    expect_int_eq(ar_rows_view_to_arrow(&unknown, &schema, &array), ar_status_invalid_argument_k);
    expect_int_eq(ar_rows_view_to_dlpack(&unknown, &tensor), ar_status_invalid_argument_k);
    check_scalars(&embeddings);

    /* An arena a deferred call holds: contended. */
    ar_executor_t executor = NULL;
    ar_executor_init(&(ar_executor_init_t){
        .executor = &executor, .residency = ar_residency_ram_k, .device = -1});
    require_true(executor != NULL);
    ar_arena_t busy = NULL;
    ar_arena_init(&(ar_arena_init_t){.arena = &busy, .executor = executor});
    ar_rows_view_t busy_rows, queued_rows;
    ar_outcome_t outcome = {0};
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = busy,
                                       .texts = tape.view,
                                       .dimensions = dimensions,
                                       .embeddings = &busy_rows,
                                       .outcome = &outcome});
    require_true(outcome.status == ar_status_success_k);
    arp_testing_executor_pause(executor, true);
    ar_text_encode(&(ar_text_encode_t){.executor = executor,
                                       .arena = busy,
                                       .texts = tape.view,
                                       .dimensions = dimensions,
                                       .deferred = true,
                                       .embeddings = &queued_rows,
                                       .outcome = &outcome});
    busy_rows.epoch_ += 1; /* the queued call rewound the arena: a view as current as can be */
    expect_int_eq(ar_rows_view_to_dlpack(&busy_rows, &tensor), ar_status_contended_k);
    arp_testing_executor_pause(executor, false);
    expect_int_eq(ar_outcome_wait(&outcome), ar_status_success_k);
    ar_arena_free(busy);
    ar_executor_free(executor);

    /* ar_arena_free waits for the release. */
    expect_int_eq(ar_rows_view_to_arrow(&embeddings, &schema, &array), ar_status_success_k);
    schema.release(&schema);
    freer_t freer = {.arena = arena};
    pthread_t thread;
    require_true(pthread_create(&thread, NULL, free_arena, &freer) == 0);
    usleep(20000); /* a chance for free to run ahead (it must not); the check holds either way */
    expect_int_eq(__atomic_load_n(&freer.returned, __ATOMIC_ACQUIRE), 0);
    expect_size_eq(test_embedding_mismatches(&tape, &embeddings, dimensions), 0);
    array.release(&array);
    pthread_join(thread, NULL);
    expect_int_eq(freer.returned, 1);

    test_tape_free(&tape);
    return expect_finish();
}
