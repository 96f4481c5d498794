"""Warpgroup MMA with A from registers (sm_90a, fp16/bf16): a dot whose A is computed from another
dot's accumulator (attention's `p`, a chain `(x @ w1).to(f16) @ w2`) or is defined outside the dot's
loop (attention's `q`) reads A as register fragments instead of staging it in shared memory. The PTX
is checked and assembled in CI; on a GPU, chains and loops over tile configs, both 16-bit types,
and ragged edges."""

from __future__ import annotations

import re
import shutil

import pytest
from gpu_launch import needs_gpu
from test_cp_async import attention

import tilec
import tilec.language as tl

# the register form: four 32-bit registers in braces where the A descriptor would be
REGISTER_A = re.compile(
    r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k16\.f32\.(b?f16)\.\2 \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}, %rd\d+"
)
DESCRIPTOR_A = re.compile(
    r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\.f32\.b?f16\.b?f16 \{[^}]*\}, %rd\d+, %rd\d+"
)


@tilec.jit
def chain(x_ptr, w1_ptr, w2_ptr, out_ptr, M, BM: tl.constexpr, D: tl.constexpr, H: tl.constexpr,
          E: tl.constexpr):  # fmt: skip
    """out = (x @ w1).to(x's type) @ w2 for a block of BM rows: the second dot's A is the first
    dot's accumulator, converted."""
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    d, h, e = tl.arange(0, D), tl.arange(0, H), tl.arange(0, E)
    x = tl.load(x_ptr + rows[:, None] * D + d[None, :], mask=rows[:, None] < M, other=0.0)
    w1 = tl.load(w1_ptr + d[:, None] * H + h[None, :])
    w2 = tl.load(w2_ptr + h[:, None] * E + e[None, :])
    hidden = tl.dot(x, w1).to(x_ptr.dtype.element_ty)
    out = tl.dot(hidden, w2)
    tl.store(out_ptr + rows[:, None] * E + e[None, :], out, mask=rows[:, None] < M)


