"""Debug mode on the CPU target checks every memory access against the arrays passed to the kernel
(tile-cpu-check-bounds): an access outside them is skipped and reported with the kernel's line, as
the interpreter reports it, instead of corrupting the heap or ending the process."""

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.errors import InterpreterError


def _line(text: str) -> str:
    """`test_cpu_bounds.py:N:` for the line of this file that holds `text`."""
    with open(__file__) as f:
        number = next(i for i, line in enumerate(f, 1) if text in line and "_line(" not in line)
    return rf"test_cpu_bounds.py:{number}:\d+: "


@tilec.jit
def doubled(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n + 1)  # one past the end: the mask is off by one
    tl.store(out_ptr + offs, x * 2, mask=offs < n + 1)


def test_reads_past_the_end_are_reported_at_the_line(target):
    x = np.arange(10, dtype=np.float32)
    out = np.zeros(10, np.float32)
    with pytest.raises(InterpreterError, match=_line("mask is off by one") + "out-of-bounds load of 4 byte"):
        doubled[(1,)](x, out, 10, BLOCK=16, debug=True)


def test_a_store_past_the_end_is_skipped_and_reported():
    x = np.arange(11, dtype=np.float32)
    memory = np.full(16, -1.0, np.float32)
    out = memory[:10]  # the kernel may write 10 elements; memory[10] lies right behind them
    with pytest.raises(InterpreterError, match=_line("x * 2, mask") + "out-of-bounds store of 4 byte"):
        doubled[(1,)](x, out, 10, BLOCK=16, debug=True)
    assert memory[10] == -1.0  # not written
    np.testing.assert_array_equal(out, np.arange(10) * 2)  # the accesses inside went ahead


@tilec.jit
def gathered(x_ptr, idx_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + tl.load(idx_ptr + offs)))


def test_far_away_addresses_do_not_crash_the_process():
    x = np.arange(8, dtype=np.float32)
    index = np.array([0, 1, 2, 3, 4, 5, 6, 1 << 40], np.int64)
    with pytest.raises(InterpreterError, match="out-of-bounds load"):
        gathered[(1,)](x, index, np.zeros(8, np.float32), BLOCK=8, debug=True)


@tilec.jit
def transposed_copy(x_ptr, out_ptr, stride_r, stride_c, R: tl.constexpr, C: tl.constexpr):
    r, c = tl.arange(0, R)[:, None], tl.arange(0, C)[None, :]
    tl.store(out_ptr + r * C + c, tl.load(x_ptr + r * stride_r + c * stride_c))


@pytest.mark.parametrize("view", ["transposed", "reversed rows", "every other column"])
def test_views_are_checked_by_the_memory_they_span(view):
    """Strided, transposed and negatively strided views pass: their range is what their strides
    reach, not their first element's address onwards."""
    base = np.arange(64, dtype=np.float32).reshape(8, 8)
    x = {"transposed": base.T, "reversed rows": base[::-1], "every other column": base[:, ::2]}[view]
    out = np.zeros(x.shape, np.float32)
    s = x.strides
    transposed_copy[(1,)](x, out, s[0] // 4, s[1] // 4, R=x.shape[0], C=x.shape[1], debug=True)
    np.testing.assert_array_equal(out, x)


@tilec.jit
def counted(counter_ptr, flags_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.atomic_add(counter_ptr + offs % 2, 1, mask=offs < n)
    tl.atomic_cas(flags_ptr + offs, 0, 1)


def test_atomics_past_the_end_are_skipped_and_reported():
    memory = np.zeros(32, np.int32)
    counters, flags = memory[:2], memory[8:16]
    with pytest.raises(InterpreterError, match=_line("atomic_cas(flags") + "out-of-bounds atomic operation"):
        counted[(1,)](counters, flags, 16, BLOCK=16, debug=True)
    assert list(counters) == [8, 8]
    assert list(flags) == [1] * 8 and not memory[2:8].any() and not memory[16:].any()


@tilec.jit
def through_a_table(table_ptr, out_ptr, BLOCK: tl.constexpr):
    """Reads the array whose address the table holds (pointers made from integers: not checked)."""
    source = tl.load(table_ptr).to(tl.pointer_type(tl.float32))
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(source + offs))


def test_pointers_made_from_integers_are_not_checked():
    hidden = np.arange(8, dtype=np.float32)
    table = np.array([hidden.ctypes.data], np.int64)
    out = np.zeros(8, np.float32)
    through_a_table[(1,)](table, out, BLOCK=8, debug=True)
    np.testing.assert_array_equal(out, hidden)


def test_only_debug_mode_checks():
    x, out = np.arange(16, dtype=np.float32), np.zeros(16, np.float32)
    plain = doubled[(1,)](x, out, 15, BLOCK=16)
    checked = doubled[(1,)](x, out, 15, BLOCK=16, debug=True)
    assert "tile-cpu-check-bounds" not in str(plain.asm.get("linalg", "")) and "out-of-bounds" not in str(
        plain.asm["linalg"]
    )
    assert "out-of-bounds" in str(checked.asm["linalg"])
    np.testing.assert_array_equal(out, x * 2)
