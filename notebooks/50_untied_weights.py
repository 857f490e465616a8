# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 50 · Untied weights and word2vec's own negatives
#
# *Part V goes beyond the papers: the statements tested here are the book's own predictions, made from the
# theory of Parts I–III before the measurements were run. A prediction that fails is reported as plainly
# as one that holds.*
#
# **Question.** The QWEM paper ties the two tables of word2vec, $W' = W$, and chooses its reweighting so
# that every pair's quadratic weight is the same. The summary of the paper names both choices as limits:
#
# > "Tied weights: the context matrix W′ is set equal to W. The authors name this as the main limitation."
# > — `000_a8825ed751ba3cf0.txt`, line 13
#
# > "word2vec’s own negative distribution, P_j^{3/4} upweighted by k, is asymmetric and not covered."
# > — `000_a8825ed751ba3cf0.txt`, line 15
#
# > "the asymmetric case of untied weights and word2vec’s own negative distribution, where the natural
# > object would be a singular value decomposition." — `000_a8825ed751ba3cf0.txt`, line 85
#
# and the paper itself defines its loss "under symmetric factorization ($w=w^{\prime}$)"
# (`001_59a367524969ac35.txt`, line 20), with symmetric reweightings as Setting 3.1's first assumption
# (line 36). This chapter removes both restrictions at once: input vectors $w_a$ (rows of $W$), output
# vectors $w'_b$ (rows of $W'$), positives $(a, b)$ from the corpus' joint $P_{ab}$, and $k$ negatives per
# positive that keep the centre word and draw the context from $Q_b \propto P_b^{0.75}$. What does the
# quadratic model then learn, in what order, and how close does it come to gensim's word2vec (which is
# untied)?
#
# **Predictions (stated before any measurement was made; the thresholds are the ones we committed to).**
#
# * **P1** — (Eckart–Young) In the unweighted case, noiseless gradient descent from a small start ends on
#   the truncated SVD of the target $T$: $\lVert WW'^\top - T_{[d]}\rVert_F / \lVert T_{[d]}\rVert_F < 0.05$ and
#   both subspaces within $\sin\theta_{\max} < 0.1$ of $T$'s top-$d$ singular subspaces.
# * **P2** — (dynamics) From a small random start the singular directions are learned one at a time: each
#   mode's half-time agrees with the balanced formula $t_{1/2} = \frac{2}{\sigma_k}\ln\frac{\sigma_k - \pi_0}{\pi_0}$,
#   $\pi_0 = \sigma_0^2/2$, within 10 %; the tied formula (Lemma 3.1 with $\lambda = \sigma$, twice as fast)
#   misses by more; a shuffled assignment of the singular values does worse than the true one ($p < 0.01$);
#   the modes' steps are sharp (median width ratio $< 0.4$) from the small start and not from a large one
#   ($> 0.8$).
# * **P2′** — (added after the first smoke run, before the book run, when the last mode came out late)
#   The modes share the $d$ columns, so mode $k$ grows only from the part of its start orthogonal to the
#   modes already learned (`q.competing_starts`, Gram–Schmidt of the growing combinations $c_k$ in
#   $\mathbb R^d$, from the run's actual start). With those starts every half-time agrees within 5 %.
# * **P3** — (the offset) With $P^{0.75}$ negatives the target's *leading* singular pair is a constant
#   negative offset of all scores: $\langle u_1, \mathbf 1/\sqrt V\rangle^2 > 0.5$, the same for $v_1$, and
#   $(u_1^\top\mathbf 1)(v_1^\top \mathbf 1) < 0$. Tied QWEM cannot learn it ($WW^\top \succeq 0$): svd($M^\star$)'s first
#   eigenvector has squared overlap with $\mathbf 1/\sqrt V$ below $20/V$.
# * **P4** — gensim's word2vec (untied SGNS) also carries the offset: its input vectors' first left singular
#   vector has squared overlap with $\mathbf 1/\sqrt V$ above $20/V$, for every seed.
# * **P5** — The untied closed form's eigen-features are closer to gensim's than tied svd($M^\star$)'s are
#   (mean squared principal cosine with every gensim seed), and it closes at least half of the
#   tied–gensim gap on the analogy benchmark.
#
# The weighted case (word2vec's actual pair weights $G_{ab} = A_{ab} + N_{ab}$) is *measured*, not
# predicted: we looked at its distance from the SVD subspace while writing the library.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import spearmanr

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("50_untied_weights")
# a size that changes with the preset: config.per_preset(smoke, book, paper)
S = config.knobs(
    corpus=config.per_preset("enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_17m"),
    V=config.per_preset(1_000, 2_000, 10_000),
    d=config.per_preset(50, 200, 200),
    d_max=config.per_preset(8, 10, 20),
    seeds=config.per_preset((None, 1), (None, 1, 2), (None, 1, 2)),
    init_scale=1e-3,
    large_scale=1.0,
    lr_factor=0.1,
    horizon=3.0,
    n_perm=config.per_preset(1_000, 2_000, 5_000),
    als_iters=config.per_preset(15, 20, 30),
)
print(S)
T_START = time.time()
rng = config.rng(50)
corpus, V = S["corpus"], S["V"]

# Outcomes of the predictions as first measured at each preset (typed in after the runs, so claims that
# check a *failed* prediction are records, not findings). None: not measured yet at that preset.
OUTCOME = config.knobs(P1=config.per_preset(True, False, None), P2_times=config.per_preset(True, False, None), P2_tied=config.per_preset(True, True, None), P2_null=config.per_preset(True, True, None), P2_sharp=config.per_preset(True, True, None), P2_compete=config.per_preset(True, False, None), P3=config.per_preset(True, True, None), P3_tied=config.per_preset(True, True, None), P4=config.per_preset(True, True, None), P5_overlap=config.per_preset(True, True, None), P5_gap=config.per_preset(False, False, None))  # fmt: skip


HELD: dict[str, bool] = {}


def prediction(key: str, id: str, statement: str, *, holds: bool, value) -> None:
    """Record prediction `key` by its first run's outcome at this preset (`Report.prediction`)."""
    HELD[key] = holds
    rep.prediction(id, statement, holds=holds, value=value, outcome=OUTCOME.get(key))


