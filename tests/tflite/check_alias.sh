#!/usr/bin/env bash
# In-place ops are declared with `becomes`, so the certificate checks the last-reader rule: a
# captured trace exports and certifies 0; the same trace hand-edited so that a later op (or the
# model's outputs) reads the value an in-place op overwrote still exports, and the certificate
# catches it (the exporter no longer checks it on its own). Usage: check_alias.sh TFLITE_PLAN ARENACERT DIR
set -euo pipefail
plan_tool=$1 ARENACERT=$2 dir=$3
source "$(dirname "$0")/lib.sh"
mkdir -p "$dir"
"$plan_tool" face_landmark --trace-out "$dir/trace.json" --out "$dir/plan.json"
grep -q '"becomes"' "$dir/plan.json" || fail "no in-place update declared with becomes"
"$plan_tool" --from-trace "$dir/trace.json" --out "$dir/again.json"
expect_class "$dir/again.json" 0
for where in op outputs; do
  /usr/bin/python3 "$(dirname "$0")/edit_trace.py" "$dir/trace.json" \
    "$dir/edited-$where.json" "$where"
  "$plan_tool" --from-trace "$dir/edited-$where.json" --out "$dir/edited-$where.plan.json"
  # The reader that also holds the output in its phase meets it on the same bytes: rule B; the
  # outputs' launch reads only the overwritten value: rule D.
  if [ "$where" = op ]; then expect_class "$dir/edited-$where.plan.json" B; else
    expect_class "$dir/edited-$where.plan.json" D
  fi
done
echo passed
