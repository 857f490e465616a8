# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 20 · Corpus statistics, M* and its spectrum
#
# Part I treated $P_{ij}$ and $P_i$ as given. Here we build them from real text, exactly as the QWEM
# authors do, and look at the matrix the theory says word2vec factorises:
#
# $$M^\star_{ij} = \frac{2\,(P_{ij} - P_iP_j)}{P_{ij} + P_iP_j}.$$
#
# **Statement.** On English Wikipedia text, (i) word frequencies follow Zipf's law, (ii) the windowed
# co-occurrence table is symmetric and its row marginal is the unigram distribution up to edge effects of
# order $1/N$, (iii) $M^\star = 2\tanh(\mathrm{PMI}/2)$ entry by entry, and (iv) $M^\star$ is strongly
# indefinite: about half of its eigenvalues are negative (the paper counts 4,795 non-negative ones of
# 10,000), with one very negative eigenvalue carried by the pairs never seen together.
#
# **Intuition.** Most pairs of words among 10,000 never appear within 16 words of each other in a
# corpus of 17 million tokens. For those pairs $P_{ij}=0$ and $M^\star_{ij} = -2$ exactly, a large
# negative block. PMI would put $\log 10^{-25} \approx -57.6$ there instead; that is why svd(PMI)
# behaves so badly (chapter 21). The positive eigenvalues carry the semantic structure: their eigenvectors
# are the *eigen-features* of the paper's Figure 3.

# %%
import time

import numpy as np
from tqdm import tqdm

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.report import Report

plotting.use_style()
rep = Report("20_corpus_statistics")
S = config.sizes(
    smoke=dict(corpus="enwiki2015_1m7", V=1_000, V_big=2_000, d=50, d_check=30, window=16, brute_tokens=5_000,
               n_features=4),
    book=dict(corpus="enwiki2015_17m", V=2_000, V_big=10_000, d=200, d_check=50, window=16, brute_tokens=20_000,
              n_features=6),
    paper=dict(corpus="enwiki2015_70m", V=10_000, V_big=10_000, d=200, d_check=50, window=16,
               brute_tokens=20_000, n_features=6),
)
print(S)

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
for V in sorted({1_000, 2_000, 10_000, S["V"], S["V_big"]}):
    print(f"  top {V:>6,} words cover {(ids < V).mean():.1%} of the tokens")
rep.check("qwem.corpus.token_count", "the tokenised corpus has the documented number of tokens",
          value=corpus.n_tokens, passed=corpus.n_tokens == ds.tokens, tolerance="exact")
slope, intercept = q.zipf_fit(corpus.counts, lo=10, hi=10_000)
rep.close("qwem.corpus.zipf_slope", "Zipf: log-count vs log-rank slope over ranks 10..10,000 is near -1",
          value=slope, target=-1.0, tol=0.25)

# %%
fig, ax = plotting.figure()
r = np.arange(1, corpus.n_types + 1)
ax.loglog(r, corpus.counts, color=plotting.PALETTE[0], lw=1.5, label="counts")
rr = np.array([10, 10_000])
ax.loglog(rr, np.exp(intercept) * rr ** slope, "--", color=plotting.PALETTE[1],
          label=f"fit, slope {slope:.2f}")
for V in (2_000, 10_000):
    ax.axvline(V, color="grey", lw=0.8, ls=":")
plotting.label(ax, f"Rank–frequency of {corpus.name}", "frequency rank r", "count of the word of rank r")
ax.legend()

# %% [markdown]
# **Figure 20.1** — Word counts against frequency rank (log–log). The dashed line is the least-squares fit
# over ranks 10 to 10,000; dotted lines mark V = 2,000 and V = 10,000. The straight stretch is Zipf's law.

