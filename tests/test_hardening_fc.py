"""Issue 27, section 4, for Part IV's library (``qwem_lib.fc``): planted bugs and bad inputs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qwem_lib.fc.collapse import collapse_stats, direction_cosines
from qwem_lib.fc.theory import (
    fc_all_latents,
    fc_thm2_residuals,
    fc_thm2_solve,
    fc_zero_threshold,
)


def _thm2_independent(mu, nc, L, lam, dps=40):
    """Theorem 2's system solved for (c, r) directly in r (not through rho = r / c), in mpmath."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = dps
    lam, k = mp.mpf(lam), mp.mpf(nc) / (nc - 1)

    def r_of(c):  # (7): lam r / (L c) (nc - 1 + exp(k c r)) = mu_b, increasing in r
        out = []
        for m in mu:
            f = lambda r, m=m: (  # noqa: E731
                mp.log(lam * r / (L * c)) + mp.log(nc - 1 + mp.exp(k * c * r)) - mp.log(m)
            )
            hi = mp.mpf(1)
            while f(hi) < 0:
                hi *= 2
            out.append(mp.findroot(f, (mp.mpf("1e-30"), hi), solver="anderson"))
        return out

    def g(c):  # (8)
        return mp.log(sum((x / c) ** 2 for x in r_of(c)) / (L * nc ** (L - 1)))

    hi = mp.mpf(1)
    while g(hi) > 0:
        hi *= 2
    c = mp.findroot(g, (mp.mpf("0.01"), hi), solver="anderson")
    return float(c), np.array([float(x) for x in r_of(c)])


@pytest.mark.parametrize("lam", [1e-2, 1e-20, 1e-58, 1e-62, 1e-300])
def test_thm2_solve_at_tiny_weight_decay(lam):
    """At lam = 1e-58 the old bisection left a 6% residual; at lam <= 1e-62 it gave up. The issue's
    independent solve: c = 8.18 at 1e-62 and 18.03 at 1e-300 (mu = 0.5, 0.3, 0.2; nc = 3; L = 2)."""
    mu, nc, L = [0.5, 0.3, 0.2], 3, 2
    c, r = fc_thm2_solve(mu, nc, L, lam)
    assert np.max(np.abs(fc_thm2_residuals(c, r, mu, nc, L, lam))) < 1e-11
    ci, ri = _thm2_independent(mu, nc, L, lam)
    assert math.isclose(c, ci, rel_tol=1e-10) and np.allclose(r, ri, rtol=1e-10)
    if lam == 1e-62:
        assert round(c, 2) == 8.18
    if lam == 1e-300:
        assert round(c, 2) == 18.03


def test_zero_threshold_ignores_a_position_every_latent_shares():
    """A position with the same concept in every latent carries no information: the gradient at 0 has no
    component there, so the threshold is that of the other positions (centred concept matrix)."""
    rng = np.random.default_rng(0)
    mu = np.array([0.6, 0.4])
    z = rng.integers(0, 3, size=(7, 2))
    for const in (0, 2):
        z2 = np.concatenate([z, np.full((7, 1), const)], axis=1)
        assert math.isclose(
            fc_zero_threshold(z2, mu, nc=3), fc_zero_threshold(z, mu, nc=3), rel_tol=1e-12
        )
    zall = fc_all_latents(3, 2)
    assert fc_zero_threshold(np.concatenate([zall, zall[:1]]), mu, nc=3) > 0


def test_collapse_metrics_refuse_undefined_inputs():
    X = np.array([[1.0, 0.0], [1.0, 0.1], [-1.0, 0.0], [-1.0, 0.1]])
    labels = np.array([0, 0, 1, 1])
    collapse_stats(X, labels)
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        collapse_stats(bad, labels)
    with pytest.raises(ValueError, match="same mean"):
        collapse_stats(np.ones((4, 2)), labels)  # identical vectors: 0 / 0
    Z = np.array([[1.0, 0.0], [-1.0, 0.0], [0.0, 1.0], [0.0, 1.0]])  # group 0's mean is zero
    with pytest.raises(ValueError, match="zero"):
        direction_cosines(Z, labels)
