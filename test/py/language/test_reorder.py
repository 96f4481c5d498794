"""tl.join / tl.split / tl.interleave / tl.cat / tl.flip / tl.sort / tl.gather / tl.histogram / tl.swizzle2d / tl.assume
against NumPy on the CPU target and the interpreter (and on a GPU through torch); every value comes
out exactly, -0.0 and NaN payloads included."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def pairs(x_ptr, y_ptr, joined_ptr, halves_ptr, inter_ptr, cat_ptr, R: tl.constexpr, C: tl.constexpr):
    """2-D blocks x, y [R, C]: join -> [R, C, 2], split back, interleave -> [R, 2C], cat -> [2R, C]."""
    r, c = tl.arange(0, R)[:, None], tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    y = tl.load(y_ptr + r * C + c)
    joined = tl.join(x, y)
    k = tl.arange(0, 2)[None, None, :]
    tl.store(joined_ptr + r[:, :, None] * 2 * C + c[:, :, None] * 2 + k, joined)
    first, second = tl.split(joined)
    tl.store(halves_ptr + r * C + c, first)
    tl.store(halves_ptr + R * C + r * C + c, second)
    tl.store(inter_ptr + r * 2 * C + tl.arange(0, 2 * C)[None, :], tl.interleave(x, y))
    tl.store(cat_ptr + tl.arange(0, 2 * R)[:, None] * C + c, tl.cat(x, y, can_reorder=True))


SPECIALS = {
    np.float32: [-0.0, np.float32(np.nan), np.inf],
    np.float16: [-0.0, np.float16(np.nan), -np.inf],
    np.int8: [-128, 127, -1],
}


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int8, np.int64])
def test_join_split_interleave_cat(target, dtype):
    rng = np.random.default_rng(0)
    R, C = 4, 8
    x = (rng.standard_normal((R, C)) * 50).astype(dtype)
    y = (rng.standard_normal((R, C)) * 50).astype(dtype)
    for i, value in enumerate(SPECIALS.get(dtype, [])):
        x.flat[i] = value
    if np.issubdtype(dtype, np.floating):  # a NaN with a payload of its own
        y.view(np.uint16 if dtype == np.float16 else np.uint32).flat[3] = (
            0x7E01 if dtype == np.float16 else 0x7FC00123
        )
    joined = np.zeros((R, C, 2), dtype)
    halves = np.zeros((2, R, C), dtype)
    inter = np.zeros((R, 2 * C), dtype)
    cat = np.zeros((2 * R, C), dtype)
    pairs[(1,)](x, y, joined, halves, inter, cat, R=R, C=C)

    def same(a, b):  # bit for bit
        return a.view(np.uint8).tobytes() == np.ascontiguousarray(b).view(np.uint8).tobytes()

    assert same(joined, np.stack([x, y], axis=-1))
    assert same(halves, np.stack([x, y]))
    assert same(inter, np.stack([x, y], axis=-1).reshape(R, 2 * C))
    assert same(cat, np.concatenate([x, y]))


@tilec.jit
def join_broadcast(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    joined = tl.join(x, 7)  # a scalar joins every element; its type follows x's
    tl.store(out_ptr + tl.arange(0, N)[:, None] * 2 + tl.arange(0, 2)[None, :], joined)


def test_join_broadcasts_a_scalar(target):
    x = np.arange(8, dtype=np.int32)
    out = np.zeros((8, 2), np.int32)
    join_broadcast[(1,)](x, out, N=8)
    np.testing.assert_array_equal(out, np.stack([x, np.full(8, 7)], axis=1))


@tilec.jit
def flips(x_ptr, last_ptr, first_ptr, R: tl.constexpr, C: tl.constexpr):
    r, c = tl.arange(0, R)[:, None], tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + r * C + c)
    tl.store(last_ptr + r * C + c, tl.flip(x))
    tl.store(first_ptr + r * C + c, tl.flip(x, 0))


@pytest.mark.parametrize("R,C", [(4, 16), (1, 2), (8, 1)])
def test_flip(target, R, C):
    x = np.arange(R * C, dtype=np.float32).reshape(R, C) - 3
    x.flat[0] = -0.0
    last, first = np.zeros_like(x), np.zeros_like(x)
    flips[(1,)](x, last, first, R=R, C=C)
    assert last.tobytes() == np.ascontiguousarray(x[:, ::-1]).tobytes()
    assert first.tobytes() == np.ascontiguousarray(x[::-1]).tobytes()


@pytest.mark.parametrize("dtype", [np.float16, np.int64, np.uint8, np.bool_])
def test_flip_of_long_rows_keeps_every_bit(target, dtype):
    """tl.flip is one tile.gather at the mirrored index: NaN payloads, -0.0 and booleans come out
    bit for bit, and 512-element rows compile quickly on the CPU (7.8 s as the old network)."""
    rng = np.random.default_rng(3)
    x = rng.integers(0, 256, (8, 512 * np.dtype(dtype).itemsize), dtype=np.uint8).view(dtype)
    if dtype == np.bool_:
        x = x.astype(np.uint8) % 2 == 1
    last, first = np.zeros_like(x), np.zeros_like(x)
    flips[(1,)](x, last, first, R=8, C=512)
    assert last.tobytes() == np.ascontiguousarray(x[:, ::-1]).tobytes()
    assert first.tobytes() == np.ascontiguousarray(x[::-1]).tobytes()


@tilec.jit
def sorted_rows(x_ptr, out_ptr, R: tl.constexpr, N: tl.constexpr, DESCENDING: tl.constexpr):
    r, c = tl.arange(0, R)[:, None], tl.arange(0, N)[None, :]
    tl.store(out_ptr + r * N + c, tl.sort(tl.load(x_ptr + r * N + c), descending=DESCENDING))


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float16])
@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("N", [1, 2, 8, 64])
def test_sort(target, dtype, descending, N):
    rng = np.random.default_rng(N)
    x = (rng.standard_normal((4, N)) * 10).astype(dtype)
    x[1, : N // 2] = 3  # ties
    x[2] = np.arange(N)[::-1]  # reversed
    out = np.zeros_like(x)
    sorted_rows[(1,)](x, out, R=4, N=N, DESCENDING=descending)
    expected = np.sort(x, axis=1)
    np.testing.assert_array_equal(out, expected[:, ::-1] if descending else expected)


@tilec.jit
def sorted_along(
    x_ptr,
    out_ptr,
    top_ptr,
    A: tl.constexpr,
    B: tl.constexpr,
    C: tl.constexpr,
    DIM: tl.constexpr,
    DESCENDING: tl.constexpr,
    K: tl.constexpr,
):
    """x [A, B, C] sorted along DIM into out, and its K largest along DIM into top (K in place of that
    dimension's size)."""
    a, b, c = tl.arange(0, A)[:, None, None], tl.arange(0, B)[None, :, None], tl.arange(0, C)[None, None, :]
    x = tl.load(x_ptr + a * B * C + b * C + c)
    tl.store(out_ptr + a * B * C + b * C + c, tl.sort(x, DIM, descending=DESCENDING))
    top = tl.topk(x, K, dim=DIM)
    if DIM % 3 == 0:
        a = tl.arange(0, K)[:, None, None]
        tl.store(top_ptr + a * B * C + b * C + c, top)
    elif DIM % 3 == 1:
        b = tl.arange(0, K)[None, :, None]
        tl.store(top_ptr + a * K * C + b * C + c, top)
    else:
        c = tl.arange(0, K)[None, None, :]
        tl.store(top_ptr + a * B * K + b * K + c, top)


@pytest.mark.parametrize("dim", [0, 1, 2, -2])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_topk_along_any_dimension(target, dim, descending):
    rng = np.random.default_rng(dim + 7)
    x = rng.integers(-20, 20, (4, 8, 2)).astype(np.int32)  # ties included
    top_shape = list(x.shape)
    top_shape[dim] = 2
    out, top = np.zeros_like(x), np.zeros(top_shape, np.int32)
    sorted_along[(1,)](x, out, top, A=4, B=8, C=2, DIM=dim, DESCENDING=descending, K=2)
    expected = np.sort(x, axis=dim)
    np.testing.assert_array_equal(out, np.flip(expected, axis=dim) if descending else expected)
    np.testing.assert_array_equal(top, np.take(np.flip(expected, axis=dim), [0, 1], axis=dim))


@tilec.jit
def merged_along(
    x_ptr, out_ptr, A: tl.constexpr, B: tl.constexpr, DIM: tl.constexpr, DESCENDING: tl.constexpr
):
    offs = tl.arange(0, A)[:, None] * B + tl.arange(0, B)[None, :]
    tl.store(out_ptr + offs, tl.bitonic_merge(tl.load(x_ptr + offs), dim=DIM, descending=DESCENDING))


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("descending", [False, True])
def test_bitonic_merge_sorts_bitonic_sequences(target, dim, descending):
    """tl.bitonic_merge: the last stage of the sorting network sorts a sequence that rises then
    falls (or falls then rises), the rotation point anywhere; a sequence that is not bitonic comes
    out unsorted, so the test can tell the merge from a full sort."""
    rng = np.random.default_rng(3 + dim)
    n, other = 16, 4
    rows = []
    for r in range(other):
        values = rng.integers(-50, 50, n)
        rising = np.sort(values[: 3 + 3 * r])  # ties included
        rows.append(np.concatenate([rising, -np.sort(-values[3 + 3 * r :])]) * (-1 if r % 2 else 1))
    bitonic = np.stack(rows).astype(np.int32)  # [other, n]: every row bitonic
    x = bitonic if dim == 1 else np.ascontiguousarray(bitonic.T)
    out = np.zeros_like(x)
    shape = dict(A=x.shape[0], B=x.shape[1])
    merged_along[(1,)](x, out, **shape, DIM=dim, DESCENDING=descending)
    expected = np.sort(x, axis=dim)
    np.testing.assert_array_equal(out, np.flip(expected, axis=dim) if descending else expected)
    scrambled = np.tile(
        np.array([3, 0, 2, 1, 7, 4, 6, 5, 11, 8, 10, 9, 15, 12, 14, 13], np.int32), (other, 1)
    )
    x = scrambled if dim == 1 else np.ascontiguousarray(scrambled.T)
    merged_along[(1,)](x, out, **shape, DIM=dim, DESCENDING=False)
    assert not np.array_equal(out, np.sort(x, axis=dim))
    np.testing.assert_array_equal(np.sort(out, axis=dim), np.sort(x, axis=dim))  # a permutation


def _sort_input(dtype, shape, rng):
    """Values with ties and, for floats, NaNs, infinities, -0.0 and 0.0."""
    if np.dtype(dtype).kind == "f":
        x = (rng.standard_normal(shape) * 10).astype(dtype)
        for value, count in [(np.nan, 6), (-0.0, 4), (0.0, 4), (np.inf, 2), (-np.inf, 2), (3.0, 5)]:
            x.flat[rng.integers(0, x.size, count)] = value
        return x
    if np.dtype(dtype) == np.bool_:
        return rng.integers(0, 2, shape).astype(bool)
    info = np.iinfo(dtype)
    x = rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)
    x.flat[rng.integers(0, x.size, 5)] = info.max  # ties, and the extremes
    x.flat[rng.integers(0, x.size, 3)] = info.min
    return x


