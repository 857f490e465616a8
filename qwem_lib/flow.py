"""The gradient flow of the exact expected loss, integrated by an explicit stabilised method.

The noiseless trainer (:func:`qwem_lib.qwem.noiseless.train_expected`) means the *flow* ``dW/dt = −½∇L(W)``
(the infinite-batch, vanishing-rate limit of SGD, on the paper's time ``t = 2Ση``). Gradient descent at a
fixed rate ``η = c/κ₁`` is that flow's explicit Euler method: first order (at ``c = 0.2`` its step times are
several per cent late) and only stable while ``η`` times the largest curvature stays below 2. At the
paper's size the late phase is *stiff*: the curvature of the loss (up to ``≈ 4κ₁`` at ``V = 10,000``,
set by ``M*``'s negative outlier) is four orders of magnitude above the slowest rates that still move
``W``, so Euler needs tens of thousands of steps.

This module integrates the same flow with the second-order Runge–Kutta–Chebyshev method (RKC2;
Sommeijer, Shampine and Verwer, *J. Comput. Appl. Math.* 88, 1997; the damping ``ε = 2/13`` and the
error estimate of their paper). An RKC step of ``s`` stages is explicit (it needs only gradients) and is
stable for ``hρ`` up to ``β(s) ≈ 0.65 s²``: the cost of a step grows like the square root of the
stiffness instead of linearly. The step ``h`` is set by an embedded error estimate (normwise relative
tolerance ``rtol``); ``ρ``, the spectral radius of the Jacobian, by a power iteration on finite differences
of the right-hand side, refreshed every 25 steps and after a rejected step, times a safety factor 1.2.
Outputs at requested times come from cubic Hermite interpolation between steps (third order, one order
above the method). The whole state is a plain dictionary of arrays (:class:`FlowState`), so a run can be
checkpointed and resumed bit for bit.

The functions here know nothing of word embeddings: the right-hand side is any function of a float64
torch tensor. :func:`integrate_flow` is the loop; the trainer supplies the gradient, the log and the
checkpoint.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .book import checks

__all__ = [
    "RKC_DAMPING",
    "rkc_coefficients",
    "rkc_stability_bound",
    "rkc_stages",
    "FlowState",
    "spectral_radius",
    "hermite",
    "integrate_flow",
]

#: The damping ε of the Chebyshev polynomials (Sommeijer et al. 1997): the stability region is shrunk by
#: about ``2ε/15`` so that it stays a strip of width ≈ 0.1 around the negative real axis.
RKC_DAMPING = 2.0 / 13.0
#: Steps between two estimates of the spectral radius, and its safety factor (as in the authors' rkc.f).
RHO_EVERY = 25
RHO_SAFETY = 1.2


def _chebyshev(s: Any) -> tuple[int, float, np.ndarray, np.ndarray, np.ndarray]:
    """``(s, w0, T, T', T'')``: the stage count checked, the damped point ``w0 = 1 + ε/s²`` and
    ``T_j(w0)``, ``T_j'(w0)``, ``T_j''(w0)`` for ``j = 0 … s`` by the three-term recurrences."""
    s = checks.integer("s (the number of stages)", s, low=2)
    w0 = 1.0 + RKC_DAMPING / s**2
    T, dT, ddT = np.zeros(s + 1), np.zeros(s + 1), np.zeros(s + 1)
    T[0], T[1] = 1.0, w0
    dT[1] = 1.0
    for j in range(2, s + 1):
        T[j] = 2 * w0 * T[j - 1] - T[j - 2]
        dT[j] = 2 * T[j - 1] + 2 * w0 * dT[j - 1] - dT[j - 2]
        ddT[j] = 4 * dT[j - 1] + 2 * w0 * ddT[j - 1] - ddT[j - 2]
    return s, w0, T, dT, ddT


def rkc_coefficients(s: int) -> dict[str, np.ndarray]:
    """The recurrence coefficients of the ``s``-stage RKC2 method.

    Stage ``j`` is ``Y_j = (1 − μ_j − ν_j) Y_0 + μ_j Y_{j−1} + ν_j Y_{j−2} + μ̃_j h F(Y_{j−1}) + γ̃_j h F(Y_0)``
    (``Y_1 = Y_0 + μ̃_1 h F(Y_0)``), returned as arrays ``mu, nu, mu_t, gamma_t`` indexed by ``j`` (entries
    ``0`` unused; ``nu[1]``, ``mu[1]``, ``gamma_t[1]`` are 0).

    Parameters
    ----------
    s : int
        Number of stages, at least 2.

    Returns
    -------
    dict of str to numpy.ndarray
        ``mu``, ``nu``, ``mu_t``, ``gamma_t``, each of length ``s + 1``.

    Examples
    --------
    The stage weights of the last stage sum so that a constant right-hand side ``F = 1`` advances ``y`` by
    exactly ``h`` (consistency): for ``y' = 1``, ``Y_j = c_j h`` with ``c_s = 1``.

    >>> c = rkc_coefficients(5)
    >>> Y = [0.0, c["mu_t"][1]]
    >>> for j in range(2, 6):
    ...     Y.append(c["mu"][j] * Y[-1] + c["nu"][j] * Y[-2] + c["mu_t"][j] + c["gamma_t"][j])
    >>> round(float(Y[-1]), 12)
    1.0
    """
    s, w0, T, dT, ddT = _chebyshev(s)
    w1 = dT[s] / ddT[s]
    b = np.zeros(s + 1)
    b[2:] = ddT[2:] / dT[2:] ** 2
    b[0] = b[1] = b[2]
    a = 1.0 - b * T
    mu, nu, mu_t, gamma_t = (np.zeros(s + 1) for _ in range(4))
    mu_t[1] = b[1] * w1
    for j in range(2, s + 1):
        mu[j] = 2.0 * b[j] * w0 / b[j - 1]
        nu[j] = -b[j] / b[j - 2]
        mu_t[j] = 2.0 * b[j] * w1 / b[j - 1]
        gamma_t[j] = -a[j - 1] * mu_t[j]
    return {"mu": mu, "nu": nu, "mu_t": mu_t, "gamma_t": gamma_t}


def rkc_stability_bound(s: int) -> float:
    """``β(s)``: the ``s``-stage RKC2 step is stable for real ``hλ ∈ [−β(s), 0]``.

    ``β(s) = (w0 + 1) T_s''(w0) / T_s'(w0)`` with ``w0 = 1 + ε/s²`` (≈ ``(2/3)(s² − 1)(1 − 2ε/15)``).

    Examples
    --------
    >>> round(rkc_stability_bound(10) / 10**2, 3)
    0.647
    """
    s, w0, _, dT, ddT = _chebyshev(s)
    return float((w0 + 1.0) * ddT[s] / dT[s])


def rkc_stages(h: float, rho: float) -> int:
    """The fewest stages whose stability interval holds ``hρ``: ``s = 1 + ⌊√(1 + 1.54 hρ)⌋``, at least 2
    (the rule of rkc.f; ``β(s) ≥ hρ`` for every ``s`` it returns).

    Examples
    --------
    >>> rkc_stages(0.01, 1.0), rkc_stages(100.0, 1.0)
    (2, 13)
    """
    if not (math.isfinite(h) and h > 0):
        raise ValueError(f"h (the step) must be positive and finite, got {h!r}")
    if not (math.isfinite(rho) and rho >= 0):
        raise ValueError(f"rho (the spectral radius) must be non-negative and finite, got {rho!r}")
    return max(2, 1 + int(math.sqrt(1.0 + 1.54 * h * rho)))


def hermite(theta: float, h: float, y0: Any, f0: Any, y1: Any, f1: Any) -> Any:
    """The cubic Hermite interpolant at ``t0 + θh`` of a step from ``(y0, f0)`` to ``(y1, f1)``
    (``f = dy/dt``): exact for cubics, so its error is ``O(h⁴)``, below the second-order step's own.

    Examples
    --------
    >>> hermite(0.5, 2.0, 0.0, 0.0, 8.0, 12.0)  # y = t³ on [0, 2], at t = 1
    1.0
    """
    th = float(theta)
    h00 = 2 * th**3 - 3 * th**2 + 1
    h10 = th**3 - 2 * th**2 + th
    h01 = -2 * th**3 + 3 * th**2
    h11 = th**3 - th**2
    return h00 * y0 + (h10 * h) * f0 + h01 * y1 + (h11 * h) * f1


def _norm(x: Any) -> float:
    import torch

    return float(torch.linalg.vector_norm(x))


def spectral_radius(
    rhs: Callable[[Any], Any],
    y: Any,
    fy: Any,
    v: Any | None,
    *,
    eps: float,
    max_iter: int = 50,
    tol: float = 0.01,
) -> tuple[float, Any, int]:
    """The spectral radius of the Jacobian of ``rhs`` at ``y``, by power iteration on finite differences.

    Each iteration applies the Jacobian to a direction ``v`` as ``(rhs(y + δv) − rhs(y))/δ`` with a
    perturbation of relative size ``√eps`` (``eps`` the rounding unit of the products), and stops when two
    successive estimates agree to ``tol`` (relative). For a Hessian flow the Jacobian is symmetric, so the
    estimate converges to its largest eigenvalue in modulus.

    Parameters
    ----------
    rhs : callable
        The right-hand side ``F(y)``.
    y, fy : torch.Tensor
        The point and ``F(y)`` there.
    v : torch.Tensor or None
        The starting direction (the previous call's, to converge in a few iterations), or None for ``fy``.
    eps : float
        The relative rounding of ``rhs``: 2.2e-16 for float64 products, 1.2e-7 for float32.

    Returns
    -------
    rho : float
        The estimate (without the safety factor).
    v : torch.Tensor
        The last direction, to start the next call.
    evaluations : int
        The calls of ``rhs`` spent.
    """
    import torch

    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError(f"eps (the rounding unit) must be positive and finite, got {eps!r}")
    v = fy.clone() if v is None else v.clone()
    if _norm(v) == 0.0:
        gen = torch.Generator(device=y.device).manual_seed(0)
        v = torch.randn(y.shape, generator=gen, device=y.device, dtype=y.dtype)
    ynrm = _norm(y)
    dy = ynrm * math.sqrt(eps) if ynrm > 0 else math.sqrt(eps)
    sigma, evals = 0.0, 0
    for it in range(int(max_iter)):
        z = y + v * (dy / _norm(v))
        dfz = rhs(z) - fy
        evals += 1
        dfn = _norm(dfz)
        last, sigma = sigma, dfn / dy
        if dfn == 0.0:  # F is constant along v: nothing to learn from this direction
            break
        v = dfz
        if it >= 1 and abs(sigma - last) <= tol * max(sigma, 1e-300):
            break
    return sigma, v, evals


@dataclass
class FlowState:
    """Everything an interrupted :func:`integrate_flow` needs to continue bit for bit.

    ``t`` the time reached, ``y`` the state and ``f = F(y)``, ``h`` the next step, ``h_last`` the last
    accepted step and ``err_last`` its error (the step controller's memory), ``rho`` the current spectral
    radius (safety factor included) and ``v`` its power-iteration direction, ``since_rho`` the accepted
    steps since it was estimated, ``n_out`` the outputs already delivered, and the counters
    ``evaluations`` (calls of the right-hand side, power iterations included), ``steps`` (accepted) and
    ``rejected``."""

    t: float
    y: Any
    f: Any
    h: float
    rho: float
    v: Any
    h_last: float = 0.0
    err_last: float = 0.0
    since_rho: int = 0
    n_out: int = 0
    evaluations: int = 0
    steps: int = 0
    rejected: int = 0
    stage_counts: list[int] = field(default_factory=list)

    _SCALARS = ("t", "h", "rho", "h_last", "err_last", "since_rho", "n_out", "evaluations", "steps",
                "rejected")  # fmt: skip

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The state as NumPy arrays (for :func:`numpy.savez`); :meth:`from_arrays` inverts it exactly."""
        out = {f"flow_{k}": np.asarray(getattr(self, k)) for k in self._SCALARS}
        out["flow_y"] = self.y.cpu().numpy()
        out["flow_f"] = self.f.cpu().numpy()
        out["flow_v"] = self.v.cpu().numpy()
        out["flow_stages"] = np.asarray(self.stage_counts, np.int64)
        return out

    @classmethod
    def from_arrays(cls, z: dict[str, np.ndarray], device: Any) -> FlowState:
        """The state saved by :meth:`to_arrays`, its tensors on ``device``."""
        import torch

        kw: dict[str, Any] = {}
        for k in cls._SCALARS:
            x = z[f"flow_{k}"]
            kw[k] = int(x) if np.issubdtype(x.dtype, np.integer) else float(x)
        return cls(
            y=torch.as_tensor(z["flow_y"], device=device),
            f=torch.as_tensor(z["flow_f"], device=device),
            v=torch.as_tensor(z["flow_v"], device=device),
            stage_counts=[int(s) for s in z["flow_stages"]],
            **kw,
        )


def integrate_flow(
    rhs: Callable[[Any], Any],
    y0: Any,
    t_out: np.ndarray,
    *,
    rtol: float = 1e-4,
    eps: float = 2.2e-16,
    output: Callable[[int, Any], None] | None = None,
    state: FlowState | None = None,
    checkpoint: Callable[[FlowState], None] | None = None,
    stop_after: int | None = None,
    max_evaluations: int = 10_000_000,
    progress: Any = None,
) -> FlowState:
    """Integrate ``dy/dt = rhs(y)`` from ``y0`` at ``t = 0`` to ``t_out[-1]`` by adaptive RKC2.

    The outputs: ``output(i, y)`` is called for each time ``t_out[i]``, in order; the value at ``t = 0`` is
    ``y0``, the others are interpolated (:func:`hermite`). A step is accepted when its local error estimate
    ``est = 0.8 (y0 - y1) + 0.4 h (f0 + f1)`` has a norm of at most ``rtol`` times the larger of the two
    states' norms (a normwise relative tolerance).

    Parameters
    ----------
    rhs : callable
        ``F(y)`` for a float64 torch tensor ``y``, returning a new tensor of the same shape.
    y0 : torch.Tensor
        The start (float64).
    t_out : numpy.ndarray
        Non-decreasing output times in ``[0, T]``.
    rtol : float
        The relative tolerance of a step's local error estimate.
    eps : float
        The rounding unit of the products of ``rhs`` (for :func:`spectral_radius`).
    output : callable, optional
        Called as ``output(i, y)`` at each output time.
    state : FlowState, optional
        A state saved by an interrupted call with the same inputs: the run continues from it.
    checkpoint : callable, optional
        Called with the state after every accepted step (the caller decides whether to save it).
    stop_after : int, optional
        Stop (return the state) once this many steps are accepted: for tests of resumption.
    max_evaluations : int
        Raise ``RuntimeError`` past this many calls of ``rhs`` (a run that would never end).
    progress : callable, optional
        Called with the state after every accepted step (a progress bar).

    Returns
    -------
    FlowState
        The state at ``t_out[-1]`` (or where ``stop_after`` stopped it), with the counters.

    Raises
    ------
    FloatingPointError
        If the state becomes non-finite.
    """
    import torch

    t_out = np.asarray(t_out, dtype=np.float64)
    if t_out.ndim != 1 or t_out.size == 0:
        raise ValueError(f"t_out must be a non-empty 1-D array of times, got shape {t_out.shape}")
    if not np.all(np.isfinite(t_out)) or t_out[0] < 0 or np.any(np.diff(t_out) < 0):
        raise ValueError(
            "t_out must be finite, non-negative and non-decreasing (a time axis runs forwards)"
        )
    if not (math.isfinite(rtol) and 0 < rtol < 1):
        raise ValueError(f"rtol must be in (0, 1), got {rtol!r}")
    T = float(t_out[-1])
    emit = output or (lambda i, y: None)
    if state is None:
        y = y0.to(torch.float64).clone()
        if not bool(torch.isfinite(y).all()):
            raise FloatingPointError("the start y0 holds non-finite values")
        f = rhs(y)
        rho, v, ev = spectral_radius(rhs, y, f, None, eps=eps)
        rho *= RHO_SAFETY
        ynrm, fnrm = _norm(y), _norm(f)
        # the first step: a change of rtol^(1/2) of |y| at the initial rate, and within ten stages
        h = 0.5 * math.sqrt(rtol) * ynrm / fnrm if fnrm > 0 else T
        h = min(h, 100.0 / max(rho, 1e-300), T if T > 0 else 1.0)
        state = FlowState(t=0.0, y=y, f=f, h=h, rho=rho, v=v, evaluations=1 + ev)
    n_out = state.n_out
    while n_out < t_out.size and t_out[n_out] <= state.t:
        emit(n_out, state.y)
        n_out += 1
    state.n_out = n_out
    while state.t < T:
        if stop_after is not None and state.steps >= stop_after:
            return state
        if state.evaluations > max_evaluations:
            raise RuntimeError(
                f"integrate_flow: {state.evaluations} evaluations without reaching t = {T} "
                f"(t = {state.t}); the flow is too stiff or rtol too small"
            )
        if state.since_rho >= RHO_EVERY:
            rho, state.v, ev = spectral_radius(rhs, state.y, state.f, state.v, eps=eps)
            state.rho, state.since_rho = rho * RHO_SAFETY, 0
            state.evaluations += ev
        h = min(state.h, T - state.t)
        last = h >= T - state.t
        s = rkc_stages(h, state.rho)
        c = rkc_coefficients(s)
        y, f = state.y, state.f
        prev, cur = y, y + (c["mu_t"][1] * h) * f
        for j in range(2, s + 1):
            nxt = (
                (1.0 - c["mu"][j] - c["nu"][j]) * y
                + c["mu"][j] * cur
                + c["nu"][j] * prev
                + (c["mu_t"][j] * h) * rhs(cur)
                + (c["gamma_t"][j] * h) * f
            )
            prev, cur = cur, nxt
        f1 = rhs(cur)
        state.evaluations += s
        if not bool(torch.isfinite(cur).all() and torch.isfinite(f1).all()):
            raise FloatingPointError(f"the flow became non-finite at t = {state.t + h:.6g}")
        est = 0.8 * (y - cur) + (0.4 * h) * (f + f1)
        scale = rtol * max(_norm(y), _norm(cur))
        err = _norm(est) / scale if scale > 0 else 0.0
        if err > 1.0:
            state.rejected += 1
            state.h = max(0.1, 0.8 / err ** (1 / 3)) * h
            if state.since_rho > 0:  # a rejection may mean a stale radius: estimate it anew
                state.since_rho = RHO_EVERY
            continue
        # accepted: the outputs inside the step, then the step controller of rkc.f
        t1 = T if last else state.t + h
        while n_out < t_out.size and t_out[n_out] <= t1:
            theta = (t_out[n_out] - state.t) / h
            emit(n_out, cur if theta >= 1.0 else hermite(theta, h, y, f, cur, f1))
            n_out += 1
        fac = 10.0
        if state.steps == 0 or state.err_last == 0.0 or err == 0.0:
            if err > 0 and 0.8 < fac * err ** (1 / 3):
                fac = 0.8 / err ** (1 / 3)
        else:
            t1_ = 0.8 * h * state.err_last ** (1 / 3)
            t2_ = state.h_last * err ** (2 / 3)
            if t1_ < fac * t2_:
                fac = t1_ / t2_
        state.t, state.y, state.f = t1, cur, f1
        state.h_last, state.err_last = h, err
        state.h = max(0.1, fac) * h
        state.steps += 1
        state.since_rho += 1
        state.n_out = n_out
        state.stage_counts.append(s)
        if progress is not None:
            progress(state)
        if checkpoint is not None:
            checkpoint(state)
    return state
