"""Programs of other shapes than the family's, written as a user writes them (FILE.py:NAME:
NAME() returns (function, example arguments)), that tests/iree/check_side_by_side.py exports
with XLA and IREE: a CNN forward (convolutions, max pooling, a normalisation), an MLP training
step with Adam (donated), a transformer training step (one-hot loss, a scan over layers and its
gradient), an LSTM's gradient (two scans), segment_sum (a scatter-add), sort and cumsum, a decode
sampling with top_k, nested while loops with known trip counts updating rows.
"""

import jax
import jax.numpy as jnp
from jax import lax

S = jax.ShapeDtypeStruct
f32 = jnp.float32


def cnn_forward():
    def f(w1, w2, wd, x):
        h = lax.conv_general_dilated(x, w1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        h = jax.nn.relu(h)
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        h = lax.conv_general_dilated(h, w2, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        h = (h - h.mean((0, 1, 2))) / (h.std((0, 1, 2)) + 1e-5)
        return jax.nn.log_softmax(h.mean((1, 2)) @ wd)
    return jax.jit(f), (S((3, 3, 3, 8), f32), S((3, 3, 8, 16), f32), S((16, 10), f32), S((4, 16, 16, 3), f32))


def mlp_train():
    def loss(p, x, y):
        h = jnp.tanh(x @ p[0]); lo = h @ p[1]
        return -(jax.nn.log_softmax(lo) * jax.nn.one_hot(y, 10)).sum(-1).mean()
    def step(p, m, v, x, y):
        g = jax.grad(loss)(p, x, y)
        m = jax.tree_util.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: 0.99 * v + 0.01 * g * g, v, g)
        p = jax.tree_util.tree_map(lambda p, m, v: p - 1e-3 * m / (jnp.sqrt(v) + 1e-8), p, m, v)
        return p, m, v
    p = (S((32, 64), f32), S((64, 10), f32))
    return jax.jit(step, donate_argnums=(0, 1, 2)), (p, p, p, S((16, 32), f32), S((16,), jnp.int32))


def transformer_train():
    L, D, T, V = 2, 32, 8, 64
    def block(x, w):
        q, k, v = jnp.split(x @ w["qkv"], 3, -1)
        a = jax.nn.softmax(jnp.where(jnp.tril(jnp.ones((T, T), bool)), q @ k.swapaxes(-1, -2) / 4, -1e9))
        x = x + (a @ v) @ w["o"]
        return x + jax.nn.gelu(x @ w["f1"]) @ w["f2"], None
    def loss(p, tok):
        x = p["emb"][tok[:, :-1]]
        x, _ = lax.scan(block, x, p["blocks"])
        lp = jax.nn.log_softmax(x @ p["emb"].T)
        return -(lp * jax.nn.one_hot(tok[:, 1:], V)).sum(-1).mean()
    def step(p, tok):
        l, g = jax.value_and_grad(loss)(p, tok)
        return jax.tree_util.tree_map(lambda a, b: a - 0.01 * b, p, g), l
    p = {"emb": S((V, D), f32), "blocks": {"qkv": S((L, D, 3 * D), f32), "o": S((L, D, D), f32),
         "f1": S((L, D, 4 * D), f32), "f2": S((L, 4 * D, D), f32)}}
    return jax.jit(step, donate_argnums=(0,)), (p, S((2, T + 1), jnp.int32))


def lstm_train():
    def loss(w, xs):
        wx, wh = w
        def cell(c, x):
            h, s = c
            z = x @ wx + h @ wh
            i, fg, o, g = jnp.split(z, 4, -1)
            s = jax.nn.sigmoid(fg) * s + jax.nn.sigmoid(i) * jnp.tanh(g)
            h = jax.nn.sigmoid(o) * jnp.tanh(s)
            return (h, s), h
        _, hs = lax.scan(cell, (jnp.zeros((2, 32)), jnp.zeros((2, 32))), xs)
        return (hs ** 2).mean()
    return jax.jit(lambda w, xs: jax.grad(loss)(w, xs)), ((S((16, 128), f32), S((32, 128), f32)), S((10, 2, 16), f32))


def segment_sum():
    def f(x, seg):
        return jax.ops.segment_sum(x, seg, num_segments=8)
    return jax.jit(f), (S((64, 16), f32), S((64,), jnp.int32))


def topk_sample_decode():
    V, D = 64, 32
    def f(emb, tok):
        def body(t, c):
            tok, out = c
            x = emb[tok]
            lo = x @ emb.T
            v, i = lax.top_k(lo, 4)
            nxt = i[jnp.argmax(v)].astype(jnp.int32)
            return nxt, out.at[t].set(nxt)
        return lax.fori_loop(0, 8, body, (tok, jnp.zeros(8, jnp.int32)))[1]
    return jax.jit(f), (S((V, D), f32), S((), jnp.int32))


def sort_cumsum():
    def f(x):
        s = jnp.sort(x, -1)
        return jnp.cumsum(s, -1), jnp.argsort(x, -1)
    return jax.jit(f), (S((8, 32), f32),)


def while_counter_nested():
    def f(x):
        def outer(c):
            i, x = c
            def inner(c):
                j, x = c
                return j + 1, x.at[j].add(i.astype(f32))
            _, x = lax.while_loop(lambda c: c[0] < 4, inner, (0, x))
            return i + 1, x
        return lax.while_loop(lambda c: c[0] < 3, outer, (0, x))[1]
    return jax.jit(f), (S((4, 16), f32),)
