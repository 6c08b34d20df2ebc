#!/usr/bin/env bash
# N back-to-back inferences are one repeat (not N copies): the plan has as many launches as one
# run, and certifies 0. Usage: check_runs.sh TFLITE_PLAN ARENACERT MODEL N DIR
set -euo pipefail
plan_tool=$1 ARENACERT=$2 model=$3 runs=$4 dir=$5
source "$(dirname "$0")/lib.sh"
mkdir -p "$dir"
"$plan_tool" "$model" --out "$dir/one.json"
"$plan_tool" "$model" --runs "$runs" --out "$dir/many.json"
[ "$(launches "$dir/one.json")" = "$(launches "$dir/many.json")" ] \
  || fail "--runs $runs copied launches"
expect_class "$dir/many.json" 0
echo "passed: $model --runs $runs"
