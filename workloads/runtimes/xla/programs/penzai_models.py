"""Transformers whose code nobody here wrote: penzai's Llama-like and GPT-NeoX variants
(penzai.models.transformer.variants), built from a config and initialised at random, no weights
downloaded (`jax.eval_shape` runs penzai's initialisers abstractly: shapes and dtypes, no bytes
computed; the plan depends on nothing else). Their LayerStack scans the blocks with `unroll=True`, so XLA sees the layers one
after another, not a loop: these are the family's straight-line programs.
"""

import jax
import jax.numpy as jnp


def _forward(build, seq, batch):
    from penzai import pz

    frozen = jax.eval_shape(lambda: pz.freeze_params(build()))

    def forward(m, tokens):
        return m(pz.nx.wrap(tokens).tag("batch", "seq")).unwrap("batch", "seq", "vocabulary")

    return jax.jit(forward), (frozen, jax.ShapeDtypeStruct((batch, seq), jnp.int32))


def penzai_llama_forward(layers=2, d_model=64, heads=4, vocab=128, seq=16, batch=1):
    """Llama: RMSNorm, rotary embeddings, SwiGLU, grouped-query attention (2 query heads per
    KV head)."""
    from penzai.models.transformer.variants import llamalike_common as llc

    if heads % 2 or d_model % heads:
        raise ValueError(f"heads {heads} must be even and divide d_model {d_model}")
    cfg = llc.LlamalikeTransformerConfig(
        num_kv_heads=heads // 2, query_head_multiplier=2, embedding_dim=d_model,
        projection_dim=d_model // heads, mlp_hidden_dim=2 * d_model, num_decoder_blocks=layers,
        vocab_size=vocab, mlp_variant="swiglu", tie_embedder_and_logits=False,
        use_layer_stack=True)
    return _forward(lambda: llc.build_llamalike_transformer(cfg, init_base_rng=jax.random.key(0)),
                    seq, batch)


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
