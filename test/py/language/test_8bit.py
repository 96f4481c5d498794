"""8-bit inputs. fp8 (tl.float8e4nv = OCP e4m3fn, tl.float8e5 = OCP e5m2, tl.float8e4b8 and
tl.float8e5b16 = AMD's e4m3fnuz and e5m2fnuz): conversions bit-exact
against ml_dtypes (round to nearest even, saturating like NVIDIA's cvt.rn.satfinite) on the
interpreter and the CPU target, arithmetic in fp32, tl.dot on fp8 everywhere (sm_90a warpgroup MMA on
fp8, fp16 tensor cores elsewhere). int8 tl.dot with an int32 accumulator (sm_90a warpgroup MMA,
mma.sync m16n8k32 on sm_80+). Results against NumPy on a GPU."""

from __future__ import annotations

import re
import shutil

import ml_dtypes
import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl

FORMATS = {
    "fp8e4nv": ml_dtypes.float8_e4m3fn,
    "fp8e5": ml_dtypes.float8_e5m2,
    "fp8e4b8": ml_dtypes.float8_e4m3fnuz,
    "fp8e5b16": ml_dtypes.float8_e5m2fnuz,
}
TARGETS = ["interpreter", "cpu"]


@tilec.jit
def to_fp8(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.store(y_ptr + offs, x.to(y_ptr.dtype.element_ty), mask=offs < n)


def _run(kernel, target, monkeypatch, grid, *args, **constexprs):
    monkeypatch.setenv("TILEC_TARGET", target)
    kernel[grid](*args, **constexprs)


def _saturated(x: np.ndarray, fp8) -> np.ndarray:
    top = float(ml_dtypes.finfo(fp8).max)
    return np.clip(x.astype(np.float32), -top, top).astype(fp8)


def _same(got: np.ndarray, want: np.ndarray) -> None:
    """Equal bit patterns, except that any NaN matches any NaN."""
    g, w = got.astype(np.float32), want.astype(np.float32)
    nan = np.isnan(w)
    assert (np.isnan(g) == nan).all()
    bad = np.nonzero(got.view(np.uint8)[~nan] != want.view(np.uint8)[~nan])[0]
    assert bad.size == 0, f"{bad.size} differ, e.g. {want[~nan][bad[:5]]} -> {got[~nan][bad[:5]]}"


def _f32_sweep(fp8) -> np.ndarray:
    """Every fp8 value, the midpoints between neighbours (ties), one fp32 ulp either side of them,
    values past the largest finite one, infinities, NaN, fp32 subnormals and zeros of both signs."""
    codes = np.arange(256, dtype=np.uint8).view(fp8).astype(np.float32)
    finite = np.unique(codes[np.isfinite(codes)])
    mids = (finite[:-1].astype(np.float64) + finite[1:]) / 2
    mids = mids.astype(np.float32)
    near = np.concatenate([np.nextafter(mids, np.inf), np.nextafter(mids, -np.inf)])
    top = float(finite.max())
    extra = [top * 1.01, top * 1.1, top * 2, 1e30, np.inf, -np.inf, np.nan, 1e-40, -1e-45, 0.0, -0.0]
    out = np.concatenate([codes, mids, near, np.array(extra, np.float32)])
    return np.concatenate([out, -out]).astype(np.float32)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("target", TARGETS)
def test_fp32_to_fp8_rounds_to_nearest_even_and_saturates(fmt, target, monkeypatch):
    fp8 = FORMATS[fmt]
    x = _f32_sweep(fp8)
    y = np.zeros(x.size, fp8)
    _run(to_fp8, target, monkeypatch, (tilec.cdiv(x.size, 256),), x, y, x.size, BLOCK=256)
    _same(y, _saturated(x, fp8))


@pytest.mark.parametrize("source", ["fp16", "bf16", "fp64"])
@pytest.mark.parametrize("target", TARGETS)
def test_other_floats_to_fp8(source, target, monkeypatch):
    fp8 = ml_dtypes.float8_e4m3fn
    numpy_type = {"fp16": np.float16, "bf16": ml_dtypes.bfloat16, "fp64": np.float64}[source]
    x = np.random.default_rng(0).standard_normal(1000).astype(np.float32) * 60
    x = x.astype(numpy_type)
    y = np.zeros(x.size, fp8)
    _run(to_fp8, target, monkeypatch, (4,), x, y, x.size, BLOCK=256)
    _same(y, _saturated(x.astype(np.float64), fp8))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("out", ["fp32", "fp16", "bf16"])
@pytest.mark.parametrize("target", TARGETS)
def test_every_fp8_value_converts_exactly(fmt, out, target, monkeypatch):
    fp8 = FORMATS[fmt]
    x = np.arange(256, dtype=np.uint8).view(fp8)
    numpy_type = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16}[out]
    y = np.zeros(256, numpy_type)
    _run(to_fp8, target, monkeypatch, (1,), x, y, 256, BLOCK=256)
    want = x.astype(np.float32)
    got = y.astype(np.float32)
    assert (np.isnan(got) == np.isnan(want)).all()
    finite = ~np.isnan(want)
    assert (got[finite] == want[finite]).all() and (np.signbit(got) == np.signbit(want))[finite].all()


