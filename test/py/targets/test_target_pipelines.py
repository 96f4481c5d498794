"""Each target's declared pipeline (`tilec-opt --print-pipeline`) is the one its compile runs: the
stages a compiled kernel records are the declared ones, and each declared MLIR pipeline parses."""

import pytest

import tilec
import tilec.language as tl
from tilec.compiler import Options
from tilec.passes.pipeline import parse_pipeline, split_top_level
from tilec.targets import pipeline_text, target_for
from tilec.targets.tools import have_lld


@tilec.jit
def _add(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


@pytest.mark.parametrize("arch", ["cpu", "sm_90a", "sm_80", "gfx942", "gfx1100"])
def test_declared_stages_are_the_compiled_ones(arch, monkeypatch):
    if arch.startswith("gfx") and not have_lld():
        pytest.skip("no ld.lld: AMD code objects cannot be linked here")
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    declared = target_for(arch).pipeline(arch, Options())
    for stage in declared:
        if stage.pipeline:
            parse_pipeline(stage.pipeline)  # raises on an unknown pass or option
    compiled = tilec.compile(_add, "*fp32,*fp32,i32", {"BLOCK": 128}, target=arch)
    recorded = [s for s in compiled.asm if s != "tile"]
    expected = list(dict.fromkeys(s.name for s in declared if s.name != "tile"))
    if arch.startswith("sm_"):
        expected.remove("cubin")  # (no ptxas in this test)
    assert recorded == expected


def test_the_printed_pipeline_lists_every_pass_of_the_stage():
    options = Options(num_warps=8)
    text = pipeline_text("sm_90a", options)
    gpu = target_for("sm_90a").pipeline("sm_90a", options)[0]
    assert gpu.name == "gpu" and "convert-tile-to-gpu{num-warps=8" in text
    lines = text.splitlines()
    start = lines.index("gpu:")
    assert lines[start + 1 : start + 1 + len(split_top_level(gpu.pipeline))] == [
        f"  {element}" for element in split_top_level(gpu.pipeline)
    ]
