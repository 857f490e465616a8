# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 52 · Contrastive learning beyond words: a linear SimCLR learns stepwise
#
# *Part V goes beyond the papers. This chapter tests a statement the QWEM paper makes but does not test.*
#
# **Statement (claim C8 of the summary, QWEM Appendix D.2).** "Contrastive losses of the form
# E₊f⁺(wᵀw′) + E₋f⁻(wᵀw′) reduce in the same way to factorisation; SimCLR in a linearised regime should
# step" (seed 000, line 42; the paper's appendix is a sketch, and the summary rates the claim *weak*).
#
# **The book's setting.** Words are one-hot inputs; here the inputs are vectors $x \in \mathbb{R}^n$ and a
# positive pair is two *augmented views* $x, x'$ of one sample, a negative pair two views of independent
# samples. A linear encoder $z = W^\top x$ ($W \in \mathbb{R}^{n\times d}$, like the book's $V\times d$ embeddings)
# gives $s = z^\top z' = x^\top WW^\top x'$, which is $w_i^\top w_j$ for one-hot inputs. The data are synthetic
# Gaussian augmentations whose kernel is known in closed form (everything ships with the book), the losses are
# evaluated on the whole sample at every step (full batch, all negatives: no sampling noise), and three losses
# are compared: the spectral contrastive loss $-2\,\mathbb{E}_+s + \mathbb{E}_-s^2$, word2vec's logistic loss, and SimCLR's
# InfoNCE. Then the same with a small nonlinear encoder.
#
# **Predictions (stated before any experiment was run).**
#
# * **P1** — Spectral loss, linear encoder, whitened views, small random initialisation: the model ends on the
#   top-$d$ eigenspace of the sample kernel $\hat K$ (subspace distance $< 0.05$), learns the modes in order of
#   eigenvalue, and each half-time agrees with Lemma 3.1 (with $\lambda_k = \hat\kappa_k$) within 3%.
# * **P2** — Control: from a large initialisation there are no steps (step sharpness $< 1.5$ for every mode,
#   against $> 3$ from the small one).
# * **P3** — InfoNCE, linear encoder: the same eigenspace (distance $< 0.05$) and order, and half-times within
#   10% of Lemma 3.1 at half speed (its second-order expansion is $\tfrac12\lVert WW^\top - K\rVert^2$).
# * **P4** — Logistic loss, linear encoder: the same eigenspace (distance $< 0.05$) and order; half-times within
#   10% of the *coupled* quadratic-order dynamics derived below; the uncoupled (pure factorisation) prediction
#   is worse for the modes after the first.
# * **P5** — A two-layer ReLU encoder with $d = 3$ learns the function-space eigenfunction $\mathrm{He}_2(y_1)$
#   (eigenvalue $\kappa_1^2 \approx 0.72$) rather than the linear $y_2$ ($\kappa_2 = 0.6$): at the end
#   $R^2(\mathrm{He}_2(y_1)) > 0.5$ and $> R^2(y_2)$; the linear encoder has $R^2(y_2) > 0.9$.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import torch

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
torch.set_num_threads(config.threads())
rep = Report("52_contrastive_learning")
# a size that changes with the preset: config.per_preset(smoke, book, paper)
S = config.knobs(
    N=config.per_preset(1_000, 4_000, 20_000),
    N_pair=config.per_preset(300, 600, 1_500),
    steps=6_000,
    lr=0.005,
    steps_pair=config.per_preset(2_500, 2_500, 5_000),
    lr_infonce=config.per_preset(0.02, 0.02, 0.01),
    lr_logistic=config.per_preset(0.04, 0.04, 0.02),
    N_mlp=config.per_preset(600, 2_000, 5_000),
    hidden=config.per_preset(64, 128, 256),
    steps_mlp=config.per_preset(2_000, 4_000, 20_000),
    lr_mlp=0.002,
)
print(S)
T_START = time.time()
# Outcomes of the predictions as first measured at each preset (typed in after the runs: a claim that checks
# a failed prediction is a record, not a finding). None: not measured yet at that preset.
_keys = ("P1", "P2", "P3_times", "P3_space", "P4_times", "P4_space", "P5")
OUTCOME = config.sizes(
    smoke=dict(
        P1=True, P2=True, P3_times=True, P3_space=False, P4_times=True, P4_space=False, P5=False
    ),
    book=dict(
        P1=True, P2=True, P3_times=True, P3_space=False, P4_times=True, P4_space=False, P5=False
    ),
    paper={k: None for k in _keys},
)


def prediction(key: str, id: str, statement: str, *, holds: bool, value) -> None:
    """Record prediction `key` by its first run's outcome at this preset (`Report.prediction`)."""
    rep.prediction(id, statement, holds=holds, value=value, outcome=OUTCOME.get(key))


