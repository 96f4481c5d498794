"""NVIDIA's part of the GPU lowering: tensor cores (mma.py, wgmma.py, wgmma_swapped.py), operands
streamed into shared memory (cp_async.py, tma.py) and the vendor object convert-tile-to-gpu takes
(vendor.py). Importing this package registers the vendor."""

from __future__ import annotations

from tilec.passes.gpu_vendor import register_vendor

from .vendor import NvidiaVendor

register_vendor(NvidiaVendor())
