"""Frontend API: tilec.compile, specialization, cache keys, IR round trips of the whole suite."""

import re

import numpy as np
import pytest
from gpu_launch import needs_gpu
from mlir import ir
from suite import CASES

import tilec
import tilec.language as tl
from tilec.dialects import tile
from tilec.tools import opt


@tilec.jit
def copy(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs, mask=offs < n), mask=offs < n)


@tilec.jit
def helper(x):
    return x * 2


@tilec.jit
def uses_helper(src, BLOCK: tl.constexpr):
    tl.store(src + tl.arange(0, BLOCK), helper(tl.load(src + tl.arange(0, BLOCK))))


def test_compile_returns_tile_ir():
    k = tilec.compile(copy, signature={"src": "*fp16", "dst": "*fp16", "n": "i32"}, constexprs={"BLOCK": 128})
    assert k.target == "interpreter"
    assert "func.func @copy" in k.asm["tile"]
    assert "tensor<128xf16>" in k.asm["tile"]
    assert k.arg_names == ["src", "dst", "n"]


def test_compile_signature_string_and_missing_type():
    k = tilec.compile(copy, signature="*i8,*i8,i64", constexprs={"BLOCK": 16})
    assert "%arg2: i64" in k.asm["tile"]
    with pytest.raises(TypeError, match="no type or constexpr value for parameter 'n'"):
        tilec.compile(copy, signature={"src": "*fp32", "dst": "*fp32"}, constexprs={"BLOCK": 16})


@tilec.jit
def scaled_copy(src, dst, BLOCK: tl.constexpr, SCALE: tl.constexpr = 3):
    offs = tl.arange(0, BLOCK)
    tl.store(dst + offs, tl.load(src + offs) * SCALE)


def test_compile_takes_constexpr_defaults():
    """A constexpr parameter with a default needs neither a type nor a value in tilec.compile."""
    default = tilec.compile(scaled_copy, signature="*fp32,*fp32", constexprs={"BLOCK": 16})
    assert default.arg_names == ["src", "dst"]
    given = tilec.compile(scaled_copy, signature="*fp32,*fp32", constexprs={"BLOCK": 16, "SCALE": 5})
    assert "3.0" in default.asm["tile"] or "3 :" in default.asm["tile"]
    assert default.asm["tile"] != given.asm["tile"]


def test_specialization_divisibility_and_one():
    x = np.zeros(64, np.float32)
    specs, _ = copy.specialize({"src": x, "dst": x[1:], "n": 32, "BLOCK": 16})
    assert specs["src"][2] == {"tile.divisibility": 16}  # NumPy allocations are 16-byte aligned
    assert specs["dst"][2] == {}  # offset by 4 bytes
    assert specs["n"] == ("arg", tl.int32, {"tile.divisibility": 16})
    specs, _ = copy.specialize({"src": x, "dst": x, "n": 1, "BLOCK": 16})
    assert specs["n"] == ("const", 1)
    specs, _ = copy.specialize({"src": x, "dst": x, "n": 2**40 + 1, "BLOCK": 16})
    assert specs["n"][1] == tl.int64
    specs, _ = copy.specialize({"src": x, "dst": x, "n": 3.5, "BLOCK": 16})
    assert specs["n"][1] == tl.float32


def test_cache_key_covers_called_functions():
    key = uses_helper.cache_key
    assert key == uses_helper.cache_key
    assert helper in [d for d in uses_helper._dependencies()]
    assert key != copy.cache_key


