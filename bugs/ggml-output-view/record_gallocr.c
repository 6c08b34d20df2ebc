/* ggml-record-gallocr: the ggml-alloc output-view graph (S = scale(a), V = reshape(S),
 * set_output(V), W = scale(V), Y = add(W, W)) allocated by the vendored ggml's ggml_gallocr on
 * the CPU buffer type, run on the CPU backend, and written as an arena-trace/1
 * (workloads/runtimes/TRACE.md): the gallocr buffer is the arena, each non-view node a value at
 * its offset in it (a view folds into the tensor it views), each node an op, the outputs read
 * back. It also writes the input and what V and Y hold after the compute, for a reference
 * computed elsewhere. Exit: 0 ok, 2 a failure (the reason on stderr).
 *   ggml-record-gallocr TRACE.json VALUES.json */
#include <ggml-alloc.h>
#include <ggml-backend.h>
#include <ggml-cpu.h>
#include <ggml.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 16

static void die(const char *what) {
    fprintf(stderr, "ggml-record-gallocr: %s\n", what);
    exit(2);
}

static const struct ggml_tensor *root(const struct ggml_tensor *t) {
    while (t->view_src) t = t->view_src;
    return t;
}

static uint64_t offset_of(const struct ggml_tensor *t) {
    return (uint64_t)((const char *)t->data - (const char *)ggml_backend_buffer_get_base(t->buffer));
}

static void id_list(FILE *f, const struct ggml_tensor *const *ts, int n) {
    for (int i = 0; i < n; i++) fprintf(f, "%s\"%s\"", i ? "," : "", ggml_get_name(root(ts[i])));
}

