"""Hostile kernels and launches: each one gives an error naming the user's file and line (or, for a
launch, the kernel), or a right result, within a time bound, on the interpreter, the CPU target and
the compile-only GPU targets. Never a crash, a hang or a traceback of tilec's internals."""

from __future__ import annotations

import inspect
import math
import time
from dataclasses import dataclass, field

import numpy as np
import pytest

import tilec
import tilec.language as tl
from tilec.targets.tools import have_lld

HERE = __file__
SECONDS = 60  # each case, compile included
MODES = ["interpreter", "cpu", "sm_90a", "gfx942"]
COMPILE_ONLY = {"sm_90a", "gfx942"}


def _f32(n=64):
    return np.zeros(n, np.float32)


# -- constexpr errors ----------------------------------------------------------------------------
@tilec.jit
def constexpr_floor_division_by_zero(x_ptr, B: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, B // 0), 1.0)


@tilec.jit
def constexpr_modulo_by_zero(x_ptr, B: tl.constexpr):
    C: tl.constexpr = B % 0
    tl.store(x_ptr, C)


@tilec.jit
def constexpr_true_division_by_zero(x_ptr):
    scale = 1.0 / 0
    tl.store(x_ptr, scale)


@tilec.jit
def constexpr_tuple_index_past_the_end(x_ptr):
    sizes = (8, 16)
    tl.store(x_ptr + tl.arange(0, sizes[5]), 1.0)


@tilec.jit
def constexpr_missing_key(x_ptr):
    table = {"a": 8}
    tl.store(x_ptr + tl.arange(0, table["b"]), 1.0)


@tilec.jit
def static_assert_fails(x_ptr, B: tl.constexpr):
    tl.static_assert(B <= 32, "B must be at most 32")
    tl.store(x_ptr + tl.arange(0, B), 1.0)


@tilec.jit
def float_block_size(x_ptr):
    tl.store(x_ptr + tl.arange(0, 8.0), 1.0)


@tilec.jit
def non_power_of_two_block(x_ptr):
    tl.store(x_ptr + tl.arange(0, 12), 1.0)


@tilec.jit
def reversed_range(x_ptr):
    tl.store(x_ptr + tl.arange(8, 0), 1.0)


@tilec.jit
def integer_constant_too_wide(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8)).to(tl.int32)
    tl.store(x_ptr + tl.arange(0, 8), (x + 2**70).to(tl.float32))


@tilec.jit
def block_from_run_time_value(x_ptr, n):
    tl.store(x_ptr + tl.arange(0, n), 1.0)


# -- shape and type errors -------------------------------------------------------------------------
@tilec.jit
def incompatible_shapes(x_ptr):
    a = tl.arange(0, 8)
    b = tl.arange(0, 16)
    tl.store(x_ptr + a, (a + b).to(tl.float32))


@tilec.jit
def dot_inner_dimensions_differ(x_ptr):
    a = tl.zeros([16, 32], dtype=tl.float16)
    b = tl.zeros([16, 16], dtype=tl.float16)
    c = tl.dot(a, b)
    tl.store(x_ptr + tl.arange(0, 16), tl.sum(c, 0))


@tilec.jit
def dot_of_vectors(x_ptr):
    a = tl.zeros([16], dtype=tl.float16)
    c = tl.dot(a, a)
    tl.store(x_ptr, c)


@tilec.jit
def reshape_changes_the_element_count(x_ptr):
    a = tl.arange(0, 16)
    b = tl.reshape(a, [4, 8])
    tl.store(x_ptr, tl.sum(tl.sum(b, 0), 0).to(tl.float32))


@tilec.jit
def permute_with_bad_axes(x_ptr):
    a = tl.zeros([4, 8], dtype=tl.float32)
    b = tl.permute(a, (0, 0))
    tl.store(x_ptr, tl.sum(tl.sum(b, 0), 0))


@tilec.jit
def reduce_over_missing_axis(x_ptr):
    a = tl.zeros([4, 8], dtype=tl.float32)
    tl.store(x_ptr, tl.sum(a, axis=2))