# %% [markdown]
# ## 1 · Derivation: an asymmetric weighted factorisation
#
# Score the ordered pair $(a, b)$ by $x_{ab} = w_a \cdot w'_b$, i.e. $X = WW'^\top$. Let $A_{ab}$ be the expected
# weight with which the training draw counts $(a,b)$ as a positive and $N_{ab}$ as a negative. For word2vec's
# draw (no subsampling, $k$ negatives per positive, contexts from $Q$):
#
# $$A^0_{ab} = P_{ab}, \qquad N^0_{ab} = k\,P_a\,Q_b, \qquad Q_b = \frac{P_b^{0.75}}{\sum_c P_c^{0.75}} \tag{50.1}$$
#
# since the positive's centre word $a$ has marginal $\sum_b P_{ab} = P_a$ and keeps its negatives.
# $N^0$ is not symmetric: $P_aQ_b \ne P_bQ_a$ unless $P_a^{0.25} = P_b^{0.25}$. With QWEM's quartic
# per-pair terms $\ell^\pm(x) = \mp x + x^2/4$ the expected loss is
#
# $$L(W, W') = \sum_{ab} A_{ab}\Big(-x_{ab} + \tfrac{x_{ab}^2}{4}\Big) + N_{ab}\Big(x_{ab} + \tfrac{x_{ab}^2}{4}\Big)
# = \sum_{ab}\frac{G_{ab}}{4}x_{ab}^2 - (A_{ab}-N_{ab})\,x_{ab} \tag{50.2}$$
#
# and completing the square pair by pair,
#
# $$L = \frac14\sum_{ab} G_{ab}\big(x_{ab} - T_{ab}\big)^2 - \frac14\sum_{ab}G_{ab}T_{ab}^2, \qquad
# G = A + N, \qquad T = \frac{2(A - N)}{A + N} \tag{50.3}$$
#
# This is Proposition 2's form with two differences: $T$ is not symmetric, and nothing forces $X$ to be
# symmetric or positive semidefinite. Reweighting every pair by $\Psi_{ab} = 1/(A^0_{ab} + N^0_{ab})$
# (positives and negatives alike, the analogue of Setting 3.1's $\Psi^\pm = (P_{ab} + P_aP_b)^{-1}$) leaves
# the target unchanged and makes $G \equiv 1$:
#
# $$L = \tfrac14\lVert WW'^\top - T\rVert_F^2 + \text{const},\qquad
# T_{ab} = \frac{2\,(P_{ab} - kP_aQ_b)}{P_{ab} + kP_aQ_b} \tag{50.4}$$
#
# With $k = 1$ and $Q = P$ (power 1) this is exactly the paper's $M^\star$ (with $P_a$ the centre words'
# marginal $\sum_bP_{ab}$); the power $0.75$ is the whole asymmetry. We check the identity on the corpus, and $T = M^\star$ at power 1.

# %%
_, Pj, pu = q.cooccurrence(q.load_corpus(corpus), V)
words = q.load_corpus(corpus).vocab(V)
A0, N0 = q.word2vec_masses(Pj, pu, k=1, power=0.75)
A, N = q.unweighted_masses(A0, N0)
G, T = q.untied_target(A, N)
Gw, Tw = q.untied_target(A0, N0)
W_r, Wp_r = rng.normal(size=(V, 3)) * 0.1, rng.normal(size=(V, 3)) * 0.1
gap_identity = (
    q.untied_loss(W_r, Wp_r, A, N)
    - q.untied_factorisation_loss(W_r, Wp_r, G, T)
    + 0.25 * np.sum(G * T * T)
)
rep.close(
    "beyond.untied.loss_identity",
    "the untied quadratic loss Σ A ℓ⁺ + N ℓ⁻ equals ¼ Σ G (WW′ᵀ − T)² − ¼ Σ G T² at a random (W, W′)",
    value=gap_identity,
    target=0.0,
    tol=1e-9 * abs(q.untied_loss(W_r, Wp_r, A, N)) + 1e-12,
    kind="consistency",
)
rep.close(
    "beyond.untied.unit_weights",
    "Ψ = 1/(A⁰ + N⁰) gives G = 1 for every pair (max |G − 1|)",
    value=float(np.abs(G - 1).max()),
    target=0.0,
    tol=1e-12,
    kind="consistency",
)
rep.close(
    "beyond.untied.same_target",
    "reweighting leaves the target unchanged: max |T(Ψ A⁰, Ψ N⁰) − T(A⁰, N⁰)|",
    value=float(np.abs(T - Tw).max()),
    target=0.0,
    tol=1e-10,
    kind="consistency",
)
# the centre word of a negative keeps the positive's marginal Σ_b P_ab; with the unigram taken as that
# marginal, power 1 and k = 1 give N⁰ = P_aP_b and the paper's M* exactly
m_joint = Pj.sum(axis=1)
T1 = q.untied_target(*q.unweighted_masses(*q.word2vec_masses(Pj, m_joint, k=1, power=1.0)))[1]
rep.close(
    "beyond.untied.power1_is_mstar",
    "with power 1 (negatives from the marginal P_a itself) and k = 1 the untied target is the paper's "
    "M* built from the same marginal (max deviation)",
    value=float(np.abs(T1 - q.mstar_from_stats(Pj, m_joint)).max()),
    target=0.0,
    tol=1e-9,
    kind="consistency",
)
del T1
asym = float(np.linalg.norm(T - T.T) / np.linalg.norm(T))
rep.check(
    "beyond.untied.asymmetry",
    "the target with P^0.75 negatives is not symmetric: ‖T − Tᵀ‖_F / ‖T‖_F (recorded)",
    value=asym,
    passed=asym > 0,
    tolerance="recorded",
    kind="record",
)
prose(
    f"At $V$ = {V:,} the target's antisymmetric part has relative size $\\lVert T - T^\\top\\rVert_F/\\lVert T\\rVert_F$ "
    f"= {asym:.3f}; entries range over [{T.min():.2f}, {T.max():.2f}]. word2vec's own weights "
    f"$G = A^0 + N^0$ span {Gw.min():.1e} … {Gw.max():.1e}."
)

# %% [markdown]
# ## 2 · The rank-$d$ minimiser: truncated SVD, and where the weights break it
#
# For $G \equiv 1$ the problem is $\min_{\operatorname{rank} X \le d}\lVert X - T\rVert_F^2$ over $X = WW'^\top$, and
# Eckart–Young gives $X^\star = T_{[d]} = U_d\Sigma_dV_d^\top$ from the SVD $T = U\Sigma V^\top$. Every
# factorisation $W = U_d\Sigma_d^{1/2}R$, $W' = V_d\Sigma_d^{1/2}R^{-\top}$ with $R$ *invertible* is a minimiser:
# the symmetry group is $GL(d)$, not $O(d)$ as in the tied case. Gradient flow picks among them by a
# conserved quantity: $\frac{d}{dt}(W^\top W - W'^\top W') = 0$ (both terms change by the same
# $W^\top(T - X)W'$ and its transpose), so a small start ends balanced, $W^\top W = W'^\top W'$, i.e.
# $R$ orthogonal. No condition on the sign of the spectrum is needed: singular values are never negative,
# and a negative eigenvalue of a symmetric target is learned with $w'_b = -w_b$ along it.
#
# With general $G$ the minimiser is a weighted low-rank approximation. For rank-one $G = \mathbf g\mathbf h^\top$
# it is $\Gamma_g^{-1}(\Gamma_gT\Gamma_h)_{[d]}\Gamma_h^{-1}$ (`q.rank_one_weighted_optimum`, Proposition 2
# untied); word2vec's $G = P + kP_aQ_b$ is a full-rank matrix plus a rank-one one, and we compute its optimum by
# alternating weighted least squares (`q.weighted_lowrank`) from the SVD start, then measure how far its
# subspaces are from $T$'s singular subspaces.

