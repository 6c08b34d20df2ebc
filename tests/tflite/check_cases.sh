#!/usr/bin/env bash
# Tiny models made here (make_model.py), one per case real models met: each exports and
# certifies 0, or is refused with exit 2 and its reason (never a traceback, never a signal). A
# crash of the native interpreter is contained: the capture's child is made to die by SIGSEGV at
# a stage (a hook for tests), and the exporter reports the signal and the stage.
# Usage: check_cases.sh TFLITE_PLAN ARENACERT DIR
set -euo pipefail
plan_tool=$1 ARENACERT=$2 dir=$3
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../../scripts/lib/venv.sh"
mkdir -p "$dir"
make() { "$ARENAREF_VENV/bin/python" "$(dirname "$0")/make_model.py" "$1" "$dir/$1.tflite"; }
exports() { # KIND META_KEY VALUE: exports, certifies 0, meta KEY is VALUE
  make "$1"
  "$plan_tool" "$dir/$1.tflite" --out "$dir/$1.json" 2> "$dir/err.txt" \
    || fail "$1: exit $?: $(cat "$dir/err.txt")"
  expect_class "$dir/$1.json" 0
  [ "$(meta "$dir/$1.json" "$2")" = "$3" ] || fail "$1: meta.$2 is not $3"
}
refused() { # KIND GREP [ENV=VALUE]: exit 2 with GREP in the message
  local status
  make "$1"
  set +e; env ${3:+"$3"} "$plan_tool" "$dir/$1.tflite" --out "$dir/$1.json" 2> "$dir/err.txt"
  status=$?; set -e
  [ "$status" = 2 ] || fail "$1: exit $status, expected 2: $(cat "$dir/err.txt")"
  grep -q "$2" "$dir/err.txt" || fail "$1: message lacks '$2': $(cat "$dir/err.txt")"
  ! grep -q Traceback "$dir/err.txt" || fail "$1: a traceback"
  echo "ok: $1 refused: $(tail -1 "$dir/err.txt")"
}
exports scalar_constant capture.scalar_constants 1
[ "$(meta "$dir/scalar_constant.json" capture.scalars_from_struct)" = 1 ] \
  || fail "scalar_constant: its address was not read from LiteRT's struct"
# without LiteRT's struct, a 0-d constant's address is the file's mapping plus its offset: here
# no other constant shows where the file is mapped, so it is left out (no plane, no word)
ARENAREF_TFLITE_NO_STRUCT=1 "$plan_tool" "$dir/scalar_constant.tflite" --out "$dir/mapped.json"
expect_class "$dir/mapped.json" 0
[ "$(meta "$dir/mapped.json" capture.scalar_constants_unaddressed)" = 1 ] \
  || fail "scalar_constant without the struct: not left out unaddressed"
# 0-d intermediates: their addresses read from LiteRT's TfLiteTensor (every view and every
# scalar's value checked against it); without it, refused with the reason
exports scalar_intermediate capture.scalars_from_struct 4
exports scalar_reduction capture.scalars_from_struct 1
exports scalar_folded program.tensor_kinds.persistent_ro 2
[ "$(meta "$dir/scalar_folded.json" capture.scalars_from_struct)" = 2 ] \
  || fail "scalar_folded: the 0-d tensors' addresses were not read from LiteRT's structs"
refused scalar_reduction \
  "tensor 2 (s), used by op 0 (SUM), is a 0-d (scalar) intermediate: .*not read (ARENAREF_TFLITE_NO" \
  ARENAREF_TFLITE_NO_STRUCT=1
# whose temporaries are whose: LiteRT's TfLiteNode records; the CONV_2D's im2col (float32
# [1, 6, 6, 18], 2,592 bytes) lies between the SUMs' int64 running sums (16 bytes each)
exports conv_temporaries capture.temporaries_from TfLiteNode
"$plan_tool" "$dir/conv_temporaries.tflite" --trace-out "$dir/conv.trace.json" --out /dev/null \
  2> /dev/null
/usr/bin/python3 - "$dir/conv.trace.json" <<'EOF2' || fail "conv_temporaries: ops hold the wrong temporaries"
import json, sys
t = json.load(open(sys.argv[1]))
size = {v["id"]: v["size"] for v in t["values"]}
held = [(op["kernel"], sorted(size[w] for w in op["writes"])) for op in t["ops"][1:-1]]
want = [("SUM", [4, 8, 8, 8, 16]), ("CONV_2D", [576, 2592]), ("SUM", [4, 8, 8, 8, 16]),
        ("ADD", [576])]
