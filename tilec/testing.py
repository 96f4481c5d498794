"""Timing and checking helpers for benchmarks, tests and the autotuner, as Triton's `triton.testing`:
`do_bench` (budgets in ms), `do_bench_cudagraph`, `Benchmark` + `perf_report` (the tutorials' benchmark tables and plots)
and `assert_close`."""

from __future__ import annotations

import statistics
import time


def _default_device() -> str:
    """Where do_bench's calls run when it is not told: the target launches pick by themselves
    (TILEC_INTERPRET / TILEC_TARGET), else "cuda" when this machine has a GPU, else "cpu"."""
    from tilec import knobs

    forced = knobs.forced_target()
    if forced:
        from tilec.targets import target_for

        return target_for(forced).device
    return "cuda" if _gpu_missing() is None else "cpu"


def _gpu_missing() -> str | None:
    """Why no GPU can be synchronized here, or None when one can."""
    try:
        import torch

        if torch.cuda.is_available():
            return None
    except ImportError:
        pass
    from tilec.targets.nvidia import runtime as nvidia

    reason = nvidia.unavailable_reason()
    if reason is None:
        return None
    from tilec.targets.amd import runtime as amd

    return None if amd.unavailable_reason() is None else reason


def _cuda_sync():
    """A function that waits for the GPU: torch's, else CuPy's, else the driver's."""
    missing = _gpu_missing()
    if missing is not None:
        raise RuntimeError(f"do_bench(device='cuda'): no GPU to time on: {missing}; use device='cpu'")
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
    device: str | None = None, quantile: float | None = None,
):  # fmt: skip
    """Milliseconds per call of `fn`: about `warmup` ms of untimed calls, then about `rep` ms of timed
    ones. On "cuda" each call is timed with CUDA events when torch is present, otherwise with host
    clocks around a device synchronization (device="cpu": host clocks only). Without `device`, "cuda"
    where this machine has a GPU and launches are not sent to the CPU target or the interpreter
    (TILEC_TARGET, TILEC_INTERPRET), else "cpu".

    As Triton's: `quantiles` (e.g. [0.5, 0.2, 0.8]) returns those quantiles of the times, in order;
    otherwise `return_mode` picks "median" (the default here; Triton's is "mean"), "mean", "min",
    "max" or "all" (every time); `grad_to_none` lists tensors whose `.grad` is reset before each
    call. `quantile` (one number) is tilec's older form of `quantiles=[q]`."""
    _check_return_mode("do_bench", return_mode)
    device = _default_device() if device is None else str(device).split(":")[0]  # "cuda:1" is "cuda"
    if device not in ("cuda", "cpu"):
        raise ValueError(f"do_bench: device must be 'cuda' or 'cpu', got {device!r}")
    fn = _resetting_grads(fn, grad_to_none)
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
    return _summary(times, quantiles, return_mode)


def do_bench_cudagraph(fn, rep: float = 20, grad_to_none=None, quantiles=None, return_mode: str = "mean"):
    """Milliseconds per call of `fn` replayed from a CUDA graph (torch's), so that the host's launch
    overhead, which do_bench measures too, is left out. As Triton's: about `rep` ms worth of calls are
    captured one after another in a graph, the graph is replayed 10 times, and each replay's time is
    divided by the calls it holds; `return_mode` ("mean" by default, as in Triton), `quantiles` and
    `grad_to_none` as in do_bench. `fn` runs once before the capture, so its kernels are compiled and
    loaded outside it."""
    _check_return_mode("do_bench_cudagraph", return_mode)
    try:
        import torch
    except ImportError:
        torch = None
    if torch is None or not torch.cuda.is_available():
        raise RuntimeError("do_bench_cudagraph needs torch with a CUDA GPU (CUDA graphs are torch's here)")
    fn = _resetting_grads(fn, grad_to_none)
    begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(torch.cuda.Stream()):  # capture is not allowed on the legacy default stream
        fn()
        torch.cuda.synchronize()
        begin.record()
        for _ in range(5):
            fn()
        end.record()
        end.synchronize()
        estimate_ms = begin.elapsed_time(end) / 5
        calls = 1000 if estimate_ms <= 0 else max(1, int(rep / estimate_ms))
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                fn()
        torch.cuda.synchronize()
        times = []
        for _ in range(10):
            begin.record()
            graph.replay()
            end.record()
            end.synchronize()
            times.append(begin.elapsed_time(end) / calls)
    return _summary(times, quantiles, return_mode)


def _check_return_mode(who: str, return_mode: str) -> None:
    if return_mode not in ("median", "mean", "min", "max", "all"):
        raise ValueError(f"{who}: return_mode must be median, mean, min, max or all, got {return_mode!r}")


def _resetting_grads(fn, grad_to_none):
    """`fn`, resetting the `.grad` of the tensors in `grad_to_none` before each call."""
    if not grad_to_none:
        return fn

    def resetting():
        for x in grad_to_none:
            x.grad = None
        return fn()

    return resetting


def _summary(times: list, quantiles, return_mode: str):
    """`times` reduced as do_bench's `quantiles` / `return_mode` ask."""
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


