"""Words that move with their loops (TRACE.md `steps`, workloads/runtimes/common/steps.py) on
the small hand-made trace: a delta becomes the repeat's `deltas`, offsets per iteration its
`frames` (a delta beside them written per frame), loops merged from one range give frames of the
merged shift; each plan certifies 0 with `--exact` agreeing, and the same plan with the delta
made to leave the plane gets rule C at that launch. A step that leaves its value, names a loop
that does not run its op, or is malformed exits 2 naming the word. Usage: test_steps.py ARENACERT"""

import json
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import test_common as tc  # noqa: E402  (small(), certify(), cli())

common = tc.common


def moving(steps, iterations=5, offset=0):
    """small() with op 3 (mm2)'s word on y (128 bytes) moving with loop 0 (ops [1, 5))."""
    raw = tc.small()
    raw["loops"][0]["iterations"] = iterations
    raw["ops"][3]["words"][2] = {"value": "y", "offset": offset, "steps": steps}
    return raw


def both(plan):
    return tc.certify(plan)[0], tc.certify(plan, exact=True)[0]


class Planned(unittest.TestCase):
    def test_delta_is_the_repeats_delta(self):
        for it in (2, 8):  # few points, then past few = 16 in the test below
            plan, _ = common.export(moving([{"loop": 0, "delta": 16}], it))
            self.assertEqual(plan["repeats"][0]["deltas"],
                             [{"launch": 3, "word": 2, "delta": 16}])
            self.assertEqual(plan["meta"]["counts"]["words_moving"], 1)
            self.assertEqual(both(plan), (0, 0), it)

    def test_hull_past_few(self):
        # 20 iterations of 4 bytes: more than few points, so the certificate takes the hull
        plan, _ = common.export(moving([{"loop": 0, "delta": 4}], 20))
        self.assertEqual(both(plan), (0, 0))

    def test_the_certificate_sees_the_delta(self):
        # the same plan, the delta made to carry the word past y at iteration 4: rule C there
        plan, _ = common.export(moving([{"loop": 0, "delta": 16}]))
        plan["repeats"][0]["deltas"][0]["delta"] = 64
        v, out = tc.certify(plan)
        self.assertEqual(v, 2 + 3, out)
        self.assertEqual(tc.certify(plan, exact=True)[0], 2 + 3)

    def test_offsets_are_frames(self):
        offs = [0, 64, 32, 96, 0]
        raw = moving([{"loop": 0, "offsets": offs}])
        raw["ops"][3]["words"][0] = {"value": "h2", "offset": 0,
                                     "steps": [{"loop": 0, "delta": 8}]}
        plan, _ = common.export(raw)
        rep = plan["repeats"][0]
        self.assertNotIn("deltas", rep)
        self.assertEqual(len(rep["frames"]), 5)
        self.assertEqual(rep["frames"][1], [{"launch": 3, "word": 0, "offset": 8},
                                            {"launch": 3, "word": 2, "offset": 64}])
        self.assertEqual(rep["frames"][4], [{"launch": 3, "word": 0, "offset": 32}])
        self.assertEqual(both(plan), (0, 0))

    def test_zero_size_words_keep_the_index(self):
        raw = moving([{"loop": 0, "delta": 16}])
        raw["values"].append({"id": "z", "region": "temp", "offset": 0, "size": 0})
        raw["ops"][3]["reads"].append("z")
        raw["ops"][3]["words"].insert(0, {"value": "z", "offset": 0})
        plan, _ = common.export(raw)
        self.assertEqual(plan["repeats"][0]["deltas"], [{"launch": 3, "word": 2, "delta": 16}])
        self.assertEqual(both(plan), (0, 0))

    def test_merged_loops_give_the_merged_shift(self):
        # the same range twice: loop 0 (5 iterations, listed first: inner) and loop 1 (2)
        raw = moving([{"loop": 0, "delta": 8}, {"loop": 1, "delta": 64}])
        raw["loops"].append({"first": 1, "count": 4, "iterations": 2})
        plan, _ = common.export(raw)
        (rep,) = plan["repeats"]
        self.assertEqual(rep["iterations"], 10)
        got = [sum(e["offset"] for e in f) for f in rep["frames"]]
        self.assertEqual(got, [8 * (m % 5) + 64 * (m // 5) for m in range(10)])
        self.assertEqual(both(plan), (0, 0))
        # affine once merged (outer delta = 5 x inner): deltas
        raw = moving([{"loop": 0, "delta": 4}, {"loop": 1, "delta": 20}])
        raw["loops"].append({"first": 1, "count": 4, "iterations": 2})
        plan, _ = common.export(raw)
        self.assertEqual(plan["repeats"][0]["deltas"], [{"launch": 3, "word": 2, "delta": 4}])


BAD = [
    # (steps on op 3's word 2, the iterations of loop 0, the message)
    ([{"loop": 0, "delta": 32}], 5, "op 3 (mm2).words[2].steps: the word leaves value 'y' "
     "(128 bytes): offset 0 + 32 x the iteration of loop 0 is 128 at iteration 4"),
    ([{"loop": 0, "delta": -16}], 5, "offset 0 + -16 x the iteration of loop 0 is -16 at "
     "iteration 1"),
    ([{"loop": 0, "offsets": [0, 8, 200, 0, 0]}], 5, "loop 0's offsets is 200 at iteration 2"),
    ([{"loop": 0, "offsets": [0, 8]}], 5, "steps[0].offsets: expected 5 offsets"),
    ([{"loop": 0, "delta": 8, "offsets": [0] * 5}], 5, "expected exactly one of delta and offsets"),
    ([{"loop": 0}], 5, "expected exactly one of delta and offsets"),
    ([{"loop": 1, "delta": 8}], 5, "steps[0].loop: 1, but the trace has 1 loops"),
    ([{"loop": 0, "delta": 8}, {"loop": 0, "delta": 8}], 5, "steps[1].loop: loop 0 named twice"),
    ([{"delta": 8}], 5, "steps[0].loop: missing"),
    ({"loop": 0}, 5, "op 3 (mm2).words[2].steps: expected an array"),
    ([{"loop": 0, "delta": 1.5}], 5, "steps[0].delta: expected an integer"),
]


class Refused(unittest.TestCase):
    def test_each_bad_step_exits_2_naming_the_word(self):
        for i, (steps, it, message) in enumerate(BAD):
            r = tc.cli(["-"], json.dumps(moving(steps, it)))
            self.assertEqual(r.returncode, 2, (i, r.stderr))
            self.assertIn(message, r.stderr, i)
            self.assertNotIn("Traceback", r.stderr)
            self.assertEqual(r.stdout, "")

    def test_a_loop_that_does_not_run_the_op(self):
        raw = moving([{"loop": 1, "delta": 8}])
        raw["loops"].append({"first": 4, "count": 1, "iterations": 3})
        r = tc.cli(["-"], json.dumps(raw))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("steps[0].loop: loop 1 (ops [4, 5)) does not run op 3", r.stderr)


if __name__ == "__main__":
    tc.ARENACERT = sys.argv.pop(1)
    unittest.main(verbosity=1)
