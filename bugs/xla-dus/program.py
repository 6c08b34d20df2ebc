"""XLA:CPU's in-place dynamic-update-slice fusion (openxla/xla#49176), as programs for
scripts/xla-plan (FILE.py:NAME). Each wrong one computes `base = x + 1`, updates base from a
slice of itself, and reshapes the result to a leading 1: XLA:CPU then compiles the update into one
loop fusion over a copy of base that it updates in place while reading the same buffer through the
slice, so it reads elements it has already written. Each clean twin has the same shapes and an
in-place update that reads nothing across elements (or nothing it writes).

ENTRIES: name -> (maker, numpy reference of the example's output, wrong on XLA:CPU?)."""

import numpy as np


def _example(shape):
    return np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)


def example():
    return _example((4, 1, 1))


def reference(x):
    """The issue's first program with numpy alone (kept for the original entry's name)."""
    base = x + 1
    out = base.copy()
    out[1:4] = base[:3]
    return out.reshape((1, 4, 1))


def dus():
    """dynamic_update_slice(base, base[:3], (1, 0, 0)) on int32[4,1,1]: [1 1 1 1] for [1 1 2 3]."""
    import jax
    from jax import lax

    def f(x):
        base = x + 1
        return lax.dynamic_update_slice(base, base[:3], (1, 0, 0)).reshape((1, 4, 1))

    return f, (jax.numpy.asarray(example()),)


def shift_rows():
    """base.at[1:].set(base[:-1]) on int32[8,16]: every row takes the one above it."""
    import jax

    def f(x):
        base = x + 1
        return base.at[1:].set(base[:-1]).reshape((1, 8, 16))

    return f, (jax.numpy.asarray(_example((8, 16))),)


def _shift_rows_ref(x):
    b = x + 1
    return np.concatenate([b[:1], b[:-1]]).reshape((1, 8, 16))


def dus_rows():
    """dynamic_update_slice(base, base[:5], (3, 0)) on int32[8,4]: rows 0-4 copied to rows 3-7."""
    import jax
    from jax import lax

    def f(x):
        base = x + 1
        return lax.dynamic_update_slice(base, base[:5], (3, 0)).reshape((1, 8, 4))

    return f, (jax.numpy.asarray(_example((8, 4))),)


def _dus_rows_ref(x):
    b = x + 1
    return np.concatenate([b[:3], b[:5]]).reshape((1, 8, 4))


def control_kv_write():
    """A KV-cache write: a new row at a dynamic index (5) of a donated int32[8,16] cache, updated
    in place, from another input."""
    import jax
    from jax import lax

    f = jax.jit(lambda cache, v, i: lax.dynamic_update_slice(cache, v, (i, 0)),
                donate_argnums=(0,))
    jnp = jax.numpy
    return f, (jnp.asarray(_example((8, 16))), jnp.full((1, 16), 7, jnp.int32), jnp.int32(5))


def _kv_write_ref(cache, v, i):
    cache[i] = v[0]
    return cache


def control_same_slice():
    """The same slice read and written: base.at[2:5].set(base[2:5] * 2) on int32[8,4]."""
    import jax

    def f(x):
        base = x + 1
        return base.at[2:5].set(base[2:5] * 2).reshape((1, 8, 4))

    return f, (jax.numpy.asarray(_example((8, 4))),)


def _same_slice_ref(x):
    b = x + 1
    b[2:5] *= 2
    return b.reshape((1, 8, 4))


def control_scan_cache():
    """A lax.scan whose body writes row i of a cache carry with dynamic_update_slice and returns
    a per-step sum (float32[8,16]); scripts/xla-plan refused it before (a call's output with no
    buffer of its own)."""
    import jax
    from jax import lax

    def f(cache, idx, rows):
        def body(c, x):
            i, v = x
            c = lax.dynamic_update_slice(c, v[None], (i, 0))
            return c, c.sum()

        return lax.scan(body, cache, (idx, rows))

    jnp = jax.numpy
    return f, (jnp.zeros((8, 16), jnp.float32), jnp.arange(8, dtype=jnp.int32),
               jnp.asarray(_example((8, 16)), jnp.float32) / 64)


def _scan_cache_ref(cache, idx, rows):
    c, sums = cache.copy(), []
    for i, v in zip(idx, rows):
        c[i] = v
        sums.append(c.sum())
    return c, np.asarray(sums, np.float32)


ENTRIES = {
    "dus": (dus, lambda x: reference(x), True),
    "shift_rows": (shift_rows, _shift_rows_ref, True),
    "dus_rows": (dus_rows, _dus_rows_ref, True),
    "control_kv_write": (control_kv_write, _kv_write_ref, False),
    "control_same_slice": (control_same_slice, _same_slice_ref, False),
    "control_scan_cache": (control_scan_cache, _scan_cache_ref, False),
}
