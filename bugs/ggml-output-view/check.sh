#!/usr/bin/env bash
# ggml-alloc's output views, on two ggml versions: the recorder (record_gallocr.c) is built
# against llama-cpp-python 0.3.34's ggml (the bug: ggml built alone, ggml_build.sh) and against
# the project's pinned llama.cpp build, 0.3.36 (the fix); each run writes an arena-trace/1 and
# what V and Y hold. 0.3.34: V wrong against numpy, the plan exported (exit 0) and refused by the
# certificate, naming S and Y: rule B, as the readback of the outputs holds V (S's bytes) and Y
# on the same bytes (rule D, were they read in two ops); 0.3.36: right, and certified 0. Rows in
# OUT/report.tsv.
#   check.sh ROOT ARENACERT OUT
set -u
root=$1 cert=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
fail=0
bad() { echo "FAIL: $*"; fail=1; }
source "$root/scripts/lib/llama_build.sh"
ensure_llama || { echo "bugs: cannot build llama.cpp $ARENAREF_LLAMA_VERSION" >&2; exit 1; }
fixed=$ARENAREF_LLAMA
source "$here/ggml_build.sh"
ensure_ggml 0.3.34 d849d286d808284f1d3ec1bd6875572430d29d1f9574a010232caa4e9cef0e35 \
  || { echo "bugs: cannot build ggml 0.3.34" >&2; exit 1; }
buggy=$ARENAREF_GGML
source "$root/scripts/lib/venv.sh"
ensure_venv llama || exit 1
digest=$(sha256sum "$here/record_gallocr.c" | cut -c1-12)
printf 'bug\truntime\tversion\toutput\tverdict\tmessage\n' >"$out/report.tsv"
for pair in "0.3.34:$buggy:BD" "$ARENAREF_LLAMA_VERSION:$fixed:0"; do
  IFS=: read -r version prefix want <<<"$pair"
  bin=$root/build/ggml/record-gallocr-$version-$digest
  if [ ! -x "$bin" ]; then
    cc -O1 -std=c11 -DGGML_RECORD_VERSION="\"llama-cpp-python $version\"" -I"$prefix/include" \
      "$here/record_gallocr.c" -L"$prefix/lib" -lggml -lggml-base -lggml-cpu \
      -Wl,-rpath,"$prefix/lib" -o "$bin.tmp" && mv "$bin.tmp" "$bin" \
      || { bad "$version: compiling the recorder failed"; continue; }
  fi
  "$bin" "$out/$version.trace.json" "$out/$version.values.json" || { bad "$version: the recorder failed"; continue; }
  output=$("$ARENAREF_VENV/bin/python" "$here/compare.py" "$out/$version.values.json")
  "$root/scripts/trace-plan" "$out/$version.trace.json" --out "$out/$version.plan.json" 2>"$out/err" \
    || { bad "$version: trace-plan exit $?: $(cat "$out/err")"; continue; }
  "$cert" certify "$out/$version.plan.json" >"$out/$version.verdict"
  verdict=$(sed -n 's/^verdict: //p' "$out/$version.verdict") message=$(sed -n 2p "$out/$version.verdict")
  n=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["launches"]))' "$out/$version.plan.json")
  echo "ggml $version: output $output, verdict $verdict: $message"
  if [ "$want" = BD ]; then
    case "$output" in wrong*V\ wrong*) ;; *) bad "$version: V is not wrong: $output" ;; esac
    [ "$verdict" = 1 ] || [ "$verdict" -ge $((2 + n)) ] 2>/dev/null \
      || bad "$version: verdict $verdict, expected rule B or D"
    grep -q '"S' <<<"$message" && grep -q '"Y' <<<"$message" \
      || bad "$version: the message does not name S and Y: $message"
  else
    [ "$output" = right ] || bad "$version: $output"
    [ "$verdict" = 0 ] || bad "$version: verdict $verdict, expected 0: $message"
  fi
  printf 'ggml-output-view\tggml-alloc\tllama-cpp-python %s\t%s\t%s\t%s\n' "$version" "$output" \
    "$verdict" "$message" >>"$out/report.tsv"
done
[ $fail = 0 ] && echo "ggml-output-view: all checks passed"
exit $fail
