"""The IREE capture's reader on hand-made dumps of @main around iree-stream-layout-slices (no
IREE needed): a pack's slices become values at the offsets the pass chose, a constant scf.for a
loop with its state moved through a slot, a rw binding an update; what the trace cannot say
(a dynamic trip count, scf.if, scf.while, an unknown op, a race inside a concurrent block,
dumps that do not zip) is an ExportError naming it.
Usage: test_capture.py ROOT"""

import os
import sys

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "workloads/runtimes"))
import common  # noqa: E402
from iree import capture as cap  # noqa: E402

failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


HEAD = "util.func public @main(%arg0: !hal.buffer_view) -> !hal.buffer_view {"
IMPORT = ("  %0 = stream.tensor.import on(#hal.device.affinity<@__device_0>) %arg0 : "
          "!hal.buffer_view -> tensor<64xf32> in !stream.resource<external>{%c256}")


def dumps(body, pack_offsets, extra_after=()):
    """(before, after): body's lines with PACK standing for the pack (slices of 256 bytes with
    the intervals given) and its results; after, the constants the pass would write."""
    before, after = [HEAD, "  %c256 = arith.constant 256 : index",
                     "  %c0 = arith.constant 0 : index"], [HEAD, "  %c256 = arith.constant 256 : index",
                                                             "  %c0 = arith.constant 0 : index"]
    for line in body:
        if line.strip() == "PACK":
            n = len(pack_offsets) - 1
            before.append(f"  %5:{n + 1} = stream.resource.pack on(#hal.device.affinity<@__device_0>) slices({{")
            before += [f"    [{k}, {k + 1}] = %c256," for k in range(n)]
            before.append("  }) : index")
            after += [f"  %c{v}_{k} = arith.constant {v} : index" for k, v in enumerate(pack_offsets)]
            continue
        before.append(line)
        a = line
        for k in range(len(pack_offsets) - 1, -1, -1):
            a = a.replace(f"%5#{k}", f"%c{pack_offsets[k]}_{k}")
        after.append(a)
    after[len(after) - 1:len(after) - 1] = list(extra_after)
    before.append("}")
    after.append("}")
    return before, after


def execute(binds, ops, wait="%t", result="%9"):
    w = ", ".join(f"{o} as {i}: !stream.resource<{t}>{{{s}}}" for o, i, t, s in binds)
    return ([f"  {result} = stream.cmd.execute on(#hal.device.affinity<@__device_0>) await({wait}) => with({w}) {{"]
            + ops + ["  } => !stream.timepoint"])


def dispatch(name, *bindings):
    return ([f"    stream.cmd.dispatch @ex::@{name} {{"]
            + [f"      {a} {r}[{o} for {n}] : !stream.resource<{t}>{{{s}}}{',' if i + 1 < len(bindings) else ''}"
               for i, (a, r, o, n, t, s) in enumerate(bindings)] + ["    }"])


ALLOC = ("  %r, %rt = stream.resource.alloca uninitialized on(#hal.device.affinity<@__device_0>) : "
         "!stream.resource<transient>{%5#0} => !stream.timepoint")
OUT = ("  %o, %ot = stream.resource.alloca uninitialized on(#hal.device.affinity<@__device_0>) : "
       "!stream.resource<external>{%c256} => !stream.timepoint")
EXPORT = ["  %e = stream.timepoint.await %9 => %o : !stream.resource<external>{%c256}",
          "  %x = stream.tensor.export on(#hal.device.affinity<@__device_0>) %e : tensor<64xf32> in "
          "!stream.resource<external>{%c256} -> !hal.buffer_view",
          "  util.return %x : !hal.buffer_view"]
BINDS = [("%0", "%a0", "external", "%c256"), ("%r", "%a1", "transient", "%5#0"),
         ("%o", "%a2", "external", "%c256")]
