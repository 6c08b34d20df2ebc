"""Transformers whose code nobody here wrote: penzai's Llama-like and GPT-NeoX variants
(penzai.models.transformer.variants), built from a config and initialised at random, no weights
downloaded (`jax.eval_shape` runs penzai's initialisers abstractly: shapes and dtypes, no bytes
computed; the plan depends on nothing else). Their LayerStack scans the blocks with
`unroll=True`, so XLA sees the layers one after another, not a loop. The decode is penzai's own
KV-caching sampling mode (KVCachingTransformerLM, its caches written with dynamic_update_slice)
called functionally (`stateless_call`) once per token inside a `lax.fori_loop` written here:
their model, our loop over tokens (penzai's own sampler is a Python loop, one call per token).
"""

import jax
import jax.numpy as jnp
from jax import lax


def _forward(build, seq, batch):
    from penzai import pz

    frozen = jax.eval_shape(lambda: pz.freeze_params(build()))

    def forward(m, tokens):
        return m(pz.nx.wrap(tokens).tag("batch", "seq")).unwrap("batch", "seq", "vocabulary")

    return jax.jit(forward), (frozen, jax.ShapeDtypeStruct((batch, seq), jnp.int32))


def _llama_config(layers, d_model, heads, vocab, stack):
    from penzai.models.transformer.variants import llamalike_common as llc

    if heads % 2 or d_model % heads:
        raise ValueError(f"heads {heads} must be even and divide d_model {d_model}")
    return llc, llc.LlamalikeTransformerConfig(
        num_kv_heads=heads // 2, query_head_multiplier=2, embedding_dim=d_model,
        projection_dim=d_model // heads, mlp_hidden_dim=2 * d_model, num_decoder_blocks=layers,
        vocab_size=vocab, mlp_variant="swiglu", tie_embedder_and_logits=False,
        use_layer_stack=stack)


def penzai_llama_forward(layers=2, d_model=64, heads=4, vocab=128, seq=16, batch=1):
    """Llama: RMSNorm, rotary embeddings, SwiGLU, grouped-query attention (2 query heads per
    KV head)."""
    llc, cfg = _llama_config(layers, d_model, heads, vocab, True)
    return _forward(lambda: llc.build_llamalike_transformer(cfg, init_base_rng=jax.random.key(0)),
                    seq, batch)


def penzai_llama_decode(layers=2, d_model=64, heads=4, vocab=128, tokens=4, batch=1):
    """The same Llama in penzai's KV-caching sampling mode: greedy decode of `tokens` tokens,
    one loop over them (a cache `tokens` long)."""
    from penzai import pz
    from penzai.models.transformer import sampling_mode

    llc, cfg = _llama_config(layers, d_model, heads, vocab, False)

    def build():
        model = llc.build_llamalike_transformer(cfg, init_base_rng=jax.random.key(0))
        sampler = sampling_mode.KVCachingTransformerLM.from_uncached(
            model, cache_len=tokens, batch_axes={"batch": batch})
        unbound, params = pz.unbind_params(sampler, freeze=True)
        unbound, states = pz.unbind_state_vars(unbound, freeze=True)
        return unbound, params, states

    def decode(unbound, params, states, first):
        def step(t, carry):
            states, token, out = carry
            logits, new = unbound.stateless_call(
                params + states, pz.nx.wrap(token[:, None]).tag("batch", "seq"))
            states = tuple(v for v in new if isinstance(v, pz.StateVariableValue))
            nxt = jnp.argmax(logits.unwrap("batch", "seq", "vocabulary")[:, -1], axis=-1)
            nxt = nxt.astype(jnp.int32)
            return states, nxt, lax.dynamic_update_slice(out, nxt[:, None], (0, t))

        out = jnp.zeros((batch, tokens), jnp.int32)
        return lax.fori_loop(0, tokens, step, (tuple(states), first, out))[2]

    unbound, params, states = jax.eval_shape(build)
    return jax.jit(decode), (unbound, params, states, jax.ShapeDtypeStruct((batch,), jnp.int32))


def penzai_gptneox_forward(layers=2, d_model=64, heads=4, vocab=128, seq=16, batch=1):
    """GPT-NeoX (Pythia's architecture): LayerNorm, partial rotary embeddings, parallel
    attention and MLP."""
    from penzai.models.transformer.variants import gpt_neox

    if d_model % heads:
        raise ValueError(f"heads {heads} must divide d_model {d_model}")
    hd = d_model // heads
    cfg = gpt_neox.GPTNeoXTransformerConfig(
        num_attention_heads=heads, embedding_dim=d_model, projection_dim=hd,
        mlp_hidden_dim=4 * d_model, num_decoder_blocks=layers, vocab_size=vocab,
        activation_fn="gelu_exact", rope_subset_size=hd // 4 * 2 or 2, rope_wavelength=10000.0,
        layernorm_epsilon=1e-5, parameter_dtype=jnp.float32, activation_dtype=jnp.float32,
        use_layer_stack=True)
    return _forward(
        lambda: gpt_neox.build_gpt_neox_transformer(cfg, init_base_rng=jax.random.key(0)),
        seq, batch)
