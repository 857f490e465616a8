"""Unit tests for qwem_lib.qwem.gradient_noise: the exact variance of the minibatch gradient against an
enumeration and against sampled minibatches, and its argument checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from corpora import tiny_corpus

import qwem_lib as tr
from qwem_lib.qwem.corpus_stats import cooccurrence


# -- the minibatch gradient's noise -------------------------------------------------------------
def _enumerated_noise(P, pu, W, alpha, batch, Q=None):
    """E‖g_B − g‖² by a plain loop over every pair of one positive and one negative draw."""
    V = W.shape[0]
    R = np.eye(V) if Q is None else Q @ Q.T
    total = 0.0
    for prob_of, weight_of, sign in (
        (
            lambda a, b: alpha * P[a, b],
            lambda a, b: 1.0 / (alpha * (P[a, b] + pu[a] * pu[b])),
            -1.0,
        ),
        (lambda a, b: pu[a] * pu[b], lambda a, b: 1.0 / (P[a, b] + pu[a] * pu[b]), 1.0),
    ):
        mean = np.zeros_like(W)
        sq = 0.0
        for a in range(V):
            for b in range(V):
                u = np.zeros_like(W)
                u[a] += sign * weight_of(a, b) * W[b]
                u[b] += sign * weight_of(a, b) * W[a]
                u = R @ u
                mean += prob_of(a, b) * u
                sq += prob_of(a, b) * float((u * u).sum())
        total += sq - float((mean * mean).sum())
    return total / batch


def test_split_gradient_noise_formula_and_draws():
    c = tiny_corpus(n=4000)
    V, d, batch = 6, 2, 40
    _, P, pu = cooccurrence(c, V, window=4, stream_vocab=9, use_cache=False)
    s = tr.make_sampler(c.ids, V, window=4, stream_vocab=9, device="cpu")
    W = np.random.default_rng(3).standard_normal((V, d)) * 0.5
    Q = np.linalg.qr(np.random.default_rng(4).standard_normal((V, 3)))[0]
    ex = tr.split_gradient_noise(P, pu, W, batch=batch, acceptance=s.acceptance, basis=Q, block=4)
    # the formula against a loop over every draw (independent algebra)
    assert math.isclose(ex.noise, _enumerated_noise(P, pu, W, s.acceptance, batch), rel_tol=1e-10)
    assert math.isclose(
        ex.noise_top, _enumerated_noise(P, pu, W, s.acceptance, batch, Q), rel_tol=1e-10
    )
    M = 2 * (P - np.outer(pu, pu)) / (P + np.outer(pu, pu))
    g = (W @ W.T - M) @ W
    assert math.isclose(ex.signal, float((g * g).sum()), rel_tol=1e-10)
    assert math.isclose(ex.relative, ex.noise / ex.signal)
    # the formula against the sampler's own minibatches (the draw model: α P_ab, independence)
    tables = tr.make_tables("qwem", P, pu, s)
    mc = tr.sampled_gradient_noise(W, s, tables, g, batch=batch, n_batches=3000, basis=Q, seed=1)
    assert abs(mc.noise - ex.noise) < 5 * mc.noise_se
    assert abs(mc.noise_top - ex.noise_top) < 5 * mc.noise_top_se
    # power: the noise is ∝ 1/B, and a formula that ignored the acceptance (α = 1) is rejected
    half = tr.split_gradient_noise(P, pu, W, batch=2 * batch, acceptance=s.acceptance)
    assert math.isclose(half.noise, ex.noise / 2, rel_tol=1e-12)
    wrong = tr.split_gradient_noise(P, pu, W, batch=batch, acceptance=1.0)
    assert abs(mc.noise - wrong.noise) > 5 * mc.noise_se


def test_gradient_noise_validation():
    P, pu = np.full((3, 3), 1 / 9), np.full(3, 1 / 3)
    W = np.ones((3, 2))
    with pytest.raises(ValueError, match="batch"):
        tr.split_gradient_noise(P, pu, W, batch=0, acceptance=0.5)
    with pytest.raises(ValueError, match="acceptance"):
        tr.split_gradient_noise(P, pu, W, batch=1, acceptance=0.0)
    with pytest.raises(ValueError, match="does not match"):
        tr.split_gradient_noise(P, pu, np.ones((4, 2)), batch=1, acceptance=0.5)
    with pytest.raises(ValueError, match="orthonormal"):
        tr.split_gradient_noise(P, pu, W, batch=1, acceptance=0.5, basis=np.ones((3, 1)))
    with pytest.raises(ValueError, match="finite"):
        tr.split_gradient_noise(P, pu, W * np.nan, batch=1, acceptance=0.5)
