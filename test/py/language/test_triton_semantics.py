"""Details where tilec follows Triton's semantics exactly (found porting Triton's test_core.py and
test_frontend.py): reduction result types, Python integers that do not fit the tensor's type, shapes
that compare equal to lists, expand_dims with several axes, and the errors' wording."""

import shutil

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def reduction_types(x_ptr, out_ptr, DT: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, 8)).to(DT)
    big = tl.max(x) + 100  # int32 for an int8 input: no wrap-around at 127
    tl.store(out_ptr, big)
    tl.store(out_ptr + 1, tl.min(x, axis=0) - 100)
    value, index = tl.max(x, 0, return_indices=True)
    tl.store(out_ptr + 2, value.to(tl.int32) + index)


@pytest.mark.parametrize("dt, np_dt", [(tl.int8, np.int8), (tl.uint8, np.uint8), (tl.int16, np.int16)])
def test_max_min_of_narrow_integers_are_int32(target, dt, np_dt):
    x = np.array([5, 120, 3, 7, 1, 9, 100, 2], np.int32)
    out = np.zeros(3, np.int32)
    reduction_types[(1,)](x, out, dt)
    assert list(out) == [220, 1 - 100, 120 + 1]


@tilec.jit
def result_types(x_ptr, out_ptr):
    h = tl.load(x_ptr + tl.arange(0, 4))
    b = h.to(tl.bfloat16)
    i8 = h.to(tl.int8)
    tl.static_assert(tl.max(h).dtype == tl.float32)  # values narrower than 32 bits: fp32 / int32
    tl.static_assert(tl.min(i8).dtype == tl.int32)
    tl.static_assert(tl.max(h, 0, return_indices=True)[0].dtype == tl.float16)  # with indices: kept
    tl.static_assert(tl.max(b, 0, return_indices=True)[0].dtype == tl.float32)  # bf16: fp32 always
    tl.static_assert(tl.cumsum(b).dtype == tl.float32)
    tl.static_assert(tl.cumprod(b).dtype == tl.float32)
    tl.static_assert(tl.sum(i8).dtype == tl.int32)
    tl.static_assert(tl.sum(h).dtype == tl.float16)
    tl.store(out_ptr + tl.arange(0, 4), tl.cumsum(b))


def test_reduction_result_types(target):
    x = np.array([1, 2, 3, 4], np.float16)
    out = np.zeros(4, np.float32)
    result_types[(1,)](x, out)
    assert list(out) == [1, 3, 6, 10]


@tilec.jit
def add_scalar(x_ptr, out_ptr, y: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs) + y)


def test_python_integers_take_the_tensor_type_when_they_fit(target):
    x = np.arange(-8, 8, dtype=np.int8)
    out = np.zeros(16, np.int8)
    add_scalar[(1,)](x, out, 100, N=16)  # fits int8: int8 arithmetic (wrapping as int8 does)
    np.testing.assert_array_equal(out, (x.astype(np.int64) + 100).astype(np.int8))


@pytest.mark.parametrize(
    "dtype, y, message",
    [
        (np.int8, 200, "Scalar 200 is out of range for type int8"),
        (np.int32, 0xFFFFFFFFFFFFFF, "Scalar 72057594037927935 is out of range for type int32"),
        (np.uint8, -1, "between an unsigned tensor \\(uint8\\) and a negative scalar"),
    ],
)
def test_python_integers_that_do_not_fit_are_errors(target, dtype, y, message):
    x = np.zeros(16, dtype)
    with pytest.raises(tilec.CompilationError, match=message) as info:
        add_scalar[(1,)](x, np.zeros(16, dtype), y, N=16)
    assert "test_triton_semantics.py" in str(info.value)


