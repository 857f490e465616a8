# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 13 · Silent alignment and stepwise learning: Result 3
#
# **Statement (Karkada et al. 2025, Result 3 — derived, not proved).** Train $W\in\mathbb{R}^{V\times d}$ by the flow
# $\dot W = -\tfrac12\nabla\,\tfrac14\|WW^\top - M^\star\|_F^2$ of chapter 12 from a small random start
# $W_{ij}(0)\sim\mathcal N(0,\sigma^2)$. Measure time in units of $\tau_1 = \frac1{\lambda_1}\ln\frac{\lambda_1}{\sigma^2}$. Then,
# as $\sigma^2\to0$, the distance between $W(t)$ and the *aligned* trajectory of Lemma 3.1, minimised over right
# orthogonal transformations, goes to zero (with high probability). The authors conjecture the argument can be
# made rigorous, and say it works in practice when, for all pairs $i<j$,
#
# $$\log\sigma^2 \ll -\frac{\lambda_i\lambda_j}{\lambda_i-\lambda_j}\,\log\frac{\lambda_j}{\lambda_i-\lambda_j}. \tag{$\ast$}$$
#
# **Intuition.** While $W$ is tiny the cubic term $WW^\top W$ is negligible and the flow is linear,
# $\dot W \approx \tfrac12 M^\star W$, so $W(t)\approx e^{M^\star t/2}W(0)$: every eigendirection is amplified at its own
# rate $\lambda_k/2$. Long before anything is learned, the top eigendirections dominate $W$ — the embedding has
# **rotated onto the eigenbasis silently**, while the loss has hardly moved. From then on $W$ is, to a good
# approximation, aligned, and chapter 12's sigmoids take over: one eigendirection at a time, the largest first.
#
# This chapter makes "matched appropriately" precise, measures the distance as $\sigma^2$ shrinks over ten
# decades, finds the rate at which it vanishes, tests the condition $(\ast)$, shows that stopping early or shrinking
# $d$ only truncates the list of learned features, and repeats the stepwise picture on $M^\star$ from a real corpus.

# %%
import numpy as np
import matplotlib.pyplot as plt
from tqdm import tqdm

import qwem_lib as q
from qwem_lib import Report, config, plotting

plotting.use_style()
rep = Report("13_silent_alignment")
S = config.sizes(
    smoke=dict(V=100, top=(5.0, 3.5, 2.45, 1.7, 1.2), bulk=0.6, log10_sigma_sq=list(range(-2, -13, -2)),
               n_records=200, cut_dims=(2, 3), scale_c=10.0,
               corpus="enwiki2015_1m7", V_real=300, d_range=(4, 8), real_sigma_sq=(1e-6, 1e-14), n_records_real=400, settle_cap=100.0),
    book=dict(V=200, top=(5.0, 3.5, 2.45, 1.7, 1.2), bulk=0.6, log10_sigma_sq=list(range(-2, -13, -1)),
              n_records=300, cut_dims=(2, 3), scale_c=10.0,
              corpus="enwiki2015_17m", V_real=1_000, d_range=(6, 12), real_sigma_sq=(1e-6, 1e-14), n_records_real=500, settle_cap=100.0),
    paper=dict(V=1_000, top=(5.0, 3.5, 2.45, 1.7, 1.2), bulk=0.6, log10_sigma_sq=list(range(-2, -13, -1)),
               n_records=300, cut_dims=(2, 3), scale_c=10.0,
               corpus="enwiki2015_70m", V_real=10_000, d_range=(180, 220), real_sigma_sq=(1e-6, 1e-14),
               n_records_real=500, settle_cap=20.0),
)
print(S)
dev = config.device()

# %% [markdown]
# ## 1 · A target with well separated eigenvalues
#
# We start with a synthetic $M^\star = Q\,\mathrm{diag}(\lambda)\,Q^\top$ ($Q$ Haar-random): five top eigenvalues in
# ratio $0.7$, $\lambda = (5, 3.5, 2.45, 1.7, 1.2)$, and a bulk of $V-5$ eigenvalues uniform in $[-0.6, 0.6]$. We train
# $d = 5$ columns. All runs share one standard normal matrix $Z$ and start from $W(0) = \sigma Z$, so that they differ
# only by the scale $\sigma^2$ (common random numbers make the comparison across $\sigma^2$ clean).

# %%
rng = config.rng(13)
d = len(S["top"])
M, lam, Qm = q.synthetic_target(S["top"], S["V"], rng, bulk=S["bulk"])
lam_d, V_d = lam[:d], Qm[:, :d]
Z = rng.standard_normal((S["V"], d))
sig2 = 10.0 ** np.array(S["log10_sigma_sq"], dtype=float)
print("top eigenvalues:", lam_d, " largest bulk eigenvalue:", round(lam[d], 3))

