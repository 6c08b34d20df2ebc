"""LiteRT's capture (capture.py: tensors with real addresses, ops in execution order) as an
arena-trace/1 (../TRACE.md), which the shared layer (../common) plans, faults and places.

Regions: LiteRT's arena (intermediates and im2col temporaries; planned_size its span), its
persistent arena (dequantized constants, variables: whole-program values, plan globals) and the
model file's constants (read-only: a region without a window, so their words stay unchecked
addresses). Offsets run from each region's lowest tensor and no base is recorded (LiteRT's follow
ASLR), so a model's trace, and its plan, are the same bytes in every process. Tensors on the same
bytes that are one value share an id: a view op's output and its input, constants that share a
buffer. Any other op whose output lies on an input's bytes (same base and size) updates it in
place. Op 0 uploads the inputs, op k+1 is LiteRT's node k, the last reads the outputs back;
--runs N is one loop over them all.
"""

from .capture import VIEW_OPS, ExportError

ALIGNMENT = 64  # LiteRT's arena tensor alignment (kDefaultTensorAlignment)
# region name, arena-trace/1 kind, whether it is a window, the capture's tensor kinds in it
REGIONS = (
    ("arena", "arena", True, ("arena", "temporary")),
    ("persistent", "weights", True, ("persistent",)),
    ("constants", "constants", False, ("constant",)),
)
# capture kinds that are a region each (arena-trace/1 kind dynamic), and that region's name
OWN_REGION = {"dynamic": "dynamic", "persistent_ro": "persistent-ro"}
TIMELINE = "op 0 uploads the inputs, op k+1 is LiteRT's node k, the last reads the outputs"
NOT_IN_WINDOWS = (
    "constants (read-only, in the mapped model file, 4-byte aligned) are a region without a "
    "window: their words are not checked"
)


def short_name(name):
    """A tensor's name as it shows in a plan: TF joins the names of fused ops with ';', the
    first is the op's own; long names keep their end (the most specific part)."""
    name = name.split(";")[0]
    return name if len(name) <= 40 else "…" + name[-39:]


def _same_bytes(a, b):
    return a["addr"] == b["addr"] and a["size"] == b["size"]


