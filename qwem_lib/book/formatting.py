"""How the report and the paper map print a value: one short line, numbers to a few significant digits.

:func:`plain` (four significant digits) writes the values of the reproduction report's tables;
:func:`sig` and :func:`short` (three) write the check lines a chapter prints under its cells.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

__all__ = ["plain", "markdown_cell", "short", "sig"]


def plain(v: Any) -> str:
    """A recorded value on one short line: floats to four significant digits, dicts and (the first eight
    items of) lists spelled out, ``None`` as a dash."""
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {plain(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "[" + ", ".join(plain(x) for x in v[:8]) + (", …" if len(v) > 8 else "") + "]"
    return str(v)


def markdown_cell(v: Any) -> str:
    """:func:`plain`, with ``|`` escaped for a Markdown table cell."""
    return plain(v).replace("|", "\\|")


def sig(x: float | numbers.Real, digits: int = 3) -> str:
    """A number to ``digits`` significant figures, the way a reader writes it.

    Integers below a million are exact with thousands separators (``19,544``); other numbers between
    1e-3 and 1e6 are written without an exponent (``0.552``, ``12,300``); the rest in scientific notation
    (``3.2e-12``). Trailing zeros are dropped (``0.15``, not ``0.150``). ``nan`` and ``inf`` are spelled as
    Python spells them.

    Parameters
    ----------
    x : float
        The number (an ``int``, ``float`` or NumPy scalar).
    digits : int
        Significant figures, at least 1.

    Returns
    -------
    str
    """
    if digits < 1:
        raise ValueError(f"digits must be at least 1, got {digits}")
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, numbers.Integral) and abs(int(x)) < 1_000_000:
        return f"{int(x):,}"
    v = float(x)
    if not math.isfinite(v):
        return str(v)
    if v == 0:
        return "0"
    r = float(f"{v:.{digits}g}")
    if 1e-3 <= abs(r) < 1e6:
        places = max(0, digits - 1 - math.floor(math.log10(abs(r))))
        text = f"{r:,.{places}f}"
        return text.rstrip("0").rstrip(".") if "." in text else text
    mant, exp = f"{v:.{digits - 1}e}".split("e")
    if "." in mant:
        mant = mant.rstrip("0").rstrip(".")
    return f"{mant}e{int(exp)}"


def short(v: Any, width: int = 60) -> str:
    """A recorded value for a check line: numbers to three significant figures (:func:`sig`), dicts and
    lists spelled out, at most ``width`` characters (longer text ends in ``…``; the record keeps it whole).

    Parameters
    ----------
    v : Any
        A value as a claim records it (number, bool, str, ``None``, list or dict of those).
    width : int
        Longest result, at least 8.

    Returns
    -------
    str
    """
    if width < 8:
        raise ValueError(f"width must be at least 8, got {width}")
    if v is None:
        text = "—"
    elif isinstance(v, (bool, str)):
        text = str(v)
    elif isinstance(v, numbers.Real):
        text = sig(v)
    elif isinstance(v, dict):
        text = "{" + ", ".join(f"{k}: {short(x, width)}" for k, x in v.items()) + "}"
    elif isinstance(v, (list, tuple)):
        text = "[" + ", ".join(short(x, width) for x in v) + "]"
    else:
        text = str(v)
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"
