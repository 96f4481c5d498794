"""layouts.Blocked with `warp_repeats`: the warpgroup-MMA accumulator layout (warp w holds rows
16w + g and 16w + 8 + g, as the instruction gives them). Where each register sits; the GPU tests run
the kernels that use it."""

from __future__ import annotations

import pytest

from tilec.passes import wgmma
from tilec.passes.layouts import Blocked, Interleaved, Slice


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
