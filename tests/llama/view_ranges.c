/* The recorder's reads/writes for a kernel writing one view of a compute value from another view
 * of it (emit_view_ranges in record.c): no libllama graph here makes one, so the node is built by
 * hand. Prints one update's ranges per case; test_llama.sh checks them. */
#define main record_main
#include "../../workloads/runtimes/llama/record.c"
#undef main

static void one(node *n, value *x, vtab *local) {
    fputs("{", out);
    emit_view_ranges(n, x, local, "p");
    fputs("}\n", out);
}

int main(void) {
    static int buffer;
    out = stdout;
    regions[0].buf = (ggml_backend_buffer_t)&buffer; /* the compute buffer, without a backend */
    regions[0].kind = "arena";
    nregions = 1;
    vtab local = {0};
    value *x = add(&local);
    x->key = &buffer;
    x->size = 256;
    snprintf(x->id, sizeof x->id, "X");
    tref view = {.key = &buffer, .buf = (ggml_backend_buffer_t)&buffer, .root_size = 256,
                 .is_view = 1};
    node n = {.nsrc = 2};
    snprintf(n.op, sizeof n.op, "CPY");
    n.dst = view, n.dst.off = 64, n.dst.nbytes = 64;       /* writes X[64, 128) */
    n.src[0] = view, n.src[0].off = 32, n.src[0].nbytes = 64; /* from X[32, 96): across */
    n.src[1] = n.dst;                                       /* the written view: elementwise */
    one(&n, x, &local);
    n.nsrc = 1, n.src[0] = n.dst; /* an _inplace op on a view: nothing said */
    one(&n, x, &local);
    return 0;
}
