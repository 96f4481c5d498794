"""libdevice.jn / libdevice.yn: Bessel functions of integer order n, from the orders 0 and 1 by the
three-term recurrence C_{k+1}(x) = (2k / x) C_k(x) - C_{k-1}(x), as C libraries compute them.

Y grows with k, so the recurrence runs forward from y0 and y1 for every order. J decays with k once
k > |x|, where running forward amplifies the error: there Miller's algorithm runs it backward from an
order m well above n (any start works; the error shrinks as the recurrence descends), then scales by
the identity J_0 + 2 (J_2 + J_4 + ...) = 1; below |x| = 1e-5 (where one step of it grows by more
than 1e7) J_n is the first two terms of its power series. For n < |x| J runs forward from j0 and j1 (Numerical
Recipes' bessj splits the same way; m = n + sqrt(160 n), rounded to even, suits float64). Every
element of a block runs the same loops, up to the block's largest order; each keeps its own order's
value. The functions take float64 operands and int32 orders (libdevice.jn/yn convert to them).
"""

import tilec
import tilec.language as tl
from tilec.language.extra import libdevice

_RESCALE = 1.0e100  # Miller's values grow as they descend: rescaled past this (no overflow)
_TINY = 1.0e-5  # below, J_n is its series' first two terms (the third is under 1e-21 relative)


@tilec.jit
def bessel_y(n, x):
    order = tl.abs(n)
    y0 = libdevice.y0(x)
    y1 = libdevice.y1(x)
    result = tl.where(order == 0, y0, y1)
    previous, current = y0, y1
    for k in range(1, tl.max(order)):
        following = (k.to(tl.float64) * 2.0 / x) * current - previous
        # past the largest float64 it stays -inf (inf - inf would give NaN)
        following = tl.where(current == float("-inf"), current, following)
        previous, current = current, following
        result = tl.where(order == k + 1, current, result)
    result = tl.where(x == 0.0, float("-inf"), result)
    result = tl.where(x < 0.0, float("nan"), result)
    return tl.where((n < 0) & (order % 2 == 1), -result, result)  # Y_{-n} = (-1)^n Y_n


@tilec.jit
def bessel_j(n, x):
    order = tl.abs(n)
    ax = tl.abs(x)
    top = tl.max(order)
    # forward from j0 and j1, used where order < |x|
    j0 = libdevice.j0(ax)
    j1 = libdevice.j1(ax)
    forward = tl.where(order == 0, j0, j1)
    previous, current = j0, j1
    # and for tiny |x|, where one backward step would overflow: (x/2)^n / n! (1 - (x/2)^2 / (n + 1))
    half = ax * 0.5
    leading = tl.where(order == 0, 1.0, half)
    power = half
    for k in range(1, top):
        following = (k.to(tl.float64) * 2.0 / ax) * current - previous
        previous, current = current, following
        forward = tl.where(order == k + 1, current, forward)
        power = power * half / (k + 1).to(tl.float64)
        leading = tl.where(order == k + 1, power, leading)
    tiny = leading * (1.0 - half * half / (order + 1).to(tl.float64))
    # Miller: backward from an even order m above the largest one, used where order >= |x|
    start = top + tl.sqrt(top.to(tl.float64) * 160.0).to(tl.int32)
    start = (start // 2 + 1) * 2
    twice_over_x = 2.0 / tl.where(ax == 0.0, 1.0, ax)
    above = tl.zeros_like(ax)  # J_{j+1}, relative
    here = tl.zeros_like(ax) + 1.0  # J_j, relative
    wanted = tl.zeros_like(ax)
    evens = tl.zeros_like(ax)  # J_2 + J_4 + ... so far
    for j in range(start, 0, -1):
        below = (j * twice_over_x) * here - above  # J_{j-1}
        above, here = here, below
        big = tl.abs(here) > _RESCALE
        here = tl.where(big, here / _RESCALE, here)
        above = tl.where(big, above / _RESCALE, above)
        wanted = tl.where(big, wanted / _RESCALE, wanted)
        evens = tl.where(big, evens / _RESCALE, evens)
        wanted = tl.where(order == j, above, wanted)  # J_j
        evens = tl.where(((j - 1) % 2 == 0) & (j > 1), evens + here, evens)
    wanted = tl.where(order == 0, here, wanted)
    backward = wanted / (here + 2.0 * evens)
    result = tl.where(order.to(tl.float64) < ax, forward, backward)
    result = tl.where(ax < _TINY, tiny, result)
    result = tl.where(ax == 0.0, tl.where(order == 0, 1.0, 0.0), result)
    result = tl.where(ax == float("inf"), 0.0, result)
    # J_{-n}(x) = (-1)^n J_n(x) and J_n(-x) = (-1)^n J_n(x)
    flip = ((n < 0) ^ (x < 0.0)) & (order % 2 == 1)
    result = tl.where(flip, -result, result)
    return tl.where(x != x, x, result)
