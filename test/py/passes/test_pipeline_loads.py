"""tile-pipeline-loads keeps every suite kernel's results: each kernel's tile IR goes through the pass
(one and two iterations ahead) and is run by the interpreter. Kernels with a loop that the pass takes
are counted, so the test cannot pass by never transforming anything."""

import numpy as np
import pytest
from suite import CASES, check

from tilec.dialects import tile
from tilec.passes.pipeline import parse_pipeline, run_pipeline
from tilec.targets import arrays
from tilec.targets.interpreter.memory import Memory
from tilec.targets.interpreter.program import Program

TRANSFORMED: dict = {1: set(), 2: set()}


def pipelined_launch(case_name, depth):
    def launch(kernel, grid, *args, **constexprs):
        grid = grid if isinstance(grid, tuple) else (grid,)
        grid = tuple(grid) + (1,) * (3 - len(grid))
        compiled = kernel.warmup(*args, grid=grid, target="interpreter", **constexprs)
        with tile.make_context():
            from mlir import ir

            module = ir.Module.parse(compiled.asm["tile"])
            before = str(module).count('"tile.load"')
            passes = f"tile-canonicalize,tile-pipeline-loads{{depth={depth}}},tile-canonicalize"
            run_pipeline(module, parse_pipeline(passes))
            if str(module).count('"tile.load"') > before:  # a prologue load was added: a loop was taken
                TRANSFORMED[depth].add(case_name)
            program = Program(module)
            memory = Memory()
            values = []
            for t, v in zip(
                compiled.arg_types,
                [
                    a
                    for a, n in zip(_runtime_args(kernel, args, constexprs), kernel.arg_names)
                    if n in compiled.arg_names
                ],
            ):
                values.append(memory.add(arrays.host_view(v)) if t.is_ptr() else v)
            program.run(grid, values, memory)

    return launch


def _runtime_args(kernel, args, constexprs):
    bound = kernel.signature.bind(*args, **constexprs)
    bound.apply_defaults()
    return [bound.arguments[n] for n in kernel.arg_names]


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_suite_with_pipelined_loads(case, depth, monkeypatch):
    monkeypatch.delenv("TILEC_TARGET", raising=False)
    check(case.run(pipelined_launch(case.name, depth), np.random.default_rng(0)), case.name)


@pytest.mark.parametrize("depth", [1, 2])
def test_the_pass_took_the_loops_it_should(depth):
    # Runs after the parametrized cases (pytest keeps file order).
    expected = {"dot_fp32_masked_k_tail", "matmul_tutorial_grouped", "dot_bf16_many_tiles"}
    assert expected <= TRANSFORMED[depth], TRANSFORMED[depth]
