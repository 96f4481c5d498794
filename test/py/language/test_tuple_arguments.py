"""Tuple arguments (Triton 3.3's): `kernel[grid]((x, y), ...)`, elements of any argument kind, nested,
passed on to helpers; each element is a kernel argument of its own ("t[0]", "t[1][0]")."""

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def _scaled_sum(ptrs, scales, offs, mask):
    acc = tl.zeros(offs.shape, tl.float32)
    for i in tl.static_range(len(ptrs)):
        acc += tl.load(ptrs[i] + offs, mask=mask, other=0.0) * scales[i]
    return acc


@tilec.jit
def weighted_sum(ptrs, scales, out_and_n, BLOCK: tl.constexpr):
    out, n = out_and_n
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = _scaled_sum(ptrs, scales, offs, offs < n)
    tl.store(out + offs, acc, mask=offs < n)


@tilec.jit
def nested(pair_of_pairs, maybe, out, BLOCK: tl.constexpr):
    (a, b), (c, (k,)) = pair_of_pairs
    offs = tl.arange(0, BLOCK)
    x = tl.load(a + offs) + tl.load(b + offs) * c
    if maybe[0] is not None:
        x += tl.load(maybe[0] + offs)
    tl.store(out + offs, x * k)


def test_tuple_of_arrays_and_scalars(target):
    rng = np.random.default_rng(0)
    xs = [rng.standard_normal(100).astype(np.float32) for _ in range(3)]
    out = np.zeros(100, np.float32)
    weighted_sum[(4,)](tuple(xs), (1.0, 2, 0.5), (out, 100), BLOCK=32)
    np.testing.assert_allclose(out, xs[0] + 2 * xs[1] + 0.5 * xs[2], rtol=1e-6)
    # again with other arrays (the launch's fast path takes the elements anew), then a shorter tuple
    ys = [rng.standard_normal(100).astype(np.float32) for _ in range(3)]
    weighted_sum[(4,)](tuple(ys), (1.0, 2, 0.5), (out, 100), BLOCK=32)
    np.testing.assert_allclose(out, ys[0] + 2 * ys[1] + 0.5 * ys[2], rtol=1e-6)
    weighted_sum[(4,)]((ys[0], ys[1]), scales=(3.0, 1), out_and_n=(out, 100), BLOCK=32)
    np.testing.assert_allclose(out, 3 * ys[0] + ys[1], rtol=1e-6)


def test_nested_tuples_with_none(target):
    rng = np.random.default_rng(1)
    a, b, d = (rng.standard_normal(16).astype(np.float32) for _ in range(3))
    out = np.zeros(16, np.float32)
    nested[(1,)](((a, b), (2.0, (3,))), (None,), out, BLOCK=16)
    np.testing.assert_allclose(out, (a + 2 * b) * 3, rtol=1e-6)
    nested[(1,)](((a, b), (2.0, (3,))), (d,), out, BLOCK=16)
    np.testing.assert_allclose(out, (a + 2 * b + d) * 3, rtol=1e-6)


@pytest.mark.parametrize("arch", ["sm_90a", "gfx942"])
def test_tuple_elements_are_kernel_arguments(arch, monkeypatch):
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    xs = tuple(np.zeros(16, np.float32) for _ in range(3))
    compiled = weighted_sum.warmup(xs, (1.0, 2, 0.5), (xs[0], 16), BLOCK=16, grid=(1,), target=arch)
    assert compiled.arg_names == [
        "ptrs[0]", "ptrs[1]", "ptrs[2]", "scales[0]", "scales[1]", "scales[2]", "out_and_n[0]", "out_and_n[1]"
    ]  # fmt: skip
    if arch == "sm_90a":
        ptx = compiled.asm["ptx"]
        assert ptx.count("ld.global") == 3 and ptx.count("st.global") == 1


def test_tuple_with_a_descriptor_is_refused(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    x = np.zeros((16, 16), np.float32)
    desc = tilec.TensorDescriptor.from_tensor(x, [16, 16])
    with pytest.raises(TypeError, match="a tensor descriptor inside a tuple is not supported"):
        weighted_sum[(1,)]((desc,), (1.0,), (x, 16), BLOCK=16)


@pytest.mark.gpu
@needs_gpu
def test_tuple_arguments_on_gpu():
    import torch

    xs = [torch.randn(100, device="cuda") for _ in range(3)]
    out = torch.zeros(100, device="cuda")
    weighted_sum[(4,)](tuple(xs), (1.0, 2, 0.5), (out, 100), BLOCK=32)
    torch.testing.assert_close(out, xs[0] + 2 * xs[1] + 0.5 * xs[2])
