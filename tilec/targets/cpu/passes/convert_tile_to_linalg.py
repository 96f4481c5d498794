"""convert-tile-to-linalg: tile ops to tensor/linalg/scf/llvm ops for the CPU target.

Pointers become i64 addresses (tensors of pointers become tensors of i64), memory accesses become
`llvm.load`/`llvm.store` through `llvm.inttoptr` inside linalg.generic bodies or loop nests; after
this pass, upstream bufferization and lowering take the module to LLVM.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, linalg, llvm, scf, tensor
from mlir.dialects import func as func_d

from tilec.dialects import contract, tile
from tilec.passes.base import PassError, TilePass, ops_named
from tilec.passes.lowering_common import clone_combiner, segments, zero

_NO_ASM = (
    "tl.inline_asm_elementwise runs GPU assembly (PTX or AMDGCN), which the CPU target cannot run: "
    "compile the kernel for an NVIDIA target"
)


@dataclass(frozen=True)
class ConvertTileToLinalgPass(TilePass):
    """Lower tile ops to linalg/tensor/scf and LLVM memory ops (pointers become i64 addresses).

    %v = "tile.load"(%p, %m) : (tensor<128x!tile.ptr<f32>>, tensor<128xi1>) -> tensor<128xf32>
      =>  %v = linalg.generic ins(%p, %m : tensor<128xi64>, tensor<128xi1>) {
            scf.if %m { llvm.load (llvm.inttoptr %p) } else { 0 } }
    """

    name: ClassVar[str] = "convert-tile-to-linalg"

    def run(self, module: ir.Module) -> None:
        with module.context:
            _BOOLS.clear()
            sizes = _record_pointee_sizes(module.operation)
            _retype_pointers(module)
            # One sweep in program order: every producer is lowered before its users.
            for op in _ops(module.operation):
                if op.name.startswith("tile."):
                    lower = _LOWERINGS.get(op.name)
                    if op.name == "tile.inline_asm":
                        raise PassError(_NO_ASM, op)
                    if lower is None:
                        raise PassError(f"'{op.name}' has no lowering for the CPU target", op)
                    with op.location, ir.InsertionPoint(op):
                        lower(op, sizes)
                elif _is_elementwise_on_tensors(op):
                    with op.location, ir.InsertionPoint(op):
                        _elementwise_op(op)
                elif (
                    op.name == "arith.truncf"
                    and str(op.operands[0].type) == "f64"
                    and str(op.results[0].type) == "bf16"
                ):
                    with op.location, ir.InsertionPoint(op):
                        _replace(op, _f64_to_bf16(op.operands[0]))
            # Device assertions inside reduce/scan combiners (a checked combine function) came along
            # when the combiners were cloned: each is now a scalar check where the combiner runs.
            for op in ops_named(module.operation, "tile.assert"):
                with op.location, ir.InsertionPoint(op):
                    _assert(op, sizes)
            _BOOLS.clear()


class _BoolValues(threading.local):
    """Boolean tensors are kept as i8 on the CPU: MLIR cannot lower memrefs of i1 to LLVM (it
    asserts). This set holds the i8 tensor values that stand for i1 tensors during one run of the
    pass, one set per thread (kernels compile from several threads at once)."""

    def __init__(self):
        self.values: set = set()

    def add(self, value) -> None:
        self.values.add(value)

    def update(self, values) -> None:
        self.values.update(values)

    def clear(self) -> None:
        self.values.clear()

    def __contains__(self, value) -> bool:
        return value in self.values


_BOOLS = _BoolValues()


# ----------------------------------------------------------------------------------------------
# Types
# ----------------------------------------------------------------------------------------------


def _i64():
    return ir.IntegerType.get_signless(64)


def _lowered(t: ir.Type) -> ir.Type:
    if tile.is_ptr(t):
        return _i64()
    tt = tile.as_tensor(t)
    if tt is not None and tile.is_ptr(tt.element_type):
        return ir.RankedTensorType.get(list(tt.shape), _i64())
    if tt is not None and str(tt.element_type) == "i1":
        return ir.RankedTensorType.get(list(tt.shape), ir.IntegerType.get_signless(8))
    return t


def _ops(root: ir.Operation) -> list[ir.Operation]:
    """Ops in program order, not descending into reduce/scan combiners (those are cloned, not lowered)."""
    ops = []

    def visit(op):
        for region in op.regions:
            for block in region.blocks:
                for inner in block.operations:
                    inner = inner.operation
                    ops.append(inner)
                    if inner.name not in ("tile.reduce", "tile.scan"):
                        visit(inner)

    visit(root)
    return ops


def _record_pointee_sizes(root) -> dict:
    """Notes the pointee size on every addptr (types lose the pointee when pointers become i64)."""
    i64 = _i64()
    for op in _ops(root):
        if op.name == "tile.addptr":
            pointee = tile.pointee_type(tile.element_of(op.operands[0].type))
            op.attributes[contract.POINTEE_SIZE] = ir.IntegerAttr.get(i64, _byte_size(pointee))
    return {}


def _byte_size(t: ir.Type) -> int:
    text = str(t)
    if text.startswith("!tile.ptr"):
        return 8
    if text == "i1":
        return 1
    return max(1, int(t.width) // 8)


def _retype_pointers(module: ir.Module) -> None:
    for op in _ops(module.operation):
        for region in op.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    new = _lowered(arg.type)
                    if new != arg.type:
                        if _is_bool_tensor_type(arg.type):
                            _BOOLS.add(arg)
                        arg.set_type(new)
        if op.name.startswith("tile.") or _is_elementwise_on_tensors(op):
            continue  # replaced below, with the types they need
        for res in op.results:
            new = _lowered(res.type)
            if new != res.type:
                if _is_bool_tensor_type(res.type):
                    _BOOLS.add(res)
                res.set_type(new)
        if op.name == "func.func":
            ftype = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
            inputs = [_lowered(t) for t in ftype.inputs]
            results = [_lowered(t) for t in ftype.results]
            op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))


# ----------------------------------------------------------------------------------------------
# Building blocks
# ----------------------------------------------------------------------------------------------


def _parallel():
    return ir.Attribute.parse("#linalg.iterator_type<parallel>")


def _broadcast_map(in_shape, out_shape) -> ir.AffineMap:
    rank = len(out_shape)
    exprs = [
        ir.AffineConstantExpr.get(0) if in_shape[i] == 1 and out_shape[i] != 1 else ir.AffineDimExpr.get(i)
        for i in range(rank)
    ]
    return ir.AffineMap.get(rank, 0, exprs)


def _is_bool_tensor_type(t: ir.Type) -> bool:
    tt = tile.as_tensor(t)
    return tt is not None and str(tt.element_type) == "i1"


def _i1():
    return ir.IntegerType.get_signless(1)


def elementwise(inputs: list[ir.Value], shape: list[int], out_elem: ir.Type, body, into=None) -> ir.Value:
    """`body(scalars) -> scalar` applied elementwise; inputs of size-1 dims broadcast.

    Boolean tensors travel as i8 (see _BOOLS); `body` always sees and returns i1 for them.
    """
    if not shape:
        return body(list(inputs))
    is_bool = str(out_elem) == "i1"
    if is_bool:
        out_elem = ir.IntegerType.get_signless(8)
    out_t = ir.RankedTensorType.get(list(shape), out_elem)
    empty = into if into is not None else tensor.EmptyOp(list(shape), out_elem).result
    maps = [_broadcast_map(tile.shape_of(v.type), shape) for v in inputs]
    maps.append(ir.AffineMap.get_identity(len(shape)))
    generic = linalg.GenericOp(
        [out_t],
        list(inputs),
        [empty],
        ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        ir.ArrayAttr.get([_parallel()] * len(shape)),
    )
    elems = [tile.element_of(v.type) for v in inputs] + [out_elem]
    block = generic.regions[0].blocks.append(*elems)
    with ir.InsertionPoint(block):
        args = [
            arith.trunci(_i1(), a) if v in _BOOLS else a
            for a, v in zip(list(block.arguments)[: len(inputs)], inputs)
        ]
        result = body(args)
        if is_bool:
            result = arith.extui(out_elem, result)
        linalg.YieldOp([result])
    if is_bool:
        _BOOLS.add(generic.results[0])
    return generic.results[0]


def _is_elementwise_on_tensors(op: ir.Operation) -> bool:
    if not (op.name.startswith("arith.") or op.name.startswith("math.")) or op.name == "arith.constant":
        return any(_is_bool_tensor_type(r.type) for r in op.results) and op.name == "arith.constant"
    return any(tile.as_tensor(v.type) is not None for v in [*op.operands, *op.results])


def _elementwise_op(op: ir.Operation) -> None:
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
        _BOOLS.add(new)
        _replace(op, new)
        return
    result_t = op.results[0].type
    shape = tile.shape_of(result_t)
    attrs = {name: op.attributes[name] for name in op.attributes}
    name = op.name
    elem = tile.element_of(result_t)
    if tile.is_ptr(elem):  # tl.where on tensors of pointers: a select of i64 addresses
        elem = _i64()

    def body(scalars):
        return _scalar_op(name, elem, scalars, attrs)

    _replace(op, elementwise(list(op.operands), shape, elem, body))


def _scalar_op(name, result_t, operands, attrs) -> ir.Value:
    if name == "arith.truncf" and str(operands[0].type) == "f64" and str(result_t) == "bf16":
        return _f64_to_bf16(operands[0])
    return ir.Operation.create(name, results=[result_t], operands=operands, attributes=attrs).result


def _f64_to_bf16(x: ir.Value) -> ir.Value:
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


def _index(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), v).result


def loop_nest(shape: list[int], carried: list[ir.Value], body) -> list[ir.Value]:
    """scf.for over every index of `shape`; `body(indices, carried) -> carried`."""
    if not shape:
        return body([], carried)
    loop = scf.ForOp(_index(0), _index(shape[0]), _index(1), carried)
    with ir.InsertionPoint(loop.body):
        inner = loop_nest(
            shape[1:], list(loop.inner_iter_args), lambda idx, c: body([loop.induction_variable, *idx], c)
        )
        scf.YieldOp(inner)
    return list(loop.results)


def _extract(v: ir.Value, indices) -> ir.Value:
    if not tile.shape_of(v.type):
        return v
    return tensor.ExtractOp(v, list(indices)).result


def _extract_bool(v: ir.Value, indices) -> ir.Value:
    x = _extract(v, indices)
    if x.type == _i1():
        return x
    return arith.trunci(_i1(), x)


def _llvm_ptr() -> ir.Type:
    return ir.Type.parse("!llvm.ptr")


def _address(addr: ir.Value) -> ir.Value:
    return llvm.IntToPtrOp(_llvm_ptr(), addr).result


def _replace(op: ir.Operation, values) -> None:
    values = values if isinstance(values, list | tuple) else [values]
    for old, new in zip(op.results, values):
        old.replace_all_uses_with(new)
    op.erase()


def _make_range(op, sizes):
    # start + the loop index (a generic without inputs, like _splat's), not a constant array: fused
    # into its users the offsets are then affine in the loop index, so LLVM sees consecutive
    # addresses (vector loads and stores) instead of values read from a table.
    start = ir.IntegerAttr(op.attributes["start"]).value
    end = ir.IntegerAttr(op.attributes["end"]).value
    i32 = ir.IntegerType.get_signless(32)

    def body(args):
        index = arith.index_cast(i32, linalg.IndexOp(0).result)
        return arith.addi(index, arith.ConstantOp(i32, start).result) if start else index

    _replace(op, elementwise([], [end - start], i32, body))


def _splat(op, sizes):
    # A generic without inputs (rather than tensor.splat) so that elementwise fusion folds it into
    # its users and no buffer of copies is ever written.
    src = op.operands[0]
    shape = tile.shape_of(op.results[0].type)
    _replace(op, elementwise([], shape, src.type, lambda a: src))


def _propagate_bool(src: ir.Value, new: ir.Value) -> ir.Value:
    if src in _BOOLS:
        _BOOLS.add(new)
    return new


def _broadcast(op, sizes):
    src = op.operands[0]
    shape = tile.shape_of(op.results[0].type)
    elem = _i1() if src in _BOOLS else tile.element_of(src.type)
    _replace(op, elementwise([src], shape, elem, lambda a: a[0]))


def _reshape_to(src: ir.Value, shape: list[int]) -> ir.Value:
    elem = tile.element_of(src.type)
    if not shape:
        zeros = [_index(0)] * len(tile.shape_of(src.type))
        return tensor.ExtractOp(src, zeros).result
    if not tile.shape_of(src.type):
        return tensor.SplatOp(ir.RankedTensorType.get(shape, elem), src, []).result
    idx = ir.IndexType.get()
    shape_t = ir.RankedTensorType.get([len(shape)], idx)
    shape_attr = ir.DenseElementsAttr.get(__import__("numpy").array(shape, dtype="int64"), type=idx)
    shape_v = arith.ConstantOp(shape_t, shape_attr).result
    return tensor.ReshapeOp(ir.RankedTensorType.get(shape, elem), src, shape_v).result


def _reshape(op, sizes):
    src = op.operands[0]
    _replace(op, _propagate_bool(src, _reshape_to(src, tile.shape_of(op.results[0].type))))


# Integer operations cheap enough to recompute in every element's loop (no division, no remainder).
_CHEAP_INDEX_OPS = frozenset({
    "arith.addi", "arith.subi", "arith.muli", "arith.shli", "arith.index_cast", "arith.extsi",
    "arith.extui", "arith.trunci", "arith.constant", "linalg.index", "linalg.yield",
})  # fmt: skip


def _from_indices(value: ir.Value, depth: int = 6) -> bool:
    """A function of the loop indices that is cheap to recompute: a generic without inputs (a range,
    a splat), or sums and products of such (`pid * BLOCK + offs`), a few generics deep."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return False
    owner = owner.operation if hasattr(owner, "operation") else owner
    if owner.name != "linalg.generic":
        return False
    inputs = list(owner.operands)[: len(owner.operands) - len(owner.results)]
    if not inputs:
        return True
    if depth == 0 or any(op.operation.name not in _CHEAP_INDEX_OPS for op in owner.regions[0].blocks[0]):
        return False
    return all(_from_indices(v, depth - 1) for v in inputs)


