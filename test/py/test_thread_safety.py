"""Compiling and launching from many threads at once.

Every compile here is a real one (no disk cache, a new JITFunction per launch), so the front end's
and the passes' state is exercised from 16 threads at a time: the CPU target's results are checked
against NumPy, the GPU targets' code against the same kernel compiled on one thread.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from suite import CASES, check

import tilec
import tilec.language as tl
from tilec import CompilationError

THREADS = 16
# Cases that take seconds each on the CPU target (many kernels or large ones): left to test_cpu.py.
SLOW = {"casts_all_pairs", "matmul_tutorial_grouped"}
FAST_CASES = [c for c in CASES if c.name not in SLOW]


def _fresh(kernel: tilec.JITFunction) -> tilec.JITFunction:
    """The same kernel with an empty in-memory cache: launching it compiles."""
    return tilec.jit(kernel.fn, debug=kernel.debug, do_not_specialize=kernel.do_not_specialize)


@pytest.fixture
def no_disk_cache(monkeypatch):
    monkeypatch.delenv("TILEC_INTERPRET", raising=False)
    monkeypatch.setenv("TILEC_CACHE_DIR", "off")


def _run_all(jobs, threads=THREADS):
    """Runs the callables on `threads` threads at once; their results, in order (the first exception
    raised again)."""
    start = threading.Barrier(threads)

    def first(job):
        return job()

    def wait_then(job):
        try:
            start.wait(timeout=60)  # all threads begin together
        except threading.BrokenBarrierError:
            pass
        return job()

    with ThreadPoolExecutor(threads) as pool:
        heads = [pool.submit(wait_then, job) for job in jobs[:threads]]
        rest = [pool.submit(first, job) for job in jobs[threads:]]
        return [f.result() for f in heads + rest]


def test_cpu_suite_from_threads(no_disk_cache, monkeypatch):
    """Each kernel suite case three times, all on 16 threads at once, each launch compiling anew:
    every result right."""
    monkeypatch.setenv("TILEC_TARGET", "cpu")
    compiles = []

    def launch(kernel, grid, *args, **constexprs):
        compiles.append(kernel.__name__)
        _fresh(kernel)[grid](*args, **constexprs)

    def job(case, seed):
        return lambda: (case.name, case.run(launch, np.random.default_rng(seed)))

    results = _run_all([job(case, seed) for seed in range(3) for case in FAST_CASES])
    for name, checks in results:
        check(checks, name)
    assert len(compiles) >= 3 * len(FAST_CASES)


def _compile_case(case, target):
    kernels = []

    def launch(kernel, grid, *args, **constexprs):
        kernels.append(_fresh(kernel).warmup(*args, **constexprs, target=target))

    try:
        case.run(launch, np.random.default_rng(0))
    except AssertionError:
        pass  # nothing ran: only the code is compared
    return kernels


_CODE = {"sm_90a": "ptx", "gfx942": "amdgcn"}
ROUNDS = 4  # about 200 compiles per target


@pytest.mark.parametrize("target", ["sm_90a", "gfx942"])
def test_gpu_compiles_from_threads(no_disk_cache, target):
    """The kernel suite compiled for a GPU target on one thread, then again four times over on 16 threads
    at once, with builds of other settings mixed in (a debug build on NVIDIA, 8 warps on AMD, which
    has no device assertions): each kernel's code is the same."""
    if target == "gfx942":
        from tilec.targets.tools import ToolError, find_lld

        try:
            find_lld()
        except ToolError:
            pytest.skip("needs ld.lld (Debian lld-19 or ROCm)")
    stage = _CODE[target]
    cases = FAST_CASES
    expected = {c.name: [k.asm[stage] for k in _compile_case(c, target)] for c in cases}

    def job(case):
        return lambda: (case.name, [k.asm[stage] for k in _compile_case(case, target)])

    other = _debug_compile if target == "sm_90a" else _eight_warps_compile
    debug_jobs = [lambda: other(target) for _ in range(THREADS)]
    results = _run_all([job(c) for _ in range(ROUNDS) for c in cases] + debug_jobs)
    compiled = 0
    for name, code in results[: ROUNDS * len(cases)]:
        assert code == expected[name], f"{name}: the code compiled on a busy thread differs"
        compiled += len(code)
    assert compiled >= ROUNDS * len(cases)
    for debug_code in results[ROUNDS * len(cases) :]:
        assert debug_code == results[-1]


