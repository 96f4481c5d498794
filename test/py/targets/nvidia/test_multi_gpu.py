"""Several GPUs in one host: the kernel suite on every visible GPU from one process, and a tilec kernel
feeding an NCCL all-reduce in a torch.distributed program (one process per GPU). Both skip with the
reason when fewer than two NVIDIA GPUs are visible."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from suite import CASES, check

REPO = Path(__file__).resolve().parents[4]
UNSUPPORTED: set = set()  # suite cases the GPU lowering does not take (none at present)


def _gpu_count() -> int:
    try:
        import torch

        return torch.cuda.device_count() if torch.cuda.is_available() else 0
    except ImportError:
        return 0


GPUS = _gpu_count()
needs_two_gpus = pytest.mark.skipif(GPUS < 2, reason=f"needs 2 or more NVIDIA GPUs with torch (found {GPUS})")


@pytest.mark.gpu
@needs_two_gpus
@pytest.mark.parametrize("case", [c for c in CASES if c.name not in UNSUPPORTED], ids=lambda c: c.name)
def test_suite_on_every_gpu(case, monkeypatch):
    import torch
    from gpu_launch import torch_launcher

    monkeypatch.delenv("TILEC_INTERPRET", raising=False)
    monkeypatch.delenv("TILEC_TARGET", raising=False)
    for device in range(GPUS):
        with torch.cuda.device(device):
            check(case.run(torch_launcher(f"cuda:{device}"), np.random.default_rng(device)), case.name)


ALL_REDUCE = """
import os
import torch
import torch.distributed as dist
import tilec
import tilec.language as tl


@tilec.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
torch.cuda.set_device(rank)
dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device(f"cuda:{rank}"))
n = 100_003
x = torch.full((n,), float(rank + 1), device=f"cuda:{rank}")
y = torch.empty_like(x)
scale[(tilec.cdiv(n, 1024),)](x, y, n, 2.0, BLOCK=1024)  # runs on this rank's GPU and stream
dist.all_reduce(y)
expected = 2.0 * world * (world + 1) / 2
torch.testing.assert_close(y, torch.full_like(y, expected))
dist.barrier()
dist.destroy_process_group()
print(f"rank {rank}: ok")
"""


@pytest.mark.gpu
@needs_two_gpus
def test_tilec_kernel_feeds_an_nccl_all_reduce(tmp_path):
    script = tmp_path / "all_reduce.py"
    script.write_text(ALL_REDUCE)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
        "TILEC_CACHE_DIR": str(tmp_path / "cache"),
        # NVLink multicast stays off (it can take shared GPUs out of service).
        "NCCL_NVLS_ENABLE": "0",
        "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1",
        "NVSHMEM_DISABLE_NVLS": "1",
    }
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            f"--nproc_per_node={GPUS}",
            "--standalone",
            str(script),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-4000:]
    for rank in range(GPUS):
        assert f"rank {rank}: ok" in r.stdout