# %% [markdown]
# ## 1 · Derivation
#
# **Moments.** Let $\Sigma = \mathbb{E}[xx^\top]$ be the second moment of a view and $C = \mathbb{E}_+[x\,x'^\top]$ the
# positive cross moment, both symmetric (the pair distribution is symmetrised: $(x, x')$ and $(x', x)$ are both
# positives). Negatives are drawn from the product of the view marginals, the analogue of word2vec's
# $P_iP_j$. With $A = WW^\top$:
#
# $$\mathbb{E}_+ s = \operatorname{tr}(AC),\qquad \mathbb{E}_- s = \mu^\top A\mu,\qquad
#   \mathbb{E}_- s^2 = \mathbb{E}\,[x^\top A x''\,x''^\top A x] = \operatorname{tr}(A\Sigma A\Sigma), \tag{52.1}$$
#
# the last of (52.1) for *any* distribution, because $x$ and $x''$ are independent (only second moments enter). We centre
# the data, $\mu = 0$.
#
# **The spectral loss is exactly a factorisation.** In whitened coordinates ($x \mapsto \Sigma^{-1/2}x$, so that
# $\Sigma = I$ and $C$ becomes the **augmentation kernel** $K = \Sigma^{-1/2}C\Sigma^{-1/2}$):
#
# $$\mathcal{L}_{\rm spec} = -2\,\mathbb{E}_+s + \mathbb{E}_-s^2 = -2\operatorname{tr}(WW^\top K) + \lVert WW^\top\rVert_F^2
#   = \lVert WW^\top - K\rVert_F^2 - \lVert K\rVert_F^2 . \tag{52.2}$$
#
# So (52.2) is QWEM's Theorem 1, (10.1), with $M^\star = K$ and $g = 4$: the minimisers are $K$'s top-$d$ eigenvectors scaled by
# $\sqrt{\kappa_k}$, and the paper's flow $\dot W = -\frac1{2g}\nabla\mathcal{L} = -\frac18\nabla\mathcal{L}_{\rm spec}$ gives Lemma 3.1 with
# $\lambda_k = \kappa_k$. Gradient descent with learning rate $\eta$ covers paper time $8\eta$ per step.
#
# **Other losses agree to first order only.** Expanding $f^\pm$ at $s = 0$,
# $\mathcal{L} \approx \text{const} + f^{+\prime}(0)\operatorname{tr}(AK) + \tfrac12 f^{+\prime\prime}(0)\,\mathbb{E}_+s^2 + \tfrac12 f^{-\prime\prime}(0)\,\mathbb{E}_-s^2$.
# The linear term sets the growth rates from a small start: always $K$'s eigenvalues. The quadratic terms set the
# plateaus, and $\mathbb{E}_+s^2$ involves **fourth** moments of the positive pairs. For jointly Gaussian whitened views
# (Isserlis' theorem), $\mathbb{E}_+s^2 = \operatorname{tr}(AK)^2 + \lVert A\rVert^2 + \operatorname{tr}(AKAK)$. Then:
#
# * **InfoNCE** (SimCLR's loss, temperature 1): $-s_{aa} + \log\sum_b e^{s_{ab}} - \log N \approx -s_{aa} + \overline{s_{a\cdot}} + \tfrac12\operatorname{Var}_b s_{ab}$,
#   whose expectation is $-\operatorname{tr}(AK) + \tfrac12\operatorname{tr}(A\Sigma A\Sigma) = \tfrac12\big(\lVert A - K\rVert^2 - \lVert K\rVert^2\big)$:
#   half the spectral loss, an exact factorisation at second order, learned at half the speed.
# * **Logistic** (word2vec's $\mathbb{E}_+\log(1+e^{-s}) + \mathbb{E}_-\log(1+e^{s})$, $f^{\pm\prime}(0) = \mp\tfrac12$, $f^{\pm\prime\prime}(0) = \tfrac14$):
#   $\mathcal{L} \approx -\tfrac12\operatorname{tr}(AK) + \tfrac18\big[\operatorname{tr}(AK)^2 + 2\lVert A\rVert^2 + \operatorname{tr}(AKAK)\big]$. This is **not** an
#   unweighted factorisation: the term $\operatorname{tr}(AK)^2$ couples the modes. For $A$ aligned with $K$
#   ($a_k = s_k^2$), the paper-time flow $\dot a_k = -\tfrac{a_k}2\partial_{a_k}\mathcal{L}$ reads
#
# $$\dot a_k = a_k\Big[\frac{\kappa_k}{4} - \frac{a_k}{4} - \frac{a_k\kappa_k^2}{8} - \frac{\kappa_k}{8}\sum_j \kappa_j a_j\Big]: \tag{52.3}$$
#
#   each learned mode slows every later one. A single mode would settle at $a = \kappa/(1+\kappa^2)$, not $\kappa$.
#   (For one-hot inputs $\mathbb{E}_+s^2 = \sum_{ij}P_{ij}A_{ij}^2$ instead; that is why QWEM needs Setting 3.1's
#   reweighting to make the same term unweighted.)
#
# `q.aligned_contrastive_dynamics` integrates these three reduced systems ((52.3) for the logistic loss). The aligned set is invariant under all
# three flows (every term is a polynomial in $A$ and $K$), so from a small random start one expects silent
# alignment (chapter 13) and these curves, with the initial values $s_k(0)$ matched as in chapter 13
# (`q.matched_initial_singular_values`).

