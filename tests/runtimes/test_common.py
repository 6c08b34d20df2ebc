"""The shared trace-to-plan layer (workloads/runtimes/common) on small hand-made traces: clean
plans certify 0 at every loop count (and the exact oracle agrees), each planted fault gets its
class, the placement problem is what the lifetimes say, and every validation rule refuses a bad
trace with exit 2 naming the op or value. Usage: test_common.py ARENACERT"""

import atexit
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "workloads", "runtimes"))
import common  # noqa: E402

ARENACERT = None
TMP = tempfile.mkdtemp(prefix="arenaref-runtimes-")
atexit.register(shutil.rmtree, TMP, ignore_errors=True)


def small():
    with open(os.path.join(HERE, "small.trace.json")) as f:
        return json.load(f)


def certify(plan, exact=False):
    path = os.path.join(TMP, "plan.json")
    with open(path, "w") as f:
        json.dump(plan, f)
    r = subprocess.run([ARENACERT, "certify", path] + (["--exact"] if exact else []),
                       capture_output=True, text=True)
    if r.returncode == 2:
        raise AssertionError(f"arenacert refused the plan: {r.stderr}")
    first = r.stdout.splitlines()[0]
    assert first.startswith("verdict: "), r.stdout
    return int(first.split()[1]), r.stdout


def verdict_class(v, n):
    return "0" if v == 0 else "B" if v == 1 else "C" if v < 2 + n else "D"


class Clean(unittest.TestCase):
    def test_certifies_at_every_loop_count(self):
        for it in (1, 2, 3, 16, 17, 1000):
            raw = small()
            raw["loops"][0]["iterations"] = it
            plan, t = common.export(raw)
            self.assertEqual(certify(plan)[0], 0, it)
            self.assertEqual(certify(plan, exact=True)[0], 0, it)
            self.assertEqual(plan["meta"]["counts"]["ops_executed"], 2 + 4 * it)

    def test_plan_shape(self):
        plan, _ = common.export(small())
        self.assertEqual(plan["windows"][0], {"base": "0x100000000000", "size": 1024})
        self.assertEqual(plan["globals"], [{"name": "w0", "base": "0x200000000000", "size": 256}])
        relu = plan["phases"][2]
        self.assertEqual(relu["planes"], [{"name": "h", "base": "0x100000000080", "size": 128,
                                           "carried": True, "becomes": "h2"}])
        acc = plan["phases"][4]["planes"]
        self.assertIn({"name": "acc", "base": "0x100000000200", "size": 64, "carried": True}, acc)
        self.assertEqual(plan["launches"][3]["words"],
                         ["0x100000000080", "0x200000000040", "0x100000000100", 7])
        self.assertEqual(plan["repeats"], [{"first": 1, "count": 4, "iterations": 5, "deltas": []}])
        self.assertEqual(plan["meta"]["counts"]["in_place_updates"], 2)

    def test_windowless_region(self):
        # read-only constants (LiteRT's): whole-program values of a region without a window are
        # neither windows nor globals (nor counted as such); their words stay plain addresses
        raw = small()
        raw["regions"].append({"name": "k", "kind": "constants", "size": 100, "window": False})
        raw["values"].append({"id": "k0", "region": "k", "offset": 4, "size": 12,
                              "whole_program": True})
        raw["ops"][1]["reads"].append("k0")
        plan, _ = common.export(raw)
        self.assertEqual(len(plan["windows"]), 2)
        self.assertEqual([g["name"] for g in plan["globals"]], ["w0"])
        self.assertEqual(plan["meta"]["counts"]["globals"], 1)
        self.assertIn("0x300000000004", plan["launches"][1]["words"])
        self.assertEqual(certify(plan)[0], 0)

    def test_same_bytes_whatever_the_recorded_bases(self):
        a = small()
        b = small()
        b["regions"][0]["base"] += 4096 * 77
        pa, pb = common.export(a)[0], common.export(b)[0]
        for p in (pa, pb):
            del p["meta"]
        self.assertEqual(json.dumps(pa), json.dumps(pb))

    def test_nested_loops_and_back_edge(self):
        raw = small()
        raw["loops"] = [{"first": 1, "count": 4, "iterations": 3},
                        {"first": 2, "count": 2, "iterations": 20}]
        # h2 is read by mm2 then relu updates h (not h2) again: the inner loop rereads h, which
        # is gone. Recorded as it is, planned, and the certificate's rule D refuses it.
        plan, _ = common.export(raw)
        v, out = certify(plan)
        self.assertEqual(verdict_class(v, len(plan["launches"])), "D", out)
        self.assertIn("2:relu", out)
        raw["loops"] = [{"first": 1, "count": 4, "iterations": 3},
                        {"first": 3, "count": 2, "iterations": 20}]
        plan, t = common.export(raw)
        self.assertEqual(certify(plan)[0], 0)
        self.assertEqual(certify(plan, exact=True)[0], 0)
        self.assertEqual(t.executed, 2 + 3 * (2 + 2 * 20))