@tilec.jit
def where_with_incompatible_shapes(x_ptr):
    c = tl.arange(0, 8) < 4
    v = tl.where(c, tl.zeros([16], dtype=tl.float32), 1.0)
    tl.store(x_ptr + tl.arange(0, 16), v)


@tilec.jit
def shift_by_a_float(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8)).to(tl.int32)
    tl.store(x_ptr + tl.arange(0, 8), (x << 1.5).to(tl.float32))


@tilec.jit
def bitwise_and_of_floats(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), x & 1)


@tilec.jit
def pointer_plus_pointer(x_ptr, y_ptr):
    tl.store(x_ptr + y_ptr, 1.0)


@tilec.jit
def load_through_an_integer(x_ptr, n):
    tl.store(x_ptr, tl.load(n))


@tilec.jit
def store_through_a_loaded_value(x_ptr):
    v = tl.load(x_ptr)
    tl.store(v, 1.0)


@tilec.jit
def loop_changes_a_variables_type(x_ptr, n):
    acc = tl.zeros([8], dtype=tl.float32)
    for _ in range(n):
        acc = tl.zeros([8], dtype=tl.int32)
    tl.store(x_ptr + tl.arange(0, 8), acc.to(tl.float32))


@tilec.jit
def loop_changes_a_variables_shape(x_ptr, n):
    acc = tl.zeros([8], dtype=tl.float32)
    for _ in range(n):
        acc = tl.zeros([16], dtype=tl.float32)
    tl.store(x_ptr + tl.arange(0, 16), acc)


@tilec.jit
def mask_of_floats(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), x, mask=x)