# %% [markdown]
# ## 2 · Which aligned trajectory? Matching the initial singular values
#
# Lemma 3.1 needs an initial $s_k^2(0)$ for every mode. A random $W(0)$ is not aligned, so "the aligned trajectory"
# needs a rule. Two natural candidates:
#
# * **typical:** $s_k^2(0) = \sigma^2 V$, the typical squared singular value of $\sigma Z$ (all equal);
# * **matched:** follow the linear phase exactly. Write $A = V_d^\top W(0)$ (row $k$ is $v_k^\top W(0)$) and factor it
#   by Gram–Schmidt on its rows in the order of the eigenvalues, $A = L\,R^\top$ with $L$ lower triangular,
#   $L_{kk} > 0$, and $R$ orthogonal. In the linear phase
#
#   $$V_d^\top W(t) = \mathrm{diag}\big(e^{\lambda_k t/2}\big)\,L\,R^\top
#     = \Big[\mathrm{diag}\big(e^{\lambda_k t/2}\big)\,L\,\mathrm{diag}\big(e^{-\lambda_k t/2}\big)\Big]\,\mathrm{diag}\big(e^{\lambda_k t/2}\big)\,R^\top ,$$
#
#   and the bracket tends to the diagonal of $L$, because its entry $(k, j)$, $j<k$, is multiplied by
#   $e^{-(\lambda_j-\lambda_k)t/2}\to0$. So $W$ approaches $V_d\,\mathrm{diag}(L_{kk}e^{\lambda_kt/2})\,R^\top$: the aligned
#   trajectory with $s_k(0) = L_{kk}$ — the part of $v_k^\top W(0)$ orthogonal to $v_1^\top W(0),\dots,v_{k-1}^\top W(0)$ —
#   and right rotation $R$. This is the QR step of the paper's derivation. On average $\mathbb E\,L_{kk}^2 = \sigma^2(d-k+1)$.
#
# Both rules give the same $\tau_k$ up to $O(1)/\lambda_k$. But in rescaled time the jumps have width
# $1/\ln(\lambda_1/\sigma^2)$, which shrinks at the same rate as that shift: a wrong constant in $s_k^2(0)$ leaves a
# mismatch of order one *at the jump* for every $\sigma^2$. Only the matched rule can make the distance vanish.
# `q.matched_initial_singular_values` computes $L_{kk}$ and $R$; `q.random_init_sweep` runs the flow for all $\sigma^2$
# at once on a common grid of $t/\tau_1$ and measures
#
# $$D(\sigma^2) = \max_t\ \min_{O\in O(d)} \frac{\big\|W(t) - V_d\,S_{\rm al}(t)\,O\big\|_F}{\big(\sum_{k\le d}\lambda_k\big)^{1/2}},$$
#
# relative to the norm of the final embedding $\|V_d\Lambda_d^{1/2}\|_F$.

# %%
sweep = q.random_init_sweep(M, lam, Qm, d, sig2, Z, n_records=S["n_records"], full_basis=True, device=dev,
                            desc="σ² sweep (matched)")
typical = q.random_init_sweep(M, lam, Qm, d, sig2, Z, n_records=S["n_records"], s0_rule="typical",
                              t_end=float(sweep.traj.times[-1]), device=dev, desc="σ² sweep (typical)")
D = sweep.distance.max(axis=1)
D_typ = typical.distance.max(axis=1)
print(f"{'σ²':>8} {'τ₁':>7} {'D matched':>11} {'D typical σ²V':>14}")
for s2, t1, a, b in zip(sig2, sweep.tau1, D, D_typ):
    print(f"{s2:8.0e} {t1:7.2f} {a:11.4g} {b:14.4g}")

# %%
rep.ordered("qwem.res3.distance_decreases",
            "Result 3: the max-over-time distance (min over right rotations) between W(t) and the matched aligned "
            "trajectory decreases strictly as σ² shrinks",
            names=[f"{s:.0e}" for s in sig2], values=D)
rep.below("qwem.res3.distance_vanishes",
          f"Result 3: over σ² = {sig2[0]:.0e} … {sig2[-1]:.0e} the distance falls by more than a factor 100 "
          "(ratio last/first)", value=float(D[-1] / D[0]), bound=0.01)
rep.above("qwem.res3.typical_s0_does_not_converge",
          "with the unmatched rule s_k²(0) = σ²V the distance at the smallest σ² stays more than 10× the matched one "
          "(the wrong constant shifts every jump by about one jump width)",
          value=float(D_typ[-1] / D[-1]), bound=10.0)

