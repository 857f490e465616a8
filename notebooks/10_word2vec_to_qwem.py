# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 10 · From word2vec to QWEM: Theorem 1
#
# **Statement (Karkada et al. 2025, Theorem 1).** Replace word2vec's logistic losses by their Taylor
# expansion to second order in $x = w_i^\top w_j$, tie the context vectors to the word vectors, and pick
# the reweightings $\Psi^\pm$ so that $G_{ij} = \Psi^+_{ij}P_{ij} + \Psi^-_{ij}P_iP_j$ equals a constant $g$.
# Then the loss is, up to a constant, **unweighted symmetric matrix factorisation**:
#
# $$\mathcal{L}(W) = \frac{g}{4}\,\big\|WW^\top - M^\star\big\|_F^2 + \text{const},\qquad
#   M^\star_{ij} = \frac{\Psi^+_{ij}P_{ij} - \Psi^-_{ij}P_iP_j}{\tfrac12\big(\Psi^+_{ij}P_{ij} + \Psi^-_{ij}P_iP_j\big)} .$$
#
# If the top $d$ eigenvalues of $M^\star = V^\star\Lambda V^{\star\top}$ are non-negative, the minimisers
# are exactly $W = V^\star_{[:, :d]}\Lambda_{[:d,:d]}^{1/2}\,O$ for any orthogonal $O$.
#
# **Intuition.** A contrastive loss pulls co-occurring pairs together and pushes random pairs apart. Near
# $W = 0$ each pull or push is a parabola in $x = w_i^\top w_j$. A sum of parabolas in the *same* variable is
# one parabola, whose vertex sits at a target value $M^\star_{ij}$. So the loss only asks every inner
# product $w_i^\top w_j$ to be close to its own target. If all pairs weigh the same ($G = g$), that is a
# least-squares fit of the Gram matrix $WW^\top$ to $M^\star$, and the best rank-$d$ fit is the top of the
# spectrum (Eckart–Young).
#
# This chapter derives each step with a computer-algebra system or checks it numerically, and tries to
# break the theorem where its hypothesis fails.

# %%
import numpy as np
import matplotlib.pyplot as plt
import sympy as sp
import torch

import qwem_lib as q
from qwem_lib import Report, config, plotting

plotting.use_style()
rep = Report("10_word2vec_to_qwem")
S = config.sizes(
    smoke=dict(n_tables=3, n_W=5, V_identity=20, V_gd=30, d=4, V_neg=12, max_steps=50_000, gtol=1e-10),
    book=dict(n_tables=6, n_W=12, V_identity=50, V_gd=60, d=5, V_neg=12, max_steps=100_000, gtol=1e-11),
    paper=dict(n_tables=6, n_W=12, V_identity=400, V_gd=1_000, d=10, V_neg=12, max_steps=200_000, gtol=1e-9),
)
print(S)

# %% [markdown]
# ## 1 · The word2vec loss with reweighting
#
# Skip-gram with negative sampling scores a pair of words by an inner product. With word vectors $w_i$,
# context vectors $w'_j$, and a reweighting of each pair,
#
# $$\mathcal{L}_{\rm w2v}(W, W') = \mathbb{E}_{(i,j)\sim P_{ij}}\!\big[\Psi^+_{ij}\log(1 + e^{-w_i^\top w'_j})\big]
#  + \mathbb{E}_{i\sim P_i,\; j\sim P_j}\!\big[\Psi^-_{ij}\log(1 + e^{\,w_i^\top w'_j})\big].$$
#
# The first term rewards large inner products for pairs that co-occur (within a window); the second
# penalises them for independent pairs drawn from the unigram distribution (negative sampling). The
# hyperparameters $\Psi^\pm_{ij}$ absorb word2vec's engineering tricks: subsampling of frequent words, the
# number of negatives, the smoothed negative distribution. QWEM **ties** the two embeddings, $W' = W$
# (the authors call this their main limitation).
#
# ## 2 · The Taylor expansion, with sympy
#
# Expand both logistic losses at $x = 0$. We let sympy do it and check the result exactly.

# %%
x = sp.symbols("x")
pos = q.logistic_loss_taylor(+1, order=5)  # positive pairs: log(1 + e^{-x})
neg = q.logistic_loss_taylor(-1, order=5)  # negative pairs: log(1 + e^{+x})
print("log(1 + e^(-x)) =", pos, "+ O(x^6)")
print("log(1 + e^(+x)) =", neg, "+ O(x^6)")