def test_kernels_are_cached_per_specialization(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    copy.cache.clear()
    x, y = np.arange(64, dtype=np.float32), np.zeros(64, np.float32)
    copy[(4,)](x, y, 64, BLOCK=16)
    copy[(4,)](x, y, 64, BLOCK=16)
    assert len(copy.cache) == 1
    copy[(2,)](x, y, 64, BLOCK=32)
    copy[(4,)](x.astype(np.float64), y.astype(np.float64), 64, BLOCK=16)
    assert len(copy.cache) == 3
    np.testing.assert_array_equal(y, x)


@tilec.jit
def masked_scale(x, offs: tl.constexpr, limit: tl.constexpr, SCALE: tl.constexpr):
    return tl.where(offs < limit, x * SCALE, x)


@tilec.jit
def passes_tensor_as_constexpr(src, dst, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(src + offs, mask=offs < n)
    tl.store(dst + offs, masked_scale(x, offs, n // 2, 3.0), mask=offs < n)


@pytest.mark.parametrize("target", ["interpreter", "cpu"])
def test_helper_constexpr_annotation_takes_tensors(monkeypatch, target):
    """A @jit helper's tl.constexpr annotations are not enforced, as in Triton: its attention
    tutorial passes `offs_m` (a tensor) to a parameter annotated tl.constexpr, and scalars from the
    kernel's arguments (`n // 2` here) arrive the same way."""
    if target == "interpreter":
        monkeypatch.setenv("TILEC_INTERPRET", "1")  # else NumPy arrays run on the CPU target
    x, y = np.arange(20, dtype=np.float32), np.zeros(20, np.float32)
    passes_tensor_as_constexpr[(1,)](x, y, 20, BLOCK=32)
    np.testing.assert_array_equal(y, np.where(np.arange(20) < 10, x * 3, x))


@tilec.jit
def numbers_through_loops(out_ptr, n):
    """Numbers that change in a loop only through other numbers: folded, `acc += j` leaves acc 0
    while j is still the number 0, so one dry run of the body does not see acc change."""
    acc = 0
    j = 0
    for _ in range(n):
        acc += j
        j += 1
    total = 0
    i = 0
    while i < n:
        total = total + i * 2
        i += 1
    a = 0  # a shift register: a changes only after b has, b only after c has
    b = 0
    c = 0
    for k in range(n):
        a = b
        b = c
        c = k
    x = 0  # an int that the loop turns into a float: carried as fp32 from the start
    for _ in range(n):
        x = x + j * 0.5
    tl.store(out_ptr, acc)
    tl.store(out_ptr + 1, total)
    tl.store(out_ptr + 2, a)
    tl.store(out_ptr + 3, i)
    tl.store(out_ptr + 4, x.to(tl.int32))


@pytest.mark.parametrize("target", ["interpreter", "cpu"])
def test_numbers_carried_through_other_numbers(monkeypatch, target):
    """Before the fix, acc and total stayed 0 and a stayed 0 (silently wrong results)."""
    if target == "interpreter":
        monkeypatch.setenv("TILEC_INTERPRET", "1")
    out = np.zeros(5, np.int32)
    numbers_through_loops[(1,)](out, 10)
    assert list(out) == [45, 90, 7, 10, 50]


@tilec.jit
def runtime_step_sum(out_ptr, lb, ub, step):
    acc = 0
    count = 0
    for i in range(lb, ub, step):
        acc = acc * 3 + i  # order-sensitive: a reversed or shifted walk gives another value
        count += 1
    tl.store(out_ptr, acc)
    tl.store(out_ptr + 1, count)


@pytest.mark.parametrize("target", ["interpreter", "cpu"])
def test_range_with_a_run_time_step_of_either_sign(monkeypatch, target):
    """range(lb, ub, step) with step a run-time value walks as Python's range does, whatever its sign
    (a negative one must not run past ub until the index wraps); a step of 0 runs no
    iteration (Python would raise; a kernel cannot)."""
    if target == "interpreter":
        monkeypatch.setenv("TILEC_INTERPRET", "1")
    out = np.zeros(2, np.int64)
    for lb, ub, step in [(0, 10, 3), (0, 10, -3), (10, 0, -3), (10, -5, -4), (3, 3, 1), (5, 2, 2), (0, 7, 0)]:
        acc, count = 0, 0
        for i in range(lb, ub, step) if step else []:
            acc, count = acc * 3 + i, count + 1
        runtime_step_sum[(1,)](out, lb, ub, step)
        assert list(out) == [acc, count], (lb, ub, step)


@tilec.jit
def rows_times_options(out_ptr, n_rows, num_stages: tl.constexpr, num_warps: tl.constexpr):
    """Triton's softmax tutorial names a parameter `num_stages` (for `tl.range`) and passes it by
    keyword at launch."""
    for row in tl.range(tl.program_id(0), n_rows, tl.num_programs(0), num_stages=num_stages):
        tl.store(out_ptr + row, row * 100 + num_stages * 10 + num_warps)


def test_parameters_named_like_launch_options(target):
    """A keyword that names a kernel parameter goes to that parameter, as in Triton (not to the
    launch option alone, which would leave the parameter missing)."""
    out = np.zeros(7, np.int32)
    rows_times_options[(3,)](out, 7, num_stages=2, num_warps=8)
    np.testing.assert_array_equal(out, np.arange(7) * 100 + 28)
    rows_times_options[(2,)](out, 7, 1, num_warps=4)  # positional too
    np.testing.assert_array_equal(out, np.arange(7) * 100 + 14)
    compiled = rows_times_options.warmup(out, 7, num_stages=3, num_warps=2, grid=(1,))
    assert "tile.store" in compiled.asm["tile"]


def test_compiled_kernel_as_triton_launch_code_uses_it(target):
    """Triton's softmax tutorial: warmup, read n_regs / n_spills / metadata.shared, then launch the
    compiled kernel with every parameter (constexprs in their places)."""
    out = np.zeros(7, np.int32)
    compiled = rows_times_options.warmup(out, 7, num_stages=2, num_warps=8, grid=(1,))
    compiled._init_handles()
    assert compiled.n_regs >= 0 and compiled.n_spills >= 0 and compiled.metadata.shared >= 0
    compiled[(3, 1, 1)](out, 7, 2, 8)
    np.testing.assert_array_equal(out, np.arange(7) * 100 + 28)
    compiled[(3,)](out, 5)  # the run-time arguments alone, as before
    with pytest.raises(ValueError, match="constexpr 'num_stages' was compiled as 2, got 3"):
        compiled[(1,)](out, 7, 3, 8)
    with pytest.raises(AttributeError, match="kernel metadata has no 'nonsense'"):
        getattr(compiled.metadata, "nonsense")  # noqa: B009


def test_triton_launch_options(target):
    """Triton's option keywords: num_ctas=1 is taken (clusters are refused), maxnreg is taken (a
    register cap on NVIDIA, nothing to cap on the host), AMD's instruction-selection hints are
    checked and taken (tilec's lowerings choose their own), an option that would change what the
    launch means is refused by name instead of as an unknown argument."""
    out = np.zeros(7, np.int32)
    rows_times_options[(2,)](out, 7, 2, 8, num_ctas=1, maxnreg=64)
    np.testing.assert_array_equal(out, np.arange(7) * 100 + 28)
    with pytest.raises(TypeError, match="num_ctas=2: thread block clusters are not supported"):
        rows_times_options[(2,)](out, 7, 2, 8, num_ctas=2)
    out[:] = 0
    rows_times_options[(2,)](out, 7, 2, 8, kpack=2, matrix_instr_nonkdim=16, waves_per_eu=2)
    np.testing.assert_array_equal(out, np.arange(7) * 100 + 28)
    with pytest.raises(TypeError, match="matrix_instr_nonkdim must be one of 0, 4, 16, 32, got 8"):
        rows_times_options[(2,)](out, 7, 2, 8, matrix_instr_nonkdim=8)
    with pytest.raises(TypeError, match="'launch_cooperative_grid' is a Triton compile/launch option"):
        rows_times_options[(2,)](out, 7, 2, 8, launch_cooperative_grid=True)
    with pytest.raises(TypeError, match="maxnreg must be an int from 16 to 255"):
        rows_times_options[(2,)](out, 7, 2, 8, maxnreg=1000)
    # extern_libs naming libdevice (Triton's elementwise tests pass NVIDIA's libdevice.10.bc): its
    # functions are built into tilec, so the path is taken and unused; other libraries are refused
    out[:] = 0
    rows_times_options[(2,)](
        out, 7, 2, 8, extern_libs={"libdevice": "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"}
    )
    np.testing.assert_array_equal(out, np.arange(7) * 100 + 28)
    with pytest.raises(TypeError, match="extern_libs: tilec links no external libraries .* got mylib"):
        rows_times_options[(2,)](out, 7, 2, 8, extern_libs={"libdevice": "x.bc", "mylib": "y.bc"})


def test_grid_callable(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    x, y = np.arange(100, dtype=np.float32), np.zeros(100, np.float32)
    copy[lambda meta: (tilec.cdiv(meta["n"], meta["BLOCK"]),)](x, y, 100, BLOCK=32)
    np.testing.assert_array_equal(y, x)


def test_warmup_compiles_without_running(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    x = np.zeros(16, np.float32)
    k = copy.warmup(x, x, 16, BLOCK=16, grid=(1,))
    assert "tile.load" in k.asm["tile"]


def _suite_modules(monkeypatch):
    monkeypatch.setenv("TILEC_INTERPRET", "1")
    modules = []

    def launch(kernel, grid, *args, **constexprs):
        modules.append(kernel.warmup(*args, **constexprs).asm["tile"])

    rng = np.random.default_rng(0)
    for case in CASES:
        try:
            case.run(launch, rng)
        except Exception:
            pass  # outputs are not produced by warmup; only the IR matters here
    return modules


def test_suite_ir_round_trips_through_tilec_opt(monkeypatch, tmp_path, capsys):
    modules = _suite_modules(monkeypatch)
    assert len(modules) >= 25
    for i, text in enumerate(modules):
        path = tmp_path / f"k{i}.mlir"
        path.write_text(text)
        assert opt.main([str(path), "-p", "tile-verify", "--mlir-print-debuginfo"]) == 0
        printed = capsys.readouterr().out
        assert "suite.py" in printed  # user locations survive
        ctx = tile.make_context()
        with ctx:
            again = ir.Module.parse(printed)
            assert again.operation.verify()


def test_array_addresses_without_the_interface_dict():
    """Launches read an ndarray's address from its struct (arrays.data_address; ~10 us less per CPU
    launch of three arrays); it must equal what __array_interface__ says for every kind of array."""
    from tilec.targets import arrays

    base = np.arange(240, dtype=np.float32).reshape(12, 20)
    frozen = base.copy()
    frozen.flags.writeable = False
    kinds = [base, base[3:, 5:], base[::-1], base.T, base[:, ::3], np.asfortranarray(base), frozen]
    kinds += [np.zeros(0, np.int8), np.float64(1.0) * np.ones(1), base.view(np.int32)[2]]
    for a in kinds:
        assert arrays.data_address(a) == a.__array_interface__["data"][0]


@tilec.jit
def multiply_add(x_ptr, y_ptr, z_ptr, out_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    tl.store(out_ptr + i, tl.load(x_ptr + i) * tl.load(y_ptr + i) + tl.load(z_ptr + i))


def _fused_instructions(target: str, **options) -> set:
    compiled = tilec.compile(
        multiply_add, signature="*fp32,*fp32,*fp32,*fp32", constexprs={"N": 128}, target=target, **options
    )
    code = compiled.asm.get("ptx") or compiled.asm["amdgcn"]
    return set(
        re.findall(
            r"\b(fma\.rn\.f32|mul\.rn\.f32|add\.rn\.f32|v_fmac_f32|v_fma_f32|v_mul_f32|v_add_f32)", code
        )
    )


def test_enable_fp_fusion_decides_whether_gpus_fuse_multiply_add(monkeypatch):
    """Triton's enable_fp_fusion: by default GPUs fuse fp32 a * b + c into one FMA; with False each
    operation rounds on its own (NVPTX then writes mul.rn / add.rn, which ptxas does not fuse either);
    TILEC_DEFAULT_FP_FUSION=0 turns the default off, as TRITON_DEFAULT_FP_FUSION does in Triton."""
    assert _fused_instructions("sm_90a") == {"fma.rn.f32"}
    assert _fused_instructions("sm_90a", enable_fp_fusion=False) == {"mul.rn.f32", "add.rn.f32"}
    assert _fused_instructions("gfx942") == {"v_fmac_f32"}
    assert _fused_instructions("gfx942", enable_fp_fusion=False) == {"v_mul_f32", "v_add_f32"}
    monkeypatch.setenv("TILEC_DEFAULT_FP_FUSION", "0")
    assert _fused_instructions("sm_90a") == {"mul.rn.f32", "add.rn.f32"}
    assert _fused_instructions("sm_90a", enable_fp_fusion=True) == {"fma.rn.f32"}


def test_enable_fp_fusion_launch_option(target):
    """The launch keyword is taken (the host targets never fuse: every result rounds twice) and
    checked; it keys the compiled kernel, so the two settings do not share one."""
    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal(128).astype(np.float32) for _ in range(3))
    for fusion in (True, False):
        out = np.zeros(128, np.float32)
        multiply_add[(1,)](x, y, z, out, N=128, enable_fp_fusion=fusion)
        np.testing.assert_array_equal(out, x * y + z)
    compiled = {
        f: multiply_add.warmup(x, y, z, out, N=128, grid=(1,), enable_fp_fusion=f) for f in (True, False)
    }
    assert compiled[True] is not compiled[False]
    assert compiled[False].options.enable_fp_fusion is False
    with pytest.raises(TypeError, match="enable_fp_fusion must be True or False, got 'no'"):
        multiply_add[(1,)](x, y, z, out, N=128, enable_fp_fusion="no")


@pytest.mark.gpu
@needs_gpu
def test_enable_fp_fusion_on_gpu():
    """On the GPU the fused kernel rounds x * y + z once (as float64 does here: x * y is exact there)
    and the unfused one twice, as NumPy's float32 arithmetic."""
    import torch

    rng = np.random.default_rng(1)
    x, y, z = (rng.standard_normal(4096).astype(np.float32) for _ in range(3))
    once = (x.astype(np.float64) * y + z).astype(np.float32)
    twice = x * y + z
    assert np.count_nonzero(once != twice) > 100  # the inputs tell the two apart
    for fusion, want in ((True, once), (False, twice)):
        out = torch.zeros(4096, device="cuda")
        ins = [torch.from_numpy(v).cuda() for v in (x, y, z)]
        multiply_add[(1,)](*ins, out, N=4096, enable_fp_fusion=fusion)
        np.testing.assert_array_equal(out.cpu().numpy(), want)


@tilec.jit
def template(z_ptr, x_ptr, y_ptr, SIZE: tl.constexpr):
    off = tl.arange(0, SIZE)
    x = tl.load(x_ptr + off)  # noqa: F841 (read by the patched expression)
    y = tl.load(y_ptr + off)  # noqa: F841
    z = GENERATE_TEST_HERE  # noqa: F821
    tl.store(z_ptr + off, z)


def _patched(expr):
    """Triton's test_core.py patch_kernel: a new JITFunction of the template's Python function, its
    source edited through `src` and `_unsafe_update_src`."""
    kernel = tilec.JITFunction(template.fn)
    kernel._unsafe_update_src(kernel.src.replace("GENERATE_TEST_HERE", expr))
    return kernel


def test_patched_template_kernels(target):
    x, y, z = np.arange(8, dtype=np.float32), np.full(8, 2.0, np.float32), np.zeros(8, np.float32)
    assert template.src.startswith("def template(")
    for expr, expected in [("x + y", x + y), ("tl.where(x > 3, x, y) * 2", np.where(x > 3, x, y) * 2)]:
        _patched(expr)[(1,)](z, x, y, SIZE=8)
        np.testing.assert_array_equal(z, expected)
    line = template.fn.__code__.co_firstlineno + 5  # the GENERATE_TEST_HERE line
    with pytest.raises(tilec.CompilationError, match=rf"test_frontend.py:{line}:.*name 'w' is not defined"):
        _patched("x + w")[(1,)](z, x, y, SIZE=8)
    with pytest.raises(
        tilec.CompilationError, match=rf"test_frontend.py:{line}:.*invalid syntax in the replaced"
    ):
        _patched("x +* y")[(1,)](z, x, y, SIZE=8)
    with pytest.raises(tilec.CompilationError, match="the replaced source of 'template' defines no function"):
        broken = tilec.JITFunction(template.fn)
        broken._unsafe_update_src("x = 1\n")
        broken[(1,)](z, x, y, SIZE=8)
    with pytest.raises(tilec.CompilationError, match="name 'GENERATE_TEST_HERE' is not defined"):
        template[(1,)](z, x, y, SIZE=8)  # the template itself is unchanged


@tilec.jit
def _fill_count(out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, n + offs * 0, mask=offs < n)


def test_repeated_launches_specialize_integers_by_value(monkeypatch):
    """The fast path keys integers by what specialization reads of them (1 or not, divisible by 16,
    the widths that hold them), through a table of integers seen before: a launch with 16 reuses
    the kernel compiled for 32, 17 and 1 get their own, and each launch computes with its own n."""
    monkeypatch.setenv("TILEC_TARGET", "cpu")
    out = np.zeros(64, np.int32)
    kernels = {}
    for n in (32, 17, 16, 1, 17, 2**40):
        kernels[n] = _fill_count[(1,)](out, n, BLOCK=64)
        assert (out[: min(n, 64)] == n % 2**32).all()  # (2**40 stored into int32 memory: 0)
    assert kernels[16] is kernels[32] and kernels[17] is not kernels[32] and kernels[1] is not kernels[17]
    assert kernels[2**40] is not kernels[32]  # an int64 argument
    with pytest.raises(OverflowError, match="does not fit in 64 bits"):
        _fill_count[(1,)](out, 2**64, BLOCK=64)
