"""XLA (jax, CPU) capture: `xla.capture.capture(fn, args)` -> arena-trace/1,
`xla.export(fn, args)` (the same as `xla.capture.export`) -> arena-plan/1."""

from .capture import ExportError, export  # noqa: F401