def _sorted_reference(x, dim, descending):
    """NumPy's order: NaNs last ascending; descending is its mirror (NaNs first)."""
    ascending = np.sort(x, axis=dim)
    return np.flip(ascending, axis=dim) if descending else ascending


@pytest.mark.parametrize(
    "dtype",
    [
        np.float32,
        np.float16,
        np.float64,
        np.int8,
        np.uint8,
        np.int16,
        np.uint32,
        np.int64,
        np.uint64,
        np.bool_,
    ],
)
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_orders_nans_last_unsigned_by_value_every_type(target, dtype, dim, descending):
    """tl.sort: NaNs after every number (last ascending, first descending, as NumPy and torch order
    them), unsigned integers by their value, 8-bit and boolean elements, along either dimension."""
    x = _sort_input(dtype, (16, 32), np.random.default_rng(dim + 2 * descending))
    out = np.zeros_like(x)
    sort_2d[(1,)](x, out, R=16, C=32, DIM=dim, DESCENDING=descending)
    np.testing.assert_array_equal(out, _sorted_reference(x, dim, descending))


@tilec.jit
def sort_2d(
    x_ptr, out_ptr, R: tl.constexpr, C: tl.constexpr, DIM: tl.constexpr, DESCENDING: tl.constexpr,
    MERGE: tl.constexpr = False,
):  # fmt: skip
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    if MERGE:
        tl.store(out_ptr + offs, tl.bitonic_merge(x, dim=DIM, descending=DESCENDING))
    else:
        tl.store(out_ptr + offs, tl.sort(x, dim=DIM, descending=DESCENDING))


