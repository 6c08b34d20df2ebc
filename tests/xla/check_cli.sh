#!/usr/bin/env bash
# scripts/xla-plan's command line: a user's FILE.py:NAME exports and certifies 0 (sizes passed
# to NAME, a donated in-place step, a scan writing a cache carry, a planted word fault of class C
# and a reads fault of rule D on traces); programs it cannot express
# (a data-dependent while, a conditional) and bad input (no file, no NAME, a file that does not
# import, a NAME returning the wrong thing, an unknown program, a size the program does not
# take) exit 2 with the reason.
#   check_cli.sh ROOT ARENACERT DIR
set -u
root=$1 cert=$2 tmp=$3
mkdir -p "$tmp"
plan=$root/scripts/xla-plan users=$root/tests/xla/user_programs.py
fail=0
bad() { echo "FAIL: $*"; fail=1; }
verdict() { "$cert" certify "$@" | sed -n 's/^verdict: //p;q'; }
"$plan" --list-programs >"$tmp/list" || bad "--list-programs failed"
for p in gpt2-forward gpt2-decode gpt2-train penzai-llama-forward penzai-llama-decode penzai-gptneox-forward; do
  grep -q "^$p	" "$tmp/list" || bad "--list-programs does not list $p"
done
"$plan" "$users:mlp" --layers 5 --out "$tmp/mlp.json" --trace-out "$tmp/mlp.trace.json" 2>"$tmp/err" || bad "mlp: $(cat "$tmp/err")"
[ "$(verdict "$tmp/mlp.json")" = 0 ] && [ "$(verdict --exact "$tmp/mlp.json")" = 0 ] || bad "mlp: not verdict 0"
grep -q "loops 5x" "$tmp/err" || bad "mlp --layers 5: no loop of 5: $(cat "$tmp/err")"
"$plan" "$users:donated_update" --out "$tmp/don.json" 2>"$tmp/err" || bad "donated_update: $(cat "$tmp/err")"
[ "$(verdict "$tmp/don.json")" = 0 ] || bad "donated_update: not verdict 0"
grep -q "[1-9][0-9]* in-place updates" "$tmp/err" || bad "donated_update: no in-place update: $(cat "$tmp/err")"
"$plan" "$users:scan_cache" --out "$tmp/scan.json" --trace-out "$tmp/scan.trace.json" 2>"$tmp/err" || bad "scan_cache: $(cat "$tmp/err")"
[ "$(verdict "$tmp/scan.json")" = 0 ] && [ "$(verdict --exact "$tmp/scan.json")" = 0 ] || bad "scan_cache: not verdict 0"
grep -q "loops 8x.* 2 in-place updates" "$tmp/err" || bad "scan_cache: not a loop of 8 with 2 in-place updates: $(cat "$tmp/err")"
"$plan" --from-trace "$tmp/scan.trace.json" --plant-fault --fault-kind reads --out "$tmp/reads.json" 2>/dev/null || bad "scan_cache fault reads: export failed"
v=$(verdict "$tmp/reads.json"); want=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['meta']['expect'])" "$tmp/reads.json")
[ "$v" = "$want" ] && [ "$(verdict --exact "$tmp/reads.json")" = "$v" ] || bad "scan_cache fault reads: verdict $v, expected $want"
"$plan" --from-trace "$tmp/mlp.trace.json" --plant-fault --fault-rule C --fault-seed 2 --out "$tmp/c.json" 2>/dev/null \
  || bad "mlp fault C: export failed"
v=$(verdict "$tmp/c.json"); want=$(/usr/bin/python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['meta']['expect'])" "$tmp/c.json")
[ "$v" = "$want" ] && [ "$(verdict --exact "$tmp/c.json")" = "$v" ] || bad "mlp fault C: verdict $v, expected $want"
refuse() {  # refuse WHAT PATTERN ARGS...: exit 2, the pattern on stderr
  local what=$1 pattern=$2; shift 2
  "$plan" "$@" --out "$tmp/refused.json" 2>"$tmp/err"; local rc=$?
  [ $rc = 2 ] && grep -q -- "$pattern" "$tmp/err" || bad "$what: exit $rc: $(cat "$tmp/err")"
  [ ! -e "$tmp/refused.json" ] || bad "$what: wrote a plan"
  rm -f "$tmp/refused.json"
}
refuse "data-dependent while" "without a known trip count" "$users:data_dependent"
refuse "conditional" "a conditional (lax.cond" "$users:branchy"
refuse "missing file" "no-such.py: no such file" "$tmp/no-such.py:f"
refuse "missing NAME" "defines no nothing_here" "$users:nothing_here"
echo "def broken(:" >"$tmp/broken.py"
refuse "syntax error" "importing it failed: SyntaxError" "$tmp/broken.py:broken"
refuse "wrong return" "expected (function, tuple of example arguments)" "$users:not_a_pair"
refuse "unknown program" "no such program" gpt3-forward
refuse "size not taken" "takes no --tokens" gpt2-forward --tokens 3
refuse "size not taken by a user's NAME" "takes no --heads" "$users:mlp" --heads 2
refuse "zero size" "must be at least 1" gpt2-forward --layers 0
refuse "no program" "no program" 
[ $fail = 0 ] && echo "xla cli: all checks passed"
exit $fail
