"""Compile-time Python in kernels, as Triton 3.3+ has it: `tl.tuple`, named tuples (as arguments, with
@jit functions and tl.constexpr fields in them, and made in the kernel), comprehensions and loops over
compile-time sequences, `and`/`or` that short-circuit on constants, `tl.constexpr(n)` from the host,
and the free-function forms of descriptor loads and stores."""

from typing import NamedTuple

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.jit
def _plus_one(values):
    return tl.tuple([v + 1 for v in values])


@tilec.jit
def store_each(ptrs, values):
    values = _plus_one(values)
    for i in tl.static_range(len(values)):
        tl.store(ptrs[i], values[i])


@pytest.mark.parametrize("size", [0, 1, 3])
def test_tl_tuple_and_a_list_comprehension(target, size):
    outs = tuple(np.zeros(1, np.float32) for _ in range(size))
    store_each[(1,)](outs, tuple(float(i) * 2 for i in range(size)))
    assert [o[0] for o in outs] == [2.0 * i + 1 for i in range(size)]


@tilec.jit
def tuple_arithmetic(out):
    pairs = tl.tuple((1, 2)) + (3, 4)
    tl.store(out + 0, pairs == (1, 2, 3, 4))
    tl.store(out + 1, (1, 2) == (1, 1))
    squares = tuple(x * x for x in pairs if x % 2 == 0)  # a generator expression with a condition
    for i, (x, y) in enumerate(zip(pairs, squares)):  # unrolled: compile-time sequences
        tl.store(out + 2 + i, x * 10 + y)
    tl.store(out + 4, len(squares))


def test_tuple_operations_and_loops_over_sequences(target):
    out = np.zeros(5, np.int32)
    tuple_arithmetic[(1,)](out)
    assert list(out) == [1, 0, 1 * 10 + 4, 2 * 10 + 16, 2]


class Matrix(NamedTuple):
    ptr: object
    shape: tuple
    stride: tuple


class Closure(NamedTuple):
    fn: tl.constexpr
    captured: tuple


@tilec.jit
def _view(ptr, shape, stride):
    return Matrix(shape=shape, ptr=ptr, stride=stride)  # a named tuple made in the kernel


@tilec.jit
def _inside(m, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)[:, None]
    cols = tl.arange(0, BLOCK)[None, :]
    return (rows < m.shape[0]) & (cols < m.shape[1])


@tilec.jit
def _offsets(m, BLOCK: tl.constexpr):
    return m.ptr + tl.arange(0, BLOCK)[:, None] * m.stride[0] + tl.arange(0, BLOCK)[None, :] * m.stride[1]


@tilec.jit
def apply_closure(closure, src, dst, BLOCK: tl.constexpr):
    x_view = _view(src.ptr, src.shape, src.stride)
    x = tl.load(_offsets(x_view, BLOCK), mask=_inside(x_view, BLOCK), other=0.0)
    y = closure.fn(x, *closure.captured)
    tl.store(_offsets(dst, BLOCK), y, mask=_inside(dst, BLOCK))


@tilec.jit
def scale_by(x, a_ptr):
    return x * tl.load(a_ptr)


@tilec.jit
def shift_by(x, amount):
    return x + amount


def _matrix(a):
    return Matrix(a, a.shape, tuple(s // a.itemsize for s in a.strides))


def test_named_tuple_arguments_with_a_function_in_them(target):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 32)).astype(np.float32)
    y = np.zeros((16, 8), np.float32)
    a = np.array([5.25], np.float32)
    apply_closure[(1,)](Closure(scale_by, (a,)), _matrix(x), _matrix(y), BLOCK=32)
    np.testing.assert_allclose(y, x[:16, :8] * a[0], rtol=1e-6)
    # another function in the constexpr field is another specialization, not the cached one
    apply_closure[(1,)](Closure(shift_by, (2.0,)), _matrix(x), _matrix(y), BLOCK=32)
    np.testing.assert_allclose(y, x[:16, :8] + 2.0, rtol=1e-6)
    # the fast path takes the named tuple's elements anew
    x2 = rng.standard_normal((32, 32)).astype(np.float32)
    apply_closure[(1,)](Closure(shift_by, (2.0,)), _matrix(x2), _matrix(y), BLOCK=32)
    np.testing.assert_allclose(y, x2[:16, :8] + 2.0, rtol=1e-6)