def test_sort_code_does_not_grow_with_the_row(monkeypatch):
    """The CPU target loops over the network's steps, so sorting 1024-element rows makes the same code
    as sorting 64-element ones (unrolled into log2(n)-dimensional views, a 512-element sort took 49 s
    to compile and 256 took 25 s: Triton's test_sort sizes)."""
    monkeypatch.setenv("TILEC_CACHE_DIR", "off")
    generics = []
    for shape in [(8, 64), (4, 1024)]:
        x = _sort_input(np.float32, shape, np.random.default_rng(0))
        out = np.zeros_like(x)
        compiled = tilec.compile(
            sort_2d, signature="*fp32,*fp32", constexprs={"R": shape[0], "C": shape[1], "DIM": 1, "DESCENDING": 0},
            target="cpu",
        )  # fmt: skip
        assert '"tile.sort"' in compiled.asm["tile"]
        generics.append(compiled.asm["linalg"].count("linalg.generic"))
        compiled[(1,)](x, out)
        np.testing.assert_array_equal(out, _sorted_reference(x, 1, False))
    assert generics[0] == generics[1]


@pytest.mark.parametrize(
    "dtype, merge", [(np.float32, False), (np.float16, False), (np.uint16, False), (np.float32, True)]
)
@pytest.mark.parametrize("descending", [False, True])
def test_gpu_sorting_network_swaps_exactly_as_the_cpu_loop(monkeypatch, dtype, merge, descending):
    """GPUs sort by tile-expand-sort's unrolled network, the CPU by convert-tile-to-linalg's loop over
    the same steps: run the network on the CPU target (the pass put in front of its pipeline) and the
    results match the loop's bit for bit: same order, and the same places for -0.0 / 0.0 and NaNs
    (for tl.bitonic_merge, the last stage alone, the same permutation of an input that is not
    bitonic)."""
    from tilec.targets.cpu import compiler as cpu

    monkeypatch.setenv("TILEC_CACHE_DIR", "off")
    x = _sort_input(dtype, (8, 32), np.random.default_rng(11))
    results, loops = [], []
    for network in (False, True):
        if network:
            monkeypatch.setattr(
                cpu,
                "tile_to_linalg",
                lambda debug=False, plain=cpu.tile_to_linalg: "tile-expand-sort," + plain(debug),
            )
        compiled = tilec.compile(
            sort_2d, signature=f"*{_SIG[np.dtype(dtype)]},*{_SIG[np.dtype(dtype)]}",
            constexprs={"R": 8, "C": 32, "DIM": 1, "DESCENDING": int(descending), "MERGE": merge}, target="cpu",
        )  # fmt: skip
        loops.append(compiled.asm["linalg"].count("scf.for"))
        out = np.zeros_like(x)
        compiled[(1,)](x, out)
        results.append(out)
    # the stages' and steps' loops (the one stage of a merge folded away), or the unrolled network
    assert loops[0] == loops[1] + (1 if merge else 2)
    assert results[0].tobytes() == results[1].tobytes()
    if merge:  # a random input is not bitonic: permuted, not sorted
        np.testing.assert_array_equal(np.sort(results[0], axis=1), np.sort(x, axis=1))
        assert not np.array_equal(results[0], _sorted_reference(x, 1, descending))
    else:
        np.testing.assert_array_equal(results[0], _sorted_reference(x, 1, descending))


