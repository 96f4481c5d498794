"""`tl.inline_asm_elementwise`: PTX statements inside kernels, with Triton's packing of narrow
elements (4 x int8 or 2 x float16 to a 32-bit register), several results, scalars, broadcasting;
the generated PTX is checked (and assembled when ptxas is installed); misuse is an error at the
user's line; targets that cannot run the assembly say so. GPU checks run the statements."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def shift(x_ptr, y_ptr, N: tl.constexpr):
    i = tl.arange(0, N)
    y = tl.inline_asm_elementwise("shl.b32 $0, $1, 3;", "=r,r", [tl.load(x_ptr + i)], tl.int32, True, 1)
    tl.store(y_ptr + i, y)


@tilec.jit
def bytes_packed(x_ptr, y_ptr, N: tl.constexpr):
    # Triton's own example: four bytes shifted at once in one 32-bit register
    i = tl.arange(0, N)
    x = tl.load(x_ptr + i)
    y = tl.inline_asm_elementwise(
        "and.b32 $0, $1, 0x1F1F1F1F; shl.b32 $0, $0, 3;", "=r,r", [x], dtype=tl.int8, is_pure=True, pack=4
    )
    tl.store(y_ptr + i, y)


@tilec.jit
def halves_packed(x_ptr, y_ptr, out_ptr, N: tl.constexpr):
    # two float16 per register: one add.f16x2 for each pair
    i = tl.arange(0, N)
    s = tl.inline_asm_elementwise(
        "add.rn.f16x2 $0, $1, $2;", "=r,r,r", [tl.load(x_ptr + i), tl.load(y_ptr + i)], tl.float16, True, 2
    )
    tl.store(out_ptr + i, s)


@tilec.jit
def two_results(x_ptr, sum_ptr, low_ptr, N: tl.constexpr):
    # a float and an int result from an int tensor and a scalar (broadcast)
    i = tl.arange(0, N)
    as_float, low = tl.inline_asm_elementwise(
        "{ cvt.rn.f32.s32 $0, $2; and.b32 $1, $2, $3; }",
        "=f,=r,r,r",
        [tl.load(x_ptr + i), 255],
        dtype=(tl.float32, tl.int32),
        is_pure=True,
        pack=1,
    )
    tl.store(sum_ptr + i, as_float)
    tl.store(low_ptr + i, low)


@tilec.jit
def on_scalars(out_ptr):
    # every argument a scalar: one statement, a scalar result
    pid = tl.program_id(0)
    v = tl.inline_asm_elementwise("mul.lo.s32 $0, $1, $2;", "=r,r,r", [pid + 3, 7], tl.int32, True, 1)
    tl.store(out_ptr + pid, v)


@tilec.jit
def through_pointer(x_ptr, y_ptr, N: tl.constexpr):
    # a pointer argument (64-bit "l" register): the statement loads through it
    i = tl.arange(0, N)
    v = tl.inline_asm_elementwise("ld.global.b32 $0, [$1];", "=r,l", [x_ptr + i], tl.int32, False, 1)
    tl.store(y_ptr + i, v)


def _ptx(kernel, signature, **constexprs):
    return tilec.compile(kernel, signature=signature, constexprs=constexprs, target="sm_90a")


def _statements(ptx: str, text: str) -> int:
    return len(re.findall(re.escape(text), ptx))


def test_one_statement_per_element_in_ptx():
    compiled = _ptx(shift, "*i32,*i32", N=256)  # 4 warps: 2 elements per thread
    assert _statements(compiled.asm["ptx"], "shl.b32 %r") >= 2
    assert "shl.b32 $0" not in compiled.asm["ptx"]  # operands were substituted
    if shutil.which("ptxas"):
        assert compiled.asm.get("cubin")


def test_narrow_elements_share_registers():
    # 1024 bytes over 128 threads: 8 per thread, pack=4 -> 2 statements a thread
    ptx = _ptx(bytes_packed, "*u8,*u8", N=1024).asm["ptx"]
    assert _statements(ptx, "and.b32 %r") == 2
    ptx = _ptx(halves_packed, "*fp16,*fp16,*fp16", N=1024).asm["ptx"]
    assert _statements(ptx, "add.rn.f16x2") == 4  # 8 halves a thread, 2 per statement


def test_several_results_scalars_and_pointers_compile():
    ptx = _ptx(two_results, "*i32,*fp32,*i32", N=128).asm["ptx"]
    assert "cvt.rn.f32.s32" in ptx and "and.b32" in ptx
    ptx = _ptx(on_scalars, "*i32").asm["ptx"]
    assert _statements(ptx, "mul.lo.s32 %r") == 1
    ptx = _ptx(through_pointer, "*i32,*i32", N=128).asm["ptx"]
    assert "ld.global.b32 %r" in ptx and "[%rd" in ptx


def test_a_pure_unused_statement_is_dropped_an_impure_one_kept():
    @tilec.jit
    def unused(x_ptr, N: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, N))
        tl.inline_asm_elementwise("add.s32 $0, $1, 11;", "=r,r", [x], tl.int32, True, 1)
        tl.inline_asm_elementwise("add.s32 $0, $1, 22;", "=r,r", [x], tl.int32, False, 1)

    ptx = _ptx(unused, "*i32", N=128).asm["ptx"]
    assert ", 11;" not in ptx and ", 22;" in ptx


@tilec.jit
def wrong_count(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r,r", [x], tl.int8, True, 4)


@tilec.jit
def boolean_argument(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x > 0], tl.int32, True, 1)


@tilec.jit
def odd_pack(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], tl.int32, True, 3)


@tilec.jit
def not_a_type(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], "int32", True, 1)


@tilec.jit
def unknown_register(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(
        x_ptr + tl.arange(0, N), tl.inline_asm_elementwise("mov.b32 $0, $1;", "=q,r", [x], tl.int32, True, 1)
    )


@tilec.jit
def bad_instruction(x_ptr, N: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, N))
    tl.store(
        x_ptr + tl.arange(0, N), tl.inline_asm_elementwise("shlx.b32 $0, $1;", "=r,r", [x], tl.int32, True, 1)
    )


@pytest.mark.parametrize(
    "kernel,message",
    [
        (wrong_count, r"constraints '=r,r,r' list 3 registers, the statement has 1 output and 4 input"),
        (boolean_argument, "int1 arguments cannot go to an asm statement"),
        (odd_pack, "pack must be a power of two, got 3"),
        (not_a_type, "dtype must be a tl type or a tuple of them, got 'int32'"),
        (unknown_register, "inline asm constraint '=q' is not one tilec can pass to PTX"),
    ],
)
def test_misuse_names_the_line(kernel, message):
    with pytest.raises(tilec.CompilationError, match=message) as info:
        _ptx(kernel, "*i32", N=128)
    assert "test_inline_asm.py" in str(info.value)


@pytest.mark.skipif(not shutil.which("ptxas"), reason="needs ptxas")
def test_assembly_errors_point_at_the_statement():
    with pytest.raises(tilec.CompilationError, match="(?s)inline asm does not assemble.*shlx") as info:
        _ptx(bad_instruction, "*i32", N=128)
    assert "test_inline_asm.py" in str(info.value)


def test_cpu_and_interpreter_refuse_clearly(target):
    with pytest.raises((tilec.CompilationError, tilec.InterpreterError), match="runs GPU assembly") as info:
        shift[(1,)](np.zeros(128, np.int32), np.zeros(128, np.int32), N=128)
    assert "test_inline_asm.py" in str(info.value)


def test_amd_refuses_clearly():
    with pytest.raises(tilec.CompilationError, match="not available on AMD targets yet") as info:
        tilec.compile(shift, signature="*i32,*i32", constexprs={"N": 128}, target="gfx942")
    assert "test_inline_asm.py" in str(info.value)


@pytest.mark.gpu
@needs_gpu
def test_on_gpu():
    import torch

    n = 1024
    x = torch.randint(-(2**20), 2**20, (n,), device="cuda", dtype=torch.int32)
    y = torch.zeros_like(x)
    shift[(1,)](x, y, N=n)
    b = torch.randint(0, 256, (n,), device="cuda", dtype=torch.uint8)
    b_out = torch.zeros_like(b)
    bytes_packed[(1,)](b, b_out, N=n)
    h1 = torch.randn(n, device="cuda", dtype=torch.float16)
    h2 = torch.randn(n, device="cuda", dtype=torch.float16)
    h_out = torch.zeros_like(h1)
    halves_packed[(1,)](h1, h2, h_out, N=n)
    as_float, low = torch.zeros(n, device="cuda"), torch.zeros_like(x)
    two_results[(1,)](x, as_float, low, N=n)
    scalars = torch.zeros(8, device="cuda", dtype=torch.int32)
    on_scalars[(8,)](scalars)
    copied = torch.zeros_like(x)
    through_pointer[(1,)](x, copied, N=n)
    torch.cuda.synchronize()
    assert torch.equal(y, x << 3)
    assert torch.equal(b_out, (b & 0x1F) << 3)
    assert torch.equal(h_out, h1 + h2)
    assert torch.equal(as_float, x.float()) and torch.equal(low, x & 255)
    assert torch.equal(scalars, (torch.arange(8, device="cuda", dtype=torch.int32) + 3) * 7)
    assert torch.equal(copied, x)
