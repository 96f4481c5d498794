"""Block pointers (`tl.make_block_ptr`, `tl.advance`, `tl.load/tl.store` with `boundary_check` and
`padding_option`) and aggregates crossing control flow (block pointers and tuples carried through
for/while loops and if branches), on the CPU target and the interpreter; in CI the sm_90a code of a
block-pointer matmul streams its tiles into the tensor cores; on a GPU the same matmul against torch."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def matmul_block_ptrs(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
):  # fmt: skip
    """Triton's block-pointer matmul: both operands advance along K in the loop."""
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    a_blocks = tl.make_block_ptr(a_ptr, (M, K), (stride_am, stride_ak), (pid_m * BM, 0), (BM, BK), (1, 0))
    b_blocks = tl.make_block_ptr(
        base=b_ptr, shape=(K, N), strides=(stride_bk, stride_bn), offsets=(0, pid_n * BN),
        block_shape=(BK, BN), order=(1, 0),
    )  # fmt: skip
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_blocks, boundary_check=(0, 1))
        b = tl.load(b_blocks, boundary_check=(0, 1), padding_option="zero")
        acc = tl.dot(a, b, acc)
        a_blocks = tl.advance(a_blocks, (0, BK))
        b_blocks = tl.advance(b_blocks, [BK, 0])
    c_blocks = tl.make_block_ptr(
        c_ptr, (M, N), (stride_cm, stride_cn), (pid_m * BM, pid_n * BN), (BM, BN), (1, 0)
    )
    tl.store(c_blocks, acc.to(c_ptr.dtype.element_ty), boundary_check=(0, 1))


def _matmul(a, b, c, bm=32, bn=32, bk=16, **options):
    M, K = a.shape
    N = b.shape[1]
    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    strides = [s // a.itemsize for s in (*a.strides, *b.strides, *c.strides)]
    matmul_block_ptrs[grid](a, b, c, M, N, K, *strides, BM=bm, BN=bn, BK=bk, **options)


@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (70, 50, 90), (33, 17, 5)])
def test_matmul_through_block_pointers(target, M, N, K):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((N, K)).astype(np.float32).T  # column-major B: strides (1, K)
    c = np.full((M, N + 3), 7.0, np.float32)
    _matmul(a, b, c[:, :N])
    np.testing.assert_allclose(c[:, :N], a @ b, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(c[:, N:], 7.0)  # past the block pointer's shape: not written


@tilec.jit
def shifted_block(x_ptr, out_ptr, M, N, dm, dn, BM: tl.constexpr, BN: tl.constexpr, PADDING: tl.constexpr,
                  CHECK: tl.constexpr):  # fmt: skip
    """The block at (dm, dn) of an M x N array, through boundary_check CHECK, written whole to out."""
    block = tl.load(tl.make_block_ptr(x_ptr, (M, N), (N, 1), (dm, dn), (BM, BN), (1, 0)),
                    boundary_check=CHECK, padding_option=PADDING)  # fmt: skip
    rows, cols = tl.arange(0, BM)[:, None], tl.arange(0, BN)[None, :]
    tl.store(out_ptr + rows * BN + cols, block)


@pytest.mark.parametrize("padding", ["zero", "nan", ""])
@pytest.mark.parametrize("dm,dn", [(0, 0), (-3, -5), (10, 12), (-20, 40)])
def test_checked_dimensions_read_the_padding(target, padding, dm, dn):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((20, 24)).astype(np.float32)
    out = np.full((16, 16), 5.0, np.float32)
    shifted_block[(1,)](x, out, 20, 24, dm, dn, BM=16, BN=16, PADDING=padding, CHECK=(0, 1))
    fill = np.nan if padding == "nan" else 0.0
    expected = np.full((16, 16), fill, np.float32)
    rows = np.arange(16)[:, None] + dm
    cols = np.arange(16)[None, :] + dn
    inside = (rows >= 0) & (rows < 20) & (cols >= 0) & (cols < 24)
    expected[inside] = x[np.clip(rows, 0, 19), np.clip(cols, 0, 23)][inside]
    np.testing.assert_array_equal(out, expected)


def test_only_the_checked_dimension_is_masked(target):
    """boundary_check=(0,): rows past the end read zero; columns are not checked (they stay inside
    the row here, as Triton leaves unchecked out-of-bounds elements undefined)."""
    x = np.arange(20 * 32, dtype=np.float32).reshape(20, 32)
    out = np.full((16, 16), 5.0, np.float32)
    shifted_block[(1,)](x, out, 20, 32, 8, 4, BM=16, BN=16, PADDING="zero", CHECK=(0,))
    expected = np.zeros((16, 16), np.float32)
    expected[:12] = x[8:20, 4:20]
    np.testing.assert_array_equal(out, expected)


@tilec.jit
def row_sums(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """Sums the rows of a block of BM rows walking N with a while loop; the running state is a
    tuple (a block pointer and the partial sum), and an if branch advances the pointer twice."""
    blocks = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (tl.program_id(0) * BM, 0), (BM, BN), (1, 0))
    state = (blocks, tl.zeros((BM,), tl.float32))
    n = 0
    while n < N:
        p, total = state
        total += tl.sum(tl.load(p, boundary_check=(0, 1)), axis=1)
        if n + BN < N:  # a run-time branch: both sides bind p
            p = tl.advance(p, (0, BN))
        else:
            p = tl.advance(p, (0, 2 * BN))
        state = (p, total)
        n += BN
    out = tl.make_block_ptr(out_ptr, (M,), (1,), (tl.program_id(0) * BM,), (BM,), (0,))
    tl.store(out, state[1], boundary_check=(0,))


def test_aggregates_cross_while_loops_and_branches(target):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((37, 70)).astype(np.float32)
    out = np.zeros(37, np.float32)
    row_sums[(3,)](x, out, 37, 70, BM=16, BN=32)
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-5)


