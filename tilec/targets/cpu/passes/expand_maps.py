"""tile-cpu-expand-maps: each `tile.map` (tl.map_elementwise) becomes loops over its elements.

Its body may branch and loop per element, which no elementwise linalg op can hold, so on the CPU the
body moves into a loop nest (one scf.for per dimension) that extracts every argument's element, runs
the body and inserts the yielded values into the results; convert-tile-to-linalg then lowers what the
body holds (scalar loads, math) like any other scalar code. Booleans cross the loops as i8 (the CPU
keeps boolean tensors as bytes).

    %y = "tile.map"(%x) ({ ^bb0(%a: f32): ... gpu.yield %r : f32 }) : (tensor<64xf32>) -> tensor<64xf32>
      =>  %y = scf.for %i = 0 to 64 iter_args(%acc = tensor.empty) {
            %a = tensor.extract %x[%i] ... ; %n = tensor.insert %r into %acc[%i] ; scf.yield %n }
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, scf, tensor

from tilec.dialects import tile
from tilec.passes.base import TilePass, ops_named


@dataclass(frozen=True)
class CpuExpandMapsPass(TilePass):
    """Turn each tile.map into a loop nest over its elements with the body inside (see the module doc)."""

    name: ClassVar[str] = "tile-cpu-expand-maps"

    def run(self, module: ir.Module) -> None:
        for op in reversed(ops_named(module.operation, "tile.map")):  # inner ones first
            with op.location, ir.InsertionPoint(op):
                _expand(op)


def _is_bool(t: ir.Type) -> bool:
    return str(t) == "i1"


def _index(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), v).result


def _expand(op: ir.Operation) -> None:
    block = op.regions[0].blocks[0]
    results = list(op.results)
    shape = tile.shape_of(results[0].type)
    byte = ir.IntegerType.get_signless(8)
    if not shape:  # scalars: the body itself, in place
        for old, new in zip(results, _inline_body(block, list(op.operands), op)):
            old.replace_all_uses_with(new)
        op.erase()
        return

    def as_bytes(v):  # boolean tensors cross the loops as i8
        return arith.extui(tile.with_shape(byte, shape), v) if _is_bool(tile.element_of(v.type)) else v

    args = [as_bytes(a) for a in op.operands]
    elements = [tile.element_of(r.type) for r in results]
    inits = [tensor.EmptyOp(shape, byte if _is_bool(e) else e).result for e in elements]
    indices: list = []

    def innermost(carried):
        values = []
        for arg, old in zip(args, op.operands):
            v = tensor.ExtractOp(arg, indices).result
            values.append(
                arith.trunci(tile.element_of(old.type), v) if _is_bool(tile.element_of(old.type)) else v
            )
        marker = arith.ConstantOp(byte, 0)
        yielded = _inline_body(block, values, marker.operation)
        with ir.InsertionPoint(marker):
            updated = []
            for v, acc, e in zip(yielded, carried, elements):
                updated.append(
                    tensor.InsertOp(arith.extui(byte, v) if _is_bool(e) else v, acc, indices).result
                )
            scf.YieldOp(updated)
        marker.operation.erase()

    def loop_nest(level, carried):
        loop = scf.ForOp(_index(0), _index(shape[level]), _index(1), carried)
        indices.append(loop.induction_variable)
        with ir.InsertionPoint(loop.body):
            if level == len(shape) - 1:
                innermost(list(loop.inner_iter_args))
            else:
                scf.YieldOp(list(loop_nest(level + 1, list(loop.inner_iter_args)).results))
        return loop

    outer = loop_nest(0, inits)
    for old, new, e in zip(results, outer.results, elements):
        old.replace_all_uses_with(arith.trunci(old.type, new) if _is_bool(e) else new)
    op.erase()


def _inline_body(block: ir.Block, values: list, anchor: ir.Operation) -> list:
    """Moves the body's ops before `anchor` with its arguments bound to `values`; returns the values
    its gpu.yield gives."""
    for arg, v in zip(block.arguments, values):
        arg.replace_all_uses_with(v)
    for inner in list(block.operations):
        inner = inner.operation
        if inner.name == "gpu.yield":
            return list(inner.operands)
        inner.move_before(anchor)
    raise ValueError("tile.map body without gpu.yield")