@tilec.jit
def fp8_arithmetic(x_ptr, y_ptr, s_ptr, q_ptr, c_ptr, i_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    y = tl.load(y_ptr + offs, mask=m, other=0.0)
    tl.store(s_ptr + offs, x * y + x, mask=m)  # fp8 (computed in fp32, rounded after each op)
    tl.store(q_ptr + offs, tl.maximum(x, y) / 2, mask=m)  # division computes in fp32
    tl.store(c_ptr + offs, (x < y).to(tl.int8), mask=m)
    tl.store(i_ptr + offs, x.to(tl.int32), mask=m)


@pytest.mark.parametrize("fmt", ["fp8e4nv", "fp8e4b8", "fp8e5b16"])
@pytest.mark.parametrize("target", TARGETS)
def test_fp8_arithmetic_computes_in_fp32(fmt, target, monkeypatch):
    fp8 = FORMATS[fmt]
    rng = np.random.default_rng(1)
    x = (rng.standard_normal(500) * 20).astype(fp8)
    y = (rng.standard_normal(500) * 20).astype(fp8)
    s, q = np.zeros(500, fp8), np.zeros(500, np.float32)
    c, i = np.zeros(500, np.int8), np.zeros(500, np.int32)
    _run(fp8_arithmetic, target, monkeypatch, (2,), x, y, s, q, c, i, 500, BLOCK=256)
    xf, yf = x.astype(np.float32), y.astype(np.float32)
    _same(s, _saturated(_saturated(xf * yf, fp8).astype(np.float32) + xf, fp8))
    np.testing.assert_array_equal(q, np.maximum(xf, yf) / 2)
    np.testing.assert_array_equal(c, (xf < yf).astype(np.int8))
    np.testing.assert_array_equal(i, xf.astype(np.int32))


def test_fp8_promotion_rules():
    """As Triton: fp8 op fp8 stays fp8, two fp8 formats meet in fp16, fp8 with bf16 in fp32."""
    from tilec.language import core, semantic

    e4, e5 = core.float8e4nv, core.float8e5
    assert semantic.computation_type(e4, False, e4, False, False) == e4
    assert semantic.computation_type(e4, False, e5, False, False) == core.float16
    assert semantic.computation_type(e4, False, core.float16, False, False) == core.float16
    assert semantic.computation_type(e5, False, core.bfloat16, False, False) == core.float32
    assert semantic.computation_type(e4, False, e4, False, True) == core.float32
    assert semantic.computation_type(e4, False, core.float32, True, False) == e4  # x * 2.0


@tilec.jit
def matmul_8bit(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_bn, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, B_TRANSPOSED: tl.constexpr,
    ACC: tl.constexpr = tl.float32,
):  # fmt: skip
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * stride_am + rk[None, :]
    if B_TRANSPOSED:  # B given as Bt [N, K] (K contiguous), the usual fp8 GEMM layout
        bt_ptrs = b_ptr + rn[:, None] * stride_bn + rk[None, :] * stride_bk
    else:
        b_ptrs = b_ptr + rk[:, None] * stride_bk + rn[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=(rm[:, None] < M) & (rk[None, :] < K - k * BK), other=0)
        if B_TRANSPOSED:
            bt = tl.load(bt_ptrs, mask=(rn[:, None] < N) & (rk[None, :] < K - k * BK), other=0)
            acc = tl.dot(a, tl.trans(bt), acc)
            bt_ptrs += BK * stride_bk
        else:
            b = tl.load(b_ptrs, mask=(rk[:, None] < K - k * BK) & (rn[None, :] < N), other=0)
            acc = tl.dot(a, b, acc)
            b_ptrs += BK * stride_bk
        a_ptrs += BK
    c_ptrs = c_ptr + rm[:, None] * stride_cm + rn[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (rn[None, :] < N))


B_LAYOUTS = ["row", "column", "trans"]  # B [K, N] row-major; column-major (b.T's strides); tl.trans(Bt)


def _b_args(b, layout):
    """(stored array, stride_bk, stride_bn, B_TRANSPOSED) for B [K, N] given in `layout`."""
    K, N = b.shape
    if layout == "row":
        return b, N, 1, False
    return np.ascontiguousarray(b.T), 1, K, layout == "trans"


def _matmul_inputs(fa, fb, M, N, K, layout, seed=0):
    rng = np.random.default_rng(seed)
    a = (rng.standard_normal((M, K)) * 2).astype(FORMATS[fa])
    b = (rng.standard_normal((K, N)) * 2).astype(FORMATS[fb])
    return (a, b, *_b_args(b, layout))


@pytest.mark.parametrize("layout", B_LAYOUTS)
@pytest.mark.parametrize(
    "formats", [("fp8e4nv", "fp8e4nv"), ("fp8e5", "fp8e4nv"), ("fp8e4b8", "fp8e4b8"), ("fp8e5b16", "fp8e4b8")]
)
@pytest.mark.parametrize("target", TARGETS)
def test_fp8_dot(formats, layout, target, monkeypatch):
    M, N, K = 70, 50, 100  # ragged tiles and a K tail
    a, b, stored, sbk, sbn, transposed = _matmul_inputs(*formats, M, N, K, layout)
    c = np.zeros((M, N), np.float32)
    _run(matmul_8bit, target, monkeypatch, (3, 2), a, stored, c, M, N, K, K, sbk, sbn, N,
         BM=32, BN=32, BK=32, B_TRANSPOSED=transposed)  # fmt: skip
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-5, atol=1e-4)


