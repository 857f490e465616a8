# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 14 · $M^\star$ and PMI (Appendix D.1)
#
# **Statement (Karkada et al. 2025, Appendix D.1).** With equal reweightings $\Psi^+ = \Psi^-$, the QWEM
# target is a monotone function of the pointwise mutual information
# $\mathrm{PMI}_{ij} = \log\frac{P_{ij}}{P_iP_j}$:
#
# $$\mathrm{PMI} = \log\frac{2 + M^\star}{2 - M^\star} = 2\,\mathrm{artanh}\frac{M^\star}{2}
#   = M^\star + \frac{M^{\star3}}{12} + \frac{M^{\star5}}{80} + \dots,
#   \qquad M^\star = 2\tanh\frac{\mathrm{PMI}}{2}. \tag{14.1}$$
#
# So $M^\star$ agrees with PMI to third order near zero, but it is confined to $[-2, 2]$ where PMI is not.
#
# **Intuition.** Both matrices measure how much more often two words co-occur than chance. PMI measures
# it on a log scale, which explodes for pairs that never co-occur ($-\infty$) and grows without bound for
# rare pairs seen together by luck. $M^\star$ is a *relative difference*
# $(P_{ij} - P_iP_j)/\text{mean}(P_{ij}, P_iP_j)$: for small deviations it is the same as the log ratio, for
# large ones it saturates. Truncating PMI gives poor embeddings (8.4% on analogies in the paper's Figure 3b table) while
# truncating $M^\star$ matches word2vec (66.3%). §4 measures why: as the authors compute it, PMI gives every
# never-seen pair a guard value near $-57.6$, and those entries dominate its spectrum.
#
# This chapter derives the relation with sympy, checks the series and its error bound, and looks at both
# matrices on real co-occurrence statistics.

# %%
import matplotlib.pyplot as plt
import numpy as np
import sympy as sp

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("14_mstar_vs_pmi")
# a size that changes with the preset: config.per_preset(smoke, book, paper)
S = config.knobs(
    corpus=config.per_preset("enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_70m"),
    V=config.per_preset(500, 2_000, 10_000),
    window=16,
    max_points=2_000_000,
)
print(S)

# %% [markdown]
# ## 1 · The derivation
#
# Take $\Psi^+_{ij} = \Psi^-_{ij}$ (any common value cancels) and write $r = P_{ij}/(P_iP_j)$ and
# $x = M^\star_{ij}$. Dividing numerator and denominator of $M^\star$ (10.1) by $P_iP_j$,
#
# $$x = \frac{2(r - 1)}{r + 1} \quad\Longleftrightarrow\quad r = \frac{2 + x}{2 - x} = 1 + \frac{2x}{2 - x}, \tag{14.2}$$
#
# so $\mathrm{PMI} = \log r = \log(2 + x) - \log(2 - x) = 2\,\mathrm{artanh}(x/2)$, which is (14.1). The Taylor series of
# $2\,\mathrm{artanh}(x/2)$ is $\sum_{k\ge0} \frac{x^{2k+1}}{4^k(2k+1)}$: only odd powers, coefficients
# $1, \frac1{12}, \frac1{80}, \frac1{448}, \dots$. Sympy does both steps.

# %%
x, r = sp.symbols("x r", real=True)
r_of_x = sp.solve(sp.Eq(x, 2 * (r - 1) / (r + 1)), r)
print("solve x = 2(r−1)/(r+1) for r:", r_of_x)
ok_solve = len(r_of_x) == 1 and sp.simplify(r_of_x[0] - (1 + 2 * x / (2 - x))) == 0
rep.check(
    "qwem.d1.ratio_from_mstar",
    "sympy: P_ij/(P_iP_j) = 1 + 2x/(2 − x) for x = M*_ij (equal reweightings)",
    value=str(r_of_x),
    passed=ok_solve,
    tolerance="exact (symbolic)",
    kind="finding",
)

