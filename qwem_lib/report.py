"""The reproduction report: every verified claim is asserted *and* recorded.

A chapter opens a :class:`Report` and checks each claim through it::

    rep = Report("10_word2vec_to_qwem")
    rep.close("qwem.thm1.const", "L(W) - (g/4)||WW^T - M*||^2 is constant in W",
              value=spread, target=0.0, tol=1e-10, kind="finding")

Every claim says what kind of evidence it is (:data:`KINDS`):

* ``finding`` — could come out otherwise if the paper or the mathematics were wrong: a theorem checked
  on data it was not built from, a reproduced experiment, a measured ordering;
* ``consistency`` — an identity, an invariant or a self-check of the implementation (true by
  construction when the code is right; it guards the code, not the paper);
* ``record`` — the book's own measured value pinned to catch drift (not evidence about the paper).

The report and the README count findings separately; "182 claims pass" would sell self-checks as
evidence.

Each check writes one record (id, chapter, kind, statement, paper value, this book's value, tolerance,
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
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from . import config

KEYS: tuple[str, ...] = (
    "id",
    "chapter",
    "kind",
    "statement",
    "paper",
    "value",
    "tolerance",
    "passed",
    "preset",
    "device",
)

KINDS: tuple[str, ...] = ("finding", "consistency", "record")
"""The kinds of evidence a claim can be; see the module docstring."""

KIND_TITLES: dict[str, str] = {
    "finding": "findings",
    "consistency": "consistency checks",
    "record": "pinned records",
}


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
    kind: str
    statement: str
    paper: Any
    value: Any
    tolerance: Any
    passed: bool
    preset: str
    device: str

    def _ipython_display_(self) -> None:
        """Show nothing when a claim is a cell's last value: its ``[PASS]`` line is already printed."""


class Report:
    """Collects the claims of one chapter. Creating it clears that chapter's old records."""

    def __init__(self, chapter: str, *, quiet: bool = False) -> None:
        if not chapter or "/" in chapter:
            raise ValueError(
                f"chapter must be a bare name like '10_word2vec_to_qwem', got {chapter!r}"
            )
        self.chapter = chapter
        self.claims: list[Claim] = []
        self.path = records_dir() / f"{chapter}.json"
        self._write()
        if not quiet:
            print(f"{chapter}: {config.describe()}")

    # -- the generic check -------------------------------------------------------------------
    def check(
        self,
        id: str,
        statement: str,
        *,
        value: Any,
        passed: bool,
        kind: str,
        tolerance: Any = None,
        paper: Any = None,
    ) -> Claim:
        """Record a claim whose pass/fail the caller computed, and assert it.

        ``kind`` is one of :data:`KINDS` and is required: the author of a claim says whether it is a
        finding, a consistency check or a pinned record.
        """
        if kind not in KINDS:
            raise ValueError(f"claim {id!r}: kind must be one of {KINDS}, got {kind!r}")
        if any(c.id == id for c in self.claims):
            raise ValueError(f"claim id {id!r} recorded twice in {self.chapter}")
        claim = Claim(
            id=id,
            chapter=self.chapter,
            kind=kind,
            statement=statement,
            paper=_plain(paper),
            value=_plain(value),
            tolerance=_plain(tolerance),
            passed=bool(passed),
            preset=config.preset(),
            device=config.device_name(),
        )
        self.claims.append(claim)
        self._write()
        mark = "PASS" if claim.passed else "FAIL"
        print(
            f"[{mark}] ({kind}) {id}: {statement} | value={claim.value!r} tol={claim.tolerance!r}"
            + (f" paper={claim.paper!r}" if paper is not None else "")
        )
        assert claim.passed, (
            f"claim {id} failed: {statement} (value={value!r}, tolerance={tolerance!r})"
        )
        return claim

    # -- convenient shapes of claims --------------------------------------------------------
    def close(
        self,
        id: str,
        statement: str,
        *,
        value: float,
        target: float,
        tol: float,
        kind: str,
        rel: bool = False,
        paper: Any = None,
    ) -> Claim:
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
        return self.check(
            id, statement, value=shown, passed=ok, kind=kind, tolerance=tol_text, paper=paper
        )

    def below(
        self, id: str, statement: str, *, value: float, bound: float, kind: str, paper: Any = None
    ) -> Claim:
        """value < bound."""
        v = float(value)
        return self.check(
            id,
            statement,
            value=v,
            passed=math.isfinite(v) and v < bound,
            kind=kind,
            tolerance=f"< {bound:g}",
            paper=paper,
        )

    def above(
        self, id: str, statement: str, *, value: float, bound: float, kind: str, paper: Any = None
    ) -> Claim:
        """value > bound."""
        v = float(value)
        return self.check(
            id,
            statement,
            value=v,
            passed=math.isfinite(v) and v > bound,
            kind=kind,
            tolerance=f"> {bound:g}",
            paper=paper,
        )

    def ordered(
        self,
        id: str,
        statement: str,
        *,
        names: Sequence[str],
        values: Sequence[float],
        kind: str,
        paper: Any = None,
    ) -> Claim:
        """values, listed in the claimed order, are strictly decreasing."""
        vals = [float(v) for v in values]
        ok = all(a > b for a, b in zip(vals, vals[1:]))
        return self.check(
            id,
            statement,
            value=dict(zip(names, vals)),
            passed=ok,
            kind=kind,
            tolerance="strictly decreasing in the order given",
            paper=paper,
        )

    def _write(self) -> None:
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps([asdict(c) for c in self.claims], indent=1) + "\n")
        tmp.replace(self.path)


