# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 12 · Aligned dynamics: Lemma 3.1
#
# **Statement (Karkada et al. 2025, Lemma 3.1).** Let $M^\star = Q\Lambda Q^\top$ be the symmetric target of
# Theorem 1 (chapter 10), eigenvalues in decreasing order, and train $W \in \mathbb{R}^{V\times d}$ by the gradient
# flow $\dot W = -\tfrac12\nabla\mathcal{L}(W)$ on $\mathcal{L}(W) = \tfrac14\|WW^\top - M^\star\|_F^2$ (the paper's
# $\dot W = -\frac{1}{2g}\nabla\mathcal{L}_{\rm QWEM}$; §1 explains the factor ½, and chapter 13 uses the same flow). Start *aligned*: $W(0) = Q_{[d]}\,S(0)\,O^\top$ with
# $S(0) = \mathrm{diag}(s_1(0), \dots, s_d(0))$ and any orthogonal $O$. Then the left factor $Q_{[d]}$ and
# the right factor $O$ never move, and every singular value follows its own sigmoid
#
# $$s_k^2(t) = \frac{s_k^2(0)\,\lambda_k\,e^{\lambda_k t}}{\lambda_k + s_k^2(0)\,\big(e^{\lambda_k t} - 1\big)} . \tag{12.1}$$
#
# The paper calls $\tau_k = \frac{1}{\lambda_k}\ln\frac{\lambda_k}{s_k^2(0)}$ the characteristic time of mode $k$.
#
# **Intuition.** In the eigenbasis of $M^\star$ the problem splits into $d$ copies of one scalar problem:
# fit a single number $s^2$ to a single eigenvalue $\lambda$. A small $s$ grows exponentially, slowly at
# first, then fast, then it stops at $\lambda$ — a logistic curve. Large eigenvalues grow fastest, so they
# are learned first. These are the dynamics of Saxe, McClelland and Ganguli (2014) for deep linear networks.
#
# This chapter fixes the time normalisation, derives the sigmoid, checks it against an ODE solver and
# against gradient descent, and corrects one loose phrase of the summary: $\tau_k$ is the **midpoint** of the
# sigmoid, where $s_k^2 \approx \lambda_k/2$, not the time at which $s_k^2$ reaches $\lambda_k$.

# %%
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("12_aligned_dynamics")
# a size that changes with the preset: config.per_preset(smoke, book, paper)
S = config.knobs(
    V=config.per_preset(30, 80, 1_000),
    top=(4.0, 2.5, 1.5, 1.0),
    s0_sq=1e-6,
    horizon=24.0,
    dts=(0.05, 0.025, 0.0125, 0.00625),
)
print(S)
dev = config.device()

# %% [markdown]
# ## 1 · Which gradient flow? The time normalisation
#
# The loss and its gradient (with $E = WW^\top - M^\star$ symmetric) are
#
# $$\mathcal{L}(W) = \tfrac14\|WW^\top - M^\star\|_F^2,\qquad \nabla\mathcal{L}(W) = (WW^\top - M^\star)\,W . \tag{12.2}$$
#
# Put an aligned matrix $W = Q_d S O^\top$ ($Q_d = Q_{[d]}$) into the gradient (12.2). Since $M^\star Q_d = Q_d\Lambda_d$
# and $WW^\top Q_d = Q_d S^2$,
#
# $$(M^\star - WW^\top)\,W = Q_d\,(\Lambda_d - S^2)\,S\,O^\top . \tag{12.3}$$
#
# The velocity is again of the form $Q_d(\text{diagonal})O^\top$: the flow never leaves the aligned set, and
# $Q_d$ and $O$ stay where they are. Only the diagonal moves. How fast depends on the constant in front of
# the gradient:
#
# * **plain flow** $\dot W = -\nabla\mathcal{L}$ gives $\dot s_k = s_k(\lambda_k - s_k^2)$, i.e.
#   $\frac{d}{dt}s_k^2 = 2s_k^2(\lambda_k - s_k^2)$: a logistic curve with rate $2\lambda_k$;
# * the paper writes $\dot W = -\frac{1}{2g}\nabla\mathcal{L}_{\rm QWEM}$. By Theorem 1,
#   $\mathcal{L}_{\rm QWEM} = \frac g4\|WW^\top - M^\star\|_F^2 + \text{const}$, so $\nabla\mathcal{L}_{\rm QWEM} = g(WW^\top - M^\star)W$
#   and the paper's flow is $\dot W = \tfrac12 (M^\star - WW^\top)W = -\tfrac12\nabla\mathcal{L}$. Then
#   $\frac{d}{dt}s_k^2 = s_k^2(\lambda_k - s_k^2)$, rate $\lambda_k$.
#
# Only the second normalisation makes the sigmoid (12.1) exact, with $e^{\lambda_k t}$ and not $e^{2\lambda_k t}$.
# The book's trainer `q.train_factorisation` therefore integrates $\dot W = -c\,\nabla\mathcal{L}$ with
# `time_scale` $c = \tfrac12$ by default (`q.FLOW_TIME_SCALE`), and **time in Part I always means the paper's
# time**. Gradient descent with learning rate $\eta$ on $\tfrac14\|WW^\top - M^\star\|^2$ advances this time by
# $2\eta$ per step.
#
# **Solving the scalar equation.** With $x = s^2$, $\dot x = x(\lambda - x)$. The substitution $y = 1/x$
# linearises it: $\dot y = 1 - \lambda y$, so $y(t) = \frac1\lambda + \big(\frac1{x_0} - \frac1\lambda\big)e^{-\lambda t}$, and
#
# $$x(t) = \frac{1}{\frac{1}{\lambda} + \big(\frac{1}{x_0} - \frac{1}{\lambda}\big)e^{-\lambda t}}
#        = \frac{x_0\,\lambda\,e^{\lambda t}}{\lambda + x_0\,(e^{\lambda t} - 1)} . \tag{12.4}$$
#
# (The theory curve of the paper's Figure 2, in the authors' notebook in their repository `dkarkada/qwem`, is the
# same function written as $s_k(t) = \big(e^{\lambda t}/(1/s_k^2(0) + (e^{\lambda t}-1)/\lambda)\big)^{1/2}$.)
# sympy confirms that (12.4) solves the equation with the right initial value; with $x = s_k^2$, $\lambda = \lambda_k$
# it is the sigmoid (12.1).

