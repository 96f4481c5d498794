"""`tilec.language.extra.libdevice` (Triton's `triton.language.extra[.cuda].libdevice` names): each
function against NumPy on the CPU target and the interpreter, special values included, and on a GPU;
a function tilec does not provide is a compile error naming it."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl
from tilec.language.extra import libdevice
from tilec.language.extra.cuda import libdevice as cuda_libdevice


@tilec.jit
def functions(x_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    tl.store(out_ptr + 0 * N + i, libdevice.trunc(x))
    tl.store(out_ptr + 1 * N + i, libdevice.round(x))
    tl.store(out_ptr + 2 * N + i, libdevice.rint(x))
    tl.store(out_ptr + 3 * N + i, libdevice.isnan(x).to(tl.float32))
    tl.store(out_ptr + 4 * N + i, libdevice.isinf(x).to(tl.float32))
    tl.store(out_ptr + 5 * N + i, libdevice.signbit(x).to(tl.float32))
    tl.store(out_ptr + 6 * N + i, libdevice.log1p(x))
    tl.store(out_ptr + 7 * N + i, libdevice.expm1(x))
    tl.store(out_ptr + 8 * N + i, libdevice.log10(tl.abs(x)))
    tl.store(out_ptr + 9 * N + i, cuda_libdevice.copysign(2.0, x))
    tl.store(out_ptr + 10 * N + i, tl.extra.libdevice.finitef(x).to(tl.float32))
    tl.store(out_ptr + 11 * N + i, libdevice.tanh(x))
    tl.store(out_ptr + 12 * N + i, libdevice.fmax(x, 0.25))


X = np.array(
    [
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        0.49999997,
        1e-8,
        -1e-8,
        np.nan,
        np.inf,
        -np.inf,
        -0.0,
        3.7,
        -3.7,
        1e-3,
        20.0,
    ],
    np.float32,
)


def _expected(x):
    x64 = x.astype(np.float64)
    t = np.trunc(x)
    with np.errstate(all="ignore"):
        return [
            t, np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t), np.rint(x), np.isnan(x), np.isinf(x),
            np.signbit(x), np.log1p(x64), np.expm1(x64), np.log10(np.abs(x64)), np.copysign(2.0, x),
            np.isfinite(x), np.tanh(x64), np.fmax(x, 0.25),
        ]  # fmt: skip


NAMES = "trunc round rint isnan isinf signbit log1p expm1 log10 copysign finitef tanh fmax".split()


def _check(out):
    for name, got, want in zip(NAMES, out.reshape(len(NAMES), -1), _expected(X)):
        # exact ones exactly; the approximate units' a few ulp (log1p / expm1 near 0 included)
        rtol = 0 if name in ("trunc", "round", "rint", "copysign", "fmax") else 4e-6
        np.testing.assert_allclose(
            got, want.astype(np.float32), rtol=rtol, atol=0, equal_nan=True, err_msg=name
        )


def test_functions(target):
    out = np.zeros(len(NAMES) * 16, np.float32)
    functions[(1,)](X, out, N=16)
    _check(out)


@tilec.jit
def unknown_function(x_ptr, N: tl.constexpr):
    libdevice.j0(tl.load(x_ptr + tl.arange(0, N)))


def test_missing_function_is_named():
    with pytest.raises(tilec.CompilationError, match=r"libdevice.j0 is not available in tilec") as info:
        unknown_function[(1,)](np.zeros(8, np.float32), N=8)
    assert "test_libdevice.py" in str(info.value)


def test_gpu_code_calls_no_vendor_library():
    for target in ("sm_90a", "gfx942"):
        compiled = tilec.compile(functions, signature="*fp32,*fp32", constexprs={"N": 64}, target=target)
        code = compiled.asm.get("ptx", "") + compiled.asm.get("llir", "")
        assert "__nv_" not in code and "__ocml_" not in code


@pytest.mark.gpu
@needs_gpu
def test_functions_on_gpu():
    import torch

    out = torch.zeros(len(NAMES) * 16, device="cuda")
    functions[(1,)](torch.from_numpy(X).cuda(), out, N=16)
    _check(out.cpu().numpy())
