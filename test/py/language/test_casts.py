"""`tl.cast` / `x.to(...)` beyond value conversions: pointer casts (to another pointee type, to int64
and back, to int1), `fp_downcast_rounding` ("rtne", "rtz") for floats going narrower, `bitcast`,
on the CPU target, the interpreter and a GPU; misuse is an error at the user's line."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def pointer_casts(x_ptr, bytes_ptr, words_ptr, doubled_ptr, offsets_ptr, nonnull_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    # the float32 data read as bytes (a scalar pointer cast) and as int32 words (a tensor of pointers)
    as_bytes = x_ptr.to(tl.pointer_type(tl.uint8))
    tl.store(bytes_ptr + tl.arange(0, 4 * N), tl.load(as_bytes + tl.arange(0, 4 * N)))
    tl.store(words_ptr + i, tl.load((x_ptr + i).to(tl.pointer_type(tl.int32))))
    # through integer addresses and back
    address = tl.cast(x_ptr, tl.int64)
    tl.store(doubled_ptr + i, tl.load((address + 4 * i).to(tl.pointer_type(tl.float32))) * 2)
    tl.store(offsets_ptr + i, (x_ptr + i).to(tl.int64) - address)
    tl.store(nonnull_ptr + i, (x_ptr + i).to(tl.int1).to(tl.int32))


def _pointer_buffers(n):
    x = np.arange(n, dtype=np.float32) * 1.25 - 3
    outs = [np.zeros(4 * n, np.uint8), np.zeros(n, np.int32), np.zeros(n, np.float32)]
    return x, outs + [np.zeros(n, np.int64), np.zeros(n, np.int32)]


def _check_pointers(x, outs):
    as_bytes, words, doubled, offsets, nonnull = outs
    assert np.array_equal(as_bytes, x.view(np.uint8))
    assert np.array_equal(words, x.view(np.int32))
    assert np.array_equal(doubled, 2 * x)
    assert np.array_equal(offsets, 4 * np.arange(len(x)))
    assert np.all(nonnull == 1)


def test_pointer_casts(target):
    x, outs = _pointer_buffers(64)
    pointer_casts[(1,)](x, *outs, N=64)
    _check_pointers(x, outs)


def test_pointer_casts_keep_wide_accesses_on_gpus():
    # a tensor of pointers cast to a same-size type stays contiguous: 16-byte loads
    ptx = tilec.compile(
        pointer_casts, signature="*fp32,*u8,*i32,*fp32,*i64,*i32", constexprs={"N": 512}, target="sm_90a"
    ).asm["ptx"]
    assert "ld.global.v4.b32" in ptx


@tilec.jit
def rows_by_address(table_ptr, out_ptr, N: tl.constexpr):
    # the grouped-GEMM pattern: a table of int64 addresses, each made a pointer
    g = tl.program_id(0)
    src = tl.load(table_ptr + g).to(tl.pointer_type(tl.float32))
    tl.store(out_ptr + g * N + tl.arange(0, N), tl.load(src + tl.arange(0, N)))


def test_pointers_loaded_from_memory(target):
    arrays = [np.arange(16, dtype=np.float32) * (k + 1) for k in range(3)]
    table = np.array([a.ctypes.data for a in arrays], np.int64)
    out = np.zeros((3, 16), np.float32)
    # (the interpreter checks such addresses against the memory mapping they fall in)
    rows_by_address[(3,)](table, out, N=16)
    assert np.array_equal(out, np.stack(arrays))


@tilec.jit
def roundings(x_ptr, half_rtz_ptr, bf16_rtz_ptr, half_rtne_ptr, bits_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(half_rtz_ptr + i, x.to(tl.float16, fp_downcast_rounding="rtz"))
    tl.store(bf16_rtz_ptr + i, tl.cast(x, tl.bfloat16, fp_downcast_rounding="rtz"))
    tl.store(half_rtne_ptr + i, tl.cast(x, tl.float16, fp_downcast_rounding="rtne"))
    tl.store(bits_ptr + i, tl.cast(x, tl.int32, bitcast=True))


def _rounding_input(n=1024):
    rng = np.random.default_rng(3)
    special = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e6, -1e6, 65519.0, 65520.0, 1e-8, -1e-8, 3e-5, 1.0, -1.0]
    x = np.concatenate([np.array(special), rng.standard_normal(n) * 10, rng.standard_normal(64) * 1e-6])
    return np.resize(x, n).astype(np.float32)


def _check_roundings(x, half_rtz, bf16_rtz, half_rtne, bits):
    with np.errstate(over="ignore"):
        nearest = x.astype(np.float16)
    farther = np.abs(nearest.astype(np.float32)) > np.abs(x)
    want = nearest.copy()
    want[farther] = np.nextafter(nearest[farther], np.float16(0))
    finite = ~np.isnan(x)  # NaN stays NaN (GPUs give the canonical NaN, NumPy keeps the payload)
    assert np.array_equal(half_rtz.view(np.uint16)[finite], want.view(np.uint16)[finite])  # -0.0 too
    assert np.isnan(half_rtz[~finite]).all()
    truncated = (x.view(np.uint32) >> 16).astype(np.uint16)  # bf16 toward zero = the top 16 bits
    assert np.array_equal(bf16_rtz.view(np.uint16)[finite], truncated[finite])
    assert np.isnan(bf16_rtz.astype(np.float32)[~finite]).all()
    np.testing.assert_array_equal(half_rtne, nearest)
    assert np.array_equal(bits, x.view(np.int32))


def test_rounding_modes(target):
    x = _rounding_input()
    outs = [np.zeros(len(x), t) for t in (np.float16, ml_dtypes.bfloat16, np.float16, np.int32)]
    roundings[(1,)](x, *outs, N=len(x))
    _check_roundings(x, *outs)


@tilec.jit
def pointer_to_int32(x_ptr, N: tl.constexpr):
    x_ptr.to(tl.int32)


@tilec.jit
def rounding_an_integer(x_ptr, N: tl.constexpr):
    tl.load(x_ptr + tl.arange(0, N)).to(tl.int8, fp_downcast_rounding="rtz")


@tilec.jit
def unknown_rounding(x_ptr, N: tl.constexpr):
    tl.load(x_ptr + tl.arange(0, N)).to(tl.float16, fp_downcast_rounding="up")


@tilec.jit
def float_to_pointer(x_ptr, N: tl.constexpr):
    tl.load(x_ptr + tl.arange(0, N)).to(tl.pointer_type(tl.float32))


@pytest.mark.parametrize(
    "kernel,message",
    [
        (pointer_to_int32, "a pointer converts to 64-bit integers only"),
        (rounding_an_integer, "fp_downcast_rounding applies to conversions to a narrower float only"),
        (unknown_rounding, "fp_downcast_rounding must be 'rtne' or 'rtz', got 'up'"),
        (float_to_pointer, r"cannot cast between fp32 and \*fp32"),
    ],
)
def test_misuse_names_the_line(kernel, message):
    with pytest.raises(tilec.CompilationError, match=message) as info:
        kernel[(1,)](np.zeros(8, np.float32), N=8)
    assert "test_casts.py" in str(info.value)


@pytest.mark.gpu
@needs_gpu
def test_on_gpu():
    import torch

    x, outs = _pointer_buffers(256)
    cuda = [torch.from_numpy(a).cuda() for a in (x, *outs)]
    pointer_casts[(1,)](*cuda, N=256)
    x = _rounding_input()
    rounded = [
        torch.zeros(len(x), device="cuda", dtype=t) for t in (torch.float16, torch.bfloat16, torch.float16)
    ]
    bits = torch.zeros(len(x), device="cuda", dtype=torch.int32)
    roundings[(1,)](torch.from_numpy(x).cuda(), *rounded, bits, N=len(x))
    torch.cuda.synchronize()
    _check_pointers(cuda[0].cpu().numpy(), [a.cpu().numpy() for a in cuda[1:]])
    as_numpy = [rounded[0].cpu().numpy(), rounded[1].view(torch.int16).cpu().numpy().view(ml_dtypes.bfloat16)]
    _check_roundings(x, *as_numpy, rounded[2].cpu().numpy(), bits.cpu().numpy())


@tilec.jit
def to_half(x_ptr, y_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs).to(tl.float16))


def test_packed_rounding_keeps_element_order(monkeypatch):
    """f32 -> f16 goes two values per `cvt.rn.f16x2.f32 d, a, b`, which puts a in d's upper half
    (PTX ISA): a must be the later element of each pair, and the words stored in element order."""
    import re

    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    ptx = tilec.compile(to_half, signature="*fp32,*fp16", constexprs={"BLOCK": 512}, target="sm_90a").asm[
        "ptx"
    ]
    loaded = re.search(r"ld\.global\.v4\.b32\s+\{(%r\d+), (%r\d+), (%r\d+), (%r\d+)\}", ptx).groups()
    words = {}
    for d, a, b in re.findall(r"cvt\.rn\.f16x2\.f32\s+(%r\d+), (%r\d+), (%r\d+);", ptx):
        words[d] = (loaded.index(b), loaded.index(a))  # (lower half, upper half) as element numbers
    stored = re.search(r"st\.global\.v2\.b32\s+\[[^\]]+\], \{(%r\d+), (%r\d+)\}", ptx).groups()
    assert [words[w] for w in stored] == [(0, 1), (2, 3)]
    assert "cvt.rn.f16.f32" not in ptx


@tilec.jit
def round_toward_zero(src, dst, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(dst + offs, tl.load(src + offs).to(dst.dtype.element_ty, fp_downcast_rounding="rtz"))


@pytest.mark.parametrize("dtype", [ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3fn, np.float16])
def test_round_toward_zero_to_narrow_floats(target, dtype):
    rng = np.random.default_rng(0)
    scales = rng.choice([1e-6, 1e-3, 1.0, 100.0, 400.0], 4096)
    x = (rng.standard_normal(4096) * scales).astype(np.float32)
    x = np.clip(x, -448, 448).astype(np.float32)
    out = np.zeros(4096, dtype)
    round_toward_zero[(1,)](x, out, N=4096)
    # every finite value of the format, then the largest magnitude not above |x|, with x's sign
    bits = np.arange(2 ** (8 * np.dtype(dtype).itemsize), dtype=f"u{np.dtype(dtype).itemsize}")
    values = bits.view(dtype).astype(np.float64)
    magnitudes = np.unique(values[np.isfinite(values) & (values >= 0)])
    expected = np.sign(x) * magnitudes[np.searchsorted(magnitudes, np.abs(x.astype(np.float64)), "right") - 1]
    np.testing.assert_array_equal(out.astype(np.float64), expected)  # (0.0 == -0.0 for tiny inputs)


@tilec.jit
def float_to_integers(x_ptr, i8, u8, i16, u16, i32, u32, i64, u64, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(i8 + i, x.to(tl.int8))
    tl.store(u8 + i, x.to(tl.uint8))
    tl.store(i16 + i, x.to(tl.int16))
    tl.store(u16 + i, x.to(tl.uint16))
    tl.store(i32 + i, x.to(tl.int32))
    tl.store(u32 + i, x.to(tl.uint32))
    tl.store(i64 + i, x.to(tl.int64))
    tl.store(u64 + i, x.to(tl.uint64))


# NaN, infinities and values beyond each integer's range (undefined in LLVM): NVIDIA's cvt.rzi
# results, which the CPU target and the interpreter now give too (x86 said INT_MIN for all of them):
# truncated, clamped to the result's range (16 bits for 8-bit results, then wrapped); NaN gives 0,
# except into 64 bits and from float64, where it gives the sign bit alone (measured on an H200).
_SPECIAL_FLOATS = [
    np.nan,
    np.inf,
    -np.inf,
    1e10,
    -1e10,
    300.7,
    -300.2,
    -1.5,
    3.9,
    -3.9,
    65536.5,
    2.0**31,
    2.0**63,
    1e20,
    -1e20,
    0.0,
]
_NVIDIA_RESULTS = {
    np.int8: [0, -1, 0, -1, 0, 44, -44, -1, 3, -3, -1, -1, -1, -1, 0, 0],
    np.uint8: [0, 255, 0, 255, 0, 44, 0, 0, 3, 0, 255, 255, 255, 255, 0, 0],
    np.int16: [0, 32767, -32768, 32767, -32768, 300, -300, -1, 3, -3, 32767, 32767, 32767, 32767, -32768, 0],
    np.uint16: [0, 65535, 0, 65535, 0, 300, 0, 0, 3, 0, 65535, 65535, 65535, 65535, 0, 0],
    np.int32: [0, 2**31 - 1, -(2**31), 2**31 - 1, -(2**31), 300, -300, -1, 3, -3, 65536, 2**31 - 1, 2**31 - 1,
               2**31 - 1, -(2**31), 0],
    np.uint32: [0, 2**32 - 1, 0, 2**32 - 1, 0, 300, 0, 0, 3, 0, 65536, 2**31, 2**32 - 1, 2**32 - 1, 0, 0],
    np.int64: [-(2**63), 2**63 - 1, -(2**63), 10**10, -(10**10), 300, -300, -1, 3, -3, 65536, 2**31, 2**63 - 1,
               2**63 - 1, -(2**63), 0],
    np.uint64: [2**63, 2**64 - 1, 0, 10**10, 0, 300, 0, 0, 3, 0, 65536, 2**31, 2**63, 2**64 - 1, 0, 0],
}  # fmt: skip


def test_float_to_integer_conversions_saturate_as_on_nvidia_gpus(target):
    x = np.array(_SPECIAL_FLOATS, np.float32)
    outs = [np.zeros(len(x), t) for t in _NVIDIA_RESULTS]
    float_to_integers[(1,)](x, *outs, N=len(x))
    for out, (t, expected) in zip(outs, _NVIDIA_RESULTS.items()):
        np.testing.assert_array_equal(out, np.array(expected, dtype=t), err_msg=t.__name__)


@pytest.mark.gpu
@needs_gpu
def test_float_to_integer_conversions_on_gpu():
    """The NVIDIA GPU gives the table above (unsigned results land in signed buffers of their width,
    the same bits)."""
    import torch

    x = torch.tensor(_SPECIAL_FLOATS, dtype=torch.float32, device="cuda")
    widths = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    outs = [torch.zeros(len(x), dtype=widths[np.dtype(t).itemsize], device="cuda") for t in _NVIDIA_RESULTS]
    float_to_integers[(1,)](x, *outs, N=len(x))
    for out, (t, expected) in zip(outs, _NVIDIA_RESULTS.items()):
        np.testing.assert_array_equal(
            out.cpu().numpy().view(t), np.array(expected, dtype=t), err_msg=t.__name__
        )


def _cvt_rzi(value: float, width: int, signed: bool, from_f64: bool) -> int:
    """PTX cvt.rzi's result for an integer of `width` bits (16 for 8-bit ones, then wrapped), as an
    H200 gives it: NaN is 0, except from float64 or into 64 bits (the sign bit alone)."""
    bits = max(width, 16)
    low, high = (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1) if signed else (0, 2**bits - 1)
    nan = (-(2 ** (bits - 1)) if signed else 2 ** (bits - 1)) if from_f64 or bits == 64 else 0
    v = nan if np.isnan(value) else (high if value >= high else low if value <= low else int(np.trunc(value)))
    v &= (1 << width) - 1
    return v - (1 << width) if signed and v >= 1 << (width - 1) else v


def _special_sources(source) -> np.ndarray:
    big = 1e300 if source is np.float64 else 65504
    with np.errstate(over="ignore"):
        return np.array([np.nan, np.inf, -np.inf, big, -big, 32767, 32768, 65535, -32769, 300.7, -1.5, 2.0**40,
                         -(2.0**40), 2.0**63, 1e19, 0.5], np.float64).astype(source)  # fmt: skip


def _expected_conversions(x: np.ndarray) -> list:
    """Per integer type of _NVIDIA_RESULTS: cvt.rzi's results for the floats `x`, as that type."""
    expected = []
    for t in _NVIDIA_RESULTS:
        width, signed = np.dtype(t).itemsize * 8, np.issubdtype(t, np.signedinteger)
        values = [_cvt_rzi(float(v), width, signed, x.dtype == np.float64) for v in x]
        expected.append(np.array(values, dtype=np.int64 if signed else np.uint64).astype(t))
    return expected


@pytest.mark.parametrize("source", [np.float16, np.float64])
def test_float16_and_float64_to_integers_saturate_too(target, source):
    """float16 (whose bounds, e.g. 32767, are no float16 values) and float64 sources."""
    x = _special_sources(source)
    outs = [np.zeros(len(x), t) for t in _NVIDIA_RESULTS]
    float_to_integers[(1,)](x, *outs, N=len(x))
    for out, expected in zip(outs, _expected_conversions(x)):
        np.testing.assert_array_equal(out, expected)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("source", [np.float16, np.float64])
def test_float16_and_float64_to_integers_on_gpu(source):
    import torch

    x = _special_sources(source)
    widths = {1: torch.int8, 2: torch.int16, 4: torch.int32, 8: torch.int64}
    outs = [torch.zeros(len(x), dtype=widths[np.dtype(t).itemsize], device="cuda") for t in _NVIDIA_RESULTS]
    float_to_integers[(1,)](torch.from_numpy(x).cuda(), *outs, N=len(x))
    for out, t, expected in zip(outs, _NVIDIA_RESULTS, _expected_conversions(x)):
        np.testing.assert_array_equal(out.cpu().numpy().view(t), expected, err_msg=t.__name__)
