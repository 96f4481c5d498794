"""AMD target, without AMD hardware: the whole suite compiles to HSACO for gfx942 (wave64) and gfx1100
(wave32), and every code object is checked: ELF machine AMDGPU, the kernel in the amdhsa metadata,
no undefined symbols (ld.lld --no-undefined), register and LDS use within the arch's limits.
No AMD GPU executes this code here."""

import re
import struct

import numpy as np
import pytest
from suite import CASES

import tilec
import tilec.language as tl
from tilec.targets.tools import ToolError, find_lld

EM_AMDGPU = 224
LIMITS = {
    "gfx942": {"vgpr": 512, "sgpr": 106, "lds": 65536},
    "gfx1100": {"vgpr": 256, "sgpr": 106, "lds": 65536},
}


def _lld_available():
    try:
        find_lld()
        return True
    except ToolError:
        return False


pytestmark = pytest.mark.skipif(not _lld_available(), reason="needs ld.lld (Debian lld-19 or ROCm)")


@tilec.jit
def fma_dot(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):
    m, n, k = tl.arange(0, M), tl.arange(0, N), tl.arange(0, K)
    a = tl.load(a_ptr + m[:, None] * K + k[None, :])
    b = tl.load(b_ptr + k[:, None] * N + n[None, :])
    tl.store(c_ptr + m[:, None] * N + n[None, :], tl.dot(a, b))


def _compile_case(case, arch):
    kernels = []

    def launch(kernel, grid, *args, **constexprs):
        kernels.append(kernel.warmup(*args, **constexprs, target=arch))

    try:
        case.run(launch, np.random.default_rng(0))
    except AssertionError:
        pass  # nothing ran; only the code objects are checked
    return kernels


def check_code_object(kernel, arch):
    hsaco, asm = kernel.asm["hsaco"], kernel.asm["amdgcn"]
    assert hsaco[:4] == b"\x7fELF"
    assert struct.unpack_from("<H", hsaco, 18)[0] == EM_AMDGPU
    assert f".amdhsa_kernel {kernel.name}" in asm
    assert "--amdhsa-code-object-version" in asm or ".amdhsa_code_object_version" in asm
    vgpr = int(re.search(r"\.amdhsa_next_free_vgpr (\d+)", asm).group(1))
    sgpr = int(re.search(r"\.amdhsa_next_free_sgpr (\d+)", asm).group(1))
    lds = int(re.search(r"\.amdhsa_group_segment_fixed_size (\d+)", asm).group(1))
    limits = LIMITS[arch]
    assert vgpr <= limits["vgpr"] and sgpr <= limits["sgpr"] and lds <= limits["lds"], (vgpr, sgpr, lds)
    assert "__ocml_" not in kernel.asm["llir"] and "__ockl_" not in kernel.asm["llir"]


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_suite_compiles_to_valid_hsaco(case, arch):
    kernels = _compile_case(case, arch)
    assert kernels
    for k in kernels:
        check_code_object(k, arch)


def test_wavefront_sizes():
    from suite import add_kernel

    import tilec

    wave64 = tilec.compile(
        add_kernel, signature="*fp32,*fp32,*fp32,i32:16", constexprs={"BLOCK": 1024}, target="gfx942"
    )
    wave32 = tilec.compile(
        add_kernel, signature="*fp32,*fp32,*fp32,i32:16", constexprs={"BLOCK": 1024}, target="gfx1100"
    )
    assert "known_block_size = array<i32: 256, 1, 1>" in wave64.asm["gpu"]
    assert "known_block_size = array<i32: 128, 1, 1>" in wave32.asm["gpu"]
    assert "global_load_dwordx4" in wave64.asm["amdgcn"] or "global_load_b128" in wave64.asm["amdgcn"]
    assert "global_load_b128" in wave32.asm["amdgcn"]


def test_waves_per_eu_reaches_llvm():
    """Triton's AMD tuning keyword `waves_per_eu` (launch or autotune config) becomes the kernel's
    "amdgpu-waves-per-eu" attribute, an occupancy target LLVM's scheduler works toward (it warns when
    the registers do not allow it); the code object stays valid. Not executed (no AMD GPU)."""
    from suite import softmax_kernel

    x = np.zeros((4, 1024), np.float32)
    plain = softmax_kernel.warmup(x, x, 1024, 1024, 1024, BLOCK=1024, target="gfx942")
    hinted = softmax_kernel.warmup(x, x, 1024, 1024, 1024, BLOCK=1024, target="gfx942", waves_per_eu=2)
    assert '"amdgpu-waves-per-eu"="2"' in hinted.asm["llir"]
    assert "amdgpu-waves-per-eu" not in plain.asm["llir"]
    check_code_object(hinted, "gfx942")
    with pytest.raises(TypeError, match="waves_per_eu must be an int from 0 to 16"):
        softmax_kernel.warmup(x, x, 1024, 1024, 1024, BLOCK=1024, target="gfx942", waves_per_eu="2")


def test_too_much_lds_is_an_error_at_the_kernel():
    """A kernel needing more LDS than a workgroup has (an FMA dot of a large fp32 tile on one wave,
    staged in LDS) is refused with an error naming its definition: LLVM's back end would end the
    process. The LDS a kernel uses is in its metadata."""
    import tilec

    with pytest.raises(tilec.CompilationError, match=r"test_amd\.py:\d+.*needs \d+ bytes of LDS"):
        tilec.compile(
            fma_dot,
            "*fp32,*fp32,*fp32",
            constexprs={"M": 32, "N": 256, "K": 64},
            target="gfx1100",
            num_warps=1,
        )
    small = tilec.compile(
        fma_dot, "*fp32,*fp32,*fp32", constexprs={"M": 32, "N": 64, "K": 64}, target="gfx1100", num_warps=1
    )
    assert 0 < small.metadata["shared"] <= 64 * 1024
