#!/usr/bin/env bash
# The exporter's own aliasing check: a captured trace exports; the same trace hand-edited so that
# a later op reads the value an in-place op overwrote is refused (exit 1, naming both ops), and
# so is one where the model's outputs read it. Usage: check_alias.sh TFLITE_PLAN ARENACERT DIR
set -euo pipefail
plan_tool=$1 ARENACERT=$2 dir=$3
source "$(dirname "$0")/lib.sh"
mkdir -p "$dir"
"$plan_tool" face_landmark --trace-out "$dir/trace.json" --out "$dir/plan.json"
"$plan_tool" --from-trace "$dir/trace.json" --out "$dir/again.json"
expect_class "$dir/again.json" 0
for where in op outputs; do
  /usr/bin/python3 "$(dirname "$0")/edit_trace.py" "$dir/trace.json" \
    "$dir/edited-$where.json" "$where"
  set +e
  "$plan_tool" --from-trace "$dir/edited-$where.json" --out "$dir/edited.json" 2> "$dir/err.txt"
  status=$?
  set -e
  cat "$dir/err.txt"
  [ "$status" = 1 ] || fail "edited trace ($where): exit $status, expected 1"
  grep -q "in place, but .* reads tensor .* later" "$dir/err.txt" || fail "no aliasing message"
done
echo passed
