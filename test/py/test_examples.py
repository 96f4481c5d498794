"""Every example runs (on the CPU target here) and checks its own result; the benchmark entry point
works in its quick CPU mode and writes JSON and a plot."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(p.name for p in (REPO / "examples").glob("*.py") if not p.name.startswith("_"))


def run(argv, cwd=REPO, timeout=900):
    # the repository first, keeping the rest (a machine may provide the MLIR bindings through it)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    env.pop("TILEC_TARGET", None)
    env.pop("TILEC_INTERPRET", None)
    return subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)


def test_every_example_is_tested():
    assert {
        "vector_add.py",
        "fused_softmax.py",
        "matmul.py",
        "layernorm_gelu.py",
        "fused_attention.py",
        "fp8_linear.py",
    } <= set(EXAMPLES)


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_runs_and_checks_its_result(example):
    if example == "torch_op.py":
        pytest.importorskip("torch")
    r = run([sys.executable, str(REPO / "examples" / example)])
    assert r.returncode == 0, r.stderr[-3000:]
    assert "ran on" in r.stdout or "target" in r.stdout, r.stdout
    assert "match" in r.stdout, r.stdout


def test_bench_entry_point_quick_cpu(tmp_path):
    r = run([sys.executable, "-m", "bench", "--device", "cpu", "--quick", "--out", str(tmp_path)])
    assert r.returncode == 0, r.stderr[-3000:]
    (result,) = tmp_path.glob("cpu-*-quick.json")
    data = json.loads(result.read_text())
    kernels = {row["kernel"] for row in data["rows"]}
    assert kernels == {"vector_add", "softmax", "layernorm"}
    assert all(row["tilec_gbps"] > 0 and row["numpy_gbps"] > 0 for row in data["rows"])
    assert data["meta"]["date"] and "commit" in data["meta"]
    png = result.with_suffix(".png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
