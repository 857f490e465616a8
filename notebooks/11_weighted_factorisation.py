# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 11 · Weighted factorisation: Proposition 2
#
# **Statement (Karkada et al. 2025, Proposition 2).** Drop the constant-weight condition of Setting 3.1
# and keep only symmetric reweightings $\Psi^\pm$. Then
#
# $$\mathcal{L}(W) = \frac14\sum_{ij}G_{ij}\big((WW^\top)_{ij} - M^\star_{ij}\big)^2 + \text{const},
#   \qquad G_{ij} = \Psi^+_{ij}P_{ij} + \Psi^-_{ij}P_iP_j ,$$
#
# with **the same target** $M^\star$ as in Theorem 1. Only the weights of the entries change. If the
# weights are rank one, $G = gg^\top$ with $g > 0$, the minimiser is known in closed form:
#
# $$WW^\top = \Gamma^{-1}\big(\Gamma M^\star \Gamma\big)_{[d]}\Gamma^{-1},\qquad \Gamma = \mathrm{diag}(g)^{1/2},$$
#
# where $(\cdot)_{[d]}$ keeps the top $d$ (positive) eigenpairs. For a general $G$ the problem is weighted
# low-rank approximation, which is NP-hard (Gillis and Glineur 2011); the paper leaves it alone.
#
# **Intuition.** Completing the square works pair by pair (chapter 10): every pair's parabola has its
# vertex at $M^\star_{ij}$, whatever its curvature $G_{ij}$. So the *target* is set by the ratio of positive
# to negative weight, and the *weights* by their sum. A rank-one $G$ is a change of units — measure word
# $i$'s embedding in units of $\sqrt{g_i}$ — and in those units the problem is unweighted again. A general
# $G$ is not a change of units, and the landscape can have several valleys.

# %%
import numpy as np
import matplotlib.pyplot as plt
import torch

import qwem_lib as q
from qwem_lib import Report, config, plotting

plotting.use_style()
rep = Report("11_weighted_factorisation")
S = config.sizes(
    smoke=dict(V_identity=20, n_W=5, V_rank1=20, d_rank1=3, V_general=12, n_instances=4, n_inits=8,
               max_steps=60_000),
    book=dict(V_identity=40, n_W=10, V_rank1=40, d_rank1=3, V_general=12, n_instances=10, n_inits=16,
              max_steps=100_000),
    paper=dict(V_identity=200, n_W=10, V_rank1=1_000, d_rank1=10, V_general=12, n_instances=20, n_inits=32,
               max_steps=300_000),
)
print(S)

# %% [markdown]
# ## 1 · Same target, different weights
#
# The algebra of chapter 10 never used $G_{ij} = g$ until the last line. For one pair, with
# $a = P_{ij}\Psi^+_{ij}$, $b = P_iP_j\Psi^-_{ij}$ and $G = a + b$,
#
# $$a\Big(\frac{x^2}{4} - x\Big) + b\Big(\frac{x^2}{4} + x\Big) = \frac{G}{4}\big(x - M^\star_{ij}\big)^2 - \frac{G}{4}M^{\star2}_{ij}.$$
#
# Check it with random symmetric reweightings whose $G$ is far from constant. Then multiply both $\Psi^+$
# and $\Psi^-$ by the same positive symmetric matrix $R$: $G$ becomes $R\circ G$, but $M^\star$ — a ratio —
# does not move.

# %%
rng = config.rng(20)
V = S["V_identity"]
P = q.synthetic_joint(V, rng, rank=4)


def random_symmetric(V, rng, low=0.2, high=5.0):
    A = np.exp(rng.uniform(np.log(low), np.log(high), size=(V, V)))
    return np.sqrt(A * A.T)  # symmetric, positive


psi_p, psi_m = random_symmetric(V, rng), random_symmetric(V, rng)
G = q.weight_matrix(P, psi_p, psi_m)
M = q.target_matrix(P, psi_p, psi_m)
const = q.qwem_loss_constant(P, psi_p, psi_m)
print(f"G ranges over [{G.min():.3g}, {G.max():.3g}] (ratio {G.max() / G.min():.1f}): not Setting 3.1")
vals = []
for k in range(S["n_W"]):
    W = rng.standard_normal((V, 3)) * 10.0 ** rng.uniform(-2, 0.5)
    vals.append(q.qwem_loss(W, P, psi_p, psi_m) - q.weighted_factorisation_loss(W, M, G))
