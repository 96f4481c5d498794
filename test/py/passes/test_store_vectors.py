"""Stores of tensor-core accumulators in 16-byte vectors (store_vectors.py): lanes exchange fragments
with shuffles so that each stores a run of consecutive elements; an fp32 accumulator stored as
fp16/bf16 is rounded by packed conversions, two values each. The PTX checked and assembled in CI
for wgmma (sm_90a) and mma.sync (sm_80) accumulators and every output type, the code object for
MFMA (gfx942, not executed: no AMD GPU); on a GPU, results with
ragged M and N, an epilogue between the dot and the store, and the fallback where the axis analysis
cannot prove the runs (N not a multiple of 16)."""

from __future__ import annotations

import re
import shutil

import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def matmul_epilogue(
    a_ptr, b_ptr, bias_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, ACC: tl.constexpr,
):  # fmt: skip
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    bias = tl.load(bias_ptr + rn, mask=rn < N, other=0)
    out = acc * 2 + bias[None, :]  # an epilogue: the value stored is computed from the accumulator
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, out.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


STORE = re.compile(r"st\.global(\.v\d)?\.(b|f|u|s)(\d+)")
BYTES = {"fp16": 2, "bf16": 2, "fp32": 4, "i8": 1, "i32": 4}


def _compile(inputs, out, config, target, n="i32:16"):
    bm, bn, bk, warps = config
    integer = inputs == "i8"
    signature = (
        f"*{inputs},*{inputs},*{'i32' if integer else 'fp32'},*{out},i32:16,{n},i32:16,i32:16,i32:16,i32:16"
    )
    return tilec.compile(
        matmul_epilogue,
        signature=signature,
        constexprs={"BM": bm, "BN": bn, "BK": bk, "ACC": tl.int32 if integer else tl.float32},
        target=target,
        num_warps=warps,
    )


