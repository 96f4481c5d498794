"""tl.device_print and tl.device_assert on the interpreter and compiled for the CPU."""

import re

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def printing(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_print("x: ", x)
    tl.device_print("i: ", tl.arange(0, BLOCK) * 2, hex=True)
    tl.device_print("y", x + 1)  # Triton's shape of a prefix: "y" prints as "y: "


@tilec.jit(debug=True)
def checking(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_assert(x >= 0, "x must be non-negative")


def test_device_print(target, capfd):
    printing[(2,)](np.arange(4, dtype=np.float32), BLOCK=4)
    lines = sorted(capfd.readouterr().out.splitlines())
    assert len(lines) == 24
    assert "pid (1, 0, 0) idx (3,) x: 3.0" in lines
    assert "pid (1, 0, 0) idx (3,) y: 4.0" in lines
    assert "pid (0, 0, 0) idx (2,) i: 0x4" in lines


def test_device_assert(target):
    checking[(1,)](np.ones(8, np.float32), BLOCK=8)
    bad = np.ones(8, np.float32)
    bad[3] = -2
    with pytest.raises(tilec.InterpreterError, match="x must be non-negative") as info:
        checking[(1,)](bad, BLOCK=8)
    # the location first, as in compile errors, on both targets
    assert re.match(r"\S*test_debug_ops.py:\d+:\d+: device assertion failed", str(info.value)), str(
        info.value
    )


@tilec.jit
def checking_when_debugging(x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.device_assert(x >= 0, "x must be non-negative")


def test_debug_per_launch(monkeypatch):
    """Triton's `debug=True` launch keyword turns device assertions on for that launch (CPU target:
    off by default, so the bad input passes unchecked without it)."""
    monkeypatch.delenv("TILEC_INTERPRET", raising=False)
    monkeypatch.delenv("TILEC_DEBUG", raising=False)
    monkeypatch.setenv("TILEC_TARGET", "cpu")
    bad = np.ones(8, np.float32)
    bad[5] = -1
    checking_when_debugging[(1,)](bad, BLOCK=8)
    with pytest.raises(tilec.InterpreterError, match="x must be non-negative"):
        checking_when_debugging[(1,)](bad, BLOCK=8, debug=True)
    checking_when_debugging[(1,)](bad, BLOCK=8, debug=False)


@tilec.jit
def _checked_add(a, b):
    wide = a.to(tl.int64) + b.to(tl.int64)
    tl.device_assert((wide >= -(2**31)) & (wide <= 2**31 - 1), "int32 overflow")
    return a + b


@tilec.jit(debug=True)
def checked_sums(z_ptr, scan_ptr, x_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    tl.store(z_ptr, tl.reduce(x, 0, _checked_add))
    tl.store(scan_ptr + tl.arange(0, BLOCK), tl.associative_scan(x, 0, _checked_add))


def test_device_assert_inside_a_combine_function(target):
    x = np.zeros(512, np.int32)
    x[:300] = 32
    z, scan = np.zeros(1, np.int32), np.zeros(512, np.int32)
    checked_sums[(1,)](z, scan, x, BLOCK=512)  # Triton's side-effectful reduction and scan
    assert z[0] == x.sum()
    np.testing.assert_array_equal(scan, np.cumsum(x))
    with pytest.raises(tilec.InterpreterError, match="int32 overflow"):
        checked_sums[(1,)](z, scan, np.full(512, 2**30, np.int32), BLOCK=512)


def test_device_assert_inside_a_combine_function_on_nvidia():
    x = np.zeros(512, np.int32)
    compiled = checked_sums.warmup(np.zeros(1, np.int32), x, x, BLOCK=512, grid=(1,), target="sm_90a")
    assert "__assertfail" in compiled.asm["ptx"]


@tilec.jit
def python_print(x_ptr, N: tl.constexpr):
    values = tl.load(x_ptr + tl.arange(0, N))
    print("values", values)  # Python's print is tl.device_print, as in Triton
    for i in range(2):
        print("step", N, i)


def test_python_print_is_device_print(target, capfd):
    python_print[(1,)](np.array([5.0, 7.0], np.float32), 2)
    out = capfd.readouterr().out
    assert "pid (0, 0, 0) idx (0,) values: 5.0" in out and "idx (1,) values: 7.0" in out
    assert "idx () step 2: 0" in out and "idx () step 2: 1" in out
