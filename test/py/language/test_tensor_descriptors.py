"""Tensor descriptors: `tilec.TensorDescriptor` arguments and `tl.make_tensor_descriptor`, with
`desc.load` / `desc.store` of blocks, on the CPU target and the interpreter (and on a GPU: the same
kernels against torch; in CI: the sm_90a code streams descriptor loads into the tensor cores)."""

from __future__ import annotations

import re
import shutil
import subprocess
import types

import numpy as np
import pytest
from gpu_launch import needs_gpu

import tilec
import tilec.language as tl

D = tilec.TensorDescriptor.from_tensor


@tilec.jit
def scale_blocks(src, dst, factor, BM: tl.constexpr, BN: tl.constexpr):
    m0, n0 = tl.program_id(0) * BM, tl.program_id(1) * BN
    dst.store([m0, n0], src.load([m0, n0]) * factor)


@tilec.jit
def shifted_block(src, out_ptr, dm, dn, BM: tl.constexpr, BN: tl.constexpr):
    """The block at (dm, dn), possibly negative or past the end, written whole to out."""
    block = src.load([dm, dn])
    rows, cols = tl.arange(0, BM)[:, None], tl.arange(0, BN)[None, :]
    tl.store(out_ptr + rows * BN + cols, block)


@tilec.jit
def matmul_descriptors(
    a_desc, b_desc, c_ptr, stride_cm, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr
):
    m0, n0 = tl.program_id(0) * BM, tl.program_id(1) * BN
    M, K, N = a_desc.shape[0], a_desc.shape[1], b_desc.shape[1]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([m0, k * BK]), b_desc.load([k * BK, n0]), acc)
    c = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, 1], [BM, BN])
    c.store([m0, n0], acc.to(c.dtype))


