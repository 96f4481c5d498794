"""A column-major A (`x.T @ w`, the weight gradient's X^T dY) on sm_90a: a 16-bit A streams by cp.async
into an M-major swizzled ring that the warpgroup MMA reads transposed (imm-trans-a = 1), as a
row-major one streams K-major; 8-bit and tf32 A (read K-major only) keep the register path. PTX
checked and assembled in CI; on a GPU, results with ragged M, N and K for each B layout."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
from gpu_launch import needs_gpu
from test_cp_async import COPY

import tilec
import tilec.language as tl

# the immediates after the scale-d predicate: scale-a, scale-b, trans-a, trans-b
WGMMA_16BIT = re.compile(
    r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.b?f16\.b?f16 .*?, p, 1, 1, (\d), (\d);"
)


@tilec.jit
def matmul_strided(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
):  # fmt: skip
    """C = A @ B for any strides of A and B (the launcher makes unit strides constants)."""
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :] * stride_ak
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


def _compiled(dtype="fp16", config=(128, 128, 64, 8), a_layout="column", b_layout="row", num_stages=3):
    bm, bn, bk, warps = config
    names = ["M", "N", "K", "stride_am", "stride_ak", "stride_bk", "stride_bn", "stride_cm"]
    signature = {
        "a_ptr": f"*{dtype}",
        "b_ptr": f"*{dtype}",
        "c_ptr": "*fp32",
        **dict.fromkeys(names, "i32:16"),
    }
    unit = {
        "stride_am" if a_layout == "column" else "stride_ak",
        "stride_bn" if b_layout == "row" else "stride_bk",
    }
    for name in unit:
        del signature[name]
    compiled = tilec.compile(
        matmul_strided, signature=signature, constexprs={"BM": bm, "BN": bn, "BK": bk, **dict.fromkeys(unit, 1)},
        target="sm_90a", num_warps=warps, num_stages=num_stages,
    )  # fmt: skip
    if shutil.which("ptxas"):
        assert "cubin" in compiled.asm
    return compiled


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("b_layout", ["row", "column"])
@pytest.mark.parametrize("config", [(128, 128, 64, 8), (128, 256, 64, 8), (64, 128, 64, 4), (64, 64, 16, 4)])
def test_column_major_a_streams_m_major(config, b_layout, dtype):
    """Both operands stream (nothing is stored from registers), in 16-byte copies, and every MMA reads
    A transposed (trans-a 1) and B transposed exactly when B is row-major (N-major)."""
    ptx = _compiled(dtype, config, "column", b_layout).asm["ptx"]
    assert {size for _, size in COPY.findall(ptx)} == {"16"}
    # A's rows in shared memory are in their logical order (8 neighbours along M one 16-byte chunk,
    # 64 one 128-byte row): its copies bypass L1 as B's do
    assert {kind for kind, _ in COPY.findall(ptx)} == {"cg"}
    assert "st.shared" not in ptx
    immediates = set(WGMMA_16BIT.findall(ptx))
    assert immediates == {("1", "1" if b_layout == "row" else "0")}


def test_row_major_a_is_read_k_major():
    ptx = _compiled("fp16", a_layout="row").asm["ptx"]
    assert set(WGMMA_16BIT.findall(ptx)) == {("0", "1")} and "st.shared" not in ptx
    assert {kind for kind, _ in COPY.findall(ptx)} == {"cg"}


def test_column_major_a_of_a_k_major_only_type_stays_in_registers():
    """tf32 reads A K-major only: a column-major fp32 A is loaded into registers and stored K-major
    (B, K-contiguous, still streams), on the tensor cores all the same."""
    ptx = _compiled("fp32", (128, 128, 32, 8), "column", "column").asm["ptx"]
    assert "st.shared" in ptx and COPY.findall(ptx)
    assert "m64n128k8.f32.tf32.tf32" in ptx


@pytest.mark.parametrize("tma", [False, True])
def test_column_major_a_ring_size(tma, monkeypatch):
    """An M-major A stage is as large as a K-major one: 128x256x64 fp16 rings stay at 4 x 48 KiB
    (plus their mbarriers, 1 KiB aligned, where tensor copies fill them)."""
    monkeypatch.setenv("TILEC_NO_TMA", "0" if tma else "1")
    shared = _compiled("fp16", (128, 256, 64, 8), "column").metadata["shared"]
    assert shared == 4 * 48 * 1024 + (1024 if tma else 0)


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("b_layout", ["row", "column"])
@pytest.mark.parametrize("config", [(128, 128, 64, 8), (128, 256, 64, 8), (64, 128, 64, 4)])
def test_column_major_a_goes_by_tensor_copies(config, b_layout, dtype):
    """tile-pointer-tensor-copies raises A = x.T as the transpose of a box of X [K, M]: the copy
    engine fills A's M-major stages, one box of BK rows per 64 values of M (a 128-byte swizzled
    atom each), and the MMAs read it transposed (trans-a 1) in both copies of the body."""
    bm, bn, bk, warps = config
    compiled = _compiled(dtype, config, "column", b_layout)
    maps = {m["descriptor"].split()[1]: m for m in compiled.metadata["tensor_maps"]}
    a_map = maps["base=a_ptr"]
    assert "rows=K cols=M row_stride=stride_ak" in a_map["descriptor"]
    assert (a_map["band"], a_map["box_rows"], a_map["swizzle"]) == (64, bk, 128)
    ptx = compiled.asm["ptx"]
    # per copy site (the prologue's stages and the one ahead in the loop): A's boxes and B's
    b_boxes = bn // 64 if b_layout == "row" else 1
    copies = len(re.findall(r"cp\.async\.bulk\.tensor\.2d", ptx))
    assert copies % (bm // 64 + b_boxes) == 0 and copies > 0
    assert set(WGMMA_16BIT.findall(ptx)) == {("1", "1" if b_layout == "row" else "0")}
    assert "st.shared" not in ptx
    assert not compiled.metadata.get("ptxas_advisories")


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize(
    "config", [(128, 128, 64, 8), (128, 256, 64, 8), (64, 128, 64, 4), (128, 64, 64, 4), (64, 64, 16, 4)]
)
@pytest.mark.parametrize("b_layout", ["row", "column"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("rows", ["odd", "aligned"])
def test_column_major_a_on_gpu(dtype, b_layout, config, stages, rows):
    """A = x.T (column-major), ragged M and N, K with a partial last tile (zero-filled copies).
    With M a multiple of 8 but not 16 the row stride of X is not known 16-byte aligned (cp.async);
    with M a multiple of 16 tile-pointer-tensor-copies raises A and B (tensor copies)."""
    import torch

    bm, bn, bk, warps = config
    M, N, K = 3 * bm - (8 if rows == "odd" else 16), 2 * bn + 16, 5 * bk - 32
    torch.manual_seed(0)
    dt = getattr(torch, dtype)
    a = torch.randn(K, M, device="cuda", dtype=dt).T
    b = (
        torch.randn(N, K, device="cuda", dtype=dt).T
        if b_layout == "column"
        else torch.randn(K, N, device="cuda", dtype=dt)
    )
    c = torch.full((M, N), float("nan"), device="cuda")
    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    matmul_strided[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0),
                         BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=stages)  # fmt: skip
    expected = a.double() @ b.double()
    torch.testing.assert_close(c.double(), expected, rtol=2e-3, atol=3e-2)
    kernel = matmul_strided.warmup(a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                                   c.stride(0), BM=bm, BN=bn, BK=bk, num_warps=warps, num_stages=stages)  # fmt: skip
    assert ("tensor_maps" in kernel.metadata) == (rows == "aligned")


@tilec.jit
def matmul_transposed_a_descriptor(
    x_ptr, b_ptr, c_ptr, M, N, K, stride_xk, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
):  # fmt: skip
    """C = X^T @ B through descriptors, X [K, M]: A is the transpose of X's box (`x_desc.load().T`)."""
    x_desc = tl.make_tensor_descriptor(x_ptr, [K, M], [stride_xk, 1], [BK, BM])
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [BK, BN])
    m0, n0 = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(x_desc.load([k * BK, m0]).T, b_desc.load([k * BK, n0]), acc)
    c_ptrs = c_ptr + (m0 + tl.arange(0, BM))[:, None] * stride_cm + (n0 + tl.arange(0, BN))[None, :]
    mask = ((m0 + tl.arange(0, BM))[:, None] < M) & ((n0 + tl.arange(0, BN))[None, :] < N)
    tl.store(c_ptrs, acc, mask=mask)