# %% [markdown]
# ## 2. Windowed co-occurrence, by the authors' protocol
#
# For a centre token and the token $j$ places to its right ($1 \le j \le 16$), the pair gets weight
# $17-j$, and it is counted in both directions. Out-of-vocabulary tokens are dropped before the windows
# are drawn (the authors' code does this, and so does gensim). Then
#
# $$P_{ij} = \frac{C_{ij}}{\sum_{kl} C_{kl}}, \qquad P_i = \frac{\mathrm{count}(i)}{\sum_{k<V}\mathrm{count}(k)} .$$
#
# The counting in `qwem_lib.cooccurrence_counts` is one `np.bincount` of the keys $aV+b$ per offset $j$.
# We check it against a plain double loop on the first tokens.
#
# **Row marginal versus unigram.** A token in the middle of the stream has total weight
# $2\sum_{j=1}^{16}(17-j) = 272$ with its neighbours, so row $i$ of $C$ sums to $272\,\mathrm{count}(i)$
# minus what the 16 tokens at each end miss, $2\sum_{j=1}^{16} j(17-j) = 1632$ in total. Hence
#
# $$\sum_i \Big|\sum_j P_{ij} - P_i\Big| \;\le\; \frac{2\cdot 1632}{272N - 1632} \approx \frac{12}{N},$$
#
# with $N$ the number of kept tokens. The authors' corpus is cut into articles, which adds two ends per
# article; that is why their code keeps $P_i$ and the row marginal apart.

# %%
t0 = time.time()
words, P, p_uni = q.cooccurrence(corpus, S["V"], window=S["window"])
print(f"co-occurrence at V={S['V']:,}: {time.time() - t0:.1f} s (cached after the first run)")
sub = ids[: S["brute_tokens"]]
fast = q.cooccurrence_counts(sub, S["V"], S["window"])
kept = sub[sub < S["V"]]
slow = np.zeros((S["V"], S["V"]))
for j in tqdm(range(1, S["window"] + 1), desc="brute-force offsets", leave=False):
    for a, b in zip(kept[:-j], kept[j:]):  # the plain loop the vectorised code replaces
        slow[a, b] += 17 - j
        slow[b, a] += 17 - j
rep.check("qwem.corpus.counts_match_loop",
          f"vectorised counts equal a plain loop on the first {S['brute_tokens']:,} tokens",
          value=float(np.abs(fast - slow).max()), passed=bool(np.array_equal(fast, slow)), tolerance="exact")
rep.close("qwem.corpus.P_normalised", "P_ij sums to one and is symmetric",
          value=abs(P.sum() - 1) + np.abs(P - P.T).max(), target=0.0, tol=1e-12)
N_kept = int((ids < S["V"]).sum())
l1 = float(np.abs(P.sum(1) - p_uni).sum())
rep.below("qwem.corpus.marginal_vs_unigram",
          "row marginal of P_ij and unigram P_i differ by at most the edge bound 2*1632/(272N-1632) in l1",
          value=l1, bound=2 * 1632 / (272 * N_kept - 1632) * (1 + 1e-6))
print(f"l1 distance {l1:.3g}; bound {2 * 1632 / (272 * N_kept - 1632):.3g}; N = {N_kept:,}")

# %% [markdown]
# ## 3. From counts to M*, and M* against PMI
#
# `qwem_lib.mstar_from_stats` builds $M^\star$ in row blocks (it needs only a few $V\times V$ arrays at
# $V=10{,}000$). Part I's general `target_matrix` with $\Psi^+=\Psi^-=1/(P_{ij}+P_iP_j)$ must give the
# same matrix. Dividing numerator and denominator by $P_iP_j$ shows the exact link with PMI,
# $x = \log\frac{P_{ij}}{P_iP_j}$:
#
# $$M^\star = \frac{2(e^x-1)}{e^x+1} = 2\tanh\frac{x}{2} = x - \frac{x^3}{12} + \dots$$
#
# So $M^\star \approx \mathrm{PMI}$ where $|x|$ is small, and $M^\star$ saturates at $\pm 2$ where PMI runs
# off to $\pm\infty$. Chapter 14 studies this series and its error in depth; here we only check the
# identity on real counts and look at where the real entries lie.

# %%
M = q.mstar_from_stats(P, p_uni)
PMI = q.pmi_from_stats(P, p_uni)
psi = q.equal_reweighting(P, p_uni)
M_theory = q.target_matrix(P, psi, psi, P_marginal=p_uni)
del psi
rep.close("qwem.corpus.mstar_matches_theory",
          "mstar_from_stats equals theory.target_matrix with Psi+ = Psi- = 1/(P_ij + P_iP_j)",
          value=float(np.abs(M - M_theory).max()), target=0.0, tol=1e-12)