def assert_close(x, y, atol=None, rtol=None, err_msg: str = "") -> None:
    """Element-wise |x - y| <= atol + rtol * |y| (NumPy arrays, torch tensors on any device, or
    numbers), as Triton's; the defaults follow the less precise dtype (1e-2 for 16-bit floats, 1e-5
    otherwise). NaNs must match."""
    import numpy as np

    def host(v):
        if hasattr(v, "detach"):  # torch: to the host, bf16 and fp8 as fp32 (NumPy has neither)
            v = v.detach().cpu()
            if str(v.dtype) in ("torch.bfloat16",) or "float8" in str(v.dtype):
                v = v.float()
            return v.numpy()
        if hasattr(v, "get") and not isinstance(v, dict):  # CuPy
            return v.get()
        return np.asarray(v)

    a, b = host(x), host(y)
    narrow = any(
        getattr(v, "dtype", np.dtype(np.float64)).itemsize <= 2 and v.dtype.kind == "f" for v in (a, b)
    )
    atol = (1e-2 if narrow else 1e-5) if atol is None else atol
    rtol = (1e-2 if narrow else 1e-5) if rtol is None else rtol
    np.testing.assert_allclose(
        a.astype(np.float64), b.astype(np.float64), atol=atol, rtol=rtol, equal_nan=True, err_msg=err_msg
    )


class Benchmark:
    """One benchmark table (Triton's `triton.testing.Benchmark`): `x_names` take each of `x_vals`,
    `line_arg` each of `line_vals` (one column each, named `line_names`), `args` are fixed;
    `ylabel`, `plot_name`, `styles`, `x_log`, `y_log` shape the plot."""

    def __init__(
        self, x_names, x_vals, line_arg, line_vals, line_names, plot_name, args=None, xlabel="", ylabel="",
        x_log=False, y_log=False, styles=None, color=None,
    ):  # fmt: skip
        self.x_names, self.x_vals = list(x_names), list(x_vals)
        self.line_arg, self.line_vals, self.line_names = line_arg, list(line_vals), list(line_names)
        self.plot_name, self.args = plot_name, dict(args or {})
        self.xlabel, self.ylabel, self.x_log, self.y_log = xlabel, ylabel, x_log, y_log
        self.styles, self.color = styles, color


class Mark:
    """What `perf_report` returns: `run(print_data=, show_plots=, save_path=)` measures every point
    and returns the table (a list of rows, or one per benchmark)."""

    def __init__(self, fn, benchmarks):
        self.fn, self.benchmarks = fn, benchmarks

    def _table(self, bench: Benchmark, **kwargs) -> tuple[list[str], list[list]]:
        columns = [*bench.x_names]
        for name in bench.line_names:
            columns += [name, f"{name}-min", f"{name}-max"]
        rows = []
        for x in bench.x_vals:
            xs = x if isinstance(x, list | tuple) else [x] * len(bench.x_names)
            point = dict(zip(bench.x_names, xs))
            row = list(xs)
            for value in bench.line_vals:
                result = self.fn(**point, **{bench.line_arg: value}, **bench.args, **kwargs)
                mid, low, high = (result, result, result) if not isinstance(result, tuple | list) else result
                row += [mid, low, high]
            rows.append(row)
        return columns, rows

    def run(self, show_plots=False, print_data=False, save_path="", return_df=False, **kwargs):
        tables = []
        for bench in self.benchmarks if isinstance(self.benchmarks, list) else [self.benchmarks]:
            columns, rows = self._table(bench, **kwargs)
            shown = [c for c in columns if not c.endswith(("-min", "-max"))]
            keep = [columns.index(c) for c in shown]
            if print_data:
                print(f"{bench.plot_name}:")
                print("  ".join(f"{c:>14}" for c in shown))
                for row in rows:
                    print(
                        "  ".join(
                            f"{row[i]:>14.6g}" if isinstance(row[i], float) else f"{row[i]!s:>14}"
                            for i in keep
                        )
                    )
            if save_path:
                import csv
                import os

                os.makedirs(save_path, exist_ok=True)
                with open(os.path.join(save_path, f"{bench.plot_name}.csv"), "w", newline="") as f:
                    writer = csv.writer(f)
                    writer.writerow(shown)
                    writer.writerows([[row[i] for i in keep] for row in rows])
            if show_plots or save_path:
                self._plot(bench, columns, rows, show_plots, save_path)
            tables.append([dict(zip(columns, row)) for row in rows])
        return tables[0] if len(tables) == 1 else tables

    @staticmethod
    def _plot(bench, columns, rows, show, save_path) -> None:
        try:
            import matplotlib.pyplot as plt
        except ImportError:  # a table without a plot: matplotlib is optional
            return
        fig, ax = plt.subplots()
        xs = [row[0] for row in rows]
        for k, name in enumerate(bench.line_names):
            i = columns.index(name)
            style = bench.styles[k] if bench.styles else None
            ax.plot(
                xs,
                [row[i] for row in rows],
                label=name,
                **({"color": style[0], "ls": style[1]} if style else {}),
            )
        ax.set_xlabel(bench.xlabel or bench.x_names[0])
        ax.set_ylabel(bench.ylabel)
        ax.set_xscale("log" if bench.x_log else "linear")
        ax.set_yscale("log" if bench.y_log else "linear")
        ax.legend()
        if save_path:
            import os

            fig.savefig(os.path.join(save_path, f"{bench.plot_name}.png"))
        if show:
            plt.show()
        plt.close(fig)


def perf_report(benchmarks):
    """Decorator (Triton's `triton.testing.perf_report`): `fn(**point)` returns a time or a GB/s
    figure, or (mid, min, max); the decorated function's `run(...)` makes the table."""
    return lambda fn: Mark(fn, benchmarks)