def ranged():
    """small() with ranges: relu reads [0, 64) of h across elements and writes [64, 128) (a
    shift that never overwrites what it reads); acc's update keeps its name and writes 4 bytes."""
    raw = small()
    raw["ops"][2]["updates"][0].update(reads=[{"offset": 0, "size": 64}],
                                       writes=[{"offset": 64, "size": 64}])
    raw["ops"][4]["updates"][0].update(writes=[{"offset": 0, "size": 4}], reads=None)
    return raw


class Ranges(unittest.TestCase):
    """An update's reads/writes (TRACE.md) carried to the plane (CERTIFICATE.md section 1)."""

    def test_carried_to_the_plane(self):
        plan, _ = common.export(ranged())
        self.assertEqual(plan["phases"][2]["planes"], [
            {"name": "h", "base": "0x100000000080", "size": 128, "carried": True,
             "becomes": "h2", "reads": [{"offset": 0, "size": 64}],
             "writes": [{"offset": 64, "size": 64}]}])
        # same name: becomes its own name (a no-op), so that writes has its becomes
        self.assertIn({"name": "acc", "base": "0x100000000200", "size": 64, "carried": True,
                       "becomes": "acc", "writes": [{"offset": 0, "size": 4}]},
                      plan["phases"][4]["planes"])
        c = plan["meta"]["counts"]
        self.assertEqual((c["updates_with_reads"], c["updates_with_writes"]), (1, 2))
        self.assertEqual(certify(plan)[0], 0)
        self.assertEqual(certify(plan, exact=True)[0], 0)

    def test_absent_and_empty(self):
        raw = small()
        raw["ops"][2]["updates"][0].update(reads=None, writes=None)  # null: absent
        plan, _ = common.export(raw)
        self.assertEqual(plan, common.export(small())[0] | {"meta": plan["meta"]})
        raw["ops"][2]["updates"][0].update(reads=[], writes=[])  # empty: nothing
        plan, _ = common.export(raw)
        self.assertEqual(plan["phases"][2]["planes"][0]["reads"], [])
        self.assertEqual(plan["phases"][2]["planes"][0]["writes"], [])
        self.assertEqual(certify(plan)[0], 0)

    def test_kept_by_faults_and_placement(self):
        # a moved value takes its update's ranges along; the problem does not change
        for seed in range(4):
            plan, _ = common.export(ranged(), "B", seed)
            planes = [p for ph in plan["phases"] for p in ph["planes"] if "writes" in p]
            self.assertEqual(len(planes), 2, seed)
        self.assertEqual(common.problem(common.validate(ranged()))["csv"],
                         common.problem(common.validate(small()))["csv"])

    def test_overlap_is_rule_d_at_its_instance(self):
        # relu reads [0, 64) and writes [32, 96): the shift reads bytes it overwrote
        raw = ranged()
        raw["ops"][2]["updates"][0]["writes"] = [{"offset": 32, "size": 64}]
        r = cli(["-"], json.dumps(raw))
        self.assertEqual(r.returncode, 0, r.stderr)
        plan = json.loads(r.stdout)
        v, out = certify(plan)
        # instances: upload 0, mm 1, relu 2: verdict 2 + 6 launches + 2
        self.assertEqual(v, 10, out)
        self.assertIn("2:relu", out)
        self.assertEqual(certify(plan, exact=True)[0], 10)

    def test_first_instance_matches_the_executed_order(self):
        from common.trace import executed_sequence, first_instance

        cases = [[], [{"first": 1, "count": 4, "iterations": 5}],
                 [{"first": 2, "count": 1, "iterations": 7}],
                 [{"first": 1, "count": 4, "iterations": 3}, {"first": 2, "count": 2, "iterations": 4}],
                 [{"first": 1, "count": 4, "iterations": 3}, {"first": 3, "count": 1, "iterations": 4},
                  {"first": 4, "count": 1, "iterations": 2}],
                 [{"first": 0, "count": 6, "iterations": 2}, {"first": 0, "count": 1, "iterations": 3},
                  {"first": 5, "count": 1, "iterations": 3}]]
        for loops in cases:
            raw = small()
            raw["loops"] = loops
            t = common.validate(raw)
            seq = executed_sequence(t)
            runs = [k for i, k in enumerate(seq) if i == 0 or seq[i - 1] != k]
            for k in range(len(t.ops)):
                self.assertEqual(first_instance(t, k), runs.index(k), (loops, k))


