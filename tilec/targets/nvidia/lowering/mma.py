"""tl.dot on NVIDIA tensor cores (sm_80 and newer): `mma.sync.aligned.m16n8k16` for fp16 and bf16
inputs with an fp32 accumulator (also `m16n8k8` tf32 for fp32 inputs and `m16n8k32` for int8 with an
i32 accumulator, below). Used by convert-tile-to-gpu when its `mma` option is on.

The accumulator lives in registers in a blocked layout that *is* the instruction's C fragment layout
(`accumulator_layout`: 1x2 elements per thread, 8x4 lanes, the warps side by side along N), so a
loop-carried `acc = tl.dot(a, b, acc)` never leaves registers (`plan_layouts` gives the loop's carried
value that layout). A and B go through shared memory, row-major with rows padded by 8 elements (the
fragment reads of a warp then hit 32 different banks), written with 16-byte vector stores. A's pair of
values along K is one 32-bit word; B's pair (two rows) is read as two 16-bit values and packed. Each
warp owns the n-tiles w, w + W, w + 2W, ... of the [M, N] output; for each 16-row m-tile and K step it
reads its A fragment once and issues one mma per n-tile.

Fragment coordinates (PTX ISA, m16n8k16, per lane: g = lane / 4, t = lane % 4):
    A   a0: (g, 2t..2t+1)   a1: (g+8, 2t..2t+1)   a2: (g, 2t+8..2t+9)   a3: (g+8, 2t+8..2t+9)
    B   b0: (k 2t..2t+1, n g)   b1: (k 2t+8..2t+9, n g)       (low half: the smaller k)
    C   c0, c1: (g, 2t..2t+1)   c2, c3: (g+8, 2t..2t+1)
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.dialects import tile
from tilec.passes.layouts import Blocked
from tilec.passes.tensor_cores import dot_operands, padded_bytes, stage_padded

TILE_M, TILE_N, TILE_K = 16, 8, 16
SMEM_LIMIT = 227 * 1024  # the most shared memory a block may opt into (H100/H200; sm_80 has 163 KiB)
_KINDS = {"f16": "f16", "bf16": "bf16"}
PAD = 8  # 16-bit elements added to every shared-memory row of A and B (bank-conflict-free reads)
TF32_K = 8  # m16n8k8 for tf32
TF32_PAD_A, TF32_PAD_B = 4, 8  # 32-bit elements: row strides of 4 and 8 banks mod 32 (conflict-free)
S8_K = 32  # m16n8k32 for int8
S8_PAD = 16  # bytes added to every row of A and B: A's word reads of a warp hit 32 different banks


def dot_signature(op) -> tuple[int, int, int, str] | None:
    """(m, n, k, operand type) of a tile.dot with fp32 accumulation and equal operand types, else None:
    the only dots any tensor-core lowering takes."""
    a, b, acc = op.operands
    (m, k), (_, n) = tile.shape_of(a.type), tile.shape_of(b.type)
    ea, eb, ec = (str(tile.element_of(x.type)) for x in (a, b, acc))
    if ec != "f32" or ea != eb:
        return None
    return m, n, k, ea


def mma_kind(op, num_warps: int) -> str | None:
    """The mma operand kind ("f16", "bf16", "tf32", "tf32x3", "s8") when this tile.dot fits, else None."""
    a, b, acc = (str(tile.element_of(v.type)) for v in op.operands)
    if a == b == "i8" and acc == "i32":
        (m, k), (_, n) = tile.shape_of(op.operands[0].type), tile.shape_of(op.operands[1].type)
        if m % TILE_M or k % S8_K or n % (TILE_N * num_warps):
            return None
        return "s8" if padded_bytes(m, n, k, S8_PAD, S8_PAD, 1) <= SMEM_LIMIT else None
    signature = dot_signature(op)
    if signature is None:
        return None
    m, n, k, ea = signature
    if ea == "f32":  # tf32 tensor cores, as Triton: input_precision "tf32" (its default) or "tf32x3"
        attrs = op.attributes
        precision = ir.StringAttr(attrs["input_precision"]).value if "input_precision" in attrs else "ieee"
        if precision not in ("tf32", "tf32x3"):
            return None
        if m % TILE_M or k % TF32_K or n % (TILE_N * num_warps) or _tf32_smem_bytes(m, n, k) > SMEM_LIMIT:
            return None
        return precision
    if ea not in _KINDS:
        return None
    if m % TILE_M or k % TILE_K or n % (TILE_N * num_warps):
        return None  # the warps side by side along N, each with whole 16x8 tiles
    if _smem_bytes(m, n, k) > SMEM_LIMIT:
        return None
    return _KINDS[ea]


def accumulator_layout(m: int, n: int, num_warps: int) -> Blocked:
    """The C fragment layout of m16n8k16 as a blocked layout: lane (g, t) holds row g and cols 2t, 2t+1
    of each 8x8 block; the register repeat along rows gives the 16x8 tile's rows g + 8."""
    return Blocked((m, n), (1, 2), (8, 4), (1, num_warps), (1, 0))


