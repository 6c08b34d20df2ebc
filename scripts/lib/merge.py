"""scripts/merge OUT.json SHARD.json...: the shards of one run (scripts/bench --shard I/N) as one file.

Shards belong together when they agree on the commit (and dirty flag), host kind (the sweep's
arenaref_host_kind, CPU model, compiler, build type), profile, mode, filter, shard count, the
selection (size and digest) and the baseline that balanced them; every index 1..N must be given
exactly once and no benchmark may be in two shards. Anything else is refused, exit 2, with the
reason. The merged file is an ordinary results file: the first shard's context without
arenaref_shard, the command without --shard, arenaref_merged naming each shard (file, host,
date, benchmarks), the benchmarks and the skipped ones (arenaref_skipped) in shard order, and the noise record of all shards (the
load's min of mins / median of medians / max of maxes, the largest steal, every CV).
--exact-against SINGLE.json: then compares the merged file with an unsharded run of the same
commit by scripts/compare --exact (every instruction count equal), exit 1 where one differs.
"""

import json
import os
import re
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import BadInput, load_file  # noqa: E402

TOGETHER = (
    "arenaref_commit",
    "arenaref_dirty",
    "arenaref_host_kind",
    "cpu_model",
    "compiler",
    "build_type",
    "profile",
    "arenaref_mode",
    "arenaref_filter",
)
SKIPPED = "arenaref_skipped"  # the name scripts/lib/results.py reads
SHARD_KEYS = ("count", "selected", "selection_digest", "balance_source")


class Refused(Exception):
    pass


def read_shard(path):
    try:
        data = load_file(path)
    except BadInput as error:
        raise Refused(str(error))
    shard = data.get("context", {}).get("arenaref_shard")
    if not isinstance(shard, dict) or not all(k in shard for k in ("index",) + SHARD_KEYS):
        raise Refused(
            f"{path} is not a shard (context.arenaref_shard missing or incomplete:"
            " scripts/bench --shard I/N writes it)"
        )
    return data


def merge_noise(records):
    records = [r for r in records if isinstance(r, dict)]
    out = {"samples": sum(r.get("samples", 0) for r in records)}
    loads = [r["load_average_1min"] for r in records if "load_average_1min" in r]
    if loads:
        out["load_average_1min"] = {
            "min": min(l["min"] for l in loads),
            "median": statistics.median(l["median"] for l in loads),
            "max": max(l["max"] for l in loads),
        }
    for key in ("cpu_steal_percent", "cpu_busy_percent"):
        values = [r[key] for r in records if isinstance(r.get(key), (int, float))]
        if values:
            out[key] = max(values)
    cvs = [r["cv"] for r in records if isinstance(r.get("cv"), dict)]
    if cvs:
        out["cv"] = {k: v for cv in cvs for k, v in cv.items()}
    return out