class Faults(unittest.TestCase):
    def check(self, rule, kind, seed, want):
        plan, _ = common.export(small(), rule, seed, kind)
        n = len(plan["launches"])
        v, out = certify(plan)
        ve, _ = certify(plan, exact=True)
        self.assertEqual(plan["meta"]["fault"]["expect_class"], want, plan["meta"]["fault"])
        self.assertEqual(verdict_class(v, n), want, out)
        self.assertEqual(verdict_class(ve, n), want)
        if want == "C":
            self.assertEqual(v, plan["meta"]["expect"])
        return plan

    def test_move_b(self):
        for seed in range(4):
            self.check("B", None, seed, "B")

    def test_move_d(self):
        for seed in range(4):
            self.check("D", "move", seed, "D")

    def test_inplace_d(self):
        plan = self.check("D", None, 0, "D")
        f = plan["meta"]["fault"]
        self.assertEqual(f["kind"], "inplace")
        planes = plan["phases"][f["op"]]["planes"]
        self.assertTrue(any(p.get("becomes") == f["plane"] for p in planes))

    def test_word_c(self):
        for seed in range(6):
            self.check("C", None, seed, "C")

    def test_reads_d(self):
        # an in-place update made to read across elements what it writes: rule D, exactly at the
        # first instance of its phase (relu: instance 2; acc in the loop: instance 4)
        for raw in (small(), ranged()):
            for seed in range(2):
                plan = self.check("D", "reads", seed, "D")
                plan2, _ = common.export(raw, "D", seed, "reads")
                f = plan2["meta"]["fault"]
                self.assertEqual(certify(plan2)[0], plan2["meta"]["expect"], f)
                self.assertEqual(certify(plan2, exact=True)[0], plan2["meta"]["expect"])
                phase = plan2["phases"][f["op"]]
                self.assertTrue(any(p.get("reads") == f["reads"] for p in phase["planes"]))
        with self.assertRaises(common.TraceError):
            common.export(small(), "B", 0, "reads")

    def test_any_is_a_move(self):
        plan = common.export(small(), "any", 1)[0]
        self.assertEqual(plan["meta"]["fault"]["kind"], "move")
        self.assertIn(plan["meta"]["fault"]["expect_class"], ("B", "D"))

    def test_seed_is_deterministic(self):
        a = common.export(small(), "B", 3)[0]
        b = common.export(small(), "B", 3)[0]
        self.assertEqual(a, b)


def state_loop():
    """A loop whose state s is read at the body's start and rewritten at its end (as XLA
    copies loop state): between the two, u lies on s's bytes. t and v are not 64-byte long."""
    v = lambda i, off, size: {"id": i, "region": "temp", "offset": off, "size": size}
    return {
        "format": "arena-trace/1",
        "runtime": {"name": "hand"},
        "program": {"name": "loop"},
        "alignment": 64,
        "regions": [
            {"name": "temp", "kind": "arena", "base": 1 << 20, "size": 112, "planned_size": 112}
        ],
        "values": [v("s", 0, 64), v("t", 64, 48), v("u", 0, 64), v("v", 64, 40)],
        "ops": [
            {"kernel": "upload", "writes": ["s"]},
            {"kernel": "a", "reads": ["s"], "writes": ["t"]},
            {"kernel": "b", "reads": ["t"], "writes": ["u"]},
            {"kernel": "c", "reads": ["u"], "writes": ["v"]},
            {"kernel": "copy", "reads": ["v"], "writes": ["s"]},
            {"kernel": "readback", "reads": ["s"]},
        ],
        "loops": [{"first": 1, "count": 4, "iterations": 3}],
    }