# %%
t0 = time.time()
U, sv, Vt = np.linalg.svd(T)
Vr = Vt.T
svd_s = time.time() - t0
# the largest rank up to d_max after which the spectrum drops by ≥ 15 % (a clear end point); else the
# largest drop
good = [k for k in range(3, S["d_max"] + 1) if sv[k - 1] / sv[k] >= 1.15]
d_dyn = max(good) if good else int(3 + np.argmax(sv[2 : S["d_max"]] / sv[3 : S["d_max"] + 1]))
prose(
    f"Dense SVD of the {V:,} × {V:,} target: {svd_s:.0f} s. Leading singular values: "
    + ", ".join(f"{x:.0f}" for x in sv[:12])
    + f". The dynamics below use rank $d$ = {d_dyn} (the largest rank ≤ {S['d_max']} after which the "
    f"spectrum drops by ≥ 15 %: $\\sigma_{{{d_dyn}}}/\\sigma_{{{d_dyn + 1}}}$ = {sv[d_dyn - 1] / sv[d_dyn]:.2f})."
)

# %%
t0 = time.time()
Ww, Wpw, hist_w = q.weighted_lowrank(Gw, Tw, d_dyn, iters=S["als_iters"], tol=1e-5)
als_s = time.time() - t0
dist_w = dict(
    left=q.subspace_sine(Ww, U[:, :d_dyn]),
    right=q.subspace_sine(Wpw, Vr[:, :d_dyn]),
    left_mean_cos2=q.subspace_overlap(Ww, U[:, :d_dyn]),
    right_mean_cos2=q.subspace_overlap(Wpw, Vr[:, :d_dyn]),
    sweeps=len(hist_w) - 1,
    rel_decrease_last=float((hist_w[-2] - hist_w[-1]) / hist_w[-2]),
)
# the linear-phase growth directions of the weighted problem: the SVD of D = A⁰ − N⁰
Ud, _, Vdt = np.linalg.svd(A0 - N0)
dist_w["growth_left"] = q.subspace_sine(Ww, Ud[:, :d_dyn])
W1, Wp1, _ = q.weighted_lowrank(np.ones_like(T), T, d_dyn, iters=3)
rep.below(
    "beyond.untied.als_unweighted_control",
    "control of the weighted solver: with G = 1 alternating least squares stays at the truncated SVD "
    "(sin θ_max of W from U_d)",
    value=q.subspace_sine(W1, U[:, :d_dyn]),
    bound=1e-6,
    kind="consistency",
)
rep.check(
    "beyond.untied.weighted_far_from_svd",
    "word2vec's own weights G = P + kP_aQ_b move the rank-d optimum away from the SVD subspace of its "
    "target: sin θ_max and mean cos² of the principal angles, left and right (ALS from the SVD start; "
    "measured, not predicted)",
    value=dist_w,
    passed=bool(np.isfinite(dist_w["left"])),
    tolerance="recorded",
    kind="record",
)
prose(
    f"Weighted optimum (rank {d_dyn}, {dist_w['sweeps']} ALS sweeps, {als_s:.0f} s, last relative decrease "
    f"{dist_w['rel_decrease_last']:.1e}): $\\sin\\theta_{{\\max}}$ from $T$'s top-{d_dyn} left singular "
    f"subspace {dist_w['left']:.2f} (mean $\\cos^2$ {dist_w['left_mean_cos2']:.2f}), right "
    f"{dist_w['right']:.2f} (mean $\\cos^2$ {dist_w['right_mean_cos2']:.2f}); from the growth directions of "
    f"$D = A^0 - N^0$: {dist_w['growth_left']:.2f}. With $G = 1$ the same solver stays on the SVD."
)

# %% [markdown]
# The weights matter: word2vec's pair weights are the pair probabilities themselves, spanning orders of
# magnitude, and the weighted optimum spends its rank on the frequent words' pairs. This is why the paper
# (and this chapter from here on) reweights: only the unweighted problem has a closed form.

# %% [markdown]
# ## 3 · The dynamics: one singular direction at a time
#
# **Derivation.** Take the flow $\dot W = -\tfrac12\nabla_WL$, $\dot W' = -\tfrac12\nabla_{W'}L$ (the book's time
# $t = 2\sum\eta$). With $L = \tfrac14\lVert WW'^\top - T\rVert^2$,
#
# $$\dot W = \tfrac14\,(T - WW'^\top)\,W', \qquad \dot W' = \tfrac14\,(T - WW'^\top)^\top W \tag{50.5}$$
#
# *Aligned balanced start*: $W = \sum_k u_k a_k e_k^\top$, $W' = \sum_k v_k a_k e_k^\top$. Then
# $WW'^\top = \sum_k a_k^2u_kv_k^\top$, the residual along mode $k$ is $(\sigma_k - a_k^2)u_kv_k^\top$, and
# $\dot a_k = \tfrac14(\sigma_k - a_k^2)a_k$ for both factors, so balance and alignment are kept. The product
# $\pi_k = a_k^2 = u_k^\top WW'^\top v_k$ obeys $\dot\pi_k = \tfrac12(\sigma_k - \pi_k)\pi_k$:
#
# $$\pi_k(t) = \frac{\sigma_k\,\pi_k(0)\,e^{\sigma_kt/2}}{\sigma_k + \pi_k(0)\,(e^{\sigma_kt/2} - 1)},\qquad
# t_{1/2,k} = \frac{2}{\sigma_k}\ln\frac{\sigma_k - \pi_k(0)}{\pi_k(0)} \tag{50.6}$$
#
# Equation (50.6) is Lemma 3.1 with $\lambda_k \to \sigma_k$ at *half* the speed (in the tied model the pair $(a,b)$ and
# $(b,a)$ both pull on $w_a$), and the two-layer linear network solution of Saxe, McClelland and Ganguli.
#
# *Small random start*, $W, W' \sim \mathcal N(0, \sigma_0^2/d)$ entrywise: in the linear phase
# $\frac{d}{dt}\binom{W}{W'} = \tfrac14\begin{pmatrix}0 & T\\ T^\top & 0\end{pmatrix}\binom{W}{W'}$, whose eigenvectors are
# $(u_k, \pm v_k)/\sqrt2$ with rates $\pm\sigma_k/4$. The growing combination $c_k = (W^\top u_k + W'^\top v_k)/\sqrt2$
# starts with $\mathbb E\lVert c_k\rVert^2 = \sigma_0^2$; once the decaying one is gone
# $u_k^\top WW'^\top v_k = \lVert c_k\rVert^2/2$, so the effective start is $\pi_0 = \sigma_0^2/2$
# (`q.random_start_product`), and the prediction is the formula above with $\pi_k(0) = \pi_0$ — no fitted
# parameter. One correction is visible only with several modes: they share the $d$ columns of $W$. Once
# mode $j$ has grown it occupies the direction of $c_j$ in $\mathbb R^d$, and mode $k$ can only grow from the
# part of $c_k$ orthogonal to $c_1, \dots, c_{k-1}$, of expected size $\frac{d-k+1}{d}\lVert c_k\rVert^2$; for the
# last mode this delays the step by about $\frac{2}{\sigma_d}\ln d$ (P2′; the untied counterpart of Result 3's
# silent alignment). We integrate with the noiseless trainer (`q.train_untied`: exact expected gradient, full batch)
# at $\eta = 0.1/\sigma_1$, where the discrete steps slow the fastest mode by about $\eta\sigma_1/4 = 2.5\,\%$.
# The 10 % tolerance covers that, the $\chi^2_d$ spread of $\lVert c_k\rVert^2$ (a few per cent of $\ln(\sigma_k/\pi_0)$)
# and the coupling of modes while the subspace rotates.

