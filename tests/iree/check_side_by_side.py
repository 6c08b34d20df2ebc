"""Programs through both compilers, side by side: the family's decodes (gpt2-decode,
penzai-llama-decode, llama-decode at the bench's sizes), five decodes of a user's
(decode_programs.py: other cache layouts, per-layer caches in a tuple, the position a traced
argument, a while_loop with a known trip count, rows at start + t) and eight other programs
(other_programs.py: a CNN, training steps, an LSTM's gradient, a scatter, a sort, top_k, nested
while loops). Each exports with XLA (an other program's XLA refusal is printed, not judged: that
capture is tested in tests/xla) and with IREE, both plans certify 0 with `--exact` agreeing,
their loops are the same trip counts (tokens outside layers), each compiler's own size is at
least its bound; IREE decides every offset and every update's reads (none undecided), and its
words move with the layer loop (a layer's slice of stacked caches) in the decodes that stack
their caches. One row per program and compiler is printed (launches, loops, in place, moving
words, own size, bound). Usage: check_side_by_side.py ROOT ARENACERT DIR (the build venv's
Python)"""

import os
import sys

root, arenacert, work = sys.argv[1:4]
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(root, "workloads/runtimes"))
sys.path.insert(0, os.path.join(root, "tests/common"))
sys.path.insert(0, here)
import common  # noqa: E402
import decode_programs  # noqa: E402
import other_programs  # noqa: E402
import iree.capture  # noqa: E402
import xla.capture  # noqa: E402
from xla import programs  # noqa: E402
import plan_checks  # noqa: E402
from bench_checks import expect, finish  # noqa: E402

os.makedirs(work, exist_ok=True)

# name, the maker, its sizes, whether IREE's words move with a loop (stacked caches; None: any)
CASES = [
    ("gpt2-decode", programs.get("gpt2-decode"), {"layers": 4, "tokens": 8}, True),
    ("penzai-llama-decode", programs.get("penzai-llama-decode"), {"layers": 2, "tokens": 8},
     False),
    ("llama-decode", programs.get("llama-decode"), {"layers": 6, "tokens": 12}, True),
    ("decode_lthd", decode_programs.decode_lthd, {}, False),
    ("decode_tuple", decode_programs.decode_tuple, {}, False),
    ("decode_at_pos", decode_programs.decode_at_pos, {}, True),
    ("decode_while", decode_programs.decode_while, {}, True),
    ("decode_from_start", decode_programs.decode_from_start, {}, False),
] + [(n, getattr(other_programs, n), {}, None) for n in (
    "cnn_forward", "mlp_train", "transformer_train", "lstm_train", "segment_sum", "sort_cumsum",
    "topk_sample_decode", "while_counter_nested")]

print("program | compiler | launches written / executed | loops | in place | moving words | "
      "own size | bound")
for name, make, sizes, moves in CASES:
    fn, args = make(**sizes)
    got = {}
    for compiler, capture, refusal, own in (
            ("XLA", xla.capture.capture, xla.capture.ExportError, "temp_size_in_bytes"),
            ("IREE", iree.capture.capture, iree.capture.ExportError, "iree_pack_peak")):
        tag = f"{name}-{compiler}"
        try:
            raw = capture(fn, args, name=name, flags=sizes)
            plan, t = common.export(raw)
        except (refusal, common.TraceError) as e:
            if compiler == "XLA" and moves is None:  # XLA's capture is not under test here
                print(f"{name} | XLA | refused: {e}")
                continue
            expect(False, f"{tag}: export failed: {e}")
            continue
        v = plan_checks.certify(arenacert, work, plan, tag)
        ve = plan_checks.certify(arenacert, work, plan, tag, exact=True)
        bound = common.problem(t)["max_live"]
        cap = raw["capture"]
        loops = sorted(((l["iterations"], l["depth"]) for l in plan["meta"]["loops"]),
                       key=lambda x: (x[1], -x[0]))
        c = plan["meta"]["counts"]
        nested = len({d for _, d in loops}) == len(loops)  # else loops side by side
        shown = (" x " if nested else ", ").join(str(n) for n, _ in loops) or "0"
        print(f"{name} | {compiler} | {cap['launches_written']} / {c['ops_executed']} | "
              f"{shown} | {c['in_place_updates']} | "
              f"{c['words_moving']} | {cap[own]:,} | {bound:,}", flush=True)
        expect(v == 0 and ve == 0, f"{tag}: verdict {v}, exact {ve}")
        expect(cap[own] >= bound, f"{tag}: own size {cap[own]} at least the bound {bound}")
        got[compiler] = (loops, c["words_moving"],
                         cap.get("offsets_undecided", 0) + cap.get("reads_undecided", 0))
    if len(got) == 2:
        expect(got["XLA"][0] == got["IREE"][0],
               f"{name}: the same loops (iterations, depth) in both: {got['XLA'][0]}, "
               f"{got['IREE'][0]}")
        expect(moves in (None, got["IREE"][1] > 0) and got["IREE"][2] == 0,
               f"{name}: IREE's moving words {got['IREE'][1]} (expected "
               f"{'any' if moves is None else 'some' if moves else 'none'}), offsets and reads "
               f"undecided {got['IREE'][2]}")

finish()