def _expand_dims(op, sizes):
    """A unit dimension inserted into a range (`offs[None, :]` of an arange, or of a cheap sum such
    as `pid * BLOCK + arange`): a linalg.generic reading the range without that dimension rather
    than a tensor.reshape, which elementwise fusion cannot see through. Fused into the loads and
    masks that use it, the index is then the loop's own (affine addresses, which LLVM vectorizes)
    instead of one read back from a buffer. Other values stay reshaped: fusing their work (a `% M`)
    into every element's loop measured slower."""
    src = op.operands[0]
    src_shape, shape = tile.shape_of(src.type), tile.shape_of(op.results[0].type)
    if not src_shape or not _from_indices(src):
        return _reshape(op, sizes)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    elem = tile.element_of(src.type)
    source_map = ir.AffineMap.get(
        len(shape), 0, [ir.AffineDimExpr.get(d) for d in range(len(shape)) if d != axis]
    )
    identity = ir.AffineMap.get_identity(len(shape))
    generic = linalg.GenericOp(
        [ir.RankedTensorType.get(shape, elem)],
        [src],
        [tensor.EmptyOp(shape, elem).result],
        ir.ArrayAttr.get([ir.AffineMapAttr.get(source_map), ir.AffineMapAttr.get(identity)]),
        ir.ArrayAttr.get([_parallel()] * len(shape)),
    )
    block = generic.regions[0].blocks.append(elem, elem)
    with ir.InsertionPoint(block):
        linalg.YieldOp([block.arguments[0]])
    _replace(op, _propagate_bool(src, generic.results[0]))


