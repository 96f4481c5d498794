"""Debug builds on NVIDIA GPUs check every access against the tensors passed (tile-check-bounds), as
the CPU target's do: an access outside them is a device-side assertion naming the line."""

import re

import pytest
from gpu_launch import device_assertion_output, needs_gpu

import tilec
import tilec.language as tl


@tilec.jit
def doubled(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


SIGNATURE = {"x_ptr": "*fp32", "y_ptr": "*fp32", "n": "i32"}


def _params(ptx: str) -> list[str]:
    """The types of the kernel's parameters in its PTX."""
    return re.findall(r"\.param \.(\w+)[^\n\[]* doubled_param_\d+", ptx)


@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_debug_builds_take_the_ranges_and_assert(arch):
    checked = tilec.compile(doubled, SIGNATURE, {"BLOCK": 128}, target=arch, debug=True)
    assert checked.metadata["bounds_checked"]
    assert _params(checked.asm["ptx"]) == ["u64", "u64", "u32", "u64", "u64", "u64", "u64"]
    assert "out-of-bounds load of 4 byte(s)" in checked.asm["gpu"]
    assert "out-of-bounds store of 4 byte(s)" in checked.asm["gpu"]
    assert "__assertfail" in checked.asm["ptx"]
    plain = tilec.compile(doubled, SIGNATURE, {"BLOCK": 128}, target=arch, debug=False)
    assert "bounds_checked" not in plain.metadata
    assert _params(plain.asm["ptx"]) == ["u64", "u64", "u32"]


@pytest.mark.parametrize("layout", ["row", "column"])
def test_debug_builds_of_matmuls_fit_in_shared_memory(layout):
    """The checks of a column-major B (loaded in a column-major layout, its pointers carried so) are
    evaluated where its pointers are: evaluated in the default layout they took B's 64x256 pointers
    through shared memory, 290 KiB in all, more than a program may have (a debug build failed to
    launch what the release build ran)."""
    from test_cp_async import _compiled  # (test/py is on the path, as for test_cp_async's own imports)

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TILEC_DEBUG", "1")
        checked = _compiled(("fp16", "fp16"), (128, 256, 64, 8), layout, 3)
    assert checked.metadata["bounds_checked"]
    assert checked.metadata["shared"] <= 227 * 1024


def test_amd_debug_builds_are_not_checked():
    """AMD lowers no device assertions yet: its debug builds compile, without the checks."""
    from tilec.targets.tools import have_lld

    if not have_lld():
        pytest.skip("needs ld.lld (Debian lld-19 or ROCm)")
    amd = tilec.compile(doubled, SIGNATURE, {"BLOCK": 128}, target="gfx942", debug=True)
    assert "out-of-bounds" not in amd.asm["tile"] and "bounds_checked" not in amd.metadata


OUT_OF_BOUNDS_ON_GPU = """
import torch
import tilec
import tilec.language as tl


@tilec.jit
def shifted(x_ptr, y_ptr, n, stride, shift, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs + shift, tl.load(x_ptr + offs * stride, mask=offs < n), mask=offs < n)


base = torch.arange(64, dtype=torch.float32, device="cuda")
y = torch.zeros(32, device="cuda")
shifted[(1,)](base[::2], y, 32, 2, 0, BLOCK=32, debug=True)  # a strided view, in bounds
torch.cuda.synchronize()
assert torch.equal(y, base[::2]), y
print("in bounds: ok", flush=True)
shifted[(1,)](base[::2], y, 32, 2, 1, BLOCK=32, debug=True)  # the last element one past y
"""


@pytest.mark.gpu
@needs_gpu
def test_out_of_bounds_store_is_a_device_assertion_on_gpu(tmp_path):
    out = device_assertion_output(tmp_path, "bounds.py", OUT_OF_BOUNDS_ON_GPU)
    assert "in bounds: ok" in out, out[-3000:]
    assert "out-of-bounds store of 4 byte(s)" in out, out[-3000:]