del M_theory
seen = P > 0
rep.close("qwem.corpus.mstar_tanh_pmi", "M* = 2 tanh(PMI/2) on every pair seen at least once",
          value=float(np.abs(M[seen] - 2 * np.tanh(PMI[seen] / 2)).max()), target=0.0, tol=1e-10)
f_unseen = 1 - seen.mean()
rep.check("qwem.corpus.mstar_unseen", "pairs never seen together have M* = -2 exactly",
          value=float(f_unseen), passed=bool(np.all(M[~seen] == -2.0)), tolerance="exact")
x = PMI[seen]
print(f"V={S['V']:,}: {f_unseen:.1%} of pairs never co-occur; among seen pairs {np.mean(np.abs(x) < 1):.1%} "
      f"have |PMI| < 1 (where M* and PMI agree within {2 * np.tanh(0.5) - 1:+.3f})")

# %%
rng = config.rng(20)
pick = rng.choice(x.size, size=min(20_000, x.size), replace=False)
fig, ax = plotting.figure()
ax.scatter(x[pick], M[seen][pick], s=2, alpha=0.3, color=plotting.PALETTE[0], label="word pairs (sample)")
xs = np.linspace(x.min(), x.max(), 400)
ax.plot(xs, 2 * np.tanh(xs / 2), color=plotting.PALETTE[1], label=r"$2\tanh(x/2)$")
ax.plot(xs, xs, ":", color="grey", label="M* = PMI")
ax.set_ylim(-2.3, 2.3)
plotting.label(ax, f"M* against PMI on real counts (V = {S['V']:,})", "PMI = log(P_ij / P_iP_j)", "M*_ij")
ax.legend(loc="lower right")

# %% [markdown]
# **Figure 20.2** — Each dot is a word pair that co-occurs at least once. Every dot sits on the curve
# $2\tanh(x/2)$; M* and PMI agree near zero and part ways beyond $|x|\approx 1$. Pairs never seen
# (not drawn) have M* $=-2$ and PMI $=\log 10^{-25}$.

# %% [markdown]
# ## 4. The spectrum of M*
#
# svd(M*) keeps the top-$d$ eigenvectors. How many eigenvalues are positive at all? By Sylvester's law of
# inertia, an $LDL^\top$ factorisation of $M^\star$ has the same numbers of positive and negative
# eigenvalues as $M^\star$, at a fraction of the cost of the eigenvalues themselves; we use it at
# $V = 10{,}000$ and check it against the full spectrum at the smaller $V$. The Rayleigh quotient of the
# constant vector bounds the smallest eigenvalue: $\lambda_{\min} \le \frac{1}{V}\mathbf 1^\top M^\star
# \mathbf 1 = V\,\overline{M^\star}$, and the large share of $-2$ entries makes that mean very negative.

# %%
lam_all, U_all = np.linalg.eigh(M)
lam_all, U_all = lam_all[::-1], U_all[:, ::-1]
n_nonneg = int((lam_all >= 0).sum())
rep.check("qwem.spectrum.inertia_matches_eigh", f"LDL inertia count equals the eigenvalue count at V={S['V']:,}",
          value=n_nonneg, passed=q.count_nonnegative(M) == n_nonneg, tolerance="exact")
rep.check("qwem.spectrum.lambda_min_rayleigh", "lambda_min <= V * mean(M*) (Rayleigh quotient of the ones vector)",
          value=dict(lambda_min=lam_all[-1], V_mean=S["V"] * M.mean()),
          passed=bool(lam_all[-1] <= S["V"] * M.mean()), tolerance="inequality")
print(f"V={S['V']:,}: {n_nonneg:,} non-negative eigenvalues; top {lam_all[:3].round(1)}, bottom {lam_all[-3:].round(1)}")

