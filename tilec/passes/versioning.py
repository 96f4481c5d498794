"""Loop-body versioning: the pieces the passes that run a fast copy of a body under a runtime test
share (tile-cpu-version-masks, tile-cpu-version-remainders, tile-pointer-tensor-copies).

A pure slice is the ops of a body that compute a value from its arguments without reading memory;
hoisted before the body, it feeds a test (`all_true` of a mask, `remainder_is_identity` of a wrap,
both from the exact i64 `bounds` of index tiles), and `split_body` puts the body in the two
branches of an scf.if: the fast copy made by a `clone` callback, the original as it was.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, scf

from tilec.analysis.affine_tiles import wrapped_value
from tilec.dialects import tile

from .base import defining_op, ops_in_order
from .hoist_loads import is_pure

LOOPS = ("scf.for", "scf.while")


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


def pure_slice(value: ir.Value, positions: dict, seen: set, outside: frozenset = frozenset()) -> set | None:
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
        if pure_slice(v, positions, seen, outside) is None:
            return None
    return seen


def all_true(mask: ir.Value) -> ir.Value:
    """i1: every element of the boolean tile `mask` is true (a scalar mask is itself): from the
    bounds of what it compares where it can (`offs < n`: the last offset below n), else reduced."""
    shape = tile.shape_of(mask.type)
    if not shape:
        return mask
    found = from_bounds(mask)
    if found is not None:
        return found
    i32 = ir.IntegerType.get_signless(32)
    value = arith.extui(tile.with_shape(i32, shape), mask)
    for _ in shape:
        value = tile.reduce([value], 0, lambda args: [arith.minui(args[0], args[1])])[0]
    return arith.cmpi(arith.CmpIPredicate.ne, value, arith.ConstantOp(i32, 0).result)


_BOUND_PREDICATES = {2: "slt", 3: "sle", 4: "sgt", 5: "sge"}  # arith.cmpi's numbering


_EXACT = 1 << 62  # bounds computed in i64 stay exact below this magnitude


def from_bounds(mask: ir.Value) -> ir.Value | None:
    """i1 from the masks' bounds: `x < y` holds everywhere when max(x) < min(y) (x <= y, x > y,
    x >= y alike), `a & b` when both do; None for other masks. The bounds are exact 64-bit values
    of what the i32 or i64 tiles compute, and the test also asks that every i32 value they were
    computed from lies within i32: an offset that wraps around makes it false (the masked body
    runs), never wrongly true."""
    op = defining_op(mask)
    if op is None:
        return None
    if op.name in ("tile.broadcast", "tile.expand_dims"):
        return from_bounds(op.operands[0])
    if op.name == "arith.andi":
        a, b = (from_bounds(v) for v in op.operands)
        return None if a is None or b is None else arith.andi(a, b)
    if op.name != "arith.cmpi":
        return None
    predicate = _BOUND_PREDICATES.get(ir.IntegerAttr(op.attributes["predicate"]).value)
    element = tile.element_of(op.operands[0].type)
    if predicate is None or element not in (_int(32), _int(64)):
        return None
    x, y = (index_bounds(v) for v in op.operands)
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


def index_bounds(value: ir.Value):
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
        inner = index_bounds(op.operands[0])
        if inner is not None:
            found = inner[0], inner[1], inner[2], _both(inner[3], _within_i32(inner))
    elif op.name in ("tile.broadcast", "tile.expand_dims"):
        found = index_bounds(op.operands[0])
    elif op.name == "arith.addi":
        a, b = (index_bounds(v) for v in op.operands)
        if a is not None and b is not None:
            found = arith.addi(a[0], b[0]), arith.addi(a[1], b[1]), a[2] + b[2], _both(a[3], b[3])
    elif op.name == "arith.muli":
        for term, factor in (tuple(op.operands), tuple(op.operands)[::-1]):
            c = tile.splat_constant(factor)
            if c is not None and ir.IntegerAttr(c).value >= 0:
                a = index_bounds(term)
                if a is not None:
                    k = ir.IntegerAttr(c).value
                    scale = arith.ConstantOp(i64, k).result
                    found = arith.muli(a[0], scale), arith.muli(a[1], scale), a[2] * k, a[3]
                break
    return found if found is not None and found[2] < _EXACT else None


def remainder_is_identity(op: ir.Operation) -> ir.Value | None:
    """At the insertion point: i1, the wrap `op` (`x % M`, or `where(x < M, x, c)`, of an i32 or i64
    tile: wrapped_value) is x for every element (`0 <= min(x)` and `max(x) < M`), from x's
    bounds; None when x has none."""
    i64 = ir.IntegerType.get_signless(64)
    x, bound = wrapped_value(op)
    bounds = index_bounds(x)  # (exact i64 bounds of i32 tiles, and of i64 ones widened from i32 values)
    if bounds is None or tile.element_of(x.type) not in (ir.IntegerType.get_signless(32), i64):
        return None
    modulus = bound if bound.type == i64 else arith.extsi(i64, bound)
    zero = arith.ConstantOp(i64, 0).result
    holds = arith.andi(
        arith.cmpi(arith.CmpIPredicate.sge, bounds[0], zero),
        arith.cmpi(arith.CmpIPredicate.slt, bounds[1], modulus),
    )
    if bounds[3] is not None:  # i32 values it was widened from lie within i32
        holds = arith.andi(holds, bounds[3])
    return holds


def without_remainders(wrapped: list):
    """split_body's `clone` for the copy where the wraps `wrapped` are the identity."""

    def clone(op, mapping):
        if op in wrapped:  # `x % M` (or `where(x < M, x, c)`) is x here
            x = wrapped_value(op)[0]
            mapping[op.results[0]] = mapping.get(x, x)
        else:
            clone_mapped(op, mapping)

    return clone


def scalar_part(slice_ops: set) -> set | None:
    """The ops of a pure slice that compute scalars, when none of them reads a tile of the slice."""
    scalars = {op for op in slice_ops if not any(tile.shape_of(r.type) for r in op.results)}
    for op in scalars:
        for v in op.operands:
            producer = defining_op(v)
            if producer is not None and producer in slice_ops and producer not in scalars:
                return None
    return scalars


def clone_mapped(op: ir.Operation, mapping: dict) -> None:
    """Clones `op` (with its regions) at the insertion point, its operands and those of the ops
    nested in it read through `mapping`; records the clone's results in `mapping`."""
    new = op.clone()
    for nested in ops_in_order(new):
        for i, v in enumerate(list(nested.operands)):
            if v in mapping:
                nested.operands[i] = mapping[v]
    for old, r in zip(op.results, new.results):
        mapping[old] = r
