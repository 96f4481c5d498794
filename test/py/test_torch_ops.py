"""tilec kernels as PyTorch custom ops (tilec.torch): torch.compile(fullgraph=True) with dynamic
shapes, autograd, the fake implementation, the mutates_args check, and direct launches met by
torch.compile. On the CPU here; the GPU test runs the same on CUDA tensors with CUDA graphs."""

import importlib
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gpu_launch import needs_gpu  # noqa: E402

import tilec  # noqa: E402
import tilec.language as tl  # noqa: E402
import tilec.torch  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@tilec.jit
def scale_kernel(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


@tilec.jit
def add_into_kernel(acc_ptr, x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(acc_ptr + offs, tl.load(acc_ptr + offs, mask=mask) + tl.load(x_ptr + offs, mask=mask), mask=mask)


@tilec.torch.op("tilec_tests::scale")
def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    y = torch.empty_like(x)
    n = x.numel()
    scale_kernel[(tilec.cdiv(n, 128),)](x, y, n, factor, BLOCK=128)
    return y


@tilec.torch.op("tilec_tests::add_into", mutates_args=("acc",))
def add_into(acc: torch.Tensor, x: torch.Tensor) -> None:
    add_into_kernel[(tilec.cdiv(acc.numel(), 128),)](acc, x, acc.numel(), BLOCK=128)


@tilec.torch.op("tilec_tests::scale_in_place_undeclared")
def scale_in_place_undeclared(x: torch.Tensor) -> torch.Tensor:
    scale_kernel[(tilec.cdiv(x.numel(), 128),)](x, x[1:], x.numel() - 1, 2.0, BLOCK=128)
    return x.clone()


def _example(name: str):
    spec = importlib.util.spec_from_file_location(f"tilec_example_{name}", REPO / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


dynamo_testing = importlib.import_module("torch._dynamo.testing")


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def test_an_op_compiles_with_fullgraph_once_for_every_size():
    counter = dynamo_testing.CompileCounterWithBackend("aot_eager")

    def f(x):
        return scale(x.sin(), 3.0) + 1

    compiled = torch.compile(f, fullgraph=True, dynamic=True, backend=counter)
    for n in (1000, 1500, 77, 4096):
        x = torch.randn(n)
        torch.testing.assert_close(compiled(x), x.sin() * 3 + 1)
    assert counter.frame_count == 1
    assert torch._dynamo.explain(f)(torch.randn(10)).graph_break_count == 0


def test_an_op_runs_eagerly_and_under_inductor():
    x = torch.randn(3, 300)
    torch.testing.assert_close(scale(x, -2.0), x * -2)
    torch.testing.assert_close(torch.ops.tilec_tests.scale(x, 0.5), x * 0.5)
    compiled = torch.compile(lambda x: scale(x, 2.0).relu(), fullgraph=True)
    torch.testing.assert_close(compiled(x), (x * 2).relu())


def test_the_default_fake_runs_the_body_without_launching():
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        x = torch.empty(5, 7, dtype=torch.float16)
        y = scale(x, 2.0)
    assert y.shape == (5, 7) and y.dtype == torch.float16
    # the body's kernel was not launched (nor compiled) on the fake tensors: nothing was cached for
    # float16, so a real launch now compiles its first float16 specialization
    before = len(scale_kernel.cache)
    scale(torch.ones(5, 7, dtype=torch.float16), 2.0)
    assert len(scale_kernel.cache) == before + 1


def test_an_explicit_fake_is_used():
    calls = []

    def shapes(x: torch.Tensor) -> torch.Tensor:
        calls.append(x.shape)
        return torch.empty_like(x)

    @tilec.torch.op("tilec_tests::scale_with_fake", fake=shapes)
    def scale_with_fake(x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        scale_kernel[(tilec.cdiv(x.numel(), 128),)](x, y, x.numel(), 4.0, BLOCK=128)
        return y

    x = torch.randn(200)
    out = torch.compile(scale_with_fake, fullgraph=True, backend="aot_eager")(x)
    torch.testing.assert_close(out, x * 4)
    assert calls, "the given fake implementation was not called"


def test_a_declared_mutation_is_seen_by_torch_compile():
    def f(acc, x):
        add_into(acc, x)
        return acc * 2

    acc, x = torch.randn(500), torch.randn(500)
    expected = (acc + x) * 2
    got_acc = acc.clone()
    out = torch.compile(f, fullgraph=True)(got_acc, x)
    torch.testing.assert_close(out, expected)
    torch.testing.assert_close(got_acc, acc + x)  # the in-place write reached the caller's tensor


def test_a_write_to_an_undeclared_input_is_refused_before_it_happens():
    x = torch.arange(10.0)
    with pytest.raises(
        RuntimeError, match=r"writes its argument y_ptr, which holds the op's input 'x'.*mutates_args"
    ):
        scale_in_place_undeclared(x)
    torch.testing.assert_close(x, torch.arange(10.0))  # untouched


def test_launches_outside_ops_are_not_checked():
    x = torch.arange(10.0)
    scale_kernel[(1,)](x, x, 10, 2.0, BLOCK=128)  # in place, and no op promised otherwise
    torch.testing.assert_close(x, torch.arange(10.0) * 2)


def test_a_direct_launch_under_torch_compile_names_tilec_torch():
    def f(x):
        y = torch.empty_like(x)
        scale_kernel[(tilec.cdiv(x.numel(), 128),)](x, y, x.numel(), 2.0, BLOCK=128)
        return y + 1

    x = torch.randn(300)
    with pytest.raises(
        Exception, match=r"tilec kernel scale_kernel launched inside torch.compile.*tilec.torch.op"
    ):
        torch.compile(f, fullgraph=True, backend="eager")(x)
    torch._dynamo.reset()
    # without fullgraph: one graph break that says why, and the right result
    explanation = torch._dynamo.explain(f)(x)
    assert explanation.graph_break_count == 1
    assert "tilec.torch.op" in explanation.break_reasons[0].reason
    torch.testing.assert_close(torch.compile(f, backend="eager")(x), x * 2 + 1)


def test_autotuned_kernels_are_not_tuned_on_fake_tensors():
    @tilec.autotune(configs=[tilec.Config({"BLOCK": 64}), tilec.Config({"BLOCK": 256})], key=["n"])
    @tilec.jit
    def tuned_scale(x_ptr, y_ptr, n, factor, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)

    @tilec.torch.op("tilec_tests::tuned_scale")
    def tuned(x: torch.Tensor) -> torch.Tensor:
        y = torch.empty_like(x)
        n = x.numel()
        tuned_scale[lambda meta: (tilec.cdiv(n, meta["BLOCK"]),)](x, y, n, 3.0)
        return y

    x = torch.randn(1000)
    out = torch.compile(tuned, fullgraph=True, backend="aot_eager")(x)
    torch.testing.assert_close(out, x * 3)
    assert len(tuned_scale.cache) == 1  # tuned once, on the real call


def test_op_definition_errors_name_the_function():
    with pytest.raises(TypeError, match=r"test_torch_ops.py:\d+: tilec.torch.op tilec_tests::no_types"):

        @tilec.torch.op("tilec_tests::no_types")
        def no_types(x):
            return x

    with pytest.raises(TypeError, match=r"mutates_args names no parameter: \['y'\]"):

        @tilec.torch.op("tilec_tests::bad_mutates", mutates_args=("y",))
        def bad_mutates(x: torch.Tensor) -> None:
            pass


def test_layernorm_gelu_example_gradients_match_torch():
    example = _example("torch_op")
    torch.manual_seed(1)
    x = torch.randn(37, 100, dtype=torch.float64, requires_grad=True)
    w = torch.empty(100, dtype=torch.float64).uniform_(0.5, 1.5).requires_grad_()
    b = torch.randn(100, dtype=torch.float64, requires_grad=True)
    dy = torch.randn(37, 100, dtype=torch.float64)

    ours = example.layernorm_gelu(x, w, b, 1e-5)
    grads = torch.autograd.grad(ours, (x, w, b), dy)
    ref = torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, (100,), w, b, 1e-5))
    ref_grads = torch.autograd.grad(ref, (x, w, b), dy)
    torch.testing.assert_close(ours, ref)
    for g, r in zip(grads, ref_grads):
        torch.testing.assert_close(g, r, rtol=1e-9, atol=1e-9)
    assert torch.autograd.gradcheck(
        lambda x, w, b: example.layernorm_gelu(x, w, b, 1e-5), (x[:3, :16], w[:16], b[:16]), eps=1e-6
    )


def test_layernorm_gelu_example_backward_compiles_with_fullgraph():
    example = _example("torch_op")
    x = torch.randn(40, 64, requires_grad=True)
    w, b = torch.ones(64, requires_grad=True), torch.zeros(64, requires_grad=True)

    def loss(x, w, b):
        return example.layernorm_gelu(x, w, b, 1e-5).square().sum()

    eager = torch.autograd.grad(loss(x, w, b), (x, w, b))
    counter = dynamo_testing.CompileCounterWithBackend("aot_eager")
    compiled = torch.compile(loss, fullgraph=True, backend=counter)
    got = torch.autograd.grad(compiled(x, w, b), (x, w, b))
    for g, e in zip(got, eager):
        torch.testing.assert_close(g, e)
    assert counter.frame_count == 1


def test_ops_from_several_threads_check_their_own_inputs():
    from concurrent.futures import ThreadPoolExecutor

    def work(i):
        x = torch.full((256,), float(i))
        if i % 2:
            try:
                scale_in_place_undeclared(x)
            except RuntimeError:
                return "refused"
            return "ran"
        return float(scale(x, 2.0)[0])

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(work, range(32)))
    assert results[1::2] == ["refused"] * 16
    assert results[0::2] == [2.0 * i for i in range(0, 32, 2)]


@pytest.mark.gpu
@needs_gpu
def test_ops_on_cuda_tensors_with_cuda_graphs_and_streams():
    example = _example("torch_op")
    x = torch.randn(64, 512, device="cuda", requires_grad=True)
    w = torch.rand(512, device="cuda", requires_grad=True)
    b = torch.randn(512, device="cuda", requires_grad=True)

    def loss(x, w, b):
        return example.layernorm_gelu(x, w, b, 1e-5).square().mean()

    eager = torch.autograd.grad(loss(x, w, b), (x, w, b))
    graphed = torch.compile(loss, fullgraph=True, mode="reduce-overhead")
    for _ in range(3):  # recorded, then replayed as a CUDA graph
        got = torch.autograd.grad(graphed(x, w, b), (x, w, b))
    for g, e in zip(got, eager):
        torch.testing.assert_close(g, e, rtol=1e-4, atol=1e-5)

    stream = torch.cuda.Stream()
    y = torch.randn(1 << 22, device="cuda")
    with torch.cuda.stream(stream):
        out = scale(y, 2.0)  # launched on the current stream, ordered after y's producer
    stream.synchronize()
    np.testing.assert_allclose(out.cpu().numpy(), (y * 2).cpu().numpy())
