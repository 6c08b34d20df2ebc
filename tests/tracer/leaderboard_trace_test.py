"""scripts/place-leaderboard's trace family on its smallest instance: our strategy's row is valid
and certified at the manifest's bound, and every peer answer is a row that says what happened.
The peers are a stand-in `omnimalloc` package (a fake venv whose python finds it first) whose
allocators answer, refuse as omnimalloc does ("conflict relation too dense to materialize"),
never return, eat memory, fail otherwise, or overlap two buffers, so each cap and judgement is
exercised without the real package: refused, timeout (killed at --cap-seconds), out of memory
(the address-space cap), error, invalid."""
import csv
import os
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_checks import expect, failures  # noqa: E402

root, arenacert = sys.argv[1], sys.argv[2]
script = os.path.join(root, "scripts", "place-leaderboard")


FAKE_INIT = '''
class Allocation:
    def __init__(self, id, size, start, end, offset=None):
        self.id, self.size, self.start, self.end, self.offset = id, size, start, end, offset
'''
FAKE_BASE = '''
import time
from omnimalloc import Allocation

class BaseAllocator:
    @staticmethod
    def registry():
        return {"stack": Stack, "dense": Dense, "sleepy": Sleepy, "hungry": Hungry,
                "broken": Broken, "overlap": Overlap}

class Stack(BaseAllocator):
    def __init__(self, timeout=None):
        pass
    def allocate(self, allocs):
        out, at = [], 0
        for a in allocs:
            out.append(Allocation(a.id, a.size, a.start, a.end, at))
            at += a.size
        return out

class Dense(Stack):
    def allocate(self, allocs):
        raise RuntimeError("conflict relation too dense to materialize")

class Sleepy(Stack):
    def allocate(self, allocs):
        time.sleep(3600)

class Hungry(Stack):
    def allocate(self, allocs):  # 2 GiB, then an answer: only the 1 GiB cap stops it
        hoard = [bytearray(64 << 20) for _ in range(32)]
        return Stack.allocate(self, allocs)

class Broken(Stack):
    def allocate(self, allocs):
        raise ValueError("something else went wrong")

class Overlap(Stack):
    def allocate(self, allocs):
        return [Allocation(a.id, a.size, a.start, a.end, 0) for a in allocs]
'''

with tempfile.TemporaryDirectory() as tmp:
    package = os.path.join(tmp, "site", "omnimalloc")
    os.makedirs(os.path.join(package, "allocators"))
    open(os.path.join(package, "__init__.py"), "w").write(FAKE_INIT)
    open(os.path.join(package, "allocators", "__init__.py"), "w").write("")
    open(os.path.join(package, "allocators", "base.py"), "w").write(FAKE_BASE)
    venv = os.path.join(tmp, "venv")
    os.makedirs(os.path.join(venv, "bin"))
    python = os.path.join(venv, "bin", "python")
    open(python, "w").write('#!/bin/sh\nPYTHONPATH="%s" exec /usr/bin/python3 "$@"\n' % os.path.join(tmp, "site"))
    os.chmod(python, os.stat(python).st_mode | stat.S_IEXEC)
    env = dict(os.environ, ARENACERT=arenacert, ARENAREF_VENV=venv, ARENAREF_TRACES=os.path.join(tmp, "traces"))
    out = os.path.join(tmp, "lb")
    done = subprocess.run([sys.executable, script, "--families", "trace", "--traces", "sqlite-small",
                           "--time-limit", "1", "--cap-seconds", "20", "--cap-memory-gb", "1",
                           "--ours", "greedy-by-size", "--peers", "stack,dense,sleepy,hungry,broken,overlap",
                           "--out", out], env=env, capture_output=True, text=True, timeout=900)
    expect(done.returncode == 0, f"place-leaderboard exit {done.returncode}"
           + ("" if done.returncode == 0 else f": {done.stderr[-800:]}"))
    rows = {r["strategy"]: r for r in csv.DictReader(open(os.path.join(out, "leaderboard.tsv")), delimiter="\t")}
    manifest = {r["name"]: r for r in csv.DictReader(open(os.path.join(root, "workloads", "data", "traces",
                                                                       "manifest.tsv")), delimiter="\t")}
    ours = rows.get("greedy-by-size", {})
    expect(ours.get("family") == "trace" and ours.get("instance") == "sqlite-small" and ours.get("valid") == "yes"
           and ours.get("certified") == "yes" and ours.get("bound") == manifest["sqlite-small"]["max_live_bound"]
           and ours.get("buffers") == manifest["sqlite-small"]["buffers"],
           f"ours: valid, certified, the manifest's bound and buffers: {ours}")
    want = {"stack": "ok", "dense": "refused", "sleepy": "timeout", "hungry": "out of memory",
            "broken": "error", "overlap": "invalid"}
    for peer, status in want.items():
        row = rows.get("omnimalloc:" + peer, {})
        expect(row.get("status") == status, f"omnimalloc:{peer}: {status}: {row.get('status')} ({row.get('note')})")
    expect("too dense" in rows.get("omnimalloc:dense", {}).get("note", ""), "the refusal's words are kept")
    expect(float(rows.get("omnimalloc:sleepy", {}).get("seconds") or 0) < 60, "the sleeper is killed at the cap")
    expect(rows.get("omnimalloc:stack", {}).get("certified") == "yes", "a stand-in's valid answer certifies")
    md = open(os.path.join(out, "leaderboard.md")).read()
    expect("malloc traces" in md and "**refused**" in md and "**out of memory**" in md,
           "leaderboard.md: the trace family's section with the failed answers named")

print(f"FAILED ({len(failures)})" if failures else "ok: every peer answer is a row")
sys.exit(1 if failures else 0)
