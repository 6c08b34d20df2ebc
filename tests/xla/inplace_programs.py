"""Programs that update a buffer in place, some of which read it across elements, as a user writes
them for scripts/xla-plan FILE.py:NAME (NAME() returns (function, example arguments)). CASES
says, for each, its numpy reference and what the certificate must say of XLA's plan:

  wrong  XLA:CPU (jaxlib 0.10.2) computes it wrong: the update reads bytes it overwrites: rule D;
  clean  computed right, and no read across elements meets a byte written: 0;
  order  computed right, but the update reads bytes it also writes, for other elements: which
         value it reads depends on the order the elements run in (sequential order happens to
         read before it writes): rule D, as the contract says;
  limit  computed right, rule D: read and write move with two dynamic indices whose hulls meet,
         though at any one index the two rows differ (the ranges cannot say the indices differ).

Most wrap the update as the known bug does (base = x + 1, update, reshape to a leading 1): that
shape makes XLA fuse the update into one in-place kernel over a copy of base."""

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

I8x16 = np.arange(128, dtype=np.int32).reshape(8, 16)
F8x16 = np.arange(128, dtype=np.float32).reshape(8, 16) / 16
I32 = np.arange(32, dtype=np.int32)


def _wrapped(update):
    """base = x + 1, update(base, *rest), reshaped to a leading 1."""
    def f(x, *rest):
        out = update(x + 1, *rest)
        return out.reshape((1,) + out.shape)

    return f


def _np(update):
    """The numpy reference of a _wrapped update."""
    def ref(x, *rest):
        out = np.array(update(np.array(x) + 1, *rest))
        return out.reshape((1,) + out.shape)

    return ref


def _set(b, where, value):
    b = b.copy()
    b[where] = value
    return b


CASES = {}


def case(name, kind, update, ref, *args, wrap=True):
    fn = _wrapped(update) if wrap else update
    rf = _np(ref) if wrap else ref
    CASES[name] = (kind, rf, lambda: (fn, tuple(jnp.asarray(a) if not isinstance(a, tuple) else
                                                 tuple(jnp.asarray(x) for x in a) for a in args)))
    globals()[name] = CASES[name][2]


# The known bug's family: a slice of the buffer copied to another index of it, in place.
case("shift_down", "wrong", lambda b: b.at[1:].set(b[:-1]),
     lambda b: np.concatenate([b[:1], b[:-1]]), I8x16)
case("shift_1d", "wrong", lambda b: b.at[3:].set(b[:-3]),
     lambda b: np.concatenate([b[:3], b[:-3]]), I32)
case("dus_const", "wrong", lambda b: lax.dynamic_update_slice(b, b[:5], (3, 0)),
     lambda b: np.concatenate([b[:3], b[:5]]), I8x16)
case("dus_dynamic_start", "wrong", lambda b, i: lax.dynamic_update_slice(b, b[:5], (i, 0)),
     lambda b, i: np.concatenate([b[:i], b[:5], b[i + 5:]]), I8x16, np.int32(3))
case("dus_dynamic_slice", "wrong",
     lambda b, i, j: lax.dynamic_update_slice(b, lax.dynamic_slice(b, (j, 0), (5, 16)), (i, 0)),
     lambda b, i, j: _set(b, slice(i, i + 5), b[j:j + 5]), I8x16, np.int32(3), np.int32(0))
case("block_shift_dynamic", "wrong",
     lambda b, i: lax.dynamic_update_slice(b, lax.dynamic_slice(b, (i, 0), (4, 16)), (i + 1, 0)),
     lambda b, i: _set(b, slice(i + 1, i + 5), b[i:i + 4]), I8x16, np.int32(2))
case("columns_shift", "wrong", lambda b: b.at[:, 1:].set(b[:, :-1]),
     lambda b: np.concatenate([b[:, :1], b[:, :-1]], axis=1), I8x16)
case("transpose_block", "wrong", lambda b: b.at[0:8, 0:8].set(b[0:8, 0:8].T),
     lambda b: _set(b, (slice(0, 8), slice(0, 8)), b[0:8, 0:8].T), I8x16)