_SIG = {np.dtype(np.float32): "fp32", np.dtype(np.float16): "fp16", np.dtype(np.uint16): "u16"}


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.uint8, np.int64])
@pytest.mark.parametrize("dim", [0, 1])
def test_sort_orders_nans_last_unsigned_by_value_on_gpu(dtype, dim):
    import torch

    for descending in (False, True):
        x = _sort_input(dtype, (16, 32), np.random.default_rng(dim))
        out = torch.zeros(x.shape, dtype=getattr(torch, np.dtype(dtype).name), device="cuda")
        sort_2d[(1,)](torch.from_numpy(x).cuda(), out, R=16, C=32, DIM=dim, DESCENDING=descending)
        np.testing.assert_array_equal(out.cpu().numpy(), _sorted_reference(x, dim, descending))


@pytest.mark.parametrize("descending", [False, True])
def test_topk_smallest_with_descending_false(target, descending):
    """tl.topk(x, k, descending=False), newer Triton's argument: the k smallest, ascending."""
    x = _sort_input(np.float32, (4, 32), np.random.default_rng(5))
    out = np.zeros((4, 8), np.float32)
    top_8[(1,)](x, out, DESCENDING=descending)
    np.testing.assert_array_equal(out, _sorted_reference(x, 1, descending)[:, :8])


