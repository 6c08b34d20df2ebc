# The llama family's plans for scripts/bench (scripts/llama-plan --export-all DIR): the model
# shapes tests/llama makes, each as a T=16 decode plan (clean, a rule-B and a rule-D fault) and
# its placement problem, cached under DIR by a key of llama.cpp's version and sdist digest, the
# recorder's source, the shared layer's code, the model maker's and the model spec. Sourced.
LLAMA_BENCH_MODELS=(
  "llama-gqa --arch llama --layers 2 --width 64 --heads 4 --kv-heads 2"
  "qwen2-f16-tied --arch qwen2 --layers 3 --width 64 --heads 4 --kv-heads 2 --type f16 --tied"
  "llama-f16 --arch llama --layers 3 --width 128 --heads 8 --type f16 --ffn 160 --vocab 96"
)
LLAMA_BENCH_TOKENS=16

llama_export_all() {
  local dir=$1 here code spec name key plan problem start secs v rule
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  mkdir -p "$dir" || { echo "scripts/llama-plan: cannot make $dir" >&2; return 2; }
  source "$here/scripts/lib/llama_build.sh"
  ensure_llama || { echo "scripts/llama-plan: cannot build llama.cpp" >&2; return 2; }
  code=$(cat "$here/workloads/runtimes/llama/record.c" "$here/workloads/runtimes/llama/make_model.py" \
           "$here"/workloads/runtimes/common/*.py "$here/scripts/llama-plan" "${BASH_SOURCE[0]}" \
         | sha256sum | cut -c1-16)
  local index="model	variant	plan	problem"
  for spec in "${LLAMA_BENCH_MODELS[@]}"; do
    name=${spec%% *}
    key=$name-$(printf '%s\n' "$ARENAREF_LLAMA_VERSION $ARENAREF_LLAMA_SHA256 $code T=$LLAMA_BENCH_TOKENS $spec" \
                | sha256sum | cut -c1-12)
    problem=$dir/$key.problem.csv
    if [ ! -f "$problem" ] || [ ! -f "$dir/$key-clean.json" ] || [ ! -f "$dir/$key-fault-B.json" ] \
       || [ ! -f "$dir/$key-fault-D.json" ]; then
      # shellcheck disable=SC2086
      "$here/scripts/llama-model" --out "$dir/$key.$$.gguf" ${spec#* } >/dev/null \
        || { echo "scripts/llama-plan: cannot make the model $name" >&2; return 2; }
      start=$(date +%s.%N)
      "$here/scripts/llama-plan" "$dir/$key.$$.gguf" --tokens $LLAMA_BENCH_TOKENS --out "$dir/$key-clean.tmp$$" \
        --problem-out "$problem.tmp$$" >/dev/null 2>"$dir/$key.$$.log" \
        || { cat "$dir/$key.$$.log" >&2; echo "scripts/llama-plan: exporting $name failed" >&2; return 2; }
      secs=$(echo "$(date +%s.%N) - $start" | bc)
      for rule in B D; do
        "$here/scripts/llama-plan" "$dir/$key.$$.gguf" --tokens $LLAMA_BENCH_TOKENS --plant-fault \
          --fault-rule $rule --out "$dir/$key-fault-$rule.tmp$$" >/dev/null 2>>"$dir/$key.$$.log" \
          || { cat "$dir/$key.$$.log" >&2; echo "scripts/llama-plan: planting $rule in $name failed" >&2; return 2; }
      done
      # the export's wall time (recorder and planner) goes into the clean plan's meta
      /usr/bin/python3 - "$dir/$key-clean.tmp$$" "$secs" <<'PY' || return 2
import json, sys
p = json.load(open(sys.argv[1])); p["meta"]["export_seconds"] = round(float(sys.argv[2]), 3)
json.dump(p, open(sys.argv[1], "w"))
PY
      for v in clean fault-B fault-D; do mv "$dir/$key-$v.tmp$$" "$dir/$key-$v.json"; done
      mv "$problem.tmp$$" "$problem"
      rm -f "$dir/$key.$$.gguf" "$dir/$key.$$.log"
      echo "llama-plan: exported $name" >&2
    fi
    for v in clean fault-B fault-D; do index+=$'\n'"$name	$v	$dir/$key-$v.json	$problem"; done
  done
  printf '%s\n' "$index" >"$dir/index.tsv.tmp$$" && mv "$dir/index.tsv.tmp$$" "$dir/index.tsv"
}
