"""tilec-opt as a program: bad input is one diagnostic line and exit status 1, never a traceback."""

import subprocess
import sys

import pytest

VALID = """func.func @f(%x: f32) -> tensor<4xf32> {
  %0 = "tile.splat"(%x) : (f32) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
INVALID = VALID.replace("tensor<4xf32>", "tensor<4xf16>")


def run(args, stdin):
    return subprocess.run(
        [sys.executable, "-m", "tilec.tools.opt", *args], input=stdin, capture_output=True, text=True
    )


@pytest.mark.parametrize(
    "args,stdin,expected",
    [
        ([], "garbage\n", "<stdin>:1:1: error: custom op 'garbage' is unknown"),
        (["-p", "no-such-pass"], VALID, "tilec-opt: error: unknown pass or pass pipeline 'no-such-pass'"),
        (
            [],
            INVALID,
            "<stdin>:2:8: error: 'tile.splat' op result must be a tensor of f32, got tensor<4xf16>",
        ),
        (["missing-file.mlir"], "", "tilec-opt: error: cannot read 'missing-file.mlir'"),
    ],
)
def test_bad_input_is_one_line(args, stdin, expected):
    r = run(args, stdin)
    assert r.returncode == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(expected)
    assert "Traceback" not in r.stderr


def test_valid_input_round_trips():
    r = run(["-p", "tile-canonicalize,tile-verify"], VALID)
    assert r.returncode == 0, r.stderr
    assert '"tile.splat"(%arg0) : (f32) -> tensor<4xf32>' in r.stdout


def test_a_pass_that_breaks_on_unexpected_ir_is_a_diagnostic(monkeypatch):
    """A tilec pass raising something other than its PassError (a bug on IR it did not expect) ends
    the pipeline with a diagnostic naming the pass, not a Python traceback."""
    from dataclasses import dataclass
    from typing import ClassVar

    from mlir import ir

    from tilec.dialects import tile
    from tilec.passes.base import TilePass
    from tilec.passes.pipeline import Step, StepFailed, run_pipeline

    @dataclass(frozen=True)
    class Broken(TilePass):
        name: ClassVar[str] = "broken"

        def run(self, module):
            return {}["missing"]

    monkeypatch.delenv("TILEC_DEBUG", raising=False)
    ctx = tile.make_context()
    with ctx, ir.Location.unknown(ctx):
        module = ir.Module.parse("func.func @f() {\n  return\n}\n")
        with pytest.raises(StepFailed) as info:
            run_pipeline(module, [Step("broken", "broken", Broken())])
    assert info.value.diagnostics[0].message.startswith("internal error in broken: KeyError: 'missing'")


def test_a_registered_pass_runs_by_name_and_a_taken_name_is_refused(monkeypatch, tmp_path, capsys):
    """A target's own pass joins the registry with tilec.passes.register (as each target's passes
    package does on import): tilec-opt lists it and runs it by name; a second class under a name
    already taken is an error naming the first."""
    from dataclasses import dataclass
    from typing import ClassVar

    from tilec import passes
    from tilec.passes.base import TilePass
    from tilec.tools import opt

    @dataclass(frozen=True)
    class MarkPass(TilePass):
        """Marks the module."""

        name: ClassVar[str] = "toy-mark"

        def run(self, module):
            from mlir import ir

            module.operation.attributes["toy.marked"] = ir.UnitAttr.get()

    monkeypatch.setitem(passes.REGISTRY, "toy-mark", MarkPass)  # taken out again after the test
    passes.register(MarkPass)
    passes.register(MarkPass)  # the same class again: nothing changes
    source = tmp_path / "f.mlir"
    source.write_text(VALID)
    assert opt.main([str(source), "-p", "toy-mark,tile-cpu-atomics"]) == 0
    assert "toy.marked" in capsys.readouterr().out
    assert "toy-mark" in opt.list_passes()

    @dataclass(frozen=True)
    class OtherPass(TilePass):
        name: ClassVar[str] = "toy-mark"

    with pytest.raises(ValueError, match="pass name 'toy-mark' is taken by .*MarkPass"):
        passes.register(OtherPass)
