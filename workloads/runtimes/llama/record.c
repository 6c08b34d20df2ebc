/* llama-record: runs a GGUF model on llama.cpp's CPU backend through libllama's public API (a
 * prompt of N tokens, then T one-token decode steps) and writes what ggml-alloc planned as an
 * arena-trace/1 (workloads/runtimes/TRACE.md). The eval callback asks for every node, so the
 * scheduler runs them one at a time and reports each: its op, data pointer, sources and sizes.
 * Buffers become regions (weights, kv, the compute buffer), tensors values keyed by the struct
 * address of the tensor they view; each step is checked against the first decode step (node
 * list and addresses) and the decode steps are written once, as a loop of T iterations.
 * Exit: 0 ok, 2 a model or setting it cannot record, or bad usage. */
#include <ggml-backend.h>
#include <ggml.h>
#include <llama.h>

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SRC GGML_MAX_SRC

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("llama-record: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static void *xrealloc(void *p, size_t n) {
    p = realloc(p, n);
    if (!p) die("out of memory");
    return p;
}

/* A tensor as the callback saw it: its root (the tensor it views, or itself), the byte offset
 * into the root, and the root's buffer, offset and size. */
typedef struct {
    const void *key; /* the root tensor's struct address */
    uint64_t off;    /* view offset into the root */
    ggml_backend_buffer_t buf;
    uint64_t root_off, root_size; /* the root's offset in its buffer and its bytes */
    uint64_t nbytes;              /* this tensor's bytes */
    char name[GGML_MAX_NAME];     /* the root's name */
    int is_view;
} tref;

typedef struct {
    char op[32];
    const void *self;
    tref dst;
    int nsrc;
    tref src[MAX_SRC];
    int empty, output;
} node;

typedef struct {
    node *n;
    int len, cap;
} step;

static step *steps;
static int nsteps, capsteps;

static tref ref_of(const struct ggml_tensor *t) {
    tref r = {0};
    const struct ggml_tensor *root = t->view_src ? t->view_src : t;
    r.key = root;
    r.off = t->view_src ? t->view_offs : 0;
    r.buf = root->buffer;
    r.nbytes = ggml_nbytes(t);
    r.root_size = ggml_nbytes(root);
    r.is_view = t->view_src != NULL;
    snprintf(r.name, sizeof r.name, "%s", root->name);
    if (!root->buffer || !root->data)
        die("tensor '%s' has no buffer: not allocated by the CPU backend", root->name);
    r.root_off = (uint64_t)((const char *)root->data -
                            (const char *)ggml_backend_buffer_get_base(root->buffer));
    if (t->view_src && (const char *)t->data != (const char *)root->data + t->view_offs)
        die("view '%s' does not lie at its source's data + view_offs", t->name);
    return r;
}

static bool on_eval(struct ggml_tensor *t, bool ask, void *user) {
    (void)user;
    if (ask) return true;
    step *s = &steps[nsteps - 1];
    if (s->len == s->cap)
        s->n = xrealloc(s->n, (size_t)(s->cap = s->cap ? 2 * s->cap : 256) * sizeof(node));
    node *n = &s->n[s->len++];
    memset(n, 0, sizeof *n);
    snprintf(n->op, sizeof n->op, "%s", ggml_op_desc(t));
    n->self = t;
    n->dst = ref_of(t);
    n->empty = t->op == GGML_OP_NONE || t->op == GGML_OP_VIEW || t->op == GGML_OP_RESHAPE ||
               t->op == GGML_OP_PERMUTE || t->op == GGML_OP_TRANSPOSE;
    n->output = (t->flags & GGML_TENSOR_FLAG_OUTPUT) != 0;
    for (int i = 0; i < MAX_SRC; i++)
        if (t->src[i]) n->src[n->nsrc++] = ref_of(t->src[i]);
    return true;
}

static void new_step(void) {
    if (nsteps == capsteps)
        steps = xrealloc(steps, (size_t)(capsteps = capsteps ? 2 * capsteps : 8) * sizeof(step));
    memset(&steps[nsteps++], 0, sizeof(step));
}

/* ---- regions ---- */
typedef struct {
    ggml_backend_buffer_t buf;
    const char *kind;
    char name[16];
} region;
static region regions[8];
static int nregions;

