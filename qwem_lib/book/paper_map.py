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
  setting, across a measured range that includes it, or as mathematics; ``reproduced at reduced size``
  when it holds at a smaller V, d, K, corpus or step count (``setting.match`` is ``reduced``), with
  ``settle`` saying which size or run would settle it — a reduced size is not a difference;
  ``reproduced with differences`` when it holds and the book names and measures a difference, given in
  ``difference``, which must cite the measurement (a ``{claim:ID}`` template); ``contradicted`` only with
  evidence at the paper's setting, a measured trend reaching it, or mathematics showing the statement false
  as printed; ``not resolved`` when a test ran and could not decide (its result is the evidence, findings or
  records, and ``settle`` says what would decide it); ``not yet tested`` (with ``planned``) only when no
  test ran: such an entry cites no claim anywhere, not even in its text;
* ``wording`` — true when the verdict concerns a summary's (or the notes') wording rather than the paper's
  mathematics (then a quote must be from seed 000 or 001); ``where`` must name the place in the paper
  (theorem, section, equation, figure, table or appendix);
* ``numbers`` — ``{"paper": …, "book": …, "paper_preset": …}``: the paper's number, the book preset's and
  the paper preset's, each with its uncertainty, as one line of the verdict tables (templates allowed;
  ``book`` cites book-preset claims only, ``paper_preset`` ``@paper`` ones only);
* ``why`` — one or two sentences; measured numbers are not typed but written as templates
  ``{claim:ID}``, ``{claim:ID[key]}`` or ``{claim:ID[key]:.1%}`` (a Python format spec), rendered from
  the recorded claims by :func:`render_text`; ``{claim:ID@paper…}`` renders the value of claim ``ID`` in
  the committed paper-preset record of its chapter (:func:`template_claims`), so that a result too slow
  for the book preset is cited as computed, not typed. **Paper-preset records decide at the paper's
  size:** a paper-preset finding from a record executed from the chapter's *current* source (drift 0,
  :func:`paper_record_drift`) is evidence (``ID@paper`` in ``evidence`` and
  ``test``), and can make a verdict ``reproduced`` or ``contradicted`` although the book preset's setting
  is reduced; a drifted record is not evidence until it is re-executed (its values may be shown, and the
  tables mark them :data:`DRIFTED_MARK`).

:func:`validate` fails an entry that lacks a field; whose quote is not found at its seed line; whose
evidence or test cites a claim that is missing, failed, or is a ``record`` or ``consistency`` claim (the
kinds come from the recorded claims); whose test does not name its null or control or cites a claim
outside the evidence; that is ``contradicted`` (or ``reproduced``) on evidence at a reduced or different
setting without a trend (unless a current paper-preset finding decides it); that breaks a rule of its
verdict above; whose template does not resolve; or whose cited claims quote the paper with a number the
entry's ``paper_value`` does not contain.

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

PAPER_NOTEBOOKS = config.REPO_ROOT / "reproduction" / "paper"
"""The executed paper-preset notebooks (``reproduction/paper/NN_slug.ipynb``)."""

__all__ = [
    "PAPER_NOTEBOOKS",
    "paper_record_drift",
    "paper_record_prose_drift",
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
    "readme_block",
    "verdict_rows",
    "number_cells",
    "paper_evidence_ok",
    "DECISIVE",
    "NUMBER_CELLS",
]

