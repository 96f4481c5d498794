"""tl.dot on the CPU target: vector contractions (tile-cpu-vectorize-dots), checked against NumPy for
every element type the CPU takes, several tile shapes (one narrower than a 16-column block),
ragged edges and masked K tails, and a dot chained into another."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest
from suite import inside

import tilec
import tilec.language as tl


@tilec.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
           ACC: tl.constexpr):  # fmt: skip
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=ACC)
    for k in range(0, tl.cdiv(K, BK)):
        kk = k * BK + rk
        a = tl.load(
            a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0
        )
        b = tl.load(
            b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0
        )
        acc = tl.dot(a, b, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


@tilec.jit
def chain(x_ptr, w1_ptr, w2_ptr, out_ptr, D: tl.constexpr, H: tl.constexpr, E: tl.constexpr):
    d, h, e, r = tl.arange(0, D), tl.arange(0, H), tl.arange(0, E), tl.arange(0, 16)
    x = tl.load(x_ptr + r[:, None] * D + d[None, :])
    hidden = tl.dot(x, tl.load(w1_ptr + d[:, None] * H + h[None, :]))
    out = tl.dot(hidden, tl.load(w2_ptr + h[:, None] * E + e[None, :]))
    tl.store(out_ptr + r[:, None] * E + e[None, :], out)


@pytest.fixture(autouse=True)
def cpu(monkeypatch):
    monkeypatch.delenv("TILEC_INTERPRET", raising=False)
    monkeypatch.setenv("TILEC_TARGET", "cpu")


TYPES = {"fp32": np.float32, "fp16": np.float16, "bf16": ml_dtypes.bfloat16, "i8": np.int8}


@pytest.mark.parametrize("dtype", list(TYPES))
@pytest.mark.parametrize(
    "block", [(64, 64, 32), (16, 32, 16), (32, 16, 64)], ids=lambda b: "x".join(map(str, b))
)
def test_dot_on_cpu(dtype, block):
    bm, bn, bk = block
    M, N, K = 2 * bm - 3, 2 * bn + 5, 3 * bk - 7  # ragged edges, a K tail
    rng = np.random.default_rng(7)
    if dtype == "i8":
        a, b = (rng.integers(-128, 128, size=s).astype(np.int8) for s in ((M, K), (K, N)))
        acc, expected = np.int32, a.astype(np.int64) @ b.astype(np.int64)
    else:
        a, b = (rng.standard_normal(s).astype(TYPES[dtype]) for s in ((M, K), (K, N)))
        acc, expected = np.float32, a.astype(np.float64) @ b.astype(np.float64)
    c = np.zeros((M, N), acc)
    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    matmul[grid](a, b, c, M, N, K, BM=bm, BN=bn, BK=bk, ACC=tl.int32 if dtype == "i8" else tl.float32)  # fmt: skip
    if dtype == "i8":
        np.testing.assert_array_equal(c, expected)
    else:
        np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-3)


def test_dot_is_vector_code_on_cpu():
    """The dot's loops hold its accumulator block in vector registers: vector FMAs in the LLVM stage,
    no linalg.matmul left after the bufferized stage."""
    compiled = tilec.compile(
        matmul, signature="*fp32,*fp32,*fp32,i32,i32,i32",
        constexprs={"BM": 64, "BN": 64, "BK": 32, "ACC": tl.float32}, target="cpu",
    )  # fmt: skip
    assert "linalg.matmul" in compiled.asm["linalg"] and "linalg.matmul" not in compiled.asm["bufferized"]
    assert re.search(r"llvm.intr.fmuladd\(.*vector<16xf32>", compiled.asm["llvm"])


def test_chained_dots_on_cpu():
    rng = np.random.default_rng(8)
    x, w1, w2 = (rng.standard_normal(s).astype(np.float32) for s in ((16, 32), (32, 64), (64, 16)))
    out = np.zeros((16, 16), np.float32)
    chain[(1,)](x, w1, w2, out, D=32, H=64, E=16)
    np.testing.assert_allclose(out, (x.astype(np.float64) @ w1) @ w2, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("lanes,block", [(8, (4, 16)), (16, (8, 16)), (4, (2, 16))])
def test_accumulator_blocks_fit_the_host_registers(lanes, block):
    """8 vector accumulators of 16 columns whatever the vector width (AVX2, AVX-512, SSE/NEON); the
    CPU pipeline asks tile-cpu-vectorize-dots for this host's block."""
    from tilec.targets.cpu import compiler

    assert compiler.dot_block(lanes) == block
    rows, cols = compiler.dot_block(compiler.host_fp32_lanes())
    pipeline = next(s.pipeline for s in compiler.stages() if s.name == "bufferized")
    assert f"tile-cpu-vectorize-dots{{rows={rows} cols={cols}}}" in pipeline


