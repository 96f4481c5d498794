"""`tl.map_elementwise` (a @jit function applied element by element, branches and loops per element;
`pack` elements at once)
and `return` inside run-time ifs (early exits of kernels, values returned from branches of @jit
functions), on the CPU target, the interpreter and a GPU; misuse is an error at the user's line."""

from __future__ import annotations

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def selu_scalar(x, alpha):
    if x > 0:
        return x
    else:
        return alpha * (tl.exp(x) - 1)


@tilec.jit
def halvings(x, n):
    # a loop whose trip count is the element's own: returns the value and the count
    i = 0
    while i < n:
        x = x * 0.5
        i += 1
    return x, i


@tilec.jit
def through_pointer(p, flag):
    # a scalar load per element, only where the flag says so; a boolean result
    v = 0.0
    if flag:
        v = tl.load(p)
    return v, v > 1.0


@tilec.jit
def mapped(
    x_ptr, selu_ptr, half_ptr, count_ptr, gathered_ptr, big_ptr, table_ptr, R: tl.constexpr, C: tl.constexpr
):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    x = tl.load(x_ptr + offs)
    tl.store(selu_ptr + offs, tl.map_elementwise(selu_scalar, x, 1.5))
    half, count = tl.map_elementwise(halvings, x, offs % 5)
    tl.store(half_ptr + offs, half)
    tl.store(count_ptr + offs, count)
    v, big = tl.map_elementwise(through_pointer, table_ptr + offs % 7, x > 0)
    tl.store(gathered_ptr + offs, v)
    tl.store(big_ptr + offs, big.to(tl.int32))


def _inputs(rows=4, cols=16):
    x = np.linspace(-3, 3, rows * cols).astype(np.float32).reshape(rows, cols)
    table = np.arange(7, dtype=np.float32) * 0.75
    return x, table


def _check(x, table, selu, half, count, gathered, big):
    offs = np.arange(x.size).reshape(x.shape)
    np.testing.assert_allclose(
        selu, np.where(x > 0, x, 1.5 * (np.exp(x.astype(np.float64)) - 1)), rtol=1e-5, atol=1e-6
    )
    np.testing.assert_array_equal(half, x * 0.5 ** (offs % 5))
    np.testing.assert_array_equal(count, offs % 5)
    want = np.where(x > 0, table[offs % 7], 0.0)
    np.testing.assert_array_equal(gathered, want)
    np.testing.assert_array_equal(big, (want > 1.0).astype(np.int32))


def test_map_elementwise(target):
    x, table = _inputs()
    outs = [np.zeros_like(x) for _ in range(2)] + [
        np.zeros(x.shape, np.int32),
        np.zeros_like(x),
        np.zeros(x.shape, np.int32),
    ]
    mapped[(1,)](x, *outs, table, R=4, C=16)
    _check(x, table, *outs)


@tilec.jit
def clamp_scalar(v, lo, hi):
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@tilec.jit
def on_scalars(x_ptr, out_ptr):
    # every argument a scalar: the function runs once; a chain of early returns
    tl.store(out_ptr, tl.map_elementwise(clamp_scalar, tl.load(x_ptr), -1.0, 1.0))


@pytest.mark.parametrize("value,want", [(-3.0, -1.0), (0.25, 0.25), (7.0, 1.0)])
def test_scalars_and_early_returns(target, value, want):
    out = np.zeros(1, np.float32)
    on_scalars[(1,)](np.array([value], np.float32), out)
    assert out[0] == want


@tilec.jit
def early_exit(x_ptr, count_ptr, n, BLOCK: tl.constexpr):
    # Triton's common guard: programs past the end return at once (they must not count themselves)
    pid = tl.program_id(0)
    if pid * BLOCK >= n:
        return
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + 1, mask=offs < n)
    tl.atomic_add(count_ptr, 1)


def test_kernel_early_return(target):
    x, count = np.zeros(40, np.float32), np.zeros(1, np.int32)
    early_exit[(8,)](x, count, 40, BLOCK=8)  # programs 5..7 return before touching memory
    np.testing.assert_array_equal(x, np.ones(40, np.float32))
    assert count[0] == 5


@tilec.jit
def magnitude_and_sign(v):
    if v > 0:
        return v, 1
    return -v, -1


@tilec.jit
def split_signs(x_ptr, a_ptr, s_ptr):
    pid = tl.program_id(0)
    a, s = magnitude_and_sign(tl.load(x_ptr + pid))  # a run-time if returning tuples
    tl.store(a_ptr + pid, a)
    tl.store(s_ptr + pid, s)


def test_tuples_returned_from_branches(target):
    x = np.array([-2.0, 3.0, -0.5, 4.0], np.float32)
    a, s = np.zeros(4, np.float32), np.zeros(4, np.int32)
    split_signs[(4,)](x, a, s)
    np.testing.assert_array_equal(a, np.abs(x))
    np.testing.assert_array_equal(s, np.sign(x).astype(np.int32))


@tilec.jit
def returns_in_loop(v, n):
    for i in range(n):
        if v > i:
            return v
    return v


@tilec.jit
def returns_on_one_path(v):
    if v > 0:
        return v


