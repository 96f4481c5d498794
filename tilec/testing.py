"""Timing helpers for benchmarks and the autotuner (Triton's `do_bench` semantics: budgets in ms)."""

from __future__ import annotations

import statistics
import time


def _cuda_sync():
    """A function that waits for the GPU: torch's, else CuPy's, else the driver's."""
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.synchronize
    except ImportError:
        pass
    try:
        import cupy

        return cupy.cuda.runtime.deviceSynchronize
    except ImportError:
        pass
    from tilec.targets.nvidia.runtime import synchronize

    return synchronize


def do_bench(fn, warmup: float = 25, rep: float = 100, device: str = "cuda", quantile: float = 0.5) -> float:
    """Milliseconds per call of `fn` (the median by default): about `warmup` ms of untimed calls, then
    about `rep` ms of timed ones. On "cuda" each call is timed with CUDA events when torch is present,
    otherwise with host clocks around a device synchronization."""
    sync = _cuda_sync() if device == "cuda" else (lambda: None)
    fn()
    sync()
    start = time.perf_counter()
    for _ in range(3):
        fn()
    sync()
    estimate_ms = max((time.perf_counter() - start) * 1e3 / 3, 1e-4)
    n_warmup = max(1, int(warmup / estimate_ms))
    n_rep = max(3, min(10000, int(rep / estimate_ms)))
    for _ in range(n_warmup):
        fn()
    sync()
    times = []
    events = None
    if device == "cuda":
        try:
            import torch

            events = [
                (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                for _ in range(n_rep)
            ]
        except (ImportError, RuntimeError):
            events = None
    if events is not None:
        for begin, end in events:
            begin.record()
            fn()
            end.record()
        sync()
        times = [b.elapsed_time(e) for b, e in events]
    else:
        for _ in range(n_rep):
            t0 = time.perf_counter()
            fn()
            sync()
            times.append((time.perf_counter() - t0) * 1e3)
    if quantile == 0.5:
        return statistics.median(times)
    times.sort()
    return times[min(len(times) - 1, int(quantile * len(times)))]