vals = np.array(vals)
rep.below("qwem.prop2.loss_identity",
          "Prop. 2: L(W) − ¼Σ G_ij((WWᵀ)_ij − M*_ij)² is the same for every W, non-constant G (spread/|const|)",
          value=(vals.max() - vals.min()) / abs(const), bound=1e-10)
rep.below("qwem.prop2.constant", "the constant equals −¼ Σ G_ij M*_ij² (max relative error)",
          value=np.max(np.abs(vals - (-0.25 * np.sum(G * M**2)))) / abs(const), bound=1e-10)

R = random_symmetric(V, rng)
M_R = q.target_matrix(P, R * psi_p, R * psi_m)
G_R = q.weight_matrix(P, R * psi_p, R * psi_m)
rep.below("qwem.prop2.target_unchanged",
          "rescaling Ψ⁺ and Ψ⁻ by the same symmetric R leaves M* unchanged (max |ΔM*|) while G → R∘G",
          value=np.max(np.abs(M_R - M)), bound=1e-13)
print(f"max |G_R − R∘G| = {np.max(np.abs(G_R - R * G)):.2e}; max |G_R − G| = {np.max(np.abs(G_R - G)):.3g}")

# %% [markdown]
# So in word2vec-like models the reweighting hyperparameters play two separate roles: the *ratio*
# $\Psi^+/\Psi^-$ decides what is learned (the target), the *sum* decides how much each entry matters (the
# weights). Which rank-$d$ matrix is learned depends on both, because a rank-$d$ model cannot fit every
# entry at once.
#
# ## 2 · Rank-one weights: a change of units
#
# Let $G_{ij} = g_ig_j$ with all $g_i > 0$ and write $\Gamma = \mathrm{diag}(g)^{1/2}$. Then
# $g_ig_j\,Y_{ij}^2 = (\sqrt{g_i}\,Y_{ij}\sqrt{g_j})^2$, so
#
# $$\frac14\sum_{ij}g_ig_j\big((WW^\top)_{ij} - M^\star_{ij}\big)^2 = \frac14\big\|\widetilde W\widetilde W^\top - \Gamma M^\star\Gamma\big\|_F^2,
#   \qquad \widetilde W = \Gamma W .$$
#
# This is Theorem 1's problem for the matrix $\Gamma M^\star\Gamma$. Eckart–Young gives
# $\widetilde W\widetilde W^\top = (\Gamma M^\star\Gamma)_{[d]}$, and undoing the change of units gives the
# proposition. Note what changes: the learned subspace is **not** the top eigenspace of $M^\star$ any more.
#
# A natural rank-one weighting makes frequent words count more: $g_i \propto (V P_i)^{1/4}$. It is realised by
# $\Psi^+ = \Psi^- = g_ig_j/(P_{ij} + P_iP_j)$, which keeps $M^\star$ of the worked example. We run
# gradient descent on the QWEM loss from a small random start and compare its Gram matrix with the
# proposition's.

# %%
rng = config.rng(21)
V, d = S["V_rank1"], S["d_rank1"]
P = q.synthetic_joint(V, rng, rank=d)
p = P.sum(1)
g = (V * p) ** 0.25
g /= np.exp(np.mean(np.log(g)))  # geometric mean 1
psi = np.outer(g, g) * q.equal_reweighting(P)
G = q.weight_matrix(P, psi, psi)
M = q.target_matrix(P, psi, psi)
rep.below("qwem.prop2.rank_one_G", "Ψ± = g_ig_j/(P_ij + P_iP_j) gives G = ggᵀ exactly (max relative deviation)",
          value=np.max(np.abs(G - np.outer(g, g)) / np.outer(g, g)), bound=1e-13)
lam_t = np.sort(np.linalg.eigvalsh(np.sqrt(g)[:, None] * M * np.sqrt(g)[None, :]))[::-1]
print(f"g ranges over [{g.min():.2f}, {g.max():.2f}]; top eigenvalues of ΓM*Γ: {np.round(lam_t[:d + 2], 3)}")

run = q.gradient_descent_qwem(P, psi, psi, d, init_scale=1e-4, max_steps=S["max_steps"], gtol=1e-10,
                              seed=config.SEED, record_every=10)
