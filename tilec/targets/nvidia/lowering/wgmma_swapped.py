"""tf32 warpgroup MMA of a row-major B, computed as its transpose (C^T = B^T A^T), for convert-tile-to-gpu.

The tf32 form of `wgmma.mma_async` reads its shared-memory operands K-major only (no transpose
immediates, unlike fp16/bf16), and a row-major fp32 B ([K, N], N contiguous, the usual `a @ b`) is
N-major. Stored transposed from registers it ran at 175 TFLOP/s on an H200 at 4096^3 (B loaded four
K-neighbours per thread so that each store is 16 bytes, wgmma.row_major_tf32_b_loads), streamed by
4-byte cp.async copies at 214 (one address register per value), where a column-major B streams at
305 and cuBLAS reaches 352-399. Transposed as below: 335 (256x128x32, 8 warps).

The instruction's *A* operand may come from registers instead, in any memory order. So the dot is
issued transposed: the instruction's M is the dot's N, its N the dot's M, its A the fragments of B^T
(loaded from shared memory by each thread, four 4-byte loads per 64-row block and k-step) and its B
is A^T, which is K-major exactly when A is row-major: A's rows go to shared memory K-major as
`tl.trans(X)` operands do (Staging's "trans" mode). Both operands then stream with 16-byte cp.async
copies, B as it lies in memory: rows of N values padded by 8 (so that a warp's fragment loads, 8 rows
of N by 4 of K, hit 32 distinct banks).

The A fragments are registers the MMA reads while it runs, so each MMA is waited for before the
next iteration's fragment loads rewrite them (after that iteration's barrier, so that the MMA still
overlaps the copies' wait, the barrier and the copies ahead); waited for one iteration later, as
the 16-bit path does, the sums came out wrong on an H200.

The instruction's accumulator is C^T in wgmma's own layout; seen from C it is the transpose of
`wgmma.accumulator_layout(n, m)` (`accumulator_layout` here): two M-neighbours per thread, lanes
4 along M by 8 along N, each warp's 8 N-rows repeated twice, the warps stacked along N. It is an
ordinary blocked layout, so epilogues, stores and loop-carried accumulators need nothing special;
each warpgroup owns 64-row blocks of N (`wgmma._block_row` gives their static offsets).

Used for tf32 dots whose A and B come from loads, B's row-major in memory (an A computed in the
loop such as attention's p keeps wgmma.lower_dot's path), when N is whole 64-row blocks per
warpgroup and M (the instruction's width) at most 256.

Where both operands' tiles come through tensor maps (descriptors, or pointer loads raised by
tile-pointer-tensor-copies) the ring is filled by tensor copies (tma.py), which write whole box rows
and cannot pad them: B then sits as the 16-bit path's N-major B does, in 128-byte swizzled atoms
(SwappedStaging's `swizzled_b`), and each fragment load's address XORs its 16-byte chunk with k mod
8 (`fragment_offset`; a warp's 32 loads then fall in 16 banks, two ways each, where the padded rows
spread them over 32).
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, llvm

from tilec.dialects import tile
from tilec.passes import tensor_cores
from tilec.passes.layouts import Blocked

from . import mma, wgmma

PAD = 8  # fp32 values after each row of B in shared memory (bank spread of the fragment loads)


def applies(dot, num_warps: int, axis) -> bool:
    """This tile.dot goes transposed: tf32 warpgroup MMA, A and B from pointer loads (directly or
    through prefetching's loop-carried copies), B's row-major in memory, the shape fitting."""
    if wgmma.wgmma_kind(dot, num_warps) != "tf32.tf32" or wgmma.transposed_b_source(dot) is not None:
        return False
    (m, k), (_, n) = tile.shape_of(dot.operands[0].type), tile.shape_of(dot.operands[1].type)
    if n % (16 * num_warps) or m % 8 or m > wgmma.MAX_N or stage_bytes(m, n, k) > mma.SMEM_LIMIT:
        return False
    loads = wgmma._loads_behind(dot.operands[1])
    if not loads:
        return False
    # A computed in the loop (attention's p @ v) would be stored from registers every iteration:
    # not run on a GPU yet in this form, so such dots keep wgmma.lower_dot's path
    if not wgmma._loads_behind(dot.operands[0]):
        return False
    for load in loads:
        info = axis.get(load.operands[0])
        if not (info.contiguity[1] > 1 and info.contiguity[0] == 1):
            return False
    return True


def accumulator_layout(m: int, n: int, num_warps: int) -> Blocked:
    """The transpose of wgmma's accumulator layout of the [N, M] product."""
    t = wgmma.accumulator_layout(n, m, num_warps)
    return Blocked(
        (m, n), t.size_per_thread[::-1], t.threads_per_warp[::-1], t.warps_per_cta[::-1], (0, 1),
        warp_repeats=t.warp_repeats[::-1],
    )  # fmt: skip


def stage_bytes(m: int, n: int, k: int) -> int:
    """One stage buffer (cp.async ring or registers' stores): A^T swizzled, then B's padded rows."""
    return SwappedStaging(m, n, k, 4, swizzle=True).bytes


class SwappedStaging:
    """Where a transposed dot's operands sit in one stage buffer: A ([M, K]) at offset 0 as the
    instruction's K-major B (wgmma.Staging in "trans" mode, swizzled for cp.async and tensor
    copies), B ([K, N]) after it in rows of N + PAD values or, with `swizzled_b` (a ring filled by
    tensor copies, which cannot pad rows), as an N-major B of the 16-bit path: 128-byte swizzled
    atoms of K rows by 32 values of N, one after another along N (1024-aligned)."""

    b_mode = "swapped"
    a_in_registers = False
    a_m_major = False
    elem_bytes = 4

    def __init__(self, m: int, n: int, k: int, num_warps: int, swizzle: bool, swizzled_b: bool = False):
        self.m, self.n, self.k, self.num_warps = m, n, k, num_warps
        # the instruction's B is A^T: N = our M, from A's rows as X of tl.trans(X); no A of its own
        self.a_t = wgmma.Staging(
            n, m, k, "tf32.tf32", num_warps, "trans", swizzle=swizzle, a_in_registers=True
        )
        self.swizzle = self.a_t.swizzle
        self.a_width = self.a_t.b_width if self.swizzle else None  # A's rows as tensor copies see them
        # (atoms K rows tall: K a multiple of 8 keeps each 1024-byte aligned, the swizzle phase k & 7)
        self.swizzled_b = swizzled_b and self.swizzle and k % 8 == 0 and n % 32 == 0
        self.b_width = 128 if self.swizzled_b else None
        if self.swizzled_b:
            self.row_bytes = None
            self.k_row_bytes = 128  # from row k to row k + 1 of B within an atom
            self.b_start = wgmma._align(self.a_t.bytes)
            total = self.b_start + k * n * 4
        else:
            self.row_bytes = self.k_row_bytes = (n + PAD) * 4
            self.b_start = wgmma._align(self.a_t.bytes, 128)
            total = self.b_start + k * self.row_bytes
        self.bytes = wgmma._align(total) if self.swizzle else total  # ring buffers stay 1024-aligned

    def offset(self, operand: int, row, col, ops=None):
        """Byte offset of A's (m, k) (operand 0) or B's (k, n) (operand 1)."""
        ops = ops or wgmma.IR_INTS
        if operand == 0:
            return self.a_t.b_offset(row, col, ops)
        if self.swizzled_b:  # 16-byte chunk (n mod 32) / 4 of row k lands at chunk ^ (k mod 8)
            col_bytes = ops.shli(col, ops.const(2))
            logical = ops.addi(
                ops.addi(ops.muli(ops.shrui(col_bytes, ops.const(7)), ops.const(self.k * 128)),
                         ops.muli(row, ops.const(128))),
                ops.andi(col_bytes, ops.const(127)),
            )  # fmt: skip
            phase = ops.andi(ops.shrui(logical, ops.const(7)), ops.const(7))
            return ops.addi(ops.xori(logical, ops.shli(phase, ops.const(4))), ops.const(self.b_start))
        return ops.addi(
            ops.addi(ops.muli(row, ops.const(self.row_bytes)), ops.shli(col, ops.const(2))),
            ops.const(self.b_start),
        )

    def fragment_offset(self, j: int, ks: int, h: int, q: int, warp, lane, ops=None):
        """Byte offset of the word a thread (`warp`, `lane`) loads for the instruction's A in 64-row
        block j, k-step ks, half h and K quarter q: B's element (8 ks + 4 q + t, 16 w + 8 h + g +
        wgmma._block_row(j, 0)) with g = lane / 4, t = lane mod 4. The k-step adds a constant (8
        rows; the swizzle phase depends on k mod 8 only), so each (j, h, q) has one thread part."""
        ops = ops or wgmma.IR_INTS
        g, t = ops.shrui(lane, ops.const(2)), ops.andi(lane, ops.const(3))
        k = ops.addi(t, ops.const(4 * q))
        n = ops.addi(
            ops.addi(ops.muli(warp, ops.const(16)), g), ops.const(wgmma._block_row(j, h, self.num_warps))
        )
        return ops.addi(self.offset(1, k, n, ops), ops.const(8 * ks * self.k_row_bytes))


def lower_dot(lowering, op, kind: str, smem_ptr_type, dynamic_index: int) -> None:
    """Replaces `op` (a tf32 tile.dot that `applies`) with transposed warpgroup-MMA code."""
    warps, groups = lowering.num_warps, lowering.num_warps // 4
    ring = lowering.rings.get(op)
    in_smem = ring.operands if ring is not None else {}
    ops = tensor_cores.dot_operands(lowering, op, accumulator_layout, skip=in_smem)
    m, n, k, c_layout, c_regs = ops.m, ops.n, ops.k, ops.c_layout, list(ops.c_regs)
    staging = ring.staging if ring is not None else SwappedStaging(m, n, k, warps, swizzle=False)
    buffer = wgmma.DotBuffer.choose(
        lowering, op, ring, staging.bytes, wgmma.pipelined_loop(op), smem_ptr_type, dynamic_index
    )
    byte_at = buffer.byte_at
    f32, i32 = ir.F32Type.get(), ir.IntegerType.get_signless(32)
    for index, regs, layout in ((0, ops.a_regs, ops.a_layout), (1, ops.b_regs, ops.b_layout)):
        if index not in in_smem:
            at = lambda r, c, index=index: byte_at(0, staging.offset(index, r, c))  # noqa: E731
            tensor_cores.store_rows(lowering, regs, layout, at, ops.elem, run_limit=4)
    buffer.publish(lowering, ring, stored_from_registers=len(in_smem) < 2)
    pipelined = buffer.pipelined is not None
    if pipelined:
        # The previous iteration's MMA still runs on the accumulators and on its A fragments, which
        # are registers too: those must not be rewritten before it is done (PTX: undefined), and the
        # fragment loads below would rewrite them (on an H200 that gave wrong sums). So it is waited
        # for here rather than at the end of that iteration (`wgmma.wait_group 1`, wgmma.lower_dot):
        # it still overlaps the end of its iteration, the copies' wait, the barrier and the copies
        # ahead. Past the barrier every warp has waited for MMA i - 2, as the ring needs.
        c_regs = wgmma._tied_asm("wgmma.wait_group.sync.aligned 0;", c_regs)

    # B^T's fragments, rows n = 16 w + g (+ 8) of each 64-row block, columns k = t (+ 4) of each
    # k-step: a thread's part of the address once, the rest constant.
    steps, blocks = k // 8, n // (64 * groups)
    if staging.swizzled_b:  # one thread part per (j, h, q): the swizzle mixes n and k (fragment_offset)
        parts = {}

        def word(j: int, ks: int, h: int, q: int) -> ir.Value:
            if (j, h, q) not in parts:
                parts[j, h, q] = staging.fragment_offset(j, 0, h, q, lowering.warp, lowering.lane)
            value = llvm.LoadOp(f32, byte_at(8 * ks * staging.k_row_bytes, parts[j, h, q])).result
            return llvm.BitcastOp(i32, value).result
    else:
        g, t = arith.divui(lowering.lane, _c(4)), arith.remui(lowering.lane, _c(4))
        row = arith.addi(arith.muli(lowering.warp, _c(16)), g)
        thread_part = arith.addi(arith.muli(t, _c(staging.row_bytes)), arith.muli(row, _c(4)))

        def word(j: int, ks: int, h: int, q: int) -> ir.Value:
            static = (
                staging.b_start + (8 * ks + 4 * q) * staging.row_bytes + 4 * wgmma._block_row(j, h, warps)
            )
            value = llvm.LoadOp(f32, byte_at(static, thread_part)).result
            return llvm.BitcastOp(i32, value).result

    fragments = [
        [[word(j, ks, h, q) for q in (0, 1) for h in (0, 1)] for ks in range(steps)] for j in range(blocks)
    ]
    b_base = wgmma._descriptor(byte_at(0, _c(0)), *staging.a_t.b_fields())
    zero_start = all(wgmma._is_positive_zero(v) for v in c_regs)
    slot = {static: i for i, static in enumerate(c_layout.registers)}
    wgmma._asm("wgmma.fence.sync.aligned;")
    touched = []
    for j in range(blocks):
        # instruction register 4 jn + 2 h + e: its row 8 h + g (our n), column 8 jn + 2 t + e (our m)
        regs = [
            slot[(8 * jn + e, wgmma._block_row(j, h, warps))]
            for jn in range(m // 8)
            for h in (0, 1)
            for e in (0, 1)
        ]
        for ks in range(steps):
            fresh = zero_start and ks == 0  # scale-d = 0: the accumulator is not read
            inputs = [llvm.UndefOp(f32).result for _ in regs] if fresh else [c_regs[r] for r in regs]
            desc_b = wgmma._descriptor_at(b_base, staging.a_t.b_step(ks, 0))
            outs = _wgmma_tf32_a_registers(m, fragments[j][ks], desc_b, inputs, 0 if fresh else 1)
            for r, v in zip(regs, outs):
                c_regs[r] = v
        touched.extend(regs)
    wgmma._asm("wgmma.commit_group.sync.aligned;")
    if not pipelined:
        waited = wgmma._tied_asm("wgmma.wait_group.sync.aligned 0;", [c_regs[r] for r in touched])
        for r, v in zip(touched, waited):
            c_regs[r] = v
    buffer.finish(lowering)
    lowering.set_natural(op.results[0], c_layout, c_regs)


def _wgmma_tf32_a_registers(width: int, a_words, desc_b, acc, scale_d: int) -> list[ir.Value]:
    """`wgmma.mma_async m64n{width}k8.f32.tf32.tf32` with A's fragment in four registers."""
    count = len(acc)
    d = ", ".join(f"${i}" for i in range(count))
    a = "{" + ", ".join(f"${count + i}" for i in range(4)) + "}"
    text = (
        "{ .reg .pred p; setp.ne.b32 p, $" + str(count + 5) + ", 0; "
        f"wgmma.mma_async.sync.aligned.m64n{width}k8.f32.tf32.tf32 {{{d}}}, {a}, ${count + 4}, p, 1, 1; }}"
    )
    return wgmma._tied_asm(text, acc, extra=(*a_words, desc_b, _c(scale_d)), extra_constraints="r,r,r,r,l,r")


def _c(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result
