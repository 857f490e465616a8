# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 20 · Corpus statistics, $M^\star$ and its spectrum
#
# Part I treated $P_{ij}$ and $P_i$ as given. Here we build them from real text, exactly as the QWEM
# authors do, and look at the matrix the theory says word2vec factorises:
#
# $$M^\star_{ij} = \frac{2\,(P_{ij} - P_iP_j)}{P_{ij} + P_iP_j}. \tag{20.1}$$
#
# (Theorem 1's target (10.1) with the worked reweighting $\Psi^\pm = 1/(P_{ij} + P_iP_j)$.)
#
# **Statement.** On English Wikipedia text, (i) word frequencies follow Zipf's law, (ii) the windowed
# co-occurrence table is symmetric, and on a stream with no gaps its row marginal is the unigram
# distribution up to edge effects of order $1/N$, (iii) $M^\star = 2\tanh(\mathrm{PMI}/2)$ entry by entry,
# and (iv) $M^\star$ is strongly indefinite: about half of its eigenvalues are negative (the paper counts
# 4,795 non-negative ones of $V = 10{,}000$), with one very negative eigenvalue. (How much of that
# eigenvalue the pairs never seen together supply is measured in section 4, not assumed.)
#
# **Intuition.** Most pairs of words among 10,000 never appear within 16 words of each other in a
# corpus of 17 million tokens. For those pairs $P_{ij}=0$ and $M^\star_{ij} = -2$ exactly, a large
# negative block. PMI would put $\log 10^{-25} \approx -57.6$ there instead; chapter 21 shows what that
# does to svd(PMI). The positive eigenvalues carry the semantic structure: their eigenvectors $q_k$
# are the *eigen-features* of the paper's Figure 3.

# %%
import time

import numpy as np
from tqdm import tqdm

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("20_corpus_statistics")
S = config.sizes(
    smoke=dict(
        corpus="enwiki2015_1m7",
        V=1_000,
        V_big=2_000,
        d=50,
        d_check=30,
        window=16,
        brute_tokens=5_000,
        n_features=4,
        article_V=300,
        article_tokens=100_000,
        articles=50,
        power_steps=100,
    ),
    book=dict(
        corpus="enwiki2015_17m",
        V=2_000,
        V_big=10_000,
        d=200,
        d_check=50,
        window=16,
        brute_tokens=20_000,
        n_features=6,
        article_V=500,
        article_tokens=400_000,
        articles=200,
        power_steps=100,
    ),
    paper=dict(
        corpus="enwiki2015_70m",
        V=10_000,
        V_big=10_000,
        d=200,
        d_check=50,
        window=16,
        brute_tokens=20_000,
        n_features=6,
        article_V=500,
        article_tokens=400_000,
        articles=200,
        power_steps=100,
    ),
)
print(S)
T_START = time.time()

# %% [markdown]
# ## 1. Tokens and Zipf's law
#
# The data layer (`qwem_lib.data`) turns the text into an array of token ids in which id $r$ is the word
# of frequency rank $r$. So "the top-$V$ words" is simply `ids < V`. Zipf's law says the count of the word
# of rank $r$ falls like $r^{-s}$ with $s \approx 1$: a straight line of slope $-s$ on log–log axes.

# %%
corpus = q.load_corpus(S["corpus"])
ds = q.data.dataset(S["corpus"])
ids = np.asarray(corpus.ids)
print(f"{corpus.name}: {corpus.n_tokens:,} tokens, {corpus.n_types:,} distinct words")
for V in sorted({1_000, 2_000, 10_000, q.STREAM_VOCAB, S["V"], S["V_big"]}):
    print(f"  top {V:>6,} words cover {(ids < V).mean():.1%} of the tokens")
rep.check(
    "qwem.corpus.token_count",
    "the tokenised corpus has the documented number of tokens",
    value=corpus.n_tokens,
    passed=corpus.n_tokens == ds.tokens,
    tolerance="exact",
    kind="consistency",
)
slope, intercept = q.zipf_fit(corpus.counts, lo=10, hi=10_000)
_ = rep.close(
    "qwem.corpus.zipf_slope",
    "Zipf: log-count vs log-rank slope over ranks 10..10,000 is near -1",
    value=slope,
    target=-1.0,
    tol=0.25,
    kind="consistency",
)

# %%
fig, ax = plotting.figure()
r = np.arange(1, corpus.n_types + 1)
ax.loglog(r, corpus.counts, color=plotting.PALETTE[0], lw=1.5, label="counts")
rr = np.array([10, 10_000])
ax.loglog(
    rr,
    np.exp(intercept) * rr**slope,
    "--",
    color=plotting.PALETTE[1],
    label=f"fit, slope {slope:.2f}",
)
for V in (2_000, 10_000):
    ax.axvline(V, color="grey", lw=0.8, ls=":")
plotting.label(
    ax, f"Rank–frequency of {corpus.name}", "frequency rank r", "count of the word of rank r"
)
_ = ax.legend()

