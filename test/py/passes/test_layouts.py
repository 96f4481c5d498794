"""layouts.Blocked with `warp_repeats`: the warpgroup-MMA accumulator layout (warp w holds rows
16w + g and 16w + 8 + g, as the instruction gives them). Where each register sits; the GPU tests run
the kernels that use it."""

from __future__ import annotations

import pytest

from tilec.passes.layouts import Blocked, Interleaved, Slice, constant_classes, thread_bases
from tilec.targets.nvidia.lowering import wgmma


@pytest.mark.parametrize("m,warps", [(64, 4), (128, 4), (128, 8), (256, 8)])
def test_accumulator_registers_follow_the_instruction_rows(m, warps):
    layout = wgmma.accumulator_layout(m, 16, warps)
    rows = sorted({r for r, _ in layout.registers})
    # a thread's rows: its 8-row halves (0 and 8) of each instruction block, 16 * warps rows apart
    assert rows == sorted(wgmma._block_row(j, h, warps) for j in range(m // (16 * warps)) for h in (0, 1))
    assert sorted({c for _, c in layout.registers}) == [0, 1, 8, 9]
    assert layout.tile(0) == 16 * warps and layout.elems(0) == 2 * m // (16 * warps)
    assert layout.distinct_warps(0) == warps and layout.distinct_lanes(0) == 8


def test_every_element_is_held_once():
    """Thread (warp w, lane 4g + t) starts at row 16w + g, column 2t (what bases_of computes: the
    warp's offset is threads_per_warp x warp_repeats x size_per_thread rows); with the registers'
    offsets the threads cover the tile exactly once."""
    m, n, warps = 128, 32, 8
    layout = wgmma.accumulator_layout(m, n, warps)
    held = []
    for warp in range(warps):
        for lane in range(32):
            g, t = lane // 4, lane % 4
            base = (warp * 8 * layout.repeats(0) + g, 2 * t)
            held += [(base[0] + r, base[1] + c) for r, c in layout.registers]
    assert sorted(held) == [(r, c) for r in range(m) for c in range(n)]


def test_slices_and_reshapes_keep_the_repeats():
    layout = wgmma.accumulator_layout(128, 64, 8)
    rows = Slice.of(layout, 1)  # a row reduction's result
    assert rows.shape == (128,) and sorted(r for (r,) in rows.registers) == [0, 8]
    cols = Slice.of(layout, 0)  # a column reduction's: one element along M
    assert cols.parent.shape[0] == 1 and cols.parent.elems(0) == 1
    assert layout.with_shape((128, 32)).warp_repeats == (2, 1)


def test_repeats_must_tile_the_tensor():
    with pytest.raises(ValueError, match="does not tile"):
        Blocked((48, 16), (1, 2), (8, 4), (2, 1), (1, 0), warp_repeats=(2, 1))
    with pytest.raises(ValueError, match="interleaved dimension"):
        Interleaved((64, 64), (1, 4), (8, 4), (4, 1), (1, 0), warp_repeats=(1, 2), group=2)


def test_thread_bases_are_the_lowerings_bases():
    """The static twin of the lowering's `bases_of`: thread (warp w, lane 4g + t) of the accumulator
    starts at row 16w + g, column 2t."""
    layout = wgmma.accumulator_layout(128, 64, 8)
    assert sorted(thread_bases(layout, 0)) == sorted(16 * w + g for w in range(8) for g in range(8))
    assert thread_bases(layout, 1) == [0, 2, 4, 6]


def test_constant_classes_share_registers_of_one_aligned_group():
    """A column mask `start + arange(64) < n` (n divisible by 16) in the accumulator's layout: a
    thread's columns 8j + 2t + {0, 1} fall into 4 groups of 16 columns, so its 16 registers take
    4 values."""
    cols = wgmma.accumulator_layout(128, 64, 8).with_shape((1, 64))
    classes = constant_classes(cols, (1, 16))
    assert len(classes) == 16 and len(set(classes)) == 4
    for i, j in enumerate(classes):  # every thread's two elements lie in one 16-column group
        for t in range(4):
            assert (2 * t + cols.registers[i][1]) // 16 == (2 * t + cols.registers[j][1]) // 16
    # groups of 2: a thread's two neighbours; groups of 1 or a varying tensor: nothing shared
    assert len(set(constant_classes(cols, (1, 2)))) == 8
    assert constant_classes(cols, (1, 1)) is None
    # along rows (a row statistic's slice): rows g and g + 8 of one warp are in one group of 16
    rows = Slice.of(wgmma.accumulator_layout(128, 64, 8), 1)
    assert constant_classes(rows, (16,)) == (0, 0)
    assert constant_classes(rows, (8,)) is None


def test_constant_classes_of_interleaved_and_wrapped_layouts():
    # interleaved lanes (after a store exchange): lanes start at columns 0, 8, 4, 12 and hold runs of
    # 4 consecutive columns, each run inside one aligned group of 4: one value per run
    inter = Interleaved((16, 64), (1, 4), (8, 4), (1, 1), (1, 0), warp_repeats=(), group=2)
    assert thread_bases(inter, 1) == [0, 8, 4, 12]
    classes = constant_classes(inter, (1, 4))
    assert classes == tuple(i - i % 4 for i in range(32))
    # a 4-element tensor over 32 lanes wraps: a lane's one register is alone
    wrapped = Blocked((4,), (1,), (32,), (1,), (0,))
    assert constant_classes(wrapped, (4,)) is None
