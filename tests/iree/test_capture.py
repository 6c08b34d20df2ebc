"""The IREE capture's reader on hand-made dumps of @main around iree-stream-layout-slices (no
IREE needed): a pack's slices become values at the offsets the pass chose, a constant scf.for a
loop with its state moved through a slot, a rw binding an update; what the trace cannot say
(a dynamic trip count, scf.if, scf.while, an unknown op, a race inside a concurrent block,
dumps that do not zip) is an ExportError naming it. Offsets computed in a loop body from its
induction variable: a copy, a fill, a dispatch binding and a subview at %i * 64 move by 64 each
iteration (the repeat's deltas, certified 0 with --exact agreeing where arenacert is built);
i * i * 16 and a clamp are frames, two loops' sum moves with both; a range past its slice is
refused naming the iteration; i * j and a loaded offset are the slice's hull, counted; a loaded
offset with no slice's base is refused.
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


def func(name, bindings, body, operands=()):
    """A dispatch function as iree-compile prints it before iree-stream-fuse-dispatch-bindings:
    bindings [(access, tensor type)], body lines using %s0, %s1, ... (their subspans at 0)."""
    args = [f"%arg{i}: !stream.binding" for i in range(len(bindings))]
    args += [f"%arg{len(bindings) + i}: {t}" for i, t in enumerate(operands)]
    lines = [f"      func.func @{name}({', '.join(args)}) {{",
             "        %c0 = arith.constant 0 : index"]
    lines += [f"        %s{i} = stream.binding.subspan %arg{i}[%c0] : !stream.binding -> "
              f"!iree_tensor_ext.dispatch.tensor<{a}:tensor<{t}>>" for i, (a, t) in
              enumerate(bindings)]
    return lines + ["        " + x for x in body] + ["        return", "      }"]


def load(res, sub, access, t, offs, sizes):
    return (f"{res} = iree_tensor_ext.dispatch.tensor.load {sub}, offsets = [{offs}], "
            f"sizes = [{sizes}], strides = [{', '.join('1' for _ in sizes.split(','))}] : "
            f"!iree_tensor_ext.dispatch.tensor<{access}:tensor<{t}>> -> tensor<{sizes.replace(', ', 'x')}xf32>")


def store(val, sub, access, t, offs, sizes):
    return (f"iree_tensor_ext.dispatch.tensor.store {val}, {sub}, offsets = [{offs}], "
            f"sizes = [{sizes}], strides = [{', '.join('1' for _ in sizes.split(','))}] : "
            f"tensor<{sizes.replace(', ', 'x')}xf32> -> "
            f"!iree_tensor_ext.dispatch.tensor<{access}:tensor<{t}>>")


def generic(res, ins, maps, n):
    return [f"%e = tensor.empty() : tensor<{n}xf32>",
            f"{res} = linalg.generic {{indexing_maps = [{maps}], iterator_types = [\"parallel\"]}} "
            f"ins({', '.join(ins)} : {', '.join(f'tensor<{n}xf32>' for _ in ins)}) "
            f"outs(%e : tensor<{n}xf32>) {{",
            "^bb0(%in: f32, %out: f32):", "  linalg.yield %in : f32", f"}} -> tensor<{n}xf32>"]


RW = ("readwrite", "64xf32")
# d2 (the chain's rw): x = x + x in place; d5 (the loops'): out[i] += in[i] over 16 elements.
FUNCS = (func("d2", [RW], [load("%1", "%s0", *RW, "0", "64")]
              + generic("%3", ["%1"], "#map, #map", 64) + [store("%3", "%s0", *RW, "0", "64")])
         + func("d5", [("readonly", "16xf32"), ("readwrite", "16xf32")],
                [load("%1", "%s0", "readonly", "16xf32", "0", "16"),
                 load("%2", "%s1", "readwrite", "16xf32", "0", "16")]
                + generic("%3", ["%1", "%2"], "#map, #map, #map", 16)
                + [store("%3", "%s1", "readwrite", "16xf32", "0", "16")]))


def module(funcs=FUNCS):
    return "\n".join(["#map = affine_map<(d0) -> (d0)>", "#map1 = affine_map<(d0, d1) -> (d0, d1)>",
                      "#map2 = affine_map<(d0, d1) -> (d1, d0)>", "module {",
                      "  stream.executable private @ex {", "    builtin.module {"]
                     + funcs + ["    }", "  }", "}"])


def trace(before, after, funcs=FUNCS):
    return cap.trace_of_dumps(before, after, "synthetic", module=module(funcs))


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


# Offsets computed in a loop body from its induction variable (a KV-cache row at the token's
# position, a layer's slice of a stacked buffer): a pack's slice 1 (256 bytes at 0) written once,
# then a loop of N reading 64 bytes of it at OFFSET (slice 1's base plus OFF) with a copy, a fill
# and a dispatch binding, into the output at OFF (a subview at a moving offset too).
C = ["  %c1 = arith.constant 1 : index", "  %c2 = arith.constant 2 : index",
     "  %c16 = arith.constant 16 : index", "  %c64 = arith.constant 64 : index",
     "  %c0_i8 = arith.constant 0 : i8"]
FIRST = dispatch("d0", ("ro", "%a0", "%c0", "%c256", "external", "%c256"),
                 ("wo", "%a1", "%5#1", "%c256") + T)


def moving(n, off_lines, outer=None):
    """The loop of n (inside an outer one of `outer` iterations where given) with %off computed
    by off_lines from %i (and %j); %p = slice 1's base + %off."""
    loop = [f"  %cn = arith.constant {n} : index",
            "  %L:2 = scf.for %i = %c0 to %cn step %c1 iter_args(%st = %9, %st2 = %9) -> "
            "(!stream.timepoint, !stream.timepoint) {"] + off_lines + [
        "    %p = arith.addi %5#1, %off : index",
        "    %sv = stream.resource.subview %o[%off] : !stream.resource<external>{%c256} -> "
        "!stream.resource<external>{%c64}"] + execute(
        [("%r", "%a1", "transient", "%5#0"), ("%o", "%a2", "external", "%c256"),
         ("%sv", "%a3", "external", "%c64")],
        ["    stream.cmd.copy %a1[%p], %a3[%c0], %c64 : !stream.resource<transient>{%5#0} -> "
         "!stream.resource<external>{%c64}",
         "    stream.cmd.fill %c0_i8, %a2[%off for %c16] : i8 -> !stream.resource<external>{%c256}"]
        + dispatch("d5", ("ro", "%a1", "%p", "%c64") + T,
                   ("rw", "%a2", "%off", "%c64", "external", "%c256")),
        wait="%st", result="%10") + [
        "    scf.yield %10, %10 : !stream.timepoint, !stream.timepoint", "  }"]
    if outer:
        loop = ([f"  %cm = arith.constant {outer} : index",
                 "  %M:2 = scf.for %j = %c0 to %cm step %c1 iter_args(%sto = %9, %sto2 = %9) -> "
                 "(!stream.timepoint, !stream.timepoint) {"]
                + [x.replace("%st = %9, %st2 = %9", "%st = %sto, %st2 = %sto") for x in loop]
                + ["    scf.yield %L#0, %L#0 : !stream.timepoint, !stream.timepoint", "  }"])
        tail = ["  %e = stream.timepoint.await %M#0 => %o : !stream.resource<external>{%c256}"]
    else:
        tail = ["  %e = stream.timepoint.await %L#0 => %o : !stream.resource<external>{%c256}"]
    return ([IMPORT] + C + ["PACK", ALLOC, OUT] + execute(BINDS[:2], FIRST) + loop + tail
            + EXPORT[1:])


