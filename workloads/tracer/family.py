#!/usr/bin/python3
"""The trace family: placement problems from real programs' malloc/free calls (CPython, GCC's
cc1, sqlite3), traced by workloads/tracer. The instances are shipped in workloads/data/traces/
(README there: why shipped, provenance, facts) as `NAME.lifetimes.csv.xz`: one line per buffer
in allocation order, `lifetime,size`, which is the CSV `id,lower,upper,size` with id = lower = the
line's index and upper = lower + lifetime (xz then sees the short numbers, 7x smaller).

  family.py unpack OUT [--max-buffers N] [--names A,B] [--data DIR]
                                                         shipped instances (or DIR's) as CSVs in
                                                         OUT, each checked against the manifest's
                                                         sha256; OUT/index.tsv lists them
  family.py make OUT [--names A,B] [--build DIR]        trace the programs again (RECIPES below)
                                                         into OUT: NAME.csv, NAME.json (facts),
                                                         NAME.lifetimes.csv.xz, manifest.tsv
  family.py check [--names A,B] [--build DIR]           make into a temporary folder and compare
                                                         each CSV's sha256 with the shipped one

Exit: 0; 1 when a check differs or an unpacked file does not match its digest; 2 bad usage or a
program that cannot be run (named)."""

import argparse
import hashlib
import json
import lzma
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "workloads", "data", "traces")
MANIFEST = os.path.join(DATA, "manifest.tsv")
MANIFEST_FIELDS = ["name", "program", "buffers", "max_live_bound", "csv_sha256", "command"]
LLAMA_VERSION = "0.3.36"  # the sdist scripts/lib/llama_build.sh pins (its sha256 is checked)
GGML_VERSION_H = '#pragma once\n\n#define GGML_VERSION "0.25.3"\n#define GGML_COMMIT  "unknown"\n'

# -S: no site module (it runs the .pth files of every site-packages folder, which differ between
# machines and change when packages come and go); -P, -B: no script folder on the path, no .pyc
# written. Not -I or -E: they would ignore PYTHONMALLOC.
PYTHON = ["/usr/bin/python3", "-S", "-s", "-P", "-B"]
PYTHON_ENV = {"PYTHONMALLOC": "malloc", "PYTHONHASHSEED": "0", "TZ": "UTC"}
GGML_FLAGS = ["-c", "-Iggml/include", "-Iggml/src", "-Igenerated", "-o", "/dev/null"]

# One entry per instance: the command (run in a fresh folder holding what `needs` asks for), the
# environment added to a fixed base, the process to trace, and stdin. Adding one is one entry.
RECIPES = [
    dict(name="python-startup", program="python3", only="python3.11",
         command=PYTHON + ["-c", "pass"], env=PYTHON_ENV,
         what="CPython 3.11 starting and stopping"),
    dict(name="python-ast", program="python3", only="python3.11",
         command=PYTHON + ["-m", "ast", "/usr/lib/python3.11/argparse.py"],
         env=PYTHON_ENV,
         what="`python3 -m ast` dumping the syntax tree of the stdlib's argparse.py"),
    dict(name="python-tokenize", program="python3", only="python3.11",
         command=PYTHON + ["-m", "tokenize", "/usr/lib/python3.11/_pydecimal.py"],
         env=PYTHON_ENV,
         what="`python3 -m tokenize` on the stdlib's _pydecimal.py"),
    dict(name="cc1-ggml-alloc", program="gcc", only="cc1", needs="ggml",
         command=["gcc", "-O0"] + GGML_FLAGS + ["ggml/src/ggml-alloc.c"], env={},
         what="GCC's cc1 compiling ggml-alloc.c (llama.cpp's graph allocator) at -O0"),
    dict(name="cc1-ggml", program="gcc", only="cc1", needs="ggml",
         command=["gcc", "-O1"] + GGML_FLAGS + ["ggml/src/ggml.c"], env={},
         what="GCC's cc1 compiling ggml.c (llama.cpp's tensor library, 8,177 lines) at -O1"),
    dict(name="sqlite-small", program="sqlite3", only="sqlite3", stdin="sqlite_workload.sql",
         command=["sqlite3", ":memory:", "-cmd", ".parameter set @rows 2000"], env={},
         what="sqlite3 running sqlite_workload.sql on 2,000 orders"),
    dict(name="sqlite-medium", program="sqlite3", only="sqlite3", stdin="sqlite_workload.sql",
         command=["sqlite3", ":memory:", "-cmd", ".parameter set @rows 30000"], env={},
         what="sqlite3 running sqlite_workload.sql on 30,000 orders"),
    dict(name="sqlite-large", program="sqlite3", only="sqlite3", stdin="sqlite_workload.sql",
         command=["sqlite3", ":memory:", "-cmd", ".parameter set @rows 145000"], env={},
         what="sqlite3 running sqlite_workload.sql on 145,000 orders"),
]


