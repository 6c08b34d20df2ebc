"""Reading results files for scripts/report, scripts/history and scripts/reproduce.

A results file is Google Benchmark JSON plus our context (bench/README.md). Times are CPU time
(manual time for GPU benchmarks, which the CPU does not see): what scripts/compare judges. Files
written by `scripts/bench --instructions` (context arenaref_mode "instructions") contribute
their instruction counts only: their times were taken under callgrind. Several files holding the
same benchmark are an error unless a policy says otherwise (DUPLICATES).
"""

import hashlib
import json
import re
import sys

SUFFIX = re.compile(
    r"/(repeats|iterations|min_time|threads):[^/]+|/(manual_time|real_time|process_time)"
)
NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
DUPLICATES = {
    "error": "refuse (exit 2) when two files hold the same benchmark",
    "pool": "pool the repetitions of the same benchmark (files of one commit and profile only)",
    "last": "a later file's runs of a benchmark replace an earlier file's (said in the report)",
}
# Counters that do not depend on timing: two runs of one commit must agree on every one.
DETERMINISTIC = (
    "words",
    "launches",
    "repeats",
    "references",
    "executed_launches",
    "instances",
    "verdict",
    "verdict_matches_expect",
    "verdict_x1",
    "verdict_x8",
    "executed_launches_x1",
    "executed_launches_x8",
    "workspace_bytes",
    "lower_bound_bytes",
    "file_bytes",
    "evaluations",
    "few",
    "plans",
    "sites",
    "sites_exact_accepted",
    "sites_certificate_accepted",
    "site_precision",
    "plans_exact_safe",
    "plans_certificate_safe",
    "plan_precision",
    "unsound_plans",
    "hull_slack_bytes",
    "hulls",
    "points",
    "plans_exact_refused",
    "bits_match_library",
    "high_water_bytes",
    "allocations_per_call",
)


# Skipped benchmarks live in their own list beside "benchmarks" (bench/README.md, "What each
# results file records"): Google Benchmark's readers take every entry of "benchmarks" as a
# measurement. Files written before that hold them in "benchmarks", marked "skipped": true.
SKIPPED = "arenaref_skipped"


def entries(data):
    """Every benchmark entry of a results file: its runs, then its skipped ones."""
    skipped = data.get(SKIPPED)
    return list(data["benchmarks"]) + [e for e in skipped or [] if isinstance(e, dict)]


def is_skipped(entry):
    return bool(entry.get("error_occurred") or entry.get("skipped"))


def left_out_line(prog, what, why):
    """The one wording of every tool for input it does not use: `PROG: left out WHAT: WHY`."""
    return f"{prog}: left out {what}: {why}"


def say_left_out(prog, items, stream=None):
    """Print every (what, why) left out, one line each (stderr unless a stream is given)."""
    for what, why in items:
        print(left_out_line(prog, what, why), file=stream or sys.stderr, flush=True)


def kept_by(count, option=None):
    """The failing run's summary of what it left out: how many, and what would keep them."""
    return f"{count} left out, listed above: " + (
        f"{option} keeps them" if option else "no option keeps them"
    )


class BadInput(Exception):
    """A results file that cannot be used, or files that cannot be merged: exit 2."""


def base_name(name):
    return SUFFIX.sub("", name)


def quantiles(values):
    """(median, 25th, 75th percentile) with linear interpolation, or None for no values."""
    values = sorted(v for v in values if v is not None)
    if not values:
        return None

    def at(q):
        pos = q * (len(values) - 1)
        low = int(pos)
        high = min(low + 1, len(values) - 1)
        return values[low] + (values[high] - values[low]) * (pos - low)

    return at(0.5), at(0.25), at(0.75)


def load_file(path):
    try:
        with open(path) as handle:
            data = json.load(handle)
    except (OSError, ValueError) as error:
        raise BadInput(f"cannot read {path}: {error}")
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise BadInput(f"{path} is not a results file (no \"benchmarks\" list)")
    return data


