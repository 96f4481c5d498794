"""The registry of tilec passes, by kebab-case name. Adding a pass: one file, one line here."""

from __future__ import annotations

from .axis_info import AxisInfoPass
from .base import PassError, TilePass
from .canonicalize import CanonicalizePass
from .check_bounds import CheckBoundsPass
from .convert_tile_to_gpu import ConvertTileToGpuPass
from .convert_tile_to_linalg import ConvertTileToLinalgPass
from .cpu_atomics import CpuAtomicsPass
from .cpu_check_bounds import CpuCheckBoundsPass
from .cpu_duplicate_producers import CpuDuplicateProducersPass
from .cpu_expand_maps import CpuExpandMapsPass
from .cpu_grid import CpuGridPass
from .cpu_pointer_increments import CpuPointerIncrementsPass
from .cpu_pointer_offsets import CpuPointerOffsetsPass
from .cpu_safe_division import CpuSafeDivisionPass
from .cpu_saturating_conversions import CpuSaturatingConversionsPass
from .cpu_strided_copies import CpuStridedCopiesPass
from .cpu_vectorize_dots import CpuVectorizeDotsPass
from .cpu_version_looped_masks import CpuVersionLoopedMasksPass
from .cpu_version_masks import CpuVersionMasksPass
from .cpu_version_remainders import CpuVersionRemaindersPass
from .cpu_widen_bool_buffers import CpuWidenBoolBuffersPass
from .exact_remainder import ExactFloatRemainderPass
from .expand_float64_math import ExpandFloat64MathPass
from .expand_sort import ExpandSortPass
from .hoist_loads import HoistLoadsPass
from .lower_fp8 import LowerFp8Pass
from .pipeline_loads import PipelineLoadsPass
from .pointer_tensor_copies import PointerTensorCopiesPass
from .rematerialize_thread_values import RematerializeThreadValuesPass
from .tensor_map_params import TensorMapParamsPass
from .verify import VerifyPass

REGISTRY: dict[str, type[TilePass]] = {
    p.name: p
    for p in (
        CanonicalizePass,
        LowerFp8Pass,
        ExactFloatRemainderPass,
        ExpandFloat64MathPass,
        ExpandSortPass,
        AxisInfoPass,
        HoistLoadsPass,
        CheckBoundsPass,
        PointerTensorCopiesPass,
        PipelineLoadsPass,
        ConvertTileToGpuPass,
        RematerializeThreadValuesPass,
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
        TensorMapParamsPass,
        VerifyPass,
    )
}

__all__ = ["REGISTRY", "PassError", "TensorMapParamsPass", "TilePass"]
