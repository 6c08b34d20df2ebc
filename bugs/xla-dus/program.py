"""XLA:CPU's in-place dynamic-update-slice fusion (openxla/xla#49176), as a program for
scripts/xla-plan (FILE.py:dus): base = x + 1 with x = arange(4) as int32[4,1,1];
dynamic_update_slice(base, base[:3], (1, 0, 0)).reshape((1, 4, 1)). XLA:CPU compiles it to one
fusion that updates base in place while reading base[:3] from the same buffer at another index,
so it reads elements it has already written: [1 1 1 1] instead of [1 1 2 3]."""

import numpy as np


def reference(x):
    """The right answer, with numpy alone."""
    base = x + 1
    out = base.copy()
    out[1:4] = base[:3]
    return out.reshape((1, 4, 1))


def example():
    return np.arange(4, dtype=np.int32).reshape((4, 1, 1))


def dus():
    import jax
    from jax import lax

    def f(x):
        base = x + 1
        return lax.dynamic_update_slice(base, base[:3], (1, 0, 0)).reshape((1, 4, 1))

    return f, (jax.numpy.asarray(example()),)