# %% [markdown]
# **Figure 20.1** — Word counts against frequency rank (log–log). The dashed line is the least-squares fit
# over ranks 10 to 10,000; dotted lines mark $V$ = 2,000 and $V$ = 10,000. The straight stretch is Zipf's
# law.

# %% [markdown]
# ## 2. Windowed co-occurrence, by the authors' protocol
#
# For a centre token and the token $j$ places to its right ($1 \le j \le 16$), the pair gets weight
# $17-j$, and it is counted in both directions. Then
#
# $$P_{ij} = \frac{C_{ij}}{\sum_{kl} C_{kl}}, \qquad P_i = \frac{\mathrm{count}(i)}{\sum_{k<V}\mathrm{count}(k)} . \tag{20.2}$$
#
# **Out-of-vocabulary words.** The authors' corpus file keeps only the 20,000 most frequent words: every
# other token is removed *before* the windows are drawn. They count pairs on that stream and cut the
# $V\times V$ block afterwards, so a word ranked between $V$ and 20,000 keeps its window slot but forms no
# counted pair. This is `oov="authors"`, the library's default. The alternative `oov="drop"` removes
# everything outside the top $V$ before windowing (what gensim does with words outside its vocabulary):
# windows then close over many more gaps, and reach further.
#
# The counting in `qwem_lib.cooccurrence_counts` is one compiled pass (numba) over the token stream into a
# single integer table: positions are sorted by centre word, each thread owns a range of rows of equal token
# mass, and the table is symmetrised in place. We check it against a plain double loop on the first tokens,
# under the authors' rule.

# %%
in_stream = ids < q.STREAM_VOCAB
oov_share = {
    V: dict(authors=float(1 - in_stream.mean()), drop=float(1 - (ids < V).mean()))
    for V in (S["V"], S["V_big"])
}
prose(
    f"On {corpus.name} the authors' rule removes the {oov_share[S['V']]['authors']:.1%} of tokens "
    f"outside the top {q.STREAM_VOCAB:,} words, whatever $V$. The `drop` rule removes "
    f"{oov_share[S['V']]['drop']:.1%} of the tokens at $V$ = {S['V']:,} and "
    f"{oov_share[S['V_big']]['drop']:.1%} at $V$ = {S['V_big']:,}: at the smaller $V$ a window of 16 kept "
    f"tokens then spans about {16 / (1 - oov_share[S['V']]['drop']):.1f} original tokens on average."
)

# %%
t0 = time.time()
words, P, p_uni = q.cooccurrence(corpus, S["V"], window=S["window"])
print(f"co-occurrence at V={S['V']:,}: {time.time() - t0:.1f} s (cached after the first run)")
sub = ids[: S["brute_tokens"]]
fast = q.cooccurrence_counts(sub, S["V"], S["window"])
stream = sub[sub < q.STREAM_VOCAB]  # the authors' corpus file
slow = np.zeros((S["V"], S["V"]))
for j in tqdm(range(1, S["window"] + 1), desc="brute-force offsets", leave=False):
    for a, b in zip(stream[:-j], stream[j:]):  # the plain loop the compiled code replaces
        if a < S["V"] and b < S["V"]:  # cut the V x V block; ranks V..20,000 only hold their slots
            slow[a, b] += 17 - j
            slow[b, a] += 17 - j
rep.check(
    "qwem.corpus.counts_match_loop",
    f"compiled counts equal a plain loop on the first {S['brute_tokens']:,} tokens (authors' rule)",
    value=float(np.abs(fast - slow).max()),
    passed=bool(np.array_equal(fast, slow)),
    tolerance="exact",
    kind="consistency",
)
_ = rep.close(
    "qwem.corpus.P_normalised",
    "P_ij sums to one and is symmetric",
    value=abs(P.sum() - 1) + np.abs(P - P.T).max(),
    target=0.0,
    tol=1e-12,
    kind="consistency",
)

# %% [markdown]
# **Row marginal versus unigram.** On a stream without gaps in the counted block (the `drop` rule), a
# token in the middle of the stream has total weight $2\sum_{j=1}^{16}(17-j) = 272$ with its neighbours,
# so row $i$ of $C$ sums to $272\,\mathrm{count}(i)$ minus what the 16 tokens at each end miss,
# $2\sum_{j=1}^{16} j(17-j) = 1632$ in total. Hence
#
# $$\sum_i \Big|\sum_j P_{ij} - P_i\Big| \;\le\; \frac{2\cdot 1632}{272N - 1632} \approx \frac{12}{N},$$
#
# with $N$ the number of kept tokens. Under the authors' rule the pairs with a word ranked between $V$ and
# 20,000 are cut, and frequent words lose fewer of them than rare ones, so the row marginal is *not* the
# unigram distribution. That is one reason their code keeps $P_i$ and the row marginal apart (the other:
# their corpus is cut into articles, which adds two ends per article).

