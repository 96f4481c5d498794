"""tile-cpu-check-bounds: with `debug`, every memory access of a CPU kernel is checked against the
arrays passed to it; an access outside all of them is skipped and reported, never a crash.

On a GPU an access past the end of an array mostly lands in memory the allocator rounded up to and
goes unnoticed; on the host it can land in malloc's bookkeeping, and the process aborts later, far
from the kernel. In debug mode (`debug=True`, TILEC_DEBUG=1) the CPU target therefore checks each
address the way the interpreter does. The launcher passes the byte range each pointer argument spans
(strides included) in the status block that device assertions already report through (tile-cpu-grid's
`status` argument):

    word 0      status: the number of the first failed assertion (an i32 in the low half)
    word 1      scratch: where an out-of-bounds compare-and-swap goes instead
    words 2+2j  [lo, hi) of pointer argument j (in parameter order)

Each access then becomes

    %inb = OR_j (lo_j <= addr) & (addr + size <= hi_j)      per element
    tile.assert (!mask | %inb), "out-of-bounds load of 4 byte(s) ..."   (at the access's location)
    tile.load %ptr, (mask & %inb), other                       (a compare-and-swap: its pointer
                                                                 replaced by the scratch word)

Pointers made from integers or read from memory (a table of addresses, as Triton's grouped GEMM
reads) may point into memory the kernel was not given: an access through such a pointer is not
checked, and in a kernel that makes them, neither is one whose pointer cannot be traced back to the
arguments through pointer arithmetic alone (a pointer carried by a loop, say). Runs after
tile-cpu-grid (it needs the status argument), only when debug is on; without it the CPU target
accesses memory as C does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith

from tilec.dialects import tile

from .base import PassError, TilePass, defining_op, ops_in_order
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
_ACCESSES = ("tile.load", "tile.store", "tile.atomic_rmw", "tile.atomic_cas")
SCRATCH_WORD = 1
FIRST_RANGE_WORD = 2


@dataclass(frozen=True)
class CpuCheckBoundsPass(TilePass):
    """Check every load, store and atomic of a CPU kernel against the arrays passed to it (debug)."""

    name: ClassVar[str] = "tile-cpu-check-bounds"

    def run(self, module: ir.Module) -> None:
        for fn in module.body.operations:
            fn = fn.operation
            if fn.name != "func.func":
                continue
            if "tile.kernel" in fn.attributes and "tile.grid_entry" not in fn.attributes:
                raise PassError(
                    "tile-cpu-check-bounds needs tile-cpu-grid to run first (it reports through its status argument)",
                    fn,
                )
            if "tile.status_arg" in fn.attributes:
                _check_function(fn)


def _check_function(fn: ir.Operation) -> None:
    args = list(fn.regions[0].blocks[0].arguments)
    status = args[ir.IntegerAttr(fn.attributes["tile.status_arg"]).value]
    pointer_args = [a for a in args if tile.is_ptr(a.type)]
    ops = ops_in_order(fn)
    accesses = [op for op in ops if op.name in _ACCESSES]
    if not pointer_args or not accesses:
        return
    # Without a pointer from elsewhere, every pointer in the kernel comes from its arguments.
    foreign = any(_makes_pointers(op) for op in ops)
    i64 = ir.IntegerType.get_signless(64)
    entry = fn.regions[0].blocks[0]
    with fn.location, ir.InsertionPoint.at_block_begin(entry):
        words = tile.ptr_cast(status, tile.ptr_type(i64))
        ranges = []
        for j in range(len(pointer_args)):
            lo = tile.load(tile.addptr(words, _i32(FIRST_RANGE_WORD + 2 * j)))
            hi = tile.load(tile.addptr(words, _i32(FIRST_RANGE_WORD + 2 * j + 1)))
            ranges.append((lo, hi))
        scratch = tile.addptr(words, _i32(SCRATCH_WORD))
    for op in accesses:
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


def _guard(op: ir.Operation, ptr: ir.Value, ranges, scratch: ir.Value) -> None:
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
