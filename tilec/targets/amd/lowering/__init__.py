"""AMD's part of the GPU lowering: MFMA matrix cores (mfma.py) and the vendor object
convert-tile-to-gpu takes (vendor.py). Importing this package registers the vendor."""

from __future__ import annotations

from tilec.passes.gpu_vendor import register_vendor

from .vendor import AmdVendor

register_vendor(AmdVendor())