def moving_trace(n, off_lines, outer=None):
    b, a = dumps(moving(n, off_lines, outer), [256, 0])
    return trace(b, a), b


def word_shifts(plan, k, w):
    """Launch k's word w: its shift at every ordinal tuple of its repeats, in executed order."""
    reps = sorted((r for r in plan["repeats"] if r["first"] <= k < r["first"] + r["count"]),
                  key=lambda r: -r["count"])
    out = [0]
    for r in reps:
        step = [sum(d["delta"] for d in r.get("deltas", []) if (d["launch"], d["word"]) == (k, w))
                * i for i in range(r["iterations"])]
        if "frames" in r:
            step = [sum(e["offset"] for e in f if (e["launch"], e["word"]) == (k, w))
                    for f in r["frames"]]
        out = [a + b for a in out for b in step]
    return out


def launch_of(plan, kernel):
    return next(i for i, l in enumerate(plan["launches"]) if l["kernel"] == kernel)


def exported(raw, tag):
    """The plan, certified 0 by the certificate and --exact (where arenacert is built)."""
    plan, _ = common.export(raw)
    arenacert = os.path.join(sys.argv[2], "bin", "arenacert") if len(sys.argv) > 2 else None
    if arenacert and os.access(arenacert, os.X_OK):
        import json
        import subprocess
        got = [subprocess.run([arenacert, "certify", "-"] + x, input=json.dumps(plan),
                              capture_output=True, text=True).stdout.split("\n")[0]
               for x in ([], ["--exact"])]
        expect(got == ["verdict: 0", "verdict: 0"], f"{tag}: certified 0, --exact agreeing: {got}")
    return plan


