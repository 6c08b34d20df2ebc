"""gnuplot helpers shared by scripts/report and scripts/history: one look for every plot.

Lines: dark colours that read on white, told apart in grey by point type and dash too. Bars:
viridis (luminance rising steadily from bar to bar, black borders), so they stay apart in grey.
Log axes get 1-2-5 ticks so a decade never has a single label. Each plot is drawn from the data
and script files left beside it, so it can be redrawn by hand.
"""

import math
import os
import subprocess
import sys

PALETTE = ["#000000", "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#8c6d00", "#7f7f7f"]
BARS = ["#440154", "#443983", "#31688e", "#21918c", "#35b779", "#90d743", "#d8e219"]
POINTS = [7, 5, 9, 11, 13, 15, 4]


def terminal(width=1000, height=640):
    return (
        f"set terminal pngcairo size {width},{height} font 'DejaVu Sans,12' noenhanced\n"
        "set border lw 1.2\nset grid lc rgb '#d0d0d0'\n"
    )


def style(i):
    """Line/point style of series i: colour, point type, dash."""
    return f"lc rgb '{PALETTE[i % len(PALETTE)]}' pt {POINTS[i % len(POINTS)]} dt {1 + i % 5}"


def colour(i):
    return f"lc rgb '{PALETTE[i % len(PALETTE)]}'"


def log_tics(low, high, axis="y", unit=""):
    """`set Ytics (...)` with 1-2-5 ticks over [low, high], labelled with `unit`."""
    if not low or not high or low <= 0 or high <= 0:
        return ""
    ticks = []
    for exponent in range(math.floor(math.log10(low)) - 1, math.ceil(math.log10(high)) + 1):
        for mantissa in (1, 2, 5):
            value = mantissa * 10**exponent
            if low / 1.001 <= value <= high * 1.001:
                ticks.append(value)
    if len(ticks) < 3:  # a narrow range: label a few points inside it
        ticks = sorted({low, math.sqrt(low * high), high})
    return f"set {axis}tics (" + ", ".join(f"'{label(v, unit)}' {v!r}" for v in ticks) + ")\n"


def byte_tics(low, high, axis="y"):
    """`set Ytics (...)` at powers of 4 bytes over [low, high] (1 KiB, 4 KiB, ... 1 TiB ...)."""
    if not low or not high or low <= 0 or high <= 0:
        return ""
    ticks, value = [], 1
    while value <= high * 1.001:
        if value >= low / 1.001:
            ticks.append(value)
        value *= 4
    if len(ticks) > 10:  # a very wide range: every 16th power instead
        ticks = ticks[::2]

    def name(v):
        for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if v >= scale:
                return f"{v // scale} {unit}"
        return f"{v} B"

    return (
        f"set {axis}tics ("
        + ", ".join(f"'{name(v)}' {v}" for v in ticks)
        + f")\nset m{axis}tics 1\n"
    )


def label(value, unit=""):
    if unit in ("ns", "µs"):  # times: the largest unit that keeps the number at least 1
        ns = value * (1e3 if unit == "µs" else 1.0)
        for name, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3), ("ns", 1.0)):
            if ns >= scale or name == "ns":
                return f"{ns / scale:.3g} {name}"
    text = f"{value:.3g}"
    if "e" in text:
        mantissa, exponent = text.split("e")
        text = (f"{mantissa}×" if mantissa != "1" else "") + f"10^{int(exponent)}"
    return f"{text}{(' ' + unit) if unit else ''}"


def write_blocks(folder, name, blocks, header=""):
    """blocks: [(title, rows)] -> one indexed gnuplot block each; '?' marks a missing value."""
    with open(os.path.join(folder, name), "w") as handle:
        if header:
            handle.write(f"# {header}\n")
        for title, rows in blocks:
            handle.write(f"# {title}\n")
            for row in rows:
                handle.write(" ".join("?" if v is None else str(v) for v in row) + "\n")
            handle.write("\n\n")


def draw(folder, script_name, script, prog="scripts/report"):
    """Runs gnuplot on script (written beside the data); True when the PNG was drawn."""
    with open(os.path.join(folder, script_name), "w") as handle:
        handle.write(script)
    result = subprocess.run(["gnuplot", script_name], cwd=folder, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"{prog}: gnuplot failed on {script_name}:\n{result.stderr}", file=sys.stderr)
        return False
    return True
