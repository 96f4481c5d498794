"""A bounded run of tilec's own fuzzer (tools/fuzz.py): mutated lit inputs and kernel-suite tile IR
through random pipelines must each end in a result or a diagnostic, never an abort, an internal
Python error or a hang."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import fuzz  # noqa: E402

SEED, MUTANTS = 7, 4000  # about a minute on a 2-core machine


def test_a_bounded_fuzz_run_finds_no_failure(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "fuzz.py"), "--seed", str(SEED), "--mutants", str(MUTANTS),
         "--time-limit", "240", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    summary = json.loads((tmp_path / f"summary-{SEED}.json").read_text())
    assert summary["mutants"] >= MUTANTS // 2, summary  # the time limit leaves most of them
    assert done.returncode == 0 and not summary["failures"], done.stdout[-3000:]
    assert summary["diagnosed"] > 0 and summary["ok"] > 0  # both kinds of ending occur


def test_the_mutations_change_the_input_and_repeat_for_a_seed():
    import random

    text = fuzz.lit_inputs()[0]
    first = [fuzz.mutate(text, random.Random(3), ["tile.load"]) for _ in range(3)]
    again = [fuzz.mutate(text, random.Random(3), ["tile.load"]) for _ in range(3)]
    assert first == again
    many = {fuzz.mutate(text, random.Random(seed), ["tile.load"]) for seed in range(50)}
    assert len(many) > 25  # different seeds, different mutants


@pytest.mark.parametrize("outcome", ["hang", "ok"])
def test_a_worker_reports_a_mutant_that_runs_past_its_time_as_a_hang(tmp_path, outcome):
    worker = fuzz.Worker(tmp_path, 4 << 30)
    try:
        text = "func.func @f() {\n  return\n}\n"
        seconds = 0.0 if outcome == "hang" else 120
        assert worker.run(text, "tile-canonicalize", seconds)[0] == outcome
    finally:
        worker.stop()
