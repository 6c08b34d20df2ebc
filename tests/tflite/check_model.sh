#!/usr/bin/env bash
# One shipped model: the clean export certifies 0 with 1 and 3 runs, its meta names the model,
# its digest, the package versions and what was merged; a rule-B and a rule-D planted fault (two
# seeds each; exported from the captured trace, which is the model's capture without LiteRT's
# start-up) get the verdict class their meta says.
# A second export in another process is the same plan.
# Usage: check_model.sh TFLITE_PLAN ARENACERT MODEL DIR
set -euo pipefail
plan_tool=$1 ARENACERT=$2 model=$3 dir=$4
source "$(dirname "$0")/lib.sh"
mkdir -p "$dir"
"$plan_tool" "$model" --out "$dir/clean.json" --problem-out "$dir/problem.csv" \
  --trace-out "$dir/trace.json"
expect_class "$dir/clean.json" 0
[ "$(meta "$dir/clean.json" model)" = "$model" ] || fail "meta.model is not $model"
[ "$(meta "$dir/clean.json" sha256 | wc -c)" = 65 ] || fail "meta.sha256 is not a digest"
meta "$dir/clean.json" versions.ai-edge-litert > /dev/null \
  || fail "meta.versions lacks ai-edge-litert"
lb=$(meta "$dir/clean.json" lower_bound_bytes) arena=$(meta "$dir/clean.json" arena_bytes)
[ "$lb" -gt 0 ] && [ "$lb" -le "$arena" ] || fail "lower bound $lb is not in (0, arena $arena]"
[ "$(($(wc -l < "$dir/problem.csv") - 1))" = "$(meta "$dir/clean.json" buffers)" ] \
  || fail "the problem has not one row per buffer"
# Another process (another heap, another mapping under ASLR) writes the same plan: only the
# export's own time in meta may differ.
"$plan_tool" "$model" --out "$dir/again-clean.json"
/usr/bin/python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:3])
for p in (a, b): p["meta"].pop("export_seconds", None)
sys.exit(0 if a == b else 1)' "$dir/clean.json" "$dir/again-clean.json" \
  || fail "two exports of $model differ (addresses follow the process)"
"$plan_tool" "$model" --runs 3 --out "$dir/runs3.json"
expect_class "$dir/runs3.json" 0
[ "$(meta "$dir/runs3.json" runs)" = 3 ] || fail "meta.runs is not 3"
for rule in B D; do
  for seed in 0 5; do
    f="$dir/fault-$rule-$seed.json"
    "$plan_tool" --from-trace "$dir/trace.json" --plant-fault --fault-rule "$rule" \
      --fault-seed "$seed" --out "$f"
    class=$(meta "$f" fault.expect_class)
    [ "$class" = "$rule" ] || fail "$f: meta says class $class, asked for $rule"
    expect_class "$f" "$class"
    # The moved tensor stays inside the arena's window, so the class never depends on where the
    # heap put the persistent arena (a global) in this process.
    /usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); f=p["meta"]["fault"]
w=p["windows"][0]; lo=int(w["base"],16); size=[q["size"] for ph in p["phases"]
for q in ph["planes"] if q["name"]==f["plane"]][0]
sys.exit(0 if lo <= int(f["to"],16) and int(f["to"],16)+size <= lo+w["size"] else 1)' "$f" \
      || fail "$f: the moved tensor leaves the arena window"
  done
done
# An op marked in place over an input a later op reads: rule D at that reader, the exact verdict
# meta names, and --exact agrees (where the model has such an op).
for seed in 0 5; do
  f="$dir/fault-inplace-$seed.json"
  set +e
  "$plan_tool" --from-trace "$dir/trace.json" --plant-fault --fault-rule inplace \
    --fault-seed "$seed" --out "$f" 2> "$dir/err.txt"
  status=$?
  set -e
  if [ "$status" = 2 ] && grep -q "no op can be marked in place" "$dir/err.txt"; then
    echo "ok: $model: no op to mark in place"; break
  fi
  [ "$status" = 0 ] || fail "inplace fault: exit $status: $(cat "$dir/err.txt")"
  expect_class "$f" D
  want=$(meta "$f" fault.expect_verdict)
  got=$("$ARENACERT" certify "$f" | sed -n 's/^verdict: //p' || true)
  exact=$("$ARENACERT" certify --exact "$f" | sed -n 's/^verdict: //p' || true)
  [ "$got" = "$want" ] && [ "$exact" = "$want" ] \
    || fail "$f: verdict $got, exact $exact, meta expects $want"
done
# The same seed plants the same fault (reproducible).
"$plan_tool" "$model" --plant-fault --fault-rule D --fault-seed 5 --out "$dir/again.json"
[ "$(meta "$dir/again.json" fault.plane)" = "$(meta "$dir/fault-D-5.json" fault.plane)" ] \
  && [ "$(meta "$dir/again.json" fault.onto)" = "$(meta "$dir/fault-D-5.json" fault.onto)" ] \
  || fail "the same seed planted a different fault"
echo "passed: $model"