# PMI = log r(x) and 2 artanh(x/2) have the same derivative on (−2, 2) and agree at x = 0
pmi_expr = sp.log(r_of_x[0])
d_diff = sp.simplify(sp.diff(pmi_expr, x) - sp.diff(2 * sp.atanh(x / 2), x))
at_zero = (pmi_expr - 2 * sp.atanh(x / 2)).subs(x, 0)
same = sp.simplify(d_diff) + sp.Abs(sp.simplify(at_zero))
print("d/dx [PMI − 2 artanh(x/2)] =", d_diff, "; value at x = 0:", sp.simplify(at_zero))
coeffs = q.pmi_series_coefficients(9)
print("series of log((2+x)/(2−x)):", " + ".join(f"({c})·x^{k}" for k, c in sorted(coeffs.items())))
expected = {2 * k + 1: sp.Rational(1, 4**k * (2 * k + 1)) for k in range(5)}
rep.check(
    "qwem.d1.pmi_is_2artanh",
    "sympy: log((2+x)/(2−x)) − 2 artanh(x/2) has zero derivative on (−2, 2) and vanishes at 0",
    value=str(same),
    passed=same == 0,
    tolerance="exact (symbolic)",
    kind="finding",
)
_ = rep.check(
    "qwem.d1.series_coefficients",
    "sympy: PMI = x + x³/12 + x⁵/80 + x⁷/448 + x⁹/2304 (coefficients 1/(4^k(2k+1)), no even powers)",
    value={k: str(c) for k, c in coeffs.items()},
    passed=coeffs == expected,
    tolerance="exact (symbolic)",
    kind="finding",
)
# %% [markdown]
# ## 2 · How good is the truncated series?
#
# Stop the series after the $x^{2K+1}$ term. The remainder is a sum of terms of one sign, each at most
# $x^2/4$ times the previous one, so
#
# $$\Big|2\,\mathrm{artanh}\tfrac{x}{2} - \sum_{k\le K}\frac{x^{2k+1}}{4^k(2k+1)}\Big|
#   \le \frac{|x|^{2K+3}}{4^{K+1}(2K+3)}\cdot\frac{1}{1 - x^2/4}\qquad(|x| < 2). \tag{14.3}$$
#
# We check the bound (14.3) on a fine grid of $|x| \le 1$ for $K = 0, 1, 2$, computing the error in 40-digit
# arithmetic (mpmath) so that float round-off does not swamp it near $x = 0$, and check that the bound is
# tight (the error at $|x| = 1$ is more than 80% of the bound), so it is not a vacuous inequality.

# %%
import mpmath

mpmath.mp.dps = 40  # the errors are computed in 40-digit arithmetic, free of float round-off


