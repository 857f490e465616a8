"""The map from the papers' statements to the book's evidence (``reproduction/paper_claims.json``).

REPRODUCTION.md lists the book's own claims chapter by chapter. A referee asks the opposite question: *for
each thing the papers say, what did the book find?* The map answers it. It is written by hand, one entry
per statement of the two papers, and checked by code (:func:`validate`) against the claims the chapters
recorded (``reproduction/claims.json``) and against the source texts (the seeds).

**The verdict protocol.** Every entry carries

* ``quote`` — the words judged, as ``{"seed": file, "line": n, "text": words}`` (or a list of such):
  ``text`` must occur on line ``n`` of the seed (``line`` may be ``[first, last]`` for text that the PDF
  extraction broke over lines; ``…`` separates fragments that must occur in that order). Whose words they
  are follows from the seed (:data:`SEED_SOURCES`): the critical *summary* (000), the *lecture notes*
  (001) or the *paper* itself (002) — many disagreements are with a summary's wording, not with the paper;
* ``setting`` — ``{"paper": …, "book": …, "match": …}`` with ``match`` one of :data:`MATCHES`;
* ``test`` — a list of ``{"claim": id, "null_or_control": …}``: the findings that decide the verdict, each
  with the null or control that shows it could have come out the other way;
* ``uncertainty`` — the spread (seeds, binomial standard errors, re-run spread) of what is compared;
* ``verdict`` (one of :data:`VERDICTS`), by rule: ``reproduced`` when the claim holds at the paper's
  setting, across a measured range that includes it, or as mathematics; ``reproduced with differences``
  when it holds and each difference is measured and named; ``contradicted`` only with evidence at the
  paper's setting, a measured trend reaching it, or mathematics showing the statement false as printed;
  ``not yet tested`` (with ``planned``) otherwise;
* ``why`` — one or two sentences; measured numbers are not typed but written as templates
  ``{claim:ID}``, ``{claim:ID[key]}`` or ``{claim:ID[key]:.1%}`` (a Python format spec), rendered from
  the recorded claims by :func:`render_text`; ``{claim:ID@paper…}`` renders the value of claim ``ID`` in
  the committed paper-preset record of its chapter (:func:`template_claims`), so that a result too slow
  for the book preset is cited as computed, not typed. A paper-preset value is never evidence: the
  ``evidence`` and ``test`` fields cite book-preset claims only.

:func:`validate` fails an entry that lacks a field; whose quote is not found at its seed line; whose
evidence or test cites a claim that is missing, failed, or is a ``record`` or ``consistency`` claim (the
kinds come from the recorded claims); whose test does not name its null or control or cites a claim
outside the evidence; that is ``contradicted`` (or ``reproduced``) on evidence at a reduced or different
setting without a trend; whose template does not resolve; or whose cited claims quote the paper with a
number the entry's ``paper_value`` does not contain.

**Beyond the papers.** Entries with ``"paper": "beyond"`` are the book's own predictions (Part V), stated
in a chapter before it measured them. They follow the same protocol, with three changes: the verdict is one
of :data:`BEYOND_VERDICTS`; ``quote`` may be an empty list (the prediction is the book's words, given in
``statement`` and located in ``where``), and any seed quote given is checked as above; ``setting.match``
is ``"none"`` (there is no paper setting to compare). A failed prediction is recorded by its chapter as a
``record`` (a check that did not hold cannot be asserted), so records are evidence here: ``prediction
confirmed`` cites findings only, ``prediction partly confirmed`` at least one finding and one record,
``prediction failed`` at least one record; a ``consistency`` claim is never evidence. These entries are
listed under their own heading and are not counted among the papers' statements (:func:`counts_sentence`).

An entry::

    {"id": "qwem.thm1", "paper": "QWEM", "where": "Theorem 1, Appendix C",
     "statement": "…one sentence…",
     "quote": {"seed": "000_a8825ed751ba3cf0.txt", "line": 23, "text": "Theorem 1 (proved)"},
     "setting": {"paper": "…", "book": "…", "match": "mathematics"},
     "test": [{"claim": "qwem.thm1.gd_reaches_minimiser", "null_or_control": "…"}],
     "uncertainty": "round-off only", "paper_value": null, "verdict": "reproduced",
     "evidence": ["qwem.thm1.gd_reaches_minimiser"], "why": "… {claim:qwem.thm1.gd_reaches_minimiser} …",
     "planned": ""}
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from . import config
from .formatting import markdown_cell

__all__ = [
    "VERDICTS",
    "BEYOND",
    "BEYOND_VERDICTS",
    "PAPERS",
    "MATCHES",
    "SEED_SOURCES",
    "MAP_PATH",
    "seeds_dir",
    "load_seeds",
    "quote_source",
    "load_map",
    "render_text",
    "template_claims",
    "validate",
    "verdict_counts",
    "counts_sentence",
    "beyond_sentence",
    "render_map",
]

VERDICTS: tuple[str, ...] = (
    "reproduced",
    "reproduced with differences",
    "contradicted",
    "not yet tested",
)
BEYOND = "beyond"
"""``paper`` of an entry that is the book's own prediction, not a statement of a paper."""
BEYOND_VERDICTS: tuple[str, ...] = (
    "prediction confirmed",
    "prediction partly confirmed",
    "prediction failed",
)
BEYOND_MATCH = "none"
"""``setting["match"]`` of a beyond-the-papers entry: there is no paper setting to compare."""
PAPERS: dict[str, str] = {
    "QWEM": "Karkada, Simon, Bahri, DeWeese (2025), Closed-Form Training Dynamics … Word2Vec-like Models",
    "FC": "Laurent, von Brecht, Bresson (ICLR 2024), Feature Collapse",
}
MATCHES: dict[str, str] = {
    "same": "the book's evidence is at the paper's setting",
    "mathematics": "a mathematical statement: checked symbolically or on instances it was not built from",
    "trend": "smaller than the paper's, with a measured trend across scale that reaches the paper's setting",
    "reduced": "smaller than the paper's setting, no trend: the paper's size could reverse it",
    "different": "a different setting (corpus, model or protocol) from the paper's",
}
"""How the book's setting compares with the paper's (``setting["match"]``)."""
SEED_SOURCES: dict[str, str] = {
    "000": "the summary's words",
    "001": "the lecture notes' words",
    "002": "the paper's words",
}
"""Whose words a quote is, by the seed file's number."""
MAP_PATH = config.REPO_ROOT / "reproduction" / "paper_claims.json"
FIELDS: tuple[str, ...] = (
    "id",
    "paper",
    "where",
    "statement",
    "quote",
    "setting",
    "test",
    "uncertainty",
    "paper_value",
    "verdict",
    "evidence",
    "why",
    "planned",
)
_TEMPLATE = re.compile(r"\{claim:([A-Za-z0-9_.\-]+(?:@paper)?)((?:\[[^\]]*\])*)(?::([^{}]*))?\}")
PAPER_SUFFIX = "@paper"
_ELLIPSIS = "…"


