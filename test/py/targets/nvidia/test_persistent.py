"""Persistent kernels (Triton's tutorial 09): a fixed number of programs, each looping over output
tiles with `tl.range(start, end, step, flatten=True)`, the K loop nested inside, through pointers
and through tensor descriptors. On the CPU target and the interpreter against NumPy; in CI the
sm_90a code of the inner loop streams into warpgroup MMA (cp.async or TMA); on a GPU against torch."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def persistent_matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, PROGRAMS: tl.constexpr,
):  # fmt: skip
    tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, PROGRAMS, flatten=True, num_stages=3):
        pid_m, pid_n = tl.swizzle2d(tile // tiles_n, tile % tiles_n, tiles_m, tiles_n, GROUP_M)
        rows = pid_m * BM + tl.arange(0, BM)
        cols = pid_n * BN + tl.arange(0, BN)
        ks = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rows[:, None] * stride_am + (k + ks)[None, :],
                        mask=(rows[:, None] < M) & ((k + ks)[None, :] < K), other=0.0)  # fmt: skip
            b = tl.load(b_ptr + (k + ks)[:, None] * stride_bk + cols[None, :],
                        mask=((k + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)  # fmt: skip
            acc = tl.dot(a, b, acc)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(c_ptr.dtype.element_ty), mask=mask)


@pytest.mark.parametrize("M,N,K,programs", [(64, 64, 32, 1), (100, 70, 90, 3), (33, 130, 17, 7)])
def test_persistent_matmul(target, M, N, K, programs):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, np.float32)
    persistent_matmul[(programs,)](
        a, b, c, M, N, K, K, N, N, BM=32, BN=32, BK=16, GROUP_M=2, PROGRAMS=programs
    )
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_inner_loop_streams_into_tensor_cores():
    compiled = tilec.compile(
        persistent_matmul,
        signature="*fp16,*fp16,*fp16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16",
        constexprs={"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8, "PROGRAMS": 132},
        target="sm_90a", num_warps=4, num_stages=3,
    )  # fmt: skip
    ptx = compiled.asm["ptx"]
    assert "wgmma.mma_async" in ptx
    assert set(re.findall(r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], (\d+),", ptx)) == {"16"}
    assert "ld.global" not in ptx
    if shutil.which("ptxas"):
        assert "cubin" in compiled.asm


@tilec.jit
def one_tile_matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr,
):  # fmt: skip
    """persistent_matmul's loop body as a kernel of its own: one program per tile."""
    tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    tile = tl.program_id(0)
    pid_m, pid_n = tl.swizzle2d(tile // tiles_n, tile % tiles_n, tiles_m, tiles_n, GROUP_M)
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    ks = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rows[:, None] * stride_am + (k + ks)[None, :],
                    mask=(rows[:, None] < M) & ((k + ks)[None, :] < K), other=0.0)  # fmt: skip
        b = tl.load(b_ptr + (k + ks)[:, None] * stride_bk + cols[None, :],
                    mask=((k + ks)[:, None] < K) & (cols[None, :] < N), other=0.0)  # fmt: skip
        acc = tl.dot(a, b, acc)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc.to(c_ptr.dtype.element_ty), mask=mask)


