"""wgmma.Staging's offsets are written once for two uses: as i32 arith ops in the kernel (where
cp.async and register stores put an operand) and on Python ints while planning (tensor-copy boxes,
tma.plan_stream). Both must give the same byte for every element, in every layout."""

import pytest
from mlir import ir, passmanager
from mlir.dialects import arith, func

from tilec.targets.nvidia.lowering import wgmma

# (m, n, k, kind, warps, B mode, swizzle, A M-major)
LAYOUTS = [
    (128, 256, 64, "f16.f16", 8, "n-major", True, False),
    (128, 256, 64, "f16.f16", 8, "n-major", True, True),
    (128, 128, 64, "bf16.bf16", 4, "k-major", True, True),
    (64, 64, 128, "f16.f16", 4, "trans", True, False),
    (128, 128, 128, "e4m3.e4m3", 8, "k-major", True, False),
    (128, 64, 32, "tf32.tf32", 4, "k-major", True, False),
    (128, 128, 64, "f16.f16", 8, "n-major", False, False),
    (64, 128, 32, "f16.f16", 4, "k-major", False, False),
    (64, 64, 64, "s8.s8", 4, "k-major", False, False),
]


def _ir_offsets(staging, points):
    """The kernel's offsets of `points` [(operand, row, col)], folded by MLIR's canonicalizer."""
    with ir.Context(), ir.Location.unknown():
        module = ir.Module.create()
        i32 = ir.IntegerType.get_signless(32)
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp("offsets", ([], [i32] * len(points)))
            with ir.InsertionPoint(fn.add_entry_block()):
                values = [
                    staging.offset(operand, arith.constant(i32, row), arith.constant(i32, col))
                    for operand, row, col in points
                ]
                func.ReturnOp(values)
        passmanager.PassManager.parse("builtin.module(canonicalize)").run(module.operation)
        ret = list(fn.entry_block.operations)[-1]
        return [ir.IntegerAttr(v.owner.attributes["value"]).value for v in ret.operands]


@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda p: "-".join(map(str, p)))
def test_int_offsets_match_kernel_offsets(layout):
    m, n, k, kind, warps, b_mode, swizzle, a_m_major = layout
    staging = wgmma.Staging(m, n, k, kind, warps, b_mode, swizzle=swizzle, a_m_major=a_m_major)
    assert staging.a_m_major == a_m_major
    b_rows, b_cols = (n, k) if b_mode == "trans" else (k, n)
    points = [(0, r, c) for r in range(0, m, 3) for c in range(0, k, 5)]
    points += [(1, r, c) for r in range(0, b_rows, 3) for c in range(0, b_cols, 7)]
    expected = _ir_offsets(staging, points)
    got = [staging.offset(operand, row, col, wgmma.PY_INTS) for operand, row, col in points]
    assert got == expected
    # and no two elements of one operand share a byte
    for operand in (0, 1):
        mine = [o for (op, _, _), o in zip(points, got) if op == operand]
        assert len(set(mine)) == len(mine)


@pytest.mark.parametrize("warps", [4, 8])
@pytest.mark.parametrize("a_m_major", [False, True])
def test_a_rows_keep_their_logical_order(a_m_major, warps):
    """The accumulator layout follows the instruction's rows, so A is not permuted on its way into
    shared memory: K-major, row r of the tile is row r of its 128-byte swizzle atoms; M-major, the 64
    values of M from 64j in one K row fill one 128-byte row (chunks swizzled within it), which is
    what lets a column-major A's copies land whole 32-byte sectors."""
    m, k = 128, 64
    staging = wgmma.Staging(m, 128, k, "f16.f16", warps, "n-major", swizzle=True, a_m_major=a_m_major)
    at = lambda row, col: staging.offset(0, row, col, wgmma.PY_INTS)  # noqa: E731
    if a_m_major:
        for kk in (0, 5, 63):
            for j in range(m // 64):
                row = {at(64 * j + i, kk) // 128 for i in range(64)}
                assert row == {(j * k + kk)}
                # 8 neighbours along M: one 16-byte chunk, in order
                assert [at(64 * j + i, kk) % 16 for i in range(8)] == list(range(0, 16, 2))
    else:
        for r in range(m):
            assert {at(r, c) // 128 for c in range(64)} == {r}


@pytest.mark.parametrize("swizzled_b", [False, True])
@pytest.mark.parametrize(
    "m, n, k, warps", [(256, 128, 32, 8), (128, 256, 32, 8), (128, 128, 32, 4), (64, 64, 8, 4)]
)
def test_swapped_staging_fragments(m, n, k, warps, swizzled_b):
    """A transposed tf32 dot's B (wgmma_swapped.SwappedStaging): the kernel's offsets are the
    planner's, no two elements share a byte, every fragment load reads the element the instruction
    wants (fragment_offset: B's (8 ks + 4 q + t, 16 w + 8 h + g + 16 W j)), and a swizzled B is what
    tensor copies write: box c (32 values of N, all K rows) at offset(1, 0, c), row r at 128 r, the
    16-byte chunk of value x at chunk (x / 4) ^ (r mod 8)."""
    from tilec.targets.nvidia.lowering.wgmma_swapped import SwappedStaging

    staging = SwappedStaging(m, n, k, warps, swizzle=True, swizzled_b=swizzled_b)
    assert staging.swizzled_b == swizzled_b
    points = [(1, r, c) for r in range(0, k, 3) for c in range(0, n, 5)]
    got = [staging.offset(1, r, c, wgmma.PY_INTS) for _, r, c in points]
    assert got == _ir_offsets(staging, points)
    every = {staging.offset(1, r, c, wgmma.PY_INTS) for r in range(k) for c in range(n)}
    assert len(every) == k * n and min(every) >= staging.a_t.bytes and max(every) < staging.bytes
    groups = warps // 4
    for j in range(n // (64 * groups)):
        for ks in range(k // 8):
            for h in (0, 1):
                for q in (0, 1):
                    for warp in range(warps):
                        for lane in range(32):
                            g, t = lane // 4, lane % 4
                            want = (8 * ks + 4 * q + t, 16 * warp + 8 * h + g + 16 * warps * j)
                            at = staging.fragment_offset(j, ks, h, q, warp, lane, wgmma.PY_INTS)
                            assert at == staging.offset(1, *want, wgmma.PY_INTS)
    if swizzled_b:
        for c in range(0, n, 32):
            box = staging.offset(1, 0, c, wgmma.PY_INTS)
            assert box % 1024 == 0
            for r in range(k):
                for x in range(32):
                    chunk = (x * 4 // 16) ^ (r % 8)
                    assert (
                        staging.offset(1, r, c + x, wgmma.PY_INTS) == box + 128 * r + 16 * chunk + x * 4 % 16
                    )
