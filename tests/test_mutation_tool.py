"""The mutation-testing driver (tools/mutation.py) keeps what it cannot recompute: a module whose mutmut
results are not in this checkout's ``mutants/`` folder keeps its row and survivors from the committed report."""

from __future__ import annotations

import sys

from qwem_lib.book import config

sys.path.insert(0, str(config.REPO_ROOT / "tools"))
import mutation  # noqa: E402

REPORT = """# Mutation testing

| module | tests | mutants | killed | timeout | survived | no tests | not yet run | score |
|---|---|---:|---:|---:|---:|---:|---:|---:|
| `qwem_lib/a.py` † | test_a.py | 10 | 9 | 0 | 1 | 0 | 0 | 90.0% |
| `qwem_lib/b.py` | test_b.py | not run | | | | | | |

## Survivors in `qwem_lib/a.py`

- `qwem_lib.a.x_f__mutmut_1`: `1` → `2` — **unexplained**

## Semantic mutants
"""


def test_previous_rows_and_survivors_are_read_back(tmp_path, monkeypatch):
    path = tmp_path / "report.md"
    path.write_text(REPORT)
    monkeypatch.setattr(mutation, "REPORT", path)
    rows, sections = mutation._previous_report()
    assert rows["qwem_lib/a.py"].startswith(
        "| `qwem_lib/a.py` | test_a.py | 10 |"
    )  # the mark dropped
    assert "| not run |" in rows["qwem_lib/b.py"]
    assert sections == {
        "qwem_lib/a.py": [
            "## Survivors in `qwem_lib/a.py`",
            "",
            "- `qwem_lib.a.x_f__mutmut_1`: `1` → `2` — **unexplained**",
        ]
    }


def test_no_report_reads_as_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(mutation, "REPORT", tmp_path / "absent.md")
    assert mutation._previous_report() == ({}, {})


def test_every_test_a_semantic_mutant_names_exists():
    """A semantic mutant is killed by the tests it names: a test moved or renamed must be renamed there too,
    or the mutant would be run against nothing."""
    import re

    root = config.REPO_ROOT
    missing = []
    for what, _path, _old, _new, tests in mutation.SEMANTIC:
        for t in tests:
            f, _, name = t.partition("::")
            text = (root / f).read_text(encoding="utf-8") if (root / f).exists() else None
            if text is None or (name and not re.search(rf"^def {re.escape(name)}\b", text, re.M)):
                missing.append(f"{what}: {t}")
    assert not missing, missing
    # and each mutant's code is still found in its module (else the mutant changes nothing)
    stale = [
        what
        for what, path, old, _new, _t in mutation.SEMANTIC
        if old not in (root / path).read_text()
    ]
    assert not stale, stale