def _trans(op, sizes):
    src = op.operands[0]
    order = list(ir.DenseI32ArrayAttr(op.attributes["order"]))
    shape = tile.shape_of(op.results[0].type)
    elem = tile.element_of(src.type)
    init = tensor.EmptyOp(shape, elem).result
    out_t = ir.RankedTensorType.get(shape, elem)
    _replace(op, _propagate_bool(src, _transpose(src, init, order, out_t)))


def _transpose(src, init, order, out_t):
    t = linalg.TransposeOp(result=[out_t], input=src, init=init, permutation=order)
    block = t.regions[0].blocks.append(tile.element_of(src.type), tile.element_of(out_t))
    with ir.InsertionPoint(block):
        linalg.YieldOp([block.arguments[0]])
    return t.results[0]


def _gather(op, sizes):
    """result[c] = src[c with c[axis] = index[c]] (0 where the index is outside src): a generic over
    the index's elements that extracts from src (the vectorizer makes it a vector.gather)."""
    src, index = op.operands
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    elem = tile.element_of(src.type)
    shape = tile.shape_of(op.results[0].type)
    size = tile.shape_of(src.type)[axis]
    index_t = ir.IndexType.get()

    def body(args):
        i = args[0]
        inside = arith.cmpi(arith.CmpIPredicate.ult, i, arith.ConstantOp(i.type, size).result)  # < 0 too
        safe = arith.index_cast(index_t, arith.select(inside, i, arith.ConstantOp(i.type, 0).result))
        coords = [safe if d == axis else linalg.IndexOp(d).result for d in range(len(shape))]
        picked = tensor.ExtractOp(src, coords).result
        return arith.select(inside, picked, zero(elem))

    _replace(op, elementwise([index], shape, elem, body))


