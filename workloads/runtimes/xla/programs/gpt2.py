"""A GPT-2-shaped transformer written the way MaxText and levanter write theirs: the layers'
weights stacked [L, ...] and `lax.scan` over them, so XLA compiles one loop over the layers.
Three programs: the forward pass, a greedy decode (a loop over tokens, each a scan over the
layers writing a KV cache [L, B, H, C, hd] with dynamic_update_slice: tokens x layers), and a
training step (the loss's gradient and an Adam update written here, parameters and optimizer
state donated). Weights are random (a fixed key), made abstractly (`jax.eval_shape` traces the initialiser:
shapes and dtypes, no bytes computed; the plan depends on nothing else, and eager
initialisation would compile every random op, seconds per program).
"""

import math

import jax
import jax.numpy as jnp
from jax import lax

# The small end of GPT-2's shapes (GPT-2 small: 12 layers, d_model 768, 12 heads, 50257 tokens).
SIZES = {"layers": 2, "d_model": 64, "heads": 4, "vocab": 128, "seq": 16, "batch": 1}


def init(layers, d_model, heads, vocab, ctx, key=0):
    if d_model % heads:
        raise ValueError(f"d_model {d_model} is not a multiple of heads {heads}")
    ks = iter(jax.random.split(jax.random.PRNGKey(key), 8))
    L, D = layers, d_model

    def normal(shape, scale=0.02):
        return scale * jax.random.normal(next(ks), shape, jnp.float32)

    zeros, ones = (lambda s: jnp.zeros(s, jnp.float32)), (lambda s: jnp.ones(s, jnp.float32))
    return {
        "wte": normal((vocab, D)), "wpe": normal((ctx, D), 0.01),
        "blocks": {
            "ln1_g": ones((L, D)), "ln1_b": zeros((L, D)),
            "w_qkv": normal((L, D, 3 * D)), "b_qkv": zeros((L, 3 * D)),
            "w_o": normal((L, D, D)), "b_o": zeros((L, D)),
            "ln2_g": ones((L, D)), "ln2_b": zeros((L, D)),
            "w_fc": normal((L, D, 4 * D)), "b_fc": zeros((L, 4 * D)),
            "w_proj": normal((L, 4 * D, D)), "b_proj": zeros((L, D)),
        },
        "lnf_g": ones((D,)), "lnf_b": zeros((D,)),
    }


def layer_norm(x, g, b, eps=1e-5):
    m = x.mean(-1, keepdims=True)
    v = ((x - m) ** 2).mean(-1, keepdims=True)
    return (x - m) * lax.rsqrt(v + eps) * g + b


