"""Debug builds check integer +, -, * for overflow, as Triton's do (its sanitize_overflow option)."""

import numpy as np
import pytest
from gpu_launch import device_assertion_output, needs_gpu

import tilec
import tilec.language as tl
from tilec import InterpreterError


@tilec.jit
def scaled(x_ptr, out_ptr, n, OP: tl.constexpr, EXEMPT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    n = n.to(x.dtype)  # (an int32 argument would widen int8/int16 operands)
    if EXEMPT:
        y = tl.mul(x, n, sanitize_overflow=False)
    elif OP == "mul":
        y = x * n
    elif OP == "add":
        y = x + n
    else:
        y = x - n
    tl.store(out_ptr + offs, y)


def _run(x, n, op="mul", exempt=False, **options):
    out = np.zeros_like(x)
    scaled[(1,)](x, out, n, OP=op, EXEMPT=exempt, BLOCK=len(x), **options)
    return out


@pytest.mark.parametrize(
    "dtype, n, op",
    [
        (np.int32, 4, "mul"),  # 2**30 * 4
        (np.int32, 2**31 - 1, "add"),
        (np.int16, 2**14, "sub"),  # -2**15 - 2**14 after the first element
        (np.uint32, 5, "sub"),  # below zero
        (np.uint8, 100, "mul"),
    ],
)
def test_overflow_is_reported_where_it_happens_in_debug_builds(target, dtype, n, op):
    info = np.iinfo(dtype)
    x = np.array([1, 2, 3, info.max if op != "sub" else info.min], dtype)
    with pytest.raises(
        InterpreterError, match=rf"{np.dtype(dtype).name} overflow detected for operation {op}"
    ):
        _run(x, n, op, debug=True)
    with pytest.raises(InterpreterError, match=r"test_overflow_checks.py:\d+"):  # the line of the `*`
        _run(x, n, op, debug=True)


def test_without_debug_or_when_exempted_integers_wrap(target):
    x = np.array([1, 2, 3, 2**30], np.int32)
    wrapped = (x.astype(np.int64) * 4).astype(np.int32)
    np.testing.assert_array_equal(_run(x, 4, debug=False), wrapped)  # the interpreter's default too
    np.testing.assert_array_equal(_run(x, 4, debug=True, sanitize_overflow=False), wrapped)
    np.testing.assert_array_equal(_run(x, 4, exempt=True, debug=True), wrapped)  # tl.mul(..., False)
    if target == "interpreter":  # asserts are on by default there, overflow checks only when asked
        np.testing.assert_array_equal(_run(x, 4), wrapped)


def test_tilec_debug_set_between_launches_takes_effect(target, monkeypatch):
    x = np.array([1, 2, 3, 2**30], np.int32)
    monkeypatch.delenv("TILEC_DEBUG", raising=False)
    _run(x, 4)  # compiled without checks
    monkeypatch.setenv("TILEC_DEBUG", "1")
    with pytest.raises(InterpreterError, match="int32 overflow detected for operation mul"):
        _run(x, 4)  # not the kernel launched before: TILEC_DEBUG is part of the launch's key


def test_results_that_fit_and_wide_or_float_types_are_not_reported(target):
    x = np.array([-3, 0, 7, 2**15], np.int32)
    np.testing.assert_array_equal(_run(x, -(2**15), debug=True), x * -(2**15))  # down to -2**31 exactly
    big = np.array([1, 2, 3, 2**62], np.int64)  # int64 has nothing wider to check against (as Triton)
    np.testing.assert_array_equal(_run(big, 4, debug=True), big * 4)
    f = np.array([1, 2, 3, 3e38], np.float32)
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(_run(f, 4.0, debug=True), f * np.float32(4))


def test_overflow_checks_compile_for_gpus():
    """The checks are device assertions on NVIDIA (assembled by ptxas); AMD, which has none yet,
    compiles its debug builds without them rather than failing."""
    signature = {"x_ptr": "*i32", "out_ptr": "*i32", "n": "i32"}
    constants = {"OP": "mul", "EXEMPT": False, "BLOCK": 4}
    hopper = tilec.compile(scaled, signature, constants, target="sm_90a", debug=True)
    assert "int32 overflow detected for operation mul" in hopper.asm["tile"]
    assert "__assertfail" in hopper.asm["ptx"]
    amd = tilec.compile(scaled, signature, constants, target="gfx942", debug=True)
    assert "overflow detected" not in amd.asm["tile"] and "amdgcn" in amd.asm


OVERFLOW_ON_GPU = """
import numpy as np
import torch
import tilec
import tilec.language as tl


@tilec.jit
def offsets(out_ptr, stride):
    row = tl.program_id(0)
    tl.store(out_ptr + row * 0 + tl.arange(0, 4), (row * stride + tl.arange(0, 4)).to(tl.int64))


out = torch.zeros(4, dtype=torch.int64, device="cuda")
offsets[(3,)](out, 2**30, debug=True)  # rows 0..2: 2 * 2**30 overflows int32
"""


@pytest.mark.gpu
@needs_gpu
def test_overflow_is_a_device_assertion_on_gpu(tmp_path):
    out = device_assertion_output(tmp_path, "overflow.py", OVERFLOW_ON_GPU)
    assert "int32 overflow detected for operation mul" in out, out[-3000:]


def test_sanitize_overflow_must_be_a_bool():
    x = np.zeros(4, np.int32)
    with pytest.raises(TypeError, match="sanitize_overflow must be True or False"):
        _run(x, 1, sanitize_overflow="yes")