def _histogram(op, sizes):
    """counts[b] = the number of elements n with src[n] == b (and mask[n]): a generic over
    [num_bins, n] reducing along n, which vectorizes (num_bins x n compares: CPUs have the time)."""
    seg = segments(op)
    src = seg["src"][0]
    mask = seg["mask"][0] if seg.get("mask") else None
    bins = ir.IntegerAttr(op.attributes["num_bins"]).value
    i32 = ir.IntegerType.get_signless(32)
    element = ir.IntegerType(tile.element_of(src.type))
    inputs = [src] + ([mask] if mask is not None else [])
    along_n = ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(1)])
    to_bin = ir.AffineMap.get(2, 0, [ir.AffineDimExpr.get(0)])
    zeros = linalg.fill(arith.ConstantOp(i32, 0).result, outs=[tensor.EmptyOp([bins], i32).result])
    generic = linalg.GenericOp(
        [ir.RankedTensorType.get([bins], i32)],
        inputs,
        [zeros],
        ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in [along_n] * len(inputs) + [to_bin]]),
        ir.ArrayAttr.get([_parallel(), ir.Attribute.parse("#linalg.iterator_type<reduction>")]),
    )
    block = generic.regions[0].blocks.append(*[tile.element_of(v.type) for v in inputs], i32)
    with ir.InsertionPoint(block):
        value, count = block.arguments[0], block.arguments[len(inputs)]
        # compared as i64: in a narrow type the bin number would wrap (bin 257 is 1 in i8)
        value = value if element.width == 64 else arith.extsi(_i64(), value)
        hit = arith.cmpi(arith.CmpIPredicate.eq, value, arith.index_cast(_i64(), linalg.IndexOp(0).result))
        if mask is not None:
            keep = block.arguments[1]
            hit = arith.andi(hit, keep if keep.type == _i1() else arith.trunci(_i1(), keep))
        linalg.YieldOp([arith.addi(count, arith.extui(i32, hit))])
    _replace(op, generic.results[0])


def _sort(op, sizes):
    """tile.sort: the bitonic network's compare-and-swap steps in two scf.for loops (stage s = 1..log2 n,
    or the last alone with `merge`; then bit b = s-1..0), each step one generic: every element
    compares itself with its partner i ^ 2^b and takes the partner's value where the pair is out of
    order for its block's direction. The same comparisons and swaps as the GPUs' unrolled network
    (tile-expand-sort), in code whose size does not grow with n."""
    src = op.operands[0]
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    descending = "descending" in op.attributes
    unsigned = "unsigned" in op.attributes
    shape = tile.shape_of(src.type)
    elem = tile.element_of(src.type)
    bits = shape[axis].bit_length() - 1

    def greater(a, b):  # NaN after every number
        if isinstance(elem, ir.IntegerType):
            return arith.cmpi(arith.CmpIPredicate.ugt if unsigned else arith.CmpIPredicate.sgt, a, b)
        nan_over_number = arith.andi(
            arith.cmpf(arith.CmpFPredicate.UNO, a, a), arith.cmpf(arith.CmpFPredicate.ORD, b, b)
        )
        return arith.ori(arith.cmpf(arith.CmpFPredicate.OGT, a, b), nan_over_number)

    first_stage = bits if "merge" in op.attributes else 1
    stages = scf.ForOp(_index(first_stage), _index(bits + 1), _index(1), [src])
    with ir.InsertionPoint(stages.body):
        stage = stages.induction_variable
        steps = scf.ForOp(_index(0), stage, _index(1), list(stages.inner_iter_args))
        with ir.InsertionPoint(steps.body):
            x = steps.inner_iter_args[0]
            bit = arith.subi(arith.subi(stage, _index(1)), steps.induction_variable)
            distance = arith.shli(_index(1), bit)
            last_stage = arith.cmpi(arith.CmpIPredicate.eq, stage, _index(bits))

            def body(_):
                coords = [linalg.IndexOp(d).result for d in range(len(shape))]
                i = coords[axis]
                partner = arith.xori(i, distance)
                mine = tensor.ExtractOp(x, coords).result
                theirs = tensor.ExtractOp(
                    x, [partner if d == axis else c for d, c in enumerate(coords)]
                ).result
                first = arith.cmpi(arith.CmpIPredicate.eq, arith.andi(i, distance), _index(0))
                low = arith.select(first, mine, theirs)
                high = arith.select(first, theirs, mine)
                # blocks whose index bit `stage` is 1 go the other way (in every stage but the last)
                odd_block = arith.cmpi(
                    arith.CmpIPredicate.ne, arith.andi(arith.shrui(i, stage), _index(1)), _index(0)
                )
                flipped = arith.andi(odd_block, arith.xori(last_stage, arith.ConstantOp(_i1(), 1).result))
                falling = arith.xori(flipped, arith.ConstantOp(_i1(), int(descending)).result)
                out_of_order = arith.select(falling, greater(high, low), greater(low, high))
                return arith.select(out_of_order, theirs, mine)

            scf.YieldOp([elementwise([], shape, elem, body)])
        scf.YieldOp(list(steps.results))
    _replace(op, list(stages.results))


def _convert_layout(op, sizes):
    _replace(op, op.operands[0])


def _addptr(op, sizes):
    ptr, off = op.operands
    size = ir.IntegerAttr(op.attributes[contract.POINTEE_SIZE]).value
    shape = tile.shape_of(op.results[0].type)
    i64 = _i64()

    def body(a):
        p, o = a
        o64 = o if o.type == i64 else arith.extsi(i64, o)
        scaled = arith.muli(o64, arith.ConstantOp(i64, size).result) if size != 1 else o64
        return arith.addi(p, scaled)

    _replace(op, elementwise([ptr, off], shape, i64, body))


def _load_scalar(addr, elem, volatile):
    return llvm.LoadOp(elem, _address(addr), volatile_=True if volatile else None).result


