"""The map from the papers' statements to the book's evidence (``reproduction/paper_claims.json``).

REPRODUCTION.md lists the book's own claims chapter by chapter. A referee asks the opposite question: *for
each thing the papers say, what did the book find?* The map answers it. It is written by hand, one entry
per statement of the two papers, and checked by code (:func:`validate`) against the claims the chapters
recorded (``reproduction/claims.json``):

* ``verdict`` is one of :data:`VERDICTS`;
* every cited claim exists, passed, and is a ``finding`` (self-checks and pinned records are not evidence
  about a paper);
* ``reproduced``, ``reproduced with differences`` and ``contradicted`` cite at least one finding;
  ``not yet tested`` cites none and says in ``planned`` which chapter or issue will test it;
* every numeric ``paper`` value of a cited claim appears among the entry's ``paper_value`` numbers, so the
  map and the chapters cannot quote the paper differently.

An entry::

    {"id": "qwem.thm1", "paper": "QWEM", "where": "Theorem 1, Appendix C",
     "statement": "…one sentence…", "paper_value": null, "verdict": "reproduced",
     "evidence": ["qwem.thm1.gd_reaches_minimiser"], "why": "…one or two sentences…", "planned": ""}
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import config
from .formatting import _fmt

__all__ = [
    "VERDICTS",
    "PAPERS",
    "MAP_PATH",
    "load_map",
    "validate",
    "verdict_counts",
    "counts_sentence",
    "render_map",
]

VERDICTS: tuple[str, ...] = (
    "reproduced",
    "reproduced with differences",
    "contradicted",
    "not yet tested",
)
PAPERS: dict[str, str] = {
    "QWEM": "Karkada, Simon, Bahri, DeWeese (2025), Closed-Form Training Dynamics … Word2Vec-like Models",
    "FC": "Laurent, von Brecht, Bresson (ICLR 2024), Feature Collapse",
}
MAP_PATH = config.REPO_ROOT / "reproduction" / "paper_claims.json"
FIELDS: tuple[str, ...] = (
    "id",
    "paper",
    "where",
    "statement",
    "paper_value",
    "verdict",
    "evidence",
    "why",
    "planned",
)


def load_map(path: Path | None = None) -> list[dict[str, Any]]:
    """The entries of the map, in the order written."""
    p = Path(path) if path is not None else MAP_PATH
    entries = json.loads(p.read_text())
    if not isinstance(entries, list):
        raise ValueError(f"{p}: the map must be a JSON list of entries")
    return entries


def _numbers(x: Any) -> Iterable[float]:
    """Every number inside a (nested) paper value."""
    if isinstance(x, bool) or x is None:
        return
    if isinstance(x, numbers.Real):
        yield float(x)
    elif isinstance(x, dict):
        for v in x.values():
            yield from _numbers(v)
    elif isinstance(x, (list, tuple)):
        for v in x:
            yield from _numbers(v)


def validate(entries: list[dict[str, Any]], claims: list[dict[str, Any]]) -> list[str]:
    """Every way in which the map disagrees with itself or with the recorded claims (empty when sound)."""
    errors: list[str] = []
    by_id = {c["id"]: c for c in claims}
    seen: set[str] = set()
    for e in entries:
        eid = e.get("id", "<no id>")
        missing = [f for f in FIELDS if f not in e]
        if missing:
            errors.append(f"{eid}: lacks fields {missing}")
            continue
        if eid in seen:
            errors.append(f"{eid}: id used twice")
        seen.add(eid)
        if e["paper"] not in PAPERS:
            errors.append(f"{eid}: paper must be one of {sorted(PAPERS)}, got {e['paper']!r}")
        if e["verdict"] not in VERDICTS:
            errors.append(f"{eid}: verdict must be one of {VERDICTS}, got {e['verdict']!r}")
        if not str(e["statement"]).strip() or not str(e["why"]).strip():
            errors.append(f"{eid}: statement and why must say something")
        ev = e["evidence"]
        if not isinstance(ev, list):
            errors.append(f"{eid}: evidence must be a list of claim ids")
            continue
        for cid in ev:
            c = by_id.get(cid)
            if c is None:
                errors.append(f"{eid}: cites {cid!r}, which no chapter records")
            elif c.get("passed") is not True:
                errors.append(f"{eid}: cites {cid!r}, which did not pass")
            elif c.get("kind") != "finding":
                errors.append(
                    f"{eid}: cites {cid!r}, a {c.get('kind')} claim; only findings are evidence"
                )
        if e["verdict"] == "not yet tested":
            if ev:
                errors.append(f"{eid}: 'not yet tested' but cites evidence")
            if not str(e["planned"]).strip():
                errors.append(
                    f"{eid}: 'not yet tested' must say in 'planned' which chapter or issue tests it"
                )
        elif not ev:
            errors.append(f"{eid}: verdict {e['verdict']!r} cites no finding")
        mine = list(_numbers(e["paper_value"]))
        for cid in ev:
            c = by_id.get(cid)
            if c is None:
                continue
            for x in _numbers(c.get("paper")):
                if not any(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12) for y in mine):
                    errors.append(
                        f"{eid}: claim {cid!r} quotes the paper as {x:g}, which the map's "
                        f"paper_value {e['paper_value']!r} does not contain"
                    )
    return errors


def verdict_counts(entries: list[dict[str, Any]]) -> dict[str, int]:
    """How many entries have each verdict, in the order of :data:`VERDICTS`."""
    return {v: sum(1 for e in entries if e["verdict"] == v) for v in VERDICTS}


def counts_sentence(entries: list[dict[str, Any]]) -> str:
    """The one line the README and the report both print, e.g. ``"Of 30 statements of the papers: …"``."""
    n = verdict_counts(entries)
    return (
        f"Of {len(entries)} statements of the papers: {n['reproduced']} reproduced, "
        f"{n['reproduced with differences']} reproduced with differences, {n['contradicted']} "
        f"contradicted, {n['not yet tested']} not yet tested."
    )


def _cell(x: Any) -> str:
    """A table cell: the report's number formatting, on one line."""

    return _fmt(x).replace("\n", " ")


def render_map(entries: list[dict[str, Any]], claims: list[dict[str, Any]]) -> list[str]:
    """Markdown lines: the counts, then one table per paper (statement → verdict → evidence links)."""
    chapter = {c["id"]: c["chapter"] for c in claims}
    lines = [
        "## The papers' statements and what the book found",
        "",
        f"**{counts_sentence(entries)}** Each row is one statement of a paper; *evidence* links to the "
        "chapter that checks it (findings only); `reproduction/paper_claims.json` is the source, and a "
        "test keeps it consistent with the claims below.",
        "",
    ]
    for paper, title in PAPERS.items():
        rows = [e for e in entries if e["paper"] == paper]
        if not rows:
            continue
        lines += [
            f"### {title}",
            "",
            "| id | where | statement | paper | verdict | evidence | why |",
            "|---|---|---|---|---|---|---|",
        ]
        for e in rows:
            ev = ", ".join(
                f"[`{cid}`](notebooks/{chapter[cid]}.ipynb)" if cid in chapter else f"`{cid}`"
                for cid in e["evidence"]
            )
            why = e["why"] + (
                f" *Planned:* {e['planned']}" if e["verdict"] == "not yet tested" else ""
            )
            lines.append(
                f"| `{e['id']}` | {_cell(e['where'])} | {_cell(e['statement'])} | "
                f"{_cell(e['paper_value'])} | **{e['verdict']}** | {ev or '—'} | {_cell(why)} |"
            )
        lines.append("")
    return lines