class Placement(unittest.TestCase):
    def test_problem(self):
        t = common.validate(small())
        p = common.problem(t)
        # x and acc live over everything; h/h2 one in-place class (ops 1..3); y ops 3..4.
        self.assertEqual(
            p["csv"],
            "id,lower,upper,size,alignment,group\n0,0,6,128,64,0\n1,0,6,64,64,1\n"
            "2,1,4,128,64,2\n3,3,5,128,64,3\n",
        )
        self.assertEqual(p["rows"][2]["values"], ["h", "h2"])
        self.assertEqual((p["rows"][2]["id"], p["rows"][2]["group"]), ("2", 2))
        self.assertEqual(p["planned_size"], 1024)
        self.assertEqual(p["max_live"], 128 + 64 + 128 + 128)

    def test_place_reads_it(self):
        t = common.validate(small())
        path = os.path.join(TMP, "p.csv")
        with open(path, "w") as f:
            f.write(common.problem(t)["csv"])
        r = subprocess.run(
            [ARENACERT, "place", path, "--strategy", "greedy-by-size"],
            capture_output=True,
            text=True,
        )
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_loop_state_runs(self):
        # s is live at ops 0..1 and 4..5 (written order), not over the body's middle, where u
        # takes its bytes; sizes are the values' own, with the alignment beside them. Its two
        # rows have ids of their own (0, 0.1) and one group (0).
        p = common.problem(common.validate(state_loop()))
        self.assertEqual(
            p["csv"],
            "id,lower,upper,size,alignment,group\n0,0,2,64,64,0\n0.1,4,6,64,64,0\n"
            "1,1,3,48,64,1\n2,2,4,64,64,2\n3,3,5,40,64,3\n",
        )
        self.assertEqual([r["id"] for r in p["rows"]], ["0", "0.1", "1", "2", "3"])
        self.assertEqual([r["group"] for r in p["rows"]], [0, 0, 1, 2, 3])
        self.assertEqual(
            [b["runs"] for b in p["buffers"]], [[[0, 2], [4, 6]], [[1, 3]], [[2, 4]], [[3, 5]]]
        )
        self.assertEqual(p["max_live"], 112)  # one hull for s would make it 176
        self.assertEqual(p["planned_size"], 112)
        path = os.path.join(TMP, "loop.csv")
        with open(path, "w") as f:
            f.write(p["csv"])
        for strategy in ("greedy-by-size", "best-fit", "search"):
            r = subprocess.run(
                [ARENACERT, "place", path, "--strategy", strategy], capture_output=True, text=True
            )
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("buffers: 4\nrows: 5\n", r.stderr)
            self.assertIn("lower_bound: 112\n", r.stderr)
            self.assertIn("height: 112\n", r.stderr)
            self.assertTrue(r.stdout.startswith("id,lower,upper,size,alignment,group,offset\n"))
            self.assertIn("\n0.1,4,6,64,64,0,", r.stdout)
        # The runtime's own offsets are a placement of the problem: its plan certifies 0.
        own = {"s": 0, "t": 64, "u": 0, "v": 64}
        with open(path, "w") as f:
            f.write(
                "id,lower,upper,size,group,offset\n"
                + "".join(
                    f"{r['id']},{r['lower']},{r['upper']},{r['size']},{r['group']},"
                    f"{own[r['values'][0]]}\n"
                    for r in p["rows"]
                )
            )
        r = subprocess.run(
            f"{ARENACERT} import {path} --alignment 64 | {ARENACERT} certify -",
            shell=True,
            capture_output=True,
            text=True,
        )
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_max_live_counts_rows(self):
        rows = [
            {"lower": 0, "upper": 2, "size": 10},
            {"lower": 4, "upper": 6, "size": 10},
            {"lower": 2, "upper": 4, "size": 7},
            {"lower": 3, "upper": 3, "size": 99},
        ]
        self.assertEqual(common.max_live(rows), 10)


def cli(args, stdin=None):
    return subprocess.run([os.path.join(ROOT, "scripts", "trace-plan")] + args,
                          capture_output=True, text=True, input=stdin)


