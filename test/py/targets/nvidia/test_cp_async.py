"""Warpgroup-MMA operands streamed into shared memory with cp.async (sm_90a, num_stages >= 2): which
loads stream, how far ahead (num_stages - 1, fewer where the ring of stage buffers would not fit),
the PTX checked and assembled in CI; on a GPU, results for every operand type and B layout with
ragged M/N and a K tail (zero-filled copies), and when some loads cannot stream."""

from __future__ import annotations

import re
import shutil

import ml_dtypes
import numpy as np
import pytest
from gpu_launch import needs_gpu
from test_8bit import SIGNATURE, _b_args, matmul_8bit

import tilec
import tilec.language as tl

COPY = re.compile(r"cp\.async\.(cg|ca)\.shared\.global \[%r\d+\], \[%rd\d+\], (\d+),")
TYPES = {"fp16": np.float16, "fp8e4nv": ml_dtypes.float8_e4m3fn, "i8": np.int8, "fp32": np.float32}


def _ptx(formats=("fp16", "fp16"), config=(128, 128, 64, 8), layout="row", num_stages=3, target="sm_90a",
         signature=SIGNATURE):  # fmt: skip
    return _compiled(formats, config, layout, num_stages, target, signature).asm["ptx"]


def _compiled(formats, config, layout, num_stages, target="sm_90a", signature=SIGNATURE):
    bm, bn, bk, warps = config
    integer = formats[0] == "i8"
    types = signature.format(*formats).replace("*fp32", "*i32" if integer else "*fp32").split(",")
    unit = "stride_bn" if layout == "row" else "stride_bk"
    del types[8 if layout == "row" else 7]
    compiled = tilec.compile(
        matmul_8bit,
        signature=",".join(types),
        constexprs={"BM": bm, "BN": bn, "BK": bk, "B_TRANSPOSED": layout == "trans",
                    "ACC": tl.int32 if integer else tl.float32, unit: 1},
        target=target, num_warps=warps, num_stages=num_stages,
    )  # fmt: skip
    if shutil.which("ptxas") and target.startswith("sm_"):
        assert "cubin" in compiled.asm
    return compiled


def _waits(ptx):
    return sorted({int(n) for n in re.findall(r"cp\.async\.wait_group (\d+);", ptx)})


@pytest.mark.parametrize("layout", ["row", "column", "trans"])
@pytest.mark.parametrize("stages", [2, 3, 4])
def test_operands_stream_num_stages_minus_one_ahead(stages, layout):
    """A and B each stream in 16-byte copies, num_stages - 1 iterations ahead: the MMA of iteration i
    waits until only the copies of the later iterations are in flight (2 per iteration), and the
    loop is followed by a wait for all of them."""
    ptx = _ptx(layout=layout, num_stages=stages)
    sizes = {size for _, size in COPY.findall(ptx)}
    assert sizes == {"16"}
    assert _waits(ptx) == sorted({0, 2 * (stages - 2)})
    assert "wgmma.mma_async" in ptx and "wgmma.wait_group.sync.aligned 1;" in ptx
    assert "st.shared" not in ptx  # no operand goes through registers


@pytest.mark.parametrize("layout", ["row", "column", "trans"])
def test_narrow_tiles_stream_with_narrower_swizzles(layout):
    """32-byte rows (BK = 16, BN = 16 of fp16) take the 32-byte swizzle (its results are checked on
    the GPU by test_streamed_matmul_on_gpu)."""
    ptx = _ptx(config=(64, 16, 16, 4), layout=layout)
    # a 16x16 tile leaves 2 values a thread: 4-byte copies (cp.async.ca) where it is
    assert COPY.findall(ptx) and {size for _, size in COPY.findall(ptx)} <= {"4", "16"}
    assert re.search(r"cp\.async\.ca\.shared\.global \[%r\d+\], \[%rd\d+\], 4,", ptx) or layout != "row"
    assert "wgmma.mma_async.sync.aligned.m64n16k16" in ptx


def test_ring_depth_is_limited_by_shared_memory():
    """128x256x64 fp16: a swizzled stage holds 48 KiB, so 227 KiB hold 4 buffers: two iterations
    ahead, however many stages are asked for."""
    ptx = _ptx(config=(128, 256, 64, 8), num_stages=6)
    assert _waits(ptx) == [0, 2]


