"""The code tilec generates for a kernel suite, per target, as one manifest of hashes: a refactoring
that must not change the output is checked by recording the manifest before and comparing after.

    python tools/identical_output.py record before.json [--texts DIR]
    python tools/identical_output.py compare before.json [--texts DIR]

Kernels: every case of test/py/suite.py (each of its launches) and the benchmark kernels of
bench/kernels.py (matmuls, attention, softmax, layernorm) at their benchmarked configurations.
Targets and the stage compared: sm_80 and sm_90a PTX, gfx942 and gfx1100 AMDGCN, the CPU target's
LLVM IR. Each target compiles in its own process with an empty cache; `--texts` keeps every text
(DIR/<target>/<kernel>.txt) to diff what changed.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

REPO = pathlib.Path(__file__).resolve().parents[1]
TARGETS = {"sm_80": "ptx", "sm_90a": "ptx", "gfx942": "amdgcn", "gfx1100": "amdgcn", "cpu": "llir"}

MATMUL = "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32,i32,i32,i32"
# (kernel of bench/kernels.py, signature, constexprs, num_warps, num_stages)
BENCH = [
    ("add_kernel", "*fp32,*fp32,*fp32,i32", {"BLOCK": 1024}, 4, 3),
    ("softmax_kernel", "*fp32,*fp32,i32,i32", {"BLOCK": 1024}, 4, 3),
    ("softmax_rows_kernel", "*fp32,*fp32,i32,i32,i32", {"ROWS": 4, "BLOCK": 1024}, 4, 3),
    ("layernorm_kernel", "*bf16,*bf16,*bf16,*bf16,i32,i32,fp32", {"BLOCK": 4096, "GELU": True}, 8, 3),
    ("matmul_kernel", MATMUL, {"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32, "GROUP_M": 8}, 4, 3),
    ("matmul_kernel", MATMUL, {"BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64, "GROUP_M": 8}, 8, 4),
    (
        "matmul_persistent_kernel",
        MATMUL,
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8, "NUM_SMS": 132},
        8,
        3,
    ),
    ("matmul_block_ptr_kernel", MATMUL, {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8}, 8, 3),
    (
        "matmul_bt_kernel",
        "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32,i32",
        {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 64, "GROUP_M": 8},
        8,
        3,
    ),
    (
        "attention_kernel",
        "*fp16,*fp16,*fp16,*fp16,i32,fp32",
        {"HEAD_DIM": 64, "BLOCK_M": 128, "BLOCK_N": 64},
        8,
        3,
    ),
]

CHILD = r"""
import hashlib, json, os, pathlib, sys
sys.path[:0] = [{repo!r} + "/test/py", {repo!r} + "/bench", {repo!r}]
import numpy as np
import tilec
import kernels
from suite import CASES

target, stage, texts = {target!r}, {stage!r}, {texts!r}
found = {{}}

def record(name, compiled):
    text = compiled.asm[stage]
    text = text if isinstance(text, bytes) else text.encode()
    found[name] = hashlib.sha256(text).hexdigest()
    if texts:
        folder = pathlib.Path(texts) / target
        folder.mkdir(parents=True, exist_ok=True)
        (folder / (name + ".txt")).write_bytes(text)

for case in CASES:
    launches = []
    def launch(kernel, grid, *args, **constexprs):
        launches.append(kernel.warmup(*args, **constexprs, target=target))
    try:
        case.run(launch, np.random.default_rng(0))
    except AssertionError:
        pass  # nothing ran: only the code is compared
    except Exception as e:  # a case this target refuses: its error is what is compared
        found[case.name] = "error: " + type(e).__name__ + ": " + str(e).splitlines()[0]
    for i, compiled in enumerate(launches):
        record(f"{{case.name}}.{{i}}", compiled)

for name, signature, constexprs, warps, stages in {bench!r}:
    label = name + "." + "_".join(f"{{k}}{{v}}" for k, v in constexprs.items())
    try:
        compiled = tilec.compile(getattr(kernels, name), signature=signature, constexprs=constexprs,
                                 target=target, num_warps=warps, num_stages=stages)
    except Exception as e:
        found[label] = "error: " + type(e).__name__ + ": " + str(e).splitlines()[0]
        continue
    record(label, compiled)
print(json.dumps(found))
"""


def manifest(texts: str | None) -> dict:
    def one(target: str) -> tuple[str, dict]:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "TILEC_CACHE_DIR": cache, "TILEC_NO_PTXAS": "1"}
            for name in ("TILEC_TARGET", "TILEC_INTERPRET", "TILEC_DEBUG", "TILEC_DUMP_IR"):
                env.pop(name, None)
            code = CHILD.format(
                repo=str(REPO), target=target, stage=TARGETS[target], texts=texts, bench=BENCH
            )
            done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        if done.returncode:
            raise SystemExit(f"{target}: the compile process failed:\n{done.stderr[-3000:]}")
        return target, json.loads(done.stdout.strip().splitlines()[-1])

    with ThreadPoolExecutor(len(TARGETS)) as pool:
        return dict(pool.map(one, TARGETS))


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("action", choices=("record", "compare"))
    parser.add_argument("manifest")
    parser.add_argument("--texts", help="keep every generated text under this folder")
    args = parser.parse_args()
    texts = str(pathlib.Path(args.texts).resolve()) if args.texts else None
    now = manifest(texts)
    count = sum(len(v) for v in now.values())
    if args.action == "record":
        pathlib.Path(args.manifest).write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
        print(f"recorded {count} outputs of {len(now)} targets in {args.manifest}")
        return 0
    before = json.loads(pathlib.Path(args.manifest).read_text())
    differ = [
        f"{target} {name}: {'changed' if name in now.get(target, {}) else 'missing'}"
        for target, hashes in sorted(before.items())
        for name, digest in sorted(hashes.items())
        if now.get(target, {}).get(name) != digest
    ]
    differ += [
        f"{target} {name}: new"
        for target, hashes in sorted(now.items())
        for name in sorted(hashes)
        if name not in before.get(target, {})
    ]
    for line in differ:
        print(line)
    print(f"{count} outputs compared: {'identical' if not differ else f'{len(differ)} differ'}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
