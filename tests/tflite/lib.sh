# Shared by the tflite tests (sourced): fail with a message, read a field of a plan's meta, and
# certify a plan expecting a verdict class (0, B: verdict 1, C: 2 <= verdict < 2 + launches, D:
# verdict >= 2 + launches).
fail() { echo "FAIL: $*" >&2; exit 1; }
meta() { /usr/bin/python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))["meta"]
for k in sys.argv[2].split("."): m=m[k]
print(m)' "$1" "$2"; }
launches() {
  /usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["launches"]))' "$1"
}
expect_class() { # PLAN CLASS
  local plan=$1 class=$2 out verdict status n
  set +e; out=$("$ARENACERT" certify "$plan"); status=$?; set -e
  verdict=$(sed -n 's/^verdict: //p' <<<"$out")
  [ -n "$verdict" ] || fail "$plan: no verdict (exit $status): $out"
  n=$(launches "$plan")
  case "$class" in
    0) [ "$verdict" = 0 ] && [ "$status" = 0 ] || fail "$plan: expected verdict 0, got: $out" ;;
    B) [ "$verdict" = 1 ] && [ "$status" = 1 ] \
         || fail "$plan: expected rule B (verdict 1), got: $out" ;;
    C) [ "$verdict" -ge 2 ] && [ "$verdict" -lt $((2 + n)) ] && [ "$status" = 1 ] \
         || fail "$plan: expected rule C (2 <= verdict < $((2 + n))), got: $out" ;;
    D) [ "$verdict" -ge $((2 + n)) ] && [ "$status" = 1 ] \
         || fail "$plan: expected rule D (verdict >= $((2 + n))), got: $out" ;;
    *) fail "unknown class $class" ;;
  esac
  echo "ok: $(basename "$plan"): $(head -2 <<<"$out" | tr '\n' ' ' | cut -c1-150)"
}