# %%
sig = sv[:d_dyn]
ref = (U[:, : d_dyn + 2], Vr[:, : d_dyn + 2])
pi0 = q.random_start_product(S["init_scale"])
lr = S["lr_factor"] / sv[0]
t_half_pred = q.balanced_half_time(sig, pi0)
t_end = S["horizon"] * float(t_half_pred[-1])
steps = int(np.ceil(t_end / (2 * lr)))
t0 = time.time()
run = q.train_untied(
    A, N, d_dyn, steps=steps, lr=lr, init_scale=S["init_scale"], reference=ref, n_logs=300,
    label="small init",
)  # fmt: skip
run_large = q.train_untied(
    A, N, d_dyn, steps=steps, lr=lr, init_scale=S["large_scale"] * float(np.sqrt(sig[-1])),
    reference=ref, n_logs=300, label="large init", seed=1,
)  # fmt: skip
prose(
    f"Small start $\\sigma_0$ = {S['init_scale']:g} ($\\pi_0$ = {pi0:.1e}); {steps:,} steps of $\\eta$ = {lr:.2e} to "
    f"$t$ = {t_end:.3f} ({S['horizon']:g} × the last mode's predicted half-time); "
    f"{'from the cache' if run.cached else f'{run.seconds:.0f} s'}. Large start "
    f"$\\sigma_0 = \\sqrt{{\\sigma_{{{d_dyn}}}}}$; {'from the cache' if run_large.cached else f'{run_large.seconds:.0f} s'}."
)

# %% [markdown]
# **P1 — the end point.** The product $WW'^\top$ at the end against $T_{[d]}$ (computed without forming
# the $V \times V$ product twice: through the factors).

# %%
Td_norm = float(np.linalg.norm(sig))
# ‖WW′ᵀ − U_dΣ_dV_dᵀ‖² = ‖WW′ᵀ‖² − 2 tr(Σ_d U_dᵀWW′ᵀV_d) + ‖Σ_d‖²
Wf, Wpf = run.W.astype(np.float64), run.Wp.astype(np.float64)
XX = float(np.sum((Wf.T @ Wf) * (Wpf.T @ Wpf)))
cross = float(np.sum(sig * np.sum((U[:, :d_dyn].T @ Wf) * (Vr[:, :d_dyn].T @ Wpf), axis=1)))
end_err = float(np.sqrt(max(XX - 2 * cross + Td_norm**2, 0.0)) / Td_norm)
end = dict(
    rel_error=end_err,
    sin_left=q.subspace_sine(Wf, U[:, :d_dyn]),
    sin_right=q.subspace_sine(Wpf, Vr[:, :d_dyn]),
    final_imbalance=float(run.imbalance[-1]),
    imbalance_start=float(run.imbalance[0]),
)
prediction(
    "P1",
    "beyond.untied.P1.end_point_svd",
    f"P1: noiseless untied GD from a small start (rank {d_dyn}) ends on T's truncated SVD: relative "
    "error < 0.05 and both subspaces within sin θ_max < 0.1",
    holds=bool(end_err < 0.05 and end["sin_left"] < 0.1 and end["sin_right"] < 0.1),
    value=end,
)
rep.below(
    "beyond.untied.balance_conserved",
    "the flow conserves WᵀW − W′ᵀW′: its norm at the end stays below 10 × its start (of size σ₀²) while "
    "WᵀW grows to about σ₁",
    value=end["final_imbalance"] / max(end["imbalance_start"], 1e-300),
    bound=10.0,
    kind="consistency",
)

# %% [markdown]
# **P2 — order and times.** A mode's measured half-time is the first time $u_k^\top WW'^\top v_k$ reaches
# $\sigma_k/2$ (interpolated between logs).