expected = {+1: sp.log(2) - x / 2 + x**2 / 8 - x**4 / 192, -1: sp.log(2) + x / 2 + x**2 / 8 - x**4 / 192}
diffs = [sp.simplify(pos - expected[+1]), sp.simplify(neg - expected[-1])]
rep.check("qwem.taylor.logistic_series",
          "sympy: log(1+e^{∓x}) = log 2 ∓ x/2 + x²/8 − x⁴/192 + O(x⁶) exactly (no x³ or x⁵ term)",
          value=[str(d_) for d_ in diffs], passed=all(d_ == 0 for d_ in diffs), tolerance="exact (symbolic)");

# %% [markdown]
# The odd part of $\log(1+e^{-x})$ is exactly $-x/2$ (because $\log(1+e^{-x}) - \log(1+e^{x}) = -x$), so the
# expansion has no $x^3$ term: the second-order truncation is accurate to $O(x^4)$. Keep terms to $x^2$:
#
# $$\log(1+e^{\mp x}) = \log 2 + \tfrac12\Big(\frac{x^2}{4} \mp x\Big) + O(x^4).$$
#
# **The factor ½.** The paper's QWEM loss uses $\frac{x^2}{4} - x$ on positive pairs and
# $\frac{x^2}{4} + x$ on negative pairs: *twice* the quadratic approximation, minus the constant
# $2\log 2$ per term. The book keeps the paper's convention:
#
# $$\mathcal{L}(W) = \sum_{i,j}\Big[P_{ij}\Psi^+_{ij}\Big(\frac{x_{ij}^2}{4} - x_{ij}\Big) +
#   P_iP_j\Psi^-_{ij}\Big(\frac{x_{ij}^2}{4} + x_{ij}\Big)\Big],\qquad x_{ij} = (WW^\top)_{ij},$$
#
# summed over ordered pairs, the diagonal included (`qwem_lib.qwem_loss`). Doubling a loss does not move
# its minimisers. It does rescale time: gradient flow $\dot W = -\nabla(2\mathcal{L}_{\rm quad})$ is flow on
# $\mathcal{L}_{\rm quad}$ run at twice the speed, so a time $t$ under the book's loss is a time $2t$ under the
# honest quadratic approximation $\mathcal{L}_{\rm quad}$. Lemma 3.1 (chapters 12–13) writes its flow as
# $\dot W = -\frac{1}{2g}\nabla\mathcal{L}$; for $g = 1$ that is exactly $\dot W = -\nabla\mathcal{L}_{\rm quad}$: the ½
# dropped from the loss reappears in the time, and the paper's time is plain gradient-flow time on the
# quadratic approximation of word2vec.
#
# We check both facts: symbolically, that the seeds' per-pair loss is twice the series minus $2\log 2$;
# numerically, that the gradient of the book's loss is exactly twice the gradient of the quadratic
# approximation built from the sympy polynomial (differentiated by torch autograd, independently of the
# library's hand-written gradient).

# %%
quad_pos = sp.series(pos, x, 0, 3).removeO()
quad_neg = sp.series(neg, x, 0, 3).removeO()
twice = [sp.simplify(2 * (quad_pos - sp.log(2)) - (x**2 / 4 - x)),
         sp.simplify(2 * (quad_neg - sp.log(2)) - (x**2 / 4 + x))]
rep.check("qwem.taylor.seeds_loss_is_twice",
          "sympy: the seeds' per-pair losses x²/4 ∓ x equal 2·(quadratic Taylor polynomial − log 2) exactly",
          value=[str(t) for t in twice], passed=all(t == 0 for t in twice), tolerance="exact (symbolic)")

rng = config.rng(10)
P_demo = q.synthetic_joint(12, rng, rank=3)
psi_demo = q.equal_reweighting(P_demo)
p_demo = P_demo.sum(1)
c_pos = [float(quad_pos.coeff(x, k)) for k in range(3)]
c_neg = [float(quad_neg.coeff(x, k)) for k in range(3)]
W_demo = torch.tensor(0.3 * rng.standard_normal((12, 3)), requires_grad=True)
X_demo = W_demo @ W_demo.T
A_demo = torch.tensor(psi_demo * P_demo)
B_demo = torch.tensor(psi_demo * np.outer(p_demo, p_demo))
L_quad = torch.sum(A_demo * (c_pos[0] + c_pos[1] * X_demo + c_pos[2] * X_demo**2)
                   + B_demo * (c_neg[0] + c_neg[1] * X_demo + c_neg[2] * X_demo**2))