def _load(op, sizes):
    seg = segments(op)
    ptr = seg["ptr"][0]
    mask = seg["mask"][0] if seg["mask"] else None
    other = seg["other"][0] if seg["other"] else None
    res_t = op.results[0].type
    elem, shape = tile.element_of(res_t), tile.shape_of(res_t)
    volatile = "volatile" in op.attributes
    inputs = [ptr] + ([mask] if mask is not None else []) + ([other] if other is not None else [])

    def body(a):
        if mask is None:
            return _load_scalar(a[0], elem, volatile)
        fallback = a[2] if other is not None else None
        branch = scf.IfOp(a[1], [elem], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([_load_scalar(a[0], elem, volatile)])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([fallback if fallback is not None else zero(elem)])
        return branch.results[0]

    _replace(op, elementwise(inputs, shape, elem, body))


def _masked(mask_value, emit):
    if mask_value is None:
        emit()
        return
    branch = scf.IfOp(mask_value, [], has_else=False)
    with ir.InsertionPoint(branch.then_block):
        emit()
        scf.YieldOp([])


def _store(op, sizes):
    seg = segments(op)
    ptr, value = seg["ptr"][0], seg["value"][0]
    mask = seg["mask"][0] if seg["mask"] else None
    shape = tile.shape_of(ptr.type)

    def body(idx, carried):
        p, v = _extract(ptr, idx), _extract(value, idx)
        m = _extract_bool(mask, idx) if mask is not None else None
        _masked(m, lambda: llvm.StoreOp(v, _address(p)))
        return carried

    loop_nest(shape, [], body)
    op.erase()


def _atomic_helper(op, kind: str, elem: ir.Type, n_values: int) -> ir.FlatSymbolRefAttr:
    """Declares `@__tilec_atomic_<kind>_<sem>_<type>(i64, T...) -> T` (defined by tile-cpu-atomics).

    The atomic itself stays behind a call until after bufferization: the buffer deallocation pass
    refuses ops with unknown memory effects, which llvm.atomicrmw/cmpxchg are.
    """
    sem = ir.StringAttr(op.attributes["sem"]).value if "sem" in op.attributes else "acq_rel"
    name = f"__tilec_atomic_{kind}_{sem}_{elem}"
    module = op.parent
    while module.name != "builtin.module":
        module = module.parent
    body = module.regions[0].blocks[0]
    if not any(
        o.operation.name == "func.func" and ir.StringAttr(o.operation.attributes["sym_name"]).value == name
        for o in body.operations
    ):
        with ir.InsertionPoint.at_block_begin(body), op.location:
            decl = func_d.FuncOp(name, ([_i64()] + [elem] * n_values, [elem]), visibility="private")
            decl.attributes[contract.ATOMIC] = ir.DictAttr.get(
                {"kind": ir.StringAttr.get(kind), "sem": ir.StringAttr.get(sem)}
            )
    return ir.FlatSymbolRefAttr.get(name)


def _atomic_loop(op, shape, elem, emit_one):
    """Runs `emit_one(indices) -> old value` over the shape, collecting old values in a tensor."""
    if not shape:
        _replace(op, emit_one([]))
        return
    init = tensor.EmptyOp(shape, elem).result

    def body(idx, carried):
        old = emit_one(idx)
        return [tensor.InsertOp(old, carried[0], idx).result]

    _replace(op, loop_nest(shape, [init], body)[0])


def _atomic_rmw(op, sizes):
    seg = segments(op)
    ptr, value = seg["ptr"][0], seg["value"][0]
    mask = seg["mask"][0] if seg["mask"] else None
    kind = ir.StringAttr(op.attributes["kind"]).value
    elem = tile.element_of(op.results[0].type)
    shape = tile.shape_of(op.results[0].type)
    callee = _atomic_helper(op, kind, elem, 1)

    def call(p, v):
        return func_d.CallOp([elem], callee, [p, v]).result

    def one(idx):
        p, v = _extract(ptr, idx), _extract(value, idx)
        if mask is None:
            return call(p, v)
        branch = scf.IfOp(_extract_bool(mask, idx), [elem], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([call(p, v)])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([zero(elem)])
        return branch.results[0]

    _atomic_loop(op, shape, elem, one)


def _atomic_cas(op, sizes):
    ptr, cmp, value = op.operands
    elem = tile.element_of(op.results[0].type)
    shape = tile.shape_of(op.results[0].type)
    # cmpxchg compares bits, as the GPUs' atom.cas does: a float CAS is the integer CAS of its bits
    bits = ir.IntegerType.get_signless(ir.FloatType(elem).width) if isinstance(elem, ir.FloatType) else elem
    callee = _atomic_helper(op, "cas", bits, 2)

    def one(idx):
        p, c, v = (_extract(x, idx) for x in (ptr, cmp, value))
        if bits != elem:
            c, v = arith.bitcast(bits, c), arith.bitcast(bits, v)
        old = func_d.CallOp([bits], callee, [p, c, v]).result
        return old if bits == elem else arith.bitcast(elem, old)

    _atomic_loop(op, shape, elem, one)


def _combine_elementwise(block, lhs, rhs, shape, elems, outs=None):
    """Applies the combiner to tensors (or scalars) elementwise; returns one value per result.

    With `outs`, result k is written into outs[k] (destination-passing style, so a loop that carries
    the accumulators bufferizes in place).
    """
    n = len(lhs)
    if not shape:
        return clone_combiner(block, lhs, rhs)
    if outs is not None:
        return _accumulate(block, rhs, outs, shape)
    out = []
    for k in range(n):  # one generic per result keeps the lowering simple; fusion merges them
        out.append(
            elementwise(
                lhs + rhs,
                shape,
                elems[k],
                lambda a, k=k: clone_combiner(block, a[:n], a[n:])[k],
                into=outs[k] if outs is not None else None,
            )
        )
    return out


def _unit_slice(shape: list[int], axis: int) -> tuple[list[int], list[int], list[int]]:
    """Static offsets, sizes and strides of the slice at a dynamic position along `axis`."""
    offsets = [0] * len(shape)
    offsets[axis] = ir.ShapedType.get_dynamic_stride_or_offset()
    sizes = list(shape)
    sizes[axis] = 1
    return offsets, sizes, [1] * len(shape)


def _dropping(rank: int, axis: int) -> ir.ArrayAttr:
    """The reassociation that folds unit dimension `axis` of a rank-`rank` shape into a neighbour.

    Where the shape has other unit dimensions, slices go through it (a full-rank slice, then
    collapse_shape / expand_shape) rather than being rank-reducing themselves: there (1x8x4 along
    axis 2, 1x8x1 slices) a rank-reducing slice does not say which unit dimension it drops, and
    canonicalization guessed the first one (offsets then ran past dimension 2: 'runs out-of-bounds:
    7 >= 4'). Elsewhere the rank-reducing slice stays: it vectorizes better on the CPU."""
    groups = [[i] for i in range(rank) if i != axis]
    if groups:
        if axis > 0:
            groups[axis - 1].append(axis)
        else:
            groups[0].insert(0, axis)
    i64 = ir.IntegerType.get_signless(64)
    return ir.ArrayAttr.get([ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in groups])


def _slice(src: ir.Value, axis: int, k: ir.Value) -> ir.Value:
    """src[..., k, ...] along `axis`, with that dimension dropped (a 0-d tensor for 1-D input)."""
    shape = tile.shape_of(src.type)
    elem = tile.element_of(src.type)
    offsets, sizes, strides = _unit_slice(shape, axis)
    out_t = ir.RankedTensorType.get(shape[:axis] + shape[axis + 1 :], elem)
    if not _other_unit_dims(shape, axis):  # unambiguous: one rank-reducing slice (vectorizes best)
        return tensor.ExtractSliceOp(out_t, src, [k], [], [], offsets, sizes, strides).result
    piece = tensor.ExtractSliceOp(
        ir.RankedTensorType.get(sizes, elem), src, [k], [], [], offsets, sizes, strides
    )
    return tensor.CollapseShapeOp(out_t, piece.result, _dropping(len(shape), axis)).result


def _other_unit_dims(shape: list[int], axis: int) -> bool:
    return any(d == 1 for i, d in enumerate(shape) if i != axis)


def _insert_slice(value: ir.Value, dest: ir.Value, axis: int, k: ir.Value) -> ir.Value:
    shape = tile.shape_of(dest.type)
    offsets, sizes, strides = _unit_slice(shape, axis)
    unit = ir.RankedTensorType.get(sizes, tile.element_of(dest.type))
    if _other_unit_dims(shape, axis) and tile.shape_of(value.type) != sizes:
        value = tensor.ExpandShapeOp(unit, value, _dropping(len(shape), axis), [], sizes).result
    return tensor.InsertSliceOp(value, dest, [k], [], [], offsets, sizes, strides).result


# A reduction's order is unspecified (GPUs combine in a tree): its float additions and
# multiplications may be reassociated, which lets LLVM vectorize a row's sum (several partial sums
# in vector lanes) instead of chaining every addition on the last (layernorm over 1024 columns on a
# 2-core AMD EPYC: 3.2-3.6 GB/s in order, 6.0-7.2 reassociated).
_REASSOCIABLE = ("arith.addf", "arith.mulf")
# Combiners for which a 1-D reduction may start its loop at element 0, so that its trip count is the
# block's size (a power of two, no scalar tail after LLVM's vector loop; from element 1 a 1024-long
# max left 31 elements to a scalar chain of dependent maxss): idempotent ones start from element 0
# itself (max(a0, a0) = a0, NaN rules included), the others from their exact identity (-0.0 + x and
# 1.0 * x are x for every x, -0.0, NaN and inf included).
_IDEMPOTENT = ("arith.maxnumf", "arith.minnumf", "arith.maximumf", "arith.minimumf", "arith.maxsi",
               "arith.minsi", "arith.maxui", "arith.minui", "arith.andi", "arith.ori")  # fmt: skip
_IDENTITY = {"arith.addf": -0.0, "arith.mulf": 1.0, "arith.addi": 0, "arith.muli": 1, "arith.xori": 0}


def _reduce(op, sizes):
    srcs = list(op.operands)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    shape = tile.shape_of(srcs[0].type)
    out_shape = shape[:axis] + shape[axis + 1 :]
    elems = _combined_elements(srcs)
    block = op.regions[0].blocks[0]
    for inner in block.operations:
        if inner.operation.name in _REASSOCIABLE:
            inner.operation.attributes["fastmath"] = ir.Attribute.parse("#arith.fastmath<reassoc>")
    scalar = not out_shape
    # A 1-D reduction carries scalars; others carry tensors updated in place by the combiner.
    accs = [_operand_at(s, axis, _index(0), scalar) for s in srcs]
    first = 1
    if scalar and len(srcs) == 1 and shape[axis] > 1:
        kind = _single_op_combiner(block)
        if kind in _IDEMPOTENT:
            first = 0
        elif kind in _IDENTITY and srcs[0] not in _BOOLS:
            elem = tile.element_of(srcs[0].type)
            value = _IDENTITY[kind]
            attr = ir.FloatAttr.get(elem, value) if kind.endswith("f") else ir.IntegerAttr.get(elem, value)
            accs, first = [arith.ConstantOp(elem, attr).result], 0
    if not scalar and shape[axis] > 1:
        # Start from combine(slice 0, slice 1) in fresh tensors: the loop then updates buffers of its
        # own rather than views of the input.
        second = [_operand_at(s, axis, _index(1), scalar) for s in srcs]
        accs = _combine_elementwise(block, accs, second, out_shape, elems)
        first = 2
    if shape[axis] > first:
        loop = scf.ForOp(_index(first), _index(shape[axis]), _index(1), accs)
        if not scalar:
            _BOOLS.update(arg for arg, acc in zip(loop.inner_iter_args, accs) if acc in _BOOLS)
        with ir.InsertionPoint(loop.body):
            cur = [_operand_at(s, axis, loop.induction_variable, scalar) for s in srcs]
            acc = list(loop.inner_iter_args)
            new = _combine_elementwise(block, acc, cur, out_shape, elems, outs=None if scalar else acc)
            scf.YieldOp(new)
        if not scalar:
            _BOOLS.update(r for r, acc in zip(loop.results, accs) if acc in _BOOLS)
        accs = list(loop.results)
    _replace(op, accs)


def _single_op_combiner(block) -> str | None:
    """The name of a combiner's one operation when the body is `yield op(arg0, arg1)` (either order)."""
    ops = [o.operation for o in block.operations]
    if len(ops) != 2 or not ops[1].name.endswith("yield"):
        return None
    combine = ops[0]
    if len(combine.results) != 1 or list(ops[1].operands) != [combine.results[0]]:
        return None
    if set(combine.operands) != set(block.arguments) or len(combine.operands) != 2:
        return None
    return combine.name


def _combined_elements(srcs) -> list:
    """The element type the combiner sees for each source: i1 for boolean tensors (carried as i8)."""
    return [_i1() if s in _BOOLS else tile.element_of(s.type) for s in srcs]


def _operand_at(src: ir.Value, axis: int, k: ir.Value, scalar: bool) -> ir.Value:
    """_at for a combiner's operand: a boolean element as i1, a boolean slice still known as one."""
    v = _at(src, axis, k, scalar)
    if src in _BOOLS:
        if scalar:
            return arith.trunci(_i1(), v)
        _BOOLS.add(v)
    return v


def _accumulate(block, rhs: list[ir.Value], accs: list[ir.Value], shape) -> list[ir.Value]:
    """One linalg.generic: accs[k] = combine(accs, rhs)[k], reading the accumulators through its outputs."""
    rank = len(shape)
    identity = ir.AffineMap.get_identity(rank)
    generic = linalg.GenericOp(
        [a.type for a in accs],
        list(rhs),
        list(accs),
        ir.ArrayAttr.get([ir.AffineMapAttr.get(identity)] * (len(rhs) + len(accs))),
        ir.ArrayAttr.get([_parallel()] * rank),
    )
    elems = [tile.element_of(v.type) for v in [*rhs, *accs]]
    body = generic.regions[0].blocks.append(*elems)
    with ir.InsertionPoint(body):
        args = [arith.trunci(_i1(), a) if v in _BOOLS else a for a, v in zip(body.arguments, [*rhs, *accs])]
        n = len(rhs)
        results = clone_combiner(block, args[n:], args[:n])
        results = [
            arith.extui(acc.type.element_type, r) if acc in _BOOLS else r for r, acc in zip(results, accs)
        ]
        linalg.YieldOp(results)
    _BOOLS.update(r for r, acc in zip(generic.results, accs) if acc in _BOOLS)
    return list(generic.results)


def _at(src: ir.Value, axis: int, k: ir.Value, scalar: bool) -> ir.Value:
    """Element k of a 1-D tensor (scalar=True) or the slice k along `axis`."""
    if scalar:
        return tensor.ExtractOp(src, [k]).result
    return _slice(src, axis, k)


def _scan(op, sizes):
    srcs = list(op.operands)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    reverse = "reverse" in op.attributes
    shape = tile.shape_of(srcs[0].type)
    n = shape[axis]
    out_shape = shape[:axis] + shape[axis + 1 :]
    elems = _combined_elements(srcs)
    block = op.regions[0].blocks[0]
    if n == 1:
        _replace(op, srcs)
        return
    # Iterate k = 1..n-1 (forward) or k = n-2..0 (backward): out[k] = combine(out[k -/+ 1], in[k]).
    loop = scf.ForOp(_index(1), _index(n), _index(1), srcs)
    with ir.InsertionPoint(loop.body):
        i = loop.induction_variable
        if reverse:
            k = arith.subi(_index(n - 1), i)
            prev = arith.addi(k, _index(1))
        else:
            k = i
            prev = arith.subi(k, _index(1))
        outs = list(loop.inner_iter_args)
        _BOOLS.update(o for o, s in zip(outs, srcs) if s in _BOOLS)
        scalar = not out_shape
        lhs = [_operand_at(o, axis, prev, scalar) for o in outs]
        rhs = [_operand_at(s, axis, k, scalar) for s in srcs]
        new = _combine_elementwise(block, lhs, rhs, out_shape, elems)
        if scalar:
            new = [arith.extui(s.type.element_type, v) if s in _BOOLS else v for v, s in zip(new, srcs)]
            updated = [tensor.InsertOp(v, o, [k]).result for v, o in zip(new, outs)]
        else:
            updated = [_insert_slice(v, o, axis, k) for v, o in zip(new, outs)]
        scf.YieldOp(updated)
    _BOOLS.update(r for r, s in zip(loop.results, srcs) if s in _BOOLS)
    _replace(op, list(loop.results))


def _cast_elements(v: ir.Value, elem: ir.Type) -> ir.Value:
    src = tile.element_of(v.type)
    if src == elem:
        return v
    shape = tile.shape_of(v.type)

    def body(a):
        x = a[0]
        if isinstance(src, ir.FloatType) and isinstance(elem, ir.FloatType):
            return arith.extf(elem, x) if src.width < elem.width else arith.truncf(elem, x)
        if isinstance(src, ir.IntegerType) and isinstance(elem, ir.IntegerType):
            return arith.extsi(elem, x)
        if isinstance(src, ir.IntegerType):
            return arith.sitofp(elem, x)
        return arith.fptosi(elem, x)

    return elementwise([v], shape, elem, body)


def _dot(op, sizes):
    a, b, acc = op.operands
    elem = tile.element_of(acc.type)
    a2, b2 = _cast_elements(a, elem), _cast_elements(b, elem)
    _replace(op, linalg.matmul(a2, b2, outs=[acc]))


def _status_arg(op) -> ir.Value:
    fn = op.parent
    while fn is not None and fn.name != "func.func":
        fn = fn.parent
    if fn is None or contract.STATUS_ARG not in fn.attributes:
        raise PassError("device assertions on the CPU need tile-cpu-grid to run first", op)
    index = ir.IntegerAttr(fn.attributes[contract.STATUS_ARG]).value
    return fn.regions[0].blocks[0].arguments[index]


def _assert(op, sizes):
    cond = op.operands[0]
    status = _status_arg(op)
    module = op.parent
    while module.name != "builtin.module":
        module = module.parent
    from tilec import diagnostics

    file, line, col = diagnostics.file_location(op.location)
    where = f"{file}:{line}:{col}: " if file else ""
    entries = (
        list(ir.ArrayAttr(module.attributes[contract.ASSERTS]))
        if contract.ASSERTS in module.attributes
        else []
    )
    message = where + ir.StringAttr(op.attributes["message"]).value
    module.attributes[contract.ASSERTS] = ir.ArrayAttr.get(entries + [ir.StringAttr.get(message)])
    code = len(entries) + 1  # the status word holds the 1-based number of the failed assertion
    i32 = ir.IntegerType.get_signless(32)
    shape = tile.shape_of(cond.type)

    def body(idx, carried):
        c = _extract_bool(cond, idx)
        failed = arith.xori(c, arith.ConstantOp(c.type, 1).result)

        def record():  # the first failure is reported: later ones leave the status word alone
            first = arith.cmpi(arith.CmpIPredicate.eq, llvm.LoadOp(i32, _address(status)).result, _c32(0))
            _masked(first, lambda: llvm.StoreOp(_c32(code), _address(status)))

        _masked(failed, record)
        return carried

    loop_nest(shape, [], body)
    op.erase()


def _c32(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), value).result


def _print(op, sizes):
    """Each element becomes a call of `__tilec_print_{f,i}(id, pid_x, pid_y, pid_z, index, value)`, which the
    CPU runtime binds to a Python callback; `id` selects the prefix and format (module attribute
    `tile.prints`, in order of appearance)."""
    fn = op.parent
    while fn.name != "func.func":
        fn = fn.parent
    module = fn.parent
    while module.name != "builtin.module":
        module = module.parent
    status_index = (
        ir.IntegerAttr(fn.attributes[contract.STATUS_ARG]).value
        if contract.STATUS_ARG in fn.attributes
        else None
    )
    if status_index is None:
        raise PassError("device printing on the CPU needs tile-cpu-grid to run first", op)
    args = fn.regions[0].blocks[0].arguments
    pids = [args[status_index - 6 + i] for i in range(3)]
    value = op.operands[0] if len(op.operands) else None
    prefix = ir.StringAttr(op.attributes["prefix"]).value
    hex_ = "hex" in op.attributes and ir.BoolAttr(op.attributes["hex"]).value
    shape = tile.shape_of(value.type) if value is not None else []
    elem = tile.element_of(value.type) if value is not None else ir.IntegerType.get_signless(64)
    is_float = isinstance(elem, ir.FloatType)
    entries = (
        list(ir.ArrayAttr(module.attributes[contract.PRINTS])) if contract.PRINTS in module.attributes else []
    )
    record = f"{prefix}\x00{int(hex_)}\x00{int(value is not None)}\x00{','.join(map(str, shape))}"
    print_id = len(entries)
    module.attributes[contract.PRINTS] = ir.ArrayAttr.get(entries + [ir.StringAttr.get(record)])
    i32, i64, f64 = ir.IntegerType.get_signless(32), _i64(), ir.F64Type.get()
    name = "__tilec_print_f" if is_float else "__tilec_print_i"
    carrier = f64 if is_float else i64
    body = module.regions[0].blocks[0]
    if not any(
        o.operation.name == "func.func" and ir.StringAttr(o.operation.attributes["sym_name"]).value == name
        for o in body.operations
    ):
        with ir.InsertionPoint.at_block_begin(body), op.location:
            decl = func_d.FuncOp(name, ([i32, i32, i32, i32, i64, carrier], []), visibility="private")
            decl.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()

    def body_fn(idx, carried):
        linear = arith.ConstantOp(ir.IndexType.get(), 0).result
        for d, i in enumerate(idx):
            linear = arith.addi(arith.muli(linear, _index(shape[d])), i)
        linear64 = arith.index_cast(i64, linear)
        v = _extract(value, idx) if value is not None else arith.ConstantOp(i64, 0).result
        if value is not None and v in _BOOLS or str(v.type) == "i1":
            v = arith.extui(i64, v)
        if is_float:
            v = v if v.type == f64 else arith.extf(f64, v)
        elif v.type != i64:
            v = arith.extsi(i64, v)
        ident = arith.ConstantOp(i32, print_id).result
        func_d.CallOp([], ir.FlatSymbolRefAttr.get(name), [ident, *pids, linear64, v])
        return carried

    loop_nest(shape, [], body_fn)
    op.erase()


_LOWERINGS = {
    "tile.make_range": _make_range,
    "tile.splat": _splat,
    "tile.broadcast": _broadcast,
    "tile.expand_dims": _expand_dims,
    "tile.reshape": _reshape,
    "tile.trans": _trans,
    "tile.gather": _gather,
    "tile.sort": _sort,
    "tile.histogram": _histogram,
    "tile.convert_layout": _convert_layout,
    "tile.ptr_cast": _convert_layout,  # pointers are i64 addresses here: every cast is the value itself
    "tile.addptr": _addptr,
    "tile.load": _load,
    "tile.store": _store,
    "tile.atomic_rmw": _atomic_rmw,
    "tile.atomic_cas": _atomic_cas,
    "tile.reduce": _reduce,
    "tile.scan": _scan,
    "tile.dot": _dot,
    "tile.assert": _assert,
    "tile.print": _print,
}
