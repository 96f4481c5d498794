"""A CPU kernel's memory fault is a Python error, not the end of the process (fault_guard.py): the
kernel's library enters through a guarded wrapper that the signal handler jumps back to."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.targets.cpu import fault_guard

pytestmark = pytest.mark.skipif(not fault_guard.supported(), reason="the guard needs Linux with glibc")


@tilec.jit
def reach(x_ptr, out_ptr, far, n, FAR_PROGRAM: tl.constexpr):
    """A copy in which one program's lane 0 reads `far` elements away."""
    i = tl.program_id(0) * 16 + tl.arange(0, 16)
    offset = tl.where((tl.program_id(0) == FAR_PROGRAM) & (tl.arange(0, 16) == 0), far, 0)
    tl.store(out_ptr + i, tl.load(x_ptr + i + offset, mask=i < n), mask=i < n)


@pytest.mark.parametrize("programs", [1, 4096])  # one thread, and the launch split across threads
def test_a_wild_read_raises_and_the_process_goes_on(monkeypatch, programs):
    monkeypatch.setenv("TILEC_TARGET", "cpu")
    n = programs * 16
    x, out = np.arange(n, dtype=np.float32), np.zeros(n, np.float32)
    for _ in range(3):  # the handler keeps working after a fault
        with pytest.raises(
            tilec.InterpreterError, match=r"kernel 'reach' accessed memory it may not \(SIGSEGV at"
        ):
            reach[(programs,)](x, out, 1 << 44, n, FAR_PROGRAM=programs - 1)
    reach[(programs,)](x, out, 1 << 44, n, FAR_PROGRAM=programs)  # no program that far: no fault
    np.testing.assert_array_equal(out, x)
    compiled = reach.warmup(x, out, 0, n, FAR_PROGRAM=0, grid=(1,))
    assert f"define void @reach{fault_guard.SUFFIX}(" in compiled.asm["llir"]


def test_a_fault_outside_kernels_still_ends_the_process(tmp_path):
    """The handler passes faults it did not guard to the action before it: here the default, so a
    crash elsewhere in the process stays a crash (after a kernel ran and loaded the guard)."""
    script = tmp_path / "crash.py"
    script.write_text(
        textwrap.dedent(
            """
            import ctypes, os, numpy as np, tilec, tilec.language as tl
            os.environ["TILEC_TARGET"] = "cpu"

            @tilec.jit
            def copy(x_ptr, y_ptr):
                tl.store(y_ptr + tl.arange(0, 8), tl.load(x_ptr + tl.arange(0, 8)))

            x = np.ones(8, np.float32)
            copy[(1,)](x, x)
            print("kernel ran", flush=True)
            ctypes.string_at(0)
            """
        )
    )
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert "kernel ran" in done.stdout
    assert done.returncode == -11, done.stderr[-2000:]
