"""Decodes as users write them, beside the family's (llama-decode, gpt2-decode): the KV cache
in other layouts and loops, each a FILE.py:NAME program (NAME() returns (function, example
arguments)) that tests/iree/check_side_by_side.py exports with XLA and IREE side by side.
  decode_lthd     one cache [L, T, B, H, hd] carried through fori_loop and a scan over layers
                  (the layer index carried), written at (l, t);
  decode_tuple    per-layer caches in a tuple (a Python loop over layers), each [B, T, H, hd];
  decode_at_pos   one step at a position given as a traced scalar argument, caches donated;
  decode_while    lax.while_loop with a known trip count (t < tokens);
  decode_from_start  rows written at start + t, start a traced argument.
"""

import jax
import jax.numpy as jnp
from jax import lax

S = jax.ShapeDtypeStruct
f32 = jnp.float32


def _params(L, D, vocab, F=4):
    return {"emb": S((vocab, D), f32), "wqkv": S((L, D, 3 * D), f32), "wo": S((L, D, D), f32),
            "w1": S((L, D, F * D), f32), "w2": S((L, F * D, D), f32)}


def _attn(q, k, v, t, T):  # q [B,H,hd], k/v [B,T,H,hd]
    att = jnp.einsum("bhd,bthd->bht", q, k) / q.shape[-1] ** 0.5
    att = jnp.where(jnp.arange(T)[None, None] <= t, att, -1e9)
    return jnp.einsum("bht,bthd->bhd", jax.nn.softmax(att, -1), v)