L_quad.backward()
g_book = q.qwem_gradient(W_demo.detach().numpy(), P_demo, psi_demo, psi_demo)
ratio_err = np.max(np.abs(g_book - 2 * W_demo.grad.numpy())) / np.max(np.abs(g_book))
rep.below("qwem.taylor.half_rescales_time",
          "∇ of the book's QWEM loss = 2 × ∇ of the quadratic Taylor approximation (max relative deviation)",
          value=ratio_err, bound=1e-13);

# %% [markdown]
# How good is the quadratic approximation? Its error is the first dropped term, $-x^4/192$, so it is
# tiny near the origin — where training starts from a small initialisation — and grows quickly beyond
# $|x| \approx 2$. The ratio error$/(x^4/192)$ tends to 1 at small $x$; the next term, $+x^6/2880$,
# predicts $1 - x^2/15$, and the one after (a correction of about $x^4/200$) sets our tolerance.

# %%
xs = np.linspace(-6, 6, 601)
softplus_pos = np.logaddexp(0, -xs)
quad_vals = np.log(2) - xs / 2 + xs**2 / 8
small = np.linspace(0.05, 0.5, 10)
ratio = (np.log(2) - small / 2 + small**2 / 8 - np.logaddexp(0, -small)) / (small**4 / 192)
rep.close("qwem.taylor.remainder_x4",
          "error of the quadratic approximation / (x⁴/192) at x = 0.5 matches 1 − x²/15 (next Taylor term)",
          value=ratio[-1], target=1 - 0.25 / 15, tol=5e-4)

fig, ax = plotting.figure()
ax.plot(xs, softplus_pos, lw=2, label=r"$\log(1+e^{-x})$ (word2vec, positive pair)")
ax.plot(xs, quad_vals, "--", lw=2, label=r"$\log 2 + \frac{1}{2}(x^2/4 - x)$ (quadratic)")
ax.plot(xs, np.logaddexp(0, xs), lw=1.2, alpha=0.7, label=r"$\log(1+e^{x})$ (negative pair)")
ax.set_ylim(-0.2, 6)
plotting.label(ax, "The logistic loss and its quadratic approximation", r"$x = w_i^\top w_j$", "loss per pair")
ax.legend(loc="upper center")
plt.show()

# %% [markdown]
# **Figure 10.1** — The positive-pair logistic loss (solid) and its second-order Taylor polynomial
# (dashed), with the negative-pair loss for reference. They agree to $O(x^4)$ near the origin. The
# parabola keeps rising for large $x$ where the logistic loss flattens: QWEM penalises inner products that
# overshoot, which is why its weights stay bounded (the paper's ablation, Figure 7).
#
# ## 3 · Completing the square: $M^\star$, $G$, and the constant
#
# Collect the terms of one ordered pair $(i, j)$. With $x = x_{ij}$, $a = P_{ij}\Psi^+_{ij}$ and
# $b = P_iP_j\Psi^-_{ij}$,
#
# $$a\Big(\frac{x^2}{4} - x\Big) + b\Big(\frac{x^2}{4} + x\Big) = \frac{G}{4}x^2 - (a - b)\,x
#   = \frac{G}{4}\Big(x - \frac{2(a-b)}{G}\Big)^2 - \frac{(a-b)^2}{G},\qquad G = a + b.$$
#
# The vertex is $M^\star_{ij} = 2(a-b)/G$, the formula of the theorem, and the leftover constant is
# $-(a-b)^2/G = -\tfrac14 G_{ij}M^{\star 2}_{ij}$. Summing over pairs:
#
# $$\mathcal{L}(W) = \frac14\sum_{ij}G_{ij}\big((WW^\top)_{ij} - M^\star_{ij}\big)^2 \;-\; \frac14\sum_{ij}G_{ij}M^{\star2}_{ij}.$$
#
# Under **Setting 3.1** ($\Psi^\pm$ symmetric, $G_{ij} = g$) the first sum is $\frac g4\|WW^\top - M^\star\|_F^2$
# and the constant is $-\frac g4\|M^\star\|_F^2$. Because $|a - b| \le a + b$, every entry of $M^\star$ lies in
# $[-2, 2]$.
#
# **The worked reweighting.** $\Psi^+ = \Psi^- = 1/(P_{ij} + P_iP_j)$ gives $G = 1$ and
# $M^\star_{ij} = 2(P_{ij} - P_iP_j)/(P_{ij} + P_iP_j)$: the relative deviation of the co-occurrence
# distribution from independence. Scaling both $\Psi$ by $g$ gives $G = g$ and the same $M^\star$. The
# authors' ablation with "two negatives" doubles the negative weight: $\Psi^- = 2\Psi^+$ with
# $\Psi^+ = g/(P_{ij} + 2P_iP_j)$ — still constant $G$, a different target.
#
# We test the identity on random co-occurrence tables (`qwem_lib.synthetic_joint`: symmetric, positive, a
# Zipf-like unigram distribution with planted low-rank structure and noise), three reweightings, and
# random $W$ at several scales.

