"""tl.dot on AMD matrix cores (CDNA: gfx90a, gfx94x, gfx950): one wave64 instruction per 16x16 block and
k-step, chosen by the operand types:
    fp16   v_mfma_f32_16x16x16_f16        fp32 accumulator
    bf16   v_mfma_f32_16x16x16_bf16       fp32 accumulator
    fp32   v_mfma_f32_16x16x4_f32         fp32 accumulator (any input_precision: fp32 products, as
                                          exact as "ieee" asks and more than "tf32" needs)
    int8   v_mfma_i32_16x16x32_i8 (CDNA3) or v_mfma_i32_16x16x16_i8 (CDNA2), int32 accumulator
Used by convert-tile-to-gpu when its `mfma` option is on (vendor=amd, warp-size=64); `mfma-i8-k`
says which int8 instruction the chip has (32 on gfx94x/gfx950, 16 on gfx90a).

Operand and result distribution of a 16x16xK instruction (lane l of the wave, q = l / 16, L = K / 4
values of K per lane, r = 0..L-1 the value within the lane's operand; AMD's matrix instruction
layouts, the same for every such instruction):
    A  [16 x K]    lane l holds row l % 16, k = L q + r
    B  [K x 16]    lane l holds column l % 16, k = L q + r
    C  [16 x 16]   lane l holds column l % 16, rows 4q + r (r = 0..3)
An operand's L values go in one register or register pair: L x 16-bit as a 4-vector, int8 packed 4
or 8 to a 32- or 64-bit integer (value r in byte r), fp32 one value. The accumulator layout is
therefore the blocked layout 4x1 elements per thread, 4x16 lanes (lane fastest along N), the waves
stacked along M: each wave owns whole 16x16 blocks, and the accumulator stays in registers across a
K loop (plan_layouts gives the loop-carried value that layout).

A and B go through shared memory row-major with rows padded by 16 bytes (as for mma.sync): A's L
values along K are one vector read; B's (a column) are L scalar reads.

Not executed on AMD hardware: there is no AMD GPU to run on. The layouts above follow AMD's
documentation of the instructions; tests check the generated code object (v_mfma instructions, no
undefined symbols, register and LDS limits) and the interpreter/CPU results of the same kernels.
"""

from __future__ import annotations

from typing import NamedTuple

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.dialects import tile
from tilec.passes import tensor_cores
from tilec.passes.layouts import Blocked

TILE = 16
LDS_LIMIT = 64 * 1024  # LDS per workgroup
PAD_BYTES = 16  # added to every shared-memory row of A and B


class _Instruction(NamedTuple):
    intrinsic: str
    k: int  # K of one instruction
    accumulator: str  # "f32" or "i32"


def instruction(kind: str, i8_k: int = 32) -> _Instruction:
    """The 16x16 instruction of an operand kind ("f16", "bf16", "f32", "i8")."""
    if kind == "i8":
        if i8_k == 32:
            return _Instruction("llvm.amdgcn.mfma.i32.16x16x32.i8", 32, "i32")
        return _Instruction("llvm.amdgcn.mfma.i32.16x16x16i8", 16, "i32")
    return {
        "f16": _Instruction("llvm.amdgcn.mfma.f32.16x16x16f16", 16, "f32"),
        "bf16": _Instruction("llvm.amdgcn.mfma.f32.16x16x16bf16.1k", 16, "f32"),
        "f32": _Instruction("llvm.amdgcn.mfma.f32.16x16x4f32", 4, "f32"),
    }[kind]


def mfma_kind(op, num_warps: int, i8_k: int = 32) -> str | None:
    """The operand kind ("f16", "bf16", "f32" or "i8") when this tile.dot fits an instruction, else None."""
    a, b, acc = (str(tile.element_of(v.type)) for v in op.operands)
    if a != b or (a, acc) not in (("f16", "f32"), ("bf16", "f32"), ("f32", "f32"), ("i8", "i32")):
        return None
    (m, k), (_, n) = tile.shape_of(op.operands[0].type), tile.shape_of(op.operands[1].type)
    if m % (TILE * num_warps) or n % TILE or k % instruction(a, i8_k).k:
        return None  # every wave owns whole 16-row blocks
    elem_bytes = {"i8": 1, "f32": 4}.get(a, 2)
    pad = PAD_BYTES // elem_bytes
    if tensor_cores.padded_bytes(m, n, k, pad, pad, elem_bytes) > LDS_LIMIT:
        return None
    return a


