"""Tiny random GGUF models at chosen shapes, for llama.cpp's loader (scripts/llama-model).

Two architectures with the keys and tensor names llama.cpp 0c1e57098 reads for them: `llama`
(no biases) and `qwen2` (Q/K/V biases). Weights are seeded random normals, F32 or F16 (the
1-D norms and biases stay F32, as the converters write them); `--tied` leaves `output.weight`
out, so llama.cpp reuses `token_embd`. No tokenizer: prompts are token ids.
"""
import argparse
import sys

ARCHS = {"llama": False, "qwen2": True}  # architecture -> has Q/K/V biases


def fail(msg):
    print(f"scripts/llama-model: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    ap = argparse.ArgumentParser(prog="scripts/llama-model", description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True, help="the GGUF file to write")
    ap.add_argument("--arch", default="llama", choices=sorted(ARCHS))
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--width", type=int, default=64, help="embedding length")
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--kv-heads", type=int, default=None, help="grouped-query attention (default: heads)")
    ap.add_argument("--ffn", type=int, default=None, help="feed-forward width (default: 2*width)")
    ap.add_argument("--vocab", type=int, default=128)
    ap.add_argument("--context", type=int, default=256, help="the model's context length")
    ap.add_argument("--type", default="f32", choices=["f32", "f16"])
    ap.add_argument("--tied", action="store_true", help="no output.weight: tied to token_embd")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    kv = a.kv_heads or a.heads
    ffn = a.ffn or 2 * a.width
    for name, v in (("layers", a.layers), ("width", a.width), ("heads", a.heads), ("kv-heads", kv),
                    ("ffn", ffn), ("vocab", a.vocab), ("context", a.context)):
        if v < 1:
            fail(f"--{name} {v}: must be at least 1")
    if a.width % a.heads:
        fail(f"--width {a.width} is not a multiple of --heads {a.heads}")
    if a.heads % kv:
        fail(f"--heads {a.heads} is not a multiple of --kv-heads {kv}")
    head = a.width // a.heads
    if head % 2:
        fail(f"head size {head} is odd: rotary embedding needs an even one")

    import numpy as np
    import gguf

    rng = np.random.default_rng(a.seed)
    wtype = np.float16 if a.type == "f16" else np.float32
    w = gguf.GGUFWriter(a.out, a.arch)
    w.add_name(f"arenaref-{a.arch}-L{a.layers}-d{a.width}")
    w.add_context_length(a.context)
    w.add_embedding_length(a.width)
    w.add_block_count(a.layers)
    w.add_feed_forward_length(ffn)
    w.add_head_count(a.heads)
    w.add_head_count_kv(kv)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_rope_dimension_count(head)
    w.add_rope_freq_base(10000.0)
    w.add_vocab_size(a.vocab)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16 if a.type == "f16" else gguf.LlamaFileType.ALL_F32)
    w.add_tokenizer_model("none")

    def mat(name, rows, cols):  # ggml's {cols, rows}: numpy (rows, cols)
        w.add_tensor(name, (rng.standard_normal((rows, cols)) * 0.05).astype(wtype))

    def vec(name, n, one=False):
        w.add_tensor(name, (np.ones(n) if one else rng.standard_normal(n) * 0.05).astype(np.float32))

    mat("token_embd.weight", a.vocab, a.width)
    vec("output_norm.weight", a.width, one=True)
    if not a.tied:
        mat("output.weight", a.vocab, a.width)
    for i in range(a.layers):
        b = f"blk.{i}."
        vec(b + "attn_norm.weight", a.width, one=True)
        mat(b + "attn_q.weight", a.width, a.width)
        mat(b + "attn_k.weight", kv * head, a.width)
        mat(b + "attn_v.weight", kv * head, a.width)
        if ARCHS[a.arch]:
            vec(b + "attn_q.bias", a.width)
            vec(b + "attn_k.bias", kv * head)
            vec(b + "attn_v.bias", kv * head)
        mat(b + "attn_output.weight", a.width, a.width)
        vec(b + "ffn_norm.weight", a.width, one=True)
        mat(b + "ffn_gate.weight", ffn, a.width)
        mat(b + "ffn_up.weight", ffn, a.width)
        mat(b + "ffn_down.weight", a.width, ffn)
    try:
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()
    except OSError as e:
        fail(f"{a.out}: {e.strerror}")


if __name__ == "__main__":
    main()