def merge(paths):
    if not paths:
        raise Refused("no shards given")
    shards = [(path, read_shard(path)) for path in paths]
    first_path, first = shards[0]
    c0, s0 = first["context"], first["context"]["arenaref_shard"]
    by_index = {}
    for path, data in shards:
        context, shard = data["context"], data["context"]["arenaref_shard"]
        for key in TOGETHER:
            if context.get(key) != c0.get(key):
                raise Refused(
                    f"{path} and {first_path} differ in {key} ({context.get(key)!r} vs"
                    f" {c0.get(key)!r}): not shards of one run"
                )
        for key in SHARD_KEYS:
            if shard.get(key) != s0.get(key):
                raise Refused(
                    f"{path} and {first_path} differ in the shard's {key} ({shard.get(key)!r} vs"
                    f" {s0.get(key)!r}): not shards of one split"
                )
        index = shard["index"]
        if index in by_index:
            raise Refused(
                f"shard {index}/{s0['count']} given twice: {by_index[index][0]} and {path}"
            )
        by_index[index] = (path, data)
    count = s0["count"]
    missing = [i for i in range(1, count + 1) if i not in by_index]
    if missing:
        raise Refused(
            f"shard(s) {', '.join(f'{i}/{count}' for i in missing)} missing"
            f" (given: {', '.join(str(i) for i in sorted(by_index))})"
        )
    owner, benchmarks, merged_shards = {}, [], []
    for index in sorted(by_index):
        path, data = by_index[index]
        shard = data["context"]["arenaref_shard"]
        for name in shard["benchmarks"]:
            if name in owner:
                raise Refused(f"{name} is in shard {owner[name]} and shard {index}")
            owner[name] = index
        benchmarks += data["benchmarks"]
        merged_shards.append(
            {
                "index": index,
                "file": os.path.basename(path),
                "host_name": data["context"].get("host_name"),
                "date": data["context"].get("date"),
                "benchmarks": len(shard["benchmarks"]),
            }
        )
    if len(owner) != s0["selected"]:
        raise Refused(
            f"the shards hold {len(owner)} benchmarks, the selection had {s0['selected']}"
        )
    context = {k: v for k, v in c0.items() if k != "arenaref_shard"}
    context["arenaref_command"] = re.sub(
        r"\s+--shard(=|\s+)\S+", "", c0.get("arenaref_command", "")
    )
    hosts = sorted({s["host_name"] for s in merged_shards if s["host_name"]})
    context["arenaref_merged"] = {
        "shards": merged_shards,
        "count": s0["count"],
        "selected": s0["selected"],
        "selection_digest": s0["selection_digest"],
        "balance": s0.get("balance_source") or "equal weights",
        "hosts": hosts,
    }
    out = {k: v for k, v in first.items() if k not in ("context", "benchmarks", "arenaref_noise", SKIPPED)}
    out["context"] = context
    out["benchmarks"] = benchmarks
    # Each shard sets its own skipped benchmarks apart (results_post.py): all of them, in shard order.
    out[SKIPPED] = [
        e for index in sorted(by_index) for e in by_index[index][1].get(SKIPPED) or [] if isinstance(e, dict)
    ]
    out["arenaref_noise"] = merge_noise([d.get("arenaref_noise") for _, d in shards])
    return out


def main(argv):
    if len(argv) < 2 or argv[0] in ("-h", "--help"):
        print(__doc__.strip(), file=sys.stderr if len(argv) < 2 else sys.stdout)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    against = None
    if "--exact-against" in argv:  # the same commit run whole: every count must be the merged one's
        at = argv.index("--exact-against")
        if at + 1 >= len(argv):
            print("scripts/merge: --exact-against needs a results file", file=sys.stderr)
            return 2
        against = argv[at + 1]
        argv = argv[:at] + argv[at + 2 :]
    if len(argv) < 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    out_path, paths = argv[0], argv[1:]
    if not out_path.endswith(".json"):
        print(f"scripts/merge: the output '{out_path}' must end in .json", file=sys.stderr)
        return 2
    if os.path.abspath(out_path) in {os.path.abspath(p) for p in paths}:
        print(f"scripts/merge: {out_path} is also given as a shard", file=sys.stderr)
        return 2
    try:
        merged = merge(paths)
    except Refused as error:
        print(f"scripts/merge: {error}", file=sys.stderr)
        return 2
    os.makedirs(os.path.dirname(os.path.abspath(out_path)), exist_ok=True)
    with open(out_path + ".tmp", "w") as handle:
        handle.write(json.dumps(merged, indent=2, allow_nan=False) + "\n")
    os.replace(out_path + ".tmp", out_path)
    m = merged["context"]["arenaref_merged"]
    print(
        f"scripts/merge: {out_path}: {m['selected']} benchmarks from {m['count']} shards"
        f" (commit {str(merged['context'].get('arenaref_commit'))[:12]}, host kind"
        f" {merged['context'].get('arenaref_host_kind') or merged['context'].get('cpu_model')},"
        f" {merged['context'].get('arenaref_mode')})"
    )
    if against:
        compare = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "compare")
        done = subprocess.run([compare, "--exact", against, out_path], capture_output=True, text=True)
        tail = [l for l in (done.stdout + done.stderr).strip().splitlines() if l.strip()][-6:]
        print(f"scripts/merge: scripts/compare --exact {against} (exit {done.returncode}):\n  "
              + "\n  ".join(tail))
        return 0 if done.returncode == 0 else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