@tilec.jit
def _copy_block(src, dst):
    tl.store(dst, tl.load(src, boundary_check=(0,)), boundary_check=(0,))


@tilec.jit
def copy_with_helper(x_ptr, y_ptr, n, B: tl.constexpr):
    offset = tl.program_id(0) * B
    pair = (tl.make_block_ptr(x_ptr, (n,), (1,), (offset,), (B,), (0,)),
            tl.make_block_ptr(y_ptr, (n,), (1,), (offset,), (B,), (0,)))  # fmt: skip
    for _ in tl.static_range(2):  # twice over the same block: the second copy must be a no-op
        _copy_block(*pair)


def test_block_pointers_pass_to_helpers(target):
    x = np.arange(100, dtype=np.float32)
    y = np.full(104, -1.0, np.float32)
    copy_with_helper[(4,)](x, y, 100, B=32)
    np.testing.assert_array_equal(y[:100], x)
    np.testing.assert_array_equal(y[100:], -1.0)


@tilec.jit
def load_with_mask(x_ptr, B: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (B,), (1,), (0,), (B,), (0,))
    tl.load(p, mask=tl.arange(0, B) < 3)


@tilec.jit
def check_on_plain_pointers(x_ptr, B: tl.constexpr):
    tl.load(x_ptr + tl.arange(0, B), boundary_check=(0,))


@tilec.jit
def bad_order(x_ptr, B: tl.constexpr):
    tl.make_block_ptr(x_ptr, (B, B), (B, 1), (0, 0), (B, B), (0, 0))


@tilec.jit
def wrong_rank(x_ptr, B: tl.constexpr):
    tl.make_block_ptr(x_ptr, (B,), (B, 1), (0, 0), (B, B), (1, 0))


@tilec.jit
def check_past_rank(x_ptr, B: tl.constexpr):
    tl.load(tl.make_block_ptr(x_ptr, (B,), (1,), (0,), (B,), (0,)), boundary_check=(1,))


