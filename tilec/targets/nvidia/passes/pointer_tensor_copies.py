"""tile-pointer-tensor-copies: pointer loads of a 2-D array's blocks that feed warpgroup MMAs carry
the array and their coordinates, so that their rings may be filled by tensor copies (sm_90a).

A tensor copy reads the box at coordinates (r, c) of an array of [rows, cols] elements, rows
`row_stride` apart, and fills zeros outside it; a pointer tile.load reads what its addresses say
where its mask is true and `other` elsewhere. The two read the same when (tilec.analysis.affine_tiles
proves it from the IR):
  - element [i, j]'s address is base + (r + i) * row_stride + (c + j), base a pointer argument
    known 16-byte aligned, row_stride an argument divisible by 16 or a constant of 16-byte rows;
  - `other` is zero (or there is no mask);
  - along each dimension either the mask is `x0 + index < bound` and `bound - x0 + coordinate` is an
    expression of arguments and constants (the extent: K for `offs_k < K - k * BK` at c = k * BK),
    or the offsets are `x % M` or `where(x < M, x, 0)`, unmasked, and that wrap is the identity
    (extent M), or the
    dimension is unmasked and walked by the loop (`for k in range(0, ub)`, coordinate c0 + d * k:
    the extent is one past the last element read, c0 + d * ub - d + size, so that nothing is
    zero-filled: an EVEN_K kernel's K);
  - the coordinates are >= 0 where elements are read, and the extents >= 1 (tensor_maps.py encodes
    an empty dimension as one element).
Some of these hold only at run time: the remainders are the identity for every program but the
last along their axis (Triton's matmul tutorial: `offs_m = (pid_m * BM + arange(BM)) % M`), the
extents are positive, a coordinate may be >= 0. The kernel tests them once and runs a copy of its
body in which the loads carry their array (`descriptor`: dialects/kernel_arrays.py's text) and
coordinates (`coords`), and the remainders are gone; the other copy is the body as it was (its rings
filled by cp.async). The two copies' rings share shared memory (convert-tile-to-gpu's `lower_if`).

    %w = arith.remsi %x, (tile.splat %M); ...
    scf.for %k ... { %a = tile.load(%ap, %mask, %zero) ... }
      =>  scf.if (0 <= min(x) && max(x) < M && K >= 1) {
            ... scf.for %k ... { %a = tile.load(%ap, %mask, %zero, %row, %col)
                                   {descriptor = "array base=a_ptr rows=M cols=K row_stride=stride_am"} }
          } else { ...the body as it was... }

A B whose K is contiguous (`x @ W.T`: address base + (c + i) + (r + j) * row_stride) is the
transpose of the box at (r, c) of W [N, K]: the raised copy loads that box (its pointers, mask and
zero `other` made from the box, so that it reads the same where tensor copies do not take it) and
a tile.trans gives the tile, as `tl.dot(a, w_tile.T)` through a descriptor does. A 16-bit A whose M
is contiguous (`x.T @ dy`, X [K, M]) likewise: the box of X, then a tile.trans, which the ring
streams M-major (cp_async.peel, wgmma.Staging's `a_m_major`).

The loops of the kernel's top level count; where none of them is raised, the loops in their bodies
(a persistent kernel's tile loop: the test and the two copies go inside it, once per tile, and what
the tile loop carries both copies yield). The run-time facts must be computed by pure ops from the
arguments, the program id and the values around the versioned block. Loads whose array an argument
descriptor or a block pointer already names are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, scf

from tilec.analysis.affine_tiles import (
    ITER,
    AffineTiles,
    as_constant,
    constant,
    enclosing_blocks,
    poly_add,
    poly_mul,
)
from tilec.analysis.axis_info import AxisAnalysis
from tilec.dialects import contract, tile
from tilec.dialects.kernel_arguments import argument_expression, argument_name
from tilec.dialects.kernel_arrays import format_array
from tilec.passes.base import TilePass, defining_op, ops_named
from tilec.passes.lowering_common import segments
from tilec.passes.versioning import (
    hoist_slice,
    pure_slice,
    remainder_is_identity,
    scalar_part,
    split_body,
    without_remainders,
)
from tilec.targets.nvidia.lowering import cp_async, wgmma, wgmma_swapped

_TAG = "tile.pointer_copy"  # marks a planned load while the body is copied (removed after)
_NONNEGATIVE_ATOMS = ("tile.program_id", "tile.num_programs")


@dataclass(frozen=True)
class PointerTensorCopiesPass(TilePass):
    """Pointer loads of 2-D blocks feeding warpgroup MMAs carry their array and coordinates (sm_90a)."""

    name: ClassVar[str] = "tile-pointer-tensor-copies"
    num_warps: int = 4  # what the warpgroup-MMA lowering will have

    def run(self, module: ir.Module) -> None:
        for fn in contract.kernels(module):
            _raise_loads(fn, fn.regions[0].blocks[0], self.num_warps)


@dataclass
class _Plan:
    """How one load reads its array: coordinates and extents as polynomials (affine_tiles)."""

    load: ir.Operation
    tiles: AffineTiles
    coords: tuple  # (row, col), polynomials of ITER and top-level values
    extents: tuple  # (rows, cols), polynomials of arguments
    base: str
    row_stride: str | int
    nonnegative: list  # coordinates to test at run time (no ITER)
    transposed: bool = False  # the tile is the transpose of the box (a column-major A or B)
    base_value: ir.Value | None = None  # the pointer argument
    row_stride_poly: dict | None = None  # the row stride as a polynomial of arguments
    facts_slice: set | None = None  # the block's scalar ops its run-time tests read (None: impure)

    def atoms_of(self, polys) -> set:
        return {self.tiles.atoms[a] for p in polys for m in p for a in m if a != ITER}


def _raise_loads(fn: ir.Operation, block: ir.Block, num_warps: int) -> None:
    """Versions `block` (the kernel's body, or a loop's: a persistent kernel's tile loop) for the
    dots of the loops in it; where none is raised there, looks into those loops' bodies."""
    ops = [op.operation for op in block.operations]
    positions = {op: i for i, op in enumerate(ops)}
    outside = enclosing_blocks(block.owner.operation, fn) if block.owner.operation != fn else frozenset()
    axis = AxisAnalysis()
    dots = []  # the plans of each dot's loads
    loops = [op for op in ops if op.name == "scf.for"]
    for loop in loops:
        for loads in _dot_operand_loads(loop, num_warps, axis):
            # A ring goes by tensor copies only when all its streams do (cp_async.Ring.tma): a copy
            # of the body for some of a dot's loads would stream them by cp.async as before.
            found = [
                _plan(fn, loop, load, layouts) if "descriptor" not in load.attributes else None
                for load, layouts in loads
            ]
            for plan in found:
                if plan is not None:
                    plan.facts_slice = _facts_slice(plan, positions, outside)
            found = [plan for plan in found if plan is not None and plan.facts_slice is not None]
            if len(found) == len(loads):
                dots.append(found)
    if not (dots and _version(block, ops, positions, dots)):
        for loop in loops:
            _raise_loads(fn, loop.regions[0].blocks[0], num_warps)


def _version(block: ir.Block, ops: list, positions: dict, dots: list) -> bool:
    """Runs the dots' loads by tensor copies in a copy of the block's ops taken when the run-time
    facts hold; False when no dot's facts can be tested (nothing changed but hoisting)."""
    slice_ops = set().union(*(plan.facts_slice for plans in dots for plan in plans))
    first = hoist_slice(ops, slice_ops, positions)
    with first.location, ir.InsertionPoint(first):
        wrapped, facts = {}, []
        for rem in dict.fromkeys(r for plans in dots for plan in plans for r in plan.tiles.remainders):
            wrapped[rem] = remainder_is_identity(rem)
        # (a dot whose remainders have no bounds to test keeps all its loads as they are)
        plans = [
            plan
            for group in dots
            if all(wrapped[r] is not None for plan in group for r in plan.tiles.remainders)
            for plan in group
        ]
        tested = set()  # the extents already tested, as kernel_arrays' text
        for plan in plans:
            facts += [wrapped[r] for r in plan.tiles.remainders]
            for extent in plan.extents:
                text = str(_expression(plan, extent))
                if text not in tested:
                    tested.add(text)
                    facts.append(_at_least(plan, extent, 1))
            facts += [_at_least(plan, coord, 0) for coord in plan.nonnegative]
        if not plans:
            return False  # (the tests' dead arithmetic goes with canonicalization)
        holds = facts[0]
        for fact in dict.fromkeys(facts[1:]):
            holds = arith.andi(holds, fact)
        results = [v.type for v in ops[-1].operands]  # what a loop body yields
        branch = scf.IfOp(holds, results, has_else=True)
    for i, plan in enumerate(plans):
        plan.load.attributes[_TAG] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), i)
    removed = [
        r for r, fact in wrapped.items() if fact is not None and any(r in p.tiles.remainders for p in plans)
    ]
    mapping = split_body(branch, ops, slice_ops, without_remainders(removed))
    for op in branch.else_block.operations:
        for load in ops_named(op.operation, "tile.load"):
            if _TAG in load.attributes:
                del load.attributes[_TAG]
    for op in branch.then_block.operations:
        for load in ops_named(op.operation, "tile.load"):
            if _TAG in load.attributes:
                plan = plans[ir.IntegerAttr(load.attributes[_TAG]).value]
                _attach(plan, load, mapping)
    return True


