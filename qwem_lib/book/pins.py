"""Pinned outcomes of pre-registered predictions.

A chapter that tests a paper's prediction writes the test before it runs and records its outcome (held
or failed) as a finding. The first run at a preset decides the outcome; from then on it is *pinned*: kept
in ``reproduction/pins.json`` as ``{claim id: {preset: outcome}}``, so that a later run whose outcome
flips fails the chapter, whichever way it flips. The pins are data, not chapter source, so pinning the
outcome of a long paper-preset run does not change the chapter that produced it (its record stays the
current source's, issue 42). An unpinned outcome is reported as such and cannot fail: the claim says so
in its statement, and :func:`pin_records` pins it from the run's claim records.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from . import config

__all__ = ["PINS_FILE", "pinned", "judge", "pin_records"]

PINS_FILE = config.REPO_ROOT / "reproduction" / "pins.json"


def _load(path: Path | None = None) -> dict[str, dict[str, bool]]:
    p = Path(path) if path is not None else PINS_FILE
    if not p.exists():
        return {}
    data = json.loads(p.read_text())
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise ValueError(f"{p}: pins must map claim ids to {{preset: outcome}}, got {type(data)}")
    return data


def pinned(claim_id: str, preset: str | None = None, *, path: Path | None = None) -> bool | None:
    """The pinned outcome of ``claim_id`` at ``preset`` (default: the active one), or None if unpinned."""
    got = _load(path).get(claim_id, {}).get(preset or config.preset())
    if got is not None and not isinstance(got, bool):
        raise ValueError(f"pin of {claim_id!r} must be true or false, got {got!r}")
    return got


def judge(claim_id: str, outcome: bool, *, path: Path | None = None) -> tuple[bool, str]:
    """``(passed, note)`` for a prediction whose outcome this run measured.

    Parameters
    ----------
    claim_id : str
        The claim's id in the chapter's report.
    outcome : bool
        Whether the prediction held in this run.

    Returns
    -------
    passed : bool
        True when the outcome equals its pin, or when there is no pin yet; False when it flipped.
    note : str
        A sentence for the claim's statement: the outcome and its pin.

    """
    if not isinstance(outcome, bool):
        raise TypeError(f"outcome must be a bool, got {type(outcome).__name__} {outcome!r}")
    pin = pinned(claim_id, path=path)
    said = "the prediction HELD" if outcome else "the prediction FAILED"
    if pin is None:
        return True, f" — {said}; not yet pinned at the {config.preset()} preset"
    if pin == outcome:
        return True, f" — {said}, as pinned at the {config.preset()} preset"
    return False, (
        f" — {said}, but its pinned outcome at the {config.preset()} preset is "
        f"{'held' if pin else 'failed'}: the result flipped"
    )


def pin_records(records: Path, preset: str, *, path: Path | None = None) -> dict[str, bool]:
    """Pin the outcomes recorded in a chapter's claim records (``reproduction/records/NN_name.json``, or a
    paper-preset record in ``reproduction/records-paper/``): every claim whose ``value`` holds an
    ``outcome`` (a bool). Returns the pins written.

        from qwem_lib.book import pins
        pins.pin_records("reproduction/records-paper/25_ablation.json", "paper")
    """
    data = json.loads(Path(records).read_text())
    # a chapter's records (a list), or a paper-preset record (a dict whose "claims" are that list)
    rows: list[dict[str, Any]] = data["claims"] if isinstance(data, dict) else data
    new = {
        r["id"]: r["value"]["outcome"]
        for r in rows
        if isinstance(r.get("value"), dict) and isinstance(r["value"].get("outcome"), bool)
    }
    if any(r.get("preset") not in (None, preset) for r in rows):
        raise ValueError(f"{records}: records of another preset than {preset!r}")
    p = Path(path) if path is not None else PINS_FILE
    data = _load(p)
    for cid, out in new.items():
        data.setdefault(cid, {})[preset] = out
    p.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    return new