def heads_of(t, heads):  # [B, T, D] -> [B, H, T, hd]
    B, T, D = t.shape
    return t.reshape(B, T, heads, D // heads).transpose(0, 2, 1, 3)


def attend(q, k, v, mask):  # q [B,H,T,hd], k/v [B,H,S,hd], mask [T,S] -> [B,T,D]
    att = (q @ k.transpose(0, 1, 3, 2)) / math.sqrt(q.shape[-1])
    att = jax.nn.softmax(jnp.where(mask, att, -1e9), axis=-1)
    y = att @ v
    B, H, T, hd = y.shape
    return y.transpose(0, 2, 1, 3).reshape(B, T, H * hd)


def mlp(x, p):
    h = layer_norm(x, p["ln2_g"], p["ln2_b"])
    return x + jax.nn.gelu(h @ p["w_fc"] + p["b_fc"], approximate=True) @ p["w_proj"] + p["b_proj"]


def block(x, p, heads, mask):
    h = layer_norm(x, p["ln1_g"], p["ln1_b"])
    q, k, v = jnp.split(h @ p["w_qkv"] + p["b_qkv"], 3, axis=-1)
    y = attend(heads_of(q, heads), heads_of(k, heads), heads_of(v, heads), mask)
    return mlp(x + y @ p["w_o"] + p["b_o"], p)


def logits_of(params, x):
    return layer_norm(x, params["lnf_g"], params["lnf_b"]) @ params["wte"].T  # tied head


def forward(params, tokens, heads):
    T = tokens.shape[1]
    x = params["wte"][tokens] + params["wpe"][:T]
    mask = jnp.tril(jnp.ones((T, T), bool))
    x, _ = lax.scan(lambda x, p: (block(x, p, heads, mask), None), x, params["blocks"])
    return logits_of(params, x)


def decode_step(params, ck, cv, token, pos, heads):
    """One token through every layer: each writes its K and V at pos of its cache slice."""
    x = params["wte"][token][:, None, :] + lax.dynamic_index_in_dim(params["wpe"], pos, 0)
    C = ck.shape[3]
    mask = (jnp.arange(C) <= pos)[None, :]

    def layer(carry, p):
        x, ck, cv, l = carry
        h = layer_norm(x, p["ln1_g"], p["ln1_b"])
        q, k, v = jnp.split(h @ p["w_qkv"] + p["b_qkv"], 3, axis=-1)
        q, k, v = heads_of(q, heads), heads_of(k, heads), heads_of(v, heads)
        ck = lax.dynamic_update_slice(ck, k[None], (l, 0, 0, pos, 0))
        cv = lax.dynamic_update_slice(cv, v[None], (l, 0, 0, pos, 0))
        kl = lax.dynamic_index_in_dim(ck, l, 0, keepdims=False)
        vl = lax.dynamic_index_in_dim(cv, l, 0, keepdims=False)
        x = mlp(x + attend(q, kl, vl, mask) @ p["w_o"] + p["b_o"], p)
        return (x, ck, cv, l + 1), None

    (x, ck, cv, _), _ = lax.scan(layer, (x, ck, cv, 0), params["blocks"])
    return jnp.argmax(logits_of(params, x)[:, -1], axis=-1).astype(jnp.int32), ck, cv


def decode(params, first, tokens, heads):
    """Greedy decode of `tokens` tokens after `first` [B]: a loop over tokens, the KV cache
    (tokens long) carried through it and through each token's scan over the layers."""
    L, D = params["blocks"]["w_o"].shape[:2]
    B = first.shape[0]
    shape = (L, B, heads, tokens, D // heads)
    ck, cv = jnp.zeros(shape, jnp.float32), jnp.zeros(shape, jnp.float32)

    def step(t, carry):
        token, ck, cv, out = carry
        nxt, ck, cv = decode_step(params, ck, cv, token, t, heads)
        return nxt, ck, cv, lax.dynamic_update_slice(out, nxt[:, None], (0, t))

    out = jnp.zeros((B, tokens), jnp.int32)
    return lax.fori_loop(0, tokens, step, (first, ck, cv, out))[3]


def loss(params, tokens, heads):
    logp = jax.nn.log_softmax(forward(params, tokens[:, :-1], heads))
    return -jnp.take_along_axis(logp, tokens[:, 1:, None], axis=-1).mean()


def adam(params, m, v, step, grads, lr=1e-3, b1=0.9, b2=0.999, eps=1e-8):
    t = (step + 1).astype(jnp.float32)
    m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
    v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
    scale = lr * jnp.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    params = jax.tree_util.tree_map(lambda p, m, v: p - scale * m / (jnp.sqrt(v) + eps),
                                    params, m, v)
    return params, m, v, step + 1


def train_step(params, m, v, step, tokens, heads):
    value, grads = jax.value_and_grad(loss)(params, tokens, heads)
    params, m, v, step = adam(params, m, v, step, grads)
    return params, m, v, step, value


def _tokens(batch, seq, vocab, key=1):
    return jax.random.randint(jax.random.PRNGKey(key), (batch, seq), 0, vocab, jnp.int32)


# ---- the programs: each returns (function, example arguments) -------------------------------

def abstract(make):
    """What make() returns, as shapes and dtypes (jax.ShapeDtypeStruct): lower() needs no more."""
    return jax.eval_shape(make)


def gpt2_forward(layers=2, d_model=64, heads=4, vocab=128, seq=16, batch=1):
    params = abstract(lambda: init(layers, d_model, heads, vocab, seq))
    tokens = abstract(lambda: _tokens(batch, seq, vocab))
    return jax.jit(lambda p, t: forward(p, t, heads)), (params, tokens)


def gpt2_decode(layers=2, d_model=64, heads=4, vocab=128, tokens=4, batch=1):
    params = abstract(lambda: init(layers, d_model, heads, vocab, tokens))
    first = jax.ShapeDtypeStruct((batch,), jnp.int32)
    return jax.jit(lambda p, f: decode(p, f, tokens, heads)), (params, first)


def gpt2_train(layers=2, d_model=64, heads=4, vocab=128, seq=16, batch=1):
    params = abstract(lambda: init(layers, d_model, heads, vocab, seq))
    fn = jax.jit(lambda p, m, v, s, t: train_step(p, m, v, s, t, heads),
                 donate_argnums=(0, 1, 2, 3))
    return fn, (params, params, params, jax.ShapeDtypeStruct((), jnp.int32),
                abstract(lambda: _tokens(batch, seq + 1, vocab)))
