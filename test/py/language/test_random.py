"""Counter-based random numbers (`tl.philox`, `tl.randint`, `tl.rand`, `tl.randn` and their 4x forms):
Philox's published known answers, the conversions to floats, a dropout kernel; on the CPU target and
the interpreter; on a GPU, the same numbers as Triton's generator bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def philox_words(c_ptr, out_ptr, seed, B: tl.constexpr):
    i = 4 * tl.arange(0, B)
    c0, c1 = tl.load(c_ptr + i), tl.load(c_ptr + i + 1)
    r = tl.philox(seed, c0, c1, tl.load(c_ptr + i + 2), tl.load(c_ptr + i + 3))
    for w in tl.static_range(4):
        tl.store(out_ptr + i + w, r[w])


# Known answers of Philox-4x32-10 and 4x64-10 (Random123's kat_vectors): key, counter, result
KNOWN_32 = [
    ((0, 0), (0, 0, 0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 4, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    (
        (0xA4093822, 0x299F31D0),
        (0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1),
    ),
]
KNOWN_64_ZERO = (0x16554D9ECA36314C, 0xDB20FE9D672D0FDC, 0xD7E772CEE186176B, 0x7E68B68AEC7BA23B)


@pytest.mark.parametrize("key,counter,expected", KNOWN_32)
def test_philox_4x32_known_answers(target, key, counter, expected):
    c = np.array([counter, counter], np.uint32).ravel()
    out = np.zeros(8, np.uint32)
    philox_words[(1,)](c, out, key[0] | key[1] << 32, B=2)  # the seed's low and high halves are the key
    assert out.reshape(2, 4).tolist() == [list(expected)] * 2


def test_philox_4x64_known_answer(target):
    c = np.zeros(8, np.uint64)
    out = np.zeros(8, np.uint64)
    philox_words[(1,)](c, out, 0, B=2)
    assert out.reshape(2, 4).tolist() == [list(KNOWN_64_ZERO)] * 2


@tilec.jit
def draw(out_ptr, seed, n, KIND: tl.constexpr, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    if KIND == "randint":
        values = tl.randint(seed, offs)
    elif KIND == "rand":
        values = tl.rand(seed, offs)
    elif KIND == "randn":
        values = tl.randn(seed, offs)
    elif KIND == "rand4x":
        a, b, c, d = tl.rand4x(seed, offs)
        values = (a + b + c + d) * 0.25
    else:
        a, b, c, d = tl.randn4x(seed, offs)
        values = (a + b + c + d) * 0.5  # the sum of 4 independent normals, scaled back to unit variance
    tl.store(out_ptr + offs, values, mask=offs < n)


def _draw(kind, seed, n=1 << 14, dtype=np.float32):
    out = np.zeros(n, dtype)
    draw[(tilec.cdiv(n, 1024),)](out, seed, n, KIND=kind, B=1024)
    return out


def test_randint_is_the_first_philox_word(target):
    bits = _draw("randint", 42, n=2048, dtype=np.uint32)
    c = np.zeros((2048, 4), np.uint32)
    c[:, 0] = np.arange(2048)
    words = np.zeros(4 * 2048, np.uint32)
    philox_words[(1,)](c.ravel(), words, 42, B=2048)
    np.testing.assert_array_equal(bits, words.reshape(-1, 4)[:, 0])


def test_uniforms_are_the_bits_scaled(target):
    bits = _draw("randint", 7, n=4096, dtype=np.uint32)
    uniform = _draw("rand", 7, n=4096)
    signed = bits.view(np.int32).astype(np.int64)
    folded = np.where(signed < 0, -signed - 1, signed).astype(np.float32)
    np.testing.assert_array_equal(uniform, folded * np.float32(4.6566127342e-10))


@pytest.mark.parametrize("kind,mean,std", [("rand", 0.5, 12**-0.5), ("rand4x", 0.5, 48**-0.5),
                                            ("randn", 0.0, 1.0), ("randn4x", 0.0, 1.0)])  # fmt: skip
def test_distributions(target, kind, mean, std):
    values = _draw(kind, 1234)
    if kind.startswith("rand") and not kind.startswith("randn"):
        assert values.min() >= 0.0 and values.max() < 1.0
    n = values.size
    assert abs(values.mean() - mean) < 5 * std / n**0.5
    assert abs(values.std() - std) < 0.03 * std


def test_same_seed_same_numbers_other_seed_others(target):
    a, b, c = _draw("rand", 5), _draw("rand", 5), _draw("rand", 6)
    np.testing.assert_array_equal(a, b)
    assert np.mean(a == c) < 0.01


@tilec.jit
def dropout(x_ptr, out_ptr, n, p, seed, B: tl.constexpr):
    """Triton's low-memory dropout: the mask is recomputed from (seed, offset), never stored."""
    offs = tl.program_id(0) * B + tl.arange(0, B)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    keep = tl.rand(seed, offs) > p
    tl.store(out_ptr + offs, tl.where(keep, x / (1 - p), 0.0), mask=mask)