# %% [markdown]
# ## 3 · How fast does the distance vanish?
#
# The dominant error is the misaligned remainder $L_{kj}$ ($j<k$) of mode $k$ along mode $j$'s direction. It grows
# like $e^{\lambda_k t/2}$ until mode $j$ saturates at $t\approx\tau_j$, and is pushed back afterwards (once $s_j^2=\lambda_j$,
# that component decays at rate $(\lambda_j-\lambda_k)/2$, a one-line linearisation). Its largest size is therefore about
#
# $$\sigma\,e^{\lambda_k\tau_j/2} \approx \sigma\Big(\frac{\lambda_j}{\sigma^2}\Big)^{\lambda_k/(2\lambda_j)} \propto
#   (\sigma^2)^{\frac12\left(1-\frac{\lambda_k}{\lambda_j}\right)} = \sigma^{(\lambda_j-\lambda_k)/\lambda_j},$$
#
# worst for the closest consecutive pair. The same argument applies to mode $d$ and the first bulk direction $d+1$,
# and the start itself contributes $O(\sigma)$. Hence $D \propto (\sigma^2)^p$ with
# $p = \tfrac12\min\big(1, \min_j(1-\lambda_{j+1}/\lambda_j)\big)$ (`q.gap_exponent`). For our spectrum every
# consecutive ratio is $0.7$, so $p = 0.15$.
#
# The summary quotes the off-diagonal couplings of the paper's QR variables as "about $\sigma^{2(\lambda_i-\lambda_j)/\lambda_i}$",
# i.e. $(\sigma^2)^{0.3}$ here: twice our exponent. Either that quantity is not the distance itself (e.g. it is a squared
# quantity), or the summary's $\sigma$ is our $\sigma^2$; the measurement below decides what the *distance* does.

# %%
p_pred = q.gap_exponent(lam, d)
small = sig2 <= np.sqrt(sig2[0] * sig2[-1])           # the smaller half of the range (log scale)
slope = float(np.polyfit(np.log(sig2[small]), np.log(D[small]), 1)[0])
print(f"measured log-log slope of D against σ² (σ² ≤ {sig2[small][0]:.0e}): {slope:.4f};  "
      f"predicted p = {p_pred:.4f};  summary's exponent would give {2 * p_pred:.2f}")
rep.close("qwem.res3.distance_exponent",
          "the distance vanishes as (σ²)^p with p = ½·min(1, min_j(1 − λ_{j+1}/λ_j)) (fitted slope on the smaller "
          "half of the σ² range)", value=slope, target=p_pred, tol=0.1, rel=True,
          paper=f"σ^(2(λi−λj)/λi) per summary: slope {2 * p_pred:.2f}")

# %% [markdown]
# ## 4 · The stated condition $(\ast)$
#
# `q.pair_condition_threshold` evaluates the right-hand side of $(\ast)$ for every pair of the top $d$ eigenvalues and
# returns the most demanding one.

# %%
thr, (pi, pj) = q.pair_condition_threshold(lam_d)
print(f"(∗) is most demanding for the pair λ_{pi + 1} = {lam_d[pi]}, λ_{pj + 1} = {lam_d[pj]}: "
      f"log σ² ≪ {thr:.3f}, i.e. σ² ≪ {np.exp(thr):.2e}")
below = np.log(sig2) < thr
for s2, ok, dd in zip(sig2, below, D):
    print(f"  σ² = {s2:.0e}  log σ² = {np.log(s2):7.2f}  {'satisfies' if ok else 'violates '} (∗)   D = {dd:.4f}")
# the drop of D across the threshold, against the drops between neighbouring runs on either side of it
j = int(np.argmax(below))                                   # first run that satisfies (∗)
drops = D[:-1] / D[1:]                                      # drop from run i to run i+1
across = float(drops[j - 1]) if j > 0 else float("nan")
neighbours = [float(drops[i]) for i in (j - 2, j) if 0 <= i < len(drops)]
print(f"drop of D across the threshold: ×{across:.2f};  between neighbouring runs on either side: "
      + ", ".join(f"×{x:.2f}" for x in neighbours))
rep.check("qwem.res3.pair_condition_no_sharp_transition",
          "the condition (∗) marks no transition: the drop of D between the last run violating it and the first run "
          "satisfying it is no larger than the largest drop between neighbouring runs on either side",
          value={"across": across, "neighbours": neighbours, "threshold_log_sigma_sq": thr},
          passed=bool(0 < j and neighbours and across <= max(neighbours)), tolerance="across ≤ max(neighbours)")