@tilec.jit
def misuse(x_ptr, CASE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    if CASE == 0:
        tl.map_elementwise(selu_scalar, x, 1.5, pack=3)
    elif CASE == 1:
        tl.map_elementwise(returns_in_loop, x, 3)
    elif CASE == 2:
        tl.map_elementwise(returns_on_one_path, x)
    else:
        tl.map_elementwise(lambda_free_tensor_result, x)


@tilec.jit
def lambda_free_tensor_result(v):
    return tl.full((4,), 1.0, tl.float32) * v


@pytest.mark.parametrize(
    "case,message",
    [
        (0, "tl.map_elementwise: pack must be a power of two, got 3"),
        (1, "return inside a run-time for/while loop is not supported"),
        (2, "a function that returns a value must return one on every path"),
        (3, "the function given to tl.map_elementwise must return scalars"),
    ],
)
def test_misuse_names_the_line(case, message):
    with pytest.raises(tilec.CompilationError, match=message) as info:
        misuse[(1,)](np.zeros(8, np.float32), CASE=case)
    assert "test_map_elementwise.py" in str(info.value)


@tilec.jit
def divmod_pairs(a0, a1, b0, b1):
    # pack=2: two elements of each argument, argument by argument; two values per result
    return a0 // b0, a1 // b1, a0 % b0, a1 % b1


@tilec.jit
def weighted_slots(x0, x1, x2, x3):
    # which element lands in which slot: consecutive elements, slot j weighted j + 1
    return x0 * 1.0, x1 * 2.0, x2 * 3.0, x3 * 4.0


@tilec.jit
def packed(a_ptr, b_ptr, q_ptr, r_ptr, x_ptr, w_ptr, R: tl.constexpr, C: tl.constexpr):
    offs = tl.arange(0, R)[:, None] * C + tl.arange(0, C)[None, :]
    q, r = tl.map_elementwise(divmod_pairs, tl.load(a_ptr + offs), tl.load(b_ptr + offs), pack=2)
    tl.store(q_ptr + offs, q)
    tl.store(r_ptr + offs, r)
    (w,) = tl.map_elementwise(weighted_slots, tl.load(x_ptr + offs), pack=4)
    tl.store(w_ptr + offs, w)


@tilec.jit
def odd_count(a0, a1):
    return a0 + a1, a0, a1


@tilec.jit
def packed_misuse(x_ptr, CASE: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    if CASE == 0:
        tl.map_elementwise(odd_count, x, pack=2)
    else:
        tl.map_elementwise(divmod_pairs, x, x, x, pack=4)


def _packed_inputs(rows=4, cols=16):
    rng = np.random.default_rng(8)
    a = rng.integers(-1000, 1000, (rows, cols)).astype(np.int32)
    b = (rng.integers(1, 30, (rows, cols)) * rng.choice([-1, 1], (rows, cols))).astype(np.int32)
    return a, b, rng.standard_normal((rows, cols)).astype(np.float32)


def _check_packed(a, b, x, q, r, w):
    np.testing.assert_array_equal(q, np.trunc(a / b).astype(np.int32))  # C's division, as `//` is
    np.testing.assert_array_equal(r, np.fmod(a, b))
    np.testing.assert_array_equal(w, x * np.resize(np.float32([1, 2, 3, 4]), x.shape))


def test_pack_hands_over_consecutive_elements(target):
    a, b, x = _packed_inputs()
    q, r, w = np.zeros_like(a), np.zeros_like(a), np.zeros_like(x)
    packed[(1,)](a, b, q, r, x, w, R=4, C=16)
    _check_packed(a, b, x, q, r, w)


@pytest.mark.parametrize(
    "case,message",
    [
        (0, "with pack=2 must return a multiple of 2 values"),
        (1, "takes up to 8 arguments times pack, got 3 x 4"),
    ],
)
def test_pack_misuse_names_the_line(case, message):
    with pytest.raises(tilec.CompilationError, match=message) as info:
        packed_misuse[(1,)](np.zeros(8, np.float32), CASE=case)
    assert "test_map_elementwise.py" in str(info.value)


def test_pack_compiles_for_gpus():
    signature = "*i32,*i32,*i32,*i32,*fp32,*fp32"
    for arch in ("sm_90a", "gfx942"):
        tilec.compile(packed, signature=signature, constexprs={"R": 4, "C": 64}, target=arch)


@pytest.mark.gpu
@needs_gpu
def test_pack_on_gpu():
    import torch

    a, b, x = _packed_inputs(8, 64)
    args = [torch.from_numpy(v).cuda() for v in (a, b)]
    q, r = torch.zeros_like(args[0]), torch.zeros_like(args[0])
    cx = torch.from_numpy(x).cuda()
    w = torch.zeros_like(cx)
    packed[(1,)](*args, q, r, cx, w, R=8, C=64)
    _check_packed(a, b, x, q.cpu().numpy(), r.cpu().numpy(), w.cpu().numpy())


def test_gpu_code():
    ptx = tilec.compile(
        mapped,
        signature="*fp32,*fp32,*fp32,*i32,*fp32,*i32,*fp32",
        constexprs={"R": 4, "C": 64},
        target="sm_90a",
    ).asm["ptx"]
    assert "ex2.approx" in ptx and "bra" in ptx  # the branches stay branches


@pytest.mark.gpu
@needs_gpu
def test_on_gpu():
    import torch

    x, table = _inputs(8, 64)
    cuda_x, cuda_table = torch.from_numpy(x).cuda(), torch.from_numpy(table).cuda()
    outs = [torch.zeros_like(cuda_x) for _ in range(2)] + [
        torch.zeros(x.shape, device="cuda", dtype=torch.int32),
        torch.zeros_like(cuda_x),
        torch.zeros(x.shape, device="cuda", dtype=torch.int32),
    ]
    mapped[(1,)](cuda_x, *outs, cuda_table, R=8, C=64)
    counter, count = torch.zeros(40, device="cuda"), torch.zeros(1, device="cuda", dtype=torch.int32)
    early_exit[(8,)](counter, count, 40, BLOCK=8)
    torch.cuda.synchronize()
    _check(x, table, *[o.cpu().numpy() for o in outs])
    assert torch.equal(counter, torch.ones(40, device="cuda")) and count.item() == 5
