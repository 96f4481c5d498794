"""Triton's semantics where tilec once differed: arg-reductions over NaNs, kernels made from source
text (exec, templates patched through `JITFunction.src`), on the interpreter and the CPU target,
and compiled for sm_90a and gfx942."""

import numpy as np
import pytest
from gpu_launch import needs_gpu, torch_launcher

import tilec
import tilec.language as tl


@tilec.jit
def arg_reductions(x_ptr, out_ptr, N: tl.constexpr, BLOCK: tl.constexpr, LEFT: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    low = tl.load(x_ptr + offs, mask=offs < N, other=float("-inf"))
    high = tl.load(x_ptr + offs, mask=offs < N, other=float("inf"))
    tl.store(out_ptr, tl.argmax(low, 0, tie_break_left=LEFT))
    tl.store(out_ptr + 1, tl.argmin(high, 0, tie_break_left=LEFT))
    tl.store(out_ptr + 2, tl.max(low, 0, return_indices=True)[1])
    tl.store(out_ptr + 3, tl.min(high, 0, return_indices=True)[1])


def _nan_rows(n):
    rng = np.random.default_rng(n)
    rows = []
    for where in (0, 1, n // 2, n - 1):
        x = rng.random(n).astype(np.float32)
        x[where] = np.nan
        rows.append(x)
    x = rng.random(n).astype(np.float32)
    x[min(int(np.argmax(x)) + 1, n - 1)] = np.nan  # a NaN right after the maximum
    rows.append(x)
    x = rng.random(n).astype(np.float32)
    x[::3] = np.nan
    rows.append(x)
    return rows


@pytest.mark.parametrize("n, block", [(10, 16), (16, 16), (100, 128), (7, 8)])
@pytest.mark.parametrize("left", [True, False])
def test_arg_reductions_skip_nans(target, n, block, left):
    """As Triton's compiled kernels (and its interpreter since 3.6): the index of the largest number,
    NaNs ignored, never a masked-off lane; the first one on ties."""
    for x in _nan_rows(n):
        out = np.full(4, -1, np.int32)
        arg_reductions[(1,)](x, out, n, block, left)
        expected = [np.nanargmax(x), np.nanargmin(x)] * 2
        assert out.tolist() == expected, x


def test_arg_reductions_of_a_row_of_nans_and_ties(target):
    out = np.full(4, -1, np.int32)
    arg_reductions[(1,)](np.full(8, np.nan, np.float32), out, 8, 8, True)
    assert out.tolist() == [7] * 4  # every comparison is false: the last lane, as Triton's combine
    ties = np.array([1, 5, 5, 0, 5, 0, 0, 2], np.float32)
    arg_reductions[(1,)](ties, out, 8, 8, True)
    assert out.tolist() == [1, 3, 1, 3]


@tilec.jit
def row_argmax(x_ptr, out_ptr, COLS: tl.constexpr):
    r = tl.arange(0, 4)[:, None]
    c = tl.arange(0, COLS)[None, :]
    x = tl.load(x_ptr + r * COLS + c).to(tl.float32)
    tl.store(out_ptr + tl.arange(0, 4), tl.argmax(x, 1))
    tl.store(out_ptr + 4 + tl.arange(0, 4), tl.max(x, 1).to(tl.int32))


def test_row_argmax_of_half_precision_with_nans(target):
    x = np.arange(4 * 32, dtype=np.float16).reshape(4, 32) % 29
    x[0, 5] = x[1, 31] = x[2, 0] = np.nan
    out = np.zeros(8, np.int32)
    row_argmax[(1,)](x, out, 32)
    assert out[:4].tolist() == np.nanargmax(x, 1).tolist()
    assert out[4:].tolist() == np.nanmax(x, 1).astype(np.int32).tolist()


_KERNEL_TEXT = """
import tilec
import tilec.language as tl


@tilec.jit
def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask) * factor, mask=mask)


@tilec.jit
def broken(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs) + not_defined_anywhere)
"""


def test_kernels_made_by_exec_compile_and_run(target):
    scope = {}
    exec(_KERNEL_TEXT, scope)
    x = np.arange(100, dtype=np.float32)
    out = np.zeros_like(x)
    scope["scale"][(2,)](x, out, 100, 3.0, BLOCK=64)
    np.testing.assert_array_equal(out, 3 * x)
    assert scope["scale"].src.startswith("def scale(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr):")


def test_errors_in_kernels_made_by_exec_point_at_their_text(target):
    scope = {}
    exec(compile(_KERNEL_TEXT, "<generated kernels>", "exec"), scope)
    with pytest.raises(tilec.CompilationError) as info:
        scope["broken"][(1,)](np.zeros(8, np.float32), BLOCK=8)
    message = str(info.value)
    assert message.startswith("<generated kernels>:16:")
    assert "not_defined_anywhere" in message.splitlines()[1]  # the line itself, from the text


def test_a_function_with_no_source_at_all_is_refused_clearly():
    scope = {}
    code = compile("def opaque(x):\n    return x\n", "<no text>", "exec")
    exec(code, scope)
    import tilec._source_texts as texts

    texts._texts.clear()  # as if the text had been compiled before tilec was imported
    texts._found.clear()
    kernel = tilec.jit(scope["opaque"])
    with pytest.raises(ValueError, match="cannot read the source of kernel 'opaque'"):
        kernel[(1,)](np.zeros(1, np.float32))


def _nested_template():
    @tilec.jit
    def template(in_ptr, out_ptr, other_ptr, n, BLOCK: tl.constexpr):
        offs = tl.arange(0, BLOCK)
        mask = offs < n
        val = tl.load(in_ptr + offs, mask=mask)
        CHOOSE_OUTPUT  # noqa: B018, F821 (replaced before compiling)
        tl.store(final + offs, val, mask=mask)  # noqa: F821

    return template


def test_nested_kernel_source_is_dedented_like_triton():
    template = _nested_template()
    assert template.src.startswith("def template(")
    assert "\n    offs = tl.arange(0, BLOCK)\n" in template.src


def test_patched_nested_template_runs(target):
    template = _nested_template()
    patch = "if n > 4:\n        final = out_ptr\n    else:\n        final = other_ptr"
    kernel = tilec.JITFunction(template.fn)
    kernel._unsafe_update_src(template.src.replace("CHOOSE_OUTPUT", patch))
    x = np.arange(16, dtype=np.float32)
    out, other = np.zeros_like(x), np.zeros_like(x)
    kernel[(1,)](x, out, other, 16, BLOCK=16)
    np.testing.assert_array_equal(out, x)
    assert not other.any()


def test_a_patch_that_ends_the_body_early_is_an_error(target):
    """A patch indented less than the body would leave the store outside the function: an error,
    never a shorter kernel that stores nothing."""
    template = _nested_template()
    kernel = tilec.JITFunction(template.fn)
    patched = template.src.replace("CHOOSE_OUTPUT", "final = out_ptr")
    kernel._unsafe_update_src(patched.replace("\n    tl.store", "\ntl.store"))
    with pytest.raises(tilec.CompilationError, match="goes on after its function"):
        kernel[(1,)](np.zeros(4, np.float32), np.zeros(4, np.float32), np.zeros(4, np.float32), 4, BLOCK=4)


@pytest.mark.parametrize("arch", ["sm_90a", "gfx942"])
def test_arg_reductions_compile_for_gpus(arch, monkeypatch):
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    for left in (True, False):
        tilec.compile(arg_reductions, "*fp32,*i32", {"N": 100, "BLOCK": 128, "LEFT": left}, target=arch)
    tilec.compile(row_argmax, "*fp16,*i32", {"COLS": 32}, target=arch)


@tilec.jit
def reshaping(x_ptr, out_ptr):
    r = tl.arange(0, 4)[:, None]
    c = tl.arange(0, 8)[None, :]
    x = tl.load(x_ptr + r * 8 + c)  # [4, 8]
    cube = tl.unsqueeze(x, 0)  # [1, 4, 8]
    back = cube.squeeze(0)
    tl.store(out_ptr + r * 8 + c, back)
    batch = tl.reshape(x, (2, 2, 8))
    swapped = tl.trans(batch)  # the last two dimensions: [2, 8, 2]
    i = tl.arange(0, 2)[:, None, None]
    j = tl.arange(0, 8)[None, :, None]
    k = tl.arange(0, 2)[None, None, :]
    tl.store(out_ptr + 32 + i * 16 + j * 2 + k, swapped)
    wide = tl.cat(x, x * 10, dim=1)  # [4, 16]
    c16 = tl.arange(0, 16)[None, :]
    tl.store(out_ptr + 64 + r * 16 + c16, wide)
    one = tl.sum(tl.reshape(x, (1, 32)), axis=1)  # shape [1]
    tl.store(out_ptr + 128, one.item())


def test_squeeze_unsqueeze_batched_trans_cat_dim_item(target):
    x = np.arange(32, dtype=np.int32)
    out = np.zeros(129, np.int32)
    reshaping[(1,)](x, out)
    m = x.reshape(4, 8)
    assert out[:32].tolist() == x.tolist()
    assert out[32:64].tolist() == m.reshape(2, 2, 8).transpose(0, 2, 1).ravel().tolist()
    assert out[64:128].tolist() == np.concatenate([m, m * 10], axis=1).ravel().tolist()
    assert out[128] == x.sum()


@tilec.jit
def bad_squeeze(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 4)[None, :])
    tl.store(x_ptr + tl.arange(0, 4), tl.squeeze(x, 1))


def test_squeezing_a_dimension_that_is_not_one_is_an_error(target):
    with pytest.raises(tilec.CompilationError, match=r"tl.squeeze: dimension 1 of shape \[1, 4\] has size 4"):
        bad_squeeze[(1,)](np.zeros(4, np.float32))


@tilec.jit
def int_clamp(x_ptr, out_ptr, lo, hi, N: tl.constexpr):
    offs = tl.arange(0, N)
    tl.store(out_ptr + offs, tl.clamp(tl.load(x_ptr + offs), lo, hi))


@pytest.mark.parametrize("np_dt", [np.int32, np.uint8, np.int64, np.float32])
def test_clamp_of_integers_and_floats(target, np_dt):
    x = np.array([0, 3, 7, 100, 250, 5, 9, 1], np_dt)
    out = np.zeros_like(x)
    int_clamp[(1,)](x, out, 2, 9, 8)
    assert out.tolist() == np.clip(x, 2, 9).tolist()


def test_dtype_attributes_as_triton():
    assert tl.float32.fp_mantissa_width == 23 and tl.bfloat16.fp_mantissa_width == 7
    assert tl.float16.exponent_bias == 15 and tl.float8e4nv.exponent_bias == 7
    assert tl.float8e5.fp_mantissa_width == 2 and tl.float64.exponent_bias == 1023
    assert tl.int16.int_bitwidth == 16
    assert tl.uint8.int_signedness == tl.dtype.SIGNEDNESS.UNSIGNED
    assert tl.int8.int_signedness == tl.dtype.SIGNEDNESS.SIGNED
    assert tl.int1.int_signedness == tl.dtype.SIGNEDNESS.UNSIGNED
    assert tl.int8.get_int_max_value() == 127 and tl.int8.get_int_min_value() == -128
    assert tl.uint32.get_int_max_value() == 2**32 - 1 and tl.uint32.get_int_min_value() == 0
    assert tl.float32.is_standard_floating() and not tl.float8e5.is_standard_floating()
    assert tl.int8.is_int8() and tl.uint64.is_uint64() and not tl.int32.is_int8()
    assert tl.float8e4nv.is_fp8e4nv() and not tl.float8e4nv.is_fp8e4b15()
    assert tl.float32.scalar is tl.float32 and not tl.float32.is_block()
    assert tl.float32.kind() == tl.dtype.KIND.FLOATING and tl.int1.kind() == tl.dtype.KIND.BOOLEAN
    with pytest.raises(AttributeError, match="int32 is not a floating-point type"):
        tl.int32.fp_mantissa_width  # noqa: B018


@tilec.jit
def mantissa_in_kernel(out_ptr, X: tl.constexpr):
    tl.store(out_ptr, X.fp_mantissa_width + X.exponent_bias)


def test_dtype_attributes_in_kernels(target):
    out = np.zeros(1, np.int32)
    mantissa_in_kernel[(1,)](out, tl.float16)
    assert out[0] == 25


@tilec.jit
def persistent_rows(out_ptr, in_ptr, n_rows, n_cols, BLOCK: tl.constexpr):
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0)):
        cols = tl.arange(0, BLOCK)
        x = tl.load(in_ptr + row * n_cols + cols, mask=cols < n_cols, other=-float("inf"))
        y = tl.exp(x - tl.max(x, 0))
        tl.store(out_ptr + row * n_cols + cols, y / tl.sum(y, 0), mask=cols < n_cols)


