"""Instruction counts that follow from the binary, the input and the options alone.

1. A bare callgrind (`--toggle-collect`) of `arenacert certify` on plans of four families and of
   `arenacert place` on a MiniMalloc problem, each in fresh processes under these conditions:
   three repeated runs, an empty environment, a 64 KiB environment, another working directory,
   ASLR off (setarch -R), a longer argv[0] (a symlink), and a heap that other code used first (a
   preloaded library that allocates before main).
2. The bench's own path, `scripts/bench --instructions`, on certify, exact, load, precision,
   placement and arena benchmarks, under: two repeated runs, a 64 KiB environment, another
   working directory, ASLR off, and a longer argv[0] (BUILD_DIR through a longer symlink); and
   the bench binary counted as scripts/bench runs it with another family's plans registered.
Every count must be identical, exactly. Exit 77 where valgrind is missing.
"""

import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

root, build_dir = sys.argv[1], os.path.abspath(sys.argv[2])
arenacert = os.path.join(build_dir, "bin", "arenacert")
bench_binary = os.path.join(build_dir, "bin", "arenaref_bench")
if not shutil.which("valgrind"):
    print("SKIP: valgrind is not installed")
    sys.exit(77)
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL", what, flush=True)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


BIG_ENV = {"ARENAREF_PADDING": "x" * 65536}
setarch = shutil.which("setarch")
tmp = tempfile.mkdtemp(prefix="arenaref-determinism.")
try:
    # ---- 1. bare callgrind of the command line ------------------------------------------------
    plans = {}
    for family, extra in (
        ("decoder", ["--preset", "tiny"]),
        ("moe", ["--preset", "tiny", "--fault", "carried-clobbered"]),
        ("training", ["--preset", "tiny"]),
        ("flat", ["--ops", "1000", "--globals", "100", "--seed", "0"]),
    ):
        path = os.path.join(tmp, f"{family}.json")
        with open(path, "w") as handle:
            done = subprocess.run([arenacert, "gen", family] + extra, stdout=handle, text=True)
        expect(done.returncode == 0, f"gen {family} {extra}: exit {done.returncode}")
        plans[family] = path
    problem = os.path.join(root, "workloads", "data", "minimalloc", "C.1048576.csv")

    # A library that allocates before main: what else ran in the process changes the heap.
    history = os.path.join(tmp, "history.so")
    source = os.path.join(tmp, "history.c")
    with open(source, "w") as handle:
        handle.write(
            "#include <stdlib.h>\n"
            "void *kept[64];\n"
            "__attribute__((constructor)) static void history(void) {\n"
            "  for (int i = 0; i != 64; ++i) kept[i] = malloc(24 + 40 * i);\n"
            "  for (int i = 0; i < 64; i += 3) free(kept[i]);\n"
            "}\n"
        )
    have_history = run(["cc", "-shared", "-fPIC", "-O1", "-o", history, source]).returncode == 0
    other_dir = os.path.join(tmp, "another", "working", "directory")
    os.makedirs(other_dir)
    long_argv0 = os.path.join(tmp, "a-much-longer-name-for-the-same-arenacert-binary")
    os.symlink(arenacert, long_argv0)

    conditions = [("repeat 1", {}), ("repeat 2", {}), ("repeat 3", {}), ("empty environment", {"env": "empty"}),
                  ("64 KiB environment", {"env": "big"}), ("another directory", {"cwd": other_dir}),
                  ("longer argv[0]", {"argv0": long_argv0})]
    if setarch:
        conditions.append(("ASLR off", {"setarch": True}))
    if have_history:
        conditions.append(("a heap used before main", {"preload": history}))

    def count(condition, function, args):
        out = os.path.join(tmp, "cg.out")
        env = dict(os.environ)
        if condition.get("env") == "empty":
            env = {"PATH": "/usr/bin:/bin"}
        elif condition.get("env") == "big":
            env.update(BIG_ENV)
        if condition.get("preload"):
            env["LD_PRELOAD"] = condition["preload"]
        command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                   f"--toggle-collect={function}", condition.get("argv0", arenacert)] + args
        if condition.get("setarch"):
            command = [setarch, os.uname().machine, "-R"] + command
        done = run(command, env=env, cwd=condition.get("cwd", tmp))
        try:
            with open(out) as handle:
                totals = [line.split()[1] for line in handle if line.startswith("summary:")]
        except OSError:
            totals = []
        expect(done.returncode in (0, 1) and totals, f"{' '.join(args)}: exit {done.returncode} {done.stderr[-600:]}")
        return int(totals[0]) if totals else None

    cases = [(f"certify {family}", "ar_certify", ["certify", path]) for family, path in plans.items()]
    cases += [(f"place C {strategy}", "ar_place", ["place", problem, "--strategy", strategy,
                                                    "--capacity", "1048576"])
              for strategy in ("greedy-by-size", "best-fit")]
    for label, function, args in cases:
        seen = {name: count(condition, function, args) for name, condition in conditions}
        values = set(seen.values())
        expect(len(values) == 1 and None not in values, f"{label}: counts differ: {seen}")
        print(f"{label}: {sorted(values)} under {len(seen)} conditions", flush=True)

    # ---- 2. the bench's own --instructions path -----------------------------------------------
    bench_filter = ("^(certify/(decoder|moe)/tiny|exact/decoder/tiny|load/flat/tiny|"
                    "precision/moe/few:16|placement/decoder-tiny/(best-fit|search)|"
                    "arena/small/(arena|glibc|mimalloc|jemalloc))(/|$)")
    long_build = os.path.join(tmp, "a-longer-path-to-the-same-build-folder-so-argv0-is-longer")
    os.symlink(build_dir, long_build)

    def bench(name, env_extra=None, cwd=root, build=build_dir, aslr=True):
        out = os.path.join(tmp, "bench-" + name.replace(" ", "-"))
        command = [os.path.join(root, "scripts", "bench"), "--instructions", "--no-build",
                   "--no-report", "--filter", bench_filter, "--out", out]
        if not aslr:
            command = [setarch, os.uname().machine, "-R"] + command
        env = dict(os.environ, BUILD_DIR=build, ARENAREF_COMMIT="0" * 40, ARENAREF_DIRTY="false")
        env.update(env_extra or {})
        done = run(command, env=env, cwd=cwd)
        files = glob.glob(os.path.join(out, "*.json"))
        expect(done.returncode == 0 and len(files) == 1,
               f"scripts/bench --instructions ({name}): exit {done.returncode} {done.stderr[-1500:]}")
        if not files:
            return {}
        with open(files[0]) as handle:
            data = json.load(handle)
        return {e["name"]: e["instructions"] for e in data["benchmarks"]
                if e.get("run_type") != "aggregate" and "instructions" in e}

    runs = {"repeat 1": bench("repeat 1"), "repeat 2": bench("repeat 2"),
            "64 KiB environment": bench("big env", BIG_ENV),
            "another directory": bench("other dir", cwd=other_dir),
            "longer argv[0]": bench("long argv0", build=long_build)}
    if setarch:
        runs["ASLR off"] = bench("no aslr", aslr=False)
    reference = runs["repeat 1"]
    families = {name.split("/")[0] for name in reference}
    expect({"certify", "exact", "load", "precision", "placement", "arena"} <= families,
           f"the bench counted every kind: {sorted(families)}")
    moved = 0
    for name, counts in runs.items():
        differ = {k: (reference.get(k), counts.get(k)) for k in set(reference) | set(counts)
                  if reference.get(k) != counts.get(k)}
        moved += bool(differ)
        expect(not differ, f"scripts/bench ({name}): counts differ from repeat 1: {differ}")
    print(f"scripts/bench --instructions: {len(reference)} counts "
          f"{'equal' if not moved else 'NOT equal'} under {len(runs)} conditions", flush=True)

    # Another family's plans registered (a sweep's task that found them, a run that did not):
    # the bench binary as scripts/bench runs one group, its per-run dumps compared.
    fake = os.path.join(tmp, "fake-plans")
    os.makedirs(fake)
    with open(os.path.join(fake, "index.tsv"), "w") as handle:
        handle.write("model\tvariant\tplan\tproblem\n")
        for model in "abcdefg":
            for variant in ("clean", "fault-B", "fault-D"):
                handle.write(f"{model}\t{variant}\t{fake}/{model}-{variant}.json\t{fake}/{model}.csv\n")

    def group(name, plans_dir):
        folder = os.path.join(tmp, "group-" + name)
        os.makedirs(folder)
        env = {"PATH": "/usr/bin:/bin", "LANG": "C", "TMPDIR": "/tmp", "LD_BIND_NOW": "1",
               "ARENAREF_CALLGRIND_REGIONS": "1",
               "ARENAREF_TFLITE_PLANS": plans_dir}
        done = run(["valgrind", "--tool=callgrind", "--instr-atstart=no", "--collect-atstart=no",
                    "--dump-instr=no", f"--callgrind-out-file={folder}/callgrind.out", bench_binary,
                    "--arenaref_profile=quick", f"--arenaref_topology_xml={folder}/topology.xml",
                    f"--benchmark_out={folder}/out.json", "--benchmark_out_format=json",
                    "--benchmark_min_time=0.000000001",
                    "--benchmark_filter=^(certify/(moe|encoder)/(tiny|small)|precision/decoder/few:16|"
                    "arena/small/[a-z]+)(/|$)"], env=env)
        expect(done.returncode == 0, f"bench group ({name}): exit {done.returncode} {done.stderr[-800:]}")
        dumps = sorted(glob.glob(f"{folder}/callgrind.out.*"), key=lambda p: int(p.rsplit(".", 1)[1]))
        totals = []
        for dump in dumps:
            with open(dump) as handle:
                text = handle.read()
            label = text.split("Client Request: ", 1)[1].split("\n", 1)[0] if "Client Request: " in text else "?"
            totals.append((label, [line.split()[1] for line in text.splitlines() if line.startswith("totals:")]))
        return totals

    alone, beside = group("alone", os.path.join(tmp, "no-plans")), group("beside", fake)
    expect(len(alone) > 10 and alone == beside,
           f"another family registered moves counts: {[(a, b) for a, b in zip(alone, beside) if a != b]}")
    print(f"bench binary, another family's plans registered or not: {len(alone)} dumps "
          f"{'equal' if alone == beside else 'NOT equal'}", flush=True)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"FAILED ({len(failures)})" if failures else "ok: every count identical under every condition")
sys.exit(1 if failures else 0)