# The layouts a dot operand's load may have in memory: row-major (the box as it is) or column-major
# (the transpose of a row-major box: a B whose K is contiguous, `x @ W.T`, or an A whose M is,
# `x.T @ dy`).
ROW_MAJOR, COLUMN_MAJOR = "row-major", "column-major"


def _dot_operand_loads(loop: ir.Operation, num_warps: int, axis) -> list:
    """For each warpgroup-MMA dot in the loop's body whose B is loaded there as a tile a ring may
    stream (pipeline_loads._streamable, without the width cp.async needs: a tensor copy needs none):
    its operands' loads, A's (if loaded there) first, each with the layouts it may be read in. A
    row-major (K-major), or column-major when it is 16-bit (the copy then goes through a
    tile.trans: M-major); B row-major when it is 16-bit (read N-major) or goes through tl.trans
    (then K-major), column-major when it does not (the copy then goes through a tile.trans:
    K-major). (A dot gets a ring only when its B streams; an A that is not loaded in the loop goes
    from registers.)"""
    found = []
    for op in loop.regions[0].blocks[0].operations:
        dot = op.operation
        if dot.name != "tile.dot":
            continue
        kind = wgmma.wgmma_kind(dot, num_warps)
        if kind is None or wgmma.promoted_group(dot, kind):
            continue
        # a transposed tf32 dot (wgmma_swapped.py) streams both operands as they lie: row-major
        swapped = wgmma_swapped.applies(dot, num_warps, axis)
        loads = {}
        for index in (0, 1):
            peeled = cp_async.peel(dot, index)
            if peeled is None or isinstance(peeled[0].owner, ir.Block):
                continue
            value, transposed = peeled
            load = defining_op(value)
            if load.name != "tile.load" or load.parent != loop:
                continue
            if swapped or transposed or (index == 0 and wgmma.element_bytes(kind) != 2):
                layouts = (ROW_MAJOR,)
            elif wgmma.element_bytes(kind) == 2:
                layouts = (ROW_MAJOR, COLUMN_MAJOR)
            else:
                layouts = (COLUMN_MAJOR,)
            loads[index] = (load, layouts)
        if 1 in loads:
            found.append(list(loads.values()))
    return found