def test_ring_depth_counts_swizzled_stages():
    """64x64x128 fp16 at num_stages=6: five iterations ahead in 7 swizzled stages of 32 KiB (224 KiB).
    Bounded by the padded layout (36 KiB a stage) the ring held 6 and went 4 ahead, and skinny
    matmuls (M = 16..128, N = K = 4096) ran 3-7% slower on an H200."""
    compiled = _compiled(("fp16", "fp16"), (64, 64, 128, 4), "row", num_stages=6)
    assert _waits(compiled.asm["ptx"]) == [0, 2 * 4]
    assert compiled.metadata["shared"] == 7 * 32 * 1024


@pytest.mark.parametrize("formats", [("fp8e4nv", "fp8e4nv"), ("i8", "i8"), ("fp32", "fp32")])
def test_k_major_only_operands_stream_k_major(formats):
    """8-bit and tf32 B (read K-major only by the instruction) stream where they are K-contiguous
    (column-major or tl.trans(Bt)); a row-major 8-bit one must be transposed value by value, so it
    stays in registers (one iteration ahead), and A with it: a dot gets a ring only when its B
    streams. fp32 runs as tf32 (k8 instructions); with a row-major B its dot goes transposed
    (wgmma_swapped.py: B^T's fragments from registers, both operands streamed as they lie) unless N
    is not whole 64-row blocks per warpgroup: then B is loaded four K-neighbours per thread (lanes
    along N: 4-byte loads that still cover 128 contiguous bytes a warp) and stored K-major in
    16-byte stores, like A."""
    fp32 = formats[0] == "fp32"
    config = (128, 128, 32, 8) if fp32 else (128, 128, 64, 8)
    for layout in ("column", "trans"):
        ptx = _ptx(formats, config=config, layout=layout, num_stages=3)
        assert {size for _, size in COPY.findall(ptx)} == {"16"} and _waits(ptx) == [0, 2]
    ptx = _ptx(formats, config=config, layout="row", num_stages=3)
    if fp32:  # transposed: the instruction's width is BM, its A four registers
        assert {size for _, size in COPY.findall(ptx)} == {"16"} and _waits(ptx) == [0, 2]
        assert re.search(r"m64n128k8\.f32\.tf32\.tf32 \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}", ptx)
        assert "st.shared" not in ptx
        config = (128, 32, 32, 4)  # N = 32: not transposed
        ptx = _ptx(formats, config=config, layout="row", num_stages=3)
    assert not COPY.findall(ptx)  # B cannot stream, so neither operand does
    assert "wgmma.mma_async" in ptx
    assert ("m64n32k8.f32.tf32.tf32" in ptx) == fp32
    if fp32:  # per thread: A 32 values, B 8 values, in 16-byte stores, nothing narrower
        assert ptx.count("st.shared.v4.b32") == 8 + 2 and not re.search(r"st\.shared\.(b32|f32|v2)", ptx)


def test_unaligned_operands_stay_in_registers():
    """Strides not known to be multiples of 16 bytes: no copies (cp.async needs aligned 4-byte or
    larger pieces), the register pipeline instead, still on the warpgroup tensor cores."""
    ptx = _ptx(signature="*{},*{},*fp32,i32,i32,i32,i32,i32,i32,i32")
    assert not COPY.findall(ptx) and "wgmma.mma_async" in ptx