# %%
t_meas = q.untied_acquisition_times(run.times, run.modes[:, :d_dyn], sig)
rel_err = np.abs(t_meas / t_half_pred - 1)
t_tied = np.asarray(q.half_time(sig, pi0), dtype=float)  # Lemma 3.1 with λ = σ (tied speed)
rel_err_tied = np.abs(t_meas / t_tied - 1)
null_err = np.array(
    [np.median(np.abs(t_meas / q.balanced_half_time(rng.permutation(sig), pi0) - 1))
     for _ in range(S["n_perm"])]
)  # fmt: skip
p_null = float((1 + np.sum(null_err <= np.median(rel_err))) / (1 + S["n_perm"]))
rho_order = float(spearmanr(np.arange(d_dyn), t_meas).statistic)
prediction(
    "P2_times",
    "beyond.untied.P2.half_times",
    "P2: every mode's half-time from the small random start agrees with (2/σ_k) ln((σ_k − π₀)/π₀), "
    "π₀ = σ₀²/2, within 10 %",
    holds=bool(np.all(np.isfinite(t_meas)) and rel_err.max() < 0.10),
    value=dict(
        max_rel_error=float(np.nanmax(rel_err)), rel_errors=rel_err, order_spearman=rho_order
    ),
)
pi0_c = q.competing_starts(run.W0, run.Wp0, U[:, :d_dyn], Vr[:, :d_dyn])
t_half_c = q.balanced_half_time(sig, pi0_c)
rel_err_c = np.abs(t_meas / t_half_c - 1)
prediction(
    "P2_compete",
    "beyond.untied.P2c.competing_starts",
    "P2′: with each mode's start orthogonalised against the modes learned before it (Gram–Schmidt of "
    "the growing combinations from the run's own start), every half-time agrees within 5 %",
    holds=bool(np.all(np.isfinite(t_meas)) and rel_err_c.max() < 0.05),
    value=dict(max_rel_error=float(np.nanmax(rel_err_c)), rel_errors=rel_err_c,
               start_share=pi0_c / pi0),
)  # fmt: skip
prediction(
    "P2_tied",
    "beyond.untied.P2.not_tied_speed",
    "P2 (competing prediction): the tied formula (Lemma 3.1 with λ = σ, twice as fast) misses the "
    "half-times by more than the untied one (median relative error)",
    holds=bool(np.median(rel_err_tied) > np.median(rel_err)),
    value=dict(median_untied=float(np.median(rel_err)), median_tied=float(np.median(rel_err_tied))),
)
prediction(
    "P2_null",
    "beyond.untied.P2.shuffled_spectrum_null",
    "P2 (null): the true singular values predict the half-times better than shuffled ones (p < 0.01)",
    holds=bool(p_null < 0.01),
    value=dict(
        p=p_null, median_error=float(np.median(rel_err)), null_median=float(np.median(null_err))
    ),
)
prose(
    "Half-times, measured / predicted: "
    + ", ".join(f"{a:.4f}/{b:.4f}" for a, b in zip(t_meas, t_half_pred))
    + f". Largest relative error {np.nanmax(rel_err):.1%}; with the competing starts of P2′ "
    f"{np.nanmax(rel_err_c):.1%} (tied formula: median {np.median(rel_err_tied):.0%}); "
    f"shuffled-spectrum null: median error {np.median(null_err):.0%}, p = {p_null:.4f}; Spearman ρ between "
    f"mode index and measured half-time {rho_order:.3f}."
)


# %% [markdown]
# **What happened to the last mode** (a post-hoc look, recorded, not a prediction). The $d$-th column is
# contested: modes $d+1, d+2, \dots$ have singular values close to $\sigma_d$ and their own starts, and
# one of them can take the last free direction of $\mathbb R^d$ first; mode $d$ then has to displace it, at a
# rate set by the *gap* $\sigma_d - \sigma_{d+1}$ rather than by $\sigma_d$. The trainer logs the products of
# the two modes after the $d$-th as well.

# %%
peak_next = run.modes[:, d_dyn : d_dyn + 2].max(axis=0) / sv[d_dyn : d_dyn + 2]
t_peak_next = run.times[np.argmax(run.modes[:, d_dyn], axis=0)]
contested = dict(
    max_error_first_modes=float(rel_err[:-1].max()),
    max_error_first_modes_competing=float(rel_err_c[:-1].max()),
    last_mode_error=float(rel_err[-1]),
    peak_share_next_modes=peak_next,
    t_peak_next=float(t_peak_next),
    t_half_last=float(t_meas[-1]),
)
rep.check(
    "beyond.untied.P2.contested_last_column",
    "post hoc (recorded): half-time errors of the modes before the last (P2 and P2′ formulas), the last "
    "mode's error, and the peak product / σ reached by modes d+1 and d+2 before they are displaced",
    value=contested,
    passed=True,
    tolerance="recorded",
    kind="record",
)
prose(
    f"Modes 1–{d_dyn - 1}: largest half-time error {contested['max_error_first_modes']:.1%} (P2's formula), "
    f"{contested['max_error_first_modes_competing']:.1%} (P2′'s); mode {d_dyn}: {contested['last_mode_error']:.0%}. "
    f"Mode {d_dyn + 1} peaks at {peak_next[0]:.0%} of its $\\sigma$ (at $t$ = {t_peak_next:.3f}; mode {d_dyn}'s "
    f"half-time is {t_meas[-1]:.3f}), mode {d_dyn + 2} at {peak_next[1]:.0%}."
)


# %%
def width_ratio(r):
    """(t₉₀ − t₁₀)/t₅₀ per mode: the width of each step relative to its time."""
    lo = q.untied_acquisition_times(r.times, r.modes[:, :d_dyn], sig, level=0.1)
    mid = q.untied_acquisition_times(r.times, r.modes[:, :d_dyn], sig, level=0.5)
    hi = q.untied_acquisition_times(r.times, r.modes[:, :d_dyn], sig, level=0.9)
    return (hi - lo) / mid


w_small, w_large = width_ratio(run), width_ratio(run_large)
# the balanced sigmoid rises from 10 % to 90 % in (2/σ)·2 ln 9
w_pred = 4 * np.log(9) / sig / t_half_pred
med_small = float(np.nanmedian(w_small))
med_large = float(np.nanmedian(np.where(np.isfinite(w_large), w_large, np.inf)))
prediction(
    "P2_sharp",
    "beyond.untied.P2.steps_sharp_small_not_large",
    "P2 (control): steps are sharp from the small start (median (t₉₀ − t₁₀)/t₅₀ < 0.4) and not from a "
    "large start σ₀² = σ_d (> 0.8)",
    holds=bool(med_small < 0.4 and med_large > 0.8),
    value=dict(small=med_small, large=med_large, predicted_small=float(np.median(w_pred))),
)

# %%
fig, axs = plotting.figure(ncols=2, width=3.8, height=3.4)
cols = plt.cm.viridis(np.linspace(0, 0.9, d_dyn))
tt = np.linspace(0, run.times[-1], 400)
for k in range(d_dyn):
    axs[0].plot(run.times, run.modes[:, k] / sig[k], color=cols[k], lw=1.6)
    axs[0].plot(tt, q.balanced_product(tt, sig[k], pi0) / sig[k], color=cols[k], ls="--", lw=0.9)
    axs[1].plot(run_large.times, run_large.modes[:, k] / sig[k], color=cols[k], lw=1.6)
axs[0].plot(run.times, run.modes[:, d_dyn] / sv[d_dyn], color="grey", ls=":", lw=1.2)
plotting.label(
    axs[0],
    "Figure 50.1a — small start",
    r"time $t = 2\Sigma\eta$",
    r"$u_k^\top W W^{\prime\top} v_k / \sigma_k$",
)
plotting.label(
    axs[1],
    "Figure 50.1b — large start",
    r"time $t = 2\Sigma\eta$",
    r"$u_k^\top W W^{\prime\top} v_k / \sigma_k$",
)
plt.show()