sys.exit(0 if held == want else f"ops write {held}, expected {want}")
EOF2
"$ARENAREF_VENV/bin/python" "$(dirname "$0")/check_node_records.py" "$dir/conv_temporaries.tflite"
# the fallback without them, a guess in node order, says so in the meta, and is refused here
# (the first SUM's int64 running sum is where the CONV_2D's im2col is looked for)
refused conv_temporaries \
  "op 1 (CONV_2D) needs a temporary float32\[1, 6, 6, 18\], temporary tensor 13 is int64\[2\].*not read (ARENAREF_TFLITE_NO_NODES" \
  ARENAREF_TFLITE_NO_NODES=1
ARENAREF_TFLITE_NO_NODES=1 "$plan_tool" "$dir/scalar_reduction.tflite" --out "$dir/order.json"
expect_class "$dir/order.json" 0
[ "$(meta "$dir/order.json" capture.temporaries_from)" = "node order" ] \
  && meta "$dir/order.json" capture.temporaries_fallback | grep -q "ARENAREF_TFLITE_NO_NODES is set" \
  || fail "scalar_reduction without LiteRT's node records: the meta does not say node order"
# a temporary in LiteRT's persistent arena stays there (a whole-program value), as LiteRT says
exports persistent_temporary program.tensor_kinds.persistent 1
exports hybrid program.tensor_kinds.temporary 4
[ "$(meta "$dir/hybrid.json" program.tensor_kinds.persistent)" = 1 ] \
  || fail "hybrid: the weights' row sums are not in the persistent arena"
# an input of dynamic dimensions, resized before LiteRT allocates (--input-shape, by position
# or name), recorded in the meta; a fixed dimension or an input it does not have is refused
exports dynamic_input program.nodes 1
"$plan_tool" "$dir/dynamic_input.tflite" --input-shape 0=3,4 --out "$dir/resized.json"
expect_class "$dir/resized.json" 0
[ "$(meta "$dir/resized.json" program.input_shapes)" = "{'x': [3, 4]}" ] \
  || fail "dynamic_input at 3,4: program.input_shapes is $(meta "$dir/resized.json" program.input_shapes)"
"$plan_tool" "$dir/dynamic_input.tflite" --input-shape x=5,4 --out "$dir/resized.json"
[ "$(meta "$dir/resized.json" program.input_shapes)" = "{'x': [5, 4]}" ] \
  || fail "dynamic_input by name: program.input_shapes is not x: [5, 4]"
for bad in "0=3,5:input x (signature \[-1, 4\]) cannot take it" "2=3,4:no such input (the inputs: 0 (x))"; do
  set +e; "$plan_tool" "$dir/dynamic_input.tflite" --input-shape "${bad%%:*}" --out /dev/null \
    2> "$dir/err.txt"; status=$?; set -e
  [ "$status" = 2 ] && grep -q "${bad#*:}" "$dir/err.txt" \
    || fail "--input-shape ${bad%%:*}: exit $status: $(cat "$dir/err.txt")"
  echo "ok: --input-shape ${bad%%:*} refused: $(tail -1 "$dir/err.txt")"
done
exports empty capture.empty_tensors 4
exports no_data capture.empty_tensors 1
exports dynamic capture.dynamic_tensors "[5]"
exports dtypes program.nodes 8
exports int4 program.tensor_kinds.persistent 1
refused string "tensor 0 (s) of op 0 (RESHAPE) is STRING"
refused custom "op 0 (subgraph 0) is the custom op 'ArenarefNoSuchOp'"
exports two_subgraphs program.subgraphs 2
refused control_flow "3 subgraphs (ops IF); only models without control flow"
refused dtypes "native interpreter crashed (SIGSEGV) while invoke" ARENAREF_TFLITE_CRASH_AT=invoke
refused dtypes "crashed (SIGSEGV) while reading tensor 3 (add0) after allocation" \
  "ARENAREF_TFLITE_CRASH_AT=reading tensor 3"
head -c 200 "$dir/dtypes.tflite" > "$dir/truncated.tflite"
set +e; "$plan_tool" "$dir/truncated.tflite" 2> "$dir/err.txt"; status=$?; set -e
[ "$status" = 2 ] && grep -q "malformed flatbuffer\|LiteRT cannot load" "$dir/err.txt" \
  || fail "truncated: exit $status: $(cat "$dir/err.txt")"
echo "ok: truncated refused: $(tail -1 "$dir/err.txt")"
echo passed