def test_no_streaming_without_warpgroup_mma():
    for target in ("sm_80", "sm_90"):
        ptx = _ptx(config=(64, 64, 32, 4), target=target)
        assert not COPY.findall(ptx) and "mma.sync" in ptx
    assert not COPY.findall(_ptx(num_stages=1))


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("config", [(128, 128, 64, 8), (128, 256, 64, 8), (64, 128, 64, 4), (64, 16, 16, 4)])
@pytest.mark.parametrize("layout", ["row", "column", "trans"])
@pytest.mark.parametrize("fmt", ["fp16", "fp8e4nv", "i8", "fp32"])
def test_streamed_matmul_on_gpu(fmt, layout, config, stages):
    """Ragged M and N, K with a partial last tile (zero-filled by the copies), several tiles per
    program row and column, aligned strides so that the copies are taken."""
    import torch

    bm, bn, bk, warps = config
    M, N, K = 3 * bm - 5, 2 * bn + 16, 5 * bk - 32
    rng = np.random.default_rng(7)
    if fmt == "i8":
        a = rng.integers(-128, 128, (M, K), dtype=np.int8)
        b = rng.integers(-128, 128, (K, N), dtype=np.int8)
        c = torch.full((M, N), -1, device="cuda", dtype=torch.int32)
    else:
        a = rng.standard_normal((M, K)).astype(TYPES[fmt])
        b = rng.standard_normal((K, N)).astype(TYPES[fmt])
        c = torch.full((M, N), float("nan"), device="cuda")
    stored, sbk, sbn, transposed = _b_args(b, layout)

    def device(x):
        if fmt == "fp8e4nv":
            return torch.from_numpy(x.view(np.uint8)).cuda().view(torch.float8_e4m3fn)
        return torch.from_numpy(x).cuda()

    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    acc = tl.int32 if fmt == "i8" else tl.float32
    matmul_8bit[grid](device(a), device(stored), c, M, N, K, K, sbk, sbn, N, BM=bm, BN=bn, BK=bk,
                      B_TRANSPOSED=transposed, ACC=acc, num_warps=warps, num_stages=stages)  # fmt: skip
    expected = a.astype(np.float64) @ b.astype(np.float64)
    if fmt == "i8":
        np.testing.assert_array_equal(c.cpu().numpy(), expected.astype(np.int64))
    else:
        # fp8 products are exact in fp32 pieces; the tensor core's own sum over K is the only error;
        # fp32 runs as tf32, which drops 13 of the 23 mantissa bits
        atol = {"fp16": 2e-2, "fp8e4nv": 0.5, "fp32": 0.1}[fmt]
        np.testing.assert_allclose(c.cpu().numpy(), expected, rtol=1e-2 if fmt == "fp32" else 2e-3, atol=atol)


@tilec.jit
def batched_matmul(a_ptr, b_ptr, c_ptr, K, BATCH, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr,
                   SCALE_A: tl.constexpr):  # fmt: skip
    """C[i] = A[i] @ B[i] (A[i] doubled first when SCALE_A) for every i, in one program: the K loop
    runs once per batch inside an outer loop, so its ring is filled, drained and filled again."""
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    for i in range(BATCH):
        a_ptrs = a_ptr + i * BM * K + rm[:, None] * K + rk[None, :]
        b_ptrs = b_ptr + i * K * BN + rk[:, None] * BN + rn[None, :]
        acc = tl.zeros((BM, BN), dtype=tl.float32)
        for _ in range(0, K, BK):
            a = tl.load(a_ptrs)
            if SCALE_A:  # computed from the load: A goes through registers, B still streams
                a = a * 2
            acc = tl.dot(a, tl.load(b_ptrs), acc)
            a_ptrs += BK
            b_ptrs += BK * BN
        tl.store(c_ptr + i * BM * BN + rm[:, None] * BN + rn[None, :], acc)


def _batched_ptx(scale_a):
    compiled = tilec.compile(
        batched_matmul, signature="*fp16,*fp16,*fp32,i32:16,i32",
        constexprs={"BM": 128, "BN": 128, "BK": 64, "SCALE_A": scale_a}, target="sm_90a", num_warps=8,
    )  # fmt: skip
    return compiled.asm["ptx"]