def fail(message, status=2):
    print("family.py: " + message, file=sys.stderr)
    sys.exit(status)


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_manifest(path=MANIFEST):
    with open(path) as f:
        lines = [line.rstrip("\n").split("\t") for line in f if line.strip()]
    return [dict(zip(lines[0], row)) for row in lines[1:]]


def write_manifest(rows, path):
    with open(path, "w") as f:
        f.write("\t".join(MANIFEST_FIELDS) + "\n")
        for row in rows:
            f.write("\t".join(str(row[k]) for k in MANIFEST_FIELDS) + "\n")


def decode(packed, csv_path):
    """NAME.lifetimes.csv.xz to the CSV id,lower,upper,size; returns the row count."""
    with lzma.open(packed, "rt") as src, open(csv_path, "w") as out:
        header = src.readline().strip()
        if header != "lifetime,size":
            raise ValueError("%s: header %r, expected 'lifetime,size'" % (packed, header))
        out.write("id,lower,upper,size\n")
        buf, n = [], 0
        for line in src:
            life, size = line.split(",")
            buf.append("%d,%d,%d,%s" % (n, n, n + int(life), size))
            n += 1
            if len(buf) == 65536:
                out.write("".join(buf))
                buf = []
        out.write("".join(buf))
    return n


def encode(csv_path, packed):
    with open(csv_path) as src, lzma.open(packed, "wt", preset=9 | lzma.PRESET_EXTREME) as out:
        if src.readline().strip() != "id,lower,upper,size":
            raise ValueError("%s: not the converter's CSV" % csv_path)
        out.write("lifetime,size\n")
        for k, line in enumerate(src):
            i, lower, upper, size = line.split(",")
            if int(i) != k or int(lower) != k:
                raise ValueError("%s line %d: id and lower must be the row's index" % (csv_path, k + 2))
            out.write("%d,%s" % (int(upper) - k, size))


def selected(names):
    wanted = [n for n in (names or "").split(",") if n]
    known = [r["name"] for r in RECIPES]
    for n in wanted:
        if n not in known:
            fail("unknown instance %r (known: %s)" % (n, ", ".join(known)))
    return [r for r in RECIPES if not wanted or r["name"] in wanted]


def unpack(out, max_buffers, names, data=DATA):
    os.makedirs(out, exist_ok=True)
    wanted = {r["name"] for r in selected(names)}
    rows = [m for m in read_manifest(os.path.join(data, "manifest.tsv")) if m["name"] in wanted and
            (not max_buffers or int(m["buffers"]) <= max_buffers)]
    bad = 0
    index = []
    for m in rows:
        csv_path = os.path.join(out, m["name"] + ".csv")
        if not (os.path.exists(csv_path) and sha256_file(csv_path) == m["csv_sha256"]):
            try:
                decode(os.path.join(data, m["name"] + ".lifetimes.csv.xz"), csv_path)
            except (OSError, ValueError, EOFError, lzma.LZMAError) as e:
                print("family.py: %s: %s" % (m["name"], e), file=sys.stderr)
                bad += 1
                if os.path.exists(csv_path):
                    os.remove(csv_path)
                continue
            got = sha256_file(csv_path)
            if got != m["csv_sha256"]:
                print("family.py: %s: sha256 %s, the manifest says %s" % (csv_path, got, m["csv_sha256"]),
                      file=sys.stderr)
                bad += 1
                os.remove(csv_path)
                continue
        index.append((m["name"], m["program"], m["buffers"], m["max_live_bound"], csv_path))
    with open(os.path.join(out, "index.tsv"), "w") as f:
        f.write("name\tprogram\tbuffers\tmax_live_bound\tcsv\n")
        for row in index:
            f.write("\t".join(row) + "\n")
    print(os.path.join(out, "index.tsv"))
    return 1 if bad else 0