def _layer(x, p, l, H):
    B, D = x.shape
    qkv = jnp.tanh(x) @ p["wqkv"][l]
    q, k, v = [a.reshape(B, H, D // H) for a in jnp.split(qkv, 3, -1)]
    return q, k, v


def _finish(x, y, p, l):
    B = x.shape[0]
    x = x + y.reshape(B, -1) @ p["wo"][l]
    return x + jax.nn.gelu(x @ p["w1"][l]) @ p["w2"][l]


def decode_lthd(layers=4, tokens=8, d_model=64, heads=4, vocab=128, batch=1):
    """One cache [L, T, B, H, hd] carried through fori_loop and a scan over layers (l carried),
    written with dynamic_update_slice at (l, t)."""
    L, T, H, D = layers, tokens, heads, d_model
    def f(p, first):
        B = first.shape[0]
        def step(t, c):
            tok, ck, cv, out = c
            x = p["emb"][tok]
            def layer(c, _):
                x, ck, cv, l = c
                q, k, v = _layer(x, p, l, H)
                ck = lax.dynamic_update_slice(ck, k[None, None], (l, t, 0, 0, 0))
                cv = lax.dynamic_update_slice(cv, v[None, None], (l, t, 0, 0, 0))
                y = _attn(q, ck[l].transpose(1, 0, 2, 3), cv[l].transpose(1, 0, 2, 3), t, T)
                return (_finish(x, y, p, l), ck, cv, l + 1), None
            (x, ck, cv, _), _ = lax.scan(layer, (x, ck, cv, 0), None, length=L)
            nxt = jnp.argmax(x @ p["emb"].T, -1).astype(jnp.int32)
            return nxt, ck, cv, out.at[:, t].set(nxt)
        z = jnp.zeros((L, T, B, H, D // H), f32)
        return lax.fori_loop(0, T, step, (first, z, z, jnp.zeros((B, T), jnp.int32)))[3]
    return jax.jit(f), (_params(L, D, vocab), S((batch,), jnp.int32))


def decode_tuple(layers=3, tokens=8, d_model=64, heads=4, vocab=128, batch=1):
    """Per-layer caches in a tuple (a Python loop over layers): each [B, T, H, hd]."""
    L, T, H, D = layers, tokens, heads, d_model
    def f(p, first):
        B = first.shape[0]
        def step(t, c):
            tok, ks, vs, out = c
            x = p["emb"][tok]
            ks, vs = list(ks), list(vs)
            for l in range(L):
                q, k, v = _layer(x, p, l, H)
                ks[l] = lax.dynamic_update_slice(ks[l], k[:, None], (0, t, 0, 0))
                vs[l] = lax.dynamic_update_slice(vs[l], v[:, None], (0, t, 0, 0))
                x = _finish(x, _attn(q, ks[l], vs[l], t, T), p, l)
            nxt = jnp.argmax(x @ p["emb"].T, -1).astype(jnp.int32)
            return nxt, tuple(ks), tuple(vs), out.at[:, t].set(nxt)
        z = tuple(jnp.zeros((B, T, H, D // H), f32) for _ in range(L))
        return lax.fori_loop(0, T, step, (first, z, z, jnp.zeros((B, T), jnp.int32)))[3]
    return jax.jit(f), (_params(L, D, vocab), S((batch,), jnp.int32))


def decode_at_pos(layers=4, tokens=8, d_model=64, heads=4, vocab=128, batch=1):
    """One decode step at a position given as a traced scalar argument; the caches donated
    and returned (scan over layers, caches [L, B, T, H, hd] as xs and ys)."""
    L, T, H, D = layers, tokens, heads, d_model
    def f(p, ck, cv, tok, pos):
        x = p["emb"][tok]
        def layer(x, w):
            l, kl, vl = w
            q, k, v = _layer(x, p, l, H)
            kl = lax.dynamic_update_slice(kl, k[:, None], (0, pos, 0, 0))
            vl = lax.dynamic_update_slice(vl, v[:, None], (0, pos, 0, 0))
            return _finish(x, _attn(q, kl, vl, pos, T), p, l), (kl, vl)
        x, (ck, cv) = lax.scan(layer, x, (jnp.arange(L), ck, cv))
        return jnp.argmax(x @ p["emb"].T, -1).astype(jnp.int32), ck, cv
    c = S((L, batch, T, H, D // H), f32)
    return jax.jit(f, donate_argnums=(1, 2)), (_params(L, D, vocab), c, c,
                                               S((batch,), jnp.int32), S((), jnp.int32))


def decode_while(layers=4, tokens=8, d_model=64, heads=4, vocab=128, batch=1):
    """lax.while_loop with a known trip count (t < tokens), the caches [L, B, T, H, hd]
    scanned per layer as xs and ys."""
    L, T, H, D = layers, tokens, heads, d_model
    def f(p, first):
        B = first.shape[0]
        def body(c):
            t, tok, ck, cv, out = c
            x = p["emb"][tok]
            def layer(x, w):
                l, kl, vl = w
                q, k, v = _layer(x, p, l, H)
                kl = lax.dynamic_update_slice(kl, k[:, None], (0, t, 0, 0))
                vl = lax.dynamic_update_slice(vl, v[:, None], (0, t, 0, 0))
                return _finish(x, _attn(q, kl, vl, t, T), p, l), (kl, vl)
            x, (ck, cv) = lax.scan(layer, x, (jnp.arange(L), ck, cv))
            nxt = jnp.argmax(x @ p["emb"].T, -1).astype(jnp.int32)
            return t + 1, nxt, ck, cv, out.at[:, t].set(nxt)
        z = jnp.zeros((L, B, T, H, D // H), f32)
        return lax.while_loop(lambda c: c[0] < T, body,
                              (0, first, z, z, jnp.zeros((B, T), jnp.int32)))[4]
    return jax.jit(f), (_params(L, D, vocab), S((batch,), jnp.int32))


def decode_from_start(tokens=4, d_model=32, ctx=16):
    """Rows of a donated cache [ctx, D] written at start + t, start a traced scalar."""
    T, D = ctx, d_model

    def f(w, cache, start):
        def body(t, c):
            cache, x = c
            x = jnp.tanh(x @ w)
            return lax.dynamic_update_slice(cache, x[None], (start + t, 0)), x

        return lax.fori_loop(0, tokens, body, (cache, cache[0]))

    return jax.jit(f, donate_argnums=(1,)), (S((D, D), f32), S((T, D), f32), S((), jnp.int32))