@tilec.jit
def shapes(out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.static_assert(offs.shape == [N])  # Triton's shapes are lists
    tl.static_assert(offs[None, :, None].shape == [1, N, 1])
    tl.static_assert(tl.full([], 1, tl.int32)[None, None].shape == [1, 1])
    tl.static_assert(tl.expand_dims(offs, (0, -1)).shape == [1, N, 1])
    tl.static_assert(tl.expand_dims(offs, (-4, 2, -1)).shape == [1, N, 1, 1])
    tl.static_assert(tl.expand_dims(offs, (3, 1, 2)).shape == [N, 1, 1, 1])
    tl.static_assert(tl.expand_dims(N, -1).shape == [1])
    tl.static_assert(offs.shape + [1] == [N, 1])
    grid = tl.reshape(offs, offs.shape[:1] + (1,)) + tl.zeros([1, 4], tl.int32)
    tl.store(out_ptr + tl.arange(0, N)[:, None] * 4 + tl.arange(0, 4)[None, :], grid)


def test_shapes_compare_equal_to_lists(target):
    out = np.zeros((8, 4), np.int32)
    shapes[(1,)](out, N=8)
    np.testing.assert_array_equal(out, np.repeat(np.arange(8)[:, None], 4, axis=1))


@tilec.jit
def expand_dims_bad(out_ptr, AXES: tl.constexpr):
    tl.store(out_ptr, tl.sum(tl.expand_dims(tl.arange(0, 4), AXES)))


@pytest.mark.parametrize(
    "axes, message",
    [(-3, "invalid axis -3"), (2, "invalid axis 2"), ((0, 0), r"duplicate axes, normalized axes = \[0, 0\]")],
)
def test_expand_dims_errors(target, axes, message):
    with pytest.raises(tilec.CompilationError, match=message):
        expand_dims_bad[(1,)](np.zeros(1, np.int32), axes)


@tilec.jit
def select_pointers(cond_ptr, a_ptr, b_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    # an int64 address made a pointer with Triton's tl.pi32_t, and a scalar choice of pointers
    a = tl.load(a_ptr + offs).to(tl.pi32_t)
    b = tl.load(b_ptr + offs).to(tl.pi32_t)
    chosen = tl.where(tl.load(cond_ptr + offs) != 0, a, b)
    tl.store(out_ptr + offs, chosen.to(tl.int64))
    first = tl.where(tl.load(cond_ptr) != 0, a_ptr, b_ptr)
    tl.store(out_ptr + N + offs, tl.load(first + offs))


def test_pi32_t_and_pointer_selects(target):
    rng = np.random.default_rng(0)
    cond = rng.integers(0, 2, 16).astype(np.int32)
    a, b = (rng.integers(0, 1 << 40, 16).astype(np.int64) for _ in range(2))
    out = np.zeros(32, np.int64)
    select_pointers[(1,)](cond, a, b, out, N=16)
    np.testing.assert_array_equal(out[:16], np.where(cond != 0, a, b))
    np.testing.assert_array_equal(out[16:], a if cond[0] else b)


@tilec.jit
def float_bitwise(x_ptr):
    x = tl.load(x_ptr)
    tl.store(x_ptr, x & x)


@tilec.jit
def mixed_signedness_division(x_ptr, y_ptr):
    tl.store(x_ptr, tl.load(x_ptr) / tl.load(y_ptr))


@tilec.jit
def bad_program_id(x_ptr):
    tl.store(x_ptr, tl.program_id(20))


def test_error_wording_matches_triton(target):
    with pytest.raises(tilec.CompilationError, match="invalid operands of type fp32 and fp32"):
        float_bitwise[(1,)](np.zeros(1, np.float32))
    with pytest.raises(tilec.CompilationError, match="Cannot use .* because they have different signedness"):
        mixed_signedness_division[(1,)](np.zeros(1, np.int32), np.ones(1, np.uint32))
    with pytest.raises(tilec.CompilationError, match="program_id axis must be 0, 1, or 2 but got 20"):
        bad_program_id[(1,)](np.zeros(1, np.int32))


@tilec.jit
def number_as_scalar(out_ptr, x, y, BLOCK: tl.constexpr):
    value = 3  # a number assigned in a kernel answers as Triton's scalar tensor does
    tl.static_assert(value.dtype == tl.int32)
    filled = tl.full([BLOCK], value=value, dtype=value.dtype) + value.to(tl.float32).to(tl.int32)
    pair = tl.interleave(x, y)  # two scalars: the pair [x, y]
    tl.static_assert(pair.shape == [2])
    tl.static_assert(isinstance(pair, tl.tensor) and not isinstance(value, tl.tensor))
    tl.store(out_ptr + tl.arange(0, BLOCK), filled)
    tl.store(out_ptr + BLOCK + tl.arange(0, 2), pair)


def test_numbers_scalars_and_introspection(target):
    out = np.zeros(6, np.int32)
    number_as_scalar[(1,)](out, 10, 20, BLOCK=4)
    assert list(out) == [6, 6, 6, 6, 10, 20]


@tilec.jit
def small_dot(x_ptr, y_ptr, z_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr, OUT: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, M)[:, None] * K + tl.arange(0, K)[None, :])
    y = tl.load(y_ptr + tl.arange(0, K)[:, None] * N + tl.arange(0, N)[None, :])
    z = tl.dot(x, y, out_dtype=OUT)
    tl.store(z_ptr + tl.arange(0, M)[:, None] * N + tl.arange(0, N)[None, :], z)


@pytest.mark.parametrize("m, n, k", [(2, 2, 16), (1, 64, 64), (64, 2, 64), (64, 64, 4), (16, 16, 16)])
def test_dots_of_any_size(target, m, n, k):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((m, k)).astype(np.float32)
    y = rng.standard_normal((k, n)).astype(np.float32)
    z = np.zeros((m, n), np.float32)
    small_dot[(1,)](x, y, z, m, n, k, tl.float32)
    np.testing.assert_allclose(z, x @ y, rtol=1e-4, atol=1e-4)


def test_dot_result_types_follow_triton(target):
    rng = np.random.default_rng(1)
    x = rng.integers(-10, 10, (32, 64)).astype(np.int8)
    y = rng.integers(-10, 10, (64, 32)).astype(np.int8)
    z = np.zeros((32, 32), np.int32)
    small_dot[(1,)](x, y, z, 32, 32, 64, tl.int8)  # int8 operands accumulate in int32 whatever out_dtype
    np.testing.assert_array_equal(z, x.astype(np.int32) @ y.astype(np.int32))
    with pytest.raises(tilec.CompilationError, match="out_dtype=bfloat16 is not supported"):
        small_dot[(1,)](x, y, z, 32, 32, 64, tl.bfloat16)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80", "gfx942"])
def test_small_dots_compile_for_gpus(arch, monkeypatch):
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    for m, n, k in [(2, 2, 16), (64, 64, 4), (1, 64, 64)]:
        x, y, z = np.zeros((m, k), np.float16), np.zeros((k, n), np.float16), np.zeros((m, n), np.float32)
        compiled = small_dot.warmup(x, y, z, m, n, k, tl.float32, grid=(1,), target=arch)
        assert compiled.asm["ptx" if arch.startswith("sm") else "amdgcn"]


@tilec.jit
def literal(out_ptr, WHICH: tl.constexpr):
    if WHICH == 0:
        value = 1e50  # beyond fp32: fp64, as in Triton (not inf)
    elif WHICH == 1:
        value = 1e-300  # below fp32's normals: fp64 (not 0)
    elif WHICH == 2:
        value = 2**40  # beyond int32: int64
    else:
        value = 1.5
    tl.store(out_ptr.to(tl.pointer_type(value.dtype)), value)


@pytest.mark.parametrize(
    "which, dtype, expected",
    [(0, np.float64, 1e50), (1, np.float64, 1e-300), (2, np.int64, 2**40), (3, np.float32, 1.5)],
)
def test_literal_types(target, which, dtype, expected):
    out = np.zeros(1, dtype)
    literal[(1,)](out, which)
    assert out[0] == expected


@tilec.jit
def conditional_expressions(x_ptr, out_ptr, n, far):
    pid = tl.program_id(0)
    # only the chosen side runs: the other side's address is far outside any array
    value = tl.load(x_ptr + pid) if pid < n else tl.load(x_ptr + far)
    tl.store(out_ptr + pid, value) if pid % 2 == 0 else tl.store(out_ptr + pid, -value)
    picked = 2.5 if pid == 0 else tl.load(x_ptr)  # a number on one side takes the other's type
    tl.store(out_ptr + 4 + pid, picked)


def test_conditional_expressions_run_one_side(target):
    x = np.array([1.0, 2.0, 3.0, 4.0], np.float32)
    out = np.zeros(8, np.float32)
    conditional_expressions[(4,)](x, out, 4, 1 << 40)
    np.testing.assert_array_equal(out, [1.0, -2.0, 3.0, -4.0, 2.5, 1.0, 1.0, 1.0])


@tilec.jit
def with_defaults(out_ptr, value=3):
    tl.store(out_ptr, value)


def test_launch_argument_checks(target):
    out = np.zeros(1, np.int64)
    with_defaults[(1,)](out)
    assert out[0] == 3
    with pytest.raises(ValueError, match="num_warps must be a power of 2"):
        with_defaults[(1,)](out, num_warps=3)
    with_defaults[(1,)](out, 2**64 - 1)  # uint64
    assert out.view(np.uint64)[0] == 2**64 - 1
    for too_big in (2**64, -(2**63) - 1):  # after a launch with an int of the same key's kind
        with pytest.raises(OverflowError, match="does not fit in 64 bits"):
            with_defaults[(1,)](out, too_big)


@tilec.jit
def annotated_scalars(out_ptr, stride: tl.int64, small: tl.uint8, tiny: tl.float64, half: tl.float16, n: int):
    tl.static_assert(stride.dtype == tl.int64)  # the annotation is the type, whatever the value
    tl.static_assert(small.dtype == tl.uint8)
    tl.static_assert(tiny.dtype == tl.float64)
    tl.static_assert(half.dtype == tl.float16)
    tl.store(out_ptr, stride * 1048576)  # 2**32: int32 arithmetic would wrap to 0
    tl.store(out_ptr + 1, small.to(tl.int64) + n)
    tl.store(out_ptr + 2, (tiny * 1e-300 > 0).to(tl.int64))  # 1e-310 is 0 in fp32, not in fp64
    tl.store(out_ptr + 3, (half * 4).to(tl.int64))


def test_scalar_type_annotations(target):
    out = np.zeros(4, np.int64)
    annotated_scalars[(1,)](out, 4096, 3, 1e-10, 1.5, 1)  # 1 would be specialized without the annotation
    assert list(out) == [2**32, 4, 1, 6]


@tilec.autotune(
    configs=[tilec.Config(kwargs={"BLOCK": 32})],
    key=["n"],
    do_bench=lambda kernel, quantiles: tilec.testing.do_bench(kernel, quantiles=quantiles, warmup=1, rep=1),
)
@tilec.heuristics({"EVEN_N": lambda named: named["n"] % 2 == 0})
@tilec.jit
def decorated(dst, n, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    tl.store(dst, EVEN_N + BLOCK)


def test_decorator_stack_and_base_fn(target):
    dst = np.zeros(1, np.int32)
    decorated[(1,)](dst, n=1023)
    assert dst[0] == 32
    assert decorated.base_fn.__name__ == "decorated" and isinstance(decorated.base_fn, tilec.JITFunction)


@tilec.jit
def fill_ones(x_ptr, N: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, N), 1.0)


def test_a_launch_returns_the_compiled_kernel(target):
    x = np.zeros(16, np.float32)
    first = fill_ones[(1,)](x, 16)
    again = fill_ones[(1,)](x, 16)  # the launch fast path
    assert isinstance(first, tilec.CompiledKernel) and again is first
    assert first.name == "fill_ones" and first.n_spills == 0
    # shared memory: the GPU's per program; on the host its largest tile (16 pointers here)
    assert first.metadata.shared == (16 * 8 if target == "cpu" else 0)
    assert (x == 1).all()


@tilec.jit
def python_min_max(x_ptr, out_ptr, N: tl.constexpr):
    v = tl.load(x_ptr + tl.arange(0, N))
    tl.store(out_ptr + tl.arange(0, N), max(v, 2.0, min(v * 3, 5.0, 7.0)))  # any number of operands


def test_python_min_and_max_on_tensors(target):
    x = np.array([0, 1, 2, 3], np.float32)
    out = np.zeros(4, np.float32)
    python_min_max[(1,)](x, out, 4)
    np.testing.assert_array_equal(out, np.maximum(np.maximum(x, 2), np.minimum(x * 3, 5)))


@tilec.jit
def copy_through_const(in_ptr: tl.const, out_ptr, c_out: tl.const, CHOOSE: tl.constexpr, N: tl.constexpr):
    offs = tl.arange(0, N)
    dst = out_ptr
    if CHOOSE == 1:
        dst = c_out
    elif CHOOSE == 2:
        dst = tl.make_block_ptr(c_out, (N,), (1,), (0,), (N,), (0,))
        tl.store(dst, tl.load(in_ptr + offs))
    elif CHOOSE == 3:
        tl.atomic_add(c_out + offs, 1.0)
    tl.static_assert(in_ptr.dtype == tl.pointer_type(tl.float32, const=True))
    tl.static_assert((in_ptr + offs).dtype.const)  # offsets keep the pointer read-only
    tl.store(dst + offs, tl.load(in_ptr + offs))


@tilec.jit
def merge_const_and_plain(c_ptr: tl.const, out_ptr, flag, N: tl.constexpr):
    dst = c_ptr
    if flag:
        dst = out_ptr
    tl.store(dst + tl.arange(0, N), 1.0)


def test_const_pointers_are_read_only(target):
    """`tl.const` parameters (Triton's): loads go through, stores and atomics through them (offset,
    as block pointers) are compile errors in Triton's words, and a run-time branch cannot merge a
    const pointer with a plain one."""
    x = np.arange(16, dtype=np.float32)
    out = np.zeros(16, np.float32)
    copy_through_const[(1,)](x, out, out, 0, 16)
    assert np.array_equal(out, x)
    for choose in (1, 2, 3):
        with pytest.raises(tilec.CompilationError, match="Cannot store to a constant pointer"):
            copy_through_const[(1,)](x, out, out, choose, 16)
    with pytest.raises(tilec.CompilationError, match="Mismatched type for dst"):
        merge_const_and_plain[(1,)](x, out, 3, 16)


@tilec.jit
def mark_threads(out_ptr):
    threads: tl.constexpr = tl.extra.cuda.num_threads()
    tl.static_assert(tl.extra.cuda.num_warps() * 32 == threads)
    tl.store(out_ptr + tl.arange(0, threads), 1)


@pytest.mark.parametrize("num_warps", [1, 2, 8])
def test_num_warps_and_num_threads_are_the_launch_constants(target, num_warps):
    out = np.zeros(512, np.int32)
    mark_threads[(1,)](out, num_warps=num_warps)
    assert out.sum() == 32 * num_warps and out[: 32 * num_warps].all()


@tilec.jit
def clock_and_sm(out_ptr):
    row = out_ptr + tl.program_id(0) * 3
    start = tl.extra.cuda.globaltimer()
    tl.store(row + 2, tl.extra.cuda.smid().to(tl.int64))
    tl.store(row, start)
    tl.store(row + 1, tl.extra.cuda.globaltimer())


def test_globaltimer_and_smid_read_ptx_registers(target):
    ptx = tilec.compile(clock_and_sm, signature={"out_ptr": "*i64"}, target="sm_90a")
    if shutil.which("ptxas"):
        assert "cubin" in ptx.asm
    text = ptx.asm["ptx"]
    assert text.count("%globaltimer") == 2 and text.count("%smid") == 1  # two reads: not merged
    with pytest.raises((tilec.CompilationError, tilec.InterpreterError), match="cannot run"):
        clock_and_sm[(1,)](np.zeros(3, np.int64))


@pytest.mark.gpu
@needs_gpu
def test_globaltimer_and_smid_on_gpu():
    import torch

    out = torch.zeros((64, 3), dtype=torch.int64, device="cuda")
    clock_and_sm[(64,)](out)
    out = out.cpu()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    assert (out[:, 0] > 0).all() and (out[:, 1] >= out[:, 0]).all()
    assert ((out[:, 2] >= 0) & (out[:, 2] < sms)).all()


@tilec.jit
def dependent_double(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    tl.extra.cuda.gdc_wait()  # the producer grid's writes of x are visible from here on
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n)
    tl.extra.cuda.gdc_launch_dependents()
    tl.store(out_ptr + offs, x * 2, mask=offs < n)


def test_grid_dependency_control_is_griddepcontrol_on_sm90_and_nothing_elsewhere(target):
    """Triton's programmatic-dependent-launch helpers: PTX griddepcontrol on sm_90+ (assembled by
    ptxas), dropped for sm_80, AMD, the CPU target and the interpreter, where launches never overlap."""
    signature = {"x_ptr": "*fp32", "out_ptr": "*fp32", "n": "i32"}
    hopper = tilec.compile(dependent_double, signature, {"BLOCK": 32}, target="sm_90a")
    if shutil.which("ptxas"):
        assert "cubin" in hopper.asm
    text = hopper.asm["ptx"]
    assert text.index("griddepcontrol.wait;") < text.index("ld.global")
    assert "griddepcontrol.launch_dependents;" in text
    ampere = tilec.compile(dependent_double, signature, {"BLOCK": 32}, target="sm_80")
    assert "griddepcontrol" not in ampere.asm["ptx"]
    assert "amdgcn" in tilec.compile(dependent_double, signature, {"BLOCK": 32}, target="gfx942").asm
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    dependent_double[(4,)](x, out, 100, BLOCK=32)
    np.testing.assert_array_equal(out, x * 2)


@pytest.mark.gpu
@needs_gpu
def test_grid_dependency_control_on_gpu():
    import torch

    x = torch.arange(1000, dtype=torch.float32, device="cuda")
    out = torch.zeros_like(x)
    dependent_double[(8,)](x, out, 1000, BLOCK=128)
    assert torch.equal(out, x * 2)


@tilec.jit
def slow_producer(x_ptr, value, n, rounds, BLOCK: tl.constexpr):
    tl.extra.cuda.gdc_launch_dependents()  # the dependent grid may start now, before x is written
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32) + value
    for _ in range(rounds):  # keep the producer busy long enough for the consumer to start
        acc = acc * 1.0000001 - value * 0.0000001
    tl.store(x_ptr + offs, tl.floor(acc + 0.5), mask=offs < n)