# %%
_, P_drop, _ = q.cooccurrence(corpus, S["V"], window=S["window"], oov="drop")
N_kept = int((ids < S["V"]).sum())
l1_drop = float(np.abs(P_drop.sum(1) - p_uni).sum())
l1_auth = float(np.abs(P.sum(1) - p_uni).sum())
edge_bound = 2 * 1632 / (272 * N_kept - 1632)
rep.below(
    "qwem.corpus.marginal_vs_unigram",
    "oov='drop': row marginal of P_ij and unigram P_i differ by at most the edge bound "
    "2*1632/(272N-1632) in l1",
    value=l1_drop,
    bound=edge_bound * (1 + 1e-6),
    kind="consistency",
)
prose(
    f"With `drop` the $\\ell_1$ distance is {l1_drop:.3g}, under the bound {edge_bound:.3g} "
    f"($N$ = {N_kept:,}). Under the authors' rule it is {l1_auth:.3f}: a real difference, not an edge "
    f"effect."
)
del P_drop

# %% [markdown]
# ## 3. From counts to $M^\star$, and $M^\star$ against PMI
#
# `qwem_lib.mstar_from_stats` builds $M^\star$ in row blocks (it needs only a few $V\times V$ arrays at
# $V=10{,}000$). Part I's general `target_matrix` with $\Psi^+=\Psi^-=1/(P_{ij}+P_iP_j)$ must give the
# same matrix. Dividing numerator and denominator of (20.1) by $P_iP_j$ shows the exact link with PMI,
# $x = \log\frac{P_{ij}}{P_iP_j}$:
#
# $$M^\star = \frac{2(e^x-1)}{e^x+1} = 2\tanh\frac{x}{2} = x - \frac{x^3}{12} + \dots \tag{20.3}$$
#
# So $M^\star \approx \mathrm{PMI}$ where $|x|$ is small, and $M^\star$ saturates at $\pm 2$ where PMI runs
# off to $\pm\infty$; (20.3) is chapter 14's (14.1) read backwards. Chapter 14 studies this series and its error in depth; here we only check the
# identity (20.3) on real counts (a check of the code: the identity is algebra) and look at where the real
# entries lie.

# %%
Mstar = q.mstar_from_stats(P, p_uni)
PMI = q.pmi_from_stats(P, p_uni)
psi = q.equal_reweighting(P, p_uni)
M_theory = q.target_matrix(P, psi, psi, P_marginal=p_uni)
del psi
rep.close(
    "qwem.corpus.mstar_matches_theory",
    "mstar_from_stats equals theory.target_matrix with Psi+ = Psi- = 1/(P_ij + P_iP_j)",
    value=float(np.abs(Mstar - M_theory).max()),
    target=0.0,
    tol=1e-12,
    kind="consistency",
)
del M_theory
seen = P > 0
rep.close(
    "qwem.corpus.mstar_tanh_pmi",
    "M* = 2 tanh(PMI/2) on every pair seen at least once",
    value=float(np.abs(Mstar[seen] - 2 * np.tanh(PMI[seen] / 2)).max()),
    target=0.0,
    tol=1e-10,
    kind="consistency",
)
f_unseen = 1 - seen.mean()
rep.check(
    "qwem.corpus.mstar_unseen",
    "pairs never seen together have M* = -2 exactly",
    value=float(f_unseen),
    passed=bool(np.all(Mstar[~seen] == -2.0)),
    tolerance="exact",
    kind="consistency",
)
x = PMI[seen]
prose(
    f"At $V$ = {S['V']:,}, {f_unseen:.1%} of the pairs never co-occur. Among the seen pairs "
    f"{np.mean(np.abs(x) < 1):.1%} have $|\\mathrm{{PMI}}| < 1$, where $M^\\star$ and PMI differ by at most "
    f"{1 - 2 * np.tanh(0.5):.3f}."
)

# %%
rng = config.rng(20)
pick = rng.choice(x.size, size=min(20_000, x.size), replace=False)
fig, ax = plotting.figure()
ax.scatter(
    x[pick],
    Mstar[seen][pick],
    s=2,
    alpha=0.3,
    color=plotting.PALETTE[0],
    label="word pairs (sample)",
)
xs = np.linspace(x.min(), x.max(), 400)
ax.plot(xs, 2 * np.tanh(xs / 2), color=plotting.PALETTE[1], label=r"$2\tanh(x/2)$")
ax.plot(xs, xs, ":", color="grey", label=r"$M^\star$ = PMI")
ax.set_ylim(-2.3, 2.3)
plotting.label(
    ax,
    rf"$M^\star$ against PMI on real counts (V = {S['V']:,})",
    "PMI = log(P_ij / P_iP_j)",
    r"$M^\star_{ij}$",
)
_ = ax.legend(loc="lower right")

# %% [markdown]
# **Figure 20.2** — Each dot is a word pair that co-occurs at least once. Every dot sits on the curve
# $2\tanh(x/2)$; $M^\star$ and PMI agree near zero and part ways beyond $|x|\approx 1$. Pairs never seen
# (not drawn) have $M^\star=-2$ and PMI $=\log 10^{-25}$.