VERDICTS: tuple[str, ...] = (
    "reproduced",
    "reproduced at reduced size",
    "reproduced with differences",
    "contradicted",
    "not resolved",
    "not yet tested",
)
DECISIVE: tuple[str, ...] = ("reproduced", "contradicted")
"""Verdicts that need evidence at the paper's setting (or a trend reaching it, or mathematics)."""
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
OPTIONAL_FIELDS: tuple[str, ...] = ("settle", "difference", "wording", "numbers")
"""Fields that some verdicts or entries need (:func:`validate` says which)."""
NUMBER_CELLS: tuple[str, ...] = ("paper", "book", "paper_preset")
"""The three cells of a statement's row of numbers: the paper's, the book preset's, the paper preset's."""
_WHERE = re.compile(
    r"\b(Theorem|Lemma|Proposition|Result|Section|Figure|Appendix|Equation|eq\.|Setting|Table|Remark)",
    re.I,
)
"""A ``where`` names a place in the paper: a theorem, section, equation, figure, table or appendix."""
DRIFTED_MARK = "†"
"""Marks a number from a paper-preset record executed from an earlier version of its chapter."""
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
    claims: list[dict[str, Any]],
    paper_records: dict[str, dict[str, Any]],
    drift: dict[str, int] | None = None,
) -> list[dict[str, Any]]:
    """``claims`` and, under the id ``ID@paper``, every claim of the paper-preset records
    ``paper_records`` (the committed ones: :func:`qwem_lib.book.report.load_paper_records`): what the
    templates of the map may name. A paper-preset claim that did not pass is left out, so a template
    naming it fails to render.

    Each paper-preset claim carries ``drift``: how many code cells of its chapter's current source differ
    from the executed paper-preset notebook (``drift[chapter]`` where given, else
    :func:`paper_record_drift`; -1 where the notebook is missing). Only a record with
    drift 0 is what the current source computes, so only its findings can be evidence (:func:`validate`).
    """
    out = list(claims)
    for chapter, rec in paper_records.items():
        n = drift.get(chapter, -1) if drift is not None else paper_record_drift(chapter)[0]
        for c in rec.get("claims", []):
            if c.get("passed"):
                out.append(
                    dict(
                        c,
                        id=c["id"] + PAPER_SUFFIX,
                        kind="paper-preset " + c["kind"],
                        chapter=rec.get("chapter", chapter),
                        drift=n,
                    )
                )
    return out


def paper_evidence_ok(c: dict[str, Any]) -> bool:
    """Whether a paper-preset claim (from :func:`template_claims`) is evidence at the paper's size: a
    finding (the chapter asserts it, so a re-run that flips it fails), passed, in a record executed from the
    chapter's current source (drift 0)."""
    return (
        c.get("kind") == "paper-preset finding" and c.get("drift") == 0 and c.get("passed") is True
    )


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


def _cited(text: str) -> list[str]:
    """The claim ids a text's templates name (``ID`` or ``ID@paper``)."""
    return [m.group(1) for m in _TEMPLATE.finditer(text)]


def _texts(e: dict[str, Any]) -> dict[str, str]:
    """An entry's texts that may hold templates, by field (``numbers.book`` etc. for the number cells)."""
    out = {f: str(e.get(f, "")) for f in ("why", "uncertainty", "difference", "settle")}
    nums = e.get("numbers")
    if isinstance(nums, dict):
        out.update({f"numbers.{k}": str(nums.get(k, "")) for k in NUMBER_CELLS})
    return out


def _evidence_errors(
    eid: str, cid: str, c: dict[str, Any] | None, verdict: str, beyond: bool
) -> list[str]:
    """What is wrong with citing claim ``cid`` (``c``, None when unknown) as evidence."""
    if c is None:
        return [f"{eid}: cites {cid!r}, which no chapter records"]
    if c.get("passed") is not True:
        return [f"{eid}: cites {cid!r}, which did not pass"]
    if cid.endswith(PAPER_SUFFIX):
        n = c.get("drift", -1)
        if n != 0:
            why = (
                f"executed from an earlier version of the chapter ({n} code cells differ)"
                if n > 0
                else "whose executed notebook is missing"
            )
            return [
                f"{eid}: cites {cid!r}, from the paper-preset record of {c.get('chapter')} {why}: a drifted "
                "record is not evidence until it is re-executed"
            ]
        if c.get("kind") != "paper-preset finding":
            return [f"{eid}: cites {cid!r}, a {c.get('kind')} claim; only findings are evidence"]
        return []
    kind = c.get("kind")
    if beyond and kind not in ("finding", "record"):
        return [
            f"{eid}: cites {cid!r}, a {kind} claim; a prediction's evidence is findings (held) and "
            "records (did not hold)"
        ]
    if not beyond and verdict == "not resolved" and kind not in ("finding", "record"):
        return [
            f"{eid}: cites {cid!r}, a {kind} claim; an unresolved test's result is a finding or a record"
        ]
    if not beyond and verdict != "not resolved" and kind != "finding":
        return [f"{eid}: cites {cid!r}, a {kind} claim; only findings are evidence"]
    return []