def accumulator_layout(m: int, n: int, num_warps: int) -> Blocked:
    return Blocked((m, n), (4, 1), (4, 16), (num_warps, 1), (1, 0))


def _c(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result


def lower_dot(lowering, op, kind: str, smem_ptr_type, dynamic_index: int) -> None:
    """Replaces `op` (a tile.dot) with matrix-core code inside `lowering` (a convert_tile_to_gpu KernelLowering)."""
    warps = lowering.num_warps
    inst = instruction(kind, lowering.mfma_i8_k)
    per_lane = inst.k // 4  # L: values of K a lane holds
    ops = tensor_cores.dot_operands(lowering, op, accumulator_layout)
    m, n, k, elem, c_layout, c_regs = ops.m, ops.n, ops.k, ops.elem, ops.c_layout, list(ops.c_regs)
    elem_bytes = elem.width // 8
    pad = PAD_BYTES // elem_bytes
    a_at, b_at = tensor_cores.stage_padded(
        lowering, ops, pad, pad, smem_ptr_type, dynamic_index, run_limit=16 // elem_bytes
    )

    lane16 = arith.remui(lowering.lane, _c(16))
    first_k = arith.muli(arith.divui(lowering.lane, _c(16)), _c(per_lane))  # this lane's first k
    row_base = arith.addi(arith.muli(lowering.warp, _c(TILE)), lane16)  # A rows: 16w + l % 16
    slot = {static: i for i, static in enumerate(c_layout.registers)}
    acc_type = ir.F32Type.get() if inst.accumulator == "f32" else ir.IntegerType.get_signless(32)
    acc4 = ir.VectorType.get([4], acc_type)
    for tm in range(m // (TILE * warps)):
        row = arith.addi(row_base, _c(tm * TILE * warps))
        for tn in range(n // TILE):
            col = arith.addi(lane16, _c(tn * TILE))
            regs = [slot[(tm * TILE * warps + r, tn * TILE)] for r in range(4)]
            c = llvm.UndefOp(acc4).result
            for r, reg in enumerate(regs):
                c = llvm.InsertElementOp(c, c_regs[reg], _c(r)).result
            for k0 in range(0, k, inst.k):
                kq = arith.addi(first_k, _c(k0))
                if per_lane == 1:
                    a_op = llvm.LoadOp(elem, a_at(row, kq)).result
                    b_op = llvm.LoadOp(elem, b_at(kq, col)).result
                else:
                    vec = ir.VectorType.get([per_lane], elem)
                    a_op = llvm.LoadOp(vec, a_at(row, kq), alignment=per_lane * elem_bytes).result
                    b_op = llvm.UndefOp(vec).result
                    for r in range(per_lane):
                        value = llvm.LoadOp(elem, b_at(arith.addi(kq, _c(r)), col)).result
                        b_op = llvm.InsertElementOp(b_op, value, _c(r)).result
                    a_op, b_op = _operand_type(kind, a_op), _operand_type(kind, b_op)
                c = llvm.CallIntrinsicOp(
                    acc4, ir.StringAttr.get(inst.intrinsic), [a_op, b_op, c, _c(0), _c(0), _c(0)], [], []
                ).results[0]
            for r, reg in enumerate(regs):
                c_regs[reg] = llvm.ExtractElementOp(c, _c(r)).result
    lowering.smem_dirty = True
    lowering.set_natural(op.results[0], c_layout, c_regs)


def _operand_type(kind: str, vector: ir.Value) -> ir.Value:
    """A lane's operand as the intrinsic takes it: bf16 as i16 lanes, int8 packed into one integer of
    4 or 8 bytes (value r in byte r), fp16 as it is."""
    if kind == "bf16":
        return llvm.BitcastOp(ir.VectorType.get([4], ir.IntegerType.get_signless(16)), vector).result
    if kind == "i8":
        width = ir.VectorType(vector.type).shape[0] * 8
        return llvm.BitcastOp(ir.IntegerType.get_signless(width), vector).result
    return vector