def seeds_dir() -> Path:
    """Where the source texts live: ``QWEM_SEEDS_DIR``, else ``seeds/`` next to the data directory."""
    env = os.environ.get("QWEM_SEEDS_DIR")
    if env:
        return Path(env).expanduser()
    data = Path(os.environ.get("QWEM_DATA_DIR", config.REPO_ROOT / "data")).expanduser()
    for cand in (data.parent / "seeds", config.REPO_ROOT.parent / "shared" / "seeds"):
        if cand.is_dir():
            return cand
    return data.parent / "seeds"


def load_seeds(folder: Path | None = None) -> dict[str, list[str]] | None:
    """Every seed file's lines (``{file name: [line 1, line 2, …]}``), or None when there are none."""
    d = Path(folder) if folder is not None else seeds_dir()
    files = sorted(d.glob("[0-9][0-9][0-9]_*.txt")) if d.is_dir() else []
    if not files:
        return None
    return {f.name: f.read_text(encoding="utf-8").splitlines() for f in files}


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


def _norm(text: str) -> str:
    """Whitespace collapsed and typographic quotes unified, for comparing a quote with its line."""
    t = (
        text.replace("\u2018", "'")
        .replace("\u2019", "'")
        .replace("\u201c", '"')
        .replace("\u201d", '"')
    )
    return " ".join(t.split())


def _quotes(q: Any) -> list[Any]:
    return q if isinstance(q, list) else [q]


