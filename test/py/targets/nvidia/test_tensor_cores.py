"""tl.dot on tensor cores: which instruction each NVIDIA architecture gets (CI, no GPU needed: PTX
checked and assembled with ptxas), and results against torch on a GPU for shapes that exercise every
part of the lowerings (several warpgroups, instructions wider than 256 columns, K tails, shared memory
beyond the 48 KiB default, fp16 and bf16, the epilogue's cast)."""

from __future__ import annotations

import contextlib
import re
import shutil

import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def matmul(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PREC: tl.constexpr,
):  # fmt: skip
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0.0)
        b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PREC)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


SIGNATURE = "*{0},*{0},*{1},i32,i32,i32,i32:16,i32:16,i32:16"

# (BM, BN, BK, num_warps): one warpgroup; two; an instruction split at 256 columns; 96 KiB of
# shared memory; a narrow N.
CONFIGS = [(64, 64, 32, 4), (128, 128, 64, 8), (64, 512, 32, 4), (256, 128, 64, 8), (128, 32, 64, 4)]


def _compile(dtype, out, config, target, precision="tf32"):
    bm, bn, bk, warps = config
    return tilec.compile(
        matmul,
        signature=SIGNATURE.format(dtype, out),
        constexprs={"BM": bm, "BN": bn, "BK": bk, "PREC": precision},
        target=target,
        num_warps=warps,
    )


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_sm90a_dot_uses_warpgroup_mma(dtype, config, monkeypatch):
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    k = _compile(dtype, "fp32", config, "sm_90a")
    ptx = k.asm["ptx"]
    kind = {"fp16": "f16", "bf16": "bf16"}[dtype]
    shapes = set(re.findall(rf"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.{kind}\.{kind}", ptx))
    bm, bn, bk, warps = config
    assert shapes == {str(min(bn, 256))}
    assert "fence.proxy.async.shared::cta" in ptx and "mma.sync" not in ptx
    # Pipelined: each iteration waits for the previous iteration's MMA; the last one after the loop.
    assert "wgmma.wait_group.sync.aligned 1" in ptx and "wgmma.wait_group.sync.aligned 0" in ptx
    # The epilogue stores straight from the accumulator's registers: shared memory holds the three
    # stages of A and B only, or the four buffers of the rings that tensor copies fill two
    # iterations ahead (tile-pointer-tensor-copies: the masks are the arrays' bounds, the row
    # strides divisible by 16) in the copy of the kernel's body that runs when no coordinate is
    # negative and the extents are positive.
    assert [m["descriptor"].split()[1] for m in k.metadata["tensor_maps"]] == ["base=a_ptr", "base=b_ptr"]
    assert k.metadata["shared"] < 4 * (bm * bk + bk * bn) * 2 * 1.05
    if shutil.which("ptxas"):
        monkeypatch.delenv("TILEC_NO_PTXAS")
        if bm * bn // (warps * 32) >= 256:  # 256 fp32 accumulators a thread: more than wgmma can keep
            with pytest.warns(tilec.PerformanceWarning, match="C7511.*smaller blocks or more warps"):
                assert "cubin" in _compile(dtype, "fp32", config, "sm_90a").asm
        else:
            assert "cubin" in _compile(dtype, "fp32", config, "sm_90a").asm


def test_dot_instruction_per_architecture(monkeypatch):
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    config = (64, 64, 32, 4)
    assert "wgmma.mma_async" in _compile("fp16", "fp16", config, "sm_90a").asm["ptx"]
    for arch in ("sm_80", "sm_90"):  # plain sm_90 has no wgmma: it is an sm_90a feature
        ptx = _compile("fp16", "fp16", config, arch).asm["ptx"]
        assert "mma.sync.aligned.m16n8k16" in ptx and "wgmma" not in ptx
    # Shapes warpgroup MMA cannot take fall back to mma.sync: 2 warps are not a warpgroup.
    ptx = _compile("fp16", "fp32", (32, 32, 16, 2), "sm_90a").asm["ptx"]
    assert "mma.sync.aligned.m16n8k16" in ptx and "wgmma" not in ptx


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
def test_fp32_dot_uses_tf32_tensor_cores(arch, monkeypatch):
    """fp32 tl.dot: tf32 (Triton's default) is one m16n8k8 MMA per block on sm_80 and warpgroup MMA
    (k8: 32 bytes of K per instruction) on sm_90a; tf32x3 three m16n8k8 MMAs per block on both
    (warpgroup MMA reads operands from shared memory as they are: no hi/lo split); ieee none."""
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    counts, wgmma_counts = {}, {}
    for precision in ("tf32", "tf32x3", "ieee"):
        ptx = _compile("fp32", "fp32", (64, 64, 32, 4), arch, precision).asm["ptx"]
        counts[precision] = ptx.count("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32")
        wgmma_counts[precision] = ptx.count("wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32")
    if arch == "sm_90a":
        # per K step 32 // 8 instructions, in each of the two copies of the body (the one whose rings
        # tensor copies fill, tile-pointer-tensor-copies, and the cp.async one)
        assert wgmma_counts == {"tf32": 2 * 32 // 8, "tf32x3": 0, "ieee": 0} and counts["tf32"] == 0
    else:
        assert counts["tf32"] > 0 and not any(wgmma_counts.values())
    assert counts["tf32x3"] > 0 and counts["ieee"] == 0
    if arch == "sm_80":
        assert counts["tf32x3"] == 3 * counts["tf32"]
    if shutil.which("ptxas"):
        monkeypatch.delenv("TILEC_NO_PTXAS")
        for precision in ("tf32", "tf32x3"):
            assert "cubin" in _compile("fp32", "fp32", (64, 64, 32, 4), arch, precision).asm


TF32_A_REGISTERS = re.compile(
    r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k8\.f32\.tf32\.tf32 \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}"
)