def to_trace(cap, runs=1):
    """The arena-trace/1 (a dict) for a capture; ExportError where the capture cannot be one."""
    tensors, nodes = cap["tensors"], cap["ops"]
    region_of = {kind: r for r, (_, _, _, kinds) in enumerate(REGIONS) for kind in kinds}
    used = set(cap["inputs"]) | set(cap["outputs"])
    for o in nodes:
        used.update(o["inputs"] + o["outputs"] + o["temporaries"])
    # Tensors with bytes the plan can name (an empty one has no plane and no word: its pointer
    # moves at invoke; an unaddressed 0-d constant has no address to give).
    placed = sorted(
        i for i in used
        if tensors[i]["addr"] is not None and tensors[i]["size"] > 0
        and (tensors[i]["kind"] in region_of or tensors[i]["kind"] in OWN_REGION)
    )
    # A tensor LiteRT allocates on its own, outside the arena (a dynamic one, sized at invoke; a
    # persistent read-only one, an op's output it computed at prepare) is a region of its own:
    # its value at offset 0, live as its ops say, in no placement problem.
    dynamic = [i for i in placed if tensors[i]["kind"] in OWN_REGION]

    def own(i):
        return f"{OWN_REGION[tensors[i]['kind']]} t{i}"

    for n, i in enumerate(dynamic):
        region_of[own(i)] = len(REGIONS) + n
    def size(t):  # a constant's bytes are its buffer's in the file (a sparse one's are fewer)
        return min(t["size"], t.get("file_bytes", t["size"]))

    size_of = size

    def region(i):
        t = tensors[i]
        return region_of[own(i) if t["kind"] in OWN_REGION else t["kind"]]

    hulls = {}
    for i in placed:
        t, r = tensors[i], region(i)
        lo, hi = hulls.get(r, (t["addr"], t["addr"] + size(t)))
        hulls[r] = (min(lo, t["addr"]), max(hi, t["addr"] + size(t)))
    if 0 not in hulls:
        raise ExportError(f"{cap['file']}: the model has no arena tensors")
    if 1 in hulls and hulls[1][0] < hulls[0][1] and hulls[0][0] < hulls[1][1]:
        raise ExportError(
            f"{cap['file']}: the persistent tensors overlap the arena's span: cannot tell the "
            "arenas apart"
        )

    # One value per set of tensors that are the same bytes to every op.
    parent = {i: i for i in placed}

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    arena = {i for i in placed if region(i) == 0}
    views, in_place = [], []  # (node, input, output)
    for o in nodes:
        taken = set()
        for out in o["outputs"]:
            if out not in arena:
                continue
            for inp in o["inputs"]:
                if inp in arena and inp != out and inp not in taken and _same_bytes(
                    tensors[inp], tensors[out]
                ):
                    (views if o["op"] in VIEW_OPS else in_place).append((o["index"], inp, out))
                    taken.add(inp)
                    break
    for _, inp, out in views:
        parent[find(out)] = find(inp)
    constants = {}
    for i in placed:
        if tensors[i]["kind"] == "constant":
            key = (tensors[i]["addr"], size(tensors[i]))
            parent[find(i)] = find(constants.setdefault(key, i))
    members = {}
    for i in placed:
        members.setdefault(find(i), []).append(i)
    vid = {i: "=".join(f"t{m}" for m in members[find(i)]) for i in placed}

    region_names = [r[0] for r in REGIONS] + [own(i) for i in dynamic]
    values = []
    for root in sorted(members):
        t, r = tensors[root], region(root)
        names = []
        for m in members[root]:
            if short_name(tensors[m]["name"]) not in names:
                names.append(short_name(tensors[m]["name"]))
        values.append({
            "id": vid[root],
            "region": region_names[r],
            "offset": t["addr"] - hulls[r][0],
            "size": size(t),
            "whole_program": r in (1, 2),  # persistent, constants
            "label": ", ".join(names),
        })
    whole = {vid[i] for i in placed if region(i) in (1, 2)}

    def ids(indices):
        out = []
        for i in indices:
            if i in vid and vid[i] not in out:
                out.append(vid[i])
        return out

    def words(indices):
        return [{"value": vid[i], "offset": 0} for i in indices if i in vid]

    updates_of = {}
    for k, inp, out in in_place:
        updates_of.setdefault(k, []).append({"from": vid[inp], "to": vid[out]})
    def tnames(indices):
        return ", ".join(short_name(tensors[i]["name"]) for i in indices)

    ops = [{"kernel": "upload", "label": f"graph inputs: {tnames(cap['inputs'])}",
            "writes": ids(cap["inputs"]), "words": words(cap["inputs"])}]
    for o in nodes:
        reads = ids(o["inputs"])
        writes = ids(o["outputs"] + o["temporaries"])
        if o["op"] in VIEW_OPS:  # a view writes nothing: its output is the value it views
            writes = [w for w in writes if w not in reads]
        updates = updates_of.get(o["index"], [])
        said = {u["from"] for u in updates}
        for v in [v for v in reads if v in writes]:
            if v in whole:  # a variable read and written: a global, written
                reads.remove(v)
            elif v not in said:  # the same value read and written: in place, same name
                updates.append({"from": v, "to": v})
        label = f"node {o['index']}: {tnames(o['outputs'])} = {o['op']}({tnames(o['inputs'])})"
        op = {"kernel": o["op"], "label": label, "reads": reads, "writes": writes,
              "words": words(o["inputs"] + o["outputs"] + o["temporaries"])}
        if updates:
            op["updates"] = updates
        ops.append(op)
    ops.append({"kernel": "readback", "label": f"graph outputs: {tnames(cap['outputs'])}",
                "reads": ids(cap["outputs"]), "words": words(cap["outputs"])})

    regions = []
    for r, (name, kind, window, _) in enumerate(REGIONS):
        if r not in hulls:
            continue
        size = hulls[r][1] - hulls[r][0]
        region = {"name": name, "kind": kind, "size": size}
        if kind == "arena":
            region["planned_size"] = size  # LiteRT's arena: its lowest tensor to the highest end
        if not window:
            region["window"] = False
        regions.append(region)
    for n, i in enumerate(dynamic):
        regions.append({"name": own(i), "kind": "dynamic", "size": size_of(tensors[i])})
    versions = cap["versions"]
    trace = {
        "format": "arena-trace/1",
        "runtime": {
            "name": "litert",
            "version": f"ai-edge-litert {versions.get('ai-edge-litert', 'unknown')}",
            "interpreter": "builtin ops, no delegates",
            "versions": versions,
        },
        "program": {
            "name": cap["model"],
            "file": cap["file"],
            "sha256": cap["sha256"],
            "runs": runs,
            **({"input_shapes": cap["input_shapes"]} if cap.get("input_shapes") else {}),
            # other signatures' subgraphs, never invoked here: the first one's plan alone
            **({"subgraphs": cap["subgraphs"], "captured_subgraph": 0}
               if cap.get("subgraphs", 1) > 1 else {}),
            "nodes": len(nodes),
            "tensors": len(tensors),
            "tensor_kinds": {
                k: sum(1 for t in tensors if t["kind"] == k)
                for k in ("arena", "temporary", "persistent", "constant", "none")
            } | {k: n for k in ("persistent_ro",)
                 if (n := sum(1 for t in tensors if t["kind"] == k))},
        },
        "capture": {
            **cap.get("notes", {}),
            "views_folded": len(views),
            "in_place_ops": len(in_place),
            "merged": [
                {"value": vid[root], "tensors": m} for root, m in sorted(members.items())
                if len(m) > 1
            ],
            "timeline": TIMELINE,
            "not_in_windows": NOT_IN_WINDOWS,
        },
        "alignment": ALIGNMENT,
        "regions": regions,
        "values": values,
        "ops": ops,
    }
    if runs > 1:
        trace["loops"] = [{"first": 0, "count": len(ops), "iterations": runs}]
    return trace