# %% [markdown]
# Runs that satisfy $(\ast)$ are indeed close to the aligned trajectory, but nothing happens *at* the threshold: $D$
# is a smooth power law, runs just above it are nearly as good, and how close "close" is depends on things $(\ast)$
# does not contain (with $V = 1{,}000$ instead of $200$ the bulk directions add to the distance, and the first run
# satisfying $(\ast)$ is then about 11% away instead of 5%). $(\ast)$ is a rule of thumb, not a sharp
# boundary. It also has a defect of units. Multiply the target by $c$ and the initial variance by $c$: then
# $\widetilde W(t) = \sqrt c\,W(ct)$ solves the new flow exactly, so in units of $\tau_1$ (which becomes $\tau_1/c$) every
# trajectory, and every relative distance, is unchanged. The right-hand side of $(\ast)$, however, is multiplied by $c$,
# while $\log\sigma^2$ only shifts by $\log c$. A condition on the dynamics should depend on $\sigma^2/\lambda$ and on the
# ratios $\lambda_j/\lambda_i$ only; ours, $p$, does.

# %%
c = S["scale_c"]
pick = [0, len(sig2) // 2]
scaled = q.random_init_sweep(c * M, c * lam, Qm, d, c * sig2[pick], Z, n_records=S["n_records"],
                             t_end=float(sweep.traj.times[-1]), device=dev, progress=False)
same = float(np.max(np.abs(scaled.distance - sweep.distance[pick])) / np.max(sweep.distance[pick]))
thr_c, _ = q.pair_condition_threshold(c * lam_d)
print(f"(M, σ²) → ({c:g}M, {c:g}σ²): largest change of the distance curves, relative to their maximum, {same:.1e};  "
      f"threshold of (∗) {thr:.2f} → {thr_c:.2f}")
rep.check("qwem.res3.pair_condition_not_scale_invariant",
          f"(M, σ²) → (cM, cσ²), c = {c:g}, leaves the rescaled dynamics unchanged (distance curves equal to 1e-6 of their maximum: round-off) "
          "while the threshold of (∗) is multiplied by c: (∗) is not a function of the dynamics",
          value={"max_distance_change": same, "threshold": thr, "threshold_scaled": thr_c},
          passed=bool(same < 1e-6 and abs(thr_c / thr - c) < 1e-9), tolerance="change < 1e-6, ratio = c")

# %% [markdown]
# ## 5 · The stepwise picture
#
# Figure 13.1 shows the squared singular values of $W$ against $t/\tau_1$ for the smallest $\sigma^2$, with the matched
# sigmoids of Lemma 3.1. Figure 13.2 collects the distances.

# %%
b = len(sig2) - 1
tt = sweep.traj.times
fig, axs = plotting.figure(1, 2)
for k in range(d):
    col = plotting.PALETTE[k]
    axs[0].plot(tt, sweep.traj.sv[b, :, k] ** 2, color=col, lw=2, label=f"s_{k + 1}², λ = {lam_d[k]:.3g}")
    axs[0].plot(tt, sweep.s_aligned_sq[b, :, k], color="black", ls="--", lw=0.9)
    axs[0].axhline(lam_d[k], color=col, lw=0.5, ls=":")
axs[0].plot([], [], "k--", lw=0.9, label="Lemma 3.1 (matched)")
axs[0].legend(fontsize=8, loc="center right")
plotting.label(axs[0], f"Figure 13.1a — σ² = {sig2[b]:.0e}: one feature at a time",
               "rescaled time t / τ₁", "squared singular values of W")
for i in range(0, len(sig2), max(1, len(sig2) // 5)):
    axs[1].semilogy(tt, sweep.distance[i], label=f"σ² = {sig2[i]:.0e}",
                    color=plt.cm.viridis(i / max(1, len(sig2) - 1)))
axs[1].legend(fontsize=8)
plotting.label(axs[1], "Figure 13.1b — distance to the aligned trajectory", "rescaled time t / τ₁",
               "relative distance min_O ‖W − V_d S_al O‖ / ‖Λ_d^½‖")
plt.show()

# %% [markdown]
# **Figure 13.1** — (a) From $W(0) = \sigma Z$ with $\sigma^2 = 10^{-12}$, the five squared singular values of $W$ (colour)
# jump one after the other, in the order of the eigenvalues (dotted levels), and sit on the sigmoids of Lemma 3.1 with
# matched initial values (black dashed). The first jump happens at $t\approx\tau_1$, the $k$-th near
# $\tau_k/\tau_1 \approx \lambda_1/\lambda_k$. (b) The distance to the aligned trajectory along time for several $\sigma^2$:
# it is largest around the learning events and falls at every time as $\sigma^2$ shrinks.

# %%
fig, ax = plotting.figure()
ax.loglog(sig2, D, "o-", color=plotting.PALETTE[0], label="matched s_k(0) = L_kk")
ax.loglog(sig2, D_typ, "s-", color=plotting.PALETTE[1], label="typical s_k²(0) = σ²V")
ax.loglog(sig2, D[-1] * (sig2 / sig2[-1]) ** p_pred, "k--", lw=1, label=f"(σ²)^p, p = {p_pred:.3f}")
ax.axvline(np.exp(thr), color="grey", ls=":", label="threshold of (∗)")
ax.invert_xaxis()
ax.legend()
plotting.label(ax, "Figure 13.2 — Result 3: the distance vanishes as σ² → 0", "initial variance σ²",
               "max_t distance to the aligned trajectory (relative)")
plt.show()

# %% [markdown]
# **Figure 13.2** — Largest relative distance between $W(t)$ and the aligned trajectory of Lemma 3.1, minimised over
# right rotations, against the initial variance (decreasing to the right). With matched initial values (blue) it falls
# as the power law $(\sigma^2)^p$ predicted by the gaps (dashed); with the typical value $\sigma^2 V$ (red) it levels off
# at an order-one mismatch at the jumps. The dotted line marks $e^{\text{threshold}}$ of the condition $(\ast)$: nothing
# changes there.

# %% [markdown]
# ## 6 · Silent alignment
#
# The left singular vectors $u_k(t)$ of $W(t)$ rotate onto the eigenvectors $v_k$ of $M^\star$ while $W$ is still tiny.
# Figure 13.3 shows $|V^\top U_W(t)|$ (rows: the top $2d$ eigenvectors; columns: the $d$ left singular vectors) at
# four times, for the smallest $\sigma^2$.

# %%
ov = np.abs(sweep.traj.left_overlap[b])                       # (T, V, d): |v_iᵀ u_k| in the eigenbasis
sv2 = sweep.traj.sv[b] ** 2
norm_frac = sv2.sum(axis=1) / lam_d.sum()
i_silent = int(np.nonzero(norm_frac <= 1e-3)[0][-1])           # last record with ‖W‖² ≤ 0.1% of its final value
learn_idx = [int(np.nonzero(sv2[:, k] >= 0.01 * lam_d[k])[0][0]) for k in range(d)]
align_at_onset = np.array([ov[learn_idx[k], k, k] for k in range(d)])
print(f"t/τ₁ = {tt[i_silent]:.2f}: ‖W‖²_F / Σλ = {norm_frac[i_silent]:.1e},  |v_kᵀu_k| =",
      np.round(np.diagonal(ov[i_silent][:d]), 4))
print("|v_kᵀu_k| when s_k² first reaches 1% of λ_k:", np.round(align_at_onset, 5),
      " at t/τ₁ =", np.round(tt[learn_idx], 2))
rep.check("qwem.res3.silent_alignment_first_mode",
          "silent alignment: the top left singular vector of W is not aligned at t = 0 (|v₁ᵀu₁| < 0.5) but is by the "
          "last time at which ‖W‖²_F is still below 0.1% of Σλ_k (|v₁ᵀu₁| > 0.999)",
          value={"t0": float(ov[0, 0, 0]), "silent": float(ov[i_silent, 0, 0]), "t_over_tau1": float(tt[i_silent])},
          passed=bool(ov[0, 0, 0] < 0.5 and ov[i_silent, 0, 0] > 0.999), tolerance="< 0.5 then > 0.999")
rep.above("qwem.res3.aligned_before_learned",
          "each feature is aligned before it is learned: |v_kᵀu_k| at the first time s_k² ≥ 1% of λ_k "
          "(minimum over k)", value=float(align_at_onset.min()), bound=0.99)

# %%
times_show = [0, i_silent, learn_idx[1] + (learn_idx[2] - learn_idx[1]) // 2, len(tt) - 1]
fig, axs = plotting.figure(1, 4, width=3.2, height=3.6)
for ax, i in zip(axs, times_show):
    im = ax.imshow(ov[i][:2 * d], vmin=0, vmax=1, cmap=plotting.CMAP, aspect="auto")
    ax.set_xticks(range(d), [str(k + 1) for k in range(d)])
    ax.set_yticks(range(2 * d), [str(k + 1) for k in range(2 * d)])
    plotting.label(ax, f"t/τ₁ = {tt[i]:.2f}\n‖W‖²/Σλ = {norm_frac[i]:.0e}", "singular vector u_k of W",
                   "eigenvector v_i of M*")
fig.colorbar(im, ax=axs, shrink=0.8, label="|v_iᵀ u_k|")
fig.suptitle("Figure 13.3 — Silent alignment: W rotates onto the eigenbasis while tiny")
plt.show()

# %% [markdown]
# **Figure 13.3** — Overlaps $|v_i^\top u_k(t)|$ between the top ten eigenvectors of $M^\star$ and the five left singular
# vectors of $W(t)$, $\sigma^2 = 10^{-12}$. At $t=0$ they are random (entries of order $V^{-1/2}$). By the second panel,
# when $\|W\|_F^2$ is still below $10^{-3}$ of its final value and no feature has been learned, the top directions
# are already the top eigenvectors. The lower ones align later, but each before its own jump. At the end $U_W$ is the
# identity block: the learned features are $v_1,\dots,v_d$, in order.

# %% [markdown]
# ## 7 · Learned features, their order, and what early stopping or a smaller $d$ changes
#
# The $k$-th feature is learned (its $s_k^2$ crosses $\lambda_k/2$) at the time predicted by the matched sigmoid, the
# features come in the order of the eigenvalues, and the final left singular vectors are the eigenvectors.
# Then two truncations: a run with $d' < d$ columns (the first $d'$ columns of the same $Z$), and the $d$-run stopped
# between its $d'$-th and $(d'+1)$-th jumps. Result 3 says both give the same $d'$ features.

# %%
learn, learn_th = sweep.learn[b], sweep.learn_theory[b]
final_overlap = np.diagonal(ov[-1][:d])
print("learning times t_k/τ₁ measured:", np.round(learn, 4), "\n                       theory:  ",
      np.round(learn_th, 4))
rep.check("qwem.res3.features_in_order",
          "features are learned one at a time in the order of the eigenvalues (crossing times of λ_k/2 strictly "
          "increasing) and each learned direction is the eigenvector: |v_kᵀu_k| > 0.999 at the end",
          value={"t_k/tau1": learn, "min_final_overlap": float(final_overlap.min())},
          passed=bool(np.all(np.diff(learn) > 0) and final_overlap.min() > 0.999),
          tolerance="increasing; overlap > 0.999")
rep.below("qwem.res3.learning_times_match",
          "each learning time (s_k² = λ_k/2) agrees with the matched sigmoid of Lemma 3.1 (max |Δt|/τ₁ over k)",
          value=float(np.max(np.abs(learn - learn_th))), bound=0.01)

# %%
cut = {}
for dp in S["cut_dims"]:
    run = q.random_init_sweep(M, lam, Qm, dp, sig2[b:], Z[:, :dp], n_records=S["n_records"],
                              t_end=float(tt[-1]), full_basis=True, device=dev, progress=False)
    U_small_final = run.traj.left_overlap[0, -1]               # (V, d'): coordinates in the eigenbasis
    t_mid = np.sqrt(learn[dp - 1] * learn[dp])                 # between the d'-th and (d'+1)-th jumps of the d-run
    i_mid = int(np.argmin(np.abs(tt - t_mid)))
    U_big_mid = sweep.traj.left_overlap[b, i_mid][:, :dp]      # top-d' left singular vectors of the d-run
    cut[dp] = dict(t_mid=float(tt[i_mid]),
                   early_vs_small=q.subspace_distance(U_big_mid, U_small_final),
                   small_vs_eig=q.subspace_distance(U_small_final, np.eye(S["V"])[:, :dp]))
    print(f"d' = {dp}: stopped at t/τ₁ = {tt[i_mid]:.2f}, sin θ_max(top-{dp} of d-run, final {dp}-run) = "
          f"{cut[dp]['early_vs_small']:.2e};  sin θ_max(final {dp}-run, span v_1…v_{dp}) = {cut[dp]['small_vs_eig']:.1e}")
rep.below("qwem.res3.truncation_same_features",
          "stopping the d-run between its d'-th and (d'+1)-th jumps, or training with d' columns, gives the same "
          "d' features: largest sine of the principal angles between the two subspaces, over d' in "
          f"{list(S['cut_dims'])}", value=max(v["early_vs_small"] for v in cut.values()), bound=0.01)

# %% [markdown]
# ## 8 · The real corpus
#
# Now $M^\star = 2(P_{ij}-P_iP_j)/(P_{ij}+P_iP_j)$ from the corpus (window 16 each side with linear weights, the
# authors' protocol; `q.cooccurrence` and `q.mstar_from_stats` of Part II). Its spectrum is not well separated: many
# consecutive eigenvalues differ by a few percent, so the exponent $p$ of Section 3 is tiny and the distance to
# the *exact* aligned trajectory can only shrink very slowly. What remains testable is what the paper's Figure 2
# shows: the singular values follow the matched sigmoids, one jump per eigenvalue, and the learned subspace is the
# top eigenspace. We pick $d$ in the preset's range at the largest relative gap $1-\lambda_{d+1}/\lambda_d$, so that
# "the top-$d$ eigenspace" is well defined (with $\lambda_d\approx\lambda_{d+1}$ the last feature would be a mixture
# that takes a time $\propto 1/(\lambda_d-\lambda_{d+1})$ to resolve).

# %%
words, P_joint, P_uni = q.cooccurrence(S["corpus"], S["V_real"], window=16)
M_real = q.mstar_from_stats(P_joint, P_uni)
del P_joint
lam_r, Q_r = q.eig_desc(M_real)
lo, hi = S["d_range"]
gaps = 1.0 - lam_r[lo:hi + 1] / lam_r[lo - 1:hi]
d_r = lo + int(np.argmax(gaps))
print(f"{S['corpus']}, V = {S['V_real']}: λ_1…λ_{d_r + 1} =", np.round(lam_r[:d_r + 1], 2))
print(f"d = {d_r} (relative gap to λ_(d+1): {gaps.max():.3f}); smallest consecutive ratio inside the top d: "
      f"{np.max(lam_r[1:d_r] / lam_r[:d_r - 1]):.3f};  p = {q.gap_exponent(lam_r, d_r):.4f}")
thr_r, (ri, rj) = q.pair_condition_threshold(lam_r[:d_r])
print(f"threshold of (∗): log σ² ≪ {thr_r:.0f} (pair λ_{ri + 1} = {lam_r[ri]:.2f}, λ_{rj + 1} = {lam_r[rj]:.2f})")

# %% [markdown]
# After its jump the last feature still carries a little of direction $d+1$, which decays at the rate
# $(\lambda_d-\lambda_{d+1})/2$; we run on for $16/(\lambda_d-\lambda_{d+1})$ after the last jump (at most `settle_cap`$/\lambda_d$,
# which keeps the paper preset within a few GPU minutes) so
# that the end point shows where the flow goes. Modes whose eigenvalue is within 10% of a neighbour's are learned
# almost together; Section 3's argument says their separation converges only like $(\sigma^2)^p$ with a tiny $p$, so we
# check them separately from the well separated modes.

# %%
Z_r = config.rng(131).standard_normal((S["V_real"], d_r))
sig2_r = np.array(S["real_sigma_sq"], dtype=float)
extra = min(16.0 / (lam_r[d_r - 1] - lam_r[d_r]), S["settle_cap"] / lam_r[d_r - 1])
real = q.random_init_sweep(M_real, lam_r, Q_r, d_r, sig2_r, Z_r, n_records=S["n_records_real"], extra_time=extra,
                           device=dev, desc="real corpus")
rel_gap = np.minimum(1 - lam_r[1:d_r + 1] / lam_r[:d_r],
                     np.concatenate([[np.inf], 1 - lam_r[1:d_r] / lam_r[:d_r - 1]]))
separated = rel_gap >= 0.10
print("modes separated by ≥ 10% from both neighbours:", [int(k) + 1 for k in np.nonzero(separated)[0]])
sv_err = np.abs(real.traj.sv ** 2 - real.s_aligned_sq) / lam_r[:d_r]          # (B, T, d)
learn_err = np.abs(real.learn - real.learn_theory)                              # (B, d)
for i, s2 in enumerate(sig2_r):
    print(f"σ² = {s2:.0e}: max_t |s_k² − s²_al,k|/λ_k per mode", np.round(sv_err[i].max(axis=0), 4),
          f"\n            |Δt_learn|/τ₁ per mode", np.round(learn_err[i], 4), f"  distance D = {real.distance[i].max():.4f}")
br = len(sig2_r) - 1
final_cos = np.linalg.svd(real.traj.left_overlap[br, -1], compute_uv=False)   # cosines of principal angles
sub_real = float(np.sqrt(max(0.0, 1 - final_cos.min() ** 2)))
print(f"final top-{d_r} subspace vs span(v_1…v_{d_r}): sin θ_max = {sub_real:.2e}")

# %%
rep.below("qwem.res3.real.separated_modes_follow_sigmoids",
          f"real M* ({S['corpus']}, V={S['V_real']}, d={d_r}, σ²={sig2_r[br]:.0e}): every mode separated by ≥10% "
          "from its neighbours follows its matched Lemma 3.1 sigmoid in rescaled time (max over t and those k of "
          "|s_k² − s²_al,k|/λ_k)", value=float(sv_err[br][:, separated].max()), bound=0.01)
rep.below("qwem.res3.real.separated_learning_times",
          "real M*: the learning times (s_k² = λ_k/2) of the separated modes agree with the matched sigmoids "
          "(max |Δt|/τ₁)", value=float(learn_err[br][separated].max()), bound=0.005)
rep.check("qwem.res3.real.closer_as_sigma_shrinks",
          f"real M*, all {d_r} modes: from σ² = {sig2_r[0]:.0e} to {sig2_r[-1]:.0e} both the distance to the aligned "
          "trajectory and the largest singular-value error shrink (slowly, as the small p predicts)",
          value={"D": real.distance.max(axis=1), "sv_err": sv_err.max(axis=(1, 2))},
          passed=bool(np.all(np.diff(real.distance.max(axis=1)) < 0) and np.all(np.diff(sv_err.max(axis=(1, 2))) < 0)),
          tolerance="both strictly decreasing")
rep.below("qwem.res3.real.learned_subspace",
          "real M*: the final top-d left singular subspace of W is M*'s top-d eigenspace (sine of the largest "
          "principal angle)", value=sub_real, bound=0.01)
rep.check("qwem.res3.real.pair_condition_unattainable",
          "real M*: the threshold of (∗) lies below log of the smallest positive float64 (−708), so (∗) cannot be "
          "met, yet the stepwise sigmoids above hold",
          value=thr_r, passed=bool(thr_r < np.log(np.finfo(np.float64).tiny)), tolerance="< −708.4")

# %%
fig, axs = plotting.figure(1, 2)
for i, ax in enumerate(axs[: len(sig2_r)]):
    for k in range(d_r):
        col = plt.cm.viridis(k / max(1, d_r - 1))
        ax.plot(real.traj.times, real.traj.sv[i, :, k] ** 2, color=col, lw=1.8)
        ax.plot(real.traj.times, real.s_aligned_sq[i, :, k], color="black", ls="--", lw=0.7)
    ax.set_xlim(0, 1.3 * np.nanmax(real.learn[i]))
    ax.plot([], [], "k--", lw=0.7, label="Lemma 3.1 (matched)")
    ax.legend(loc="upper left", fontsize=8)
    plotting.label(ax, f"Figure 13.4{'ab'[i]} — {S['corpus']}, σ² = {sig2_r[i]:.0e}", "rescaled time t / τ₁",
                   "squared singular values of W")
plt.show()

# %% [markdown]
# **Figure 13.4** — The paper's Figure 2, for $M^\star$ from the corpus: squared singular values of $W$ (colour, from
# the largest eigenvalue in dark to the smallest in light) and the matched sigmoids of Lemma 3.1 (black dashed), in
# units of $\tau_1$, for two initial variances. The smaller the start, the sharper and better separated the steps; the
# close pairs of eigenvalues give nearly simultaneous steps.
#
# ## Discussion
#
# * With the initial values matched by the QR (Gram–Schmidt) construction, the trajectory from a small random start
#   converges to Lemma 3.1's aligned trajectory, in rescaled time, as $\sigma^2\to0$ — Result 3 holds numerically.
#   With the "typical" initial singular value $\sigma^2 V$ it does not: the sigmoids are right, their offsets are not.
# * The rate is a power of $\sigma^2$ set by the closest consecutive eigenvalue ratio, $p = \tfrac12(1-\lambda_{j+1}/\lambda_j)$.
#   It is half the exponent the summary quotes for the paper's QR couplings. For a real $M^\star$, where consecutive
#   eigenvalues are a few percent apart, $p$ is of order $10^{-2}$: convergence of the *exact* frames is
#   hopelessly slow, but the singular values, the learning times and the learned subspace agree with the theory.
# * Runs that satisfy the condition $(\ast)$ are close to the aligned trajectory, but $(\ast)$ marks no transition, is far
#   from necessary, and is not invariant under the exact symmetry $(M,\sigma^2)\to(cM,c\sigma^2)$. For the real spectrum it
#   asks for $\sigma^2$ below the smallest float64, while the paper's own runs ($\sigma^2 = 10^{-24}/d$) and ours step cleanly.
# * Alignment is silent: the frame turns onto the eigenbasis while $\|W\|$ is a thousandth of its final size, and each
#   feature is aligned before it is learned. Stopping early or reducing $d$ removes features from the end of the list
#   and changes none of the others.
#
# ## Exercises
#
# 1. Make two top eigenvalues nearly equal (ratio 0.98). Predict the new exponent $p$ with `q.gap_exponent`, rerun
#    Section 2, and check the slope. Which pair of features stays misaligned, and for how long?
# 2. Derive the linearised decay rate $(\lambda_j-\lambda_k)/2$ of the component $c\,v_kq_j^\top$ once mode $j$ has saturated,
#    by inserting $W = \sqrt{\lambda_j}\,v_jq_j^\top + c\,v_kq_j^\top$ into $\tfrac12(M-WW^\top)W$.
# 3. Replace the common matrix $Z$ by fresh draws for every $\sigma^2$. Is $D(\sigma^2)$ still monotone? How many draws do
#    you need to see the power law, and why does the $d$-th mode contribute most of the scatter ($L_{dd}^2\sim\sigma^2\chi^2_1$)?
# 4. Run the real-corpus part with $d$ chosen where $\lambda_d\approx\lambda_{d+1}$. Which check fails first, and what does the
#    $d$-th singular vector converge to within the horizon?
# 5. Propose a version of $(\ast)$ that depends only on $\sigma^2/\lambda_1$ and the ratios $\lambda_j/\lambda_i$, using the
#    estimate of Section 3, and test it on the runs of Figure 13.2.
