"""Kernels launched inside a CUDA graph capture (torch.cuda.graph) replay correctly: the launcher
issues nothing but the kernel on the capturing stream (no synchronization, no allocation), and the
arguments, tensor maps included, are captured by value as for any CUDA kernel."""

import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl
from tilec.testing import do_bench_cudagraph

pytestmark = [pytest.mark.gpu, needs_gpu]


@tilec.jit
def axpy(x_ptr, y_ptr, out_ptr, a, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(
        out_ptr + offs, a * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask
    )


@tilec.jit
def row_sums(x_desc, out_ptr, BM: tl.constexpr, BN: tl.constexpr):
    m0 = tl.program_id(0) * BM
    acc = tl.zeros((BM,), tl.float32)
    for n in range(0, tl.cdiv(x_desc.shape[1], BN)):
        acc += tl.sum(x_desc.load([m0, n * BN]).to(tl.float32), axis=1)
    rows = m0 + tl.arange(0, BM)
    tl.store(out_ptr + rows, acc, mask=rows < x_desc.shape[0])


def test_pointer_and_descriptor_kernels_replay_from_a_cuda_graph():
    import torch

    n = 10_000
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    m = torch.randn(300, 256, device="cuda", dtype=torch.float16)
    sums = torch.empty(300, device="cuda")
    desc = tilec.TensorDescriptor.from_tensor(m, [64, 64])

    def step():
        axpy[(tilec.cdiv(n, 1024),)](x, y, out, 2.0, n, BLOCK=1024)
        row_sums[(tilec.cdiv(300, 64),)](desc, sums, BM=64, BN=64)

    stream = torch.cuda.Stream()
    with torch.cuda.stream(stream):
        step()  # compiled and loaded before the capture
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        step()
    for _ in range(2):
        x.copy_(torch.randn(n, device="cuda"))  # the graph reads the tensors it captured
        m.copy_(torch.randn(300, 256, device="cuda", dtype=torch.float16))
        out.zero_()
        sums.zero_()
        graph.replay()
        torch.cuda.synchronize()
        torch.testing.assert_close(out, 2.0 * x + y)
        torch.testing.assert_close(sums, m.float().sum(1), atol=1e-2, rtol=1e-3)


def test_do_bench_cudagraph_times_replays():
    import torch

    n = 1 << 20
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)

    def run():
        axpy[(n // 1024,)](x, y, out, 3.0, n, BLOCK=1024)

    ms = do_bench_cudagraph(run, rep=10)
    assert 0 < ms < 1.0  # 12 MB moved: microseconds, not the launch overhead of milliseconds
    low, mid = do_bench_cudagraph(run, rep=10, quantiles=[0.1, 0.5])
    assert 0 < low <= mid
    torch.testing.assert_close(out, 3.0 * x + y)