# %% [markdown]
# ## 4. The spectrum of $M^\star$
#
# We write $M^\star = Q\Lambda Q^\top$ with eigenvalues $\lambda_1 \ge \lambda_2 \ge \dots$ and
# eigenvectors $q_k$; svd($M^\star$) keeps $Q_{[d]}$. How many eigenvalues are non-negative at all? By
# Sylvester's law of inertia, an $LDL^\top$ factorisation of $M^\star$ has the same numbers of positive
# and negative eigenvalues as $M^\star$, at a fraction of the cost of the eigenvalues themselves; we use it
# at $V = 10{,}000$ and check it against the full spectrum at the smaller $V$. The Rayleigh quotient of
# the constant vector bounds the smallest eigenvalue: $\lambda_V \le \frac{1}{V}\mathbf 1^\top M^\star
# \mathbf 1 = V\,\overline{M^\star}$, and the large share of $-2$ entries makes that mean negative.

# %%
lam_all, Q_all = np.linalg.eigh(Mstar)
lam_all, Q_all = lam_all[::-1], Q_all[:, ::-1]
n_nonneg = int((lam_all >= 0).sum())
rep.check(
    "qwem.spectrum.inertia_matches_eigh",
    f"LDL inertia count equals the eigenvalue count at V={S['V']:,}",
    value=n_nonneg,
    passed=q.count_nonnegative(Mstar) == n_nonneg,
    tolerance="exact",
    kind="consistency",
)
n_nonneg32 = q.count_nonnegative(Mstar.astype(np.float32))
rep.check(
    "qwem.spectrum.inertia_float32",
    f"the LDL inertia count in float32 equals the float64 eigenvalue count "
    f"at V={S['V']:,} (the precision used at V={S['V_big']:,})",
    value=n_nonneg32,
    passed=n_nonneg32 == n_nonneg,
    tolerance="exact",
    kind="consistency",
)
rep.check(
    "qwem.spectrum.lambda_min_rayleigh",
    "lambda_V <= V * mean(M*) (Rayleigh quotient of the ones vector)",
    value=dict(lambda_min=lam_all[-1], V_mean=S["V"] * Mstar.mean()),
    passed=bool(lam_all[-1] <= S["V"] * Mstar.mean()),
    tolerance="inequality",
    kind="consistency",
)
prose(
    f"At $V$ = {S['V']:,}: {n_nonneg:,} non-negative eigenvalues ({n_nonneg / S['V']:.1%}); the top three are "
    f"{', '.join(f'{v:.1f}' for v in lam_all[:3])} and the bottom three "
    f"{', '.join(f'{v:.1f}' for v in lam_all[-3:])}; $V\\,\\overline{{M^\\star}}$ = {S['V'] * Mstar.mean():.1f}."
)

# %% [markdown]
# **Who supplies the very negative eigenvalue?** Split $M^\star$ into its never-seen entries ($-2$) and the
# rest, and split both the Rayleigh bound $V\,\overline{M^\star}$ and the eigenvalue $\lambda_V =
# q_V^\top M^\star q_V$ the same way. If the unseen pairs *carried* the eigenvalue, their part would be
# most of it.

# %%
unseen_mask = P == 0
q_V = Q_all[:, -1]
lam_unseen = float(q_V @ np.where(unseen_mask, Mstar, 0.0) @ q_V)
mean_unseen = float(np.where(unseen_mask, Mstar, 0.0).sum() / S["V"])
_ = rep.check(
    "qwem.spectrum.unseen_share_of_lambda_min",
    f"V={S['V']:,}: share of the never-seen pairs in V*mean(M*) and in lambda_V = q_V^T M* q_V",
    value={
        "share of V*mean(M*)": mean_unseen / (S["V"] * Mstar.mean()),
        "share of lambda_V": lam_unseen / lam_all[-1],
        "unseen fraction of pairs": float(unseen_mask.mean()),
    },
    passed=True,
    tolerance="recorded",
    kind="record",
)
share_lam = lam_unseen / lam_all[-1]
prose(
    f"At $V$ = {S['V']:,} the never-seen pairs ({unseen_mask.mean():.1%} of the entries) supply "
    f"{mean_unseen / (S['V'] * Mstar.mean()):.0%} of $V\\,\\overline{{M^\\star}}$ and "
    f"{share_lam:.0%} of $\\lambda_V$: "
    + (
        "most of the very negative eigenvalue, on this corpus."
        if share_lam > 2 / 3
        else "part of it, not all: the rest comes from the many small negative entries of pairs that "
        "co-occur less often than independence predicts, so the eigenvalue is not *carried* by the unseen "
        "pairs alone."
    )
)

