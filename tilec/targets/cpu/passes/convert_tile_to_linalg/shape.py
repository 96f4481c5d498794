"""Ranges, splats, broadcasts, reshapes, transposes, gathers, histograms and sorts."""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, linalg, scf, tensor

from tilec.dialects import tile
from tilec.passes.lowering_common import segments, zero

from .common import BOOLS, i1_type, i64_type, index_constant, parallel_iterators, replace_op
from .elementwise import elementwise


def lower_make_range(op, sizes):
    # start + the loop index (a generic without inputs, like lower_splat's), not a constant array: fused
    # into its users the offsets are then affine in the loop index, so LLVM sees consecutive
    # addresses (vector loads and stores) instead of values read from a table.
    start = ir.IntegerAttr(op.attributes["start"]).value
    end = ir.IntegerAttr(op.attributes["end"]).value
    i32 = ir.IntegerType.get_signless(32)

    def body(args):
        index = arith.index_cast(i32, linalg.IndexOp(0).result)
        return arith.addi(index, arith.ConstantOp(i32, start).result) if start else index

    replace_op(op, elementwise([], [end - start], i32, body))


def lower_splat(op, sizes):
    # A generic without inputs (rather than tensor.splat) so that elementwise fusion folds it into
    # its users and no buffer of copies is ever written.
    src = op.operands[0]
    shape = tile.shape_of(op.results[0].type)
    replace_op(op, elementwise([], shape, src.type, lambda a: src))


def _propagate_bool(src: ir.Value, new: ir.Value) -> ir.Value:
    if src in BOOLS:
        BOOLS.add(new)
    return new


def lower_broadcast(op, sizes):
    src = op.operands[0]
    shape = tile.shape_of(op.results[0].type)
    elem = i1_type() if src in BOOLS else tile.element_of(src.type)
    replace_op(op, elementwise([src], shape, elem, lambda a: a[0]))


def _reshape_to(src: ir.Value, shape: list[int]) -> ir.Value:
    elem = tile.element_of(src.type)
    if not shape:
        zeros = [index_constant(0)] * len(tile.shape_of(src.type))
        return tensor.ExtractOp(src, zeros).result
    if not tile.shape_of(src.type):
        return tensor.SplatOp(ir.RankedTensorType.get(shape, elem), src, []).result
    idx = ir.IndexType.get()
    shape_t = ir.RankedTensorType.get([len(shape)], idx)
    shape_attr = ir.DenseElementsAttr.get(__import__("numpy").array(shape, dtype="int64"), type=idx)
    shape_v = arith.ConstantOp(shape_t, shape_attr).result
    return tensor.ReshapeOp(ir.RankedTensorType.get(shape, elem), src, shape_v).result


def lower_reshape(op, sizes):
    src = op.operands[0]
    replace_op(op, _propagate_bool(src, _reshape_to(src, tile.shape_of(op.results[0].type))))


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


def lower_expand_dims(op, sizes):
    """A unit dimension inserted into a range (`offs[None, :]` of an arange, or of a cheap sum such
    as `pid * BLOCK + arange`): a linalg.generic reading the range without that dimension rather
    than a tensor.reshape, which elementwise fusion cannot see through. Fused into the loads and
    masks that use it, the index is then the loop's own (affine addresses, which LLVM vectorizes)
    instead of one read back from a buffer. Other values stay reshaped: fusing their work (a `% M`)
    into every element's loop measured slower."""
    src = op.operands[0]
    src_shape, shape = tile.shape_of(src.type), tile.shape_of(op.results[0].type)
    if not src_shape or not _from_indices(src):
        return lower_reshape(op, sizes)
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
        ir.ArrayAttr.get([parallel_iterators()] * len(shape)),
    )
    block = generic.regions[0].blocks.append(elem, elem)
    with ir.InsertionPoint(block):
        linalg.YieldOp([block.arguments[0]])
    replace_op(op, _propagate_bool(src, generic.results[0]))


