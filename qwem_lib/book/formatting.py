"""How the report and the paper map print a value: one short line, numbers to four significant digits."""

from __future__ import annotations

from typing import Any

import numpy as np  # noqa: F401

__all__: list[str] = []


def _fmt(v: Any) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.4g}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v[:8]) + (", …" if len(v) > 8 else "") + "]"
    return str(v).replace("|", "\\|")
