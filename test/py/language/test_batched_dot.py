"""tl.dot on 3-D blocks ([B, M, K] x [B, K, N] -> [B, M, N], as in Triton): B products of the
batch's slices, each by the target's 2-D dot (tensor cores on GPUs), checked against NumPy on the CPU
target and the interpreter, with an accumulator and integer operands; the PTX and AMD code objects
show the tensor-core instructions; the H200 runs it."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def batched(a_ptr, b_ptr, c_ptr, B: tl.constexpr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
            ACC: tl.constexpr):  # fmt: skip
    rb = tl.arange(0, B)[:, None, None]
    rm = tl.arange(0, M)[None, :, None]
    rk = tl.arange(0, K)[None, None, :]
    a = tl.load(a_ptr + rb * M * K + rm * K + rk)
    b = tl.load(b_ptr + rb * K * N + tl.arange(0, K)[None, :, None] * N + tl.arange(0, N)[None, None, :])
    offsets = rb * M * N + rm * N + tl.arange(0, N)[None, None, :]
    if ACC:
        c = tl.dot(a, b, tl.load(c_ptr + offsets))
    else:
        c = tl.dot(a, b)
    tl.store(c_ptr + offsets, c)


@tilec.jit
def mismatched(a_ptr, B: tl.constexpr):
    r = tl.arange(0, 16)
    a = tl.load(a_ptr + r[None, :, None] * 16 + r[None, None, :] + tl.arange(0, B)[:, None, None] * 0)
    b = tl.load(a_ptr + r[None, :, None] * 16 + r[None, None, :] + tl.arange(0, 2 * B)[:, None, None] * 0)
    tl.store(a_ptr + r, tl.sum(tl.sum(tl.dot(a, b), 0), 0))


def _inputs(rng, batch, m, n, k, dtype):
    if dtype == np.int8:
        a = rng.integers(-8, 8, (batch, m, k)).astype(np.int8)
        b = rng.integers(-8, 8, (batch, k, n)).astype(np.int8)
        return a, b, rng.integers(-100, 100, (batch, m, n)).astype(np.int32)
    a = rng.standard_normal((batch, m, k)).astype(dtype)
    b = rng.standard_normal((batch, k, n)).astype(dtype)
    return a, b, rng.standard_normal((batch, m, n)).astype(np.float32)


@pytest.mark.parametrize("target", ["cpu", "interpreter"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int8], ids=["fp16", "fp32", "int8"])
@pytest.mark.parametrize("acc", [False, True])
def test_batched_dot_matches_numpy(monkeypatch, target, dtype, acc):
    if target == "interpreter":
        monkeypatch.setenv("TILEC_INTERPRET", "1")
    rng = np.random.default_rng(5)
    batch, m, n, k = 4, 16, 32, 16
    a, b, c = _inputs(rng, batch, m, n, k, dtype)
    wide = np.int64 if dtype == np.int8 else np.float64
    expected = np.einsum("bmk,bkn->bmn", a.astype(wide), b.astype(wide)) + (c if acc else 0)
    out = c.copy()
    batched[(1,)](a, b, out, B=batch, M=m, N=n, K=k, ACC=acc)
    if dtype == np.int8:
        np.testing.assert_array_equal(out, expected)
    else:
        np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-3 if dtype == np.float16 else 1e-4)


def test_batched_dot_checks_batch_sizes(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    with pytest.raises(tilec.CompilationError, match=r"tl.dot batch dimensions differ: \[2, 16, 16\] x \[4"):
        mismatched[(1,)](np.zeros(256, np.float32), B=2)


def _compile(target: str, batch: int = 2):
    a = np.zeros((batch, 64, 64), np.float16)
    return batched.warmup(a, a, np.zeros((batch, 64, 64), np.float32), B=batch, M=64, N=64, K=64, ACC=False,
                          target=target, num_warps=4)  # fmt: skip


def test_batched_dot_uses_tensor_cores(monkeypatch):
    """Each batch's product is a 2-D dot: wgmma on sm_90a, mma.sync on sm_80, MFMA on gfx942."""
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    assert _compile("sm_90a").asm["ptx"].count("wgmma.mma_async") == 2 * 64 // 16
    assert "mma.sync.aligned" in _compile("sm_80").asm["ptx"]
    pytest.importorskip("llvmlite")
    from tilec.targets.tools import have_lld

    if have_lld():
        assert "v_mfma_f32_16x16x16" in _compile("gfx942").asm["amdgcn"]


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("acc", [False, True])
def test_batched_dot_on_gpu(acc):
    import torch

    torch.manual_seed(0)
    batch, m, n, k = 4, 64, 32, 32
    a = torch.randn(batch, m, k, device="cuda", dtype=torch.float16)
    b = torch.randn(batch, k, n, device="cuda", dtype=torch.float16)
    c = torch.randn(batch, m, n, device="cuda", dtype=torch.float32)
    expected = torch.bmm(a.double(), b.double()) + (c.double() if acc else 0)
    batched[(1,)](a, b, c, B=batch, M=m, N=n, K=k, ACC=acc, num_warps=4)
    torch.testing.assert_close(c.double(), expected, rtol=1e-2, atol=1e-2)