TIMES64 = ["    %off = arith.muli %i, %c64 : index"]
raw, lines = moving_trace(4, TIMES64)
plan = exported(raw, "a copy at %i * 64 in a loop of 4")
rep = plan["repeats"][0]
copy_k, d5, fill_k = launch_of(plan, "copy"), launch_of(plan, "d5"), launch_of(plan, "fill")
expect(rep["iterations"] == 4 and rep["deltas"] == [
    {"launch": copy_k, "word": 0, "delta": 64}, {"launch": copy_k, "word": 1, "delta": 64},
    {"launch": fill_k, "word": 0, "delta": 64}, {"launch": d5, "word": 0, "delta": 64},
    {"launch": d5, "word": 1, "delta": 64}],
    f"copy, fill and dispatch words (and a subview) move by 64 each iteration: {rep['deltas']}")
expect(raw["capture"]["offsets_moving"] == 5 and raw["capture"]["offsets_undecided"] == 0,
       f"5 words moving, none undecided: {raw['capture']['offsets_moving']}, "
       f"{raw['capture']['offsets_undecided']}")

# Past its slice at the last iteration: refused, naming the op, the line and the iteration.
for n, off, want in ((5, TIMES64, "bytes [256, 320) at iteration 4 of the scf.for at line"),
                     (4, ["    %o1 = arith.muli %i, %c64 : index",
                          "    %off = arith.subi %o1, %c16 : index"],
                      "bytes [-16, 48) at iteration 0 of the scf.for at line")):
    b, a = dumps(moving(n, off), [256, 0])
    try:
        trace(b, a)
        expect(False, f"a copy stepping past its slice ({want}): not refused")
    except cap.ExportError as e:
        expect("stream.cmd.copy: the range %a1[%p] runs past transient0.s1 (256 bytes): " in str(e)
               and want in str(e), f"a copy stepping past its slice: refused: {e}")

# Known at every iteration but not affine: frames (i * i * 16; a clamp min(i, 2) * 64).
for what, off, want in (
        ("i * i * 16", ["    %sq = arith.muli %i, %i : index",
                        "    %off = arith.muli %sq, %c16 : index"], [0, 16, 64, 144]),
        ("min(i, 2) * 64", ["    %m = arith.minui %i, %c2 : index",
                            "    %off = arith.muli %m, %c64 : index"], [0, 64, 128, 128]),
        ("affine.apply (d0 * 64) clamped by select",
         ["    %a = affine.apply affine_map<(d0) -> (d0 * 64)>(%i)",
          "    %lt = arith.cmpi slt, %a, %c256 : index",
          "    %off = arith.select %lt, %a, %c0 : index"], [0, 64, 128, 192])):
    raw, _ = moving_trace(4, off)
    plan = exported(raw, what)
    rep = plan["repeats"][0]
    got = word_shifts(plan, launch_of(plan, "copy"), 0)
    kind = "frames" if "frames" in rep else "deltas"
    expect(got == want, f"{what}: the copy's source at {got} ({kind})")

# Two loops: j * 128 + i * 16 moves with both (the outer loop's body is the inner loop alone: one
# range, merged by the trace into a loop of 8 whose frames are the merged shift).
raw, _ = moving_trace(4, ["    %oj = arith.muli %j, %c64 : index",
                          "    %oj2 = arith.addi %oj, %oj : index",
                          "    %oi = arith.muli %i, %c16 : index",
                          "    %off = arith.addi %oj2, %oi : index"], outer=2)