# %% [markdown]
# ## 2 · Augmentations with a known kernel
#
# A base sample $x_0 \sim \mathcal{N}(0, U\operatorname{diag}(\sigma^2)U^\top)$ and two views $x_v = x_0 + \xi_v$ with independent
# augmentation noise $\xi_v \sim \mathcal{N}(0, U\operatorname{diag}(\nu^2)U^\top)$ (`q.GaussianAugmentation`). Then
# $\Sigma = U\operatorname{diag}(\sigma^2+\nu^2)U^\top$, $C = U\operatorname{diag}(\sigma^2)U^\top$ and $K = U\operatorname{diag}\big(\sigma^2/(\sigma^2+\nu^2)\big)U^\top$: a
# direction is learnable in proportion to the share of its variance that survives the augmentation. We take
# $n = 8$ directions with $\sigma_k^2 = \kappa_k$, $\nu_k^2 = 1 - \kappa_k$ (so $\Sigma = I$ in the population) and a random
# rotation $U$. The finite sample is then centred and whitened exactly (`q.whiten_views`), and its kernel $\hat K$
# is what the model sees.

# %%
rng = config.rng(52)
n, d = 8, 4
kappa = np.array([0.85, 0.6, 0.45, 0.3, 0.2, 0.12, 0.06, 0.03])
U, _ = np.linalg.qr(rng.standard_normal((n, n)))
aug = q.GaussianAugmentation(U, kappa, 1 - kappa)
X1, X2 = q.whiten_views(*aug.sample(S["N"], rng))
Sig_hat, K_hat = q.view_moments(X1, X2)
kh, Uh = q.eig_desc(K_hat)
prose(
    f"Population κ: {', '.join(f'{v:.2f}' for v in kappa)}. Sample kernel ($N$ = {S['N']:,} pairs): "
    f"{', '.join(f'{v:.3f}' for v in kh)}; its top-{d} eigenspace is "
    f"{q.subspace_distance(Uh[:, :d], U[:, :d]):.3f} (sine of the largest principal angle) from the population's."
)
Wt = rng.standard_normal((n, d)) * 0.3
loss_sample = float(
    q.contrastive_loss(torch.from_numpy(X1 @ Wt), torch.from_numpy(X2 @ Wt), "spectral")
)
loss_fact = float(((Wt @ Wt.T - K_hat) ** 2).sum() - (K_hat**2).sum())
rep.close(
    "beyond.contrastive.spectral_is_factorisation",
    "the spectral contrastive loss evaluated on the whitened sample (all (2N)² negatives) equals "
    "‖WWᵀ − K̂‖² − ‖K̂‖² at a random W",
    value=loss_sample,
    target=loss_fact,
    tol=1e-10,
    rel=True,
    kind="consistency",
)

# %% [markdown]
# ## 3 · P1 and P2: the spectral loss learns one eigenvector at a time, on Lemma 3.1's clock


# %%
def run_linear(X1_, X2_, kind, lr, steps, init, every=20):
    enc = q.make_encoder(n, d, init_scale=init, seed=1)
    W0 = enc.weight.detach().numpy().T.copy()
    run = q.train_contrastive(X1_, X2_, enc, kind, lr=lr, steps=steps, record_every=every)
    return W0, run


def modes(run, lr, Ub):
    """paper time, and a_k(t) = ‖u_kᵀW(t)‖² along the kernel's eigenvectors."""
    return 8 * lr * run["step"], (np.einsum("nk,tnd->tkd", Ub, run["probe"]) ** 2).sum(axis=2)