@tilec.jit
def top_8(x_ptr, out_ptr, DESCENDING: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 4)[:, None] * 32 + tl.arange(0, 32)[None, :])
    tl.store(
        out_ptr + tl.arange(0, 4)[:, None] * 8 + tl.arange(0, 8)[None, :],
        tl.topk(x, 8, descending=DESCENDING),
    )


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_sort_and_topk_along_any_dimension_on_gpu(dim):
    import torch

    x = torch.randint(-20, 20, (4, 8, 2), device="cuda", dtype=torch.int32)
    top_shape = list(x.shape)
    top_shape[dim] = 2
    out, top = torch.zeros_like(x), torch.zeros(top_shape, device="cuda", dtype=torch.int32)
    sorted_along[(1,)](x, out, top, A=4, B=8, C=2, DIM=dim, DESCENDING=True, K=2)
    expected = torch.sort(x, dim=dim, descending=True).values
    assert torch.equal(out, expected)
    assert torch.equal(top, expected.narrow(dim, 0, 2))


@tilec.jit
def gathered(
    src_ptr, idx_ptr, out_ptr, K: tl.constexpr, M: tl.constexpr, N: tl.constexpr, AXIS: tl.constexpr
):
    """src [K, N] gathered along axis 0 by index [M, N], or src [N, K] along axis 1 by index [N, M]."""
    if AXIS == 0:
        src = tl.load(src_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
        rows, cols = tl.arange(0, M)[:, None], tl.arange(0, N)[None, :]
        tl.store(out_ptr + rows * N + cols, tl.gather(src, tl.load(idx_ptr + rows * N + cols), 0))
    else:
        src = tl.load(src_ptr + tl.arange(0, N)[:, None] * K + tl.arange(0, K)[None, :])
        rows, cols = tl.arange(0, N)[:, None], tl.arange(0, M)[None, :]
        tl.store(out_ptr + rows * M + cols, tl.gather(src, tl.load(idx_ptr + rows * M + cols), 1))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("dtype", [np.float32, np.int8])
def test_gather(target, axis, dtype):
    rng = np.random.default_rng(axis)
    K, M, N = 8, 16, 4
    src = (rng.standard_normal((K, N) if axis == 0 else (N, K)) * 20).astype(dtype)
    if dtype == np.float32:
        src.flat[0] = -0.0
    index = rng.integers(0, K, (M, N) if axis == 0 else (N, M)).astype(np.int32)
    out = np.zeros(index.shape, dtype)
    gathered[(1,)](src, index, out, K=K, M=M, N=N, AXIS=axis)
    assert out.tobytes() == np.take_along_axis(src, index, axis).tobytes()


@pytest.mark.parametrize("index_dtype", [np.int64, np.uint8, np.int16, np.uint32])
def test_gather_of_large_blocks_any_index_type_and_indices_outside(target, index_dtype):
    """128 x 64 blocks (as a selection among 64 candidates per element this spilled on GPUs), indices
    of every integer type, and indices outside src (negative ones, past the end) give 0."""
    rng = np.random.default_rng(3)
    K, M, N = 64, 64, 128
    src = rng.standard_normal((N, K)).astype(np.float32)
    low = 0 if np.issubdtype(index_dtype, np.unsignedinteger) else -3
    index = rng.integers(low, K + 3, (N, M)).astype(index_dtype)
    out = np.full(index.shape, np.nan, np.float32)
    gathered[(1,)](src, index, out, K=K, M=M, N=N, AXIS=1)
    i = index.astype(np.int64)
    inside = (i >= 0) & (i < K)
    np.testing.assert_array_equal(
        out, np.where(inside, np.take_along_axis(src, np.where(inside, i, 0), 1), 0)
    )


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80", "gfx942"])
def test_gather_goes_through_shared_memory_once_on_gpus(arch):
    """One tile.gather: src staged in shared memory, each element read back where its index says; no
    spills at 128 x 64 (the selection it replaced took 52 KiB of spills and a minute to compile)."""
    compiled = tilec.compile(
        gathered, signature="*fp32,*i32,*fp32", constexprs={"K": 64, "M": 64, "N": 128, "AXIS": 1},
        target=arch, num_warps=4,
    )  # fmt: skip
    assert '"tile.gather"' in compiled.asm["tile"]
    if arch.startswith("sm_"):
        ptx = compiled.asm["ptx"]
        assert ".local" not in ptx and "ld.shared" in ptx
        assert compiled.metadata["shared"] >= 128 * 64 * 4
        if shutil.which("ptxas"):
            assert compiled.n_spills == 0


@tilec.jit
def cumulative(x_ptr, fwd_ptr, rev_ptr, idx_ptr, R: tl.constexpr, C: tl.constexpr):
    """Forward and reverse cumsums along rows, and a two-operand scan (a running argmax)."""
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(fwd_ptr + offs, tl.cumsum(x, axis=1))
    tl.store(rev_ptr + offs, tl.cumsum(x, axis=1, reverse=True))
    index = tl.broadcast_to(tl.arange(0, C)[None, :], (R, C))
    _, best = tl.associative_scan((x, index), 1, _running_argmax)
    tl.store(idx_ptr + offs, best)


@tilec.jit
def _running_argmax(a, i, b, j):
    take_b = b > a
    return tl.where(take_b, b, a), tl.where(take_b, j, i)


def _expected_scans(x):
    best = np.array([[int(np.argmax(row[: k + 1])) for k in range(len(row))] for row in x])
    return np.cumsum(x, axis=1), np.flip(np.cumsum(np.flip(x, 1), axis=1), 1), best


@pytest.mark.parametrize("shape", [(1, 1024), (4, 64), (8, 1)])
def test_scans_forward_reverse_and_of_pairs(target, shape):
    """Integer sums (exact, so any order of the combines gives the same values) and a running argmax
    whose left operand must be the earlier element (ties keep the first)."""
    rng = np.random.default_rng(4)
    x = rng.integers(-50, 50, shape).astype(np.int32)
    fwd, rev, idx = (np.zeros(shape, np.int32) for _ in range(3))
    cumulative[(1,)](x, fwd, rev, idx, R=shape[0], C=shape[1])
    for got, want in zip((fwd, rev, idx), _expected_scans(x)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("shape", [(1, 1024), (4, 64), (32, 128), (8, 1)])
def test_scans_on_gpu(shape):
    """log2(n) rounds through shared memory (convert-tile-to-gpu's _scan), checked like the host's."""
    import torch

    rng = np.random.default_rng(4)
    x = rng.integers(-50, 50, shape).astype(np.int32)
    outs = [torch.zeros(shape, dtype=torch.int32, device="cuda") for _ in range(3)]
    cumulative[(1,)](torch.from_numpy(x).cuda(), *outs, R=shape[0], C=shape[1])
    for got, want in zip(outs, _expected_scans(x)):
        np.testing.assert_array_equal(got.cpu().numpy(), want)


@tilec.jit
def histogram_kernel(x_ptr, out_ptr, n, N: tl.constexpr, BINS: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i, mask=i < n, other=0)
    tl.store(out_ptr + tl.arange(0, BINS), tl.histogram(x, BINS, mask=i < n))


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint32, np.int64])
def test_histogram_with_more_bins_than_the_values_type_holds(target, dtype):
    """512 bins of 8-bit values: bin 257 is not value 1 (compared in the values' type the bin number
    wrapped: the selection counted 1s in bins 1, 257 too); unsigned values count by their value."""
    rng = np.random.default_rng(2)
    info = np.iinfo(dtype)
    x = rng.integers(max(info.min, -300), min(info.max, 600), 256, endpoint=True).astype(dtype)
    out = np.zeros(512, np.int32)
    histogram_kernel[(1,)](x, out, 200, N=256, BINS=512)
    kept = x[:200].astype(np.int64)
    np.testing.assert_array_equal(out, np.bincount(kept[(kept >= 0) & (kept < 512)], minlength=512))


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80", "gfx942"])
def test_histogram_counts_with_shared_memory_atomics_on_gpus(arch):
    """One tile.histogram: counters in shared memory, one atomic add per element; 4096 values into
    512 bins compile in a fraction of a second (comparing each with every bin took 67 s)."""
    compiled = tilec.compile(
        histogram_kernel, signature="*i32,*i32,i32", constexprs={"N": 4096, "BINS": 512}, target=arch,
    )  # fmt: skip
    assert '"tile.histogram"' in compiled.asm["tile"]
    assert compiled.metadata["shared"] >= 512 * 4
    if arch.startswith("sm_"):
        assert "atom.shared.add.u32" in compiled.asm["ptx"] or "red.shared.add.u32" in compiled.asm["ptx"]