plan = exported(raw, "j * 128 + i * 16 over two loops")
got = word_shifts(plan, launch_of(plan, "copy"), 0)
expect(got == [j * 128 + i * 16 for j in range(2) for i in range(4)],
       f"the copy's source moves with both loops: {got}")

# Not a sum of one function per loop (i * j * 64): the slice's hull, counted and named.
raw, _ = moving_trace(2, ["    %ij = arith.muli %i, %j : index",
                          "    %off = arith.muli %ij, %c64 : index"], outer=2)
exported(raw, "i * j * 64 (the hull)")
expect(raw["capture"]["offsets_undecided"] == 5
       and "stream.cmd.copy: the range %a1[%p] at %5#1 + one of 0..64 per iteration" in
       raw["capture"]["offsets_undecided_at"][0],
       f"i * j * 64: the hull, counted: {raw['capture']['offsets_undecided']} "
       f"{raw['capture']['offsets_undecided_at'][:1]}")
# Computed at run time (a value loaded from the device): the slice's hull, counted.
raw, _ = moving_trace(4, ["    %u = arith.index_cast %q : i32 to index",
                          "    %off = arith.muli %u, %c64 : index"])
exported(raw, "an offset loaded at run time (the hull)")
expect(raw["capture"]["offsets_undecided"] == 5,
       f"an offset computed at run time: the value's hull, counted "
       f"({raw['capture']['offsets_undecided']}: {raw['capture']['offsets_undecided_at'][:1]})")
# ... bounded by util.assume.int (0..3 rows of 64 bytes), with no slice's base: the one slice that
# holds every offset it may take (slice 1), its hull, counted.
body = moving(4, ["    %u = arith.index_cast %q : i32 to index",
                  "    %ua = util.assume.int %u<umin = 0, umax = 3> : index",
                  "    %off = arith.muli %ua, %c64 : index"])
body = [x.replace("%p = arith.addi %5#1, %off : index", "%p = arith.addi %off, %c0 : index")
        for x in body]
b, a = dumps(body, [256, 0])
raw = trace(b, a)
expect(raw["capture"]["offsets_undecided"] == 5 and "%p] at a value in 0..192 computed at run "
       "time" in raw["capture"]["offsets_undecided_at"][0],
       f"an offset bounded by util.assume.int: the slice it stays in, its hull: "
       f"{raw['capture']['offsets_undecided_at'][:1]}")
# ... and with no slice's base to name, refused.
body = moving(4, ["    %u = arith.index_cast %q : i32 to index",
                  "    %off = arith.muli %u, %c64 : index"])
body = [x.replace("%p = arith.addi %5#1, %off : index", "%p = arith.addi %off, %c0 : index")
        for x in body]
refused(body, [256, 0], "stream.cmd.copy: the range %a1[%p] names no slice of its pack "
        "(a value computed at run time", "a run-time offset into a pack, with no slice's base")

# What a dispatch does inside the value it updates in place (dispatch.py): slice 1 written by
# d0, updated by KERNEL (its function below, or none), then read into the output.
def updating(kernel_lines, funcs, consts=()):
    body = ([IMPORT] + C + list(consts) + ["PACK", ALLOC, OUT] + execute(BINDS, FIRST + kernel_lines
            + dispatch("dout", ("ro", "%a1", "%5#1", "%c256") + T,
                       ("wo", "%a2", "%c0", "%c256", "external", "%c256"))) + EXPORT)
    b, a = dumps(body, [256, 0])
    raw = trace(b, a, funcs)
    (u,) = [u for o in raw["ops"] for u in o.get("updates", [])]
    return raw, u


def verdict_of(raw):
    """The certificate's first two lines on the plan (None where arenacert is not built)."""
    arenacert = os.path.join(sys.argv[2], "bin", "arenacert") if len(sys.argv) > 2 else None
    if not (arenacert and os.access(arenacert, os.X_OK)):
        return None
    import json
    import subprocess
    plan, _ = common.export(raw)
    return [subprocess.run([arenacert, "certify", "-"] + x, input=json.dumps(plan),
                           capture_output=True, text=True).stdout for x in ([], ["--exact"])]