SIGNATURE = "*{},*{},*fp32,i32:16,i32:16,i32:16,i32:16,i32,i32,i32:16"


def _compile(target, formats=("fp8e4nv", "fp8e4nv"), config=(64, 128, 64, 4), layout="row", num_stages=3):
    bm, bn, bk, warps = config
    integer = formats[0] == "i8"
    signature = SIGNATURE.format(*formats).replace("*fp32", "*i32" if integer else "*fp32").split(",")
    # the unit stride is a constant, as a launch specializes it: stride_bn for row, stride_bk else
    unit_stride = "stride_bn" if layout == "row" else "stride_bk"
    del signature[8 if layout == "row" else 7]
    return tilec.compile(
        matmul_8bit,
        signature=",".join(signature),
        constexprs={
            "BM": bm,
            "BN": bn,
            "BK": bk,
            "B_TRANSPOSED": layout == "trans",
            "ACC": tl.int32 if integer else tl.float32,
            unit_stride: 1,
        },
        target=target,
        num_warps=warps,
        num_stages=num_stages,
    )


def _ptx(target, formats, **options) -> str:
    """The kernel's PTX, also assembled by ptxas when this machine has it."""
    compiled = _compile(target, formats, **options)
    if shutil.which("ptxas"):
        assert "cubin" in compiled.asm
    return compiled.asm["ptx"]