def test_launch_pdl_is_a_launch_option(target):
    """launch_pdl=True (Triton's programmatic dependent launch) is taken: launches stay serial on the
    host targets, so a dependent kernel reads what the kernel before it wrote."""
    x = np.zeros(100, np.float32)
    out = np.zeros_like(x)
    slow_producer[(4,)](x, 7.0, 100, 3, BLOCK=32)
    compiled = dependent_double[(4,)](x, out, 100, BLOCK=32, launch_pdl=True)
    assert compiled.options.launch_pdl
    np.testing.assert_array_equal(out, np.full(100, 14.0, np.float32))
    with pytest.raises(TypeError, match="launch_pdl must be True or False"):
        dependent_double[(4,)](x, out, 100, BLOCK=32, launch_pdl=1)


@pytest.mark.gpu
@needs_gpu
def test_launch_pdl_overlaps_and_gdc_wait_orders_on_gpu():
    """With launch_pdl the dependent kernel is launched by cuLaunchKernelEx with programmatic stream
    serialization and may start once every producer program has called gdc_launch_dependents(),
    before x is written; its gdc_wait() must still see the producer's stores."""
    import torch

    from tilec.targets.nvidia import runtime

    n, block = 1 << 20, 1024
    x = torch.zeros(n, dtype=torch.float32, device="cuda")
    out = torch.empty_like(x)
    for value in range(1, 21):
        slow_producer[(n // block,)](x, float(value), n, 20000, BLOCK=block)
        compiled = dependent_double[(n // block,)](x, out, n, BLOCK=block, launch_pdl=True)
        torch.cuda.synchronize()
        assert torch.equal(out, torch.full_like(x, 2.0 * value)), value
    if runtime.compute_capability(0)[0] >= 9:
        assert compiled._launcher.functions[0][3] is not None  # launched by cuLaunchKernelEx


@tilec.jit
def numel_capped(out_ptr, BLOCK: tl.constexpr):
    tl.static_assert(BLOCK <= tl.TRITON_MAX_TENSOR_NUMEL)
    tl.store(out_ptr + tl.arange(0, BLOCK), tl.full((BLOCK,), tl.TRITON_MAX_TENSOR_NUMEL // BLOCK, tl.int32))


def test_max_tensor_numel_is_tritons(target):
    """Ported kernels assert their blocks against tl.TRITON_MAX_TENSOR_NUMEL (Triton's 2^20)."""
    out = np.zeros(16, np.int32)
    numel_capped[(1,)](out, BLOCK=16)
    assert list(out) == [2**20 // 16] * 16


@tilec.jit
def arithmetic_functions(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    rows = tl.arange(0, BLOCK)[:, None] * 4 + tl.arange(0, 4)[None, :]
    x = tl.load(x_ptr + rows)  # [BLOCK, 4] int32
    i = 0
    while tl.condition(i < n, disable_licm=True):
        i += 1
    total = tl.add(x, 1) + tl.sub(x, 2, sanitize_overflow=False) + tl.core.mul(x, 3)
    either = tl.logical_or(x > 5, x.logical_and(x < 2)).to(tl.int32)
    tl.store(out_ptr + rows, total + either * 100 + i * 1000)
    tl.store(out_ptr + BLOCK * 4 + tl.arange(0, BLOCK), tl.reduce_or(x, 1))
    tl.store(out_ptr + BLOCK * 5 + tl.arange(0, 4), x.reduce_or(0))
    tl.store(out_ptr + BLOCK * 5 + 4, tl.reduce_or(x, None))
    halves = x.to(tl.float32).div_rn(2.0)
    tl.store(out_ptr + BLOCK * 5 + 5 + rows, halves.to(tl.int32, bitcast=True))


def test_triton_arithmetic_functions_and_reductions(target):
    """tl.add / tl.sub / tl.mul (and tl.core's), tl.reduce_or, logical_and / logical_or, div_rn as a
    method, `while tl.condition(...)`: names Triton kernels use that are not operators."""
    x = np.arange(-3, 29, dtype=np.int32).reshape(8, 4) * 37 % 64
    out = np.zeros(8 * 4 + 8 + 5 + 32, np.int32)
    arithmetic_functions[(1,)](x, out, 3, BLOCK=8)
    either = (x > 5) | ((x != 0) & (x < 2))
    np.testing.assert_array_equal(out[:32].reshape(8, 4), 5 * x - 1 + either * 100 + 3000)
    np.testing.assert_array_equal(out[32:40], np.bitwise_or.reduce(x, axis=1))
    np.testing.assert_array_equal(out[40:44], np.bitwise_or.reduce(x, axis=0))
    assert out[44] == np.bitwise_or.reduce(x, axis=None)
    np.testing.assert_array_equal(out[45:].view(np.float32).reshape(8, 4), x.astype(np.float32) / 2)


@tilec.jit
def per_target(out_ptr):
    if tl.target_info.cuda_capability_geq(9, 0):
        code = 90
    elif tl.target_info.is_cuda():
        code = 80
    elif tl.target_info.is_hip_cdna3():
        code = 942
    elif tl.target_info.is_hip():
        code = 1
    else:
        code = 2
    tl.store(out_ptr, code + tl.target_info.current_target().warp_size * 1000)


def test_target_info_chooses_the_branch_per_target(target):
    """tl.target_info (Triton's): compile-time tests of the target, so one source takes a path per
    target; the branches not taken are not generated."""
    from tilec.language import target_info

    out = np.zeros(1, np.int32)
    per_target[(1,)](out)
    assert out[0] == 1002  # the host targets: warp size 1, neither CUDA nor HIP
    for arch, code in (("sm_90a", 32090), ("sm_80", 32080), ("gfx942", 64942), ("gfx1100", 32001)):
        ir = tilec.compile(per_target, {"out_ptr": "*i32"}, target=arch).asm["tile"]
        assert f"{code} : i32" in ir and "1002 : i32" not in ir, arch
    assert target_info.current_target() is None and not target_info.is_cuda()  # not compiling


@tilec.jit
def mixed_with_bf16(x_ptr, out_ptr):
    """A bf16 block with an integer block: Triton computes in fp32 (not bf16)."""
    offs = tl.arange(0, 8)
    x = tl.load(x_ptr + offs).to(tl.bfloat16)
    y = x * offs  # int32 block
    tl.static_assert(y.dtype == tl.float32)
    tl.static_assert((x * x).dtype == tl.bfloat16)
    tl.static_assert((x * 3).dtype == tl.bfloat16)  # a Python int does not take part
    tl.static_assert(tl.sum(offs < 3, axis=0).dtype == tl.uint32)  # booleans are unsigned in Triton
    tl.store(out_ptr + offs, y)


def test_bf16_with_integers_computes_in_fp32_as_in_triton(target):
    """Triton's computation_type_impl: only bf16 with bf16 stays bf16; compared with Triton 3.5's own
    function over every pair of types (block or scalar, / and % or not), the differences left are
    fp8 with integers (Triton refuses; tilec computes in the fp8 type, fp32 for / and %)."""
    from tilec.language import core, semantic

    assert semantic.computation_type(core.int32, False, core.bfloat16, False, False) == core.float32
    assert semantic.computation_type(core.int1, True, core.bfloat16, True, False) == core.float32
    assert semantic.computation_type(core.bfloat16, False, core.bfloat16, False, False) == core.bfloat16
    assert semantic.computation_type(core.float16, False, core.bfloat16, False, False) == core.float16
    # booleans are unsigned to the division check: bool // uint8 is allowed, bool // int8 is not
    assert semantic.computation_type(core.int1, False, core.uint8, False, True) == core.uint8
    with pytest.raises(tilec.language.semantic.SemanticError, match="different signedness"):
        semantic.computation_type(core.int1, False, core.int8, False, True)
    x = np.full(8, 1 + 2.0**-7, np.float32)  # a bf16 value whose products by 3, 5, 7 are not
    out = np.zeros(8, np.float32)
    mixed_with_bf16[(1,)](x, out)
    np.testing.assert_array_equal(out, x * np.arange(8))  # exact in fp32, not rounded to bf16


@tilec.jit
def wide_program_ids(out_ptr, WIDTH: tl.constexpr):
    pid = tl.program_id(0, bitwidth=WIDTH)
    tl.static_assert(pid.dtype == (tl.int64 if WIDTH == 64 else tl.int32))
    tl.store(out_ptr + pid, pid * 3_000_000_000 if WIDTH == 64 else pid)


def test_program_id_with_bitwidth_64_is_int64(target):
    """tl.program_id(axis, bitwidth=64) (newer Triton): an int64, so products past 2^31 do not wrap."""
    out = np.zeros(4, np.int64)
    wide_program_ids[(4,)](out, WIDTH=64)
    assert list(out) == [0, 3_000_000_000, 6_000_000_000, 9_000_000_000]
    with pytest.raises(tilec.CompilationError, match="program_id bitwidth must be 32 or 64, got 48"):
        wide_program_ids[(4,)](out, WIDTH=48)


@tilec.jit
def fractional_into_integers(out_ptr):
    tl.store(out_ptr, 1.5)  # an fp32 converted toward zero, as Triton's store does
    tl.store(out_ptr + 1 + tl.arange(0, 2), -2.75)
    tl.atomic_add(out_ptr + 3, 2.5)
    tl.store(out_ptr + 4, 7.0)  # integral floats are the integer itself


def test_fractional_python_floats_stored_into_integers_truncate(target):
    out = np.full(5, 10, np.int32)
    fractional_into_integers[(1,)](out)
    assert list(out) == [1, -2, -2, 12, 7]
