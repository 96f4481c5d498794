"""The kernel suite through the NumPy interpreter (TILEC_INTERPRET=1), checked against NumPy."""

import numpy as np
import pytest
from suite import CASES, check

import tilec
import tilec.language as tl
from tilec.errors import InterpreterError


@pytest.fixture
def interpret(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")

    def launch(kernel, grid, *args, **constexprs):
        kernel[grid](*args, **constexprs)

    return launch


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_suite_interpreted(case, interpret):
    rng = np.random.default_rng(0)
    check(case.run(interpret, rng), case.name)


def test_suite_is_large_enough():
    assert len(CASES) >= 25


@tilec.jit
def scale_each(table, sizes, factor, BLOCK: tl.constexpr):
    """Program g doubles array g of a table of addresses (Triton's grouped GEMM reads its operands
    so): pointers made from integers, to arrays the kernel is not passed."""
    g = tl.program_id(0)
    ptr = tl.load(table + g).to(tl.pointer_type(tl.float32))
    n = tl.load(sizes + g)
    offs = tl.arange(0, BLOCK)
    x = tl.load(ptr + offs, mask=offs < n, other=0.0)
    tl.store(ptr + offs, x * factor, mask=offs < n)


@pytest.mark.parametrize("mode", ["interpreter", "cpu"])
def test_pointers_made_from_integers(mode, monkeypatch):
    monkeypatch.setenv(
        "TILEC_INTERPRET" if mode == "interpreter" else "TILEC_TARGET",
        "1" if mode == "interpreter" else "cpu",
    )
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(n).astype(np.float32) for n in (5, 64, 33)]
    before = [a.copy() for a in arrays]
    table = np.array([a.ctypes.data for a in arrays], np.int64)
    sizes = np.array([a.size for a in arrays], np.int32)
    scale_each[(3,)](table, sizes, 2.0, BLOCK=64)
    for a, b in zip(arrays, before):
        np.testing.assert_array_equal(a, 2 * b)


def test_pointer_from_a_bad_integer_is_an_error(interpret):
    """An address in no memory of the process is reported with the kernel's line, not a crash."""
    table = np.array([16], np.int64)
    with pytest.raises(InterpreterError, match=r"test_interpreter\.py:\d+.*out-of-bounds load .* 0x10"):
        scale_each[(1,)](table, np.array([4], np.int32), 2.0, BLOCK=64)
