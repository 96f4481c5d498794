"""Elementwise arith/math ops on tensors as linalg.generic over their scalar op."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, tensor

from tilec.dialects import tile
from tilec.passes.base import PassError

from .common import BOOLS, broadcast_map, i1_type, i64_type, parallel_iterators, replace_op


def elementwise(inputs: list[ir.Value], shape: list[int], out_elem: ir.Type, body, into=None) -> ir.Value:
    """`body(scalars) -> scalar` applied elementwise; inputs of size-1 dims broadcast.

    Boolean tensors travel as i8 (see common.BOOLS); `body` always sees and returns i1 for them.
    """
    if not shape:
        return body(list(inputs))
    is_bool = str(out_elem) == "i1"
    if is_bool:
        out_elem = ir.IntegerType.get_signless(8)
    out_t = ir.RankedTensorType.get(list(shape), out_elem)
    empty = into if into is not None else tensor.EmptyOp(list(shape), out_elem).result
    maps = [broadcast_map(tile.shape_of(v.type), shape) for v in inputs]
    maps.append(ir.AffineMap.get_identity(len(shape)))
    generic = linalg.GenericOp(
        [out_t],
        list(inputs),
        [empty],
        ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        ir.ArrayAttr.get([parallel_iterators()] * len(shape)),
    )
    elems = [tile.element_of(v.type) for v in inputs] + [out_elem]
    block = generic.regions[0].blocks.append(*elems)
    with ir.InsertionPoint(block):
        args = [
            arith.trunci(i1_type(), a) if v in BOOLS else a
            for a, v in zip(list(block.arguments)[: len(inputs)], inputs)
        ]
        result = body(args)
        if is_bool:
            result = arith.extui(out_elem, result)
        linalg.YieldOp([result])
    if is_bool:
        BOOLS.add(generic.results[0])
    return generic.results[0]


def elementwise_op(op: ir.Operation) -> None:
    """arith/math on tensors -> linalg.generic applying the scalar op (bool tensors as i8)."""
    if op.name == "arith.constant":
        dense = ir.DenseElementsAttr(op.attributes["value"])
        shape = tile.shape_of(op.results[0].type)
        i8 = ir.IntegerType.get_signless(8)
        if not dense.is_splat:
            raise PassError("non-splat boolean tensor constants are not supported on the CPU target", op)
        value = 1 if ir.IntegerAttr(dense.get_splat_value()).value else 0
        t = ir.RankedTensorType.get(shape, i8)
        new = arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(i8, value))).result
        BOOLS.add(new)
        replace_op(op, new)
        return
    result_t = op.results[0].type
    shape = tile.shape_of(result_t)
    attrs = {name: op.attributes[name] for name in op.attributes}
    name = op.name
    elem = tile.element_of(result_t)
    if tile.is_ptr(elem):  # tl.where on tensors of pointers: a select of i64 addresses
        elem = i64_type()

    def body(scalars):
        return _scalar_op(name, elem, scalars, attrs)

    replace_op(op, elementwise(list(op.operands), shape, elem, body))


def _scalar_op(name, result_t, operands, attrs) -> ir.Value:
    if name == "arith.truncf" and str(operands[0].type) == "f64" and str(result_t) == "bf16":
        return f64_to_bf16(operands[0])
    return ir.Operation.create(name, results=[result_t], operands=operands, attributes=attrs).result


def f64_to_bf16(x: ir.Value) -> ir.Value:
    """f64 -> bf16 without a libcall (x86 has no __truncdfbf2 in libgcc 12), rounded exactly:
    round to odd into f32, then to nearest even into bf16 (double rounding through round-to-odd is exact
    when the intermediate keeps at least two more bits)."""
    f32, f64, i32 = ir.F32Type.get(), ir.F64Type.get(), ir.IntegerType.get_signless(32)
    r = arith.truncf(f32, x)
    back = arith.extf(f64, r)
    too_big = arith.cmpf(arith.CmpFPredicate.OGT, math_abs(back), math_abs(x))
    bits = arith.bitcast(i32, r)
    one = arith.ConstantOp(i32, 1).result
    bits = arith.select(too_big, arith.subi(bits, one), bits)
    inexact = arith.cmpf(arith.CmpFPredicate.ONE, back, x)
    bits = arith.select(inexact, arith.ori(bits, one), bits)
    return arith.truncf(ir.BF16Type.get(), arith.bitcast(f32, bits))


def math_abs(v):
    from mlir.dialects import math

    return math.absf(v)