def _verdict_errors(e: dict[str, Any], by_id: dict[str, dict[str, Any]]) -> list[str]:
    """The rules of the amended protocol that depend on the verdict (see the module docstring)."""
    eid, v, ev, tests = e["id"], e["verdict"], e["evidence"], e["test"]
    match = e["setting"].get("match") if isinstance(e["setting"], dict) else None
    errors: list[str] = []
    if v == "not yet tested":
        if ev:
            errors.append(f"{eid}: 'not yet tested' but cites evidence")
        if tests:
            errors.append(f"{eid}: 'not yet tested' but names a test that ran")
        ran = sorted({cid for t in _texts(e).values() for cid in _cited(t)})
        if ran:
            errors.append(
                f"{eid}: 'not yet tested' but a test ran: its text cites measured results {ran}; say "
                "'not resolved', with the result"
            )
        if not str(e["planned"]).strip():
            errors.append(
                f"{eid}: 'not yet tested' must say in 'planned' which chapter or issue tests it"
            )
        return errors
    if not ev:
        errors.append(f"{eid}: verdict {v!r} cites no finding")
    elif not tests:
        errors.append(f"{eid}: verdict {v!r} names no test that decides it")
    if v in ("not resolved", "reproduced at reduced size") and not str(e.get("settle", "")).strip():
        errors.append(f"{eid}: {v!r} must say in 'settle' which size or run would settle it")
    if v == "reproduced at reduced size" and match != "reduced":
        errors.append(
            f"{eid}: 'reproduced at reduced size' needs a reduced setting (match 'reduced'), got {match!r}"
        )
    if v == "reproduced with differences":
        diff = str(e.get("difference", ""))
        if not diff.strip():
            errors.append(
                f"{eid}: 'reproduced with differences' must name the difference in 'difference'"
            )
        elif not _cited(diff):
            errors.append(
                f"{eid}: 'reproduced with differences' names no measured difference: 'difference' must "
                "cite the measurement ({claim:ID})"
            )
    if v in DECISIVE and match in ("reduced", "different"):
        at_paper = [cid for cid in ev if cid in by_id and paper_evidence_ok(by_id[cid])]
        if not at_paper:
            errors.append(
                f"{eid}: {v!r} on evidence at a {match} setting without a trend; "
                "the paper's setting could reverse it (a difference, not a verdict)"
            )
    return errors


def _paper_entry_errors(e: dict[str, Any]) -> list[str]:
    """What a statement of a paper (not a prediction) needs besides the common fields: a ``where`` in
    the paper, the ``wording`` flag, and its row of ``numbers``."""
    eid, errors = e["id"], []
    if not _WHERE.search(str(e["where"])):
        errors.append(
            f"{eid}: where must name the place in the paper (theorem, section, equation, figure, table "
            f"or appendix), got {e['where']!r}"
        )
    w = e.get("wording")
    if not isinstance(w, bool):
        errors.append(
            f"{eid}: wording must be true (the verdict concerns a summary's wording) or false, got {w!r}"
        )
    elif w and not any(
        isinstance(q, dict) and str(q.get("seed", ""))[:3] in ("000", "001")
        for q in _quotes(e["quote"])
    ):
        errors.append(
            f"{eid}: wording is true but no quote is a summary's or the notes' words (seed 000 or 001)"
        )
    nums = e.get("numbers")
    if not isinstance(nums, dict) or not set(NUMBER_CELLS) <= set(nums):
        errors.append(f"{eid}: numbers must be {{paper, book, paper_preset}}, got {nums!r}")
        return errors
    for k in NUMBER_CELLS:
        if not str(nums[k]).strip():
            errors.append(f"{eid}: numbers.{k} must say something (e.g. 'not run')")
    if any(c.endswith(PAPER_SUFFIX) for c in _cited(str(nums["book"]))):
        errors.append(f"{eid}: numbers.book cites a paper-preset value")
    if any(not c.endswith(PAPER_SUFFIX) for c in _cited(str(nums["paper_preset"]))):
        errors.append(f"{eid}: numbers.paper_preset cites a book-preset value")
    return errors