def _plan(fn: ir.Operation, loop: ir.Operation, load: ir.Operation, layouts=(ROW_MAJOR,)) -> _Plan | None:
    seg = segments(load)
    shape = tile.shape_of(load.results[0].type)
    if (
        len(shape) != 2
        or seg.get("coords")
        or "volatile" in load.attributes
        or not cp_async.zero_filled(load)
    ):
        return None
    elem_bytes = _element_bytes(tile.element_of(load.results[0].type))
    tiles = AffineTiles(fn, loop, remainders=True)
    address = tiles.form(seg["ptr"][0])
    if elem_bytes is None or address is None or address.base is None:
        return None
    # the tile's dimension along the array's rows (the other one runs along its columns, step 1)
    if ROW_MAJOR in layouts and address.coefs[1] == constant(1):
        row_dim = 0
    elif COLUMN_MAJOR in layouts and address.coefs[0] == constant(1):
        row_dim = 1
    else:
        return None
    base = argument_name(address.base, aligned=True)
    row_stride = _row_stride(tiles, address.coefs[row_dim], elem_bytes)
    if base is None or row_stride is None:
        return None
    row, col = _split(address.const, address.coefs[row_dim])
    coords = (row, col) if row_dim == 0 else (col, row)  # along the tile's dimensions
    limits = tiles.limits(seg["mask"][0]) if seg["mask"] else {}
    if limits is None:
        return None
    extents, nonnegative = [], []
    for dim, coord in enumerate(coords):
        ranged = address.ranges.get(dim)
        checked = ranged is not None and ranged[0] == coord  # 0 <= coord by the remainder's test
        if dim in limits:
            extent = poly_add(limits[dim], coord)
        elif checked:
            extent = tiles.scalar(ranged[1])
        else:  # unmasked: the loop's walk along it, else no extent to encode
            extent = _walked_extent(tiles, loop, coord, shape[dim])
        if extent is None or not all(
            argument_expression(tiles.atoms[a]) is not None for m in extent for a in m if a != ITER
        ):
            return None
        if not tiles.top_level(extent):
            return None
        if not (checked or _nonnegative(tiles, coord)):
            if not tiles.top_level(coord):
                return None
            nonnegative.append(coord)
        extents.append(extent)
    if row_dim == 1:  # the array's rows run along the tile's columns
        coords, extents = coords[::-1], extents[::-1]
    return _Plan(load, tiles, tuple(coords), tuple(extents), base, row_stride, nonnegative, row_dim == 1,
                 address.base, address.coefs[row_dim])  # fmt: skip


