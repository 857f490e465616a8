"""Training dynamics of QWEM as symmetric matrix factorisation (Part I: Lemma 3.1 and Result 3).

Under Setting 3.1 with g = 1 the QWEM loss is, up to a constant (Theorem 1, :mod:`qwem_lib.qwem.theory`),

    L(W) = ¼ ‖WWᵀ − M‖²_F,        ∇L(W) = (WWᵀ − M) W          (M symmetric, W of shape V×d).

**The flow normalisation.** Plain gradient flow dW/dt = −∇L, started from an aligned matrix
W = Q_d S Oᵀ (Q_d: top-d eigenvectors of M, S diagonal, O orthogonal), gives ds_k/dt = s_k(λ_k − s_k²),
that is d(s_k²)/dt = 2 s_k²(λ_k − s_k²): a logistic curve with rate 2λ_k. The paper's Lemma 3.1 writes
dW/dt = −(1/2g)∇L_QWEM, and ∇L_QWEM = g(WWᵀ − M)W, so its flow is

    dW/dt = −½ ∇L(W) = ½ (M − WWᵀ) W,        d(s_k²)/dt = s_k²(λ_k − s_k²),

whose solution is exactly s_k²(t) = s_k²(0) λ_k e^{λ_k t} / (λ_k + s_k²(0)(e^{λ_k t} − 1))
(:func:`qwem_lib.qwem.theory.aligned_sigmoid`). Every trainer here therefore integrates
dW/dt = −c ∇L with ``time_scale`` c = :data:`FLOW_TIME_SCALE` = ½ by default, so that "time" means the
paper's time. (c = 1 would be plain gradient flow on ¼‖WWᵀ − M‖², twice as fast.)

**Discrete gradient descent.** ``method="gd"`` takes steps W ← W − η ∇L with learning rate
η = c·dt: each step advances the paper's time by dt. It approximates the flow with error O(dt).
``method="rk4"`` is the classical fourth-order Runge–Kutta integrator of the same flow (error O(dt⁴)),
used when the flow itself is wanted, e.g. to measure alignment.

**Precision.** Everything runs in torch on :func:`qwem_lib.book.config.device`, in float64 by default. On a
GPU one may pass ``dtype=torch.float32`` for speed: then the smallest initial scales the chapters use
(σ² down to 1e-12) are still representable, but singular values below ~1e-7 of the largest carry
relative errors of order one; the alignment measurements of Result 3 should then be read with that
floor in mind.

**Alignment (Result 3).** The distance from W(t) to the aligned trajectory Q_d S(t) is minimised over
right orthogonal transformations O (a Procrustes problem). Writing A = Q_dᵀW and W_⊥ = W − Q_dA,

    min_O ‖W − Q_d S O‖²_F = min_O ‖A − S O‖²_F + ‖W_⊥‖²_F,

so the trainer records only the projection A (d×d), ‖W_⊥‖² and the singular values at each recorded
time — never the full V×d matrix unless asked to (``keep_W``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from ..book import checks, config
from .theory import aligned_sigmoid, characteristic_time

__all__ = [
    "FLOW_TIME_SCALE",
    "synthetic_target",
    "factorisation_gradient",
    "Trajectory",
    "train_factorisation",
    "solve_flow_ivp",
    "aligned_init",
    "aligned_singular_values",
    "midpoint_ratio",
    "matched_initial_singular_values",
    "alignment_distance",
    "learning_times",
    "pair_condition_threshold",
    "gap_exponent",
    "triangular_factor",
    "offdiagonal_exponents",
    "half_time",
    "step_sharpness",
    "sigmoid_sharpness",
    "SweepResult",
    "random_init_sweep",
]

FLOW_TIME_SCALE: float = 0.5
"""c in dW/dt = −c ∇(¼‖WWᵀ − M‖²): ½ is the paper's Lemma 3.1 normalisation (see the module docstring)."""

Method = Literal["rk4", "gd"]