def prose(text: str) -> None:
    """Show Markdown computed by a cell, so that numbers in a chapter's prose come from the computation.

    In a notebook it renders as Markdown; elsewhere it prints the text. Use it for any sentence that quotes
    a measured number: ``prose(f"The top eigenvalue is {lam[0]:.3f}.")``.
    """
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display

        if get_ipython() is not None:
            display(Markdown(text))
            return
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        pass
    print(text)


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
            if r["kind"] not in KINDS:
                raise ValueError(
                    f"{f}: record {r['id']!r} has kind {r['kind']!r}, not one of {KINDS}"
                )
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


def tally(claims: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    """(passed, total) for each kind, in the order of :data:`KINDS`."""
    return {
        k: (
            sum(bool(c["passed"]) for c in claims if c["kind"] == k),
            sum(1 for c in claims if c["kind"] == k),
        )
        for k in KINDS
    }


def headline(claims: list[dict[str, Any]]) -> str:
    """One sentence that counts findings apart from self-checks and records, e.g. for the README."""
    t = tally(claims)
    (fp, fn), (cp, cn), (rp, rn) = t["finding"], t["consistency"], t["record"]
    return (
        f"{fp} of {fn} findings pass; so do {cp} of {cn} consistency checks and "
        f"{rp} of {rn} pinned records ({sum(x for x, _ in t.values())} of {len(claims)} claims in all)."
    )


def render_markdown(
    claims: list[dict[str, Any]], paper_map: list[dict[str, Any]] | None = None
) -> str:
    """The report: the map of the papers' statements (when given), then every claim by chapter."""
    lines = [
        "# Reproduction report",
        "",
        "Every quantitative claim the book checks, as recorded by the chapters themselves when they were",
        "last executed by `make book` (the chapter asserts the claim in the same cell, so a failing claim",
        "fails the notebook and the tests). *Paper* is the number the paper reports, where it reports one;",
        "*book* is this book's value under the preset named. Regenerate with `make book`.",
        "",
        "Each claim has a *kind*: a **finding** could come out otherwise if the paper or the mathematics",
        "were wrong (a theorem checked on data it was not built from, a reproduced experiment, a measured",
        "ordering); a **consistency** check is an identity or a self-check of the implementation; a",
        "**record** pins one of the book's own measurements to catch drift. Only findings are evidence",
        "about the papers.",
        "",
        f"**{headline(claims)}**",
        "",
    ]
    if paper_map is not None:
        from .paper_map import render_map, validate

        lines += render_map(paper_map, claims)
        errors = validate(paper_map, claims)
        if errors:
            lines += (
                [
                    "**The map disagrees with the claims** (`tests/test_paper_map.py` fails until it is "
                    "mended):",
                    "",
                ]
                + [f"* {e}" for e in errors]
                + [""]
            )
    lines += [
        "## The book's claims, chapter by chapter",
        "",
        "| chapter | findings | consistency | records |",
        "|---|---|---|---|",
    ]
    chapters = list(dict.fromkeys(c["chapter"] for c in claims))
    for ch in chapters:
        t = tally([c for c in claims if c["chapter"] == ch])
        lines.append(
            f"| [{ch}](notebooks/{ch}.ipynb) | "
            + " | ".join(f"{p}/{n}" for p, n in (t[k] for k in KINDS))
            + " |"
        )
    for ch in chapters:
        lines += [
            "",
            f"### {ch}",
            "",
            "| id | kind | claim | paper | book | tolerance | pass | preset / device |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for c in claims:
            if c["chapter"] != ch:
                continue
            lines.append(
                f"| `{c['id']}` | {c['kind']} | {_fmt(c['statement'])} | {_fmt(c['paper'])} | "
                f"{_fmt(c['value'])} | {_fmt(c['tolerance'])} | {'✅' if c['passed'] else '❌'} | "
                f"{c['preset']} / {c['device']} |"
            )
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
        json.dumps([{k: c[k] for k in KEYS} for c in claims], indent=1) + "\n"
    )
    from .paper_map import MAP_PATH, load_map

    paper_map = load_map() if MAP_PATH.exists() else None
    (root / "REPRODUCTION.md").write_text(render_markdown(claims, paper_map))
    return claims


if __name__ == "__main__":  # pragma: no cover - exercised by make book
    cs = aggregate()
    print(f"{headline(cs)} Wrote {report_root()}/REPRODUCTION.md")
