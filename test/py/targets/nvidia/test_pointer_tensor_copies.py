"""Pointer-arithmetic matmuls by tensor copies on sm_90a (tile-pointer-tensor-copies): Triton's
matmul tutorial (rows wrapped with `% M`, K masked), its masked variant, and the kernels whose loads
cannot be read as boxes of an array (their tiles keep cp.async or registers). In CI the sm_90a code;
on a GPU the results against torch, on shapes where the edge programs take the body's other copy."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
from gpu_launch import needs_gpu
from suite import inside

import tilec
import tilec.language as tl


@tilec.jit
def matmul_wrapped(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, WIDE: tl.constexpr = 0,
    EVEN_K: tl.constexpr = False,
):  # fmt: skip
    """Triton's matmul tutorial: grouped programs, rows and columns wrapped with `%`, K masked.
    WIDE = 1 widens A's row offsets to 64 bits after the remainder, 2 before it; EVEN_K leaves K
    unmasked (the caller promises K % BK == 0)."""
    pid = tl.program_id(0)
    num_m, num_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    group = pid // (GROUP_M * num_n)
    first_m = group * GROUP_M
    size_m = min(num_m - first_m, GROUP_M)
    pid_m = first_m + (pid % (GROUP_M * num_n)) % size_m
    pid_n = (pid % (GROUP_M * num_n)) // size_m
    if WIDE == 2:
        offs_m = (pid_m * BM + tl.arange(0, BM)).to(tl.int64) % M
    else:
        offs_m = (pid_m * BM + tl.arange(0, BM)) % M
    if WIDE == 1:
        offs_m = offs_m.to(tl.int64)
    offs_n = (pid_n * BN + tl.arange(0, BN)) % N
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BK, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BK, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BK * stride_ak
        b_ptrs += BK * stride_bk
    rows = pid_m * BM + tl.arange(0, BM)
    cols = pid_n * BN + tl.arange(0, BN)
    mask = (rows[:, None] < M) & (cols[None, :] < N)
    tl.store(
        c_ptr + rows[:, None] * stride_cm + cols[None, :] * stride_cn, acc.to(c_ptr.dtype.element_ty), mask
    )


@tilec.jit
def matmul_masked(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm, SHIFT: tl.constexpr,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, K_MARGIN: tl.constexpr = 0,
    A_SCALAR_TEST: tl.constexpr = False,
):  # fmt: skip
    """Rows and columns masked instead of wrapped, K walked by the induction variable (not by
    carried pointers); SHIFT moves every program's rows up by that many (rows < 0 read what lies
    before A: the body's other copy, since a tensor copy would fill them with zeros). K_MARGIN
    leaves A's last columns out (the extent K - K_MARGIN); A_SCALAR_TEST adds a test of the whole
    tile (`k >= 0`, always true) to A's mask: not a bound of A's array."""
    pid_m, pid_n = tl.program_id(0), tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM) - SHIFT
    rn = pid_n * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        rk = k + tl.arange(0, BK)
        a_mask = (rm[:, None] < M) & (rk[None, :] < K - K_MARGIN)
        if A_SCALAR_TEST:
            a_mask = a_mask & (k >= 0)
        a = tl.load(a_ptr + rm[:, None] * stride_am + rk[None, :], mask=a_mask, other=0.0)
        b = tl.load(
            b_ptr + rk[:, None] * stride_bk + rn[None, :],
            mask=(rk[:, None] < K) & (rn[None, :] < N),
            other=0.0,
        )
        acc = tl.dot(a, b, acc)
    rm = pid_m * BM + tl.arange(0, BM)
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.store(c_ptr + rm[:, None] * stride_cm + rn[None, :], acc.to(c_ptr.dtype.element_ty), mask)


@tilec.jit
def tile_coordinates(tile_id, num_pid_in_group, num_pid_m, GROUP_M: tl.constexpr):
    """Tutorial 09's `_compute_pid`: the grouped order's (pid_m, pid_n) of a tile."""
    first_pid_m = (tile_id // num_pid_in_group) * GROUP_M
    group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
    return first_pid_m + (tile_id % group_size_m), (tile_id % num_pid_in_group) // group_size_m


@tilec.jit
def matmul_persistent(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr,
    CLAMP: tl.constexpr = True,
):  # fmt: skip
    """Triton's tutorial 09 (persistent, pointers) in its newer form: rows and columns past the
    edge clamped to 0 with tl.where (CLAMP) or wrapped with `%`, hinted contiguous, and a second
    tile counter carried through the tile loop for the epilogue."""
    start_pid = tl.program_id(0)
    num_pid_m, num_pid_n = tl.cdiv(M, BM), tl.cdiv(N, BN)
    k_tiles = tl.cdiv(K, BK)
    num_tiles = num_pid_m * num_pid_n
    tile_id_c = start_pid - NUM_SMS
    offs_k_for_mask = tl.arange(0, BK)
    num_pid_in_group = GROUP_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS, flatten=True):
        pid_m, pid_n = tile_coordinates(tile_id, num_pid_in_group, num_pid_m, GROUP_M)
        offs_am = inside(pid_m * BM + tl.arange(0, BM), M, CLAMP)
        offs_bn = inside(pid_n * BN + tl.arange(0, BN), N, CLAMP)
        offs_am = tl.max_contiguous(tl.multiple_of(offs_am, BM), BM)
        offs_bn = tl.max_contiguous(tl.multiple_of(offs_bn, BN), BN)
        accumulator = tl.zeros((BM, BN), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BK + tl.arange(0, BK)
            a_ptrs = a_ptr + (offs_am[:, None] * stride_am + offs_k[None, :] * stride_ak)
            b_ptrs = b_ptr + (offs_k[:, None] * stride_bk + offs_bn[None, :] * stride_bn)
            a = tl.load(a_ptrs, mask=offs_k_for_mask[None, :] < K - ki * BK, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k_for_mask[:, None] < K - ki * BK, other=0.0)
            accumulator = tl.dot(a, b, accumulator)
        tile_id_c += NUM_SMS
        pid_m, pid_n = tile_coordinates(tile_id_c, num_pid_in_group, num_pid_m, GROUP_M)
        offs_cm = pid_m * BM + tl.arange(0, BM)
        offs_cn = pid_n * BN + tl.arange(0, BN)
        c_ptrs = c_ptr + stride_cm * offs_cm[:, None] + stride_cn * offs_cn[None, :]
        c_mask = (offs_cm[:, None] < M) & (offs_cn[None, :] < N)
        tl.store(c_ptrs, accumulator.to(c_ptr.dtype.element_ty), mask=c_mask)


WRAPPED = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1}
ALIGNED = "*fp16:16,*fp16:16,*fp16:16,i32,i32:16,i32:16,i32:16,i32:16,i32:16"  # M ragged


def _wrapped_sm90(signature=ALIGNED, **constexprs):
    return tilec.compile(
        matmul_wrapped, signature=signature, constexprs={**WRAPPED, **constexprs},
        target="sm_90a", num_warps=8, num_stages=3,
    )  # fmt: skip


def _maps(compiled) -> list:
    names = compiled.arg_names
    return [
        (names[m["base"]], names[m["rows"][1]], names[m["cols"][1]], names[m["row_stride"][1]])
        for m in compiled.metadata.get("tensor_maps", [])
    ]


def test_tutorial_matmul_copies_by_tma_where_no_offset_wraps():
    """The tutorial's loads are boxes of A [M, K] and B [K, N] when no offset wraps: that copy of the
    body streams them by tensor copies, the other (the last programs along M or N) by cp.async."""
    compiled = _wrapped_sm90()
    ptx = compiled.asm["ptx"]
    assert _maps(compiled) == [("a_ptr", "M", "K", "stride_am"), ("b_ptr", "K", "N", "stride_bk")]
    # prologue (2 iterations) and loop: A one 128-byte band, B two
    assert ptx.count("cp.async.bulk.tensor.2d") == 3 * (1 + 2)
    assert re.search(r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16,", ptx)
    assert ptx.count("wgmma.mma_async") >= 2  # one loop in each copy
    # the two copies' rings share shared memory: four buffers of A's and B's tiles, not eight
    assert compiled.metadata["shared"] < 4 * (128 * 64 + 64 * 128) * 2 * 1.05
    if shutil.which("ptxas"):  # each copy drains its own MMAs: none is serialized (wgmma.drain)
        assert "ptxas_advisories" not in compiled.metadata


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="ptxas is not installed")
def test_ragged_n_epilogues_stay_apart(monkeypatch):
    """N not a multiple of 16: both copies store C element by element. LLVM merged the two store
    chains after the branches, and ptxas serialized the tensor-copy loop's MMAs (C7514); each
    branch now ends with its own PTX comment (wgmma.mark_branch_end)."""
    signature = "*fp16:16,*fp16:16,*fp16:16,i32:16,i32,i32:16,i32:16,i32:16,i32:16"
    raised = _wrapped_sm90(signature)
    assert len(_maps(raised)) == 2
    assert "ptxas_advisories" not in raised.metadata
    ends = re.findall(r"// end of the branch of drained loop (\d+)", raised.asm["ptx"])
    assert sorted(ends) == ["1", "2"]
    monkeypatch.setenv("TILEC_NO_TMA", "1")
    plain = _wrapped_sm90(signature)
    assert raised.n_regs <= plain.n_regs + 8, (raised.n_regs, plain.n_regs)  # was 222 against 213


@pytest.mark.parametrize("wide", [1, 2])
def test_wide_offsets(wide):
    """Row offsets widened to 64 bits after the remainder, or before it (a remainder of 64-bit
    values, whose bounds are those of the i32 values widened), read the same boxes."""
    assert _maps(_wrapped_sm90(WIDE=wide)) == [
        ("a_ptr", "M", "K", "stride_am"),
        ("b_ptr", "K", "N", "stride_bk"),
    ]


def test_unmasked_k_is_the_loops_walk():
    """EVEN_K: K unmasked, walked by `for k in range(0, tl.cdiv(K, BK))`: the extent is what the
    last iteration reads up to, BK * cdiv(K, BK) (the launcher divides as the kernel does)."""
    compiled = _wrapped_sm90(EVEN_K=True)
    a_map, b_map = (m["descriptor"] for m in compiled.metadata["tensor_maps"])
    walked = "mul.i32(64,div.i32(add.i32(add.i32(K,64),-1),64))"
    assert a_map == f"array base=a_ptr rows=M cols={walked} row_stride=stride_am"
    assert b_map == f"array base=b_ptr rows={walked} cols=N row_stride=stride_bk"
    from tilec.targets.nvidia.tensor_maps import _value

    cols = compiled.metadata["tensor_maps"][0]["cols"]
    k_index = compiled.arg_names.index("K")
    assert [_value(cols, {k_index: k}) for k in (64, 128, 130)] == [64, 128, 192]


def test_masked_matmul_copies_by_tma():
    """Masks that are the arrays' bounds (`rm < M`, `rk < K` with rk = k + arange: the extent K,
    the column k) and no remainder: the copy runs when its coordinates cannot be negative."""
    compiled = tilec.compile(
        matmul_masked, signature="*bf16:16,*bf16:16,*fp32:16,i32,i32,i32,i32:16,i32:16,i32:16",
        constexprs={"SHIFT": 0, "BM": 128, "BN": 128, "BK": 64}, target="sm_90a", num_warps=8,
    )  # fmt: skip
    assert _maps(compiled) == [("a_ptr", "M", "K", "stride_am"), ("b_ptr", "K", "N", "stride_bk")]
    assert "cp.async.bulk.tensor.2d" in compiled.asm["ptx"]


@pytest.mark.parametrize(
    "signature, constexprs",
    [
        # A's row stride not known divisible by 16: A keeps cp.async, so B's ring does too
        ("*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32,i32:16,i32:16", {}),
        # B's row stride not known divisible by 16
        ("*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,i32,i32:16", {}),
        # A column-major (stride_ak an argument, stride_am 1) in fp32: the tf32 instruction reads A
        # K-major only (a 16-bit one is raised: test_column_major_a.py)
        ("*fp32:16,*fp32:16,*fp32:16,i32,i32,i32,i32:16,i32:16,i32:16",
         {"stride_am": 1, "stride_ak": None, "BK": 32}),
    ],
)  # fmt: skip
def test_loads_that_are_not_boxes_keep_their_copies(signature, constexprs):
    """A ring goes by tensor copies only when all its streams do: when one operand's tiles are not
    boxes of an array, neither is raised (no second copy of the body), and the PTX is the one
    TILEC_NO_TMA=1 gives."""
    merged = {**WRAPPED, **constexprs}
    merged = {k: v for k, v in merged.items() if v is not None}
    compiled = tilec.compile(
        matmul_wrapped, signature=signature, constexprs=merged, target="sm_90a", num_warps=8, num_stages=3
    )
    assert _maps(compiled) == []
    assert "wgmma.mma_async" in compiled.asm["ptx"]
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TILEC_NO_TMA", "1")
        plain = tilec.compile(
            matmul_wrapped, signature=signature, constexprs=merged, target="sm_90a", num_warps=8, num_stages=3
        )
    assert plain.asm["ptx"] == compiled.asm["ptx"]


MASKED = "*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,i32:16,i32:16"


def test_masks_that_are_not_bounds_keep_their_copies():
    """`rk < K - 8` is a bound (the extent K - 8, an expression the launcher evaluates); a test of
    the whole tile (`k >= 0`) in A's mask is not one, so A keeps cp.async (B still streams by
    tensor copies); with TILEC_NO_TMA=1 nothing is raised."""
    base = {"SHIFT": 0, "BM": 128, "BN": 64, "BK": 64}
    margin = tilec.compile(
        matmul_masked, signature=MASKED, constexprs={**base, "K_MARGIN": 8}, target="sm_90a"
    )
    (a_map, _) = margin.metadata["tensor_maps"]
    assert a_map["descriptor"] == "array base=a_ptr rows=M cols=add.i32(-8,K) row_stride=stride_am"
    scalar = tilec.compile(
        matmul_masked, signature=MASKED, constexprs={**base, "A_SCALAR_TEST": True}, target="sm_90a"
    )
    assert _maps(scalar) == []
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("TILEC_NO_TMA", "1")
        plain = tilec.compile(matmul_masked, signature=MASKED, constexprs=base, target="sm_90a")
    assert "tensor_maps" not in plain.metadata and "cp.async.bulk" not in plain.asm["ptx"]


@pytest.mark.parametrize("config", [(128, 128, 32, 8), (128, 256, 32, 8), (128, 128, 32, 4), (64, 64, 32, 4)])
def test_tf32_row_major_b_goes_by_tensor_copies(config):
    """A tf32 dot with a row-major B goes transposed (wgmma_swapped.py); raised, both rings fill by
    tensor copies: A in 128-byte bands of K (BM rows a box), B in 32-value bands of N (BK rows), B's
    fragments loaded from its swizzled atoms, no spills, no advisory."""
    bm, bn, bk, warps = config
    compiled = tilec.compile(
        matmul_wrapped, signature="*fp32:16,*fp32:16,*fp32:16,i32,i32:16,i32:16,i32:16,i32:16,i32:16",
        constexprs={**WRAPPED, "BM": bm, "BN": bn, "BK": bk}, target="sm_90a", num_warps=warps,
    )  # fmt: skip
    maps = [(m["descriptor"].split()[1], m["band"], m["box_rows"]) for m in compiled.metadata["tensor_maps"]]
    assert maps == [("base=a_ptr", 32, bm), ("base=b_ptr", 32, bk)]
    ptx = compiled.asm["ptx"]
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k8\.f32\.tf32\.tf32 \{[^}]*\}, \{%r", ptx)
    assert "cp.async.bulk.tensor.2d" in ptx and not compiled.metadata.get("ptxas_advisories")
    if shutil.which("ptxas"):
        assert compiled.metadata["n_spills"] == 0


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize(
    "M,N,K", [(512, 512, 512), (300, 200, 136), (1000, 784, 520), (128, 4096, 64), (70, 130, 1000)]
)
def test_tutorial_matmul_on_gpu(dtype, M, N, K):
    """Both copies of the body run: programs whose rows and columns do not wrap read by tensor
    copies, the last ones along M and N by cp.async (or registers where the strides are not
    multiples of 16 elements); ragged K reads zeros past K either way. fp32 (tf32) goes transposed
    (wgmma_swapped.py), its B by tensor copies into swizzled atoms."""
    import torch

    torch.manual_seed(0)
    t = getattr(torch, dtype)
    a = torch.randn(M, K, device="cuda", dtype=t)
    b = torch.randn(K, N, device="cuda", dtype=t)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=t)
    grid = (tilec.cdiv(M, 128) * tilec.cdiv(N, 128),)
    args = (a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride())
    options = {"BM": 128, "BN": 128, "BK": 32 if dtype == "float32" else 64, "GROUP_M": 8, "num_warps": 8}
    matmul_wrapped[grid](*args, **options, num_stages=3)
    expected = (a.double() @ b.double()).to(t)
    torch.testing.assert_close(
        c.float(), expected.float(), rtol=2e-2, atol=0.15 if dtype == "float32" else 0.1
    )
    # A's rows (K apart) and B's (N apart) must be 16-byte multiples for their maps
    kernel = matmul_wrapped.warmup(*args, **options, num_stages=3)
    maps = [m["descriptor"].split()[1] for m in kernel.metadata.get("tensor_maps", [])]
    assert maps == (["base=a_ptr", "base=b_ptr"] if K % 16 == N % 16 == 0 else [])


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (300, 208, 192)])
def test_unmasked_k_matmul_on_gpu(M, N, K):
    """EVEN_K: K's extent is the loop's walk, BK * cdiv(K, BK) (K a multiple of BK here)."""
    import torch

    torch.manual_seed(2)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    grid = (tilec.cdiv(M, 128) * tilec.cdiv(N, 128),)
    args = (a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride())
    options = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8, "EVEN_K": True, "num_warps": 8, "num_stages": 3}
    matmul_wrapped[grid](*args, **options)
    expected = (a.double() @ b.double()).half()
    torch.testing.assert_close(c.float(), expected.float(), rtol=2e-2, atol=0.1)
    assert len(matmul_wrapped.warmup(*args, **options).metadata["tensor_maps"]) == 2


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(
    "shift, margin, scalar_test", [(0, 0, False), (5, 0, False), (0, 8, False), (3, 0, True)]
)
@pytest.mark.parametrize("M,N,K", [(256, 256, 256), (200, 136, 72)])
def test_masked_matmul_on_gpu(shift, margin, scalar_test, M, N, K):
    """Masked rows: with SHIFT = 5 the first program's rows start at -5, which the pointers read
    from before A (here: inside a larger buffer) and a tensor copy would zero-fill, so every
    program whose first row is negative takes the body's other copy."""
    import torch

    torch.manual_seed(1)
    storage = torch.randn(M + 16, K, device="cuda", dtype=torch.float16)
    a = storage[16:]  # 16 rows (16-byte aligned) precede A
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float32)
    grid = (tilec.cdiv(M, 64), tilec.cdiv(N, 64))
    matmul_masked[grid](a, b, c, M, N, K, K, N, N, SHIFT=shift, BM=64, BN=64, BK=32, K_MARGIN=margin,
                        A_SCALAR_TEST=scalar_test, num_warps=4)  # fmt: skip
    rows = torch.arange(M, device="cuda") - shift
    shifted = storage[16 + rows]
    shifted[:, K - margin :] = 0
    expected = shifted.double() @ b.double()
    torch.testing.assert_close(c.double(), expected, rtol=2e-2, atol=0.05)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("clamp", [True, False])