case("reverse_rows", "wrong", lambda b: b.at[2:6].set(b[1:5][::-1]),
     lambda b: _set(b, slice(2, 6), b[1:5][::-1]), I8x16)
case("gather_rows", "wrong", lambda b, idx: b.at[1:4].set(b[idx]),
     lambda b, idx: _set(b, slice(1, 4), b[idx]), I8x16, np.array([0, 1, 2], np.int32))
case("difference_rows", "wrong", lambda b: b.at[1:].set(b[1:] - b[:-1]),
     lambda b: _set(b, slice(1, None), b[1:] - b[:-1]), I8x16)

# Read and written by other elements; right in XLA's sequential order, rule D by the contract.
case("shift_up", "order", lambda b: b.at[:-1].set(b[1:]),
     lambda b: np.concatenate([b[1:], b[-1:]]), I8x16)
case("row_sums_into_row", "order", lambda b: b.at[0, :8].set(b.sum(axis=1)),
     lambda b: _set(b, (0, slice(0, 8)), b.sum(axis=1)), I8x16)

# Two dynamic indices: never the same bytes at once, but their hulls meet.
case("row_from_row_dynamic", "limit", lambda b, i, j: b.at[i].set(b[j]),
     lambda b, i, j: _set(b, i, b[j]), I8x16, np.int32(3), np.int32(0))
case("row_from_previous_row", "limit", lambda b, i: b.at[i].set(b[i - 1] + 1),
     lambda b, i: _set(b, i, b[i - 1] + 1), I8x16, np.int32(3))

# Clean: in-place updates that read nothing across elements, or nothing they write.
case("same_slice", "clean", lambda b: b.at[2:5].set(b[2:5] * 2),
     lambda b: _set(b, slice(2, 5), b[2:5] * 2), I8x16)
case("same_row_dynamic", "clean", lambda b, i: b.at[i].set(b[i] * 2),
     lambda b, i: _set(b, i, b[i] * 2), I8x16, np.int32(3))
case("same_dynamic_slice", "clean",
     lambda b, i: lax.dynamic_update_slice(b, lax.dynamic_slice(b, (i, 0), (2, 16)) + 1, (i, 0)),
     lambda b, i: _set(b, slice(i, i + 2), b[i:i + 2] + 1), I8x16, np.int32(3))
case("add_at_dynamic", "clean", lambda b, i, v: b.at[i].add(v),
     lambda b, i, v: _set(b, i, b[i] + v), I8x16, np.int32(3), np.ones((16,), np.int32))
case("same_column_dynamic", "clean", lambda b, i: b.at[:, i].set(b[:, i] * 2),
     lambda b, i: _set(b, (slice(None), i), b[:, i] * 2), I8x16, np.int32(3))
case("column_from_column", "clean", lambda b: b.at[:, 3].set(b[:, 5]),
     lambda b: _set(b, (slice(None), 3), b[:, 5]), I8x16)
case("column_sums_into_row", "clean", lambda b: b.at[0].set(b.sum(axis=0)),
     lambda b: _set(b, 0, b.sum(axis=0)), I8x16)
case("flip_other_half", "clean", lambda b: b.at[:4].set(b[4:][::-1]),
     lambda b: _set(b, slice(0, 4), b[4:][::-1]), np.arange(8, dtype=np.int32))
case("scatter_rows", "clean", lambda b, idx, v: b.at[idx].set(v),
     lambda b, idx, v: _set(b, idx, v), I8x16, np.array([1, 5], np.int32),
     np.ones((2, 16), np.int32))
case("scatter_same_rows", "clean", lambda b, idx: b.at[idx].set(b[idx] * 2),
     lambda b, idx: _set(b, idx, b[idx] * 2), I8x16, np.array([1, 5], np.int32))
case("cumsum_tail", "clean", lambda b: b.at[2:].set(jnp.cumsum(b[2:], axis=0)),
     lambda b: _set(b, slice(2, None), np.cumsum(b[2:], axis=0)), I8x16)
case("roll_rows", "clean", lambda b: b.at[:].set(jnp.roll(b, 1, axis=0)),
     lambda b: np.roll(b, 1, axis=0), I8x16)
