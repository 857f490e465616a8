"""The reproduction report: every verified claim is asserted *and* recorded.

A chapter opens a :class:`Report` and checks each claim through it::

    rep = Report("10_word2vec_to_qwem")
    rep.close("qwem.thm1.const", "L(W) - (g/4)||WW^T - M*||^2 is constant in W",
              value=spread, target=0.0, tol=1e-10)

Each check writes one record (id, chapter, statement, paper value, this book's value, tolerance,
pass/fail, preset, device) to ``<records dir>/<chapter>.json`` at once, and raises ``AssertionError``
when the claim fails, so nbval fails with it. ``python -m qwem_lib.report`` (run by ``make book``)
gathers every chapter's records into ``reproduction/claims.json`` and ``REPRODUCTION.md``.

The records directory is ``QWEM_REPORT_DIR`` if set (the tests point it at a temporary folder), else
``reproduction/records`` at the ``book`` preset and a cache folder at the others (see
:func:`records_dir`): only book-preset runs touch the committed report.
"""

from __future__ import annotations

import json
import math
import numbers
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Sequence

from . import config

KEYS: tuple[str, ...] = ("id", "chapter", "statement", "paper", "value", "tolerance", "passed",
                         "preset", "device")


def records_dir() -> Path:
    """Where chapters write their claim records.

    ``QWEM_REPORT_DIR`` if set; else ``reproduction/records`` for the ``book`` preset (the committed
    records); else ``<cache>/records-<preset>``, so that a smoke or paper run never overwrites the book's
    committed records.
    """
    env = os.environ.get("QWEM_REPORT_DIR")
    if env:
        p = Path(env)
    elif config.preset() == "book":
        p = config.REPO_ROOT / "reproduction" / "records"
    else:
        p = config.cache_dir() / f"records-{config.preset()}"
    p.mkdir(parents=True, exist_ok=True)
    return p


def report_root() -> Path:
    """Where :func:`aggregate` writes: the repository for ``book``, else ``<cache>/report-<preset>``."""
    if config.preset() == "book":
        return config.REPO_ROOT
    return config.cache_dir() / f"report-{config.preset()}"


def _plain(x: Any) -> Any:
    """Turn NumPy / torch scalars and small arrays into JSON-friendly Python values."""
    if x is None or isinstance(x, (bool, str)):
        return x
    if hasattr(x, "item") and getattr(x, "ndim", 0) == 0:
        x = x.item()
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else str(x)
    if hasattr(x, "tolist"):
        return _plain(x.tolist())
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    return str(x)


@dataclass
class Claim:
    id: str
    chapter: str
    statement: str
    paper: Any
    value: Any
    tolerance: Any
    passed: bool
    preset: str
    device: str


class Report:
    """Collects the claims of one chapter. Creating it clears that chapter's old records."""

    def __init__(self, chapter: str, *, quiet: bool = False) -> None:
        if not chapter or "/" in chapter:
            raise ValueError(f"chapter must be a bare name like '10_word2vec_to_qwem', got {chapter!r}")
        self.chapter = chapter
        self.claims: list[Claim] = []
        self.path = records_dir() / f"{chapter}.json"
        self._write()
        if not quiet:
            print(f"{chapter}: {config.describe()}")

    # -- the generic check -------------------------------------------------------------------
    def check(self, id: str, statement: str, *, value: Any, passed: bool, tolerance: Any = None,
              paper: Any = None) -> Claim:
        """Record a claim whose pass/fail the caller computed, and assert it."""
        if any(c.id == id for c in self.claims):
            raise ValueError(f"claim id {id!r} recorded twice in {self.chapter}")
        claim = Claim(id=id, chapter=self.chapter, statement=statement, paper=_plain(paper),
                      value=_plain(value), tolerance=_plain(tolerance), passed=bool(passed),
                      preset=config.preset(), device=config.device_name())
        self.claims.append(claim)
        self._write()
        mark = "PASS" if claim.passed else "FAIL"
        print(f"[{mark}] {id}: {statement} | value={claim.value!r} tol={claim.tolerance!r}"
              + (f" paper={claim.paper!r}" if paper is not None else ""))
        assert claim.passed, f"claim {id} failed: {statement} (value={value!r}, tolerance={tolerance!r})"
        return claim

    # -- convenient shapes of claims --------------------------------------------------------
    def close(self, id: str, statement: str, *, value: float, target: float, tol: float,
              rel: bool = False, paper: Any = None) -> Claim:
        """|value - target| <= tol (or <= tol*|target| when ``rel``)."""
        bound = tol * abs(target) if rel else tol
        err = abs(float(value) - float(target))
        ok = math.isfinite(err) and err <= bound
        if tol == 0:
            tol_text = f"exactly {target:.12g}"
        elif rel:
            tol_text = f"within {tol:g} relative of {target:.10g}"
        else:
            tol_text = f"within ±{tol:g} of {target:.10g}"
        shown = int(value) if isinstance(value, numbers.Integral) else float(value)
        return self.check(id, statement, value=shown, passed=ok, tolerance=tol_text, paper=paper)

    def below(self, id: str, statement: str, *, value: float, bound: float, paper: Any = None) -> Claim:
        """value < bound."""
        v = float(value)
        return self.check(id, statement, value=v, passed=math.isfinite(v) and v < bound,
                          tolerance=f"< {bound:g}", paper=paper)

    def above(self, id: str, statement: str, *, value: float, bound: float, paper: Any = None) -> Claim:
        """value > bound."""
        v = float(value)
        return self.check(id, statement, value=v, passed=math.isfinite(v) and v > bound,
                          tolerance=f"> {bound:g}", paper=paper)

    def ordered(self, id: str, statement: str, *, names: Sequence[str], values: Sequence[float],
                paper: Any = None) -> Claim:
        """values, listed in the claimed order, are strictly decreasing."""
        vals = [float(v) for v in values]
        ok = all(a > b for a, b in zip(vals, vals[1:]))
        return self.check(id, statement, value=dict(zip(names, vals)), passed=ok,
                          tolerance="strictly decreasing in the order given", paper=paper)

    def _write(self) -> None:
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps([asdict(c) for c in self.claims], indent=1) + "\n")
        tmp.replace(self.path)