@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (300, 200, 136), (1000, 784, 520)])
def test_persistent_matmul_on_gpu(clamp, M, N, K):
    """Tutorial 09's tile loop: each tile tests and takes its own copy of the body."""
    import torch

    torch.manual_seed(3)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    programs = min(8, tilec.cdiv(M, 128) * tilec.cdiv(N, 128))
    args = (a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride())
    options = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8, "NUM_SMS": programs, "CLAMP": clamp,
               "num_warps": 8, "num_stages": 3}  # fmt: skip
    matmul_persistent[(programs,)](*args, **options)
    expected = (a.double() @ b.double()).half()
    torch.testing.assert_close(c.float(), expected.float(), rtol=2e-2, atol=0.1)
    maps = matmul_persistent.warmup(*args, grid=(programs,), **options).metadata.get("tensor_maps", [])
    assert len(maps) == (2 if K % 16 == N % 16 == 0 else 0)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (300, 208, 136), (1000, 784, 520)])
def test_column_major_b_matmul_on_gpu(dtype, M, N, K):
    """`x @ W.T` through pointers: W's boxes by tensor copies, read K-major."""
    import torch

    torch.manual_seed(5)
    t = getattr(torch, dtype)
    a = torch.randn(M, K, device="cuda", dtype=t)
    b = torch.randn(N, K, device="cuda", dtype=t).T
    c = torch.full((M, N), float("nan"), device="cuda", dtype=t)
    grid = (tilec.cdiv(M, 128) * tilec.cdiv(N, 128),)
    args = (a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride())
    bk = 32 if dtype == "float32" else 64
    options = {"BM": 128, "BN": 128, "BK": bk, "GROUP_M": 8, "num_warps": 8, "num_stages": 3}
    matmul_wrapped[grid](*args, **options)
    expected = a.double() @ b.double()
    torch.testing.assert_close(c.double(), expected, rtol=2e-2, atol=0.1 if dtype == "float16" else 0.05)
    maps = matmul_wrapped.warmup(*args, grid=grid, **options).metadata.get("tensor_maps", [])
    assert len(maps) == (2 if K % 16 == 0 else 0)