# ----------------------------------------------------------------------------------------------
# targets
# ----------------------------------------------------------------------------------------------
def synthetic_target(
    top: Sequence[float] | np.ndarray, V: int, rng: np.random.Generator, *, bulk: float = 0.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A symmetric V×V target M = Q diag(λ) Qᵀ with a chosen spectrum and random eigenvectors.

    ``top`` are the leading eigenvalues (they must be strictly decreasing and larger than ``bulk``);
    the other V − len(top) eigenvalues are drawn uniformly from [−bulk, bulk]. Q is Haar-random
    (QR of a Gaussian matrix with signs fixed). Returns (M, λ sorted descending, Q matching columns).
    """
    V = checks.integer("V", V, low=2)
    bulk = checks.nonnegative("bulk", bulk)
    top = checks.finite_array("top", top, ndim=1)
    if top.size > V:
        raise ValueError(f"top must be a non-empty 1-D list of at most V={V} eigenvalues")
    if np.any(np.diff(top) >= 0):
        raise ValueError("top eigenvalues must be strictly decreasing")
    if bulk < 0 or (top.size < V and top[-1] <= bulk):
        raise ValueError(
            f"need bulk >= 0 and the smallest top eigenvalue ({top[-1]}) above bulk ({bulk})"
        )
    rest = rng.uniform(-bulk, bulk, size=V - top.size)
    lam = np.concatenate([top, np.sort(rest)[::-1]])
    Z = rng.standard_normal((V, V))
    Q, R = np.linalg.qr(Z)
    Q = Q * np.sign(np.diag(R))
    M = (Q * lam) @ Q.T
    M = (M + M.T) / 2.0
    return M, lam, Q


# ----------------------------------------------------------------------------------------------
# the trainer
# ----------------------------------------------------------------------------------------------
def factorisation_gradient(W, M):
    """∇(¼‖WWᵀ − M‖²_F) = (WWᵀ − M) W = W(WᵀW) − MW, for NumPy or torch arrays of shape V×d.

    NumPy inputs are checked (finite, ``M`` square, ``W`` with as many rows); torch tensors, the inner
    loop of a trainer, are not.
    """
    if isinstance(W, np.ndarray) or isinstance(M, np.ndarray):
        M = checks.square("M", M)
        W = checks.finite_array("W", W, ndim=2, shape=(M.shape[0], None))
    return W @ (W.T @ W) - M @ W


@dataclass
class Trajectory:
    """What :func:`train_factorisation` records. Leading axis B (runs) is absent for a single run.

    ``times``
        (T,) the record times in units of ``time_unit`` (the same for every run)
    ``flow_times``
        (B, T) the paper's time t of each record (= time_unit[b] · times)
    ``sv``
        (B, T, d) singular values of W, descending
    ``proj``
        (B, T, k, d) basisᵀW, when a basis (V×k) was given
    ``resid_sq``
        (B, T) ‖W − basis·basisᵀW‖²_F, when a basis was given
    ``left_overlap``
        (B, T, k, d) basisᵀU_W with U_W the left singular vectors of W (sorted like ``sv``), when a basis
        was given and ``left_overlap=True``
    ``W``
        (B, T, V, d) the matrices themselves, when ``keep_W=True``
    """

    times: np.ndarray
    flow_times: np.ndarray
    sv: np.ndarray
    proj: np.ndarray | None = None
    resid_sq: np.ndarray | None = None
    left_overlap: np.ndarray | None = None
    W: np.ndarray | None = None
    info: dict = field(default_factory=dict)


def _record_grid(times: np.ndarray, dt: float) -> list[tuple[int, float]]:
    """For each gap between record times: (number of steps, step size ≤ dt) landing exactly on it."""
    out = []
    for a, b in zip(times[:-1], times[1:]):
        n = max(1, int(math.ceil((b - a) / dt - 1e-9)))
        out.append((n, (b - a) / n))
    return out


def _flow_inputs(
    M: Any, W0: Any, times: Any, dt: float, method: str, time_scale: float, time_unit: Any
) -> tuple[np.ndarray, np.ndarray, bool, np.ndarray, float, float, np.ndarray]:
    """:func:`train_factorisation`'s inputs, checked: ``(M, W0 as (B, V, d), single, times, dt,
    time_scale, unit (B,))`` (``single``: ``W0`` was one ``(V, d)`` matrix)."""
    M_np = checks.square("M", M)
    if not np.allclose(M_np, M_np.T, rtol=0, atol=1e-12 * max(1.0, float(np.abs(M_np).max()))):
        raise ValueError(
            "M must be symmetric (the flow dW/dt = c (M - W Wᵀ) W is the gradient flow of "
            "¼‖W Wᵀ - M‖² only then); symmetrise it, e.g. 0.5 * (M + M.T), if that is what you mean"
        )
    V = M_np.shape[0]
    W0_np = checks.finite_array("W0", W0, ndim=(2, 3))
    single = W0_np.ndim == 2
    if single:
        W0_np = W0_np[None]
    if W0_np.ndim != 3 or W0_np.shape[1] != V:
        raise ValueError(f"W0 must have shape (V, d) or (B, V, d) with V={V}, got {np.shape(W0)}")
    B = W0_np.shape[0]
    W0_np = checks.finite_array("W0", W0_np)
    times = checks.increasing("times", times)
    if times[0] < 0:
        raise ValueError(f"times must start at a value >= 0, got {float(times[0])!r}")
    dt = checks.positive("dt", dt)
    time_scale = checks.positive("time_scale", time_scale)
    if method not in ("rk4", "gd"):
        raise ValueError(f"method must be 'rk4' or 'gd', got {method!r}")
    unit = np.broadcast_to(np.asarray(time_unit, dtype=np.float64), (B,)).copy()
    if np.any(unit <= 0):
        raise ValueError("time_unit must be positive")
    return M_np, W0_np, single, times, dt, time_scale, unit


def train_factorisation(
    M: Any,
    W0: Any,
    times: Sequence[float] | np.ndarray,
    *,
    dt: float,
    method: Method = "rk4",
    time_scale: float = FLOW_TIME_SCALE,
    time_unit: Any = 1.0,
    basis: Any = None,
    left_overlap: bool = False,
    keep_W: bool = False,
    device=None,
    dtype=None,
    threads: int | None = None,
    progress: bool = True,
    desc: str = "gradient flow",
) -> Trajectory:
    """Integrate dW/dt = −c ∇(¼‖WWᵀ − M‖²_F) = c (M − WWᵀ) W from W0, recording at ``times``.

    Parameters
    ----------
    M : (V, V) symmetric target.
    W0 : (V, d) or (B, V, d) initial matrices; B runs are integrated together (one matrix product with
        M per evaluation, so a batch costs little more than one run).
    times : increasing record times ≥ 0 in units of ``time_unit``; the first is the start (usually 0).
    dt : step in units of ``time_unit``. Between two record times the step is shrunk so that the
        records land exactly on ``times``; for ``method="gd"`` choose ``times`` on multiples of ``dt``
        to keep a constant learning rate.
    method : ``"rk4"`` (flow, error O(dt⁴)) or ``"gd"`` (gradient descent with learning rate
        η = c·dt·time_unit, error O(dt)).
    time_scale : c; :data:`FLOW_TIME_SCALE` = ½ makes t the time of the paper's Lemma 3.1.
    time_unit : scalar or (B,) array. Run b's paper time is ``time_unit[b] · times``; use e.g. τ₁ per
        run to integrate several initial scales on one grid of rescaled time t/τ₁.
    basis : optional (V, k) orthonormal columns (e.g. M's top eigenvectors): records basisᵀW and
        ‖W_⊥‖²; with ``left_overlap`` also basisᵀU_W.
    keep_W : also keep every recorded W on the CPU (memory B·T·V·d floats).
    device, dtype : torch device (default :func:`config.device`) and dtype (default float64).
    threads : CPU threads torch may use during the run (restored afterwards). Default: 1 on the CPU
        when V ≤ 2048 — products this small gain nothing from threads, and threads that spin-wait
        slow them down many-fold when the cores are shared — else torch's setting.

    Raises ``FloatingPointError`` if W becomes non-finite (step too large).
    """
    import torch
    from tqdm import tqdm

    dev = device if device is not None else config.device()
    dtype = dtype if dtype is not None else torch.float64
    M_np, W0_np, single, times, dt, time_scale, unit = _flow_inputs(
        M, W0, times, dt, method, time_scale, time_unit
    )
    B, V, d = W0_np.shape

    Mt = torch.as_tensor(M_np, dtype=dtype, device=dev)
    W = torch.as_tensor(W0_np, dtype=dtype, device=dev).clone()  # (B, V, d)
    c_unit = torch.as_tensor(time_scale * unit, dtype=dtype, device=dev).view(B, 1, 1)
    Bas = None
    if basis is not None:
        bnp = np.asarray(basis, dtype=np.float64)
        if bnp.ndim != 2 or bnp.shape[0] != V:
            raise ValueError(f"basis must have shape (V, k) with V={V}, got {bnp.shape}")
        Bas = torch.as_tensor(bnp, dtype=dtype, device=dev)

    def velocity(X):  # c·unit·(MX − X XᵀX), batched, one GEMM with M for all runs
        MX = (Mt @ X.transpose(0, 1).reshape(V, B * d)).reshape(V, B, d).transpose(0, 1)
        return c_unit * (MX - X @ (X.transpose(1, 2) @ X))

    rec: dict[str, list] = {"sv": [], "proj": [], "resid": [], "lov": [], "W": []}

    def record(X):
        if not bool(torch.isfinite(X).all()):
            raise FloatingPointError(
                "W became non-finite: the step dt is too large for this target"
            )
        if left_overlap and Bas is not None:
            U, s, _ = torch.linalg.svd(X, full_matrices=False)
            rec["lov"].append((Bas.T @ U).cpu().numpy())
        else:
            s = torch.linalg.svdvals(X)
        rec["sv"].append(s.cpu().numpy())
        if Bas is not None:
            P = Bas.T @ X
            rec["proj"].append(P.cpu().numpy())
            rec["resid"].append(((X - Bas @ P) ** 2).sum(dim=(1, 2)).cpu().numpy())
        if keep_W:
            rec["W"].append(X.cpu().numpy())

    grid = _record_grid(times, dt)
    total = sum(n for n, _ in grid)
    old_threads = torch.get_num_threads()
    if threads is None and Mt.device.type == "cpu" and V <= 2048:
        threads = 1
    if threads is not None:
        torch.set_num_threads(int(threads))
    bar = tqdm(total=total, desc=desc, disable=not progress, mininterval=1.0, leave=False)
    try:
        with torch.no_grad():
            record(W)
            for n, h in grid:
                for _ in range(n):
                    if method == "gd":
                        W = W + h * velocity(W)
                    else:
                        k1 = velocity(W)
                        k2 = velocity(W + (h / 2) * k1)
                        k3 = velocity(W + (h / 2) * k2)
                        k4 = velocity(W + h * k3)
                        W = W + (h / 6) * (k1 + 2 * k2 + 2 * k3 + k4)
                bar.update(n)
                record(W)
    finally:
        bar.close()
        torch.set_num_threads(old_threads)

    def stack(key, axis=1):
        return np.stack(rec[key], axis=axis) if rec[key] else None

    out = Trajectory(
        times=times,
        flow_times=unit[:, None] * times[None, :],
        sv=stack("sv"),
        proj=stack("proj"),
        resid_sq=stack("resid"),
        left_overlap=stack("lov"),
        W=stack("W"),
        info={
            "method": method,
            "dt": dt,
            "time_scale": time_scale,
            "steps": total,
            "V": V,
            "d": d,
            "B": B,
            "dtype": str(dtype),
            "device": str(dev),
        },
    )
    if single:
        for name in ("flow_times", "sv", "proj", "resid_sq", "left_overlap", "W"):
            v = getattr(out, name)
            if v is not None:
                setattr(out, name, v[0])
    return out


def solve_flow_ivp(
    M: Any,
    W0: Any,
    t_eval: Sequence[float] | np.ndarray,
    *,
    time_scale: float = FLOW_TIME_SCALE,
    rtol: float = 1e-11,
    atol: float = 1e-15,
) -> np.ndarray:
    """Reference solution of dW/dt = c (M − WWᵀ)W by :func:`scipy.integrate.solve_ivp` (DOP853).

    For small V·d only (the state is the flattened V×d matrix).

    Parameters
    ----------
    M : (V, V) array
        The target.
    W0 : (V, d) array
        The start.
    t_eval : (T,) increasing array
        The times at which ``W`` is returned (the first is the start's time).
    time_scale : float
        ``c`` in ``dW/dt = c (M − WWᵀ)W``.
    rtol, atol : float
        The solver's tolerances.

    Returns
    -------
    (T, V, d) array
        ``W`` at ``t_eval``.

    Raises
    ------
    ValueError
        For a bad argument (named in the message); ``RuntimeError`` if the solver fails.

    Examples
    --------
    With ``V = d = 1`` and ``M = λ`` the flow is the logistic equation of Lemma 3.1:

    >>> import numpy as np
    >>> W = solve_flow_ivp(np.array([[2.0]]), np.array([[0.1]]), [0.0, 3.0], time_scale=1.0)
    >>> s2 = aligned_sigmoid(2.0, 0.01, 3.0 * 2)  # s² with time t = 2·c·t_flow
    >>> bool(np.isclose(W[-1, 0, 0] ** 2, s2, rtol=1e-8))
    True
    """
    from scipy.integrate import solve_ivp

    M = checks.square("M", M)
    W0 = checks.finite_array("W0", W0, ndim=2, shape=(M.shape[0], None))
    V, d = W0.shape
    t_eval = checks.increasing("t_eval", t_eval)
    time_scale = checks.positive("time_scale", time_scale)
    rtol = checks.positive("rtol", rtol)
    atol = checks.positive("atol", atol)

    def rhs(_t, y):
        W = y.reshape(V, d)
        return (time_scale * (M @ W - W @ (W.T @ W))).ravel()

    sol = solve_ivp(
        rhs,
        (float(t_eval[0]), float(t_eval[-1])),
        W0.ravel(),
        method="DOP853",
        t_eval=t_eval,
        rtol=rtol,
        atol=atol,
    )
    if not sol.success:
        raise RuntimeError(f"solve_ivp failed: {sol.message}")
    return sol.y.T.reshape(len(t_eval), V, d)


# ----------------------------------------------------------------------------------------------
# Lemma 3.1: aligned trajectories
# ----------------------------------------------------------------------------------------------
def aligned_init(vecs: Any, s0: Sequence[float] | np.ndarray, O: Any = None) -> np.ndarray:
    """W(0) = Q_d diag(s0) Oᵀ: an aligned initialisation (``vecs`` = Q_d, the top-d eigenvectors)."""
    vecs = checks.finite_array("vecs", vecs, ndim=2)
    s0 = checks.positive_array("s0", s0, ndim=1, strict=False)
    if vecs.ndim != 2 or vecs.shape[1] != s0.size:
        raise ValueError(f"vecs must be V×d with d = len(s0) = {s0.size}, got {vecs.shape}")
    W = vecs * s0
    if O is not None:
        O = np.asarray(O, dtype=np.float64)
        if O.shape != (s0.size, s0.size) or not np.allclose(O.T @ O, np.eye(s0.size), atol=1e-10):
            raise ValueError("O must be a d×d orthogonal matrix")
        W = W @ O.T
    return W


def aligned_singular_values(
    lam: Sequence[float] | np.ndarray, s0_sq: Sequence[float] | np.ndarray, t: Any
) -> np.ndarray:
    """Lemma 3.1's ``s_k²(t)`` for every mode at once.

    Parameters
    ----------
    lam : array_like, shape (d,)
        The eigenvalues ``λ_k`` (finite).
    s0_sq : float or array_like, shape (d,)
        The starts ``s_k²(0)`` (positive).
    t : array_like
        The times, any shape (empty allowed).

    Returns
    -------
    numpy.ndarray, shape ``t.shape + (d,)``
        ``s_k²(t)`` (:func:`qwem_lib.qwem.theory.aligned_sigmoid`).

    Raises
    ------
    ValueError
        If an input is not finite or ``s0_sq`` is not positive.

    Examples
    --------
    >>> import numpy as np
    >>> np.round(aligned_singular_values([2.0, 1.0], 1e-3, np.array([0.0, 5.0])), 3)
    array([[0.001, 0.001],
           [1.834, 0.129]])
    """
    lam = checks.finite_array("lam", lam, ndim=1)
    s0_sq = checks.positive_array("s0_sq", s0_sq, ndim=(0, 1))
    t = checks.finite_array("t", t, allow_empty=True)
    return np.asarray(aligned_sigmoid(lam, s0_sq, t[..., None]))


def midpoint_ratio(lam: Any, s0_sq: Any) -> Any:
    """s²(τ)/λ at τ = (1/λ) ln(λ/s0²), exactly: λ/(2λ − s0²) (→ ½ as s0² → 0, not 1)."""
    lam = checks.positive_array("lam", lam)
    s0_sq = checks.positive_array("s0_sq", s0_sq)
    if np.any(s0_sq >= lam):
        raise ValueError(
            f"s0_sq must be below lam (τ = ln(λ/s0²)/λ > 0), got s0_sq={s0_sq}, lam={lam}"
        )
    out = lam / (2.0 * lam - s0_sq)
    return out if out.ndim else float(out)


# ----------------------------------------------------------------------------------------------
# Result 3: random initialisation
# ----------------------------------------------------------------------------------------------
def matched_initial_singular_values(W0: Any, vecs: Any) -> tuple[np.ndarray, np.ndarray]:
    """The aligned initial condition that a small random W0 effectively starts from.

    With A = Q_dᵀW0 (rows a_k = q_kᵀW0) write A = L Rᵀ, L lower triangular with positive diagonal,
    R orthogonal (Gram–Schmidt of the rows of A, in the order of the eigenvalues). While W is small,
    W(t) ≈ e^{Mt/2} W0, so Q_dᵀW(t) = diag(e^{λ_k t/2}) L Rᵀ, and the strictly lower part of L decays
    relative to the diagonal as e^{−(λ_j − λ_k)t/2}: the row space rotates onto diag(L_kk e^{λ_k t/2}) Rᵀ.
    Hence s_k(0) = L_kk (the part of a_k orthogonal to a_1 … a_{k−1}) and the right rotation is R.

    Parameters
    ----------
    W0 : (V, d) array
        The start.
    vecs : (V, d) array
        Orthonormal eigenvectors ``q_1 … q_d`` of the target, in the order of their eigenvalues.

    Returns
    -------
    s0 : (d,) array
        The matched initial singular values, ``E[s_k(0)²] = σ²(d − k + 1)`` for ``W0 ~ N(0, σ²)``.
    R : (d, d) array
        The right rotation (orthogonal).

    Raises
    ------
    ValueError
        For a non-finite ``W0`` or ``vecs`` of another shape.

    Examples
    --------
    An aligned start ``W0 = Q diag(s) Oᵀ`` is matched by itself:

    >>> import numpy as np
    >>> Q = np.linalg.qr(np.random.default_rng(1).normal(size=(6, 3)))[0]
    >>> O = np.linalg.qr(np.random.default_rng(2).normal(size=(3, 3)))[0]
    >>> s0, R = matched_initial_singular_values(Q @ np.diag([3.0, 2.0, 1.0]) @ O.T, Q)
    >>> np.round(s0, 12).tolist(), bool(np.allclose(np.abs(R.T @ O), np.eye(3)))
    ([3.0, 2.0, 1.0], True)
    """
    W0 = checks.finite_array("W0", W0, ndim=2)
    vecs = checks.finite_array("vecs", vecs, ndim=2)
    d = W0.shape[1]
    if vecs.shape != (W0.shape[0], d):
        raise ValueError(f"vecs must be V×d = {W0.shape[0]}×{d}, got {vecs.shape}")
    A = vecs.T @ W0
    Q, R = np.linalg.qr(A.T)  # Aᵀ = QR  ⇒  A = Rᵀ Qᵀ, Rᵀ lower triangular
    sgn = np.sign(np.diag(R))
    sgn[sgn == 0] = 1.0
    return np.abs(np.diag(R)), Q * sgn


def triangular_factor(A: Any) -> np.ndarray:
    """The lower-triangular factor L of A = L Oᵀ (O orthogonal, L_kk ≥ 0), for one d×d matrix or a stack.

    This is Result 3's QR variable in the book's orientation: with A(t) = Q_dᵀW(t) (row k is q_kᵀW(t)),
    Gram–Schmidt on the rows in the order of the eigenvalues gives L; its transpose is the R of
    ``U S Oᵀ = QR`` in the summary's orientation. L_kk is the part of row k orthogonal to rows 1 … k−1
    (:func:`matched_initial_singular_values` at t = 0); the strictly lower entries L_kj (k > j) are the
    misaligned remainder of mode k along mode j's direction. Returns an array of A's shape.
    """
    A = checks.finite_array("A", A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"A must be a square d×d matrix or a stack of them, got shape {A.shape}")
    _, R = np.linalg.qr(np.swapaxes(A, -1, -2))  # Aᵀ = QR  ⇒  A = Rᵀ Qᵀ
    sgn = np.sign(np.diagonal(R, axis1=-2, axis2=-1))
    sgn = np.where(sgn == 0, 1.0, sgn)
    return np.swapaxes(R, -1, -2) * sgn[..., None, :]


def offdiagonal_exponents(
    sigma_sq: Sequence[float] | np.ndarray, size: Any, *, smaller_half: bool = True
) -> np.ndarray:
    """Log-log slopes of ``size`` (shape (B,), (B, m) or (B, m, n): one row per σ²) against σ², fitted entry
    by entry.

    ``smaller_half`` fits on the runs with σ² at or below the geometric middle of the range (as chapter 13
    fits the distance D), where the power law has settled. Returns an array of shape ``size.shape[1:]``.
    """
    s2 = checks.positive_array("sigma_sq", sigma_sq, ndim=1)
    y = checks.positive_array("size", size, ndim=(1, 2, 3))
    if y.shape[0] != s2.size or s2.size < 2:
        raise ValueError(
            f"size must have one row per sigma_sq (at least two), got shapes {y.shape} and {s2.shape}"
        )
    keep = s2 <= np.sqrt(s2.max() * s2.min()) if smaller_half else np.ones(s2.size, bool)
    if keep.sum() < 2:
        raise ValueError("fewer than two σ² in the fitted range")
    x = np.log(s2[keep])
    flat = np.log(y[keep].reshape(int(keep.sum()), -1))
    slopes = np.polyfit(x, flat, 1)[0]
    return np.asarray(slopes).reshape(y.shape[1:])


def alignment_distance(proj: np.ndarray, resid_sq: np.ndarray, s_aligned: np.ndarray) -> np.ndarray:
    """min over orthogonal O of ‖W − Q_d diag(s) O‖_F for each recorded time.

    ``proj`` (…, d, d) is Q_dᵀW (the first d rows of a recorded projection), ``resid_sq`` (…) is
    ‖W − Q_dQ_dᵀW‖²_F and ``s_aligned`` (…, d) the aligned singular values. The rotation solves the
    Procrustes problem min_O ‖A − SO‖ (O = UVᵀ from the SVD of SA) and the distance is computed from
    the difference itself (no cancellation).
    """
    A = np.asarray(proj, dtype=np.float64)
    S = np.asarray(s_aligned, dtype=np.float64)
    SA = S[..., :, None] * A
    U, _, Vt = np.linalg.svd(SA)
    O = U @ Vt
    diff = A - S[..., :, None] * O
    inside = np.sum(diff**2, axis=(-2, -1))
    return np.sqrt(inside + np.maximum(np.asarray(resid_sq, dtype=np.float64), 0.0))


def learning_times(
    t: np.ndarray, s_sq: np.ndarray, lam: Sequence[float] | np.ndarray, fraction: float = 0.5
) -> np.ndarray:
    """For each mode ``k`` the first time ``s_k²(t)`` reaches ``fraction · λ_k``.

    Linear interpolation between the logged times; NaN where a mode never gets there.

    Parameters
    ----------
    t : array_like, shape (T,)
        The logged times, non-decreasing.
    s_sq : array_like, shape (T, d)
        The squared singular values at those times (descending order of mode).
    lam : array_like, shape (d,)
        The end values ``λ_k`` the fractions refer to.
    fraction : float, default 0.5
        The share of ``λ_k`` that marks the step, in (0, 1].

    Returns
    -------
    numpy.ndarray, shape (d,)
        The step times.

    Raises
    ------
    ValueError
        If the shapes disagree, ``t`` decreases somewhere, or ``fraction`` is not in (0, 1].

    Examples
    --------
    >>> import numpy as np
    >>> t = np.linspace(0.0, 10.0, 1001)
    >>> s_sq = aligned_singular_values([2.0, 1.0], 1e-3, t)
    >>> np.round(learning_times(t, s_sq, [2.0, 1.0]), 3)  # :func:`half_time` gives 3.800, 6.907
    array([3.8  , 6.907])
    """
    t = checks.increasing("t", t, strict=False)
    s_sq = checks.finite_array("s_sq", s_sq, ndim=2, shape=(t.size, None))
    lam = checks.positive_array("lam", lam, ndim=1, shape=(s_sq.shape[1],))
    fraction = checks.real("fraction", fraction, low=0.0, high=1.0, low_open=True)
    out = np.full(lam.size, np.nan)
    for k in range(lam.size):
        y = s_sq[:, k] / lam[k] - fraction
        idx = np.nonzero(y >= 0)[0]
        if idx.size == 0:
            continue
        i = idx[0]
        if i == 0:
            out[k] = t[0]
        else:
            out[k] = t[i - 1] + (t[i] - t[i - 1]) * (-y[i - 1]) / (y[i] - y[i - 1])
    return out


def pair_condition_threshold(lam: Sequence[float] | np.ndarray) -> tuple[float, tuple[int, int]]:
    """The paper's sufficient condition for Result 3, log σ² ≪ −(λ_iλ_j/(λ_i − λ_j)) log(λ_j/(λ_i − λ_j))
    for all pairs i < j (λ_i > λ_j > 0): returns the most demanding right-hand side (the minimum over
    pairs) and the 0-based pair (i, j) attaining it.
    """
    lam = checks.positive_array("lam", lam, ndim=1)
    if lam.size < 2 or np.any(np.diff(lam) >= 0):
        raise ValueError(
            f"lam must hold at least two strictly decreasing positive eigenvalues, got {lam.tolist()}"
        )
    best, pair = math.inf, (0, 1)
    for i in range(lam.size):
        for j in range(i + 1, lam.size):
            gap = lam[i] - lam[j]
            rhs = -(lam[i] * lam[j] / gap) * math.log(lam[j] / gap)
            if rhs < best:
                best, pair = rhs, (i, j)
    return float(best), pair


def gap_exponent(lam: Sequence[float] | np.ndarray, d: int) -> float:
    """The exponent p in "distance ∝ (σ²)^p" from the linearised argument of chapter 13.

    A misaligned component between modes j < k (or between mode d and the bulk direction d+1) reaches
    its largest size, about (σ²)^{(1 − λ_k/λ_j)/2}, when mode j saturates; the initial mismatch itself
    is of order σ = (σ²)^{1/2}. The slowest of these sets p = ½ · min(1, min_j (1 − λ_{j+1}/λ_j)) over
    consecutive pairs j = 1 … d (λ_{d+1} ≤ 0 contributes nothing).
    """
    lam = checks.finite_array("lam", lam, ndim=1)
    d = checks.positive_int("d", d)
    if lam.size < d:
        raise ValueError(f"lam must hold at least d={d} eigenvalues, got {lam.size}")
    if lam[0] <= 0 or np.any(np.diff(lam) > 0):
        raise ValueError(
            f"lam must be non-increasing with a positive first entry, got {lam.tolist()}"
        )
    r = [1.0]
    for j in range(min(d, lam.size - 1)):
        if lam[j + 1] > 0:
            r.append(1.0 - lam[j + 1] / lam[j])
    return 0.5 * min(r)


def half_time(lam: Any, s0_sq: Any) -> Any:
    """The exact time at which Lemma 3.1's sigmoid crosses ``λ/2``: ``(1/λ) ln((λ − s0²)/s0²)``.

    Parameters
    ----------
    lam : float or array_like
        The eigenvalue(s) (positive).
    s0_sq : float or array_like
        The start(s), below ``lam/2`` (the sigmoid starts below its midpoint).

    Returns
    -------
    float or numpy.ndarray
        The half time(s), broadcast over the inputs.

    Raises
    ------
    ValueError
        If an input is not positive and finite, or ``s0_sq >= lam/2``.

    Examples
    --------
    >>> round(half_time(2.0, 1e-3), 4)  # just below τ = ln(2000)/2 = 3.8005
    3.8002
    """
    lam = checks.positive_array("lam", lam)
    s0_sq = checks.positive_array("s0_sq", s0_sq)
    if np.any(s0_sq >= lam / 2):
        raise ValueError(
            f"s0_sq must be below lam/2 (the sigmoid starts below its midpoint), got {s0_sq}"
        )
    out = np.log((lam - s0_sq) / s0_sq) / lam
    return out if out.ndim else float(out)


def _check_lo_hi(lo: float, hi: float) -> tuple[float, float]:
    """``0 < lo < 0.5 < hi < 1``, the fractions that bound a step."""
    lo = checks.real("lo", lo, low=0.0, high=0.5, low_open=True, high_open=True)
    hi = checks.real("hi", hi, low=0.5, high=1.0, low_open=True, high_open=True)
    return lo, hi


def _logit(f: float) -> float:
    return math.log(f / (1.0 - f))


def step_sharpness(
    t: np.ndarray,
    s_sq: np.ndarray,
    end: Sequence[float] | np.ndarray,
    *,
    lo: float = 0.1,
    hi: float = 0.9,
) -> dict[str, np.ndarray]:
    """How sharp each mode's step is: its time over its width, ``S_k = t_k^{50} / (t_k^{hi} − t_k^{lo})``.

    ``t_k^f`` is the first time ``s_k²`` reaches the fraction ``f`` of ``end[k]`` (the mode's end value,
    e.g. ``s_k²`` averaged over the last logs; :func:`learning_times`). ``S_k`` is large for a step that
    rises in a short interval after a long plateau, about 1 or less for a gradual rise. It does not depend
    on the unit of ``t``. Returns ``dict(t_lo, t_mid, t_hi, sharpness)`` of shape (d,), NaN where a
    fraction is never reached. Lemma 3.1's sigmoid gives :func:`sigmoid_sharpness`.
    """
    lo, hi = _check_lo_hi(lo, hi)
    t = checks.increasing("t", t, strict=False)
    s_sq = checks.finite_array("s_sq", s_sq, ndim=2, shape=(t.size, None))
    end = checks.positive_array("end", end, ndim=1, shape=(s_sq.shape[1],))
    t_lo = learning_times(t, s_sq, end, fraction=lo)
    t_mid = learning_times(t, s_sq, end, fraction=0.5)
    t_hi = learning_times(t, s_sq, end, fraction=hi)
    with np.errstate(invalid="ignore", divide="ignore"):
        sharp = t_mid / (t_hi - t_lo)
    return dict(t_lo=t_lo, t_mid=t_mid, t_hi=t_hi, sharpness=sharp)


def sigmoid_sharpness(end: Any, s0_sq: Any, *, lo: float = 0.1, hi: float = 0.9) -> Any:
    """:func:`step_sharpness` of Lemma 3.1's sigmoid from ``s0_sq`` to ``end`` (rate-free):
    ``ln((end − s0²)/s0²) / (logit(hi) − logit(lo))`` (``ln(end/s0²)/ln 81`` for 10%–90%)."""
    lo, hi = _check_lo_hi(lo, hi)
    end = checks.positive_array("end", end)
    s0_sq = checks.positive_array("s0_sq", s0_sq)
    if np.any(end <= 2 * s0_sq):
        raise ValueError(f"s0_sq must be below end/2, got s0_sq={s0_sq}, end={end}")
    out = np.log((end - s0_sq) / s0_sq) / (_logit(hi) - _logit(lo))
    return out if out.ndim else float(out)


@dataclass
class SweepResult:
    """Output of :func:`random_init_sweep`: B runs from W(0) = σ_b Z, analysed against Lemma 3.1.

    sigma_sq (B,), tau1 (B,) = (1/λ₁) ln(λ₁/σ²), traj (the :class:`Trajectory`, rescaled times t/τ₁ in
    ``traj.times``), s0_sq (B, d) matched initial values, s_aligned_sq (B, T, d) the aligned sigmoids,
    distance (B, T) = min_O ‖W − Q_d S_al O‖_F / (Σ_k λ_k)^{1/2}, learn (B, d) the rescaled times at which
    s_k² crosses λ_k/2 and learn_theory (B, d) the same for the aligned sigmoids.
    """

    sigma_sq: np.ndarray
    tau1: np.ndarray
    traj: Trajectory
    s0_sq: np.ndarray
    s_aligned_sq: np.ndarray
    distance: np.ndarray
    learn: np.ndarray
    learn_theory: np.ndarray


def random_init_sweep(
    M: Any,
    lam: Any,
    vecs: Any,
    d: int,
    sigma_sq: Sequence[float] | np.ndarray,
    Z: Any,
    *,
    n_records: int = 300,
    steps_per_unit: float = 4.0,
    t_end: float | None = None,
    extra_time: float | None = None,
    full_basis: bool = False,
    s0_rule: Literal["matched", "typical"] = "matched",
    device=None,
    dtype=None,
    progress: bool = True,
    desc: str = "σ² sweep",
) -> SweepResult:
    """Flow from W(0) = σ Z for every σ² in ``sigma_sq`` at once, on a common grid of rescaled time t/τ₁.

    ``lam``/``vecs``: eigenvalues (descending) and eigenvectors of M; ``Z`` a fixed V×d standard normal
    matrix (common random numbers: the runs differ only by scale). The step is 1/(``steps_per_unit``·λ₁)
    in the paper's time for the slowest run (RK4). ``t_end`` (in units of τ₁) defaults to the latest,
    over the runs, of the matched half-time of mode d plus ``extra_time`` (paper's time; default
    10/λ_d). ``full_basis`` records projections on all V
    eigenvectors (needed for principal angles with directions beyond d; memory B·T·V·d), otherwise on
    the top d. ``s0_rule``: ``"matched"`` uses :func:`matched_initial_singular_values`, ``"typical"``
    uses s_k²(0) = σ²V for every k (the typical singular value of σZ; it does not converge, see
    chapter 13).
    """
    lam = checks.finite_array("lam", lam, ndim=1)
    vecs = checks.finite_array("vecs", vecs, ndim=2)
    Z = checks.finite_array("Z", Z, ndim=2)
    # one σ²: one run
    sig2 = np.atleast_1d(checks.positive_array("sigma_sq", sigma_sq, ndim=(0, 1)))
    d = checks.integer("d", d, low=1, high=lam.size)
    n_records = checks.integer("n_records", n_records, low=2)
    steps_per_unit = checks.positive("steps_per_unit", steps_per_unit)
    V = vecs.shape[0]
    if Z.shape != (V, d):
        raise ValueError(f"Z must be V×d = {V}×{d}, got {Z.shape}")
    if lam[d - 1] <= 0:
        raise ValueError("the top-d eigenvalues must be positive")
    Vd = vecs[:, :d]
    lam_d = lam[:d]
    tau1 = np.asarray(characteristic_time(lam[0], sig2), dtype=np.float64).reshape(-1)
    W0 = np.sqrt(sig2)[:, None, None] * Z[None]
    if s0_rule == "matched":
        s0_sq = np.stack([matched_initial_singular_values(w, Vd)[0] ** 2 for w in W0])
    elif s0_rule == "typical":
        s0_sq = np.repeat((sig2 * V)[:, None], d, axis=1)
    else:
        raise ValueError("s0_rule must be 'matched' or 'typical'")
    if t_end is None:
        extra = 10.0 / lam_d[-1] if extra_time is None else float(extra_time)
        t_end = float(
            np.max((half_time(lam_d[-1], np.minimum(s0_sq[:, -1], lam_d[-1] / 4)) + extra) / tau1)
        )
    times = np.linspace(0.0, t_end, n_records)
    dt = 1.0 / (steps_per_unit * lam[0] * float(tau1.max()))
    basis = vecs if full_basis else Vd
    tr = train_factorisation(
        M,
        W0,
        times,
        dt=dt,
        method="rk4",
        time_unit=tau1,
        basis=basis,
        left_overlap=True,
        device=device,
        dtype=dtype,
        progress=progress,
        desc=desc,
    )
    ft = tr.flow_times  # (B, T)
    assert tr.proj is not None and tr.resid_sq is not None  # recorded: a basis was given
    s_al = np.stack([aligned_singular_values(lam_d, s0_sq[b], ft[b]) for b in range(len(sig2))])
    dist = alignment_distance(
        tr.proj[:, :, :d, :],
        tr.resid_sq
        if not full_basis
        else tr.resid_sq + np.sum(tr.proj[:, :, d:, :] ** 2, axis=(2, 3)),
        np.sqrt(s_al),
    ) / math.sqrt(float(lam_d.sum()))
    learn = np.stack([learning_times(times, tr.sv[b] ** 2, lam_d) for b in range(len(sig2))])
    learn_th = np.stack([learning_times(times, s_al[b], lam_d) for b in range(len(sig2))])
    return SweepResult(
        sigma_sq=sig2,
        tau1=tau1,
        traj=tr,
        s0_sq=s0_sq,
        s_aligned_sq=s_al,
        distance=dist,
        learn=learn,
        learn_theory=learn_th,
    )
