"""`tl.math`: the elementwise math functions, also reachable as `tl.exp` etc."""

from .builtins import (  # noqa: F401
    abs,
    ceil,
    cos,
    div_rn,
    erf,
    exp,
    exp2,
    fdiv,
    floor,
    fma,
    log,
    log2,
    rsqrt,
    sigmoid,
    sin,
    sqrt,
    sqrt_rn,
    tanh,
    umulhi,
)
