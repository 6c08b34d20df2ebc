"""Shared by the Python tests (the runtime families' bench checks first): named checks that print
ok/FAIL (`expect`, collected in `failures`) and end the test with their count (`finish`), and a results file's entries by
benchmark name (the first of each, aggregates and /repeats, /iterations suffixes left out)."""

import os
import subprocess
import sys

failures = []


def expect(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        failures.append(what)


def runs(entries):
    out = {}
    for entry in entries:
        if entry.get("run_type") != "aggregate":
            out.setdefault(entry["name"].split("/repeats")[0].split("/iterations")[0], entry)
    return out


def place_strategies(bin_dir):
    """Every strategy of place.h, as `arenacert place --list` (beside the bench) names them, sorted."""
    done = subprocess.run([os.path.join(bin_dir, "arenacert"), "place", "--list"],
                          capture_output=True, text=True)
    return sorted(done.stdout.split())


def finish():
    print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)
