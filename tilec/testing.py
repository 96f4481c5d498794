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


def do_bench(
    fn, warmup: float = 25, rep: float = 100, grad_to_none=None, quantiles=None, return_mode: str = "median",
    device: str = "cuda", quantile: float | None = None,
):  # fmt: skip
    """Milliseconds per call of `fn`: about `warmup` ms of untimed calls, then about `rep` ms of timed
    ones. On "cuda" each call is timed with CUDA events when torch is present, otherwise with host
    clocks around a device synchronization (device="cpu": host clocks only).

    As Triton's: `quantiles` (e.g. [0.5, 0.2, 0.8]) returns those quantiles of the times, in order;
    otherwise `return_mode` picks "median" (the default here; Triton's is "mean"), "mean", "min",
    "max" or "all" (every time); `grad_to_none` lists tensors whose `.grad` is reset before each
    call. `quantile` (one number) is tilec's older form of `quantiles=[q]`."""
    if return_mode not in ("median", "mean", "min", "max", "all"):
        raise ValueError(f"do_bench: return_mode must be median, mean, min, max or all, got {return_mode!r}")
    if grad_to_none:
        timed_fn = fn

        def fn():
            for x in grad_to_none:
                x.grad = None
            return timed_fn()

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
    if quantile is not None and quantiles is None:
        return _quantiles(times, [quantile])[0]
    if quantiles is not None:
        found = _quantiles(times, list(quantiles))
        return found[0] if len(found) == 1 else found
    if return_mode == "all":
        return times
    return {"median": statistics.median, "mean": statistics.fmean, "min": min, "max": max}[return_mode](times)


def _quantiles(times: list, qs: list) -> list:
    """Linearly interpolated quantiles (torch.quantile's, which Triton uses)."""
    ordered = sorted(times)
    out = []
    for q in qs:
        if not 0 <= q <= 1:
            raise ValueError(f"do_bench: quantiles must lie in [0, 1], got {q}")
        position = q * (len(ordered) - 1)
        low = int(position)
        high = min(low + 1, len(ordered) - 1)
        out.append(ordered[low] + (ordered[high] - ordered[low]) * (position - low))
    return out
