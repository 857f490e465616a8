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
# closed forms svd($M^\star$), svd(PPMI), svd(PMI) (chapter 21's library calls, cached).

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
# direction in which most rows move together); an earlier version of this paragraph blamed the $P^{0.75}$
# negatives, which the balance above rules out at first order. Whether the offset survives at
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
def centred(X):
    X = np.asarray(X, dtype=np.float64)
    return X - X.mean(axis=0, keepdims=True)


k_c = max(1, k - 1)
E_c = {name: centred(X) for name, X in E.items()}
rng_null = config.rng(24)


def diag_null(A, B, kk, n=200):
    """Diagonal shares of (U_Aᵀ U_B R)² for Haar-random rotations R of B's first kk features."""
    Ua = np.linalg.svd(A, full_matrices=False)[0][:, :kk]
    Ub = np.linalg.svd(B, full_matrices=False)[0][:, :kk]
    out = []
    for _ in range(n):
        Z = rng_null.normal(size=(kk, kk))
        Qr, Rr = np.linalg.qr(Z)
        out.append(q.diagonal_dominance((Ua.T @ (Ub @ (Qr * np.sign(np.diag(Rr))))) ** 2))
    return np.array(out)


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
# ## 6 · Discussion
#
# Trained QWEM lands on svd($M^\star$): same subspace, same embedding up to a rotation, the same
# eigen-features in the same order. That is Theorem 1 plus Result 3 at work on data the model only saw as
# sampled pairs. SGNS is a different loss. Measured on the main diagonal with the constant direction
# left in, the *order* of its features is closer to PPMI's than to QWEM's; the reason is measured above:
# SGNS spends its first feature on a constant offset, which shifts its diagonal with QWEM by one (at
# $d \le 6$ that alone costs a large part of $D$), and PPMI's first feature is the Perron vector. With
# $\mathbf 1/\sqrt V$ projected out the comparison is made again against a random-rotation null (the
# printed numbers above). The offset itself is a real difference between SGNS and QWEM, not an artefact
# of the measure. What this chapter cannot say is how the picture looks at the paper's $d = 200$ with 64
# components: that needs SGNS trained at $V = 10{,}000$, $d = 200$.
#
# Differences from the paper: $V$ and $d$ are 20 and 33 times smaller at the book preset (the estimator's
# variance grows like $V^4$, and its noise relative to the gradient more slowly but faster and faster with
# $V$: chapter 23 §7 measures both and the cost of a run), so the benchmarks cover few items; the paper's
# figure uses $d = 200$
# and 64 components, ours $\min(64, d)$; its SGNS and QWEM are trained for 4M steps on 2.0B tokens.

# %% [markdown]
# ## Exercises
#
# 1. A rotation $O$ changes no cosine between rows of $W$. Check that every benchmark score of
#    svd($M^\star$) is unchanged by a random orthogonal $O$, and that its eigen-feature overlap with itself
#    is not: what does $(U^\top U O)^2$ look like, and why is the overlap of this chapter computed from the
#    singular vectors of $W$, not from its columns?
# 2. What diagonal share $D$ does chance give? Draw two independent random $k$-dimensional subspaces of
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