@tilec.jit
def wrapped_matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
                   BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, CLAMP: tl.constexpr = False,
                   WIDE: tl.constexpr = False):  # fmt: skip
    """Triton's tutorial form: rows and columns wrap with `% M` / `% N` (no masks on them); CLAMP:
    clamped to 0 past the edge with tl.where instead (newer tutorials' form); WIDE: the rows in 64
    bits before they wrap."""
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    offs_m = pid_m * BM + tl.arange(0, BM)
    if WIDE:
        offs_m = offs_m.to(tl.int64)
    offs_m = inside(offs_m, M, CLAMP)
    offs_n = inside(pid_n * BN + tl.arange(0, BN), N, CLAMP)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :]
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK
        b_ptrs += BK * stride_bk
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(c_ptr + rows[:, None] * stride_cm + cols[None, :], acc, mask=mask)


@pytest.mark.parametrize("clamp, wide", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("shape", [(128, 64, 96), (100, 72, 40), (16, 200, 33), (64, 48, 32)])
def test_wrapped_offsets_on_cpu(shape, clamp, wide):
    """tile-cpu-version-remainders: programs whose rows and columns do not wrap run a copy without
    the `% M` / `% N` or the clamps (affine addresses), the edge programs the original; both must
    agree with NumPy on full and ragged shapes, including a grid whose every program wraps (M < BM)."""
    M, N, K = shape
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in ((M, K), (K, N)))
    c = np.full((M, N), np.nan, np.float32)
    grid = (tilec.cdiv(M, 32), tilec.cdiv(N, 32))
    wrapped_matmul[grid](a, b, c, M, N, K, K, N, N, BM=32, BN=32, BK=16, CLAMP=clamp, WIDE=wide)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize(
    "clamp, wide, wrap",
    [(False, False, "arith.remsi"), (True, False, "arith.select"), (False, True, "arith.remsi")],
)
def test_wrapped_offsets_get_an_unwrapped_copy(clamp, wide, wrap):
    compiled = tilec.compile(
        wrapped_matmul, signature="*fp32,*fp32,*fp32,i32,i32,i32,i32,i32,i32",
        constexprs={"BM": 32, "BN": 32, "BK": 16, "CLAMP": clamp, "WIDE": wide}, target="cpu",
    )  # fmt: skip
    linalg_ir = compiled.asm["linalg"]
    # two copies of the K loop's dot; the first (the branch taken when nothing wraps) has no
    # remainder (or clamp) before it, the second (the edge programs') keeps them
    assert linalg_ir.count("linalg.matmul") == 2
    unwrapped, wrapped = linalg_ir.split("linalg.matmul")[:2]
    assert wrap not in unwrapped and wrapped.count(wrap) == 2


