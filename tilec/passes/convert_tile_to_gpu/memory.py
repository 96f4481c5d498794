"""Program ids, loads, stores and atomics: vectorized where the axis analysis allows."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mlir import ir
from mlir.dialects import arith, gpu, llvm, scf

from tilec.dialects import tile

from .. import store_vectors, tensor_cores
from ..layouts import Blocked
from ..lowering_common import ordering as lc_ordering
from ..lowering_common import rmw_op, segments, semantics_of, zero
from .common import byte_width, const_i32, is_float, scalar_type

if TYPE_CHECKING:
    from .lowering import KernelLowering


def lower_program_id(self: KernelLowering, op):
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    dim = [gpu.Dimension.x, gpu.Dimension.y, gpu.Dimension.z][axis]
    if op.name == "tile.num_programs":
        size = self.vendor.num_programs(self, axis)
        if size is not None:
            self.scalars[op.results[0]] = size
            return
    cls = gpu.BlockIdOp if op.name == "tile.program_id" else gpu.GridDimOp
    self.scalars[op.results[0]] = arith.index_cast(ir.IntegerType.get_signless(32), cls(dim).result)


def vector_groups(self, ptr: ir.Value, mask: ir.Value | None, layout: Blocked, elem_bytes: int) -> int:
    """How many consecutive registers one access may cover (1 = scalar accesses)."""
    if not isinstance(layout, Blocked):
        return 1
    fast = layout.order[0]
    run = min(layout.size_per_thread[fast], layout.shape[fast])
    info = self.axis.get(ptr)
    width = min(
        run, info.contiguity[fast], max(1, info.divisibility[fast] // elem_bytes), max(1, 16 // elem_bytes)
    )
    if mask is not None:
        width = min(width, self.axis.get(mask).constancy[fast])
    width = 1 << (max(1, width).bit_length() - 1)
    return max(1, width)


def _vector_type(elem, n):
    return ir.VectorType.get([n], elem)


def lower_load(self: KernelLowering, op):
    if op in self.streamed:  # a warpgroup-MMA operand copied into shared memory (cp_async.py):
        # before the loop (issue_prologues) or after the dot's barrier in the body (Ring.issue_ahead)
        self.set_natural(op.results[0], tensor_cores.IN_SHARED_MEMORY, [])
        return
    seg = segments(op)
    ptr = seg["ptr"][0]
    mask = seg["mask"][0] if seg["mask"] else None
    other = seg["other"][0] if seg["other"] else None
    res_t = op.results[0].type
    elem = scalar_type(res_t)
    volatile = "volatile" in op.attributes
    if not tile.shape_of(res_t):
        p = self.scalar(ptr)
        m = self.scalar(mask) if mask is not None else None
        o = [self.scalar(other)] if other is not None else None
        self.scalars[op.results[0]] = _vector_load(p, m, o, elem, 1, volatile)[0]
        return
    layout = self.load_layouts.get(op.results[0]) or self.layout_for(tile.shape_of(res_t), elem)
    ptrs = self.regs(ptr, layout)
    masks = self.regs(mask, layout) if mask is not None else None
    others = self.regs(other, layout) if other is not None else None
    width = vector_groups(self, ptr, mask, layout, byte_width(elem))
    out = []
    for start in range(0, len(ptrs), width):
        group_others = others[start : start + width] if others is not None else None
        m = masks[start] if masks is not None else None
        out.extend(_vector_load(ptrs[start], m, group_others, elem, width, volatile))
    self.set_natural(op.results[0], layout, out)


def _vector_load(ptr, mask, others, elem, width, volatile) -> list[ir.Value]:
    alignment = width * byte_width(elem)
    vec_t = _vector_type(elem, width) if width > 1 else elem

    def do_load():
        return llvm.LoadOp(vec_t, ptr, alignment=alignment, volatile_=True if volatile else None).result

    if mask is None:
        value = do_load()
    else:
        branch = scf.IfOp(mask, [vec_t], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([do_load()])
        with ir.InsertionPoint(branch.else_block):
            if width == 1:
                fallback = others[0] if others is not None else zero(elem)
            else:
                fallback = llvm.UndefOp(vec_t).result if others is None else _pack(others, vec_t)
                if others is None:
                    fallback = _pack([zero(elem)] * width, vec_t)
            scf.YieldOp([fallback])
        value = branch.results[0]
    if width == 1:
        return [value]
    return [llvm.ExtractElementOp(value, const_i32(i)).result for i in range(width)]


def _pack(values, vec_t):
    v = llvm.UndefOp(vec_t).result
    for i, x in enumerate(values):
        v = llvm.InsertElementOp(v, x, const_i32(i)).result
    return v


def lower_store(self: KernelLowering, op):
    seg = segments(op)
    ptr, value = seg["ptr"][0], seg["value"][0]
    mask = seg["mask"][0] if seg["mask"] else None
    shape = tile.shape_of(ptr.type)
    elem = scalar_type(value.type)
    if not shape:
        guarded(
            self.scalar(mask) if mask is not None else None,
            lambda: llvm.StoreOp(self.scalar(value), self.scalar(ptr)),
        )
        return
    layout = self.accumulator_layout_of(value) or self.layout_for(shape, elem)
    values = self.regs(value, layout)
    wide = store_vectors.interleaved_for_store(self, layout, ptr, mask, elem, byte_width(elem))
    if wide is not None:  # lanes swap fragments for wider stores
        values = store_vectors.exchange(values, layout, wide, elem, self.lane, self.warp_size)
        layout = wide
    ptrs = self.regs(ptr, layout)
    masks = self.regs(mask, layout) if mask is not None else None
    width = vector_groups(self, ptr, mask, layout, byte_width(elem))
    alignment = width * byte_width(elem)
    for start in range(0, len(ptrs), width):
        group = values[start : start + width]
        m = masks[start] if masks is not None else None

        def do_store(group=group, start=start):
            v = group[0] if width == 1 else _pack(group, _vector_type(elem, width))
            llvm.StoreOp(v, ptrs[start], alignment=alignment)

        guarded(m, do_store)


def guarded(cond, emit):
    if cond is None:
        emit()
        return
    branch = scf.IfOp(cond, [], has_else=False)
    with ir.InsertionPoint(branch.then_block):
        emit()
        scf.YieldOp([])


def _syncscope(op):
    scope = ir.StringAttr(op.attributes["scope"]).value if "scope" in op.attributes else "gpu"
    return {"gpu": "device", "cta": "block", "sys": None}.get(scope)


def lower_atomic(self: KernelLowering, op):
    is_cas = op.name == "tile.atomic_cas"
    if is_cas:
        ptr, cmp, value = op.operands
        mask = None
    else:
        seg = segments(op)
        ptr, value = seg["ptr"][0], seg["value"][0]
        mask = seg["mask"][0] if seg["mask"] else None
        cmp = None
    elem = scalar_type(value.type)
    shape = tile.shape_of(ptr.type)
    ordering = lc_ordering(semantics_of(op))
    kind = None if is_cas else ir.StringAttr(op.attributes["kind"]).value

    def one(p, v, c):
        if is_cas:
            # cmpxchg takes integers: a float CAS is the CAS of its bits (atom.cas compares bits)
            bits = ir.IntegerType.get_signless(ir.FloatType(elem).width) if is_float(elem) else elem
            if bits != elem:
                c, v = arith.bitcast(bits, c), arith.bitcast(bits, v)
            pair = llvm.AtomicCmpXchgOp(p, c, v, ordering, llvm.AtomicOrdering.monotonic).result
            old = llvm.ExtractValueOp(bits, pair, [0]).result
            return old if bits == elem else arith.bitcast(elem, old)
        return llvm.AtomicRMWOp(rmw_op(kind, elem), p, v, ordering).result

    def guarded_one(cond, p, v, c):
        if cond is None:
            return one(p, v, c)
        branch = scf.IfOp(cond, [elem], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([one(p, v, c)])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([zero(elem)])
        return branch.results[0]

    if not shape:
        # One thread performs a scalar atomic; the old value reaches the others through shared memory.
        first = arith.cmpi(arith.CmpIPredicate.eq, self.tid, const_i32(0))
        cond = first if mask is None else arith.andi(first, self.scalar(mask))
        old = guarded_one(
            cond, self.scalar(ptr), self.scalar(value), self.scalar(cmp) if cmp is not None else None
        )
        base = self.smem(byte_width(elem))
        storage = self._store_elem_type(elem)
        self.smem_write_fence()
        guarded(first, lambda: llvm.StoreOp(old, self.smem_at(base, const_i32(0), storage)))
        gpu.BarrierOp()
        result = llvm.LoadOp(storage, self.smem_at(base, const_i32(0), storage)).result
        self.smem_dirty = True
        self.scalars[op.results[0]] = result
        return
    layout = self.layout_for(shape, elem)
    ptrs, values = self.regs(ptr, layout), self.regs(value, layout)
    cmps = self.regs(cmp, layout) if cmp is not None else [None] * len(ptrs)
    masks = self.regs(mask, layout) if mask is not None else [None] * len(ptrs)
    primary = self.replica_predicate(layout)  # replicated threads must not repeat the atomic
    out = []
    for p, v, c, m in zip(ptrs, values, cmps, masks):
        cond = m if primary is None else (primary if m is None else arith.andi(primary, m))
        out.append(guarded_one(cond, p, v, c))
    self.set_natural(op.results[0], layout, out)
