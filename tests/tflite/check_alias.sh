#!/usr/bin/env bash
# In-place ops are declared as updates of the arena-trace/1 and planned with `becomes`: a
# captured trace exports and certifies 0, and planned again from the file it is the same plan.
# The same trace hand-edited so that a later op (or the readback of the outputs) reads the value
# an in-place op overwrote, or so that two values live at once share bytes, is recorded as it is:
# the exporter writes its plan and exits 0, and the certificate refuses it, its message naming the
# value: rule D for the readback's late read, rule B where the late reader (the next op) also reads
# the op's output, and for the overlap, which meets in one op.
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
  [ "$status" = 0 ] || fail "$where: exit $status, expected 0 (recorded, not judged): $(cat "$dir/err.txt")"
  ! grep -q Traceback "$dir/err.txt" || fail "$where: a traceback"
  case "$where" in
    # the next op reads the in-place op's output too: both on the same bytes in one phase
    op|overlap) class=B pattern="planes .*\"$victim[ \"]" ;;
    outputs) class=D pattern="carried plane \"$victim[ \"]" ;;
  esac
  expect_class "$dir/edited-$where.plan.json" "$class"
  set +e; out=$("$ARENACERT" certify "$dir/edited-$where.plan.json"); set -e
  grep -q "$pattern" <<<"$out" || fail "$where: the verdict's message lacks '$pattern': $out"
  echo "ok: $where certified rule $class: $(sed -n 2p <<<"$out")"
done
echo passed