@pytest.mark.parametrize("layout", B_LAYOUTS)
@pytest.mark.parametrize("formats", [("fp8e4nv", "fp8e4nv"), ("fp8e5", "fp8e5"), ("fp8e4nv", "fp8e5")])
def test_sm90a_fp8_dot_uses_warpgroup_mma(formats, layout):
    ptx = _ptx("sm_90a", formats, layout=layout)
    names = {"fp8e4nv": "e4m3", "fp8e5": "e5m2"}
    found = set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k32\.f32\.(\w+)\.(\w+)", ptx))
    assert found == {("128", names[formats[0]], names[formats[1]])}
    assert "mma.sync" not in ptx and "cvt.f16" not in ptx  # fp8 bytes straight to the tensor cores


def test_fp8_dot_elsewhere_reads_fp16():
    """Without fp8 tensor cores (sm_80, plain sm_90, 2-warp shapes wgmma cannot take) fp8 operands
    become fp16, exactly, and take the fp16 tensor cores."""
    for arch, config in (
        ("sm_80", (64, 128, 64, 4)),
        ("sm_90", (64, 64, 32, 4)),
        ("sm_90a", (32, 32, 32, 2)),
    ):
        ptx = _ptx(arch, ("fp8e4nv", "fp8e4nv"), config=config)
        assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx and "wgmma" not in ptx, arch


def test_fnuz_fp8_dot_reads_fp16():
    """AMD's FNUZ formats have no fp8 tensor-core instruction on NVIDIA: fp16 warpgroup MMA on sm_90a;
    on gfx942 the fp16 MFMA."""
    ptx = _ptx("sm_90a", ("fp8e4b8", "fp8e5b16"))
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16" in ptx and ".e4m3" not in ptx
    pytest.importorskip("llvmlite")
    from tilec.targets.tools import have_lld

    if have_lld():
        assert "v_mfma_f32_16x16x16" in _compile("gfx942", ("fp8e4b8", "fp8e4b8")).asm["amdgcn"]


def test_amd_fp8_dot_uses_fp16_mfma():
    pytest.importorskip("llvmlite")
    from tilec.targets.tools import have_lld

    if not have_lld():
        pytest.skip("needs ld.lld (Debian lld-19 or ROCm)")
    asm = _compile("gfx942", config=(64, 64, 32, 4)).asm["amdgcn"]
    assert re.findall(r"v_mfma_f32_16x16x16_?f16", asm)


def _torch_fp8_types(torch) -> dict:
    """torch's dtype for each format: tilec maps CUDA tensors of these dtypes to the formats."""
    return {
        "fp8e4nv": torch.float8_e4m3fn,
        "fp8e5": torch.float8_e5m2,
        "fp8e4b8": torch.float8_e4m3fnuz,
        "fp8e5b16": torch.float8_e5m2fnuz,
    }


