#!/usr/bin/env bash
# One shipped model: the clean export certifies 0 with 1 and 3 runs, its meta names the model,
# its digest, the package versions and LiteRT's arena; the placement problem has a row per
# in-place class and a max-live bound within LiteRT's arena. Planted faults (exported from the
# captured arena-trace/1, the model's capture without LiteRT's start-up; two seeds each) get the
# verdict class their meta says, with the exact oracle agreeing: a value moved onto a live one
# (rule B, and rule D by --fault-kind move), an op made in place over an input read later (the
# name `inplace`: rule D), a launch's word moved off its planes (rule C, verdict 2 + launch). A
# second export in another process is the same plan.
# Usage: check_model.sh TFLITE_PLAN ARENACERT MODEL DIR
set -euo pipefail
plan_tool=$1 ARENACERT=$2 model=$3 dir=$4
source "$(dirname "$0")/lib.sh"
mkdir -p "$dir"
"$plan_tool" "$model" --out "$dir/clean.json" --problem-out "$dir/problem.csv" \
  --trace-out "$dir/trace.json"
expect_class "$dir/clean.json" 0
[ "$(meta "$dir/clean.json" program.name)" = "$model" ] || fail "meta.program.name is not $model"
[ "$(meta "$dir/clean.json" program.sha256 | wc -c)" = 65 ] || fail "meta.program.sha256 is not a digest"
meta "$dir/clean.json" runtime.versions.ai-edge-litert > /dev/null \
  || fail "meta.runtime.versions lacks ai-edge-litert"
[ "$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["format"])' \
     "$dir/trace.json")" = arena-trace/1 ] || fail "--trace-out is not an arena-trace/1"
lb=$(meta "$dir/clean.json" placement.max_live) arena=$(meta "$dir/clean.json" placement.planned_size)
[ "$lb" -gt 0 ] && [ "$lb" -le "$arena" ] || fail "max-live bound $lb is not in (0, LiteRT's arena $arena]"
[ "$(($(wc -l < "$dir/problem.csv") - 1))" = "$(meta "$dir/clean.json" placement.rows)" ] \
  || fail "the problem's rows are not meta.placement.rows"
# Another process (another heap, another mapping under ASLR) writes the same plan: only the
# export's own times in meta may differ.
"$plan_tool" "$model" --out "$dir/again-clean.json"
/usr/bin/python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:3])
for p in (a, b): [p["meta"].pop(k, None) for k in ("capture_seconds", "plan_seconds")]
sys.exit(0 if a == b else 1)' "$dir/clean.json" "$dir/again-clean.json" \
  || fail "two exports of $model differ (addresses follow the process)"
"$plan_tool" "$model" --runs 3 --out "$dir/runs3.json"
expect_class "$dir/runs3.json" 0
[ "$(meta "$dir/runs3.json" program.runs)" = 3 ] || fail "meta.program.runs is not 3"
[ "$(meta "$dir/runs3.json" counts.ops_executed)" = $((3 * $(launches "$dir/runs3.json"))) ] \
  || fail "3 runs do not execute every launch 3 times"
plant() { # NAME CLASS ARGS...: plant with two seeds, check the class and the exact oracle
  local name=$1 class=$2 seed f got exact
  shift 2
  for seed in 0 5; do
    f="$dir/fault-$name-$seed.json"
    set +e
    "$plan_tool" --from-trace "$dir/trace.json" --plant-fault "$@" --fault-seed "$seed" \
      --out "$f" 2> "$dir/err.txt"
    status=$?
    set -e
    if [ "$status" = 2 ] && grep -Eq "no candidate for an? [a-z]+ fault|no [a-z]+ fault of rule [A-D] among" "$dir/err.txt"; then
      echo "ok: $model: no candidate for $name: $(cat "$dir/err.txt")"; return 0
    fi
    [ "$status" = 0 ] || fail "$name fault: exit $status: $(cat "$dir/err.txt")"
    [ "$(meta "$f" fault.expect_class)" = "$class" ] || fail "$f: meta's class is not $class"
    expect_class "$f" "$class"
    got=$("$ARENACERT" certify "$f" | sed -n 's/^verdict: //p' || true)
    exact=$("$ARENACERT" certify --exact "$f" | sed -n 's/^verdict: //p' || true)
    [ "$got" = "$exact" ] || fail "$f: verdict $got, exact $exact"
  done
}
plant move-B B --fault-rule B
plant move-D D --fault-rule D --fault-kind move
plant inplace D --fault-rule inplace
plant word C --fault-rule C
[ "$(meta "$dir/fault-word-0.json" fault.expect)" = "$(meta "$dir/fault-word-0.json" expect)" ] \
  || fail "the word fault's meta does not name its exact verdict"
# The moved value stays inside the arena's window, so the class never depends on where the
# heap put the persistent arena (globals) in this process.
/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); f=p["meta"]["fault"]
w=p["windows"][0]; lo=int(w["base"],16); size=[q["size"] for ph in p["phases"]
for q in ph["planes"] if q["name"]==f["plane"]][0]
sys.exit(0 if lo <= int(f["to"],16) and int(f["to"],16)+size <= lo+w["size"] else 1)' \
  "$dir/fault-move-D-5.json" || fail "the moved value leaves the arena window"
# The same seed plants the same fault (reproducible), from a capture as from its trace.
"$plan_tool" "$model" --plant-fault --fault-rule D --fault-kind move --fault-seed 5 \
  --out "$dir/again.json"
[ "$(meta "$dir/again.json" fault.value)" = "$(meta "$dir/fault-move-D-5.json" fault.value)" ] \
  && [ "$(meta "$dir/again.json" fault.onto)" = "$(meta "$dir/fault-move-D-5.json" fault.onto)" ] \
  || fail "the same seed planted a different fault"
echo "passed: $model"