RW64 = ("readwrite", "64xf32")
RW_ON_1 = ("rw", "%a1", "%5#1", "%c256") + T
SHIFT = func("shift", [RW64], [load("%1", "%s0", *RW64, "0", "63")]
             + generic("%3", ["%1"], "#map, #map", 63) + [store("%3", "%s0", *RW64, "1", "63")])
TRANSPOSE = func("transpose", [("readwrite", "8x8xf32")],
                 [load("%1", "%s0", "readwrite", "8x8xf32", "0, 0", "8, 8"),
                  "%e = tensor.empty() : tensor<8x8xf32>",
                  "%3 = linalg.generic {indexing_maps = [#map1, #map2], iterator_types = "
                  "[\"parallel\", \"parallel\"]} ins(%1 : tensor<8x8xf32>) outs(%e : "
                  "tensor<8x8xf32>) {", "^bb0(%in: f32, %out: f32):", "  linalg.yield %in : f32",
                  "} -> tensor<8x8xf32>",
                  store("%3", "%s0", "readwrite", "8x8xf32", "0, 0", "8, 8")])
SORT = func("sort", [RW64], [load("%1", "%s0", *RW64, "0", "64"),
                             "%2 = iree_linalg_ext.sort dimension(0) outs(%1 : tensor<64xf32>) {",
                             "^bb0(%x: f32, %y: f32):", "  %c = arith.cmpf olt, %x, %y : f32",
                             "  iree_linalg_ext.yield %c : i1", "} -> tensor<64xf32>",
                             store("%2", "%s0", *RW64, "0", "64")])
DUS = func("dus", [("readonly", "16xf32"), ("readwrite", "4x16xf32")],
           ["%r = iree_tensor_ext.dispatch.workload.ordinal %arg2, 0 : index",
            load("%1", "%s0", "readonly", "16xf32", "0", "16"),
            store("%1", "%s1", "readwrite", "4x16xf32", "%r, 0", "1, 16")], ["index"])
for what, kernel, fn, want, verdict in (
        ("elementwise (d2: x + x)", dispatch("d2", RW_ON_1), FUNCS, {}, "0"),
        ("a shift by one element", dispatch("shift", RW_ON_1), SHIFT,
         {"reads": [{"offset": 0, "size": 252}], "writes": [{"offset": 4, "size": 252}]},
         "D"),
        ("a transpose in place", dispatch("transpose", RW_ON_1), TRANSPOSE,
         {"reads": [{"offset": 0, "size": 256}]}, "D"),
        ("a sort in place (its destination)", dispatch("sort", RW_ON_1), SORT, {}, "0"),
        ("a row stored at row 2", [x.replace("@ex::@dus {", "@ex::@dus[%c2](%c2 : index) {")
                                   for x in dispatch("dus", ("ro", "%a0", "%c0", "%c64",
                                                             "external", "%c256"), RW_ON_1)],
         DUS, {"writes": [{"offset": 128, "size": 64}]}, "0"),
        ("a row stored at a loaded row clamped to 0..3",
         ["    %u = arith.index_cast %q : i32 to index", "    %u0 = arith.maxsi %u, %c0 : index",
          "    %row = arith.minui %u0, %c3 : index"]
         + [x.replace("@ex::@dus {", "@ex::@dus[%row](%row : index) {")
            for x in dispatch("dus", ("ro", "%a0", "%c0", "%c64", "external", "%c256"),
                              RW_ON_1)], DUS, {}, "0"),
        ("a copy into 64 bytes of it", [
            "    %p = arith.addi %5#1, %c64 : index",
            "    stream.cmd.copy %a0[%c0], %a1[%p], %c64 : !stream.resource<external>{%c256} -> "
            "!stream.resource<transient>{%5#0}"], FUNCS,
         {"writes": [{"offset": 64, "size": 64}]}, "0"),
        ("a kernel with no function printed", dispatch("mystery", RW_ON_1), FUNCS,
         {"reads": [{"offset": 0, "size": 256}]}, "D")):
    lines = [x for x in kernel if not x.strip().startswith("%u") and "%row =" not in x]
    consts = ["  %c3 = arith.constant 3 : index"] + [x for x in kernel if x not in lines]
    raw, u = updating(lines, fn, consts)
    got = {k: u[k] for k in ("reads", "writes") if k in u}
    expect(got == want, f"{what}: the update says {got}")
    v = verdict_of(raw)
    if v is not None:  # 0, or rule D at the kernel's phase naming both ranges, --exact agreeing
        first = v[0].splitlines()[:2]
        ok = first[0] == "verdict: 0" if verdict == "0" else (
            first[1].startswith("rule D: instance 1 (phase \"1:") and "reads across elements "
            "bytes it overwrites: reads[0]" in first[1])
        expect(ok and v[1].splitlines()[0] == first[0],
               f"{what}: {' '.join(first)} (--exact: {v[1].splitlines()[0]})")