def series_error(xv, order):
    """|2 artanh(x/2) − Taylor polynomial to x^order| in 40-digit arithmetic."""
    out = []
    for xi in np.atleast_1d(xv):
        xm = mpmath.mpf(float(xi))
        poly = sum(
            xm ** (2 * k + 1) / (mpmath.mpf(4) ** k * (2 * k + 1))
            for k in range((order - 1) // 2 + 1)
        )
        out.append(float(abs(2 * mpmath.atanh(xm / 2) - poly)))
    return np.array(out)


xs = np.linspace(-1, 1, 2001)
for order in (1, 3, 5):
    err = series_error(xs, order)
    bound = q.mstar_series_remainder_bound(xs, order)
    print(
        f"order {order}: max error on |x| ≤ 1 = {err.max():.3e}; bound at |x| = 1: {bound.max():.3e}"
    )
    rep.check(
        f"qwem.d1.series_bound_order{order}",
        f"|2artanh(x/2) − series to x^{order}| ≤ remainder bound on |x| ≤ 1, and error/bound > 0.8 at x=1",
        value=float(err.max()),
        passed=bool(np.all(err <= bound) and err[-1] / bound[-1] > 0.8),
        tolerance=f"≤ bound (max bound {bound.max():.3e})",
        kind="consistency",
    )

fig, ax = plotting.figure()
xp = np.linspace(1e-3, 1.0, 400)
for i, order in enumerate((1, 3, 5)):
    c = plotting.PALETTE[i]
    ax.loglog(xp, series_error(xp, order), color=c, lw=2, label=f"error, series to $x^{order}$")
    ax.loglog(xp, q.mstar_series_remainder_bound(xp, order), "--", color=c, lw=1)
ax.plot([], [], "--", color="0.4", lw=1, label="remainder bound (dashed)")
plotting.label(
    ax,
    r"Truncating $2\,\mathrm{artanh}(x/2)$: error and bound",
    r"$x = M^\star_{ij}$",
    "absolute error",
)
ax.legend()
plt.show()

from scipy.optimize import brentq

x_1pct = brentq(lambda xx: q.pmi_from_mstar(xx) / xx - 1.01, 1e-3, 1.9)  # |PMI − M*| = 1% of |M*|
prose(
    f"PMI and $M^\\star$ differ by less than 1% of their value exactly when $|M^\\star| < {x_1pct:.3f}$ "
    "(the root of $2\\,\\mathrm{artanh}(x/2)/x = 1.01$)."
)
_ = rep.close(
    "qwem.d1.one_percent_radius",
    "|PMI − M*| < 1% of |M*| exactly for |M*| below the root of 2artanh(x/2)/x = 1.01; x³/12 alone would say √0.12",
    value=x_1pct,
    target=np.sqrt(0.12),
    tol=0.01,
    kind="consistency",
)

# %% [markdown]
# **Figure 14.1** — The error of the truncated series of PMI in powers of $x = M^\star$ (solid) and the
# remainder bound (dashed, nearly on top of the solid lines: the bound is tight), on log–log axes. The slopes are $3, 5, 7$: truncating after $x$ leaves an
# $x^3/12$ error, so $M^\star$ and PMI differ by less than 1% of their value for $|M^\star|$ below the radius printed
# above (slightly less than the $\sqrt{0.12}$ that $x^3/12$ alone would give, because of the $x^5/80$ term).
#
# ## 3 · Real co-occurrence statistics
#
# We build $P_{ij}$ and $P_i$ by the QWEM authors' protocol (`qwem_lib.cooccurrence`, chapter 20): the top
# $V$ words of the corpus, a window of 16 words on each side with weight $17 - j$ at distance $j$, counted
# in both directions, normalised to sum to one; $P_i$ is the unigram frequency over the top-$V$ words,
# renormalised. $M^\star$ comes from `qwem_lib.target_matrix` with $\Psi^+ = \Psi^- = 1$ (the same target as
# $1/(P_{ij} + P_iP_j)$) and PMI is $\log(P_{ij}/(P_iP_j))$, $-\infty$ for pairs never seen together.

# %%
words, P, p_uni = q.cooccurrence(S["corpus"], S["V"], window=S["window"])
V = len(words)
M = q.target_matrix(P, 1.0, 1.0, P_marginal=p_uni)
with np.errstate(divide="ignore"):
    PMI = np.log(P / np.outer(p_uni, p_uni))
zero = P == 0
print(
    f"{S['corpus']}, V = {V:,}: {zero.sum():,} of {V * V:,} pairs never co-occur ({zero.mean():.2%})"
)
print(
    f"M* in [{M.min():.4f}, {M.max():.4f}]; finite PMI in [{PMI[~zero].min():.2f}, {PMI[~zero].max():.2f}]"
)

rep.check(
    "qwem.d1.real_bounded",
    f"M* on {S['corpus']} (V={V}) lies in [−2, 2]",
    value=[float(M.min()), float(M.max())],
    passed=bool(M.min() >= -2 and M.max() <= 2),
    tolerance="[−2, 2]",
    kind="consistency",
)
rep.below(
    "qwem.d1.real_matches_corpus_stats",
    "target_matrix agrees with corpus_stats.mstar_from_stats (independent code) on the real matrix",
    value=np.max(np.abs(M - q.mstar_from_stats(P, p_uni))),
    bound=1e-12,
    kind="consistency",
)
rep.check(
    "qwem.d1.real_unseen_pairs",
    "pairs that never co-occur have M* = −2 exactly (and PMI = −∞)",
    value=int(zero.sum()),
    passed=bool(np.all(M[zero] == -2.0) and np.all(np.isneginf(PMI[zero]))),
    tolerance="exact",
    kind="consistency",
)
ident = np.max(np.abs(q.pmi_from_mstar(M[~zero]) - PMI[~zero]))
_ = rep.below(
    "qwem.d1.real_identity",
    "PMI = 2 artanh(M*/2) on every co-occurring pair (max abs difference)",
    value=ident,
    bound=1e-8,
    kind="consistency",
)
# %% [markdown]
# **Where they agree.** For $|M^\star| < 0.2$ the relative difference is at most
# $\frac{x^2/12}{1 - x^2/4}$ at $x = 0.2$ (printed below). We measure it on the real matrix, and ask how much of the
# co-occurrence *mass* lives there.

# %%
small = (np.abs(M) < 0.2) & (M != 0)
rel = np.abs(PMI[small] - M[small]) / np.abs(M[small])
bound_small = (0.2**2 / 12) / (1 - 0.2**2 / 4)
print(
    f"{small.mean():.1%} of pairs have |M*| < 0.2, carrying {P[small].sum():.1%} of the co-occurrence mass"
)
print(f"there, max |PMI − M*|/|M*| = {rel.max():.5f} (bound {bound_small:.5f})")
rep.below(
    "qwem.d1.real_small_agreement",
    "where |M*| < 0.2 on the real matrix, |PMI − M*| / |M*| stays below (0.2²/12)/(1 − 0.2²/4)",
    value=rel.max(),
    bound=bound_small,
    kind="consistency",
)
for thr in (0.5, 1.0, 1.5):
    sel = np.abs(M) >= thr
    print(f"|M*| ≥ {thr}: {sel.mean():6.1%} of pairs, {P[sel].sum():6.1%} of the mass")

# %% [markdown]
# **Where they differ: the rare-pair tail.** Two kinds of pairs fall outside the region of agreement.
#
# * *Pairs never seen together* ($P_{ij} = 0$): $M^\star = -2$ exactly, PMI $= -\infty$. In the authors' code
#   PMI gets a guard, $\log(P_{ij}/(P_iP_j) + 10^{-25}) \approx -57.6$, a value set by the guard, not the data.
# * *Rare pairs seen together a few times*: $P_iP_j$ is tiny, so PMI is large and noisy (a single extra
#   co-occurrence moves it by $\log 2$), while $M^\star = 2\tanh(\mathrm{PMI}/2)$ is already within a few
#   percent of its ceiling 2 and barely moves.
#
# We list the largest-PMI pairs (off the diagonal), check that $M^\star$ is saturated on the top 0.01% of
# them, and compare the sensitivity of the two to doubling $P_{ij}$.

# %%
iu = np.triu_indices(V, k=1)
pmi_u, m_u, p_u = PMI[iu], M[iu], P[iu]
top = np.argsort(np.where(np.isfinite(pmi_u), pmi_u, -np.inf))[::-1][:8]
print(f"{'pair':34s} {'PMI':>7s} {'M*':>8s}  P_ij")
for t in top:
    i, j = iu[0][t], iu[1][t]
    print(f"{words[i] + ' / ' + words[j]:34s} {pmi_u[t]:7.2f} {m_u[t]:8.4f}  {p_u[t]:.2e}")
fin = np.isfinite(pmi_u)
thr = np.quantile(pmi_u[fin], 0.9999)
high = fin & (pmi_u >= thr)
print(
    f"top 0.01% of co-occurring pairs: PMI ≥ {thr:.2f} ({high.sum():,} pairs); "
    f"their M* ranges over [{m_u[high].min():.4f}, {m_u[high].max():.4f}]"
)
rep.above(
    "qwem.d1.real_saturation",
    "the top 0.01% of word pairs by PMI have M* within 10% of its ceiling 2 (min M* over them > 1.8)",
    value=m_u[high].min(),
    bound=1.8,
    kind="record",
)
dpmi = np.log(2.0)  # doubling P_ij adds log 2 to PMI
dm = 2 * np.tanh((pmi_u[high] + dpmi) / 2) - m_u[high]
print(f"doubling their P_ij moves PMI by {dpmi:.3f} but M* by at most {dm.max():.4f}")
diag_pmi = np.diag(PMI)
print(
    f"(the diagonal — a word co-occurring with itself — reaches PMI = {diag_pmi[np.isfinite(diag_pmi)].max():.2f}; "
    "repeated words within a window are frequent in text, e.g. lists and names)"
)

# %%
rng = config.rng(14)
n_pts = int(fin.sum())
pick = rng.choice(n_pts, size=min(n_pts, S["max_points"]), replace=False)
px, py = m_u[fin][pick], pmi_u[fin][pick]
fig, axes = plotting.figure(1, 2)
ax = axes[0]
hb = ax.hexbin(px, py, gridsize=80, bins="log", cmap=plotting.CMAP, mincnt=1)
grid = np.linspace(-1.999, 1.999, 400)
ax.plot(
    grid,
    q.pmi_from_mstar(grid),
    color=plotting.PALETTE[1],
    lw=1.5,
    label=r"$2\,\mathrm{artanh}(x/2)$",
)
ax.plot(grid, grid, color="0.2", lw=1, ls="--", label="PMI = $M^\\star$")
ax.set_ylim(max(py.min(), -8), py.max() + 0.5)
fig.colorbar(hb, ax=ax, label="pairs per cell")
plotting.label(
    ax,
    f"PMI against $M^\\star$ ({S['corpus']}, V = {V:,})",
    r"$M^\star_{ij}$",
    r"$\mathrm{PMI}_{ij}$",
)
ax.legend(loc="upper left")
ax = axes[1]
bins = np.linspace(np.floor(pmi_u[fin].min()) - 0.5, np.ceil(pmi_u[fin].max()) + 0.5, 161)
ax.hist(pmi_u[fin], bins=bins, alpha=0.6, density=True, label="PMI (co-occurring pairs)")
ax.hist(m_u, bins=bins, alpha=0.6, density=True, label="$M^\\star$ (all pairs)")
ax.axvline(-2, color="0.3", lw=0.8, ls=":")
ax.axvline(2, color="0.3", lw=0.8, ls=":")
ax.set_yscale("log")
plotting.label(ax, "Distributions of the entries", "value", "density")
ax.legend()
plt.show()

# %% [markdown]
# **Figure 14.2** — Left: every co-occurring word pair of the real matrix (upper triangle) as a point
# (PMI, $M^\star$), binned in hexagons with a log colour scale. All of them lie on the curve
# $\mathrm{PMI} = 2\,\mathrm{artanh}(M^\star/2)$ (red); near the origin the curve follows the diagonal
# $\mathrm{PMI} = M^\star$ (dashed), and it runs off to $\pm\infty$ as $M^\star \to \pm 2$. Right: the
# histograms of the entries. $M^\star$ piles up against its walls at $\pm 2$ (dotted; the spike at $-2$ holds
# the pairs never seen together), while PMI has long tails on both sides — and the unseen pairs, at
# $-\infty$, cannot be drawn at all.
#
# ## 4 · Why svd(PMI) fails: the guard entries
#
# A finite matrix needs a value for the unseen pairs. The authors' code (repository `dkarkada/qwem`) computes
# $\mathrm{PMI} = \log\big(P_{ij}/(P_iP_j) + 10^{-25}\big)$, so every unseen pair gets $\log(10^{-25}) \approx -57.6$ — a number
# set by the guard, not by the data, and far larger in size than any genuine PMI value (§3 prints their range). The spectrum of a
# symmetric matrix is shaped by its largest entries. We measure how much of the guarded PMI's squared Frobenius
# norm (the sum of its squared eigenvalues) the guard entries carry, where its top eigenvector lives, and what the
# top-$d$ eigenspace looks like if the unseen pairs are set to 0 instead. The comparison is with $M^\star$'s top-$d$
# eigenspace (mean cosine of the principal angles), the embedding that works.

# %%
guard = 1e-25
PMI_guard = np.log(P / np.outer(p_uni, p_uni) + guard)
PMI_zero = np.where(zero, 0.0, PMI_guard)
share = float(np.sum(PMI_guard[zero] ** 2) / np.sum(PMI_guard**2))
d_cmp = max(10, V // 40)
lam_M, U_M = q.eig_desc(M)
lam_G, U_G = q.eig_desc(PMI_guard)
lam_Z, U_Z = q.eig_desc(PMI_zero)
cos_guard = float(np.mean(np.linalg.svd(U_M[:, :d_cmp].T @ U_G[:, :d_cmp], compute_uv=False)))
cos_zero = float(np.mean(np.linalg.svd(U_M[:, :d_cmp].T @ U_Z[:, :d_cmp], compute_uv=False)))
unseen_per_word = zero.sum(1)
rare_half = np.arange(V) >= V // 2  # ids are frequency ranks: the rarer half of the vocabulary
u1_rare = float(np.sum(U_G[rare_half, 0] ** 2))
u1_rare_M = float(np.sum(U_M[rare_half, 0] ** 2))  # the same share for M*'s top eigenvector
prose(
    f"The {zero.mean():.1%} of entries that are never-seen pairs carry **{share:.1%}** of the guarded PMI's squared "
    f"Frobenius norm. Its top eigenvalues are {np.array2string(lam_G[:3], precision=0)} against "
    f"{np.array2string(lam_M[:3], precision=1)} for $M^\\star$ and {np.array2string(lam_Z[:3], precision=1)} for PMI with "
    f"the unseen pairs set to 0. Its top eigenvector puts {u1_rare:.1%} of its weight on the rarer half of the "
    f"vocabulary (the words with most unseen pairs), against {u1_rare_M:.1%} for $M^\\star$'s. Mean cosine of the principal angles to $M^\\star$'s top-{d_cmp} "
    f"eigenspace: {cos_guard:.3f} for the guarded PMI, {cos_zero:.3f} with the unseen pairs set to 0."
)
rep.above(
    "qwem.d1.guard_frobenius_share",
    "the never-seen pairs, at the authors' guard value log(1e-25) ≈ −57.6, carry most of the guarded PMI's squared "
    "Frobenius norm (share > 0.9)",
    value=share,
    bound=0.9,
    kind="finding",
)
rep.ordered(
    "qwem.d1.guard_top_eigenvector_rare",
    "the guarded PMI's top eigenvector puts more of its weight on the rarer half of the vocabulary than M*'s "
    "top eigenvector does",
    names=["guarded PMI", "M*"],
    values=[u1_rare, u1_rare_M],
    kind="finding",
)
_ = rep.ordered(
    "qwem.d1.guard_drives_subspace",
    "setting the unseen pairs to 0 instead of −57.6 moves PMI's top-d eigenspace towards M*'s (mean cosine of "
    "principal angles: zeroed PMI > guarded PMI)",
    names=["PMI, unseen = 0", "PMI, unseen = −57.6"],
    values=[cos_zero, cos_guard],
    kind="finding",
)

# %% [markdown]
# **The direct test.** A share and a subspace angle are diagnostics; the claim that the guard causes the
# failure is tested by the benchmark itself. The same svd pipeline ($W = Q_{[d]}\Lambda_{[d]}^{1/2}$, $d$ as
# in chapter 21) on the guarded PMI and on PMI with its guard entries set to 0, scored on the Google
# analogies (pairs protocol): if the guard were not the cause, zeroing it would change little. The control
# is the guarded matrix itself, which must reproduce chapter 21's collapse at this $V$.

# %%
d_emb = min(200, V // 10)
acc_guard, n_an = q.analogy_accuracy(words, U_G[:, :d_emb] * np.sqrt(np.maximum(lam_G[:d_emb], 0)))[
    :2
]
acc_zero = q.analogy_accuracy(words, U_Z[:, :d_emb] * np.sqrt(np.maximum(lam_Z[:d_emb], 0)))[0]
acc_mstar = q.analogy_accuracy(words, U_M[:, :d_emb] * np.sqrt(np.maximum(lam_M[:d_emb], 0)))[0]
se_z = q.gap_se(acc_zero, acc_guard, n_an)
stmt_z = (
    f"V={V:,}, d={d_emb}: svd(PMI) with the guard entries set to 0 minus svd(PMI) with the guard, on "
    f"analogies, exceeds max(5 points, 3 SE = {3 * se_z:.3f})"
)
if n_an >= 100:
    _ = rep.above(
        "qwem.d1.zeroed_guard_lifts_pmi",
        stmt_z,
        value=acc_zero - acc_guard,
        bound=max(0.05, 3 * se_z),
        kind="finding",
    )
else:  # a few dozen analogies (the smoke preset's V) cannot resolve the gap: recorded, not asserted
    _ = rep.check(
        "qwem.d1.zeroed_guard_lifts_pmi",
        stmt_z + f" — not asserted: only n = {n_an} analogies at this V",
        value=acc_zero - acc_guard,
        passed=True,
        tolerance="recorded (n < 100)",
        kind="record",
    )
_ = rep.check(
    "qwem.d1.zeroed_guard_scores",
    f"V={V:,}, d={d_emb}: analogy accuracy of svd of the guarded PMI, the zeroed PMI and M* (n analogies)",
    value={
        "guarded PMI": acc_guard,
        "zeroed PMI": acc_zero,
        "M*": acc_mstar,
        "n": int(n_an),
    },
    passed=True,
    tolerance="recorded",
    kind="record",
)
prose(
    f"At $V$ = {V:,}, $d$ = {d_emb} ($n$ = {n_an:,} analogies): svd(PMI) with the guard scores "
    f"{100 * acc_guard:.1f}%, with the guard entries set to 0 {100 * acc_zero:.1f}% "
    f"({100 * (acc_zero - acc_guard):+.1f} ± {100 * se_z:.1f} points, one SE), and svd($M^\\star$) "
    f"{100 * acc_mstar:.1f}%."
)

# %% [markdown]
# So at this $V$ the failure of svd(PMI) in the benchmark (chapter 21) is the guard, not noise in rare
# co-occurring pairs and not "factorising the unconstrained optimum": the same truncated factorisation of the
# same PMI, without the guard values, works. The never-seen pairs make up nearly all of the guarded matrix's
# squared norm and its top eigenvectors describe *which rare words were never seen together*; $M^\star$ gives
# the same pairs the value $-2$, on the scale of every other entry. The share alone is no diagnosis, though:
# chapter 21 finds it near 100% at $V$ = 10,000 as well, where svd(PMI) does not collapse.
#
# ## Discussion
#
# * **Third-order agreement is not the point; the tails are.** Most of the co-occurrence *mass* sits
#   where the two agree, but the *spectrum* of a matrix is shaped by its large entries. In PMI as the authors
#   compute it, the largest entries by far are the guard values of never-seen pairs (§4); $M^\star$ maps the same
#   pairs to $-2$ and caps the rare co-occurring pairs at $+2$. Chapter 21 shows the consequence: svd(PMI) is a
#   poor embedding, svd($M^\star$) a good one.
# * PPMI ($\max(\mathrm{PMI}, 0)$) sets the guard entries to 0, which removes the dominant cause, but keeps the
#   unbounded rare-pair side; it scores between the two in the paper's Figure 3b table (50.6% on analogies against 66.3% for
#   $M^\star$ and 8.4% for PMI).
# * The bijection $M^\star = 2\tanh(\mathrm{PMI}/2)$ needs $\Psi^+ = \Psi^-$. With unequal reweightings
#   (for instance the "two negatives" ablation of the authors' code, chapter 10, $\Psi^- = 2\Psi^+$),
#   $M^\star = 2\tanh\big((\mathrm{PMI} - \log 2)/2\big)$: a shifted PMI, as in Levy and Goldberg's analysis of
#   word2vec with $k$ negatives.
# * Smoothing changes the picture: word2vec's $P_j^{3/4}$ negatives raise $P_iP_j$ for rare words and
#   soften the tail of PMI; it is one of the engineering tricks that QWEM's reweighting stands in for.

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
# 1. *(derive, ★★)* Show that with $\Psi^- = k\,\Psi^+$ the relation becomes $M^\star = 2\tanh\big((\mathrm{PMI} - \log k)/2\big)$.
#    Verify it numerically with `target_matrix` on the real matrix for $k = 5$.
# 2. *(derive, ★★)* Estimate the noise in PMI for a pair seen $n$ times, treating the count as Poisson. Compare it with the
#    noise in $M^\star$ (use the derivative of $2\tanh(\cdot/2)$). Does the ratio of the two depend on $n$? For
#    which pairs is the standard deviation of $M^\star$ ten times smaller than that of PMI?
# 3. *(compute, ★)* Replace PMI by $\log(P_{ij}/(P_iP_j) + \epsilon)$ for $\epsilon = 10^{-25}, 10^{-3}, 1$ and compare the
#    histograms with Figure 14.2. Which $\epsilon$ makes PMI look most like $M^\star$?
# 4. *(compute, ★)* Compute the top 10 eigenvalues of $M^\star$ and of PMI (with the authors' guard). Which entries
#    dominate the top eigenvector of PMI? (Look at the words with the largest components.)
#
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# With $\Psi^- = k\Psi^+$, divide numerator and denominator of $M^\star$ by $\Psi^+P_iP_j$: with $r = P_{ij}/(P_iP_j)$,
# $M^\star = 2\frac{r - k}{r + k} = 2\frac{r/k - 1}{r/k + 1} = 2\tanh\frac{\log(r/k)}{2} = 2\tanh\frac{\mathrm{PMI} - \log k}{2}$: a PMI shifted by $\log k$, as in
# Levy and Goldberg's analysis of word2vec with $k$ negatives. The cell checks it on the real matrix, $k = 5$.
#
# </details>

# %%
k_neg = 5.0
M_k = q.target_matrix(P, 1.0, k_neg, P_marginal=p_uni)
err_k = np.max(np.abs(M_k[~zero] - 2 * np.tanh((PMI[~zero] - np.log(k_neg)) / 2)))
_ = rep.below(
    "qwem.d1.solution.1.shifted_pmi",
    "exercise 1: with Ψ⁻ = 5Ψ⁺, M* = 2tanh((PMI − log 5)/2) on every co-occurring pair of the real matrix (max error)",
    value=err_k,
    bound=1e-10,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# If the count of a pair is Poisson with mean $n$, its relative standard deviation is $1/\sqrt n$, and so is the
# standard deviation of $\mathrm{PMI} = \log(\text{count}) + \text{const}$ (delta method). Since $M^\star = 2\tanh(\mathrm{PMI}/2)$ and
# $\frac{d}{dy}2\tanh(y/2) = 1 - \tanh^2(y/2) = 1 - M^{\star2}/4$, the standard deviation of $M^\star$ is $(1 - M^{\star2}/4)/\sqrt n$. The ratio
# $1 - M^{\star2}/4$ does **not** depend on $n$, only on where the pair sits: it is ten times smaller when $M^{\star2} \ge 3.6$,
# i.e. $|M^\star| \ge \sqrt{3.6}$, which is $|\mathrm{PMI}| \ge 2\,\mathrm{artanh}(\sqrt{3.6}/2)$ (computed below): pairs seen about $38$ times
# more (or less) often than chance. Frequent pairs near independence are as noisy in both; strongly associated
# rare pairs are tamed by $M^\star$.
#
# </details>

# %%
m_ten = np.sqrt(3.6)
pmi_ten = float(q.pmi_from_mstar(m_ten))
prose(
    f"Ratio 1/10 at |M*| = {m_ten:.4f}, i.e. |PMI| = {pmi_ten:.3f}, P_ij/(P_iP_j) = {np.exp(pmi_ten):.1f}."
)
_ = rep.close(
    "qwem.d1.solution.2.noise_ratio",
    "exercise 2: the derivative of 2tanh(y/2) at y = 2artanh(√3.6/2) is 1/10 (central difference)",
    value=(2 * np.tanh((pmi_ten + 1e-6) / 2) - 2 * np.tanh((pmi_ten - 1e-6) / 2)) / 2e-6,
    target=0.1,
    tol=1e-8,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# With $\epsilon = 10^{-25}$ the unseen pairs form a spike near $-57.6$, far outside every other entry. Larger $\epsilon$
# pulls the spike in: $\log(10^{-3}) \approx -6.9$ sits just beyond the genuine tail, and with $\epsilon = 1$ the matrix is
# $\log(1 + r)$, which maps unseen pairs to 0 and everything else to $(0, \infty)$ — bounded below like $M^\star$, though
# still unbounded above. Measured as the linear correlation with $M^\star$ over all pairs (the cell), $\epsilon = 1$ looks most
# like $M^\star$; all three are monotone in $r$, like $M^\star$, so only their scales differ.
#
# </details>

# %%
corr_eps = {}
for eps_ in (1e-25, 1e-3, 1.0):
    L_eps = np.log(P / np.outer(p_uni, p_uni) + eps_)
    corr_eps[eps_] = float(np.corrcoef(L_eps.ravel(), M.ravel())[0, 1])
prose(
    "Correlation with $M^\\star$ over all pairs: "
    + ", ".join(f"ε = {k_:g}: {v_:.3f}" for k_, v_ in corr_eps.items())
)
_ = rep.ordered(
    "qwem.d1.solution.3.epsilon_order",
    "exercise 3: the larger the guard ε, the more log(P_ij/(P_iP_j) + ε) correlates with M* over all pairs",
    names=["ε = 1", "ε = 1e-3", "ε = 1e-25"],
    values=[corr_eps[1.0], corr_eps[1e-3], corr_eps[1e-25]],
    kind="record",
)

# %% [markdown]
# <details><summary>Solution 4</summary>
#
# §4 computed both spectra (its printed output). The top eigenvalues of the guarded PMI are far larger than those of
# $M^\star$, and its top eigenvector puts more of its weight than $M^\star$'s on the rarer half of the vocabulary — the
# words with the most never-seen pairs, whose rows are full of $-57.6$. The cell lists the words with the largest
# components and their frequency ranks: they come mostly from the rare end of the vocabulary. They may also look like a topic
# (technical words, say); what they share is a pattern of rows with $-57.6$ on the same columns — the words they were
# never seen with.
#
# </details>

# %%
top_words = [words[i] for i in np.argsort(-np.abs(U_G[:, 0]))[:10]]
corr_unseen = float(np.corrcoef(U_G[:, 0] ** 2, unseen_per_word)[0, 1])
prose(
    f"Largest components of the guarded PMI's top eigenvector: {', '.join(top_words)}; frequency ranks "
    f"{sorted(int(i) for i in np.argsort(-np.abs(U_G[:, 0]))[:10])}. Correlation of its squared components with the "
    f"number of unseen pairs per word: {corr_unseen:.2f}."
)
_ = rep.above(
    "qwem.d1.solution.4.top_eigenvector_follows_unseen",
    "exercise 4: the squared components of the guarded PMI's top eigenvector correlate positively with each "
    "word's number of never-seen pairs",
    value=corr_unseen,
    bound=0.0,
    kind="record",
)