case("transpose_square", "clean", lambda b: b.at[:].set(b.T), lambda b: b.T,
     np.arange(64, dtype=np.int32).reshape(8, 8))


def _kv(cache, v, i):
    return lax.dynamic_update_slice(cache, v, (i, 0))


CASES["kv_write_donated"] = ("clean", lambda c, v, i: _set(c, i, v[0]), lambda: (
    jax.jit(_kv, donate_argnums=(0,)),
    (jnp.asarray(I8x16), jnp.full((1, 16), 7, jnp.int32), jnp.int32(5))))
kv_write_donated = CASES["kv_write_donated"][2]


# Loops with carries (lax.scan, fori_loop), references in numpy.
def _scan_np(step, carry, xs):
    ys = []
    for x in zip(*xs) if isinstance(xs, tuple) else xs:
        carry, y = step(carry.copy(), x)
        ys.append(y)
    return carry, np.asarray(ys)


def _cache_step(c, x):
    i, v = x
    return lax.dynamic_update_slice(c, v[None], (i, 0)), None


def scan_cache_carry(cache, xs):
    def body(c, x):
        c, _ = _cache_step(c, x)
        return c, c.sum()

    return lax.scan(body, cache, xs)


def _scan_cache_np(c, x):
    i, v = x
    c[i] = v
    return c, c.sum()


def scan_carry_at(c0, xs):
    def body(c, x):
        i, v = x
        c = c.at[i].set(c[i] * 0.5 + v)
        return c, c[i].sum()

    return lax.scan(body, c0, xs)


def _carry_at_np(c, x):
    i, v = x
    c[i] = c[i] * np.float32(0.5) + v
    return c, c[i].sum()


def scan_elementwise(c0, xs):
    return lax.scan(lambda c, x: (c * 0.9 + x, (c * 0.9 + x).sum()), c0, xs)


def _elementwise_np(c, x):
    c = c * np.float32(0.9) + x
    return c, c.sum()


def scan_shift_carry(c0, xs):
    def body(c, x):
        c = c.at[1:].set(c[:-1] + x[0])
        return c, c.sum()

    return lax.scan(body, c0, xs)


def _shift_carry_np(c, x):
    c = np.concatenate([c[:1], c[:-1] + x[0]])
    return c, c.sum()


def fori_states(s0):
    return lax.fori_loop(1, 8, lambda t, s: s.at[t].set(s[t - 1] * 2 + 1), s0)


def _fori_states_np(s):
    s = s.copy()
    for t in range(1, 8):
        s[t] = s[t - 1] * 2 + 1
    return s


def decode_kv_cache(cache, xs):
    def step(c, x):
        t, v = x
        c = lax.dynamic_update_slice(c, v[None, :, None], (0, 0, t))
        return c, (c * v[None, :, None]).sum()

    return lax.scan(step, cache, xs)


def _decode_np(c, x):
    t, v = x
    c[0, :, t] = v
    return c, (c * v[None, :, None]).sum()


_IDX = np.arange(8, dtype=np.int32)
_ROWS = np.ones((8, 16), np.float32) + F8x16
for _name, _fn, _np_step, _args in [
    ("scan_cache_carry", scan_cache_carry, _scan_cache_np, (np.zeros((8, 16), np.float32), (_IDX, _ROWS))),
    ("scan_carry_at", scan_carry_at, _carry_at_np, (F8x16, (_IDX, _ROWS))),
    ("scan_elementwise", scan_elementwise, _elementwise_np, (F8x16[0], F8x16)),
    ("scan_shift_carry", scan_shift_carry, _shift_carry_np, (F8x16, F8x16)),
    ("decode_kv_cache", decode_kv_cache, _decode_np, (np.zeros((1, 16, 8), np.float32), (_IDX, _ROWS))),
]:
    case(_name, "clean", _fn, (lambda step: lambda c, xs: _scan_np(step, c, xs))(_np_step), *_args,
         wrap=False)
case("fori_states", "clean", fori_states, _fori_states_np, F8x16, wrap=False)