def _quote_errors(eid: str, q: Any, seeds: dict[str, list[str]] | None) -> list[str]:
    """What is wrong with one quote (its shape always; its text when the seeds are available)."""
    if not isinstance(q, dict) or not {"seed", "line", "text"} <= set(q):
        return [f"{eid}: a quote must be {{seed, line, text}}, got {q!r}"]
    seed, line, text = q["seed"], q["line"], q["text"]
    if not isinstance(seed, str) or seed[:3] not in SEED_SOURCES:
        return [f"{eid}: quote seed must be a seed file name starting {sorted(SEED_SOURCES)}"]
    span = line if isinstance(line, list) else [line]
    if not (
        1 <= len(span) <= 2
        and all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in span)
        and span[0] <= span[-1]
    ):
        return [f"{eid}: quote line must be a line number or [first, last], got {line!r}"]
    if not isinstance(text, str) or not text.replace(_ELLIPSIS, "").strip():
        return [f"{eid}: quote text must say something"]
    if seeds is None:
        return []
    lines = seeds.get(seed)
    if lines is None:
        return [f"{eid}: quote cites seed {seed!r}, which is not among the seeds"]
    if span[-1] > len(lines):
        return [f"{eid}: quote cites line {span[-1]} of {seed}, which has {len(lines)} lines"]
    hay = _norm(" ".join(lines[span[0] - 1 : span[-1]]))
    pos = 0
    for frag in (f for f in (_norm(x) for x in text.split(_ELLIPSIS)) if f):
        at = hay.find(frag, pos)
        if at < 0:
            return [f"{eid}: quote {frag[:60]!r} is not found at {seed} line {line}"]
        pos = at + len(frag)
    return []


def quote_source(q: dict[str, Any]) -> str:
    """Whose words a quote is and where: e.g. ``"the summary's words, seed 000 line 14"``."""
    line = q["line"]
    where = f"lines {line[0]}–{line[-1]}" if isinstance(line, list) else f"line {line}"
    return f"{SEED_SOURCES.get(q['seed'][:3], 'unknown source')}, seed {q['seed'][:3]} {where}"


def _lookup(value: Any, keys: str) -> Any:
    for key in re.findall(r"\[([^\]]*)\]", keys):
        if isinstance(value, list):
            value = value[int(key)]
        elif isinstance(value, dict):
            value = value[key]
        else:
            raise KeyError(key)
    return value


def template_claims(
    claims: list[dict[str, Any]], paper_records: dict[str, dict[str, Any]]
) -> list[dict[str, Any]]:
    """``claims`` and, under the id ``ID@paper``, every claim of the paper-preset records
    ``paper_records`` (the committed ones: :func:`qwem_lib.book.report.load_paper_records`): what the
    templates of the map may name. A paper-preset claim that did not pass is left out, so a template
    naming it fails to render."""
    out = list(claims)
    for rec in paper_records.values():
        for c in rec.get("claims", []):
            if c.get("passed"):
                out.append(dict(c, id=c["id"] + PAPER_SUFFIX, kind="paper-preset " + c["kind"]))
    return out


def render_text(text: str, claims: list[dict[str, Any]]) -> str:
    """``text`` with every ``{claim:ID[key]:fmt}`` template replaced by the recorded value.

    Without a format spec the value is printed as the report prints it. Raises ``KeyError`` for an
    unknown claim or key and ``ValueError`` for a format that does not apply.
    """
    from .formatting import markdown_cell

    by_id = {c["id"]: c for c in claims}

    def one(m: re.Match[str]) -> str:
        cid, keys, spec = m.group(1), m.group(2), m.group(3)
        if cid not in by_id:
            if cid.endswith(PAPER_SUFFIX):
                raise KeyError(
                    f"template names claim {cid[: -len(PAPER_SUFFIX)]!r} at the paper preset, which no "
                    "committed paper-preset record holds as passed"
                )
            raise KeyError(f"template names claim {cid!r}, which no chapter records")
        try:
            v = _lookup(by_id[cid]["value"], keys)
        except (KeyError, IndexError, ValueError) as exc:
            raise KeyError(f"template {m.group(0)!r}: no such key ({exc})") from None
        if spec is None:
            return markdown_cell(v)
        try:
            return format(v, spec)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"template {m.group(0)!r}: {exc}") from None

    return _TEMPLATE.sub(one, text)


