"""Compile-time benchmark (not a test): cold compiles of vector add, softmax, layernorm and matmul per
target, each target in a fresh process with an empty cache, with tilec's per-stage breakdown; Triton's
cold compile (first kernel in a process, then the others) where Triton and a GPU are present.

    python bench/compile_time.py [--targets cpu,sm_90a,gfx942] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent

# (kernel, signature, constexprs): the same four kernels for every target.
CASES = [
    ("add_kernel", "*fp32,*fp32,*fp32,i32", {"BLOCK": 1024}),
    ("softmax_kernel", "*fp32,*fp32,i32,i32", {"BLOCK": 1024}),
    ("layernorm_kernel", "*fp32,*fp32,*fp32,*fp32,i32,i32,fp32", {"BLOCK": 1024, "GELU": False}),
    (
        "matmul_kernel",
        "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32",
        {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8},
    ),
]

TILEC_CHILD = """
import json, sys, time
start = time.perf_counter()
sys.path.insert(0, {here!r})
import tilec
import kernels
rows = []
for name, signature, constexprs in {cases!r}:
    t = time.perf_counter()
    k = tilec.compile(getattr(kernels, name), signature, constexprs, target={target!r})
    rows.append({{"kernel": name, "ms": (time.perf_counter() - t) * 1e3, "stages_ms": k.metadata.get("compile_ms", {{}})}})
print(json.dumps(rows))
"""

TRITON_CHILD = """
import json, sys, time, tempfile, pathlib
source = pathlib.Path({here!r}, "kernels.py").read_text()
source = source.replace("import tilec as backend", "import triton as backend").replace("import tilec.language as tl", "import triton.language as tl")
path = pathlib.Path(tempfile.mkdtemp()) / "triton_kernels.py"
path.write_text(source)
sys.path.insert(0, str(path.parent))
import torch
import triton_kernels as k
dev = "cuda"
torch.zeros(1, device=dev)
rows = []
def first_call(name, fn):
    torch.cuda.synchronize()
    t = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    rows.append({{"kernel": name, "ms": (time.perf_counter() - t) * 1e3}})
x, y, o = (torch.randn(4096, device=dev) for _ in range(3))
first_call("add_kernel", lambda: k.add_kernel[(4,)](x, y, o, 4096, BLOCK=1024))
m = torch.randn(64, 1024, device=dev); mo = torch.empty_like(m)
first_call("softmax_kernel", lambda: k.softmax_kernel[(64,)](mo, m, 1024, 1024, BLOCK=1024))
w = torch.randn(1024, device=dev); b = torch.randn(1024, device=dev)
first_call("layernorm_kernel", lambda: k.layernorm_kernel[(64,)](m, w, b, mo, 1024, 1024, 1e-5, BLOCK=1024, GELU=False))
A = torch.randn(256, 256, device=dev, dtype=torch.float16); B = torch.randn(256, 256, device=dev, dtype=torch.float16); C = torch.empty_like(A)
first_call("matmul_kernel", lambda: k.matmul_kernel[(16,)](A, B, C, 256, 256, 256, 256, 1, 256, 1, 256, 1, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8))
print(json.dumps(rows))
"""


def run_child(source: str, env: dict) -> list[dict]:
    r = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-3000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", default="cpu,sm_90a,gfx942")
    parser.add_argument("--no-triton", action="store_true")
    parser.add_argument("--json")
    args = parser.parse_args()
    results = {}
    repo = str(HERE.parent)
    for target in args.targets.split(","):
        env = {
            **os.environ,
            "TILEC_CACHE_DIR": tempfile.mkdtemp(prefix="tilec-cold-"),
            "PYTHONPATH": os.pathsep.join([repo, os.environ.get("PYTHONPATH", "")]),
        }
        try:
            rows = run_child(TILEC_CHILD.format(here=str(HERE), cases=CASES, target=target), env)
        except RuntimeError as e:
            print(f"tilec {target}: failed\n{e}", file=sys.stderr)
            continue
        results[f"tilec-{target}"] = rows
        for row in rows:
            stages = " ".join(
                f"{k}={v:.0f}" for k, v in row["stages_ms"].items() if k not in ("total", "cache lookup")
            )
            print(f"tilec {target:<7} {row['kernel']:<17} {row['ms']:8.0f} ms   [{stages}]", flush=True)
    if not args.no_triton:
        try:
            import torch
            import triton  # noqa: F401

            if torch.cuda.is_available():
                env = {**os.environ, "TRITON_CACHE_DIR": tempfile.mkdtemp(prefix="triton-cold-")}
                rows = run_child(TRITON_CHILD.format(here=str(HERE)), env)
                results["triton-cuda"] = rows
                for row in rows:
                    print(
                        f"triton cuda    {row['kernel']:<17} {row['ms']:8.0f} ms (first launch)", flush=True
                    )
        except (ImportError, RuntimeError) as e:
            print(
                f"triton: skipped ({str(e).splitlines()[-1] if str(e) else type(e).__name__})",
                file=sys.stderr,
            )
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