def lower_trans(op, sizes):
    src = op.operands[0]
    order = list(ir.DenseI32ArrayAttr(op.attributes["order"]))
    shape = tile.shape_of(op.results[0].type)
    elem = tile.element_of(src.type)
    init = tensor.EmptyOp(shape, elem).result
    out_t = ir.RankedTensorType.get(shape, elem)
    replace_op(op, _propagate_bool(src, _transpose(src, init, order, out_t)))


def _transpose(src, init, order, out_t):
    t = linalg.TransposeOp(result=[out_t], input=src, init=init, permutation=order)
    block = t.regions[0].blocks.append(tile.element_of(src.type), tile.element_of(out_t))
    with ir.InsertionPoint(block):
        linalg.YieldOp([block.arguments[0]])
    return t.results[0]


def lower_gather(op, sizes):
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

    replace_op(op, elementwise([index], shape, elem, body))


def lower_histogram(op, sizes):
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
        ir.ArrayAttr.get([parallel_iterators(), ir.Attribute.parse("#linalg.iterator_type<reduction>")]),
    )
    block = generic.regions[0].blocks.append(*[tile.element_of(v.type) for v in inputs], i32)
    with ir.InsertionPoint(block):
        value, count = block.arguments[0], block.arguments[len(inputs)]
        # compared as i64: in a narrow type the bin number would wrap (bin 257 is 1 in i8)
        value = value if element.width == 64 else arith.extsi(i64_type(), value)
        hit = arith.cmpi(
            arith.CmpIPredicate.eq, value, arith.index_cast(i64_type(), linalg.IndexOp(0).result)
        )
        if mask is not None:
            keep = block.arguments[1]
            hit = arith.andi(hit, keep if keep.type == i1_type() else arith.trunci(i1_type(), keep))
        linalg.YieldOp([arith.addi(count, arith.extui(i32, hit))])
    replace_op(op, generic.results[0])


def lower_sort(op, sizes):
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
    stages = scf.ForOp(index_constant(first_stage), index_constant(bits + 1), index_constant(1), [src])
    with ir.InsertionPoint(stages.body):
        stage = stages.induction_variable
        steps = scf.ForOp(index_constant(0), stage, index_constant(1), list(stages.inner_iter_args))
        with ir.InsertionPoint(steps.body):
            x = steps.inner_iter_args[0]
            bit = arith.subi(arith.subi(stage, index_constant(1)), steps.induction_variable)
            distance = arith.shli(index_constant(1), bit)
            last_stage = arith.cmpi(arith.CmpIPredicate.eq, stage, index_constant(bits))

            def body(_):
                coords = [linalg.IndexOp(d).result for d in range(len(shape))]
                i = coords[axis]
                partner = arith.xori(i, distance)
                mine = tensor.ExtractOp(x, coords).result
                theirs = tensor.ExtractOp(
                    x, [partner if d == axis else c for d, c in enumerate(coords)]
                ).result
                first = arith.cmpi(arith.CmpIPredicate.eq, arith.andi(i, distance), index_constant(0))
                low = arith.select(first, mine, theirs)
                high = arith.select(first, theirs, mine)
                # blocks whose index bit `stage` is 1 go the other way (in every stage but the last)
                odd_block = arith.cmpi(
                    arith.CmpIPredicate.ne,
                    arith.andi(arith.shrui(i, stage), index_constant(1)),
                    index_constant(0),
                )
                flipped = arith.andi(odd_block, arith.xori(last_stage, arith.ConstantOp(i1_type(), 1).result))
                falling = arith.xori(flipped, arith.ConstantOp(i1_type(), int(descending)).result)
                out_of_order = arith.select(falling, greater(high, low), greater(low, high))
                return arith.select(out_of_order, theirs, mine)

            scf.YieldOp([elementwise([], shape, elem, body)])
        scf.YieldOp(list(steps.results))
    replace_op(op, list(stages.results))


def lower_convert_layout(op, sizes):
    replace_op(op, op.operands[0])
