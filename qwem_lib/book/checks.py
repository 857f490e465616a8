"""Checks of the arguments of public functions, with messages that name the argument, its value and what
is expected (issue 41).

Every function here returns the checked value in a normal form (a Python ``int`` or ``float``, or a NumPy
array) or raises :class:`ArgumentTypeError` (the wrong kind of thing: a string for a size, a bool for a
count, a complex or object array; a ``TypeError`` that is also a ``ValueError``, as NumPy's
``AxisError`` is both an ``IndexError`` and a ``ValueError``, so callers written against either keep
working) or ``ValueError`` (the right kind, a wrong value: zero, negative, NaN, infinite, the wrong
shape, a decreasing time axis). A message always reads ``"<name> must be <what is expected>, got
<value>"``, so a reader of a traceback knows which argument to change and to what.

The rules, the same everywhere
    * a size or a count is an ``int`` or NumPy integer, or a float that is a whole number (``3.0``);
      ``2.5`` is refused, never truncated, and ``True`` is not a count;
    * a real number is finite unless the caller allows infinity;
    * an array is real (bool, integer or float, converted to ``float64`` unless asked otherwise), of the
      number of dimensions asked, non-empty unless allowed, and finite unless allowed.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = [
    "ArgumentTypeError",
    "integer",
    "positive_int",
    "nonnegative_int",
    "real",
    "positive",
    "nonnegative",
    "fraction",
    "finite_array",
    "positive_array",
    "increasing",
    "square",
    "one_of",
    "describe",
]


class ArgumentTypeError(TypeError, ValueError):
    """An argument of the wrong kind (a ``TypeError``, and a ``ValueError`` for callers that catch that)."""


def describe(value: Any) -> str:
    """A short description of ``value`` for a message: its repr, or its shape and dtype for an array."""
    if isinstance(value, np.ndarray):
        if value.size <= 6:
            return f"array({np.array2string(value, threshold=6)}, dtype={value.dtype})"
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def integer(name: str, value: Any, *, low: int | None = None, high: int | None = None) -> int:
    """``value`` as an ``int`` with ``low <= value <= high`` (either bound optional).

    Accepts Python and NumPy integers and floats that are whole numbers; refuses bools, strings, ``2.5``
    (never truncated), NaN and infinity.
    """
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"{name} must be an integer, got {describe(value)}")
    if isinstance(value, numbers.Integral):
        out = int(value)
    else:
        v = float(value)
        if not math.isfinite(v) or v != math.floor(v):
            raise ValueError(f"{name} must be a whole number, got {describe(value)}")
        out = int(v)
    if low is not None and out < low or high is not None and out > high:
        if high is None:
            want = f"an integer >= {low}"
        elif low is None:
            want = f"an integer <= {high}"
        else:
            want = f"an integer in [{low}, {high}]"
        raise ValueError(f"{name} must be {want}, got {describe(value)}")
    return out


def positive_int(name: str, value: Any) -> int:
    """``value`` as an ``int`` of at least 1 (a size, a count of steps, a window)."""
    return integer(name, value, low=1)


def nonnegative_int(name: str, value: Any) -> int:
    """``value`` as an ``int`` of at least 0 (a seed, an offset)."""
    return integer(name, value, low=0)


def real(
    name: str,
    value: Any,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
) -> float:
    """``value`` as a finite ``float`` (infinite ones too where ``allow_inf``) within the given bounds.

    ``low_open`` / ``high_open`` exclude the bound itself (``low=0, low_open=True`` is "positive").
    """
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise ArgumentTypeError(f"{name} must be a real number, got {describe(value)}")
    v = float(value)
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise ValueError(f"{name} must be a finite number, got {describe(value)}")
    too_low = low is not None and (v <= low if low_open else v < low)
    too_high = high is not None and (v >= high if high_open else v > high)
    if too_low or too_high:
        parts = []
        if low is not None:
            parts.append(f"{'>' if low_open else '>='} {low:g}")
        if high is not None:
            parts.append(f"{'<' if high_open else '<='} {high:g}")
        raise ValueError(f"{name} must be a number {' and '.join(parts)}, got {describe(value)}")
    return v


def positive(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """``value`` as a finite ``float`` greater than zero (a learning rate, a scale, a time)."""
    return real(name, value, low=0.0, low_open=True, allow_inf=allow_inf)


def nonnegative(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """``value`` as a finite ``float`` of at least zero (a variance, a threshold that may be off)."""
    return real(name, value, low=0.0, allow_inf=allow_inf)


def fraction(name: str, value: Any, *, open_low: bool = False, open_high: bool = False) -> float:
    """``value`` as a ``float`` in ``[0, 1]`` (``open_low`` / ``open_high`` exclude 0 / 1)."""
    return real(name, value, low=0.0, high=1.0, low_open=open_low, high_open=open_high)


def finite_array(
    name: str,
    a: Any,
    *,
    ndim: int | Iterable[int] | None = None,
    shape: tuple[int | None, ...] | None = None,
    dtype: Any = np.float64,
    allow_empty: bool = False,
    allow_nonfinite: bool = False,
) -> np.ndarray:
    """``a`` as a real NumPy array of ``dtype`` (``None``: keep a float dtype, convert others to float64).

    ``ndim`` is one number of dimensions or several allowed; ``shape`` fixes some sizes (``None`` for a
    free one, e.g. ``(None, 3)``). Complex, string and object arrays raise ``TypeError``; an empty array,
    NaN or infinity raise ``ValueError`` unless allowed. Torch tensors are accepted (moved to the CPU).
    """
    if hasattr(a, "detach") and hasattr(a, "cpu"):  # a torch tensor
        a = a.detach().cpu().numpy()
    try:
        arr = np.asarray(a)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise ValueError(
            f"{name} must be a rectangular array of numbers, got {describe(a)}"
        ) from exc
    if arr.dtype.kind not in "biuf":
        raise ArgumentTypeError(f"{name} must be an array of real numbers, got dtype {arr.dtype}")
    if dtype is None:
        arr = arr if arr.dtype.kind == "f" else arr.astype(np.float64)
    else:
        arr = arr.astype(dtype, copy=False)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            dims = " or ".join(f"{k}-D" for k in allowed)
            raise ValueError(f"{name} must be {dims}, got shape {arr.shape}")
    if shape is not None:
        if arr.ndim != len(shape) or any(
            s is not None and s != n for s, n in zip(shape, arr.shape)
        ):
            want = "(" + ", ".join("any" if s is None else str(s) for s in shape) + ")"
            raise ValueError(f"{name} must have shape {want}, got shape {arr.shape}")
    if arr.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty, got shape {arr.shape}")
    if not allow_nonfinite and arr.dtype.kind == "f" and not np.isfinite(arr).all():
        bad = float(arr[~np.isfinite(arr)].ravel()[0])
        raise ValueError(
            f"{name} must hold finite numbers, got {np.count_nonzero(~np.isfinite(arr))} "
            f"NaN or infinite entries (e.g. {bad!r})"
        )
    return arr


def positive_array(name: str, a: Any, *, strict: bool = True, **kw: Any) -> np.ndarray:
    """:func:`finite_array` whose entries are all positive (``strict``) or non-negative; a scalar is a
    0-d array. Keyword arguments go to :func:`finite_array`."""
    arr = finite_array(name, a, **kw)
    bad = arr <= 0 if strict else arr < 0
    if np.any(bad):
        what = "positive" if strict else "non-negative"
        raise ValueError(
            f"{name} must hold {what} numbers, got {float(arr[bad].ravel()[0])!r}"
            + (f" at position {tuple(int(i) for i in np.argwhere(bad)[0])}" if arr.ndim else "")
        )
    return arr


def increasing(name: str, t: Any, *, strict: bool = True, allow_empty: bool = False) -> np.ndarray:
    """``t`` as a finite 1-D float64 array in increasing order (``strict``: no two equal values).

    A time axis, a grid of levels: a reversed or shuffled one is an error, not a wrong answer.
    """
    arr = finite_array(name, t, ndim=1, allow_empty=allow_empty)
    d = np.diff(arr)
    if np.any(d <= 0) if strict else np.any(d < 0):
        i = int(np.flatnonzero(d <= 0 if strict else d < 0)[0])
        order = "strictly increasing" if strict else "non-decreasing"
        raise ValueError(
            f"{name} must be {order}, got {float(arr[i])!r} followed by {float(arr[i + 1])!r} "
            f"at positions {i}, {i + 1}"
        )
    return arr


def square(
    name: str, a: Any, *, dtype: Any = np.float64, allow_nonfinite: bool = False
) -> np.ndarray:
    """``a`` as a finite, non-empty, square 2-D array (:func:`finite_array`)."""
    arr = finite_array(name, a, ndim=2, dtype=dtype, allow_nonfinite=allow_nonfinite)
    if arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name} must be a square matrix, got shape {arr.shape}")
    return arr


def one_of(name: str, value: Any, options: Iterable[Any]) -> Any:
    """``value`` when it is one of ``options``; a ``ValueError`` listing them otherwise."""
    opts = tuple(options)
    try:
        ok = value in opts
    except (TypeError, ValueError):  # an unhashable or array value
        ok = False
    if not ok:
        listed = ", ".join(repr(o) for o in opts)
        raise ValueError(f"{name} must be one of {listed}, got {describe(value)}")
    return value