def test_dropout(target):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(10_000).astype(np.float32) + 3.0  # never 0 itself
    out = np.zeros_like(x)
    dropout[(tilec.cdiv(x.size, 1024),)](x, out, x.size, 0.25, 99, B=1024)
    kept = out != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(out[kept], x[kept] / 0.75, rtol=1e-6)
    again = np.zeros_like(x)
    dropout[(tilec.cdiv(x.size, 1024),)](x, again, x.size, 0.25, 99, B=1024)
    np.testing.assert_array_equal(again, out)


@tilec.jit
def bad_offsets(out_ptr, B: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, B), tl.rand(1, tl.arange(0, B).to(tl.float32)))


@tilec.jit
def bad_seed(out_ptr, B: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, B), tl.rand(tl.arange(0, B), tl.arange(0, B)))


@pytest.mark.parametrize(
    "kernel,message",
    [(bad_offsets, "offsets must be integers, got fp32"), (bad_seed, "seed must be an integer scalar")],
)
def test_misuse_names_the_line(kernel, message):
    with pytest.raises(tilec.CompilationError, match=message) as info:
        kernel[(1,)](np.zeros(8, np.float32), B=8)
    assert "test_random.py" in str(info.value)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("kind", ["randint", "rand", "randn", "rand4x", "randn4x"])
def test_same_numbers_as_triton_on_gpu(kind):
    """The numbers Triton's generator draws for the same kernel: randint bit for bit, the floats to
    the last bit too (the same operations), the Box-Muller normals to 1e-4 (on the H200 one value in
    65536 differed by 1.2e-5: sin/cos/log go through approximate hardware units, differently)."""
    torch = pytest.importorskip("torch")
    triton = pytest.importorskip("triton")
    import triton.language as ttl

    @triton.jit
    def triton_draw(out_ptr, seed, n, KIND: ttl.constexpr, B: ttl.constexpr):
        offs = ttl.program_id(0) * B + ttl.arange(0, B)
        if KIND == "randint":
            values = ttl.randint(seed, offs)
        elif KIND == "rand":
            values = ttl.rand(seed, offs)
        elif KIND == "randn":
            values = ttl.randn(seed, offs)
        elif KIND == "rand4x":
            a, b, c, d = ttl.rand4x(seed, offs)
            values = (a + b + c + d) * 0.25
        else:
            a, b, c, d = ttl.randn4x(seed, offs)
            values = (a + b + c + d) * 0.5
        ttl.store(out_ptr + offs, values, mask=offs < n)

    n = 1 << 16
    dtype = torch.int32 if kind == "randint" else torch.float32
    ours, theirs = (torch.zeros(n, device="cuda", dtype=dtype) for _ in range(2))
    for seed in (0, 12345, 2**40 + 3):
        draw[(n // 1024,)](ours, seed, n, KIND=kind, B=1024)
        triton_draw[(n // 1024,)](theirs, seed, n, KIND=kind, B=1024)
        if kind.startswith("randn"):
            torch.testing.assert_close(ours, theirs, rtol=1e-4, atol=1e-4)
        else:
            assert torch.equal(ours, theirs)