t0 = time.time()
_, Pb, pb = q.cooccurrence(corpus, S["V_big"], window=S["window"])
Mb = q.mstar_from_stats(Pb, pb, dtype=np.float32 if S["V_big"] > 5_000 else np.float64)
print(f"V={S['V_big']:,}: {(Pb == 0).mean():.1%} of pairs never co-occur")
del Pb
n_nonneg_big = q.count_nonnegative(Mb.astype(np.float64) if Mb.dtype != np.float64 else Mb)
print(f"V={S['V_big']:,}: {n_nonneg_big:,} non-negative eigenvalues ({time.time() - t0:.0f} s)")
frac = n_nonneg_big / S["V_big"]
rep.check("qwem.spectrum.nonneg_fraction",
          f"M* at V={S['V_big']:,} is strongly indefinite: 40-60% of eigenvalues are non-negative",
          value=dict(count=n_nonneg_big, fraction=frac), passed=0.4 <= frac <= 0.6, tolerance="[0.4, 0.6]",
          paper="4,795 of 10,000 (0.480)")

# %% [markdown]
# The paper's count is 4,795 of 10,000 on 2.0B tokens; the book preset's corpus is 120 times smaller and
# gives the number printed above (4,913 of 10,000 on enwiki2015_17m when this chapter was last run).
# Both say the same thing: M* is far from positive semidefinite, so its best rank-$d$ factorisation
# $WW^\top$ can only ever capture the top of the positive side.

# %%
lam_pmi = np.linalg.eigvalsh(PMI)[::-1]
lam_ppmi = np.linalg.eigvalsh(q.ppmi_from_stats(P, p_uni))[::-1]
fig, axes = plotting.figure(1, 2, width=5.2)
k = np.arange(1, S["V"] + 1)
for lam, name, c in ((lam_all, "M*", 0), (lam_ppmi, "PPMI", 2), (lam_pmi, "PMI", 1)):
    axes[0].plot(k, lam / np.abs(lam).max(), color=plotting.PALETTE[c], label=name)
axes[0].set_yscale("symlog", linthresh=1e-3)
axes[0].axvline(S["d"], color="grey", ls=":", lw=0.8)
plotting.label(axes[0], "Whole spectrum (scaled by max |λ|)", "index k (descending)", "λ_k / max|λ|")
axes[0].legend()
axes[1].semilogy(k[: 2 * S["d"]], lam_all[: 2 * S["d"]], color=plotting.PALETTE[0], label="M*")
axes[1].semilogy(k[: 2 * S["d"]], lam_ppmi[: 2 * S["d"]], color=plotting.PALETTE[2], label="PPMI")
axes[1].axvline(S["d"], color="grey", ls=":", lw=0.8)
plotting.label(axes[1], "Top of the spectrum", "index k", "λ_k")
axes[1].legend()

# %% [markdown]
# **Figure 20.3** — Eigenvalues of M*, PPMI and PMI at the chapter's V (2,000 at the book preset), in
# descending order; the dotted
# line marks $d$. Left: the whole spectrum on a symmetric-log scale, each scaled by its largest
# magnitude. PMI's spectrum is dominated by one huge negative eigenvalue from the $\log 10^{-25}$ entries;
# M*'s negative side is bounded because its entries are. Right: the positive top that svd keeps.

# %% [markdown]
# ## 5. A fast eigensolver, checked
#
# A dense eigendecomposition of a $10{,}000\times 10{,}000$ matrix takes minutes on a laptop. We only need
# the top $d = 200$ eigenpairs. `qwem_lib.top_eigenpairs(method="krylov")` builds a randomized *block
# Krylov* space $[Q, MQ, M^2Q, \dots]$ and solves the small projected problem (Rayleigh–Ritz). Unlike
# plain power iteration it is not fooled by M*'s very negative eigenvalue, because it keeps the largest
# *algebraic* Ritz values. We check it in float32 against the exact float64 eigenpairs.

# %%
lam_k, U_k = q.top_eigenpairs(M.astype(np.float32), S["d_check"], method="krylov")
rel = np.abs(lam_k - lam_all[: S["d_check"]]) / lam_all[: S["d_check"]]
rep.below("qwem.spectrum.krylov_eigenvalues",
          f"float32 block Krylov: top-{S['d_check']} eigenvalues within 1e-4 (relative) of float64 eigh",
          value=float(rel.max()), bound=1e-4)