# %% [markdown]
# **Figure 50.1** — Each mode's product $u_k^\top WW'^\top v_k$, divided by its singular value $\sigma_k$,
# during noiseless gradient descent on the unweighted untied loss (colours: $k = 1$ dark to $k = d$ light).
# Left: from a small random start (solid) against the balanced formula with $\pi_0 = \sigma_0^2/2$ (dashed,
# no fitted parameter); dotted grey: mode $d+1$, which is not among the $d$ directions of the end point. The first step is the offset mode (section 4). Right: from a large isotropic start
# ($\sigma_0^2 = \sigma_d$, the same number of steps): the products start at a sizeable fraction of $\sigma_k$ of
# either sign and collapse at once — $W$'s bulk outside the target's top subspace has squared norm about
# $V\sigma_0^2 \gg \sigma_1$, and the quadratic term shrinks it — before the leading modes grow again. The
# large start is a weaker control than intended: its leading modes still rise sigmoidally after the
# collapse; the later ones grow slowly and broadly, and those (with the first crossings at $t \approx 0$) are
# what puts its width statistic above the bound.

# %% [markdown]
# ## 4 · The offset, and the comparison with word2vec and tied QWEM
#
# **P3 and P4.** Why should the leading singular pair be an offset? The target is
# $T_{ab} = 2\tanh\big(\tfrac12\big[\mathrm{PMI}_{ab} - \ln(kQ_b/P_b)\big]\big)$: a column shift
# $-\ln(kQ_b/P_b)$, the same for every row $a$, inside a bounded function. Rare pairs never co-occur in a
# finite corpus and sit at $T_{ab} = -2$; the bulk of the matrix is one negative constant, a rank-one
# $-c\,\mathbf 1\mathbf 1^\top$. Untied factors can represent it ($w'_b$ opposite to $w_a$ along one direction); a
# tied $WW^\top \succeq 0$ cannot, which is why $M^\star$'s large *negative* eigenvalue is left unlearned by
# tied QWEM and becomes the *first* direction of untied QWEM.

# %%
ones = np.ones(V) / np.sqrt(V)
u1o, v1o = float((U[:, 0] @ ones) ** 2), float((Vr[:, 0] @ ones) ** 2)
sign1 = float(np.sign((U[:, 0] @ ones) * (Vr[:, 0] @ ones)))
_, W_tied = q.spectral_embeddings(corpus, V, S["d"], "mstar")
W_tied = W_tied.astype(np.float64)
tied_o = q.offset_overlap(W_tied)
prediction(
    "P3",
    "beyond.untied.P3.offset_leading",
    "P3: the untied target's leading singular pair is a negative constant offset: ⟨u₁, 1/√V⟩² > 0.5, "
    "⟨v₁, 1/√V⟩² > 0.5 and (u₁ᵀ1)(v₁ᵀ1) < 0",
    holds=bool(u1o > 0.5 and v1o > 0.5 and sign1 < 0),
    value=dict(u1=u1o, v1=v1o, sign=sign1, sigma1_over_sigma2=float(sv[0] / sv[1])),
)
prediction(
    "P3_tied",
    "beyond.untied.P3.tied_has_no_offset",
    "P3 (control): tied svd(M*)'s first eigen-feature has squared overlap with 1/√V below 20/V",
    holds=bool(tied_o < 20 / V),
    value=dict(overlap=tied_o, bound=20 / V),
)

# %%
w2v = {}
for s_ in S["seeds"]:
    _, Wg, info = q.train_word2vec(corpus, V, S["d"], negative=1, seed=s_)
    w2v["default" if s_ is None else str(s_)] = Wg.astype(np.float64)
w2v_o = {k: q.offset_overlap(Wg) for k, Wg in w2v.items()}
prediction(
    "P4",
    "beyond.untied.P4.w2v_offset",
    "P4: gensim's (untied) word2vec carries the offset: its input vectors' first left singular vector has "
    "squared overlap with 1/√V above 20/V for every seed",
    holds=bool(min(w2v_o.values()) > 20 / V),
    value=dict(per_seed=w2v_o, bound=20 / V),
)
prose(
    f"Untied target: $\\langle u_1, \\mathbf 1/\\sqrt V\\rangle^2$ = {u1o:.3f}, $\\langle v_1, \\mathbf 1/\\sqrt V\\rangle^2$ = "
    f"{v1o:.3f}, sign of the product {sign1:+.0f}, $\\sigma_1/\\sigma_2$ = {sv[0] / sv[1]:.2f}. Tied svd($M^\\star$): "
    f"{tied_o:.4f} (20/V = {20 / V:.4f}). gensim: "
    + ", ".join(f"seed {k}: {v:.3f}" for k, v in w2v_o.items())
    + "."
)

# %% [markdown]
# **P5 — benchmarks and eigen-features.** Three embeddings of the $V$ words at the same $d$: tied
# svd($M^\star$) (the paper's closed form), the untied closed form $W = U_d\Sigma_d^{1/2}$ (input vectors, as
# gensim's are), and gensim's word2vec (SGNS, $k = 1$, one run per seed). A fourth row drops the offset: the
# untied closed form on singular directions $2, \dots, d+1$. "Gap closed" is
# $(s_{\rm untied} - s_{\rm tied})/(s_{\rm w2v} - s_{\rm tied})$ per seed.

# %%
d = S["d"]
W_un = U[:, :d] * np.sqrt(sv[:d])  # q.svd_factors(T, d)[0], from the SVD already computed
W_un_no = U[:, 1 : d + 1] * np.sqrt(sv[1 : d + 1])
emb = {"tied svd(M*)": W_tied, "untied closed form": W_un, "untied, offset removed": W_un_no}
scores = {name: q.evaluate_all(words, Wx) for name, Wx in emb.items()}
for k, Wg in w2v.items():
    scores[f"word2vec seed {k}"] = q.evaluate_all(words, Wg)
bench = ("analogy", "men", "ws353")
rows = []
for name, sc in scores.items():
    rows.append(f"| {name} | " + " | ".join(f"{sc[b][0]:.3f}" for b in bench) + " |")
