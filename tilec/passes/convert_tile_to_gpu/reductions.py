"""Reductions, scans and histograms: in-thread, across lanes by shuffles, across warps through
shared memory.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mlir import ir
from mlir.dialects import arith, gpu, llvm, scf

from tilec.dialects import tile

from ..base import PassError
from ..layouts import Slice
from ..lowering_common import clone_combiner, segments
from .common import byte_width, const_i32, scalar_type, sptr
from .memory import guarded
from .shared_memory import allocate_regions, write_to_smem

if TYPE_CHECKING:
    from .lowering import KernelLowering


def _shuffle_xor(v: ir.Value, offset: int, width: int) -> ir.Value:
    """gpu.shuffle xor for any scalar type (it takes 32-bit values only)."""
    t = v.type
    i32 = ir.IntegerType.get_signless(32)
    f32 = ir.F32Type.get()

    def shfl(x):
        return gpu.ShuffleOp(x, const_i32(offset), const_i32(width), gpu.ShuffleMode.XOR).results[0]

    s = str(t)
    if s in ("f32", "i32"):
        return shfl(v)
    if s in ("f16", "bf16"):
        return arith.truncf(t, shfl(arith.extf(f32, v)))
    if s in ("i1", "i8", "i16"):
        return arith.trunci(t, shfl(arith.extui(i32, v)))
    if s in ("i64", "f64"):
        i64 = ir.IntegerType.get_signless(64)
        bits = v if s == "i64" else arith.bitcast(i64, v)
        lo = shfl(arith.trunci(i32, bits))
        hi = shfl(arith.trunci(i32, arith.shrui(bits, arith.ConstantOp(i64, 32).result)))
        joined = arith.ori(
            arith.extui(i64, lo), arith.shli(arith.extui(i64, hi), arith.ConstantOp(i64, 32).result)
        )
        return joined if s == "i64" else arith.bitcast(t, joined)
    if s.startswith("!llvm.ptr"):
        i64 = ir.IntegerType.get_signless(64)
        return llvm.IntToPtrOp(t, _shuffle_xor(llvm.PtrToIntOp(i64, v).result, offset, width)).result
    raise PassError(f"cannot shuffle values of type {t}")


def lower_reduce(self: KernelLowering, op):
    srcs = list(op.operands)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    shape = tile.shape_of(srcs[0].type)
    block = op.regions[0].blocks[0]
    # A reduction of a tensor-core accumulator (attention's row max and sum) reduces in its layout.
    layout = self.accumulator_layout_of(srcs[0]) or self.layout_for(shape, tile.element_of(srcs[0].type))
    inputs = [self.regs(s, layout) for s in srcs]
    out_layout = Slice.of(layout, axis)
    # 1. in-thread: combine registers that differ only along the axis
    groups: dict = {}
    for i, static in enumerate(layout.registers):
        key = static[:axis] + static[axis + 1 :]
        vals = [regs[i] for regs in inputs]
        groups[key] = vals if key not in groups else clone_combiner(block, groups[key], vals)
    keys = out_layout.registers
    partial = [groups[k] for k in keys]
    # 2. across lanes: butterfly over the lane bits that hold distinct elements along the axis
    lanes = layout.distinct_lanes(axis)
    stride = layout.lane_stride(axis)
    step = 1
    while step < lanes:
        partial = [
            clone_combiner(block, vals, [_shuffle_xor(v, step * stride, self.warp_size) for v in vals])
            for vals in partial
        ]
        step *= 2
    # 3. across warps: through shared memory
    warps = layout.distinct_warps(axis)
    if warps > 1:
        partial = _reduce_across_warps(self, partial, out_layout, layout, axis, warps, block, srcs)
    if not out_layout.shape:
        for r, v in zip(op.results, partial[0]):
            self.scalars[r] = v
        return
    for k, r in enumerate(op.results):
        self.set_natural(r, out_layout, [vals[k] for vals in partial])


def _reduce_across_warps(self, partial, out_layout, layout, axis, warps, block, srcs):
    out_shape = out_layout.shape or (1,)
    numel = math.prod(out_shape)
    elems = [scalar_type(s.type) for s in srcs]
    storages = [self._store_elem_type(e) for e in elems]
    offsets, total = [], 0
    for st in storages:
        offsets.append(total)
        total += numel * warps * byte_width(st)
    base = self.smem(total)
    warp_axis = arith.remui(
        arith.divui(self.warp, const_i32(layout.warp_stride(axis))), const_i32(layout.warps_per_cta[axis])
    )
    warp_axis = arith.remui(warp_axis, const_i32(warps))
    coords = self.coords(out_layout) if out_layout.shape else [[] for _ in partial]
    self.smem_write_fence()
    for vals, coord in zip(partial, coords):
        lin = self._linear(coord, out_shape) if coord else const_i32(0)
        slot = arith.addi(arith.muli(lin, const_i32(warps)), warp_axis)
        for v, e, st, off in zip(vals, elems, storages, offsets):
            region = llvm.GEPOp(
                sptr(), base, [], [off], ir.TypeAttr.get(ir.IntegerType.get_signless(8)), 0
            ).result
            llvm.StoreOp(self._to_storage(v, e, st), self.smem_at(region, slot, st))
    gpu.BarrierOp()
    result = []
    for coord in coords:
        lin = self._linear(coord, out_shape) if coord else const_i32(0)
        acc = None
        for w in range(warps):
            slot = arith.addi(arith.muli(lin, const_i32(warps)), const_i32(w))
            vals = []
            for e, st, off in zip(elems, storages, offsets):
                region = llvm.GEPOp(
                    sptr(), base, [], [off], ir.TypeAttr.get(ir.IntegerType.get_signless(8)), 0
                ).result
                vals.append(self._from_storage(llvm.LoadOp(st, self.smem_at(region, slot, st)).result, e, st))
            acc = vals if acc is None else clone_combiner(block, acc, vals)
        result.append(acc)
    self.smem_dirty = True
    return result


def lower_histogram(self: KernelLowering, op):
    """tl.histogram: num_bins i32 counters in shared memory, zeroed, one shared-memory atomic add per
    counted element (by the thread that owns it), then read back in the result's layout. Linear in
    the elements, where comparing each with every bin took 67 s to compile at 4096 x 512."""
    seg = segments(op)
    src = seg["src"][0]
    mask = seg["mask"][0] if seg.get("mask") else None
    bins = ir.IntegerAttr(op.attributes["num_bins"]).value
    (n,) = tile.shape_of(src.type)
    value_t = scalar_type(src.type)
    layout = self.layout_of_inputs(src) or self.layout_for([n], value_t)
    values = self.regs(src, layout)
    keeps = self.regs(mask, layout) if mask is not None else [None] * len(values)
    i32 = ir.IntegerType.get_signless(32)
    base = self.smem(bins * 4)
    self.smem_write_fence()
    zeroing = scf.ForOp(self.tid, const_i32(bins), const_i32(self.threads))
    with ir.InsertionPoint(zeroing.body):
        llvm.StoreOp(const_i32(0), self.smem_at(base, zeroing.induction_variable, i32))
        scf.YieldOp([])
    gpu.BarrierOp()
    owner = self.replica_predicate(layout)  # a replicated element is counted once
    wide_t = value_t if value_t.width >= 32 else i32  # where the bin numbers fit (512 is no i8)
    limit = arith.ConstantOp(wide_t, bins).result
    for value, keep in zip(values, keeps):
        value = value if value_t == wide_t else arith.extsi(wide_t, value)
        counted = arith.cmpi(arith.CmpIPredicate.ult, value, limit)  # negative values are not
        for extra in (keep, owner):
            if extra is not None:
                counted = arith.andi(counted, extra)
        bin_index = value if wide_t.width == 32 else arith.trunci(i32, value)

        def count(bin_index=bin_index):
            llvm.AtomicRMWOp(
                llvm.AtomicBinOp.add,
                self.smem_at(base, bin_index, i32),
                const_i32(1),
                llvm.AtomicOrdering.monotonic,
            )

        guarded(counted, count)
    gpu.BarrierOp()
    out_layout = self.layout_for([bins], i32)
    out = [llvm.LoadOp(i32, self.smem_at(base, coord[0], i32)).result for coord in self.coords(out_layout)]
    self.smem_dirty = True
    self.set_natural(op.results[0], out_layout, out)


def lower_scan(self: KernelLowering, op):
    """Inclusive scan in log2(n) rounds through shared memory (Hillis and Steele): in the round of
    distance d every element combines the partial result d places before it (after it for a reverse
    scan) with its own, the earlier elements' value on the left, as the sequential scan has them.
    One buffer (the tile's size, as before) and two barriers a round. (Combining each element's
    whole prefix, as this did before, read n^2 / 2 elements per row: a 1024-element cumsum read
    ~500 thousand where it now reads 10 thousand.)"""
    srcs = list(op.operands)
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    reverse = "reverse" in op.attributes
    shape = tile.shape_of(srcs[0].type)
    n = shape[axis]
    block = op.regions[0].blocks[0]
    layout = self.layout_for(shape, tile.element_of(srcs[0].type))
    elems = [scalar_type(x.type) for x in srcs]
    storages = [self._store_elem_type(e) for e in elems]
    current = [self.regs(x, layout) for x in srcs]  # per operand, per register
    coords = self.coords(layout)
    if n > 1:
        shapes, layouts = [shape] * len(srcs), [layout] * len(srcs)
        regions = allocate_regions(self, shapes, storages)
        distance = 1
        while distance < n:
            self.smem_write_fence()  # the previous round's reads are done
            write_to_smem(self, regions, current, layouts, shapes, elems, storages)
            gpu.BarrierOp()
            updated = [[] for _ in srcs]
            for k, coord in enumerate(coords):
                j = coord[axis]
                own = [regs[k] for regs in current]
                if reverse:  # a partner after j: j + d < n
                    has_partner = arith.cmpi(arith.CmpIPredicate.ult, j, const_i32(n - distance))
                    partner_j = arith.addi(j, const_i32(distance))
                else:  # a partner before j: j >= d
                    has_partner = arith.cmpi(arith.CmpIPredicate.uge, j, const_i32(distance))
                    partner_j = arith.subi(j, const_i32(distance))
                branch = scf.IfOp(has_partner, [v.type for v in own], has_else=True)
                with ir.InsertionPoint(branch.then_block):
                    c = list(coord)
                    c[axis] = partner_j
                    index = self._linear(c, shape)
                    partner = [
                        self._from_storage(llvm.LoadOp(st, self.smem_at(rg, index, st)).result, e, st)
                        for rg, st, e in zip(regions, storages, elems)
                    ]
                    scf.YieldOp(clone_combiner(block, partner, own))
                with ir.InsertionPoint(branch.else_block):
                    scf.YieldOp(own)
                for out, v in zip(updated, branch.results):
                    out.append(v)
            current = updated
            distance *= 2
            self.smem_dirty = True
    for r, regs in zip(op.results, current):
        self.set_natural(r, layout, regs)