# %%
def reweightings(P):
    """Three Setting-3.1 reweightings: (name, g, Ψ⁺, Ψ⁻)."""
    p = P.sum(1)
    base = q.equal_reweighting(P)
    two_neg = 1.0 / (P + 2 * np.outer(p, p))
    return [("equal, g=1", 1.0, base, base),
            ("equal, g=2.5", 2.5, 2.5 * base, 2.5 * base),
            ("two negatives, g=0.7", 0.7, 0.7 * two_neg, 1.4 * two_neg)]


rng = config.rng(11)
spreads, const_errs, G_errs, bounds = [], [], [], []
for t in range(S["n_tables"]):
    P = q.synthetic_joint(S["V_identity"], rng, rank=4, strength=0.5 + 0.3 * t)
    for name, g, pp, pm in reweightings(P):
        G = q.weight_matrix(P, pp, pm)
        M = q.target_matrix(P, pp, pm)
        G_errs.append(np.max(np.abs(G - g)) / g)
        bounds.append(np.max(np.abs(M)))
        closed = -g / 4 * np.sum(M**2)
        vals = []
        for k in range(S["n_W"]):
            W = rng.standard_normal((S["V_identity"], 3)) * 10.0 ** rng.uniform(-2, 0.5)
            vals.append(q.qwem_loss(W, P, pp, pm) - g / 4 * np.linalg.norm(W @ W.T - M) ** 2)
        vals = np.array(vals)
        spreads.append((vals.max() - vals.min()) / abs(closed))
        const_errs.append(np.max(np.abs(vals - closed)) / abs(closed))

print(f"{len(spreads)} (table, reweighting) cases × {S['n_W']} random W each")
print(f"max relative spread of L(W) − (g/4)||WWᵀ − M*||² over W: {max(spreads):.2e}")
rep.below("qwem.setting31.G_constant",
          "the three Setting-3.1 reweightings give G_ij = g exactly (max relative deviation)",
          value=max(G_errs), bound=1e-13)
rep.below("qwem.target.bounded", "every entry of M* lies in [−2, 2] (max |M*_ij| − 2 over all cases)",
          value=max(bounds) - 2.0, bound=1e-15)
rep.below("qwem.thm1.loss_identity",
          "Theorem 1: L(W) − (g/4)‖WWᵀ − M*‖²_F is the same for every W (max spread / |const|)",
          value=max(spreads), bound=1e-10)
rep.below("qwem.thm1.constant_closed_form",
          "the constant equals −(g/4)‖M*‖²_F (max relative error)", value=max(const_errs), bound=1e-10);

# %% [markdown]
# The spread is at the level of floating-point round-off: the loss *is* the factorisation objective.
# Note that the loss depends on $W$ only through $WW^\top$, so it cannot distinguish $W$ from $WO$ for an
# orthogonal $O$. Embeddings are defined only up to rotation (the class $\mathrm{REquiv}(W)$).

# %%
rng = config.rng(12)
P = q.synthetic_joint(S["V_identity"], rng, rank=4)
psi = q.equal_reweighting(P)
inv = []
for k in range(S["n_W"]):
    W = rng.standard_normal((S["V_identity"], 4))
    O, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    inv.append(abs(q.qwem_loss(W @ O, P, psi, psi) - q.qwem_loss(W, P, psi, psi))
               / abs(q.qwem_loss(W, P, psi, psi)))
rep.below("qwem.thm1.rotation_invariance", "L(WO) = L(W) for random orthogonal O (max relative difference)",
          value=max(inv), bound=1e-12);