# %%
t_, lam_, x0_ = sp.symbols("t lambda x_0", positive=True)
x_t = x0_ * lam_ * sp.exp(lam_ * t_) / (lam_ + x0_ * (sp.exp(lam_ * t_) - 1))
residual = sp.simplify(sp.diff(x_t, t_) - x_t * (lam_ - x_t))
print("d/dt x - x(λ - x) =", residual, "   x(0) =", sp.simplify(x_t.subs(t_, 0)))
# the same equation with plain flow (rate 2λ) is solved by x(2t), not by x(t):
residual_plain = sp.simplify(sp.diff(x_t, t_) - 2 * x_t * (lam_ - x_t))
_ = rep.check(
    "qwem.lemma31.sigmoid_solves_ode",
    "sympy: s²(t) = s0²λe^{λt}/(λ + s0²(e^{λt}−1)) solves d(s²)/dt = s²(λ − s²), s²(0) = s0² "
    "(the flow dW/dt = −½∇(¼‖WWᵀ−M‖²)), and does not solve the plain-flow equation d(s²)/dt = 2s²(λ − s²)",
    value=str(residual),
    passed=(residual == 0 and sp.simplify(x_t.subs(t_, 0) - x0_) == 0 and residual_plain != 0),
    kind="finding",
)

# %% [markdown]
# ## 2 · A target with a known spectrum
#
# We build $M^\star = Q\,\mathrm{diag}(\lambda)\,Q^\top$ with a Haar-random orthogonal $Q$, four well separated top
# eigenvalues and a bulk of small eigenvalues of both signs, and start aligned: $W(0) = Q_{[:, :4]}S(0)O^\top$
# with a random orthogonal $O$ and every $s_k^2(0)$ equal to $s_0^2$.

# %%
rng = config.rng(12)
d = len(S["top"])
M, lam, Qm = q.synthetic_target(S["top"], S["V"], rng, bulk=0.3)
lam_d, Q_d = lam[:d], Qm[:, :d]
O, _ = np.linalg.qr(rng.standard_normal((d, d)))
s0_sq = np.full(d, S["s0_sq"])
W0 = q.aligned_init(Q_d, np.sqrt(s0_sq), O)
tau = q.characteristic_time(lam_d, s0_sq)
print("top eigenvalues:", lam_d, " largest bulk eigenvalue:", round(lam[d], 3))
print("characteristic times τ_k:", np.round(tau, 3))

# %% [markdown]
# ## 3 · Check against an ODE solver
#
# `q.solve_flow_ivp` hands the flattened $V\times d$ matrix to SciPy's `solve_ivp` (DOP853, relative tolerance
# $10^{-11}$): no assumption of alignment enters. We compare its singular values with the closed form.