def _store_bytes(ptx: str) -> list[int]:
    """Bytes of every st.global in the kernel."""
    return [int((m.group(1) or ".v1")[2:]) * int(m.group(3)) // 8 for m in STORE.finditer(ptx)]


# (inputs, output, target, config, bytes per store): 16 bytes where the lanes hold 4 fragments of
# 2 elements (fp16, bf16) or 2 of 2 (fp32, i32); 8 for 8-bit outputs (4 lanes x 2 bytes) and where
# only 2 register repeats along N exist for fp16 (mma.sync: 128 columns over 8 warps).
CASES = [
    ("fp16", "fp16", "sm_90a", (128, 256, 64, 8), 16),
    ("fp16", "bf16", "sm_90a", (128, 128, 64, 4), 16),
    ("fp16", "fp32", "sm_90a", (64, 128, 64, 4), 16),
    ("bf16", "bf16", "sm_90a", (64, 64, 32, 4), 16),
    ("i8", "i8", "sm_90a", (128, 128, 64, 8), 8),
    ("i8", "i32", "sm_90a", (64, 128, 64, 4), 16),
    ("fp16", "fp16", "sm_80", (128, 256, 32, 8), 16),
    ("fp16", "fp16", "sm_80", (128, 128, 32, 8), 8),
    ("fp16", "fp32", "sm_80", (64, 64, 32, 4), 16),
]


@pytest.mark.parametrize(
    "inputs,out,target,config,width",
    CASES,
    ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v),
)
def test_accumulator_stores_are_wide(inputs, out, target, config, width):
    compiled = _compile(inputs, out, config, target)
    ptx = compiled.asm["ptx"]
    bm, bn, _, warps = config
    stores = _store_bytes(ptx)
    assert set(stores) == {width}, stores
    per_thread = bm * bn * BYTES[out] // (warps * 32)
    # on sm_90a the kernel's body runs in two copies where its loads go by tensor copies
    # (tile-pointer-tensor-copies), each with its epilogue, unless LLVM merges their tails
    copies = (1, 2) if "tensor_maps" in compiled.metadata else (1,)
    assert len(stores) in [c * per_thread // width for c in copies]  # every element once, in vectors
    assert "shfl.sync.bfly" in ptx
    if inputs != "i8" and out in ("fp16", "bf16"):  # the fp32 accumulator rounded two at a time
        kind = "f16" if out == "fp16" else "bf16"
        assert ptx.count(f"cvt.rn.{kind}x2.f32") in [
            c * per_thread // 4 for c in copies
        ]  # 2 values of 2 bytes
        assert f"cvt.rn.{kind}.f32" not in ptx
    if shutil.which("ptxas"):
        assert "cubin" in compiled.asm


def test_unproven_runs_keep_the_accumulator_stores():
    """N without divisibility by 16: the mask may change at every element, so each is stored alone
    and nothing is exchanged."""
    ptx = _compile("fp16", "fp16", (128, 256, 64, 8), "sm_90a", n="i32").asm["ptx"]
    assert set(_store_bytes(ptx)) == {2}
    assert "shfl" not in ptx


@pytest.mark.parametrize("out", ["fp16", "fp32"])
def test_mfma_accumulator_stores_are_wide(out):
    """gfx942's MFMA layout (1 element per lane per 16 columns): up to 8 lanes exchange (through
    ds_swizzle) and each stores 16 bytes. Not executed (no AMD GPU): the code object is checked."""
    pytest.importorskip("llvmlite")
    from tilec.targets.tools import have_lld

    if not have_lld():
        pytest.skip("needs ld.lld (Debian lld-19 or ROCm)")
    config = (64, 128, 32, 4) if out == "fp16" else (64, 64, 32, 4)
    compiled = _compile("fp16", out, config, "gfx942")
    asm = compiled.asm["amdgcn"]
    stores = re.findall(r"global_store_\w+", asm)
    per_thread = config[0] * config[1] * BYTES[out] // (config[3] * 64)
    assert set(stores) == {"global_store_dwordx4"} and len(stores) == per_thread // 16, stores
    assert "ds_swizzle_b32" in asm and "hsaco" in compiled.asm
    narrow = _compile("fp16", out, config, "gfx942", n="i32").asm["amdgcn"]
    assert "global_store_dwordx4" not in narrow and "ds_swizzle_b32" not in narrow


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("n_extra", [80, 81], ids=["n16", "n_odd"])
@pytest.mark.parametrize(
    "inputs,out,target,config,width",
    CASES,
    ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else str(v),
)
def test_wide_stores_on_gpu(inputs, out, target, config, width, n_extra, monkeypatch):
    import torch

    if target == "sm_80":  # the mma.sync lowering, run through the driver's JIT of its PTX
        monkeypatch.setenv("TILEC_TARGET", "sm_80")
        monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    torch.manual_seed(0)
    types = {
        "fp16": torch.float16,
        "bf16": torch.bfloat16,
        "fp32": torch.float32,
        "i8": torch.int8,
        "i32": torch.int32,
    }
    bm, bn, bk, warps = config
    M, N, K = 2 * bm - 3, bn + n_extra, 3 * bk + 16
    if inputs == "i8":
        a = torch.randint(-8, 8, (M, K), device="cuda", dtype=torch.int8)
        b = torch.randint(-8, 8, (K, N), device="cuda", dtype=torch.int8)
        bias = torch.randint(-50, 50, (N,), device="cuda", dtype=torch.int32)
        expected = (
            (a.cpu().long() @ b.cpu().long()) * 2 + bias.cpu().long()
        ).cuda()  # no integer matmul on CUDA
        if out == "i8":
            expected = expected.to(torch.int8)  # wraps, as the kernel's cast does
        else:
            expected = expected.to(torch.int32)
        pad = torch.full((M, N + 16), 77, device="cuda", dtype=types[out])
    else:
        a = torch.randn(M, K, device="cuda", dtype=types[inputs])
        b = torch.randn(K, N, device="cuda", dtype=types[inputs])
        bias = torch.randn(N, device="cuda", dtype=torch.float32)
        expected = ((a.double() @ b.double()) * 2 + bias.double()).to(types[out])
        pad = torch.full((M, N + 16), float("nan"), device="cuda", dtype=types[out])
    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    matmul_epilogue[grid](
        a, b, bias, pad, M, N, K, K, N, N + 16, BM=bm, BN=bn, BK=bk,
        ACC=tl.int32 if inputs == "i8" else tl.float32, num_warps=warps,
    )  # fmt: skip
    if inputs == "i8":
        assert torch.equal(pad[:, :N], expected)
        assert (pad[:, N:] == 77).all()  # nothing stored past N
    else:
        tolerance = {"fp32": 1e-3, "fp16": 2e-2, "bf16": 8e-2}[out]
        torch.testing.assert_close(pad[:, :N], expected, rtol=tolerance, atol=tolerance * 4)
        assert torch.isnan(pad[:, N:]).all()