BAD = [
    # (what to break, message that must be in the error)
    (lambda r: r.update(format="arena-trace/0"), "trace.format"),
    (lambda r: r.pop("ops"), "trace.ops: missing"),
    (lambda r: r.update(alignment=48), "not a power of two"),
    (lambda r: r["regions"].append(dict(r["regions"][0])), "region 'temp' declared twice"),
    (lambda r: r["regions"][0].update(kind="heap"), "trace.regions[0].kind"),
    (lambda r: r["values"].append(dict(r["values"][1])), "value 'x' (trace.values[6]): id declared twice"),
    (lambda r: r["values"][1].update(region="nowhere"), "value 'x' (trace.values[1]).region"),
    (lambda r: r["values"][4].update(offset=960), "value 'y' (trace.values[4]): bytes [960, 1088)"),
    (lambda r: r["values"][4].update(offset=260), "value 'y' (trace.values[4]).offset: 260"),
    (lambda r: r["values"][4].update(size="big"), "value 'y' (trace.values[4]).size: expected an integer"),
    (lambda r: r["ops"][1]["reads"].append("ghost"), "op 1 (mm).reads[2]: unknown value 'ghost'"),
    (lambda r: r["ops"][2]["updates"][0].update(to="y"), "op 2 (relu).updates[0]: in-place update from 'h' to 'y' on different bytes"),
    (lambda r: r["ops"][1]["writes"].append("x"), "op 1 (mm): value 'x' is both read and written"),
    (lambda r: r["ops"][3]["words"].append({"value": "h2", "offset": 128}), "op 3 (mm2).words[4]: offset 128 lies outside value 'h2'"),
    (lambda r: r["ops"][3]["words"].append({"value": "x"}), "op 3 (mm2).words[4]: names value 'x', which the op neither reads nor writes"),
    (lambda r: r["values"].append({"id": "w1", "region": "w", "offset": 128, "size": 64, "whole_program": True}), "whole-program values 'w0' and 'w1' share bytes"),
    (lambda r: r["loops"].append({"first": 3, "count": 3, "iterations": 2}), "loop 0 (ops [1, 5)) and loop 1 (ops [3, 6)) overlap without nesting"),
    (lambda r: r["loops"].append({"first": 5, "count": 3, "iterations": 2}), "loop 1 (trace.loops[1]): ops [5, 8) run past the 6 ops"),
    (lambda r: r["loops"][0].update(iterations=0), "loop 0 (trace.loops[0]): count 4 and iterations 0"),
    (lambda r: r.update(ops=[]), "trace.ops: no ops"),
    # an update's reads/writes: byte ranges of the value, at least one byte, inside it
    (lambda r: r["ops"][2]["updates"][0].update(reads=5), "op 2 (relu).updates[0].reads: expected an array of {offset, size} byte ranges of value 'h'"),
    (lambda r: r["ops"][2]["updates"][0].update(writes=[[0, 4]]), "op 2 (relu).updates[0].writes[0]: expected an object {offset, size} (a byte range of value 'h')"),
    (lambda r: r["ops"][2]["updates"][0].update(writes=[{"offset": 0, "size": 0}]), "op 2 (relu).updates[0].writes[0]: size 0: a range of value 'h' holds at least one byte"),
    (lambda r: r["ops"][2]["updates"][0].update(reads=[{"offset": 0, "size": 8}, {"offset": 100, "size": 29}]), "op 2 (relu).updates[0].reads[1]: bytes [100, 129) run past value 'h' (128 bytes)"),
    (lambda r: r["ops"][4]["updates"][0].update(reads=[{"offset": -4, "size": 8}]), "op 4 (acc).updates[0].reads[0].offset: -4 is negative (a byte range of value 'acc')"),
    (lambda r: r["ops"][4]["updates"][0].update(writes=[{"offset": 4}]), "op 4 (acc).updates[0].writes[0].size: missing (a byte range of value 'acc')"),
    (lambda r: r["ops"][4]["updates"][0].update(writes=[{"offset": 4, "size": 1.5}]), "op 4 (acc).updates[0].writes[0].size: expected an integer, got 1.5 (a byte range of value 'acc')"),
]


# Unsound as recorded, well formed: exported (exit 0), and the certificate gives the verdict.
# (what to break, verdict class, text the certificate's message must hold)
UNSOUND = [
    # acc read by op 4 but never written: a carried plane nobody declared
    (lambda r: r["ops"][0]["writes"].remove("acc"), "D", 'phase "4:acc") starts with carried plane "acc"'),
    # the readback reads h, which relu updated in place into h2
    (lambda r: r["ops"][5]["reads"].append("h"), "D", 'carries "h" [0x100000000080, 0x100000000100), which phase "2:relu" updated in place into "h2"'),
    # y written over x while x is still read (by the readback)
    (lambda r: r["values"][4].update(offset=0), "D", 'carried plane "x" [0x100000000000, 0x100000000080), but plane "y"'),
    # x and h on the same bytes, in one op: overlapping planes of one phase
    (lambda r: [r["values"][i].update(offset=0) for i in (2, 3)], "B", 'phase "1:mm": planes "x"'),
]


