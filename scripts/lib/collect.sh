# Benchmarks one past commit for scripts/history and scripts/bisect: builds it in its own
# worktree and build folder, runs its benchmark binary on a filter, and adds an instruction count
# per certify/FAMILY/PRESET (callgrind, inclusive count of one ar_certify call on the plan this
# checkout's generator writes, so every commit certifies the same input). Old commits have no
# client requests, hence the whole-function toggle on the public entry point. Sourced, not run.
#   collect_commit REV OUT.json [FILTER]     -> 0 ok, 1 build or run failed
_collect_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
COLLECT_WORK=${COLLECT_WORK:-$_collect_root/build/history-work}

# The plans every commit certifies: written once by this checkout's arenacert.
collect_plans() {
  local gen="$_collect_root/${BUILD_DIR:-build}/bin/arenacert" family preset
  mkdir -p "$COLLECT_WORK/plans"
  if [ ! -x "$gen" ]; then
    cmake -S "$_collect_root" -B "$_collect_root/${BUILD_DIR:-build}" -G Ninja \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null && \
      cmake --build "$_collect_root/${BUILD_DIR:-build}" --target arenacert -j2 > /dev/null ||
      { echo "collect: cannot build this checkout's arenacert" >&2; return 1; }
  fi
  for family in decoder moe training pipeline encoder; do
    for preset in tiny small medium; do
      [ -s "$COLLECT_WORK/plans/$family-$preset.json" ] ||
        "$gen" gen "$family" --preset "$preset" > "$COLLECT_WORK/plans/$family-$preset.json"
    done
  done
}

# Instructions of one ar_certify call on PLAN with ARENACERT, or nothing if it failed. jansson's
# hash seed is fixed by a preloaded shim (old builds cannot be told), which makes counts exact.
collect_instructions() {
  local arenacert=$1 plan=$2 out seed="$COLLECT_WORK/jansson_seed.so"
  mkdir -p "$COLLECT_WORK"
  [ -f "$seed" ] || cc -shared -fPIC -O2 -o "$seed" "$_collect_root/scripts/lib/jansson_seed.c" \
    -ljansson || return 1
  out=$(mktemp "$COLLECT_WORK/cg.XXXXXX")
  LD_PRELOAD=$seed valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=ar_certify \
    "$arenacert" certify "$plan" > /dev/null 2>&1
  sed -n 's/^summary: \([0-9]*\).*/\1/p' "$out"
  rm -f "$out"
}

