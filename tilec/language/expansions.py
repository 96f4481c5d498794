"""The language's expansions of tile ops, registered for the passes that apply them
(tilec/dialects/expansions.py): tl.sort's bitonic network, float64 math as float64 arithmetic, float
`%` by exact steps. Each takes the op, wraps its operands as language tensors and returns the result's
IR value."""

from __future__ import annotations

from tilec._lazy import lazy_module
from tilec.dialects import expansions

from . import builtins, core, float64_math, reorder, semantic
from .float_remainder import exact_fmod

_ir = lazy_module("mlir.ir")
_tile = lazy_module("tilec.dialects.tile")


def _operand(op, index: int, dtype) -> core.tensor:
    value = op.operands[index]
    return core.tensor(value, dtype, tuple(_tile.shape_of(value.type)))


def sort(op):
    """tile.sort: the bitonic network over its axis (a merge: only the last stage's steps)."""
    signed = "unsigned" not in op.attributes
    dtype = core.dtype_from_ir(_tile.element_of(op.operands[0].type), signed=signed)
    axis = _ir.IntegerAttr(op.attributes["axis"]).value
    x = _operand(op, 0, dtype)
    first_stage = x.shape[axis].bit_length() - 1 if "merge" in op.attributes else 1
    with builtins.in_a_pass():
        return reorder.bitonic_network(x, axis, first_stage, "descending" in op.attributes).handle


def float_remainder(op):
    """arith.remf on float16/bfloat16/float32 (computed in float32) or float64."""
    dtype = core.dtype_from_ir(_tile.element_of(op.results[0].type))
    wide = core.float64 if dtype == core.float64 else core.float32
    x, y = (semantic.cast(_operand(op, i, dtype), wide) for i in (0, 1))
    return semantic.cast(exact_fmod(x, y), dtype).handle


def _float64(function):
    def build(op):
        return function(_operand(op, 0, core.float64)).handle

    return build


expansions.register(expansions.SORT, "tile.sort", sort)
expansions.register(expansions.FLOAT_REMAINDER, "arith.remf", float_remainder)
for _name, _function in float64_math.FUNCTIONS.items():
    expansions.register(expansions.FLOAT64_MATH, _name, _float64(_function))
