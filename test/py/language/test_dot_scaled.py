"""`tl.dot_scaled`: microscaled operands (e2m1 packed two a byte, e4m3, e5m2, bf16, fp16) with e8m0
scales per 32 K values, against a float64 NumPy reference of the decoded, scaled values on the CPU
target, the interpreter and a GPU; K packing along M/N, missing scales, NaN scales, an accumulator;
misuse is an error at the user's line."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl

E2M1 = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6, -0.0, -0.5, -1, -1.5, -2, -3, -4, -6])


@tilec.jit
def scaled_matmul(
    a_ptr, a_scale_ptr, b_ptr, b_scale_ptr, c_ptr,
    M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, A_FORMAT: tl.constexpr, B_FORMAT: tl.constexpr,
    A_K_PACK: tl.constexpr, B_K_PACK: tl.constexpr, SCALED: tl.constexpr, ACC: tl.constexpr,
):  # fmt: skip
    # an e2m1 operand is half as long along its packed dimension
    A_ROWS: tl.constexpr = M // 2 if A_FORMAT == "e2m1" and not A_K_PACK else M
    A_COLS: tl.constexpr = K // 2 if A_FORMAT == "e2m1" and A_K_PACK else K
    B_ROWS: tl.constexpr = K // 2 if B_FORMAT == "e2m1" and B_K_PACK else K
    B_COLS: tl.constexpr = N // 2 if B_FORMAT == "e2m1" and not B_K_PACK else N
    a = tl.load(a_ptr + tl.arange(0, A_ROWS)[:, None] * A_COLS + tl.arange(0, A_COLS)[None, :])
    b = tl.load(b_ptr + tl.arange(0, B_ROWS)[:, None] * B_COLS + tl.arange(0, B_COLS)[None, :])
    groups = tl.arange(0, K // 32)[None, :]
    a_scale = tl.load(a_scale_ptr + tl.arange(0, M)[:, None] * (K // 32) + groups) if SCALED else None
    b_scale = tl.load(b_scale_ptr + tl.arange(0, N)[:, None] * (K // 32) + groups) if SCALED else None
    c_ptrs = c_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :]
    acc = tl.load(c_ptrs) if ACC else None
    c = tl.dot_scaled(
        a, a_scale, A_FORMAT, b, b_scale, B_FORMAT, acc=acc, lhs_k_pack=A_K_PACK, rhs_k_pack=B_K_PACK
    )
    tl.store(c_ptrs, c)


def _operand(rng, fmt, rows, cols, pack_axis):
    """(what the kernel loads, the float64 values it means)."""
    if fmt == "e2m1":
        nibbles = rng.integers(0, 16, (rows, cols)).astype(np.uint8)
        first, second = (
            (nibbles[:, 0::2], nibbles[:, 1::2]) if pack_axis == 1 else (nibbles[0::2], nibbles[1::2])
        )
        return (first | (second << 4)).astype(np.uint8), E2M1[nibbles]
    numpy_type = {
        "e4m3": ml_dtypes.float8_e4m3fn, "e5m2": ml_dtypes.float8_e5m2, "bf16": ml_dtypes.bfloat16,
        "fp16": np.float16,
    }[fmt]  # fmt: skip
    values = (rng.standard_normal((rows, cols)) * 3).astype(numpy_type)
    loaded = values.view(np.uint8) if fmt in ("e4m3", "e5m2") else values  # fp8 as their bytes
    return loaded, values.astype(np.float64)


def _case(a_format, b_format, m=32, n=32, k=64, a_k_pack=True, b_k_pack=True, scaled=True, seed=0):
    rng = np.random.default_rng(seed)
    a, a_values = _operand(rng, a_format, m, k, 1 if a_k_pack else 0)
    b, b_values = _operand(rng, b_format, k, n, 0 if b_k_pack else 1)
    a_scale = rng.integers(118, 136, (m, k // 32)).astype(np.uint8)
    b_scale = rng.integers(118, 136, (n, k // 32)).astype(np.uint8)
    if scaled:
        a_values = a_values * np.repeat(2.0 ** (a_scale.astype(np.float64) - 127), 32, axis=1)
        b_values = b_values * np.repeat(2.0 ** (b_scale.astype(np.float64) - 127), 32, axis=1).T
    return (a, a_scale, b, b_scale), a_values @ b_values


def _run(args, want, launch, **constexprs):
    c = launch(args, **constexprs)
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def _on_host(args, M=32, N=32, K=64, acc=None, **constexprs):
    c = np.zeros((M, N), np.float32) if acc is None else acc.copy()
    scaled_matmul[(1,)](*args, c, M=M, N=N, K=K, ACC=acc is not None, **constexprs)
    return c


# every format on each side, each mixed with several others (all 25 pairs took 100 s on two CPUs)
FORMAT_PAIRS = [
    ("e2m1", "e2m1"), ("e2m1", "e4m3"), ("e4m3", "e5m2"), ("e5m2", "bf16"), ("bf16", "fp16"),
    ("fp16", "e2m1"), ("bf16", "bf16"), ("fp16", "fp16"), ("e5m2", "e2m1"), ("e4m3", "fp16"),
]  # fmt: skip


@pytest.mark.parametrize("a_format,b_format", FORMAT_PAIRS)
def test_formats(target, a_format, b_format):
    args, want = _case(a_format, b_format)
    _run(
        args, want, _on_host, A_FORMAT=a_format, B_FORMAT=b_format, A_K_PACK=True, B_K_PACK=True, SCALED=True
    )


@pytest.mark.parametrize("a_k_pack,b_k_pack", [(False, True), (True, False), (False, False)])
def test_fp4_packed_along_m_or_n(target, a_k_pack, b_k_pack):
    args, want = _case("e2m1", "e2m1", a_k_pack=a_k_pack, b_k_pack=b_k_pack)
    _run(
        args,
        want,
        _on_host,
        A_FORMAT="e2m1",
        B_FORMAT="e2m1",
        A_K_PACK=a_k_pack,
        B_K_PACK=b_k_pack,
        SCALED=True,
    )


def test_without_scales_and_with_accumulator(target):
    args, want = _case("e4m3", "bf16", scaled=False)
    acc = np.random.default_rng(1).standard_normal((32, 32)).astype(np.float32)
    c = _on_host(args, acc=acc, A_FORMAT="e4m3", B_FORMAT="bf16", A_K_PACK=True, B_K_PACK=True, SCALED=False)
    np.testing.assert_allclose(c, want + acc, rtol=1e-5, atol=1e-5 * np.abs(want).max())


def test_nan_and_smallest_scales(target):
    # scale 0 is 2^-127: row 5 holds e2m1 values of magnitude >= 2 (nibbles 4-7, 12-15), which stay
    # normal float32 numbers once scaled (x86's bf16 conversion flushes subnormals); rhs scaled by
    # 2^73 (200) keeps the products in the normal range
    args, _ = _case("e2m1", "bf16")
    a, a_scale, b, b_scale = args
    a, a_scale, b_scale = a.copy(), a_scale.copy(), np.full_like(b_scale, 200)
    a[5] |= 0x44
    a_scale[3, 1] = 255  # NaN: row 3 of the product becomes NaN
    a_scale[5, :] = 0
    c = _on_host(
        (a, a_scale, b, b_scale), A_FORMAT="e2m1", B_FORMAT="bf16", A_K_PACK=True, B_K_PACK=True, SCALED=True
    )
    assert np.isnan(c[3]).all() and not np.isnan(np.delete(c, 3, axis=0)).any()
    row = E2M1[np.stack([a[5] & 15, a[5] >> 4], axis=1).ravel()]
    np.testing.assert_allclose(c[5], row @ b.astype(np.float64) * 2.0**-54, rtol=1e-5, atol=1e-21)


def test_compiles_to_tensor_cores():
    signature = "*u8,*u8,*u8,*u8,*fp32"
    common = {"M": 128, "N": 128, "K": 128, "A_K_PACK": True, "B_K_PACK": True, "SCALED": True, "ACC": False}
    ptx = tilec.compile(
        scaled_matmul, signature=signature, constexprs={**common, "A_FORMAT": "e2m1", "B_FORMAT": "e4m3"},
        target="sm_90a", num_warps=4,
    ).asm["ptx"]  # fmt: skip
    assert "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16" in ptx
    common.update(M=64, N=64, K=64)  # AMD's MFMA lowering keeps both 64 x 64 operands in LDS
    amd = tilec.compile(
        scaled_matmul, signature=signature, constexprs={**common, "A_FORMAT": "e5m2", "B_FORMAT": "e2m1"},
        target="gfx942", num_warps=4,
    ).asm["amdgcn"]  # fmt: skip
    assert "v_mfma_f32_16x16x16_bf16" in amd


@tilec.jit
def misuse(a_ptr, b_ptr, CASE: tl.constexpr):
    r = tl.arange(0, 32)
    a = tl.load(a_ptr + r[:, None] * 32 + r[None, :])
    b = tl.load(b_ptr + r[:, None] * 32 + r[None, :])
    scale = tl.full((32, 1), 127, tl.int32)
    if CASE == 0:
        tl.dot_scaled(a, None, "e3m2", b, None, "bf16")
    elif CASE == 1:
        tl.dot_scaled(a, None, "e2m1", b, None, "e4m3")  # K: 64 values in a's rows, 32 in b's columns
    elif CASE == 2:
        tl.dot_scaled(a, scale, "e4m3", b, None, "e4m3")
    elif CASE == 3:
        tl.dot_scaled(a.to(tl.float32), None, "bf16", b, None, "e4m3")
    else:
        tl.dot_scaled(a, tl.full((32, 2), 127, tl.uint8), "e4m3", b, None, "e4m3")


@pytest.mark.parametrize(
    "case,message",
    [
        (0, "lhs_format must be one of e2m1, e4m3, e5m2, bf16, fp16, got 'e3m2'"),
        (1, r"K differs: lhs holds \[32, 64\] values, rhs \[32, 32\]"),
        (2, r"lhs_scale must be e8m0 bytes \(uint8\), got int32"),
        (3, "lhs in format bf16 must be bf16, got fp32"),
        (4, r"lhs_scale must have shape \[32, 1\], got \[32, 2\]"),
    ],
)
def test_misuse_names_the_line(case, message):
    with pytest.raises(tilec.CompilationError, match=message) as info:
        misuse[(1,)](np.zeros(1024, np.uint8), np.zeros(1024, np.uint8), CASE=case)
    assert "test_dot_scaled.py" in str(info.value)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(
    "a_format,b_format", [("e2m1", "e2m1"), ("e4m3", "e5m2"), ("e2m1", "bf16"), ("fp16", "e4m3")]
)
def test_on_gpu(a_format, b_format):
    import torch

    def to_torch(x):
        if x.dtype == ml_dtypes.bfloat16:
            return torch.from_numpy(x.view(np.int16)).view(torch.bfloat16).cuda()
        return torch.from_numpy(x).cuda()

    def launch(args, M, N, K, **constexprs):
        c = torch.zeros((M, N), device="cuda")
        scaled_matmul[(1,)](*[to_torch(x) for x in args], c, M=M, N=N, K=K, ACC=False, **constexprs)
        return c.cpu().numpy()

    args, want = _case(a_format, b_format, m=128, n=128, k=128)
    _run(
        args,
        want,
        launch,
        M=128,
        N=128,
        K=128,
        A_FORMAT=a_format,
        B_FORMAT=b_format,
        A_K_PACK=True,
        B_K_PACK=True,
        SCALED=True,
    )  # noqa: E501