@pytest.mark.parametrize("block", [256, 1 << 20])
def test_occupancy_arithmetic_of_ported_launch_code(monkeypatch, block):
    """Triton's fused-softmax tutorial sizes its persistent grid from the device's registers and
    shared memory and the compiled kernel's n_regs and metadata.shared: on the CPU target that
    gives one program per core, never zero programs or a division by zero (a tile far larger than
    the L2 included)."""
    from tilec.runtime import _ActiveDriver

    monkeypatch.setenv("TILEC_TARGET", "cpu")
    monkeypatch.setattr(_ActiveDriver, "backend", "cpu")
    props = _ActiveDriver().utils.get_device_properties(None)
    x = np.random.default_rng(0).standard_normal((6, 200)).astype(np.float32)
    y = np.zeros_like(x)
    num_warps = 8
    kernel = persistent_rows.warmup(y, x, 6, 200, BLOCK=block, num_warps=num_warps, grid=(1,))
    kernel._init_handles()
    occupancy = props["max_num_regs"] // (kernel.n_regs * props["warpSize"] * num_warps)
    occupancy = min(occupancy, props["max_shared_mem"] // kernel.metadata.shared)
    assert occupancy == 1
    programs = min(props["multiprocessor_count"] * occupancy, 6)
    kernel[(programs, 1, 1)](y, x, 6, 200)
    e = np.exp(x - x.max(1, keepdims=True))
    np.testing.assert_allclose(y, e / e.sum(1, keepdims=True), rtol=1e-5)


@pytest.mark.gpu
@needs_gpu
def test_conformance_kernels_on_a_gpu():
    """The same kernels on the GPU (its lowering shares the front end's semantics)."""
    launch = torch_launcher()
    for n, block in [(10, 16), (100, 128)]:
        for left in (True, False):
            for x in _nan_rows(n):
                out = np.full(4, -1, np.int32)
                launch(arg_reductions, (1,), x, out, n, block, left)
                assert out.tolist() == [np.nanargmax(x), np.nanargmin(x)] * 2, x
    out = np.full(4, -1, np.int32)
    launch(arg_reductions, (1,), np.full(8, np.nan, np.float32), out, 8, 8, True)
    assert out.tolist() == [7] * 4
    h = np.arange(4 * 32, dtype=np.float16).reshape(4, 32) % 29
    h[0, 5] = h[1, 31] = h[2, 0] = np.nan
    out = np.zeros(8, np.int32)
    launch(row_argmax, (1,), h, out, 32)
    assert out[:4].tolist() == np.nanargmax(h, 1).tolist()
    x = np.arange(32, dtype=np.int32)
    out = np.zeros(129, np.int32)
    launch(reshaping, (1,), x, out)
    m = x.reshape(4, 8)
    assert out[32:64].tolist() == m.reshape(2, 2, 8).transpose(0, 2, 1).ravel().tolist()
    assert out[64:128].tolist() == np.concatenate([m, m * 10], axis=1).ravel().tolist()
    assert out[128] == x.sum()
    for np_dt in (np.int32, np.uint8, np.float32):
        v = np.array([0, 3, 7, 100, 250, 5, 9, 1], np_dt)
        got = np.zeros_like(v)
        launch(int_clamp, (1,), v, got, 2, 9, 8)
        assert got.tolist() == np.clip(v, 2, 9).tolist()
    scope = {}
    exec(_KERNEL_TEXT, scope)
    v = np.arange(100, dtype=np.float32)
    got = np.zeros_like(v)
    launch(scope["scale"], (2,), v, got, 100, 3.0, BLOCK=64)
    np.testing.assert_array_equal(got, 3 * v)
