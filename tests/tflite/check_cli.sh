#!/usr/bin/env bash
# Bad input (a model, a trace, an option) exits 2 with a reason naming it; --help exits 0. Usage: check_cli.sh TFLITE_PLAN DIR
set -euo pipefail
plan_tool=$1 dir=$2
source "$(dirname "$0")/lib.sh"
mkdir -p "$dir"
"$plan_tool" --help | grep -q -- --plant-fault || fail "--help does not list --plant-fault"
printf 'not a model' > "$dir/bad.tflite"
expect_exit2() { # GREP ARGS...
  local pattern=$1 status
  shift
  set +e; "$plan_tool" "$@" > /dev/null 2> "$dir/err.txt"; status=$?; set -e
  [ "$status" = 2 ] || fail "$*: exit $status, expected 2"
  grep -q "$pattern" "$dir/err.txt" || fail "$*: message lacks '$pattern': $(cat "$dir/err.txt")"
  echo "ok: $* -> $(cat "$dir/err.txt")"
}
expect_exit2 "not a TFLite flatbuffer" "$dir/bad.tflite"
expect_exit2 "no such file" "$dir/missing.tflite"
expect_exit2 "must be at least 1" face_landmark --runs 0
expect_exit2 "not JSON" --from-trace "$dir/bad.tflite"
printf '{"tensors": [{"index": 0}], "ops": [{"op": "ADD"}]}' > "$dir/old-trace.json"
expect_exit2 "trace.format: missing" --from-trace "$dir/old-trace.json"
printf '%s' '{"format": "arena-trace/1", "runtime": {"name": "litert"}, "program": {"name": "m"},
  "alignment": 64, "regions": [{"name": "arena", "kind": "arena", "size": 128}],
  "values": [{"id": "t0", "region": "arena", "offset": 0, "size": 64}],
  "ops": [{"kernel": "ADD", "reads": ["t0", "t9"]}]}' > "$dir/broken-trace.json"
expect_exit2 "op 0 (ADD).reads\[1\]: unknown value 't9'" --from-trace "$dir/broken-trace.json"
expect_exit2 "take no other arguments" --list-models face_landmark
expect_exit2 "a trace from --from-trace has its loop" --from-trace "$dir/old-trace.json" --runs 2
expect_exit2 "invalid choice" face_landmark --plant-fault --fault-kind nosuch
expect_exit2 "no model given"
expect_exit2 "not INPUT=D1,D2" face_landmark --input-shape 0=1,x
expect_exit2 "not INPUT=D1,D2" face_landmark --input-shape 1,2
expect_exit2 "a trace from --from-trace has its shapes" --from-trace "$dir/old-trace.json" \
  --input-shape 0=1
echo passed