def validate(
    entries: list[dict[str, Any]],
    claims: list[dict[str, Any]],
    seeds: dict[str, list[str]] | None = None,
) -> list[str]:
    """Every way in which the map breaks the protocol or disagrees with the claims (empty when sound).

    ``claims`` are the recorded claims, with the paper-preset ones under ``ID@paper``
    (:func:`template_claims`). ``seeds`` (from :func:`load_seeds`) enables the check that each quote occurs
    at its seed line; without them only the quotes' shape is checked.
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
        if not beyond:
            errors += _paper_entry_errors(e)
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
            e = dict(e, setting={"paper": "", "book": "", "match": None})
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
        # -- evidence and test -------------------------------------------------------------------
        ev = e["evidence"]
        if not isinstance(ev, list):
            errors.append(f"{eid}: evidence must be a list of claim ids")
            continue
        for cid in ev:
            errors += _evidence_errors(eid, cid, by_id.get(cid), e["verdict"], beyond)
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
            e = dict(e, test=[])
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
        errors += _verdict_errors(e, by_id)
        # -- templates ---------------------------------------------------------------------------
        for f, text in _texts(e).items():
            try:
                render_text(text, claims)
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
        f"Of {total} statements of the papers: "
        + ", ".join(f"{n[v]} {v}" for v in VERDICTS[:-1])
        + f" and {n[VERDICTS[-1]]} {VERDICTS[-1]}."
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


def number_cells(
    e: dict[str, Any], claims: list[dict[str, Any]], *, escape: bool = True
) -> tuple[str, str, str]:
    """A statement's numbers, rendered: the paper's, the book preset's and the paper preset's (each with
    its uncertainty, as written in ``numbers``). A paper-preset number from a record executed from an
    earlier version of its chapter is marked :data:`DRIFTED_MARK`: it is shown, but it is not evidence.
    ``escape``: ``|`` escaped for a Markdown table (off for a caller that escapes itself)."""
    nums = e.get("numbers") or {}
    by_id = {c["id"]: c for c in claims}
    out = []
    for k in NUMBER_CELLS:
        raw = _safe_render(str(nums.get(k, "—")), claims)
        text = _cell(raw) if escape else " ".join(raw.split())
        drifted = [c for c in _cited(str(nums.get(k, ""))) if by_id.get(c, {}).get("drift", 0) != 0]
        out.append(text + (f" {DRIFTED_MARK}" if drifted else ""))
    return out[0], out[1], out[2]


def verdict_label(e: dict[str, Any]) -> str:
    """The verdict as the tables print it, marked when it concerns a summary's wording."""
    return f"**{e['verdict']}**" + (" *(wording)*" if e.get("wording") else "")


SOURCES_NOTE = (
    "The QWEM paper's own text is not among the sources: its statements are quoted from a critical summary "
    "of it (seed 000; two phrases from lecture notes on it, seed 001), the Feature Collapse statements from "
    "the paper itself (seed 002). Each statement gives its place in the paper (*where*: section, equation, "
    "figure or appendix); a verdict marked *(wording)* concerns the summary's wording rather than the "
    "paper's mathematics."
)


def verdict_rows(entries: list[dict[str, Any]], claims: list[dict[str, Any]]) -> list[str]:
    """The one-line-per-statement table of the papers' statements: verdict, and the paper's number, the
    book preset's and the paper preset's, each with its uncertainty (the README's summary block and the
    report print it)."""
    rows = [
        "| statement | where | verdict | paper | book preset | paper preset |",
        "|---|---|---|---|---|---|",
    ]
    for e in entries:
        if e["paper"] == BEYOND:
            continue
        p, b, pp = number_cells(e, claims)
        rows.append(
            f"| [`{e['id']}`](REPRODUCTION.md#{_anchor(e['id'])}) | {_cell(e['where'])} | "
            f"{verdict_label(e)} | {p} | {b} | {pp} |"
        )
    return rows


