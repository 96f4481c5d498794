"""ptxas's performance advisories ("Potential Performance Loss: wgmma.mma_async instructions are
serialized ...") reach the user as a `tilec.PerformanceWarning` at the kernel's definition and in
`metadata["ptxas_advisories"]`; the occupancy retry does not keep a variant that gains one; the
autotuner's search, which times every config anyway, does not warn."""

import shutil
import warnings

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.targets.nvidia import compiler as nvidia

needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not installed")


@tilec.jit
def square_matmul(a, b, c, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.arange(0, BM)
    rn = tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), tl.float32)
    for k in range(0, K, BK):
        x = tl.load(a + rm[:, None] * K + (k + rk)[None, :])
        y = tl.load(b + (k + rk)[:, None] * BN + rn[None, :])
        acc += tl.dot(x, y)
    tl.store(c + rm[:, None] * BN + rn[None, :], acc)


SIGNATURE = {"a": "*fp16", "b": "*fp16", "c": "*fp32", "K": "i32"}


def _compile(bm, bn, num_warps):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        kernel = tilec.compile(
            square_matmul,
            signature=SIGNATURE,
            constexprs={"BM": bm, "BN": bn, "BK": 64},
            target="sm_90a",
            num_warps=num_warps,
        )
    return kernel, [w for w in caught if issubclass(w.category, tilec.PerformanceWarning)]


@needs_ptxas
def test_serialized_wgmma_is_a_warning_at_the_kernel(monkeypatch):
    """A 128x256 fp32 accumulator on one warpgroup needs 256 registers a thread for itself alone:
    ptxas serializes the warpgroup MMAs (C7511) and says so; the user hears it at the `def`."""
    monkeypatch.setenv("TILEC_CACHE_DIR", "off")
    kernel, caught = _compile(128, 256, 4)
    assert kernel.metadata["ptxas_advisories"] == [
        "(C7511) wgmma.mma_async instructions are serialized due to insufficient register resources "
        "for the wgmma pipeline"
    ]
    assert len(caught) == 1
    w = caught[0]
    assert w.filename == __file__
    assert w.lineno == square_matmul.fn.__code__.co_firstlineno + 1  # the def, below the decorator
    text = str(w.message)
    assert text.startswith("square_matmul (sm_90a, num_warps=4, num_stages=3, BM=128, BN=256, BK=64)")
    assert "(C7511)" in text and "smaller blocks or more warps" in text


@needs_ptxas
def test_two_warpgroups_compile_without_a_warning(monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", "off")
    kernel, caught = _compile(128, 256, 8)
    assert "ptxas_advisories" not in kernel.metadata
    assert caught == []


def test_advisories_are_read_once_each_without_the_function_name():
    log = (
        "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n"
        "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized "
        "due to non wgmma instructions defining accumulator registers of a wgmma between start and end "
        "of the pipeline stage in the function 'k'\n"
        "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async instructions are serialized "
        "due to non wgmma instructions defining accumulator registers of a wgmma between start and end "
        "of the pipeline stage in the function 'k'\n"
        "ptxas info    : Used 168 registers, used 1 barriers\n"
    )
    assert nvidia.advisories(log) == [
        "(C7515) wgmma.mma_async instructions are serialized due to non wgmma instructions defining "
        "accumulator registers of a wgmma between start and end of the pipeline stage"
    ]
    assert nvidia.advisories("ptxas info    : Used 40 registers") == []
    assert nvidia.advisories(None) == []


def test_occupancy_retry_does_not_keep_a_serialized_variant(monkeypatch):
    """Registers alone keep a second program off the SM: the PTX is assembled again asking for two.
    If ptxas then fits it only by serializing the MMAs, the first assembly stays."""
    ptx = ".visible .entry k()\n.maxntid 256, 1, 1\n{\nret;\n}\n"
    serialized = (
        "ptxas info    : (C7511) Potential Performance Loss: wgmma.mma_async instructions are serialized "
        "due to insufficient register resources for the wgmma pipeline in the function 'k'\n"
    )
    reports = {
        False: "ptxas info    : Used 168 registers\n",
        True: serialized + "ptxas info    : Used 128 registers\n 0 bytes spill stores, 0 bytes spill loads\n",
    }
    monkeypatch.setattr(nvidia, "_ptxas", lambda text, arch: (b"cubin", reports[".minnctapersm" in text]))
    kept, _, usage = nvidia.assemble_for_occupancy(ptx, "sm_90a", 256, 0)
    assert kept == ptx and usage == {"n_regs": 168, "n_spills": 0}
    reports[True] = "ptxas info    : Used 128 registers\n 0 bytes spill stores, 0 bytes spill loads\n"
    tuned, _, usage = nvidia.assemble_for_occupancy(ptx, "sm_90a", 256, 0)
    assert ".minnctapersm 2" in tuned and usage == {"n_regs": 128, "n_spills": 0}


@tilec.jit
def scaled_copy(x, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out + i, tl.load(x + i, mask=i < n) * 2, mask=i < n)


def _advise_every_compile(monkeypatch):
    """The CPU target has no ptxas: make each of its compiles report an advisory, as ptxas would."""
    from tilec.targets import target_for

    cpu = target_for("cpu")
    compile_cpu = cpu.compile

    def compile_with_advice(kernel, module):
        compile_cpu(kernel, module)
        kernel.metadata["ptxas_advisories"] = ["(C7515) stand-in"]

    monkeypatch.setattr(cpu, "compile", compile_with_advice)


def test_a_launch_warns_and_the_autotuner_does_not(monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", "off")
    _advise_every_compile(monkeypatch)
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    with pytest.warns(tilec.PerformanceWarning, match=r"scaled_copy \(cpu, .*BLOCK=64\).*\(C7515\) stand-in"):
        scaled_copy[(2,)](x, out, 100, BLOCK=64)
    np.testing.assert_array_equal(out, x * 2)

    tuned = tilec.autotune(configs=[tilec.Config({"BLOCK": 32}), tilec.Config({"BLOCK": 64})], key=["n"])(
        tilec.jit(scaled_copy.fn)
    )
    out[:] = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tuned[lambda meta: (tilec.cdiv(100, meta["BLOCK"]),)](x, out, 100)
    assert [w for w in caught if issubclass(w.category, tilec.PerformanceWarning)] == []
    np.testing.assert_array_equal(out, x * 2)