def test_operand_from_registers_shares_the_ring():
    """A computed from its load (a * 2) is stored from registers into the ring that B streams into:
    then the stores need the proxy fence, the copies alone do not."""
    streamed, mixed = _batched_ptx(False), _batched_ptx(True)
    # 16 KiB of A and of B per iteration: 4 copies of each per thread, at 3 sites (two iterations
    # before the loop, one in it)
    assert (len(COPY.findall(streamed)), len(COPY.findall(mixed))) == (3 * 8, 3 * 4)
    assert "fence.proxy.async" in mixed and "st.shared.v4" in mixed
    assert "fence.proxy.async" not in streamed and "st.shared" not in streamed


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("scale_a", [False, True])
def test_ring_in_an_outer_loop_on_gpu(scale_a):
    import torch

    batch, bm, bn, bk, K = 3, 128, 128, 64, 320
    rng = np.random.default_rng(11)
    a = rng.standard_normal((batch, bm, K)).astype(np.float16)
    b = rng.standard_normal((batch, K, bn)).astype(np.float16)
    c = torch.full((batch, bm, bn), float("nan"), device="cuda")
    batched_matmul[(1,)](torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda(), c, K, batch,
                         BM=bm, BN=bn, BK=bk, SCALE_A=scale_a, num_warps=8)  # fmt: skip
    expected = (a.astype(np.float64) * (2 if scale_a else 1)) @ b.astype(np.float64)
    np.testing.assert_allclose(c.cpu().numpy(), expected, rtol=1e-3, atol=2e-2)


@tilec.jit
def attention(
    q_ptr, k_ptr, v_ptr, out_ptr, seq_len, scale, D: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
    FILL: tl.constexpr = 0.0,
):  # fmt: skip
    """Flash attention forward for one head per program row: two dots per iteration, neither
    accumulating across the loop by itself (the second rescales its accumulator first). K and V rows
    past the end read as FILL (any finite value gives the same result; cp.async fills zeros only)."""
    base = tl.program_id(1) * seq_len * D
    offs_m = tl.program_id(0) * BM + tl.arange(0, BM)
    offs_d = tl.arange(0, D)
    q = tl.load(
        q_ptr + base + offs_m[:, None] * D + offs_d[None, :], mask=offs_m[:, None] < seq_len, other=0.0
    )
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for start in range(0, seq_len, BN):
        offs_n = start + tl.arange(0, BN)
        rows = offs_n[:, None] < seq_len
        k = tl.load(k_ptr + base + offs_n[:, None] * D + offs_d[None, :], mask=rows, other=FILL)
        s = tl.where(offs_n[None, :] < seq_len, tl.dot(q, tl.trans(k)) * scale, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + base + offs_n[:, None] * D + offs_d[None, :], mask=rows, other=FILL)
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    tl.store(out_ptr + base + offs_m[:, None] * D + offs_d[None, :], (acc / l_i[:, None]).to(out_ptr.dtype.element_ty),
             mask=offs_m[:, None] < seq_len)  # fmt: skip


def test_attention_streams_k_and_v():
    """Attention's two dots wait for their MMAs in the same iteration: each gets a ring of
    num_stages - 1 + 1 buffers holding B alone (K, V: 8 KiB per stage at 64x64; A goes from
    registers), K's copies in flight while V's dot runs and the other way round. One wait and one
    barrier per iteration serve both rings (cp_async.merge_waits): at the first dot, for both rings'
    tiles of this iteration, letting the next iteration's two groups (2 rings x (depth 2 - 1)) stay in
    flight; both rings' copies for two iterations ahead go right after it. No tile of K or V goes
    through registers."""
    compiled = tilec.compile(
        attention, signature="*fp16,*fp16,*fp16,*fp16,i32:16,fp32", constexprs={"D": 64, "BM": 64, "BN": 64},
        target="sm_90a", num_warps=4, num_stages=3,
    )  # fmt: skip
    ptx = compiled.asm["ptx"]
    loop = ptx[ptx.index("cp.async.wait_group") :]
    assert _waits(ptx) == [0, 2] and loop.count("cp.async.wait_group 2;") == 1
    body = loop[: loop.index("cp.async.wait_group 0;")]
    assert body.count("bar.sync") == 1
    # both rings' copies for iteration i + 2 go before the first MMA
    assert len(COPY.findall(body[: body.index("wgmma.mma_async")])) == 2 * 4
    assert len(COPY.findall(ptx)) == 2 * 3 * 4  # K and V, 2 prologue iterations + 1 in the loop
    assert "ld.global.v4" in ptx[: ptx.index("cp.async")]  # q, before the loop
    assert "ld.global" not in loop[: loop.index("cp.async.wait_group 0;")]
    assert ptx.count("wgmma.wait_group.sync.aligned 0;") >= 2  # neither dot keeps its MMA in flight
    # two rings of 3 x 8 KiB, and the scratch space q's conversion and the reductions use
    assert 48 * 1024 <= compiled.metadata["shared"] <= 64 * 1024


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("stages", [1, 2, 3, 4])
@pytest.mark.parametrize("config", [(64, 64, 4), (128, 64, 4), (128, 64, 8), (128, 128, 8)])
@pytest.mark.parametrize("fill", [0.0, 1.0], ids=["streamed", "registers"])
def test_attention_on_gpu(config, stages, fill):
    import torch

    bm, bn, warps = config
    heads, seq, d = 3, 1000, 64
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((heads, seq, d)).astype(np.float16) for _ in range(3))
    out = torch.full((heads, seq, d), float("nan"), device="cuda", dtype=torch.float16)
    scale = d**-0.5
    grid = (tilec.cdiv(seq, bm), heads)
    attention[grid](*(torch.from_numpy(x).cuda() for x in (q, k, v)), out, seq, scale, D=d, BM=bm, BN=bn,
                    FILL=fill, num_warps=warps, num_stages=stages)  # fmt: skip
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) * scale
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    expected = (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float64)
    np.testing.assert_allclose(out.float().cpu().numpy(), expected, atol=2e-2, rtol=2e-2)