@pytest.mark.parametrize("tma", [False, True])
def test_tile_loop_recomputes_thread_values(tma, monkeypatch):
    """gpu-rematerialize-thread-values: the tile loop reads %tid.x again before and after its K
    loop instead of keeping every per-thread offset live through it; ptxas then allocates about
    what the one-tile kernel needs (was 248 registers against 209 at 128x256x64 on 8 warps, and
    0.89 of Triton's speed on an H200). With tensor copies (tile-pointer-tensor-copies: the tiles
    of programs whose rows and columns fit) only the other copy of the tile's body, and the
    epilogue, compute per-thread offsets."""
    monkeypatch.setenv("TILEC_NO_TMA", "0" if tma else "1")
    signature = "*fp16,*fp16,*fp16,i32:16,i32:16,i32:16,i32:16,i32:16,i32:16"
    config = {"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8}
    loop = tilec.compile(
        persistent_matmul, signature=signature, constexprs={**config, "PROGRAMS": 132},
        target="sm_90a", num_warps=8, num_stages=3,
    )  # fmt: skip
    one = tilec.compile(
        one_tile_matmul, signature=signature, constexprs=config, target="sm_90a", num_warps=8, num_stages=3
    )
    ptx = loop.asm["ptx"]
    assert ("cp.async.bulk.tensor" in ptx) == tma
    if not tma:
        reads = [m.start() for m in re.finditer(r"mov\.u32 \s*%r\d+, %tid\.x;", ptx)]
        assert len(reads) == 2  # one on each side of the K loop (the entry's own has no use left)
        assert reads[0] < ptx.index("wgmma.mma_async") < reads[1] < ptx.rindex("st.global")
        assert len(re.findall(r"%tid\.x", one.asm["ptx"])) == 1
    if shutil.which("ptxas"):
        assert loop.n_spills == 0
        assert loop.n_regs <= one.n_regs + 16, (loop.n_regs, one.n_regs)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("M,N,K", [(1024, 1024, 512), (1000, 520, 264)])
@pytest.mark.parametrize("config", [(128, 128, 64, 4), (128, 256, 64, 8)], ids=str)
def test_persistent_matmul_on_gpu(M, N, K, config):
    import torch

    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    bm, bn, bk, warps = config
    programs = torch.cuda.get_device_properties(0).multi_processor_count
    persistent_matmul[(programs,)](a, b, c, M, N, K, K, N, N, BM=bm, BN=bn, BK=bk, GROUP_M=8,
                                   PROGRAMS=programs, num_warps=warps, num_stages=3)  # fmt: skip
    torch.testing.assert_close(c.float(), (a.double() @ b.double()).float(), rtol=2e-2, atol=0.1)


@tilec.jit
def persistent_descriptor_matmul(
    a_desc, b_desc, c_desc, M, N, K,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, PROGRAMS: tl.constexpr,
):  # fmt: skip
    tiles_m, tiles_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    for tile in tl.range(tl.program_id(0), tiles_m * tiles_n, PROGRAMS, flatten=True, warp_specialize=True):
        pid_m, pid_n = tl.swizzle2d(tile // tiles_n, tile % tiles_n, tiles_m, tiles_n, GROUP_M)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            acc = tl.dot(a_desc.load([pid_m * BM, k * BK]), b_desc.load([k * BK, pid_n * BN]), acc)
        c_desc.store([pid_m * BM, pid_n * BN], acc.to(c_desc.dtype))


def _strided(rng, rows, cols, fill=None):
    """A [rows, cols] float32 view whose row stride is a multiple of 16 bytes (as descriptors need)."""
    width = -(-(cols + 3) // 4) * 4
    whole = (
        rng.standard_normal((rows, width)).astype(np.float32)
        if fill is None
        else np.full((rows, width), fill, np.float32)
    )
    return whole, whole[:, :cols]


@pytest.mark.parametrize("M,N,K,programs", [(64, 64, 32, 1), (100, 70, 90, 3), (33, 130, 17, 7)])
def test_persistent_descriptor_matmul(target, M, N, K, programs):
    rng = np.random.default_rng(1)
    _, a = _strided(rng, M, K)
    _, b = _strided(rng, K, N)
    c_whole, c = _strided(rng, M, N, fill=-1.0)
    D = tilec.TensorDescriptor.from_tensor
    persistent_descriptor_matmul[(programs,)](
        D(a, [32, 16]),
        D(b, [16, 32]),
        D(c, [32, 32]),
        M,
        N,
        K,
        BM=32,
        BN=32,
        BK=16,
        GROUP_M=2,
        PROGRAMS=programs,
    )
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(c_whole[:, N:], -1.0)  # the store's boxes stop at N


def test_persistent_descriptor_tiles_copy_by_tma():
    """On sm_90a the K loop's tiles go by tensor copies inside the tile loop (each tile's K loop
    sets up its ring's mbarriers again, after the previous tile's MMAs have drained)."""
    compiled = persistent_descriptor_matmul.warmup(
        *_sm90_descriptor_args(), BM=128, BN=256, BK=64, GROUP_M=8, PROGRAMS=132, num_warps=8, num_stages=3,
        target="sm_90a",
    )  # fmt: skip
    ptx = compiled.asm["ptx"]
    assert "wgmma.mma_async" in ptx and "cp.async.cg" not in ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier" in ptx
    if shutil.which("ptxas"):
        assert compiled.n_spills == 0


def _sm90_descriptor_args():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((512, 512)).astype(np.float16)
    b = rng.standard_normal((512, 512)).astype(np.float16)
    c = np.zeros((512, 512), np.float16)
    D = tilec.TensorDescriptor.from_tensor
    return D(a, [128, 64]), D(b, [64, 256]), D(c, [128, 256]), 512, 512, 512


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("M,N,K", [(1024, 1024, 512), (1000, 520, 264)])
@pytest.mark.parametrize("config", [(128, 128, 64, 4), (128, 256, 64, 8)], ids=str)
def test_persistent_descriptor_matmul_on_gpu(M, N, K, config):
    import torch

    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    bm, bn, bk, warps = config
    programs = torch.cuda.get_device_properties(0).multi_processor_count
    D = tilec.TensorDescriptor.from_tensor
    persistent_descriptor_matmul[(programs,)](
        D(a, [bm, bk]), D(b, [bk, bn]), D(c, [bm, bn]), M, N, K,
        BM=bm, BN=bn, BK=bk, GROUP_M=8, PROGRAMS=programs, num_warps=warps, num_stages=3,
    )  # fmt: skip
    torch.testing.assert_close(c.float(), (a.float() @ b.float()), atol=0.5, rtol=2e-2)
