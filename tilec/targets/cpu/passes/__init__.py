"""The CPU target's passes: from tile IR to linalg/memref and the loop versions LLVM vectorizes
well. Importing this package registers them (tilec.passes.REGISTRY)."""

from __future__ import annotations

from tilec.passes import register

from .atomics import CpuAtomicsPass
from .check_bounds import CpuCheckBoundsPass
from .convert_tile_to_linalg import ConvertTileToLinalgPass
from .duplicate_producers import CpuDuplicateProducersPass
from .expand_maps import CpuExpandMapsPass
from .grid import CpuGridPass
from .pointer_increments import CpuPointerIncrementsPass
from .pointer_offsets import CpuPointerOffsetsPass
from .safe_division import CpuSafeDivisionPass
from .saturating_conversions import CpuSaturatingConversionsPass
from .strided_copies import CpuStridedCopiesPass
from .vectorize_dots import CpuVectorizeDotsPass
from .version_looped_masks import CpuVersionLoopedMasksPass
from .version_masks import CpuVersionMasksPass
from .version_remainders import CpuVersionRemaindersPass
from .widen_bool_buffers import CpuWidenBoolBuffersPass

PASSES = (
    CpuExpandMapsPass,
    CpuPointerIncrementsPass,
    CpuVersionRemaindersPass,
    CpuVersionMasksPass,
    CpuVersionLoopedMasksPass,
    CpuGridPass,
    CpuSafeDivisionPass,
    CpuSaturatingConversionsPass,
    CpuCheckBoundsPass,
    ConvertTileToLinalgPass,
    CpuAtomicsPass,
    CpuVectorizeDotsPass,
    CpuWidenBoolBuffersPass,
    CpuDuplicateProducersPass,
    CpuPointerOffsetsPass,
    CpuStridedCopiesPass,
)
register(*PASSES)