def _facts_slice(plan: _Plan, positions: dict, outside: frozenset) -> set | None:
    """The block's scalar ops the plan's run-time tests read (hoisted before the test), or None
    when some are not pure."""
    found = set()
    for rem in plan.tiles.remainders:
        for v in rem.operands:
            if pure_slice(v, positions, found, outside) is None:
                return None
    for atom in plan.atoms_of([*plan.extents, *plan.nonnegative]):
        if pure_slice(atom, positions, found, outside) is None:
            return None
    return scalar_part(found)


def _split(offset: dict, row_stride: dict) -> tuple:
    """(row, col) with offset = row * row_stride + col: the monomials holding the row stride's atom
    (or, for a constant stride, a multiple of it) are the row's."""
    row, col = {}, {}
    stride = as_constant(row_stride)
    if stride is None:
        ((atom,),) = row_stride  # _row_stride made sure of one atom
        for m, c in offset.items():
            if atom in m:
                rest = list(m)
                rest.remove(atom)
                row[tuple(rest)] = c
            else:
                col[m] = c
    else:
        for m, c in offset.items():
            if c % stride == 0:
                row[m] = c // stride
            else:
                col[m] = c
    return row, col


def _row_stride(tiles: AffineTiles, coef: dict, elem_bytes: int):
    """The row stride of a row-major tile as an argument's name or an int, when tensor maps can
    use it (16-byte multiples), else None."""
    value = as_constant(coef)
    if value is not None:
        return value if value > 0 and value * elem_bytes % 16 == 0 else None
    if len(coef) != 1:
        return None
    ((monomial, c),) = coef.items()
    if c != 1 or len(monomial) != 1 or monomial[0] == ITER:
        return None
    return argument_name(tiles.atoms[monomial[0]], aligned=True)


def _nonnegative(tiles: AffineTiles, p: dict) -> bool:
    """`p` is >= 0 for every program and iteration: positive coefficients of ITER and program ids."""
    for m, c in p.items():
        if c < 0:
            return False
        for a in m:
            if a == ITER:
                continue
            op = defining_op(tiles.atoms[a])
            if op is None or op.name not in _NONNEGATIVE_ATOMS:
                return False
    return True


def _element_bytes(t: ir.Type) -> int | None:
    bits = {"f16": 16, "bf16": 16, "f32": 32, "i8": 8}.get(str(t))
    return None if bits is None else bits // 8