# %%
t_grid = np.linspace(0.0, S["horizon"], 241)
W_ivp = q.solve_flow_ivp(M, W0, t_grid)
sv2_ivp = np.linalg.svd(W_ivp, compute_uv=False) ** 2  # (T, d), descending
theory = q.aligned_singular_values(lam_d, s0_sq, t_grid)  # (T, d), columns = modes
# with equal s0² the modes keep the order of the eigenvalues, so columns match the descending singular values
rel_err_ivp = float(np.max(np.abs(sv2_ivp - theory) / theory))
_ = rep.below(
    "qwem.lemma31.ivp_match",
    "Lemma 3.1: from aligned initialisation the squared singular values of the solve_ivp flow equal the "
    "closed-form sigmoid (max relative error over modes and times)",
    value=rel_err_ivp,
    bound=1e-6,
    kind="finding",
)

# %% [markdown]
# ## 4 · The frame does not move
#
# Two measures, both zero exactly when $W(t) = Q_d\,S(t)\,O^\top$ with the *initial* $Q_d$ and $O$:
# the part of $W$ outside the span of $Q_d$, $\|(I - Q_dQ_d^\top)W\|_F/\|W\|_F$, and the off-diagonal part of
# $Q_d^\top W(t)\,O$ relative to its diagonal. We evaluate them on the ODE solution and, as a control, on a
# flow from a *random* start of the same size, where the frame must move.


# %%
def frame_drift(Ws: np.ndarray, U0: np.ndarray, R0: np.ndarray) -> float:
    """max over t of the drift of W(t) away from the frame W = U0 · diag · R0ᵀ of its start."""
    out = []
    for W in Ws:
        A = U0.T @ W
        outside = np.linalg.norm(W - U0 @ A) / np.linalg.norm(W)
        C = A @ R0
        off = np.linalg.norm(C - np.diag(np.diag(C))) / np.linalg.norm(np.diag(C))
        out.append(max(outside, off))
    return float(max(out))


drift_aligned = frame_drift(W_ivp, Q_d, O)
# control: a random start of the same scale (s_k² ≈ s0²), measured against its own initial SVD frame
W_rand0 = np.sqrt(S["s0_sq"] / S["V"]) * rng.standard_normal((S["V"], d))
U_r, _, Rt_r = np.linalg.svd(W_rand0, full_matrices=False)
drift_random = frame_drift(q.solve_flow_ivp(M, W_rand0, t_grid[::10]), U_r, Rt_r.T)
print(f"frame drift: aligned start {drift_aligned:.2e},  random start {drift_random:.2f}")
rep.below(
    "qwem.lemma31.frame_fixed",
    "Lemma 3.1: from aligned initialisation U = Q_[d] and the right factor O stay fixed along the flow "
    "(max relative drift over t)",
    value=drift_aligned,
    bound=1e-8,
    kind="finding",
)
_ = rep.above(
    "qwem.lemma31.frame_moves_when_not_aligned",
    "control: from a random start of the same scale, the same measure against its own initial SVD frame "
    "is of order one (the frame rotates)",
    value=drift_random,
    bound=0.1,
    kind="consistency",
)

# %% [markdown]
# ## 5 · Gradient descent approximates the flow with an error $O(\eta)$
#
# Gradient descent with a step that advances time by $\Delta t$ (learning rate $\eta = \Delta t/2$) is the
# explicit Euler method for the flow, so its error at a fixed time should be proportional to $\Delta t$:
# halving the step should halve the error. The aligned structure itself is preserved *exactly* by every
# step (the update is $Q_d(\Lambda - S^2)S\,O^\top$ times a number), so only the sigmoids are approximated.

# %%
gd_err, gd_runs = [], {}
for dt in S["dts"]:
    tr = q.train_factorisation(M, W0, t_grid, dt=dt, method="gd", device=dev, progress=False)
    gd_runs[dt] = tr
    gd_err.append(float(np.max(np.abs(tr.sv**2 - theory) / lam_d)))
gd_err = np.array(gd_err)
ratios = gd_err[:-1] / gd_err[1:]
slope = np.polyfit(np.log(S["dts"]), np.log(gd_err), 1)[0]
for dt, e in zip(S["dts"], gd_err):
    print(f"Δt = {dt:<6} (η = {dt / 2:<6})  max_t,k |s²_GD − s²_theory|/λ_k = {e:.3e}")
print("successive error ratios:", np.round(ratios, 3), "  log-log slope:", round(slope, 3))
_ = rep.check(
    "qwem.lemma31.gd_first_order",
    "gradient descent tracks the sigmoid with error O(η): halving the step halves the error "
    "(every successive ratio within 2 ± 0.2)",
    value=ratios,
    passed=bool(np.all(np.abs(ratios - 2.0) <= 0.2)),
    tolerance="each ratio in [1.8, 2.2]",
    kind="consistency",
)

# %% [markdown]
# The frame drift of a gradient-descent run is checked on the recorded projections: the trainer records
# $Q_d^\top W$ and the norm of the part outside $Q_d$ when given a basis.