class Recorded(unittest.TestCase):
    def test_unsound_traces_export_and_certify_refuses(self):
        for i, (edit, want, where) in enumerate(UNSOUND):
            raw = small()
            edit(raw)
            r = cli(["-"], json.dumps(raw))
            self.assertEqual(r.returncode, 0, (i, r.stderr))
            plan = json.loads(r.stdout)
            v, out = certify(plan)
            self.assertEqual(verdict_class(v, len(plan["launches"])), want, (i, out))
            self.assertIn(where, out, i)
            ve, _ = certify(plan, exact=True)
            self.assertEqual(ve, v, i)

    def test_own_offsets_of_an_unsound_plan_are_no_placement(self):
        # y written over x while x is still read: the problem still gets each lifetime, and the
        # runtime's own offsets are no valid placement of it: `arenacert import | certify` (which
        # certifies a placement exactly when it is valid) refuses them, as it refuses the plan
        raw = small()
        raw["values"][4]["offset"] = 0
        t = common.validate(raw)
        p = common.problem(t)
        own = {vid: t.values[vid]["offset"] for vid in t.values}
        path = os.path.join(TMP, "own.csv")
        with open(path, "w") as f:
            f.write("id,lower,upper,size,group,offset\n" + "".join(
                f"{r['id']},{r['lower']},{r['upper']},{r['size']},{r['group']},"
                f"{own[r['values'][0]]}\n" for r in p["rows"]))
        r = subprocess.run(f"{ARENACERT} import {path} --alignment 64 | {ARENACERT} certify -",
                           shell=True, capture_output=True, text=True)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("verdict: ", r.stdout)

    def test_lifetimes_not_judged(self):
        # A value read after it was updated away: its run goes on to that read (first write to
        # last read), and its class's buffer covers it.
        raw = small()
        raw["loops"] = []
        raw["ops"][5]["reads"].append("h")
        t = common.validate(raw)
        self.assertEqual(t.intervals["h"], [[1, 5]])
        p = common.problem(t)
        self.assertEqual([b["runs"] for b in p["buffers"] if "h" in b["values"]], [[[1, 6]]])
        # read before any write: its run starts at the read
        raw = small()
        raw["loops"] = []
        raw["ops"][0]["writes"].remove("acc")
        self.assertEqual(common.validate(raw).intervals["acc"], [[4, 5]])


class Validation(unittest.TestCase):
    def test_each_rule_exits_2_naming_where(self):
        for i, (edit, message) in enumerate(BAD):
            raw = small()
            edit(raw)
            r = cli(["-"], json.dumps(raw))
            self.assertEqual(r.returncode, 2, (i, message, r.stderr))
            self.assertIn(message, r.stderr, i)
            self.assertNotIn("Traceback", r.stderr)
            self.assertEqual(r.stdout, "")

    def test_not_json_and_missing_file(self):
        r = cli(["-"], "{nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("not JSON", r.stderr)
        r = cli([os.path.join(TMP, "missing.json")])
        self.assertEqual(r.returncode, 2)
        self.assertIn("cannot read it", r.stderr)

    def test_fault_without_candidates(self):
        raw = small()
        raw["ops"][5]["reads"] = ["acc"]  # x is then read by nobody after mm: no in-place fault
        raw["loops"] = []
        r = cli(["-", "--plant-fault", "--fault-rule", "D", "--fault-kind", "inplace"],
                json.dumps(raw))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("no candidate for a inplace fault", r.stderr)

    def test_cli_writes_to_a_fifo_as_it_is(self):
        # --out /dev/null (or a FIFO) is written to, never replaced by a file
        fifo = os.path.join(TMP, "fifo")
        os.mkfifo(fifo)
        got = []
        import threading

        reader = threading.Thread(target=lambda: got.append(open(fifo).read()), daemon=True)
        reader.start()
        r = cli([os.path.join(HERE, "small.trace.json"), "--out", fifo])
        reader.join(timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(got and got[0].startswith('{"format": "arena-plan/1"'), got[:1])
        import stat
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))

    def test_cli_writes_plan_and_problem(self):
        out, csv = os.path.join(TMP, "cli.json"), os.path.join(TMP, "cli.csv")
        path = os.path.join(HERE, "small.trace.json")
        r = cli([path, "--out", out, "--problem-out", csv])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("6 ops (22 executed)", r.stderr)
        with open(out) as f:
            self.assertEqual(certify(json.load(f))[0], 0)
        with open(csv) as f:
            self.assertTrue(f.read().startswith("id,lower,upper,size,alignment,group\n"))


if __name__ == "__main__":
    ARENACERT = sys.argv.pop(1)
    unittest.main(verbosity=1)
