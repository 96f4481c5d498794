"""tile-cpu-version-masks: a loop-free kernel whose loads and stores are masked runs an unmasked copy
of its body when every mask is all true (CPU).

On the CPU target a masked load or store must not touch the masked-off addresses: LLVM vectorizes
it with AVX's masked moves (vmaskmovps), which are slow on AMD's cores, the masked store above
all. A grid of `offs < n` blocks is full everywhere but at the end, so the kernel tests its masks
once and takes a copy of the body with the masks dropped, which LLVM vectorizes with plain moves:
the vector add goes from 16 to 26-30 GB/s on a 2-core AMD EPYC (NumPy: 23-25).

    %m = arith.cmpi slt, %offs, %n;  %x = tile.load(%p, %m, %zero);  tile.store(%q, %x, %m)
      =>  %m = ...;  %all = <every element of %m is true>
          scf.if %all { %x = tile.load(%p);  tile.store(%q, %x) }
          else { %x = tile.load(%p, %m, %zero);  tile.store(%q, %x, %m) }

Only the masks of the loads and stores at the kernel's top level count, when they are computed by
pure ops from the arguments and the program id (not from loaded values). Kernels with loops are left
alone: the copy would double their code for an epilogue's stores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, scf

from tilec.dialects import tile

from .base import TilePass, defining_op, ops_named
from .hoist_loads import is_pure
from .lowering_common import segments, without_mask

LOOPS = ("scf.for", "scf.while")
_COMBINERS = ("tile.reduce", "tile.scan")  # regions that only combine their own arguments


@dataclass(frozen=True)
class CpuVersionMasksPass(TilePass):
    """Run an unmasked copy of a loop-free kernel's body when all its load/store masks are true."""

    name: ClassVar[str] = "tile-cpu-version-masks"

    def run(self, module: ir.Module) -> None:
        for fn in ops_named(module.operation, "func.func"):
            if "tile.kernel" in fn.attributes:
                _version(fn)


def _version(fn: ir.Operation) -> None:
    block = fn.regions[0].blocks[0]
    ops = [op.operation for op in block.operations]
    if any(ops_named(fn, name) for name in LOOPS):
        return
    if any(op.regions and op.name not in _COMBINERS for op in ops):
        return
    positions = {op: i for i, op in enumerate(ops)}
    masked, slice_ops = [], set()
    for op in ops:
        if op.name not in ("tile.load", "tile.store") or not segments(op)["mask"]:
            continue
        if "volatile" in op.attributes or segments(op).get("coords"):
            continue
        found = _pure_slice(segments(op)["mask"][0], positions, set())
        if found is not None:
            masked.append(op)
            slice_ops |= found
    if not masked:
        return
    # The masks' computation first (pure, it depends on nothing else in the body), then the test.
    first = hoist_slice(ops, slice_ops, positions)
    with fn.location, ir.InsertionPoint(first):
        everywhere = None
        for mask in dict.fromkeys(segments(op)["mask"][0] for op in masked):
            true = all_true(mask)
            everywhere = true if everywhere is None else arith.andi(everywhere, true)
        branch = scf.IfOp(everywhere, [], has_else=True)
    split_body(branch, ops, slice_ops, lambda op, mapping: _clone_unmasked(op, mapping, op in masked))


def hoist_slice(ops: list, slice_ops: set, positions: dict) -> ir.Operation:
    """Moves the slice's ops, in order, before the body's first other op; returns that op (where
    the version test goes)."""
    first = next(op for op in ops if op not in slice_ops)
    for op in sorted(slice_ops, key=positions.get):
        op.move_before(first)
    return first


def split_body(branch, ops: list, slice_ops: set, clone) -> dict:
    """The body's other ops (its terminator aside) into `branch`'s else block as they are, and into
    its then block through `clone(op, mapping)`, which makes the fast version of each. What the
    terminator returns (a loop body's yield) each block yields, and the terminator then returns the
    branch's results (`branch` was made with their types). Returns the mapping (a value of the body
    -> its value in the then block)."""
    *body, terminator = ops
    rest = [op for op in body if op not in slice_ops]
    for op in rest:
        branch.else_block.append(op)
    mapping: dict = {}
    returned = list(terminator.operands)
    with ir.InsertionPoint(branch.then_block):
        for op in rest:
            clone(op, mapping)
        scf.YieldOp([mapping.get(v, v) for v in returned])
    with ir.InsertionPoint(branch.else_block):
        scf.YieldOp(returned)
    for i, result in enumerate(branch.results):
        terminator.operands[i] = result
    return mapping


def _pure_slice(value: ir.Value, positions: dict, seen: set, outside: frozenset = frozenset()) -> set | None:
    """The body's ops computing `value`, when all are pure and read no memory; else None. Values of
    the blocks `outside` (those enclosing the body) are taken as they are, as kernel arguments."""
    op = defining_op(value)
    if op is None or op.block in outside:
        return seen  # a kernel argument, or a value the body reads from around it
    if op in seen:
        return seen
    if op not in positions or op.regions or not is_pure(op):
        return None
    seen.add(op)
    for v in op.operands:
        if _pure_slice(v, positions, seen, outside) is None:
            return None
    return seen


def all_true(mask: ir.Value) -> ir.Value:
    """i1: every element of the boolean tile `mask` is true (a scalar mask is itself): from the
    bounds of what it compares where it can (`offs < n`: the last offset below n), else reduced."""
    shape = tile.shape_of(mask.type)
    if not shape:
        return mask
    found = _from_bounds(mask)
    if found is not None:
        return found
    i32 = ir.IntegerType.get_signless(32)
    value = arith.extui(tile.with_shape(i32, shape), mask)
    for _ in shape:
        value = tile.reduce([value], 0, lambda args: [arith.minui(args[0], args[1])])[0]
    return arith.cmpi(arith.CmpIPredicate.ne, value, arith.ConstantOp(i32, 0).result)