W0, run_s = run_linear(X1, X2, "spectral", S["lr"], S["steps"], 1e-4)
t_s, a_s = modes(run_s, S["lr"], Uh[:, :d])
s0, _ = q.matched_initial_singular_values(W0, Uh[:, :d])
half_meas = q.learning_times(t_s, a_s, kh[:d])
half_pred = q.half_time(kh[:d], s0**2)
rel_err = half_meas / half_pred - 1
dist_s = q.subspace_distance(run_s["probe"][-1], Uh[:, :d])
sharp_small = q.step_sharpness(t_s, a_s, a_s[-1])["sharpness"]
prose(
    f"Half-times (paper time): measured {', '.join(f'{v:.2f}' for v in half_meas)}; Lemma 3.1 with matched "
    f"$s_k(0)$ {', '.join(f'{v:.2f}' for v in half_pred)} (relative differences "
    f"{', '.join(f'{v:+.2%}' for v in rel_err)}). Final subspace distance to $\\hat K$'s top-{d}: {dist_s:.1e}. "
    f"Step sharpness {', '.join(f'{v:.1f}' for v in sharp_small)}."
)
prediction(
    "P1",
    "beyond.contrastive.P1.spectral_lemma31",
    f"P1: the spectral loss (linear, whitened, init 1e-4) ends on K̂'s top-{d} eigenspace (distance < 0.05), "
    "learns the modes in order of κ̂, and every half-time is within 3% of Lemma 3.1 with λ = κ̂",
    holds=bool(dist_s < 0.05 and np.all(np.diff(half_meas) > 0) and np.max(np.abs(rel_err)) < 0.03),
    value=dict(distance=dist_s, half_measured=half_meas, half_lemma31=half_pred, rel_err=rel_err),
)
rep.below(
    "beyond.contrastive.gd_discretisation",
    "the 3% tolerance of P1 is honest: gradient descent's per-step growth 1 + κΔt/2 against the flow's e^{κΔt/2} "
    "shifts a half-time by at most about κ₁Δt/4 (relative), here (Δt = 8η)",
    value=kh[0] * 8 * S["lr"] / 4,
    bound=0.03,
    kind="consistency",
)
_, run_l = run_linear(X1, X2, "spectral", S["lr"], S["steps"] // 2, 0.15, every=5)
t_l, a_l = modes(run_l, S["lr"], Uh[:, :d])
sharp_large = q.step_sharpness(t_l, a_l, a_l[-1])["sharpness"]
prose(
    f"Large initialisation (entries 0.15): step sharpness {', '.join(f'{v:.2f}' for v in sharp_large)} "
    f"(NaN: the mode already started above 10% of its end value)."
)
prediction(
    "P2",
    "beyond.contrastive.P2.large_init_no_steps",
    "P2: from a large initialisation no mode has step sharpness above 1.5, while from the small one every mode "
    "is above 3",
    holds=bool(np.all(np.nan_to_num(sharp_large, nan=0.0) < 1.5) and np.all(sharp_small > 3)),
    value=dict(small=sharp_small, large=sharp_large),
)

# %%
th_s = q.aligned_singular_values(kh[:d], s0**2, t_s)
fig, axs = plotting.figure(1, 2, width=11, height=4)
for k in range(d):
    c = plotting.PALETTE[k]
    axs[0].plot(
        t_s, th_s[:, k] / kh[k], color=c, lw=1.8, label=f"Lemma 3.1, κ̂_{k + 1} = {kh[k]:.2f}"
    )
    axs[0].plot(t_s[::15], a_s[::15, k] / kh[k], "o", color=c, ms=3, mfc="none")
    axs[1].plot(t_l, a_l[:, k] / kh[k], color=c, label=f"mode {k + 1}")
axs[0].plot([], [], "ko", mfc="none", ms=3, label="trained on the sample")
axs[0].legend(fontsize=8)
axs[1].legend(fontsize=8)
plotting.label(
    axs[0],
    "Figure 52.1a — spectral loss, small init: steps",
    r"paper time $t = 8\eta \cdot$ step",
    r"$a_k(t) / \hat\kappa_k$",
)
plotting.label(
    axs[1],
    "Figure 52.1b — the same, large init: no steps",
    r"paper time $t = 8\eta \cdot$ step",
    r"$a_k(t) / \hat\kappa_k$",
)
plt.show()

# %% [markdown]
# **Figure 52.1** — (a) A linear encoder trained by full-batch gradient descent on the spectral contrastive loss
# from entries of size $10^{-4}$: the squared projections $a_k = \lVert u_k^\top W\rVert^2$ on the kernel's eigenvectors,
# divided by their targets, against paper time. Circles: training on the sample; lines: Lemma 3.1's sigmoids
# with the matched initial values, no fitted parameter. (b) The same from entries of size 0.15: the modes rise
# together, without plateaus.

# %% [markdown]
# ## 4 · P3 and P4: InfoNCE (linearised SimCLR) and the logistic loss
#
# Both need every pair of embeddings at every step, so they run on a smaller sample ($N_{\rm pair}$ pairs,
# re-whitened; its kernel $\hat K_p$ is the reference).

# %%
Y1, Y2 = q.whiten_views(X1[: S["N_pair"]], X2[: S["N_pair"]])
_, K_p = q.view_moments(Y1, Y2)
kp, Up = q.eig_desc(K_p)
res = {}
for kind, lr in (("infonce", S["lr_infonce"]), ("logistic", S["lr_logistic"])):
    W0p, run = run_linear(Y1, Y2, kind, lr, S["steps_pair"], 1e-4)
    t, a = modes(run, lr, Up[:, :d])
    s0p, _ = q.matched_initial_singular_values(W0p, Up[:, :d])
    tt = np.linspace(0, 3 * t[-1], 30_001)
    if kind == "infonce":
        th = q.aligned_contrastive_dynamics(kp[:d], s0p**2, tt, "infonce_quadratic")
        th_indep = th
    else:
        th = q.aligned_contrastive_dynamics(kp[:d], s0p**2, tt, "logistic_quartic")
        th_indep = np.stack(
            [
                q.aligned_contrastive_dynamics(
                    kp[k : k + 1], s0p[k : k + 1] ** 2, tt, "logistic_quartic"
                )[:, 0]
                for k in range(d)
            ],
            axis=1,
        )
    res[kind] = dict(
        t=t,
        a=a,
        tt=tt,
        th=th,
        meas=q.learning_times(t, a, a[-1]),
        pred=q.learning_times(tt, th, th[-1]),
        pred_indep=q.learning_times(tt, th_indep, th_indep[-1]),
        dist=q.subspace_distance(run["probe"][-1], Up[:, :d]),
        dist_pop=q.subspace_distance(run["probe"][-1], U[:, :d]),
        end=a[-1],
        end_theory=th[-1],
    )
    r = res[kind]
    prose(
        f"**{kind}**: half-times measured {', '.join(f'{v:.1f}' for v in r['meas'])}; quadratic-order theory "
        f"{', '.join(f'{v:.1f}' for v in r['pred'])} ({', '.join(f'{v:+.1%}' for v in r['meas'] / r['pred'] - 1)})"
        + (
            f"; uncoupled modes {', '.join(f'{v:.1f}' for v in r['pred_indep'])} "
            f"({', '.join(f'{v:+.1%}' for v in r['meas'] / r['pred_indep'] - 1)})"
            if kind == "logistic"
            else ""
        )
        + f". Plateaus $a_k$: {', '.join(f'{v:.3f}' for v in r['end'])} (theory {', '.join(f'{v:.3f}' for v in r['end_theory'])}; "
        f"κ̂ {', '.join(f'{v:.3f}' for v in kp[:d])}). Distance to $\\hat K_p$'s top-{d}: {r['dist']:.3f} "
        f"(to the population's: {r['dist_pop']:.3f})."
    )
r = res["infonce"]
err_i = r["meas"] / r["pred"] - 1
prediction(
    "P3_times",
    "beyond.contrastive.P3.infonce_steps",
    "P3: linear InfoNCE learns in order of κ̂, with half-times within 10% of Lemma 3.1 at half speed",
    holds=bool(np.all(np.diff(r["meas"]) > 0) and np.max(np.abs(err_i)) < 0.10),
    value=dict(rel_err=err_i),
)
prediction(
    "P3_space",
    "beyond.contrastive.P3.infonce_eigenspace",
    f"P3: linear InfoNCE ends on K̂'s top-{d} eigenspace (distance < 0.05)",
    holds=bool(r["dist"] < 0.05),
    value=dict(distance=r["dist"], distance_population=r["dist_pop"]),
)
r = res["logistic"]
err_c = r["meas"] / r["pred"] - 1
err_u = r["meas"] / r["pred_indep"] - 1
prediction(
    "P4_times",
    "beyond.contrastive.P4.logistic_coupled_times",
    "P4: the logistic loss learns in order of κ̂, with half-times within 10% of the coupled quadratic-order "
    "dynamics, and the uncoupled (pure factorisation) prediction is worse for every mode after the first",
    holds=bool(
        np.all(np.diff(r["meas"]) > 0)
        and np.max(np.abs(err_c)) < 0.10
        and np.all(np.abs(err_u[1:]) > np.abs(err_c[1:]))
    ),
    value=dict(rel_err_coupled=err_c, rel_err_uncoupled=err_u),
)
prediction(
    "P4_space",
    "beyond.contrastive.P4.logistic_eigenspace",
    f"P4: the logistic loss ends on K̂'s top-{d} eigenspace (distance < 0.05)",
    holds=bool(r["dist"] < 0.05),
    value=dict(distance=r["dist"], distance_population=r["dist_pop"]),
)

# %%
fig, axs = plotting.figure(1, 2, width=11, height=4)
for ax, kind in zip(axs, ("infonce", "logistic")):
    r = res[kind]
    for k in range(d):
        c = plotting.PALETTE[k]
        ax.plot(r["tt"], r["th"][:, k], color=c, lw=1.6, label=f"theory, mode {k + 1}")
        ax.plot(r["t"][::8], r["a"][::8, k], "o", color=c, ms=3, mfc="none")
        ax.axhline(kp[k], color=c, ls=":", lw=0.8)
    ax.set_xlim(0, r["t"][-1])
    ax.legend(fontsize=8)
    plotting.label(
        ax,
        f"Figure 52.2{'ab'[kind == 'logistic']} — {'InfoNCE (linear SimCLR)' if kind == 'infonce' else 'logistic loss (word2vec)'}",
        r"paper time $t = 8\eta \cdot$ step",
        r"$a_k(t) = \|u_k^\top W\|^2$",
    )
plt.show()

# %% [markdown]
# **Figure 52.2** — (a) InfoNCE and (b) the logistic loss with a linear encoder from entries $10^{-4}$: circles are the
# trained $a_k(t)$, lines the quadratic-order theory (§1: half-speed Lemma 3.1 for InfoNCE, the coupled system for
# the logistic loss), dotted lines the kernel eigenvalues $\hat\kappa_k$, which are the spectral loss's plateaus.
# Both are stepwise and in the kernel's order; the plateaus differ from $\hat\kappa_k$ because the losses'
# higher-order terms differ.

# %% [markdown]
# ## 5 · P5: a small nonlinear encoder
#
# A two-layer ReLU network $z = W_2^\top\mathrm{relu}(W_1^\top x + b_1) + b_2$ (PyTorch's initialisation for the first
# layer, output layer from entries $10^{-3}$), $d = 3$, spectral loss. Over *functions* of a view the kernel is the
# operator $(Tf)(y) = \mathbb{E}[f(y')\mid y]$, which for Gaussian views is Mehler's: its eigenfunctions are products of
# Hermite polynomials of the coordinates $y = U^\top x$, with eigenvalues $\prod_k\kappa_k^{m_k}$ — the constant (1),
# $y_1$ (0.85), $\mathrm{He}_2(y_1) = (y_1^2 - 1)/\sqrt2$ (0.72), then $y_2$ (0.6), … (`q.hermite_eigenfunctions`).
# The spectral loss over all functions is minimised by the top three. We measure, along training, how much of each
# candidate the embedding carries ($R^2$ of the function regressed on $z$) and the share of $\mathbb{E}\lVert z\rVert^2$ in the
# mean (the constant function).

# %%
Xm1, Xm2 = aug.sample(S["N_mlp"], rng)
Phi, names, eig = q.hermite_eigenfunctions(Xm1 @ U, kappa)
cands = ("y1", "He2(y1)", "y2", "y3")
cols = [names.index(c) for c in cands]
tXm1 = torch.from_numpy(Xm1)


def probe_functions(enc):
    Z = enc(tXm1).numpy()
    A = np.column_stack([np.ones(len(Z)), Z])
    coef, *_ = np.linalg.lstsq(A, Phi[:, cols], rcond=None)
    r2 = 1 - ((Phi[:, cols] - A @ coef) ** 2).sum(0) / (
        (Phi[:, cols] - Phi[:, cols].mean(0)) ** 2
    ).sum(0)
    return np.append(r2, (Z.mean(0) ** 2).sum() / (Z**2).sum(1).mean())


nl = {}
for label, hidden, lr in (("linear", None, S["lr"]), ("ReLU network", S["hidden"], S["lr_mlp"])):
    enc = q.make_encoder(n, 3, hidden=hidden, init_scale=1e-3, seed=2)
    nl[label] = q.train_contrastive(
        Xm1,
        Xm2,
        enc,
        "spectral",
        lr=lr,
        steps=S["steps_mlp"],
        record_every=25,
        probe=probe_functions,
    )
    P = nl[label]["probe"][-1]
    prose(
        f"**{label}**, final loss {nl[label]['loss'][-1]:.3f}: $R^2$ of "
        + ", ".join(f"{c} {v:.2f}" for c, v in zip(cands, P[:4]))
        + f"; mean share {P[4]:.2f}."
    )
cross = {}
for label in nl:
    pr, st = nl[label]["probe"], nl[label]["step"]
    cross[label] = {
        c: (int(st[np.argmax(pr[:, j] >= 0.5)]) if np.any(pr[:, j] >= 0.5) else None)
        for j, c in enumerate(cands)
    }
    prose(
        f"{label}: first step at which $R^2 \\ge 0.5$ — "
        + ", ".join(f"{c}: {'never' if v is None else v}" for c, v in cross[label].items())
        + f"; mean share at step 0: {nl[label]['probe'][0, 4]:.2f}."
    )
opt3 = -float(np.sum(np.sort(np.append(eig, 1.0))[::-1][:3] ** 2))
prose(
    f"The function-space optimum of the spectral loss at $d$ = 3 is $-(1 + \\kappa_1^2 + \\kappa_1^4)$ = {opt3:.3f}; "
    f"the linear encoder's is $-(\\kappa_1^2 + \\kappa_2^2 + \\kappa_3^2)$ = {-float(np.sum(kappa[:3] ** 2)):.3f}."
)
Pn, Pl = nl["ReLU network"]["probe"][-1], nl["linear"]["probe"][-1]
prediction(
    "P5",
    "beyond.contrastive.P5.mlp_function_space_order",
    "P5: the ReLU encoder (d = 3) ends with R²(He2(y1)) > 0.5 and above R²(y2), while the linear encoder has "
    "R²(y2) > 0.9",
    holds=bool(Pn[1] > 0.5 and Pn[1] > Pn[2] and Pl[2] > 0.9),
    value=dict(relu=dict(zip(cands + ("mean",), Pn)), linear=dict(zip(cands + ("mean",), Pl))),
)

# %%
fig, axs = plotting.figure(1, 2, width=11, height=4)
for ax, label in zip(axs, ("linear", "ReLU network")):
    r = nl[label]
    for j, c in enumerate(cands + ("mean share",)):
        ax.plot(r["step"], r["probe"][:, j], color=plotting.PALETTE[j], label=c)
    ax.set_ylim(-0.02, 1.02)
    ax.legend(fontsize=8)
    plotting.label(
        ax,
        f"Figure 52.3{'ab'[label != 'linear']} — {label} encoder, d = 3",
        "step",
        r"$R^2$ on $z$ (mean share)",
    )
plt.show()

# %% [markdown]
# **Figure 52.3** — What a $d = 3$ encoder has learned along training: the $R^2$ with which each candidate
# eigenfunction of the augmentation operator is a linear function of the embedding, and the share of the
# embedding's second moment in its mean (the constant eigenfunction, eigenvalue 1). (a) The linear encoder can
# only learn $y_1, y_2, y_3$, and does. (b) The ReLU network's mean share is large from the start (its features
# are positive). At the book preset it then picks up $y_3$ and $y_1$, and later *swaps* $y_3$ for $y_2$; it learns
# $\mathrm{He}_2(y_1)$ — whose eigenvalue is larger than $y_2$'s — only partly within this budget. The swap looks like
# exercise 1's: the random ReLU features are not whitened, so the early order need not be the kernel's (a
# plausible reading, not tested here).

# %% [markdown]
# ## Discussion

# %%
r_i, r_l = res["infonce"], res["logistic"]
prose(f"""* **The spectral loss is QWEM.** For a linear encoder the spectral contrastive loss is *exactly* the
  unweighted factorisation $\\lVert WW^\\top - K\\rVert^2$ in whitened coordinates, for any data, and training it
  from a small start is Lemma 3.1 with the kernel's eigenvalues: every half-time within
  {np.max(np.abs(rel_err)):.1%} of the closed form, with nothing fitted.
* **SimCLR's loss, linearised, steps too.** InfoNCE is that factorisation to second order in $s$, learned at
  half the speed; its half-times agree within {np.max(np.abs(err_i)):.1%}. Beyond second order it sees more
  of the sample than $\\hat K_p$: its plateaus are not exactly $\\hat\\kappa_k$, and its end point is
  {r_i["dist"]:.2f} from $\\hat K_p$'s eigenspace, above the 0.05 that P3 allowed.
* **Other losses reduce only to first order.** For the logistic loss the growth rates are the kernel's, but the
  quadratic term involves fourth moments of the positive pairs and couples the modes: the uncoupled
  factorisation misses the later modes' times by up to {np.max(np.abs(err_u)):.0%}, the coupled quadratic-order
  system by at most {np.max(np.abs(err_c)):.0%}. Its end point is {r_l["dist"]:.2f} from $\\hat K_p$'s eigenspace
  ({r_l["dist_pop"]:.2f} from the population's): through its fourth moments the sample's logistic loss is not a
  function of $\\hat K_p$ alone. "Reduce in the same way to factorisation" holds for the spectral loss and for
  InfoNCE at second order; for word2vec's own loss on non-one-hot data it holds only to first order.
* **A nonlinear encoder does not follow the function-space spectrum here.** The ReLU network's embedding has
  a large mean from the start (ReLU features are positive, so the constant eigenfunction comes almost for
  free), then gains $y_1$ and $y_2$ (first steps with $R^2 \\ge 0.5$: {cross["ReLU network"]}) and gives up $y_3$;
  $\\mathrm{{He}}_2(y_1)$, whose eigenvalue is larger than $y_2$'s, reaches only $R^2$ =
  {nl["ReLU network"]["probe"][-1][1]:.2f} in this budget. "Eigenfunctions of the augmentation operator, in order
  of eigenvalue" is what the spectral loss's global minimum over all functions says; the path of a small
  network from a small readout follows what its random features make easy, much as Lemma 3.1's order depends
  on the initial scales (chapter 12, exercise 2).
* This chapter ran in {(time.time() - T_START) / 60:.1f} minutes.""")

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
# 1. *(derive, ★★★)* **Unwhitened inputs.** Without whitening, $\dot W = -\tfrac18\nabla\mathcal{L}_{\rm spec} = \tfrac12(CW - \Sigma WW^\top\Sigma W)$. Show that
#    for aligned modes ($\Sigma$ and $C$ with common eigenvectors, eigenvalues $\sigma_k^2 + \nu_k^2$ and $\sigma_k^2$) each
#    $a_k = s_k^2$ grows at rate $\sigma_k^2$ and settles at $\sigma_k^2/(\sigma_k^2+\nu_k^2)^2$. Which modes are learned first,
#    and which does the global minimum keep? Construct two modes where the answers differ and train.
# 2. *(compute, ★)* Show numerically that InfoNCE at small $W$ equals half the spectral loss plus a constant: the ratio of their
#    changes from $W = 0$ tends to ½ as the scale of $W$ goes to zero.
# 3. *(derive, ★★)* For one-hot inputs with pair distribution $P_{ij}$ and marginal $P_i$, compute $\Sigma$, $C$ and $K$. How does the
#    spectral loss's target differ from QWEM's $M^\star$, and which reweighting makes them agree to first order?
#
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# In the common eigenbasis $W = \sum_k s_k u_k o_k^\top$ and $\dot s_k = \tfrac12 s_k(\sigma_k^2 - s_k^2(\sigma_k^2+\nu_k^2)^2)$, so
# $\dot a_k = a_k(\sigma_k^2 - a_k(\sigma_k^2+\nu_k^2)^2)$: rate $\sigma_k^2$, plateau $\sigma_k^2/(\sigma_k^2+\nu_k^2)^2$. The loss at mode
# $k$'s plateau is $-\sigma_k^4/(\sigma_k^2+\nu_k^2)^2 = -\kappa_k^2$. So the order of learning is by the raw signal variance
# $\sigma_k^2$ (the eigenvalues of $C$), while the global minimum keeps the largest $\kappa_k$. With $d = 1$, a mode with
# $\sigma^2 = 4, \nu^2 = 12$ ($\kappa = 0.25$) and one with $\sigma^2 = 0.5, \nu^2 = 0.1$ ($\kappa = 0.83$): the first is
# learned first, then the model must *swap* to the second — a saddle, escaped only through the small
# component along the second mode. The cell trains this on the population moments.
#
# </details>

# %%
Sig2 = np.diag([4.0 + 12.0, 0.5 + 0.1])
C2 = np.diag([4.0, 0.5])
w = np.array([1e-4, 1e-4])
eta, hist = 1e-3, []
for _ in range(40_000):
    A = np.outer(w, w)
    w = w + eta * 4 * (C2 @ w - Sig2 @ A @ Sig2 @ w)  # −η∇ of −2wᵀCw + (wᵀΣw)²
    hist.append(w**2)
hist = np.array(hist)
first = int(np.argmax(hist[200] / np.diag(C2)))
final = int(np.argmax(hist[-1] * np.diag(Sig2)))
prose(
    f"Early on the model holds mode {first + 1} (the large-variance one); at the end mode {final + 1} "
    f"(κ = 0.83), with a_2 = {hist[-1, 1]:.3f} against the predicted 0.5/0.6² = {0.5 / 0.36:.3f}."
)
rep.check(
    "beyond.contrastive.solution.1.swap",
    "exercise 1: without whitening the large-variance mode is learned first and the high-κ mode wins at the end, "
    "at the plateau σ²/(σ²+ν²)²",
    value=dict(first=first + 1, final=final + 1, a2=hist[-1, 1]),
    passed=bool(first == 0 and final == 1 and abs(hist[-1, 1] - 0.5 / 0.36) < 1e-3),
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# With $W = \epsilon W_1$, both losses are $c + \epsilon^2(\cdot) + O(\epsilon^4)$, and §1 showed that the $\epsilon^2$ coefficients are
# $-\operatorname{tr}(AK) + \tfrac12\lVert A\rVert^2$-type terms in the ratio ½ — up to the $O(1/N)$ terms of the finite batch (the
# positive pair sits among InfoNCE's candidates). The cell evaluates the ratio of changes for shrinking $\epsilon$.
#
# </details>

# %%
W1 = rng.standard_normal((n, d))
z0 = {
    k: float(q.contrastive_loss(torch.zeros(5, d), torch.zeros(5, d), k))
    for k in ("infonce", "spectral")
}
ratios = []
for eps in (0.3, 0.1, 0.03):
    Z1, Z2 = torch.from_numpy(Y1 @ (eps * W1)), torch.from_numpy(Y2 @ (eps * W1))
    dl_i = float(q.contrastive_loss(Z1, Z2, "infonce")) - z0["infonce"]
    dl_s = float(q.contrastive_loss(Z1, Z2, "spectral")) - z0["spectral"]
    ratios.append(dl_i / dl_s)
prose(
    f"Ratio (InfoNCE change)/(spectral change) at ε = 0.3, 0.1, 0.03: {', '.join(f'{v:.4f}' for v in ratios)}."
)
rep.close(
    "beyond.contrastive.solution.2.infonce_half",
    "exercise 2: at small scale InfoNCE's change is half the spectral loss's (ε = 0.03; tolerance 2/N_pair for "
    "the positive among the candidates, plus O(ε²))",
    value=ratios[-1],
    target=0.5,
    tol=2 / S["N_pair"] + 0.01,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# For one-hot $x = e_i$: $\Sigma = \operatorname{diag}(P_i)$ (the marginal of a view), $C = P$ (the pair distribution), and
# $K = D^{-1/2}PD^{-1/2}$ with $D = \operatorname{diag}(P_i)$, i.e. $K_{ij} = P_{ij}/\sqrt{P_iP_j}$. The spectral loss factorises $K$ in the
# coordinates $D^{1/2}W$: its embeddings are $D^{-1/2}$ times $K$'s top eigenvectors. QWEM's
# $M^\star_{ij} = 2(P_{ij} - P_iP_j)/(P_{ij} + P_iP_j)$ instead: the spectral loss has the weights $G_{ij} = P_iP_j$ (rank one — Proposition 2's
# solvable case, $\Gamma = D^{1/2}$) and the target $P_{ij}/(P_iP_j)$, and $\Gamma(P/(P_iP_j))\Gamma = K$. Its constant eigenvector
# $\sqrt{P_i}$ (eigenvalue 1) plays the role of the mean removed by $-P_iP_j$ in $M^\star$. The cell checks on a random
# symmetric $P$ that the spectral loss with one-hot inputs equals $\sum_{ij}P_iP_j(A_{ij} - P_{ij}/(P_iP_j))^2 + \text{const}$.
#
# </details>

# %%
m = 6
Pj = rng.random((m, m))
Pj = (Pj + Pj.T) / 2
Pj /= Pj.sum()
pi = Pj.sum(1)
Wq = rng.standard_normal((m, 2))
Aq = Wq @ Wq.T
spec = -2 * np.sum(Pj * Aq) + np.sum(
    np.outer(pi, pi) * Aq**2
)  # E+ s = Σ P_ij A_ij, E− s² = Σ P_iP_j A_ij²
weighted = np.sum(np.outer(pi, pi) * (Aq - Pj / np.outer(pi, pi)) ** 2) - np.sum(
    Pj**2 / np.outer(pi, pi)
)
rep.close(
    "beyond.contrastive.solution.3.one_hot",
    "exercise 3: with one-hot inputs the spectral loss is Σ P_iP_j (A_ij − P_ij/(P_iP_j))² + const "
    "(= spectral_loss_moments with Σ = diag(P_i), C = P)",
    value=spec,
    target=weighted,
    tol=1e-12,
    kind="consistency",
)
rep.close(
    "beyond.contrastive.solution.3.moments",
    "exercise 3: the same number from q.spectral_loss_moments(W, diag(P_i), P)",
    value=q.spectral_loss_moments(Wq, np.diag(pi), Pj),
    target=spec,
    tol=1e-12,
    kind="consistency",
)