def _padded(rng, rows, cols, dtype=np.float32, pad=6, fill=None):
    """A [rows, cols] view of a wider array: the row stride is not the width, but a multiple of 16
    bytes, as descriptors need; fill: every value."""
    width = -(-(cols + pad) * np.dtype(dtype).itemsize // 16) * 16 // np.dtype(dtype).itemsize
    shape = (rows, width)
    whole = rng.standard_normal(shape).astype(dtype) if fill is None else np.full(shape, fill, dtype)
    return whole, whole[:, :cols]


def test_blocks_on_ragged_edges(target):
    rng = np.random.default_rng(0)
    _, x = _padded(rng, 37, 50)
    y_whole, y = _padded(rng, 37, 50, fill=7.0)
    scale_blocks[(3, 2)](D(x, [16, 32]), D(y, [16, 32]), 2.0, BM=16, BN=32)
    np.testing.assert_array_equal(y, x * 2)
    np.testing.assert_array_equal(y_whole[:, 50:], 7.0)  # past the descriptor's shape: not written


@pytest.mark.parametrize("dm,dn", [(0, 0), (-3, -5), (30, 40), (-20, 60)])
def test_out_of_bounds_elements_read_the_padding(target, dm, dn):
    rng = np.random.default_rng(1)
    _, x = _padded(rng, 24, 44, pad=4)
    out = np.full((16, 16), 5.0, np.float32)
    shifted_block[(1,)](D(x, [16, 16]), out, dm, dn, BM=16, BN=16)
    expected = np.zeros((16, 16), np.float32)
    for i in range(16):
        for j in range(16):
            r, c = dm + i, dn + j
            if 0 <= r < 24 and 0 <= c < 44:
                expected[i, j] = x[r, c]
    np.testing.assert_array_equal(out, expected)
    nan_padded = tilec.TensorDescriptor(x, [24, 44], [x.strides[0] // 4, 1], [16, 16], padding="nan")
    shifted_block[(1,)](nan_padded, out, dm, dn, BM=16, BN=16)
    np.testing.assert_array_equal(
        np.isnan(out), np.isnan(np.where(expected == 0, np.nan, 0)) & (expected == 0)
    )


@pytest.mark.parametrize("M,N,K", [(64, 64, 64), (70, 40, 50), (33, 65, 17)])
def test_matmul_from_descriptors(target, M, N, K):
    rng = np.random.default_rng(2)
    _, a = _padded(rng, M, K, pad=4)
    _, b = _padded(rng, K, N, pad=0)  # rows padded to 16 bytes where N is not a multiple of 4
    c_whole, c = _padded(rng, M, N, pad=4, fill=-1.0)
    grid = (tilec.cdiv(M, 32), tilec.cdiv(N, 32))
    matmul_descriptors[grid](D(a, [32, 16]), D(b, [16, 32]), c, c.strides[0] // 4, BM=32, BN=32, BK=16)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(c_whole[:, N:], -1.0)


def test_set_allocator_as_ported_code_calls_it(target):
    """Triton's persistent-matmul tutorial calls triton.set_allocator before kernels that make
    descriptors: tilec takes the callable (its in-kernel descriptors need no scratch, so it is not
    called) and the kernel runs; a non-callable is refused."""
    calls = []
    tilec.set_allocator(lambda size, align, stream: calls.append(size))
    try:
        rng = np.random.default_rng(3)
        _, a = _padded(rng, 40, 24, pad=4)
        _, b = _padded(rng, 24, 40, pad=0)
        c = np.zeros((40, 40), np.float32)
        matmul_descriptors[(2, 2)](D(a, [32, 16]), D(b, [16, 32]), c, 40, BM=32, BN=32, BK=16)
        np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)
        assert calls == []
        with pytest.raises(TypeError, match="takes a callable"):
            tilec.set_allocator(42)
    finally:
        tilec.set_allocator(None)


@tilec.jit
def sum_rows_3d(src, out_ptr, B: tl.constexpr, R: tl.constexpr, C: tl.constexpr):
    """out[b, c] = sum over rows of the [B, R, C] block at (0, 0, c0)."""
    c0 = tl.program_id(0) * C
    block = src.load([0, 0, c0])
    total = tl.sum(block, axis=1)
    out = tl.make_tensor_descriptor(out_ptr, [src.shape[0], src.shape[2]], [src.shape[2], 1], [B, C])
    out.store([0, c0], total)


@tilec.jit
def vector_add(x_desc, y_desc, BLOCK: tl.constexpr):
    offset = tl.program_id(0) * BLOCK
    y_desc.store([offset], x_desc.load([offset]) + y_desc.load([offset]))


def test_one_and_three_dimensions(target):
    rng = np.random.default_rng(3)
    x = rng.standard_normal(100).astype(np.float32)
    y = rng.standard_normal(100).astype(np.float32)
    expected = x + y
    vector_add[(4,)](D(x, [32]), D(y, [32]), BLOCK=32)
    np.testing.assert_array_equal(y, expected)
    t = rng.standard_normal((3, 5, 24)).astype(np.float32)
    out = np.zeros((3, 24), np.float32)
    sum_rows_3d[(3,)](D(t, [4, 8, 8]), out, B=4, R=8, C=8)
    np.testing.assert_allclose(out, t.sum(axis=1), rtol=1e-5, atol=1e-5)


@tilec.jit
def copy_through_helper(src, dst, BM: tl.constexpr, BN: tl.constexpr):
    _copy_block(src, dst, tl.program_id(0) * BM)


@tilec.jit
def _copy_block(src, dst, m0):
    dst.store([m0, 0], src.load([m0, 0]))


def test_descriptors_pass_to_helpers_and_take_duck_typed_arguments(target):
    """Any object with base/shape/strides/block_shape is a descriptor (Triton's class among them)."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((40, 16)).astype(np.float32)
    y = np.zeros_like(x)

    def triton_like(a):
        return types.SimpleNamespace(base=a, shape=list(a.shape), strides=[16, 1], block_shape=[16, 16])

    copy_through_helper[(3,)](triton_like(x), triton_like(y), BM=16, BN=16)
    np.testing.assert_array_equal(y, x)


def test_specialization_follows_shape_and_block():
    """New shapes reuse the kernel (while each dimension's divisibility by 16 stays, as for integer
    arguments); a new block shape, or a stride that is no longer a multiple of 16, compiles another."""
    rng = np.random.default_rng(5)
    scale_blocks.cache.clear()
    for rows, cols in ((32, 32), (48, 64), (80, 32)):
        x = rng.standard_normal((rows, cols)).astype(np.float32)
        y = np.zeros_like(x)
        scale_blocks[(tilec.cdiv(rows, 16), tilec.cdiv(cols, 32))](
            D(x, [16, 32]), D(y, [16, 32]), 3.0, BM=16, BN=32
        )
        np.testing.assert_array_equal(y, x * 3)
    assert len(scale_blocks.cache) == 1
    x = rng.standard_normal((32, 32)).astype(np.float32)
    y = np.zeros_like(x)
    scale_blocks[(2, 2)](D(x, [16, 16]), D(y, [16, 16]), 3.0, BM=16, BN=16)
    _, x = _padded(rng, 32, 32, pad=4)  # row stride 36: not a multiple of 16 elements
    y = np.zeros((32, 32), np.float32)
    scale_blocks[(2, 1)](D(x, [16, 32]), D(y, [16, 32]), 3.0, BM=16, BN=32)
    np.testing.assert_array_equal(y, x * 3)
    assert len(scale_blocks.cache) == 3


def test_repeated_launches_still_check_descriptors(target):
    """A launch like an earlier one takes the fast path, which still refuses a stride that is not a
    multiple of 16 bytes (here 50 fp32 after 52: both not multiples of 16 elements, so the argument
    keys alike) and tells a descriptor whose offsets need 64 bits from one whose do not."""
    rng = np.random.default_rng(6)
    whole = rng.standard_normal((32, 52)).astype(np.float32)
    y = np.zeros((32, 52), np.float32)
    scale_blocks[(2, 1)](D(whole[:, :32], [16, 32]), D(y[:, :32], [16, 32]), 1.0, BM=16, BN=32)
    np.testing.assert_array_equal(y[:, :32], whole[:, :32])
    narrow = rng.standard_normal((32, 50)).astype(np.float32)
    bad = types.SimpleNamespace(base=narrow, shape=[32, 32], strides=[50, 1], block_shape=[16, 32])
    with pytest.raises(ValueError, match="multiple of 16 bytes"):
        scale_blocks[(2, 1)](bad, D(y[:, :32], [16, 32]), 1.0, BM=16, BN=32)


def test_repeated_launches_read_each_launchs_descriptors(target):
    """The fast path takes a descriptor's parts (base, shape, strides) from the launch's own
    arguments, positional or not: new arrays of one geometry, launched again and again."""
    rng = np.random.default_rng(7)
    for launch in range(4):
        x = rng.standard_normal((32, 32)).astype(np.float32)
        y = np.zeros_like(x)
        if launch % 2:
            scale_blocks[(2, 2)](src=D(x, [16, 16]), dst=D(y, [16, 16]), factor=float(launch), BM=16, BN=16)
        else:
            scale_blocks[(2, 2)](D(x, [16, 16]), D(y, [16, 16]), float(launch), BM=16, BN=16)
        np.testing.assert_array_equal(y, x * float(launch))


@pytest.mark.parametrize(
    "make,message",
    [
        (lambda x: tilec.TensorDescriptor(x, [8, 8], [8, 2], [8, 8]), "the last stride must be 1"),
        (lambda x: tilec.TensorDescriptor(x[:, :7], [8, 7], [7, 1], [8, 8]), "multiple of 16 bytes"),
        (lambda x: tilec.TensorDescriptor(x, [8, 8], [8, 1], [8, 6]), "power of two"),
        (lambda x: tilec.TensorDescriptor(x, [8, 8], [8, 1], [8]), "one entry per dimension"),
        (lambda x: tilec.TensorDescriptor(x, [8, 8], [8, 1], [8, 8], padding="inf"), "padding"),
        (lambda x: tilec.TensorDescriptor([1, 2], [8, 8], [8, 1], [8, 8]), "not an array"),
    ],
)
def test_bad_descriptors_are_named(make, message):
    x = np.zeros((8, 8), np.float32)
    with pytest.raises((TypeError, ValueError), match=message) as info:
        scale_blocks[(1, 1)](make(x), D(x, [8, 8]), 1.0, BM=8, BN=8)
    assert "test_tensor_descriptors.py" in str(info.value) and "'src'" in str(info.value)


@tilec.jit
def wrong_offsets(src, dst, B: tl.constexpr):
    dst.store([0, 0], src.load([0]))


@tilec.jit
def wrong_store_shape(src, dst, B: tl.constexpr):
    dst.store([0, 0], tl.zeros((B, 2 * B), dtype=tl.float32))


@tilec.jit
def bad_block_shape(ptr, B: tl.constexpr):
    desc = tl.make_tensor_descriptor(ptr, [B, B], [B, 1], [B, 3])
    desc.store([0, 0], 1.0)


@pytest.mark.parametrize(
    "kernel,message",
    [
        (wrong_offsets, "1 offsets for a descriptor of rank 2"),
        (wrong_store_shape, r"shape \[8, 16\] is not the block shape \[8, 8\]"),
        (bad_block_shape, "not a power of two"),
    ],
)
def test_kernel_misuse_names_the_line(kernel, message):
    x = np.zeros((8, 8), np.float32)
    args = [x] if kernel is bad_block_shape else [D(x, [8, 8]), D(x, [8, 8])]
    with pytest.raises(tilec.CompilationError, match=message) as info:
        kernel[(1,)](*args, B=8)
    assert "test_tensor_descriptors.py" in str(info.value)


def _ptxas(ptx: str, tmp_path) -> None:
    if shutil.which("ptxas"):
        path = tmp_path / "k.ptx"
        path.write_text(ptx)
        subprocess.run(["ptxas", "-arch=sm_90a", str(path), "-o", str(tmp_path / "k.cubin")], check=True)


def _descriptor_matmul_sm90(**options):
    a, b = np.zeros((512, 512), np.float16), np.zeros((512, 512), np.float16)
    c = np.zeros((512, 512), np.float16)
    return matmul_descriptors.warmup(
        D(a, [128, 64]), D(b, [64, 128]), c, 512, BM=128, BN=128, BK=64, target="sm_90a", **options
    )


def test_descriptor_matmul_copies_by_tma(tmp_path):
    """On sm_90a the operand tiles of a descriptor are copied by the tensor copy engine: one thread
    issues them, counted on one mbarrier per ring buffer; A (rows in their logical order, as the
    accumulator layout follows the instruction's) and B each go in one box per 128-byte band; the
    two tensor maps are 128-byte grid-constant parameters the launcher encodes."""
    kernel = _descriptor_matmul_sm90(num_stages=4)
    ptx = kernel.asm["ptx"]
    assert "wgmma.mma_async" in ptx and "cp.async.cg" not in ptx
    copies = re.findall(r"cp\.async\.bulk\.tensor\.(\d)d\.shared::cluster\.global\.tile\.mbarrier", ptx)
    # prologue (3 iterations) and loop: A one band of 64 columns, B two
    assert copies == ["2"] * 4 * (1 + 2)
    assert len(re.findall(r"mbarrier\.init\.shared::cta\.b64", ptx)) == 5  # depth + 2 buffers
    assert "mbarrier.try_wait.parity" in ptx and "mbarrier.arrive.expect_tx" in ptx
    assert len(re.findall(r"\.param \.align 64 \.b8 matmul_descriptors_param_\d+\[128\]", ptx)) == 2
    maps = kernel.metadata["tensor_maps"]
    assert [(m["descriptor"], m["band"], m["box_rows"]) for m in maps] == [
        ("a_desc", 64, 128),
        ("b_desc", 64, 64),
    ]
    _ptxas(ptx, tmp_path)


def test_tma_takes_rows_cp_async_cannot_prove_wide():
    """Row strides of 136 fp16 values (multiples of 16 bytes, as descriptors require, but not of
    16 elements, so not specialized) leave cp.async no provable 16-byte copies; tensor copies need
    none: the tiles still stream."""
    a, b = np.zeros((300, 136), np.float16), np.zeros((136, 200), np.float16)
    c = np.zeros((300, 200), np.float16)
    kernel = matmul_descriptors.warmup(
        D(a, [128, 64]), D(b, [64, 128]), c, 200, BM=128, BN=128, BK=64, target="sm_90a", num_stages=3
    )
    assert "cp.async.bulk.tensor" in kernel.asm["ptx"] and len(kernel.metadata["tensor_maps"]) == 2


@tilec.jit
def matmul_made_descriptors(
    a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_bk, stride_cm,
    BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, PADDING: tl.constexpr = "zero",
):  # fmt: skip
    """Triton's in-kernel descriptors (tutorial 09's device-side TMA matmul)."""
    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [stride_am, 1], [BM, BK], padding_option=PADDING)
    b_desc = tl.make_tensor_descriptor(b_ptr, [K, N], [stride_bk, 1], [BK, BN])
    m0, n0 = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BK)):
        acc = tl.dot(a_desc.load([m0, k * BK]), b_desc.load([k * BK, n0]), acc)
    c = tl.make_tensor_descriptor(c_ptr, [M, N], [stride_cm, 1], [BM, BN])
    c.store([m0, n0], acc.to(c.dtype))


def _made_descriptors_sm90(signature="*fp16,*fp16,*fp16,i32,i32,i32,i32:16,i32:16,i32:16", padding="zero"):
    return tilec.compile(
        matmul_made_descriptors, signature=signature,
        constexprs={"BM": 128, "BN": 128, "BK": 64, "PADDING": padding}, target="sm_90a", num_stages=4,
    )  # fmt: skip


def test_descriptors_made_of_arguments_copy_by_tma(tmp_path):
    """A descriptor made in the kernel of the kernel's own arguments (a pointer known 16-byte
    aligned, rows contiguous, a row stride divisible by 16, shapes that are arguments) gets tensor
    maps as a descriptor argument does: the launcher encodes them from those arguments."""
    kernel = _made_descriptors_sm90()
    ptx = kernel.asm["ptx"]
    assert "cp.async.cg" not in ptx and ptx.count("cp.async.bulk.tensor.2d") == 4 * (1 + 2)
    names = kernel.arg_names
    parts = [
        [names[m["base"]], *(names[m[f][1]] for f in ("rows", "cols", "row_stride"))]
        for m in kernel.metadata["tensor_maps"]
    ]
    assert parts == [["a_ptr", "M", "K", "stride_am"], ["b_ptr", "K", "N", "stride_bk"]]
    _ptxas(ptx, tmp_path)


@pytest.mark.parametrize(
    "signature,padding",
    [
        (
            "*fp16,*fp16,*fp16,i32,i32,i32,i32,i32:16,i32:16",
            "zero",
        ),  # A's row stride: no multiple of 16 known
        ("*fp16,*fp16,*fp16,i32,i32,i32,i32:16,i32:16,i32:16", "nan"),  # tensor copies fill zeros only
    ],
    ids=["stride", "nan-padding"],
)
def test_made_descriptors_without_a_sure_tensor_map_keep_address_arithmetic(signature, padding):
    """A's tiles stay with cp.async or registers where a tensor map could fail to encode or would
    read other values; B's still go by tensor copies."""
    kernel = _made_descriptors_sm90(signature, padding)
    maps = kernel.metadata.get("tensor_maps", [])
    assert [kernel.arg_names[m["base"]] for m in maps] in ([], ["b_ptr"])


def test_nan_padded_descriptor_arguments_keep_address_arithmetic():
    """Padding "nan" on a descriptor argument: its tiles do not go by tensor copies, which fill
    zeros past the edges (nor by cp.async, which fills zeros too: they go through registers)."""
    a, b = np.zeros((512, 512), np.float16), np.zeros((512, 512), np.float16)
    c = np.zeros((512, 512), np.float16)
    kernel = matmul_descriptors.warmup(
        D(a, [128, 64], padding="nan"),
        D(b, [64, 128]),
        c,
        512,
        BM=128,
        BN=128,
        BK=64,
        target="sm_90a",
        num_stages=3,
    )
    assert "a_desc" not in [m["descriptor"] for m in kernel.metadata.get("tensor_maps", [])]


def test_without_tma_descriptor_tiles_stream_by_cp_async(monkeypatch, tmp_path):
    """TILEC_NO_TMA=1: the same tiles go by cp.async (the strides' 16-byte alignment is known, so
    16-byte copies), and the kernel takes no tensor maps."""
    monkeypatch.setenv("TILEC_NO_TMA", "1")
    matmul_descriptors.cache.clear()
    kernel = _descriptor_matmul_sm90(num_stages=4)
    matmul_descriptors.cache.clear()
    ptx = kernel.asm["ptx"]
    assert "cp.async.bulk" not in ptx and "tensor_maps" not in kernel.metadata
    assert len(re.findall(r"cp\.async\.cg\.shared\.global \[%r\d+\], \[%rd\d+\], 16", ptx)) == 64
    assert len(re.findall(r"st\.global\.v4", ptx)) == 16
    _ptxas(ptx, tmp_path)


def test_tensor_maps_are_encoded_from_the_arguments(monkeypatch):
    """What the launcher asks cuda-python's cuTensorMapEncodeTiled for (replaced here: no driver)."""
    from tilec.targets.nvidia import tensor_maps

    calls = []

    def encode_tiled(data_type, address, dims, strides, box, swizzle):
        calls.append((data_type, len(dims), address, dims, strides, box, swizzle))
        return 0, bytes(128)

    monkeypatch.setattr(tensor_maps, "encode_tiled", encode_tiled)
    common = {"descriptor": "a", "base": 0, "rows": ["arg", 1], "cols": ["arg", 2], "row_stride": ["arg", 3]}
    specs = [
        {**common, "element": "f16", "band": 64, "box_rows": 128, "swizzle": 128},
        {**common, "element": "bf16", "band": 32, "box_rows": 64, "swizzle": 64},
    ]
    import ctypes

    slots = [(ctypes.c_ubyte * 128)() for _ in specs]
    maps = tensor_maps.TensorMaps("k", specs, slots)
    args = [None, 1000, 520, 528]
    maps.fill(lambda i: 0x10000, args)
    maps.fill(lambda i: 0x10000, args)  # the same launch again: encoded once
    assert len(calls) == 2
    # columns innermost; the row stride in bytes; fp16 (6) with 128-byte swizzle (3), bf16 (9) 64-byte (2)
    assert calls[0] == (6, 2, 0x10000, [520, 1000], [1056], [64, 128], 3)
    assert calls[1] == (9, 2, 0x10000, [520, 1000], [1056], [32, 64], 2)


def test_a_tensor_map_that_cannot_be_encoded_names_its_array(monkeypatch):
    """The driver refusing a map (cuTensorMapEncodeTiled's error; replaced here) is a ValueError
    naming the kernel and the array: a descriptor argument, or the pointer argument an array made in
    the kernel starts at, with the values asked for (here: rows made of two arguments)."""
    from tilec.targets.nvidia import tensor_maps

    monkeypatch.setattr(tensor_maps, "encode_tiled", lambda *a: (1, None))
    made = "array base=a_ptr rows=mul.i32(heads,seq_len) cols=K row_stride=stride_am"
    rows = {"op": "mul", "bits": 32, "args": [["arg", 1], ["arg", 2]]}
    spec = {"descriptor": made, "base": 0, "rows": rows, "cols": ["arg", 3], "row_stride": ["arg", 4]}
    spec.update({"element": "f16", "band": 64, "box_rows": 128, "swizzle": 128})
    maps = tensor_maps.TensorMaps("attn", [spec], [bytes(128)])
    with pytest.raises(
        ValueError,
        match=r"attn: a tensor map of the array base=a_ptr rows=mul\.i32\(heads,seq_len\) cols=K "
        r"row_stride=stride_am made in the kernel .*shape \[96, 64\], row stride 64",
    ):
        maps.fill(lambda i: 0x10000, [None, 3, 32, 64, 64])


def test_kernel_array_text_round_trips_and_refuses_other_text():
    from tilec.dialects import kernel_arrays as ka

    parts = {
        "base": "t[0]",
        "rows": {"op": "add", "bits": 64, "args": [{"op": "mul", "bits": 32, "args": ["Z", "H"]}, -3]},
        "cols": 64,
        "row_stride": "desc.strides[0]",
    }
    text = ka.format_array(parts)
    assert text == "array base=t[0] rows=add.i64(mul.i32(Z,H),-3) cols=64 row_stride=desc.strides[0]"
    assert ka.parse_array(text) == parts
    walked = "array base=p rows=M cols=mul.i32(64,div.i32(add.i32(K,63),64)) row_stride=K"
    assert ka.format_array(ka.parse_array(walked)) == walked
    for bad in ("a_desc", "array base=p rows=M cols=K", "array base=p rows=mul.i32(M cols=K row_stride=8",
                "array base=p rows=M cols=K row_stride=8 extra=1"):  # fmt: skip
        with pytest.raises(ValueError):
            ka.parse_array(bad)


def test_tensor_map_params_must_be_pointers():
    from mlir import ir

    from tilec.dialects import tile
    from tilec.passes import PassError
    from tilec.targets.nvidia.passes import TensorMapParamsPass

    with tile.make_context():
        module = ir.Module.parse(
            "llvm.func @k(%map: i64) attributes {nvvm.kernel, tilec.tensor_map_params = array<i32: 0>} "
            "{ llvm.return }"
        )
        with pytest.raises(PassError, match="tensor-map parameter 0 is not an !llvm.ptr"):
            TensorMapParamsPass().run(module)


@tilec.jit
def read_far_block(src, out_ptr, row, BN: tl.constexpr):
    tl.store(out_ptr + tl.arange(0, BN), tl.reshape(src.load([row, 0]), (BN,)))


def test_offsets_past_two_gigaelements_use_64_bits(target):
    """A descriptor whose elements span more than 2**31 offsets computes them in 64 bits (here
    strides make a small array look huge: only the rows read exist)."""
    big_stride = 2**28  # row 8 starts 2**31 elements in
    data = np.zeros(16, np.float32)
    data[:] = np.arange(16)
    view = types.SimpleNamespace(base=data, shape=[9, 16], strides=[big_stride, 1], block_shape=[1, 16])
    out = np.zeros(16, np.float32)
    read_far_block[(1,)](view, out, 0, BN=16)
    np.testing.assert_array_equal(out, np.arange(16))
    assert "i64" in read_far_block.cache[next(iter(read_far_block.cache))].asm["tile"]


@tilec.jit
def matmul_bt_descriptors(a_desc, bt_desc, c_ptr, N, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ Bt^T, Bt [N, K] (K contiguous): B reaches the instruction K-major, as fp8 GEMMs take it."""
    m0, n0 = tl.program_id(0) * BM, tl.program_id(1) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, tl.cdiv(a_desc.shape[1], BK)):
        acc = tl.dot(a_desc.load([m0, k * BK]), tl.trans(bt_desc.load([n0, k * BK])), acc)
    rows, cols = m0 + tl.arange(0, BM), n0 + tl.arange(0, BN)
    mask = (rows[:, None] < a_desc.shape[0]) & (cols[None, :] < N)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16), mask=mask)


@tilec.jit
def matmul_a_in_registers(a_ptr, b_desc, c_ptr, N, K: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr,
                          BK: tl.constexpr):  # fmt: skip
    """C = sum over k of A @ B[k]: one A tile, loaded before the loop, goes to every MMA from
    registers; the ring holds B alone."""
    m0, n0 = tl.program_id(0) * BM, tl.program_id(1) * BN
    a = tl.load(a_ptr + (m0 + tl.arange(0, BM))[:, None] * BK + tl.arange(0, BK)[None, :])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K // BK):
        acc = tl.dot(a, b_desc.load([k * BK, n0]), acc)
    rows, cols = m0 + tl.arange(0, BM), n0 + tl.arange(0, BN)
    tl.store(c_ptr + rows[:, None] * N + cols[None, :], acc.to(tl.float16))


def test_k_major_b_and_b_alone_go_by_tma():
    """A B read K-major (tl.trans of a [N, K] tile: one box of BN rows per 128-byte band) and a ring
    that holds B alone (A from registers, the dot accumulating across the loop) are filled by
    tensor copies too."""
    a, bt = np.zeros((512, 512), np.float16), np.zeros((512, 512), np.float16)
    kernel = matmul_bt_descriptors.warmup(
        D(a, [128, 64]), D(bt, [128, 64]), a, 512, BM=128, BN=128, BK=64, target="sm_90a", num_stages=3
    )
    maps = kernel.metadata["tensor_maps"]
    assert [(m["descriptor"], m["box_rows"]) for m in maps] == [("a_desc", 128), ("bt_desc", 128)]
    kernel = matmul_a_in_registers.warmup(
        np.zeros((512, 64), np.float16), D(a, [64, 128]), a, 512, K=512, BM=128, BN=128, BK=64,
        target="sm_90a", num_stages=3,
    )  # fmt: skip
    assert [m["descriptor"] for m in kernel.metadata["tensor_maps"]] == ["b_desc"]


@pytest.mark.gpu
@needs_gpu
def test_k_major_b_and_b_alone_on_gpu():
    import torch

    torch.manual_seed(0)
    M = N = K = 512
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    bt = torch.randn(N, K, device="cuda", dtype=torch.float16)
    c = torch.zeros(M, N, device="cuda", dtype=torch.float16)
    matmul_bt_descriptors[(4, 4)](
        D(a, [128, 64]), D(bt, [128, 64]), c, N, BM=128, BN=128, BK=64, num_stages=3
    )
    torch.testing.assert_close(c.float(), a.float() @ bt.float().T, atol=0.1, rtol=2e-2)
    a64 = torch.randn(M, 64, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    matmul_a_in_registers[(4, 4)](a64, D(b, [64, 128]), c, N, K=K, BM=128, BN=128, BK=64, num_stages=3)
    expected = sum(a64.float() @ b[i : i + 64].float() for i in range(0, K, 64))
    torch.testing.assert_close(c.float(), expected, atol=0.1, rtol=2e-2)


@tilec.jit
def attention_descriptors(q_desc, k_desc, v, out_ptr, seq_len, scale, D: tl.constexpr, BM: tl.constexpr,
                          BN: tl.constexpr, V_POINTER: tl.constexpr = False):  # fmt: skip
    """Flash attention forward with Q, K, V descriptors of [heads * seq_len, D] (rows past a head's
    end belong to the next head: their scores are masked off); V_POINTER: V is read through
    pointers instead (`v` the array)."""
    start_m, row0 = tl.program_id(0) * BM, tl.program_id(1) * seq_len
    q = q_desc.load([row0 + start_m, 0])
    m_i = tl.full((BM,), -float("inf"), tl.float32)
    l_i = tl.zeros((BM,), tl.float32)
    acc = tl.zeros((BM, D), tl.float32)
    for start in range(0, seq_len, BN):
        k = k_desc.load([row0 + start, 0])
        s = tl.where(
            (start + tl.arange(0, BN))[None, :] < seq_len, tl.dot(q, tl.trans(k)) * scale, -float("inf")
        )
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        if V_POINTER:
            rows = row0 + start + tl.arange(0, BN)
            v_tile = tl.load(v + rows[:, None] * D + tl.arange(0, D)[None, :])
        else:
            v_tile = v.load([row0 + start, 0])
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.float16), v_tile)
        m_i = m_new
    offs_m = start_m + tl.arange(0, BM)
    out = out_ptr + (row0 + offs_m[:, None]) * D + tl.arange(0, D)[None, :]
    tl.store(out, (acc / l_i[:, None]).to(tl.float16), mask=offs_m[:, None] < seq_len)


def _attention_inputs(heads, seq, d, bm, bn):
    q, k, v = (np.zeros((heads * seq, d), np.float16) for _ in range(3))
    return D(q, [bm, d]), D(k, [bn, d]), D(v, [bn, d])


@pytest.mark.parametrize("bn", [64, 128])
def test_attention_k_and_v_stream_by_tma_with_one_wait(bn, tmp_path):
    """Attention's dots wait for their MMAs in the same iteration (rings of depth + 1 buffers, B
    alone). Read through descriptors, K and V go by tensor copies, and both rings are waited for at
    the top of the body (cp_async._same_iteration_tma): one barrier per iteration, the two tiles
    `depth` iterations ahead issued after it; no cp.async."""
    kernel = attention_descriptors.warmup(
        *_attention_inputs(2, 256, 64, 128, bn), np.zeros((512, 64), np.float16), 256, 0.125, D=64, BM=128,
        BN=bn, target="sm_90a", num_warps=4, num_stages=3,
    )  # fmt: skip
    ptx = kernel.asm["ptx"]
    assert [m["descriptor"] for m in kernel.metadata["tensor_maps"]] == ["k_desc", "v"]
    assert "cp.async.cg" not in ptx and "wgmma.mma_async" in ptx
    # prologue: 2 iterations x (K, V); loop: K and V
    assert ptx.count("cp.async.bulk.tensor") == 6
    waits = [m.start() for m in re.finditer("mbarrier.try_wait", ptx)]
    between = ptx[waits[0] : waits[1]]  # one after the other, no MMA or barrier between them
    assert len(waits) == 2 and "wgmma" not in between and "bar.sync" not in between
    _ptxas(ptx, tmp_path)


@tilec.jit
def attention_made_descriptors(q_ptr, k_ptr, v_ptr, out_ptr, heads, seq_len, scale, D: tl.constexpr,
                               BM: tl.constexpr, BN: tl.constexpr):  # fmt: skip
    """attention_descriptors with the descriptors made in the kernel, as Triton's attention
    tutorial does: one [heads * seq_len, D] array each (rows computed in the kernel)."""
    rows = heads * seq_len
    q_desc = tl.make_tensor_descriptor(q_ptr, [rows, D], [D, 1], [BM, D])
    k_desc = tl.make_tensor_descriptor(k_ptr, [rows, D], [D, 1], [BN, D])
    v_desc = tl.make_tensor_descriptor(v_ptr, [rows, D], [D, 1], [BN, D])
    attention_descriptors(q_desc, k_desc, v_desc, out_ptr, seq_len, scale, D, BM, BN)  # its body, inlined


def test_attention_with_made_descriptors_streams_by_tma():
    """Descriptors made in the kernel whose row count is computed there (heads * seq_len): the
    launcher computes it the same way (32-bit, wrapping), so K and V still go by tensor copies."""
    kernel = attention_made_descriptors.warmup(
        *(np.zeros((512, 64), np.float16) for _ in range(4)), 2, 256, 0.125, D=64, BM=128, BN=64,
        target="sm_90a", num_warps=4, num_stages=3,
    )  # fmt: skip
    maps = kernel.metadata["tensor_maps"]
    names = kernel.arg_names
    assert [names[m["base"]] for m in maps] == ["k_ptr", "v_ptr"]
    rows = maps[0]["rows"]
    assert (
        rows["op"] == "mul"
        and rows["bits"] == 32
        and [names[a[1]] for a in rows["args"]] == ["heads", "seq_len"]
    )
    assert "cp.async.cg" not in kernel.asm["ptx"] and kernel.asm["ptx"].count("cp.async.bulk.tensor") == 6


def test_attention_with_made_descriptors_on_host_targets(target):
    """The same kernel on the CPU target and the interpreter: rows past a head's end belong to the
    next head (their scores masked off), the last head's read as zero."""
    heads, seq, d = 2, 40, 16
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((heads * seq, d)).astype(np.float16) for _ in range(3))
    out = np.full((heads * seq, d), np.nan, np.float16)
    attention_made_descriptors[(tilec.cdiv(seq, 16), heads)](
        q, k, v, out, heads, seq, d**-0.5, D=d, BM=16, BN=16
    )
    q64, k64, v64 = (x.astype(np.float64).reshape(heads, seq, d) for x in (q, k, v))
    s = q64 @ k64.transpose(0, 2, 1) * d**-0.5
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    expected = ((p / p.sum(axis=-1, keepdims=True)) @ v64).reshape(heads * seq, d)
    np.testing.assert_allclose(out.astype(np.float64), expected, atol=2e-2)


def test_tensor_map_parts_wrap_as_the_kernel_computes():
    from tilec.targets.nvidia.tensor_maps import _value

    product = {"op": "mul", "bits": 32, "args": [["arg", 0], ["const", 3]]}
    assert _value(product, [5]) == 15
    assert _value(product, [2**30]) == -(2**30)  # 3 * 2**30 wraps in 32 bits, as in the kernel
    assert _value({"op": "add", "bits": 64, "args": [product, ["arg", 1]]}, [5, 2**40]) == 2**40 + 15
    quotient = {"op": "div", "bits": 32, "args": [["arg", 0], ["const", 64]]}  # arith.divsi: toward zero
    assert [_value(quotient, [k]) for k in (127, 128, -1, -65)] == [1, 2, 0, -1]
    with pytest.raises(ValueError, match="divides by zero"):
        _value({"op": "div", "bits": 32, "args": [["const", 1], ["arg", 0]]}, [0])


def test_attention_mixing_pointers_and_descriptors_streams_by_cp_async():
    """K through a descriptor, V through pointers: V's ring is cp.async, so K's goes by cp.async too
    (a tensor-copy wait of its own in the body is what went wrong on the H200) and their waits
    merge as in the pointer kernel."""
    kernel = attention_descriptors.warmup(
        D(np.zeros((512, 64), np.float16), [128, 64]), D(np.zeros((512, 64), np.float16), [64, 64]),
        np.zeros((512, 64), np.float16), np.zeros((512, 64), np.float16), 256, 0.125, D=64, BM=128, BN=64,
        V_POINTER=True, target="sm_90a", num_warps=4, num_stages=3,
    )  # fmt: skip
    ptx = kernel.asm["ptx"]
    assert "tensor_maps" not in kernel.metadata and "cp.async.bulk" not in ptx
    assert "cp.async.cg.shared.global" in ptx and ptx.count("cp.async.wait_group") >= 1


def _attention_on_gpu(heads, seq, d):
    """(q, k, v) of [heads * seq, d] on the GPU, a NaN-filled output, and torch's attention of them."""
    import torch

    torch.manual_seed(0)
    q, k, v = (torch.randn(heads * seq, d, device="cuda", dtype=torch.float16) for _ in range(3))
    out = torch.full((heads * seq, d), float("nan"), device="cuda", dtype=torch.float16)
    expected = torch.nn.functional.scaled_dot_product_attention(
        *(x.view(heads, seq, d)[None] for x in (q, k, v))
    )[0].reshape(heads * seq, d)
    return q, k, v, out, expected


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize(
    "config", [(128, 64, 4, 3), (128, 64, 8, 3), (64, 64, 4, 2), (128, 128, 8, 3)], ids=str
)
@pytest.mark.parametrize("seq", [1000, 1024])
def test_attention_descriptors_on_gpu(config, seq):
    import torch

    bm, bn, warps, stages = config
    heads, d = 3, 64
    q, k, v, out, expected = _attention_on_gpu(heads, seq, d)
    attention_descriptors[(tilec.cdiv(seq, bm), heads)](
        D(q, [bm, d]), D(k, [bn, d]), D(v, [bn, d]), out, seq, d**-0.5, D=d, BM=bm, BN=bn, num_warps=warps,
        num_stages=stages,
    )  # fmt: skip
    torch.cuda.synchronize()
    torch.testing.assert_close(out, expected, atol=2e-2, rtol=2e-2)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("config", [(128, 64, 4, 3), (64, 64, 4, 2)], ids=str)
@pytest.mark.parametrize("seq", [1024, 1000])
def test_attention_made_descriptors_on_gpu(config, seq):
    import torch

    bm, bn, warps, stages = config
    heads, d = 3, 64
    q, k, v, out, expected = _attention_on_gpu(heads, seq, d)
    args = (q, k, v, out, heads, seq, d**-0.5)
    options = {"D": d, "BM": bm, "BN": bn, "num_warps": warps, "num_stages": stages}
    attention_made_descriptors[(tilec.cdiv(seq, bm), heads)](*args, **options)
    torch.cuda.synchronize()
    assert len(attention_made_descriptors.warmup(*args, **options).metadata["tensor_maps"]) == 2
    torch.testing.assert_close(out, expected, atol=2e-2, rtol=2e-2)


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("tma", [True, False], ids=["tma", "cp_async"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("config", [(128, 128, 4), (128, 256, 8), (64, 64, 4)], ids=str)
@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (300, 200, 136), (1000, 776, 520)])
def test_descriptor_matmul_on_gpu(dtype, config, M, N, K, tma, monkeypatch):
    """On the H200 both ways of copying the tiles: tensor copies (A gathered in whole 64-row
    blocks, 8-row boxes for the tile past them; also where the row strides are multiples of 16
    bytes but not of 16 elements, too few for cp.async's 16-byte copies to be proven) and cp.async."""
    import torch

    if not tma:
        monkeypatch.setenv("TILEC_NO_TMA", "1")
    torch.manual_seed(0)
    t = getattr(torch, dtype)
    a = torch.randn(M, K, device="cuda", dtype=t)
    b = torch.randn(K, N, device="cuda", dtype=t)
    c = torch.full((M, N + 8), float("nan"), device="cuda", dtype=t)[:, :N]
    bm, bn, warps = config
    bk = 32 if dtype == "float32" else 64
    grid = (tilec.cdiv(M, bm), tilec.cdiv(N, bn))
    args = (D(a, [bm, bk]), D(b, [bk, bn]), c, c.stride(0))
    options = {"BM": bm, "BN": bn, "BK": bk, "num_warps": warps, "num_stages": 3}
    matmul_descriptors[grid](*args, **options)
    torch.cuda.synchronize()
    kernel = matmul_descriptors.warmup(*args, **options)  # the kernel that ran (compiled per TILEC_NO_TMA)
    # fp32 goes transposed (wgmma_swapped.py), its row-major B by tensor copies into swizzled atoms
    assert ("tensor_maps" in kernel.metadata) == tma
    expected = (a.double() @ b.double()).to(t)
    # tf32 keeps 10 mantissa bits of each input; 16-bit results round to 8 (bf16) or 11 bits
    atol = 0.15 if dtype == "float32" else 1e-1
    torch.testing.assert_close(c.float(), expected.float(), rtol=2e-2, atol=atol)
    assert torch.isnan(c.as_strided((M, 8), (N + 8, 1), N)).all()  # padding past N untouched


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("tma", [True, False], ids=["tma", "cp_async"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (1000, 784, 528), (300, 200, 136)])
def test_made_descriptor_matmul_on_gpu(dtype, M, N, K, tma, monkeypatch):
    """Descriptors made in the kernel of its arguments, on the H200: by tensor copies where the row
    strides are divisible by 16 (ragged M, N and K), by cp.async or registers otherwise or with
    TILEC_NO_TMA=1."""
    import torch

    if not tma:
        monkeypatch.setenv("TILEC_NO_TMA", "1")
    torch.manual_seed(0)
    t = getattr(torch, dtype)
    a, b = torch.randn(M, K, device="cuda", dtype=t), torch.randn(K, N, device="cuda", dtype=t)
    c = torch.full((M, N + 8), float("nan"), device="cuda", dtype=t)[:, :N]
    args = (a, b, c, M, N, K, a.stride(0), b.stride(0), c.stride(0))
    options = {"BM": 128, "BN": 128, "BK": 64, "num_warps": 4, "num_stages": 3}
    matmul_made_descriptors[(tilec.cdiv(M, 128), tilec.cdiv(N, 128))](*args, **options)
    torch.cuda.synchronize()
    kernel = matmul_made_descriptors.warmup(*args, **options)
    assert ("tensor_maps" in kernel.metadata) == (tma and K % 16 == N % 16 == 0)
    expected = (a.double() @ b.double()).to(t)
    torch.testing.assert_close(c.float(), expected.float(), rtol=2e-2, atol=1e-1)
    assert torch.isnan(c.as_strided((M, 8), (N + 8, 1), N)).all()


@tilec.jit
def descriptor_fields(out_ptr, a_ptr, M, N, M_BLOCK: tl.constexpr, N_BLOCK: tl.constexpr):
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[M_BLOCK, N_BLOCK])
    assert desc.block_shape == [M_BLOCK, N_BLOCK]  # a list, as Triton's
    tl.static_assert(desc.block_shape[1] == N_BLOCK)
    block = desc.load([M_BLOCK, 2 * N_BLOCK])
    tl.store(out_ptr + tl.arange(0, M_BLOCK)[:, None] * N_BLOCK + tl.arange(0, N_BLOCK)[None, :], block)