@tilec.jit
def block_as_an_if_condition(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    if x > 0:
        tl.store(x_ptr + tl.arange(0, 8), x + 1)


@tilec.jit
def string_arithmetic(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, "two" + x)


@tilec.jit
def unknown_dtype_name(x_ptr):
    tl.store(x_ptr + tl.arange(0, 8), tl.zeros([8], dtype="float33"))


@tilec.jit
def combiner_captures_a_run_time_value(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    offset = tl.load(x_ptr)
    tl.store(x_ptr, tl.reduce(x, 0, lambda a, b: a + b + offset))


# -- names and Python the tile language does not have ---------------------------------------------
@tilec.jit
def undefined_name(x_ptr):
    tl.store(x_ptr, nothing_called_this)  # noqa: F821


@tilec.jit
def unknown_tensor_method(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), x.frobnicate())


@tilec.jit
def unknown_tl_function(x_ptr):
    tl.store(x_ptr, tl.frobnicate(1.0))


@tilec.jit
def calls_a_python_function_on_a_tensor(x_ptr):
    tl.store(x_ptr, math.sin(tl.load(x_ptr)))


@tilec.jit
def uses_try(x_ptr):
    try:
        tl.store(x_ptr, 1.0)
    except ValueError:
        pass


@tilec.jit
def uses_with(x_ptr):
    with open("somewhere"):
        tl.store(x_ptr, 1.0)


@tilec.jit
def uses_for_else(x_ptr, n):
    for _ in range(n):
        tl.store(x_ptr, 1.0)
    else:
        tl.store(x_ptr, 2.0)


@tilec.jit
def uses_global(x_ptr):
    global SOMETHING
    tl.store(x_ptr, 1.0)


@tilec.jit
def defines_a_function(x_ptr):
    def helper(v):
        return v + 1

    tl.store(x_ptr, helper(1.0))


@tilec.jit
def defines_a_class(x_ptr):
    class Local:
        pass

    tl.store(x_ptr, 1.0)


@tilec.jit
def yields(x_ptr):
    yield 1.0


@tilec.jit
def deletes_a_name(x_ptr):
    v = 1.0
    del v
    tl.store(x_ptr, 1.0)


@tilec.jit
def returns_a_value(x_ptr):
    return tl.load(x_ptr)


@tilec.jit
def recurses_forever(x_ptr, n):
    tl.store(x_ptr, 1.0)
    recurses_forever(x_ptr, n)


# -- too large to compile --------------------------------------------------------------------------
@tilec.jit
def unrolls_ten_million_times(x_ptr):
    acc = tl.zeros([16], dtype=tl.float32)
    for _ in tl.static_range(10**7):
        acc += 1.0
    tl.store(x_ptr + tl.arange(0, 16), acc)


@tilec.jit
def nested_unrolls_of_a_million(x_ptr):
    acc = tl.zeros([16], dtype=tl.float32)
    for _ in tl.static_range(1000):
        for _ in tl.static_range(1000):
            acc += 1.0
    tl.store(x_ptr + tl.arange(0, 16), acc)


@tilec.jit
def comprehension_over_a_trillion(x_ptr):
    sizes = [i for i in range(10**12)]
    tl.store(x_ptr, len(sizes))


@tilec.jit
def block_of_sixteen_million(x_ptr):
    tl.store(x_ptr + tl.arange(0, 1 << 24), 1.0)


@tilec.jit
def square_tile_of_four_million(x_ptr):
    t = tl.zeros([2048, 2048], dtype=tl.float32)
    tl.store(x_ptr, tl.sum(tl.sum(t, 0), 0))


@tilec.jit
def broadcast_to_sixteen_million(x_ptr):
    a = tl.arange(0, 4096)
    t = a[:, None] + a[None, :]
    tl.store(x_ptr, tl.sum(tl.sum(t, 0), 0).to(tl.float32))


# -- legal and extreme: a right result -----------------------------------------------------------
@tilec.jit
def unrolls_a_thousand_times(x_ptr):
    acc = tl.zeros([16], dtype=tl.float32)
    for i in tl.static_range(1000):
        acc += i
    tl.store(x_ptr + tl.arange(0, 16), acc)


@tilec.jit
def copy(x_ptr, y_ptr, n, B: tl.constexpr):
    offs = tl.program_id(0) * B + tl.arange(0, B)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


@tilec.jit
def mark_program(x_ptr):
    tl.store(x_ptr + tl.program_id(0) + tl.program_id(1) * tl.num_programs(0), 1.0)


@dataclass
class Case:
    kernel: object
    line_text: str | None  # the line the error names (None: a launch error, named by the kernel)
    reason: str  # a piece of the message; "" for a result case
    args: object = None  # () -> arguments; default: a float32 array (and n = 4 where the kernel has n)
    constexprs: dict = field(default_factory=dict)
    grid: object = (1,)
    check: object = None  # (args) -> None for a case that must run and give a right result
    launch_only: bool = False  # an error of the launch, not of the kernel: not on compile-only targets
    error: type = tilec.CompilationError
    options: dict = field(default_factory=dict)
    name: str = ""

    def __post_init__(self):
        self.name = self.name or self.kernel.__name__


def _default_args(kernel):
    args = []
    for name in kernel.arg_names:
        if name in kernel.constexpr_names:
            continue
        args.append(4 if name == "n" else _f32())
    return tuple(args)


def _copy_args(x=None, y=None, n=64):
    x = np.arange(64, dtype=np.float32) if x is None else x
    return (x, np.zeros(64, np.float32) if y is None else y, n)


def _check_copied(args):
    x, y, n = args
    np.testing.assert_array_equal(np.asarray(y)[:n], np.asarray(x)[:n])


def _misaligned():
    raw = np.arange(65, dtype=np.float32).view(np.uint8)[2:258]
    return raw.view(np.float32)  # 2 bytes past a float's alignment (np.frombuffer would copy)


def _unaligned_copy_args():
    x = np.frombuffer(bytearray(np.arange(64, dtype=np.float32).tobytes()) + b"\0\0\0\0", np.float32, 64)
    return (x, np.zeros(64, np.float32), 64)


CASES = [
    Case(constexpr_floor_division_by_zero, "B // 0", "division by zero", constexprs={"B": 8}),
    Case(constexpr_modulo_by_zero, "B % 0", "division by zero", constexprs={"B": 8}),
    Case(constexpr_true_division_by_zero, "1.0 / 0", "division by zero"),
    Case(constexpr_tuple_index_past_the_end, "sizes[5]", "IndexError: tuple index out of range"),
    Case(constexpr_missing_key, 'table["b"]', "KeyError"),
    Case(static_assert_fails, "tl.static_assert", "B must be at most 32", constexprs={"B": 64}),
    Case(float_block_size, "tl.arange(0, 8.0)", "arange"),
    Case(non_power_of_two_block, "tl.arange(0, 12)", "power of two"),
    Case(reversed_range, "tl.arange(8, 0)", "arange"),
    Case(integer_constant_too_wide, "2**70", "1180591620717411303424"),
    Case(block_from_run_time_value, "tl.arange(0, n)", "compile-time constant"),
    Case(incompatible_shapes, "a + b", "incompatible shapes [8] and [16]"),
    Case(dot_inner_dimensions_differ, "tl.dot(a, b)", "32"),
    Case(dot_of_vectors, "tl.dot(a, a)", "dot"),
    Case(reshape_changes_the_element_count, "tl.reshape(a, [4, 8])", "reshape"),
    Case(permute_with_bad_axes, "tl.permute(a, (0, 0))", "permut"),
    Case(reduce_over_missing_axis, "axis=2", "axis"),
    Case(where_with_incompatible_shapes, "tl.where(", "incompatible shapes"),
    Case(shift_by_a_float, "x << 1.5", "'<<'"),
    Case(bitwise_and_of_floats, "x & 1", "'&'"),
    Case(pointer_plus_pointer, "x_ptr + y_ptr", "pointer"),
    Case(load_through_an_integer, "tl.load(n)", "pointer"),
    Case(store_through_a_loaded_value, "tl.store(v, 1.0)", "pointer"),
    Case(loop_changes_a_variables_type, "for _ in range(n):", "loop-carried variable 'acc'"),
    Case(loop_changes_a_variables_shape, "for _ in range(n):", "loop-carried variable 'acc'"),
    Case(mask_of_floats, "mask=x)", "a mask must be boolean"),
    Case(block_as_an_if_condition, "if x > 0:", "scalar"),
    Case(string_arithmetic, '"two" + x', "str"),
    Case(unknown_dtype_name, 'dtype="float33"', "unknown type 'float33'"),
    Case(combiner_captures_a_run_time_value, "lambda a, b", "offset"),
    Case(undefined_name, "nothing_called_this", "name 'nothing_called_this' is not defined"),
    Case(unknown_tensor_method, "x.frobnicate()", "has no attribute 'frobnicate'"),
    Case(unknown_tl_function, "tl.frobnicate", "frobnicate"),
    Case(calls_a_python_function_on_a_tensor, "math.sin(", "cannot call the Python function 'sin'"),
    Case(uses_try, "try:", "Try"),
    Case(uses_with, 'with open("somewhere"):', "With"),
    Case(uses_for_else, "for _ in range(n):", "for ... else"),
    Case(uses_global, "global SOMETHING", "Global"),
    Case(defines_a_function, "def helper(v):", "FunctionDef"),
    Case(defines_a_class, "class Local:", "ClassDef"),
    Case(yields, "yield 1.0", "Yield"),
    Case(deletes_a_name, "del v", "Delete"),
    Case(returns_a_value, "def returns_a_value", "a kernel cannot return a value"),
    Case(recurses_forever, "    recurses_forever(x_ptr, n)", "nest deeper than"),
    Case(unrolls_ten_million_times, "tl.static_range(10**7)", "unrolls 10000000 iterations"),
    Case(nested_unrolls_of_a_million, "acc += 1.0", "expands to more than"),
    Case(comprehension_over_a_trillion, "range(10**12)", "more than 65536 items"),
    Case(block_of_sixteen_million, "tl.arange(0, 1 << 24)", "16777216 elements"),
    Case(square_tile_of_four_million, "tl.zeros([2048, 2048]", "4194304 elements"),
    Case(broadcast_to_sixteen_million, "a[:, None] + a[None, :]", "16777216 elements"),
    Case(
        unrolls_a_thousand_times,
        None,
        "",
        check=lambda args: np.testing.assert_array_equal(args[0][:16], np.full(16, 499500.0, np.float32)),
    ),
    # launches
    Case(copy, None, "missing a required argument: 'n'", args=lambda: (_f32(), _f32()),
         constexprs={"B": 64}, error=TypeError, name="too_few_arguments"),
    Case(copy, None, "too many positional arguments", args=lambda: (_f32(), _f32(), 64, 64, 1),
         error=TypeError, name="too_many_arguments"),
    Case(copy, None, "unexpected keyword argument 'BLOCK'", args=_copy_args, constexprs={"B": 64, "BLOCK": 64},
         error=TypeError, name="unknown_keyword"),
    Case(copy, None, "missing a required argument: 'B'", args=_copy_args, error=TypeError,
         name="missing_constexpr"),
    Case(copy, None, "'B' is a tl.constexpr", args=_copy_args, constexprs={"B": _f32()}, error=TypeError,
         name="array_for_a_constexpr"),
    Case(copy, None, "unsupported type str", args=lambda: ("x", _f32(), 64), constexprs={"B": 64},
         error=TypeError, name="string_for_a_pointer"),
    Case(copy, None, "unsupported type list", args=lambda: ([1.0] * 64, _f32(), 64), constexprs={"B": 64},
         error=TypeError, name="list_for_a_pointer"),
    Case(copy, None, "object", args=lambda: (np.array([object()] * 64), _f32(), 64), constexprs={"B": 64},
         error=TypeError, name="array_of_objects"),
    Case(copy, None, "does not fit in 64 bits", args=lambda: _copy_args(n=2**70), constexprs={"B": 64}, error=OverflowError,
         name="integer_past_64_bits"),
    Case(copy, None, "num_warps", args=_copy_args, constexprs={"B": 64}, options={"num_warps": 3},
         error=ValueError, name="num_warps_not_a_power_of_two"),
    Case(copy, None, "num_warps", args=_copy_args, constexprs={"B": 64}, options={"num_warps": 0},
         error=ValueError, name="zero_warps"),
    Case(copy, None, "read-only array", args=lambda: _copy_args(y=np.broadcast_to(np.float32(0), (64,))),
         constexprs={"B": 64}, launch_only=True, error=ValueError, name="broadcast_view_as_output"),
    Case(copy, None, "read-only array",
         args=lambda: _copy_args(y=np.frombuffer(bytes(256), np.float32)), constexprs={"B": 64},
         launch_only=True, error=ValueError, name="bytes_as_output"),
    Case(copy, None, "", args=lambda: _copy_args(y=_misaligned()), constexprs={"B": 64}, check=_check_copied,
         name="misaligned_output"),
    Case(copy, None, "", args=_unaligned_copy_args, constexprs={"B": 64}, check=_check_copied,
         name="misaligned_input"),
    Case(copy, None, "", args=lambda: _copy_args(x=np.arange(128, dtype=np.float32)[::2]), constexprs={"B": 64},
         check=lambda args: np.testing.assert_array_equal(args[1], np.arange(64, dtype=np.float32)),
         name="strided_input_reads_from_its_data_pointer"),
    Case(copy, None, "grid dimensions must be integers", args=_copy_args, constexprs={"B": 64}, grid=(1.5,),
         launch_only=True, error=TypeError, name="float_grid"),
    Case(copy, None, "grid dimensions must be >= 0", args=_copy_args, constexprs={"B": 64}, grid=(-1,),
         launch_only=True, error=ValueError, name="negative_grid"),
    Case(copy, None, "grid must have 1 to 3 dimensions", args=_copy_args, constexprs={"B": 64},
         grid=(1, 1, 1, 1), launch_only=True, error=ValueError, name="four_dimensional_grid"),
    Case(copy, None, "below 2**31", args=_copy_args, constexprs={"B": 64}, grid=(2**31,), launch_only=True,
         error=ValueError, name="grid_past_int32"),
    Case(mark_program, None, "at most 65535 programs along axes 1 and 2", args=lambda: (_f32(4),),
         grid=(2**30, 2**30), launch_only=True, error=ValueError, name="grid_of_two_to_the_sixty"),
    Case(copy, None, "", args=lambda: _copy_args(y=np.full(64, 7.0, np.float32)), constexprs={"B": 64},
         grid=(0,), check=lambda args: np.testing.assert_array_equal(args[1], 7.0), name="empty_grid"),
    Case(mark_program, None, "", args=lambda: (_f32(4 * 512),), grid=(4, 512),
         check=lambda args: np.testing.assert_array_equal(args[0], 1.0), name="grid_of_two_axes"),
]  # fmt: skip


def _line_of(kernel, text: str) -> int:
    lines, first = inspect.getsourcelines(kernel.fn)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError(f"{text!r} is not in {kernel.__name__}")


def _launch(case: Case, mode: str, args):
    if mode in COMPILE_ONLY:
        return case.kernel.warmup(*args, grid=case.grid, target=mode, **case.constexprs, **case.options)
    case.kernel[case.grid](*args, **case.constexprs, **case.options)
    return None


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_hostile_kernel(case, mode, monkeypatch):
    if mode in COMPILE_ONLY and case.launch_only:
        pytest.skip("an error of the launch itself: compile-only targets do not launch")
    if mode in COMPILE_ONLY and case.check is not None and case.grid == (0,):
        pytest.skip("nothing to compile-check in an empty launch")
    if mode == "gfx942" and not have_lld():
        pytest.skip("no ld.lld: AMD code objects cannot be linked here")
    monkeypatch.delenv("TILEC_INTERPRET", raising=False)
    monkeypatch.setenv("TILEC_TARGET", "interpreter" if mode == "interpreter" else "cpu")
    args = case.args() if case.args is not None else _default_args(case.kernel)
    start = time.perf_counter()
    if not case.reason:  # legal: runs (or compiles) and is right
        compiled = _launch(case, mode, args)
        if compiled is None and case.check is not None:
            case.check(args)
    else:
        with pytest.raises(case.error) as info:
            _launch(case, mode, args)
        message = str(info.value)
        assert case.reason in message, message
        src = inspect.getsourcefile(case.kernel.fn)
        if case.line_text is not None:
            assert message.startswith(f"{src}:{_line_of(case.kernel, case.line_text)}:"), message
            assert case.line_text in message.splitlines()[1], message  # the line is shown
        elif case.error in (TypeError, OverflowError) and "grid" not in message:
            assert f"{src}:{_line_of(case.kernel, 'def ' + case.kernel.__name__)}" in message, message
        else:
            assert case.kernel.__name__ in message or "grid" in message, message
        frames = [f for f in info.traceback if "/tilec/" in str(f.path)]
        assert len(frames) <= 1, [str(f.path) for f in frames]  # the raise itself at most
    assert time.perf_counter() - start < SECONDS


def test_the_file_has_at_least_fifty_hostile_cases():
    assert len(CASES) >= 50


@tilec.jit
def dot_staged_past_shared_memory(a_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs[:, None] * N + offs[None, :])
    tl.store(out_ptr + offs[:, None] * N + offs[None, :], tl.dot(a, a, input_precision="ieee"))


@pytest.mark.parametrize("target", sorted(COMPILE_ONLY))
def test_a_kernel_past_the_shared_memory_limit_is_refused_when_compiled(target):
    """A 256 x 256 fp32 dot without matrix instructions stages its operands in shared memory (LDS):
    more than a program may have, refused at the kernel's definition (AMD's back end would end the
    process on it; a launch would fail later)."""
    a = np.zeros((256, 256), np.float32)
    with pytest.raises(
        tilec.CompilationError, match=r"needs \d+ bytes of (shared memory|LDS).* per program, more"
    ):
        dot_staged_past_shared_memory.warmup(a, a, N=256, grid=(1,), target=target)
