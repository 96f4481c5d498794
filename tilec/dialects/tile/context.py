"""Contexts with the tile dialect loaded (IRDL), its Python op views, and verification of tile ops."""

from __future__ import annotations

import collections
import functools
import threading

from mlir import ir
from mlir.dialects import irdl

from .ops import SPECS, irdl_source
from .specs import VerifyError

_OPVIEW_PREFIX = "tilec.dialects.opviews"


@functools.cache
def _register_opview_namespace() -> None:
    """Lets MLIR's bindings find a Python module for the tile namespace (opviews/tile.py) instead of
    retrying `mlir.dialects.tile` at every op view. The prefix list is the bindings' own registry."""
    try:
        from mlir._mlir_libs import _mlir
    except ImportError:  # another packaging of the bindings: only slower without it
        return
    if _OPVIEW_PREFIX not in _mlir.globals.dialect_search_modules:
        _mlir.globals.append_dialect_search_prefix(_OPVIEW_PREFIX)


def load_into(ctx: ir.Context) -> None:
    """Registers the tile dialect in `ctx` (idempotent)."""
    _register_opview_namespace()
    if ctx.is_registered_operation("tile.splat"):
        return
    with ctx, ir.Location.unknown(ctx):
        module = ir.Module.parse(irdl_source(), ctx)
        irdl.load_dialects(module)
    KEEP_ALIVE.modules.append(module)


class _IrdlModules(threading.local):
    """The IRDL module must outlive the context's use of its definitions. A context is in use only
    while one kernel compiles (tilec-opt: one per run), and a list of every one kept every context
    alive (~2 MB per compile for good); the module cannot hang off its context either (the two
    would form a cycle the garbage collector cannot see). So each thread keeps the modules of its
    last contexts: compiles on other threads cannot push out one still in use."""

    def __init__(self):
        self.modules: collections.deque = collections.deque(maxlen=64)

    def keep_all(self) -> None:
        """From now on nothing is let go (a forked compile process: freeing what the parent made
        crashes it)."""
        self.modules = collections.deque(self.modules)


KEEP_ALIVE = _IrdlModules()


def make_context() -> ir.Context:
    """A new MLIR context with all upstream dialects and the tile dialect loaded."""
    ctx = ir.Context()
    ctx.allow_unregistered_dialects = False
    load_into(ctx)
    return ctx


def verify_op(op: ir.Operation) -> None:
    """Raises VerifyError when a tile op breaks a rule IRDL cannot express."""
    name = op.name
    if not name.startswith("tile."):
        return
    spec = SPECS.get(name[5:])
    if spec is None or spec.verify is None:
        return
    spec.verify(op)


def verify_tile_ops(root: ir.Operation) -> list[VerifyError]:
    """All tile-op violations under `root`, in program order."""
    errors: list[VerifyError] = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        try:
            verify_op(op)
        except VerifyError as e:
            errors.append(e)
        return ir.WalkResult.ADVANCE

    # Types built while checking (expected result types) need a context and a location.
    with root.context, ir.Location.unknown(root.context):
        root.walk(visit)
    return errors