# %% [markdown]
# ## 4 · Gradient descent finds the Eckart–Young minimiser
#
# By Eckart–Young–Mirsky, the best rank-$d$ approximation of a symmetric $M^\star$ in Frobenius norm keeps
# its $d$ largest eigenvalues; when these are non-negative it is a Gram matrix $WW^\top$ with
# $W = V^\star_{[:, :d]}\Lambda_{[:d,:d]}^{1/2}$ (`qwem_lib.optimal_embeddings`). The minimum value is
#
# $$\min_W \mathcal{L}(W) = \frac g4\sum_{k > d}\lambda_k^2 \;-\; \frac g4\|M^\star\|_F^2 = -\frac g4\sum_{k\le d}\lambda_k^2 .$$
#
# The theorem says nothing about optimisation. We run plain full-batch gradient descent in float64 on the
# loss **in its contrastive form** — the sum over positive and negative pairs, not the factorised form —
# from a small random initialisation, until the gradient norm falls below a tolerance. Then we compare the
# result with $V^\star_{[:, :d]}\Lambda^{1/2}_{[:d,:d]}$ after the best rotation (orthogonal Procrustes).
# The table has a planted rank-$d$ structure so that $\lambda_d$ is well separated from $\lambda_{d+1}$;
# with $\lambda_d = \lambda_{d+1}$ the minimiser would not be unique and no single target exists.

# %%
rng = config.rng(13)
V, d = S["V_gd"], S["d"]
P = q.synthetic_joint(V, rng, rank=d)
psi = q.equal_reweighting(P)
M = q.target_matrix(P, psi, psi)
lam = np.sort(np.linalg.eigvalsh(M))[::-1]
print(f"V = {V}, d = {d}; top eigenvalues of M*: {np.round(lam[:d + 2], 3)}")
print(f"gap λ_d − λ_(d+1) = {lam[d - 1] - lam[d]:.3f}; {np.sum(lam > 0)} of {V} eigenvalues are positive")

run = q.gradient_descent_qwem(P, psi, psi, d, init_scale=1e-6, max_steps=S["max_steps"], gtol=S["gtol"],
                              seed=config.SEED, record_every=1,
                              track=lambda W: torch.linalg.svdvals(W))
W_star = q.optimal_embeddings(M, d)
dist = q.procrustes_distance(run.W, W_star) / np.linalg.norm(W_star)
L_min = q.qwem_loss_constant(P, psi, psi) + q.factorisation_minimum(M, d)
print(f"converged: {run.converged} after {run.steps[-1]:,} steps (lr = {run.lr:.3g}); final ‖∇L‖ = {run.grad_norm[-1]:.2e}")
print(f"final loss {run.loss[-1]:.12f}, Eckart–Young minimum {L_min:.12f}")
rep.check("qwem.thm1.gd_converged", "gradient descent reaches ‖∇L‖ < gtol within the step budget",
          value=int(run.steps[-1]), passed=run.converged, tolerance=f"‖∇L‖ < {S['gtol']:g}")
rep.below("qwem.thm1.gd_reaches_minimiser",
          "GD from small init ends at V[:, :d]Λ^{1/2} up to rotation (Procrustes distance / ‖W*‖)",
          value=dist, bound=1e-6)
rep.close("qwem.thm1.gd_loss_equals_minimum",
          "GD's final loss equals the Eckart–Young minimum −(g/4)Σ_{k≤d} λ_k²",
          value=run.loss[-1], target=L_min, tol=1e-10, rel=True)
rep.close("qwem.thm1.minimum_closed_form", "the minimum equals −(g/4)Σ_{k≤d} λ_k² (g = 1)",
          value=L_min, target=-0.25 * np.sum(lam[:d] ** 2), tol=1e-12, rel=True);

# %%
fig, axes = plotting.figure(1, 2)
ax = axes[0]
ax.plot(run.steps + 1, run.loss, lw=2, label="gradient descent")
ax.set_xscale("log")
ax.axhline(L_min, color=plotting.PALETTE[1], ls="--", lw=1.5, label="Eckart–Young minimum")
for k in range(1, d):  # the saddle plateaus: the rank-k minima
    ax.axhline(q.qwem_loss_constant(P, psi, psi) + q.factorisation_minimum(M, k), color="0.6", lw=0.8, ls=":")
