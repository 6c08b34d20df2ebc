"""A Llama-style decoder (RMSNorm, rotary embeddings, grouped-query attention, SwiGLU) written as
deployment code writes its decode: a `fori_loop` over the tokens, inside it a `scan` over the
stacked layers, the K and V caches [L, B, T, KVH, hd] scanned with the layers (each layer's
[B, T, KVH, hd] slice a scan input and output) and written with `dynamic_update_slice` at the
token's position. Weights are shapes only (`jax.ShapeDtypeStruct`): the plan depends on nothing
else.
"""

import jax
import jax.numpy as jnp
from jax import lax


def rms_norm(x, g, eps=1e-6):
    return x * lax.rsqrt((x * x).mean(-1, keepdims=True) + eps) * g


def rope(x, pos):  # x [B, 1, heads, hd], rotated by the token's position
    hd = x.shape[-1]
    angle = pos * (1.0 / (10000.0 ** (jnp.arange(0, hd, 2) / hd)))
    c, s = jnp.cos(angle), jnp.sin(angle)
    x1, x2 = x[..., ::2], x[..., 1::2]
    return jnp.stack([x1 * c - x2 * s, x1 * s + x2 * c], -1).reshape(x.shape)


def params_of(layers, d_model, heads, kv_heads, vocab, ffn):
    L, D, hd = layers, d_model, d_model // heads
    f32 = jnp.float32
    S = jax.ShapeDtypeStruct
    return {"embed": S((vocab, D), f32), "norm": S((D,), f32),
            "blocks": {"attn_norm": S((L, D), f32), "wq": S((L, D, heads * hd), f32),
                       "wk": S((L, D, kv_heads * hd), f32), "wv": S((L, D, kv_heads * hd), f32),
                       "wo": S((L, heads * hd, D), f32), "ffn_norm": S((L, D), f32),
                       "w_gate": S((L, D, ffn), f32), "w_up": S((L, D, ffn), f32),
                       "w_down": S((L, ffn, D), f32)}}


def layer(x, w, kl, vl, t, heads, kv_heads):
    """One layer at token t: its cache slices kl, vl [B, T, KVH, hd] written at t."""
    B, _, D = x.shape
    T, hd = kl.shape[1], D // heads
    h = rms_norm(x, w["attn_norm"])
    q = rope((h @ w["wq"]).reshape(B, 1, heads, hd), t)
    k = rope((h @ w["wk"]).reshape(B, 1, kv_heads, hd), t)
    v = (h @ w["wv"]).reshape(B, 1, kv_heads, hd)
    kl = lax.dynamic_update_slice(kl, k, (0, t, 0, 0))
    vl = lax.dynamic_update_slice(vl, v, (0, t, 0, 0))
    kk = jnp.repeat(kl, heads // kv_heads, axis=2)
    vv = jnp.repeat(vl, heads // kv_heads, axis=2)
    att = jnp.einsum("bqhd,bkhd->bhqk", q, kk) / hd ** 0.5
    att = jnp.where(jnp.arange(T)[None, None, None, :] <= t, att, -1e9)
    y = jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(att, -1), vv).reshape(B, 1, heads * hd)
    x = x + y @ w["wo"]
    h = rms_norm(x, w["ffn_norm"])
    return x + (jax.nn.silu(h @ w["w_gate"]) * (h @ w["w_up"])) @ w["w_down"], kl, vl


def decode(p, first, tokens, heads, kv_heads):
    """Greedy decode of `tokens` tokens after `first` [B]."""
    L = p["blocks"]["wq"].shape[0]
    B, D = first.shape[0], p["embed"].shape[1]
    cache = jnp.zeros((L, B, tokens, kv_heads, D // heads), jnp.float32)

    def step(t, carry):
        token, ck, cv, out = carry
        x = p["embed"][token][:, None, :]

        def one(x, xs):
            w, kl, vl = xs
            x, kl, vl = layer(x, w, kl, vl, t, heads, kv_heads)
            return x, (kl, vl)

        x, (ck, cv) = lax.scan(one, x, (p["blocks"], ck, cv))
        logits = rms_norm(x, p["norm"])[:, -1] @ p["embed"].T
        nxt = jnp.argmax(logits, -1).astype(jnp.int32)
        return nxt, ck, cv, out.at[:, t].set(nxt)

    out = jnp.zeros((B, tokens), jnp.int32)
    return lax.fori_loop(0, tokens, step, (first, cache, cache, out))[3]


def llama_decode(layers=6, tokens=12, d_model=64, heads=4, vocab=128, batch=1):
    """Llama-style greedy decode: fori_loop over tokens, scan over layers, K/V caches written at the token's position."""
    kv_heads = max(1, heads // 2)
    params = params_of(layers, d_model, heads, kv_heads, vocab, 4 * d_model)
    first = jax.ShapeDtypeStruct((batch,), jnp.int32)
    return (jax.jit(lambda p, f: decode(p, f, tokens, heads, kv_heads)), (params, first))
