#!/usr/bin/env bash
# In-place ops are declared as updates of the arena-trace/1 and planned with `becomes`: a
# captured trace exports and certifies 0, and planned again from the file it is the same plan.
# The same trace hand-edited so that a later op (or the readback of the outputs) reads the value
# an in-place op overwrote, or so that two values live at once share bytes, is refused by the
# shared layer's validation (exit 2, naming the op and the value), never planned.
# Usage: check_alias.sh TFLITE_PLAN ARENACERT DIR
set -euo pipefail
plan_tool=$1 ARENACERT=$2 dir=$3
source "$(dirname "$0")/lib.sh"
mkdir -p "$dir"
"$plan_tool" face_landmark --trace-out "$dir/trace.json" --out "$dir/plan.json"
grep -q '"becomes"' "$dir/plan.json" || fail "no in-place update declared with becomes"
"$plan_tool" --from-trace "$dir/trace.json" --out "$dir/again.json"
expect_class "$dir/again.json" 0
/usr/bin/python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:3])
for p in (a, b): [p["meta"].pop(k, None) for k in ("capture_seconds", "plan_seconds")]
sys.exit(0 if a == b else 1)' "$dir/plan.json" "$dir/again.json" \
  || fail "the plan from --from-trace differs from the capture's"
for where in op outputs overlap; do
  victim=$(/usr/bin/python3 "$(dirname "$0")/edit_trace.py" "$dir/trace.json" \
             "$dir/edited-$where.json" "$where" | tail -1)
  rm -f "$dir/edited-$where.plan.json"
  set +e
  "$plan_tool" --from-trace "$dir/edited-$where.json" --out "$dir/edited-$where.plan.json" \
    2> "$dir/err.txt"
  status=$?
  set -e
  [ "$status" = 2 ] || fail "$where: exit $status, expected 2: $(cat "$dir/err.txt")"
  case "$where" in
    overlap) pattern="values '.*' and '.*' share bytes while both live" ;;
    *) pattern="reads value '$victim', which is updated in place into" ;;
  esac
  grep -q "$pattern" "$dir/err.txt" && grep -q "'$victim'" "$dir/err.txt" \
    || fail "$where: the refusal lacks '$pattern' naming $victim: $(cat "$dir/err.txt")"
  ! grep -q Traceback "$dir/err.txt" || fail "$where: a traceback"
  [ ! -e "$dir/edited-$where.plan.json" ] || fail "$where: a plan was written"
  echo "ok: $where refused: $(cat "$dir/err.txt")"
done
echo passed