# -- building the tests and the copies ------------------------------------------------------------


def _at_least(plan: _Plan, p: dict, low: int) -> ir.Value:
    """i1 at the insertion point: the polynomial `p` (top-level values only) is >= low."""
    value = _materialize(plan, p, lambda v: v, None)
    low_value = arith.ConstantOp(value.type, low).result
    return arith.cmpi(arith.CmpIPredicate.sge, value, low_value)


def _materialize(
    plan: _Plan, p: dict, mapped, iteration: ir.Value | None, width: int | None = None
) -> ir.Value:
    """The polynomial `p` computed at the insertion point, atoms through `mapped`, ITER as
    `iteration`; in `width` bits (default: the widest atom's, at least 32)."""
    atoms = {a: mapped(plan.tiles.atoms[a]) for m in p for a in m if a != ITER}
    if width is None:
        width = max([32, *(_width(v.type) for v in atoms.values())])
    t = ir.IntegerType.get_signless(width)

    def cast(v):
        if isinstance(v.type, ir.IndexType):
            return arith.index_cast(t, v)
        w = _width(v.type)
        return v if w == width else arith.extsi(t, v) if w < width else arith.trunci(t, v)

    total = None
    for m, c in sorted(p.items()):
        factors = [cast(iteration if a == ITER else atoms[a]) for a in m]
        term = factors[0] if factors else arith.ConstantOp(t, c).result
        for factor in factors[1:]:
            term = arith.muli(term, factor)
        if factors and c != 1:
            term = arith.muli(term, arith.ConstantOp(t, c).result)
        total = term if total is None else arith.addi(total, term)
    return total if total is not None else arith.ConstantOp(t, 0).result


def _attach(plan: _Plan, load: ir.Operation, mapping: dict) -> None:
    """The copy of the plan's load in the then block gets its coordinates and array; a column-major
    tile becomes the transpose of a load of the row-major box (_box_operands)."""
    del load.attributes[_TAG]
    loop = load.parent
    with load.location, ir.InsertionPoint(load):
        iteration = _iteration(loop)
        mapped = lambda v: mapping.get(v, v)  # noqa: E731
        coords = [_materialize(plan, p, mapped, iteration, 32) for p in plan.coords]
        text = format_array(
            {"base": plan.base, "rows": _expression(plan, plan.extents[0]),
             "cols": _expression(plan, plan.extents[1]), "row_stride": plan.row_stride}
        )  # fmt: skip
        seg = segments(load)
        attrs = {name: load.attributes[name] for name in load.attributes}
        attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([1, len(seg["mask"]), len(seg["other"]), 2])
        attrs["descriptor"] = ir.StringAttr.get(text)
        operands = [*seg["ptr"], *seg["mask"], *seg["other"]]
        result_type = load.results[0].type
        if plan.transposed:
            result_type = tile.with_shape(tile.element_of(result_type), tile.shape_of(result_type)[::-1])
            operands = _box_operands(plan, coords, mapped, result_type)
            attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([1, 1, 1, 2])
        new = ir.Operation.create(
            "tile.load", results=[result_type], operands=[*operands, *coords], attributes=attrs
        ).results[0]
        if plan.transposed:
            new = tile.trans(new, [1, 0])
    load.results[0].replace_all_uses_with(new)
    load.erase()


