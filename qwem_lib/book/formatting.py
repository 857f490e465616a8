"""How the report and the paper map print a value: one short line, numbers to four significant digits."""

from __future__ import annotations

from typing import Any

__all__ = ["plain", "markdown_cell"]


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
