"""ExecuTorch capture (workloads/runtimes/executorch): `et_capture.capture(pte)` ->
[(path, arena-trace/1)], `et_capture.export(source, ...)` -> {path: arena-plan/1}.

Named et_capture, not after the runtime as the other captures are: `executorch` is the wheel's
own package (a namespace package, so this folder, `workloads/runtimes/executorch`, holds no
module of that name and never shadows it). sys.path needs `workloads/runtimes` (common) and
`workloads/runtimes/executorch` (this package)."""

from .capture import ExportError, capture, capture_module, export  # noqa: F401