def test_rings_that_never_fit_give_way_to_staging_once_per_iteration():
    """fp32 attention with 128x128 blocks: Q, P and K/V rings even one iteration deep need 236 KiB,
    more than a program may have (227 KiB); num_stages is a hint, so the kernel compiles without
    rings (no cp.async, operands staged each iteration) and launches, as the 64x64 one keeps them."""
    signature, compiled = "*fp32,*fp32,*fp32,*fp32,i32,fp32", {}
    for bm, bn, warps in ((128, 128, 8), (64, 64, 4)):
        compiled[bm] = tilec.compile(
            attention, signature=signature, constexprs={"D": 64, "BM": bm, "BN": bn},
            target="sm_90a", num_warps=warps, num_stages=3,
        )  # fmt: skip
    big, small = compiled[128], compiled[64]
    assert big.metadata["shared"] <= 227 * 1024
    assert "cp.async" not in big.asm["ptx"] and "mma_async" in big.asm["ptx"]
    assert "cp.async" in small.asm["ptx"]


def test_fp32_attention_keeps_p_at_v_off_the_transposed_form():
    """In fp32 attention `p @ v` has a row-major B but an A computed in the loop, which keeps it off
    the transposed tf32 form (wgmma_swapped.applies): no MMA with A in registers."""
    ptx = tilec.compile(
        attention, signature="*fp32,*fp32,*fp32,*fp32,i32:16,fp32", constexprs={"D": 64, "BM": 64, "BN": 64},
        target="sm_90a", num_warps=4, num_stages=3,
    ).asm["ptx"]  # fmt: skip
    assert "m64n64k8.f32.tf32.tf32" in ptx
    assert not re.search(r"tf32\.tf32 \{[^}]*\}, \{%r\d+, %r\d+, %r\d+, %r\d+\}", ptx)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("config", [(128, 64, 8), (64, 64, 4), (128, 128, 8)])
def test_fp32_attention_on_gpu(config):
    """fp32 attention against float64 (both dots on tf32 warpgroup MMA)."""
    import torch

    bm, bn, warps = config
    heads, seq, d = 2, 1000, 64
    q, k, v = (torch.randn(heads, seq, d, device="cuda") for _ in range(3))
    out = torch.full((heads, seq, d), float("nan"), device="cuda")
    attention[(tilec.cdiv(seq, bm), heads)](q, k, v, out, seq, 1.0, D=d, BM=bm, BN=bn, num_warps=warps)
    expected = torch.softmax(q.double() @ k.double().transpose(1, 2), dim=-1) @ v.double()
    assert ((out.double() - expected).norm() / expected.norm()).item() < 5e-3