static int region_of(const tref *r) {
    for (int i = 0; i < nregions; i++)
        if (regions[i].buf == r->buf) return i;
    if (nregions == 8) die("more than 8 buffers: not a CPU-only model");
    region *g = &regions[nregions];
    g->buf = r->buf;
    enum ggml_backend_buffer_usage u = ggml_backend_buffer_get_usage(r->buf);
    if (u == GGML_BACKEND_BUFFER_USAGE_WEIGHTS)
        g->kind = "weights";
    else if (u == GGML_BACKEND_BUFFER_USAGE_COMPUTE)
        g->kind = "arena";
    else if (!strncmp(r->name, "cache_", 6))
        g->kind = "kv";
    else
        die("tensor '%s' lies in a buffer that is neither weights, the KV cache nor the compute "
            "buffer",
            r->name);
    for (int i = 0; i < nregions; i++)
        if (!strcmp(regions[i].kind, g->kind))
            die("two %s buffers (tensor '%s'): the trace holds one region of each kind", g->kind,
                r->name);
    snprintf(g->name, sizeof g->name, "%s", !strcmp(g->kind, "arena") ? "compute" : g->kind);
    return nregions++;
}

/* ---- values of one step ---- */
typedef struct {
    const void *key;
    char id[GGML_MAX_NAME + 16];
    int region;
    uint64_t off, size;
    int global, written;
} value;

typedef struct {
    value *v;
    int len, cap;
} vtab;

static vtab globals_tab; /* weights and KV: shared by every step */

static value *find(vtab *t, const void *key) {
    for (int i = t->len - 1; i >= 0; i--)
        if (t->v[i].key == key) return &t->v[i];
    return NULL;
}

static value *add(vtab *t) {
    if (t->len == t->cap)
        t->v = xrealloc(t->v, (size_t)(t->cap = t->cap ? 2 * t->cap : 256) * sizeof(value));
    value *v = &t->v[t->len++];
    memset(v, 0, sizeof *v);
    return v;
}

static FILE *out;
static int nops;

static void emit_ref(const value *v, uint64_t off, int *first) {
    fprintf(out, "%s{\"value\":\"%s\",\"offset\":%" PRIu64 "}", *first ? "" : ",", v->id, off);
    *first = 0;
}

/* The value a reference names (a global, or one of this step's values); sources that no node of
 * the step wrote and that lie in the compute buffer are the step's graph inputs. */
static value *lookup(vtab *local, const tref *r, const char *prefix, int *is_input) {
    int g = region_of(r);
    value *v = strcmp(regions[g].kind, "arena") ? find(&globals_tab, r->key) : find(local, r->key);
    if (v) return v;
    if (strcmp(regions[g].kind, "arena")) {
        v = add(&globals_tab);
        v->global = 1;
        snprintf(v->id, sizeof v->id, "%s:%s", regions[g].kind, r->name);
        for (int i = 0; i < globals_tab.len - 1; i++)
            if (!strcmp(globals_tab.v[i].id, v->id))
                die("two %s tensors named '%s'", regions[g].kind, r->name);
    } else {
        v = add(local);
        snprintf(v->id, sizeof v->id, "%s.in%d:%s", prefix, local->len - 1, r->name);
        if (is_input) *is_input = 1;
    }
    v->key = r->key;
    v->region = g;
    v->off = r->root_off;
    v->size = r->root_size;
    return v;
}

typedef struct {
    int nodes, kernels, views, inplace, fused;
} counts;

/* A kernel writing through a view of a value while it reads another part of that value (a
 * ggml_cpy or ggml_set from one view of a buffer into another) reads it across elements: the
 * update says the bytes of each such source view (from its first byte to its last: a strided
 * view's hull) as reads and the written view's as writes. A source that is the written view itself
 * is read element by element (an _inplace op on a view); ggml's in-place kernels that read across
 * a row (RMS_NORM, SOFT_MAX, ROPE's pairs) read it whole before writing it, and say nothing. */
