"""The kernel suite compiled for the CPU target, checked against NumPy (and so against the interpreter)."""

import numpy as np
import pytest
from suite import CASES, check


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
