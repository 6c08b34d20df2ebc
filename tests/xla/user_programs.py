"""Programs as a user writes them for scripts/xla-plan FILE.py:NAME: NAME() returns (function,
tuple of example arguments). Three are expressible, two are not (exit 2 with the reason), one
returns the wrong thing."""

import jax
import jax.numpy as jnp
from jax import lax


def mlp(layers=3, width=32):
    """A residual MLP scanned over stacked layers; not jitted (the exporter jits it)."""
    def f(w, x):
        h, _ = lax.scan(lambda h, wl: (h + jnp.tanh(h @ wl), None), x, w)
        return h.sum(axis=-1)

    return f, (jnp.ones((layers, width, width)) / width, jnp.ones((4, width)))


def donated_update():
    """A jitted step that updates its donated state in place."""
    f = jax.jit(lambda s, g: s * 0.9 + g, donate_argnums=(0,))
    return f, (jax.ShapeDtypeStruct((64, 64), jnp.float32),
               jax.ShapeDtypeStruct((64, 64), jnp.float32))


def scan_cache():
    """A lax.scan whose body writes row i of a cache carry with dynamic_update_slice and returns a
    per-step sum: XLA wraps the loop in a call whose output forwards the while's state (no buffer
    of its own at the call)."""
    def f(cache, idx, rows):
        def body(c, x):
            i, v = x
            c = lax.dynamic_update_slice(c, v[None], (i, 0))
            return c, c.sum()

        return lax.scan(body, cache, (idx, rows))

    return f, (jnp.zeros((8, 16)), jnp.arange(8), jnp.ones((8, 16)))


def data_dependent():
    """A while loop that runs until its state says stop: no trip count."""
    def f(x):
        return lax.while_loop(lambda c: c.sum() < 1000.0, lambda c: c * 2.0 + 1.0, x)

    return f, (jnp.ones((8, 8)),)


def branchy():
    """lax.cond: which branch runs is known only at run time."""
    def f(x, p):
        return lax.cond(p > 0, lambda x: jnp.sin(x) @ x, lambda x: jnp.cos(x) @ x, x)

    return f, (jnp.ones((8, 8)), jnp.int32(1))


def not_a_pair():
    return jnp.ones(3)
