"""The NVIDIA target's own passes (operands streamed into shared memory, tensor-map parameters,
thread values recomputed instead of kept). Importing this package registers them and the NVIDIA
lowering vendor."""

from __future__ import annotations

from tilec.passes import register
from tilec.targets.nvidia import lowering as _lowering  # noqa: F401 - registers the vendor

from .pipeline_loads import PipelineLoadsPass
from .pointer_tensor_copies import PointerTensorCopiesPass
from .rematerialize_thread_values import RematerializeThreadValuesPass
from .tensor_map_params import TensorMapParamsPass

PASSES = (PointerTensorCopiesPass, PipelineLoadsPass, RematerializeThreadValuesPass, TensorMapParamsPass)
register(*PASSES)
