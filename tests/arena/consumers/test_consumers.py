"""Real consumers of the arena's zero-copy exports (export.h), through the shared library
loaded with ctypes: pyarrow imports the Arrow C Data Interface (a rows view and a rows tape)
and sees the values arena.h documents, numpy reads the DLPack export, and a usearch index
built from those rows (cosine) finds each row's own key. Each export is checked to point at
the arena's memory (no copy) and to hold the arena: a call on it is refused with contended
until the consumer lets go. Usage: test_consumers.py LIBRARY.so; exit 0 pass, 1 fail, 2 bad
input."""

import ctypes
import gc
import sys

import numpy as np
import pyarrow as pa
from usearch.index import Index

SUCCESS, CONTENDED = 0, 3
F32 = 1  # ar_scalar_f32_k


class Tape(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("offsets", ctypes.POINTER(ctypes.c_size_t)),
        ("count", ctypes.c_size_t),
    ]


class RowsView(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("stride", ctypes.c_size_t),
        ("columns", ctypes.c_size_t),
        ("scalar", ctypes.c_int),
        ("count", ctypes.c_size_t),
        ("arena_", ctypes.c_void_p),
        ("epoch_", ctypes.c_uint64),
    ]


class RowsTapeView(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("stride", ctypes.c_size_t),
        ("columns", ctypes.c_size_t),
        ("scalar", ctypes.c_int),
        ("offsets", ctypes.POINTER(ctypes.c_size_t)),
        ("count", ctypes.c_size_t),
        ("rows", ctypes.c_size_t),
        ("arena_", ctypes.c_void_p),
        ("epoch_", ctypes.c_uint64),
    ]


class Outcome(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char_p)]


class ArenaInit(ctypes.Structure):
    _fields_ = [
        ("arena", ctypes.POINTER(ctypes.c_void_p)),
        ("executor", ctypes.c_void_p),
        ("outcome", ctypes.POINTER(Outcome)),
    ]


class TextEncode(ctypes.Structure):
    _fields_ = [
        ("executor", ctypes.c_void_p),
        ("arena", ctypes.c_void_p),
        ("texts", Tape),
        ("count", ctypes.c_size_t),
        ("dimensions", ctypes.c_size_t),
        ("deferred", ctypes.c_bool),
        ("embeddings", ctypes.POINTER(RowsView)),
        ("states", ctypes.POINTER(RowsTapeView)),
        ("outcome", ctypes.POINTER(Outcome)),
    ]


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", ctypes.c_char_p),
    ("name", ctypes.c_char_p),
    ("metadata", ctypes.c_char_p),
    ("flags", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowSchema))),
    ("dictionary", ctypes.POINTER(ArrowSchema)),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", ctypes.c_int64),
    ("null_count", ctypes.c_int64),
    ("offset", ctypes.c_int64),
    ("n_buffers", ctypes.c_int64),
    ("n_children", ctypes.c_int64),
    ("buffers", ctypes.POINTER(ctypes.c_void_p)),
    ("children", ctypes.POINTER(ctypes.POINTER(ArrowArray))),
    ("dictionary", ctypes.POINTER(ArrowArray)),
    ("release", ctypes.c_void_p),
    ("private_data", ctypes.c_void_p),
]

failures = 0


def check(condition, what):
    global failures
    if not condition:
        failures += 1
        print(f"FAIL: {what}", file=sys.stderr)


def documented_values(tokens, positions, dimensions):
    """arena.h's value(t, j, d) for arrays of tokens and their positions: rows x dimensions."""
    t = tokens.astype(np.uint32)[:, None]
    j = positions.astype(np.uint32)[:, None]
    d = np.arange(dimensions, dtype=np.uint32)[None, :]
    with np.errstate(over="ignore"):
        h = (
            (t * np.uint32(0x9E3779B1))
            ^ ((j + np.uint32(1)) * np.uint32(0x85EBCA77))
            ^ ((d + np.uint32(1)) * np.uint32(0xC2B2AE3D))
        )
        h ^= h >> np.uint32(16)
        h *= np.uint32(0x85EBCA6B)
        h ^= h >> np.uint32(13)
        h *= np.uint32(0xC2B2AE35)
        h ^= h >> np.uint32(16)
    return ((h >> np.uint32(8)).astype(np.int32) - 8388608).astype(np.float32) * np.float32(
        2.0**-23
    )


def documented_embeddings(states, lengths, dimensions):
    """Each item's token-order float32 sum divided by its length (0 for an empty item)."""
    rows, start = [], 0
    for n in lengths:
        total = np.zeros(dimensions, dtype=np.float32)
        for r in range(start, start + n):
            total = (total + states[r]).astype(np.float32)  # one rounded addition at a time
        rows.append(total / np.float32(n) if n else total)
        start += n
    return np.array(rows, dtype=np.float32)