# %%
t0 = time.time()
_, Pb, pb = q.cooccurrence(corpus, S["V_big"], window=S["window"])
f_unseen_big = float((Pb == 0).mean())
Mstar_big = q.mstar_from_stats(Pb, pb, dtype=np.float32 if S["V_big"] > 5_000 else np.float64)
del Pb
t_count = time.time() - t0
t0 = time.time()
n_nonneg_big = q.count_nonnegative(Mstar_big)
t_inertia = time.time() - t0
frac = n_nonneg_big / S["V_big"]
rep.check(
    "qwem.spectrum.nonneg_fraction",
    f"M* at V={S['V_big']:,} is strongly indefinite: 40-60% of eigenvalues are non-negative",
    value=dict(count=n_nonneg_big, fraction=frac),
    passed=0.4 <= frac <= 0.6,
    tolerance="[0.4, 0.6]",
    paper="4,795 of 10,000 (0.480)",
    kind="finding",
)
prose(
    f"At $V$ = {S['V_big']:,}: {f_unseen_big:.1%} of the pairs never co-occur, and {n_nonneg_big:,} of the "
    f"{S['V_big']:,} eigenvalues are non-negative ({frac:.1%}; statistics {t_count:.0f} s, inertia "
    f"{t_inertia:.0f} s). The paper counts 4,795 of 10,000 on 2.0B tokens, a corpus "
    f"{2.0e9 / corpus.n_tokens:.0f} times larger. Both say the same thing: $M^\\star$ is far from positive "
    f"semidefinite, so its best rank-$d$ factorisation $WW^\\top$ can only ever capture the top of the "
    f"positive side."
)

# %%
lam_pmi = np.linalg.eigvalsh(PMI)[::-1]
PPMI = q.ppmi_from_stats(P, p_uni)
lam_ppmi, Q_ppmi = np.linalg.eigh(PPMI)
lam_ppmi, Q_ppmi = lam_ppmi[::-1], Q_ppmi[:, ::-1]
fig, axes = plotting.figure(1, 2, width=5.2)
k = np.arange(1, S["V"] + 1)
for lam, name, c in ((lam_all, r"$M^\star$", 0), (lam_ppmi, "PPMI", 2), (lam_pmi, "PMI", 1)):
    axes[0].plot(k, lam / np.abs(lam).max(), color=plotting.PALETTE[c], label=name)
axes[0].set_yscale("symlog", linthresh=1e-3)
axes[0].axvline(S["d"], color="grey", ls=":", lw=0.8)
plotting.label(
    axes[0],
    r"Whole spectrum (scaled by $\max|\lambda|$)",
    "index k (descending)",
    r"$\lambda_k / \max|\lambda|$",
)
axes[0].legend()
axes[1].semilogy(
    k[: 2 * S["d"]], lam_all[: 2 * S["d"]], color=plotting.PALETTE[0], label=r"$M^\star$"
)
axes[1].semilogy(k[: 2 * S["d"]], lam_ppmi[: 2 * S["d"]], color=plotting.PALETTE[2], label="PPMI")
axes[1].axvline(S["d"], color="grey", ls=":", lw=0.8)
plotting.label(axes[1], "Top of the spectrum", "index $k$", r"$\lambda_k$")
_ = axes[1].legend()

# %% [markdown]
# **Figure 20.3** — Eigenvalues of $M^\star$, PPMI and PMI at the chapter's $V$ (2,000 at the book preset),
# in descending order; the dotted line marks $d$. Left: the whole spectrum on a symmetric-log scale, each
# scaled by its largest magnitude. PMI's spectrum is dominated by one huge negative eigenvalue from the
# $\log 10^{-25}$ entries; $M^\star$'s negative side is bounded because its entries are. Right: the
# positive top that svd keeps.

# %% [markdown]
# ## 5. A fast eigensolver, checked
#
# A dense eigendecomposition of a $10{,}000\times 10{,}000$ matrix takes minutes on a laptop. We only need
# the top $d = 200$ eigenpairs. `qwem_lib.top_eigenpairs(method="krylov")` builds a *block Krylov* space
# $[X, M^\star X, (M^\star)^2X, \dots]$ from a block $X$ of $d + p$ vectors and solves the small projected
# problem (Rayleigh–Ritz). It then restarts from the best Ritz vectors, locks every pair whose residual
# $\lVert M^\star u - \theta u\rVert$ is below $\mathrm{tol}\cdot\lVert M^\star\rVert_2$ (tol $= 10^{-4}$ in
# float32), and warns if it cannot get there. Two details matter for $M^\star$. It keeps the largest
# *algebraic* Ritz values, so it is not fooled by $M^\star$'s very negative eigenvalue (exercise 4 shows
# power iteration failing). And it keeps that negative eigenvector in every restart, which removes it from
# the polynomial's job: the top converges as if the spectrum ended near its second most negative value.
# We check it in float32 against the exact float64 eigenpairs: these are checks of the solver. At the
# larger $V$ we take the eigenpairs from `spectral_embeddings` (the svd($M^\star$) embedding of chapter 21,
# which uses block Krylov on a CPU and is cached), read $\lambda_k$ off the squared column norms of $W$, and
# measure the residuals against $\lVert M^\star\rVert_2 = |\lambda_{\min}|$, computed separately.