@pytest.mark.parametrize("layout", B_LAYOUTS)
def test_amd_int8_dot_uses_integer_mfma(layout):
    """CDNA3 (gfx942): v_mfma_i32_16x16x32_i8, eight int8 values of K per lane in one 64-bit
    operand; CDNA2 (gfx90a), which has no such instruction, v_mfma_i32_16x16x16_i8 with four. Not
    executed (no AMD GPU): the code object is checked; the interpreter and the CPU target compute
    the same kernel exactly (test_int8_dot_accumulates_exactly_in_int32)."""
    pytest.importorskip("llvmlite")
    from tilec.targets.tools import have_lld

    if not have_lld():
        pytest.skip("needs ld.lld (Debian lld-19 or ROCm)")
    config = (64, 64, 64, 4)  # 1 block of rows a wave, 4 of columns, K 64: 2 (gfx942) or 4 k-steps
    for arch, name, steps in (
        ("gfx942", "v_mfma_i32_16x16x32_i8", 2),
        ("gfx90a", "v_mfma_i32_16x16x16i8", 4),
    ):
        asm = _compile(arch, ("i8", "i8"), config=config, layout=layout).asm["amdgcn"]
        assert re.findall(r"v_mfma_\w+", asm) == [name] * (4 * steps), arch


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("config", [(128, 128, 64, 4), (128, 256, 128, 8), (64, 64, 32, 4), (32, 32, 32, 2)])
@pytest.mark.parametrize("layout", B_LAYOUTS)
@pytest.mark.parametrize("formats", [("fp8e4nv", "fp8e4nv"), ("fp8e5", "fp8e4nv"), ("fp8e4b8", "fp8e5b16")])
def test_fp8_dot_on_gpu(formats, layout, config):
    import torch

    torch_types = _torch_fp8_types(torch)
    bm, bn, bk, warps = config
    M, N, K = 3 * bm - 5, 2 * bn + 3, 5 * bk - 7
    a, b, stored, sbk, sbn, transposed = _matmul_inputs(*formats, M, N, K, layout)
    a_t = torch.from_numpy(a.view(np.uint8)).cuda().view(torch_types[formats[0]])
    b_t = torch.from_numpy(stored.view(np.uint8)).cuda().view(torch_types[formats[1]])
    c = torch.full((M, N), float("nan"), device="cuda")
    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    matmul_8bit[grid](a_t, b_t, c, M, N, K, K, sbk, sbn, N,
                     BM=bm, BN=bn, BK=bk, B_TRANSPOSED=transposed, num_warps=warps)  # fmt: skip
    expected = a.astype(np.float64) @ b.astype(np.float64)
    # Hopper's fp8 MMA accumulates with fewer bits than fp32 (as Triton's default on sm_90,
    # max_num_imprecise_acc = K): errors of ~1e-4 of the output's scale, not of each element
    scale = np.abs(expected).max()
    np.testing.assert_allclose(c.cpu().numpy(), expected, rtol=1e-2, atol=1e-3 * scale)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("fmt", FORMATS)
def test_fp8_conversions_on_gpu_match_torch(fmt):
    import torch

    fp8 = FORMATS[fmt]
    x = _f32_sweep(fp8)
    y = torch.zeros(x.size, dtype=torch.uint8, device="cuda")
    torch_type = _torch_fp8_types(torch)[fmt]
    to_fp8[(tilec.cdiv(x.size, 256),)](torch.from_numpy(x).cuda(), y.view(torch_type), x.size, BLOCK=256)
    _same(y.cpu().numpy().view(fp8), _saturated(x, fp8))


@pytest.mark.parametrize("layout", B_LAYOUTS)
@pytest.mark.parametrize("target", TARGETS)
def test_int8_dot_accumulates_exactly_in_int32(layout, target, monkeypatch):
    M, N, K = 70, 50, 100
    rng = np.random.default_rng(2)
    a = rng.integers(-128, 128, (M, K), dtype=np.int8)
    b = rng.integers(-128, 128, (K, N), dtype=np.int8)
    stored, sbk, sbn, transposed = _b_args(b, layout)
    c = np.zeros((M, N), np.int32)
    _run(matmul_8bit, target, monkeypatch, (3, 2), a, stored, c, M, N, K, K, sbk, sbn, N,
         BM=32, BN=32, BK=32, B_TRANSPOSED=transposed, ACC=tl.int32)  # fmt: skip
    np.testing.assert_array_equal(c, a.astype(np.int64) @ b.astype(np.int64))


