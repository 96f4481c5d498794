"""tile-pipeline-loads: in a loop, issue the loads of later iterations before this iteration computes.

    for k: a = load(p(k)); acc = dot(a, b, acc); p' = p + step
      =>  a0 = load(p(lb))
          for k (a = a0): a_next = load(p'(k+1), mask & k+1 < ub); acc = dot(a, b, acc); yield a_next

The loads' global-memory latency then overlaps the previous iteration's compute (a two-stage register
pipeline: what `num_stages >= 2` asks for). With `depth=D` the loads run D iterations ahead (D tiles
in flight per load, each carried in registers; on an H200 depth 2 made matmuls slower, from register
pressure, so the NVIDIA pipeline uses depth 1). A load qualifies when it sits directly in the loop
body and everything it reads is computed by pure ops from the induction variable, loop-carried values
and values from outside the loop; the later iterations' carried values it needs are recomputed from
their (pure) yielded expressions. Loops that write memory are left alone (a prefetched read must not
pass a write), and so are loops with nested control flow. Prefetches past the last iteration are
masked off.

With `wgmma-depth=D` (sm_90a), the loads that feed warpgroup-MMA dots in the loop body are
prefetched D iterations ahead instead (fewer when the dots' stage buffers would not fit in shared
memory): convert-tile-to-gpu turns exactly these loads into asynchronous copies into shared-memory
rings (cp_async.py), so their depth costs shared memory, not registers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from mlir import ir
from mlir.dialects import arith, scf

from tilec.analysis.axis_info import AxisAnalysis
from tilec.dialects import tile
from tilec.passes.base import TilePass, ops_named
from tilec.passes.hoist_loads import is_pure, may_write
from tilec.passes.lowering_common import segments
from tilec.targets.nvidia.lowering import cp_async, mma, wgmma, wgmma_swapped

_REGION_OPS_ALLOWED = {"tile.reduce", "tile.scan"}  # pure, their regions are combiners


@dataclass(frozen=True)
class PipelineLoadsPass(TilePass):
    """Prefetch the next iteration's tile.load results through loop-carried values (scf.for)."""

    name: ClassVar[str] = "tile-pipeline-loads"
    option_ranges: ClassVar[dict] = {"depth": (1, 64), "wgmma_depth": (0, 64)}
    depth: int = 1  # iterations ahead
    wgmma_depth: int = 0  # iterations ahead for warpgroup-MMA operands (0: as `depth`)
    num_warps: int = 4  # what the warpgroup-MMA lowering will have

    def run(self, module: ir.Module) -> None:
        if self.depth < 1:
            raise ValueError(f"tile-pipeline-loads depth must be >= 1, got {self.depth}")
        if self.wgmma_depth < 0:
            raise ValueError(f"tile-pipeline-loads wgmma-depth must be >= 0, got {self.wgmma_depth}")
        axis = AxisAnalysis()
        for loop in ops_named(module.operation, "scf.for"):
            deeper = {}
            if self.wgmma_depth:
                deeper = _warpgroup_dot_loads(loop, self.num_warps, self.wgmma_depth, axis)
            _pipeline(loop, self.depth, deeper)


def _warpgroup_dot_loads(loop: ir.Operation, num_warps: int, wanted: int, axis) -> dict:
    """{tile.load: depth} for the loads convert-tile-to-gpu will stream into shared memory with
    cp.async (cp_async.plan makes the same choice on the pipelined loop): the operands of the
    warpgroup-MMA dots in the loop body, each loaded in the loop body and used by the dot alone (B
    possibly through tl.trans, fp8 through its bitcast), A row-major (a 16-bit A also
    column-major, or the tl.trans of a row-major tile), a 16-bit B row- or column-major, an 8-bit
    or fp32 B K-contiguous; a dot's B must qualify. All at one depth: as many iterations ahead as
    the rings (wgmma.ring_stages buffers each) fit in shared memory together, at most `wanted`;
    dots whose ring would not fit even one iteration ahead keep their loads in registers."""
    body = loop.regions[0].blocks[0]
    dots = []  # (dot, its streamable loads, one stage buffer's bytes)
    for op in body.operations:
        dot = op.operation
        if dot.name != "tile.dot":
            continue
        kind = wgmma.wgmma_kind(dot, num_warps)
        if kind is None or wgmma.promoted_group(dot, kind):
            continue
        if wgmma_swapped.applies(dot, num_warps, axis):
            found = {index: load for index in (0, 1) if (load := _swapped_streamable(dot, index, loop, axis))}
            if 1 in found:  # B streams (A too when it can, else it is stored from registers)
                (m, k), (_, n) = tile.shape_of(dot.operands[0].type), tile.shape_of(dot.operands[1].type)
                dots.append((dot, list(found.values()), wgmma_swapped.stage_bytes(m, n, k)))
            continue
        found = {index: load for index in (0, 1) if (load := _streamable(dot, index, kind, loop, axis))}
        if 1 in found:
            dots.append((dot, list(found.values()), wgmma.stage_bytes(dot, kind)))

    def total(chosen, depth):
        return sum(wgmma.ring_stages(dot, depth) * size for dot, _, size in chosen)

    chosen = []
    for entry in dots:
        if total([*chosen, entry], 1) <= mma.SMEM_LIMIT:
            chosen.append(entry)
    depth = max([1, *(d for d in range(1, wanted + 1) if total(chosen, d) <= mma.SMEM_LIMIT)])
    return {load: depth for _, loads, _ in chosen for load in loads}