T = ("transient", "%5#0")
CHAIN = (dispatch("d0", ("ro", "%a0", "%c0", "%c256", "external", "%c256"),
                  ("wo", "%a1", "%5#1", "%c256") + T)
         + dispatch("d1", ("ro", "%a1", "%5#1", "%c256") + T, ("wo", "%a1", "%5#2", "%c256") + T)
         + dispatch("d2", ("rw", "%a1", "%5#2", "%c256") + T)
         + dispatch("d3", ("ro", "%a1", "%5#2", "%c256") + T,
                    ("wo", "%a2", "%c0", "%c256", "external", "%c256")))


def trace(before, after):
    return cap.trace_of_dumps(before, after, "synthetic")


def refused(body, offsets, pattern, what):
    b, a = dumps(body, offsets)
    try:
        trace(b, a)
        expect(False, f"{what}: not refused")
    except cap.ExportError as e:
        expect(pattern in str(e), f"{what}: refused: {e}")


# A pack of two slices at 0 and 256 (total 512); d2 updates slice 2 in place.
body = [IMPORT, "PACK", ALLOC, OUT] + execute(BINDS, CHAIN) + EXPORT
b, a = dumps(body, [512, 0, 256])
raw = trace(b, a)
vals = {v["id"]: v for v in raw["values"]}
arena = [r for r in raw["regions"] if r["kind"] == "arena"]
expect(len(arena) == 1 and arena[0]["size"] == 512 and arena[0]["planned_size"] == 512,
       f"one arena region of the pack's 512 bytes: {arena}")
s1 = [v for v in vals.values() if v["label"].endswith("#1")]
s2 = [v for v in vals.values() if v["label"].endswith("#2")]
expect(s1 and s2 and s1[0]["offset"] == 0 and s2[0]["offset"] == 256 and s1[0]["size"] == 256,
       "the slices at the pass's offsets 0 and 256")
kernels = [o["kernel"] for o in raw["ops"]]
expect(kernels == ["d0", "d1", "d2", "d3", "readback"], f"ops in order: {kernels}")
upd = raw["ops"][2].get("updates", [])
expect(upd == [{"from": s2[0]["id"], "to": s2[0]["id"]}], f"rw is an in-place update: {upd}")
expect(vals["arg0"]["whole_program"] and not vals[[k for k in vals if k.startswith("external")][0]]["whole_program"],
       "the import is whole-program, the output is not")
plan, t = common.export(raw)
expect(plan["meta"]["counts"]["in_place_updates"] == 1, "the plan has the update")
expect(raw["capture"]["iree_pack_peak"] == 512, f"IREE's own size 512: {raw['capture']['iree_pack_peak']}")

# The same slices overlapping while both live: recorded as IREE planned them, and judged by the
# certificate (rule B or D), not refused by the capture.
b, a = dumps(body, [512, 0, 0])
try:
    bad_plan, _ = common.export(trace(b, a))
    expect(True, "slices on one byte while both live: recorded")
    arenacert = os.path.join(sys.argv[2], "bin", "arenacert") if len(sys.argv) > 2 else None
    if arenacert and os.access(arenacert, os.X_OK):
        import json
        import subprocess
        done = subprocess.run([arenacert, "certify", "-"], input=json.dumps(bad_plan),
                              capture_output=True, text=True)
        expect(done.returncode == 1 and ("rule B" in done.stdout or "rule D" in done.stdout),
               f"the certificate refuses them: exit {done.returncode} {done.stdout.strip()}")
except common.TraceError as e:
    expect(False, f"slices on one byte while both live: refused by the capture: {e}")

# A constant loop of 3 carrying the output: a loop, its state through a slot.
def make_loop(wait):
    return ([IMPORT, "  %c3 = arith.constant 3 : index", "  %c1 = arith.constant 1 : index",
             OUT, "  %L:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%s = %0, %st = %t) -> "
             "(!stream.resource<external>, !stream.timepoint) {", "PACK", ALLOC]
            + execute([("%s", "%a0", "external", "%c256"), ("%r", "%a1", "transient", "%5#0"),
                       ("%o", "%a2", "external", "%c256")], CHAIN, wait=wait)
            + ["    scf.yield %o, %9 : !stream.resource<external>, !stream.timepoint", "  }",
               "  %x = stream.tensor.export on(#hal.device.affinity<@__device_0>) %L#0 : "
               "tensor<64xf32> in !stream.resource<external>{%c256} -> !hal.buffer_view",
               "  util.return %x : !hal.buffer_view"])