static void emit_view_ranges(const node *n, const value *dst, vtab *local, const char *prefix) {
    int nreads = 0;
    for (int k = 0; k < n->nsrc; k++) {
        const tref *r = &n->src[k];
        if (lookup(local, r, prefix, NULL) != dst || !r->nbytes) continue;
        if (r->off == n->dst.off && r->nbytes == n->dst.nbytes) continue;
        if (r->off + r->nbytes > dst->size) die("view of '%s' runs past it", dst->id);
        fprintf(out, "%s{\"offset\":%" PRIu64 ",\"size\":%" PRIu64 "}",
                nreads++ ? "," : ",\"reads\":[", r->off, r->nbytes);
    }
    if (!nreads) return;
    if (n->dst.off + n->dst.nbytes > dst->size || !n->dst.nbytes)
        die("view of '%s' written by %s runs past it", dst->id, n->op);
    fprintf(out, "],\"writes\":[{\"offset\":%" PRIu64 ",\"size\":%" PRIu64 "}]", n->dst.off,
            n->dst.nbytes);
}

/* Writes the ops of step s (an upload of its graph inputs, one op per kernel node, the readback
 * of its outputs) into the trace; its values go to *local. */
static counts emit_step(const step *s, const char *prefix, vtab *local, int *first_op) {
    counts c = {0};
    /* pass 1: name the values the nodes write, in node order */
    for (int j = 0; j < s->len; j++) {
        const node *n = &s->n[j];
        c.nodes++;
        if (n->empty) {
            c.views++;
            continue;
        }
        c.kernels++;
        if (n->dst.is_view) continue; /* a write through a view: into the viewed value */
        int g = region_of(&n->dst);
        if (strcmp(regions[g].kind, "arena"))
            continue; /* into a global (not from a view): named later */
        value *v = add(local);
        v->key = n->dst.key;
        v->region = g;
        v->off = n->dst.root_off;
        v->size = n->dst.root_size;
        v->written = 1;
        snprintf(v->id, sizeof v->id, "%s.n%d:%s", prefix, j, n->dst.name);
    }
    /* graph inputs: compute-buffer sources no node writes */
    int ninputs = 0, inputs_cap = 0;
    value **inputs = NULL;
    for (int j = 0; j < s->len; j++)
        for (int k = 0; k < s->n[j].nsrc; k++) {
            int is_input = 0;
            value *v = lookup(local, &s->n[j].src[k], prefix, &is_input);
            if (is_input) {
                if (ninputs == inputs_cap)
                    inputs =
                        xrealloc(inputs, (size_t)(inputs_cap = inputs_cap ? 2 * inputs_cap : 16) *
                                             sizeof *inputs);
                inputs[ninputs++] = v;
            }
        }
    /* the uses of each compute value, for the fusion count */
    fprintf(out, "%s\n{\"kernel\":\"upload\",\"reads\":[],\"writes\":[", *first_op ? "" : ",");
    for (int i = 0; i < ninputs; i++) fprintf(out, "%s\"%s\"", i ? "," : "", inputs[i]->id);
    fputs("]}", out);
    *first_op = 0;
    nops++;
    free(inputs);
    for (int j = 0; j < s->len; j++) {
        const node *n = &s->n[j];
        if (n->empty) continue;
        value *dst = lookup(local, &n->dst, prefix, NULL);
        /* in place: a node of its own (not a view) at a compute source's bytes */
        const value *from = NULL;
        if (!n->dst.is_view && !dst->global)
            for (int k = 0; k < n->nsrc; k++) {
                value *sv = lookup(local, &n->src[k], prefix, NULL);
                if (sv != dst && !sv->global && sv->region == dst->region && sv->off == dst->off) {
                    if (sv->size != dst->size)
                        die("node %d (%s '%s') writes over '%s' in place with %" PRIu64
                            " bytes against %" PRIu64,
                            j, n->op, n->dst.name, sv->id, dst->size, sv->size);
                    from = sv;
                }
            }
        /* the label is the node's ggml name: its phase reads "12:MUL_MAT (Qcur-0)" */
        fprintf(out, ",\n{\"kernel\":\"%s\",\"label\":\"%s\",\"reads\":[", n->op, n->dst.name);
        int first = 1, self_update = 0;
        for (int k = 0; k < n->nsrc; k++) {
            value *sv = lookup(local, &n->src[k], prefix, NULL);
            int dup = 0;
            for (int q = 0; q < k; q++) dup |= lookup(local, &n->src[q], prefix, NULL) == sv;
            if (dup || (sv == dst && dst->global))
                continue; /* a global written in place: words only */
            if (sv == dst) self_update = 1;
            fprintf(out, "%s\"%s\"", first ? "" : ",", sv->id);
            first = 0;
        }
        fprintf(out, "],\"writes\":[\"%s\"]", dst->id);
        if (self_update) {
            fprintf(out, ",\"updates\":[{\"from\":\"%s\",\"to\":\"%s\"", dst->id, dst->id);
            emit_view_ranges(n, dst, local, prefix);
            fputs("}]", out);
        } else if (from) {
            fprintf(out, ",\"updates\":[{\"from\":\"%s\",\"to\":\"%s\"}]", from->id, dst->id);
            c.inplace++;
        }
        if (!strcmp(n->op, "RMS_NORM") && j + 1 < s->len && !strcmp(s->n[j + 1].op, "MUL")) {
            int uses = 0; /* ggml-cpu fuses RMS_NORM+MUL when the MUL is the norm's only reader */
            for (int q = j + 1; q < s->len; q++)
                for (int k = 0; k < s->n[q].nsrc; k++) uses += s->n[q].src[k].key == n->dst.key;
            if (uses == 1 && !n->output) c.fused++;
        }
        fputs(",\"words\":[", out);
        first = 1;
        emit_ref(dst, n->dst.off, &first);
        for (int k = 0; k < n->nsrc; k++)
            emit_ref(lookup(local, &n->src[k], prefix, NULL), n->src[k].off, &first);
        fputs("]}", out);
        nops++;
    }
    fputs(",\n{\"kernel\":\"readback\",\"reads\":[", out);
    int first = 1;
    for (int j = 0; j < s->len; j++)
        if (s->n[j].output) {
            fprintf(out, "%s\"%s\"", first ? "" : ",",
                    lookup(local, &s->n[j].dst, prefix, NULL)->id);
            first = 0;
        }
    fputs("],\"writes\":[]}", out);
    nops++;
    return c;
}