@pytest.mark.parametrize("layout", B_LAYOUTS)
def test_int8_dot_uses_integer_tensor_cores(layout):
    """sm_90a: wgmma ...k32.s32.s8.s8; sm_80 and shapes wgmma cannot take: mma.sync m16n8k32."""
    ptx = _ptx("sm_90a", ("i8", "i8"), layout=layout)
    assert set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k32\.s32\.s8\.s8)", ptx)) == {
        "m64n128k32.s32.s8.s8"
    }
    for arch, config in (("sm_80", (64, 64, 64, 4)), ("sm_90a", (32, 32, 32, 2))):
        ptx = _ptx(arch, ("i8", "i8"), config=config, layout=layout)
        assert "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32" in ptx and "wgmma" not in ptx, arch
        assert "cubin" in _compile("sm_80", ("i8", "i8"), config=(64, 64, 64, 4)).asm


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("config", [(128, 128, 64, 4), (128, 256, 128, 8), (64, 64, 32, 4), (32, 32, 32, 2)])
@pytest.mark.parametrize("layout", B_LAYOUTS)
def test_int8_dot_on_gpu(layout, config):
    import torch

    bm, bn, bk, warps = config
    M, N, K = 3 * bm - 5, 2 * bn + 3, 5 * bk - 7
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (M, K), dtype=np.int8)
    b = rng.integers(-128, 128, (K, N), dtype=np.int8)
    stored, sbk, sbn, transposed = _b_args(b, layout)
    c = torch.full((M, N), -1, device="cuda", dtype=torch.int32)
    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    matmul_8bit[grid](torch.from_numpy(a).cuda(), torch.from_numpy(stored).cuda(), c, M, N, K, K, sbk, sbn, N,
                     BM=bm, BN=bn, BK=bk, B_TRANSPOSED=transposed, ACC=tl.int32, num_warps=warps)  # fmt: skip
    np.testing.assert_array_equal(c.cpu().numpy(), a.astype(np.int64) @ b.astype(np.int64))


@pytest.mark.parametrize("formats", [("fp16", "fp16"), ("fp8e4nv", "fp8e4nv"), ("i8", "i8")])
def test_column_major_b_loads_and_stores_vectors(formats):
    """B given column-major (contiguous along K, as `b.T` through strides) loads in a column-major
    layout with 16-byte accesses and goes to shared memory K-major (cp.async copies of 16 bytes on
    sm_90a with num_stages >= 2, 16-byte stores from registers without); sm_80 takes it through a
    layout conversion."""
    for stages in (1, 3):
        ptx = _ptx("sm_90a", formats, config=(64, 128, 64, 4), layout="column", num_stages=stages)
        assert "wgmma.mma_async" in ptx
        copies = re.findall(r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16,", ptx)
        assert bool(copies) == (stages > 1)
        assert stages > 1 or "ld.global.v4" in ptx
        assert not re.findall(r"ld\.global\.(b8|u8|s8|b16|u16)", ptx)
    assert not re.findall(r"st\.shared\.(b8|u8|s8)", ptx)
    assert "mma.sync" in _ptx("sm_80", formats, config=(64, 64, 64, 4), layout="column")


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("config", [(128, 128, 64, 4), (128, 256, 64, 8), (64, 64, 32, 4), (32, 32, 32, 2)])
@pytest.mark.parametrize("layout", B_LAYOUTS)
def test_fp16_b_layouts_on_gpu(layout, config):
    """fp16 B row-major, column-major (the column-major load layout, K-major shared memory with
    trans-b = 0 on sm_90a) and as tl.trans(Bt)."""
    import torch

    bm, bn, bk, warps = config
    M, N, K = 3 * bm - 5, 2 * bn + 3, 5 * bk - 7
    rng = np.random.default_rng(4)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    stored, sbk, sbn, transposed = _b_args(b, layout)
    c = torch.full((M, N), float("nan"), device="cuda")
    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    matmul_8bit[grid](torch.from_numpy(a).cuda(), torch.from_numpy(stored).cuda(), c, M, N, K, K, sbk, sbn, N,
                      BM=bm, BN=bn, BK=bk, B_TRANSPOSED=transposed, num_warps=warps)  # fmt: skip
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c.cpu().numpy(), expected, rtol=1e-3, atol=1e-2)


