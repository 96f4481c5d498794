"""`@tilec.aggregate` classes and `@tilec.constexpr_function` (Triton 3.5's `triton.aggregate` and
`triton.constexpr_function`), `tl.to_tensor`, `:=` and the unpacking errors in kernels."""

import numpy as np
import pytest

import tilec
import tilec.language as tl


@tilec.aggregate
class Pair:
    first: tl.tensor
    second: tl.tensor

    @tilec.jit
    def get_first(self):
        return self.first

    def get_second(self, _semantic=None):  # a plain method, Triton's builtin form
        return self.second

    @tilec.jit
    def unpack(self):
        return self.get_first(), self.get_second()

    def __getitem__(self, index):
        return self.first if index == 0 else self.second


@tilec.aggregate
class WithConstant:
    a: tl.tensor
    b: tl.constexpr

    @staticmethod
    def create(a):
        return WithConstant(a, tl.constexpr(42))


@tilec.aggregate
class Shifted:
    value: tl.tensor

    @tilec.jit
    def __getitem__(self, amount):  # a @jit special method: Python's x[i] reaches the code generator
        return self.value + amount


@tilec.aggregate
class Initialized:
    value: tl.tensor

    def __init__(self, n, _semantic=None):
        self.value = tl.arange(0, 4, _semantic=_semantic) * n


@tilec.constexpr_function
def next_size(x):
    return x * 2


@tilec.aggregate
class Squares:
    val: tl.constexpr
    squared: tl.constexpr

    def __init__(self, val):
        self.val = val
        self.squared = self.square()

    @tilec.constexpr_function
    def square(self):
        return self.val * self.val


@tilec.jit
def _plus_constant(agg):
    return agg.a + agg.b


@tilec.jit
def members(out):
    pair = Pair(tl.arange(0, 4), 11)
    a, b = pair.unpack()
    tl.store(out + tl.arange(0, 4), a + b + pair[1])
    tl.store(out + 4 + tl.arange(0, 4), _plus_constant(WithConstant.create(tl.arange(0, 4))))
    tl.store(out + 8 + tl.arange(0, 4), Shifted(tl.arange(0, 4))[100])
    size: tl.constexpr = next_size(2)
    tl.store(out + 12 + tl.arange(0, size), Initialized(3).value)
    squares = Squares(4)
    tl.static_assert(squares.squared == 16)
    tl.store(out + 16, squares.val + squares.squared + squares.square())


def test_aggregate_fields_and_methods(target):
    out = np.zeros(17, np.int32)
    members[(1,)](out)
    expected = [*range(22, 26), *range(42, 46), *range(100, 104), 0, 3, 6, 9, 4 + 16 + 16]
    assert list(out) == expected


@tilec.aggregate
class RunningMean:
    total: tl.tensor
    count: tl.tensor
    SCALE: tl.constexpr

    @tilec.jit
    def add(self, x):
        return RunningMean(self.total + x * self.SCALE, self.count + 1, self.SCALE)


@tilec.jit
def running_mean(x_ptr, out, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    state = RunningMean(tl.zeros((BLOCK,), tl.float32), 0, 2.0)
    for i in range(n):  # carried field by field; the constexpr field stays a constant
        state = state.add(tl.load(x_ptr + i * BLOCK + offs))
    if n > 2:  # merged by a run-time if
        state = RunningMean(state.total + 1, state.count, state.SCALE)
    tl.static_assert(state.SCALE == 2.0)
    tl.store(out + offs, state.total / state.count)


@pytest.mark.parametrize("n", [2, 5])
def test_aggregate_through_loops_and_branches(target, n):
    x = np.random.default_rng(n).standard_normal((n, 16)).astype(np.float32)
    out = np.zeros(16, np.float32)
    running_mean[(1,)](x, out, n, BLOCK=16)
    np.testing.assert_allclose(out, (2 * x.sum(0) + (n > 2)) / n, rtol=1e-5)


@tilec.aggregate
class Base:
    x: tl.constexpr

    @tilec.constexpr_function
    def get_x(self):
        return self.x


@tilec.aggregate
class Child(Base):
    y: tl.constexpr
    z: tl.constexpr = 5


@tilec.jit
def inherited(out):
    c = Child(10, 20)
    d = Child(1, y=2, z=3)
    tl.store(out, c.get_x() + c.y + c.z + d.z)


def test_aggregate_inheritance_and_defaults(target):
    out = np.zeros(1, np.int32)
    inherited[(1,)](out)
    assert out[0] == 10 + 20 + 5 + 3
    assert Child(1, 2).z == 5  # the class works on the host too

    class Plain:
        pass

    with pytest.raises(TypeError, match="aggregates can only inherit from other aggregates"):

        @tilec.aggregate
        class Bad(Plain):
            x: tl.constexpr


def test_constexpr_function_on_the_host():
    assert next_size(7) == 14

    @tilec.constexpr_function
    def with_kwargs(**kwargs):
        return kwargs["value"] + 1

    assert with_kwargs(value=7) == 8


@tilec.jit
def walrus_and_to_tensor(out):
    x = (y := 3)
    t = tl.to_tensor(5)
    tl.static_assert(t.dtype == tl.int32)
    tl.store(out, x + y + t)


def test_walrus_and_to_tensor(target):
    out = np.zeros(1, np.int32)
    walrus_and_to_tensor[(1,)](out)
    assert out[0] == 11


@tilec.jit
def assigns_a_field(out):
    pair = Pair(tl.arange(0, 4), 11)
    pair.second = 42


@tilec.jit
def tensor_to_constexpr_function(out):
    tl.store(out, next_size(tl.program_id(0)))


@tilec.jit
def too_many_values(out):
    a, b = (1, 2, 3)  # noqa: F841


@tilec.jit
def too_few_values(out):
    a, b, c = (1, 2)  # noqa: F841


@tilec.jit
def starred_target(out):
    a, *rest = (1, 2, 3)  # noqa: F841


@tilec.jit
def wrong_field_count(out):
    Child(1, 2, 3, 4)


@pytest.mark.parametrize(
    "kernel, message",
    [
        (assigns_a_field, "only names can be assigned"),
        (tensor_to_constexpr_function, "cannot call the Python function 'next_size' with run-time tensors"),
        (too_many_values, r"too many values to unpack \(expected 2, got 3\)"),
        (too_few_values, r"not enough values to unpack \(expected 3, got 2\)"),
        (starred_target, "starred assignment targets are not supported"),
        (wrong_field_count, r"Child\(...\): too many positional arguments"),
    ],
)
def test_errors_name_the_line(target, kernel, message):
    with pytest.raises(tilec.CompilationError, match=message) as info:
        kernel[(1,)](np.zeros(1, np.int32))
    assert "test_aggregates.py" in str(info.value)


class Kernels:  # a plain class holding kernels: reading one from an instance gives the kernel itself
    members = members


def test_jit_functions_on_plain_classes_stay_kernels(target):
    out = np.zeros(17, np.int32)
    Kernels().members[(1,)](out)
    assert out[16] == 36