# -- the proof checked by the interpreter -----------------------------------------------------------
# Without a GPU: the kernel's tile IR goes through the pass and runs in the interpreter, whose loads
# that carry an array and coordinates are read here as a tensor copy reads them (the box at the
# coordinates of the array the launcher would encode, zeros outside it) and compared with what their
# pointers and masks read. Programs whose rows wrap take the other copy of the body.


def _box_loads(boxes: list):
    """A tile.load handler for the interpreter: kernel-array loads read as tensor copies, checked
    against their pointers; `boxes` counts them."""
    from tilec.dialects import kernel_arrays
    from tilec.dialects import tile as tile_dialect
    from tilec.targets.interpreter import memory, translator

    pointers = translator.HANDLERS["tile.load"]

    def handler(tr, op):
        by_pointers = pointers(tr, op)
        if "descriptor" not in op.attributes:
            return by_pointers
        parts = kernel_arrays.parse_array(str(op.attributes["descriptor"]).strip('"'))
        fn = op.parent
        while fn.name != "func.func":
            fn = fn.parent
        names = [str(d["tile.name"]).strip('"') for d in fn.attributes["arg_attrs"]]
        args = dict(zip(names, (tr.slot(a) for a in fn.regions[0].blocks[0].arguments)))
        seg = tile_dialect.operand_segments(op, tile_dialect.SPECS["load"])
        coords = [tr.slot(v) for v in seg["coords"]]
        out, dtype = tr.slot(op.results[0]), memory.np_dtype(op.results[0].type)
        rows_n, cols_n = tile_dialect.shape_of(op.results[0].type)

        def value(part, env):
            if isinstance(part, dict):
                a, b = (value(p, env) for p in part["args"])
                half = 1 << (part["bits"] - 1)
                if part["op"] == "div":
                    v = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
                else:
                    v = a + b if part["op"] == "add" else a * b
                return (v + half) % (2 * half) - half
            return part if isinstance(part, int) else int(env[args[part]])

        def step(env, state):
            by_pointers(env, state)
            rows, cols, stride, base = (value(parts[k], env) for k in ("rows", "cols", "row_stride", "base"))
            r0, c0 = (int(env[s]) for s in coords)
            i = np.arange(rows_n)[:, None] + r0
            j = np.arange(cols_n)[None, :] + c0
            inside = (i >= 0) & (i < rows) & (j >= 0) & (j < cols)
            box = np.zeros((rows_n, cols_n), dtype)
            box[inside] = state.memory.read((base + (i * stride + j) * dtype.itemsize)[inside], dtype)
            np.testing.assert_array_equal(box, env[out])  # what the pointers and the mask read
            env[out] = box
            boxes.append((r0, c0))

        return step

    return handler


