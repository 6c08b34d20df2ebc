"""The malloc tracer end to end: tracee.c's known allocations give exactly the CSV they should
(every allocating call, realloc's halves, a failed realloc, fork, _exit, exec), threads handing
blocks to each other keep every release before the next allocation of its address, a trace is
never written over, the converter's edge cases on hand-made files, and a real program's trace
reads in `arenacert place` with the converter's bound and its placement certifies."""
import csv
import json
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_checks import expect, failures  # noqa: E402

tracer, tracee, convert, arenacert = sys.argv[1:5]


def run_traced(args, out_pattern, only=None, extra_env=None):
    env = {"PATH": "/usr/bin:/bin", "LD_PRELOAD": tracer, "ARENAREF_TRACE_OUT": out_pattern}
    if only is not None:
        env["ARENAREF_TRACE_ONLY"] = only
    env.update(extra_env or {})
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)


def to_csv(trace, *options):
    """(rows as (id, lower, upper, size) tuples, info dict, exit status, stderr)."""
    out, info = trace + ".csv", trace + ".json"
    done = subprocess.run([convert, trace, "--out", out, "--info", info, *options],
                          capture_output=True, text=True)
    rows, facts = [], {}
    if os.path.exists(out):
        with open(out) as f:
            reader = csv.reader(f)
            header = next(reader, None)
            expect(header == ["id", "lower", "upper", "size"], f"{os.path.basename(out)}: header {header}")
            rows = [tuple(int(x) for x in r) for r in reader]
    if os.path.exists(info):
        facts = json.load(open(info))
    return rows, facts, done.returncode, done.stderr


def traced_mode(tmp, mode, extra_env=None):
    folder = os.path.join(tmp, mode)
    os.makedirs(folder)
    done = run_traced([tracee, mode], os.path.join(folder, "%e.%p.bin"), extra_env=extra_env)
    expect(done.returncode == 0, f"{mode}: the tracee ran (exit {done.returncode}) {done.stderr.strip()}")
    return folder, sorted(os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".bin"))


BASIC = [(0, 0, 3, 100), (1, 1, 4, 200), (2, 2, 6, 0), (3, 3, 5, 128), (4, 4, 7, 256),
         (5, 5, 7, 40), (6, 6, 7, 300), (7, 7, 8, 7)]
REALLOC = [(0, 0, 1, 10), (1, 1, 2, 20), (2, 2, 3, 1 << 20), (3, 3, 6, 5), (4, 4, 5, 6),
           (5, 5, 6, 8)]
FORK = [(0, 0, 2, 11), (1, 1, 3, 12), (2, 2, 3, 13)]
EXIT = [(0, 0, 2, 21), (1, 1, 3, 22), (2, 2, 3, 23)]

