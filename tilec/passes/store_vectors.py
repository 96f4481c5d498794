"""Wide stores of tensor-core accumulators, for convert-tile-to-gpu.

A tensor-core accumulator is stored in its own layout (a trip through shared memory as large as
the tile would cost more), but that layout gives a lane only 2 consecutive elements per 8-column
group (mma.sync and wgmma: lanes 4q..4q+3 hold one row's 8 columns, 2 each). Storing fp16 from it
takes 4-byte stores that fill half a 32-byte sector each; on an H200 the epilogue of a 128x256 fp16
tile then cost about 5 us per program (20 us of 207 at 4096^3, where Triton's 16-byte stores take
1/4 of that), exposed because one program fills an SM.

Here the G lanes of a group along the row exchange fragments so that each ends up with G
fragments of one register repeat, i.e. G*s consecutive elements: with fragments W[l][j] (lane l's
elements of repeat j within a group of G repeats), lane l needs W[j][l] for all j: a G x G
transpose across lanes, done as log2(G) butterfly steps. In the step for bit b, lane l sends the
fragments j whose bit b differs from l's to lane l^b (`shfl.xor b`), which puts them in slot j^b;
after all steps (l, j) has moved to (j, l). Each step costs per pair of slots one shuffle per
32-bit word and three selects. The result lives in an `Interleaved` layout (layouts.py) in which
pointers and masks are computed directly, so only the data moves.

G is the largest power of two that the lanes along the row (T), the register repeats, 16 bytes and
what the axis analysis proves (contiguity, alignment, one mask bit per run) allow. For the
mma.sync/wgmma layouts (s = 2, T = 4) that is 4 for fp16 (16-byte stores), 2 for fp32 (16 bytes),
4 for 8-bit types (8 bytes); AMD's MFMA layout (s = 1, T = 16) gets up to 8 fp16 per run.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, gpu

from .layouts import Blocked, Interleaved


def interleaved_for_store(lowering, layout, ptr: ir.Value, mask, elem: ir.Type, elem_bytes: int):
    """The Interleaved layout a store of a value in `layout` should use, or None (no gain)."""
    if type(layout) is not Blocked or _word_bits(elem) is None:
        return None
    f = layout.order[0]
    spt, lanes = layout.size_per_thread[f], layout.threads_per_warp[f]
    if (
        lanes < 2
        or layout.lane_stride(f) != 1
        or layout.repeats(f) != 1
        or layout.shape[f] < 2 * layout.tile(f)
    ):
        return None
    repeats = layout.shape[f] // layout.tile(f)
    info = lowering.axis.get(ptr)
    run = min(info.contiguity[f], info.divisibility[f] // elem_bytes, 16 // elem_bytes)
    if mask is not None:
        run = min(run, lowering.axis.get(mask).constancy[f])
    group = 1
    while group * 2 <= min(lanes, repeats) and group * 2 * spt <= run:
        group *= 2
    if group == 1:
        return None
    size = list(layout.size_per_thread)
    size[f] = group * spt
    return Interleaved(
        layout.shape, tuple(size), layout.threads_per_warp, layout.warps_per_cta, layout.order,
        warp_repeats=layout.warp_repeats, group=group,
    )  # fmt: skip


def exchange(values: list, layout: Blocked, wide: Interleaved, elem: ir.Type, lane: ir.Value, warp_size: int):
    """`values` (registers of `layout`) rearranged into the registers of `wide` (see module doc)."""
    f = layout.order[0]
    spt, group = layout.size_per_thread[f], wide.group
    per_row = layout.elems(f)  # registers along f; the slower dimensions vary slower
    lane_in_group = arith.remui(lane, _c(group))
    out = []
    for row in range(0, len(values), per_row):
        regs = values[row : row + per_row]
        for first in range(0, per_row, group * spt):
            slots = [_to_words(regs[first + j * spt : first + (j + 1) * spt], elem) for j in range(group)]
            bit = 1
            while bit < group:
                upper = arith.cmpi(
                    arith.CmpIPredicate.ne, arith.andi(lane_in_group, _c(bit)), _c(0)
                )  # this lane's bit b: which slot of each pair it keeps
                for j in range(group):
                    if j & bit:
                        continue
                    low, high = slots[j], slots[j | bit]
                    sent = [arith.select(upper, lo, hi) for lo, hi in zip(low, high)]
                    got = [_shuffle_xor(w, bit, warp_size) for w in sent]
                    slots[j] = [arith.select(upper, g, lo) for g, lo in zip(got, low)]
                    slots[j | bit] = [arith.select(upper, hi, g) for g, hi in zip(got, high)]
                bit *= 2
            for words in slots:
                out.extend(_from_words(words, elem, spt))
    return out


def _c(v: int) -> ir.Value:
    return arith.ConstantOp(ir.IntegerType.get_signless(32), v).result


def _word_bits(elem: ir.Type):
    """Bits of one element, for the element types that pack into 32-bit words (else None)."""
    if isinstance(elem, ir.IntegerType):
        width = ir.IntegerType(elem).width
        return width if width in (8, 16, 32) else None
    for cls, bits in ((ir.F32Type, 32), (ir.F16Type, 16), (ir.BF16Type, 16)):
        if isinstance(elem, cls):
            return bits
    if "f8" in str(elem):
        return 8
    return None


def _to_words(fragment: list, elem: ir.Type) -> list:
    """One lane's fragment as 32-bit words (elements packed low first)."""
    bits = _word_bits(elem)
    i32 = ir.IntegerType.get_signless(32)
    as_int = [
        v if isinstance(elem, ir.IntegerType) else arith.bitcast(ir.IntegerType.get_signless(bits), v)
        for v in fragment
    ]
    per_word = 32 // bits
    words = []
    for start in range(0, len(as_int), per_word):
        word = None
        for k, v in enumerate(as_int[start : start + per_word]):
            v = v if bits == 32 else arith.extui(i32, v)
            v = arith.shli(v, _c(k * bits)) if k else v
            word = v if word is None else arith.ori(word, v)
        words.append(word)
    return words


def _from_words(words: list, elem: ir.Type, count: int) -> list:
    bits = _word_bits(elem)
    int_t = ir.IntegerType.get_signless(bits)
    per_word = 32 // bits
    out = []
    for k in range(count):
        word = words[k // per_word]
        shift = (k % per_word) * bits
        v = arith.shrui(word, _c(shift)) if shift else word
        v = v if bits == 32 else arith.trunci(int_t, v)
        out.append(v if isinstance(elem, ir.IntegerType) else arith.bitcast(elem, v))
    return out


def _shuffle_xor(word: ir.Value, offset: int, width: int) -> ir.Value:
    return gpu.ShuffleOp(word, _c(offset), _c(width), gpu.ShuffleMode.XOR).results[0]
