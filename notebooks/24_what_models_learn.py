# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 24 · What the trained models learn (the paper's Figure 5 and the trained rows of Figure 3b)
#
# **Statement (Karkada et al. 2025, Figures 3b and 5).** (i) QWEM trained by SGD ends at svd($M^\star$):
# the same subspace, the same embeddings up to a rotation, the same benchmark scores (paper: 65.1% on
# analogies against 66.3% for svd($M^\star$)). (ii) The eigen-features of trained QWEM and of word2vec
# (SGNS) overlap strongly, one to one: the matrix $(V_{\rm SGNS}^\top V_{\rm QWEM})^2$ of squared overlaps
# between their singular vectors is close to diagonal over the first 64 components. Neither shares its
# features as much with svd(PPMI).
#
# **Intuition.** Chapter 23 showed the learning process; this chapter looks at its end point. QWEM's
# loss is $\frac14\|WW^\top - M^\star\|^2$ up to a constant, so its minimiser is svd($M^\star$) up to a
# rotation $O$; a rotation changes no cosine, hence no benchmark score. SGNS's loss is not quadratic,
# but its small-$W$ expansion is (chapter 10), so its features should resemble $M^\star$'s, not PPMI's.
#
# We compare five embeddings of the same $V$ words in the same $d$ dimensions: trained QWEM and SGNS
# (chapter 23's runs, reused from the cache when the sizes match, trained here otherwise), and the
# closed forms svd($M^\star$), svd(PPMI), svd(PMI) (chapter 21's library calls, cached). Sections 1–5 do
# it at chapter 23's small $V$ and $d$; section 6 does it for QWEM at the paper's $V = 10{,}000$, $d = 200$,
# trained without minibatch noise, with standard errors and a paired test of the paper's "≈".

# %%
import matplotlib.pyplot as plt
import numpy as np

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("24_what_models_learn")
# the training runs' sizes live in qwem_lib (q.TEXT_RUNS), shared with chapter 23 so both read one cached run
P = config.sizes(
    smoke={**q.TEXT_RUNS["smoke"], "n_overlap": 64},
    book={**q.TEXT_RUNS["book"], "n_overlap": 64},
    paper={**q.TEXT_RUNS["paper"], "n_overlap": 64},
)
print(P)
RUN = q.text_run_kwargs(P)
corpus, V, d = P["corpus"], P["V"], P["d"]

# %% [markdown]
# ## 1 · The five embeddings
#
# The trained runs are those of chapter 23 at the same preset (`q.run_preset` caches each run under a key
# made of all its inputs: the same sizes give the same file, so nothing is retrained).

# %%
qw = q.run_preset("qwem", corpus, V, d, init="small", **RUN)
sg = q.run_preset("sgns", corpus, V, d, init="small", **RUN)
print(
    f"QWEM: {'from the cache' if qw.result.cached else f'trained here, {qw.result.seconds:.0f} s'};  "
    f"SGNS: {'from the cache' if sg.result.cached else f'trained here, {sg.result.seconds:.0f} s'}"
)
words = qw.words
E = {
    "trained QWEM": qw.result.W.astype(np.float64),
    "this book's SGNS": sg.result.W.astype(np.float64),
}
for target, name in (("mstar", "svd(M*)"), ("ppmi", "svd(PPMI)"), ("pmi", "svd(PMI)")):
    w, W = q.spectral_embeddings(corpus, V, d, target)
    assert list(w) == list(words)
    E[name] = W.astype(np.float64)
print({k: W.shape for k, W in E.items()})

# %% [markdown]
# ## 2 · Trained QWEM is svd($M^\star$) up to a rotation
#
# Two measures. The **subspace distance** $\sin\theta_{\max}$ between the column spaces ignores the
# singular values. The **Procrustes distance** $\min_O \|W O - W^\star\|_F$ (chapter 11), relative to
# $\|W^\star\|_F$, compares the embeddings themselves, up to the rotation the loss cannot see.
#
# *Tolerance.* Chapter 23 asks of the trained run $\sin\theta_{\max} < 0.3$ and $|s_k^2/\lambda_k - 1| < 0.1$.
# If every direction is tilted by at most $\theta$ and every $s_k$ is off by at most 5% (half of 10% on
# $s_k^2$), the relative Procrustes distance is at most $\sqrt{2(1-\cos\theta) + 0.05^2}$: we assert it
# with $\sin\theta = 0.3$, which gives the bound computed below. A trained model that ended anywhere else
# (a different subspace, or the right subspace with the wrong singular values) would exceed it.

# %%
Wq, Ws = E["trained QWEM"], E["svd(M*)"]
sin_q = q.subspace_distance(Wq, Ws)
proc_rel = q.procrustes_distance(Wq, Ws) / np.linalg.norm(Ws)
bound = float(np.sqrt(2 * (1 - np.sqrt(1 - 0.3**2)) + 0.05**2))
print(
    f"sin θ_max(QWEM, svd(M*)) = {sin_q:.3f};  relative Procrustes distance = {proc_rel:.3f} (bound {bound:.3f})"
)
rep.below(
    "qwem.learned.subspace",
    "trained QWEM spans svd(M*)'s subspace: sin θ_max between the column spaces (the library's svd(M*) "
    "embedding; repeats chapter 23's end-point claim with an independent eigensolver)",
    value=sin_q,
    bound=0.3,
    kind="consistency",
)
rep.below(
    "qwem.learned.procrustes",
    "trained QWEM equals svd(M*) up to a rotation: min_O ‖W O − W*‖_F / ‖W*‖_F",
    value=proc_rel,
    bound=bound,
    kind="finding",
)

# %% [markdown]
# ## 3 · Eigen-features: who shares them with whom (Figure 5)
#
# The *eigen-features* of an embedding are its left singular vectors $u_1, u_2, \dots$, in the order of
# the singular values (for svd($X$) they are $X$'s eigenvectors). For two embeddings $a, b$ the paper's
# Figure 5 shows the matrix $O_{ij} = (u^a_i \cdot u^b_j)^2$ over the first 64 components; here over the
# first $\min(64, d)$. Each row sums to at most 1.
#
# **The measure of "diagonal".** $D(O) = \sum_i O_{ii} / \sum_{ij} O_{ij}$, the share of the overlap mass
# on the diagonal (`q.diagonal_dominance`): 1 when the features match one to one *and in the same order*,
# about $1/k$ when the overlap has no diagonal structure. It is beside the total mass
# $\frac1k\sum_{ij}O_{ij}$ (the mean squared cosine of the principal angles: how much the two $k$-dimensional
# subspaces share, in any order).

# %%
k = min(P["n_overlap"], d)
pairs = [
    ("trained QWEM", "this book's SGNS"),
    ("trained QWEM", "svd(M*)"),
    ("this book's SGNS", "svd(M*)"),
    ("trained QWEM", "svd(PPMI)"),
    ("this book's SGNS", "svd(PPMI)"),
    ("svd(M*)", "svd(PPMI)"),
]
O = {p: q.eigen_overlap(E[p[0]], E[p[1]], k) for p in pairs}
diag = {p: q.diagonal_dominance(O[p]) for p in pairs}
mass = {p: float(O[p].sum() / k) for p in pairs}
for p in pairs:
    print(
        f"{p[0]:>17s} vs {p[1]:<17s}: diagonal share D = {diag[p]:.3f}, mean squared cosine = {mass[p]:.3f}"
    )

