"""The GPU lowering's float32 math (convert_tile_to_gpu's `MATH` table: log, log2, sin, cos, erf) run on
this machine: each lowering is built into a one-argument function, compiled by MLIR's execution
engine and compared with Python's float64 math in units of the f32 result's last place. The
hardware's approximate exp2 (inside erf) is LLVM's generic exp2 here. The same code runs on the
GPUs (test_nvidia's suite cases check it there)."""

from __future__ import annotations

import ctypes
import math

import numpy as np
import pytest
from mlir import execution_engine, ir, passmanager
from mlir.dialects import func

from tilec.passes.convert_tile_to_gpu import math_intrinsics
from tilec.passes.gpu_vendor import Vendor


class HostVendor(Vendor):
    """The host's LLVM as a GPU vendor: its generic exp2 stands in for the hardware's."""

    name = "host"

    def approx_exp2(self, x):
        from mlir.dialects import llvm

        return llvm.CallIntrinsicOp(x.type, ir.StringAttr.get("llvm.exp2.f32"), [x], [], []).results[0]


@pytest.fixture(scope="module")
def lowered():
    """name -> a Python callable running that lowering on one f32."""
    return {name: _compile(name, lower) for name, lower in
            ((name, math_intrinsics.MATH["math." + name]) for name in ("log", "log2", "sin", "cos", "erf"))}  # fmt: skip


def _compile(name, lower):
    ctx = ir.Context()
    with ctx, ir.Location.unknown():
        module = ir.Module.create()
        f32 = ir.F32Type.get()
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(name, ir.FunctionType.get([f32], [f32]))
            fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            entry = fn.add_entry_block()
            with ir.InsertionPoint(entry):
                func.ReturnOp([lower(HostVendor(), [entry.arguments[0]], f32)])
        passmanager.PassManager.parse(
            "builtin.module(convert-scf-to-cf,convert-func-to-llvm,convert-arith-to-llvm,"
            "convert-cf-to-llvm,reconcile-unrealized-casts)"
        ).run(module.operation)
        engine = execution_engine.ExecutionEngine(module, opt_level=2)

    def call(x: float) -> float:
        arg, result = ctypes.c_float(x), ctypes.c_float()
        engine.invoke(name, ctypes.pointer(arg), ctypes.pointer(result))
        return result.value

    call.keep_alive = (ctx, module, engine)
    return call


def _worst_ulp(fn, exact, xs) -> tuple[float, float]:
    """(largest error in ulp of the f32 result, where), over the f32 values of xs."""
    worst = (0.0, 0.0)
    for x in np.unique(np.asarray(xs, np.float32)).astype(np.float64):
        want, got = exact(x), fn(x)
        if math.isnan(want) or math.isinf(want):
            assert got == want or (math.isnan(got) and math.isnan(want)), (x, got, want)
            continue
        ulp = float(np.spacing(np.float32(abs(want)))) or 2.0**-149
        worst = max(worst, (abs(got - want) / ulp, x))
    return worst


def _log(x):
    return -math.inf if x == 0 else math.nan if x < 0 else math.log(x)


def _log2(x):
    return -math.inf if x == 0 else math.nan if x < 0 else math.log2(x)


RNG = np.random.default_rng(0)
POSITIVE = np.concatenate([
    np.geomspace(1e-45, 3.4e38, 1500), 1 + np.geomspace(1e-7, 0.5, 500), 1 - np.geomspace(6e-8, 0.5, 500),
    [0.0, -0.0, -1.0, math.inf, -math.inf, math.nan],
])  # fmt: skip
ANGLES = np.concatenate([
    RNG.uniform(-10, 10, 800), np.arange(1, 400) * math.pi / 2, RNG.uniform(-1e6, 1e6, 300),
    np.geomspace(1e-30, 3.4e38, 800), -np.geomspace(1e-30, 3.4e38, 300), [0.0, -0.0, math.inf, -math.inf, math.nan],
])  # fmt: skip


@pytest.mark.parametrize("name, exact", [("log", _log), ("log2", _log2)])
def test_logarithms_within_an_ulp(lowered, name, exact):
    """Denormals, next to 1 (where lg2.approx was 1e7 ulp off), up to the largest f32; log's special
    values."""
    assert _worst_ulp(lowered[name], exact, POSITIVE)[0] <= 0.51


@pytest.mark.parametrize("name, exact", [("sin", math.sin), ("cos", math.cos)])
def test_sine_and_cosine_within_an_ulp(lowered, name, exact):
    """Next to multiples of pi/2, rotary-embedding angles, and up to the largest f32 (2^50 and
    beyond through 2/pi's bits); infinities give NaN."""
    exact_or_nan = lambda x: math.nan if math.isinf(x) else exact(x)  # noqa: E731
    assert _worst_ulp(lowered[name], exact_or_nan, ANGLES)[0] <= 0.51


def test_sine_keeps_the_sign_of_zero(lowered):
    assert math.copysign(1.0, lowered["sin"](-0.0)) == -1.0
    assert lowered["cos"](-0.0) == 1.0


def test_erf_within_its_bound(lowered):
    """2.2 ulp of erf itself from 1e-40 (A&S 7.1.26, used first, returned 0 there) to 10; erf(+-inf) =
    +-1, NaN stays NaN."""
    xs = np.concatenate(
        [np.geomspace(1e-40, 10, 1500), -np.geomspace(1e-40, 10, 500), RNG.uniform(-5, 5, 500)]
    )
    assert _worst_ulp(lowered["erf"], math.erf, xs)[0] <= 2.2
    assert lowered["erf"](math.inf) == 1.0 and lowered["erf"](-math.inf) == -1.0
    assert math.isnan(lowered["erf"](math.nan))


def test_two_over_pi_chunks():
    """The 24-bit chunks of 2/pi that reduce huge arguments, from pi by Machin's formula."""
    bits = 24 * len(math_intrinsics.TWO_OVER_PI_CHUNKS)
    scale = 1 << (bits + 64)

    def arctan_inverse(n):  # arctan(1/n) * scale
        total, term, k, sign = 0, scale // n, 1, 1
        while term:
            total, term, k, sign = total + sign * (term // k), term // (n * n), k + 2, -sign
        return total

    pi = 4 * (4 * arctan_inverse(5) - arctan_inverse(239))
    two_over_pi = (2 * scale << bits) // pi
    chunks = [
        (two_over_pi >> (bits - 24 * (i + 1))) & 0xFFFFFF
        for i in range(len(math_intrinsics.TWO_OVER_PI_CHUNKS))
    ]
    assert tuple(chunks) == math_intrinsics.TWO_OVER_PI_CHUNKS