# %%
tr_fr = q.train_factorisation(
    M, W0, t_grid, dt=S["dts"][-1], method="gd", basis=Q_d, device=dev, progress=False
)
C = tr_fr.proj @ O  # (T, d, d)
off = np.linalg.norm(C - C * np.eye(d), axis=(1, 2)) / np.linalg.norm(C * np.eye(d), axis=(1, 2))
outside = np.sqrt(tr_fr.resid_sq) / np.linalg.norm(tr_fr.sv, axis=1)
_ = rep.below(
    "qwem.lemma31.frame_fixed_gd",
    "discrete gradient descent also keeps Q_[d] and O fixed exactly (drift at round-off level)",
    value=float(max(off.max(), outside.max())),
    bound=1e-10,
    kind="consistency",
)

# %% [markdown]
# ## 6 · What happens at $\tau_k$: the midpoint, not the end
#
# The summary says each singular value "reaches $\lambda_k$ at the characteristic time
# $\tau_k = \frac1{\lambda_k}\ln\frac{\lambda_k}{s_k^2(0)}$". Put $t = \tau_k$ into the sigmoid (12.1): $e^{\lambda_k\tau_k} = \lambda_k/s_k^2(0)$, so
#
# $$s_k^2(\tau_k) = \frac{s_k^2(0)\,\lambda_k\cdot\lambda_k/s_k^2(0)}{\lambda_k + \lambda_k - s_k^2(0)}
#   = \frac{\lambda_k^2}{2\lambda_k - s_k^2(0)},\qquad \frac{s_k^2(\tau_k)}{\lambda_k} = \frac{\lambda_k}{2\lambda_k - s_k^2(0)} \xrightarrow[s_k^2(0)\to0]{} \frac12 . \tag{12.5}$$
#
# **Correction.** $\tau_k$ is the midpoint of the sigmoid (exactly where $s_k^2 = \lambda_k/2$ when
# $s_k^2(0)\ll\lambda_k$). The sigmoid never reaches $\lambda_k$ in finite time; it reaches a fraction $f$ of it at
# $t_f = \frac1{\lambda_k}\ln\frac{f(\lambda_k - s_k^2(0))}{(1-f)\,s_k^2(0)} = \tau_k + \frac{1}{\lambda_k}\ln\frac{f}{1-f} + O(s_k^2(0)/\lambda_k)$,
# e.g. 99% of $\lambda_k$ about $4.6/\lambda_k$ after $\tau_k$. What is true is that $\tau_k$ is the time scale on
# which mode $k$ is learned, and that for small initialisation $\tau_k$ is long compared with the width
# $1/\lambda_k$ of the jump.

# %%
# the ODE solution evaluated exactly at τ_k, for one mode, over initial scales spanning eight decades
lam1 = float(lam_d[0])
s0_scan = lam1 * 10.0 ** -np.arange(1, 10)
ratio_num = []
for s0 in s0_scan:
    W0_1 = q.aligned_init(Q_d[:, :1], [np.sqrt(s0)])
    tau1 = q.characteristic_time(lam1, s0)
    Wt = q.solve_flow_ivp(M, W0_1, [0.0, tau1])[-1]
    ratio_num.append(float(np.linalg.norm(Wt) ** 2 / lam1))
ratio_num = np.array(ratio_num)
ratio_exact = q.midpoint_ratio(lam1, s0_scan)
for s0, r, e in zip(s0_scan, ratio_num, ratio_exact):
    print(f"s0²/λ = {s0 / lam1:.0e}:  s²(τ)/λ = {r:.12f}   exact λ/(2λ − s0²) = {e:.12f}")
rep.below(
    "qwem.lemma31.midpoint_exact",
    "s²(τ_k)/λ_k = λ_k/(2λ_k − s_k²(0)) exactly (solve_ivp at τ_k, max relative error over s0²/λ = 1e-1…1e-9)",
    value=float(np.max(np.abs(ratio_num - ratio_exact) / ratio_exact)),
    bound=1e-8,
    kind="consistency",
)
dev_half = np.abs(ratio_num - 0.5)
_ = rep.check(
    "qwem.lemma31.tau_is_midpoint",
    "correction to the summary: at τ_k the mode is half learned, s²(τ_k)/λ_k → 1/2 as s0² → 0 (not 1): "
    "|s²(τ)/λ − 1/2| decreases monotonically and is below 1e-8 at s0²/λ = 1e-9",
    value=float(ratio_num[-1]),
    paper="reaches λ_k at τ_k (ratio 1)",
    passed=bool(np.all(np.diff(dev_half) < 0) and dev_half[-1] < 1e-8),
    tolerance="|ratio − 0.5| decreasing, final < 1e-8",
    kind="consistency",
)

