"""scripts/compare --ab's judgement on made-up paired ratios (building two revisions is for
scripts/gate-check, not a test): ratios around 1 with 1% noise are "same", around 1.10 are
"SLOWER" (the whole interval above 5%), around 0.90 "faster", around 1.05 with 8% noise
"inconclusive"; the interval holds the median and has the asked confidence's order."""
import importlib.util
import random
import sys

spec = importlib.util.spec_from_file_location("ab", sys.argv[1])
ab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ab)
rng = random.Random(3)
failures = 0


def case(label, center, spread, expected):
    global failures
    ratios = [center * (1 + rng.uniform(-spread, spread)) for _ in range(10)]
    median, low, high, verdict = ab.judge(ratios, 0.05, 0.95, random.Random(1))
    ok = verdict == expected and low <= median <= high
    failures += not ok
    print(f"{'ok  ' if ok else 'FAIL'} {label}: {median - 1:+.1%} [{low - 1:+.1%}, {high - 1:+.1%}] {verdict}")


case("identical", 1.0, 0.01, "same")
case("10% slower", 1.10, 0.01, "SLOWER")
case("10% faster", 0.90, 0.01, "faster")
case("noisy 5%", 1.05, 0.08, "inconclusive")
sys.exit(1 if failures else 0)