@tilec.jit
def two_products(
    a_ptr, b_ptr, c_ptr, d_ptr, out_ptr, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    """out[0] = A @ B and out[1] = C @ D, both accumulated in one K loop."""
    rm, rn, rk = tl.arange(0, BM), tl.arange(0, BN), tl.arange(0, BK)
    left = rm[:, None] * K + rk[None, :]
    right = rk[:, None] * BN + rn[None, :]
    acc1 = tl.zeros((BM, BN), dtype=tl.float32)
    acc2 = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc1 = tl.dot(tl.load(a_ptr + left + k), tl.load(b_ptr + right + k * BN), acc1)
        acc2 = tl.dot(tl.load(c_ptr + left + k), tl.load(d_ptr + right + k * BN), acc2)
    tl.store(out_ptr + rm[:, None] * BN + rn[None, :], acc1)
    tl.store(out_ptr + BM * BN + rm[:, None] * BN + rn[None, :], acc2)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("stages", [2, 3])
def test_two_transposed_tf32_dots_on_gpu(stages):
    """fp32: both dots go transposed (wgmma_swapped.py), their rings sharing one wait."""
    import torch

    bm, bn, bk, K = 128, 128, 32, 512
    a, b, c, d = (torch.randn(*s, device="cuda") for s in ((bm, K), (K, bn), (bm, K), (K, bn)))
    out = torch.full((2, bm, bn), float("nan"), device="cuda")
    two_products[(1,)](a, b, c, d, out, K, BM=bm, BN=bn, BK=bk, num_warps=8, num_stages=stages)
    for got, expected in ((out[0], a.double() @ b.double()), (out[1], c.double() @ d.double())):
        assert ((got.double() - expected).norm() / expected.norm()).item() < 2e-3


def test_every_dot_of_a_loop_streams():
    """Two accumulating dots in one loop: both get a ring, at one depth, and the first dot waits for
    both rings' copies of the iteration (cp_async.merge_waits), letting (depth - 1) * 4 streams'
    groups stay in flight; the second dot neither waits nor passes a barrier. At 128x128x64
    two rings of 4 x 32 KiB exceed 227 KiB, so both go one iteration ahead (3 buffers each) at
    num_stages 3 as at 2; at 64x64x64 both keep num_stages - 1 = 2."""
    signature = "*fp16,*fp16,*fp16,*fp16,*fp32,i32:16"
    for stages in (3, 2):
        kernel = tilec.compile(
            two_products,
            signature=signature,
            constexprs={"BM": 128, "BN": 128, "BK": 64},
            target="sm_90a",
            num_warps=8,
            num_stages=stages,
        )
        ptx = kernel.asm["ptx"]
        # 2 dots x (1 prologue + 1 in the loop) x 2 operands x 16 KiB / 256 threads / 16 bytes
        assert len(COPY.findall(ptx)) == 2 * 2 * 2 * 4 and _waits(ptx) == [0]
        loop = ptx[ptx.index("cp.async.wait_group") :]
        assert loop[: loop.index("wgmma.wait_group.sync.aligned 0;")].count("bar.sync") == 1
        assert "ld.global.v4" not in ptx and "fence.proxy.async" not in ptx
        assert kernel.metadata["shared"] == 2 * 3 * 32 * 1024
    kernel = tilec.compile(
        two_products,
        signature=signature,
        constexprs={"BM": 64, "BN": 64, "BK": 64},
        target="sm_90a",
        num_warps=4,
    )
    assert _waits(kernel.asm["ptx"]) == [0, (2 - 1) * 4]


@pytest.mark.gpu
@needs_gpu
def test_two_products_on_gpu():
    import torch

    bm, bn, bk, K = 128, 128, 64, 320
    rng = np.random.default_rng(13)
    a, c = (rng.standard_normal((bm, K)).astype(np.float16) for _ in range(2))
    b, d = (rng.standard_normal((K, bn)).astype(np.float16) for _ in range(2))
    out = torch.full((2, bm, bn), float("nan"), device="cuda")
    two_products[(1,)](*(torch.from_numpy(x).cuda() for x in (a, b, c, d)), out, K, BM=bm, BN=bn, BK=bk,
                       num_warps=8)  # fmt: skip
    expected = np.stack([a.astype(np.float64) @ b, c.astype(np.float64) @ d])
    np.testing.assert_allclose(out.cpu().numpy(), expected, rtol=1e-3, atol=2e-2)