# %%
show = [
    ("trained QWEM", "this book's SGNS"),
    ("trained QWEM", "svd(M*)"),
    ("trained QWEM", "svd(PPMI)"),
    ("this book's SGNS", "svd(PPMI)"),
]
fig, axs = plotting.figure(1, 4, width=3.3, height=3.6)
for ax, p in zip(axs, show):
    im = ax.imshow(O[p], vmin=0, vmax=1, cmap=plotting.CMAP)
    plotting.label(
        ax,
        f"{p[0]} vs\n{p[1]}  (D = {diag[p]:.2f})",
        f"{p[1]}: component j",
        f"{p[0]}: component i",
    )
fig.colorbar(im, ax=axs, shrink=0.8, label=r"$(u_i \cdot u_j)^2$")
plotting.suptitle(fig, "Figure 24.1 — Squared overlaps of eigen-features")
plt.show()

# %% [markdown]
# **Figure 24.1** — Squared overlaps $(u^a_i\cdot u^b_j)^2$ of the first $k$ eigen-features of two
# embeddings; $D$ is the diagonal share. Trained QWEM against svd($M^\star$) is the identity up to noise.

# %%
rep.above(
    "qwem.learned.features_one_to_one",
    "trained QWEM's eigen-features are svd(M*)'s, one to one and in order: diagonal share D of "
    "(U_QWEMᵀ U_M*)² over the first min(64, d) components",
    value=diag[("trained QWEM", "svd(M*)")],
    bound=0.8,
    kind="finding",
)

# %% [markdown]
# ## 4 · The benchmark table with the trained rows
#
# Chapter 21's protocol (the authors': analogies over every ordered pair of in-vocabulary word pairs of a
# category, 3CosAdd over the whole vocabulary; Spearman's $\rho$ on the MEN and WS353 pairs inside the
# vocabulary), at this chapter's $V$ and $d$. The paper's column is its Figure 3b ($V = 10{,}000$,
# $d = 200$, 2.0B tokens); the authors' *logs* (not the paper) put their trained QWEM at 65.0% and their SGNS
# at 67.9% on analogies.

# %%
BENCH = ("analogy", "men", "ws353")
scores = {name: q.evaluate_all(words, W) for name, W in E.items()}
paper_key = {
    "trained QWEM": "QWEM",
    "this book's SGNS": "word2vec",
    "svd(M*)": "svd_mstar",
    "svd(PPMI)": "svd_ppmi",
    "svd(PMI)": "svd_pmi",
}
lines = [
    f"| method (V = {V:,}, d = {d}) | analogies | MEN | WS353 | paper (V = 10,000, d = 200): analogies / MEN / WS353 |",
    "|---|---|---|---|---|",
]
for name, sc in scores.items():
    p = q.PAPER_FIG3B[paper_key[name]]
    cells = [f"{100 * sc['analogy'][0]:.1f}% (n={sc['analogy'][1]:,})"] + [
        f"{sc[b][0]:.3f} (n={sc[b][1]:,})" for b in ("men", "ws353")
    ]
    lines.append(
        f"| {name} | "
        + " | ".join(cells)
        + f" | {100 * p['analogy']:.1f}% / {p['men']:.3f} / {p['ws353']:.3f} |"
    )
table = "\n".join(lines)
print(table)
from IPython.display import Markdown, display  # noqa: E402

display(Markdown(table))

# %% [markdown]
# The paper's "word2vec" row is its SGNS with $k = 1$ (the authors' own implementation, like ours);
# chapter 21 has gensim's. At the book's small $V$ and $d$ the benchmarks cover few items (the $n$ in
# each cell) and all scores are low; what matters here is the comparison within a column.

# %% [markdown]
# The benchmark sets are small at this $V$, so a score difference says little. A sharper test of "the
# same scores" uses every pair of words: if two embeddings agree up to a rotation, their cosine
# similarities agree pair by pair. We rank-correlate the cosine similarities of all pairs among the
# vocabulary for trained QWEM against svd($M^\star$), and against svd(PPMI) as a reference.

# %%
from scipy.stats import spearmanr  # noqa: E402


def pair_cosines(W):
    Wn = q.normalize_rows(W)
    iu = np.triu_indices(Wn.shape[0], 1)
    return (Wn @ Wn.T)[iu]


cos_pairs = {
    name: pair_cosines(E[name])
    for name in ("trained QWEM", "svd(M*)", "svd(PPMI)", "this book's SGNS")
}
rho_qm = float(spearmanr(cos_pairs["trained QWEM"], cos_pairs["svd(M*)"]).statistic)
rho_qp = float(spearmanr(cos_pairs["trained QWEM"], cos_pairs["svd(PPMI)"]).statistic)
rho_sm = float(spearmanr(cos_pairs["this book's SGNS"], cos_pairs["svd(M*)"]).statistic)
rho_sp = float(spearmanr(cos_pairs["this book's SGNS"], cos_pairs["svd(PPMI)"]).statistic)
prose(
    f"Spearman correlation of all {len(cos_pairs['svd(M*)']):,} pairwise cosine similarities: trained QWEM "
    f"against svd($M^\\star$) {rho_qm:.3f}, against svd(PPMI) {rho_qp:.3f}; SGNS against svd($M^\\star$) "
    f"{rho_sm:.3f}, against svd(PPMI) {rho_sp:.3f}."
)
rep.ordered(
    "qwem.learned.same_similarities",
    "trained QWEM makes the same similarity judgements as svd(M*) (paper: the same benchmark scores): "
    "Spearman ρ of all pairwise cosines with svd(M*) above that with svd(PPMI)",
    names=["ρ(QWEM, svd(M*))", "ρ(QWEM, svd(PPMI))"],
    values=[rho_qm, rho_qp],
    kind="finding",
)

# %% [markdown]
# ## 5 · Does SGNS share its features with QWEM more than with PPMI?
#
# The paper's Figure 5 claim, with the diagonal share $D$ as its measure: the overlap of trained QWEM with
# SGNS is more diagonal than the overlap of either with svd(PPMI). The book reproduces half of it: seen
# from QWEM, SGNS is closer than PPMI; seen from SGNS, it is not — its eigen-features line up with
# PPMI's in order more than with QWEM's, *when measured on the main diagonal with the constant direction
# left in* (the second claim below, a finding: the ordering could have come out either way). The next
# cells show that this disagreement is the offset's doing: with $\mathbf 1/\sqrt V$ projected out of
# every embedding, the comparison is made again against a random-rotation null.

# %%
rep.ordered(
    "fig5.qwem_closer_to_sgns_than_ppmi",
    "trained QWEM shares its eigen-features with SGNS more than with svd(PPMI): diagonal share D of "
    "the squared-overlap matrices, QWEM–SGNS above QWEM–PPMI",
    names=["D(QWEM, SGNS)", "D(QWEM, PPMI)"],
    values=[diag[("trained QWEM", "this book's SGNS")], diag[("trained QWEM", "svd(PPMI)")]],
    kind="finding",
)
rep.ordered(
    "fig5.sgns_order_not_reproduced",
    "NOT the paper's Figure 5 for SGNS: the book's SGNS orders its eigen-features more like svd(PPMI) "
    "than like trained QWEM (D(SGNS, PPMI) above D(SGNS, QWEM)); the paper shows SGNS–QWEM diagonal and "
    "SGNS–PPMI not",
    names=["D(SGNS, PPMI)", "D(SGNS, QWEM)"],
    values=[diag[("this book's SGNS", "svd(PPMI)")], diag[("trained QWEM", "this book's SGNS")]],
    kind="finding",
)
prose(
    f"Mean squared cosines of the principal angles (shared subspace, any order): SGNS–QWEM "
    f"{mass[('trained QWEM', 'this book' + chr(39) + 's SGNS')]:.3f}, SGNS–PPMI "
    f"{mass[('this book' + chr(39) + 's SGNS', 'svd(PPMI)')]:.3f}, QWEM–PPMI "
    f"{mass[('trained QWEM', 'svd(PPMI)')]:.3f}."
)

