"""tile-canonicalize: local simplifications of tile ops, plus CSE and DCE of pure tile ops.

Upstream `canonicalize`/`cse` know nothing about IRDL ops (no traits, no folders), so this pass does
for tile ops what they do for the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir

from tilec.dialects import tile

from .base import TilePass, defining_op, ops_in_order
from .lowering_common import without_mask


@dataclass(frozen=True)
class CanonicalizePass(TilePass):
    """Simplify tile ops (splat folding, no-op pointer math, all-true masks) and CSE/DCE them.

    "tile.broadcast"("tile.splat"(%x)) : -> tensor<4x8xf32>   =>  "tile.splat"(%x) -> tensor<4x8xf32>
    "tile.addptr"(%p, splat(0))                              =>  %p
    "tile.load"(%p, dense<true>, %other)                      =>  "tile.load"(%p)
    "tile.splat"(arith.constant 1.0)                          =>  arith.constant dense<1.0>
    arith.addf %x, "tile.dot"(%a, %b, dense<0.0>)             =>  "tile.dot"(%a, %b, %x)
    """

    name: ClassVar[str] = "tile-canonicalize"
    option_ranges: ClassVar[dict] = {"max_iterations": (1, 1000)}
    max_iterations: int = 10

    def run(self, module: ir.Module) -> None:
        for _ in range(self.max_iterations):
            changed = False
            for op in ops_in_order(module.operation):
                rewrite = _REWRITES.get(op.name)
                if rewrite is not None and rewrite(op):
                    changed = True
            changed |= _cse_and_dce(module.operation)
            if not changed:
                return


def _is_int_constant(value: ir.Value, expected: int) -> bool:
    attr = tile.splat_constant(value)
    if attr is None:
        return False
    if isinstance(attr, ir.BoolAttr):
        return int(ir.BoolAttr(attr).value) == expected
    if isinstance(attr, ir.IntegerAttr):
        return ir.IntegerAttr(attr).value in (expected, -expected if expected == 1 else expected)
    return False


def _replace(op: ir.Operation, new_value: ir.Value) -> bool:
    op.results[0].replace_all_uses_with(new_value)
    op.erase()
    return True


def _splat_source(value: ir.Value) -> ir.Value | None:
    op = defining_op(value)
    return op.operands[0] if op is not None and op.name == "tile.splat" else None


def _fold_shape_op_of_splat(op: ir.Operation) -> bool:
    """broadcast / expand_dims / reshape / trans of a splat is a splat of the result shape."""
    src = op.operands[0]
    if op.name == "tile.broadcast" and src.type == op.results[0].type:
        return _replace(op, src)
    scalar = _splat_source(src)
    if scalar is None:
        return False
    new = tile.splat(scalar, tile.shape_of(op.results[0].type), loc=op.location, ip=ir.InsertionPoint(op))
    return _replace(op, new)


def _fold_splat_of_constant(op: ir.Operation) -> bool:
    attr = tile.splat_constant(op.operands[0])
    if attr is None:
        return False
    result_type = op.results[0].type
    dense = ir.DenseElementsAttr.get_splat(result_type, attr)
    new = ir.Operation.create(
        "arith.constant",
        results=[result_type],
        attributes={"value": dense},
        loc=op.location,
        ip=ir.InsertionPoint(op),
    ).result
    return _replace(op, new)


def _fold_addptr_zero(op: ir.Operation) -> bool:
    if not _is_int_constant(op.operands[1], 0):
        return False
    return _replace(op, op.operands[0])


def _drop_true_mask(op: ir.Operation) -> bool:
    """Removes a mask that is constant true (and `other` with it: it can never be used)."""
    mask = (tile.operand_segments(op, tile.SPECS[op.name[5:]]).get("mask") or [None])[0]
    if mask is None or not _is_int_constant(mask, 1):
        return False
    with ir.InsertionPoint(op), op.location:
        new = without_mask(op)
    for old, repl in zip(op.results, new.results):
        old.replace_all_uses_with(repl)
    op.erase()
    return True


def _fold_identity_convert(op: ir.Operation) -> bool:
    if op.operands[0].type != op.results[0].type:
        return False
    return _replace(op, op.operands[0])


def _fold_add_into_dot(op: ir.Operation) -> bool:
    """x + dot(a, b, 0) -> dot(a, b, x): the sum is accumulated by the dot itself (on tensor cores, in
    the accumulator registers) instead of a zero accumulator and a separate add. As Triton does, this
    reassociates float additions."""
    for dot_side, other_side in ((0, 1), (1, 0)):
        dot = defining_op(op.operands[dot_side])
        if dot is None or dot.name != "tile.dot" or len(list(dot.results[0].uses)) != 1:
            continue
        zero = tile.splat_constant(dot.operands[2])
        if not isinstance(zero, ir.FloatAttr) or ir.FloatAttr(zero).value != 0.0:
            continue
        addend = op.operands[other_side]
        if addend.type != dot.results[0].type:
            continue
        attrs = {name: dot.attributes[name] for name in dot.attributes}
        new = ir.Operation.create(
            "tile.dot",
            results=[dot.results[0].type],
            operands=[dot.operands[0], dot.operands[1], addend],
            attributes=attrs,
            loc=dot.location,
            ip=ir.InsertionPoint(op),
        )
        _replace(op, new.results[0])
        dot.erase()
        return True
    return False


_REWRITES = {
    "arith.addf": _fold_add_into_dot,
    "tile.broadcast": _fold_shape_op_of_splat,
    "tile.expand_dims": _fold_shape_op_of_splat,
    "tile.reshape": _fold_shape_op_of_splat,
    "tile.trans": _fold_shape_op_of_splat,
    "tile.splat": _fold_splat_of_constant,
    "tile.addptr": _fold_addptr_zero,
    "tile.load": _drop_true_mask,
    "tile.store": _drop_true_mask,
    "tile.atomic_rmw": _drop_true_mask,
    "tile.convert_layout": _fold_identity_convert,
}


def _cse_and_dce(root: ir.Operation) -> bool:
    """Erases unused pure tile ops and merges identical ones within a block.

    Loads are erased when unused but never merged (a store may sit between them); reduce/scan are
    not merged because their combiners would have to be compared structurally.
    """
    changed = False
    blocks: list[ir.Block] = []

    def collect(op):
        op = op.operation if hasattr(op, "operation") else op
        for region in op.regions:
            blocks.extend(region.blocks)
        return ir.WalkResult.ADVANCE

    root.walk(collect)
    for block in blocks:
        seen: dict[tuple, ir.Operation] = {}
        for op in reversed(list(block.operations)):
            op = op.operation if hasattr(op, "operation") else op
            if not tile.is_pure(op):
                continue
            if all(len(list(r.uses)) == 0 for r in op.results):
                if op.name == "tile.load" and "volatile" in op.attributes:
                    continue
                op.erase()
                changed = True
        for op in list(block.operations):
            op = op.operation if hasattr(op, "operation") else op
            if not tile.is_pure(op) or op.name == "tile.load" or len(op.regions):
                continue
            key = (
                op.name,
                tuple(op.operands),
                tuple(sorted((name, str(op.attributes[name])) for name in op.attributes)),
                tuple(str(r.type) for r in op.results),
            )
            earlier = seen.get(key)
            if earlier is None:
                seen[key] = op
                continue
            for old, repl in zip(op.results, earlier.results):
                old.replace_all_uses_with(repl)
            op.erase()
            changed = True
    return changed
