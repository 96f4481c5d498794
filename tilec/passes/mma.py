"""tl.dot on NVIDIA tensor cores (sm_80 and newer): `mma.sync.aligned.m16n8k16` for fp16 and bf16
inputs with an fp32 accumulator. Used by convert-tile-to-gpu when its `mma` option is on.

How the operands meet the instruction's fragment layout: A, B and the accumulator are written to
shared memory from whatever blocked layout they live in (A row-major [M, K]; B transposed, [N, K], so
that each thread's pair of B values along K is one 32-bit word; C row-major [M, N] in fp32). The
[M, N] output is cut into 16x8 tiles dealt round-robin to the warps; each warp keeps its tile's four
accumulator values in registers across the K loop (steps of 16), reading its A and B fragments as
32-bit words (two 16-bit values each), and writes the tile back. The result is read out of shared
memory in the blocked layout the rest of the kernel uses.

Fragment coordinates (PTX ISA, m16n8k16, per lane: g = lane / 4, t = lane % 4):
    A   a0: (g, 2t..2t+1)   a1: (g+8, 2t..2t+1)   a2: (g, 2t+8..2t+9)   a3: (g+8, 2t+8..2t+9)
    B   b0: (k 2t..2t+1, n g)   b1: (k 2t+8..2t+9, n g)
    C   c0, c1: (g, 2t..2t+1)   c2, c3: (g+8, 2t..2t+1)
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu, llvm

from tilec.dialects import tile

TILE_M, TILE_N, TILE_K = 16, 8, 16
STATIC_SMEM_LIMIT = 48 * 1024  # bytes of static shared memory a kernel may declare
_KINDS = {"f16": "f16", "bf16": "bf16"}


def mma_kind(op, num_warps: int) -> str | None:
    """The mma operand type ("f16" or "bf16") when this tile.dot fits the instruction, else None."""
    a, b, acc = op.operands
    (m, k), (_, n) = tile.shape_of(a.type), tile.shape_of(b.type)
    ea, eb, ec = (str(tile.element_of(x.type)) for x in (a, b, acc))
    if ea != eb or ea not in _KINDS or ec != "f32":
        return None
    if m % TILE_M or n % TILE_N or k % TILE_K:
        return None
    if (m // TILE_M) * (n // TILE_N) % num_warps:
        return None  # every warp takes the same number of tiles
    if _smem_bytes(m, n, k) > STATIC_SMEM_LIMIT:
        return None
    return _KINDS[ea]


def _smem_bytes(m: int, n: int, k: int) -> int:
    return _align(m * k * 2) + _align(n * k * 2) + _align(m * n * 4)


def _align(nbytes: int) -> int:
    return -(-nbytes // 16) * 16


def _c(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result


def lower_dot(lowering, op, kind: str, smem_ptr_type, dynamic_index: int) -> None:
    """Replaces `op` (a tile.dot) with tensor-core code inside `lowering` (a _KernelLowering)."""
    a, b, acc = op.operands
    (m, k), (_, n) = tile.shape_of(a.type), tile.shape_of(b.type)
    f32 = ir.F32Type.get()
    i32 = ir.IntegerType.get_signless(32)
    half = tile.element_of(a.type)
    a_layout = lowering.layout_for([m, k], tile.element_of(a.type))
    b_layout = lowering.layout_for([k, n], tile.element_of(b.type))
    out_layout = lowering.layout_for([m, n], f32)
    a_regs, b_regs = lowering.regs(a, a_layout), lowering.regs(b, b_layout)
    c_regs = lowering.regs(acc, out_layout)

    base = lowering.smem(_smem_bytes(m, n, k))
    i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
    offsets = [0, _align(m * k * 2), _align(m * k * 2) + _align(n * k * 2)]
    ra, rb, rc = (llvm.GEPOp(smem_ptr_type, base, [], [off], i8, 0).result for off in offsets)

    def at(region, index, elem):
        return llvm.GEPOp(smem_ptr_type, region, [index], [dynamic_index], ir.TypeAttr.get(elem), 0).result

    def lin(row, col, width):
        return arith.addi(arith.muli(row, _c(width)), col)

    lowering.smem_write_fence()
    for r, (row, col) in zip(a_regs, lowering.coords(a_layout)):
        llvm.StoreOp(r, at(ra, lin(row, col, k), half))
    for r, (kk, col) in zip(b_regs, lowering.coords(b_layout)):
        llvm.StoreOp(r, at(rb, lin(col, kk, k), half))  # transposed: [N, K]
    for r, (row, col) in zip(c_regs, lowering.coords(out_layout)):
        llvm.StoreOp(r, at(rc, lin(row, col, n), f32))
    gpu.BarrierOp()

    g = arith.shrui(lowering.lane, _c(2))
    t2 = arith.muli(arith.andi(lowering.lane, _c(3)), _c(2))
    tiles_n = n // TILE_N
    tiles = (m // TILE_M) * tiles_n
    num_warps = lowering.num_warps
    for i in range(tiles // num_warps):
        index = arith.addi(lowering.warp, _c(i * num_warps))
        row0 = arith.addi(arith.muli(arith.divui(index, _c(tiles_n)), _c(TILE_M)), g)
        row1 = arith.addi(row0, _c(8))
        col0 = arith.addi(arith.muli(arith.remui(index, _c(tiles_n)), _c(TILE_N)), t2)
        col1 = arith.addi(col0, _c(1))
        n_of_lane = arith.addi(arith.muli(arith.remui(index, _c(tiles_n)), _c(TILE_N)), g)
        c_slots = [(row0, col0), (row0, col1), (row1, col0), (row1, col1)]
        cs = [llvm.LoadOp(f32, at(rc, lin(r, c, n), f32)).result for r, c in c_slots]
        for k0 in range(0, k, TILE_K):
            ka, kb = arith.addi(t2, _c(k0)), arith.addi(t2, _c(k0 + 8))
            # Two consecutive 16-bit values as one 32-bit word (offsets are even: 4-byte aligned).
            a_words = [
                llvm.LoadOp(i32, at(ra, lin(r, c, k), half)).result
                for r, c in ((row0, ka), (row1, ka), (row0, kb), (row1, kb))
            ]
            b_words = [llvm.LoadOp(i32, at(rb, lin(n_of_lane, c, k), half)).result for c in (ka, kb)]
            cs = _mma(kind, a_words, b_words, cs)
        for (r, c), v in zip(c_slots, cs):
            llvm.StoreOp(v, at(rc, lin(r, c, n), f32))
    gpu.BarrierOp()
    out = [llvm.LoadOp(f32, at(rc, lin(row, col, n), f32)).result for row, col in lowering.coords(out_layout)]
    lowering.smem_dirty = True
    lowering.set_natural(op.results[0], out_layout, out)


def _mma(kind: str, a_words, b_words, c) -> list[ir.Value]:
    f32 = ir.F32Type.get()
    result = ir.Type.parse("!llvm.struct<(f32, f32, f32, f32)>")
    asm = (
        f"mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32 "
        "{$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};"
    )
    constraints = "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f"
    d = llvm.InlineAsmOp(result, [*a_words, *b_words, *c], asm, constraints).result
    return [llvm.ExtractValueOp(f32, d, [i]).result for i in range(4)]
