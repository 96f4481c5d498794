"""What every tensor-core lowering of tile.dot shares (NVIDIA's mma.sync and warpgroup MMA, AMD's
MFMA): the accumulator layouts planned through loops (`plan_layouts`), the operands' registers
(`dot_operands`) and their trip through padded shared memory (`stage_padded`, `store_rows`).
Each vendor's instructions live in its target's folder (tilec/targets/<vendor>/lowering/)."""

from __future__ import annotations

from typing import NamedTuple

from mlir import ir
from mlir.dialects import arith, gpu, llvm

from tilec.dialects import tile

from .layouts import Blocked, Slice


def _c(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result


def plan_layouts(block, accumulator_of) -> dict:
    """The accumulator layout for every value a tensor-core tl.dot reads or writes as its accumulator,
    including the loop-carried values of the scf.for loops it sits in (their init operands, so the loop
    is built with that layout). `accumulator_of(dot)` is the layout the dot's lowering wants, or None
    for a dot that does not use tensor cores."""
    preferred = {}
    for op in _walk(block):
        layout = accumulator_of(op) if op.name == "tile.dot" else None
        if layout is None:
            continue
        acc = op.operands[2]
        preferred[acc] = preferred[op.results[0]] = layout
        # The loop-carried accumulator: the operand itself or, as in attention's `acc * alpha`, the
        # loop value it is computed from elementwise.
        for carried in _carried_sources(acc, 0):
            loop = carried.owner.owner
            index = ir.BlockArgument(carried).arg_number - 1  # after the induction variable
            preferred[loop.operands[3 + index]] = layout
            preferred[loop.results[index]] = layout
    if preferred:
        plan_reductions(block, preferred)
    return preferred


def plan_reductions(block, preferred: dict) -> None:
    """Loop-carried vectors computed from row reductions of an accumulator (flash attention's running
    max and sum: `m = maximum(m, tl.max(s, 1))` with s = dot(q, k)) get the reduction's own layout, a
    slice of the accumulator's: kept in the loop's default layout, they would cross shared memory twice
    per iteration."""
    for op in _walk(block):
        if op.name != "scf.for":
            continue
        body = op.regions[0].blocks[0]
        yielded = list(body.operations)[-1].operands
        for i, value in enumerate(yielded):
            init = op.operands[3 + i]
            if init in preferred or len(tile.shape_of(init.type)) != 1:
                continue
            layout = _reduction_layout(value, preferred, 0)
            if layout is not None and layout.shape == tuple(tile.shape_of(init.type)):
                preferred[init] = preferred[op.results[i]] = layout


def _carried_sources(value, depth):
    """The scf.for iteration arguments `value` is (or is computed elementwise from, same shape)."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        loop = owner.owner
        if loop is not None and loop.name == "scf.for" and ir.BlockArgument(value).arg_number > 0:
            return [value]
        return []
    op = owner.operation if hasattr(owner, "operation") else owner
    if depth > 8 or not _elementwise(op):
        return []
    shape = tile.shape_of(value.type)
    found = []
    for x in op.operands:
        if tile.shape_of(x.type) == shape:
            found.extend(_carried_sources(x, depth + 1))
    return found


def _owner(value):
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _elementwise(op) -> bool:
    return op.name.startswith("arith.") or op.name.startswith("math.")


def _reduction_layout(value, preferred, depth):
    """Slice(P, axis) when `value` is computed elementwise from a tile.reduce over a tensor computed
    elementwise from a value of preferred layout P, else None."""
    op = _owner(value)
    if op is None or depth > 16:
        return None
    if op.name == "tile.reduce":
        source = _traced_layout(op.operands[0], preferred, 0)
        return Slice.of(source, ir.IntegerAttr(op.attributes["axis"]).value) if source is not None else None
    if _elementwise(op):
        for x in op.operands:
            found = _reduction_layout(x, preferred, depth + 1)
            if found is not None:
                return found
    return None


def _traced_layout(value, preferred, depth):
    """P when `value` is computed elementwise (same shape) from a value of preferred layout P."""
    if value in preferred and isinstance(preferred[value], Blocked):
        return preferred[value]
    op = _owner(value)
    if op is None or depth > 16 or not _elementwise(op):
        return None
    shape = tile.shape_of(value.type)
    for x in op.operands:
        if tile.shape_of(x.type) == shape:
            found = _traced_layout(x, preferred, depth + 1)
            if found is not None:
                return found
    return None


def _walk(block):
    for op in block.operations:
        op = op.operation
        yield op
        for region in op.regions:
            for inner in region.blocks:
                yield from _walk(inner)


def padded_bytes(m: int, n: int, k: int, pad_a: int, pad_b: int, elem_bytes: int) -> int:
    """Shared memory for A [m, k] and B [k, n] row-major with rows padded by pad_a / pad_b elements."""
    return aligned(m * (k + pad_a) * elem_bytes) + aligned(k * (n + pad_b) * elem_bytes)


def stage_padded(
    lowering, ops: DotOperands, pad_a: int, pad_b: int, smem_ptr_type, dynamic_index: int, run_limit=8
):
    """Stores A and B into shared memory row-major with padded rows (after a barrier if shared memory
    was read since the last one), then waits for every thread; returns (a_at, b_at): the address of
    element (row, col) of A and of B."""
    elem_bytes = ops.elem.width // 8
    base = lowering.smem(padded_bytes(ops.m, ops.n, ops.k, pad_a, pad_b, elem_bytes))
    i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
    b_base = llvm.GEPOp(
        smem_ptr_type, base, [], [aligned(ops.m * (ops.k + pad_a) * elem_bytes)], i8, 0
    ).result

    def address(region, width):
        def at(row, col):
            index = arith.addi(arith.muli(row, _c(width)), col)
            return llvm.GEPOp(
                smem_ptr_type, region, [index], [dynamic_index], ir.TypeAttr.get(ops.elem), 0
            ).result

        return at

    a_at, b_at = address(base, ops.k + pad_a), address(b_base, ops.n + pad_b)
    lowering.smem_write_fence()
    store_rows(lowering, ops.a_regs, ops.a_layout, a_at, ops.elem, run_limit)
    store_rows(lowering, ops.b_regs, ops.b_layout, b_at, ops.elem, run_limit)
    gpu.BarrierOp()
    return a_at, b_at


def store_rows(lowering, regs, layout, address, elem, run_limit: int = 8, axis: int = 1) -> None:
    """Stores a 2-D tensor's registers into shared memory at `address(row, col)`, as vectors wherever
    a thread's registers are consecutive along `axis` (the row by default; at most `run_limit`
    elements, aligned to their size: the caller's layout keeps every aligned run of that many elements
    contiguous in shared memory)."""
    coords = lowering.coords(layout)
    statics = layout.registers
    width = min(layout.size_per_thread[axis], run_limit)

    def step(static, run):
        return tuple(x + run if d == axis else x for d, x in enumerate(static))

    j = 0
    while j < len(regs):
        run = 1
        while (
            run < width
            and j + run < len(regs)
            and statics[j + run] == step(statics[j], run)
            and (statics[j][axis] % width) == 0
        ):
            run += 1
        row, col = coords[j]
        if run > 1 and run & (run - 1) == 0:
            vec = llvm.UndefOp(ir.VectorType.get([run], elem)).result
            for e in range(run):
                vec = llvm.InsertElementOp(vec, regs[j + e], _c(e)).result
            llvm.StoreOp(vec, address(row, col), alignment=(elem.width // 8) * run)
        else:
            run = 1
            llvm.StoreOp(regs[j], address(row, col))
        j += run


def aligned(nbytes: int) -> int:
    return -(-nbytes // 16) * 16


class DotOperands(NamedTuple):
    m: int
    n: int
    k: int
    elem: ir.Type  # of A and B
    a_layout: Blocked
    a_regs: list
    b_layout: Blocked
    b_regs: list
    c_layout: Blocked
    c_regs: list


def dot_operands(
    lowering, op, accumulator_layout_of, b_source=None, b_layout=None, skip=(), a_layout=None
) -> DotOperands:
    """The registers of a tensor-core tile.dot's operands, shared by every tensor-core lowering: A in
    the layout of the accumulator it is computed from (attention's p) when it is, else the default
    layout; B in `b_layout` when given, else the default layout (of `b_source` [N, K] instead, when
    the lowering reads B = trans(X) from X); the accumulator in the lowering's
    `accumulator_layout_of(m, n, num_warps)`. Operands whose index is in `skip` (already in shared
    memory) get no registers (None); `a_layout`, when given, is the layout A's registers come in."""
    a, b, acc = op.operands
    (m, k), (_, n) = tile.shape_of(a.type), tile.shape_of(b.type)
    elem = tile.element_of(a.type)
    c_layout = accumulator_layout_of(m, n, lowering.num_warps)
    a_layout = a_layout or lowering.accumulator_layout_of(a) or lowering.layout_for([m, k], elem)
    if b_source is not None:
        b, b_layout = b_source, lowering.layout_for([n, k], elem)
    elif b_layout is None:
        b_layout = lowering.layout_for([k, n], elem)
    return DotOperands(
        m, n, k, elem,
        a_layout, None if 0 in skip else lowering.regs(a, a_layout),
        b_layout, None if 1 in skip else lowering.regs(b, b_layout),
        c_layout, list(lowering.regs(acc, c_layout)),
    )  # fmt: skip


class _InSharedMemory:
    """The "layout" of a streamed tile: no registers (it lives in the ring)."""

    registers = ()

    def __repr__(self) -> str:
        return "in-shared-memory"


IN_SHARED_MEMORY = _InSharedMemory()