def _box_operands(plan: _Plan, coords: list, mapped, box_type: ir.Type) -> list:
    """Pointers, mask and `other` (zero) of a pointer load of the box at `coords` ([rows, cols] as
    `box_type`): base + (r + i) * row_stride + (c + j) where r + i < rows and c + j < cols (the
    coordinates are >= 0 where the load runs). What a transposed plan's load reads wherever tensor
    copies do not take it; made anew rather than as transposes of the original tiles, which would
    be layout conversions through shared memory (pointers: 8 bytes an element)."""
    i64 = ir.IntegerType.get_signless(64)
    shape = tile.shape_of(box_type)
    wide = lambda v: arith.extsi(i64, v) if ir.IntegerType(v.type).width < 64 else v  # noqa: E731
    extents = [wide(_materialize(plan, p, mapped, None)) for p in plan.extents]
    stride = wide(_materialize(plan, plan.row_stride_poly, mapped, None))
    offsets, inside = None, None
    for dim, (coord, extent) in enumerate(zip(coords, extents)):
        index = arith.addi(tile.splat(wide(coord), [shape[dim]]), arith.extsi(
            tile.with_shape(i64, [shape[dim]]), tile.make_range(0, shape[dim])))  # fmt: skip
        index = tile.broadcast(tile.expand_dims(index, 1 - dim), shape)
        within = arith.cmpi(arith.CmpIPredicate.slt, index, tile.splat(extent, shape))
        if dim == 0:
            offsets, inside = arith.muli(index, tile.splat(stride, shape)), within
        else:
            offsets, inside = arith.addi(offsets, index), arith.andi(inside, within)
    pointers = tile.addptr(tile.splat(mapped(plan.base_value), shape), offsets)
    zero = ir.DenseElementsAttr.get_splat(box_type, _zero_attr(tile.element_of(box_type)))
    return [pointers, inside, arith.ConstantOp(box_type, zero).result]


def _zero_attr(element: ir.Type) -> ir.Attribute:
    if isinstance(element, ir.IntegerType):
        return ir.IntegerAttr.get(element, 0)
    return ir.FloatAttr.get(element, 0.0)


def _iteration(loop) -> ir.Value:
    """The loop's iteration number (i32) at the insertion point: (iv - lb) / step."""
    loop = loop.operation if hasattr(loop, "operation") else loop
    iv = loop.regions[0].blocks[0].arguments[0]
    lb, step = loop.operands[0], loop.operands[2]
    i32 = ir.IntegerType.get_signless(32)
    if _constant(lb) == 0 and _constant(step) == 1:
        value = iv
    else:
        value = arith.divsi(arith.subi(iv, lb), step)
    if isinstance(value.type, ir.IndexType):
        value = arith.index_cast(i32, value)
    elif value.type != i32:
        value = arith.trunci(i32, value) if _width(value.type) > 32 else arith.extsi(i32, value)
    return value


def _width(t: ir.Type) -> int:
    return 64 if isinstance(t, ir.IndexType) else ir.IntegerType(t).width


def _walked_extent(tiles: AffineTiles, loop: ir.Operation, coord: dict, size: int) -> dict | None:
    """The extent of an unmasked dimension that the loop walks (coordinate c0 + d * ITER, d > 0,
    `for k in range(0, ub)`): one past the last element the last iteration reads, c0 + d * ub -
    d + size, so that no element the loads read lies outside it (nothing is zero-filled)."""
    if _constant(loop.operands[0]) != 0 or _constant(loop.operands[2]) != 1:
        return None
    step = coord.get((ITER,))
    rest = {m: c for m, c in coord.items() if m != (ITER,)}
    ub = tiles.scalar(loop.operands[1])
    if not step or step < 0 or ub is None or not tiles.top_level(ub) or not tiles.top_level(rest):
        return None
    return poly_add(poly_add(poly_mul(ub, constant(step)), rest), constant(size - step))


def _constant(v: ir.Value) -> int | None:
    op = defining_op(v)
    if op is None or op.name != "arith.constant" or not isinstance(op.attributes["value"], ir.IntegerAttr):
        return None
    return ir.IntegerAttr(op.attributes["value"]).value


def _expression(plan: _Plan, p: dict):
    """A polynomial of arguments (and of values computed from them: argument_expression) as
    kernel_arrays' part: a name, an int, or nested add/mul/div."""
    atoms = {a: plan.tiles.atoms[a] for m in p for a in m}
    bits = max([32, *(_width(v.type) for v in atoms.values())])

    def term(m, c):
        parts = [argument_expression(atoms[a]) for a in m]
        if c != 1 or not parts:
            parts.insert(0, c)
        out = parts[0]
        for part in parts[1:]:
            out = {"op": "mul", "bits": bits, "args": [out, part]}
        return out

    terms = [term(m, c) for m, c in sorted(p.items())]
    if not terms:
        return 0
    out = terms[0]
    for t in terms[1:]:
        out = {"op": "add", "bits": bits, "args": [out, t]}
    return out