# %% [markdown]
# **Where SGNS's first feature goes.** Figure 24.1's first panel is diagonal *shifted by one*: QWEM's
# feature $i$ meets SGNS's feature $i+1$. SGNS spends its leading direction on something QWEM does not
# learn: a constant offset of all scores, $x_{ab} \approx c$ for every pair. Such an offset lives in the
# direction $\mathbf 1/\sqrt V$ of $\mathbb R^V$ (all rows of $W$ share a component). It is not a
# linear-phase effect: a uniform shift has zero first-order gain, because with $k = 1$ the positive and
# negative masses balance in total, $\mathbf 1^\top B\,\mathbf 1 = \sum_{ab}P_{ab}r_{ab} - \sum_a m_a = 0$
# for SGNS's growth matrix $B$ (computed below). It appears later, through the logistic loss's
# nonlinearity and the subsampling weights $r_{ab}$ (which weight the rare words' pairs and so the
# direction in which most rows move together). The $P^{0.75}$ negatives are not the cause: the balance
# above rules them out at first order. Whether the offset survives at
# $V = 10{,}000$, where most words are not subsampled, needs trained SGNS at that size (not run here: weeks
# on two CPU cores, `bench/README.md`). QWEM's Setting-3.1 weights balance the masses pair by pair, and its
# $M^\star$ has no such direction.

# %%
U_sg = np.linalg.svd(E["this book's SGNS"], full_matrices=False)[0]
ones_overlap = float((U_sg[:, 0] @ np.ones(V)) ** 2 / V)
O_qs = O[("trained QWEM", "this book's SGNS")]
D_shift = q.diagonal_dominance(O_qs, offset=-1) if k > 1 else float("nan")
prose(
    f"SGNS's first singular vector has squared overlap {ones_overlap:.3f} with $\\mathbf 1/\\sqrt V$ "
    f"(a random direction: about $1/V$ = {1 / V:.4f}). The share of the QWEM–SGNS overlap on the diagonal "
    f"shifted by one (QWEM $i$ ↔ SGNS $i+1$) is {D_shift:.3f}, against {diag[('trained QWEM', 'this book' + chr(39) + 's SGNS')]:.3f} "
    f"on the main diagonal."
)
_, Pj, pu = q.cooccurrence(q.load_corpus(corpus), V)
B_sg = q.sgns_growth_matrix(Pj, pu)
ones_gain = float(np.ones(V) @ B_sg @ np.ones(V) / V)
prose(
    f"First-order gain of a uniform shift, $\\mathbf 1^\\top B\\mathbf 1/V$ = {ones_gain:.2e}, against "
    f"$B$'s top eigenvalue {np.linalg.eigvalsh(B_sg)[-1]:.2e}."
)
del B_sg
rep.above(
    "sgns.learned.offset_direction",
    "SGNS's leading feature carries a constant offset of all scores: squared overlap of its first left "
    "singular vector with 1/√V, against 20/V (for a random direction the overlap is about χ²₁/V, "
    "above 20/V with probability 8e-6)",
    value=ones_overlap,
    bound=20 / V,
    kind="finding",
)

# %% [markdown]
# **Figure 5 with the constant direction handled.** svd(PPMI)'s top eigenvector is close to the Perron
# vector $\mathbf 1/\sqrt V$ and SGNS's leading feature is the offset, while $M^\star$ has no such
# feature: on the main diagonal, that one extra feature makes SGNS look like PPMI. We project
# $\mathbf 1/\sqrt V$ out of every embedding ($W \mapsto W - \mathbf 1\mathbf 1^\top W/V$), recompute the
# overlaps over the first $\min(64, d) - 1$ features, and compare each diagonal share with a
# **random-rotation null**: the same two subspaces with the second one's basis turned by a Haar-random
# rotation (200 draws), which keeps every principal angle and destroys the order.


# %%
k_c = max(1, k - 1)
# q.without_constant projects 1/√V out of every column; q.dominance_null is the random-rotation null of D
E_c = {name: q.without_constant(X) for name, X in E.items()}
rng_null = config.rng(24)


def diag_null(A, B, kk, n=200):
    """Diagonal shares of (U_Aᵀ U_B R)² for Haar-random rotations R of B's first kk features."""
    return q.dominance_null(A, B, kk, rng_null, n=n)


pairs_c = [("this book's SGNS", "svd(M*)"), ("this book's SGNS", "trained QWEM"),
           ("this book's SGNS", "svd(PPMI)"), ("trained QWEM", "svd(PPMI)")]  # fmt: skip
D_c = {p: q.diagonal_dominance(q.eigen_overlap(E_c[p[0]], E_c[p[1]], k_c)) for p in pairs_c}
null_c = {p: diag_null(E_c[p[0]], E_c[p[1]], k_c) for p in pairs_c}
for p in pairs_c:
    print(f"{p[0]:>17s} vs {p[1]:<13s} (1/√V projected out, {k_c} features): D = {D_c[p]:.3f}; "
          f"null {null_c[p].mean():.3f}, 99th percentile {np.quantile(null_c[p], 0.99):.3f}")  # fmt: skip
if k_c > 1:
    rep.ordered(
        "fig5.offset_removed.sgns_closer_to_mstar",
        "with the constant direction projected out, SGNS orders its eigen-features more like svd(M*) than "
        "like svd(PPMI): D(SGNS, M*) above D(SGNS, PPMI) (paper, Figure 5: SGNS–QWEM diagonal, SGNS–PPMI not)",
        names=["D(SGNS, M*), offset out", "D(SGNS, PPMI), offset out"],
        values=[D_c[pairs_c[0]], D_c[pairs_c[2]]],
        kind="finding",
    )
    rep.above(
        "fig5.offset_removed.sgns_mstar_above_null",
        "with the constant direction projected out, D(SGNS, M*) exceeds the 99th percentile of its "
        "random-rotation null (the same subspaces, order destroyed)",
        value=D_c[pairs_c[0]],
        bound=float(np.quantile(null_c[pairs_c[0]], 0.99)),
        kind="finding",
    )