def _interpret_raised(kernel, grid, args, num_warps, monkeypatch, held=(), **constexprs) -> int:
    """Runs `kernel` in the interpreter after tile-pointer-tensor-copies; the number of tiles read
    as boxes of arrays. `held`: arrays the kernel may read besides its arguments (those around a
    view)."""
    from mlir import ir

    from tilec.dialects import tile as tile_dialect
    from tilec.passes.pipeline import parse_pipeline, run_pipeline
    from tilec.targets import arrays
    from tilec.targets.interpreter import memory as interpreter_memory
    from tilec.targets.interpreter import program as interpreter_program
    from tilec.targets.interpreter import translator

    boxes: list = []
    monkeypatch.setitem(translator.HANDLERS, "tile.load", _box_loads(boxes))
    compiled = kernel.warmup(*args, grid=grid, target="interpreter", **constexprs)
    with tile_dialect.make_context():
        module = ir.Module.parse(compiled.asm["tile"])
        passes = f"tile-canonicalize,tile-pointer-tensor-copies{{num-warps={num_warps}}},tile-canonicalize"
        run_pipeline(module, parse_pipeline(passes))
        assert "descriptor" in str(module)  # the pass took the loads
        program = interpreter_program.Program(module)
    memory = interpreter_memory.Memory()
    for array in held:
        memory.add(arrays.host_view(array))
    bound = kernel.signature.bind(*args, **constexprs)
    values = [bound.arguments[n] for n in kernel.arg_names if n in compiled.arg_names]
    values = [
        memory.add(arrays.host_view(v)) if t.is_ptr() else v for t, v in zip(compiled.arg_types, values)
    ]
    program.run(tuple(grid) + (1,) * (3 - len(grid)), values, memory)
    return len(boxes)


