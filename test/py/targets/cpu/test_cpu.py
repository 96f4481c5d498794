"""The kernel suite compiled for the CPU target, checked against NumPy (and so against the interpreter)."""

import functools
import math
import threading

import numpy as np
import pytest
from suite import CASES, check

import tilec
import tilec.language as tl


@pytest.fixture
def cpu(monkeypatch):
    monkeypatch.delenv("TILEC_INTERPRET", raising=False)
    monkeypatch.setenv("TILEC_TARGET", "cpu")

    def launch(kernel, grid, *args, **constexprs):
        kernel[grid](*args, **constexprs)

    return launch


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_suite_on_cpu(case, cpu):
    rng = np.random.default_rng(0)
    check(case.run(cpu, rng), case.name)


@tilec.jit
def divide(x_ptr, d_ptr, q_ptr, r_ptr, n, B: tl.constexpr):
    offs = tl.arange(0, B)
    x = tl.load(x_ptr + offs)
    d = tl.load(d_ptr + offs)  # zero in the lanes past n, -1 under MIN
    tl.store(q_ptr + offs, x // d, mask=offs < n)
    tl.store(r_ptr + offs, x % d, mask=offs < n)


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32, np.int8])
def test_integer_division_never_traps(cpu, dtype):
    """x86 traps on integer division by zero and on MIN / -1 (SIGFPE, the end of the process); GPUs
    return some value. Lanes that divide by zero (masked off) must not kill the CPU target, and
    MIN / -1 wraps to MIN as on a GPU."""
    info = np.iinfo(dtype)
    x = np.arange(16, dtype=dtype) * 3 + 1
    d = np.zeros(16, dtype)
    d[:8] = np.arange(1, 9, dtype=dtype)
    if info.min < 0:
        x[0], d[0] = info.min, -1
    q, r = np.zeros(16, dtype), np.zeros(16, dtype)
    divide[(1,)](x, d, q, r, 8, B=16)
    bits = 8 * np.dtype(dtype).itemsize

    def wrap(v):  # two's complement of the dtype's width
        v &= (1 << bits) - 1
        return v - (1 << bits) if info.min < 0 and v >= 1 << (bits - 1) else v

    pairs = list(zip(x[:8].tolist(), d[:8].tolist()))
    quotients = [(abs(a) // abs(b)) * (1 if (a < 0) == (b < 0) else -1) for a, b in pairs]  # C truncation
    np.testing.assert_array_equal(q[:8], np.array([wrap(v) for v in quotients], dtype=dtype))
    np.testing.assert_array_equal(
        r[:8], np.array([a - v * b for (a, b), v in zip(pairs, quotients)], dtype=dtype)
    )


@tilec.jit
def fill_program_ids(out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.program_id(0) + offs * 0)


class ColdStartClock:
    """A clock for the CPU runtime's timing: each chunk of programs seems to take a microsecond,
    except the first chunk ever timed, which seems to take 10 ms (a cold start); per thread, as
    the pool's threads time their own shares."""

    def __init__(self):
        self.local = threading.local()
        self.cold = [0.01]
        self.lock = threading.Lock()

    def __call__(self):
        calls = getattr(self.local, "calls", 0)
        self.local.calls = calls + 1
        now = getattr(self.local, "now", 0.0)
        if calls % 2:  # the end of a chunk
            with self.lock:
                now += self.cold.pop() if self.cold else 1e-6
        self.local.now = now
        return now


def test_small_launches_stay_on_the_calling_thread(cpu, monkeypatch):
    """A launch whose programs took less than PARALLEL_MIN_SECONDS in all at the last launch runs
    on the calling thread (handing shares to the pool costs more than they take); a large one is
    split, the calling thread running the first share; every program runs once either way. The
    first launch's cold first program does not count in the estimate."""
    from tilec.targets.cpu import runtime

    monkeypatch.setattr(runtime, "_clock", ColdStartClock())
    submitted = []
    real_pool = runtime._pool()

    class CountingPool:
        def submit(self, fn, *args):
            submitted.append(args[1:3])  # the share's (begin, end), after the arguments
            return real_pool.submit(fn, *args)

    monkeypatch.setattr(runtime, "_pool", lambda: CountingPool())
    monkeypatch.setattr(runtime.os, "cpu_count", lambda: 2)
    out = np.full(64 * 16, -1, np.int32)
    fill_program_ids[(64,)](out, BLOCK=16)  # no timing yet: split by the number of programs
    np.testing.assert_array_equal(out, np.repeat(np.arange(64), 16))
    assert submitted == [(32, 64)]
    submitted.clear()
    out[:] = -1
    fill_program_ids[(64,)](out, BLOCK=16)  # 64 tiny programs: microseconds in all
    np.testing.assert_array_equal(out, np.repeat(np.arange(64), 16))
    assert submitted == []
    monkeypatch.setattr(runtime, "PARALLEL_MIN_SECONDS", 0.0)  # as if the programs were long
    out[:] = -1
    fill_program_ids[(64,)](out, BLOCK=16)
    np.testing.assert_array_equal(out, np.repeat(np.arange(64), 16))
    assert submitted == [(32, 64)]


@tilec.jit
def exp_log_sin(x_ptr, out_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.exp(x) + tl.log(x) * tl.sin(x))


def test_math_calls_vectorize_through_libmvec(cpu):
    """Where glibc's vector math library is installed (x86-64 Linux), exp, log and sin of a block
    are calls of its 8-wide (or 16-wide) functions, and the kernel's library needs libmvec; the
    results agree with NumPy to a few units in the last place."""
    from tilec.targets.cpu import compiler

    if compiler.host_vector_math() is None:
        pytest.skip("no libmvec on this host: scalar libm calls")
    x = np.random.default_rng(0).uniform(0.1, 4.0, 4096).astype(np.float32)
    out = np.empty_like(x)
    exp_log_sin[(4,)](x, out, BLOCK=1024)
    np.testing.assert_allclose(out, np.exp(x) + np.log(x) * np.sin(x), rtol=2e-6, atol=2e-6)
    library = exp_log_sin.warmup(x, out, BLOCK=1024, grid=(4,)).asm["so"]
    assert b"libmvec.so.1" in library
    assert b"_ZGV" in library  # glibc's vector ABI names: _ZGVdN8v_expf, ...


@tilec.jit
def vector_math(x_ptr, out_ptr, N: tl.constexpr, FN: tl.constexpr):
    offs = tl.arange(0, N)
    x = tl.load(x_ptr + offs)
    if FN == "exp2":
        y = tl.exp2(x)
    elif FN == "log2":
        y = tl.log2(x)
    elif FN == "erf":
        y = tl.erf(x)
    else:
        y = tl.extra.libdevice.tanh(x)
    tl.store(out_ptr + offs, y)


@pytest.mark.parametrize(
    "fn, low, high, reference",
    [
        ("exp2", -100, 100, np.exp2),
        ("log2", 1e-30, 1e30, np.log2),
        ("tanh", -10, 10, np.tanh),
        ("erf", -5, 5, np.vectorize(math.erf)),
    ],
)
def test_math_of_blocks_calls_libmvec(cpu, fn, low, high, reference):
    """exp2, log2, tanh and erf of a block call glibc's vector functions (LLVM's libmvec table lacks
    them: llc split the first three into one scalar libm call per element, and erf's libm calls kept
    the loop scalar), within 2 ulp of float64."""
    from tilec.targets.cpu import compiler

    rng = np.random.default_rng(1)
    x = rng.uniform(low, high, 2048).astype(np.float32)
    out = np.empty_like(x)
    compiled = vector_math[(1,)](x, out, 2048, fn)
    expected = reference(x.astype(np.float64))
    ulps = np.abs(out - expected) / np.spacing(np.abs(expected).astype(np.float32))
    assert ulps.max() <= 2, ulps.max()
    library = compiler.host_vector_math()
    widths = {16: "e", 8: "d" if "avx2" in compiler.host_cpu_flags() else "c", 4: "b"}
    symbol = f"_ZGV{widths[compiler.host_fp32_lanes()]}N{compiler.host_fp32_lanes()}v_{fn}f"
    import ctypes

    if library is None or not hasattr(ctypes.CDLL(library), symbol):
        pytest.skip(f"this host's libmvec has no {symbol}")
    so = compiled.asm["so"]
    so = so if isinstance(so, bytes) else open(so, "rb").read()
    assert f"v_{fn}f".encode() in so  # some width of libmvec's function is called


@tilec.jit
def _product(a, b):
    return a * b


@tilec.jit
def edge_reductions(x_ptr, out_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr, tl.sum(x))
    tl.store(out_ptr + 1, tl.max(x))
    tl.store(out_ptr + 2, tl.min(x))
    tl.store(out_ptr + 3, tl.reduce(x, 0, _product))


@pytest.mark.parametrize("fill", ["negative zeros", "all nan", "one nan", "ones"])
def test_reductions_start_from_identities_exactly(cpu, fill):
    """1-D sums and products start from -0.0 / 1.0 and maxima from element 0 (loops over the whole
    block, no scalar tail): -0.0 sums stay -0.0, NaN rules are kept."""
    x = {
        "negative zeros": np.full(64, -0.0, np.float32),
        "all nan": np.full(64, np.nan, np.float32),
        "one nan": np.where(np.arange(64) == 5, np.nan, 1.5).astype(np.float32),
        "ones": np.ones(64, np.float32),
    }[fill]
    out = np.zeros(4, np.float32)
    edge_reductions[(1,)](x, out, 64)
    in_order = functools.reduce(lambda a, b: a + b, x)  # (NumPy's sum of -0.0s starts from +0.0)
    expected = np.array([in_order, np.fmax.reduce(x), np.fmin.reduce(x), x.prod()], np.float32)
    np.testing.assert_array_equal(out, expected)
    assert list(np.signbit(out)) == list(np.signbit(expected))