loop = make_loop("%st")
b, a = dumps(loop, [512, 0, 256])
raw = trace(b, a)
kernels = [o["kernel"] for o in raw["ops"]]
expect(raw["loops"] == [{"first": 1, "count": 5, "iterations": 3}]
       and kernels == ["scf.for.init", "d0", "d1", "d2", "d3", "scf.yield", "readback"],
       f"a loop of 3 over the body and the state's move: {raw['loops']} {kernels}")
plan, t = common.export(raw)
expect(plan["meta"]["counts"]["ops_executed"] == 2 + 5 * 3, "15 body ops executed")

# Two execution regions, the second reading what the first wrote: ordered when its await
# covers the first, refused when not (they may run at once); across a loop's iterations too.
READ_OUT = dispatch("d9", ("ro", "%b2", "%c0", "%c256", "external", "%c256"),
                    ("wo", "%b0", "%c0", "%c256", "external", "%c256"))
OUT2 = OUT.replace("%o, %ot", "%o2, %ot2")
two = [IMPORT, "PACK", ALLOC, OUT, OUT2] + execute(BINDS, CHAIN)
tail = EXPORT[:1] + [EXPORT[1].replace("%e :", "%e2 :"), EXPORT[2]]
tail[0] = "  %e2 = stream.timepoint.await %10 => %o2 : !stream.resource<external>{%c256}"
b, a = dumps(two + execute([("%o2", "%b0", "external", "%c256"), ("%o", "%b2", "external", "%c256")],
                           READ_OUT, wait="%9", result="%10") + tail, [512, 0, 256])
kernels = [o["kernel"] for o in trace(b, a)["ops"]]
expect(kernels[-2:] == ["d9", "readback"], f"an execute awaiting the one before: in order {kernels}")
refused(two + execute([("%o2", "%b0", "external", "%c256"), ("%o", "%b2", "external", "%c256")],
                      READ_OUT, wait="%t", result="%10") + tail, [512, 0, 256],
        "may run while the one at line", "an execute not awaiting the one that wrote its input")
refused(make_loop("%t"), [512, 0, 256], "in the iteration before",
        "a loop body's execute not awaiting the iteration before, writing a buffer made outside")

refused([IMPORT, "  %n = arith.index_cast %q : i32 to index",
         "  %L = scf.for %i = %c0 to %n step %c256 -> () {", "  }"] + EXPORT[2:], [0],
        "dynamic trip count", "scf.for to a value known at run time")
refused([IMPORT, "  %L = scf.if %p -> (!stream.timepoint) {", "  }"] + EXPORT[2:], [0],
        "scf.if on %p", "scf.if")
refused([IMPORT, "  %L = scf.while (%z = %0) : (!stream.resource<external>) -> () {", "  }"]
        + EXPORT[2:], [0], "scf.while", "scf.while")
refused([IMPORT, "  %L = stream.cmd.call @f(%0) : () -> ()"] + EXPORT[2:], [0],
        "stream.cmd.call", "an op the capture does not know")
race = dispatch("d0", ("ro", "%a0", "%c0", "%c256", "external", "%c256"), ("wo", "%a1", "%5#1", "%c256") + T) \
    + dispatch("d1", ("ro", "%a1", "%5#1", "%c256") + T, ("wo", "%a2", "%c0", "%c256", "external", "%c256"))
refused([IMPORT, "PACK", ALLOC, OUT] + execute(BINDS, ["    stream.cmd.concurrent {"] + race + ["    }"])
        + EXPORT, [256, 0], "concurrent block reads", "a race inside a concurrent block")
b, a = dumps(body, [512, 0, 256], extra_after=["  %zz = stream.timepoint.immediate => !stream.timepoint"])
try:
    trace(b, a)
    expect(False, "dumps of different shapes: not refused")
except cap.ExportError as e:
    expect("differ" in str(e), f"dumps of different shapes: refused: {e}")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