# %%
lam_k, Q_k = q.top_eigenpairs(Mstar.astype(np.float32), S["d_check"], method="krylov")
rel = np.abs(lam_k - lam_all[: S["d_check"]]) / lam_all[: S["d_check"]]
rep.below(
    "qwem.spectrum.krylov_eigenvalues",
    f"float32 block Krylov: top-{S['d_check']} eigenvalues within 1e-4 (relative) of float64 eigh",
    value=float(rel.max()),
    bound=1e-4,
    kind="consistency",
)
ov = q.subspace_overlap(Q_k, Q_all[:, : S["d_check"]])
rep.above(
    "qwem.spectrum.krylov_subspace",
    f"float32 block Krylov: top-{S['d_check']} subspace overlap with eigh",
    value=ov,
    bound=0.99,
    kind="consistency",
)
t0 = time.time()
# svd(M*) of chapter 21 (cached by inputs): W = Q_[d] Λ_[d]^{1/2}, by block Krylov on a CPU at V > 3,000
words_big, W_big = q.spectral_embeddings(corpus, S["V_big"], S["d"], "mstar")
dt_k = time.time() - t0
lam_b = (W_big.astype(np.float64) ** 2).sum(axis=0)  # the columns of W have squared norms λ_k
Q_b = W_big / np.sqrt(lam_b).astype(W_big.dtype)
Qb = Q_b.astype(Mstar_big.dtype)
res = np.linalg.norm(Mstar_big @ Qb - Qb * lam_b.astype(Mstar_big.dtype), axis=0)
del Qb
lam_min_big = -q.top_eigenpairs(-Mstar_big, 1, method="krylov")[0][0]  # ||M*||_2 = |λ_min| here
norm_big = max(abs(lam_min_big), lam_b[0])
rep.below(
    "qwem.spectrum.krylov_residual_big",
    f"block Krylov at V={S['V_big']:,}, d={S['d']}: max residual ||M*q - λq|| / ||M*||_2 within the "
    "solver's stated tolerance 1e-4",
    value=float(res.max() / norm_big),
    bound=1e-4,
    kind="consistency",
)
prose(
    f"At $V$ = {S['V_big']:,} and $d$ = {S['d']} the solver took {dt_k:.0f} s (or no time, from the cache): "
    f"$\\lambda_1$ = {lam_b[0]:.1f}, $\\lambda_{{{S['d']}}}$ = {lam_b[-1]:.1f}, "
    f"$\\lVert M^\\star\\rVert_2$ = {norm_big:,.0f}. The largest residual is {res.max() / norm_big:.1e} "
    f"$\\lVert M^\\star\\rVert_2$, that is {np.max(res / lam_b):.1e} of the eigenvalue it belongs to "
    "(the last, nearly degenerate pairs converge slowest)."
)

# %% [markdown]
# ## 6. Eigen-features: what the top eigenvectors encode
#
# Each eigenvector $q_k$ assigns a number to every word. Listing the words with the largest and the
# smallest entries shows what contrast it encodes (the paper's Figure 3 does this for its model). The sign
# of an eigenvector is arbitrary; we orient each so its largest entry is positive. We read the lists among
# the 4,000 most frequent words, as the authors do.

# %%
feats = q.eigen_features(words_big, Q_b[:, : S["n_features"]], k=10, top_words=4_000)
for n, (hi, lo) in enumerate(feats, start=1):
    print(f"q_{n} (λ = {lam_b[n - 1]:.0f})\n   + {' '.join(hi)}\n   - {' '.join(lo)}")

# %%
prose(
    f"At this preset ({corpus.name}, $V$ = {S['V_big']:,}) the first eigenvector sets "
    f"*{', '.join(feats[0][0][:5])}* against *{', '.join(feats[0][1][:5])}*, and the second "
    f"*{', '.join(feats[1][0][:5])}* against *{', '.join(feats[1][1][:5])}*. Each list is a topic, and "
    f'each eigenvector a contrast between two topics. These are the "features" that the QWEM dynamics '
    f"learn one at a time (chapters 12–13): each step in the loss curve adds one of these contrasts to the "
    f"embedding."
)

# %% [markdown]
# ## Discussion

