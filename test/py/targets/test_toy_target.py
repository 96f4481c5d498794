"""A target is one object and one registry line: a toy target defined in this file alone compiles
(through a real tile pass), is stored in and read back from the disk cache, launches through the
kernel's `kernel[grid](...)` path and `tilec.compile`, and is described by `tilec.runtime`, with no
other file of tilec knowing of it."""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import tilec
import tilec.language as tl
from tilec import cache, runtime
from tilec.targets import TARGETS, Target, register, target_for
from tilec.targets.stages import run_stage


class ToyTarget(Target):
    """Its "binary" is canonicalized tile IR text; its launcher runs it on the interpreter."""

    name = "toy"
    binaries = ("toyir",)
    device = "toy"  # no array lives there: launches reach it by TILEC_TARGET or target=
    loaded = 0

    def compile(self, kernel, module) -> None:
        run_stage(module, kernel.name, "toy", "toyir", "tile-canonicalize", kernel.asm)

    def check_binary(self, kind, data, what) -> None:
        if "tile.kernel" not in data:
            raise ValueError(f"{what} holds no tile kernel")

    def launcher(self, kernel, binary_path=None):
        from tilec.dialects import tile
        from tilec.targets.interpreter.target import _launch_function

        text = kernel.asm["toyir"] if binary_path is None else binary_path.read_text()
        ToyTarget.loaded += binary_path is not None
        context = tile.make_context()
        with context, ir.Location.unknown(context):
            module = ir.Module.parse(text, context)
        from tilec.targets.interpreter.program import Program

        return _launch_function(kernel, Program(module))

    def gpu_target(self, arch):
        return ("toy", "toy1", 4)


@pytest.fixture
def toy(monkeypatch, tmp_path):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    target = register(ToyTarget())
    yield target
    TARGETS.remove(target)


@tilec.jit
def scale(x_ptr, out_ptr, n, FACTOR: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * FACTOR, mask=offs < n)


def test_a_toy_target_compiles_caches_and_launches(toy, monkeypatch):
    assert target_for("toy") is toy
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    monkeypatch.setenv("TILEC_TARGET", "toy")
    scale[(4,)](x, out, 100, FACTOR=3.0, BLOCK=32)
    np.testing.assert_array_equal(out, 3 * x)

    compiled = tilec.compile(scale, "*fp32,*fp32,i32", {"FACTOR": 2.0, "BLOCK": 32}, target="toy")
    assert "tile.kernel" in compiled.asm["toyir"]
    again = tilec.compile(scale, "*fp32,*fp32,i32", {"FACTOR": 2.0, "BLOCK": 32}, target="toy")
    assert ToyTarget.loaded >= 1  # the second came from the disk cache, its binary read back
    again[(4,)](x, out, 100)
    np.testing.assert_array_equal(out, 2 * x)
    assert runtime.target_of("toy") == runtime.GPUTarget("toy", "toy1", 4)


def test_a_corrupt_toy_binary_is_compiled_again(toy, tmp_path):
    signature, constexprs = "*fp32,*fp32,i32", {"FACTOR": 5.0, "BLOCK": 16}
    tilec.compile(scale, signature, constexprs, target="toy")
    (binary,) = tmp_path.glob("kernels/*/*/toyir")
    binary.write_text("garbage")
    compiled = tilec.compile(scale, signature, constexprs, target="toy")
    assert "tile.kernel" in compiled.asm["toyir"]  # the entry was refused and replaced
    assert not list(tmp_path.glob("kernels/*/*/toyir")) or "tile.kernel" in binary.read_text()
    assert cache.root() == tmp_path


def test_unknown_target_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown target 'tpu9'.*cpu, sm_80"):
        target_for("tpu9")
