"""Reductions, scans and dots: combiners cloned into loops over the reduced axis."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from tilec.dialects import tile
from tilec.passes.lowering_common import clone_combiner

from .common import BOOLS, i1_type, index_constant, parallel_iterators, replace_op
from .elementwise import elementwise


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


def lower_reduce(op, sizes):
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
    accs = [_operand_at(s, axis, index_constant(0), scalar) for s in srcs]
    first = 1
    if scalar and len(srcs) == 1 and shape[axis] > 1:
        kind = _single_op_combiner(block)
        if kind in _IDEMPOTENT:
            first = 0
        elif kind in _IDENTITY and srcs[0] not in BOOLS:
            elem = tile.element_of(srcs[0].type)
            value = _IDENTITY[kind]
            attr = ir.FloatAttr.get(elem, value) if kind.endswith("f") else ir.IntegerAttr.get(elem, value)
            accs, first = [arith.ConstantOp(elem, attr).result], 0
    if not scalar and shape[axis] > 1:
        # Start from combine(slice 0, slice 1) in fresh tensors: the loop then updates buffers of its
        # own rather than views of the input.
        second = [_operand_at(s, axis, index_constant(1), scalar) for s in srcs]
        accs = _combine_elementwise(block, accs, second, out_shape, elems)
        first = 2
    if shape[axis] > first:
        loop = scf.ForOp(index_constant(first), index_constant(shape[axis]), index_constant(1), accs)
        if not scalar:
            BOOLS.update(arg for arg, acc in zip(loop.inner_iter_args, accs) if acc in BOOLS)
        with ir.InsertionPoint(loop.body):
            cur = [_operand_at(s, axis, loop.induction_variable, scalar) for s in srcs]
            acc = list(loop.inner_iter_args)
            new = _combine_elementwise(block, acc, cur, out_shape, elems, outs=None if scalar else acc)
            scf.YieldOp(new)
        if not scalar:
            BOOLS.update(r for r, acc in zip(loop.results, accs) if acc in BOOLS)
        accs = list(loop.results)
    replace_op(op, accs)


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
    return [i1_type() if s in BOOLS else tile.element_of(s.type) for s in srcs]


def _operand_at(src: ir.Value, axis: int, k: ir.Value, scalar: bool) -> ir.Value:
    """_at for a combiner's operand: a boolean element as i1, a boolean slice still known as one."""
    v = _at(src, axis, k, scalar)
    if src in BOOLS:
        if scalar:
            return arith.trunci(i1_type(), v)
        BOOLS.add(v)
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
        ir.ArrayAttr.get([parallel_iterators()] * rank),
    )
    elems = [tile.element_of(v.type) for v in [*rhs, *accs]]
    body = generic.regions[0].blocks.append(*elems)
    with ir.InsertionPoint(body):
        args = [
            arith.trunci(i1_type(), a) if v in BOOLS else a for a, v in zip(body.arguments, [*rhs, *accs])
        ]
        n = len(rhs)
        results = clone_combiner(block, args[n:], args[:n])
        results = [
            arith.extui(acc.type.element_type, r) if acc in BOOLS else r for r, acc in zip(results, accs)
        ]
        linalg.YieldOp(results)
    BOOLS.update(r for r, acc in zip(generic.results, accs) if acc in BOOLS)
    return list(generic.results)


def _at(src: ir.Value, axis: int, k: ir.Value, scalar: bool) -> ir.Value:
    """Element k of a 1-D tensor (scalar=True) or the slice k along `axis`."""
    if scalar:
        return tensor.ExtractOp(src, [k]).result
    return _slice(src, axis, k)


def lower_scan(op, sizes):
    srcs = list(op.operands)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    reverse = "reverse" in op.attributes
    shape = tile.shape_of(srcs[0].type)
    n = shape[axis]
    out_shape = shape[:axis] + shape[axis + 1 :]
    elems = _combined_elements(srcs)
    block = op.regions[0].blocks[0]
    if n == 1:
        replace_op(op, srcs)
        return
    # Iterate k = 1..n-1 (forward) or k = n-2..0 (backward): out[k] = combine(out[k -/+ 1], in[k]).
    loop = scf.ForOp(index_constant(1), index_constant(n), index_constant(1), srcs)
    with ir.InsertionPoint(loop.body):
        i = loop.induction_variable
        if reverse:
            k = arith.subi(index_constant(n - 1), i)
            prev = arith.addi(k, index_constant(1))
        else:
            k = i
            prev = arith.subi(k, index_constant(1))
        outs = list(loop.inner_iter_args)
        BOOLS.update(o for o, s in zip(outs, srcs) if s in BOOLS)
        scalar = not out_shape
        lhs = [_operand_at(o, axis, prev, scalar) for o in outs]
        rhs = [_operand_at(s, axis, k, scalar) for s in srcs]
        new = _combine_elementwise(block, lhs, rhs, out_shape, elems)
        if scalar:
            new = [arith.extui(s.type.element_type, v) if s in BOOLS else v for v, s in zip(new, srcs)]
            updated = [tensor.InsertOp(v, o, [k]).result for v, o in zip(new, outs)]
        else:
            updated = [_insert_slice(v, o, axis, k) for v, o in zip(new, outs)]
        scf.YieldOp(updated)
    BOOLS.update(r for r, s in zip(loop.results, srcs) if s in BOOLS)
    replace_op(op, list(loop.results))


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


def lower_dot(op, sizes):
    a, b, acc = op.operands
    elem = tile.element_of(acc.type)
    a2, b2 = _cast_elements(a, elem), _cast_elements(b, elem)
    replace_op(op, linalg.matmul(a2, b2, outs=[acc]))