with tempfile.TemporaryDirectory() as tmp:
    # Exact CSVs.
    for mode, want in (("basic", BASIC), ("realloc", REALLOC), ("fork", FORK), ("exit", EXIT)):
        folder, files = traced_mode(tmp, mode)
        expect(len(files) == 1, f"{mode}: one trace file (a forked child writes none): {files}")
        if not files:
            continue
        rows, info, status, err = to_csv(files[0])
        expect(status == 0, f"{mode}: converted (exit {status}) {err.strip()}")
        expect(rows == want, f"{mode}: the CSV is exactly {want}: {rows}")
        expect(info.get("unknown_releases") == 0 and info.get("lost") == 0,
               f"{mode}: nothing unknown or lost: {info.get('unknown_releases')}, {info.get('lost')}")
        if mode == "basic":
            expect(info.get("argv", [""])[-1] == "basic" and info.get("exe", "").endswith("tracer_tracee"),
                   f"basic: the header names the program: {info.get('exe')} {info.get('argv')}")
            expect((info.get("malloc"), info.get("calloc"), info.get("realloc"), info.get("memalign"))
                   == (3, 1, 1, 3), f"basic: calls by kind: {info}")
            expect(info.get("max_live_bound") == 256 + 40 + 300 and
                   info.get("never_released") == 1 and info.get("zero_size") == 1,
                   f"basic: bound 596 (at time 6), one never released, one of size 0: {info}")
        if mode == "realloc":
            expect(info.get("realloc_releases") == 4, f"realloc: 4 releases by realloc: {info}")
            expect(info.get("empty_slots") == 1,
                   f"realloc: the failed realloc's slot is left empty: {info.get('empty_slots')}")

    # exec: the parent's file and the child's (its own pid), the child's exactly basic's.
    folder, files = traced_mode(tmp, "exec")
    expect(len(files) == 2, f"exec: two files, one per process: {[os.path.basename(f) for f in files]}")
    got = sorted(to_csv(f)[0] for f in files)
    expect(got == sorted([[(0, 0, 1, 31)], BASIC]), f"exec: the parent's and the child's CSVs: {got}")

    # Threads: every block once, each thread's in its order, every release before the next
    # allocation of its address (no live address allocated again), own frees before the next.
    # The tracer yields before taking each slot (ARENAREF_TRACE_STRESS), so a slot taken on the
    # wrong side of the real call would show here nearly every run.
    folder, files = traced_mode(tmp, "threads", {"ARENAREF_TRACE_STRESS": "1"})
    rows, info, status, err = to_csv(files[0]) if files else ([], {}, 1, "no file")
    expect(status == 0, f"threads: converted (exit {status}) {err.strip()}")
    n = len(rows)
    mine = {}
    for row in rows:
        size = row[3]
        if 50000 <= size < 50000 + 8 * 5000:
            t, i = divmod(size - 50000, 5000)
            mine.setdefault((t, i), []).append(row)
    expect(len(mine) == 16000 and all(len(v) == 1 for v in mine.values()),
           f"threads: each of 8 x 2,000 blocks once: {len(mine)} sizes, {sum(len(v) for v in mine.values())} rows")
    ordered = all(mine[(t, i)][0][1] < mine[(t, i + 1)][0][1]
                  for t in range(8) for i in range(1999) if (t, i) in mine and (t, i + 1) in mine)
    expect(ordered, "threads: each thread's allocations in its own order")
    freed_first = [(t, i) for t in range(8) for i in range(0, 1980, 2)
                   if (t, i) in mine and (t, i + 1) in mine and mine[(t, i)][0][2] > mine[(t, i + 1)][0][1]]
    expect(not freed_first, f"threads: a block freed at once ends before its thread's next allocation: {freed_first[:5]}")
    kept = [mine[(t, i)][0][2] for t in range(8) for i in range(1980, 2000, 2) if (t, i) in mine]
    expect(len(kept) == 80 and all(u == n for u in kept), f"threads: the 80 never freed live to the end ({n})")
    expect(info.get("live_address_reused") == 0 and info.get("unknown_releases") == 0 and info.get("lost") == 0,
           f"threads: no address allocated while live, no unknown release, none lost: {info}")

    # Blocks freed by one thread as another allocates them: every release before the next
    # allocation of its address (the tracer yields before each slot, as above).
    folder, files = traced_mode(tmp, "pingpong", {"ARENAREF_TRACE_STRESS": "1"})
    rows, info, status, err = to_csv(files[0]) if files else ([], {}, 1, "no file")
    blocks = [r for r in rows if r[3] == 4096]
    expect(status == 0 and len(blocks) == 20000 and info.get("releases", 0) >= 20000,
           f"pingpong: 20,000 blocks of 4 KiB, each released: {len(blocks)}, {info.get('releases')}")
    expect(info.get("live_address_reused") == 0 and info.get("unknown_releases") == 0,
           f"pingpong: no address allocated while live, no unknown release: "
           f"{info.get('live_address_reused')}, {info.get('unknown_releases')}")

    # A trace is never written over; without ARENAREF_TRACE_OUT or with another name, no file.
    fixed = os.path.join(tmp, "fixed.bin")
    run_traced([tracee, "exit"], fixed)
    before = open(fixed, "rb").read()
    again = run_traced([tracee, "basic"], fixed)
    expect(again.returncode == 0 and "the file exists" in again.stderr and open(fixed, "rb").read() == before,
           f"an existing trace is kept and the program runs: {again.stderr.strip()}")
    quiet = os.path.join(tmp, "quiet")
    os.makedirs(quiet)
    plain = subprocess.run([tracee, "basic"], env={"LD_PRELOAD": tracer}, capture_output=True)
    other = run_traced([tracee, "basic"], os.path.join(quiet, "%p.bin"), only="python3,cc1")
    expect(plain.returncode == 0 and other.returncode == 0 and not os.listdir(quiet),
           "no file without ARENAREF_TRACE_OUT, nor for a program ARENAREF_TRACE_ONLY leaves out")

    # The converter on hand-made files.
    def handmade(name, records, slots=None, lost=0, magic=b"ARMTRACE"):
        header = bytearray(4096)
        struct.pack_into("<8sIIQQQQQ", header, 0, magic, 1, 16, 1 << 20,
                         len(records) if slots is None else slots, lost, 4242, 0)
        body = b"".join(struct.pack("<QQ", a, (k << 56) | s) for a, k, s in records)
        path = os.path.join(tmp, name)
        open(path, "wb").write(bytes(header) + body + bytes((1 << 20) - len(body)))
        return path

    MALLOC, CALLOC, FREE, REALLOC_FREE = 1, 2, 5, 6
    path = handmade("edges.bin", [(0x10, MALLOC, 5), (0x99, FREE, 0), (0x10, MALLOC, 6), (0, 0, 0),
                                  (0x20, CALLOC, 7), (0x10, FREE, 0), (0x30, MALLOC, 8)])
    rows, info, status, err = to_csv(path)
    expect(status == 0 and rows == [(0, 0, 1, 5), (1, 1, 3, 6), (2, 2, 4, 7), (3, 3, 4, 8)],
           f"hand-made: an unseen release left out, an allocation at a live address ends the older, "
           f"an empty slot skipped: {rows}")
    expect((info.get("unknown_releases"), info.get("live_address_reused"), info.get("empty_slots"))
           == (1, 1, 1), f"hand-made: counted ({info})")
    rows, info, status, err = to_csv(path, "--first", "2")
    expect(status == 0 and rows == [(0, 0, 1, 5), (1, 1, 2, 6)] and info.get("first") == 2,
           f"--first 2: the first two allocations, live ones to the end: {rows}")
    rows, info, status, err = to_csv(handmade("lost.bin", [(0x10, MALLOC, 5)], lost=3))
    expect(status == 1 and "lost 3" in err and rows == [(0, 0, 1, 5)],
           f"lost calls: the CSV is written, exit 1 with the count: {status} {err.strip()}")
    rows, info, status, err = to_csv(handmade("past.bin", [(0x10, MALLOC, 5)], slots=(1 << 16) + 5))
    expect(status == 1 and info.get("lost") == 5, f"slots past the file's end count as lost: {info.get('lost')}")
    for name, data, words in (("magic.bin", None, "not a tracer file"), ("short.bin", b"ARMTRACE", "shorter"),
                              ("missing.bin", False, "No such file")):
        path = os.path.join(tmp, name)
        if data is None:
            path = handmade(name, [], magic=b"NOTTRACE")
        elif data:
            open(path, "wb").write(data)
        done = subprocess.run([convert, path], capture_output=True, text=True)
        expect(done.returncode == 2 and words in done.stderr and name in done.stderr,
               f"{name}: exit 2 naming the file and what is wrong: {done.stderr.strip()}")
    done = subprocess.run([convert, "--frist", "3", path], capture_output=True, text=True)
    expect(done.returncode == 2 and "--frist" in done.stderr, f"an unknown option: exit 2: {done.stderr.strip()[:80]}")

    # A real program: its CSV reads in `arenacert place`, the bound is the converter's, and the
    # placement is valid and certifies.
    folder = os.path.join(tmp, "python")
    os.makedirs(folder)
    done = run_traced(["/usr/bin/python3", "-s", "-P", "-B", "-c", "import json; json.dumps([1, 2])"],
                      os.path.join(folder, "%p.bin"), only="python3.11,python3",
                      extra_env={"PYTHONMALLOC": "malloc", "PYTHONHASHSEED": "0"})
    files = [os.path.join(folder, f) for f in os.listdir(folder)]
    expect(done.returncode == 0 and len(files) == 1, f"python3 traced: {done.stderr.strip()} {files}")
    if files:
        rows, info, status, err = to_csv(files[0])
        expect(status == 0 and len(rows) > 10000 and info.get("unknown_releases", 1) < 10,
               f"python3: {len(rows)} buffers (> 10,000), {info.get('unknown_releases')} unknown releases")
        for name, path in (("basic", os.path.join(tmp, "basic")), ("python3", files[0])):
            source = path + ".csv" if name == "python3" else [os.path.join(path, f) for f in os.listdir(path)
                                                              if f.endswith(".csv")][0]
            facts = json.load(open(source[:-4] + ".json"))
            placed = source + ".placed.csv"
            # The default strategy on the tracee's; on python's, the greedy (the search would use
            # its whole time limit on 10^4 buffers).
            strategy = [] if name == "basic" else ["--strategy", "greedy-by-size"]
            with open(placed, "w") as f:
                p = subprocess.run([arenacert, "place", source, *strategy], stdout=f, stderr=subprocess.PIPE,
                                   text=True)
            said = dict(line.split(": ", 1) for line in p.stderr.splitlines() if ": " in line)
            expect(p.returncode == 0 and said.get("lower_bound") == str(facts["max_live_bound"]) and
                   said.get("buffers") == str(facts["buffers"]),
                   f"{name}: arenacert place reads it, bound {said.get('lower_bound')} = the converter's "
                   f"{facts['max_live_bound']}, {said.get('buffers')} buffers")
            check = subprocess.run([arenacert, "place", "--check", placed], capture_output=True, text=True)
            imported = subprocess.run([arenacert, "import", placed], capture_output=True)
            cert = subprocess.run([arenacert, "certify", "-"], input=imported.stdout, capture_output=True)
            expect(check.returncode == 0 and imported.returncode == 0 and cert.returncode == 0 and
                   b"verdict: 0" in cert.stdout,
                   f"{name}: the placement is valid and certifies: {check.stdout.split()[-2:]} {cert.stdout.decode().strip()}")

print(f"FAILED ({len(failures)})" if failures else "ok: the tracer's CSVs are exact")
sys.exit(1 if failures else 0)