class Results:
    def __init__(self, paths, duplicates="error", counters_of_instruction_files=False):
        """counters_of_instruction_files: also take the runs of instruction files (their
        deterministic counters; their times are the callgrind run's) - for scripts/reproduce."""
        if duplicates not in DUPLICATES:
            raise BadInput(
                f"--duplicates must be one of {', '.join(DUPLICATES)}, not '{duplicates}'"
            )
        self.duplicates = duplicates
        self.files = []  # (path, context)
        self.runs = {}  # base name -> plain runs (time files)
        self.errors = {}  # base name -> skip message
        self.manual = set()  # base names timed manually (GPU)
        self.instructions = {}  # base name -> [count per iteration or call, per run]
        self.instructions_per = None
        self.replaced = []  # (name, earlier file, later file) under --duplicates last
        self.noise = {}  # path -> scripts/bench's noise record (load average, steal), if any
        self.left_out = []  # (what, why): input read but not used, said by every tool
        owner, instr_owner = {}, {}
        for path in paths:
            data = load_file(path)
            context = data.get("context", {})
            instruction_file = context.get("arenaref_mode") == "instructions"
            self.files.append((path, context))
            if instruction_file and not counters_of_instruction_files:
                self.left_out.append(
                    (
                        f"{path} (its times and counters)",
                        "another mode (instructions: timed under callgrind); only its instruction"
                        " counts are used",
                    )
                )
            if isinstance(data.get("arenaref_noise"), dict):
                self.noise[path] = data["arenaref_noise"]
            if context.get("instructions_per"):
                self.instructions_per = self.instructions_per or context["instructions_per"]
            runs, errors, counts = {}, {}, {}
            for entry in entries(data):
                raw = entry.get("run_name", entry.get("name", ""))
                name = base_name(raw)
                if "manual_time" in raw:
                    self.manual.add(name)
                if entry.get("run_type") == "aggregate":
                    continue  # recomputed from the runs (medians and quartiles)
                if is_skipped(entry):
                    errors[name] = entry.get("error_message", "skipped")
                    continue
                if isinstance(entry.get("instructions"), (int, float)):
                    counts.setdefault(name, []).append(entry["instructions"])
                if not instruction_file or counters_of_instruction_files:
                    runs.setdefault(name, []).append(entry)
            self._merge(self.runs, runs, owner, path, context)
            self._merge(self.instructions, counts, instr_owner, path, context)
            for name, message in errors.items():
                if not instruction_file or name not in self.runs:
                    self.errors.setdefault(name, message)
        for name in list(self.errors):
            if name in self.runs:
                del self.errors[name]

    def _merge(self, into, new, owner, path, context):
        clashes = sorted(n for n in new if n in into)
        if clashes and self.duplicates == "error":
            first = owner[clashes[0]]
            raise BadInput(
                f"{path} and {first} both hold {len(clashes)} benchmark(s) (e.g. {clashes[0]}); "
                f"choose --duplicates pool (same commit) or --duplicates last"
            )
        if clashes and self.duplicates == "pool":
            other = dict(self.files)[owner[clashes[0]]]
            for key in ("arenaref_commit", "profile"):
                if other.get(key) != context.get(key):
                    raise BadInput(
                        f"--duplicates pool: {path} and {owner[clashes[0]]} differ in {key} "
                        f"({context.get(key)} vs {other.get(key)}); pooling would mix them"
                        " (--duplicates last keeps the later file's runs)"
                    )
        for name, values in new.items():
            if name in into and self.duplicates == "pool":
                into[name].extend(values)
            else:
                if name in into:
                    self.replaced.append((name, owner[name], path))
                    self.left_out.append(
                        (f"{name} of {owner[name]}", f"replaced by {path}'s (--duplicates last)")
                    )
                into[name] = list(values)
                owner[name] = path

    def has(self, name):
        return name in self.runs

    def time_values(self, name):
        """Per-run times in ns: CPU time (manual time for GPU benchmarks)."""
        field = "real_time" if name in self.manual else "cpu_time"
        return [
            run[field] * NS[run.get("time_unit", "ns")]
            for run in self.runs.get(name, [])
            if isinstance(run.get(field), (int, float))
        ]

    def time_stats(self, name):
        """(median, q1, q3, runs) of the CPU time in ns, or None."""
        values = self.time_values(name)
        stats = quantiles(values)
        return None if stats is None else stats + (len(values),)

    def time_ns(self, name):
        stats = self.time_stats(name)
        return None if stats is None else stats[0]

    def counter_stats(self, name, key):
        values = [
            run[key] for run in self.runs.get(name, []) if isinstance(run.get(key), (int, float))
        ]
        stats = quantiles(values)
        return None if stats is None else stats + (len(values),)

    def counter(self, name, key):
        """A counter's median over the runs (deterministic counters are equal in every run)."""
        stats = self.counter_stats(name, key)
        return None if stats is None else stats[0]

    def instructions_of(self, name):
        """(median count, every run equal?, (max - min) / median) or None."""
        values = self.instructions.get(name)
        if not values:
            return None
        median = quantiles(values)[0]
        return (
            median,
            len(set(values)) == 1,
            (max(values) - min(values)) / median if median else 0.0,
        )

    def names(self, prefix):
        return sorted(n for n in set(self.runs) | set(self.errors) if n.startswith(prefix))

    def families(self):
        order = ["decoder", "moe", "training", "pipeline", "encoder"]
        found = {
            n.split("/")[1]
            for prefix in ("certify/", "precision/", "ratios/")
            for n in self.names(prefix)
            if len(n.split("/")) > 2
        }
        return [f for f in order if f in found] + sorted(found - set(order))

    def presets(self, family, prefix="certify"):
        presets = ["tiny", "small", "medium", "large"]
        found = {n.split("/")[2] for n in self.names(f"{prefix}/{family}/")}
        return [p for p in presets if p in found] + sorted(found - set(presets))


def deterministic_digest(results):
    """A digest of every deterministic counter (first run of each benchmark) and its count."""
    digest = hashlib.sha256()
    count = 0
    for name in sorted(results.runs):
        run = results.runs[name][0]
        for key in DETERMINISTIC:
            if key in run:
                digest.update(f"{name}\t{key}\t{run[key]!r}\n".encode())
                count += 1
    return digest.hexdigest()[:16], count


def fail(prog, message):
    print(f"{prog}: {message}", file=sys.stderr)
    sys.exit(2)
