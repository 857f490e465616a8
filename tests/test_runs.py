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