@tilec.jit
def wrapped_persistent(a_ptr, b_ptr, c_ptr, M, N, K, PROGRAMS: tl.constexpr, BM: tl.constexpr,
                       BN: tl.constexpr, BK: tl.constexpr, CLAMP: tl.constexpr):  # fmt: skip
    """wrapped_matmul as a persistent kernel (tutorial 09): PROGRAMS programs walk the tiles; a
    second tile counter, carried by the tile loop, places the epilogue."""
    tiles_n = tl.cdiv(N, BN)
    done = tl.program_id(0) - PROGRAMS
    for tile in range(tl.program_id(0), tl.cdiv(M, BM) * tiles_n, PROGRAMS):
        offs_m = inside((tile // tiles_n) * BM + tl.arange(0, BM), M, CLAMP)
        offs_n = inside((tile % tiles_n) * BN + tl.arange(0, BN), N, CLAMP)
        offs_k = tl.arange(0, BK)
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for k in range(0, tl.cdiv(K, BK)):
            a = tl.load(a_ptr + offs_m[:, None] * K + (k * BK + offs_k)[None, :],
                        mask=offs_k[None, :] < K - k * BK, other=0.0)  # fmt: skip
            b = tl.load(b_ptr + (k * BK + offs_k)[:, None] * N + offs_n[None, :],
                        mask=offs_k[:, None] < K - k * BK, other=0.0)  # fmt: skip
            acc = tl.dot(a, b, acc)
        done += PROGRAMS
        rows = (done // tiles_n) * BM + tl.arange(0, BM)
        cols = (done % tiles_n) * BN + tl.arange(0, BN)
        mask = (rows[:, None] < M) & (cols[None, :] < N)
        tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc, mask=mask)


@pytest.mark.parametrize("clamp", [False, True])
@pytest.mark.parametrize("shape, programs", [((128, 64, 96), 3), ((100, 72, 40), 2), ((16, 200, 33), 5)])
def test_persistent_tiles_wrap_on_cpu(target, shape, programs, clamp):
    """tile-cpu-version-remainders inside the tile loop: each tile tests its own offsets and takes
    the copy without the wraps or the original; the carried counter passes through both."""
    M, N, K = shape
    rng = np.random.default_rng(5)
    a, b = (rng.standard_normal(s).astype(np.float32) for s in ((M, K), (K, N)))
    c = np.full((M, N), np.nan, np.float32)
    wrapped_persistent[(programs,)](a, b, c, M, N, K, PROGRAMS=programs, BM=32, BN=32, BK=16, CLAMP=clamp)
    np.testing.assert_allclose(c, a.astype(np.float64) @ b.astype(np.float64), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("clamp, wrap", [(False, "arith.remsi"), (True, "arith.select")])
def test_persistent_tiles_get_an_unwrapped_copy(clamp, wrap):
    """The test and the two copies are inside the tile loop: the then-branch without the wraps of
    the tile's offsets, the else-branch with both, each yielding the carried counter."""
    from mlir import ir

    from tilec.dialects import tile as tile_dialect
    from tilec.passes.base import ops_named
    from tilec.passes.pipeline import parse_pipeline, run_pipeline

    compiled = tilec.compile(
        wrapped_persistent, signature="*fp32,*fp32,*fp32,i32,i32,i32",
        constexprs={"PROGRAMS": 4, "BM": 32, "BN": 32, "BK": 16, "CLAMP": clamp}, target="cpu",
    )  # fmt: skip
    with tile_dialect.make_context():
        module = ir.Module.parse(compiled.asm["tile"])
        run_pipeline(module, parse_pipeline("tile-canonicalize,tile-cpu-version-remainders"))
        tile_loop = next(op for op in ops_named(module.operation, "scf.for") if "scf.if" in str(op))
        branch = next(op.operation for op in tile_loop.regions[0].blocks[0].operations if op.name == "scf.if")
        assert len(branch.results) == 1  # the counter
        then, other = (str(region.blocks[0]) for region in branch.regions)
        wraps = re.compile(rf"{wrap} .*: tensor<32x")
        assert not wraps.search(then) and len(wraps.findall(other)) == 2
        assert then.count("tile.dot") == other.count("tile.dot") == 1