@tilec.jit
def fixed_left(a_ptr, b_ptr, out_ptr, N, BM: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr):
    """out[:, j-block] = a @ b[:, j-block] summed over j: A (one [BM, BK] tile) is loaded before the
    loop, B's tiles in it; the accumulator is carried."""
    m, k, n = tl.arange(0, BM), tl.arange(0, BK), tl.arange(0, BN)
    a = tl.load(a_ptr + m[:, None] * BK + k[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for j in range(0, N, BN):
        b = tl.load(b_ptr + k[:, None] * N + (j + n)[None, :], mask=(j + n)[None, :] < N, other=0.0)
        acc = tl.dot(a, b, acc)
    tl.store(out_ptr + m[:, None] * BN + n[None, :], acc)


def _compile(kernel, signature, constexprs, num_warps, num_stages=3):
    compiled = tilec.compile(kernel, signature=signature, constexprs=constexprs, target="sm_90a",
                             num_warps=num_warps, num_stages=num_stages)  # fmt: skip
    if shutil.which("ptxas"):
        assert "cubin" in compiled.asm
    return compiled


@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("config", [(64, 4), (128, 4), (128, 8)])
def test_chained_dot_reads_a_from_registers(dtype, config):
    """The first dot stages x and w1 (descriptors); the second takes its A from the first's
    accumulator registers and stages only w2."""
    bm, warps = config
    compiled = _compile(
        chain, f"*{dtype},*{dtype},*{dtype},*fp32,i32", {"BM": bm, "D": 64, "H": 64, "E": 32}, warps
    )
    ptx = compiled.asm["ptx"]
    instructions_per_dot = bm // (16 * warps) * (64 // 16)  # 64-row blocks per warpgroup x k-steps
    assert len(DESCRIPTOR_A.findall(ptx)) == instructions_per_dot
    found = REGISTER_A.findall(ptx)
    assert len(found) == instructions_per_dot and {f[0] for f in found} == {"32"}
    assert {f[1] for f in found} == {dtype.replace("fp", "f")}


def test_loop_invariant_a_is_converted_once():
    """A defined before the loop: register fragments, so the loop body stores only B to shared memory."""
    compiled = _compile(fixed_left, "*fp16,*fp16,*fp32,i32", {"BM": 64, "BK": 64, "BN": 64}, 4)
    ptx = compiled.asm["ptx"]
    assert len(REGISTER_A.findall(ptx)) == 4 and not DESCRIPTOR_A.findall(ptx)


@pytest.mark.parametrize("fill", [0.0, 1.0])
def test_attention_keeps_q_and_p_in_registers(fill):
    """Both of attention's dots read A from registers (q converted once before the loop, p as
    computed), whether K and V stream into cp.async rings (zero fill) or are stored from registers
    into buffers of their own (filled with 1.0, which cp.async cannot): the buffers hold B alone. From
    registers, the loop body has two barriers, one before each MMA, none before rewriting a buffer;
    streamed, one (both rings wait at the first dot: cp_async.merge_waits)."""
    signature = "*fp16,*fp16,*fp16,*fp16,i32:16,fp32"
    compiled = _compile(attention, signature, {"D": 64, "BM": 64, "BN": 64, "FILL": fill}, 4)
    ptx = compiled.asm["ptx"]
    assert len(REGISTER_A.findall(ptx)) == 8 and not DESCRIPTOR_A.findall(ptx)
    assert ("cp.async" in ptx) == (fill == 0.0)
    gpu_ir = compiled.asm["gpu"]
    barriers = gpu_ir[gpu_ir.index("scf.for") :].count("gpu.barrier")  # the loop's and after it
    assert barriers == (1 if fill == 0.0 else 2)
    # K and V: 3 ring buffers of 8 KiB each, or one buffer of 9 KiB each with padding; q's conversion
    assert compiled.metadata["shared"] <= (56 if fill == 0.0 else 27) * 1024


def test_scores_start_from_an_unread_accumulator():
    """`s = tl.dot(q, tl.trans(k))` has no accumulator of its own (zeros): its first k-step runs
    with scale-d = 0, so the loop does not zero 32 registers per iteration to feed it; the second
    dot accumulates (`acc * alpha + dot(p, v)` folds into its accumulator) and reads its input."""
    gpu_ir = _compile(attention, "*fp16,*fp16,*fp16,*fp16,i32:16,fp32", {"D": 64, "BM": 64, "BN": 64}, 4).asm[
        "gpu"
    ]
    body = gpu_ir[gpu_ir.index("scf.for") :]
    mmas = [line.split('"')[-1] for line in body.splitlines() if "wgmma.mma_async" in line]
    assert len(mmas) == 8  # 4 k-steps each
    # operands: A's four fragment registers, B's descriptor, scale-d, then the accumulator inputs
    scales = [re.split(r",\s*", ops.strip())[5] for ops in mmas]
    assert [re.sub(r"_\d+$", "", x) for x in scales] == ["%c0_i32"] + ["%c1_i32"] * 7, scales
    undefined = {
        line.split(" = ")[0].strip() for line in gpu_ir.splitlines() if "llvm.mlir.undef : f32" in line
    }
    first_inputs = re.split(r",\s*", mmas[0].split(":")[0].strip())[6:]
    assert first_inputs and set(first_inputs) <= undefined


@pytest.mark.parametrize("dtype", ["fp16", "i8"])
def test_dots_without_accumulator_start_fresh(dtype):
    """Both dots of the chain have a zero accumulator (float +0, integer 0): each starts with
    scale-d = 0 and then accumulates (2 k-steps of 32 bytes each)."""
    out = "fp32" if dtype == "fp16" else "i32"
    gpu_ir = _compile(
        chain, f"*{dtype},*{dtype},*{dtype},*{out},i32", {"BM": 64, "D": 64, "H": 64, "E": 64}, 4
    )
    mmas = [line.split('"')[-1] for line in gpu_ir.asm["gpu"].splitlines() if "wgmma.mma_async" in line]
    # the scale-d operand follows A (a descriptor, or the 4 fragment registers of the second fp16 dot)
    scales = [re.sub(r"_\d+$", "", re.search(r"%c[01]_i32(_\d+)?", ops).group(0)) for ops in mmas]
    steps = len(mmas) // 2
    assert scales == (["%c0_i32"] + ["%c1_i32"] * (steps - 1)) * 2, scales


def test_a_loaded_in_the_loop_stays_in_shared_memory():
    """A matmul's A, loaded in the loop in a row-major layout, is staged (a conversion to the
    fragment layout every iteration would cost more)."""
    from test_cp_async import _ptx

    ptx = _ptx(("fp16", "fp16"), num_stages=1)
    assert not REGISTER_A.findall(ptx) and DESCRIPTOR_A.findall(ptx)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dtype", ["fp16", "bf16"])
@pytest.mark.parametrize("config", [(64, 4), (128, 4), (128, 8)])
def test_chain_on_gpu(dtype, config):
    import torch

    bm, warps = config
    types = {"fp16": torch.float16, "bf16": torch.bfloat16}
    torch.manual_seed(1)
    M, D, H, E = 3 * bm - 7, 64, 128, 32
    x = torch.randn(M, D, device="cuda", dtype=types[dtype])
    w1 = torch.randn(D, H, device="cuda", dtype=types[dtype]) / 8
    w2 = torch.randn(H, E, device="cuda", dtype=types[dtype])
    out = torch.full((M, E), float("nan"), device="cuda")
    chain[(tilec.cdiv(M, bm),)](x, w1, w2, out, M, BM=bm, D=D, H=H, E=E, num_warps=warps)
    hidden = (x.double() @ w1.double()).to(types[dtype]).double()
    expected = hidden @ w2.double()
    torch.testing.assert_close(out.double(), expected, rtol=1e-3, atol=1e-2)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("config", [(64, 4), (128, 8)])
def test_int8_chain_on_gpu(config):
    """int8 dots without accumulator (each starts with scale-d = 0 on an integer 0), the hidden
    result wrapped to int8 as the cast does."""
    import torch

    bm, warps = config
    g = torch.Generator().manual_seed(2)
    M, D, H, E = 3 * bm - 7, 64, 128, 32
    x, w1, w2 = (
        torch.randint(-8, 8, shape, generator=g, dtype=torch.int8) for shape in ((M, D), (D, H), (H, E))
    )
    out = torch.full((M, E), -1, device="cuda", dtype=torch.int32)
    chain[(tilec.cdiv(M, bm),)](x.cuda(), w1.cuda(), w2.cuda(), out, M, BM=bm, D=D, H=H, E=E, num_warps=warps)
    hidden = (x.long() @ w1.long()).to(torch.int8)  # no integer matmul on CUDA: the reference on the CPU
    expected = (hidden.long() @ w2.long()).to(torch.int32)
    assert torch.equal(out.cpu(), expected)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("stages", [1, 3])
@pytest.mark.parametrize("config", [(64, 64, 4), (128, 64, 4), (128, 128, 8)])
def test_fixed_left_on_gpu(config, stages):
    import torch

    bm, bn, warps = config
    torch.manual_seed(2)
    bk, N = 64, 5 * bn - 9
    a = torch.randn(bm, bk, device="cuda", dtype=torch.float16)
    b = torch.randn(bk, N, device="cuda", dtype=torch.float16)
    out = torch.full((bm, bn), float("nan"), device="cuda")
    fixed_left[(1,)](a, b, out, N, BM=bm, BK=bk, BN=bn, num_warps=warps, num_stages=stages)
    padded = torch.nn.functional.pad(b.double(), (0, 5 * bn - N)).reshape(bk, 5, bn).sum(1)
    torch.testing.assert_close(out.double(), a.double() @ padded, rtol=1e-3, atol=2e-2)


@tilec.jit
def four_products(x_ptr, y_ptr, out_ptr, n, BM: tl.constexpr, BK: tl.constexpr, BN: tl.constexpr):
    """Four dots per iteration, none accumulating across the loop by itself (each accumulator is
    rescaled first), each with [64, 256] x [256, 64] fp16 operands computed in the loop: 72 KiB of
    (padded) staging per dot."""
    m, k, j = tl.arange(0, BM), tl.arange(0, BK), tl.arange(0, BN)
    x = tl.load(x_ptr + m[:, None] * BK + k[None, :])
    acc0, acc1, acc2, acc3 = tl.zeros((BM, BN), tl.float32), tl.zeros((BM, BN), tl.float32), \
        tl.zeros((BM, BN), tl.float32), tl.zeros((BM, BN), tl.float32)  # fmt: skip
    for i in range(n):
        y = tl.load(y_ptr + i * BK * BN + k[:, None] * BN + j[None, :])
        acc0 = acc0 * 0.5 + tl.dot(x * 1.5, y)
        acc1 = acc1 * 0.25 + tl.dot(x + 1.0, y)
        acc2 = acc2 * 0.125 + tl.dot(x + 2.0, y)
        acc3 = acc3 * 0.0625 + tl.dot(x + 3.0, y)
    out = out_ptr + m[:, None] * BN + j[None, :]
    tl.store(out, acc0)
    tl.store(out + BM * BN, acc1)
    tl.store(out + 2 * BM * BN, acc2)
    tl.store(out + 3 * BM * BN, acc3)


def test_own_buffers_stay_within_shared_memory():
    """Looped dots get buffers of their own only while the kernel stays within 227 KiB: of four dots
    with 72 KiB of staging each, two get their own, the other two share the scratch space."""
    compiled = _compile(four_products, "*fp16,*fp16,*fp32,i32", {"BM": 64, "BK": 256, "BN": 64}, 4)
    assert 3 * 72 * 1024 <= compiled.metadata["shared"] <= 227 * 1024


@pytest.mark.skipif(not shutil.which("ptxas"), reason="needs ptxas")
def test_occupancy_asked_of_ptxas_when_registers_alone_limit_it():
    """Attention at 128x64 with 8 warps, K and V through registers (filled with 1.0 past the end,
    which cp.async cannot) and a length not known divisible by 16 (each column's mask bit computed
    on its own): 148 registers keep a second program off the SM, which its threads and shared
    memory would allow: assembled again with `.minnctapersm 2` (128 registers, no spills). At
    128x128 that would spill, and the first assembly stays. Streamed through cp.async rings (zero
    fill), 128x64 needs 128 registers from the start."""
    signature = "*fp16,*fp16,*fp16,*fp16,i32,fp32"
    tuned = _compile(attention, signature, {"D": 64, "BM": 128, "BN": 64, "FILL": 1.0}, 8)
    assert ".minnctapersm 2" in tuned.asm["ptx"] and "cp.async" not in tuned.asm["ptx"]
    kept = _compile(attention, signature, {"D": 64, "BM": 128, "BN": 128, "FILL": 1.0}, 8)
    assert ".minnctapersm" not in kept.asm["ptx"]
    streamed = _compile(attention, signature, {"D": 64, "BM": 128, "BN": 64}, 8)
    assert ".minnctapersm" not in streamed.asm["ptx"] and "cp.async" in streamed.asm["ptx"]


@pytest.mark.skipif(not shutil.which("ptxas"), reason="needs ptxas")
def test_occupancy_attempt_refused_by_ptxas_keeps_the_first_assembly(monkeypatch):
    """ptxas may refuse the register limit outright (an instruction needing more registers than it
    leaves, seen with CUDA 12's ptxas on fp8 matmuls): the first assembly is kept."""
    from tilec.targets.nvidia import compiler

    real = compiler._ptxas

    def refusing(ptx, arch):
        if ".minnctapersm" in ptx:
            raise RuntimeError("ptxas failed for sm_90a:\nptxas fatal   : (C7602) Insufficient registers")
        return real(ptx, arch)

    monkeypatch.setattr(compiler, "_ptxas", refusing)
    monkeypatch.setenv("TILEC_ALWAYS_COMPILE", "1")
    kept = _compile(
        attention, "*fp16,*fp16,*fp16,*fp16,i32:16,fp32", {"D": 64, "BM": 128, "BN": 64, "FILL": 1.0}, 8
    )
    assert ".minnctapersm" not in kept.asm["ptx"] and "cubin" in kept.asm