# %% [markdown]
# ## 7 · Figures: the sigmoids, and their collapse
#
# Figure 12.1 shows $s_k^2(t)/\lambda_k$ for the four modes: theory as lines, gradient descent (the finest step) as
# markers. Figure 12.2 replots them against rescaled time. In $t/\tau_k$ every curve passes through $\tfrac12$ at
# $1$, but the widths differ: the jump lasts about $1/\lambda_k$, i.e. $1/\ln(\lambda_k/s_k^2(0))$ in units of
# $\tau_k$. The variable in which the curves collapse *exactly* onto one logistic function is
# $u = \lambda_k(t - \tau_k)$:
#
# $$\frac{s_k^2}{\lambda_k} = \frac{e^{u}}{1 + e^{u} - x_0},\quad x_0 = \frac{s_k^2(0)}{\lambda_k},\qquad
#   0 \le \frac{s_k^2}{\lambda_k} - \frac{1}{1 + e^{-u}} = \frac{x_0\,e^{u}}{(1+e^{u})(1+e^{u}-x_0)} \le \frac{x_0}{4(1-x_0)} .$$
#
# (The bound: $(1+a)(1+a-x_0) \ge (1+a-x_0)^2$ and $a/(1+a-x_0)^2$ is largest at $a = 1-x_0$.)

# %%
tr_fine = gd_runs[S["dts"][-1]]
fig, ax = plotting.figure()
for k in range(d):
    col = plotting.PALETTE[k]
    ax.plot(
        t_grid,
        theory[:, k] / lam_d[k],
        color=col,
        lw=1.8,
        label=f"theory, λ_{k + 1} = {lam_d[k]:.2g}",
    )
    ax.plot(t_grid[::6], tr_fine.sv[::6, k] ** 2 / lam_d[k], "o", color=col, ms=4, mfc="none")
    ax.axvline(tau[k], color=col, ls=":", lw=1)
ax.plot([], [], "ko", mfc="none", ms=4, label=f"gradient descent, η = {S['dts'][-1] / 2:g}")
ax.axhline(0.5, color="grey", lw=0.8)
ax.legend(loc="lower right")
plotting.label(
    ax,
    "Figure 12.1 — Aligned dynamics: one sigmoid per eigenvalue",
    "time t (paper's normalisation)",
    r"$s_k^2(t) / \lambda_k$",
)
plt.show()

# %% [markdown]
# **Figure 12.1** — Squared singular values of $W(t)$, divided by their targets $\lambda_k$, from an aligned start
# with $s_k^2(0) = 10^{-6}$ for every mode. Lines: Lemma 3.1's closed form. Circles: gradient descent with the
# smallest step. Dotted verticals: the characteristic times $\tau_k$; each crosses its curve at height ½ (grey
# line), not at 1. Larger eigenvalues are learned earlier and faster.

# %%
u = lam_d[None, :] * (t_grid[:, None] - tau[None, :])
logistic = 1.0 / (1.0 + np.exp(-u))
fig, axs = plotting.figure(1, 2)
for k in range(d):
    col = plotting.PALETTE[k]
    axs[0].plot(t_grid / tau[k], tr_fine.sv[:, k] ** 2 / lam_d[k], color=col, label=f"k = {k + 1}")
    axs[1].plot(
        u[:, k],
        tr_fine.sv[:, k] ** 2 / lam_d[k],
        "o",
        color=col,
        ms=3,
        mfc="none",
        label=f"k = {k + 1}",
    )
uu = np.linspace(-10, 10, 400)
axs[1].plot(uu, 1 / (1 + np.exp(-uu)), color="black", lw=1.5, label="1/(1+e^{−u})")
for s0x, ls in ((1e-2, "--"), (1e-12, ":")):  # the width of the jump in t/τ is 1/ln(λ/s0²)
    tt = np.linspace(0, 2, 400) * q.characteristic_time(lam1, s0x)
    axs[0].plot(
        tt / q.characteristic_time(lam1, s0x),
        q.aligned_singular_values([lam1], [s0x], tt)[:, 0] / lam1,
        color="grey",
        ls=ls,
        label=f"theory, s0² = {s0x:g}",
    )
axs[0].axvline(1.0, color="grey", lw=0.8)
axs[0].set_xlim(0, 2)
axs[1].set_xlim(-10, 10)
axs[0].legend()
axs[1].legend()
plotting.label(
    axs[0],
    r"Figure 12.2a — rescaled time $t/\tau_k$",
    r"$t / \tau_k$",
    r"$s_k^2 / \lambda_k$ (gradient descent)",
)
plotting.label(
    axs[1],
    r"Figure 12.2b — shifted time $\lambda_k(t - \tau_k)$",
    r"$u = \lambda_k (t - \tau_k)$",
    r"$s_k^2 / \lambda_k$",
)
plt.show()