X_gd = run.W @ run.W.T
X_prop = q.rank_one_weighted_minimizer(M, g, d)
W_unw = q.optimal_embeddings(M, d)
X_unw = W_unw @ W_unw.T
loss_gd = q.weighted_factorisation_loss(run.W, M, G)
loss_prop = 0.25 * np.sum(G * (X_prop - M) ** 2)
loss_unw = q.weighted_factorisation_loss(W_unw, M, G)
print(f"GD converged: {run.converged} after {run.steps[-1]:,} steps")
print(f"weighted loss: GD {loss_gd:.10f} | Proposition 2 {loss_prop:.10f} | unweighted Eckart–Young {loss_unw:.6f}")
rel_gram = np.linalg.norm(X_gd - X_prop) / np.linalg.norm(X_prop)
rep.check("qwem.prop2.rank_one_gd_converged", "GD on the rank-one-weighted QWEM loss reaches ‖∇L‖ < 1e-10",
          value=int(run.steps[-1]), passed=run.converged, tolerance="‖∇L‖ < 1e-10")
rep.below("qwem.prop2.rank_one_gram",
          "G = ggᵀ: GD's Gram matrix equals Γ⁻¹(ΓM*Γ)_[d]Γ⁻¹ (relative Frobenius distance)",
          value=rel_gram, bound=1e-6)
rep.close("qwem.prop2.rank_one_loss", "G = ggᵀ: GD's weighted loss equals that of the closed form",
          value=loss_gd, target=loss_prop, tol=1e-9, rel=True)
rep.above("qwem.prop2.rank_one_differs_from_unweighted",
          "the rank-one-weighted minimiser differs from Theorem 1's (relative Gram distance) ...",
          value=np.linalg.norm(X_unw - X_prop) / np.linalg.norm(X_prop), bound=0.01)
rep.above("qwem.prop2.rank_one_unweighted_worse",
          "... and Theorem 1's Eckart–Young solution has a strictly higher weighted loss (relative excess)",
          value=(loss_unw - loss_prop) / loss_prop, bound=1e-3);

# %%
fig, axes = plotting.figure(1, 2)
iu = np.triu_indices(V)
ax = axes[0]
ax.scatter(X_prop[iu], X_gd[iu], s=10, label="Proposition 2: $\\Gamma^{-1}(\\Gamma M^\\star\\Gamma)_{[d]}\\Gamma^{-1}$")
ax.scatter(X_unw[iu], X_gd[iu], s=10, marker="x", alpha=0.6,
           label="Theorem 1 (ignores weights): $(M^\\star)_{[d]}$")
lims = [min(X_prop.min(), X_unw.min()), max(X_prop.max(), X_unw.max())]
ax.plot(lims, lims, color="0.3", lw=0.8)
plotting.label(ax, "Gram matrix found by gradient descent", "closed-form $(WW^\\top)_{ij}$",
               "gradient descent $(WW^\\top)_{ij}$")
ax.legend(fontsize=8)
ax = axes[1]
ax.plot(run.steps + 1, run.loss - q.qwem_loss_constant(P, psi, psi), lw=2, label="gradient descent")
ax.axhline(loss_prop, color=plotting.PALETTE[1], ls="--", label="Proposition 2 minimum")
ax.axhline(loss_unw, color=plotting.PALETTE[2], ls=":", label="weighted loss of $(M^\\star)_{[d]}$")
ax.set_xscale("log")
ax.set_yscale("log")
plotting.label(ax, "Weighted loss during training", "step + 1", r"$\frac{1}{4}\sum G_{ij}(WW^\top - M^\star)_{ij}^2$")
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **Figure 11.1** — Left: each dot is one entry of the Gram matrix learned by gradient descent, plotted
# against the closed form of Proposition 2 (dots on the diagonal) and against Theorem 1's unweighted
# answer (crosses, scattered around the diagonal). Right: the weighted part of the loss during training reaches the
# proposition's minimum (red dashed), below the weighted loss of the unweighted solution (dotted).
#
# ## 3 · General weights: several valleys
#
# When $G$ is not rank one there is no change of units. Weighted low-rank approximation is NP-hard in
# general, already for rank one (Gillis and Glineur 2011), and its landscape can have **spurious local
# minima**: stationary points with a positive-definite Hessian whose loss is above that of another minimum.
# Gradient descent then ends in whichever valley its initialisation falls into.
#
# We test this on small problems ($V = 12$, $d = 1$). Each instance has a random co-occurrence table and
# log-normal weights $G_{ij} = e^{z_{ij}}$ with symmetric $z_{ij} \sim \mathcal{N}(0, 1)$, realised by
# $\Psi^\pm = G_{ij}/(P_{ij} + P_iP_j)$ (same $M^\star$ as the worked example). From several random starts
# (entries $\mathcal{N}(0, 0.5^2)$) we run gradient descent to $\|\nabla\mathcal{L}\| < 10^{-9}$ and group the
# end points by their loss. At $d = 1$ the only symmetry is $w \mapsto -w$, so distinct losses are
# distinct minima, and the Hessian at a strict local minimum is positive definite.