def test_descriptor_block_shape_compares_with_lists(target):
    a = np.arange(6 * 64, dtype=np.float32).reshape(6, 64)
    out = np.zeros((2, 16), np.float32)
    descriptor_fields[(1,)](out, a, 6, 64, 2, 16)
    np.testing.assert_array_equal(out, a[2:4, 32:48])


@tilec.jit
def descriptors_remade_in_loops(a_ptr, M, N, MBLOCK: tl.constexpr, NBLOCK: tl.constexpr):
    moffset = MBLOCK * tl.program_id(0)
    desc = tl.make_tensor_descriptor(a_ptr, shape=[M, N], strides=[N, 1], block_shape=[MBLOCK, NBLOCK])
    for i in range(0, N, NBLOCK):  # carried through the loop, made again in a run-time if
        assert isinstance(desc, tl.tensor_descriptor)
        if i % (3 * NBLOCK) == 0:
            desc = tl.make_tensor_descriptor(
                a_ptr, shape=[M, N], strides=[N, 1], block_shape=[MBLOCK, NBLOCK]
            )
        desc.store([moffset, i], desc.load([moffset, i]) + 10)
    n = 0
    while n < N:
        if n % (3 * NBLOCK) == 0:
            desc = tl.make_tensor_descriptor(
                a_ptr + 0, shape=[M, N], strides=[N, 1], block_shape=[MBLOCK, NBLOCK]
            )
        desc.store([moffset, n], desc.load([moffset, n]) + 5)
        n += NBLOCK