@tilec.jit
def fp8_matmul_bt(
    a_ptr, bt_ptr, c_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, IMPRECISE: tl.constexpr
):
    """C [BM, BN] = A [BM, K] @ Bt[BN, K]^T, one program, K a multiple of BK."""
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    a_ptrs = a_ptr + rm[:, None] * K + rk[None, :]
    bt_ptrs = bt_ptr + rn[:, None] * K + rk[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.trans(tl.load(bt_ptrs)), acc, max_num_imprecise_acc=IMPRECISE)
        a_ptrs += BK
        bt_ptrs += BK
    tl.store(c_ptr + rm[:, None] * BN + rn[None, :], acc)


@pytest.mark.parametrize("imprecise,groups", [(None, 0), (0, 4), (64, 2), (128, 1)])
def test_max_num_imprecise_acc_adds_partial_sums_in_fp32(imprecise, groups):
    """max_num_imprecise_acc <= the dot's K (128 here, 4 instructions of k32): each group of that
    many K values is summed from zero by the tensor core, then added to the accumulator in fp32."""
    compiled = tilec.compile(
        fp8_matmul_bt,
        signature="*fp8e4nv:16,*fp8e4nv:16,*fp32:16,i32:16",
        constexprs={"BM": 64, "BN": 64, "BK": 128, "IMPRECISE": imprecise},
        target="sm_90a",
        num_warps=4,
    )
    ptx = compiled.asm["ptx"]
    per_thread = 64 * 64 // 128
    assert ptx.count("wgmma.mma_async") == 4
    assert len(re.findall(r"\badd\.(rn\.)?f32", ptx)) == groups * per_thread
    # not promoted: pipelined across the loop (waits for the previous iteration's MMA only)
    assert ("wgmma.wait_group.sync.aligned 1" in ptx) == (groups == 0)
    if shutil.which("ptxas"):
        assert "cubin" in compiled.asm


def test_max_num_imprecise_acc_beyond_k_is_an_error():
    """As in Triton: more imprecise K values than the dot has is a mistake, not "all of K"."""
    with pytest.raises(tilec.CompilationError, match=r"max_num_imprecise_acc \(256\) must be <= K \(128\)"):
        tilec.compile(
            fp8_matmul_bt,
            signature="*fp8e4nv:16,*fp8e4nv:16,*fp32:16,i32:16",
            constexprs={"BM": 64, "BN": 64, "BK": 128, "IMPRECISE": 256},
            target="sm_90a",
        )


@pytest.mark.gpu
@needs_gpu
def test_max_num_imprecise_acc_on_gpu():
    import torch

    K = 8192
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((64, K)) * 2).astype(ml_dtypes.float8_e4m3fn)
    bt = (rng.standard_normal((64, K)) * 2).astype(ml_dtypes.float8_e4m3fn)
    expected = a.astype(np.float64) @ bt.astype(np.float64).T
    errors = {}
    for imprecise in (None, 32):
        c = torch.zeros((64, 64), device="cuda")
        fp8_matmul_bt[(1,)](
            torch.from_numpy(a.view(np.uint8)).cuda().view(torch.float8_e4m3fn),
            torch.from_numpy(bt.view(np.uint8)).cuda().view(torch.float8_e4m3fn),
            c, K, BM=64, BN=64, BK=128, IMPRECISE=imprecise, num_warps=4,
        )  # fmt: skip
        errors[imprecise] = np.abs(c.cpu().numpy() - expected).max()
    scale = np.abs(expected).max()
    # the tensor core's own precision over all of K (~4e-3 of the scale on an H200, K = 8192) against
    # fp32 adds of 32-value partial sums (~4e-5: only each partial sum is imprecise)
    assert errors[None] < 2e-2 * scale, (errors, scale)
    assert errors[32] < 2e-4 * scale and errors[32] < errors[None] / 10, (errors, scale)