def test_histogram_counts_in_range_values_of_the_masked_lanes(target):
    rng = np.random.default_rng(1)
    x = rng.integers(-3, 20, 128).astype(np.int32)  # some outside [0, 16)
    out = np.zeros(16, np.int32)
    histogram_kernel[(1,)](x, out, 100, N=128, BINS=16)
    kept = x[:100]
    np.testing.assert_array_equal(out, np.bincount(kept[(kept >= 0) & (kept < 16)], minlength=16))


@tilec.jit
def swizzled(out_ptr, size_i, size_j, size_g, N: tl.constexpr):
    index = tl.arange(0, N)
    i, j = tl.swizzle2d(index // size_j, index % size_j, size_i, size_j, size_g)
    tl.assume(size_g > 0)
    tl.store(out_ptr + index * 2, i, mask=index < size_i * size_j)
    tl.store(out_ptr + index * 2 + 1, j, mask=index < size_i * size_j)


def _swizzle_reference(i, j, size_i, size_j, size_g):
    linear = i * size_j + j
    group = linear // (size_g * size_j)
    first = group * size_g
    rows = min(size_i - first, size_g)
    within = linear % (size_g * size_j)
    return first + within % rows, within // rows


@pytest.mark.parametrize("size_i,size_j,size_g", [(4, 4, 2), (5, 3, 2), (7, 6, 4)])
def test_swizzle2d(target, size_i, size_j, size_g):
    out = np.zeros((64, 2), np.int32)
    swizzled[(1,)](out, size_i, size_j, size_g, N=64)
    expected = [
        _swizzle_reference(i, j, size_i, size_j, size_g) for i in range(size_i) for j in range(size_j)
    ]
    np.testing.assert_array_equal(out[: size_i * size_j], np.array(expected))
    # a permutation of the grid
    assert sorted(map(tuple, out[: size_i * size_j].tolist())) == [
        (i, j) for i in range(size_i) for j in range(size_j)
    ]


@tilec.jit
def split_odd(x_ptr, N: tl.constexpr):
    tl.split(tl.load(x_ptr + tl.arange(0, N)))


@tilec.jit
def assume_float(x_ptr, N: tl.constexpr):
    tl.assume(tl.load(x_ptr))


@tilec.jit
def histogram_of_floats(x_ptr, N: tl.constexpr):
    tl.histogram(tl.load(x_ptr + tl.arange(0, N)), 4)


@tilec.jit
def sort_missing_dim(x_ptr, N: tl.constexpr):
    tl.sort(tl.load(x_ptr + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :]), dim=2)