/* The decode steps must repeat: same node list, same addresses and sizes. */
static void check_same(const step *a, const step *b, int k) {
    if (a->len != b->len)
        die("decode step %d has %d nodes, step 0 has %d: the steps do not repeat", k, b->len,
            a->len);
    for (int j = 0; j < a->len; j++) {
        const node *x = &a->n[j], *y = &b->n[j];
        int same = !strcmp(x->op, y->op) && x->nsrc == y->nsrc && x->dst.buf == y->dst.buf &&
                   x->dst.root_off == y->dst.root_off && x->dst.off == y->dst.off &&
                   x->dst.nbytes == y->dst.nbytes;
        for (int q = 0; same && q < x->nsrc; q++)
            same = x->src[q].buf == y->src[q].buf && x->src[q].root_off == y->src[q].root_off &&
                   x->src[q].off == y->src[q].off && x->src[q].nbytes == y->src[q].nbytes;
        if (!same)
            die("decode step %d differs from step 0 at node %d (%s '%s'): the steps do not repeat",
                k, j, y->op, y->dst.name);
    }
}

static void quiet(enum ggml_log_level level, const char *text, void *user) {
    (void)user;
    if (level == GGML_LOG_LEVEL_ERROR || level == GGML_LOG_LEVEL_WARN) fputs(text, stderr);
}

static long parse_num(const char *opt, const char *s, long lo, long hi) {
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || v < lo || v > hi)
        die("%s %s: expected an integer in [%ld, %ld]", opt, s, lo, hi);
    return v;
}