int main(int argc, char **argv) {
    if (argc != 3) die("usage: ggml-record-gallocr TRACE.json VALUES.json");
    struct ggml_init_params ip = {ggml_tensor_overhead() * 64 + ggml_graph_overhead(), NULL, true};
    struct ggml_context *ctx = ggml_init(ip);
    if (!ctx) die("ggml_init failed");
    struct ggml_tensor *a = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, N);
    ggml_set_name(a, "a");
    ggml_set_input(a);
    struct ggml_tensor *S = ggml_scale(ctx, a, 2.0f);
    ggml_set_name(S, "S");
    struct ggml_tensor *V = ggml_reshape_2d(ctx, S, 4, 4);
    ggml_set_name(V, "V");
    ggml_set_output(V);
    struct ggml_tensor *W = ggml_scale(ctx, V, 3.0f);
    ggml_set_name(W, "W");
    struct ggml_tensor *Y = ggml_add(ctx, W, W);
    ggml_set_name(Y, "Y");
    ggml_set_output(Y);
    struct ggml_cgraph *gf = ggml_new_graph(ctx);
    ggml_build_forward_expand(gf, V);
    ggml_build_forward_expand(gf, Y);

    ggml_gallocr_t galloc = ggml_gallocr_new(ggml_backend_cpu_buffer_type());
    if (!ggml_gallocr_alloc_graph(galloc, gf)) die("ggml_gallocr_alloc_graph failed");
    ggml_backend_t cpu = ggml_backend_cpu_init();
    if (!cpu) die("ggml_backend_cpu_init failed");
    float in[N], v[N], y[N];
    for (int i = 0; i < N; i++) in[i] = (float)(i + 1);
    ggml_backend_tensor_set(a, in, 0, sizeof in);
    if (ggml_backend_graph_compute(cpu, gf) != GGML_STATUS_SUCCESS) die("the compute failed");
    ggml_backend_tensor_get(V, v, 0, sizeof v);
    ggml_backend_tensor_get(Y, y, 0, sizeof y);

    FILE *f = fopen(argv[1], "w");
    if (!f) die("cannot write the trace");
    size_t size = ggml_gallocr_get_buffer_size(galloc, 0);
    fprintf(f, "{\"format\":\"arena-trace/1\",\n\"runtime\":{\"name\":\"ggml-alloc\","
               "\"version\":\"ggml %s\",\"allocator\":\"ggml_gallocr, CPU buffer type\"},\n"
               "\"program\":{\"name\":\"output-view\",\"graph\":\"S = scale(a, 2); V = "
               "reshape(S); set_output(V); W = scale(V, 3); Y = add(W, W); set_output(Y)\"},\n"
               "\"alignment\":%zu,\n"
               "\"regions\":[{\"name\":\"compute\",\"kind\":\"arena\",\"size\":%zu,"
               "\"planned_size\":%zu}],\n\"values\":[",
            GGML_RECORD_VERSION, ggml_backend_buft_get_alignment(ggml_backend_cpu_buffer_type()),
            size, size);
    const struct ggml_tensor *vals[] = {a, S, W, Y};
    const char *labels[] = {"graph input", "viewed by graph output V", "", "graph output"};
    for (int i = 0; i < 4; i++) {
        const struct ggml_tensor *t = vals[i];
        if (!t->buffer || !t->data) die("a tensor has no bytes after allocation");
        fprintf(f, "%s\n{\"id\":\"%s\",\"region\":\"compute\",\"offset\":%" PRIu64
                   ",\"size\":%zu,\"label\":\"%s\"}",
                i ? "," : "", ggml_get_name(t), offset_of(t), ggml_nbytes(t), labels[i]);
    }
    fprintf(f, "],\n\"ops\":[\n{\"kernel\":\"upload\",\"label\":\"graph input a\","
               "\"writes\":[\"a\"]}");
    /* One op per node that runs a kernel; a view (V) runs none. A node on one of its sources'
     * bytes is an in-place update of it, as ggml-alloc planned. */
    for (int i = 0; i < ggml_graph_n_nodes(gf); i++) {
        struct ggml_tensor *n = ggml_graph_node(gf, i);
        if (n->view_src) continue;
        const struct ggml_tensor *src[GGML_MAX_SRC];
        int ns = 0;
        for (int k = 0; k < GGML_MAX_SRC && n->src[k]; k++) {
            const struct ggml_tensor *r = root(n->src[k]);
            int dup = 0;
            for (int q = 0; q < ns; q++) dup |= src[q] == r;
            if (!dup) src[ns++] = r;
        }
        const struct ggml_tensor *from = NULL;
        for (int k = 0; k < ns; k++)
            if (offset_of(src[k]) == offset_of(n) && ggml_nbytes(src[k]) == ggml_nbytes(n))
                from = src[k];
        fprintf(f, ",\n{\"kernel\":\"%s\",\"label\":\"%s\",\"reads\":[", ggml_op_name(n->op),
                ggml_get_name(n));
        id_list(f, src, ns);
        fprintf(f, "],\"writes\":[\"%s\"]", ggml_get_name(n));
        if (from)
            fprintf(f, ",\"updates\":[{\"from\":\"%s\",\"to\":\"%s\"}]", ggml_get_name(from),
                    ggml_get_name(n));
        fputs("}", f);
    }
    const struct ggml_tensor *outs[] = {V, Y};
    fprintf(f, ",\n{\"kernel\":\"readback\",\"label\":\"graph outputs V, Y\",\"reads\":[");
    id_list(f, outs, 2);
    fputs("]}]}\n", f);
    if (fclose(f) != 0) die("writing the trace failed");

    f = fopen(argv[2], "w");
    if (!f) die("cannot write the values");
    const float *arr[] = {in, v, y};
    const char *names[] = {"a", "V", "Y"};
    fputs("{", f);
    for (int k = 0; k < 3; k++) {
        fprintf(f, "%s\"%s\":[", k ? "," : "", names[k]);
        for (int i = 0; i < N; i++) fprintf(f, "%s%.9g", i ? "," : "", arr[k][i]);
        fputs("]", f);
    }
    fputs("}\n", f);
    if (fclose(f) != 0) die("writing the values failed");
    ggml_backend_free(cpu);
    ggml_gallocr_free(galloc);
    ggml_free(ctx);
    return 0;
}
