"""Builders of tile ops at the current insertion point (the front end's and the passes' way to
create them).
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from .ops import ELEMENTWISE_ARG_SLOTS, MAX_SLOTS
from .types import element_of, pointee_type, shape_of, with_shape


def _i32(v: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(32), v)


def _create(name, results, operands, attributes=None, *, loc=None, ip=None, regions=0):
    return ir.Operation.create(
        f"tile.{name}",
        results=results,
        operands=operands,
        attributes=attributes or {},
        regions=regions,
        loc=loc,
        ip=ip,
    )


def _segment_attr(*groups) -> dict:
    return {"operandSegmentSizes": ir.DenseI32ArrayAttr.get([len(g) for g in groups])}


def program_id(axis: int, *, loc=None, ip=None) -> ir.Value:
    i32 = ir.IntegerType.get_signless(32)
    return _create("program_id", [i32], [], {"axis": _i32(axis)}, loc=loc, ip=ip).result


def num_programs(axis: int, *, loc=None, ip=None) -> ir.Value:
    i32 = ir.IntegerType.get_signless(32)
    return _create("num_programs", [i32], [], {"axis": _i32(axis)}, loc=loc, ip=ip).result


def make_range(start: int, end: int, *, loc=None, ip=None) -> ir.Value:
    t = ir.RankedTensorType.get([end - start], ir.IntegerType.get_signless(32))
    attrs = {"start": _i32(start), "end": _i32(end)}
    return _create("make_range", [t], [], attrs, loc=loc, ip=ip).result


def splat(src: ir.Value, shape: Sequence[int], *, loc=None, ip=None) -> ir.Value:
    t = ir.RankedTensorType.get(list(shape), src.type)
    return _create("splat", [t], [src], loc=loc, ip=ip).result


def broadcast(src: ir.Value, shape: Sequence[int], *, loc=None, ip=None) -> ir.Value:
    t = ir.RankedTensorType.get(list(shape), element_of(src.type))
    return _create("broadcast", [t], [src], loc=loc, ip=ip).result


def expand_dims(src: ir.Value, axis: int, *, loc=None, ip=None) -> ir.Value:
    s = shape_of(src.type)
    t = ir.RankedTensorType.get(s[:axis] + [1] + s[axis:], element_of(src.type))
    return _create("expand_dims", [t], [src], {"axis": _i32(axis)}, loc=loc, ip=ip).result


def reshape(src: ir.Value, shape: Sequence[int], *, loc=None, ip=None) -> ir.Value:
    t = ir.RankedTensorType.get(list(shape), element_of(src.type))
    return _create("reshape", [t], [src], loc=loc, ip=ip).result


def trans(src: ir.Value, order: Sequence[int], *, loc=None, ip=None) -> ir.Value:
    s = shape_of(src.type)
    t = ir.RankedTensorType.get([s[i] for i in order], element_of(src.type))
    attrs = {"order": ir.DenseI32ArrayAttr.get(list(order))}
    return _create("trans", [t], [src], attrs, loc=loc, ip=ip).result


def gather(src: ir.Value, index: ir.Value, axis: int, *, loc=None, ip=None) -> ir.Value:
    t = with_shape(element_of(src.type), shape_of(index.type))
    return _create("gather", [t], [src, index], {"axis": _i32(axis)}, loc=loc, ip=ip).result


def histogram(src: ir.Value, num_bins: int, mask: ir.Value | None = None, *, loc=None, ip=None) -> ir.Value:
    m = [mask] if mask is not None else []
    t = with_shape(ir.IntegerType.get_signless(32), [num_bins])
    attrs = {"num_bins": _i32(num_bins), **_segment_attr([src], m)}
    return _create("histogram", [t], [src, *m], attrs, loc=loc, ip=ip).result


def sort(
    src: ir.Value, axis: int, *, descending=False, unsigned=False, merge=False, loc=None, ip=None
) -> ir.Value:
    attrs = {"axis": _i32(axis)}
    for name, on in (("descending", descending), ("unsigned", unsigned), ("merge", merge)):
        if on:
            attrs[name] = ir.UnitAttr.get()
    return _create("sort", [src.type], [src], attrs, loc=loc, ip=ip).result


def addptr(ptr: ir.Value, offset: ir.Value, *, loc=None, ip=None) -> ir.Value:
    return _create("addptr", [ptr.type], [ptr, offset], loc=loc, ip=ip).result


def _hint_attrs(cache: str = "", eviction: str = "") -> dict:
    attrs = {}
    if cache:
        attrs["cache"] = ir.StringAttr.get(cache)
    if eviction:
        attrs["eviction"] = ir.StringAttr.get(eviction)
    return attrs


def load(
    ptr, mask=None, other=None, *, cache="", eviction="", volatile=False, coords=(), descriptor=None,
    loc=None, ip=None,
):  # fmt: skip
    result = with_shape(pointee_type(element_of(ptr.type)), shape_of(ptr.type))
    m = [mask] if mask is not None else []
    o = [other] if other is not None else []
    attrs = {**_segment_attr([ptr], m, o, list(coords)), **_hint_attrs(cache, eviction)}
    if volatile:
        attrs["volatile"] = ir.UnitAttr.get()
    if descriptor is not None:
        attrs["descriptor"] = ir.StringAttr.get(descriptor)
    return _create("load", [result], [ptr, *m, *o, *coords], attrs, loc=loc, ip=ip).result


def store(ptr, value, mask=None, *, cache="", eviction="", loc=None, ip=None) -> ir.Operation:
    m = [mask] if mask is not None else []
    attrs = {**_segment_attr([ptr], [value], m), **_hint_attrs(cache, eviction)}
    return _create("store", [], [ptr, value, *m], attrs, loc=loc, ip=ip)


def _combiner_op(name, srcs, result_types, axis, build_combiner, attrs, loc, ip):
    """Creates a reduce/scan op; `build_combiner(block_args) -> list[Value]` fills the region."""
    if not 1 <= len(srcs) <= MAX_SLOTS:
        raise ValueError(f"tile.{name} takes 1 to {MAX_SLOTS} tensors, got {len(srcs)}")
    sizes = [1] * len(srcs) + [0] * (MAX_SLOTS - len(srcs))
    attrs = {
        "axis": _i32(axis),
        "operandSegmentSizes": ir.DenseI32ArrayAttr.get(sizes),
        "resultSegmentSizes": ir.DenseI32ArrayAttr.get(sizes),
        **attrs,
    }
    op = _create(name, result_types, list(srcs), attrs, loc=loc, ip=ip, regions=1)
    elements = [element_of(s.type) for s in srcs]
    arg_locs = [loc or ir.Location.current] * (2 * len(elements))
    block = op.regions[0].blocks.append(*(elements + elements), arg_locs=arg_locs)
    with ir.InsertionPoint(block):
        values = build_combiner(list(block.arguments))
        ir.Operation.create("gpu.yield", operands=list(values), loc=loc)
    return op


def reduce(srcs, axis, build_combiner, *, loc=None, ip=None) -> list[ir.Value]:
    """`build_combiner(args)` gets 2N block arguments and returns the N combined values."""
    results = []
    for s in srcs:
        shape = shape_of(s.type)
        results.append(with_shape(element_of(s.type), shape[:axis] + shape[axis + 1 :]))
    op = _combiner_op("reduce", srcs, results, axis, build_combiner, {}, loc, ip)
    return list(op.results)


def scan(srcs, axis, build_combiner, *, reverse=False, loc=None, ip=None) -> list[ir.Value]:
    attrs = {"reverse": ir.UnitAttr.get()} if reverse else {}
    op = _combiner_op("scan", srcs, [s.type for s in srcs], axis, build_combiner, attrs, loc, ip)
    return list(op.results)


def dot(a, b, acc, *, input_precision="ieee", max_num_imprecise_acc=None, loc=None, ip=None) -> ir.Value:
    attrs = {"input_precision": ir.StringAttr.get(input_precision)}
    if max_num_imprecise_acc is not None:
        attrs["max_num_imprecise_acc"] = ir.IntegerAttr.get(
            ir.IntegerType.get_signless(32), max_num_imprecise_acc
        )
    return _create("dot", [acc.type], [a, b, acc], attrs, loc=loc, ip=ip).result


def _atomic_attrs(sem: str, scope: str) -> dict:
    return {"sem": ir.StringAttr.get(sem), "scope": ir.StringAttr.get(scope)}


def atomic_rmw(kind, ptr, value, mask=None, *, sem="acq_rel", scope="gpu", loc=None, ip=None):
    m = [mask] if mask is not None else []
    attrs = {
        "kind": ir.StringAttr.get(kind),
        **_segment_attr([ptr], [value], m),
        **_atomic_attrs(sem, scope),
    }
    return _create("atomic_rmw", [value.type], [ptr, value, *m], attrs, loc=loc, ip=ip).result


def atomic_cas(ptr, cmp, value, *, sem="acq_rel", scope="gpu", loc=None, ip=None):
    attrs = _atomic_attrs(sem, scope)
    return _create("atomic_cas", [value.type], [ptr, cmp, value], attrs, loc=loc, ip=ip).result


def _elementwise_slots(args: int, results: int) -> dict:
    """The segment sizes of an op with ELEMENTWISE_ARG_SLOTS argument and MAX_SLOTS result slots."""
    return {
        "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1] * args + [0] * (ELEMENTWISE_ARG_SLOTS - args)),
        "resultSegmentSizes": ir.DenseI32ArrayAttr.get([1] * results + [0] * (MAX_SLOTS - results)),
    }


def map_(args, result_types, build_body, *, loc=None, ip=None) -> ir.Operation:
    """A tile.map over `args`; `build_body(block_args) -> list[Value]` fills its body (scalars)."""
    if not 1 <= len(args) <= ELEMENTWISE_ARG_SLOTS or len(result_types) > MAX_SLOTS:
        raise ValueError(
            f"tile.map takes 1 to {ELEMENTWISE_ARG_SLOTS} arguments and up to {MAX_SLOTS} results"
        )
    attrs = _elementwise_slots(len(args), len(result_types))
    op = _create("map", list(result_types), list(args), attrs, loc=loc, ip=ip, regions=1)
    elements = [element_of(a.type) for a in args]
    block = op.regions[0].blocks.append(*elements, arg_locs=[loc or ir.Location.current] * len(elements))
    with ir.InsertionPoint(block):
        values = build_body(list(block.arguments))
        ir.Operation.create("gpu.yield", operands=list(values), loc=loc)
    return op


def inline_asm(asm, constraints, args, result_types, *, pure, pack, loc=None, ip=None) -> list[ir.Value]:
    if len(args) > ELEMENTWISE_ARG_SLOTS or not 1 <= len(result_types) <= MAX_SLOTS:
        raise ValueError(
            f"tile.inline_asm takes up to {ELEMENTWISE_ARG_SLOTS} arguments and 1 to {MAX_SLOTS} results"
        )
    attrs = {
        "asm": ir.StringAttr.get(asm),
        "constraints": ir.StringAttr.get(constraints),
        "pack": _i32(pack),
        **_elementwise_slots(len(args), len(result_types)),
    }
    if pure:
        attrs["pure"] = ir.UnitAttr.get()
    return list(_create("inline_asm", list(result_types), list(args), attrs, loc=loc, ip=ip).results)


def ptr_cast(src, result_type, *, loc=None, ip=None) -> ir.Value:
    return _create("ptr_cast", [result_type], [src], loc=loc, ip=ip).result


def convert_layout(src, result_type, *, loc=None, ip=None) -> ir.Value:
    return _create("convert_layout", [result_type], [src], loc=loc, ip=ip).result


def print_(prefix: str, arg: ir.Value | None = None, *, hex=False, loc=None, ip=None):
    attrs = {"prefix": ir.StringAttr.get(prefix)}
    if hex:
        attrs["hex"] = ir.BoolAttr.get(True)
    return _create("print", [], [arg] if arg is not None else [], attrs, loc=loc, ip=ip)


def assert_(condition: ir.Value, message: str, *, loc=None, ip=None):
    attrs = {"message": ir.StringAttr.get(message)}
    return _create("assert", [], [condition], attrs, loc=loc, ip=ip)