@pytest.mark.parametrize(
    "M,N,K,even_k,wide",
    [(200, 192, 208, False, 0), (256, 128, 64, False, 0), (130, 144, 48, False, 0), (200, 192, 192, True, 0),
     (128, 256, 64, True, 0), (200, 192, 208, False, 2), (256, 128, 64, False, 1)],
)  # fmt: skip
def test_tutorial_boxes_read_what_the_pointers_read(M, N, K, even_k, wide, monkeypatch):
    """Wrapped rows and columns, K masked or (even_k) unmasked and walked by the loop; A's rows
    widened to 64 bits after the wrap (wide 1) or before it (2)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    grid = (tilec.cdiv(M, 128) * tilec.cdiv(N, 128),)
    args = (a, b, c, M, N, K, K, 1, N, 1, N, 1)
    boxes = _interpret_raised(
        matmul_wrapped, grid, args, 8, monkeypatch, BM=128, BN=128, BK=64, GROUP_M=8, EVEN_K=even_k, WIDE=wide
    )
    np.testing.assert_allclose(
        c.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32), rtol=2e-2, atol=5e-2
    )
    # the programs whose rows and columns do not wrap, 2 loads per K step
    whole = (M // 128) * (N // 128)
    assert boxes == whole * 2 * tilec.cdiv(K, 64)


@pytest.mark.parametrize("shift, margin", [(0, 0), (5, 0), (0, 8), (70, 4)])
def test_masked_boxes_read_what_the_pointers_read(shift, margin, monkeypatch):
    rng = np.random.default_rng(1)
    M, N, K = 200, 96, 80
    storage = rng.standard_normal((M + 80, K)).astype(np.float16)
    a = storage[80:]  # rows before A, read by the pointers of programs whose rows start below 0
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    grid = (tilec.cdiv(M, 64), tilec.cdiv(N, 32))
    args = (a, b, c, M, N, K, K, N, N)
    boxes = _interpret_raised(matmul_masked, grid, args, 4, monkeypatch, held=[storage], SHIFT=shift, BM=64,
                              BN=32, BK=32, K_MARGIN=margin)  # fmt: skip
    rows = storage[80 + np.arange(M) - shift].astype(np.float32)
    rows[:, K - margin :] = 0
    np.testing.assert_allclose(c, rows @ b.astype(np.float32), rtol=2e-2, atol=5e-2)
    # programs with a negative first row take the pointers' copy
    starting = [pid_m for pid_m in range(grid[0]) if pid_m * 64 - shift >= 0]
    assert boxes == len(starting) * grid[1] * 2 * tilec.cdiv(K, 32)


@pytest.mark.parametrize("clamp", [True, False])
@pytest.mark.parametrize("M,N,K,programs", [(200, 192, 208, 3), (256, 256, 64, 4), (130, 272, 48, 5)])
def test_persistent_boxes_read_what_the_pointers_read(clamp, M, N, K, programs, monkeypatch):
    """Tutorial 09's tile loop: the test and the two copies of the tile's body are inside it, once
    per tile; the tile counter the loop carries for the epilogue passes through both copies."""
    rng = np.random.default_rng(2)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    args = (a, b, c, M, N, K, K, 1, N, 1, N, 1)
    boxes = _interpret_raised(matmul_persistent, (programs,), args, 4, monkeypatch, BM=64, BN=64, BK=32,
                              GROUP_M=2, NUM_SMS=programs, CLAMP=clamp)  # fmt: skip
    np.testing.assert_allclose(
        c.astype(np.float32), a.astype(np.float32) @ b.astype(np.float32), rtol=2e-2, atol=5e-2
    )
    whole = (M // 64) * (N // 64)  # the tiles whose rows and columns do not cross M and N
    assert boxes == whole * 2 * tilec.cdiv(K, 32)


def test_persistent_matmul_copies_by_tma_in_its_tile_loop():
    signature = "*fp16:16,*fp16:16,*fp16:16,i32,i32,i32:16,i32:16,i32:16,i32:16"
    constexprs = {"BM": 128, "BN": 256, "BK": 64, "GROUP_M": 8, "NUM_SMS": 132,
                  "stride_ak": 1, "stride_bn": 1, "stride_cn": 1}  # fmt: skip
    compiled = tilec.compile(
        matmul_persistent, signature=signature, constexprs=constexprs, target="sm_90a", num_warps=8
    )
    assert _maps(compiled) == [("a_ptr", "M", "K", "stride_am"), ("b_ptr", "K", "N", "stride_bk")]
    ptx = compiled.asm["ptx"]
    assert "cp.async.bulk.tensor.2d" in ptx and "cp.async.cg.shared.global" in ptx
    if shutil.which("ptxas"):
        assert compiled.n_spills == 0 and "ptxas_advisories" not in compiled.metadata


@pytest.mark.parametrize("M,N,K", [(200, 192, 208), (256, 128, 64), (130, 144, 48)])
def test_column_major_b_boxes_read_what_the_pointers_read(M, N, K, monkeypatch):
    """B column-major (`x @ W.T`, W [N, K] row-major): the tile is the transpose of a box of W. The
    handler compares each box with the pointers the raised load carries (made from the box: what it
    reads wherever tensor copies do not take it); the product checks the whole against NumPy."""
    rng = np.random.default_rng(4)
    a = rng.standard_normal((M, K)).astype(np.float16)
    w = rng.standard_normal((N, K)).astype(np.float16)
    c = np.zeros((M, N), np.float16)
    grid = (tilec.cdiv(M, 128) * tilec.cdiv(N, 128),)
    args = (a, w, c, M, N, K, K, 1, 1, K, N, 1)  # B = W.T: stride_bk 1, stride_bn K
    boxes = _interpret_raised(matmul_wrapped, grid, args, 8, monkeypatch, BM=128, BN=128, BK=64, GROUP_M=8)
    np.testing.assert_allclose(
        c.astype(np.float32), a.astype(np.float32) @ w.astype(np.float32).T, rtol=2e-2, atol=5e-2
    )
    whole = (M // 128) * (N // 128)
    assert boxes == whole * 2 * tilec.cdiv(K, 64)


@pytest.mark.parametrize("dtype, bk", [("fp16", 64), ("bf16", 64), ("fp32", 32)])
def test_column_major_b_copies_by_tma(dtype, bk):
    """The tile of a column-major B is the transpose of a box of W [N, K]: its ring is filled by
    tensor copies and read K-major, as `tl.dot(a, w_tile.T)` through a descriptor is. Before, a
    column-major B was staged from registers: 1132 bytes of spills at 128x128x64 on 4 warps (fp16),
    208 at 128x256x32 on 8 (fp32)."""
    signature = f"*{dtype}:16,*{dtype}:16,*{dtype}:16,i32,i32,i32:16,i32:16,i32:16,i32:16"
    constexprs = {
        "BM": 128,
        "BN": 128,
        "BK": bk,
        "GROUP_M": 8,
        "stride_ak": 1,
        "stride_bk": 1,
        "stride_cn": 1,
    }
    compiled = tilec.compile(
        matmul_wrapped, signature=signature, constexprs=constexprs, target="sm_90a", num_warps=4
    )
    assert _maps(compiled) == [("a_ptr", "M", "K", "stride_am"), ("b_ptr", "N", "K", "stride_bn")]
    ptx = compiled.asm["ptx"]
    assert ptx.count("cp.async.bulk.tensor.2d") == 3 * 2  # prologue (2 iterations) and loop
    if shutil.which("ptxas"):
        assert compiled.n_spills == 0 and "ptxas_advisories" not in compiled.metadata