# %%
from tqdm import tqdm

instances = []
for inst in tqdm(range(S["n_instances"]), desc="instances"):
    rng = config.rng(100 + inst)
    Vg = S["V_general"]
    Pg = q.synthetic_joint(Vg, rng, rank=4)
    Z = rng.standard_normal((Vg, Vg))
    Gg = np.exp((Z + Z.T) / np.sqrt(2))
    psig = Gg * q.equal_reweighting(Pg)
    runs = [q.gradient_descent_qwem(Pg, psig, psig, 1, init_scale=0.5, max_steps=S["max_steps"], gtol=1e-9,
                                    seed=s, record_every=20, device="cpu") for s in range(S["n_inits"])]
    losses = np.array([r.loss[-1] for r in runs])
    # group end points whose losses agree to 1e-6 (relative)
    order = np.argsort(losses)
    groups = [[order[0]]]
    for i in order[1:]:
        if abs(losses[i] - losses[groups[-1][0]]) > 1e-6 * abs(losses[groups[-1][0]]):
            groups.append([i])
        else:
            groups[-1].append(i)
    instances.append(dict(P=Pg, psi=psig, G=Gg, runs=runs, losses=losses, groups=groups))

n_multi = sum(len(I["groups"]) > 1 for I in instances)
all_conv = all(r.converged for I in instances for r in I["runs"])
for k, I in enumerate(instances):
    print(f"instance {k}: {len(I['groups'])} distinct end point(s); losses "
          + ", ".join(f"{I['losses'][grp[0]]:.4f} (×{len(grp)})" for grp in I["groups"]))
rep.check("qwem.prop2.general_all_converged", "every run reaches ‖∇L‖ < 1e-9 (a stationary point)",
          value=sum(r.converged for I in instances for r in I["runs"]), passed=all_conv,
          tolerance=f"all {S['n_instances'] * S['n_inits']} runs")
rep.above("qwem.prop2.general_multiple_minima_fraction",
          "fraction of random log-normal G instances (V=12, d=1) where GD ends at ≥ 2 distinct losses",
          value=n_multi / len(instances), bound=0.0);

# %% [markdown]
# Are these genuine local minima, or saddle points where gradient descent stalled? At every distinct end
# point of every instance we compute the Hessian ($12 \times 12$ at $d = 1$): all its eigenvalues must be
# positive. We also compare the Gram matrices of the two best end points of the first instance that has
# more than one.

# %%
min_ratio, max_grad = np.inf, 0.0
for I in instances:
    for grp in I["groups"]:
        r = I["runs"][grp[0]]
        ev = np.linalg.eigvalsh(q.qwem_hessian(r.W, I["P"], I["psi"], I["psi"]))
        min_ratio = min(min_ratio, ev.min() / ev.max())
        max_grad = max(max_grad, np.linalg.norm(q.qwem_gradient(r.W, I["P"], I["psi"], I["psi"])))
n_points = sum(len(I["groups"]) for I in instances)
print(f"{n_points} distinct end points over {len(instances)} instances; "
      f"max ‖∇L‖ = {max_grad:.1e}; min over end points of λ_min(H)/λ_max(H) = {min_ratio:.3g}")
rep.below("qwem.prop2.general_stationary", "at every distinct end point ‖∇L‖ ≈ 0 (max ‖∇L‖)",
          value=max_grad, bound=1e-8)
rep.above("qwem.prop2.general_local_minima",
          "every distinct end point is a strict local minimum: min over end points of λ_min(H)/λ_max(H) > 0",
          value=min_ratio, bound=1e-8)

