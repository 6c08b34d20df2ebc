"""A smoke run of arenaref_bench: a few benchmarks of each kind into a JSON file, then checks
that the record holds what results/ promises and that the deterministic figures say what they
must: the environment record's fields, the topology XML beside it, verdicts as the generator
expects, no unsound plan and precision within [0, 1], an arena that stops allocating after
warm-up, the reference encoder matching the library bit for bit, and the ratio counters."""

import json
import os
import subprocess
import sys
import tempfile

binary = sys.argv[1]
REQUIRED_CONTEXT = [
    "arenaref_commit",
    "arenaref_dirty",
    "compiler",
    "c_flags",
    "build_type",
    "benchmark_version",
    "hwloc_version",
    "jansson_version",
    "cuda_version",
    "cpu_model",
    "cpu_count",
    "cpu_governor",
    "cpu_boost",
    "topology",
    "topology_xml",
    "gpus",
    "seeds",
    "profile",
    "library_build_type",
]
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL", what)


with tempfile.TemporaryDirectory() as tmp:
    out, xml = os.path.join(tmp, "run.json"), os.path.join(tmp, "run.topology.xml")
    command = [
        binary,
        f"--arenaref_topology_xml={xml}",
        f"--benchmark_out={out}",
        "--benchmark_out_format=json",
        "--benchmark_min_time=0.001",
        (
            "--benchmark_filter="
            "^(certify/decoder/tiny|ratios/training/tiny|precision/pipeline/few:(1|256)|arena/fixed/(arena|floor|pool))"
        ),
    ]
    done = subprocess.run(command, capture_output=True, text=True)
    expect(
        done.returncode == 0, f"arenaref_bench exit status {done.returncode}: {done.stderr[-2000:]}"
    )
    with open(out) as handle:
        data = json.load(handle)
    context = data["context"]
    for key in REQUIRED_CONTEXT:
        expect(key in context and context[key], f"context field {key}")
    expect(context.get("profile") == "quick", "the default profile is quick")
    with open(xml) as handle:
        expect("<topology" in handle.read(), "the topology XML was exported")

    runs = {}
    for entry in data["benchmarks"]:
        if entry.get("run_type") == "aggregate":
            continue
        expect(
            not entry.get("error_occurred"), f"{entry['name']} ran: {entry.get('error_message')}"
        )
        runs.setdefault(entry["name"].split("/repeats")[0].split("/iterations")[0], entry)
    names = set(runs)
    for name in (
        "certify/decoder/tiny",
        "ratios/training/tiny",
        "precision/pipeline/few:1",
        "precision/pipeline/few:256",
        "arena/fixed/arena",
        "arena/fixed/floor",
        "arena/fixed/pool",
    ):
        expect(name in names, f"{name} is in the results")
    if "certify/decoder/tiny" in runs:
        run = runs["certify/decoder/tiny"]
        expect(run["verdict_matches_expect"] == 1, "the certificate's verdict is the generator's")
        expect(run["words"] > 0 and run["words_per_second"] > 0, "plan size and rate counters")
    for few in ("1", "256"):
        run = runs.get(f"precision/pipeline/few:{few}")
        if run:
            expect(
                run["unsound_plans"] == 0,
                f"few {few}: no plan the exact oracle rejects is certified",
            )
            expect(
                0 <= run["site_precision"] <= 1 and 0 <= run["plan_precision"] <= 1,
                f"few {few}: shares",
            )
            expect(
                run["sites_certificate_accepted"] <= run["sites_exact_accepted"],
                f"few {few}: sound sites",
            )
    if "precision/pipeline/few:1" in runs and "precision/pipeline/few:256" in runs:
        expect(
            runs["precision/pipeline/few:256"]["sites_certificate_accepted"]
            >= runs["precision/pipeline/few:1"]["sites_certificate_accepted"],
            "precision does not fall with few",
        )
    for strategy in ("arena", "floor", "pool"):
        run = runs.get(f"arena/fixed/{strategy}")
        if run:
            expect(
                run["allocations_per_call"] == 0,
                f"{strategy}: no allocation per call after warm-up",
            )
            expect(
                run["bits_match_library"] == 1,
                f"{strategy}: the reference encoder matches ar_text_encode",
            )
            expect(
                run.get("alloc_path_ns", -1) >= 0 and run.get("alloc_path_mean_ns", -1) >= 0,
                f"{strategy}: the allocation path was probed",
            )
            expect(
                run.get("probe_calls", 0) >= 256,
                f"{strategy}: the probe covers a pass over the stream",
            )
    run = runs.get("ratios/training/tiny")
    if run:
        for key in ("certify_over_load", "certify_over_floor", "load_over_jansson", "d_scaling_x8"):
            expect(run.get(key, 0) > 0, f"ratio counter {key}")
        expect(
            run["executed_launches_x8"] > run["executed_launches_x1"],
            "x8 copy executes more launches",
        )
        expect(run["verdict_x1"] == run["verdict_x8"] == 0, "the scaled copies certify")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