def _swapped_streamable(dot, index: int, loop, axis):
    """The tile.load operand `index` of a transposed tf32 dot (wgmma_swapped.py) comes from, when it
    is row-major in memory, so that cp.async copies it in rows as it lies there, else None."""
    value = dot.operands[index]
    if isinstance(value.owner, ir.Block) or len(list(value.uses)) != 1:
        return None
    load = value.owner.operation
    if load.name != "tile.load" or load.parent != loop or "volatile" in load.attributes:
        return None
    info = axis.get(load.operands[0])
    row_major = info.contiguity[1] > 1 and info.contiguity[0] == 1
    return load if row_major and cp_async.zero_filled(load) else None


def _streamable(dot, index: int, kind: str, loop, axis):
    """The tile.load operand `index` of `dot` comes from, when cp.async can stream it, else None."""
    peeled = cp_async.peel(dot, index)
    if peeled is None or isinstance(peeled[0].owner, ir.Block):
        return None
    value, transposed = peeled
    load = value.owner.operation
    if load.name != "tile.load" or load.parent != loop or "volatile" in load.attributes:
        return None
    elem_bytes = wgmma.element_bytes(kind)
    info = axis.get(load.operands[0])
    column_major = info.contiguity[0] > 1 and info.contiguity[1] == 1
    if index == 1 and not transposed:
        ok = column_major or elem_bytes == 2  # only a 16-bit B may be read N-major
    elif index == 0 and transposed:  # A = trans(X), X [K, M] row-major: read M-major, 16-bit only
        ok = not column_major and elem_bytes == 2
    elif index == 0:
        ok = not column_major or elem_bytes == 2  # only a 16-bit A may be read M-major
    else:
        ok = not column_major
    # copies of at least 4 bytes: contiguous, aligned and masked alike (the lowering's access
    # width, before the layout is known)
    fast = 0 if column_major else 1
    width = min(info.contiguity[fast], info.divisibility[fast] // elem_bytes)
    sizes = list(ir.DenseI32ArrayAttr(load.attributes["operandSegmentSizes"]))
    if sizes[1]:
        width = min(width, axis.get(load.operands[1]).constancy[fast])
    # a tile of a descriptor argument may go by tensor copies (tma.py), which need no such width
    wide_enough = width * elem_bytes >= 4 or "descriptor" in load.attributes
    return load if ok and wide_enough and cp_async.zero_filled(load) else None


def _pipeline(loop: ir.Operation, depth: int, deeper: dict) -> None:
    body = loop.regions[0].blocks[0]
    ops = [op.operation for op in body.operations]
    if any(op.regions and op.name not in _REGION_OPS_ALLOWED for op in ops):
        return
    if any(may_write(op) for op in ops):
        return
    in_body = set(ops)
    iv, carried = body.arguments[0], list(body.arguments)[1:]
    yielded = list(ops[-1].operands)

    def closed(value, seen) -> bool:
        """True when `value` is computed by pure body ops from iv, carried values and outside values."""
        owner = value.owner
        if isinstance(owner, ir.Block):
            return True  # iv, a carried value, or a block argument from outside the loop
        op = owner.operation if hasattr(owner, "operation") else owner
        if op not in in_body or op in seen:
            return True
        seen.add(op)
        return is_pure(op) and all(closed(v, seen) for v in op.operands)

    def carried_used(value, out, seen):
        owner = value.owner
        if isinstance(owner, ir.Block):
            if owner == body and ir.BlockArgument(value).arg_number > 0:
                out.add(ir.BlockArgument(value).arg_number - 1)
            return
        op = owner.operation if hasattr(owner, "operation") else owner
        if op not in in_body or op in seen:
            return
        seen.add(op)
        for v in op.operands:
            carried_used(v, out, seen)

    loads = []
    needed = set()
    for op in ops:
        if op.name != "tile.load" or "volatile" in op.attributes:
            continue
        if not all(closed(v, set()) for v in op.operands):
            continue
        uses = set()
        for v in op.operands:
            carried_used(v, uses, set())
        if not all(closed(yielded[j], set()) for j in uses):
            continue
        loads.append(op)
        needed |= uses
    if not loads:
        return

    lb, ub, step = list(loop.operands)[:3]
    inits = list(loop.operands)[3:]
    depth_of = {op: deeper.get(op, depth) for op in loads}
    most = max(depth_of.values())

    def later(cloner: _Cloner, iv_value) -> _Cloner:
        """A cloner for the iteration after `cloner`'s (induction variable `iv_value`): its carried
        values are the yielded expressions of `cloner`'s iteration."""
        nxt = _Cloner(in_body, {iv: iv_value})
        for j in sorted(needed):
            nxt.mapping[carried[j]] = cloner.value(yielded[j])
        return nxt

    with loop.location, ir.InsertionPoint(loop):
        # the first iterations' loads, before the loop, iteration by iteration
        prefetched = {op: [] for op in loads}
        stage = _Cloner(in_body, {iv: lb, **dict(zip(carried, inits))})
        for d in range(most):
            if d:
                stage = later(stage, arith.addi(stage.mapping[iv], step))
            guard = arith.cmpi(arith.CmpIPredicate.slt, stage.mapping[iv], ub)
            for op in loads:
                if d < depth_of[op]:
                    prefetched[op].append(_guarded_load(op, stage, guard))
        new_loop = scf.ForOp(lb, ub, step, inits + [v for op in loads for v in prefetched[op]])
    with loop.location, ir.InsertionPoint(new_loop.body):
        args = list(new_loop.inner_iter_args)
        now = _Cloner(in_body, {iv: new_loop.induction_variable, **dict(zip(carried, args))})
        ahead, cloners = now, {}
        for d in range(1, most + 1):
            ahead = later(ahead, arith.addi(ahead.mapping[iv], step))
            cloners[d] = ahead
        next_values = {}
        for op in loads:
            cloner = cloners[depth_of[op]]
            guard = arith.cmpi(arith.CmpIPredicate.slt, cloner.mapping[iv], ub)
            next_values[op] = _guarded_load(op, cloner, guard)
        in_flight, position = {}, len(inits)  # per load: its tiles in flight, this iteration's first
        for op in loads:
            in_flight[op] = args[position : position + depth_of[op]]
            position += depth_of[op]
            now.mapping[op.results[0]] = in_flight[op][0]
        for op in ops[:-1]:
            already = op.results and all(r in now.mapping for r in op.results)
            if op not in loads and not already:
                now.op(op)
        shifted = [v for op in loads for v in [*in_flight[op][1:], next_values[op]]]
        scf.YieldOp([now.value(v) for v in yielded] + shifted)
    for old, new in zip(loop.results, new_loop.results):
        old.replace_all_uses_with(new)
    loop.erase()


class _Cloner:
    """Clones body ops under a value mapping, each op at most once (on demand, operands first)."""

    def __init__(self, body_ops: set, mapping: dict):
        self.body_ops, self.mapping = body_ops, mapping

    def value(self, v: ir.Value) -> ir.Value:
        if v in self.mapping:
            return self.mapping[v]
        owner = v.owner
        if isinstance(owner, ir.Block):
            return v
        op = owner.operation if hasattr(owner, "operation") else owner
        if op not in self.body_ops:
            return v  # defined outside the loop
        self.op(op)
        return self.mapping[v]

    def op(self, op: ir.Operation) -> ir.Operation:
        operands = [self.value(v) for v in op.operands]
        new = op.clone()
        for i, v in enumerate(operands):
            new.operands[i] = v
        for old, r in zip(op.results, new.results):
            self.mapping[old] = r
        return new


def _guarded_load(op: ir.Operation, cloner: _Cloner, guard: ir.Value) -> ir.Value:
    """`op` (a tile.load) cloned under `cloner`'s mapping, masked off where `guard` is false."""
    seg = {name: [cloner.value(v) for v in values] for name, values in segments(op).items()}
    ptr, mask, other = seg["ptr"][0], (seg["mask"] or [None])[0], seg["other"]
    shape = tile.shape_of(ptr.type)
    bounded = tile.splat(guard, shape) if shape else guard
    mask = bounded if mask is None else arith.andi(mask, bounded)
    attrs = {n: op.attributes[n] for n in op.attributes if n != "operandSegmentSizes"}
    attrs["operandSegmentSizes"] = ir.DenseI32ArrayAttr.get([1, 1, len(other), len(seg["coords"])])
    new = ir.Operation.create(
        "tile.load",
        results=[op.results[0].type],
        operands=[ptr, mask, *other, *seg["coords"]],
        attributes=attrs,
    )
    return new.results[0]