# %%
prose(f"""* The statistics follow the authors' rules in everything we could check, with two differences of
  data: our corpus is one stream (no article boundaries) and has {corpus.n_tokens / 1e6:.1f}M tokens rather
  than 2.0B. The smaller corpus leaves many pairs unseen ({f_unseen:.1%} at $V$ = {S["V"]:,},
  {f_unseen_big:.1%} at $V$ = {S["V_big"]:,}), which pushes $M^\\star$ towards its $-2$ floor and PMI towards
  $\\log 10^{{-25}}$.
* The out-of-vocabulary rule matters: `drop` removes {oov_share[S["V"]]["drop"]:.0%} of the tokens at
  $V$ = {S["V"]:,} before windowing, the authors' rule {oov_share[S["V"]]["authors"]:.0%}. Chapter 21 shows
  what each does to the benchmark table.
* Non-negative eigenvalues: paper 4,795 of 10,000; this book {n_nonneg_big:,} of {S["V_big"]:,}. The
  agreement in *kind* (about half) is the point; the exact count depends on the corpus.
* The top eigenpairs need no dense decomposition: block Krylov in float32 matches float64 to the
  tolerances checked above, and makes svd($M^\\star$) at $V = {S["V_big"]:,}$ a matter of {dt_k:.0f} s here.
* This chapter ran in {(time.time() - T_START) / 60:.1f} minutes (less when the statistics are cached).""")

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
# 1. *(compute, ★)* Change the window weighting to flat (`weighting="flat"` in `cooccurrence`). How does the share of
#    unseen pairs change, and the count of non-negative eigenvalues at the chapter's $V$?
# 2. *(derive, ★★★)* Redo the edge-effect bound for a stream cut into $A$ articles (windows do not cross article ends) under
#    the `drop` rule. How many tokens must an article have on average for $P_i$ and the row marginal to
#    agree to 1% in $\ell_1$? Check the bound by cutting the first tokens of the corpus into articles.
# 3. *(derive, ★★)* Using $M^\star = 2\tanh(x/2)$, show that $|M^\star - \mathrm{PMI}| \le |x|^3/12$. What fraction of
#    the seen pairs at the chapter's $V$ satisfies $|x|<1$?
# 4. *(compute, ★★)* Plain power iteration converges to the eigenvalue of largest *magnitude*. Show on $M^\star$ at the
#    larger $V$ that it returns the negative outlier $\lambda_V$, and explain why block Krylov does not.
# 5. *(compute, ★)* Print the eigen-features of PPMI's top eigenvectors and compare them with $M^\star$'s.

# %% [markdown]
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# A pair is *seen* when the two words ever share a window, whatever weight that window gives them; all
# weights $17-j$ are positive, so the set of unseen pairs, hence its share, cannot change. The values of
# the seen entries do change (flat weights give distant neighbours as much weight as close ones, which
# makes $P_{ij}$ less peaked), and so does the spectrum; the cell below counts the non-negative
# eigenvalues under both weightings.
#
# </details>

