"""The arithmetic of workloads/runtimes/xla/inplace.py without jax: footprints of index maps as
byte ranges (boxes, dynamic starts hulled over their clamped range, reversed and broadcast
dimensions, the cap), reshapes of strides, and the identity test at a dynamic-update-slice's box.
Usage: test_inplace_units.py   (Debian's python3, standard library only)"""

import os
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "workloads", "runtimes", "xla"))
import inplace as ip  # noqa: E402  (no jax, no protobuf: the module alone)


def brute(m, nelem):
    """Every element the map reads, by enumeration."""
    import itertools

    dims = [range(n) for n in m.extents] + [range(n) for _, n in m.hidden]
    terms = [range(hi + 1) for (_, hi), _ in m.terms]
    out = set()
    for k in itertools.product(*dims):
        for t in itertools.product(*terms):
            e = m.const + sum(a * s for a, s in zip(k, list(m.strides) + [s for s, _ in m.hidden]))
            e += sum(v * c for v, (_, c) in zip(t, m.terms))
            if 0 <= e < nelem:
                out.add(e)
    return out


def as_set(ranges):
    return {e for a, b in ranges for e in range(a, b)}


class Footprint(unittest.TestCase):
    def check(self, m, nelem, exact=True):
        got = ip.footprint(m, nelem)
        self.assertEqual(got, ip.merge(got))  # sorted, disjoint
        if exact:
            self.assertEqual(as_set(got), brute(m, nelem))
        else:
            self.assertTrue(as_set(got) >= brute(m, nelem))
        return got

    def test_rows_and_columns(self):
        # rows 0-6 of an [8,16] (the shift's read), a column, a block
        self.assertEqual(self.check(ip.Map(0, (), (16, 1), (7, 16)), 128), [[0, 112]])
        self.assertEqual(self.check(ip.Map(5, (), (16, 1), (8, 1)), 128),
                         [[5 + 16 * r, 6 + 16 * r] for r in range(8)])
        self.check(ip.Map(16 * 2 + 3, (), (16, 1), (3, 4)), 128)

    def test_dynamic_start_hull(self):
        # a row at a dynamic index of [8,16]: every row; 5 rows from a start in [0, 3]: rows 0-7
        key = (("instr", 7), 7)
        self.assertEqual(self.check(ip.Map(0, ((key, 16),), (16, 1), (1, 16)), 128), [[0, 128]])
        key = (("instr", 7), 3)
        self.assertEqual(self.check(ip.Map(0, ((key, 16),), (16, 1), (5, 16)), 128), [[0, 128]])
        # a column at a dynamic index: the hull of the columns, row by row
        key = (("instr", 9), 15)
        self.check(ip.Map(0, ((key, 1),), (16, 1), (8, 1)), 128)

    def test_transposed_reversed_broadcast(self):
        self.check(ip.Map(0, (), (1, 16), (16, 8)), 128)  # a transpose of [8,16]
        self.check(ip.Map(7 * 16, (), (-16, 1), (4, 16)), 128)  # rows 7..4, reversed
        self.assertEqual(self.check(ip.Map(32, (), (0, 1), (5, 16)), 128), [[32, 48]])  # broadcast

    def test_hidden_dimensions(self):
        # a reduce over the rows of [8,16] (column sums): every element
        self.assertEqual(self.check(ip.Map(0, (), (1,), (16,), hidden=((16, 8),)), 128),
                         [[0, 128]])

    def test_cap_is_a_superset(self):
        # 1000 single elements 3 apart: hulled down to at most the cap
        got = self.check(ip.Map(0, (), (3,), (1000,)), 3000, exact=False)
        self.assertLessEqual(len(got), ip.RANGES_CAP)
        self.assertLessEqual(len(ip._cap([[3 * i, 3 * i + 1] for i in range(1000)])), ip.RANGES_CAP)


class Reshape(unittest.TestCase):
    def test_degenerate_and_contiguous(self):
        # [3,1,1] -> [1,3,1] (the known bug's bitcast), [8,16] -> [128], [128] -> [8,16]
        self.assertEqual(ip.reshape_strides([3, 1, 1], [1, 7, 9], [1, 3, 1]), [0, 1, 0])
        self.assertEqual(ip.reshape_strides([8, 16], [16, 1], [128]), [1])
        self.assertEqual(ip.reshape_strides([128], [1], [8, 16]), [16, 1])
        self.assertEqual(ip.reshape_strides([8, 16], [0, 1], [2, 4, 16]), [0, 0, 1])

    def test_not_affine(self):
        # a transposed [8,16] (strides 1, 16) flattened is no affine map: None
        self.assertIsNone(ip.reshape_strides([16, 8], [1, 16], [128]))
        # a slice's rows (stride 16, width 4) merged
        self.assertIsNone(ip.reshape_strides([8, 4], [16, 1], [32]))


if __name__ == "__main__":
    unittest.main(verbosity=1)
