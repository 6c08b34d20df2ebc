#!/usr/bin/env bash
# scripts/executorch-plan's command line: a user's FILE.py:NAME exports (sizes passed to NAME)
# and certifies 0, its .pte (--pte-out) read back gives the same plan; a program with
# conditionals writes a folder of one plan per path, each certifying 0, and paths.tsv; a planted
# C fault on a trace (--from-trace) gets exactly its verdict. Bad input exits 2 with the reason
# and writes nothing: a garbage file, a truncated .pte, a text file, no such file, a Python file
# without NAME, a NAME the file lacks, a file that does not import, a NAME returning the wrong
# thing, an unknown program, a size the program does not take, sizes given to a .pte, a method
# the .pte lacks, a loop (torch.map) naming its instruction, more paths than --max-paths.
#   check_cli.sh ROOT ARENACERT DIR
set -u
root=$1 cert=$2 tmp=$3
rm -rf "$tmp"; mkdir -p "$tmp"
plan=$root/scripts/executorch-plan users=$root/tests/executorch/user_programs.py
fail=0
bad() { echo "FAIL: $*"; fail=1; }
verdict() { "$cert" certify "$@" | sed -n 's/^verdict: //p;q'; }
"$plan" --list-programs >"$tmp/list" || bad "--list-programs failed"
for p in llama-forward llama-decode llama-decode-reinplace convnet split-cat; do
  grep -q "^$p	" "$tmp/list" || bad "--list-programs does not list $p"
done
"$plan" "$users:mlp" --layers 3 --out "$tmp/mlp.json" --pte-out "$tmp/mlp.pte" \
  --trace-out "$tmp/mlp.trace.json" 2>"$tmp/err" || bad "mlp: $(cat "$tmp/err")"
[ "$(verdict "$tmp/mlp.json")" = 0 ] && [ "$(verdict --exact "$tmp/mlp.json")" = 0 ] || bad "mlp: not verdict 0"
grep -q "mlp: 11 ops" "$tmp/err" || bad "mlp --layers 3: not 11 ops (upload, 3 x (permute_copy, addmm, relu), readback): $(cat "$tmp/err")"
"$plan" "$tmp/mlp.pte" --out "$tmp/mlp2.json" 2>"$tmp/err" || bad "mlp.pte: $(cat "$tmp/err")"
/usr/bin/python3 - "$tmp/mlp.json" "$tmp/mlp2.json" <<'PY' || bad "mlp.pte's plan differs from the module's"
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
strip = lambda p: [[(q["base"], q["size"], q.get("carried")) for q in ph["planes"]] for ph in p["phases"]]
sys.exit(0 if strip(a) == strip(b) and [l["words"] for l in a["launches"]] == [l["words"] for l in b["launches"]] and a["windows"] == b["windows"] else 1)
PY
"$plan" "$users:conds" --out "$tmp/conds" --problem-out "$tmp/conds-problems" 2>"$tmp/err" || bad "conds: $(cat "$tmp/err")"
n=$(ls "$tmp/conds"/*.json 2>/dev/null | wc -l)
[ "$n" = 2 ] || bad "conds: $n plans, expected 2 (one per path): $(ls "$tmp/conds")"
[ "$(ls "$tmp/conds-problems" | wc -l)" = 2 ] || bad "conds: not one problem per path"
[ "$(wc -l <"$tmp/conds/paths.tsv")" = 3 ] || bad "conds: paths.tsv: $(cat "$tmp/conds/paths.tsv")"
for f in "$tmp/conds"/*.json; do
  [ "$(verdict "$f")" = 0 ] || bad "conds: $f not verdict 0"
done
ls "$tmp/conds" | grep -q '^i[0-9]*-true_i[0-9]*-true\.json$' || bad "conds: no path named by its choices"
"$plan" --from-trace "$tmp/mlp.trace.json" --plant-fault --fault-rule C --fault-seed 2 --out "$tmp/c.json" 2>/dev/null \
  || bad "mlp fault C: export failed"
v=$(verdict "$tmp/c.json"); want=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['meta']['expect'])" "$tmp/c.json")
[ "$v" = "$want" ] && [ "$(verdict --exact "$tmp/c.json")" = "$v" ] || bad "mlp fault C: verdict $v, expected $want"
refuse() {  # refuse WHAT PATTERN ARGS...: exit 2, the pattern on stderr, nothing written
  local what=$1 pattern=$2; shift 2
  "$plan" "$@" --out "$tmp/refused" 2>"$tmp/err"; local rc=$?
  [ $rc = 2 ] && grep -q -- "$pattern" "$tmp/err" || bad "$what: exit $rc: $(cat "$tmp/err")"
  [ ! -e "$tmp/refused" ] || bad "$what: wrote $tmp/refused"
  rm -rf "$tmp/refused"
}
head -c 4096 /dev/urandom >"$tmp/garbage.pte"
head -c 900 "$tmp/mlp.pte" >"$tmp/truncated.pte"
echo "not a program" >"$tmp/text.pte"
echo "def broken(:" >"$tmp/broken.py"
refuse "garbage" "not an ExecuTorch program" "$tmp/garbage.pte"
refuse "truncated .pte" "truncated" "$tmp/truncated.pte"
refuse "text file" "not an ExecuTorch program" "$tmp/text.pte"
refuse "missing .pte" "cannot read it" "$tmp/no-such.pte"
refuse "Python file without NAME" "name the function too" "$users"
refuse "missing NAME" "defines no nothing_here" "$users:nothing_here"
refuse "missing file" "no-such.py: no such file" "$tmp/no-such.py:f"
refuse "syntax error" "importing it failed: SyntaxError" "$tmp/broken.py:broken"
refuse "wrong return" "expected (module, tuple of example inputs)" "$users:not_a_pair"
refuse "unknown program" "no such program" llama-backward
refuse "size not taken" "takes no --layers" convnet --layers 3
refuse "zero size" "must be at least 1" convnet --channels 0
refuse "sizes for a .pte" "a .pte takes no sizes" "$tmp/mlp.pte" --layers 2
refuse "unknown method" "no method 'backward'" "$tmp/mlp.pte" --method backward
refuse "a loop" "instruction [0-9]*: JumpFalseCall on value [0-9]* jumps back" "$users:mapped"
refuse "too many paths" "512 paths through its JumpFalseCalls, more than the bound of 256" "$users:many_conds"
refuse "no program" "no program"
[ $fail = 0 ] && echo "executorch cli: all checks passed"
exit $fail