# -- aggregation ---------------------------------------------------------------------------
def load_records(directory: Path | None = None) -> list[dict[str, Any]]:
    """All claims recorded in ``directory`` (default: the records dir), sorted by chapter, then order."""
    d = Path(directory) if directory is not None else records_dir()
    out: list[dict[str, Any]] = []
    for f in sorted(d.glob("*.json")):
        rows = json.loads(f.read_text())
        for r in rows:
            missing = [k for k in KEYS if k not in r]
            if missing:
                raise ValueError(f"{f}: record {r.get('id')!r} lacks keys {missing}")
        out.extend(rows)
    return out


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


def render_markdown(claims: list[dict[str, Any]]) -> str:
    n_pass = sum(bool(c["passed"]) for c in claims)
    lines = [
        "# Reproduction report",
        "",
        "Every quantitative claim the book checks, as recorded by the chapters themselves when they were",
        "last executed by `make book` (the chapter asserts the claim in the same cell, so a failing claim",
        "fails the notebook and the tests). *Paper* is the number the paper reports, where it reports one;",
        "*book* is this book's value under the preset named. Regenerate with `make book`.",
        "",
        f"**{n_pass} of {len(claims)} claims pass.**",
        "",
    ]
    chapter = None
    for c in claims:
        if c["chapter"] != chapter:
            chapter = c["chapter"]
            lines += ["", f"## {chapter}", "",
                      "| id | claim | paper | book | tolerance | pass | preset / device |",
                      "|---|---|---|---|---|---|---|"]
        lines.append(f"| `{c['id']}` | {_fmt(c['statement'])} | {_fmt(c['paper'])} | {_fmt(c['value'])} | "
                     f"{_fmt(c['tolerance'])} | {'✅' if c['passed'] else '❌'} | {c['preset']} / {c['device']} |")
    return "\n".join(lines) + "\n"


def aggregate(records: Path | None = None, out_dir: Path | None = None) -> list[dict[str, Any]]:
    """Write ``reproduction/claims.json`` and ``REPRODUCTION.md`` from the chapter records."""
    claims = load_records(records)
    ids = [c["id"] for c in claims]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"claim ids used by more than one chapter: {dup}")
    root = Path(out_dir) if out_dir is not None else report_root()
    (root / "reproduction").mkdir(parents=True, exist_ok=True)
    (root / "reproduction" / "claims.json").write_text(
        json.dumps([{k: c[k] for k in KEYS} for c in claims], indent=1) + "\n")
    (root / "REPRODUCTION.md").write_text(render_markdown(claims))
    return claims


if __name__ == "__main__":  # pragma: no cover - exercised by make book
    cs = aggregate()
    print(f"{sum(c['passed'] for c in cs)} of {len(cs)} claims pass; wrote {report_root()}/REPRODUCTION.md")
