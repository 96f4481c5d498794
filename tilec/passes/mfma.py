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
from mlir.dialects import arith, llvm

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
    ops = mma.dot_operands(lowering, op, accumulator_layout)
    m, n, k, half, c_layout, c_regs = ops.m, ops.n, ops.k, ops.elem, ops.c_layout, list(ops.c_regs)
    a_at, b_at = mma.stage_padded(lowering, ops, mma.PAD, mma.PAD, smem_ptr_type, dynamic_index)

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
                a_vec = llvm.LoadOp(vec4, a_at(row, kq), alignment=8).result
                b_vec = llvm.UndefOp(vec4).result
                for r in range(4):
                    value = llvm.LoadOp(half, b_at(arith.addi(kq, _c(r)), col)).result
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