plotting.label(ax, "QWEM loss during gradient descent", "step + 1", r"$\mathcal{L}(W)$")
ax.legend()
ax = axes[1]
ax.loglog(run.steps + 1, run.tracked ** 2, lw=1.5)
for k in range(d):
    ax.axhline(lam[k], color="0.5", lw=0.8, ls="--")
ax.set_ylim(1e-13, 2 * lam[0])
plotting.label(ax, r"Squared singular values of $W$ approach $\lambda_k$", "step + 1", r"$s_k^2$")
plt.show()

# %% [markdown]
# **Figure 10.2** — Left: the QWEM loss of gradient descent from a small random start (solid) descends a
# staircase onto the theoretical minimum (red dashed). The dotted grey lines are the minima at rank
# $1, 2, \dots, d-1$: the plateaus sit on them. Right: the squared singular values of $W$ rise one after
# another and settle on the eigenvalues $\lambda_k$ of $M^\star$ (dashed). The staircase is the subject of
# chapters 12–13.

# %%
fig, ax = plotting.figure()
idx = np.arange(1, V + 1)
ax.scatter(idx[d:], lam[d:], s=14, color=plotting.PALETTE[6], label="not learned")
ax.scatter(idx[:d], lam[:d], s=30, color=plotting.PALETTE[1], label=f"top $d = {d}$")
ax.axhline(0, color="k", lw=0.8)
ax.set_xscale("log")
plotting.label(ax, r"Spectrum of $M^\star$ (synthetic table)", "index $k$ (descending)", r"eigenvalue $\lambda_k$")
ax.legend()
plt.show()

# %% [markdown]
# **Figure 10.3** — Eigenvalues of $M^\star$ in descending order. The $d$ red ones are what a rank-$d$
# embedding learns; the rest, including about half the spectrum that is negative, is discarded. The
# theorem needs the red ones to be non-negative.
#
# ## 5 · When a top-$d$ eigenvalue is negative
#
# $WW^\top$ is positive semi-definite. If $M^\star$ has fewer than $d$ positive eigenvalues, no Gram matrix
# equals its top-$d$ truncation, and `optimal_embeddings` refuses. The true minimiser of
# $\|WW^\top - M^\star\|_F$ over rank $\le d$ Gram matrices keeps only the positive eigenvalues
# (`qwem_lib.psd_truncation`): it uses fewer than $d$ directions. Gradient descent finds this by itself:
# we start it from a *large* random $W$ with $d = n_+ + 2$ columns ($n_+$ = number of positive eigenvalues)
# and watch the two extra singular values die.

# %%
rng = config.rng(7)
V_neg = S["V_neg"]
P_neg = q.synthetic_joint(V_neg, rng, rank=3)
psi_neg = q.equal_reweighting(P_neg)
M_neg = q.target_matrix(P_neg, psi_neg, psi_neg)
lam_neg = np.sort(np.linalg.eigvalsh(M_neg))[::-1]
n_pos = int(np.sum(lam_neg > 0))
d_neg = n_pos + 2
print(f"V = {V_neg}: eigenvalues {np.round(lam_neg, 3)}; n_+ = {n_pos}; we ask for d = {d_neg}")
try:
    q.optimal_embeddings(M_neg, d_neg)
    raised = ""
except ValueError as exc:
    raised = str(exc)
print("optimal_embeddings:", raised)
rep.check("qwem.thm1.negative_eig_raises",
          "optimal_embeddings raises ValueError when a top-d eigenvalue of M* is negative",
          value=raised or "no error", passed="not all non-negative" in raised, tolerance="ValueError")

run_neg = q.gradient_descent_qwem(P_neg, psi_neg, psi_neg, d_neg, init_scale=0.5, max_steps=S["max_steps"],
                                  gtol=S["gtol"], seed=config.SEED + 1, record_every=5,
                                  track=lambda W: torch.linalg.svdvals(W))
s_final = run_neg.tracked[-1]
print("final singular values of W:", np.array2string(s_final, precision=3))
print("√(positive eigenvalues):    ", np.array2string(np.sqrt(lam_neg[:n_pos]), precision=3))
L_min_neg = q.qwem_loss_constant(P_neg, psi_neg, psi_neg) + q.factorisation_minimum(M_neg, d_neg)
rep.check("qwem.thm1.negative_eig_rank",
          f"GD with d = n_+ + 2 ends with exactly n_+ non-zero singular values (> 1e-6 · s_1); n_+ = {n_pos}",
          value=int(np.sum(s_final > 1e-6 * s_final[0])), passed=int(np.sum(s_final > 1e-6 * s_final[0])) == n_pos,
          tolerance="exact count")