prose(
    "| embedding | analogy (pairs) | MEN | WS353 |\n|---|---|---|---|\n"
    + "\n".join(rows)
    + f"\n\nAnalogy items in vocabulary: {scores['tied svd(M*)']['analogy'][1]:,}."
)
ov = {
    name: np.array([q.subspace_overlap(Wg, Wx) for Wg in w2v.values()]) for name, Wx in emb.items()
}
w2v_acc = np.array([scores[f"word2vec seed {k}"]["analogy"][0] for k in w2v])
acc_t, acc_u = scores["tied svd(M*)"]["analogy"][0], scores["untied closed form"]["analogy"][0]
n_items = scores["tied svd(M*)"]["analogy"][1]
gap = w2v_acc - acc_t
closed = (acc_u - acc_t) / np.where(np.abs(gap) > 0, gap, np.nan)
se_gap = q.gap_se(float(w2v_acc.mean()), acc_t, n_items)
prose(
    "Mean squared principal cosine with gensim's subspace (per seed): "
    + "; ".join(f"{n}: " + ", ".join(f"{x:.3f}" for x in v) for n, v in ov.items())
    + f". Analogy gap word2vec − tied = {gap.mean():+.3f} (binomial se {se_gap:.3f}, seeds "
    + ", ".join(f"{g:+.3f}" for g in gap)
    + "); share closed by the untied closed form: "
    + ", ".join(f"{c:.2f}" for c in closed)
    + "."
)
prediction(
    "P5_overlap",
    "beyond.untied.P5.overlap_closer",
    "P5: the untied closed form's eigen-features are closer to gensim's than tied svd(M*)'s (mean squared "
    "principal cosine, for every seed)",
    holds=bool(np.all(ov["untied closed form"] > ov["tied svd(M*)"])),
    value=dict(untied=ov["untied closed form"], tied=ov["tied svd(M*)"],
               untied_no_offset=ov["untied, offset removed"]),
)  # fmt: skip
prediction(
    "P5_gap",
    "beyond.untied.P5.analogy_gap_closed",
    "P5: the untied closed form closes at least half of the tied–gensim analogy gap (for every seed, "
    "the gap itself beyond 2 binomial se)",
    holds=bool(np.all(np.abs(gap) > 2 * se_gap) and np.all(closed >= 0.5)),
    value=dict(closed=closed, gap=gap, se=se_gap, tied=acc_t, untied=acc_u,
               untied_no_offset=scores["untied, offset removed"]["analogy"][0]),
)  # fmt: skip

# %%
fig, axs = plotting.figure(ncols=2, width=3.8, height=3.4)
names = list(emb)
x = np.arange(len(names))
axs[0].bar(x, [ov[n].mean() for n in names], yerr=[ov[n].std() for n in names], color="C0")
axs[0].set_xticks(x, ["tied", "untied", "untied,\nno offset"])
plotting.label(
    axs[0], "Figure 50.2a — vs word2vec", "closed form", r"mean $\cos^2$ of principal angles"
)
axs[1].semilogy(np.arange(1, 41), sv[:40], "o-", ms=3, label="T: σ_k")
lam_all = np.linalg.eigvalsh(q.mstar_from_stats(Pj, pu))
axs[1].semilogy(np.arange(1, 41), np.sort(np.abs(lam_all))[::-1][:40], "s-", ms=3,
                label="M*: |λ|")  # fmt: skip
axs[1].semilogy(np.arange(1, 41), np.sort(lam_all)[::-1][:40], "^-", ms=3, label="M*: λ > 0")
axs[1].legend()
plotting.label(axs[1], "Figure 50.2b — spectra", "rank k", "value")
plt.show()

# %% [markdown]
# **Figure 50.2** — Left: how much of gensim word2vec's $d$-dimensional subspace (of $\mathbb R^V$) each
# closed form shares, mean over seeds with their spread as the error bar. Right: the untied target's
# singular values against $M^\star$'s eigenvalues: the tied model can use only the positive ones; the first
# singular value of $T$, far above the rest, is the offset (P3), and $M^\star$'s largest $|\lambda|$ is its
# negative outlier, the same offset in the symmetric problem.

# %% [markdown]
# ## 5 · Discussion
#
# Untying the weights and using word2vec's own negatives keeps QWEM solvable: the quadratic loss is a
# weighted factorisation of an asymmetric target, the unweighted reweighting turns it into the truncated
# SVD, and the dynamics from a small start are those of a two-layer linear network — singular directions
# one at a time, on a clock set by the singular values, at half the tied speed. The new feature is the
# first one: a negative offset of all scores that the tied, positive-semidefinite model cannot express,
# and which gensim's word2vec also carries. Where the clock fails is the last column: when the $d$-th
# singular value is followed by close ones, the modes after it compete for the last free direction, and
# the $d$-th is learned late, at a rate set by the gap rather than by $\sigma_d$ — an effect of finite $d$
# that neither P2 nor its Gram–Schmidt refinement P2′ captures. On the benchmarks the question "how much
# of the tied/untied gap does the untied closed form close?" presupposes that gensim is ahead of tied
# svd($M^\star$); on this corpus it is not (the cell below prints the signs). The outcomes at this preset:

# %%
NAMES = {
    "P1": "P1 (end point = truncated SVD)",
    "P2_times": "P2 (half-times within 10 %)",
    "P2_compete": "P2′ (competing starts, within 5 %)",
    "P2_tied": "P2 (tied speed rejected)",
    "P2_null": "P2 (shuffled-spectrum null)",
    "P2_sharp": "P2 (sharp steps, large-start control)",
    "P3": "P3 (leading offset)",
    "P3_tied": "P3 (no offset in tied svd(M*))",
    "P4": "P4 (offset in gensim)",
    "P5_overlap": "P5 (closer eigen-features)",
    "P5_gap": "P5 (half the analogy gap closed)",
}
prose(
    "; ".join(f"{NAMES[k]}: **{'holds' if v else 'fails'}**" for k, v in HELD.items())
    + f". Analogy accuracy: tied {acc_t:.3f}, untied closed form {acc_u:.3f}, gensim "
    + ", ".join(f"{a:.3f}" for a in w2v_acc)
    + f" (binomial se of a gap {se_gap:.3f}); the weighted optimum (word2vec's own weights) is "
    f"$\\sin\\theta_{{\\max}}$ = {dist_w['left']:.2f} from the SVD subspace. Not settled here: subsampling was left "
    "out of the masses (`q.word2vec_masses(..., sample=1e-5)` adds it), trained untied QWEM at $d$ = 200, and the "
    "paper preset's $V$ = 10,000."
)

# %%
prose(f"Chapter wall time at this preset: {time.time() - T_START:.0f} s.")

# %% [markdown]
# ## 6 · What this chapter found
#
# Each finding and pre-registered prediction of this chapter, with what its check showed at this preset
# (held, failed or open) and its value against its tolerance. The full statements are in the chapter's report.

# %%
_ = rep.found()