def _smem_bytes(m: int, n: int, k: int) -> int:
    return padded_bytes(m, n, k, PAD, PAD, 2)


def _c(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result


def lower_dot(lowering, op, kind: str, smem_ptr_type, dynamic_index: int) -> None:
    """Replaces `op` (a tile.dot) with tensor-core code inside `lowering` (a convert_tile_to_gpu KernelLowering)."""
    if kind in ("tf32", "tf32x3"):
        _lower_tf32(lowering, op, kind, smem_ptr_type, dynamic_index)
        return
    if kind == "s8":
        _lower_s8(lowering, op, smem_ptr_type, dynamic_index)
        return
    i32 = ir.IntegerType.get_signless(32)
    warps = lowering.num_warps
    ops = dot_operands(lowering, op, accumulator_layout)
    m, n, k, c_layout, c_regs = ops.m, ops.n, ops.k, ops.c_layout, list(ops.c_regs)
    a_at, b_at = stage_padded(lowering, ops, PAD, PAD, smem_ptr_type, dynamic_index)

    g = arith.shrui(lowering.lane, _c(2))
    t2 = arith.muli(arith.andi(lowering.lane, _c(3)), _c(2))
    slot = {static: i for i, static in enumerate(c_layout.registers)}
    i16 = ir.IntegerType.get_signless(16)
    n_tiles = n // (TILE_N * warps)  # this warp's n-tiles: w, w + W, w + 2W, ...
    b_words = {}
    for i in range(n_tiles):
        col = _n_tile_column(lowering, i, g)
        for k0 in range(0, k, TILE_K):
            for off in (0, 8):  # B is row-major [K, N]: the pair along K is two 16-bit reads, packed
                row = arith.addi(t2, _c(k0 + off))
                lo = llvm.LoadOp(i16, b_at(row, col)).result
                hi = llvm.LoadOp(i16, b_at(arith.addi(row, _c(1)), col)).result
                word = arith.ori(arith.extui(i32, lo), arith.shli(arith.extui(i32, hi), _c(16)))
                b_words[i, k0, off] = word
    for tm in range(m // TILE_M):
        row0 = arith.addi(g, _c(TILE_M * tm))
        row1 = arith.addi(g, _c(TILE_M * tm + 8))
        for k0 in range(0, k, TILE_K):
            ka, kb = arith.addi(t2, _c(k0)), arith.addi(t2, _c(k0 + 8))
            # A is row-major [M, K]: two values along K are one aligned 32-bit word; read once, used
            # for every n-tile of the warp.
            a_words = [
                llvm.LoadOp(i32, a_at(r, c)).result
                for r, c in ((row0, ka), (row1, ka), (row0, kb), (row1, kb))
            ]
            for i in range(n_tiles):
                regs = _c_slots(slot, tm, i, warps)
                cs = _mma(kind, a_words, [b_words[i, k0, 0], b_words[i, k0, 8]], [c_regs[r] for r in regs])
                for r, v in zip(regs, cs):
                    c_regs[r] = v
    lowering.smem_dirty = True
    lowering.set_natural(op.results[0], c_layout, c_regs)


def _n_tile_column(lowering, i: int, g: ir.Value) -> ir.Value:
    """The B column lane group g reads in this warp's i-th n-tile (the warps' tiles interleave: warp w
    owns n-tiles w, w + W, w + 2W, ...)."""
    return arith.addi(arith.muli(arith.addi(lowering.warp, _c(i * lowering.num_warps)), _c(TILE_N)), g)


def _c_slots(slot: dict, tm: int, i: int, warps: int) -> list[int]:
    """Accumulator register indices of the c0..c3 fragment of m-tile tm, this warp's n-tile i."""
    return [slot[(TILE_M * tm + dr, TILE_N * warps * i + dc)] for dr in (0, 8) for dc in (0, 1)]


def _mma(kind: str, a_words, b_words, c) -> list[ir.Value]:
    return _mma_sync(f"m16n8k16.row.col.f32.{kind}.{kind}.f32", a_words, b_words, c)


def _mma_sync(shape_and_types: str, a_words, b_words, c) -> list[ir.Value]:
    """One `mma.sync.aligned.<shape_and_types>` with 4 A words, 2 B words and 4 accumulators (f32,
    or i32 for the integer forms)."""
    t = c[0].type
    result = ir.Type.parse(f"!llvm.struct<({t}, {t}, {t}, {t})>")
    asm = (
        f"mma.sync.aligned.{shape_and_types} "
        "{$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};"
    )
    reg = "f" if str(t) == "f32" else "r"
    constraints = ",".join([f"={reg}"] * 4 + ["r"] * 6 + [reg] * 4)
    d = llvm.InlineAsmOp(result, [*a_words, *b_words, *c], asm, constraints).result
    return [llvm.ExtractValueOp(t, d, [i]).result for i in range(4)]


def _tf32_smem_bytes(m: int, n: int, k: int) -> int:
    return padded_bytes(m, n, k, TF32_PAD_A, TF32_PAD_B, 4)


def _lower_tf32(lowering, op, kind: str, smem_ptr_type, dynamic_index: int) -> None:
    """fp32 tl.dot on `mma.sync.m16n8k8.tf32` (PTX ISA fragments, g = lane / 4, t = lane % 4):
        A   a0: (g, t)   a1: (g+8, t)   a2: (g, t+4)   a3: (g+8, t+4)
        B   b0: (k t, n g)   b1: (k t+4, n g)
        C   as m16n8k16
    "tf32" rounds each operand to tf32 (cvt.rna); "tf32x3" splits x = hi + lo (both tf32) and adds
    a_lo*b_hi + a_hi*b_lo + a_hi*b_hi, close to fp32 accuracy at three MMAs per block."""
    warps = lowering.num_warps
    ops = dot_operands(lowering, op, accumulator_layout)
    m, n, k, f32, c_layout, c_regs = ops.m, ops.n, ops.k, ops.elem, ops.c_layout, list(ops.c_regs)
    a_at, b_at = stage_padded(lowering, ops, TF32_PAD_A, TF32_PAD_B, smem_ptr_type, dynamic_index, 4)

    def split(x):
        """[hi] for tf32, [hi, lo] for tf32x3 (as b32 registers)."""
        hi = _to_tf32(x)
        if kind == "tf32":
            return [hi]
        return [hi, _to_tf32(arith.subf(x, arith.bitcast(f32, hi)))]

    g = arith.shrui(lowering.lane, _c(2))
    t = arith.andi(lowering.lane, _c(3))
    slot = {static: i for i, static in enumerate(c_layout.registers)}
    n_tiles = n // (TILE_N * warps)
    b_parts = {}
    for i in range(n_tiles):
        col = _n_tile_column(lowering, i, g)
        for k0 in range(0, k, TF32_K):
            pair = [split(llvm.LoadOp(f32, b_at(arith.addi(t, _c(k0 + off)), col)).result) for off in (0, 4)]
            b_parts[i, k0] = pair
    for tm in range(m // TILE_M):
        row0, row1 = arith.addi(g, _c(TILE_M * tm)), arith.addi(g, _c(TILE_M * tm + 8))
        for k0 in range(0, k, TF32_K):
            ka, kb = arith.addi(t, _c(k0)), arith.addi(t, _c(k0 + 4))
            a_parts = [
                split(llvm.LoadOp(f32, a_at(r, c)).result)
                for r, c in ((row0, ka), (row1, ka), (row0, kb), (row1, kb))
            ]
            # (a part, b part) products, smallest first: lo*hi, hi*lo, then hi*hi
            terms = [(0, 0)] if kind == "tf32" else [(1, 0), (0, 1), (0, 0)]
            for i in range(n_tiles):
                regs = _c_slots(slot, tm, i, warps)
                cs = [c_regs[r] for r in regs]
                for pa, pb in terms:
                    a_words = [parts[pa] for parts in a_parts]
                    b_words = [b_parts[i, k0][0][pb], b_parts[i, k0][1][pb]]
                    cs = _mma_tf32(a_words, b_words, cs)
                for r, v in zip(regs, cs):
                    c_regs[r] = v
    lowering.smem_dirty = True
    lowering.set_natural(op.results[0], c_layout, c_regs)


def _to_tf32(x: ir.Value) -> ir.Value:
    i32 = ir.IntegerType.get_signless(32)
    return llvm.InlineAsmOp(i32, [x], "cvt.rna.tf32.f32 $0, $1;", "=r,f").result


def _mma_tf32(a_words, b_words, c) -> list[ir.Value]:
    return _mma_sync("m16n8k8.row.col.f32.tf32.tf32.f32", a_words, b_words, c)


def _lower_s8(lowering, op, smem_ptr_type, dynamic_index: int) -> None:
    """int8 tl.dot with an i32 accumulator on `mma.sync.m16n8k32.s32.s8.s8.s32` (PTX ISA fragments,
    g = lane / 4, t = lane % 4; each register holds four consecutive k values, the smallest lowest):
        A   a0: (g, 4t..4t+3)   a1: (g+8, 4t..4t+3)   a2: (g, 16+4t..)   a3: (g+8, 16+4t..)
        B   b0: (k 4t..4t+3, n g)   b1: (k 16+4t..16+4t+3, n g)
        C   as m16n8k16"""
    warps = lowering.num_warps
    ops = dot_operands(lowering, op, accumulator_layout)
    m, n, k, c_layout, c_regs = ops.m, ops.n, ops.k, ops.c_layout, list(ops.c_regs)
    a_at, b_at = stage_padded(lowering, ops, S8_PAD, S8_PAD, smem_ptr_type, dynamic_index, 16)
    i32 = ir.IntegerType.get_signless(32)
    i8 = ir.IntegerType.get_signless(8)

    g = arith.shrui(lowering.lane, _c(2))
    t4 = arith.muli(arith.andi(lowering.lane, _c(3)), _c(4))
    slot = {static: i for i, static in enumerate(c_layout.registers)}
    n_tiles = n // (TILE_N * warps)
    b_words = {}
    for i in range(n_tiles):
        col = _n_tile_column(lowering, i, g)
        for k0 in range(0, k, S8_K):
            for off in (0, 16):  # B is row-major [K, N]: four rows' bytes packed into one word
                row = arith.addi(t4, _c(k0 + off))
                word = None
                for j in range(4):
                    byte = arith.extui(i32, llvm.LoadOp(i8, b_at(arith.addi(row, _c(j)), col)).result)
                    byte = arith.shli(byte, _c(8 * j)) if j else byte
                    word = byte if word is None else arith.ori(word, byte)
                b_words[i, k0, off] = word
    for tm in range(m // TILE_M):
        row0, row1 = arith.addi(g, _c(TILE_M * tm)), arith.addi(g, _c(TILE_M * tm + 8))
        for k0 in range(0, k, S8_K):
            ka, kb = arith.addi(t4, _c(k0)), arith.addi(t4, _c(k0 + 16))
            a_words = [  # four k values along a row of A are one aligned word
                llvm.LoadOp(i32, a_at(r, c)).result
                for r, c in ((row0, ka), (row1, ka), (row0, kb), (row1, kb))
            ]
            for i in range(n_tiles):
                regs = _c_slots(slot, tm, i, warps)
                cs = _mma_sync(
                    "m16n8k32.row.col.s32.s8.s8.s32",
                    a_words,
                    [b_words[i, k0, 0], b_words[i, k0, 16]],
                    [c_regs[r] for r in regs],
                )
                for r, v in zip(regs, cs):
                    c_regs[r] = v
    lowering.smem_dirty = True
    lowering.set_natural(op.results[0], c_layout, c_regs)