@tilec.jit
def advance_a_tensor(x_ptr, B: tl.constexpr):
    tl.advance(x_ptr + tl.arange(0, B), (B,))


@tilec.jit
def block_shape_changes_in_loop(x_ptr, n, B: tl.constexpr):
    p = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (B,), (0,))
    for _ in range(n):
        p = tl.make_block_ptr(x_ptr, (n,), (1,), (0,), (2 * B,), (0,))
    tl.store(p, 1.0)


@tilec.jit
def store_wrong_shape(x_ptr, B: tl.constexpr):
    tl.store(tl.make_block_ptr(x_ptr, (B,), (1,), (0,), (B,), (0,)), tl.zeros((2 * B,), tl.float32))


@tilec.jit
def bad_padding(x_ptr, B: tl.constexpr):
    tl.load(tl.make_block_ptr(x_ptr, (B,), (1,), (0,), (B,), (0,)), padding_option="inf")


@pytest.mark.parametrize(
    "kernel,message",
    [
        (bad_padding, "padding_option 'inf' is not 'zero' or 'nan'"),
        (load_with_mask, "block pointer takes boundary_check and padding_option, not mask"),
        (
            check_on_plain_pointers,
            r"apply to block pointers \(tl.make_block_ptr\), not to a tensor of pointers",
        ),
        (bad_order, r"order \[0, 0\] is not a permutation"),
        (wrong_rank, "shape has 1 entries for a block of rank 2"),
        (check_past_rank, "boundary_check dimension 1 of a block pointer of rank 1"),
        (advance_a_tensor, "tl.advance: expected a block pointer"),
        (block_shape_changes_in_loop, "block shape\\) must stay the same"),
        (store_wrong_shape, r"shape \[16\] is not the block pointer's block shape \[8\]"),
    ],
)
def test_misuse_names_the_line(kernel, message):
    x = np.zeros(64, np.float32)
    args = [x, 8] if kernel is block_shape_changes_in_loop else [x]
    with pytest.raises(tilec.CompilationError, match=message) as info:
        kernel[(1,)](*args, B=8)
    assert "test_block_pointers.py" in str(info.value)


def test_only_advanced_parts_are_loop_carried():
    """The loop carries the accumulator and the two advanced offsets, nothing else: bases and
    strides stay visible to the alignment analysis."""
    compiled = tilec.compile(
        matmul_block_ptrs,
        signature="*fp16,*fp16,*fp16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16",
        constexprs={"BM": 128, "BN": 128, "BK": 64, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1},
        target="cpu",
    )
    loop = next(line for line in compiled.asm["tile"].splitlines() if "scf.for" in line)
    assert re.search(r"-> \(tensor<128x128xf32>, i32, i32\)", loop), loop


def _block_pointer_matmul_sm90(signature="*fp16,*fp16,*fp16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16"):
    return tilec.compile(
        matmul_block_ptrs, signature=signature,
        constexprs={"BM": 128, "BN": 128, "BK": 64, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1},
        target="sm_90a", num_warps=4, num_stages=4,
    )  # fmt: skip


def test_block_pointer_matmul_copies_by_tma():
    """sm_90a: the arrays of a block-pointer matmul are the kernel's own arguments (base 16-byte
    aligned, rows contiguous, row strides divisible by 16), so the launcher can make tensor maps of
    them: the tiles go by tensor copies, as a descriptor argument's, and the maps say which
    arguments they are made of."""
    compiled = _block_pointer_matmul_sm90()
    ptx = compiled.asm["ptx"]
    assert "wgmma.mma_async" in ptx and "cp.async.cg" not in ptx and "ld.global" not in ptx
    assert ptx.count("cp.async.bulk.tensor.2d") == 4 * (1 + 2)  # prologue (3) and loop; A 1 band, B 2
    maps = compiled.metadata["tensor_maps"]
    names = compiled.arg_names
    assert [
        (names[m["base"]], names[m["rows"][1]], names[m["cols"][1]], names[m["row_stride"][1]]) for m in maps
    ] == [
        ("a_ptr", "M", "K", "stride_am"),
        ("b_ptr", "K", "N", "stride_bk"),
    ]
    if shutil.which("ptxas"):
        assert "cubin" in compiled.asm


