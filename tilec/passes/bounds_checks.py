"""What tile-cpu-check-bounds and tile-check-bounds share: each load, store and atomic whose pointer
comes from the kernel's pointer arguments is checked against the byte ranges [lo, hi) those
arguments span, one per argument, wherever the two passes get them from (the CPU's status block, the
GPU's extra kernel parameters):

    %inb = OR_j (lo_j <= addr) & (addr + size <= hi_j)      per element
    tile.assert (!mask | %inb), "out-of-bounds load of 4 byte(s) ..."   (at the access's location)
    tile.load %ptr, (mask & %inb), other

A compare-and-swap has no mask: its pointer is replaced by a scratch word where there is one (the
CPU's); on GPUs the failed assertion stops the thread before it gets there.

Pointers made from integers or read from memory (a table of addresses, as Triton's grouped GEMM
reads) may point into memory the kernel was not given: an access through such a pointer is not
checked, and in a kernel that makes them, neither is one whose pointer cannot be traced back to the
arguments through pointer arithmetic alone (a pointer carried by a loop, say).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from tilec.dialects import tile

from .base import defining_op, ops_in_order
from .lowering_common import segments

# ops through which a pointer keeps coming from the same arguments
_PASS_THROUGH = (
    "tile.addptr",
    "tile.splat",
    "tile.broadcast",
    "tile.expand_dims",
    "tile.reshape",
    "tile.trans",
    "tile.convert_layout",
    "arith.select",
)
ACCESSES = ("tile.load", "tile.store", "tile.atomic_rmw", "tile.atomic_cas")


def pointer_arguments(fn: ir.Operation) -> list[ir.Value]:
    return [a for a in fn.regions[0].blocks[0].arguments if tile.is_ptr(a.type)]


def has_accesses(fn: ir.Operation) -> bool:
    return any(op.name in ACCESSES for op in ops_in_order(fn))


def guard_accesses(fn: ir.Operation, ranges: list, scratch: ir.Value | None) -> None:
    """Checks every access of `fn` traceable to its pointer arguments against `ranges` ((lo, hi) i64
    values, one pair per pointer argument)."""
    ops = ops_in_order(fn)
    # Without a pointer from elsewhere, every pointer in the kernel comes from its arguments.
    foreign = any(_makes_pointers(op) for op in ops)
    for op in ops:
        if op.name not in ACCESSES:
            continue
        ptr = op.operands[0]
        if foreign and not _from_arguments(ptr):
            continue
        _guard(op, ptr, ranges, scratch)


def _makes_pointers(op: ir.Operation) -> bool:
    """Whether `op` makes pointers that need not point into the kernel's arguments."""
    results = [r for r in op.results if tile.is_ptr(tile.element_of(r.type))]
    if not results:
        return False
    if op.name == "tile.ptr_cast":
        return not tile.is_ptr(tile.element_of(op.operands[0].type))
    return op.name not in _PASS_THROUGH and not op.name.startswith("scf.")


def _from_arguments(value: ir.Value) -> bool:
    """Whether `value` provably derives from the function's pointer arguments alone."""
    op = defining_op(value)
    if op is None:
        owner = value.owner
        parent = owner.owner if isinstance(owner, ir.Block) else None
        return parent is not None and parent.operation.name == "func.func"
    if op.name == "tile.ptr_cast":
        return tile.is_ptr(tile.element_of(op.operands[0].type)) and _from_arguments(op.operands[0])
    if op.name not in _PASS_THROUGH:
        return False
    pointers = [v for v in op.operands if tile.is_ptr(tile.element_of(v.type))]
    return all(_from_arguments(v) for v in pointers)


def _i32(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), value).result


def _bytes(element: ir.Type) -> int:
    if tile.is_ptr(element):
        return 8
    width = element.width if hasattr(element, "width") else ir.IntegerType(element).width
    return max(1, width // 8)


def _splat(value: ir.Value, shape) -> ir.Value:
    return tile.splat(value, shape) if shape else value


def _guard(op: ir.Operation, ptr: ir.Value, ranges, scratch: ir.Value | None) -> None:
    i1, i64 = ir.IntegerType.get_signless(1), ir.IntegerType.get_signless(64)
    shape = tile.shape_of(ptr.type)
    pointee = tile.pointee_type(tile.element_of(ptr.type))
    size = _bytes(pointee)
    what = {"tile.load": "load", "tile.store": "store"}.get(op.name, "atomic operation")
    seg = segments(op)
    mask = seg["mask"][0] if seg.get("mask") else None
    with op.location, ir.InsertionPoint(op):
        addr = tile.ptr_cast(ptr, tile.with_shape(i64, shape))
        end = arith.addi(addr, _splat(arith.ConstantOp(i64, size).result, shape))
        inside = None
        for lo, hi in ranges:
            here = arith.andi(
                arith.cmpi(arith.CmpIPredicate.uge, addr, _splat(lo, shape)),
                arith.cmpi(arith.CmpIPredicate.ule, end, _splat(hi, shape)),
            )
            inside = here if inside is None else arith.ori(inside, here)
        if mask is None:
            ok = inside
        else:
            true = arith.ConstantOp(tile.with_shape(i1, shape), _bool_attr(shape, True)).result
            ok = arith.ori(arith.xori(mask, true), inside)
        tile.assert_(
            ok,
            f"out-of-bounds {what} of {size} byte(s): not inside any array passed to the kernel "
            "(is a mask missing?)",
        )
        if op.name == "tile.atomic_cas":  # no mask: the swap goes to the scratch word instead
            if scratch is None:
                return
            elsewhere = _splat(tile.ptr_cast(scratch, tile.element_of(ptr.type)), shape)
            op.operands[0] = arith.select(inside, ptr, elsewhere)
            return
        guarded = inside if mask is None else arith.andi(mask, inside)
    _set_mask(op, guarded)


def _bool_attr(shape, value: bool) -> ir.Attribute:
    i1 = ir.IntegerType.get_signless(1)
    attr = ir.IntegerAttr.get(i1, int(value))
    return ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get(shape, i1), attr) if shape else attr


def _set_mask(op: ir.Operation, mask: ir.Value) -> None:
    """Gives `op` the mask `mask`: in place of its mask, or (it had none) as a copy of the op with
    the mask segment filled."""
    seg = segments(op)
    if seg["mask"]:
        op.operands[list(op.operands).index(seg["mask"][0])] = mask
        return
    spec = tile.SPECS[op.name[len("tile.") :]]
    groups = [[mask] if o.name == "mask" else seg[o.name] for o in spec.operands]
    attrs = {name: op.attributes[name] for name in op.attributes}
    attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([len(g) for g in groups])
    new = ir.Operation.create(
        op.name,
        results=[r.type for r in op.results],
        operands=[v for g in groups for v in g],
        attributes=attrs,
        loc=op.location,
        ip=ir.InsertionPoint(op),
    )
    for old, replacement in zip(op.results, new.results):
        old.replace_all_uses_with(replacement)
    op.erase()