collect_commit() {
  local rev=$1 json=$2 filter=${3:-^certify/} sha wt bld raw name family preset n
  sha=$(git -C "$_collect_root" rev-parse --verify "$rev^{commit}") ||
    { echo "collect: '$rev' is not a commit" >&2; return 2; }
  collect_plans || return 1
  wt="$COLLECT_WORK/wt-${sha:0:12}"
  bld="$COLLECT_WORK/build-${sha:0:12}"
  [ -d "$wt" ] || git -C "$_collect_root" worktree add --detach -q "$wt" "$sha" ||
    { echo "collect: git worktree add failed for $sha" >&2; return 1; }
  echo "collect: ${sha:0:12}: building in $bld" >&2
  if ! { cmake -S "$wt" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DARENAREF_BENCH=ON &&
         cmake --build "$bld" --target arenaref_bench arenacert -j2; } > "$bld.log" 2>&1; then
    echo "collect: ${sha:0:12} does not build (log: $bld.log)" >&2
    return 1
  fi
  raw="$json.raw"
  echo "collect: ${sha:0:12}: running '$filter'" >&2
  # Quick profile, as scripts/bench runs it; the commit and a clean tree are what was built.
  if ! ARENAREF_COMMIT=$sha ARENAREF_DIRTY=false "$bld/bin/arenaref_bench" \
       --arenaref_profile=quick --benchmark_filter="$filter" \
       --benchmark_enable_random_interleaving=true --benchmark_color=false \
       --benchmark_out="$raw" --benchmark_out_format=json > "$bld.bench.log" 2>&1; then
    echo "collect: ${sha:0:12}: arenaref_bench failed (log: $bld.bench.log)" >&2
    return 1
  fi
  : > "$json.instructions"
  for name in $(grep -o '"run_name": "certify/[a-z_]*/[a-z]*' "$raw" | cut -d'"' -f4 | sort -u); do
    family=$(echo "$name" | cut -d/ -f2)
    preset=$(echo "$name" | cut -d/ -f3)
    [ -s "$COLLECT_WORK/plans/$family-$preset.json" ] || continue
    n=$(collect_instructions "$bld/bin/arenacert" "$COLLECT_WORK/plans/$family-$preset.json")
    [ -n "$n" ] && printf '%s\t%s\n' "$name" "$n" >> "$json.instructions"
  done
  /usr/bin/python3 - "$raw" "$json.instructions" "$json" "$sha" "$filter" "$_collect_root/scripts/lib" <<'EOF'
import json, sys
raw, counts, out, sha, filt, lib = sys.argv[1:]
sys.path.insert(0, lib)
from results_post import set_skipped_apart, write_strict
data = json.load(open(raw))
instructions = dict(line.split("\t") for line in open(counts).read().split("\n") if line)
context = data.setdefault("context", {})
context.update({"arenaref_commit": sha, "arenaref_dirty": "false", "profile": "quick",
                "arenaref_mode": "time", "arenaref_filter": filt,
                "arenaref_command": f"scripts/history --collect {sha[:12]} --filter '{filt}'",
                "instructions_per": "call (callgrind Ir of one ar_certify, inclusive, by the "
                "commit's arenacert on the plan the collecting checkout's generator writes, "
                "jansson's hash seed fixed)"})
for entry in data.get("benchmarks", []):
    name = entry.get("run_name", entry["name"]).split("/repeats:")[0]
    if name in instructions:
        entry["instructions"] = int(instructions[name])
# As scripts/bench writes: strict JSON (old binaries wrote NaN, e.g. a CV of zeros), skipped
# runs apart in "arenaref_skipped".
data.setdefault("benchmarks", [])
write_strict(set_skipped_apart(data), out)
EOF
  rm -f "$raw" "$json.instructions"
  git -C "$_collect_root" worktree remove --force "$wt"
  rm -rf "$bld"
}

# count_in_tree WT BLD BENCHMARK: the instructions of BENCHMARK for the tree checked out at WT,
# built in BLD (incrementally). certify/FAMILY/PRESET: one ar_certify call by its arenacert (any
# commit); another benchmark, or COUNT_WITH_BENCH=1: this checkout's scripts/bench --instructions
# over its arenaref_bench (commits whose shim has callgrind regions). Prints the count or nothing.
count_in_tree() {
  local wt=$1 bld=$2 benchmark=$3 sha out regex
  if [[ $benchmark =~ ^certify/([a-z_]+)/([a-z]+)$ ]] && [ "${COUNT_WITH_BENCH:-0}" != 1 ]; then
    { cmake -S "$wt" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DARENAREF_BENCH=OFF &&
      cmake --build "$bld" --target arenacert -j2; } > "$bld.log" 2>&1 || return 1
    collect_instructions "$bld/bin/arenacert" \
      "$COLLECT_WORK/plans/${BASH_REMATCH[1]}-${BASH_REMATCH[2]}.json"
    return 0
  fi
  { cmake -S "$wt" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DARENAREF_BENCH=ON &&
    cmake --build "$bld" --target arenaref_bench -j2; } > "$bld.log" 2>&1 || return 1
  sha=$(git -C "$wt" rev-parse HEAD)
  out="$COLLECT_WORK/out-${sha:0:12}"
  rm -rf "$out"
  regex="^$(printf '%s' "$benchmark" | sed 's/[][\.*^$+?(){}|]/\\&/g')(/|\$)"
  BUILD_DIR=$bld ARENAREF_COMMIT=$sha ARENAREF_DIRTY=false "$_collect_root/scripts/bench" \
    --instructions --no-build --no-report --filter "$regex" --out "$out" > "$bld.bench.log" 2>&1 ||
    return 1
  /usr/bin/python3 - "$benchmark" "$out"/*.json <<'PY'
import json, statistics, sys
name, counts = sys.argv[1], []
for path in sys.argv[2:]:
    for entry in json.load(open(path)).get("benchmarks", []):
        base = entry.get("run_name", "").split("/repeats:")[0]
        if base == name and entry.get("run_type") != "aggregate" and "instructions" in entry:
            counts.append(entry["instructions"])
if counts:
    print(f"{statistics.median(counts):.0f}")
PY
}