# %% [markdown]
# ## 6 · Trained QWEM at the paper's size
#
# Sections 1–5 compare *trained* QWEM with svd($M^\star$) at $V = 500$, $d = 6$, where the benchmarks hold a
# handful of items. The paper's table (Figure 3b) is at $V = 10{,}000$, $d = 200$: trained QWEM 65.1% against
# svd($M^\star$) 66.3% on analogies, which the paper reads as "the same". SGD at that size needs millions of
# steps (`bench/README.md`), but QWEM's *noiseless* gradient descent does not: in the eigenbasis of the top
# $r$ eigenvectors of $M^\star$ it is $Y \leftarrow Y - \eta\,(Y(Y^\top Y) - \Lambda Y)$ with $W = QY$
# (`q.eigen_flow`, chapter 27 §3, where it is checked against the full-space noiseless trainer). This
# section trains QWEM that way at the paper's $V$ and $d$, from the authors' small start
# $W(0) = \frac{\sigma}{\sqrt d}Z$ with $\sigma = 10^{-12}$ (chapter 27's seed-0 start and rate
# $\eta = 0.1/\lambda_1$, so the run is the run of Figure 27.2), and scores it beside the closed forms.
#
# **Where the authors' run ends, in the book's time.** The authors train by SGD at rate 5 for 4M steps, the
# rate multiplied by 0.1 at step 3M (`q.AUTHORS_QWEM_SMALL`, from their public code). Their loss is not the
# book's $L = \frac14\|WW^\top - M^\star\|_F^2$: it weights each pair by $\bar G/G_{ab}$ (Setting 3.1's
# $\Psi = 1/G_{ab}$, $G_{ab} = P_{ab} + P_aP_b$, times the mean $\bar G$ of $G$ over the $V^2$ pairs), divides
# the minibatch mean by minus the mean of $M^{\star 2}$ over the pairs and subtracts the ratio from 1 (so the
# loss is 1 at $W = 0$).
# Its expectation is therefore $1 + c\,(L - \frac14\|M^\star\|_F^2)$ with $c = \sum_{ab}G_{ab} / \|M^\star\|_F^2$
# (`q.authors_rate_scale`, unit-tested against autograd of their loss), so one of their steps at rate
# $\ell_n$ is the book's step at $\eta_n = c\,\ell_n$, and their run ends at the book's time
#
# $$t_{\rm authors} = 2c\sum_n \ell_n = \frac{2\sum_{ab}G_{ab}}{\|M^\star\|_F^2}\,\big(5 \times 3\cdot 10^6 + 0.5 \times 10^6\big) \tag{24.1}$$
#
# (`q.authors_end_time`; $\sum_{ab} G_{ab} = 2$ when both tables sum to one, and their Figure 2 notebook uses
# the same conversion). $c$ depends on the corpus through $\|M^\star\|_F^2$: every pair never seen
# contributes $M^\star_{ab} = -2$, so a smaller corpus has a larger norm, a smaller $c$, and its run ends
# earlier in units of $\tau_1$. We report the run at $t_{\rm authors}$ of *this* corpus, and at the
# **converged end** $t_{\rm conv} = 2\tau_d$ (chapter 27's horizon, $\tau_d$ the characteristic time of the
# last mode from $\sigma^2$; $t_{\rm authors}$ if that is later), by which every one of the $d$ modes has made
# its step (checked below).
#
# **Scores and their uncertainty.** The authors' protocols (chapter 21): analogies over every ordered pair of
# distinct in-vocabulary word pairs of a category, 3CosAdd over the whole vocabulary; Spearman $\rho$ on the
# in-vocabulary MEN and WS353 pairs. The analogies of a category share word pairs, so items are not
# independent: the standard error of an accuracy comes from a bootstrap over each category's *word pairs*
# (`q.pair_bootstrap_weights`, chapter 51), that of $\rho$ from a bootstrap over the similarity pairs
# (`q.similarity_bootstrap`). Both are **paired**: every embedding is scored on the same resamples, so the
# interval of a *difference* of two embeddings on the same questions is the spread of the replicate
# differences (the test of the paper's "≈").

# %%
T = config.sizes(
    smoke=dict(corpora=("enwiki2015_1m7",), V=1_000, d=50, r=60, n_boot=200, n_curve=6),
    book=dict(corpora=("enwiki2015_17m", "enwiki2015_70m"), V=10_000, d=200, r=500, n_boot=1000,
              n_curve=10),
    paper=dict(corpora=("enwiki2015_17m", "enwiki2015_70m"), V=10_000, d=200, r=500, n_boot=2000,
               n_curve=16),
)  # fmt: skip
T.update(lr_factor=0.1, horizon=2.0, n_overlap=64, sigma_sq=q.AUTHORS_QWEM_SMALL["init_scale"] ** 2)
print(T)
import time  # noqa: E402

import torch  # noqa: E402

t_section = time.time()


def trained_at_size(corpus):
    """QWEM's noiseless GD at (V, d) from the authors' small start, to t_authors (24.1) and to 2τ_d."""
    Vt, dt, s2 = T["V"], T["d"], T["sigma_sq"]
    words_t, Pt, put = q.cooccurrence(corpus, Vt)
    t_auth, c_auth = q.authors_end_time(Pt, put), q.authors_rate_scale(Pt, put)
    del Pt
    w_e, lam_t, Q_t = q.mstar_eigenbasis(corpus, Vt, T["r"])
    assert list(w_e) == list(words_t)
    gen = torch.Generator().manual_seed(int(config.SEED) * 1000)
    W0 = q.initial_embeddings(Vt, dt, np.sqrt(s2), gen).numpy()
    lr = T["lr_factor"] / lam_t[0]
    tau = q.characteristic_time(lam_t[:dt], s2)
    t_conv = max(T["horizon"] * max(tau[-1], 5 / lam_t[dt - 1]), t_auth)
    n_auth = max(1, int(round(t_auth / (2 * lr))))
    n_conv = max(n_auth + 1, int(np.ceil(t_conv / (2 * lr))))
    # two segments of one run (gradient descent has no other state): 0 → t_authors → t_conv
    ef1 = q.eigen_flow(lam_t, Q_t.T @ W0, lr=lr, steps=n_auth, n_logs=40)
    ef2 = q.eigen_flow(lam_t, ef1.Y, lr=lr, steps=n_conv - n_auth, n_logs=30)
    times = np.r_[ef1.times, ef1.times[-1] + ef2.times[1:]]
    sv = np.r_[ef1.sv, ef2.sv[1:]]
    U = np.concatenate([ef1.overlap, ef2.overlap[1:]])
    t_k = q.learning_times(times, sv**2, lam_t[:dt])
    # embeddings along the run, up to a right rotation (which changes no cosine): W(t) ≅ Q U(t) S(t)
    pick = np.unique(np.r_[np.geomspace(max(1, np.searchsorted(times, 0.5 * tau[0])), len(times) - 1,
                                        T["n_curve"]).astype(int), len(ef1.times) - 1])  # fmt: skip
    curve_W = {int(i): Q_t @ (U[i] * sv[i]) for i in pick}
    return dict(corpus=corpus, words=words_t, lam=lam_t, tau=tau, t_auth=t_auth, c=c_auth,
                t_conv=float(times[-1]), n_auth=n_auth, n_conv=n_conv, lr=lr, times=times, sv=sv,
                t_k=t_k, curve_W=curve_W, i_auth=len(ef1.times) - 1,
                W_auth=Q_t @ ef1.Y, W_conv=Q_t @ ef2.Y, seconds=ef1.seconds + ef2.seconds)  # fmt: skip


TR = {}
TAG = {c_: c_.split("_")[-1] for c_ in T["corpora"]}  # claim ids: qwem.paper_size.<17m|70m|1m7>.…
for corpus_t in T["corpora"]:
    R = trained_at_size(corpus_t)
    TR[corpus_t] = R
    print(
        f"{corpus_t}: c = {R['c']:.3e}, t_authors = {R['t_auth']:.4f} = {R['t_auth'] / R['tau'][0]:.2f} τ₁ "
        f"({R['n_auth']:,} steps at η = {T['lr_factor']}/λ₁), t_conv = {R['t_conv']:.4f} = "
        f"{R['t_conv'] / R['tau'][0]:.2f} τ₁ ({R['n_conv']:,} steps, {R['seconds']:.0f} s); modes with "
        f"τ_k < t_authors: {int((R['tau'] < R['t_auth']).sum())} of {T['d']}"
    )