def llama_sdist(build):
    """The pinned llama-cpp-python sdist: in the build's llama.cpp folder, or fetched there by
    scripts/lib/llama_build.sh's llama_sdist (pip, sha256 checked)."""
    folder = os.environ.get("ARENAREF_LLAMA_DIR") or os.path.join(build, "llama.cpp", LLAMA_VERSION)
    sdist = os.path.join(folder, "llama_cpp_python-%s.tar.gz" % LLAMA_VERSION)
    script = ('source "%s/scripts/lib/llama_build.sh" && llama_sdist "%s" "$ARENAREF_LLAMA_VERSION" '
              '"$ARENAREF_LLAMA_SHA256"' % (ROOT, folder))
    if subprocess.run(["bash", "-c", script]).returncode or not os.path.exists(sdist):
        fail("cannot get llama-cpp-python %s's sdist into %s (scripts/lib/llama_build.sh)"
             % (LLAMA_VERSION, folder))
    return sdist


def prepare(recipe, work, build, cache):
    if recipe.get("needs") == "ggml":
        if "ggml" not in cache:
            cache["ggml"] = llama_sdist(build)
        prefix = "llama_cpp_python-%s/vendor/llama.cpp/ggml/" % LLAMA_VERSION
        with tarfile.open(cache["ggml"]) as tar:
            members = [m for m in tar.getmembers() if m.name.startswith(prefix) and m.isfile() and
                       (m.name.startswith(prefix + "include/") or
                        (m.name.count("/") == prefix.count("/") + 1 and m.name.startswith(prefix + "src/")))]
            for m in members:
                m.name = "ggml/" + m.name[len(prefix):]
                tar.extract(m, work)
        os.makedirs(os.path.join(work, "generated"))
        with open(os.path.join(work, "generated", "ggml-version.h"), "w") as f:
            f.write(GGML_VERSION_H)


def versions():
    """The programs' and glibc's Debian package versions (what a trace depends on)."""
    out = {}
    for package in ("python3.11", "gcc-12", "cpp-12", "sqlite3", "libsqlite3-0", "libc6"):
        r = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
        out[package] = r.stdout.strip() if r.returncode == 0 else "not installed"
    return out


