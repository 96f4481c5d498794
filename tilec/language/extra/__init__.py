"""`tl.extra`: Triton's vendor-library namespaces. `libdevice` (also reachable as `extra.cuda.libdevice`
and `extra.hip.libdevice`) holds the math functions kernels import from
`triton.language.extra[.cuda].libdevice`; see libdevice.py."""

from . import cuda, hip, libdevice

__all__ = ["cuda", "hip", "libdevice"]