def readme_block(entries: list[dict[str, Any]], claims: list[dict[str, Any]]) -> list[str]:
    """The README's generated summary (between its ``verdicts`` markers): the counts and the table."""
    lines = [f"**{counts_sentence(entries)}**"]
    if any(e["paper"] == BEYOND for e in entries):
        lines.append(f"**{beyond_sentence(entries)}**")
    return (
        lines
        + [
            "",
            SOURCES_NOTE + f" {DRIFTED_MARK}: from a paper-preset record of an earlier version of "
            "its chapter (shown, not evidence).",
            "",
        ]
        + verdict_rows(entries, claims)
    )


def render_map(entries: list[dict[str, Any]], claims: list[dict[str, Any]]) -> list[str]:
    """Markdown lines: the counts, one summary table per paper, then every entry under the protocol."""
    chapter = {c["id"]: c["chapter"] for c in claims}
    by_id = {c["id"]: c for c in claims}

    def link(cid: str) -> str:
        if cid.endswith(PAPER_SUFFIX) and cid in chapter:
            return f"[`{cid}`](reproduction/paper/{chapter[cid]}.ipynb)"
        return f"[`{cid}`](notebooks/{chapter[cid]}.ipynb)" if cid in chapter else f"`{cid}`"

    lines = [
        "## The papers' statements and what the book found",
        "",
        f"**{counts_sentence(entries)}** " + SOURCES_NOTE,
        "",
        "Each entry is one statement of a paper, quoted from the source texts (seed file and line), with "
        "the paper's and the book's settings, the findings that decide it and the null or control that shows "
        "each could have failed, and the uncertainty of what is compared. The verdicts: **reproduced** (at "
        "the paper's setting, across a measured range that includes it, or as mathematics); **reproduced at "
        "reduced size** (the paper's result at a smaller V, d, K, corpus or step count, with the size that "
        "would settle it); **reproduced with differences** (a difference the book names and measures); "
        "**contradicted**; **not resolved** (a test ran and could not decide, with its result); **not yet "
        "tested**. A paper-preset record executed from the chapter's current source decides at the paper's "
        f"size; one executed from an earlier version ({DRIFTED_MARK}) is shown but is not evidence. "
        "`reproduction/paper_claims.json` is the source; `qwem_lib.book.paper_map.validate` enforces the "
        "protocol and a test keeps the map consistent with the claims ([reproduction/CLAIMS.md]"
        "(reproduction/CLAIMS.md), chapter by chapter). Setting *match*: "
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
                "| id | where | statement | verdict | evidence |",
                "|---|---|---|---|---|",
            ]
            for e in rows:
                ev = ", ".join(link(cid) for cid in e["evidence"])
                lines.append(
                    f"| [`{e['id']}`](#{_anchor(e['id'])}) | {_cell(e['where'])} | "
                    f"{_cell(e['statement'])} | **{e['verdict']}** | {ev or '—'} |"
                )
        else:
            lines += [
                "| id | where | statement | verdict | paper | book preset | paper preset |",
                "|---|---|---|---|---|---|---|",
            ]
            for e in rows:
                p, b, pp = number_cells(e, claims)
                lines.append(
                    f"| [`{e['id']}`](#{_anchor(e['id'])}) | {_cell(e['where'])} | "
                    f"{_cell(e['statement'])} | {verdict_label(e)} | {p} | {b} | {pp} |"
                )
        lines.append("")
        for e in rows:
            lines += [f"#### {e['id']}", ""]
            if paper == BEYOND:
                lines += [f"*Prediction ({_cell(e['where'])}):* {_cell(e['statement'])}", ""]
            else:
                lines += [f"*{_cell(e['where'])}:* {_cell(e['statement'])}", ""]
            for q in _quotes(e["quote"]):
                lines.append(f"> “{_cell(q['text'])}” — *{quote_source(q)}*")
                lines.append(">")
            if lines[-1] == ">":
                lines.pop()
            if lines[-1] == "":  # a prediction without a quote
                lines.pop()
            st = e["setting"]
            v = e["verdict"]
            lines += [
                "",
                f"* **Verdict:** {v}"
                + (" (on the summary's wording)" if e.get("wording") else "")
                + f". {_cell(_safe_render(e['why'], claims))}",
            ]
            if v == "reproduced with differences":
                lines.append(
                    f"* **Difference:** {_cell(_safe_render(str(e.get('difference', '')), claims))}"
                )
            if v in ("reproduced at reduced size", "not resolved"):
                lines.append(
                    f"* **What would settle it:** {_cell(_safe_render(str(e.get('settle', '')), claims))}"
                )
            if v == "not yet tested":
                lines.append(f"* **Planned:** {_cell(e['planned'])}")
            lines.append(
                f"* **Setting** ({st.get('match', '—')}): paper — {_cell(st.get('paper', ''))}; "
                f"book — {_cell(st.get('book', ''))}."
            )
            if paper != BEYOND:
                p, b, pp = number_cells(e, claims)
                lines.append(f"* **Numbers:** paper — {p}; book preset — {b}; paper preset — {pp}.")
            for t in e["test"]:
                at = by_id.get(t["claim"], {})
                where = " (paper preset)" if t["claim"].endswith(PAPER_SUFFIX) and at else ""
                lines.append(
                    f"* **Test:** {link(t['claim'])}{where} — *null / control:* "
                    f"{_cell(t['null_or_control'])}"
                )
            lines += [f"* **Uncertainty:** {_cell(_safe_render(e['uncertainty'], claims))}", ""]
    return lines