# %% [markdown]
# ## Exercises
#
# 1. *(derive, ★★★)* Show that the flow conserves $W^\top W - W'^\top W'$, and find the effective starts of the modes from
#    an *unbalanced* start $W(0) = \alpha Z$, $W'(0) = 0$ with $d = 2$ columns and two strong modes. Check
#    the half-times on a small target.
# 2. *(derive, ★)* Setting 3.1's target $M^\star$ is symmetric. What does *untied* QWEM learn first on it? Compute the
#    top singular value of $M^\star$ and compare it with its eigenvalues.
# 3. *(derive, ★★)* For rank-one weights $G = \mathbf g\mathbf h^\top$ the optimum has a closed form. Show that word2vec's
#    negative masses $N^0 = kP_aQ_b$ alone are rank one, and measure how much of $G = A^0 + N^0$ its best
#    rank-one approximation captures.
#
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# $\frac{d}{dt}W^\top W = \tfrac14\big(W'^\top(T - X)^\top W + W^\top(T - X)W'\big)$ and
# $\frac{d}{dt}W'^\top W' = \tfrac14\big(W^\top(T - X)W' + W'^\top(T-X)^\top W\big)$ — the same matrix, so the
# difference is constant. With $W'(0) = 0$ the growing combinations are $c_k = \alpha Z^\top u_k/\sqrt2$ and
# the decaying ones $e_k = \alpha Z^\top u_k/\sqrt2$ too, so $u_k^\top WW'^\top v_k = (\lVert c_k\rVert^2 - \lVert e_k\rVert^2)/2$
# starts at 0 and tends to $\lVert c_k\rVert^2/2 = \alpha^2\lVert Z^\top u_k\rVert^2/4$ — half the product of a
# balanced start of the same scale. Mode 1 starts from that. Mode 2 shares the two columns with mode 1:
# once mode 1 has grown along $c_1$, mode 2 grows only from $c_2$'s part orthogonal to $c_1$
# (`q.competing_starts`). The imbalance $\alpha^2 Z^\top Z$ is kept forever, negligible next to $\sigma_k$.
#
# </details>

# %%
rng_e = np.random.default_rng(7)
Ve, de = 40, 2
Ue = np.linalg.qr(rng_e.normal(size=(Ve, Ve)))[0]
Ve_ = np.linalg.qr(rng_e.normal(size=(Ve, Ve)))[0]
se = np.array([3.0, 1.5] + [0.1] * (Ve - 2))
Te = (Ue * se) @ Ve_.T
Ae, Ne = (1 + Te / 2) / 2, (1 - Te / 2) / 2
alpha = 1e-3
Z = rng_e.normal(size=(Ve, de)) / np.sqrt(de)
re = q.train_untied(Ae, Ne, de, steps=6_000, lr=0.02, W0=alpha * Z, Wp0=np.zeros((Ve, de)),
                    reference=(Ue[:, :de], Ve_[:, :de]), n_logs=300, use_cache=False)  # fmt: skip
pi0_e = q.competing_starts(alpha * Z, np.zeros((Ve, de)), Ue[:, :de], Ve_[:, :de])
te_meas = q.untied_acquisition_times(re.times, re.modes, se[:de])
te_pred = q.balanced_half_time(se[:de], pi0_e)
te_naive = q.balanced_half_time(se[:de], alpha**2 * np.sum((Z.T @ Ue[:, :de]) ** 2, axis=0) / 4)
rep.close(
    "beyond.untied.solution.1.unbalanced_start",
    "exercise 1: from W(0) = αZ, W′(0) = 0 the half-times follow the balanced formula with the competing "
    "starts ‖c_k⊥‖²/2 (largest relative error; the discrete steps alone slow mode 1 by ησ₁/4 = 1.5 %)",
    value=float(np.max(np.abs(te_meas / te_pred - 1))),
    target=0.0,
    tol=0.03,
    kind="finding",
)
prose(
    f"Exercise 1: half-times measured {te_meas[0]:.2f}, {te_meas[1]:.2f}; predicted with competing starts "
    f"{te_pred[0]:.2f}, {te_pred[1]:.2f}; without the competition {te_naive[0]:.2f}, {te_naive[1]:.2f}."
)
rep.close(
    "beyond.untied.solution.1.imbalance_kept",
    "exercise 1: ‖WᵀW − W′ᵀW′‖ at the end equals its start α²‖ZᵀZ‖ (relative)",
    value=float(re.imbalance[-1] / re.imbalance[0]),
    target=1.0,
    tol=0.02,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# For a symmetric matrix the singular values are the $|\lambda_k|$ and the singular vectors are the
# eigenvectors, with $v_k = \operatorname{sign}(\lambda_k)u_k$. $M^\star$'s largest $|\lambda|$ is its negative
# outlier, so untied QWEM under Setting 3.1 first learns the direction that tied QWEM never learns, with
# $w'_b = -w_b$ along it: the same offset as in section 4.
#
# </details>

# %%
lam_sorted = np.sort(lam_all)
s1_mstar = float(np.linalg.norm(q.mstar_from_stats(Pj, pu), 2))
rep.close(
    "beyond.untied.solution.2.top_singular_is_negative_outlier",
    "exercise 2: M*'s top singular value equals |λ_min| (its negative outlier)",
    value=s1_mstar,
    target=float(max(abs(lam_sorted[0]), lam_sorted[-1])),
    tol=1e-8,
    rel=True,
    kind="consistency",
)
prose(
    f"$M^\\star$: $\\lambda_{{\\max}}$ = {lam_sorted[-1]:.0f}, $\\lambda_{{\\min}}$ = {lam_sorted[0]:.0f}; top "
    f"singular value {s1_mstar:.0f}."
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# $N^0_{ab} = k\,P_a\,Q_b$ is the outer product of $kP$ and $Q$: rank one. $A^0 = P$ has full rank, so
# $G = A^0 + N^0$ is not rank one; the share of its Frobenius norm captured by its best rank-one
# approximation says how far Proposition 2's closed form is from applying.
#
# </details>

# %%
sN = np.linalg.svd(N0, compute_uv=False)
sG = np.linalg.svd(Gw, compute_uv=False)
rep.below(
    "beyond.untied.solution.3.negatives_rank_one",
    "exercise 3: the negative masses N⁰ = kPQᵀ are rank one (second singular value / first)",
    value=float(sN[1] / sN[0]),
    bound=1e-10,
    kind="consistency",
)
share1 = float(sG[0] ** 2 / np.sum(sG**2))
rep.check(
    "beyond.untied.solution.3.weights_rank_one_share",
    "exercise 3: share of ‖G‖²_F in G's best rank-one approximation (recorded)",
    value=share1,
    passed=0 < share1 <= 1,
    tolerance="recorded",
    kind="record",
)
prose(f"The best rank-one approximation of $G$ carries {share1:.1%} of $\\lVert G\\rVert_F^2$.")