# %% [markdown]
# **Figure 12.2** — The gradient-descent curves of Figure 12.1 against two rescaled times. (a) In $t/\tau_k$ all
# modes cross ½ at 1, but the smaller eigenvalues, with a smaller $\ln(\lambda_k/s_0^2)$, have slightly wider jumps;
# the grey theory curves for mode 1 started from $s_0^2 = 10^{-2}$ (dashed) and $10^{-12}$ (dotted) show that the
# width in these units is $1/\ln(\lambda_k/s_0^2)$: the smaller the start, the closer to a step.
# (b) In $u = \lambda_k(t-\tau_k)$ they collapse onto the logistic function (black), up to an error of order
# $s_0^2/\lambda_k$ and the $O(\eta)$ error of gradient descent.

# %%
x0 = s0_sq / lam_d
bound_x0 = float(np.max(x0 / (4 * (1 - x0))))  # max_u of the exact deviation (see the text)
collapse_dev = float(np.max(np.abs(sv2_ivp / lam_d - logistic)))
collapse_gd = float(np.max(np.abs(tr_fine.sv**2 / lam_d - logistic)))
print(
    f"max deviation from the logistic: ODE solution {collapse_dev:.2e} (bound s0²/(4λ(1 − s0²/λ)) = "
    f"{bound_x0:.2e}),  gradient descent {collapse_gd:.2e} (its O(η) error is {gd_err[-1]:.1e})"
)
rep.below(
    "qwem.lemma31.collapse_logistic",
    "in u = λ_k(t − τ_k) every mode's s_k²/λ_k collapses onto 1/(1+e^{−u}) within the exact bound "
    "x0/(4(1−x0)), x0 = s0²/λ_k (solve_ivp flow, max over t and k; +1e-9 for the solver)",
    value=collapse_dev,
    bound=bound_x0 + 1e-9,
    kind="consistency",
)
mid = np.array(
    [
        q.aligned_singular_values(lam_d[k : k + 1], s0_sq[k : k + 1], tau[k])[0] / lam_d[k]
        for k in range(d)
    ]
)
widths = 1.0 / np.log(lam_d / s0_sq)
print(
    "s_k²(τ_k)/λ_k for each mode:",
    np.round(mid, 9),
    "  jump width in units of τ_k, 1/ln(λ_k/s0²):",
    np.round(widths, 4),
)

# %% [markdown]
# ## Discussion
#
# * Lemma 3.1 is exact, and three independent computations agree on it: the closed form, an adaptive ODE solver
#   on the full $V\times d$ matrix, and gradient descent, whose error halves with the step.
# * The time normalisation matters: with plain gradient flow on $\tfrac14\|WW^\top - M^\star\|^2$ every rate doubles.
#   Part I uses the paper's flow $\dot W = -\tfrac12\nabla\mathcal{L}$ throughout, so that $\tau_k$ and the sigmoid
#   read as in the paper. Gradient descent with learning rate $\eta$ then covers time $2\eta$ per step.
# * $\tau_k$ is the half-way point of mode $k$, not its completion.
# * Aligned initialisation is special: the frame is fixed only because it starts on the eigenbasis. From a
#   random start (Section 4's control) the frame rotates. Chapter 13 shows that from a *small* random start it
#   rotates onto the eigenbasis before anything visible happens, so that Lemma 3.1 describes the whole run.

# %% [markdown]
# ## What this chapter found
#
# Each finding and pre-registered prediction of this chapter, with what its check showed at this preset
# (held, failed or open) and its value against its tolerance. The full statements are in the chapter's report.

# %%
_ = rep.found()

