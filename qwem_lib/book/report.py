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
pass/fail, preset, device; for a pre-registered prediction also its ``outcome``) to
``<records dir>/<chapter>.json`` at once, prints one line a reader can take in at a glance (see
:func:`check_line`: mark, kind, id, the value to three significant figures against its tolerance; the
statement stays in the record and the report), and raises ``AssertionError`` when the claim fails, so
nbval fails with it. ``python -m qwem_lib.book.report`` (run by ``make book``) gathers every chapter's
records into ``reproduction/claims.json``, ``REPRODUCTION.md`` (the verdicts on the papers' statements)
and ``reproduction/CLAIMS.md`` (every claim, chapter by chapter).

The records directory is ``QWEM_REPORT_DIR`` if set (the tests point it at a temporary folder), else
``reproduction/records`` when the book build runs a chapter at the ``book`` preset, and a cache folder
otherwise (see :func:`records_dir`): only ``tools/build_book.py`` touches the committed report, so a
reader running a chapter in JupyterLab cannot truncate its committed record. Records are written through
the cache's atomic writer (:func:`qwem_lib.book.cache.atomic_path`): two processes writing at once never see a
half-written file nor collide on a temporary name. Each record also carries the versions of the packages
that determine the numbers (:func:`qwem_lib.book.config.package_versions`); the report lists them by chapter.
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
from .formatting import markdown_cell, short, sig
from .paper_map import (  # noqa: F401 (PAPER_NOTEBOOKS re-exported)
    PAPER_NOTEBOOKS,
    paper_record_drift,
    paper_record_prose_drift,
)

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

OPTIONAL_KEYS: tuple[str, ...] = ("versions", "outcome")
"""Keys a record may carry besides :data:`KEYS` (records written before they existed lack them;
``outcome`` is written only by a pre-registered prediction)."""

OUTCOMES: tuple[str, ...] = ("holds", "fails", "pinned failure")
"""What a pre-registered prediction's record says (:meth:`Report.prediction`): ``holds`` (it held: a
finding that fails if it stops holding, or a first run's record), ``fails`` (a first run's record of a
failure, not asserted), ``pinned failure`` (it failed on its first run and the record pins the failure:
the claim *passes* while the prediction still fails). A check line never shows a failed prediction as
``[PASS]``."""

KINDS: tuple[str, ...] = ("finding", "consistency", "record")
"""The kinds of evidence a claim can be; see the module docstring."""

KIND_TITLES: dict[str, str] = {
    "finding": "findings",
    "consistency": "consistency checks",
    "record": "pinned records",
}


def records_dir() -> Path:
    """Where chapters write their claim records.

    ``QWEM_REPORT_DIR`` if set; else ``reproduction/records`` (the committed records) when the book build
    (:func:`qwem_lib.book.config.building_book`) runs at the ``book`` preset; else ``<cache>/records-<preset>``,
    so that a chapter run by hand, a smoke or a paper run never overwrites the book's committed records.
    """
    env = os.environ.get("QWEM_REPORT_DIR")
    if env:
        p = Path(env)
    elif config.preset() == "book" and config.building_book():
        p = config.REPO_ROOT / "reproduction" / "records"
    else:
        p = config.cache_dir() / f"records-{config.preset()}"
    p.mkdir(parents=True, exist_ok=True)
    return p


PAPER_RECORDS = config.REPO_ROOT / "reproduction" / "records-paper"
"""Where it puts their claim records, with the run's machine, date, wall time and device (committed)."""
PAPER_RECORD_KEYS = (
    "chapter",
    "preset",
    "machine",
    "date",
    "wall_s",
    "device",
    "executed",
    "claims",
)


def write_paper_record(
    chapter: str,
    claims: list[dict[str, Any]],
    *,
    wall_s: float,
    executed: bool,
    directory: Path | None = None,
) -> Path:
    """Keep one chapter's paper-preset claims, with where, when and how long they ran.

    Written by ``tools/build_book.py`` at the ``paper`` preset, after the chapter ran, to
    ``reproduction/records-paper/<chapter>.json``: ``dict(chapter, preset, machine, date, wall_s,
    device, executed, claims)``. ``tests/test_paper_records.py`` checks every committed one.
    """
    import platform
    import time as _time

    devices = sorted({str(c.get("device")) for c in claims}) or [config.device_name()]
    rec = dict(
        chapter=chapter,
        preset=config.preset(),
        machine=f"{platform.node() or 'unknown'} ({platform.machine()}, {os.cpu_count()} CPUs, "
        f"{config.threads()} threads)",
        date=_time.strftime("%Y-%m-%dT%H:%M:%SZ", _time.gmtime()),
        wall_s=round(float(wall_s), 1),
        device=", ".join(devices),
        executed=bool(executed),
        claims=[{k: c[k] for k in KEYS + ("outcome",) if k in c} for c in claims],
    )
    d = Path(directory) if directory is not None else PAPER_RECORDS
    d.mkdir(parents=True, exist_ok=True)
    out = d / f"{chapter}.json"
    _write_text(out, json.dumps(_plain(rec), indent=1) + "\n")
    return out


def load_paper_records(directory: Path | None = None) -> dict[str, dict[str, Any]]:
    """The committed paper-preset records, keyed by chapter (empty when there are none)."""
    d = Path(directory) if directory is not None else PAPER_RECORDS
    out: dict[str, dict[str, Any]] = {}
    if d.is_dir():
        for f in sorted(d.glob("*.json")):
            rec = json.loads(f.read_text())
            missing = [k for k in PAPER_RECORD_KEYS if k not in rec]
            if missing:
                raise ValueError(f"{f}: paper record lacks {missing}")
            out[rec["chapter"]] = rec
    return out


def drift_note(chapter: str, **where: Path) -> str:
    """One sentence for the report and the website: is the paper record the current source's?"""
    differ, cells = paper_record_drift(chapter, **where)
    if differ < 0:
        return "The executed notebook of this record is missing."
    if differ == 0:
        edited, _ = paper_record_prose_drift(chapter, **where)
        if edited == 0:
            return "Executed from the chapter's current source."
        return (
            "Executed from the chapter's current code; its prose was edited since in "
            f"{edited} cell{'s' if edited != 1 else ''} (the values are the current chapter's)."
        )
    return (
        f"**Executed from an earlier version of the chapter:** {differ} of its {cells} code cells differ from "
        f"`notebooks/{chapter}.py` now, so the paper-preset values are that version's (`git log` on the "
        "record says when; rerun with `make book PRESET=paper CHAPTERS=...`)."
    )


def report_root() -> Path:
    """Where :func:`aggregate` writes: the repository in the book build at the ``book`` preset, else
    ``<cache>/report-<preset>``."""
    if config.preset() == "book" and config.building_book():
        return config.REPO_ROOT
    return config.cache_dir() / f"report-{config.preset()}"


def _write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, through a temporary name unique to this process and call."""
    from .cache import atomic_path

    with atomic_path(path) as tmp:
        tmp.write_text(text)


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
    versions: dict[str, str] | None = None
    outcome: str | None = None

    def _ipython_display_(self) -> None:
        """Show nothing when a claim is a cell's last value: its check line is already printed."""

    def record(self) -> dict[str, Any]:
        """The claim as its JSON record: every field, ``outcome`` only where the claim has one."""
        rec = asdict(self)
        if rec["outcome"] is None:
            del rec["outcome"]
        return rec


def check_mark(passed: bool, outcome: str | None = None) -> str:
    """The mark a check line opens with.

    ``PASS`` or ``FAIL`` for an ordinary check. A pre-registered prediction (:data:`OUTCOMES`) that failed
    is never marked as a pass: ``FAILS, pinned`` while its pinned failure still holds, ``FAILS, recorded``
    for a first run's unasserted record of a failure; a pinned failure whose prediction now holds is a
    ``FAIL`` (the check fails, and the chapter's text about the failure is stale).
    """
    if outcome is not None and outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {OUTCOMES} or None, got {outcome!r}")
    if not passed:
        return "FAIL"
    if outcome == "pinned failure":
        return "FAILS, pinned"
    if outcome == "fails":
        return "FAILS, recorded"
    return "PASS"


def check_line(claim: Claim, shown: str | None = None) -> str:
    """One printed line per check: ``[mark] kind id: value (tolerance)[; paper …]``.

    ``shown`` is the value set against its tolerance, as the claim's shape writes it (e.g.
    ``0.552 (< 4)``); by default the value to three significant figures and the tolerance as recorded.
    The statement is not repeated: it is in the cell's code, the record and the report.
    """
    if shown is None:
        shown = short(claim.value)
        if claim.tolerance is not None:
            shown += f" ({short(claim.tolerance, 48)})"
    line = f"[{check_mark(claim.passed, claim.outcome)}] {claim.kind} {claim.id}: {shown}"
    if claim.paper is not None:
        line += f"; paper {short(claim.paper, 40)}"
    return line


def _exact(x: float) -> str:
    """A number as an exact check prints it: integers whole, with separators; floats to 12 figures."""
    if isinstance(x, numbers.Integral) or (
        isinstance(x, float) and x.is_integer() and abs(x) < 1e15
    ):
        return f"{int(x):,}"
    return sig(x, 12)


class Report:
    """Collects the claims of one chapter. Creating it clears that chapter's old records."""

    def __init__(self, chapter: str, *, quiet: bool = False) -> None:
        if not chapter or "/" in chapter:
            raise ValueError(
                f"chapter must be a bare name like '10_word2vec_to_qwem', got {chapter!r}"
            )
        self.chapter = chapter
        self.claims: list[Claim] = []
        self._shown: dict[str, str] = {}
        self.versions = config.package_versions()
        self.path = records_dir() / f"{chapter}.json"
        self._write()
        if not quiet:
            print(f"{chapter}: {config.describe()}")
            print("versions: " + "  ".join(f"{k}={v}" for k, v in self.versions.items()))

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
        outcome: str | None = None,
    ) -> Claim:
        """Record a claim whose pass/fail the caller computed, and assert it.

        ``kind`` is one of :data:`KINDS` and is required: the author of a claim says whether it is a
        finding, a consistency check or a pinned record. ``outcome`` (one of :data:`OUTCOMES`) marks the
        record of a pre-registered prediction; use :meth:`prediction`, which sets it.
        """
        return self._record(
            id,
            statement,
            value=value,
            passed=passed,
            kind=kind,
            tolerance=tolerance,
            paper=paper,
            outcome=outcome,
        )

    def _record(
        self,
        id: str,
        statement: str,
        *,
        value: Any,
        passed: bool,
        kind: str,
        tolerance: Any = None,
        paper: Any = None,
        outcome: str | None = None,
        shown: str | None = None,
    ) -> Claim:
        """:meth:`check`, with the value-against-tolerance text of the printed line (``shown``)."""
        if kind not in KINDS:
            raise ValueError(f"claim {id!r}: kind must be one of {KINDS}, got {kind!r}")
        if outcome is None and isinstance(value, dict) and isinstance(value.get("outcome"), bool):
            # a prediction pinned in reproduction/pins.json (qwem_lib.book.pins) carries its outcome in
            # its value: its line shows a failed prediction as a failure, whatever its pin says
            outcome = "holds" if value["outcome"] else "fails"
        if outcome is not None and outcome not in OUTCOMES:
            raise ValueError(f"claim {id!r}: outcome must be one of {OUTCOMES}, got {outcome!r}")
        if outcome == "pinned failure" and kind != "record":
            raise ValueError(f"claim {id!r}: a pinned failure is a record, not a {kind}")
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
            versions=self.versions,
            outcome=outcome,
        )
        self.claims.append(claim)
        self._write()
        line = check_line(claim, shown)
        self._shown[id] = line.split(": ", 1)[1]
        print(line)
        assert claim.passed, (
            f"claim {id} failed: {statement} (value={value!r}, tolerance={tolerance!r})"
            + (" — the pinned failure no longer fails" if outcome == "pinned failure" else "")
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
        v = int(value) if isinstance(value, numbers.Integral) else float(value)
        if (
            tol == 0
        ):  # an exact check shows both numbers whole (a count of 16,941,169 is not 1.69e7)
            shown = f"{_exact(v)} (exactly {_exact(target)})"
        else:
            shown = f"{sig(v)} ({sig(target)} ± {sig(bound)})"
            if bound < 5e-3 * abs(float(target)):
                # three figures cannot show a deviation this small: print the deviation itself
                shown = f"{sig(v)}, Δ = {sig(float(value) - float(target), 2)} (|Δ| ≤ {sig(bound)})"
        return self._record(
            id,
            statement,
            value=v,
            passed=ok,
            kind=kind,
            tolerance=tol_text,
            paper=paper,
            shown=shown,
        )

    def below(
        self, id: str, statement: str, *, value: float, bound: float, kind: str, paper: Any = None
    ) -> Claim:
        """value < bound."""
        v = float(value)
        return self._record(
            id,
            statement,
            value=v,
            passed=math.isfinite(v) and v < bound,
            kind=kind,
            tolerance=f"< {bound:g}",
            paper=paper,
            shown=f"{sig(v)} (< {sig(bound)})",
        )

    def above(
        self, id: str, statement: str, *, value: float, bound: float, kind: str, paper: Any = None
    ) -> Claim:
        """value > bound."""
        v = float(value)
        return self._record(
            id,
            statement,
            value=v,
            passed=math.isfinite(v) and v > bound,
            kind=kind,
            tolerance=f"> {bound:g}",
            paper=paper,
            shown=f"{sig(v)} (> {sig(bound)})",
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
        chain = " > ".join(f"{n} {sig(v)}" for n, v in zip(names, vals))
        return self._record(
            id,
            statement,
            value=dict(zip(names, vals)),
            passed=ok,
            kind=kind,
            tolerance="strictly decreasing in the order given",
            paper=paper,
            shown=short(chain, 90) + " (decreasing)",
        )

    # -- a prediction of the book's own (Part V) ---------------------------------------------
    def prediction(
        self,
        id: str,
        statement: str,
        *,
        holds: bool,
        value: Any,
        outcome: bool | None,
    ) -> Claim:
        """Record a prediction stated before its run, by what its first run at this preset showed.

        ``outcome`` is that first run's result, written into the chapter after it (``None`` where the
        preset has not been run yet): ``True`` makes the claim a *finding* that asserts the prediction
        still holds (it could fail); ``False`` a *record* that pins the failure (a re-run that suddenly
        holds fails it, so the text that reports the failure cannot go stale); ``None`` records what
        is seen, without asserting it. The statement says which of the three it is.
        """
        if outcome is None:
            return self._record(
                id,
                f"{statement} — {'holds' if holds else 'FAILS'} (first run at this preset)",
                value=value,
                passed=True,
                tolerance="recorded",
                kind="record",
                outcome="holds" if holds else "fails",
                shown=f"{short(value)} (first run, recorded)",
            )
        if outcome:
            return self._record(
                id,
                statement + " — holds",
                value=value,
                passed=holds,
                kind="finding",
                outcome="holds" if holds else "fails",
                shown=f"{short(value)} (the prediction {'holds' if holds else 'FAILS'})",
            )
        return self._record(
            id,
            statement + " — the prediction FAILS (recorded)",
            value=value,
            passed=not holds,
            tolerance="the failure is pinned",
            kind="record",
            outcome="pinned failure",
            shown=f"{short(value)} (the prediction "
            + ("fails, as pinned)" if not holds else "now HOLDS: the pinned failure is stale)"),
        )

    # -- the chapter's ending ----------------------------------------------------------------
    def found(self, labels: dict[str, str] | None = None, *, width: int = 76) -> list[str]:
        """Print what the chapter found: one line per finding and per pre-registered prediction.

        The verdict word of each line says what its check showed at this preset: ``held`` (a finding
        asserted, or a prediction that holds), ``failed`` (a prediction whose failure is pinned or
        recorded), ``open`` (a prediction recorded at a preset where it is not yet asserted, but held).
        Consistency checks and records of the book's own values are counted, not listed.

        ``labels`` maps claim ids to short names and lists those claims only, in its order; by default
        every finding and prediction recorded so far is listed under its statement, cut to ``width``.
        Returns the printed lines. It records nothing, so it cannot hide a failed check: a failed check
        has already stopped the chapter.

        >>> import os, tempfile
        >>> os.environ["QWEM_REPORT_DIR"] = tempfile.mkdtemp()
        >>> r = Report("99_demo", quiet=True)
        >>> _ = r.below("demo.a", "an error below its bound", value=0.01, bound=0.1, kind="finding")
        [PASS] finding demo.a: 0.01 (< 0.1)
        >>> _ = r.prediction("demo.p", "a prediction", holds=False, value=0.3, outcome=False)
        [FAILS, pinned] record demo.p: 0.3 (the prediction fails, as pinned)
        >>> _ = r.found()  # doctest: +ELLIPSIS
        What this chapter found (preset ...): 1 held, 1 failed, 0 open
          held    an error below its bound: 0.01 (< 0.1)
          failed  a prediction: 0.3 (the prediction fails, as pinned)
        >>> del os.environ["QWEM_REPORT_DIR"]
        """
        by_id = {c.id: c for c in self.claims}
        if labels is not None:
            missing = [i for i in labels if i not in by_id]
            if missing:
                raise ValueError(f"found(): no claim recorded in {self.chapter} with id {missing}")
            chosen = [(by_id[i], name) for i, name in labels.items()]
        else:
            # a prediction's statement ends with what its run showed (" — holds"): the row's word says it
            chosen = [
                (c, short(c.statement.rsplit(" — ", 1)[0] if c.outcome else c.statement, width))
                for c in self.claims
                if c.kind == "finding" or c.outcome is not None
            ]
        counts = {"held": 0, "failed": 0, "open": 0}
        rows = []
        for c, name in chosen:
            if c.outcome in ("fails", "pinned failure"):
                word = "failed"
            elif c.kind == "record" and c.outcome == "holds":
                word = "open"
            else:
                word = "held"
            counts[word] += 1
            rows.append(f"  {word:<7} {name}: {self._shown[c.id]}")
        others = len(self.claims) - len(chosen)
        head = (
            f"What this chapter found (preset {config.preset()}): {counts['held']} held, "
            f"{counts['failed']} failed, {counts['open']} open"
        )
        lines = [head, *rows]
        if labels is None and others:
            lines.append(
                f"  (and {others} consistency checks and records of the book's own values)"
            )
        print("\n".join(lines))
        return lines

    def _write(self) -> None:
        _write_text(self.path, json.dumps([c.record() for c in self.claims], indent=1) + "\n")


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


CLAIMS_LOG = Path("reproduction") / "CLAIMS.md"
"""The claim log (every claim, chapter by chapter), relative to the report's root."""
README_BEGIN = (
    "<!-- BEGIN verdicts: generated by `python -m qwem_lib.book.report` from reproduction/paper_claims.json; "
    "do not edit by hand -->"
)
README_END = "<!-- END verdicts -->"
"""The markers of the README's generated summary block (:func:`update_readme`)."""


def render_report(
    claims: list[dict[str, Any]],
    paper_map: list[dict[str, Any]] | None = None,
    paper_records: dict[str, dict[str, Any]] | None = None,
) -> str:
    """REPRODUCTION.md: the map of the papers' statements (when given), with the count of the claims; the
    claims themselves, chapter by chapter, are in :data:`CLAIMS_LOG` (:func:`render_claims`)."""
    paper_records = paper_records or {}
    lines = [
        "# Reproduction report",
        "",
        "What the book found for each statement of the two papers, from the claims the chapters record when",
        "they are executed by `make book` (a chapter asserts each claim in the same cell, so a failing claim",
        "fails the notebook and the tests). Regenerate with `make book`. Every claim, chapter by chapter, with",
        "the paper's value, the book preset's and the paper preset's, is in the claim log,",
        f"[{CLAIMS_LOG.as_posix()}]({CLAIMS_LOG.as_posix()}).",
        "",
        "Each claim has a *kind*: a **finding** could come out otherwise if the paper or the mathematics",
        "were wrong (a result the paper's mathematics does not already guarantee: a theorem checked on data it",
        "was not built from, a reproduced experiment, a measured ordering); a **consistency** check is an",
        "identity or a self-check of the implementation; a **record** pins one of the book's own measurements",
        "to catch drift. Only findings are evidence about the papers.",
        "",
        f"**{headline(claims)}**",
        "",
    ]
    if paper_map is not None:
        from .paper_map import load_seeds, render_map, template_claims, validate

        # the map's templates may cite the committed paper-preset records ({claim:ID@paper})
        with_paper = template_claims(claims, paper_records or load_paper_records())
        lines += render_map(paper_map, with_paper)
        errors = validate(paper_map, with_paper, load_seeds())
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
    return "\n".join(lines) + "\n"


def is_solution(claim: dict[str, Any]) -> bool:
    """Whether a claim checks an exercise's solution (its id holds ``.solution.``): its statement and value
    are the exercise's answer, which the public report does not print."""
    return ".solution." in claim["id"]


def render_claims(
    claims: list[dict[str, Any]],
    paper_records: dict[str, dict[str, Any]] | None = None,
    *,
    up: str = "../",
) -> str:
    """The claim log: every claim by chapter; where a chapter has a paper-preset record
    (:func:`load_paper_records`), its value sits beside the book's. ``up`` leads from the log's folder to
    the repository root (its links to the notebooks)."""
    paper_records = paper_records or {}
    lines = [
        "# The book's claims, chapter by chapter",
        "",
        "Every quantitative claim the book checks, as recorded by the chapters themselves when they were",
        "last executed by `make book`. *Paper* is the number the paper reports, where it reports one;",
        "*book* is this book's value under the preset named; *paper preset* its value in the committed",
        f"paper-preset record. What these claims say about the papers' statements is in [REPRODUCTION.md]"
        f"({up}REPRODUCTION.md). Regenerate with `make book`.",
        "",
        f"**{headline(claims)}**",
        "",
        "| chapter | findings | consistency | records |",
        "|---|---|---|---|",
    ]
    chapters = list(dict.fromkeys(c["chapter"] for c in claims))
    for ch in chapters:
        t = tally([c for c in claims if c["chapter"] == ch])
        lines.append(
            f"| [{ch}]({up}notebooks/{ch}.ipynb) | "
            + " | ".join(f"{p}/{n}" for p, n in (t[k] for k in KINDS))
            + " |"
        )
    for ch in chapters:
        lines += ["", f"### {ch}", ""]
        seen = list(
            dict.fromkeys(
                json.dumps(c.get("versions"))
                for c in claims
                if c["chapter"] == ch and c.get("versions")
            )
        )
        if seen:
            lines += [
                "Versions: "
                + " / ".join(", ".join(f"{k} {v}" for k, v in json.loads(s).items()) for s in seen)
                + (
                    "  (**mixed**: the chapter was not executed in one run)"
                    if len(seen) > 1
                    else ""
                ),
                "",
            ]
        pr = paper_records.get(ch)
        if pr is None:
            lines += [
                "| id | kind | claim | paper | book | tolerance | pass | preset / device |",
                "|---|---|---|---|---|---|---|---|",
            ]
        else:
            lines += [
                f"At the paper preset: [executed notebook]({up}reproduction/paper/{ch}.ipynb), "
                f"{pr['date']}, {pr['wall_s'] / 60:.0f} min on {pr['machine']}, device {pr['device']}. "
                + drift_note(ch),
                "",
                "| id | kind | claim | paper | book | tolerance | pass | preset / device "
                "| paper preset | pass |",
                "|---|---|---|---|---|---|---|---|---|---|",
            ]
            at_paper = {c["id"]: c for c in pr["claims"]}
        answers = sum(1 for c in claims if c["chapter"] == ch and is_solution(c))
        for c in claims:
            if c["chapter"] != ch or is_solution(c):
                continue
            row = (
                f"| `{c['id']}` | {c['kind']} | {markdown_cell(c['statement'])} | {markdown_cell(c['paper'])} | "
                f"{markdown_cell(c['value'])} | {markdown_cell(c['tolerance'])} | {'✅' if c['passed'] else '❌'} | "
                f"{c['preset']} / {c['device']} |"
            )
            if pr is not None:
                p = at_paper.get(c["id"])
                row += (
                    " — | — |"
                    if p is None
                    else f" {markdown_cell(p['value'])} | {'✅' if p['passed'] else '❌'} |"
                )
            lines.append(row)
        if pr is not None:
            book_ids = {c["id"] for c in claims if c["chapter"] == ch}
            for p in pr["claims"]:
                if p["id"] not in book_ids:  # measured at the paper preset only
                    lines.append(
                        f"| `{p['id']}` | {p['kind']} | {markdown_cell(p['statement'])} | "
                        f"{markdown_cell(p['paper'])} | — | {markdown_cell(p['tolerance'])} | — | — | "
                        f"{markdown_cell(p['value'])} | {'✅' if p['passed'] else '❌'} |"
                    )
        if answers:
            passed = sum(1 for c in claims if c["chapter"] == ch and is_solution(c) and c["passed"])
            lines += [
                "",
                f"And {answers} checks of the exercises' solutions ({passed} pass), not listed: their statements "
                "and values are the answers (each is asserted in the chapter's solution; the student edition, "
                "`make student`, leaves them out).",
            ]
    return "\n".join(lines) + "\n"


def update_readme(readme: Path, block: list[str]) -> bool:
    """Replace the lines between the README's :data:`README_BEGIN` and :data:`README_END` markers with
    ``block``; the rest of the README is not touched. Returns whether it had the markers (and was
    rewritten); a README without them is left as it is."""
    if not readme.is_file():
        return False
    text = readme.read_text(encoding="utf-8")
    if README_BEGIN not in text or README_END not in text:
        return False
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    new = head + README_BEGIN + "\n" + "\n".join(block) + "\n" + README_END + tail
    if new != text:
        _write_text(readme, new)
    return True


def readme_summary(claims: list[dict[str, Any]], paper_map: list[dict[str, Any]]) -> list[str]:
    """The README's generated block: the count of the evidence behind it (:func:`evidence_sentence`), then
    :func:`qwem_lib.book.paper_map.readme_block` on the recorded claims and the committed paper-preset
    records."""
    from .paper_map import readme_block, template_claims

    return [evidence_sentence(claims), ""] + readme_block(
        paper_map, template_claims(claims, load_paper_records())
    )


def evidence_sentence(claims: list[dict[str, Any]]) -> str:
    """The README's sentence on the evidence: findings, consistency checks and pinned records, counted."""
    t = tally(claims)
    failing = sum(n - p for p, n in t.values())
    verdict = "all pass" if failing == 0 else f"{failing} of the claims do not pass"
    return (
        f"The book rests on **{t['finding'][1]} findings** — claims that could come out otherwise if a paper "
        f"or the mathematics were wrong — beside {t['consistency'][1]} consistency checks of the code and "
        f"{t['record'][1]} pinned records; at the `book` preset {verdict}."
    )


def aggregate(records: Path | None = None, out_dir: Path | None = None) -> list[dict[str, Any]]:
    """Write ``reproduction/claims.json``, ``REPRODUCTION.md`` (the verdicts) and the claim log
    ``reproduction/CLAIMS.md`` from the chapter records; in the repository, also the README's generated
    summary block (:func:`update_readme`: only between its markers)."""
    claims = load_records(records)
    ids = [c["id"] for c in claims]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        raise ValueError(f"claim ids used by more than one chapter: {dup}")
    root = Path(out_dir) if out_dir is not None else report_root()
    (root / "reproduction").mkdir(parents=True, exist_ok=True)
    _write_text(
        root / "reproduction" / "claims.json",
        json.dumps([{k: c[k] for k in KEYS + OPTIONAL_KEYS if k in c} for c in claims], indent=1)
        + "\n",
    )
    from .paper_map import MAP_PATH, load_map

    paper_map = load_map() if MAP_PATH.exists() else None
    paper_records = load_paper_records() if root == config.REPO_ROOT else None
    _write_text(root / "REPRODUCTION.md", render_report(claims, paper_map, paper_records))
    _write_text(root / CLAIMS_LOG, render_claims(claims, paper_records))
    if paper_map is not None and root == config.REPO_ROOT:
        update_readme(root / "README.md", readme_summary(claims, paper_map))
    return claims


if __name__ == "__main__":  # pragma: no cover - exercised by make book
    os.environ[config.BUILD_ENV] = "1"  # regenerating the committed report is a build step
    cs = aggregate()
    print(f"{headline(cs)} Wrote {report_root()}/REPRODUCTION.md")
