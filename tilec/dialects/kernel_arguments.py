"""A kernel's own arguments in the tile IR: their names (`tile.name`) and the scalars computed from
them, as the parts of an array's `descriptor` text (kernel_arrays.py) that the launcher evaluates
at each launch (targets/nvidia/tensor_maps._value). Block pointers and descriptors made in the
kernel (language/descriptors.py) and pointer loads read as boxes (tile-pointer-tensor-copies)
share them."""

from __future__ import annotations

from mlir import ir

from tilec.dialects import contract

_OPS = {"arith.addi": "add", "arith.muli": "mul", "arith.divsi": "div"}
_DEPTH = 8  # ops between an expression's root and its arguments


def argument_name(value: ir.Value, aligned: bool = False) -> str | None:
    """The name of the kernel argument `value` is (known divisible by 16, for `aligned`), else None
    (not an argument of a tile.kernel function: a loop's or a region's block argument, an op's
    result)."""
    if not isinstance(value.owner, ir.Block):
        return None
    fn = value.owner.owner
    if fn is None or fn.operation.name != "func.func" or contract.KERNEL not in fn.attributes:
        return None
    attrs = ir.DictAttr(ir.ArrayAttr(fn.attributes["arg_attrs"])[ir.BlockArgument(value).arg_number])
    if aligned and (
        contract.DIVISIBILITY not in attrs or ir.IntegerAttr(attrs[contract.DIVISIBILITY]).value % 16
    ):
        return None
    return ir.StringAttr(attrs[contract.ARG_NAME]).value if contract.ARG_NAME in attrs else None


def argument_expression(value: ir.Value, depth: int = 0):
    """The integer scalar `value` as a part of kernel_arrays' text when it is computed from the
    kernel's arguments and constants by +, -, * and / (arith.divsi: `tl.cdiv(K, BK)`), within a
    few ops: a name, an int or {"op", "bits", "args"}; else None."""
    if isinstance(value.owner, ir.Block):
        return argument_name(value)
    op = value.owner.operation
    if depth > _DEPTH:
        return None
    if op.name == "arith.constant":
        attr = op.attributes["value"]
        return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None
    if op.name == "arith.extsi":  # widening keeps a signed value
        return argument_expression(op.operands[0], depth + 1)
    if op.name not in (*_OPS, "arith.subi"):
        return None
    a, b = (argument_expression(v, depth + 1) for v in op.operands)
    if a is None or b is None:
        return None
    bits = 64 if isinstance(op.results[0].type, ir.IndexType) else ir.IntegerType(op.results[0].type).width
    if op.name == "arith.subi":  # a - b as a + (-1) * b
        b = -b if isinstance(b, int) else {"op": "mul", "bits": bits, "args": [-1, b]}
        return {"op": "add", "bits": bits, "args": [a, b]}
    return {"op": _OPS[op.name], "bits": bits, "args": [a, b]}