# %% [markdown]
# ## Exercises
#
# 1. *(compute, ★)* Repeat Section 3 with `time_scale=1.0` in `q.solve_flow_ivp`. Show that the singular values then follow
#    `q.aligned_singular_values(lam, s0_sq, 2 * t)`, and explain the factor with the chain rule.
# 2. *(explore, ★★)* Give the modes *different* initial scales, e.g. $s_k^2(0) = 10^{-2k}$. Which mode is learned first? Can a
#    smaller eigenvalue overtake a larger one, and what inequality between $\tau_k$ decides it?
# 3. *(derive, ★★)* Start one mode with $s_k(0) = 0$ exactly. What does the flow do, and why is "distinct singular values at
#    initialisation, true with probability one" not enough to rule this out in floating point?
# 4. *(derive, ★★)* Make $\lambda_4$ negative in `q.synthetic_target` and train with $d = 4$. Derive from the scalar equation what
#    $s_4^2(t)$ does, and check it against `q.aligned_singular_values` (it accepts $\lambda < 0$).
# 5. *(compute, ★★)* Increase the gradient-descent step until the error ratio in Section 5 departs from 2. Relate the step at which
#    gradient descent becomes unstable near the end of training to the largest eigenvalue $\lambda_1$.
#
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# With `time_scale=1.0` the flow is $\dot W = -\nabla\mathcal{L}$, twice the velocity of the paper's flow at every point.
# If $W_{1/2}(t)$ solves the paper's flow, then $W(t) = W_{1/2}(2t)$ solves the plain one: by the chain rule
# $\dot W(t) = 2\dot W_{1/2}(2t) = -\nabla\mathcal{L}(W(t))$. So the singular values follow the sigmoid at time $2t$, i.e.
# with rate $2\lambda_k$ — the doubling of §1. The cell checks it with `solve_ivp`.
#
# </details>

