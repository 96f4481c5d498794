"""Every class of user error names the user's file and line, shows the line, and gives the reason."""

import inspect

import numpy as np
import pytest

import tilec
import tilec.language as tl

HERE = __file__


def line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn.fn if hasattr(fn, "fn") else fn)
    for i, line in enumerate(lines):
        if text in line:
            return first + i
    raise AssertionError(text)


@tilec.jit
def block_from_argument(x_ptr, n):
    offs = tl.arange(0, n)
    tl.store(x_ptr + offs, 1.0)


@tilec.jit
def non_power_of_two(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0)


@tilec.jit
def shape_mismatch(x_ptr, BLOCK: tl.constexpr):
    a = tl.arange(0, BLOCK)
    b = tl.arange(0, 2 * BLOCK)
    tl.store(x_ptr + a, a + b)


@tilec.jit
def unsupported_construct(x_ptr):
    with open("f"):
        pass


@tilec.jit
def type_mismatch(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, x << 1.5)


@tilec.jit
def loop_type_change(x_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for _ in range(n):
        acc = tl.zeros([BLOCK], dtype=tl.int32)
    tl.store(x_ptr + tl.arange(0, BLOCK), acc)


@tilec.jit
def bad_helper(x):
    return x + tl.arange(0, 3)


@tilec.jit
def calls_bad_helper(x_ptr):
    tl.store(x_ptr, bad_helper(tl.load(x_ptr)))


@tilec.jit
def uses_break(x_ptr, n):
    for _ in range(n):
        break


@tilec.jit
def fine(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, 1.0, mask=offs < n)


@tilec.jit
def unknown_name(x_ptr):
    tl.store(x_ptr, undefined_thing)  # noqa: F821


@tilec.jit
def calls_python_function(x_ptr):
    tl.store(x_ptr, np.sin(tl.load(x_ptr)))


@tilec.jit
def fp8_atomic(x_ptr):
    tl.atomic_add(x_ptr, 1.0)


@tilec.jit
def tensor_loop_bound(x_ptr, n):
    offs = tl.arange(0, 8)
    for _ in range(offs):
        tl.store(x_ptr, 1.0)


@tilec.jit
def float_mask(x_ptr, n):
    x = tl.load(x_ptr + tl.arange(0, 8))
    tl.store(x_ptr + tl.arange(0, 8), x, mask=x)


@tilec.jit
def float_hint(x_ptr, n):
    tl.store(x_ptr, tl.multiple_of(n, 16.5))


CASES = [
    (
        tensor_loop_bound,
        {},
        "for _ in range(offs):",
        "range bounds must be scalars, got a tensor of shape [8]",
    ),
    (float_mask, {}, "mask=x)", "a mask must be boolean (or an integer, nonzero meaning true), got fp32"),
    (float_hint, {}, "tl.multiple_of(n, 16.5)", "tl.multiple_of: expected an integer or a list of integers"),
    (block_from_argument, {}, "offs = tl.arange(0, n)", "must be a compile-time constant"),
    (
        non_power_of_two,
        {"BLOCK": 12},
        "offs = tl.arange(0, BLOCK)",
        "arange length 12 must be a power of two",
    ),
    (shape_mismatch, {"BLOCK": 16}, "tl.store(x_ptr + a, a + b)", "incompatible shapes [16] and [32]"),
    (unsupported_construct, {}, 'with open("f"):', "unsupported Python construct in a kernel: With"),
    (type_mismatch, {}, "x << 1.5", "invalid operands of type fp32 and fp32 for '<<': it needs integer"),
    (loop_type_change, {"BLOCK": 16}, "for _ in range(n):", "loop-carried variable 'acc'"),
    (calls_bad_helper, {}, "return x + tl.arange(0, 3)", "arange length 3 must be a power of two"),
    (uses_break, {}, "        break", "'break' is not supported"),
    (unknown_name, {}, "undefined_thing", "name 'undefined_thing' is not defined"),
    (calls_python_function, {}, "np.sin(", "cannot call the Python function 'sin' with run-time tensors"),
]


@pytest.mark.parametrize("kernel,constexprs,line_text,reason", CASES, ids=[c[0].__name__ for c in CASES])
def test_compile_errors_name_file_and_line(kernel, constexprs, line_text, reason, monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    x = np.zeros(64, np.float32)
    args = [x] + ([4] if "n" in kernel.arg_names else [])
    with pytest.raises(tilec.CompilationError) as info:
        kernel[(1,)](*args, **constexprs)
    message = str(info.value)
    expected_line = line_of(kernel if kernel is not calls_bad_helper else bad_helper, line_text)
    assert message.startswith(f"{HERE}:{expected_line}:"), message
    assert reason in message
    assert line_text in message.splitlines()[1]  # the source line is shown
    assert "^" in message.splitlines()[2]  # with a caret
    assert info.value.__traceback__ is None or "codegen" not in str(info.traceback[-1].path)


def test_wrong_argument_count_is_a_type_error_naming_the_kernel(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    with pytest.raises(TypeError) as info:
        fine[(1,)](np.zeros(4, np.float32))
    assert f"{HERE}:{line_of(fine, 'def fine')}" in str(info.value)
    assert "missing a required argument: 'n'" in str(info.value)


def test_wrong_argument_type_is_a_type_error(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    with pytest.raises(TypeError) as info:
        fine[(1,)](np.zeros(4, np.float32), "four", BLOCK=16)
    assert f"{HERE}:{line_of(fine, 'def fine')}" in str(info.value)
    assert "argument 'n' has unsupported type str" in str(info.value)


@pytest.mark.parametrize("mode", ["interpreter", "cpu"])
def test_unknown_keyword_is_refused_on_every_launch(mode, monkeypatch):
    """A keyword that is neither a parameter nor a launch option is an error on a repeated launch
    too (whose arguments skip the binding of the first), not silently dropped."""
    monkeypatch.setenv(
        "TILEC_INTERPRET" if mode == "interpreter" else "TILEC_TARGET",
        "1" if mode == "interpreter" else "cpu",
    )
    x = np.zeros(4, np.float32)
    fine[(1,)](x, 4, BLOCK=16)
    with pytest.raises(TypeError) as info:
        fine[(1,)](x, 4, BLOCK=16, BLOCKSIZE=16)
    assert f"{HERE}:{line_of(fine, 'def fine')}" in str(info.value)
    assert "unexpected keyword argument 'BLOCKSIZE'" in str(info.value)


@pytest.mark.parametrize("grid", [(1.5,), (2, 0.5), lambda meta: (4 / 2,)], ids=["float", "2-d", "callable"])
def test_grid_of_floats_is_refused(grid, monkeypatch):
    """A float grid (a `/` where `//` or tl.cdiv was meant) is an error, not truncated."""
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    with pytest.raises(TypeError, match="grid dimensions must be integers"):
        fine[grid](np.zeros(4, np.float32), 4, BLOCK=16)
    fine[(np.int64(1), 1)](np.zeros(4, np.float32), 4, BLOCK=16)  # NumPy ints are ints


@pytest.mark.parametrize(
    "grid", [(2**31,), (1, 2**32), lambda meta: (1, 1, 2**40)], ids=["x", "y", "callable"]
)
def test_grid_beyond_int32_is_refused(grid, target):
    """Program ids are int32: a grid dimension of 2**31 or more is an error (it wrapped to 0 on the
    CPU target and ran one program)."""
    with pytest.raises(ValueError, match=r"grid dimensions must be below 2\*\*31"):
        fine[grid](np.zeros(4, np.float32), 4, BLOCK=16)


def test_fp8_atomics_are_rejected_on_every_target(monkeypatch):
    import ml_dtypes

    for target in ("interpreter", "cpu"):
        monkeypatch.setenv("TILEC_TARGET", target)
        with pytest.raises(tilec.CompilationError) as info:
            fp8_atomic[(1,)](np.zeros(4, ml_dtypes.float8_e4m3fn))
        message = str(info.value)
        assert message.startswith(f"{HERE}:{line_of(fp8_atomic, 'tl.atomic_add(')}:"), message
        assert "tl.atomic_add does not support fp8 pointees" in message


@tilec.jit
def uses_fp8_b15(x_ptr):
    tl.store(x_ptr, tl.zeros((16,), tl.float8e4b15).to(tl.float32))


def test_unsupported_triton_fp8_variants_are_named(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    with pytest.raises(tilec.CompilationError) as info:
        uses_fp8_b15[(1,)](np.zeros(16, np.float32))
    message = str(info.value)
    assert message.startswith(f"{HERE}:{line_of(uses_fp8_b15, 'tl.float8e4b15')}:"), message
    assert "tl.float8e4b15 (Triton's e4m3 with bias 15 (pre-Hopper)) is not supported by tilec" in message


def test_fp8_scalar_parameters_are_rejected():
    for target in ("interpreter", "cpu", "sm_90a"):
        with pytest.raises(TypeError, match="scalar argument 'n' of type fp8e4nv is not supported"):
            tilec.compile(fine, signature="*fp32,fp8e4nv", constexprs={"BLOCK": 16}, target=target)


def test_numpy_fp8_scalar_is_not_an_array(monkeypatch):
    import ml_dtypes

    monkeypatch.setenv("TILEC_INTERPRET", "1")
    with pytest.raises(TypeError, match="argument 'n' has unsupported type float8_e4m3fn"):
        fine[(1,)](np.zeros(4, np.float32), ml_dtypes.float8_e4m3fn(2.0), BLOCK=16)


def test_kernel_made_by_exec_reports_errors_at_its_text(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    namespace = {"tilec": tilec, "tl": tl}
    exec(
        "@tilec.jit\ndef made_by_exec(x_ptr):\n    tl.store(x_ptr, 1.0)\n    tl.store(x_ptr, y)\n", namespace
    )
    with pytest.raises(tilec.CompilationError, match="<string>:4:21: error: name 'y' is not defined"):
        namespace["made_by_exec"][(1,)](np.zeros(4, np.float32))


def test_unsupported_array_dtype(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    with pytest.raises(TypeError, match="complex64"):
        fine[(1,)](np.zeros(4, np.complex64), 4, BLOCK=16)


def test_out_of_bounds_access_names_the_line(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    with pytest.raises(tilec.InterpreterError) as info:
        fine[(1,)](np.zeros(16, np.float32), 100, BLOCK=32)
    assert f"{HERE}:{line_of(fine, 'tl.store(x_ptr + offs, 1.0, mask=offs < n)')}" in str(info.value)
    assert "out-of-bounds store" in str(info.value)


@tilec.jit(debug=True)
def asserting(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.device_assert(x >= 0, "x must be non-negative")


def test_device_assert_in_interpreter(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    asserting[(1,)](np.ones(16, np.float32), BLOCK=16)
    bad = np.ones(16, np.float32)
    bad[5] = -1
    with pytest.raises(
        tilec.InterpreterError, match=r"device assertion failed at index \(5,\): x must be non-negative"
    ):
        asserting[(1,)](bad, BLOCK=16)


def test_builtins_outside_kernels_explain_themselves():
    with pytest.raises(RuntimeError, match="only be called inside a @tilec.jit function"):
        tl.arange(0, 16)
    with pytest.raises(RuntimeError, match=r"launch it with fine\[grid\]"):
        fine(1, 2)


def test_debug_env_shows_internal_traceback(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    monkeypatch.setenv("TILEC_DEBUG", "1")
    with pytest.raises(tilec.CompilationError) as info:
        non_power_of_two[(1,)](np.zeros(16, np.float32), BLOCK=12)
    assert info.value.__traceback__ is not None


@tilec.jit
def scale_into(x_ptr, table_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    out = out_ptr
    for _ in range(2):  # the written pointer reaches the store through a loop-carried value
        out = tl.where(n > 0, out, out_ptr)
    tl.store(out + offs, x * tl.load(table_ptr), mask=offs < n)
    tl.atomic_add(table_ptr + 1, 1.0)


def _read_only(values) -> np.ndarray:
    a = np.array(values, np.float32)
    a.setflags(write=False)
    return a


@pytest.mark.parametrize("target", ["cpu", "interpreter"])
def test_read_only_array_written_by_the_kernel_is_refused(target, monkeypatch):
    """A read-only array bound to a pointer the kernel stores through is refused before the launch: a
    broadcast view (4 bytes behind 8 elements) there had the kernel write past its memory, and glibc
    then aborted the process ("double free or corruption"); the interpreter wrote into it. Read-only
    inputs stay accepted."""
    if target == "interpreter":
        monkeypatch.setenv("TILEC_INTERPRET", "1")
    x = _read_only(np.full(8, 2.0))  # read-only, and only read: fine
    table = np.array([3.0, 0.0], np.float32)
    out = np.zeros(8, np.float32)
    scale_into[(1,)](x, table, out, 8, BLOCK=8)
    np.testing.assert_array_equal(out, np.full(8, 6.0, np.float32))
    assert table[1] == 1.0
    for position, name in [(2, "out_ptr"), (1, "table_ptr")]:
        args = [x, table, out]
        args[position] = _read_only(args[position])
        with pytest.raises(
            ValueError, match=f"argument '{name}' is a read-only array.*stores through '{name}'"
        ):
            scale_into[(1,)](*args, 8, BLOCK=8)


@tilec.jit(noinline=True)
def store_one(p, v):
    tl.store(p, v)


@tilec.jit
def writes_through_loops_and_calls(a_ptr, b_ptr, c_ptr, d_ptr, n, e_ptr):
    q = b_ptr
    i = 0
    while i < n:
        q = q + 1
        i += 1
    store_one(c_ptr + 1, tl.load(a_ptr))
    if n > 3:
        tl.store(q, tl.load(d_ptr))
    tl.store(e_ptr.to(tl.pointer_type(tl.int32)), n)  # through a pointer cast


def test_written_arguments_are_traced_through_loops_branches_and_calls():
    compiled = tilec.compile(
        writes_through_loops_and_calls, signature="*fp32,*fp32,*fp32,*fp32,i32,*fp32", target="cpu"
    )
    assert compiled.metadata["written_args"] == [1, 2, 5]  # b (a loop's pointer), c (a call's), e (a cast)


@tilec.jit
def prints_on_amd(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.device_print("x", x)


def test_gpu_lowering_errors_name_the_line_and_what_is_missing():
    """An op the GPU lowering cannot take (here tl.device_print on AMD, which would need ROCm's
    hostcall) is an error at the kernel's line that says what is missing (it said "k:0:0: ..."
    before). This test used tl.erf on float64, which GPUs now compute (tile-expand-float64-math)."""
    with pytest.raises(tilec.CompilationError) as info:
        tilec.compile(prints_on_amd, signature="*fp32", constexprs={"N": 64}, target="gfx942")
    message = str(info.value)
    assert f"test_errors.py:{line_of(prints_on_amd, 'tl.device_print')}:" in message
    assert "tl.device_print is not supported by the AMD lowering" in message


@tilec.jit
def _helper_with_a_bug(x):
    return x + undefined_name  # noqa: F821


@tilec.jit
def calls_buggy_helper(x_ptr):
    tl.store(x_ptr, _helper_with_a_bug(tl.load(x_ptr)))


@tilec.jit
def _shape_by_branch(n):
    if n == 0:
        return tl.arange(0, 4)
    else:
        return tl.arange(0, 8)


@tilec.jit
def returns_two_shapes(x_ptr, n):
    tl.store(x_ptr + tl.arange(0, 4), _shape_by_branch(n))


def test_errors_in_helpers_name_the_call_site():
    with pytest.raises(tilec.CompilationError) as info:
        calls_buggy_helper[(1,)](np.zeros(1, np.float32))
    text = str(info.value)
    assert "name 'undefined_name' is not defined" in text.splitlines()[0]
    line = calls_buggy_helper.fn.__code__.co_firstlineno + 2
    assert f"in _helper_with_a_bug(), called from {__file__}:{line}:" in text


def test_returns_of_different_types_on_run_time_paths_are_an_error():
    with pytest.raises(tilec.CompilationError, match="Inconsistent return types"):
        returns_two_shapes[(1,)](np.zeros(8, np.int32), 2)