def _clone_unmasked(op: ir.Operation, mapping: dict, drop_mask: bool) -> None:
    if drop_mask:
        new = without_mask(op, lambda v: mapping.get(v, v))  # created at the insertion point
    else:
        new = op.clone()
        for i, v in enumerate(list(op.operands)):
            new.operands[i] = mapping.get(v, v)
    for old, r in zip(op.results, new.results):
        mapping[old] = r


_BOUND_PREDICATES = {2: "slt", 3: "sle", 4: "sgt", 5: "sge"}  # arith.cmpi's numbering
_EXACT = 1 << 62  # bounds computed in i64 stay exact below this magnitude


def _from_bounds(mask: ir.Value) -> ir.Value | None:
    """i1 from the masks' bounds: `x < y` holds everywhere when max(x) < min(y) (x <= y, x > y,
    x >= y alike), `a & b` when both do; None for other masks. The bounds are exact 64-bit values
    of what the i32 or i64 tiles compute, and the test also asks that every i32 value they were
    computed from lies within i32: an offset that wraps around makes it false (the masked body
    runs), never wrongly true."""
    op = defining_op(mask)
    if op is None:
        return None
    if op.name in ("tile.broadcast", "tile.expand_dims"):
        return _from_bounds(op.operands[0])
    if op.name == "arith.andi":
        a, b = (_from_bounds(v) for v in op.operands)
        return None if a is None or b is None else arith.andi(a, b)
    if op.name != "arith.cmpi":
        return None
    predicate = _BOUND_PREDICATES.get(ir.IntegerAttr(op.attributes["predicate"]).value)
    element = tile.element_of(op.operands[0].type)
    if predicate is None or element not in (_int(32), _int(64)):
        return None
    x, y = (_bounds(v) for v in op.operands)
    if x is None or y is None:
        return None
    test = getattr(arith.CmpIPredicate, predicate)
    holds = arith.cmpi(test, x[1], y[0]) if predicate in ("slt", "sle") else arith.cmpi(test, x[0], y[1])
    for bound in (x, y):
        holds = arith.andi(holds, bound[3]) if bound[3] is not None else holds
        if element == _int(32):
            holds = arith.andi(holds, _within_i32(bound))
    return holds


def _int(width: int) -> ir.Type:
    return ir.IntegerType.get_signless(width)


def _within_i32(bound) -> ir.Value:
    i64 = _int(64)
    low, high = arith.ConstantOp(i64, -(1 << 31)).result, arith.ConstantOp(i64, (1 << 31) - 1).result
    return arith.andi(
        arith.cmpi(arith.CmpIPredicate.sge, bound[0], low),
        arith.cmpi(arith.CmpIPredicate.sle, bound[1], high),
    )


def _both(a, b):
    return b if a is None else a if b is None else arith.andi(a, b)


def _bounds(value: ir.Value):
    """(min, max, a bound on their magnitude, i1 that must hold or None) of an i32 or i64 tile as
    exact i64 scalars, for tiles built from ranges, splats (of i32 scalars, or of i64 ones widened
    from i32) and constants by additions, multiplications by constants >= 0 and sign extension
    from i32 (whose i32 values must then lie within i32: the i1); None for others."""
    i64 = _int(64)
    constant = tile.splat_constant(value)
    if constant is not None:
        v = ir.IntegerAttr(constant).value
        c = arith.ConstantOp(i64, v).result
        return c, c, abs(v), None
    op = defining_op(value)
    if op is None:
        return None
    found = None
    if op.name == "tile.make_range":
        lo, hi = (ir.IntegerAttr(op.attributes[k]).value for k in ("start", "end"))
        lo_c, hi_c = arith.ConstantOp(i64, lo).result, arith.ConstantOp(i64, hi - 1).result
        found = lo_c, hi_c, max(abs(lo), abs(hi)), None
    elif op.name == "tile.splat":
        scalar = op.operands[0]
        if scalar.type == _int(32):
            wide = arith.extsi(i64, scalar)
            found = wide, wide, 1 << 31, None
        elif scalar.type == i64:
            source = defining_op(scalar)
            if source is not None and source.name == "arith.extsi" and source.operands[0].type == _int(32):
                found = scalar, scalar, 1 << 31, None
    elif op.name == "arith.extsi" and tile.element_of(op.operands[0].type) == _int(32):
        inner = _bounds(op.operands[0])
        if inner is not None:
            found = inner[0], inner[1], inner[2], _both(inner[3], _within_i32(inner))
    elif op.name in ("tile.broadcast", "tile.expand_dims"):
        found = _bounds(op.operands[0])
    elif op.name == "arith.addi":
        a, b = (_bounds(v) for v in op.operands)
        if a is not None and b is not None:
            found = arith.addi(a[0], b[0]), arith.addi(a[1], b[1]), a[2] + b[2], _both(a[3], b[3])
    elif op.name == "arith.muli":
        for term, factor in (tuple(op.operands), tuple(op.operands)[::-1]):
            c = tile.splat_constant(factor)
            if c is not None and ir.IntegerAttr(c).value >= 0:
                a = _bounds(term)
                if a is not None:
                    k = ir.IntegerAttr(c).value
                    scale = arith.ConstantOp(i64, k).result
                    found = arith.muli(a[0], scale), arith.muli(a[1], scale), a[2] * k, a[3]
                break
    return found if found is not None and found[2] < _EXACT else None
