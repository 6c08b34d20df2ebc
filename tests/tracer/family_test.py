"""The trace family's shipped instances (workloads/data/traces): every one unpacks to the CSV its
manifest's sha256 names, with the buffers and bound the manifest and its facts file say (the
bound checked again by `arenacert place` on the small ones, whose placements are valid and
certify); a spoiled file or digest is refused, named, and left out of index.tsv. With --remake,
the small instances are traced again here and must give the shipped bytes: skipped (77) where
this machine's package versions are not the ones recorded; --remake-all remakes all eight (cc1's
need the pinned llama-cpp-python sdist already in build/llama.cpp or $ARENAREF_LLAMA_DIR: 77
otherwise)."""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_checks import expect, failures  # noqa: E402

root, arenacert = sys.argv[1], sys.argv[2]
remake = "--remake" in sys.argv or "--remake-all" in sys.argv
everything = "--remake-all" in sys.argv
build = os.path.dirname(os.path.dirname(arenacert))
family = os.path.join(root, "workloads", "tracer", "family.py")
data = os.path.join(root, "workloads", "data", "traces")
SMALL = ["python-startup", "sqlite-small"]


def run(*args):
    return subprocess.run(["/usr/bin/python3", family, *args], capture_output=True, text=True)


def index(folder):
    with open(os.path.join(folder, "index.tsv")) as f:
        return {r["name"]: r for r in csv.DictReader(f, delimiter="\t")}


manifest = {r["name"]: r for r in csv.DictReader(open(os.path.join(data, "manifest.tsv")), delimiter="\t")}

with tempfile.TemporaryDirectory() as tmp:
    if remake:
        recorded = json.load(open(os.path.join(data, "python-startup.json")))["versions"]
        here = {}
        for package in recorded:
            r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
            here[package] = r.stdout.strip() if r.returncode == 0 else "not installed"
        if here != recorded:
            print(f"skipped: this machine's packages differ from the recorded ones: {here} vs {recorded}")
            sys.exit(77)
        names = sorted(manifest) if everything else SMALL
        if everything:
            folder = os.environ.get("ARENAREF_LLAMA_DIR") or os.path.join(build, "llama.cpp", "0.3.36")
            if not os.path.exists(os.path.join(folder, "llama_cpp_python-0.3.36.tar.gz")):
                print(f"skipped: no llama-cpp-python 0.3.36 sdist in {folder} (scripts/llama-build fetches it)")
                sys.exit(77)
        done = run("check", "--names", ",".join(names), "--build", build)
        print(done.stdout + done.stderr)
        expect(done.returncode == 0 and done.stdout.count("same as shipped") == len(names),
               f"remade here, {', '.join(names)} are the shipped bytes")
        sys.exit(1 if failures else 0)

    out = os.path.join(tmp, "all")
    done = run("unpack", out)
    expect(done.returncode == 0, f"unpack: exit {done.returncode} {done.stderr.strip()}")
    got = index(out)
    expect(sorted(got) == sorted(manifest) and len(got) >= 6,
           f"every shipped instance unpacked and listed: {sorted(got)}")
    programs = {r["program"] for r in got.values()}
    sizes = sorted(int(r["buffers"]) for r in got.values())
    expect(len(programs) >= 3 and sizes[0] < 10**5 and sizes[-1] >= 10**6,
           f"three programs, 10^4 to 10^6 buffers: {sorted(programs)}, {sizes[0]}..{sizes[-1]}")
    for name, row in sorted(got.items()):
        facts = json.load(open(os.path.join(data, name + ".json")))
        with open(row["csv"]) as f:
            header = f.readline().strip()
            rows = sum(1 for _ in f)
        expect(header == "id,lower,upper,size" and rows == int(manifest[name]["buffers"]) == facts["buffers"] and
               int(row["max_live_bound"]) == facts["max_live_bound"],
               f"{name}: {rows} rows = the manifest's and the facts' buffers, bound {row['max_live_bound']}")
    # The small ones through arenacert: the bound again, a placement valid and certified.
    for name in SMALL:
        path = got[name]["csv"]
        placed = path + ".placed.csv"
        with open(placed, "w") as f:
            p = subprocess.run([arenacert, "place", path, "--strategy", "greedy-by-size"], stdout=f,
                               stderr=subprocess.PIPE, text=True)
        said = dict(line.split(": ", 1) for line in p.stderr.splitlines() if ": " in line)
        expect(p.returncode == 0 and said.get("lower_bound") == manifest[name]["max_live_bound"],
               f"{name}: arenacert place's bound {said.get('lower_bound')} = the manifest's")
        imported = subprocess.Popen([arenacert, "import", placed], stdout=subprocess.PIPE)
        cert = subprocess.run([arenacert, "certify", "-"], stdin=imported.stdout, capture_output=True, text=True)
        imported.stdout.close()
        check = subprocess.run([arenacert, "place", "--check", placed], capture_output=True, text=True)
        expect(imported.wait() == 0 and cert.returncode == 0 and "verdict: 0" in cert.stdout and check.returncode == 0,
               f"{name}: the placement is valid and certifies: {cert.stdout.strip()}")
    # A second unpack keeps what matches; --max-buffers and --names select.
    again = run("unpack", out, "--max-buffers", "30000")
    expect(again.returncode == 0 and sorted(index(out)) == sorted(n for n in manifest if int(manifest[n]["buffers"]) <= 30000),
           f"--max-buffers 30000: {sorted(index(out))}")
    # Spoiled data: a digest that does not match, a file that is not xz.
    spoiled = os.path.join(tmp, "spoiled")
    shutil.copytree(data, spoiled)
    lines = open(os.path.join(spoiled, "manifest.tsv")).read().splitlines()
    lines = [l.replace(manifest["sqlite-small"]["csv_sha256"], "0" * 64) for l in lines]
    open(os.path.join(spoiled, "manifest.tsv"), "w").write("\n".join(lines) + "\n")
    open(os.path.join(spoiled, "python-startup.lifetimes.csv.xz"), "wb").write(b"not xz")
    out2 = os.path.join(tmp, "spoiled-out")
    bad = run("unpack", out2, "--names", ",".join(SMALL + ["sqlite-medium"]), "--data", spoiled)
    expect(bad.returncode == 1 and "sqlite-small" in bad.stderr and "python-startup" in bad.stderr and
           sorted(index(out2)) == ["sqlite-medium"] and not os.path.exists(os.path.join(out2, "sqlite-small.csv")),
           f"spoiled: exit 1 naming both, only the good one listed: {bad.stderr.strip()[:300]}")
    unknown = run("unpack", out2, "--names", "nosuch")
    expect(unknown.returncode == 2 and "nosuch" in unknown.stderr, f"an unknown name: exit 2: {unknown.stderr.strip()}")

print(f"FAILED ({len(failures)})" if failures else "ok: the trace family is what its manifest says")
sys.exit(1 if failures else 0)