# %%
W_plain = q.solve_flow_ivp(M, W0, t_grid[:121], time_scale=1.0)
sv2_plain = np.linalg.svd(W_plain, compute_uv=False) ** 2
theory_2t = q.aligned_singular_values(lam_d, s0_sq, 2 * t_grid[:121])
_ = rep.below(
    "qwem.lemma31.solution.1.plain_flow_doubles_time",
    "exercise 1: under plain flow dW/dt = −∇L the squared singular values equal the sigmoid at time 2t "
    "(max relative error)",
    value=float(np.max(np.abs(sv2_plain - theory_2t) / theory_2t)),
    bound=1e-6,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# Each mode evolves on its own (the aligned flow is diagonal), so mode $k$ is half learned at
# $\tau_k = \frac1{\lambda_k}\ln\frac{\lambda_k}{s_k^2(0)}$ (up to $O(s_k^2(0)/\lambda_k)$), whatever the other modes do. A smaller
# eigenvalue $\lambda_j < \lambda_i$ is learned first exactly when $\tau_j < \tau_i$, i.e. when its head start
# $\ln(1/s_j^2(0))$ is small enough to beat its slower rate. With $s_k^2(0) = 10^{-2k}$ the larger eigenvalues also
# start larger, so the order is kept. Reverse the scales, $s_k^2(0) = 10^{-2(5-k)}$, and the smallest eigenvalue
# $\lambda_4 = 1$, started at $10^{-2}$, is learned *first*. "Largest eigenvalue first" is a consequence of equal,
# small initial scales, not of the dynamics alone. The cell runs both on the ODE solver.
#
# </details>

# %%
for name, s0_ex in (
    ("s_k²(0) = 10^(−2k)", 10.0 ** (-2.0 * np.arange(1, d + 1))),
    ("s_k²(0) = 10^(−2(5−k))", 10.0 ** (-2.0 * (5 - np.arange(1, d + 1)))),
):
    W_ex = q.solve_flow_ivp(
        M, q.aligned_init(Q_d, np.sqrt(s0_ex), O), np.linspace(0, S["horizon"], 2401)
    )
    s2_modes = (
        np.linalg.norm(np.einsum("vk,tvd->tkd", Q_d, W_ex), axis=2) ** 2
    )  # ‖q_kᵀW(t)‖², mode by mode
    t_learn = q.learning_times(np.linspace(0, S["horizon"], 2401), s2_modes, lam_d)
    tau_ex = q.characteristic_time(lam_d, s0_ex)
    half_ex = q.half_time(lam_d, s0_ex)  # exact: (1/λ) ln((λ − s0²)/s0²), τ_k up to O(s0²/λ)
    prose(
        f"{name}: half-learning times {np.round(t_learn, 3)}, exact {np.round(half_ex, 3)}, τ_k {np.round(tau_ex, 3)}; "
        f"order of learning (mode numbers) {[int(k) + 1 for k in np.argsort(t_learn)]}"
    )
_ = rep.check(
    "qwem.lemma31.solution.2.order_set_by_tau",
    "exercise 2: with reversed initial scales the modes are learned in the order of τ_k, not of λ_k "
    "(smallest eigenvalue first; measured half-learning times within 1e-3 of the exact (1/λ)ln((λ−s0²)/s0²), "
    "the grid step being 0.01)",
    value={"t_learn": t_learn, "tau": tau_ex},
    passed=bool(
        np.array_equal(np.argsort(t_learn), np.argsort(tau_ex))
        and np.argmin(t_learn) == d - 1
        and np.max(np.abs(t_learn - half_ex)) < 1e-3
    ),
    tolerance="same order; |Δt| < 1e-3",
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# In exact arithmetic a mode with $s_k(0) = 0$ stays at zero: $\dot s_k = \tfrac12 s_k(\lambda_k - s_k^2) = 0$ there — it is an
# unstable fixed point, and the flow never learns that feature. "Distinct singular values (and non-zero ones)
# with probability one" is a statement about exact real numbers. In floating point, round-off in the products
# $M^\star W$ and $WW^\top W$ puts components of size about $10^{-16}\|W\|$ into the empty direction; from there they grow
# at rate $\lambda_k/2$, so the feature is learned after all, but late, at about $\frac1{\lambda_k}\ln\frac{\lambda_k}{(10^{-16}\|W\|)^2}$,
# and at a time that depends on the rounding, not on the mathematics. A run that "learns" such a mode is
# reporting round-off.
#
# </details>

# %% [markdown]
# <details><summary>Solution 4</summary>
#
# For $\lambda < 0$ the scalar equation $\dot x = x(\lambda - x)$ has only the fixed point $x = 0$ in $x \ge 0$, and it is
# stable: $x$ decays, like $x_0e^{\lambda t}$ at first and exactly as the same closed form
# $x(t) = x_0\lambda e^{\lambda t}/(\lambda + x_0(e^{\lambda t}-1))$, which is valid for either sign of $\lambda$. A column assigned
# to a negative eigenvalue dies out: the Gram matrix converges to the PSD truncation of chapter 10. The cell
# makes $\lambda_4 = -0.5$ and compares the ODE solution with the closed form.
#
# </details>

# %%
lam_neg = lam.copy()
lam_neg[d - 1] = -0.5
M_negex = (Qm * lam_neg) @ Qm.T
s0_neg = np.full(d, 1e-2)
W_negex = q.solve_flow_ivp(M_negex, q.aligned_init(Q_d, np.sqrt(s0_neg), O), t_grid)
s2_neg = np.linalg.norm(np.einsum("vk,tvd->tkd", Q_d, W_negex), axis=2) ** 2
th_neg = q.aligned_singular_values(lam_neg[:d], s0_neg, t_grid)
_ = rep.below(
    "qwem.lemma31.solution.4.negative_eigenvalue_decays",
    "exercise 4: with λ_4 = −0.5 mode 4 follows the same closed form and decays (max relative error over t; "
    "final s_4² below 1e-6)",
    value=float(np.max(np.abs(s2_neg - th_neg) / th_neg)),
    bound=1e-6 if s2_neg[-1, d - 1] < 1e-6 else -1.0,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 5</summary>
#
# The error ratio stays at 2 only while gradient descent follows the flow. Stability is decided near the end,
# at the minimum. There the Hessian of $\frac14\|WW^\top - M^\star\|^2$ has largest eigenvalue $2\lambda_1$ (along mode 1's own
# column: $\frac{d^2}{ds^2}\frac14(s^2-\lambda_1)^2 = 3s^2 - \lambda_1 = 2\lambda_1$ at $s^2 = \lambda_1$). A gradient step with learning
# rate $\eta$ multiplies the deviation along that direction by $1 - 2\eta\lambda_1$, so the minimum is stable if and only
# if $\eta < 1/\lambda_1$, i.e. a time step $\Delta t = 2\eta < 2/\lambda_1$. Above it, $s_1^2$ no longer settles: it jumps between two
# values on either side of $\lambda_1$ (a period-two orbit; the quartic keeps it from blowing up). With
# $\lambda_1 = 4$ the threshold is $\Delta t = 0.5$; the cell runs just below and just above.
#
# </details>

# %%
dt_crit = 2.0 / lam1
final_dev = {}
for f_ in (0.9, 1.1):
    dt_ex = f_ * dt_crit
    tr_ex = q.train_factorisation(
        M, W0, dt_ex * np.arange(600), dt=dt_ex, method="gd", device=dev, progress=False
    )
    final_dev[f_] = float(np.max(np.abs(tr_ex.sv[-2:, 0] ** 2 - lam1)) / lam1)
prose(
    f"Δt = 0.9 × 2/λ₁: last two values of s₁² within {final_dev[0.9]:.1e} of λ₁ (relative); "
    f"Δt = 1.1 × 2/λ₁: {final_dev[1.1]:.3f} away."
)
_ = rep.check(
    "qwem.lemma31.solution.5.stability_threshold",
    "exercise 5: gradient descent settles on λ_1 for Δt = 0.9·2/λ_1 (deviation < 1e-6) and not for Δt = 1.1·2/λ_1 "
    "(deviation > 0.01)",
    value=final_dev,
    passed=bool(final_dev[0.9] < 1e-6 and final_dev[1.1] > 0.01),
    tolerance="< 1e-6 below, > 0.01 above",
    kind="consistency",
)