I = next(I for I in instances if len(I["groups"]) > 1)
ends = [I["runs"][grp[0]] for grp in I["groups"]]
grams = [r.W @ r.W.T for r in ends]
gram_gap = np.linalg.norm(grams[0] - grams[1]) / np.linalg.norm(grams[0])
print("first instance with several end points — losses:", [f"{r.loss[-1]:.6f}" for r in ends])
rep.above("qwem.prop2.general_distinct_gram", "the two best end points have different Gram matrices (relative distance)",
          value=gram_gap, bound=0.05)
rep.above("qwem.prop2.general_loss_gap", "the worse local minimum has a higher loss than the best (relative gap)",
          value=(ends[1].loss[-1] - ends[0].loss[-1]) / abs(ends[0].loss[-1]), bound=1e-4);

# %%
fig, axes = plotting.figure(1, 2)
ax = axes[0]
const_I = q.qwem_loss_constant(I["P"], I["psi"], I["psi"])
for gi, grp in enumerate(I["groups"]):
    for j, idx in enumerate(grp):
        r = I["runs"][idx]
        ax.plot(r.steps + 1, r.loss - const_I, color=plotting.PALETTE[gi % len(plotting.PALETTE)], lw=1.2,
                alpha=0.8, label=f"end point {gi + 1}" if j == 0 else None)
ax.set_xscale("log")
ax.set_yscale("log")
plotting.label(ax, "Different starts, different valleys", "step + 1", r"$\frac{1}{4}\sum G_{ij}(WW^\top - M^\star)_{ij}^2$")
ax.legend()
ax = axes[1]
for gi, r in enumerate(ends):
    ax.plot(np.arange(S["V_general"]), r.W[:, 0] * np.sign(r.W[np.argmax(np.abs(r.W[:, 0])), 0]), "o-",
            color=plotting.PALETTE[gi % len(plotting.PALETTE)], label=f"end point {gi + 1}")
plotting.label(ax, "The learned embeddings differ", "word index $i$", "$w_i$ (d = 1, sign fixed)")
ax.legend()
plt.show()

# %% [markdown]
# **Figure 11.2** — One random instance with general (log-normal) weights. Left: the weighted loss of
# every run, coloured by the end point it reaches; runs settle at different final values. Right: the
# one-dimensional embeddings at the distinct end points. Both are strict local minima (positive-definite
# Hessian); gradient descent cannot tell them apart.
#
# ## Discussion
#
# * **The target is robust; the solution is not.** Proposition 2 says every symmetric reweighting scheme
#   points at the same $M^\star$ — set by the ratio $\Psi^+/\Psi^-$ alone. What a rank-$d$ model learns
#   depends on the weights too: already for rank-one weights the learned subspace moves (Figure 11.1).
# * **Rank one is special.** It is exactly the case where weighting is a change of units. Some of
#   word2vec's tricks are products of per-word factors — subsampling multiplies $\Psi^+$ by
#   $a(P_i)a(P_j)$ — but $G$ mixes them with $\Psi^-$ and is rank one only in special cases, and the
#   negative distribution $P_j^{3/4}$ breaks the symmetry altogether.
# * **General weights make the problem hard in the computational sense**, not just in the analytic
#   one: with non-rank-one $G$ we find spurious local minima on most random small instances. The closed-form
#   picture of chapters 12–13 (one eigenvector at a time) has no analogue here, which is why the paper's
#   Setting 3.1 is a real restriction rather than a convenience.
#
# ## Exercises
#
# 1. Prove the change of units: show that if $W$ is a stationary point of the rank-one-weighted loss, then
#    $\Gamma W$ is a stationary point of $\frac14\|\widetilde W\widetilde W^\top - \Gamma M^\star\Gamma\|_F^2$. Why does
#    this mean that rank-one weights create no spurious minima?
# 2. Take $G = gg^\top + \epsilon E$ for a fixed symmetric $E$ and increase $\epsilon$ from 0. At which
#    $\epsilon$ do the random starts first split into two end points on the instance above?
# 3. Replace the log-normal weights by binary weights $G_{ij} \in \{0, 1\}$ (a matrix-completion problem).
#    How many distinct end points do you find, and how often is the lowest one reached?
# 4. For $d = 2$ the loss is invariant under $W \mapsto WO$. How many zero eigenvalues must the Hessian have
#    at any stationary point? Check it with `qwem_hessian`.
# 5. Design a rank-one $g$ that makes the model learn the *second* eigenvector of $M^\star$ first. (Hint:
#    make $g$ large on the words where that eigenvector is large.)