def test_descriptors_carried_through_loops_and_branches(target):
    a = np.random.default_rng(0).standard_normal((64, 512)).astype(np.float32)
    expected = a + 15
    descriptors_remade_in_loops[(8,)](a, 64, 512, 8, 128)
    np.testing.assert_allclose(a, expected, rtol=1e-6)


@tilec.jit
def gather_then_scatter(
    out_ptr, in_ptr, idx_ptr, y, X: tl.constexpr, Y: tl.constexpr, BX: tl.constexpr, BY: tl.constexpr
):
    rows = tl.load(idx_ptr + tl.arange(0, BX))
    src = tl.make_tensor_descriptor(in_ptr, [X, Y], [Y, 1], [1, BY])
    dst = tl.make_tensor_descriptor(out_ptr, [X, Y], [Y, 1], [1, BY])
    dst.scatter(src.gather(rows, y) * 2, rows, y)


@tilec.jit
def descriptor_reductions(out_ptr, in_ptr, M, N, MB: tl.constexpr, NB: tl.constexpr):
    desc = tl.make_tensor_descriptor(out_ptr, [M, N], [N, 1], [MB, NB])
    m, n = tl.program_id(0) * MB, tl.program_id(1) * NB
    v = tl.load(in_ptr + (m + tl.arange(0, MB))[:, None] * N + (n + tl.arange(0, NB))[None, :])
    desc.atomic_add([m, n], v)
    desc.atomic_max([m, n], v * 3)
    desc.atomic_xor([m, n], 1)


def test_descriptor_gather_scatter_and_reductions(target):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 100, (64, 128)).astype(np.int32)
    rows = rng.permutation(64)[:32].astype(np.int32)
    out = np.zeros((64, 128), np.int32)
    gather_then_scatter[(1,)](out, x, rows, 48, 64, 128, 32, 64)
    expected = np.zeros_like(out)
    expected[rows, 48:112] = 2 * x[rows, 48:112]
    np.testing.assert_array_equal(out, expected)
    acc = rng.integers(0, 100, (64, 64)).astype(np.int32)
    v = rng.integers(0, 100, (64, 64)).astype(np.int32)
    ref = np.maximum(acc + v, 3 * v) ^ 1
    descriptor_reductions[(4, 2)](acc, v, 64, 64, 16, 32)
    np.testing.assert_array_equal(acc, ref)