@tilec.jit
def _checked_sum(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0)
    tl.device_assert(x >= 0, "negative input")
    tl.store(out_ptr, tl.sum(x * x, axis=0))


def _debug_compile(target):
    """A debug build (assertions and overflow checks in the code) compiled while other threads
    compile release builds: what one thread turns on must not leak into the others."""
    x = np.zeros(64, np.int32)
    return _fresh(_checked_sum).warmup(x, x, 64, BLOCK=64, target=target, debug=True).asm[_CODE[target]]


def _eight_warps_compile(target):
    x = np.zeros(1024, np.float32)
    return _fresh(_scale).warmup(x, x, 1.0, BLOCK=1024, target=target, num_warps=8).asm[_CODE[target]]


def test_one_kernel_launched_from_threads(no_disk_cache, monkeypatch):
    """One new kernel launched from 16 threads at once, with three specializations: its first
    compiles race, and every launch still runs the right code."""
    monkeypatch.setenv("TILEC_TARGET", "cpu")
    kernel = _fresh(_scale)

    def job(i):
        def run():
            block = (32, 64, 128)[i % 3]
            x = np.arange(block, dtype=np.float32) + i
            out = np.empty_like(x)
            kernel[(1,)](x, out, float(i), BLOCK=block)
            return np.array_equal(out, x * i)

        return run

    assert all(_run_all([job(i) for i in range(96)]))


@tilec.jit
def _scale(x_ptr, out_ptr, factor, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) * factor)


def test_compile_errors_from_threads(no_disk_cache):
    """Errors are per compile too: a kernel with a mistake, compiled on many threads beside correct
    ones, fails with its own message and line on each, and the correct ones compile."""

    def broken():
        try:
            _fresh(_undefined_name).warmup(np.zeros(4, np.float32), target="cpu")
        except CompilationError as e:
            return str(e)
        return "compiled"

    def fine():
        x = np.zeros(32, np.float32)
        return _fresh(_scale).warmup(x, x, 1.0, BLOCK=32, target="cpu").name

    results = _run_all([broken if i % 2 else fine for i in range(64)])
    for i, r in enumerate(results):
        if i % 2:
            assert "not_defined_anywhere" in r and "test_thread_safety.py" in r, r
        else:
            assert r == "_scale"


@tilec.jit
def _undefined_name(x_ptr):
    tl.store(x_ptr, not_defined_anywhere)  # noqa: F821


def test_nvidia_and_amd_compiles_at_once(no_disk_cache):
    """Compiles for both vendors interleaved on 16 threads: the GPU lowering's vendor choice (exp2,
    division, program counts) is per compile, not shared between threads."""
    from tilec.targets.tools import ToolError, find_lld

    try:
        find_lld()
    except ToolError:
        pytest.skip("needs ld.lld (Debian lld-19 or ROCm)")
    targets = list(_CODE)
    expected = {
        (c.name, t): [k.asm[_CODE[t]] for k in _compile_case(c, t)] for c in FAST_CASES for t in targets
    }

    def job(case, target):
        return lambda: ((case.name, target), [k.asm[_CODE[target]] for k in _compile_case(case, target)])

    jobs = [job(c, t) for _ in range(2) for c in FAST_CASES for t in targets]
    for key, code in _run_all(jobs):
        assert code == expected[key], f"{key}: the code compiled next to the other vendor's differs"