def _anchor(eid: str) -> str:
    """GitHub's anchor for a ``#### id`` heading (lower case, dots dropped)."""
    return re.sub(r"[^a-z0-9_\- ]", "", eid.lower()).replace(" ", "-")


def _record_cells(
    chapter: str, notebooks: Path | None, paper: Path | None
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]] | None:
    """The cells ``(type, text)`` of ``notebooks/<chapter>.py`` and of its executed paper-preset notebook;
    None where either file is missing."""
    import jupytext  # only the report and its tests need it

    py = (
        Path(notebooks) if notebooks is not None else config.REPO_ROOT / "notebooks"
    ) / f"{chapter}.py"
    nb_path = (Path(paper) if paper is not None else PAPER_NOTEBOOKS) / f"{chapter}.ipynb"
    if not (py.is_file() and nb_path.is_file()):
        return None
    src = [(c.cell_type, c.source.strip()) for c in jupytext.read(py).cells]
    ran = [
        (c["cell_type"], "".join(c["source"]).strip())
        for c in json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
    ]
    return src, ran


def _differ(kind: str, src: list[tuple[str, str]], ran: list[tuple[str, str]]) -> tuple[int, int]:
    """How many of the cells of type ``kind`` differ, in order (a cell present in only one counts), and
    how many the source has."""
    a = [t for k, t in src if k == kind]
    b = [t for k, t in ran if k == kind]
    return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b)), len(a)


def paper_record_drift(
    chapter: str, *, notebooks: Path | None = None, paper: Path | None = None
) -> tuple[int, int]:
    """How far a chapter's paper-preset record is from the code of the chapter's current source:
    ``(differ, cells)``, the number of code cells of ``notebooks/<chapter>.py`` whose text differs from the
    code cell at the same place in the executed notebook ``reproduction/paper/<chapter>.ipynb`` (code cells
    present in only one count as differing), and the number of code cells of the source.

    Only code cells compute, so ``(0, n)`` means the record holds what the current source computes: its
    values are the current chapter's, even where its prose was edited since (:func:`paper_record_prose_drift`
    counts those edits, and the report says so). Otherwise the record was executed from an earlier version
    of the code, and its values are that version's (a paper-preset run takes hours, so CI cannot redo it;
    the report says so instead). ``(-1, 0)`` where either file is missing."""
    cells = _record_cells(chapter, notebooks, paper)
    return (-1, 0) if cells is None else _differ("code", *cells)


def paper_record_prose_drift(
    chapter: str, *, notebooks: Path | None = None, paper: Path | None = None
) -> tuple[int, int]:
    """Like :func:`paper_record_drift` for the markdown cells: ``(differ, cells)``, how many of the
    source's prose cells were edited since the record was executed (a cross-reference renumbered, a
    sentence rewritten). Prose computes nothing, so this never makes a record stale; the report mentions
    it so that a reader who opens the executed record knows its text is older than the chapter's."""
    cells = _record_cells(chapter, notebooks, paper)
    return (-1, 0) if cells is None else _differ("markdown", *cells)