cap_ = raw["capture"]
expect(cap_["reads_undecided"] == 1 and "dispatch mystery updating transient0.s1: no function "
       "@mystery among the executables" in cap_["reads_undecided_at"][0],
       f"a kernel with no function: counted and named: {cap_['reads_undecided_at']}")

# Sibling regions reusing names (MLIR's printer names values per region: two loop bodies each
# define %5, a pack of their own, %r and %9): each pack keeps its own offsets.
def sibling_loops():
    def pack(n, offs):  # (before, after) lines of a pack %5 of n slices of 256 bytes
        b = [f"    %5:{n + 1} = stream.resource.pack on(#hal.device.affinity<@__device_0>) "
             "slices({"]
        b += [f"      [{k}, {k + 1}] = %c256," for k in range(n)] + ["    }) : index"]
        return b, [f"    %c{v}_{k} = arith.constant {v} : index" for k, v in enumerate(offs)]

    def loop(tag, wait, n, offs):
        pb, pa = pack(n, offs)
        chain = dispatch("d0" + tag, ("ro", "%a0", "%c0", "%c256", "external", "%c256"),
                         ("wo", "%a1", "%5#1", "%c256") + T)
        for k in range(1, n):
            chain += dispatch(f"d{k}{tag}", ("ro", "%a1", f"%5#{k}", "%c256") + T,
                              ("wo", "%a1", f"%5#{k + 1}", "%c256") + T)
        chain += dispatch("dout" + tag, ("ro", "%a1", f"%5#{n}", "%c256") + T,
                          ("wo", "%a2", "%c0", "%c256", "external", "%c256"))
        head = [f"  %{tag} = scf.for %i = %c0 to %c2 step %c1 iter_args(%st = {wait}) -> "
                "(!stream.timepoint) {"]
        rest = ["  " + ALLOC] + execute(BINDS, chain, wait="%st") + [
            "    scf.yield %9 : !stream.timepoint", "  }"]
        after_rest = [x for x in rest]
        for k in range(n, -1, -1):
            after_rest = [x.replace(f"%5#{k}", f"%c{offs[k]}_{k}") for x in after_rest]
        return head + pb + rest, head + pa + after_rest

    start = [HEAD, "  %c256 = arith.constant 256 : index", "  %c0 = arith.constant 0 : index",
             IMPORT, "  %c1 = arith.constant 1 : index", "  %c2 = arith.constant 2 : index", OUT]
    ab, aa = loop("L", "%t", 1, [256, 0])
    bb, ba = loop("M", "%L", 2, [512, 256, 0])
    tail = ["  %e = stream.timepoint.await %M => %o : !stream.resource<external>{%c256}"] + \
        EXPORT[1:] + ["}"]
    return start + ab + bb + tail, start + aa + ba + tail


b, a = sibling_loops()
try:
    raw = trace(b, a)
    got = sorted((r["size"], sorted((v["offset"], v["label"]) for v in raw["values"]
                                    if v["region"] == r["name"]))
                 for r in raw["regions"] if r["kind"] == "arena")
    expect(got == [(256, [(0, "%5#1")]), (512, [(0, "%5#2"), (256, "%5#1")])],
           f"two loop bodies' packs named %5 alike keep their own offsets: {got}")
    exported(raw, "sibling loops reusing names")
except cap.ExportError as e:
    expect(False, f"two loop bodies' packs named %5 alike: refused: {e}")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
