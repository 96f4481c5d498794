"""A CPU launch stays under the user's control: Ctrl-C interrupts a long one, a grid the GPU targets
refuse is refused here too, and the fault guard works where nothing can be written to disk."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.targets.cpu import fault_guard

SPIN = """
import os, sys, time, numpy as np, tilec, tilec.language as tl
os.environ["TILEC_TARGET"] = "cpu"

@tilec.jit
def spin(x_ptr, n):
    acc = tl.zeros([16], dtype=tl.float32) + tl.program_id(1)
    for i in range(n):
        acc = acc * 0.999 + 1.0
    tl.atomic_add(x_ptr + tl.arange(0, 16), acc)

x = np.zeros(16, np.float32)
spin[(1,)](x, 1)
print("ready", flush=True)
start = time.perf_counter()
try:
    spin[(int(sys.argv[1]), 65535)](x, 10**6)  # hours of work
    print("finished", flush=True)
except KeyboardInterrupt:
    print(f"interrupted after {time.perf_counter() - start:.2f} s", flush=True)
x[:] = 0
spin[(4,)](x, 10)
print("then", float(x[0]), flush=True)
"""


@pytest.mark.parametrize("programs", [1, 64])  # on the calling thread, and spread over the pool
def test_ctrl_c_interrupts_a_running_kernel(tmp_path, programs):
    script = tmp_path / "spin.py"
    script.write_text(SPIN)
    child = subprocess.Popen(
        [sys.executable, str(script), str(programs)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout.readline().strip() == "ready", child.stderr.read()
        time.sleep(1.0)
        sent = time.perf_counter()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert time.perf_counter() - sent < 10
    assert out.startswith("interrupted after"), err[-2000:]
    then = 4 * sum(0.999**k for k in range(10))  # the next launch runs whole
    last = out.splitlines()[-1]
    assert last.startswith("then ") and float(last[5:]) == pytest.approx(then, rel=1e-5), out


@tilec.jit
def mark(x_ptr):
    tl.store(x_ptr + tl.program_id(1), 1.0)


def test_a_grid_past_the_gpu_limits_is_refused(monkeypatch):
    monkeypatch.setenv("TILEC_TARGET", "cpu")
    x = np.zeros(70000, np.float32)
    with pytest.raises(
        ValueError, match=r"mark: grid \(1, 70000, 1\): a grid may have at most 65535 programs"
    ):
        mark[(1, 70000)](x)
    with pytest.raises(ValueError, match=r"grid \(1, 1073741824, 1073741824\)"):
        mark[(1, 2**30, 2**30)](x)
    mark[(1, 65535)](x)
    assert x[:65535].all() and not x[65535:].any()


UNWRITABLE = """
import os, tempfile, numpy as np, tilec, tilec.language as tl
os.environ["TILEC_TARGET"] = "cpu"

def full_disk(*args, **kwargs):
    raise OSError(28, "No space left on device")

tempfile.mkstemp = full_disk  # no temporary file can be written either

@tilec.jit
def reach(x_ptr, far):
    tl.store(x_ptr + tl.arange(0, 16), tl.load(x_ptr + tl.arange(0, 16) + far))

x = np.ones(16, np.float32)
reach[(1,)](x, 0)
try:
    reach[(1,)](x, 1 << 44)
except tilec.InterpreterError as e:
    print("guarded:", str(e).split(" (")[0])
print("alive")
"""


@pytest.mark.skipif(not fault_guard.supported(), reason="the guard needs Linux with glibc")
def test_the_fault_guard_works_with_an_unwritable_cache_and_a_full_disk(tmp_path):
    script = tmp_path / "unwritable.py"
    script.write_text(UNWRITABLE)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    env = dict(os.environ, TILEC_CACHE_DIR=str(blocker / "cache"))  # under a file: cannot be made
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == [
        "guarded: kernel 'reach' accessed memory it may not",
        "alive",
    ], done.stderr[-2000:]
