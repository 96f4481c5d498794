"""Launch-overhead benchmark (not a test): host microseconds per launch of a tiny kernel, launches
back to back without synchronizing, for tilec (JIT launch, and an AOT-loaded kernel), Triton, a torch
add, and a plain cuda-python cuLaunchKernel of the same cubin; on the CPU, tilec's CPU target. The
"3_descriptors" rows launch a kernel taking three tensor descriptors ("_built": built at every launch).

    python bench/launch_overhead.py [--device cuda|cpu] [--json out.json]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import pathlib
import sys
import tempfile
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

import tilec  # noqa: E402
import tilec.language as tl  # noqa: E402


@tilec.jit
def tiny_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@tilec.jit
def descriptor_kernel(a, b, c, BM: tl.constexpr, BK: tl.constexpr):
    c.store([0, 0], a.load([0, 0]) + b.load([0, 0]))


def descriptor_launch(module, cls, a, b, c):
    """Three tensor descriptors built at every launch, as the attention benchmark's launches do."""
    descs = [cls.from_tensor(t, [16, 64]) for t in (a, b, c)]
    return lambda: module[(1,)](*descs, BM=16, BK=64), lambda: module[(1,)](
        *[cls.from_tensor(t, [16, 64]) for t in (a, b, c)], BM=16, BK=64
    )


def per_launch_us(fn, sync, n=500, rounds=40) -> float:
    """Host time per launch: the best of `rounds` averages over `n` back-to-back launches. `n` stays
    below the driver's queue of pending launches, so the GPU's own pace is not what is measured."""
    for _ in range(200):
        fn()
    sync()
    best = float("inf")
    for _ in range(rounds):
        sync()
        t = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t) / n * 1e6)
    sync()
    return best


def cuda_rows() -> dict:
    import torch
    from cuda.bindings import driver as cu

    dev = "cuda"
    x, y, o = (torch.randn(16, device=dev) for _ in range(3))
    sync = torch.cuda.synchronize
    rows = {}
    rows["tilec"] = per_launch_us(lambda: tiny_kernel[(1,)](x, y, o, 16, BLOCK=16), sync)
    compiled = tiny_kernel.warmup(x, y, o, 16, BLOCK=16)
    out = pathlib.Path(tempfile.mkdtemp()) / "tiny"
    tilec.aot.save(compiled, out)
    loaded = tilec.load(out)
    launch_loaded = loaded[(1,)]
    rows["tilec_aot_checked"] = per_launch_us(lambda: launch_loaded(x, y, o, 16), sync)
    rows["tilec_launch_raw"] = per_launch_us(lambda: compiled.launch((1, 1, 1), [x, y, o, 16]), sync)
    try:
        import triton
        import triton.language as ttl

        @triton.jit
        def tiny_triton(x_ptr, y_ptr, out_ptr, n, BLOCK: ttl.constexpr):
            offs = ttl.program_id(0) * BLOCK + ttl.arange(0, BLOCK)
            mask = offs < n
            ttl.store(
                out_ptr + offs,
                ttl.load(x_ptr + offs, mask=mask) + ttl.load(y_ptr + offs, mask=mask),
                mask=mask,
            )

        rows["triton"] = per_launch_us(lambda: tiny_triton[(1,)](x, y, o, 16, BLOCK=16), sync)
    except ImportError:
        pass
    rows["torch_add"] = per_launch_us(lambda: torch.add(x, y, out=o), sync)
    a, b, c = (torch.randn(256, 64, device=dev, dtype=torch.float16) for _ in range(3))
    built, building = descriptor_launch(descriptor_kernel, tilec.TensorDescriptor, a, b, c)
    rows["tilec_3_descriptors"] = per_launch_us(built, sync)
    rows["tilec_3_descriptors_built"] = per_launch_us(building, sync)
    # A plain cuda-python launch of tilec's cubin: the floor of any Python launch path through it.
    launcher = compiled._launcher
    fn = launcher.functions[0][0]
    slots = [
        ctypes.c_uint64(x.data_ptr()),
        ctypes.c_uint64(y.data_ptr()),
        ctypes.c_uint64(o.data_ptr()),
        ctypes.c_int32(16),
    ]
    params = (ctypes.c_void_p * 4)(*[ctypes.addressof(s) for s in slots])
    stream = torch.cuda.current_stream().cuda_stream
    (err,) = cu.cuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, stream, ctypes.addressof(params), 0)
    assert err == cu.CUresult.CUDA_SUCCESS, err
    rows["cuda_python_launch"] = per_launch_us(
        lambda: cu.cuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, stream, ctypes.addressof(params), 0), sync
    )
    # The same driver call through ctypes, every argument converted by ctypes.
    lib = ctypes.CDLL("libcuda.so.1")
    raw = lib.cuLaunchKernel
    raw.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p] * 3
    address = int(fn)
    rows["ctypes_cuLaunchKernel"] = per_launch_us(
        lambda: raw(address, 1, 1, 1, 128, 1, 1, 0, stream, params, None), sync
    )
    return rows


def cpu_rows() -> dict:
    import numpy as np

    x, y, o = (np.ones(16, np.float32) for _ in range(3))
    rows = {
        "tilec_cpu": per_launch_us(lambda: tiny_kernel[(1,)](x, y, o, 16, BLOCK=16), lambda: None, n=5000)
    }
    compiled = tiny_kernel.warmup(x, y, o, 16, BLOCK=16)
    rows["tilec_cpu_launch_raw"] = per_launch_us(
        lambda: compiled.launch((1, 1, 1), [x, y, o, 16]), lambda: None
    )
    rows["numpy_add"] = per_launch_us(lambda: np.add(x, y, out=o), lambda: None)
    a, b, c = (np.ones((256, 64), np.float32) for _ in range(3))
    built, building = descriptor_launch(descriptor_kernel, tilec.TensorDescriptor, a, b, c)
    rows["tilec_cpu_3_descriptors"] = per_launch_us(built, lambda: None, n=2000)
    rows["tilec_cpu_3_descriptors_built"] = per_launch_us(building, lambda: None, n=2000)
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cuda", choices=["cuda", "cpu"])
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = cuda_rows() if args.device == "cuda" else cpu_rows()
    for name, us in rows.items():
        print(f"{name:<22} {us:6.2f} us per launch", flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