rep.below("qwem.thm1.negative_eig_extra_columns",
          "the two extra singular values shrink to 0 from a large init (max extra s_k / s_1 at the end)",
          value=np.max(s_final[n_pos:]) / s_final[0], bound=1e-6)
rep.close("qwem.thm1.negative_eig_loss",
          "GD's final loss equals the minimum with the negative part dropped, −(1/4)Σ_{λ_k>0} λ_k²",
          value=run_neg.loss[-1], target=L_min_neg, tol=1e-10, rel=True);

# %%
fig, ax = plotting.figure()
for k in range(d_neg):
    extra = k >= n_pos
    ax.loglog(run_neg.steps + 1, run_neg.tracked[:, k], lw=2 if extra else 1.2,
                color=plotting.PALETTE[1] if extra else plotting.PALETTE[0],
                label=("extra columns ($\\lambda_k \\leq 0$)" if k == n_pos else
                       ("columns with $\\lambda_k > 0$" if k == 0 else None)))
ax.set_ylim(1e-12, 10)
plotting.label(ax, "Fewer than $d$ directions: the extra singular values vanish", "step + 1",
               "singular value $s_k$ of $W$")
ax.legend()
plt.show()

# %% [markdown]
# **Figure 10.4** — Singular values of $W$ under gradient descent when $d$ exceeds the number of positive
# eigenvalues of $M^\star$ by two, from a large random start. The $n_+$ blue curves settle on
# $\sqrt{\lambda_k}$; the two red ones decay towards zero. The learned embedding has rank $n_+ < d$.
#
# ## Discussion
#
# * The reduction is exact, not approximate, *once the loss is quadratic*. The only approximation is the
#   Taylor truncation, accurate to $O(x^4)$ near the origin; where trained inner products are large
#   (the paper reports entries of $M^\star$ up to $\pm 2$), QWEM and word2vec are different models, and the
#   match between them is empirical (chapter 21).
# * **Setting 3.1 is a strong assumption.** word2vec's own negatives are drawn from $P_j^{3/4}$, which
#   makes $\Psi^-$ asymmetric; its $G$ is far from constant. The theorem covers a *designed* reweighting.
#   Chapter 11 shows what survives without it.
# * The assumption $\Lambda_{[:d,:d]} \succeq 0$ is mild in practice: on the paper's corpus about half of
#   $M^\star$'s 10,000 eigenvalues are non-negative (4,795), and $d = 200$. When it fails, the minimiser
#   simply uses fewer directions.
# * The seeds call the truncation "quartic" and "fourth order"; it is second order in $x = w_i^\top w_j$,
#   hence quartic in $W$. Both descriptions are right in their own variable.
#
# ## Exercises
#
# 1. Write $\Psi^+_{ij} = g\beta_{ij}/P_{ij}$ and $\Psi^-_{ij} = g(1-\beta_{ij})/(P_iP_j)$ with
#    $\beta_{ij} \in [0, 1]$ symmetric. Show that this satisfies Setting 3.1 and that $M^\star = 2(2\beta - 1)$.
#    What does this say about how much the *choice* of reweighting decides what QWEM learns? Check it with
#    `target_matrix`.
# 2. Keep the $-x^4/192$ term of the expansion. The loss is still a sum of one function per Gram entry
#    $x_{ij}$, but no longer a parabola. Is the minimiser of each term still $M^\star_{ij}$? Find the new
#    per-entry optimum numerically and compare it with PMI (chapter 14).
# 3. Repeat the gradient-descent experiment with $\lambda_d = \lambda_{d+1}$ (build a matrix with a repeated
#    eigenvalue directly). Does gradient descent still reach the minimum loss? Is the final $W$ close to
#    `optimal_embeddings` after Procrustes? Explain.
# 4. Untie the embeddings: minimise the quadratic loss over $(W, W')$ with $x = w_i^\top w'_j$. What does the
#    completed square become, and which decomposition replaces the eigendecomposition?
# 5. Run gradient descent with the learning rate doubled and halved. Which quantities in Figure 10.2 change,
#    and which stay fixed? Relate your answer to the factor ½ discussed in §2.
