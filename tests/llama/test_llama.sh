#!/usr/bin/env bash
# llama.cpp's decode plans: tiny random models (llama and qwen2; GQA, F16, tied) export and
# certify 0 at T=1 and T=16 (flash attention on and off); planted faults get their class, with
# `certify --exact` agreeing; a hand-edited trace (a value moved onto another's bytes) exports and
# the certificate refuses it; a bad file is refused with exit 2.
#   test_llama.sh ROOT ARENACERT
set -u
root=$1 cert=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
verdict() { "$cert" certify "$@" | sed -n 's/^verdict: //p;q'; }
mk() { "$root/scripts/llama-model" --out "$tmp/$1.gguf" "${@:2}" || bad "llama-model $*"; }
mk llama-gqa --arch llama --layers 2 --width 64 --heads 4 --kv-heads 2
mk qwen2-f16-tied --arch qwen2 --layers 3 --width 64 --heads 4 --kv-heads 2 --type f16 --tied
mk llama-f16 --arch llama --layers 3 --width 128 --heads 8 --type f16 --ffn 160 --vocab 96
for m in llama-gqa qwen2-f16-tied llama-f16; do
  for T in 1 16; do for fa in on off; do
    p=$tmp/$m-$T-$fa.json
    "$root/scripts/llama-plan" "$tmp/$m.gguf" --tokens $T --flash-attn $fa --out "$p" 2>"$tmp/err" \
      || { bad "$m T=$T fa=$fa: export failed: $(cat "$tmp/err")"; continue; }
    v=$(verdict "$p"); e=$(verdict --exact "$p")
    [ "$v" = 0 ] && [ "$e" = 0 ] || bad "$m T=$T fa=$fa: verdict $v, exact $e"
  done; done
  for r in B C D; do for s in 0 1; do
    p=$tmp/$m-fault-$r-$s.json
    "$root/scripts/llama-plan" "$tmp/$m.gguf" --tokens 16 --out "$p" --plant-fault --fault-rule $r \
      --fault-seed $s 2>/dev/null || { bad "$m fault $r seed $s: export failed"; continue; }
    v=$(verdict "$p"); e=$(verdict --exact "$p")
    got=$(/usr/bin/python3 -c "
import json,sys; p=json.load(open(sys.argv[1])); v=int(sys.argv[2]); n=len(p['launches'])
print('B' if v==1 else 'C' if 2<=v<2+n else 'D' if v>=2+n else '0', p['meta']['fault']['expect_class'])" "$p" "$v")
    set -- $got
    [ "$1" = "$r" ] && [ "$2" = "$r" ] && [ "$v" = "$e" ] || bad "$m fault $r seed $s: verdict $v ($1), expected $2, exact $e"
  done; done
done
# the recorder's reads/writes for a copy between two views of one compute value (no model here
# makes one): the source view read across elements, the written view written; a trace saying so
# plans, and the overlap is rule D
source "$root/scripts/lib/llama_build.sh"
L=$ARENAREF_LLAMA
cc -std=gnu11 -Wall -Wextra -Wno-unused-function -o "$tmp/view_ranges" "$root/tests/llama/view_ranges.c" \
  -I"$L/include" -L"$L/lib" -Wl,--disable-new-dtags,-rpath,"$L/lib" -lllama -lggml -lggml-base \
  || bad "view_ranges.c does not compile"
want='{,"reads":[{"offset":32,"size":64}],"writes":[{"offset":64,"size":64}]}
{}'
[ "$("$tmp/view_ranges")" = "$want" ] || bad "view ranges: $("$tmp/view_ranges")"
/usr/bin/python3 - "$root" "$cert" <<'PY' || bad "a trace with the recorder's view ranges"
import json, subprocess, sys
sys.path.insert(0, sys.argv[1] + "/workloads/runtimes")
import common
u = json.loads('{"from":"X","to":"X"' + '{,"reads":[{"offset":32,"size":64}],"writes":[{"offset":64,"size":64}]}'[1:])
raw = {"format": "arena-trace/1", "runtime": {"name": "llama.cpp"}, "program": {"name": "views"},
       "alignment": 32, "regions": [{"name": "compute", "kind": "arena", "size": 256}],
       "values": [{"id": "X", "region": "compute", "offset": 0, "size": 256}],
       "ops": [{"kernel": "upload", "writes": ["X"]}, {"kernel": "CPY", "reads": ["X"], "updates": [u]},
               {"kernel": "readback", "reads": ["X"]}]}
plan, _ = common.export(raw)
r = subprocess.run([sys.argv[2], "certify", "-"], input=json.dumps(plan), capture_output=True, text=True)
assert r.stdout.startswith("verdict: 6\n") and "reads[0]" in r.stdout, r.stdout
PY
# a recorded trace edited by hand: a value moved onto another's bytes is recorded as it is (exit 0)
# and the certificate refuses it (rule B or D), naming the moved value
"$root/scripts/llama-plan" "$tmp/llama-gqa.gguf" --tokens 2 --out /dev/null --trace-out "$tmp/t.json" 2>/dev/null
/usr/bin/python3 - "$tmp/t.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); d = {v["id"]: v for v in t["values"]}
moved = {"p.n1:norm-0"}  # with the values in-place updates join it to (they share its bytes)
for _ in range(len(t["ops"])):
    for o in t["ops"]:
        for u in o.get("updates", []):
            if u["from"] in moved or u["to"] in moved:
                moved |= {u["from"], u["to"]}
for v in moved:
    d[v]["offset"] = d["p.n0:embd"]["offset"]
json.dump(t, open(sys.argv[1], "w"))
PY
"$root/scripts/trace-plan" "$tmp/t.json" --out "$tmp/edited.json" 2>"$tmp/err"; rc=$?
[ $rc = 0 ] || bad "edited trace: exit $rc, expected 0 (recorded, not judged): $(cat "$tmp/err")"
"$cert" certify "$tmp/edited.json" >"$tmp/verdict"; rc=$?
[ $rc = 1 ] && grep -q "^rule [BD]: .*norm-0" "$tmp/verdict" \
  || bad "edited trace: certify exit $rc, expected rule B or D naming norm-0: $(cat "$tmp/verdict")"
# a bad file
echo "not a model" >"$tmp/bad.gguf"
"$root/scripts/llama-plan" "$tmp/bad.gguf" 2>"$tmp/err"; rc=$?
[ $rc = 2 ] && grep -q "cannot load it as a GGUF" "$tmp/err" || bad "bad file: exit $rc"
"$root/scripts/llama-plan" "$tmp/missing.gguf" 2>/dev/null; [ $? = 2 ] || bad "missing file: not exit 2"
[ $fail = 0 ] && echo "llama: all checks passed"
exit $fail
