"""IREE capture: `iree.capture.capture(fn, args)` -> arena-trace/1 of what IREE's compiler
planned (iree-stream-layout-slices), `iree.export(fn, args)` (the same as
`iree.capture.export`) -> arena-plan/1."""

import pkgutil

# IREE's own Python package is the namespace package `iree` (iree.compiler, iree.build): this
# one, found first on sys.path, extends its path so that `iree.compiler` still imports.
__path__ = pkgutil.extend_path(__path__, __name__)

from .capture import ExportError, export  # noqa: F401