def test_block_pointer_matmul_streams_by_cp_async_without_tma(monkeypatch):
    """TILEC_NO_TMA=1, or row strides not known divisible by 16 (no tensor map is then sure to be
    encodable): the tiles go by 16-byte cp.async copies into the same rings when the strides allow
    them, else through registers."""
    monkeypatch.setenv("TILEC_NO_TMA", "1")
    ptx = _block_pointer_matmul_sm90().asm["ptx"]
    assert "wgmma.mma_async" in ptx and "cp.async.bulk" not in ptx and "ld.global" not in ptx
    assert set(re.findall(r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], (\d+),", ptx)) == {"16"}
    monkeypatch.delenv("TILEC_NO_TMA")
    compiled = _block_pointer_matmul_sm90("*fp16,*fp16,*fp16,i32:16,i32:16,i32:16,i32,i32:16,i32:16")
    assert "cp.async.bulk" not in compiled.asm["ptx"] and "tensor_maps" not in compiled.metadata


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (300, 200, 136), (1000, 784, 528)])
@pytest.mark.parametrize("tma", [True, False], ids=["tma", "cp_async"])
def test_block_pointer_matmul_on_gpu(dtype, M, N, K, tma, monkeypatch):
    """Both ways of copying the tiles on sm_90a (tensor copies from maps the launcher makes of the
    arguments, cp.async), with ragged M, N and K (row strides of 136 and 200 are not divisible by
    16: those tiles never go by tensor copies)."""
    import torch

    if not tma:
        monkeypatch.setenv("TILEC_NO_TMA", "1")
    torch.manual_seed(0)
    t = getattr(torch, dtype)
    a = torch.randn(M, K, device="cuda", dtype=t)
    b = torch.randn(K, N, device="cuda", dtype=t)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=t)
    bk = 32 if dtype == "float32" else 64
    grid = (tilec.cdiv(M, 128), tilec.cdiv(N, 128))
    args = (a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride())
    matmul_block_ptrs[grid](*args, BM=128, BN=128, BK=bk, num_warps=4, num_stages=3)
    kernel = matmul_block_ptrs.warmup(*args, BM=128, BN=128, BK=bk, num_warps=4, num_stages=3)
    # fp32 too: its row-major B goes by tensor copies into the transposed dot's swizzled ring
    assert ("tensor_maps" in kernel.metadata) == (tma and K % 16 == N % 16 == 0)
    expected = (a.double() @ b.double()).to(t)
    torch.testing.assert_close(
        c.float(), expected.float(), rtol=2e-2, atol=0.15 if dtype == "float32" else 0.1
    )


@tilec.jit
def element_type_of_block_pointer(src_ptr, dst_ptr, N, BLOCK: tl.constexpr):
    block = tl.make_block_ptr(
        base=src_ptr, shape=(N,), strides=(1,), offsets=(0,), block_shape=(BLOCK,), order=(0,)
    )
    tl.static_assert(block.dtype == tl.pointer_type(tl.float16))  # Triton's: the pointer type
    values = tl.load(block, boundary_check=(0,), padding_option="zero").to(block.dtype.element_ty)
    tl.store(dst_ptr + tl.arange(0, BLOCK), values)


def test_block_pointer_dtype_is_its_pointer_type(target):
    src = np.arange(16, dtype=np.float16)
    dst = np.zeros_like(src)
    element_type_of_block_pointer[(1,)](src, dst, 16, BLOCK=16)
    np.testing.assert_array_equal(dst, src)
