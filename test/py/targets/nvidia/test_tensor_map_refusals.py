"""Tensor maps the driver refuses for a launch's arguments (a negative row stride: cuTensorMapEncodeTiled
takes strides in [0, 2^40) bytes). A map of an array the kernel makes of its own arguments (pointer
loads raised by tile-pointer-tensor-copies, block pointers, tl.make_tensor_descriptor) only speeds
up loads that read the same through their pointers: such a launch runs the kernel compiled without
tensor copies. A descriptor argument's map is the user's: its refusal is an error naming it."""

from __future__ import annotations

import pytest
from gpu_launch import needs_gpu
from test_block_pointers import matmul_block_ptrs
from test_pointer_tensor_copies import matmul_wrapped

import tilec
from tilec.targets.nvidia import tensor_maps
from tilec.targets.nvidia.compiler import without_tensor_copies

ARRAY_SPEC = {
    "descriptor": "array base=a_ptr rows=M cols=K row_stride=stride_am",
    "base": 0, "rows": ["arg", 1], "cols": ["arg", 2], "row_stride": ["arg", 3],
    "element": "f16", "band": 64, "box_rows": 64, "swizzle": 128,
}  # fmt: skip


def _fill(spec: dict, args: list):
    maps = tensor_maps.TensorMaps("kernel", [spec], [bytearray(tensor_maps.MAP_BYTES)])
    maps.fill(lambda i: 0x10000, args)


@pytest.mark.parametrize("stride", [-64, -16, 2**40])
def test_strides_a_map_cannot_hold_are_refused_before_the_driver(stride, monkeypatch):
    """cuda-python would not even pass a negative stride to the driver (OverflowError from its
    unsigned types): the map is refused first, as one of an array the kernel makes."""
    monkeypatch.setattr(tensor_maps, "encode_tiled", lambda *a: pytest.fail("the driver was asked"))
    with pytest.raises(tensor_maps.TensorMapRefused, match=r"row stride .* outside what a tensor map") as e:
        _fill(ARRAY_SPEC, [None, 128, 64, stride])
    assert e.value.made_in_kernel


def test_a_descriptor_arguments_refusal_is_the_users(monkeypatch):
    monkeypatch.setattr(tensor_maps, "encode_tiled", lambda *a: (1, None))  # CUDA_ERROR_INVALID_VALUE
    spec = {**ARRAY_SPEC, "descriptor": "a_desc"}
    with pytest.raises(tensor_maps.TensorMapRefused, match="descriptor 'a_desc'.*CUresult 1") as e:
        _fill(spec, [None, 128, 64, 64])
    assert not e.value.made_in_kernel


WRAPPED = {"BM": 128, "BN": 128, "BK": 64, "GROUP_M": 8, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1}


@pytest.mark.parametrize(
    "kernel, signature, constexprs",
    [
        (matmul_wrapped, "*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,i32:16,i32:16", WRAPPED),
        (matmul_block_ptrs, "*fp16:16,*fp16:16,*fp16:16,i32,i32,i32,i32:16,i32:16,i32:16",
         {"BM": 128, "BN": 128, "BK": 64, "stride_ak": 1, "stride_bn": 1, "stride_cn": 1}),
    ],
    ids=["pointers", "block-pointers"],
)  # fmt: skip
def test_the_kernel_without_tensor_copies(kernel, signature, constexprs, monkeypatch):
    """What a refused launch runs: the same kernel and arguments, compiled again from its tile IR
    with no tensor maps: the PTX TILEC_NO_TMA=1 gives (K not known a multiple of 8, the masked
    tiles go through registers)."""
    compiled = tilec.compile(kernel, signature=signature, constexprs=constexprs, target="sm_90a", num_warps=8)
    assert compiled.metadata["tensor_maps"]
    plain = without_tensor_copies(compiled)
    assert "tensor_maps" not in plain.metadata
    assert (plain.name, plain.arg_names, plain.arg_types) == (
        compiled.name,
        compiled.arg_names,
        compiled.arg_types,
    )
    ptx = plain.asm["ptx"]
    assert "cp.async.bulk.tensor" not in ptx and "wgmma.mma_async" in ptx
    monkeypatch.setenv("TILEC_NO_TMA", "1")
    reference = tilec.compile(
        kernel, signature=signature, constexprs=constexprs, target="sm_90a", num_warps=8
    )
    assert ptx == reference.asm["ptx"]
    assert compiled.metadata["tensor_maps"]  # the kernel itself is unchanged


@pytest.mark.gpu
@needs_gpu
@pytest.mark.parametrize("kernel", ["pointers", "block-pointers"])
def test_negative_row_stride_matmul_on_gpu(kernel):
    """A read bottom-up (its last row first, row stride -K): the raised kernel's map is refused, the
    launch runs the kernel without tensor copies, and the product is A flipped times B."""
    import torch

    M, N, K = 384, 256, 192
    torch.manual_seed(0)
    a = torch.randn(M, K, device="cuda", dtype=torch.float16)
    b = torch.randn(K, N, device="cuda", dtype=torch.float16)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.float16)
    last_row = a[M - 1 :]  # its data pointer: A's last row, 16-byte aligned (K * 2 bytes a row)
    if kernel == "pointers":
        grid = (tilec.cdiv(M, 128) * tilec.cdiv(N, 128),)
        matmul_wrapped[grid](last_row, b, c, M, N, K, -K, 1, N, 1, N, 1, BM=128, BN=128, BK=64, GROUP_M=8,
                             num_warps=8)  # fmt: skip
    else:
        grid = (tilec.cdiv(M, 128), tilec.cdiv(N, 128))
        matmul_block_ptrs[grid](
            last_row, b, c, M, N, K, -K, 1, N, 1, N, 1, BM=128, BN=128, BK=64, num_warps=8
        )
    expected = a.flip(0).double() @ b.double()
    torch.testing.assert_close(c.double(), expected, rtol=2e-2, atol=5e-2)
