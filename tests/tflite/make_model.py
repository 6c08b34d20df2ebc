"""Write a small .tflite flatbuffer the exporter must refuse: two subgraphs (what control flow
needs: WHILE/IF bodies are subgraphs). Run with the build venv's Python (LiteRT's schema module
and flatbuffers). Usage: make_model.py OUT.tflite"""

import sys

import flatbuffers
from ai_edge_litert import schema_py_generated as schema

model = schema.ModelT()
model.version = 3
model.buffers = [schema.BufferT()]
model.subgraphs = []
for name in (b"main", b"body"):
    sg = schema.SubGraphT()
    sg.name = name
    sg.tensors, sg.inputs, sg.outputs, sg.operators = [], [], [], []
    model.subgraphs.append(sg)
builder = flatbuffers.Builder(1024)
builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
with open(sys.argv[1], "wb") as f:
    f.write(builder.Output())
