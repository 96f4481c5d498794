"""Ops that move data between threads through shared memory: reshape, trans, gather."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from mlir import ir
from mlir.dialects import arith, gpu, llvm

from tilec.dialects import tile

from .. import lower_fp8, tensor_cores
from ..lowering_common import zero
from .common import byte_width, scalar_type, sptr

if TYPE_CHECKING:
    from .lowering import KernelLowering


def lower_via_shared(self: KernelLowering, op):
    """reshape / trans: write in the source layout, read back by the mapped coordinates."""
    src = op.operands[0]
    if self.natural.get(src, (None,))[0] is tensor_cores.IN_SHARED_MEMORY:
        # the transpose of a streamed tile (a warpgroup MMA's A = trans(X)): the ring holds it as
        # the instruction reads it
        self.set_natural(op.results[0], tensor_cores.IN_SHARED_MEMORY, [])
        return
    uses = []
    for use in op.results[0].uses:  # through fp8 bytes seen as fp8 (tile-lower-fp8)
        owner = use.owner
        if owner.name == "arith.bitcast" and lower_fp8.fp8_format(owner.results[0].type):
            uses.extend(owner.results[0].uses)
        else:
            uses.append(use)
    if uses and all(
        use.owner.name == "tile.dot"
        and use.operand_number == 1
        and self.vendor.stores_transposed(self, use.owner)
        for use in uses
    ):
        return  # only warpgroup MMAs read it, and they store the source transposed themselves
    src_shape, dst_shape = tile.shape_of(src.type), tile.shape_of(op.results[0].type)
    elem = scalar_type(src.type)
    storage = (
        self._store_elem_type(elem)
        if not str(elem).startswith("!llvm.ptr")
        else ir.IntegerType.get_signless(64)
    )
    src_layout = self.layout_for(src_shape, tile.element_of(src.type))
    dst_layout = self.layout_for(dst_shape, tile.element_of(src.type))
    regs = self.regs(src, src_layout)
    base = self.smem(math.prod(src_shape) * byte_width(storage))
    self.smem_write_fence()
    for r, coord in zip(regs, self.coords(src_layout)):
        llvm.StoreOp(
            self._to_storage(r, elem, storage), self.smem_at(base, self._linear(coord, src_shape), storage)
        )
    gpu.BarrierOp()
    out = []
    order = list(ir.DenseI32ArrayAttr(op.attributes["order"])) if op.name == "tile.trans" else None
    for coord in self.coords(dst_layout):
        if order is not None:  # result dim i is source dim order[i]
            src_coord = [None] * len(coord)
            for i, o in enumerate(order):
                src_coord[o] = coord[i]
            index = self._linear(src_coord, src_shape)
        else:  # reshape keeps the row-major linear index
            index = self._linear(coord, dst_shape)
        v = llvm.LoadOp(storage, self.smem_at(base, index, storage)).result
        out.append(self._from_storage(v, elem, storage))
    self.smem_dirty = True
    self.set_natural(op.results[0], dst_layout, out)


def allocate_regions(self, shapes, storages) -> list:
    """One region of the scratch space per tensor (16-byte aligned): their base addresses."""
    offsets, total = [], 0
    for st, shape in zip(storages, shapes):
        offsets.append(total)
        total += -(-math.prod(shape) * byte_width(st) // 16) * 16
    base = self.smem(total)
    i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
    return [llvm.GEPOp(sptr(), base, [], [off], i8, 0).result for off in offsets]


def write_to_smem(self, regions, values_by_src, layouts, shapes, elems, storages) -> None:
    """Each tensor's registers into its region, at their row-major positions."""
    for regs, layout, shape, e, st, region in zip(values_by_src, layouts, shapes, elems, storages, regions):
        for r, coord in zip(regs, self.coords(layout)):
            llvm.StoreOp(self._to_storage(r, e, st), self.smem_at(region, self._linear(coord, shape), st))


def stage_in_smem(self, values_by_src, layouts, shapes, elems):
    """Writes whole tensors to shared memory (one region each); returns (region bases, storage types)."""
    storages = [self._store_elem_type(e) for e in elems]
    regions = allocate_regions(self, shapes, storages)
    self.smem_write_fence()
    write_to_smem(self, regions, values_by_src, layouts, shapes, elems, storages)
    gpu.BarrierOp()
    return regions, storages


def lower_gather(self: KernelLowering, op):
    """tl.gather: src written to shared memory once (in its layout), each result element read back
    at its coordinates with the gathered axis' one taken from the index (0 outside src). Linear in
    the elements, where a selection among src.shape[axis] candidates per element spilled from 64x64
    on (sm_90a, 4 warps: 880 bytes of spills; 128x64 took a minute to compile)."""
    src, index = op.operands
    axis = ir.IntegerAttr(op.attributes["axis"]).value
    src_shape, shape = tile.shape_of(src.type), tile.shape_of(op.results[0].type)
    elem = scalar_type(src.type)
    src_layout = self.layout_for(src_shape, tile.element_of(src.type))
    layout = self.layout_of_inputs(index) or self.layout_for(shape, tile.element_of(src.type))
    (region,), (storage,) = stage_in_smem(
        self, [self.regs(src, src_layout)], [src_layout], [src_shape], [elem]
    )
    index_t = tile.element_of(index.type)
    size = arith.ConstantOp(index_t, src_shape[axis]).result
    zero_index, zero_elem = zero(index_t), zero(elem)
    out = []
    for i, coord in zip(self.regs(index, layout), self.coords(layout)):
        inside = arith.cmpi(arith.CmpIPredicate.ult, i, size)  # negative indices too
        safe = arith.select(inside, i, zero_index)
        c = list(coord)
        c[axis] = safe if index_t.width == 32 else arith.trunci(ir.IntegerType.get_signless(32), safe)
        v = llvm.LoadOp(storage, self.smem_at(region, self._linear(c, src_shape), storage)).result
        out.append(arith.select(inside, self._from_storage(v, elem, storage), zero_elem))
    self.smem_dirty = True
    self.set_natural(op.results[0], layout, out)
