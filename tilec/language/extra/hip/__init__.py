"""`triton.language.extra.hip.libdevice`'s place in tilec: the same functions as `tl.extra.libdevice`."""

from .. import libdevice

__all__ = ["libdevice"]