# %%
_, P_flat, _ = q.cooccurrence(corpus, S["V"], window=S["window"], weighting="flat")
rep.check(
    "qwem.corpus.solution.1_unseen_same",
    "flat and linear weighting leave the same pairs unseen",
    value=float((P_flat == 0).mean()),
    passed=bool(np.array_equal(P_flat == 0, ~seen)),
    tolerance="exact",
    kind="consistency",
)
n_flat = q.count_nonnegative(q.mstar_from_stats(P_flat, p_uni))
del P_flat
prose(
    f"Unseen share: {f_unseen:.2%} under both weightings. Non-negative eigenvalues at $V$ = {S['V']:,}: "
    f"{n_nonneg:,} (linear) against {n_flat:,} (flat)."
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# Each article is its own stream: its row sums miss 1632 weight units at its two ends, whatever its
# length (if it has more than 16 tokens). With $A$ articles and $N$ kept tokens in all,
# $\sum_{ij} C_{ij} = 272N - 1632A$ and the $\ell_1$ distance between the row marginal and $P_i$ is at most
#
# $$\frac{2\cdot 1632\,A}{272N - 1632A} \approx \frac{12A}{N}.$$
#
# For 1% we need $12A/N \le 0.01$, so $N/A \ge 1{,}200$ kept tokens per article on average (with a bit of
# slack for the denominator: $N/A \ge 1{,}206$). The authors keep only articles of at least 500 tokens:
# 1.58M articles and 2.0B tokens, about 1,270 tokens per article on average before the words outside their
# top 20,000 are removed, and fewer after — near the 1,206 needed, so on their corpus the row marginal and
# $P_i$ differ by about the 1% bound. Their code does not rely on the two agreeing: it takes $P_i$ as the
# renormalised unigram frequency, not the row marginal of $P_{ij}$ (chapter 20's protocol). The cell below
# cuts the first tokens of the corpus into equal articles, counts within each article, and checks the
# bound.
#
# </details>

# %%
Va = S["article_V"]
arts = np.array_split(ids[: S["article_tokens"]], S["articles"])
C_art = sum(q.cooccurrence_counts(a, Va, S["window"], oov="drop") for a in arts)
kept_art = np.concatenate([a[a < Va] for a in arts])
p_art = np.bincount(kept_art, minlength=Va) / kept_art.size
l1_art = float(np.abs(C_art.sum(1) / C_art.sum() - p_art).sum())
A, N_art = len(arts), kept_art.size
bound_art = 2 * 1632 * A / (272 * N_art - 1632 * A)
rep.below(
    "qwem.corpus.solution.2_article_bound",
    f"{A} articles, V={Va}, drop rule: l1(row marginal, unigram) <= 2*1632*A/(272N - 1632A)",
    value=l1_art,
    bound=bound_art * (1 + 1e-6),
    kind="consistency",
)
prose(
    f"{A} articles of about {N_art / A:.0f} kept tokens: $\\ell_1$ = {l1_art:.4f}, bound {bound_art:.4f} "
    f"($\\approx 12A/N$ = {12 * A / N_art:.4f}). One article needs about 1,200 tokens for 1%."
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# Let $u = x/2 \ge 0$. For $u \ge 0$, $u - u^3/3 \le \tanh u \le u$: the function $h(u) = \tanh u - u +
# u^3/3$ has $h(0) = 0$ and $h'(u) = -\tanh^2 u + u^2 \ge 0$ because $\tanh u \le u$; and $\tanh u \le u$
# because $(\tanh u - u)' = -\tanh^2 u \le 0$. Multiplying by 2: $x - x^3/12 \le 2\tanh(x/2) \le x$, i.e.
# $0 \le x - M^\star \le x^3/12$. Both sides are odd in $x$, so $|M^\star - \mathrm{PMI}| \le |x|^3/12$
# for every $x$. At $|x| < 1$ the error is below $1/12 \approx 0.083$ (the exact worst case is
# $1 - 2\tanh(1/2) \approx 0.076$).
#
# </details>

# %%
err = np.abs(Mstar[seen] - x)
rep.check(
    "qwem.corpus.solution.3_cubic_bound",
    "|M* - PMI| <= |PMI|^3/12 on every seen pair",
    value=float(np.max(err - np.abs(x) ** 3 / 12)),
    passed=bool(np.all(err <= np.abs(x) ** 3 / 12 + 1e-12)),
    tolerance="inequality (+1e-12)",
    kind="consistency",
)
prose(f"At $V$ = {S['V']:,}, {np.mean(np.abs(x) < 1):.1%} of the seen pairs have $|x| < 1$.")

# %% [markdown]
# <details><summary>Solution 4</summary>
#
# Power iteration multiplies a vector by $M^\star$ again and again; the component along $q_k$ grows like
# $|\lambda_k|^t$, so the iterate turns towards the eigenvector of largest $|\lambda_k|$. For $M^\star$
# that is the negative outlier $\lambda_V$, whose magnitude exceeds $\lambda_1$ (printed in section 4).
# Block Krylov builds the same powers but does not *take* the last iterate: it solves the eigenproblem
# projected on the whole span $[B, M^\star B, \dots]$ and keeps the largest *algebraic* Ritz values, so
# the negative outlier is found, recognised as negative, and discarded.
#
# </details>

# %%
v = config.rng(21).standard_normal(S["V_big"]).astype(Mstar_big.dtype)
for _ in range(S["power_steps"]):
    v = Mstar_big @ v
    v /= np.linalg.norm(v)
rayleigh = float(v @ (Mstar_big @ v))
resid = float(np.linalg.norm(Mstar_big @ v - rayleigh * v) / abs(rayleigh))
rep.check(
    "qwem.corpus.solution.4_power_finds_negative",
    f"{S['power_steps']} power-iteration steps on M* (V={S['V_big']:,}) converge to an eigenpair "
    f"(relative residual < 1e-3) whose eigenvalue is negative and larger in magnitude than lambda_1",
    value=dict(rayleigh=rayleigh, residual=resid, lambda_1=float(lam_b[0])),
    passed=bool(resid < 1e-3 and rayleigh < 0 and abs(rayleigh) > lam_b[0]),
    tolerance="residual 1e-3",
    kind="consistency",
)
prose(
    f"Power iteration ends at $\\lambda_V \\approx$ {rayleigh:.0f}, while $\\lambda_1$ = {lam_b[0]:.0f}."
)

# %% [markdown]
# <details><summary>Solution 5</summary>
#
# The cell prints PPMI's top eigen-features at the chapter's $V$ next to $M^\star$'s, and the overlap of
# the two top-$k$ eigenspaces. Both matrices agree where $x > 0$ up to the $\tanh$ squashing, but PPMI's
# floor is 0 rather than $-2$: "these words are never or rarely seen together" counts for nothing in PPMI
# and for a lot in $M^\star$. Expect the lists to share topics but not to match one for one; the overlap
# says how far apart the two top eigenspaces are.
#
# </details>

# %%
nf = S["n_features"]
for name, Qx in (("M*", Q_all), ("PPMI", Q_ppmi)):
    for n, (hi, lo) in enumerate(q.eigen_features(words, Qx[:, :nf], k=8), start=1):
        print(f"{name} q_{n}: + {' '.join(hi)}\n          - {' '.join(lo)}")
ov_feat = q.subspace_overlap(Q_all[:, :nf], Q_ppmi[:, :nf])
prose(
    f"Overlap of the top-{nf} eigenspaces of $M^\\star$ and PPMI at $V$ = {S['V']:,}: {ov_feat:.2f} "
    f"(1 = the same space)."
)