def make(out, names, build):
    tracer = os.path.join(build, "lib", "preload", "libarenaref_malloc_tracer.so")
    convert = os.path.join(build, "bin", "malloc-trace-csv")
    for path in (tracer, convert):
        if not os.path.exists(path):
            fail("%s is not built (cmake --build %s)" % (path, build))
    os.makedirs(out, exist_ok=True)
    cache, rows = {}, []
    for recipe in selected(names):
        # A fixed place and fixed-length paths: the environment's strings are allocated too.
        work = tempfile.mkdtemp(prefix="arenaref-trace-", dir="/tmp")
        try:
            prepare(recipe, work, build, cache)
            shutil.copy(tracer, os.path.join(work, "t.so"))
            os.makedirs(os.path.join(work, "out"))
            env = {"PATH": "/usr/bin:/bin", "HOME": work, "LC_ALL": "C.UTF-8", "TMPDIR": "/tmp",
                   "LD_PRELOAD": os.path.join(work, "t.so"),
                   "ARENAREF_TRACE_OUT": os.path.join(work, "out", "%e.%p.bin"),
                   "ARENAREF_TRACE_ONLY": recipe["only"]}
            env.update(recipe["env"])
            stdin = open(os.path.join(HERE, recipe["stdin"])) if recipe.get("stdin") else subprocess.DEVNULL
            started = time.monotonic()
            try:
                done = subprocess.run(recipe["command"], cwd=work, env=env, stdin=stdin,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                      preexec_fn=no_aslr)
            except OSError as e:
                fail("%s: cannot run %s: %s" % (recipe["name"], recipe["command"][0], e))
            seconds = time.monotonic() - started
            if done.returncode:
                fail("%s: %s exited %d: %s" % (recipe["name"], recipe["command"][0], done.returncode,
                                               done.stderr.strip()[-400:]))
            traces = os.listdir(os.path.join(work, "out"))
            if len(traces) != 1:
                fail("%s: %d traced processes named %s, expected one: %s"
                     % (recipe["name"], len(traces), recipe["only"], traces))
            csv_path = os.path.join(out, recipe["name"] + ".csv")
            info = os.path.join(out, recipe["name"] + ".json")
            conv = subprocess.run([convert, os.path.join(work, "out", traces[0]), "--out", csv_path,
                                   "--info", info], capture_output=True, text=True)
            if conv.returncode:
                fail("%s: %s" % (recipe["name"], conv.stderr.strip()), conv.returncode)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        facts = json.load(open(info))
        facts.update(recipe=recipe["name"], what=recipe["what"], command=recipe["command"],
                     env=recipe["env"], traced_seconds=round(seconds, 3), versions=versions(),
                     date=time.strftime("%Y-%m-%d"), csv_sha256=sha256_file(csv_path))
        facts["argv"] = [a.replace(work, "WORK") for a in facts.get("argv", [])]
        with open(info, "w") as f:
            json.dump(facts, f, indent=1)
        encode(csv_path, os.path.join(out, recipe["name"] + ".lifetimes.csv.xz"))
        rows.append(dict(name=recipe["name"], program=recipe["program"], buffers=facts["buffers"],
                         max_live_bound=facts["max_live_bound"], csv_sha256=facts["csv_sha256"],
                         command=shlex.join(recipe["command"])))
        print("%-16s %9d buffers  bound %11d  %s" % (recipe["name"], facts["buffers"],
                                                    facts["max_live_bound"], facts["csv_sha256"][:16]))
    write_manifest(rows, os.path.join(out, "manifest.tsv"))
    return rows


def no_aslr():
    """What `setarch -R` does, in the child before exec (see scripts/malloc-trace)."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    current = libc.personality(0xFFFFFFFF)
    if current == -1 or libc.personality(current | 0x0040000) == -1:
        os.write(2, b"family.py: personality(ADDR_NO_RANDOMIZE) refused: the trace may differ\n")


def check(names, build):
    shipped = {m["name"]: m for m in read_manifest()}
    with tempfile.TemporaryDirectory() as out:
        rows = make(out, names, build)
    differ = 0
    for row in rows:
        want = shipped.get(row["name"], {}).get("csv_sha256", "(not shipped)")
        same = want == row["csv_sha256"]
        differ += not same
        print("%-16s %s" % (row["name"], "same as shipped" if same else
                            "DIFFERS: %s, shipped %s" % (row["csv_sha256"][:16], want[:16])))
    return 1 if differ else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    u = sub.add_parser("unpack")
    u.add_argument("out")
    u.add_argument("--max-buffers", type=int, default=0)
    u.add_argument("--names")
    u.add_argument("--data", default=DATA, help="a folder like workloads/data/traces")
    m = sub.add_parser("make")
    m.add_argument("out")
    m.add_argument("--names")
    m.add_argument("--build", default=os.path.join(ROOT, "build"))
    c = sub.add_parser("check")
    c.add_argument("--names")
    c.add_argument("--build", default=os.path.join(ROOT, "build"))
    a = p.parse_args()
    if a.command == "unpack":
        return unpack(a.out, a.max_buffers, a.names, a.data)
    if a.command == "make":
        make(a.out, a.names, os.path.abspath(a.build))
        return 0
    return check(a.names, os.path.abspath(a.build))


if __name__ == "__main__":
    sys.exit(main())