@tilec.jit
def cat_mismatch(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.cat(x, tl.join(x, x), can_reorder=True)


@tilec.jit
def flip_scalar(x_ptr, N: tl.constexpr):
    tl.flip(tl.load(x_ptr))


@tilec.jit
def gather_mismatch(x_ptr, N: tl.constexpr):
    src = tl.load(x_ptr + tl.arange(0, N)[:, None] * N + tl.arange(0, N)[None, :])
    tl.gather(src, tl.zeros((N, 2 * N), tl.int32), 0)


@pytest.mark.parametrize(
    "kernel,message",
    [
        (gather_mismatch, r"index's shape \[8, 16\] differs from src's \[8, 8\] in dimension 1"),
        (split_odd, r"last dimension must have size 2, got shape \[8\]"),
        (sort_missing_dim, "axis 2 is out of range for a tensor of rank 2"),
        (cat_mismatch, r"the blocks must have one shape, got \[8\] and \[8, 2\]"),
        (flip_scalar, "cannot flip a scalar"),
        (assume_float, "tl.assume expects a condition, got a fp32 value"),
        (histogram_of_floats, "expected a 1-D block of integers"),
    ],
)
def test_misuse_names_the_line(kernel, message):
    with pytest.raises(tilec.CompilationError, match=message) as info:
        kernel[(1,)](np.zeros(64, np.float32), N=8)
    assert "test_reorder.py" in str(info.value)


@pytest.mark.gpu
@needs_gpu
def test_on_gpu():
    import torch

    R, C = 16, 32
    x = torch.randn(R, C, device="cuda")
    y = torch.randn(R, C, device="cuda")
    joined = torch.zeros(R, C, 2, device="cuda")
    halves = torch.zeros(2, R, C, device="cuda")
    inter = torch.zeros(R, 2 * C, device="cuda")
    cat = torch.zeros(2 * R, C, device="cuda")
    pairs[(1,)](x, y, joined, halves, inter, cat, R=R, C=C)
    last, first = torch.zeros_like(x), torch.zeros_like(x)
    flips[(1,)](x, last, first, R=R, C=C)
    values = torch.randint(-3, 20, (128,), device="cuda", dtype=torch.int32)
    counts = torch.zeros(16, device="cuda", dtype=torch.int32)
    histogram_kernel[(1,)](values, counts, 100, N=128, BINS=16)
    torch.cuda.synchronize()
    assert torch.equal(joined, torch.stack([x, y], dim=-1))
    assert torch.equal(halves, torch.stack([x, y]))
    assert torch.equal(inter, torch.stack([x, y], dim=-1).reshape(R, 2 * C))
    assert torch.equal(cat, torch.cat([x, y]))
    assert torch.equal(last, x.flip(1)) and torch.equal(first, x.flip(0))
    kept = values[:100]
    assert torch.equal(counts, torch.bincount(kept[(kept >= 0) & (kept < 16)], minlength=16).int())
    values = torch.randint(-40, 600, (4096,), device="cuda", dtype=torch.int32)
    counts = torch.zeros(512, device="cuda", dtype=torch.int32)
    histogram_kernel[(1,)](values, counts, 4000, N=4096, BINS=512, num_warps=8)
    kept = values[:4000]
    assert torch.equal(counts, torch.bincount(kept[(kept >= 0) & (kept < 512)], minlength=512).int())
    rows = torch.randn(4, 128, device="cuda")
    ordered = torch.zeros_like(rows)
    sorted_rows[(1,)](rows, ordered, R=4, N=128, DESCENDING=False)
    torch.cuda.synchronize()
    assert torch.equal(ordered, rows.sort(dim=1).values)
    src = torch.randn(8, 4, device="cuda")
    index = torch.randint(0, 8, (16, 4), device="cuda", dtype=torch.int32)
    picked = torch.zeros(16, 4, device="cuda")
    gathered[(1,)](src, index, picked, K=8, M=16, N=4, AXIS=0)
    torch.cuda.synchronize()
    assert torch.equal(picked, torch.gather(src, 0, index.long()))
    src = torch.randn(128, 64, device="cuda")
    index = torch.randint(-2, 66, (128, 64), device="cuda", dtype=torch.int32)
    picked = torch.full((128, 64), float("nan"), device="cuda")
    gathered[(1,)](src, index, picked, K=64, M=64, N=128, AXIS=1)
    inside = (index >= 0) & (index < 64)
    expected = torch.where(inside, torch.gather(src, 1, torch.where(inside, index, 0).long()), 0.0)
    assert torch.equal(picked, expected)
