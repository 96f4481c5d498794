"""NVIDIA target. Without a GPU: the whole suite compiles to PTX, and ptxas accepts it for sm_90a and
sm_80. With a GPU (marked `gpu`): the suite runs on it and matches NumPy."""

import shutil

import numpy as np
import pytest
from gpu_launch import needs_gpu, run_script
from suite import CASES, check

import tilec
import tilec.language as tl

# Features the GPU lowering does not cover yet: compiling them must fail with a clear message.
UNSUPPORTED: dict = {}


def _compile_case(case, arch, monkeypatch):
    kernels = []

    def launch(kernel, grid, *args, **constexprs):
        kernels.append(kernel.warmup(*args, **constexprs, target=arch))

    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    try:
        case.run(launch, np.random.default_rng(0))
    except AssertionError:
        pass  # nothing ran, so outputs do not match; only compilation is checked here
    return kernels


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_suite_compiles_to_ptx_that_assembles(case, monkeypatch, tmp_path):
    ptxas = shutil.which("ptxas")
    if case.name in UNSUPPORTED:
        with pytest.raises(tilec.CompilationError, match="not supported by the GPU lowering yet"):
            _compile_case(case, "sm_90a", monkeypatch)
        return
    from tilec.targets.nvidia.compiler import assemble

    for arch in ("sm_90a", "sm_80"):
        kernels = _compile_case(case, arch, monkeypatch)
        assert kernels
        for k in kernels:
            assert f".target {arch}" in k.asm["ptx"] and ".entry" in k.asm["ptx"]
            if ptxas is not None:
                assert assemble(k.asm["ptx"], arch), f"ptxas rejected {case.name} for {arch}"


def test_vector_add_ptx_is_vectorized(monkeypatch):
    from suite import add_kernel

    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    k = tilec.compile(
        add_kernel, signature="*fp32,*fp32,*fp32,i32:16", constexprs={"BLOCK": 1024}, target="sm_90a"
    )
    assert k.asm["ptx"].count("ld.global.v4.b32") == 4
    assert k.asm["ptx"].count("st.global.v4.b32") == 2


def test_masks_changing_inside_aligned_groups_are_not_vectorized(monkeypatch):
    """`offs <= n`, `offs == n`, `offs > n`, `n != offs` with n divisible by 16 change right after
    n's own element: each element keeps its own mask bit (4 x 8 scalar loads and stores), while
    `n > offs` and `n <= offs` are constant over aligned groups and load and store 16 bytes at a time."""
    from suite import boundary_masks_kernel

    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    k = tilec.compile(
        boundary_masks_kernel, signature="*fp32,*fp32,i32:16", constexprs={"BLOCK": 1024}, target="sm_90a"
    )
    ptx = k.asm["ptx"]
    assert ptx.count("ld.global.v4.b32") == 4 and ptx.count("st.global.v4.b32") == 4
    assert ptx.count("ld.global.b32") == 32 and ptx.count("st.global.b32") == 32


