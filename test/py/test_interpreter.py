"""The kernel suite through the NumPy interpreter (TILEC_INTERPRET=1), checked against NumPy."""

import numpy as np
import pytest
from suite import CASES, check


@pytest.fixture
def interpret(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")

    def launch(kernel, grid, *args, **constexprs):
        kernel[grid](*args, **constexprs)

    return launch


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_suite_interpreted(case, interpret):
    rng = np.random.default_rng(0)
    check(case.run(interpret, rng), case.name)


def test_suite_is_large_enough():
    assert len(CASES) >= 25