ov = q.subspace_overlap(U_k, U_all[:, : S["d_check"]])
rep.above("qwem.spectrum.krylov_subspace", f"float32 block Krylov: top-{S['d_check']} subspace overlap with eigh",
          value=ov, bound=0.99)
t0 = time.time()
lam_b, U_b = q.top_eigenpairs(Mb, S["d"], method="krylov")
dt_k = time.time() - t0
res = np.linalg.norm(Mb @ U_b.astype(Mb.dtype) - U_b.astype(Mb.dtype) * lam_b.astype(Mb.dtype), axis=0) / lam_b
rep.below("qwem.spectrum.krylov_residual_big",
          f"block Krylov at V={S['V_big']:,}, d={S['d']}: median relative residual ||Mu - λu||/λ",
          value=float(np.median(res)), bound=0.02)
print(f"V={S['V_big']:,}, d={S['d']}: {dt_k:.0f} s; λ_1 = {lam_b[0]:.1f}, λ_d = {lam_b[-1]:.1f}; residuals "
      f"median {np.median(res):.2g}, max {res.max():.2g} (the last few, nearly degenerate ones converge slowest)")

# %% [markdown]
# ## 6. Eigen-features: what the top eigenvectors encode
#
# Each eigenvector of M* assigns a number to every word. Listing the words with the largest and the
# smallest entries shows what contrast it encodes (the paper's Figure 3 does this for its model). The sign
# of an eigenvector is arbitrary; we orient each so its largest entry is positive. We read the lists among
# the 4,000 most frequent words, as the authors do.

# %%
feats = q.eigen_features(words if S["V_big"] == S["V"] else corpus.vocab(S["V_big"]), U_b[:, : S["n_features"]],
                         k=10, top_words=4_000)
for n, (hi, lo) in enumerate(feats, start=1):
    print(f"eigenvector {n} (λ = {lam_b[n - 1]:.0f})\n   + {' '.join(hi)}\n   - {' '.join(lo)}")

# %% [markdown]
# At the book preset (enwiki2015_17m, V = 10,000) the first eigenvector sets scientific and technical
# words (*properties, processes, molecules, particles*) against biographical narrative (*son, brother,
# king, wife, died*); the next ones contrast geography with philosophy, government with popular music,
# software with antiquity, violence with language and education, nature with mathematics. These are the
# "features" that the QWEM dynamics learn one at a time (chapters 12–13): each step in the loss curve adds
# one of these contrasts to the embedding.
#
# ## Discussion
#
# * The statistics are the authors' in every rule we could check, with two differences of data: our
#   corpus is one stream (no article boundaries) and 17M tokens rather than 2.0B. The smaller corpus
#   leaves many pairs unseen (printed above: at the book preset 6% at V = 2,000 and about 72% at
#   V = 10,000), which pushes M* towards its $-2$ floor
#   and PMI towards $\log 10^{-25}$.
# * Non-negative eigenvalues: paper 4,795 of 10,000; this book the number printed above. The agreement in
#   *kind* (about half) is the point; the exact count depends on the corpus.
# * The top eigenpairs need no dense decomposition: block Krylov in float32 matches float64 to the
#   tolerances checked above, and makes svd(M*) at $V=10{,}000$ a matter of a minute on two CPU cores.
#
# ## Exercises
#
# 1. Change the window weighting to flat (`weighting="flat"` in `cooccurrence_counts`). How does the
#    share of unseen pairs change, and the count of non-negative eigenvalues?
# 2. Redo the edge-effect bound for a corpus cut into $A$ articles. How large must articles be for
#    $P_i$ and the row marginal to agree to 1% in $\ell_1$?
# 3. Using $M^\star = 2\tanh(x/2)$, show that $|M^\star - \mathrm{PMI}| \le |x|^3/12$. What fraction of
#    the seen pairs at $V=2{,}000$ satisfies $|x|<1$?
# 4. Plain subspace (power) iteration converges to the eigenvalues of largest *magnitude*. Show on M* at
#    $V=2{,}000$ that it returns the negative outlier first, and explain why block Krylov does not.
# 5. Print eigen-features of PPMI's top eigenvectors and compare them with M*'s.
