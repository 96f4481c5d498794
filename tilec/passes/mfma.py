"""tl.dot on AMD matrix cores (CDNA: gfx90a, gfx94x): `v_mfma_f32_16x16x16_f16` / `_bf16` with an fp32
accumulator, one wave64 instruction per 16x16x16 block. Used by convert-tile-to-gpu when its `mfma`
option is on (vendor=amd, warp-size=64).

Operand and result distribution of the 16x16x16 instruction (lane l of the wave, q = l / 16, r = 0..3
the element within the lane's 4-vector):
    A  [16 x 16k]   lane l holds row l % 16, k = 4q + r
    B  [16k x 16]   lane l holds column l % 16, k = 4q + r
    C  [16 x 16]    lane l holds column l % 16, rows 4q + r
The accumulator layout is therefore the blocked layout 4x1 elements per thread, 4x16 lanes (lane
fastest along N), the waves stacked along M: each wave owns whole 16x16 blocks, and the accumulator
stays in registers across a K loop (plan_layouts gives the loop-carried value that layout).

A and B go through shared memory row-major with padded rows (as for mma.sync): A's four values along K
are one 8-byte read; B's four (a column) are four 2-byte reads.

Not executed on AMD hardware: there is no AMD GPU to run on. The layouts above follow AMD's
documentation of the instruction; tests check the generated code object (v_mfma instructions, no
undefined symbols, register and LDS limits) and the interpreter/CPU results of the same kernels.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, llvm

from . import mma
from .layouts import Blocked

TILE = 16
_INTRINSICS = {"f16": "llvm.amdgcn.mfma.f32.16x16x16f16", "bf16": "llvm.amdgcn.mfma.f32.16x16x16bf16.1k"}


def mfma_kind(op, num_warps: int) -> str | None:
    """The operand type ("f16" or "bf16") when this tile.dot fits the instruction, else None."""
    signature = mma.dot_signature(op)
    if signature is None or signature[3] not in _INTRINSICS:
        return None
    m, n, k, ea = signature
    if m % (TILE * num_warps) or n % TILE or k % TILE:
        return None  # every wave owns whole 16-row blocks
    if mma._smem_bytes(m, n, k) > 64 * 1024:  # LDS per workgroup
        return None
    return ea


def accumulator_layout(m: int, n: int, num_warps: int) -> Blocked:
    return Blocked((m, n), (4, 1), (4, 16), (num_warps, 1), (1, 0))


def _c(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result


def lower_dot(lowering, op, kind: str, smem_ptr_type, dynamic_index: int) -> None:
    """Replaces `op` (a tile.dot) with matrix-core code inside `lowering` (a _KernelLowering)."""
    warps = lowering.num_warps
    m, n, k, half, a_layout, a_regs, b_layout, b_regs, c_layout, c_regs = mma.dot_operands(
        lowering, op, accumulator_layout
    )

    base = lowering.smem(mma._smem_bytes(m, n, k))
    i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
    ra = base
    rb = llvm.GEPOp(smem_ptr_type, base, [], [mma._align(m * (k + mma.PAD) * 2)], i8, 0).result

    def at(region, row, col, width, elem=half):
        index = arith.addi(arith.muli(row, _c(width + mma.PAD)), col)
        return llvm.GEPOp(smem_ptr_type, region, [index], [dynamic_index], ir.TypeAttr.get(elem), 0).result

    lowering.smem_write_fence()
    mma.store_rows(lowering, a_regs, a_layout, lambda r, c: at(ra, r, c, k), half)
    mma.store_rows(lowering, b_regs, b_layout, lambda r, c: at(rb, r, c, n), half)
    gpu.BarrierOp()

    lane16 = arith.remui(lowering.lane, _c(16))
    quad4 = arith.muli(arith.divui(lowering.lane, _c(16)), _c(4))  # this lane's first k (or row)
    row_base = arith.addi(arith.muli(lowering.warp, _c(TILE)), lane16)  # A rows: 16w + l % 16
    slot = {static: i for i, static in enumerate(c_layout.registers)}
    vec4 = ir.VectorType.get([4], half)
    i16x4 = ir.VectorType.get([4], ir.IntegerType.get_signless(16))
    f32x4 = ir.VectorType.get([4], ir.F32Type.get())
    for tm in range(m // (TILE * warps)):
        row = arith.addi(row_base, _c(tm * TILE * warps))
        for tn in range(n // TILE):
            col = arith.addi(lane16, _c(tn * TILE))
            regs = [slot[(tm * TILE * warps + r, tn * TILE)] for r in range(4)]
            c = llvm.UndefOp(f32x4).result
            for r, reg in enumerate(regs):
                c = llvm.InsertElementOp(c, c_regs[reg], _c(r)).result
            for k0 in range(0, k, TILE):
                kq = arith.addi(quad4, _c(k0))
                a_vec = llvm.LoadOp(vec4, at(ra, row, kq, k), alignment=8).result
                b_vec = llvm.UndefOp(vec4).result
                for r in range(4):
                    value = llvm.LoadOp(half, at(rb, arith.addi(kq, _c(r)), col, n)).result
                    b_vec = llvm.InsertElementOp(b_vec, value, _c(r)).result
                if kind == "bf16":  # the bf16 instruction takes its operands as i16 vectors
                    a_vec, b_vec = llvm.BitcastOp(i16x4, a_vec).result, llvm.BitcastOp(i16x4, b_vec).result
                c = llvm.CallIntrinsicOp(
                    f32x4,
                    ir.StringAttr.get(_INTRINSICS[kind]),
                    [a_vec, b_vec, c, _c(0), _c(0), _c(0)],
                    [],
                    [],
                ).results[0]
            for r, reg in enumerate(regs):
                c_regs[reg] = llvm.ExtractElementOp(c, _c(r)).result
    lowering.smem_dirty = True
    lowering.set_natural(op.results[0], c_layout, c_regs)