int main(int argc, char **argv) {
    const char *model_path = NULL, *out_path = "-", *commit = "unknown";
    long prompt = 4, tokens = 1;
    int flash = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--prompt") && v)
            prompt = parse_num(a, argv[++i], 1, 4096);
        else if (!strcmp(a, "--tokens") && v)
            tokens = parse_num(a, argv[++i], 1, 4096);
        else if (!strcmp(a, "--flash-attn") && v) {
            flash = !strcmp(v, "on") ? 1 : !strcmp(v, "off") ? 0 : -1;
            if (flash < 0) die("--flash-attn %s: expected on or off", v);
            i++;
        } else if (!strcmp(a, "--out") && v)
            out_path = argv[++i];
        else if (!strcmp(a, "--commit") && v)
            commit = argv[++i];
        else if (a[0] != '-' && !model_path)
            model_path = a;
        else
            die("usage: llama-record MODEL.gguf [--prompt N] [--tokens T] [--flash-attn on|off] "
                "[--out TRACE.json]");
    }
    if (!model_path)
        die("usage: llama-record MODEL.gguf [--prompt N] [--tokens T] [--flash-attn on|off] [--out "
            "TRACE.json]");
    FILE *probe = fopen(model_path, "rb");
    if (!probe) die("%s: cannot open", model_path);
    fclose(probe);

    llama_log_set(quiet, NULL);
    llama_backend_init();
    struct llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    mp.load_mode = LLAMA_LOAD_MODE_NONE;
    mp.use_extra_bufts = false; /* no weight repacking: the weights stay one buffer */
    struct llama_model *model = llama_model_load_from_file(model_path, mp);
    if (!model)
        die("%s: llama.cpp cannot load it as a GGUF model (see the message above)", model_path);
    const struct llama_vocab *vocab = llama_model_get_vocab(model);
    int n_vocab = llama_vocab_n_tokens(vocab);
    if (n_vocab < 1) die("%s: the model has no vocabulary", model_path);

    struct llama_context_params cp = llama_context_default_params();
    cp.n_ctx = (uint32_t)(prompt + tokens);
    cp.n_batch = cp.n_ubatch = (uint32_t)prompt;
    cp.n_seq_max = 1;
    cp.n_threads = cp.n_threads_batch = 1;
    cp.flash_attn_type = flash ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
    cp.cb_eval = on_eval;
    cp.no_perf = true;
    cp.op_offload = false;
    struct llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) die("%s: llama.cpp cannot make a context for it (n_ctx %u)", model_path, cp.n_ctx);

    llama_token *toks = xrealloc(NULL, (size_t)prompt * sizeof *toks);
    for (long i = 0; i < prompt; i++) toks[i] = (llama_token)((7 * i + 1) % n_vocab);
    new_step();
    if (llama_decode(ctx, llama_batch_get_one(toks, (int32_t)prompt)) != 0)
        die("the prompt's decode failed");
    llama_token next = 0;
    for (long t = 0; t < tokens; t++) {
        const float *logits = llama_get_logits_ith(ctx, -1);
        for (int i = 1; i < n_vocab; i++)
            if (logits[i] > logits[next]) next = i;
        new_step();
        if (llama_decode(ctx, llama_batch_get_one(&next, 1)) != 0) die("decode step %ld failed", t);
    }
    for (int k = 2; k < nsteps; k++) check_same(&steps[1], &steps[k], k - 1);
    for (int k = 0; k < nsteps; k++)
        if (steps[k].len == 0) die("step %d recorded no node: the eval callback was not called", k);

    out = strcmp(out_path, "-") ? fopen(out_path, "w") : stdout;
    if (!out) die("%s: cannot write", out_path);
    /* regions are found while the ops are written; the ops go to a buffer first */
    char *ops_text = NULL;
    size_t ops_len = 0;
    FILE *final = out;
    out = open_memstream(&ops_text, &ops_len);
    vtab prompt_vals = {0}, decode_vals = {0};
    int first_op = 1;
    counts pc = emit_step(&steps[0], "p", &prompt_vals, &first_op);
    int loop_first = nops;
    counts dc = emit_step(&steps[1], "d", &decode_vals, &first_op);
    int loop_count = nops - loop_first;
    fclose(out);
    out = final;

    char arch[64] = "?", desc[128] = "?", key[96], ffbuf[32] = "0";
    llama_model_meta_val_str(model, "general.architecture", arch, sizeof arch);
    llama_model_desc(model, desc, sizeof desc);
    snprintf(key, sizeof key, "%s.feed_forward_length", arch);
    llama_model_meta_val_str(model, key, ffbuf, sizeof ffbuf);
    uint64_t compute_size = 0;
    for (int i = 0; i < nregions; i++)
        if (!strcmp(regions[i].kind, "arena"))
            compute_size = ggml_backend_buffer_get_size(regions[i].buf);
    size_t align = 0;
    for (int i = 0; i < nregions; i++) {
        size_t a = ggml_backend_buffer_get_alignment(regions[i].buf);
        if (a > align) align = a;
    }

    fprintf(out,
            "{\"format\":\"arena-trace/"
            "1\",\n\"runtime\":{\"name\":\"llama.cpp\",\"commit\":\"%s\",\"ggml_version\":\"%s\","
            "\"ggml_commit\":\"%s\",\"backend\":\"CPU\",\"threads\":1},\n",
            commit, ggml_version(), ggml_commit());
    fprintf(
        out,
        "\"program\":{\"name\":\"%s-decode\",\"model\":\"%s\",\"shapes\":{\"architecture\":\"%s\","
        "\"layers\":%d,"
        "\"width\":%d,\"heads\":%d,\"kv_heads\":%d,\"ffn\":%s,\"vocab\":%d,\"n_params\":%" PRIu64
        "},",
        arch, desc, arch, llama_model_n_layer(model), llama_model_n_embd(model),
        llama_model_n_head(model), llama_model_n_head_kv(model), ffbuf, n_vocab,
        llama_model_n_params(model));
    fprintf(out,
            "\n\"flags\":{\"prompt\":%ld,\"tokens\":%ld,\"flash_attn\":%s,\"n_ctx\":%u,\"n_"
            "ubatch\":%u},",
            prompt, tokens, flash ? "true" : "false", llama_n_ctx(ctx), llama_n_ubatch(ctx));
    fprintf(out, "\n\"ggml_alloc_buffer_size\":%" PRIu64 ",", compute_size);
    fprintf(out,
            "\n\"counts\":{\"prompt\":{\"nodes\":%d,\"kernels\":%d,\"views\":%d,\"inplace\":%d,"
            "\"fused_kernels\":%d},"
            "\"decode_step\":{\"nodes\":%d,\"kernels\":%d,\"views\":%d,\"inplace\":%d,\"fused_"
            "kernels\":%d},"
            "\"scratch\":\"the CPU backend's work buffer (ggml_cplan.work_data) is its own malloc, "
            "passed to no tensor:"
            " not visible through the eval callback, so no region\"}},\n",
            pc.nodes, pc.kernels, pc.views, pc.inplace, pc.kernels - pc.fused, dc.nodes, dc.kernels,
            dc.views, dc.inplace, dc.kernels - dc.fused);
    fprintf(out, "\"alignment\":%zu,\n\"regions\":[", align);
    for (int i = 0; i < nregions; i++) {
        fprintf(out, "%s\n{\"name\":\"%s\",\"kind\":\"%s\",\"base\":%" PRIu64 ",\"size\":%zu",
                i ? "," : "", regions[i].name, regions[i].kind,
                (uint64_t)(uintptr_t)ggml_backend_buffer_get_base(regions[i].buf),
                ggml_backend_buffer_get_size(regions[i].buf));
        if (!strcmp(regions[i].kind, "arena"))
            fprintf(out, ",\"planned_size\":%" PRIu64, compute_size);
        fputs("}", out);
    }
    fputs("],\n\"values\":[", out);
    int first = 1;
    vtab *tabs[] = {&globals_tab, &prompt_vals, &decode_vals};
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < tabs[t]->len; i++) {
            const value *v = &tabs[t]->v[i];
            fprintf(out,
                    "%s\n{\"id\":\"%s\",\"region\":\"%s\",\"offset\":%" PRIu64 ",\"size\":%" PRIu64
                    ",\"whole_program\":%s}",
                    first ? "" : ",", v->id, regions[v->region].name, v->off, v->size,
                    v->global ? "true" : "false");
            first = 0;
        }
    fputs("],\n\"ops\":[", out);
    fwrite(ops_text, 1, ops_len, out);
    fprintf(out, "],\n\"loops\":[{\"first\":%d,\"count\":%d,\"iterations\":%ld}]}\n", loop_first,
            loop_count, tokens);
    if (out != stdout && fclose(out) != 0) die("%s: write failed", out_path);
    free(ops_text);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