def test_transposed_descriptor_a_goes_by_tensor_copies():
    """`x_desc.load([k, m]).T` as A: the ring takes the transpose as an M-major A, filled by tensor
    copies of X's boxes; no transpose through shared memory, no register stores."""
    compiled = tilec.compile(
        matmul_transposed_a_descriptor, signature="*fp16,*fp16,*fp32,i32,i32,i32,i32:16,i32:16,i32:16",
        constexprs={"BM": 128, "BN": 256, "BK": 64}, target="sm_90a", num_warps=8, num_stages=3,
    )  # fmt: skip
    ptx = compiled.asm["ptx"]
    assert len(compiled.metadata["tensor_maps"]) == 2
    assert set(WGMMA_16BIT.findall(ptx)) == {("1", "1")}
    assert "st.shared" not in ptx and "cp.async.bulk.tensor.2d" in ptx


@pytest.mark.parametrize("target", ["interpreter", "cpu"])
def test_transposed_descriptor_a_on_host(target, monkeypatch):
    monkeypatch.setenv("TILEC_TARGET", target)
    M, N, K = 40, 24, 56
    rng = np.random.default_rng(5)
    x = rng.standard_normal((K, M)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, dtype=np.float32)
    matmul_transposed_a_descriptor[(tilec.cdiv(M, 16), tilec.cdiv(N, 16))](
        x, b, c, M, N, K, M, N, N, BM=16, BN=16, BK=16
    )
    np.testing.assert_allclose(c, x.T.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("tma", [True, False], ids=["tma", "cp_async"])
@pytest.mark.parametrize("config", [(128, 256, 64, 8), (128, 128, 64, 4), (64, 64, 32, 4)], ids=str)
def test_transposed_descriptor_a_on_gpu(config, tma, monkeypatch):
    import torch

    monkeypatch.setenv("TILEC_NO_TMA", "0" if tma else "1")
    bm, bn, bk, warps = config
    M, N, K = 3 * bm - 16, 2 * bn + 16, 5 * bk - 32
    torch.manual_seed(1)
    x = torch.randn(K, M, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda")
    args = (x, b, c, M, N, K, x.stride(0), b.stride(0), c.stride(0))
    options = {"BM": bm, "BN": bn, "BK": bk, "num_warps": warps, "num_stages": 3}
    matmul_transposed_a_descriptor[(tilec.cdiv(M, bm), tilec.cdiv(N, bn))](*args, **options)
    torch.testing.assert_close(c.double(), x.double().T @ b.double(), rtol=2e-3, atol=3e-2)
    kernel = matmul_transposed_a_descriptor.warmup(*args, **options)
    assert ("tensor_maps" in kernel.metadata) == tma


@pytest.mark.parametrize("target", ["interpreter", "cpu"])
def test_column_major_a_on_host(target, monkeypatch):
    monkeypatch.setenv("TILEC_TARGET", target)
    M, N, K = 37, 29, 45
    rng = np.random.default_rng(3)
    a = np.asfortranarray(rng.standard_normal((M, K)).astype(np.float32))
    b = rng.standard_normal((K, N)).astype(np.float32)
    c = np.full((M, N), np.nan, dtype=np.float32)
    item = a.itemsize
    matmul_strided[(tilec.cdiv(M, 16), tilec.cdiv(N, 16))](
        a, b, c, M, N, K, a.strides[0] // item, a.strides[1] // item, N, 1, N, BM=16, BN=16, BK=16
    )
    np.testing.assert_allclose(c, a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)