class DLPackHolder:
    """What numpy.from_dlpack asks for: __dlpack__ returning a "dltensor" capsule."""

    def __init__(self, tensor_address):
        new_capsule = ctypes.pythonapi.PyCapsule_New
        new_capsule.restype = ctypes.py_object
        new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        self.capsule = new_capsule(tensor_address, b"dltensor", None)

    def __dlpack__(self, **ignored):
        return self.capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) == 2 else 2)
    try:
        lib = ctypes.CDLL(sys.argv[1])
    except OSError as error:
        print(f"test_consumers: cannot load {sys.argv[1]}: {error}", file=sys.stderr)
        sys.exit(2)
    lib.ar_rows_view_to_arrow.restype = ctypes.c_int
    lib.ar_rows_tape_view_to_arrow.restype = ctypes.c_int
    lib.ar_rows_view_to_dlpack.restype = ctypes.c_int
    lib.ar_scalar_name.restype = ctypes.c_char_p
    lib.ar_arena_free.argtypes = [ctypes.c_void_p]

    rng = np.random.default_rng(7)
    count, dimensions = 48, 16
    lengths = rng.integers(1, 12, size=count)
    tokens = rng.integers(0, 2**32, size=int(lengths.sum()), dtype=np.uint64).astype(np.uint32)
    offsets = np.concatenate([[0], np.cumsum(lengths) * 4]).astype(np.uint64)
    positions = np.concatenate([np.arange(n) for n in lengths])
    states_expected = documented_values(tokens, positions, dimensions)
    embeddings_expected = documented_embeddings(states_expected, lengths, dimensions)

    arena, outcome = ctypes.c_void_p(), Outcome()
    lib.ar_arena_init(ctypes.byref(ArenaInit(ctypes.pointer(arena), None, ctypes.pointer(outcome))))
    if outcome.status != SUCCESS:
        print("test_consumers: ar_arena_init failed", file=sys.stderr)
        sys.exit(1)
    embeddings, states = RowsView(), RowsTapeView()
    tape = Tape(tokens.ctypes.data, offsets.ctypes.data_as(ctypes.POINTER(ctypes.c_size_t)), count)

    def encode():
        call = TextEncode(
            None,
            arena,
            tape,
            0,
            dimensions,
            False,
            ctypes.pointer(embeddings),
            ctypes.pointer(states),
            ctypes.pointer(outcome),
        )
        lib.ar_text_encode(ctypes.byref(call))
        return outcome.status

    check(encode() == SUCCESS, "ar_text_encode")
    check(lib.ar_scalar_name(embeddings.scalar) == b"f32", "ar_scalar_name(f32)")

    # pyarrow: the rows view as fixed_size_list<float>[D], the tape as large_list of that.
    schema, array = ArrowSchema(), ArrowArray()
    check(
        lib.ar_rows_view_to_arrow(
            ctypes.byref(embeddings), ctypes.byref(schema), ctypes.byref(array)
        )
        == SUCCESS,
        "ar_rows_view_to_arrow",
    )
    rows = pa.Array._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
    check(
        pa.types.is_fixed_size_list(rows.type) and rows.type.list_size == dimensions,
        f"arrow type {rows.type}",
    )
    check(rows.type.value_type == pa.float32(), "arrow value type")
    check(len(rows) == count, "arrow length")
    check(rows.values.buffers()[1].address == embeddings.data, "arrow rows are not a copy")
    got = rows.values.to_numpy(zero_copy_only=True).reshape(count, dimensions)
    check(
        np.array_equal(got.view(np.uint32), embeddings_expected.view(np.uint32)),
        "arrow embeddings equal the documented values bit for bit",
    )
    tape_schema, tape_array = ArrowSchema(), ArrowArray()
    check(
        lib.ar_rows_tape_view_to_arrow(
            ctypes.byref(states), ctypes.byref(tape_schema), ctypes.byref(tape_array)
        )
        == SUCCESS,
        "ar_rows_tape_view_to_arrow",
    )
    ragged = pa.Array._import_from_c(ctypes.addressof(tape_array), ctypes.addressof(tape_schema))
    check(pa.types.is_large_list(ragged.type), f"arrow tape type {ragged.type}")
    check(len(ragged) == count, "arrow tape length")
    check(ragged.offsets.to_pylist() == [0] + np.cumsum(lengths).tolist(), "arrow tape offsets")
    state_rows = ragged.values.values.to_numpy(zero_copy_only=True).reshape(-1, dimensions)
    check(
        np.array_equal(state_rows.view(np.uint32), states_expected.view(np.uint32)),
        "arrow states equal the documented values bit for bit",
    )
    check(encode() == CONTENDED, "a call while pyarrow holds the exports is contended")
    del rows, got, ragged, state_rows
    gc.collect()
    check(encode() == SUCCESS, "a call once pyarrow released the exports")

    # numpy through DLPack; then usearch indexes those very rows.
    tensor = ctypes.c_void_p()
    check(
        lib.ar_rows_view_to_dlpack(ctypes.byref(embeddings), ctypes.byref(tensor)) == SUCCESS,
        "ar_rows_view_to_dlpack",
    )
    matrix = np.from_dlpack(DLPackHolder(tensor.value))
    check(
        matrix.shape == (count, dimensions) and matrix.dtype == np.float32,
        f"numpy shape {matrix.shape} {matrix.dtype}",
    )
    check(matrix.ctypes.data == embeddings.data, "numpy's array is not a copy")
    check(
        np.array_equal(matrix.view(np.uint32), embeddings_expected.view(np.uint32)),
        "numpy sees the documented values bit for bit",
    )
    dtype = lib.ar_scalar_name(embeddings.scalar).decode()
    index = Index(ndim=dimensions, metric="cos", dtype=dtype)
    keys = np.arange(count, dtype=np.uint64)
    index.add(keys, matrix)
    found = index.search(matrix, 1)
    check(np.array_equal(found.keys.reshape(-1), keys), "usearch finds each row's own key")
    check(encode() == CONTENDED, "a call while numpy holds the export is contended")
    del matrix, found
    gc.collect()
    check(encode() == SUCCESS, "a call once numpy ran the deleter")

    lib.ar_arena_free(arena)
    print(
        f"consumers: pyarrow {pa.__version__}, numpy {np.__version__}, usearch index of "
        f"{count} rows; {failures} failures"
    )
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