@tilec.jit
def _where_below(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    tl.store(out_ptr + offs, tl.where(offs < n, x, 0.0))


def test_values_constant_over_aligned_groups_are_computed_once_per_group(monkeypatch):
    """`offs < n` with n divisible by 16 is constant over groups of 16: a thread holding 2 runs of
    4 elements compares twice, not 8 times (with n not known divisible: 8 times)."""
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    for n, compares in (("i32:16", 2), ("i32", 8)):
        k = tilec.compile(
            _where_below, signature=f"*fp32,*fp32,{n}", constexprs={"BLOCK": 1024}, target="sm_90a"
        )
        assert k.asm["ptx"].count("setp.lt.s32") == compares


def test_softmax_ptx_uses_shuffles_and_ex2(monkeypatch):
    from suite import softmax_kernel

    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    k = tilec.compile(
        softmax_kernel,
        signature="*fp32,*fp32,i32:16,i32:16,i32:16",
        constexprs={"BLOCK": 1024},
        target="sm_90a",
    )
    ptx = k.asm["ptx"]
    assert "shfl.sync.bfly.b32" in ptx and "ex2.approx.f32" in ptx and "ld.global.v4.b32" in ptx
    assert "__nv_" not in ptx  # no libdevice calls


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs ptxas")
def test_register_usage_from_ptxas():
    """n_regs / n_spills (Triton's names; its softmax tutorial sizes the grid from them) come from
    ptxas's report, as does the shared memory in metadata.shared."""
    from suite import softmax_kernel

    k = tilec.compile(
        softmax_kernel,
        signature="*fp32,*fp32,i32:16,i32:16,i32:16",
        constexprs={"BLOCK": 1024},
        target="sm_90a",
    )
    assert 8 <= k.n_regs <= 255 and k.n_spills == 0
    assert k.metadata.shared == k.metadata["shared"] > 0  # the reduction's partials


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs ptxas")
def test_maxnreg_caps_registers():
    """Triton's maxnreg (launch keyword or tilec.Config(maxnreg=...)): `.maxnreg` in the PTX, and
    ptxas keeps to it (spilling if it must)."""
    from suite import softmax_kernel

    x = np.zeros((4, 4096), np.float32)
    free = softmax_kernel.warmup(x, x, 4096, 4096, 4096, BLOCK=4096, target="sm_90a")
    capped = softmax_kernel.warmup(x, x, 4096, 4096, 4096, BLOCK=4096, target="sm_90a", maxnreg=32)
    assert ".maxnreg 32" in capped.asm["ptx"] and ".maxnreg" not in free.asm["ptx"]
    assert capped.n_regs <= 32 < free.n_regs


@pytest.mark.parametrize("arch", ["sm_80", "sm_90a"])
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
def test_dot_uses_tensor_cores(arch, dtype, monkeypatch):
    from suite import dot_kernel

    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    k = tilec.compile(
        dot_kernel,
        signature=f"*{dtype},*{dtype},*fp32,i32,i32,i32",
        constexprs={"BM": 64, "BN": 64, "BK": 32, "PREC": "ieee"},
        target=arch,
    )
    kind = {"fp16": "f16", "bf16": "bf16"}[dtype]
    if arch == "sm_90a":  # Hopper: warpgroup MMA (more in test_tensor_cores.py)
        assert f"wgmma.mma_async.sync.aligned.m64n64k16.f32.{kind}.{kind}" in k.asm["ptx"]
    else:
        assert f"mma.sync.aligned.m16n8k16.row.col.f32.{kind}.{kind}.f32" in k.asm["ptx"]
    older = tilec.compile(
        dot_kernel,
        f"*{dtype},*{dtype},*fp32,i32,i32,i32",
        {"BM": 64, "BN": 64, "BK": 32, "PREC": "ieee"},
        target="sm_75",
    )
    assert "mma.sync" not in older.asm["ptx"]  # before Ampere: the FMA lowering
    if shutil.which("ptxas"):  # ptxas accepts the tensor-core code
        monkeypatch.delenv("TILEC_NO_PTXAS")
        signature, constexprs = (
            f"*{dtype},*{dtype},*fp32,i32,i32,i32",
            {"BM": 64, "BN": 64, "BK": 32, "PREC": "ieee"},
        )
        assert "cubin" in tilec.compile(dot_kernel, signature, constexprs, target=arch).asm


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("case", [c for c in CASES if c.name not in UNSUPPORTED], ids=lambda c: c.name)
def test_suite_on_gpu(case, monkeypatch):
    from gpu_launch import torch_launcher

    monkeypatch.delenv("TILEC_INTERPRET", raising=False)
    monkeypatch.delenv("TILEC_TARGET", raising=False)
    check(case.run(torch_launcher(), np.random.default_rng(0)), case.name)


@tilec.jit
def prints(x_ptr):
    tl.device_print("x: ", tl.load(x_ptr))


@tilec.jit(debug=True)
def asserts(x_ptr):
    tl.device_assert(tl.load(x_ptr + tl.arange(0, 64)) >= 0, "x must not be negative")


def test_device_print_and_assert_compile_for_nvidia_and_fail_clearly_for_amd(monkeypatch):
    monkeypatch.setenv("TILEC_NO_PTXAS", "1")
    ptx = tilec.compile(prints, signature="*fp32", target="sm_90a").asm["ptx"]
    assert "vprintf" in ptx
    ptx = tilec.compile(asserts, signature="*fp32", target="sm_90a").asm["ptx"]
    assert "__assertfail" in ptx  # the message is in the PTX as bytes
    with pytest.raises(
        tilec.CompilationError, match=r"test_nvidia.py:\d+:\d+: .*tl.device_print is not supported"
    ):
        tilec.compile(prints, signature="*fp32", target="gfx942")


GPU_CACHED_LAUNCH = """
import sys
if "--forbid-mlir" in sys.argv:
    sys.modules["mlir"] = None
import torch
import tilec
import tilec.language as tl


@tilec.jit
def axpy(x_ptr, y_ptr, n, alpha, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, alpha * tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask), mask=mask)


for device in range(torch.cuda.device_count()):
    x = torch.arange(5000, device=f"cuda:{device}", dtype=torch.float32)
    y = torch.ones_like(x)
    axpy[(tilec.cdiv(5000, 512),)](x, y, 5000, 2.0, BLOCK=512)
    torch.testing.assert_close(y, 2.0 * x + 1)
print("mlir imported:", sys.modules.get("mlir") is not None)
"""


@pytest.mark.gpu
@needs_gpu
def test_cached_gpu_kernel_launches_without_mlir(tmp_path):
    first = run_script(tmp_path, "axpy.py", GPU_CACHED_LAUNCH)
    assert first.returncode == 0, first.stderr
    second = run_script(tmp_path, "axpy.py", GPU_CACHED_LAUNCH, "--forbid-mlir")
    assert second.returncode == 0, second.stderr
    assert "mlir imported: False" in second.stdout


DEBUG_OPS_ON_GPU = """
import sys
import torch
import tilec
import tilec.language as tl


@tilec.jit(debug=True)
def check(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_print("x=", x)
    tl.device_assert(x >= 0, "x must not be negative")


x = torch.arange(4, device="cuda", dtype=torch.float32)
check[(2,)](x, 4, BLOCK=4)
torch.cuda.synchronize()
sys.stdout.flush()
x[2] = -1.0
try:
    check[(1,)](x, 4, BLOCK=4)
    torch.cuda.synchronize()
except Exception as e:  # the context is unusable now, as after any device-side assert
    print("raised:", type(e).__name__, str(e).splitlines()[0])
"""


@pytest.mark.gpu
@needs_gpu
def test_device_print_and_assert_on_gpu(tmp_path):
    r = run_script(tmp_path, "debug_ops.py", DEBUG_OPS_ON_GPU)
    out = r.stdout + r.stderr
    for pid in (0, 1):
        for i in range(4):
            # Triton's shape of the prefix "x=": "x=: " (tilec.language.device_print)
            assert f"pid ({pid}, 0, 0) idx ({i},) x=: {float(i):f}" in out, out[-3000:]
    assert "x must not be negative" in out, out[-3000:]
    assert "raised:" in out or r.returncode != 0


@tilec.jit
def _fill(out_ptr, value):
    tl.store(out_ptr + tl.program_id(0) + tl.program_id(1), value)


@tilec.jit
def _huge_dot(a_ptr, out_ptr, N: tl.constexpr):
    offs = tl.arange(0, N)
    a = tl.load(a_ptr + offs[:, None] * N + offs[None, :])
    tl.store(out_ptr + offs[:, None] * N + offs[None, :], tl.dot(a, a, input_precision="ieee"))


@pytest.mark.gpu
@needs_gpu
def test_resource_failures_are_explained():
    import torch

    from tilec.targets.nvidia.runtime import CudaError

    out = torch.zeros(70000, device="cuda")
    with pytest.raises(CudaError, match=r"_fill failed: .*grid \(1, 70000, 1\).*65535 along axes 1 and 2"):
        _fill[(1, 70000)](out, 1.0)
    a = torch.ones(256, 256, device="cuda")
    with pytest.raises(
        tilec.CompilationError, match=r"needs \d+ bytes of shared memory per program, more than"
    ):
        _huge_dot[(1,)](a, torch.empty_like(a), N=256)  # refused when compiled, before the launch


@pytest.mark.skipif(not shutil.which("ptxas"), reason="needs ptxas")
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
def test_loop_free_kernel_spills_a_little_for_a_third_program(dtype):
    """Layernorm over 8192 columns on 16 warps takes 60 registers: two programs per SM. Asked for
    three, ptxas fits 40 registers with a spill of a few bytes, taken for a kernel without loops
    (on an H200 3015 -> 3454 GB/s in bf16). Over 4096 columns on 8 warps five programs fit already:
    a sixth is not bought with spills (it measured slower)."""
    from suite import layernorm_kernel

    from tilec.targets.nvidia.compiler import LOOP_FREE_SPILL_BYTES

    signature = f"*{dtype},*{dtype},*{dtype},*{dtype},i32:16,i32:16,fp32"

    def compiled(block, warps):
        return tilec.compile(
            layernorm_kernel,
            signature=signature,
            constexprs={"BLOCK": block},
            target="sm_90a",
            num_warps=warps,
        )

    wide = compiled(8192, 16)
    assert ".minnctapersm 3" in wide.asm["ptx"]
    assert wide.n_regs <= 40 and wide.n_spills <= LOOP_FREE_SPILL_BYTES
    narrower = compiled(4096, 8)
    assert ".minnctapersm" not in narrower.asm["ptx"] or narrower.n_spills == 0


def test_loops_are_found_by_backward_branches():
    from tilec.targets.nvidia.compiler import _has_loop

    forward = "\t@%p1 bra \t$L__BB0_2;\n\tld.global.b32 %r1, [%rd1];\n$L__BB0_2:\n\tret;\n"
    backward = "$L__BB0_1:\n\tadd.s32 %r1, %r1, 1;\n\t@%p1 bra \t$L__BB0_1;\n\tret;\n"
    uniform = "$L__BB0_3:\n\tbar.sync 0;\n\tbra.uni \t$L__BB0_3;\n"
    assert not _has_loop(forward)
    assert _has_loop(backward) and _has_loop(uniform)
