"""tl.dot on Hopper's warpgroup tensor cores (sm_90a): `wgmma.mma_async.m64nNk16` for fp16 and bf16
inputs with an fp32 accumulator, `m64nNk32` for fp8 (e4m3/e5m2, as bytes from tile-lower-fp8) with an
fp32 accumulator and for int8 with an i32 one, `m64nNk8` for fp32 inputs as tf32. Used by
convert-tile-to-gpu when its `wgmma` option is on; dots that do not fit fall back to mma.sync (mma.py)
or to FMAs.

A warpgroup is 4 consecutive warps; one instruction computes a 64 x N block whose rows 16w..16w+15
belong to warp w of the group, each warp holding them like mma.sync's C fragment (lane (g, t): rows g and
g + 8, columns 8j + 2t, 8j + 2t + 1 for every 8-column block j; registers in that order).

The accumulator is a *blocked* layout in the instruction's own row order (`accumulator_layout`: 1x2
per thread, 8x4 lanes, each warp repeating its 8 rows twice, the W warps stacked along M): warp w
holds rows 16w + g and 16w + 8 + g of every 16W rows, exactly what warpgroup w // 4's instructions
give it, so A's rows go to shared memory in their logical order (a column-major A keeps 64
neighbouring values of M in one 128-byte row, as global memory has them) and the rest of the
lowering (epilogues, stores, loop-carried values) sees an ordinary blocked layout. Register repeat
2j + h of a thread is the h-th 8-row half of its warp's rows in instruction block j (`_block_row`).

Operands streamed by cp.async (cp_async.py) use the hardware's swizzled layouts (Staging). Operands
stored from registers use the no-swizzle ("interleaved") canonical layouts of the PTX ISA, built from
core matrices of 8 rows x 16 bytes stored as 128 contiguous bytes:
    A  K-major (imm-trans-a = 0): core (R/8, k/8) at (R/8)*SBO + (k/8)*LBO, element (R%8)*16 + (k%8)*2
    B  N-major (imm-trans-b = 1): core (n/8, k/8) at (n/8)*SBO + (k/8)*LBO, element (k%8)*16 + (n%8)*2
       or, for B = tl.trans(X), K-major like A from X's registers (imm-trans-b = 0)
The strides carry 16 bytes of padding where a warp's 16-byte stores would otherwise land on one bank
(eight lanes storing eight neighbouring core matrices of a row). 8-bit inputs use the same cores with
16 values per row, tf32 with 4 (both K-major only: a row-major 8-bit B is stored transposed, a
row-major fp32 B makes the dot go transposed, wgmma_swapped.py).
"""

from __future__ import annotations

import math
import operator

from mlir import ir
from mlir.dialects import arith, gpu, llvm

from tilec.dialects import tile
from tilec.passes import tensor_cores
from tilec.passes.base import ops_named
from tilec.passes.layouts import Blocked

from . import mma

_KINDS = {"f16": "f16", "bf16": "bf16", "f8E4M3FN": "e4m3", "f8E5M2": "e5m2", "i8": "s8", "f32": "tf32"}
_FP8 = ("e4m3", "e5m2")
BYTE_KINDS = (*_FP8, "s8")  # k32 instructions on 8-bit values, K-major A and B only
K_MAJOR_ONLY = (*BYTE_KINDS, "tf32")  # no transpose immediates: A and B K-major

CORE = 128  # bytes of one core matrix (8 rows x 16 bytes)
MAX_N = 256  # widest instruction
STAGES = 3  # shared-memory buffers of a dot pipelined across loop iterations


def element_bytes(kind: str) -> int:
    """Bytes of one operand value: 1 (fp8, int8), 2 (fp16, bf16), 4 (tf32, fp32 in memory)."""
    a_type = kind.split(".")[0]
    return 1 if a_type in BYTE_KINDS else 4 if a_type == "tf32" else 2


def wgmma_kind(op, num_warps: int) -> str | None:
    """The operand types of A and B joined by "." ("f16.f16", "bf16.bf16", "e4m3.e5m2" and the other
    fp8 pairs with an fp32 accumulator, "s8.s8" with an i32 one, "tf32.tf32" for fp32 inputs with
    input_precision "tf32") when this tile.dot fits warpgroup MMA, else None. fp32 with "tf32x3"
    (three products of split operands) or "ieee" is left to mma.sync and the FMA lowering."""
    a, b, acc = (str(tile.element_of(v.type)) for v in op.operands)
    kind_a, kind_b = _KINDS.get(a), _KINDS.get(b)
    if kind_a is None or kind_b is None or acc != ("i32" if kind_a == "s8" else "f32"):
        return None
    if kind_a == "tf32" or kind_b == "tf32":
        precision = op.attributes["input_precision"] if "input_precision" in op.attributes else None
        if kind_a != kind_b or precision is None or ir.StringAttr(precision).value != "tf32":
            return None
    if kind_a != kind_b and not (kind_a in _FP8 and kind_b in _FP8):
        return None  # only the two fp8 formats mix
    (m, k), (_, n) = tile.shape_of(op.operands[0].type), tile.shape_of(op.operands[1].type)
    if kind_a == "s8" and n % 16:
        return None  # integer instructions wider than 32 columns come in steps of 16
    if not fits(m, n, k, num_warps, element_bytes(kind_a)):
        return None
    return f"{kind_a}.{kind_b}"


