"""LiteRT's node records as the capture reads them (capture._RuntimeTensors.node_temporaries), on
a model of several ops with temporaries: read as they are, each node's temporaries come back;
one disagreement (a node's inputs, its intermediates, the fields' order, a temporary two nodes
hold) and none of it is used, with the reason. Usage: check_node_records.py MODEL.tflite (with
the build venv's Python)."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "workloads", "runtimes"))

from ai_edge_litert import interpreter as litert  # noqa: E402
from litert import capture  # noqa: E402


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def main(model_path):
    _, model, _ = capture.read_model(model_path)
    sg = model.Subgraphs(0)
    it = litert.Interpreter(
        model_path=model_path,
        experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
    it.allocate_tensors()
    it.invoke()
    runtime = capture._RuntimeTensors(it)
    runtime.locate()
    if runtime.base is None:
        fail(f"LiteRT's tensor structs not found: {runtime.why}")
    nodes = [([int(x) for x in it._interpreter.NodeInputs(k)],
              [int(x) for x in it._interpreter.NodeOutputs(k)], [])
             for k in range(it._interpreter.NumNodes())]
    fb = sg.TensorsLength()
    temps = runtime.node_temporaries(nodes, fb)
    if temps is None or not all(temps[k] for k in (0, 1, 2)):
        fail(f"the records as they are: {temps} ({runtime.node_why})")
    print(f"ok: each node's temporaries: {temps}")

    def refused(what, nodes_given, reason, fb_given=fb):
        got = runtime.node_temporaries(nodes_given, fb_given)
        if got is not None or reason not in (runtime.node_why or ""):
            fail(f"{what}: {got}, why {runtime.node_why!r}, expected None and {reason!r}")
        print(f"ok: {what}: not used ({runtime.node_why})")

    wrong = [list(map(list, n)) for n in nodes]
    wrong[2][0][0] += 1
    refused("one node's input off by one", wrong, "no node arrays")
    wrong = [list(map(list, n)) for n in nodes]
    wrong[3][2] = [0]
    refused("one node's intermediates not the flatbuffer's", wrong, "intermediates as read")
    refused("temporaries past the flatbuffer's count given lower", nodes, "not one LiteRT added",
            fb_given=max(max(t) for t in temps if t) + 1)
    saved = capture.TFLITE_NODE_FIELDS
    try:  # another layout: temporaries before intermediates
        capture.TFLITE_NODE_FIELDS = ("inputs", "outputs", "temporaries", "intermediates")
        refused("the fields in another order", nodes, "intermediates as read")
    finally:
        capture.TFLITE_NODE_FIELDS = saved
    shared = runtime._nodes_at
    try:  # a tensor two nodes hold
        runtime._nodes_at = lambda *a: [t + ([temps[0][0]] if k == 2 else [])
                                        for k, t in enumerate(shared(*a) or [])] or None
        refused("a temporary two nodes hold", nodes, "also node 0's")
    finally:
        runtime._nodes_at = shared
    runtime.base = None
    runtime.why = "planted"
    refused("without the tensor structs", nodes, "tensor structs were not read: planted")
    print("passed")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: check_node_records.py MODEL.tflite")
    main(sys.argv[1])
