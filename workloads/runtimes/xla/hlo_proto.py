"""XLA's HloModuleProto and BufferAssignmentProto, declared by field number (the subset the
capture reads; unknown fields are skipped), so no XLA .proto file is needed. Field numbers are
those of xla/service/hlo.proto and xla/xla_data.proto."""

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

F = descriptor_pb2.FieldDescriptorProto
T = {"int64": F.TYPE_INT64, "int32": F.TYPE_INT32, "uint64": F.TYPE_UINT64,
     "uint32": F.TYPE_UINT32, "string": F.TYPE_STRING, "bytes": F.TYPE_BYTES, "bool": F.TYPE_BOOL}

# message -> [(field, number, type or message, repeated)]
MESSAGES = {
    "OpMetadata": [("op_type", 1, "string", 0), ("op_name", 2, "string", 0)],
    "LayoutProto": [("minor_to_major", 1, "int64", 1)],
    "ShapeProto": [("element_type", 2, "int32", 0), ("dimensions", 3, "int64", 1),
                   ("tuple_shapes", 4, "ShapeProto", 1), ("layout", 5, "LayoutProto", 0)],
    # Scalars only (a start index, a constant operand): the integer arrays of xla_data.proto.
    "LiteralProto": [("shape", 1, "ShapeProto", 0), ("preds", 2, "bool", 1),
                     ("s32s", 4, "int32", 1), ("s64s", 5, "int64", 1), ("u32s", 6, "uint32", 1),
                     ("u64s", 7, "uint64", 1)],
    "SliceDimensions": [("start", 1, "int64", 0), ("limit", 2, "int64", 0),
                        ("stride", 3, "int64", 0)],
    "HloInstructionProto": [
        ("name", 1, "string", 0), ("opcode", 2, "string", 0), ("shape", 3, "ShapeProto", 0),
        ("metadata", 7, "OpMetadata", 0), ("literal", 8, "LiteralProto", 0),
        ("parameter_number", 9, "int64", 0),
        ("fusion_kind", 11, "string", 0), ("tuple_index", 13, "int64", 0),
        ("dimensions", 14, "int64", 1), ("slice_dimensions", 17, "SliceDimensions", 1),
        ("dynamic_slice_sizes", 20, "int64", 1),
        ("custom_call_target", 28, "string", 0), ("id", 35, "int64", 0),
        ("operand_ids", 36, "int64", 1), ("called_computation_ids", 38, "int64", 1),
        ("backend_config", 43, "bytes", 0), ("comparison_direction", 63, "string", 0),
        ("comparison_type", 72, "string", 0)],
    "HloComputationProto": [
        ("name", 1, "string", 0), ("instructions", 2, "HloInstructionProto", 1),
        ("id", 5, "int64", 0), ("root_id", 6, "int64", 0),
        ("is_fusion_computation", 7, "bool", 0)],
    "InstructionSequence": [("instruction_ids", 1, "int64", 1)],
    "SequencesEntry": [("key", 1, "int64", 0), ("value", 2, "InstructionSequence", 0)],
    "HloScheduleProto": [("sequences", 1, "SequencesEntry", 1)],
    "AliasEntryProto": [("output_shape_index", 1, "int64", 1), ("parameter_number", 2, "int64", 0),
                        ("parameter_shape_index", 3, "int64", 1), ("kind", 4, "int32", 0)],
    "HloInputOutputAliasProto": [("entries", 1, "AliasEntryProto", 1)],
    "HloModuleProto": [
        ("name", 1, "string", 0), ("entry_computation_name", 2, "string", 0),
        ("computations", 3, "HloComputationProto", 1), ("id", 5, "int64", 0),
        ("entry_computation_id", 6, "int64", 0), ("schedule", 7, "HloScheduleProto", 0),
        ("input_output_alias", 8, "HloInputOutputAliasProto", 0)],
    "Location": [("instruction_name", 2, "string", 0), ("shape_index", 3, "int64", 1),
                 ("instruction_id", 4, "int64", 0)],
    "LogicalBufferProto": [("id", 1, "int64", 0), ("size", 2, "int64", 0),
                           ("defined_at", 3, "Location", 0), ("color", 4, "int64", 0)],
    "Assigned": [("logical_buffer_id", 1, "int64", 0), ("offset", 2, "int64", 0),
                 ("size", 3, "int64", 0)],
    "BufferAllocationProto": [
        ("index", 1, "int64", 0), ("size", 2, "int64", 0), ("is_thread_local", 3, "bool", 0),
        ("is_entry_computation_parameter", 5, "bool", 0), ("parameter_number", 6, "int64", 0),
        ("maybe_live_out", 7, "bool", 0), ("color", 8, "int64", 0),
        ("assigned", 9, "Assigned", 1), ("parameter_shape_index", 10, "int64", 1),
        ("is_tuple", 11, "bool", 0), ("is_constant", 12, "bool", 0)],
    "BufferAlias": [("source_buffer_id", 1, "int64", 0), ("location", 2, "Location", 0)],
    "Event": [("kind", 1, "int32", 0), ("buffer_id", 2, "int64", 0),
              ("computation_name", 3, "string", 0), ("instruction_name", 4, "string", 0),
              ("share_with_canonical_id", 5, "int64", 0)],
    "HeapSimulatorTrace": [("events", 1, "Event", 1), ("whole_module_simulation", 2, "bool", 0),
                           ("buffer_allocation_index", 3, "int64", 0)],
    "BufferAssignmentProto": [
        ("logical_buffers", 1, "LogicalBufferProto", 1), ("buffer_aliases", 2, "BufferAlias", 1),
        ("buffer_allocations", 3, "BufferAllocationProto", 1),
        ("heap_simulator_traces", 4, "HeapSimulatorTrace", 1)],
}
PACKAGE = "arenaref_xla"


def _classes():
    fd = descriptor_pb2.FileDescriptorProto(name="arenaref_xla_hlo.proto", package=PACKAGE,
                                            syntax="proto3")
    for name, fields in MESSAGES.items():
        m = fd.message_type.add(name=name)
        if name == "SequencesEntry":
            m.options.map_entry = False  # read as a plain repeated pair: same wire format
        for fname, number, kind, repeated in fields:
            f = m.field.add(name=fname, number=number,
                            label=F.LABEL_REPEATED if repeated else F.LABEL_OPTIONAL)
            if kind in T:
                f.type = T[kind]
            else:
                f.type = F.TYPE_MESSAGE
                f.type_name = f".{PACKAGE}.{kind}"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fd)
    return {n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{PACKAGE}.{n}"))
            for n in MESSAGES}


_C = None


def parse(message, data):
    global _C
    if _C is None:
        _C = _classes()
    m = _C[message]()
    m.ParseFromString(data)
    return m