class Accumulator(NamedTuple):
    total: object
    count: object


@tilec.jit
def running_sums(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    acc = Accumulator(tl.zeros((BLOCK,), tl.float32), 0)
    for i in range(n):  # a named tuple carried through a run-time loop keeps its class
        acc = Accumulator(acc.total + tl.load(x_ptr + i * BLOCK + offs), acc.count + 1)
    tl.store(out_ptr + offs, acc.total / acc.count)


def test_named_tuple_carried_through_a_loop(target):
    x = np.random.default_rng(2).standard_normal((5, 16)).astype(np.float32)
    out = np.zeros(16, np.float32)
    running_sums[(1,)](x, out, 5, BLOCK=16)
    np.testing.assert_allclose(out, x.mean(axis=0), rtol=1e-5)


@tilec.jit
def short_circuits(out, flag):
    tl.static_assert((() and tl.program_id(0)) == ())  # the tensor side is never generated
    tl.static_assert(((1, 2) or (3, 4) or (5, 6)) == (1, 2))
    tl.static_assert(((1, 2) and (3, 4) and (5, 6)) == (5, 6))
    tl.store(out + 0, True and flag > 0)  # a constant that does not decide: the tensor's value
    tl.store(out + 1, (flag > 0) and (flag < 10))


def test_and_or_short_circuit_on_constants(target):
    out = np.zeros(2, np.int32)
    short_circuits[(1,)](out, 3)
    assert list(out) == [1, 1]
    short_circuits[(1,)](out, -3)
    assert list(out) == [0, 0]


@tilec.jit
def constants_in_tuples(out, pair, plain):
    tl.static_assert(pair[1] == 4)  # tl.constexpr(4) from the host: a constant
    tl.store(out + 0, pair[0] + pair[1] + plain)


def test_constexpr_from_the_host(target):
    out = np.zeros(1, np.int32)
    constants_in_tuples[(1,)](out, (7, tl.constexpr(4)), tl.constexpr(20))
    assert out[0] == 31
    # a plain 4 in its place is a run-time value: static_assert cannot read it
    with pytest.raises(tilec.CompilationError, match="compile-time condition"):
        constants_in_tuples[(1,)](out, (7, 4), 20)
    assert tl.constexpr(4) + 1 == 5 and isinstance(tl.constexpr(2.5), float)


@tilec.jit
def descriptor_free_functions(x_ptr, y_ptr, M, N, BLOCK: tl.constexpr):
    x = tl.make_tensor_descriptor(x_ptr, [M, N], [N, 1], [BLOCK, BLOCK])
    y = tl.make_tensor_descriptor(y_ptr, [M, N], [N, 1], [BLOCK, BLOCK])
    tl.store_tensor_descriptor(y, [0, BLOCK], tl.load_tensor_descriptor(x, [0, 0]) * 2)


def test_load_and_store_tensor_descriptor(target):
    x = np.arange(64, dtype=np.float32).reshape(4, 16)
    y = np.zeros((4, 16), np.float32)
    descriptor_free_functions[(1,)](x, y, 4, 16, BLOCK=8)
    np.testing.assert_array_equal(y[:, 8:], 2 * x[:, :8])
    np.testing.assert_array_equal(y[:, :8], 0)


@tilec.jit
def assigns_into_a_tuple(out):
    t = tl.tuple([5, 6, 7])
    t[0] = 0
    tl.store(out, t[0])


@tilec.jit
def loops_over_a_tensor(out, BLOCK: tl.constexpr):
    for v in tl.arange(0, BLOCK):
        tl.store(out, v)


@tilec.jit
def comprehension_over_a_tensor(out, BLOCK: tl.constexpr):
    t = [v for v in tl.arange(0, BLOCK)]
    tl.store(out, t[0])


@pytest.mark.parametrize(
    "kernel, message",
    [
        (assigns_into_a_tuple, "only names can be assigned"),
        (loops_over_a_tensor, "kernel loops must iterate over range"),
        (comprehension_over_a_tensor, "comprehensions must iterate over range"),
    ],
)
def test_errors_name_the_line(target, kernel, message):
    with pytest.raises(tilec.CompilationError, match=message) as info:
        kernel[(1,)](np.zeros(4, np.int32), **({"BLOCK": 4} if "BLOCK" in kernel.arg_names else {}))
    assert "test_compile_time_values.py" in str(info.value)