# %%
for corpus_t, R in TR.items():
    lam_d = R["lam"][: T["d"]]
    at_auth = R["sv"][R["i_auth"]] ** 2 / lam_d
    R["n_learned_auth"] = int((at_auth > 0.5).sum())
    R["n_learned_conv"] = int((R["sv"][-1] ** 2 / lam_d > 0.5).sum())
    _ = rep.check(
        f"qwem.paper_size.{TAG[corpus_t]}.authors_time",
        f"{corpus_t}, V = {T['V']:,}, d = {T['d']}: the authors' schedule (rate 5, 4M steps, ×0.1 at 3M) in "
        "the book's time by (24.1), in units of τ₁ (σ² = 1e-24), and the number of modes with "
        "s_k² > λ_k/2 there (noiseless GD in the top-r eigenbasis)",
        value=dict(
            t_authors=round(R["t_auth"], 5),
            t_over_tau1=round(R["t_auth"] / R["tau"][0], 3),
            modes_learned=R["n_learned_auth"],
            modes_tau_below=int((R["tau"] < R["t_auth"]).sum()),
            d=T["d"],
        ),  # fmt: skip
        passed=True,
        tolerance="recorded",
        kind="record",
    )
    _ = rep.check(
        f"qwem.paper_size.{TAG[corpus_t]}.converged",
        f"{corpus_t}: at t_conv = 2τ_d every one of the d modes has made its step (its s_k² has crossed "
        "λ_k/2, at a time before t_conv) and sits above λ_k/2",
        value=dict(learned=R["n_learned_conv"], crossed=int(np.isfinite(R["t_k"]).sum()), d=T["d"]),
        passed=bool(R["n_learned_conv"] == T["d"] and np.all(np.isfinite(R["t_k"]))),
        tolerance="all d modes",
        kind="consistency",
    )

# %% [markdown]
# **The benchmark table at the paper's size.** The same questions for every row; ± is one bootstrap standard
# error (analogies: over each category's word pairs; MEN, WS353: over the similarity pairs). gensim's
# word2vec ($k = 1$, untied: input and output vectors are separate, unlike the paper's tied SGNS) is chapter
# 21's run, shown as a reference only on the first corpus. **Tied SGNS at $V = 10{,}000$ is not trained
# here**: it has no eigenbasis shortcut, and the full-space noiseless trainer (`q.train_expected`) takes
# about two seconds a step at that size on two cores (`bench/README.md`), hours for a run. Chapter 26 trains
# it without noise at $V = 2{,}000$ and $5{,}000$ and compares it with svd($M^\star$) on the same questions;
# its paper preset runs $V = 10{,}000$, $d = 200$ (its record is in REPRODUCTION.md). The paper's "< tied SGNS" is
# therefore **not tested here**.

# %%
rng_boot = config.rng(24_600)
SC = {}
for corpus_t, R in TR.items():
    words_t = R["words"]
    emb = {"trained QWEM, t_authors": R["W_auth"], "trained QWEM, t_conv": R["W_conv"]}
    for target, name in (("mstar", "svd(M*)"), ("ppmi", "svd(PPMI)"), ("pmi", "svd(PMI)")):
        w_, W_ = q.spectral_embeddings(corpus_t, T["V"], T["d"], target)
        assert list(w_) == list(words_t)
        emb[name] = np.asarray(W_, dtype=np.float64)
    if corpus_t == T["corpora"][0]:
        w_, W_ = q.method_embeddings("w2v_k1", corpus_t, T["V"], T["d"])
        assert list(w_) == list(words_t)
        emb["gensim word2vec k=1 (untied; reference)"] = np.asarray(W_, dtype=np.float64)
    items_t, cat_t = q.analogy_items(words_t)
    hits = {name: q.analogy_hits(W, items_t) for name, W in emb.items()}
    Bw = q.pair_bootstrap_weights(items_t, cat_t, T["n_boot"], rng_boot)
    acc_draws = {name: q.replicate_means(Bw, h) for name, h in hits.items()}
    sim = {ds: q.similarity_bootstrap(words_t, list(emb.values()), ds, T["n_boot"], rng_boot)
           for ds in ("men", "ws353")}  # fmt: skip
    SC[corpus_t] = dict(emb=emb, items=items_t, cat=cat_t, hits=hits, acc_draws=acc_draws, sim=sim,
                        names=list(emb))  # fmt: skip

paper_row = {"trained QWEM, t_authors": "QWEM", "trained QWEM, t_conv": "QWEM", "svd(M*)": "svd_mstar",
             "svd(PPMI)": "svd_ppmi", "svd(PMI)": "svd_pmi",
             "gensim word2vec k=1 (untied; reference)": "word2vec"}  # fmt: skip
lines = [
    f"| corpus | method (V = {T['V']:,}, d = {T['d']}) | analogies | MEN | WS353 | paper: analogies / MEN / WS353 |",
    "|---|---|---|---|---|---|",
]
for corpus_t, S_ in SC.items():
    lines += q.score_rows(corpus_t, S_["hits"], S_["acc_draws"], S_["sim"], paper_row)
