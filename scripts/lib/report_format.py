"""The report's common formatting: units, spreads, counts, tables, figures, name order."""

STRATEGIES = ["arena", "glibc", "mimalloc", "jemalloc", "mmap", "pool", "floor"]
STREAMS = ["small", "fixed", "uniform", "heavy", "large"]


# ---- formatting ----


def unit_of(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return unit, scale
    return "ns", 1.0


def fmt_time(ns):
    if ns is None:
        return "-"
    unit, scale = unit_of(ns)
    return f"{ns / scale:.3g} {unit}"


def fmt_spread(stats):
    """'31.0 µs [29.8–32.1]' (median [IQR]); one run has no spread: '157 µs (1 run)'."""
    if stats is None:
        return "-"
    median, q1, q3, n = stats
    if n < 2:
        return f"{fmt_time(median)} (1 run)"
    unit, scale = unit_of(median)
    num = lambda v: f"{v:.0f}" if v >= 1000 else f"{v:.3g}"  # no 1.11e+03 when q3 passes a unit
    return f"{num(median / scale)} {unit} [{num(q1 / scale)}–{num(q3 / scale)}]"


def fmt_count(value):
    if value is None:
        return "-"
    value = float(value)
    if value == int(value) and abs(value) < 1e6:
        return f"{int(value)}"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.3g}"


def fmt_instructions(results, name):
    found = results.instructions_of(name)
    if found is None:
        return "-"
    count, equal, spread = found
    return f"{count:,.0f}" + ("" if equal else f" (runs span {100 * spread:.2g}%)")


def fmt_bytes(value):
    if value is None:
        return "-"
    value = float(value)
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{int(value)} B"


def fmt_ratio(value, digits=3):
    return "-" if value is None else f"{value:.{digits}g}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def figure(png, alt, caption):
    return [f"![{alt}]({png})", "", f"*Figure {png}: {caption}*", ""]


def ordered(results, prefix):
    """Names prefix/FAMILY/PRESET... in family order, then preset order, then by name."""
    families = results.families()
    presets = ["tiny", "small", "medium", "large"]

    def key(name):
        parts = name.split("/")
        family = (
            families.index(parts[1]) if len(parts) > 1 and parts[1] in families else len(families)
        )
        preset = presets.index(parts[2]) if len(parts) > 2 and parts[2] in presets else len(presets)
        return (family, preset, name)

    return sorted(results.names(prefix), key=key)