@pytest.mark.parametrize("config", [(128, 128, 32, 8), (256, 128, 32, 8), (64, 256, 32, 4), (128, 32, 64, 4)])
def test_sm90a_tf32_row_major_b_goes_transposed(config, monkeypatch):
    """tf32 warpgroup MMA reads shared memory K-major only; a row-major fp32 B goes as the
    instruction's A instead (wgmma_swapped.py): C^T = B^T A^T, the instruction's width being BM, B^T's
    fragments in registers, both operands streamed by cp.async. An N that is not whole 64-row
    blocks per warpgroup (the last config) keeps the K-major store of B."""
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    bm, bn, bk, warps = config
    ptx = _compile("fp32", "fp32", config, "sm_90a").asm["ptx"]
    shapes = set(TF32_A_REGISTERS.findall(ptx))
    if bn % (16 * warps):
        assert not shapes and f"m64n{bn}k8.f32.tf32.tf32" in ptx
        return
    assert shapes == {str(bm)}
    loop = ptx[ptx.index("cp.async.wait_group") :]
    assert "st.shared" not in loop  # both operands copied (4 bytes a copy: M, N, K may be ragged)
    # B^T's fragments: four loads per 64-row block of N and k-step, after the wait for the last MMA
    fragments = loop.index("wgmma.wait_group.sync.aligned 0")
    assert loop[fragments:].count("ld.shared.b32") == 4 * (bn // (16 * warps)) * (bk // 8)
    assert "wgmma.wait_group.sync.aligned 1" not in ptx
    if shutil.which("ptxas"):
        monkeypatch.delenv("TILEC_NO_PTXAS")
        assert "cubin" in _compile("fp32", "fp32", config, "sm_90a").asm


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("config", [(128, 256, 32, 8), (256, 128, 32, 8), (64, 64, 32, 4), (128, 128, 64, 8)])
def test_tf32_row_major_b_on_gpu(config, stages):
    """The transposed tf32 MMA against float64 for every buffering it meets: registers and one
    buffer (1 stage), rings one to three iterations ahead, with ragged edges and a K tail."""
    import torch

    torch.manual_seed(stages)
    bm, bn, bk, warps = config
    M, N, K = 2 * bm + 17, 2 * bn - 16, 4 * bk - 8
    a, b = torch.randn(M, K, device="cuda"), torch.randn(K, N, device="cuda")
    c = torch.full((M, N), float("nan"), device="cuda")
    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    matmul[grid](
        a, b, c, M, N, K, K, N, N, BM=bm, BN=bn, BK=bk, PREC="tf32", num_warps=warps, num_stages=stages
    )
    expected = a.double() @ b.double()
    assert ((c.double() - expected).norm() / expected.norm()).item() < 2e-3


@tilec.jit
def one_product(a_ptr, b_ptr, c_ptr, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B with no loop (and no accumulator: the instruction does not read it)."""
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a = tl.load(a_ptr + rm[:, None] * BK + rk[None, :])
    b = tl.load(b_ptr + rk[:, None] * BN + rn[None, :])
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], tl.dot(a, b) * 2.0)


@pytest.mark.gpu
@needs_gpu
def test_tf32_row_major_b_without_loop_on_gpu():
    import torch

    a, b = torch.randn(128, 64, device="cuda"), torch.randn(64, 128, device="cuda")
    c = torch.full((128, 128), float("nan"), device="cuda")
    one_product[(1,)](a, b, c, BM=128, BN=128, BK=64, num_warps=8)
    expected = 2 * a.double() @ b.double()
    assert ((c.double() - expected).norm() / expected.norm()).item() < 2e-3
    ptx = one_product.warmup(a, b, c, BM=128, BN=128, BK=64, num_warps=8, grid=(1,)).asm["ptx"]
    assert TF32_A_REGISTERS.findall(ptx) == ["128"] * 8


@tilec.jit
def persistent_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """Each program walks tiles num_programs apart, a K loop per tile (a ring inside a tile loop)."""
    tiles_n = tl.cdiv(N, BN)
    for tile in range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, tl.num_programs(0)):
        rm = (tile // tiles_n) * BM + tl.arange(0, BM)
        rn = (tile % tiles_n) * BN + tl.arange(0, BN)
        rk = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, K, BK):
            a = tl.load(a_ptr + rm[:, None] * K + (k + rk)[None, :], mask=rm[:, None] < M, other=0.0)
            b = tl.load(b_ptr + (k + rk)[:, None] * N + rn[None, :], mask=rn[None, :] < N, other=0.0)
            acc = tl.dot(a, b, acc)
        tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def _relative_error(got, expected):
    return ((got.double() - expected).norm() / expected.norm()).item()


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("stages", [2, 3])
def test_tf32_persistent_on_gpu(stages):
    """The transposed tf32 dot inside a tile loop (two transposed dots in one loop: test_cp_async)."""
    import torch

    M, N, K = 1000, 528, 320
    a, b = torch.randn(M, K, device="cuda"), torch.randn(K, N, device="cuda")
    out = torch.full((M, N), float("nan"), device="cuda")
    persistent_matmul[(7,)](a, b, out, M, N, K, BM=128, BN=128, BK=32, num_warps=8, num_stages=stages)
    assert _relative_error(out, a.double() @ b.double()) < 2e-3


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "x".join(map(str, c)))
@pytest.mark.parametrize(
    "dtype,out,precision",
    [
        ("fp16", "fp32", "tf32"),
        ("bf16", "bf16", "tf32"),
        ("fp16", "fp16", "tf32"),
        ("fp32", "fp32", "tf32"),
        ("fp32", "fp32", "tf32x3"),
    ],
)
def test_dot_on_gpu(dtype, out, precision, config, monkeypatch):
    import torch

    torch.manual_seed(0)
    types = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32}
    bm, bn, bk, warps = config
    M, N, K = 3 * bm - 5, 2 * bn + 3, 5 * bk - 7  # ragged edges and a K tail
    a = torch.randn(M, K, device="cuda", dtype=types[dtype])
    b_rows = torch.randn(K, N + 29, device="cuda", dtype=types[dtype])  # rows padded past N
    b = b_rows[:, :N]
    c = torch.full((M, N + 1), float("nan"), device="cuda", dtype=types[out])
    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    expect_advisory = contextlib.nullcontext()
    if bm * bn // (warps * 32) >= 256 and precision != "tf32x3":  # on warpgroup MMA: too many accumulators
        monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")  # a cache hit would not warn again
        expect_advisory = pytest.warns(tilec.PerformanceWarning, match="C7511")
    with expect_advisory:
        matmul[grid](
            a, b_rows, c, M, N, K, K, N + 29, N + 1, BM=bm, BN=bn, BK=bk, PREC=precision, num_warps=warps
        )
    expected = (a.double() @ b.double()).to(types[out])
    tolerance = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 5e-2}[out]
    if dtype == "fp32" and precision == "tf32":  # 10-bit mantissas: errors of ~1e-3 per product
        tolerance = 1e-2
    torch.testing.assert_close(c[:, :N], expected, rtol=tolerance, atol=tolerance * 4)


@pytest.mark.parametrize("dtype", ["fp16", "bf16", "fp32"])
def test_amd_cdna_dot_uses_mfma(dtype):
    """gfx942/gfx90a: v_mfma_f32_16x16x16 for 16-bit inputs, v_mfma_f32_16x16x4_f32 for fp32 (its
    products in fp32, whatever input_precision asks), one per 16x16 block and k-step (not executed
    here: no AMD GPU; the code object is checked)."""
    pytest.importorskip("llvmlite")
    from tilec.targets.tools import have_lld

    if not have_lld():
        pytest.skip("needs ld.lld (Debian lld-19 or ROCm)")
    name = {
        "fp16": r"v_mfma_f32_16x16x16_?f16",
        "bf16": r"v_mfma_f32_16x16x16_?bf16",
        "fp32": r"v_mfma_f32_16x16x4_?f32",
    }
    k_step = 4 if dtype == "fp32" else 16
    for arch in ("gfx942", "gfx90a"):
        for precision in ("tf32", "ieee") if dtype == "fp32" else ("tf32",):
            asm = _compile(dtype, "fp32", (64, 64, 32, 4), arch, precision).asm["amdgcn"]
            # one wave's 16 rows x 4 column blocks x 32 / k_step k-steps
            assert (
                len(re.findall(name[dtype], asm)) == 4 * (32 // k_step) == len(re.findall("v_mfma", asm))
            ), arch
    rdna = _compile(dtype, "fp32", (64, 64, 32, 4), "gfx1100").asm["amdgcn"]
    assert "v_mfma" not in rdna  # RDNA has no MFMA: the FMA lowering