table10k = "\n".join(lines)
display(Markdown(table10k))
_ = rep.check(
    "qwem.paper_size.table",
    f"the benchmark table at V = {T['V']:,}, d = {T['d']} with trained QWEM (noiseless GD from σ² = 1e-24) "
    "at t_authors and t_conv: analogy accuracy (all-pairs protocol), MEN and WS353 ρ, each with its "
    "bootstrap standard error, pinned",
    value={
        c_: {
            name: dict(
                analogy=round(float(S_["hits"][name].mean()), 4),
                analogy_se=round(float(S_["acc_draws"][name].std()), 4),
                **{ds: round(float(S_["sim"][ds][0][j]), 4) for ds in ("men", "ws353")},
                **{
                    f"{ds}_se": round(float(S_["sim"][ds][1][:, j].std()), 4)
                    for ds in ("men", "ws353")
                },
            )
            for j, name in enumerate(S_["names"])
        }
        for c_, S_ in SC.items()
    },
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %% [markdown]
# **The paper's "≈", paired.** For trained QWEM against svd($M^\star$) on the same questions: the accuracy
# difference, its paired 95% bootstrap interval, and McNemar's counts of questions one answers and the other
# does not (the exact McNemar $p$ treats questions as independent, which they are not: the bootstrap over word
# pairs is the interval to read). The paper's own gap, $65.1 - 66.3 = -1.2$ points, is what it calls
# "the same". **The rule, for every benchmark:** trained QWEM is *not resolved to be further from
# svd($M^\star$) than the paper's trained QWEM is*: $|{\rm gap}| \le |{\rm gap}_{\rm paper}| + 0.001 +
# 1.96\,{\rm SE}$, with 0.001 the rounding of the paper's table (two values printed to 0.1% or to three
# decimals) and SE the paired bootstrap standard error of the book's gap. It is one-sided on purpose: a
# noiseless run that has converged can match svd($M^\star$) exactly (gap and SE zero), while the paper's gap
# also carries its SGD's noise, so the book does not ask for the paper's $-1.2$ points itself. It could fail,
# and does for a model that is not yet svd($M^\star$): the same rule applied to the run stopped at
# $t_{\rm authors}$ of this corpus is the control recorded after each finding. The rule was settled after
# the smoke run and a first look at the book-size numbers (an earlier rule asked for the paper's $-1.2$ points
# themselves, which a converged noiseless run cannot show), so it is a test with a control, not a prediction
# stated before the run.

# %%
from scipy.stats import binomtest  # noqa: E402

paper_gap = round(q.PAPER_FIG3B["QWEM"]["analogy"] - q.PAPER_FIG3B["svd_mstar"]["analogy"], 3)
ROUNDING = 1e-3  # the paper's table: analogies to 0.1%, ρ to three decimals


def not_further(gap, gap_paper, se):
    """The rule of this section: |gap| ≤ |gap_paper| + rounding + 1.96 SE."""
    return bool(abs(gap) <= abs(gap_paper) + ROUNDING + 1.96 * se + 1e-12)


PAIRED = {}
for corpus_t, S_ in SC.items():
    for which in ("t_conv", "t_authors"):
        name = f"trained QWEM, {which}"
        h_a, h_b = S_["hits"][name], S_["hits"]["svd(M*)"]
        g_ = q.bootstrap_gap(
            h_a.mean(), h_b.mean(), S_["acc_draws"][name], S_["acc_draws"]["svd(M*)"]
        )
        only_a, only_b = int((h_a & ~h_b).sum()), int((~h_a & h_b).sum())
        p_mc = float(binomtest(only_a, only_a + only_b, 0.5).pvalue) if only_a + only_b else 1.0
        PAIRED[(corpus_t, which)] = dict(**g_, only_qwem=only_a, only_mstar=only_b, p=p_mc)
        print(f"{corpus_t}, QWEM at {which} − svd(M*): {100 * g_['gap']:+.2f} points, paired SE "
              f"{100 * g_['se']:.2f}, 95% [{100 * g_['lo']:+.2f}, {100 * g_['hi']:+.2f}]; only QWEM right "
              f"{only_a}, only svd(M*) right {only_b} (McNemar p = {p_mc:.2g})")  # fmt: skip
    for which in ("t_conv", "t_authors"):
        R_ = PAIRED[(corpus_t, which)]
        value = {k: round(R_[k], 4) for k in ("gap", "se", "lo", "hi")}
        within = not_further(R_["gap"], paper_gap, R_["se"])
        if which == "t_conv":
            _ = rep.check(
                f"qwem.paper_size.{TAG[corpus_t]}.converged_matches_mstar",
                f"{corpus_t}, V = {T['V']:,}, d = {T['d']}: trained QWEM at t_conv scores like svd(M*) on "
                "the same analogy questions, as the paper reports (65.1% ≈ 66.3%): the paired accuracy gap "
                "is not resolved to be larger than the paper's, |gap| ≤ 1.2 points + 0.1 (rounding) + "
                "1.96 paired bootstrap SE (over word pairs); 95% interval recorded with it",
                value=value,
                passed=within,
                tolerance=f"|gap| <= {abs(paper_gap) + ROUNDING:.3f} + 1.96 SE",
                paper=paper_gap,
                kind="finding",
            )
        else:
            _ = rep.check(
                f"qwem.paper_size.{TAG[corpus_t]}.authors_end_gap",
                f"{corpus_t}: the control — trained QWEM stopped at t_authors of this corpus against "
                "svd(M*) on the same analogy questions: paired gap, SE, 95% interval, and whether it meets "
                "the rule above",
                value=value | {"meets_rule": within},
                passed=True,
                tolerance="recorded",
                paper=paper_gap,
                kind="record",
            )

# %% [markdown]
# MEN and WS353, paired the same way and judged by the same rule (the paper: QWEM 0.755 against
# svd($M^\star$) 0.755 on MEN, 0.682 against 0.683 on WS353); the paired SE (printed) says how small a
# difference the test could have seen.

# %%
for corpus_t, S_ in SC.items():
    jq, jm = S_["names"].index("trained QWEM, t_conv"), S_["names"].index("svd(M*)")
    ja = S_["names"].index("trained QWEM, t_authors")
    for ds in ("men", "ws353"):
        rho_, draws_, n_ = S_["sim"][ds]
        pg = round(q.PAPER_FIG3B["QWEM"][ds] - q.PAPER_FIG3B["svd_mstar"][ds], 3)
        for which, j in (("t_conv", jq), ("t_authors", ja)):
            g_ = q.bootstrap_gap(rho_[j], rho_[jm], draws_[:, j], draws_[:, jm])
            gap_s, se_s, lo_s, hi_s = g_["gap"], g_["se"], g_["lo"], g_["hi"]
            value = {k: round(v, 5) for k, v in g_.items()}
            print(f"{corpus_t}, {ds}: ρ(QWEM, {which}) − ρ(svd(M*)) = {gap_s:+.4f}, paired SE {se_s:.4f}, "
                  f"95% [{lo_s:+.4f}, {hi_s:+.4f}] (paper {pg:+.3f})")  # fmt: skip
            if which == "t_conv":
                _ = rep.check(
                    f"qwem.paper_size.{TAG[corpus_t]}.{ds}_matches_mstar",
                    f"{corpus_t}: trained QWEM at t_conv has svd(M*)'s {ds.upper()} Spearman ρ, as in the "
                    f"paper (gap {pg:+.3f}): the paired difference is not resolved to be larger, |gap| ≤ "
                    "|paper gap| + 0.001 (rounding) + 1.96 paired bootstrap SE (over the similarity pairs)",
                    value=value,
                    passed=not_further(gap_s, pg, se_s),
                    tolerance=f"|gap| <= {abs(pg) + ROUNDING:.3f} + 1.96 SE",
                    paper=pg,
                    kind="finding",
                )
            else:
                _ = rep.check(
                    f"qwem.paper_size.{TAG[corpus_t]}.{ds}_authors_end_gap",
                    f"{corpus_t}: the control — {ds.upper()} ρ of trained QWEM stopped at t_authors minus "
                    "svd(M*)'s: paired gap, SE, 95% interval, and whether it meets the rule above",
                    value=value | {"meets_rule": not_further(gap_s, pg, se_s)},
                    passed=True,
                    tolerance="recorded",
                    paper=pg,
                    kind="record",
                )

# %% [markdown]
# **Along the run.** The embedding at any logged time is $Q\,U(t)S(t)$ up to a right rotation (which changes
# no cosine), so the analogy accuracy can be followed along the run. Figure 24.2 shows it beside the number
# of modes that have made their step, and the count Lemma 3.1 predicts from the eigenvalues alone
# ($\#\{k : \tau_k < t\}$).

# %%
CURVES = {}
for corpus_t, R in TR.items():
    items_t = SC[corpus_t]["items"]
    idx_c = sorted(R["curve_W"])
    CURVES[corpus_t] = (R["times"][idx_c], np.array([q.analogy_hits(R["curve_W"][i], items_t).mean()
                                                     for i in idx_c]))  # fmt: skip
fig, axes = plotting.figure(2, 1, width=6.8, height=2.9, sharex=True)
for ci, (corpus_t, R) in enumerate(TR.items()):
    col = f"C{ci}"
    tt, acc_c = CURVES[corpus_t]
    tau1 = R["tau"][0]
    axes[0].plot(tt / tau1, 100 * acc_c, "o-", color=col, ms=3, label=f"trained QWEM, {corpus_t}")
    axes[0].axhline(100 * SC[corpus_t]["hits"]["svd(M*)"].mean(), color=col, ls="--", lw=0.8,
                    label=f"svd($M^\\star$), {corpus_t}")  # fmt: skip
    learned = (R["sv"] ** 2 / R["lam"][: T["d"]] > 0.5).sum(axis=1)
    axes[1].plot(R["times"] / tau1, learned, color=col, label=f"measured, {corpus_t}")
    axes[1].plot(R["times"] / tau1, (R["tau"][None, :] < R["times"][:, None]).sum(axis=1), color=col,
                 ls=":", label=f"Lemma 3.1: $\\#\\{{k: \\tau_k < t\\}}$, {corpus_t}")  # fmt: skip
    for ax in axes:
        ax.axvline(R["t_auth"] / tau1, color=col, ls="-.", lw=0.8)
axes[0].set_ylabel("analogy accuracy (%)")
axes[1].set_ylabel(r"modes with $s_k^2 > \lambda_k/2$")
axes[1].set_xlabel(r"$t/\tau_1$ (each corpus's own $\tau_1$ at $\sigma^2 = 10^{-24}$)")
axes[0].set_xscale("log")
axes[0].set_xlim(left=0.3)
axes[0].set_title(f"Figure 24.2 — QWEM trained at V = {T['V']:,}, d = {T['d']} (noiseless GD)",
                  fontsize=10)  # fmt: skip
for ax in axes:
    ax.legend(fontsize=7, loc="upper left")
plt.show()

# %% [markdown]
# **Figure 24.2** — Top: analogy accuracy of QWEM's noiseless gradient descent along the run (dots), against
# svd($M^\star$)'s (dashed), per corpus. Bottom: how many of the $d$ modes have $s_k^2 > \lambda_k/2$
# (solid) and how many Lemma 3.1 says have passed their characteristic time $\tau_k$ (dotted). The
# dash-dotted verticals are $t_{\rm authors}$ (24.1) of each corpus; the runs end at $t_{\rm conv} = 2\tau_d$.

# %%
for corpus_t, R in TR.items():
    P_ = PAIRED[(corpus_t, "t_authors")]
    P2_ = PAIRED[(corpus_t, "t_conv")]
    prose(
        f"On {corpus_t}, the authors' schedule ends at $t$ = {R['t_auth'] / R['tau'][0]:.1f} $\\tau_1$ "
        f"by (24.1), when {R['n_learned_auth']} of the {T['d']} modes have made their step; there trained "
        f"QWEM answers {100 * SC[corpus_t]['hits']['trained QWEM, t_authors'].mean():.1f}% of the "
        f"analogies against svd($M^\\star$)'s {100 * SC[corpus_t]['hits']['svd(M*)'].mean():.1f}% (paired "
        f"gap {100 * P_['gap']:+.1f} points, 95% [{100 * P_['lo']:+.1f}, {100 * P_['hi']:+.1f}]). At "
        f"$t_{{\\rm conv}}$ = {R['t_conv'] / R['tau'][0]:.1f} $\\tau_1$ the gap is "
        f"{100 * P2_['gap']:+.2f} points (95% [{100 * P2_['lo']:+.2f}, {100 * P2_['hi']:+.2f}]; the paper: "
        f"{100 * paper_gap:+.1f})."
    )

# %% [markdown]
# **Figure 5 at $d = 200$.** The paper's measure over its 64 components, with the constant direction handled
# as in section 5: $\mathbf 1/\sqrt V$ projected out of every embedding, the diagonal share $D$ of the
# squared-overlap matrix over the first 63 features, against its random-rotation null. Trained QWEM (at
# $t_{\rm conv}$) against svd($M^\star$) and against svd(PPMI); gensim's untied SGNS against both as a
# reference (the paper's Figure 5 is about *tied* SGNS, not trained here).

# %%
S0 = SC[T["corpora"][0]]
k10 = min(T["n_overlap"], T["d"]) - 1
E10 = {name: q.without_constant(W) for name, W in S0["emb"].items()}
g_name = "gensim word2vec k=1 (untied; reference)"
pairs10 = [("trained QWEM, t_conv", "svd(M*)"), ("trained QWEM, t_conv", "svd(PPMI)"),
           (g_name, "svd(M*)"), (g_name, "svd(PPMI)")]  # fmt: skip
O10 = {p: q.eigen_overlap(E10[p[0]], E10[p[1]], k10) for p in pairs10}
D10 = {p: q.diagonal_dominance(O10[p]) for p in pairs10}
N10 = {p: np.quantile(diag_null(E10[p[0]], E10[p[1]], k10), 0.99) for p in pairs10}
M10 = {p: float(O10[p].sum() / k10) for p in pairs10}
for p in pairs10:
    print(f"{p[0]:>40s} vs {p[1]:<9s}: D = {D10[p]:.3f} (null 99th percentile {N10[p]:.3f}); "
          f"mean squared cosine {M10[p]:.3f}")  # fmt: skip
fig, axs = plotting.figure(2, 2, width=3.2, height=3.4)
for ax, p in zip(axs.ravel(), pairs10):
    im = ax.imshow(O10[p], vmin=0, vmax=1, cmap=plotting.CMAP)
    ax.grid(False)
    short = "QWEM" if p[0].startswith("trained") else "gensim"
    other = p[1].replace("M*", "$M^\\star$")
    plotting.label(ax, f"{short} vs {other}\n$D$ = {D10[p]:.2f}", f"$j$, {other}", f"$i$, {short}")
    ax.title.set_fontsize(9)
fig.colorbar(im, ax=axs, shrink=0.8, label=r"$(u_i \cdot u_j)^2$")
plotting.suptitle(
    fig,
    f"Figure 24.3 — Eigen-feature overlaps at V = {T['V']:,}, d = {T['d']}\n"
    f"({k10} features, $1/\\sqrt{{V}}$ projected out)",
    fontsize=10,
)
plt.show()

# %% [markdown]
# **Figure 24.3** — The paper's Figure 5 measure at its size, on the first corpus: squared overlaps
# $(u^a_i\cdot u^b_j)^2$ of the first 63 eigen-features after projecting out $\mathbf 1/\sqrt V$, with the
# diagonal share $D$. Top two: trained QWEM (noiseless, $t_{\rm conv}$) against svd($M^\star$) and
# svd(PPMI). Bottom two: gensim's untied word2vec ($k = 1$), a reference only.

# %%
pq_m, pq_p = pairs10[0], pairs10[1]
# the offset as its own difference: squared overlap of the first left singular vector (uncentred) with 1/√V
offset10 = {name: q.constant_overlap(S0["emb"][name]) for name in ("trained QWEM, t_conv", g_name)}
_ = rep.above(
    "qwem.paper_size.features_above_null",
    f"at V = {T['V']:,}, d = {T['d']} ({T['corpora'][0]}), trained QWEM's first {k10} eigen-features "
    "(1/√V projected out) are svd(M*)'s one to one and in order: diagonal share D above the 99th "
    "percentile of its random-rotation null",
    value=D10[pq_m],
    bound=float(N10[pq_m]),
    kind="finding",
)
_ = rep.ordered(
    "qwem.paper_size.features_mstar_not_ppmi",
    f"at V = {T['V']:,}, d = {T['d']}: trained QWEM orders its first {k10} eigen-features like svd(M*) "
    "more than like svd(PPMI) (D with 1/√V projected out)",
    names=["D(QWEM, M*)", "D(QWEM, PPMI)"],
    values=[D10[pq_m], D10[pq_p]],
    kind="finding",
)
_ = rep.check(
    "qwem.paper_size.gensim_features",
    f"reference, not the paper's tied SGNS: gensim word2vec (k = 1, untied) at V = {T['V']:,}, "
    f"d = {T['d']}: D against svd(M*) and svd(PPMI) over {k10} features (1/√V projected out), each with "
    "its null's 99th percentile",
    value={f"D(gensim, {p[1]})": round(D10[p], 4) for p in pairs10[2:]}
    | {f"null99(gensim, {p[1]})": round(float(N10[p]), 4) for p in pairs10[2:]}
    | {
        "offset overlap (gensim)": round(offset10[g_name], 4),
        "offset overlap (QWEM)": round(offset10["trained QWEM, t_conv"], 4),
    },  # fmt: skip
    passed=True,
    tolerance="recorded",
    kind="record",
)
prose(
    f"Over {k10} features with $\\mathbf 1/\\sqrt V$ projected out: D(QWEM, svd($M^\\star$)) = "
    f"{D10[pq_m]:.3f} (null 99th percentile {N10[pq_m]:.3f}), D(QWEM, svd(PPMI)) = {D10[pq_p]:.3f} "
    f"({N10[pq_p]:.3f}); gensim's untied SGNS: D = {D10[pairs10[2]]:.3f} against svd($M^\\star$) and "
    f"{D10[pairs10[3]]:.3f} against svd(PPMI) (nulls {N10[pairs10[2]]:.3f}, {N10[pairs10[3]]:.3f}). "
    f"The offset is a difference of its own: gensim's first singular vector has squared overlap "
    f"{offset10[g_name]:.3f} with $\\mathbf 1/\\sqrt V$, trained QWEM's "
    f"{offset10['trained QWEM, t_conv']:.4f} (a random direction: about 1/V = {1 / T['V']:.4f}). "
    f"This section took {time.time() - t_section:.0f} s."
)

# %% [markdown]
# ## 7 · Discussion
#
# Trained QWEM lands on svd($M^\star$): same subspace, same embedding up to a rotation, the same
# eigen-features in the same order. That is Theorem 1 plus Result 3 at work on data the model only saw as
# sampled pairs. SGNS is a different loss. Measured on the main diagonal with the constant direction
# left in, the *order* of its features is closer to PPMI's than to QWEM's; the reason is measured above:
# SGNS spends its first feature on a constant offset, which shifts its diagonal with QWEM by one (at
# $d \le 6$ that alone costs a large part of $D$), and PPMI's first feature is the Perron vector. With
# $\mathbf 1/\sqrt V$ projected out the comparison is made again against a random-rotation null (the
# printed numbers above). The offset itself is a real difference between SGNS and QWEM, not an artefact
# of the measure.
#
# At the paper's size (section 6) the QWEM half of the story holds without minibatch noise: trained to the
# converged end, QWEM is not resolved to be further from svd($M^\star$) than the paper's trained QWEM on
# analogies, MEN or WS353, and its leading eigen-features (1/√V projected out) are svd($M^\star$)'s one to
# one and in order, above the random-rotation null and above its overlap with svd(PPMI). Two things it
# cannot say. First,
# the paper's "< tied SGNS": tied SGNS at $V = 10{,}000$ is not trained here (no eigenbasis shortcut; hours
# with the full-space noiseless trainer; chapter 26 trains it at smaller $V$), and gensim's untied word2vec is
# only a reference. Second, the
# authors' *schedule* transferred to these corpora by (24.1) ends early: their normalisation divides by the
# mean of $M^{\star 2}$, which on a corpus of 17M or 70M tokens is dominated by never-seen pairs
# ($M^\star = -2$), so their 4M steps end before the last modes' step, with only part of the $d$ modes
# learned, and QWEM there scores below svd($M^\star$) (the numbers follow Figure 24.2). That is a statement
# about transferring their step count to a smaller corpus, not about their run on 2.0B tokens, where the
# norm is smaller and the run longer in units of $\tau_1$; the larger of the two corpora here already ends
# later in units of $\tau_1$ and with more modes learned.
#
# Differences from the paper in sections 1–5: $V$ and $d$ are 20 and 33 times smaller at the book preset (the estimator's
# variance grows like $V^4$, and its noise relative to the gradient more slowly but faster and faster with
# $V$: chapter 27 §1 measures both and the cost of a run), so the benchmarks cover few items; the paper's
# figure uses $d = 200$
# and 64 components, ours $\min(64, d)$; its SGNS and QWEM are trained for 4M steps on 2.0B tokens.

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
# 1. *(compute, ★★)* A rotation $O$ changes no cosine between rows of $W$. Check that every benchmark score of
#    svd($M^\star$) is unchanged by a random orthogonal $O$, and that its eigen-feature overlap with itself
#    is not: what does $(U^\top U O)^2$ look like, and why is the overlap of this chapter computed from the
#    singular vectors of $W$, not from its columns?
# 2. *(compute, ★)* What diagonal share $D$ does chance give? Draw two independent random $k$-dimensional subspaces of
#    $\mathbb R^V$ and compute $D$ of their overlap matrix, for this chapter's $k$ and $V$.

# %% [markdown]
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# The rows of $WO$ have the same inner products as those of $W$ ($OO^\top = I$), so every cosine, every
# analogy answer and every Spearman correlation is the same. The *columns* of $WO$ are mixtures of the
# columns of $W$, so an overlap computed from columns would look rotated; the left singular vectors of
# $WO$ are those of $W$ (the SVD absorbs $O$ into the right factor), so the eigen-feature overlap is
# unchanged. The cell checks both.
#
# </details>

# %%
rng = config.rng(24)
O_rand, _ = np.linalg.qr(rng.standard_normal((d, d)))
W_rot = Ws @ O_rand
sc_rot, sc_0 = q.evaluate_all(words, W_rot), scores["svd(M*)"]
diff = max(abs(sc_rot[b][0] - sc_0[b][0]) for b in BENCH)
col = (Ws / np.linalg.norm(Ws, axis=0)).T @ (W_rot / np.linalg.norm(W_rot, axis=0))
print(
    f"largest change of a score under rotation: {diff:.2e};  D of the singular-vector overlap: "
    f"{q.diagonal_dominance(q.eigen_overlap(Ws, W_rot)):.6f};  D of a column overlap: "
    f"{q.diagonal_dominance(col**2):.3f}"
)
rep.below(
    "qwem.learned.solution.1",
    "benchmark scores are invariant under W → WO (largest change of any score) and the singular-vector "
    "overlap of W with WO stays diagonal (1 − D)",
    value=max(diff, 1 - q.diagonal_dominance(q.eigen_overlap(Ws, W_rot))),
    bound=1e-6,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# For two independent random $k$-dimensional subspaces of $\mathbb R^V$, each squared overlap has mean
# $1/V$, so the matrix has no structure and its diagonal share is about $k/k^2 = 1/k$. The cell averages
# 50 draws.
#
# </details>

# %%
Ds = [
    q.diagonal_dominance(q.eigen_overlap(rng.standard_normal((V, k)), rng.standard_normal((V, k))))
    for _ in range(50)
]
print(
    f"mean D of random pairs: {np.mean(Ds):.3f} ± {np.std(Ds) / np.sqrt(50):.3f};  1/k = {1 / k:.3f}"
)
rep.close(
    "qwem.learned.solution.2",
    "chance level of the diagonal share: mean D of random subspace pairs ≈ 1/k",
    value=float(np.mean(Ds)),
    target=1 / k,
    tol=4 * float(np.std(Ds)) / np.sqrt(50) + 0.02,
    kind="consistency",
)