def fits(m: int, n: int, k: int, num_warps: int, elem_bytes: int) -> bool:
    """Whole warpgroups, each with whole 64-row instructions and k-steps of 32 bytes (8 tf32, 16 fp16
    or 32 8-bit values), N a multiple of 8, and the staging buffers within the shared-memory limit."""
    if num_warps % 4 or m % (16 * num_warps) or k % (32 // elem_bytes) or n % 8:
        return False
    return _smem_bytes(m, n, k * elem_bytes // 2) <= mma.SMEM_LIMIT


def stage_bytes(op, kind: str) -> int:
    """One stage buffer of this dot's cp.async ring (cp_async.py builds it with swizzle=True), without
    A when it will go from registers. Exact when both of B's possible rows (K or N long) take a
    swizzled layout, whatever b_mode lowering picks; an upper bound (the padded layout) otherwise.
    The bound mattered: 64x64x128 fp16 stages are 32 KiB swizzled but 36 KiB padded, and at
    num_stages=6 the padded figure cost the ring its fifth iteration ahead (7 x 32 KiB fits 227 KiB)."""
    (m, k), (_, n) = tile.shape_of(op.operands[0].type), tile.shape_of(op.operands[1].type)
    elem_bytes = element_bytes(kind)
    a_in_registers = a_kept_in_registers(op, kind)
    if all(Staging.swizzle_widths(m, n, k, elem_bytes, mode) for mode in ("n-major", "k-major")):
        b_bytes = _align(k * n * elem_bytes)
        return b_bytes if a_in_registers else _align(m * k * elem_bytes) + b_bytes
    k16 = k * elem_bytes // 2
    total = _smem_bytes(m, n, k16)
    return total - _a_bytes(m, k16) if a_in_registers else total


def ring_stages(dot, depth: int) -> int:
    """Buffers of a cp.async ring feeding `dot` with copies `depth` iterations ahead (cp_async.py): a
    dot that accumulates across the loop leaves its MMA in flight into the next iteration and needs
    depth + 2; one that waits for its MMA in the same iteration (attention's), depth + 1."""
    return depth + (2 if pipelined_loop(dot) is not None else 1)


def a_kept_in_registers(op, kind: str) -> bool:
    """Decided before lowering (for a ring's buffer size): A will go to the instruction from registers
    (a_from_registers), being 16-bit and defined outside the dot's loop or computed elementwise from
    a warpgroup-MMA result (attention's p). lower_dot then converts A into the fragment layout
    whatever layout it comes in, so the buffer's missing A space is never written."""
    if kind not in ("f16.f16", "bf16.bf16"):
        return False
    a = op.operands[0]
    loop = enclosing_loop(op)
    if loop is not None and not _inside(a, loop):
        return True
    shape, pending, seen = tile.shape_of(a.type), [a], set()
    while pending:
        v = pending.pop()
        if v in seen or isinstance(v.owner, ir.Block):
            continue
        seen.add(v)
        owner = v.owner.operation
        if owner.name == "tile.dot":
            return True
        if owner.name.startswith(("arith.", "math.")):
            pending.extend(x for x in owner.operands if tile.shape_of(x.type) == shape)
    return False


def accumulator_layout(m: int, n: int, num_warps: int) -> Blocked:
    return Blocked((m, n), (1, 2), (8, 4), (num_warps, 1), (1, 0), warp_repeats=(2, 1))


def _block_row(j: int, half: int, num_warps: int) -> int:
    """The accumulator layout's static row offset of a thread's rows in instruction block j (each
    warpgroup's j-th 64-row block: 16 * num_warps rows per j), half h: rows 16w + 8h + g."""
    return 16 * num_warps * j + 8 * half


def _a_strides(k: int) -> tuple[int, int]:
    """(LBO, SBO) of A in bytes: K-neighbouring cores 144 bytes apart (128 + 16 padding)."""
    lbo = CORE + 16
    return lbo, (k // 8) * lbo


def _b_strides(k: int) -> tuple[int, int]:
    """(LBO, SBO) of B in bytes: K-neighbouring cores adjacent, N-neighbours padded by 16 bytes."""
    return CORE, (k // 8) * CORE + 16


def _smem_bytes(m: int, n: int, k: int) -> int:
    """A, then B in either of its layouts (N-major, or K-major for a transposed operand)."""
    return _a_bytes(m, k) + (n // 8) * max(_b_strides(k)[1], _a_strides(k)[1])


def transposed_b_source(dot):
    """X when the dot's B operand is tl.trans(X): X ([N, K], K contiguous in its layout) goes to shared
    memory K-major as it is (imm-trans-b = 0), with no transpose of its own."""
    return transposed_b_source_of(dot.operands[1])


def transposed_b_source_of(b):
    owner = b.owner
    if isinstance(owner, ir.Block):
        return None
    op = owner.operation if hasattr(owner, "operation") else owner
    if op.name == "arith.bitcast":  # fp8 bytes seen as fp8 (tile-lower-fp8)
        return transposed_b_source_of(op.operands[0])
    if op.name != "tile.trans" or list(ir.DenseI32ArrayAttr(op.attributes["order"])) != [1, 0]:
        return None
    return op.operands[0]


def _column_major_layout(lowering, b):
    """The layout `b` was loaded in when that is column-major (contiguous along K), else None; an
    fp8 operand is seen through its bitcast from bytes."""
    owner = b.owner
    if not isinstance(owner, ir.Block):
        op = owner.operation if hasattr(owner, "operation") else owner
        if op.name == "arith.bitcast":
            b = op.operands[0]
    natural = lowering.natural.get(b)
    if natural is None or not isinstance(natural[0], Blocked) or tuple(natural[0].order) != (0, 1):
        return None
    return natural[0]


def row_major_tf32_b_loads(fn, num_warps: int, axis) -> dict:
    """{tile.load: layout} for the row-major fp32 B tiles of tf32 warpgroup-MMA dots that do not go
    transposed (wgmma_swapped.py; the instruction reads B K-major only), through prefetching's
    loop-carried copies: loaded four K-neighbours per
    thread and the lanes along N, each load instruction still covers 128 contiguous bytes (4 bytes
    a lane), and the four values go to the K-major buffer in one 16-byte store. In the row-major
    load layout they went in four 4-byte stores, four lanes to a bank: 4096^3 on an H200, row-major
    B 99 -> 208 TFLOP/s (a column-major one streams at 298). Not for 8-bit B: sixteen 1-byte loads a
    thread would cover 32 bytes a warp each, where the row-major layout loads 16 bytes a lane."""
    from . import wgmma_swapped  # imports this module

    found = {}
    for dot in ops_named(fn, "tile.dot"):
        if wgmma_kind(dot, num_warps) != "tf32.tf32" or transposed_b_source(dot) is not None:
            continue
        if wgmma_swapped.applies(dot, num_warps, axis):
            continue  # B streams as it lies in memory
        loads = _loads_behind(dot.operands[1])
        if not loads:
            continue
        k, n = tile.shape_of(dot.operands[1].type)
        per_thread = 4  # 16 bytes of K
        if k % per_thread or n % 32 or (k // per_thread) * (n // 32) < num_warps:
            continue
        warps_k = min(num_warps, k // per_thread)
        layout = Blocked((k, n), (per_thread, 1), (1, 32), (warps_k, num_warps // warps_k), (0, 1))
        for load in loads:
            info = axis.get(load.operands[0])
            if info.contiguity[1] > 1 and info.contiguity[0] == 1:  # row-major in memory
                found[load] = layout
    return found


def _loads_behind(value) -> list:
    """The tile.loads a dot operand is: the load itself, or, for a loop-carried (prefetched) value,
    the loads that feed the loop's init and yield slots, through any number of slots."""
    loads, pending, seen = [], [value], set()
    while pending:
        v = pending.pop()
        if v in seen:
            continue
        seen.add(v)
        owner = v.owner
        if isinstance(owner, ir.Block):
            loop = owner.owner
            number = ir.BlockArgument(v).arg_number
            if loop is None or loop.name != "scf.for" or number == 0:
                return []
            body = loop.regions[0].blocks[0]
            pending += [
                list(body.operations)[-1].operation.operands[number - 1],
                loop.operands[3 + number - 1],
            ]
            continue
        op = owner.operation if hasattr(owner, "operation") else owner
        if op.name != "tile.load":
            return []
        loads.append(op)
    return loads


def _a_bytes(m: int, k: int) -> int:
    return (m // 8) * _a_strides(k)[1]


def _c(v: int, bits: int = 32) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(bits), v).result


class _IrInts:
    """The integer arithmetic Staging's offsets are written in, as arith ops on i32 values."""

    const = staticmethod(_c)
    addi, muli, andi = (staticmethod(f) for f in (arith.addi, arith.muli, arith.andi))
    xori, shli, shrui = (staticmethod(f) for f in (arith.xori, arith.shli, arith.shrui))


class _PyInts:
    """The same arithmetic on Python ints: planning asks where an element would land."""

    const = staticmethod(int)
    addi, muli, andi = (staticmethod(f) for f in (operator.add, operator.mul, operator.and_))
    xori, shli, shrui = (staticmethod(f) for f in (operator.xor, operator.lshift, operator.rshift))


IR_INTS, PY_INTS = _IrInts(), _PyInts()


def _log2(v: int) -> int:
    return v.bit_length() - 1


def _descriptor(address: ir.Value, lbo: int, sbo: int, layout: int = 0) -> ir.Value:
    """The 64-bit shared-memory matrix descriptor: start, LBO and SBO, each >> 4, and the layout
    type (0: no swizzle, 1/2/3: 128/64/32-byte swizzle). The start address is formed in 32 bits."""
    i32, i64 = ir.IntegerType.get_signless(32), ir.IntegerType.get_signless(64)
    start = arith.shrui(arith.andi(llvm.PtrToIntOp(i32, address).result, _c(0x3FFFF)), _c(4))
    fields = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (layout << 62)
    return arith.ori(arith.extui(i64, start), _c(fields - (1 << 64) if fields >= 1 << 63 else fields, 64))


def _descriptor_at(descriptor: ir.Value, offset: int) -> ir.Value:
    """The descriptor of the matrix `offset` bytes (a multiple of 16) past `descriptor`'s: its start
    field plus offset >> 4. Shared addresses stay below 2^18 (228 KiB), so the 14-bit field does not
    carry into LBO: one 64-bit add per instruction, where a descriptor of its own took four."""
    assert offset % 16 == 0, offset
    return arith.addi(descriptor, _c(offset >> 4, 64)) if offset else descriptor


def pipelined_loop(op):
    """The scf.for whose loop-carried accumulator this dot updates (`acc = tl.dot(a, b, acc)` with acc
    used by nothing else in the body), else None. Such a dot can leave its MMA in flight across
    iterations: only the next iteration's MMA (chained by the hardware) touches the accumulator."""
    acc, result = op.operands[2], op.results[0]
    parent = op.parent
    if parent is None or parent.name != "scf.for" or not isinstance(acc.owner, ir.Block):
        return None
    body = parent.regions[0].blocks[0]
    if acc.owner != body:
        return None
    position = ir.BlockArgument(acc).arg_number - 1
    acc_users = [use.owner for use in acc.uses]
    result_uses = list(result.uses)
    if len(acc_users) != 1 or len(result_uses) != 1:
        return None
    use = result_uses[0]
    if use.owner.name != "scf.yield" or use.operand_number != position:
        return None
    return parent, position


class Staging:
    """Where one dot's A and B sit in a shared-memory buffer of `bytes` bytes: A at offset 0, K-major
    or, with `a_m_major` (a column-major 16-bit A streamed by cp.async, imm-trans-a = 1), M-major
    (unless `a_in_registers`: then the buffer holds B alone), B after it in `b_mode` "n-major" (a
    row-major 16-bit B, imm-trans-b = 1), "k-major" (a column-major B, or an 8-bit row-major B
    stored transposed) or "trans" (B = trans(X), X's rows being B's columns). Offsets are i32 values
    built at the insertion point.

    Two layouts. Padded core matrices (module doc) suit 16-byte stores from registers. `swizzle`
    (for cp.async, whose copies land a 128-byte global row segment per 8 lanes) uses the hardware's
    swizzled layouts instead: rows of S = 128, 64 or 32 bytes (the largest that divides the row),
    address bits 4 .. 3 + log2(S/16) XORed with bits 7 .. (Swizzle<log2(S/16), 4, 3>; for 128-byte
    rows the 16-byte chunk c of row r lands at chunk c ^ (r mod 8)), the buffer aligned to 1024
    bytes. Along the other dimension atoms follow each other (K-major: K beyond S bytes; N-major: N
    beyond S bytes). An M-major A always has 128-byte rows: one atom column is one 64-row instruction
    block, K rows deep (A's rows in their logical order, module doc)."""

    def __init__(
        self, m: int, n: int, k: int, kind: str, num_warps: int, b_mode: str, swizzle: bool = False,
        a_in_registers: bool = False, a_m_major: bool = False,
    ):  # fmt: skip
        self.m, self.n, self.k, self.num_warps, self.b_mode = m, n, k, num_warps, b_mode
        self.elem_bytes = element_bytes(kind)
        self.per_row = 16 // self.elem_bytes  # values in one 16-byte row of a core matrix
        self.k16 = k * self.elem_bytes // 2  # K in 16-bit units: strides and sizes as for fp16
        self.b_k_major = b_mode != "n-major"
        self.a_lbo, self.a_sbo = _a_strides(self.k16)
        self.b_lbo, self.b_sbo = _a_strides(self.k16) if self.b_k_major else _b_strides(self.k16)
        self.b_start = _a_bytes(m, self.k16)
        self.bytes = _smem_bytes(m, n, self.k16)
        widths = self.swizzle_widths(m, n, k, self.elem_bytes, b_mode, a_m_major)
        self.swizzle = swizzle and widths is not None
        # only the swizzled layout has an M-major A (cp_async._plan_dot streams it only then)
        self.a_m_major = a_m_major and self.swizzle
        if self.swizzle:
            self.a_width, self.b_width = widths
            self.b_start = _align(m * k * self.elem_bytes)
            self.bytes = self.b_start + _align(k * n * self.elem_bytes)
        self.a_in_registers = a_in_registers
        if a_in_registers:  # B alone
            self.bytes -= self.b_start
            self.b_start = 0

    @staticmethod
    def swizzle_widths(m, n, k, elem_bytes, b_mode, a_m_major: bool = False):
        """(S of A, S of B) in bytes, or None when a row is not a multiple of 32 bytes."""
        a = _swizzle_width((64 if a_m_major else k) * elem_bytes)
        b = _swizzle_width((k if b_mode != "n-major" else n) * elem_bytes)
        return None if a is None or b is None else (a, b)

    def _core_offset(self, outer, inner, lbo, sbo, ops):
        """Byte offset of element (outer, inner) in cores of 8 `outer` x 16 bytes of `inner` (K-major:
        outer M or N, inner K), neighbours along `inner` LBO apart."""
        core = ops.addi(
            ops.muli(ops.shrui(outer, ops.const(3)), ops.const(sbo)),
            ops.muli(ops.shrui(inner, ops.const(_log2(self.per_row))), ops.const(lbo)),
        )
        within = ops.addi(
            ops.shli(ops.andi(outer, ops.const(7)), ops.const(4)),
            ops.shli(ops.andi(inner, ops.const(self.per_row - 1)), ops.const(_log2(self.elem_bytes))),
        )
        return ops.addi(core, within)

    def _swizzled(self, row, col, rows: int, width: int, ops):
        """Byte offset of element (row, col) of a [rows, *] operand stored in rows of `width` bytes
        (col along the row), atoms of `rows` x `width` bytes one after another, then swizzled."""
        col_bytes = ops.shli(col, ops.const(_log2(self.elem_bytes))) if self.elem_bytes > 1 else col
        atom = ops.shrui(col_bytes, ops.const(_log2(width)))
        logical = ops.addi(
            ops.addi(ops.muli(atom, ops.const(rows * width)), ops.muli(row, ops.const(width))),
            ops.andi(col_bytes, ops.const(width - 1)),
        )
        phase = ops.andi(ops.shrui(logical, ops.const(7)), ops.const(width // 16 - 1))
        return ops.xori(logical, ops.shli(phase, ops.const(4)))

    def a_offset(self, row, col, ops=None):
        ops = ops or IR_INTS
        if self.a_m_major:  # rows of K, each 64 values of M (one instruction block) per atom
            return self._swizzled(col, row, self.k, self.a_width, ops)
        if self.swizzle:
            return self._swizzled(row, col, self.m, self.a_width, ops)
        return self._core_offset(row, col, self.a_lbo, self.a_sbo, ops)

    def b_offset(self, row, col, ops=None):
        """(row, col) of the tensor stored: B's (k, n), or X's (n, k) in "trans" mode."""
        ops = ops or IR_INTS
        if self.swizzle:
            if self.b_mode == "trans":
                offset = self._swizzled(row, col, self.n, self.b_width, ops)
            elif self.b_k_major:
                offset = self._swizzled(col, row, self.n, self.b_width, ops)
            else:
                offset = self._swizzled(row, col, self.k, self.b_width, ops)
        elif self.b_mode == "trans":
            offset = self._core_offset(row, col, self.b_lbo, self.b_sbo, ops)
        elif self.b_k_major:
            offset = self._core_offset(col, row, self.b_lbo, self.b_sbo, ops)
        else:  # N-major: cores (n/8, k/8), 16-byte rows along n, k-rows inside a core
            core = ops.addi(
                ops.muli(ops.shrui(col, ops.const(3)), ops.const(self.b_sbo)),
                ops.muli(ops.shrui(row, ops.const(3)), ops.const(self.b_lbo)),
            )
            inner = ops.addi(
                ops.shli(ops.andi(row, ops.const(7)), ops.const(4)),
                ops.shli(ops.andi(col, ops.const(7)), ops.const(1)),
            )
            offset = ops.addi(core, inner)
        return ops.addi(offset, ops.const(self.b_start))

    def offset(self, operand: int, row, col, ops=None):
        """Byte offset of operand `operand`'s element (row, col): i32 values built at the insertion
        point, or Python ints with `ops=PY_INTS`."""
        return self.a_offset(row, col, ops) if operand == 0 else self.b_offset(row, col, ops)

    # -- what one instruction reads: k-step ks (32 bytes of K), 64-row block, columns from c0 ----
    def a_block_bytes(self) -> int:
        if self.a_m_major:
            return self.k * self.a_width
        return 64 * self.a_width if self.swizzle else 8 * self.a_sbo

    def a_step(self, ks: int) -> int:
        if self.a_m_major:  # 16 rows of K per k-step
            return 16 * ks * self.a_width
        if self.swizzle:
            return (32 * ks // self.a_width) * self.m * self.a_width + 32 * ks % self.a_width
        return 2 * ks * self.a_lbo

    def b_step(self, ks: int, c0: int) -> int:
        if not self.swizzle:
            return self.b_start + 2 * ks * self.b_lbo + (c0 // 8) * self.b_sbo
        width = self.b_width
        if self.b_k_major:  # rows n, K across atoms
            return self.b_start + (32 * ks // width) * self.n * width + 32 * ks % width + c0 * width
        # rows k (16 of them per k-step of 16-bit values), N across atoms
        return self.b_start + (c0 * self.elem_bytes // width) * self.k * width + 16 * ks * width

    def a_fields(self) -> tuple[int, int, int]:
        """(LBO, SBO, layout type) of A's descriptors."""
        if self.a_m_major:  # as an N-major B's: atoms along M K rows apart, 8-row groups of K
            return self.k * self.a_width, 8 * self.a_width, _LAYOUT_TYPE[self.a_width]
        if self.swizzle:
            return 16, 8 * self.a_width, _LAYOUT_TYPE[self.a_width]
        return self.a_lbo, self.a_sbo, 0

    def b_fields(self) -> tuple[int, int, int]:
        if not self.swizzle:
            return self.b_lbo, self.b_sbo, 0
        if self.b_k_major:
            return 16, 8 * self.b_width, _LAYOUT_TYPE[self.b_width]
        return self.k * self.b_width, 8 * self.b_width, _LAYOUT_TYPE[self.b_width]


_LAYOUT_TYPE = {128: 1, 64: 2, 32: 3}  # the descriptor's bits 62-63 for each swizzle width


def _swizzle_width(row_bytes: int) -> int | None:
    return next((w for w in (128, 64, 32) if row_bytes % w == 0), None)


def _align(nbytes: int, to: int = 1024) -> int:
    return -(-nbytes // to) * to


def b_mode(lowering, op) -> str:
    """How the dot's B goes to shared memory (Staging), from the registers it comes in."""
    if transposed_b_source(op) is not None:
        return "trans"
    if _column_major_layout(lowering, op.operands[1]) is not None:
        return "k-major"
    a_kind = _KINDS.get(str(tile.element_of(op.operands[0].type)))
    return "k-major" if a_kind in K_MAJOR_ONLY else "n-major"


class DotBuffer:
    """The shared memory one warpgroup-MMA dot's operands are in for this iteration, and the
    synchronization around it: a ring's buffer (cp_async.Ring), one of STAGES buffers of a dot whose
    MMA stays in flight into the next iteration (`pipelined`: (loop, position of the accumulator)),
    a buffer of its own rewritten every iteration behind a barrier (`war`), or the scratch space."""

    def __init__(self, base, pipelined, war, iteration, smem_ptr_type, dynamic_index):
        self.base, self.pipelined, self.war, self.iteration = base, pipelined, war, iteration
        self._ptr_type, self._dynamic_index = smem_ptr_type, dynamic_index

    @classmethod
    def choose(cls, lowering, op, ring, stage_bytes: int, pipelined, smem_ptr_type, dynamic_index):
        i32 = ir.IntegerType.get_signless(32)
        i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
        war = iteration = None

        def buffer_at(region, stages, index):
            if index.type != i32:
                index = arith.index_cast(i32, index)
            offset = arith.muli(arith.remui(index, _c(stages)), _c(stage_bytes))
            return llvm.GEPOp(smem_ptr_type, region, [offset], [dynamic_index], i8, 0).result

        if ring is not None:
            iteration = ring.iteration(lowering)
            base = buffer_at(ring.region, ring.stages, iteration)
            ring.wait_for_current(iteration)
            if pipelined is not None:
                lowering.waits_after_loop.setdefault(pipelined[0].operation, set()).add(pipelined[1])
        elif pipelined is not None and STAGES * stage_bytes <= mma.SMEM_LIMIT:
            loop, position = pipelined
            region = lowering.smem_region(STAGES * stage_bytes)
            lb, step = lowering.scalar(loop.operands[0]), lowering.scalar(loop.operands[2])
            iv = lowering.scalar(loop.regions[0].blocks[0].arguments[0])
            base = buffer_at(region, STAGES, arith.divsi(arith.subi(iv, lb), step))
            lowering.waits_after_loop.setdefault(loop.operation, set()).add(position)
        elif enclosing_loop(op) is not None and _region_fits(lowering, stage_bytes):
            # A buffer of its own, rewritten every iteration: its write waits at a barrier for the last
            # iteration's MMA (all warpgroups') to be done with it, a barrier elide_war_barriers drops
            # where another one in the loop body already separates the two.
            pipelined = None
            base = lowering.smem_region(stage_bytes)
            war = gpu.BarrierOp().operation
        else:
            pipelined = None
            base = lowering.smem(stage_bytes)
            lowering.smem_write_fence()
        return cls(base, pipelined, war, iteration, smem_ptr_type, dynamic_index)

    def byte_at(self, region_offset: int, offset: ir.Value) -> ir.Value:
        """The shared-memory address `offset` (+ `region_offset`) bytes into the buffer."""
        total = arith.addi(offset, _c(region_offset)) if region_offset else offset
        i8 = ir.TypeAttr.get(ir.IntegerType.get_signless(8))
        return llvm.GEPOp(self._ptr_type, self.base, [total], [self._dynamic_index], i8, 0).result

    def publish(self, lowering, ring, stored_from_registers: bool) -> None:
        """After the operands' stores: make them visible to the tensor cores, then (in a ring) issue
        the copies `depth` iterations ahead."""
        # The tensor cores read shared memory through the async proxy: make the generic-proxy stores
        # visible to it, then wait for every thread's stores. Copies by cp.async need no proxy fence
        # (as in Triton, which fences only register-to-shared stores).
        if stored_from_registers:
            _asm("fence.proxy.async.shared::cta;")
        # A ring whose waits its loop's first ring does (cp_async.merge_waits) was made visible by that
        # dot's barrier, and this dot stored nothing.
        if ring is None or ring.leader is None or stored_from_registers:
            visibility = gpu.BarrierOp().operation
        if self.war is not None:
            lowering.war_barriers.append((self.war, visibility))
        if ring is not None:
            # Past this barrier every warp has waited for its MMA of iteration i - 2, the last reader of
            # buffer (i + depth) mod (depth + 2): fill it now, before this iteration's MMA, so that the
            # copies have a whole iteration more to land than when issued after the MMA's wait (2048^3
            # fp16 at 128x128x64, 4 warps, 3 buffers on an H200: 460 TFLOP/s here, 383 after the wait).
            ring.issue_ahead(lowering, self.iteration)

    def finish(self, lowering) -> None:
        """After the MMAs: scratch space (not a buffer of the dot's own) is dirty for the next user."""
        if self.pipelined is None and self.war is None:
            lowering.smem_dirty = True


def lower_dot(lowering, op, kind: str, smem_ptr_type, dynamic_index: int) -> None:
    """Replaces `op` (a tile.dot) with warpgroup-MMA code inside `lowering` (a convert_tile_to_gpu KernelLowering).

    In a loop that carries the accumulator (`pipelined_loop`), A and B rotate through shared-memory
    buffers of their own and each iteration waits only for the *previous* iteration's MMA
    (`wgmma.wait_group 1`): this iteration's MMA runs while the next tiles are loaded and stored.
    Operands loaded in the loop may stream into those buffers with cp.async (cp_async.py: a ring of
    depth + 2 buffers filled `depth` iterations ahead); the others are stored from registers. With
    registers only, three buffers make that safe without a second barrier: when a warp stores tile
    i + 1, every warp has passed iteration i's barrier, so every MMA up to i - 2 (the last reader of
    that buffer) is done. The loop's results are waited for right after it (`drain`).

    8-bit operands (int8, and fp8 as bytes from tile-lower-fp8) use the same core matrices holding
    16 values per row; the instruction reads B only K-major, so a row-major B is stored transposed,
    byte by byte."""
    warps = lowering.num_warps
    ring = lowering.rings.get(op)  # cp_async.Ring: operands already on their way to shared memory
    in_smem = ring.operands if ring is not None else {}
    mode = ring.staging.b_mode if ring is not None else b_mode(lowering, op)
    b_source = transposed_b_source(op) if mode == "trans" else None
    b_column = _column_major_layout(lowering, op.operands[1]) if mode == "k-major" else None
    if ring is None:
        a_fragments = a_from_registers(lowering, op, kind)
    elif ring.staging.a_in_registers:  # the ring's buffers hold B alone: A goes from registers
        a_fragments = accumulator_layout(*tile.shape_of(op.operands[0].type), warps)
    else:
        a_fragments = None
    m, n, k, _, a_layout, a_regs, b_layout, b_regs, c_layout, c_regs = tensor_cores.dot_operands(
        lowering, op, accumulator_layout, b_source, b_column, skip=in_smem,
        a_layout=a_fragments or None,
    )  # fmt: skip
    staging = (
        ring.staging
        if ring is not None
        else Staging(m, n, k, kind, warps, mode, a_in_registers=bool(a_fragments))
    )
    elem_bytes, per_row, k16 = staging.elem_bytes, staging.per_row, staging.k16
    elem = ir.IntegerType.get_signless(8) if elem_bytes == 1 else tile.element_of(op.operands[0].type)

    # fp8 with max_num_imprecise_acc <= K (as Triton): the tensor core sums `group` k-steps (at most
    # that many K values) in its own precision from zero, then the partial sum is added to the
    # accumulator in fp32; each group waits for its MMAs, so such a dot is not pipelined
    total_steps = k16 // 16  # 32 bytes of K per instruction
    group, promoted = total_steps, promoted_group(op, kind)
    if promoted:
        group = promoted
    buffer = DotBuffer.choose(
        lowering,
        op,
        ring,
        staging.bytes,
        None if promoted else pipelined_loop(op),
        smem_ptr_type,
        dynamic_index,
    )
    pipelined, byte_at = buffer.pipelined, buffer.byte_at

    if a_fragments:
        a_words = _a_fragments(a_regs, a_layout, m, k16, groups=warps // 4)
    elif 0 not in in_smem:
        tensor_cores.store_rows(lowering, a_regs, a_layout, lambda r, c: byte_at(0, staging.a_offset(r, c)), elem,
                       run_limit=per_row)  # fmt: skip
    if 1 not in in_smem:
        b_at = lambda r, c: byte_at(0, staging.b_offset(r, c))  # noqa: E731
        if b_column is not None:  # runs along K, contiguous in K-major cores
            tensor_cores.store_rows(lowering, b_regs, b_layout, b_at, elem, run_limit=per_row, axis=0)
        else:  # a row-major B stored K-major: consecutive n are 16 bytes apart, one value each
            transposing = mode == "k-major"
            tensor_cores.store_rows(
                lowering, b_regs, b_layout, b_at, elem, run_limit=1 if transposing else per_row
            )
    buffer.publish(
        lowering, ring, stored_from_registers=1 not in in_smem or not (a_fragments or 0 in in_smem)
    )

    a_fields, b_fields = staging.a_fields(), staging.b_fields()
    groups = warps // 4
    # An accumulator of +0 (`tl.dot(q, k)` with no acc, attention's scores) is not read at all: the
    # first k-step overwrites it (scale-d = 0), which saves zeroing its registers every iteration.
    zero_start = not promoted and all(_is_positive_zero(v) for v in c_regs)
    wg = arith.shrui(lowering.warp, _c(2))
    slot = {static: i for i, static in enumerate(c_layout.registers)}
    chunks = [(c0, min(MAX_N, n - c0)) for c0 in range(0, n, MAX_N)]
    b_base = _descriptor(byte_at(0, _c(0)), *b_fields)
    a_bases = [
        None
        if a_fragments
        else _descriptor(
            byte_at(0, arith.muli(arith.addi(_c(j * groups), wg), _c(staging.a_block_bytes()))), *a_fields
        )  # fmt: skip
        for j in range(m // (64 * groups))  # this warpgroup's 64-row instruction blocks
    ]
    for s0 in range(0, total_steps, group):
        _asm("wgmma.fence.sync.aligned;")
        touched = []
        partial = {}  # register -> the promoted group's own sum
        for j in range(m // (64 * groups)):
            for c0, width in chunks:
                regs = [
                    slot[(_block_row(j, h, warps), c0 + 8 * jn + e)]
                    for jn in range(width // 8)
                    for h in (0, 1)
                    for e in (0, 1)
                ]
                for ks in range(s0, min(s0 + group, total_steps)):  # two cores of K each
                    desc_a = a_words[j][ks] if a_fragments else _descriptor_at(a_bases[j], staging.a_step(ks))
                    desc_b = _descriptor_at(b_base, staging.b_step(ks, c0))
                    target = partial if promoted else c_regs
                    # scale-d = 0: D = A x B, the inputs unread (undefined: no registers zeroed)
                    fresh = (promoted and ks == s0) or (zero_start and ks == 0)
                    inputs = (
                        [llvm.UndefOp(c_regs[r].type).result for r in regs]
                        if fresh
                        else [target[r] for r in regs]
                    )
                    outs = _wgmma(kind, width, desc_a, desc_b, inputs, not staging.b_k_major,
                                  0 if fresh else 1, a_m_major=staging.a_m_major)  # fmt: skip
                    for r, v in zip(regs, outs):
                        target[r] = v
                touched.extend(regs)
        _asm("wgmma.commit_group.sync.aligned;")
        # Results are valid only after a wait: thread them through it so that nothing reads them
        # earlier.
        pending = 1 if pipelined is not None else 0
        source = partial if promoted else c_regs
        waited = _tied_asm(f"wgmma.wait_group.sync.aligned {pending};", [source[r] for r in touched])
        for r, v in zip(touched, waited):
            c_regs[r] = arith.addf(c_regs[r], v) if promoted else v
    buffer.finish(lowering)
    lowering.set_natural(op.results[0], c_layout, c_regs)


def _is_positive_zero(v: ir.Value) -> bool:
    """v is the constant +0 (float) or 0 (integer); -0.0 is not (0 + -0 would differ from -0)."""
    owner = v.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
        return False
    attr = owner.operation.attributes["value"]
    if isinstance(attr, ir.FloatAttr):
        return attr.value == 0.0 and math.copysign(1.0, attr.value) > 0
    return isinstance(attr, ir.IntegerAttr) and attr.value == 0


def _region_fits(lowering, nbytes: int) -> bool:
    """A buffer of its own for a looped dot only while the kernel's shared memory so far (regions,
    and the scratch space, which must still hold this dot's buffer otherwise) stays in the limit."""
    scratch = max(lowering.smem_bytes, nbytes)
    return lowering.region_bytes + _align(nbytes) + _align(scratch) <= mma.SMEM_LIMIT


def elide_war_barriers(war_barriers: list) -> None:
    """Drops the barrier before a looped dot rewrites its own buffer (lower_dot) where the loop body
    has another barrier at its top level: not one of these, not the dot's own barrier between its
    stores and its MMA, not in nested control flow. Every thread passes that barrier between one
    iteration's MMA on the buffer (each warp waits for the MMA before going on) and the next write
    of the buffer, whichever of the two comes first in the body, also when the loop is entered
    again; the buffer serves no other op."""
    candidates = {war for war, _ in war_barriers}
    redundant = [
        war
        for war, visibility in war_barriers
        if (body := _block_of(war)) is not None
        and any(
            o.operation.name == "gpu.barrier" and o.operation not in candidates and o.operation != visibility
            for o in body.operations
        )
    ]
    for war in redundant:
        war.erase()


def _block_of(op):
    """The loop body `op` sits in at top level, else None."""
    parent = op.parent
    return op.block if parent is not None and parent.name in ("scf.for", "scf.while") else None


def a_from_registers(lowering, op, kind: str):
    """The layout in which a 16-bit A goes to the instruction straight from registers, or None.

    That layout is the accumulator's for an [M, K] tile: a thread's values of A's rows and K
    columns then sit exactly where the instruction's A fragment wants them (rows g and g + 8 of its
    warp's 16, columns 2t, 2t + 1 and 8 + 2t, 8 + 2t + 1 of each k-step). Worth it when A already is in that layout (attention's
    `p = exp(s - m)` computed from an accumulator: no trip through shared memory) or is defined
    outside the dot's loop (attention's q: converted once before the loop, instead of stored to
    shared memory every iteration)."""
    if kind not in ("f16.f16", "bf16.bf16"):
        return None
    a = op.operands[0]
    (m, k) = tile.shape_of(a.type)
    wanted = accumulator_layout(m, k, lowering.num_warps)
    if lowering.accumulator_layout_of(a) == wanted:
        return wanted
    loop = enclosing_loop(op)
    return wanted if loop is not None and not _inside(a, loop) else None


def enclosing_loop(op):
    parent = op.parent
    while parent is not None and parent.name not in ("scf.for", "scf.while"):
        parent = parent.parent
    return parent


def _inside(value: ir.Value, loop) -> bool:
    """True when `value` is defined in `loop`'s body (at any depth)."""
    owner = value.owner
    op = (
        owner.owner
        if isinstance(owner, ir.Block)
        else (owner.operation if hasattr(owner, "operation") else owner)
    )
    while op is not None:
        if op == loop:
            return True
        op = op.parent
    return False


def _a_fragments(regs, layout, m: int, k: int, groups: int) -> list[list[list[ir.Value]]]:
    """[instruction block j][k-step] -> the four 32-bit registers of A's fragment (a pair of 16-bit
    values each: rows g / g + 8 x columns 2t / 8 + 2t), from A's registers in the accumulator
    layout, whose repeats 2j and 2j + 1 are the rows of instruction block j (module doc)."""
    slot = {static: i for i, static in enumerate(layout.registers)}
    warps = 4 * groups
    i32 = ir.IntegerType.get_signless(32)
    pair = ir.VectorType.get([2], regs[0].type)

    def word(row, col):
        v = llvm.UndefOp(pair).result
        for e in (0, 1):
            v = llvm.InsertElementOp(v, regs[slot[(row, col + e)]], _c(e)).result
        return llvm.BitcastOp(i32, v).result

    return [
        [
            [word(_block_row(j, h, warps), 16 * ks + 8 * half) for half in (0, 1) for h in (0, 1)]
            for ks in range(k // 16)
        ]
        for j in range(m // (64 * groups))
    ]


def promoted_group(op, kind: str) -> int:
    """For an fp8 dot with max_num_imprecise_acc = L <= K: the k-steps summed in the tensor core's
    own precision before each fp32 addition (0 when the whole K is)."""
    if "max_num_imprecise_acc" not in op.attributes or kind.split(".")[0] not in _FP8:
        return 0
    limit = ir.IntegerAttr(op.attributes["max_num_imprecise_acc"]).value
    k = tile.shape_of(op.operands[0].type)[1]
    if limit > k:
        return 0
    return max(1, min(k // 32, limit // 32))


def drain(lowering, results) -> None:
    """After a loop with pipelined MMAs: wait for the last one (its results are the loop's), then a
    barrier, so that no warpgroup's MMA still reads the buffers when the loop runs again.

    Each loop's wait names the loop in a PTX comment: two identical waits ending the branches of an
    scf.if (tile-pointer-tensor-copies' two copies of a matmul) were merged by LLVM into one after
    the branches, and ptxas then serialized every warpgroup MMA of the kernel (C7515: accumulator
    registers defined by the other branch's zeros before the shared wait): 590 against 678
    TFLOP/s on an H100 (fp16 4096^3)."""
    lowering.drained_loops += 1
    text = f"wgmma.wait_group.sync.aligned 0; // drain loop {lowering.drained_loops}"
    for value in results:
        layout, regs = lowering.natural[value]
        lowering.set_natural(value, layout, _tied_asm(text, regs))
    gpu.BarrierOp()


def mark_branch_end(lowering) -> None:
    """Ends a branch of an scf.if whose warpgroup MMAs were drained in it with a PTX comment naming
    its last drained loop. The two copies of a kernel body (tile-pointer-tensor-copies) end in the
    same epilogue; where it stores element by element (a ragged N), LLVM merged the two copies'
    store chains into one after the branches and ptxas then serialized the tensor-copy loop's
    MMAs (C7514: non wgmma instructions reading accumulator registers inside the pipeline), 222
    registers where 124 do. Distinct last instructions leave nothing to merge."""
    _asm(f"// end of the branch of drained loop {lowering.drained_loops}")


def _asm(text: str) -> None:
    llvm.InlineAsmOp(ir.Type.parse("!llvm.void"), [], text, "", has_side_effects=True)


def _tied_asm(text: str, values: list[ir.Value], extra=(), extra_constraints: str = "") -> list[ir.Value]:
    """An asm statement that reads and writes `values` (f32 or i32 registers, tied in/out) plus
    `extra` inputs."""
    t = values[0].type
    count = len(values)
    result = ir.Type.parse("!llvm.struct<(" + ", ".join([str(t)] * count) + ")>")
    out_constraint = "=f" if str(t) == "f32" else "=r"
    constraints = ",".join(
        [out_constraint] * count
        + ([extra_constraints] if extra_constraints else [])
        + [str(i) for i in range(count)]
    )
    out = llvm.InlineAsmOp(result, [*extra, *values], text, constraints, has_side_effects=True).result
    return [llvm.ExtractValueOp(t, out, [i]).result for i in range(count)]


def _wgmma(
    kind: str, width: int, desc_a, desc_b, acc, b_n_major: bool, scale_d: int = 1, a_m_major: bool = False
) -> list[ir.Value]:
    """kind "f16.f16"/"bf16.bf16" (k16, with scale and transpose immediates), an fp8 pair such as
    "e4m3.e5m2" (k32, scale immediates only), "s8.s8" (k32, i32 accumulator, no immediates) or
    "tf32.tf32" (k8, scale immediates only): all but the 16-bit forms read A and B K-major only."""
    count = len(acc)  # width / 2 accumulator registers
    d = ", ".join(f"${i}" for i in range(count))
    if isinstance(desc_a, list):  # A's fragment in four registers (f16/bf16): no imm-trans-a
        a = "{" + ", ".join(f"${count + i}" for i in range(4)) + "}"
        text = (
            "{ .reg .pred p; setp.ne.b32 p, $" + str(count + 5) + ", 0; "
            f"wgmma.mma_async.sync.aligned.m64n{width}k16.f32.{kind} "
            f"{{{d}}}, {a}, ${count + 4}, p, 1, 1, {int(b_n_major)}; }}"
        )
        return _tied_asm(text, acc, extra=(*desc_a, desc_b, _c(scale_d)), extra_constraints="r,r,r,r,l,r")
    a_type, b_type = kind.split(".")
    shape = f"m64n{width}k{32 // element_bytes(kind)}"  # 32 bytes of K
    accumulator = "s32" if a_type == "s8" else "f32"
    if a_type == "s8":
        immediates = ""
    elif a_type in K_MAJOR_ONLY:  # fp8, tf32: scale immediates, no transpose
        immediates = ", 1, 1"
    else:
        immediates = f", 1, 1, {int(a_m_major)}, {int(b_n_major)}"
    text = (
        "{ .reg .pred p; setp.ne.b32 p, $" + str(count + 2) + ", 0; "
        f"wgmma.mma_async.sync.aligned.{shape}.{accumulator}.{a_type}.{b_type} "
        f"{{{d}}}, ${count}, ${count + 1}, p{immediates}; }}"
    )
    return _tied_asm(text, acc, extra=(desc_a, desc_b, _c(scale_d)), extra_constraints="l,l,r")
