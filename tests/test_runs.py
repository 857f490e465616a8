"""Unit tests for qwem_lib.qwem.runs: the schedules the chapters' preset runs plan from the statistics alone."""

from __future__ import annotations

import math

import numpy as np
import pytest
from corpora import tiny_corpus

import qwem_lib as tr
from qwem_lib.qwem.corpus_stats import cooccurrence


def test_plan_schedule():
    plan = tr.plan_schedule([4.0, 2.0, 1.0], 2, 1e-6, lr_factor=0.1, horizon=3.0)
    assert plan["lr"] == pytest.approx(0.025)
    assert plan["t_end"] == pytest.approx(3 * math.log(2e6) / 2)
    assert plan["steps"] == math.ceil(plan["t_end"] / 0.05)
    with pytest.raises(ValueError):
        tr.plan_schedule([1.0, -1.0], 2, 1e-6)


def test_preset_schedule():
    c = tiny_corpus(n=20000)
    _, P, pu = cooccurrence(c, 6, window=4, stream_vocab=9, use_cache=False)
    sch = tr.preset_schedule("qwem", P, pu, 2, lr_factor=0.1, sigma_sq_small=1e-4)
    M = 2 * (P - np.outer(pu, pu)) / (P + np.outer(pu, pu))
    lam = np.sort(np.linalg.eigvalsh(M))[::-1]
    np.testing.assert_allclose(sch["lam"], lam[:4], rtol=1e-10)
    assert sch["lr"] == pytest.approx(0.1 / lam[0])
    assert sch["steps"] > sch["main_steps"] > 0 and sch["sigma_sq"] == 1e-4
    large = tr.preset_schedule("qwem", P, pu, 2, init="large", large_ratio=0.1)
    assert large["sigma_sq"] == pytest.approx(0.1 * lam[1] * 2 / 6)
    sg = tr.preset_schedule("sgns", P, pu, 2)
    assert sg["lam_B"] is not None and sg["lr"] == pytest.approx(0.1 / sg["lam_B"][0])
    with pytest.raises(ValueError):
        tr.preset_schedule("qwem", P, pu, 2, init="medium")


def test_tied_sgns_runs_makes_one_run_per_size_in_order(monkeypatch):
    from qwem_lib.qwem import runs

    calls = []
    monkeypatch.setattr(
        runs, "tied_sgns_run", lambda corpus, V, d, **kw: calls.append((corpus, V, d, kw)) or (V, d)
    )
    P = dict(runs.TIED_SGNS_RUNS["paper"])
    out = runs.tied_sgns_runs(P)
    assert list(out) == [(2000, 50), (5000, 100), (10_000, 200)] and out[(5000, 100)] == (5000, 100)
    assert [c[3]["horizon"] for c in calls] == [4.0, 6.0, 8.0]
    assert all(
        c[0] == "enwiki2015_17m" and c[3]["sigma_sq"] == 1e-8 and c[3]["lr_factor"] == 0.15
        for c in calls
    )
    # every preset names the same knobs, and the paper preset repeats the book's sizes before its own
    assert len({frozenset(v) for v in runs.TIED_SGNS_RUNS.values()}) == 1
    book, paper = runs.TIED_SGNS_RUNS["book"]["sizes"], runs.TIED_SGNS_RUNS["paper"]["sizes"]
    assert paper[: len(book)] == book
    with pytest.raises(ValueError, match="missing \\['lr_factor'\\]"):
        runs.tied_sgns_runs({k: v for k, v in P.items() if k != "lr_factor"})
    with pytest.raises(ValueError, match="twice"):
        runs.tied_sgns_runs(P | {"sizes": [(100, 5, 2.0), (100, 5, 3.0)]})
    with pytest.raises(ValueError, match=r"\(V, d, h\)"):
        runs.tied_sgns_runs(P | {"sizes": [(100, 5)]})
    with pytest.raises(TypeError, match="dict of sizes"):
        runs.tied_sgns_runs([1, 2])
