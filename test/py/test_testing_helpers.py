"""tilec.testing's Triton helpers: Benchmark + perf_report (the tutorials' benchmark tables) and
assert_close."""

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl
import tilec.testing


@tilec.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


@tilec.testing.perf_report(
    tilec.testing.Benchmark(
        x_names=["size"], x_vals=[1024, 4096], x_log=True, line_arg="provider", line_vals=["tilec", "numpy"],
        line_names=["tilec", "NumPy"], styles=[("blue", "-"), ("green", "-")], ylabel="GB/s",
        plot_name="vector-add", args={"scale": 2.0},
    )
)  # fmt: skip
def vector_add_bandwidth(size, provider, scale):
    x, y = np.full(size, scale, np.float32), np.ones(size, np.float32)
    out = np.empty_like(x)
    if provider == "numpy":
        run = lambda: np.add(x, y, out=out)  # noqa: E731
    else:
        run = lambda: add[(tilec.cdiv(size, 256),)](x, y, out, size, BLOCK=256)  # noqa: E731
    ms, low, high = tilec.testing.do_bench(run, quantiles=[0.5, 0.2, 0.8], warmup=1, rep=2, device="cpu")
    np.testing.assert_array_equal(out, 3.0)
    gbps = lambda t: 3 * x.nbytes * 1e-9 / (t * 1e-3)  # noqa: E731
    return gbps(ms), gbps(high), gbps(low)


def test_perf_report_table_csv_and_plot(tmp_path, capsys):
    table = vector_add_bandwidth.run(print_data=True, save_path=str(tmp_path))
    assert [row["size"] for row in table] == [1024, 4096]
    assert all(row["tilec"] > 0 and row["NumPy-min"] <= row["NumPy"] <= row["NumPy-max"] for row in table)
    printed = capsys.readouterr().out
    assert "vector-add:" in printed and "tilec" in printed and "NumPy" in printed
    assert (tmp_path / "vector-add.csv").read_text().splitlines()[0] == "size,tilec,NumPy"


def test_assert_close():
    tilec.testing.assert_close(np.ones(4, np.float16), np.full(4, 1.001, np.float32))  # fp16: 1e-2
    tilec.testing.assert_close(np.array([np.nan, 1.0]), np.array([np.nan, 1.0]))
    with pytest.raises(AssertionError):
        tilec.testing.assert_close(np.ones(4), np.full(4, 1.001))
    with pytest.raises(AssertionError):
        tilec.testing.assert_close(np.ones(4), np.full(4, 1.001), rtol=1e-4, atol=0)


def test_runtime_driver_on_the_host(monkeypatch):
    from tilec.runtime import GPUTarget, _ActiveDriver

    active = _ActiveDriver()
    monkeypatch.setattr(_ActiveDriver, "backend", "cpu")  # whatever this machine has
    assert active.get_current_target() == GPUTarget("cpu", "host", 1)
    props = active.utils.get_device_properties(0)
    assert props["multiprocessor_count"] >= 1 and props["warpSize"] == 1
    # real figures, not zeros that launch code would divide by: vector register lanes, the L2
    assert props["max_num_regs"] >= 64 and props["max_shared_mem"] >= 32 * 1024
    assert active.utils.get_device_properties(None) == props  # a CPU torch.device's index
    assert active.get_device_interface() is None


def test_do_bench_cudagraph_needs_a_gpu():
    from tilec.testing import do_bench_cudagraph

    try:
        import torch

        if torch.cuda.is_available():
            pytest.skip("a GPU is there (test_cuda_graphs.py times it)")
    except ImportError:
        pass
    with pytest.raises(RuntimeError, match="do_bench_cudagraph needs torch with a CUDA GPU"):
        do_bench_cudagraph(lambda: None)
    with pytest.raises(ValueError, match="return_mode must be"):
        do_bench_cudagraph(lambda: None, return_mode="fastest")


@pytest.mark.gpu
@needs_gpu
def test_runtime_driver_on_a_gpu():
    from tilec.runtime import driver

    target = driver.active.get_current_target()
    props = driver.active.utils.get_device_properties(0)
    assert target.backend in ("cuda", "hip")
    assert props["multiprocessor_count"] > 0 and props["max_shared_mem"] >= 48 * 1024
    assert props["warpSize"] == target.warp_size and props["max_num_regs"] >= 32768