def validate(
    entries: list[dict[str, Any]],
    claims: list[dict[str, Any]],
    seeds: dict[str, list[str]] | None = None,
) -> list[str]:
    """Every way in which the map breaks the protocol or disagrees with the claims (empty when sound).

    ``seeds`` (from :func:`load_seeds`) enables the check that each quote occurs at its seed line; without
    them only the quotes' shape is checked.
    """
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
        beyond = e["paper"] == BEYOND
        if e["paper"] not in PAPERS and not beyond:
            errors.append(
                f"{eid}: paper must be one of {sorted(PAPERS) + [BEYOND]}, got {e['paper']!r}"
            )
        allowed = BEYOND_VERDICTS if beyond else VERDICTS
        if e["verdict"] not in allowed:
            errors.append(f"{eid}: verdict must be one of {allowed}, got {e['verdict']!r}")
        for f in ("statement", "why", "uncertainty"):
            if not str(e[f]).strip():
                errors.append(f"{eid}: {f} must say something")
        # -- the quote ---------------------------------------------------------------------------
        qs = _quotes(e["quote"])
        if not qs and not beyond:
            errors.append(f"{eid}: quote must cite at least one seed line")
        for q in qs:
            errors += _quote_errors(eid, q, seeds)
        # -- the setting -------------------------------------------------------------------------
        st = e["setting"]
        if not isinstance(st, dict) or not {"paper", "book", "match"} <= set(st):
            errors.append(f"{eid}: setting must be {{paper, book, match}}")
            st = {"paper": "", "book": "", "match": None}
        elif beyond and st["match"] != BEYOND_MATCH:
            errors.append(
                f"{eid}: a beyond-the-papers entry's setting match must be {BEYOND_MATCH!r}, "
                f"got {st['match']!r}"
            )
        elif not beyond and st["match"] not in MATCHES:
            errors.append(
                f"{eid}: setting match must be one of {list(MATCHES)}, got {st['match']!r}"
            )
        elif not str(st["paper"]).strip() or not str(st["book"]).strip():
            errors.append(f"{eid}: setting must name the paper's and the book's settings")
        if e["verdict"] in ("contradicted", "reproduced") and st["match"] in (
            "reduced",
            "different",
        ):
            errors.append(
                f"{eid}: {e['verdict']!r} on evidence at a {st['match']} setting without a trend; "
                "the paper's setting could reverse it (a difference, not a verdict)"
            )
        # -- evidence and test -------------------------------------------------------------------
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
            elif beyond and c.get("kind") not in ("finding", "record"):
                errors.append(
                    f"{eid}: cites {cid!r}, a {c.get('kind')} claim; a prediction's evidence is "
                    "findings (held) and records (did not hold)"
                )
            elif not beyond and c.get("kind") != "finding":
                errors.append(
                    f"{eid}: cites {cid!r}, a {c.get('kind')} claim; only findings are evidence"
                )
        if beyond:
            kinds = [by_id[cid].get("kind") for cid in ev if cid in by_id]
            held, missed = kinds.count("finding"), kinds.count("record")
            v = e["verdict"]
            if v == "prediction confirmed" and missed:
                errors.append(
                    f"{eid}: 'prediction confirmed' but cites records (checks that missed)"
                )
            elif v == "prediction partly confirmed" and not (held and missed):
                errors.append(
                    f"{eid}: 'prediction partly confirmed' needs a finding that held and a record "
                    "that did not"
                )
            elif v == "prediction failed" and not missed:
                errors.append(f"{eid}: 'prediction failed' cites no record of the miss")
        tests = e["test"]
        if not isinstance(tests, list):
            errors.append(f"{eid}: test must be a list of {{claim, null_or_control}}")
            tests = []
        for t in tests:
            if not isinstance(t, dict) or not {"claim", "null_or_control"} <= set(t):
                errors.append(f"{eid}: each test must be {{claim, null_or_control}}, got {t!r}")
                continue
            if t["claim"] not in ev:
                errors.append(f"{eid}: test cites {t['claim']!r}, which is not in its evidence")
            if not str(t["null_or_control"]).strip():
                errors.append(
                    f"{eid}: test {t['claim']!r} must name the null or control that shows it can fail"
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
        elif not tests:
            errors.append(f"{eid}: verdict {e['verdict']!r} names no test that decides it")
        # -- templates ---------------------------------------------------------------------------
        for f in ("why", "uncertainty"):
            try:
                render_text(str(e[f]), claims)
            except (KeyError, ValueError) as exc:
                errors.append(f"{eid}: {f}: {exc.args[0] if exc.args else exc}")
        # -- the paper's numbers -----------------------------------------------------------------
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
    """How many of the papers' statements have each verdict, in the order of :data:`VERDICTS`."""
    papers = [e for e in entries if e["paper"] != BEYOND]
    return {v: sum(1 for e in papers if e["verdict"] == v) for v in VERDICTS}


def counts_sentence(entries: list[dict[str, Any]]) -> str:
    """The one line the README and the report both print, e.g. ``"Of 30 statements of the papers: …"``.

    The book's own predictions (``"paper": "beyond"``) are not among the papers' statements.
    """
    n = verdict_counts(entries)
    total = sum(1 for e in entries if e["paper"] != BEYOND)
    return (
        f"Of {total} statements of the papers: {n['reproduced']} reproduced, "
        f"{n['reproduced with differences']} reproduced with differences, {n['contradicted']} "
        f"contradicted, {n['not yet tested']} not yet tested."
    )


def beyond_sentence(entries: list[dict[str, Any]]) -> str:
    """The count of the book's own predictions, e.g. ``"Beyond the papers, 10 predictions: …"``."""
    rows = [e for e in entries if e["paper"] == BEYOND]
    n = {v: sum(1 for e in rows if e["verdict"] == v) for v in BEYOND_VERDICTS}
    return (
        f"Beyond the papers, {len(rows)} predictions of the book's own: "
        f"{n['prediction confirmed']} confirmed, {n['prediction partly confirmed']} partly confirmed, "
        f"{n['prediction failed']} failed."
    )


def _cell(x: Any) -> str:
    """A table cell: the report's number formatting, on one line."""

    return markdown_cell(x).replace("\n", " ")


def _safe_render(text: str, claims: list[dict[str, Any]]) -> str:
    try:
        return render_text(text, claims)
    except (KeyError, ValueError):
        return text


def render_map(entries: list[dict[str, Any]], claims: list[dict[str, Any]]) -> list[str]:
    """Markdown lines: the counts, one summary table per paper, then every entry under the protocol."""
    chapter = {c["id"]: c["chapter"] for c in claims}

    def link(cid: str) -> str:
        return f"[`{cid}`](notebooks/{chapter[cid]}.ipynb)" if cid in chapter else f"`{cid}`"

    lines = [
        "## The papers' statements and what the book found",
        "",
        f"**{counts_sentence(entries)}** Each entry is one statement of a paper, quoted from the source "
        "texts (seed file and line; the summary's words are marked as such, since many disagreements are "
        "with a summary's wording rather than with the paper), with the paper's and the book's settings, "
        "the findings that decide it and the null or control that shows each could have failed, and the "
        "uncertainty of what is compared. `reproduction/paper_claims.json` is the source; "
        "`qwem_lib.book.paper_map.validate` enforces the protocol and a test keeps the map consistent with the "
        "claims below. Setting *match*: "
        + "; ".join(f"**{k}** — {v}" for k, v in MATCHES.items())
        + ".",
        "",
    ]
    sections = list(PAPERS.items()) + [
        (
            BEYOND,
            "Beyond the papers: the book's own predictions",
        )
    ]
    for paper, title in sections:
        rows = [e for e in entries if e["paper"] == paper]
        if not rows:
            continue
        lines += [f"### {title}", ""]
        if paper == BEYOND:
            lines += [
                f"**{beyond_sentence(entries)}** Predictions the book stated in a chapter before "
                "measuring them (Part V). They are not statements of the papers and are not counted "
                "above; a failed prediction is a record of the check that missed.",
                "",
            ]
        lines += [
            "| id | where | statement | paper | verdict | setting | evidence |",
            "|---|---|---|---|---|---|---|",
        ]
        for e in rows:
            ev = ", ".join(link(cid) for cid in e["evidence"])
            lines.append(
                f"| [`{e['id']}`](#{_anchor(e['id'])}) | {_cell(e['where'])} | {_cell(e['statement'])} | "
                f"{_cell(e['paper_value'])} | **{e['verdict']}** | {e['setting'].get('match', '—')} | "
                f"{ev or '—'} |"
            )
        lines.append("")
        for e in rows:
            lines += [f"#### {e['id']}", ""]
            if paper == BEYOND:
                lines += [f"*Prediction ({_cell(e['where'])}):* {_cell(e['statement'])}", ""]
            for q in _quotes(e["quote"]):
                lines.append(f"> “{_cell(q['text'])}” — *{quote_source(q)}*")
                lines.append(">")
            if lines[-1] == ">":
                lines.pop()
            if lines[-1] == "":  # a prediction without a quote
                lines.pop()
            st = e["setting"]
            lines += [
                "",
                f"* **Verdict:** {e['verdict']}. {_cell(_safe_render(e['why'], claims))}"
                + (
                    f" *Planned:* {_cell(e['planned'])}" if e["verdict"] == "not yet tested" else ""
                ),
                f"* **Setting** ({st.get('match', '—')}): paper — {_cell(st.get('paper', ''))}; "
                f"book — {_cell(st.get('book', ''))}.",
            ]
            for t in e["test"]:
                lines.append(
                    f"* **Test:** {link(t['claim'])} — *null / control:* {_cell(t['null_or_control'])}"
                )
            lines += [f"* **Uncertainty:** {_cell(_safe_render(e['uncertainty'], claims))}", ""]
    return lines


def _anchor(eid: str) -> str:
    """GitHub's anchor for a ``#### id`` heading (lower case, dots dropped)."""
    return re.sub(r"[^a-z0-9_\- ]", "", eid.lower()).replace(" ", "-")
