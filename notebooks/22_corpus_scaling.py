# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 22 · How the scores move with corpus size
#
# The paper reports its benchmark table for one corpus, 2.0B tokens; chapter 21 rebuilt it on 17M tokens.
# How much of the difference between the two tables is corpus size? Here we hold everything else fixed and run
# the same methods on three nested corpora — the first 1.7M, 17M and all 70M tokens of the same
# Wikipedia dump — at $V$ = 2,000 and $V$ = 10,000, with the authors' out-of-vocabulary rule (chapter 20).
#
# **Statement.** (i) As the corpus grows, fewer word pairs are unseen, and (ii) svd($M^\star$)'s analogy
# accuracy rises. (iii) At every size svd($M^\star$) beats svd(PMI) on analogies. (iv) On the largest
# corpus, 70M tokens, we test the paper's ordering svd($M^\star$) > svd(PPMI) > svd(PMI), which 17M tokens
# did not resolve (chapter 21).
#
# **Intuition.** Every statistic here is an average over windows. With $N$ tokens, a pair of words of
# frequencies $P_i$, $P_j$ is expected to co-occur about $32\,N P_i P_j$ times under independence (32
# context slots per token, Solution 2); its *weighted* count, with the weights $17 - j$ of chapter 20, is
# about $272\,N P_i P_j$ (weight 272 per token), 8.5 times more. Below about one expected co-occurrence,
# $32\,N P_i P_j \lesssim 1$, the estimate of $P_{ij}$ is mostly zero or noise.
# Growing $N$ moves that boundary down the frequency list, so more of the $V\times V$ table becomes
# signal — and the rarer words of a larger $V$ need a larger $N$.
#
# Each corpus ranks its own words, so the top-$V$ lists, and with them the analogy sets, differ slightly
# between corpora; the $n$ columns show by how much.

# %%
import time

import matplotlib.ticker
import numpy as np
from IPython.display import Markdown, display
from tqdm import tqdm

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("22_corpus_scaling")
S = config.sizes(
    # smoke reads only the corpus that ships with the book: its first 300,000 tokens ("name[:n]", re-ranked)
    # stand in for the smaller corpus, so that the tests run offline on a fresh clone
    smoke=dict(
        corpora=("enwiki2015_1m7[:300000]", "enwiki2015_1m7"),
        Vs=(1_000,),
        d=50,
        w2v_corpora=("enwiki2015_1m7",),
        prefix_of="enwiki2015_1m7",
        prefix_tokens=800_000,
    ),
    book=dict(
        corpora=("enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_70m"),
        Vs=(2_000, 10_000),
        d=200,
        w2v_corpora=("enwiki2015_1m7", "enwiki2015_17m"),
        prefix_of="enwiki2015_17m",
        prefix_tokens=5_000_000,
    ),
    paper=dict(
        corpora=("enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_70m"),
        Vs=(2_000, 10_000),
        d=200,
        w2v_corpora=("enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_70m"),
        prefix_of="enwiki2015_17m",
        prefix_tokens=5_000_000,
    ),
)
print(S)
T_START = time.time()
SVD = ("svd_mstar", "svd_ppmi", "svd_pmi")
W2V = ("w2v_k1", "w2v_k5")

# %% [markdown]
# ## 1. Unseen pairs shrink as the corpus grows
#
# A cheap statistic first: the share of the $V \times V$ pairs that never co-occur within the window.
# These are the entries where $M^\star = -2$ and PMI $= \log 10^{-25}$.

# %%
n_tokens, unseen = {}, {}
for c in S["corpora"]:
    corpus = q.load_corpus(c)
    n_tokens[c] = corpus.n_tokens
    for V in S["Vs"]:
        _, P, _ = q.cooccurrence(corpus, V)
        unseen[(c, V)] = float((P == 0).mean())
        del P
    print(
        f"{c}: {corpus.n_tokens:,} tokens; unseen pairs "
        + ", ".join(f"V={V:,}: {unseen[(c, V)]:.1%}" for V in S["Vs"])
    )
for V in S["Vs"]:
    vals = [unseen[(c, V)] for c in S["corpora"]]
    rep.ordered(
        f"qwem.scaling.unseen_shrinks_v{V}",
        f"V={V:,}: the share of never-co-occurring pairs falls as the corpus grows "
        f"(corpora listed from the smallest to the largest)",
        names=list(S["corpora"]),
        values=vals,
        kind="consistency",
    )

# %% [markdown]
# ## 2. The benchmark scores at each size
#
# svd embeddings are computed for every corpus; gensim word2vec only where it is affordable on a laptop
# (1.7M and 17M tokens at the book preset — the 17M runs are chapter 21's, reused from the cache).

# %%
scores: dict[tuple[str, int, str], dict[str, tuple[float, int]]] = {}
jobs = [(c, V, m) for c in S["corpora"] for V in S["Vs"] for m in SVD]
jobs += [(c, V, m) for c in S["w2v_corpora"] for V in S["Vs"] for m in W2V]
t0 = time.time()
for c, V, m in tqdm(jobs, desc="embeddings"):
    words, W = q.method_embeddings(m, c, V, S["d"])
    scores[(c, V, m)] = q.evaluate_all(words, W)
print(
    f"{len(jobs)} embeddings evaluated in {time.time() - t0:.0f} s (cached ones load in a second)"
)

lines = [
    "| corpus | tokens | V | method | analogies (pairs) | MEN | WS353 |",
    "|---|---|---|---|---|---|---|",
]
for c, V, m in jobs:
    r = scores[(c, V, m)]
    lines.append(
        f"| {c} | {n_tokens[c] / 1e6:.1f}M | {V:,} | {q.METHODS[m]} | {100 * r['analogy'][0]:.1f}% "
        f"(n={r['analogy'][1]:,}) | {r['men'][0]:.3f} (n={r['men'][1]:,}) | {r['ws353'][0]:.3f} "
        f"(n={r['ws353'][1]:,}) |"
    )
display(Markdown("\n".join(lines)))

# %% [markdown]
# ## 3. Checks
#
# Accuracies come with binomial standard errors (`qwem_lib.gap_se`; a rough guide, as the analogies of
# the pairs protocol share words, hence the factor three). We check that svd($M^\star$) improves by
# more than three standard errors with every step in corpus size, and that it stays above svd(PMI) by
# more than three standard errors (the paper's order) on every corpus of at least a million tokens — the
# range this book's claims are about (the smoke preset's 300,000-token head is below it; its gap is
# printed, not claimed). Where the 70M corpus is in the
# preset we also check the paper's ordering svd($M^\star$) > svd(PPMI) > svd(PMI) on it.


# %%
def acc(c, V, m):
    return scores[(c, V, m)]["analogy"]


for V in S["Vs"]:
    steps = list(zip(S["corpora"][:-1], S["corpora"][1:]))
    gaps = [acc(b, V, "svd_mstar")[0] - acc(a, V, "svd_mstar")[0] for a, b in steps]
    ses = [
        q.gap_se(
            acc(b, V, "svd_mstar")[0],
            acc(a, V, "svd_mstar")[0],
            acc(b, V, "svd_mstar")[1],
            acc(a, V, "svd_mstar")[1],
        )
        for a, b in steps
    ]
    rep.above(
        f"qwem.scaling.mstar_rises_v{V}",
        f"V={V:,}: svd(M*) analogy accuracy rises with every step in corpus size by more than 3 SE "
        f"(value = smallest gap / its SE)",
        value=min(g / s_ for g, s_ in zip(gaps, ses)),
        bound=3.0,
        kind="finding",
    )
    for c in S["corpora"]:
        a, b = acc(c, V, "svd_mstar"), acc(c, V, "svd_pmi")
        se = q.gap_se(a[0], b[0], a[1])
        if n_tokens[c] < 1_000_000:
            print(
                f"{c} ({n_tokens[c]:,} tokens, below the claimed range), V={V:,}: svd(M*) − svd(PMI) = "
                f"{a[0] - b[0]:+.3f}, 3 SE = {3 * se:.3f} (not claimed)"
            )
            continue
        rep.above(
            f"qwem.scaling.mstar_beats_pmi_{c}_v{V}",
            f"{c}, V={V:,}: svd(M*) minus svd(PMI) on analogies exceeds 3 SE ({3 * se:.3f}) (the paper's "
            f"order)",
            value=a[0] - b[0],
            bound=3 * se,
            kind="consistency" if c == "enwiki2015_17m" else "finding",
        )  # 17M: a repeat of chapter 21
if "enwiki2015_70m" in S["corpora"]:
    for V in S["Vs"]:
        names = ["svd_mstar", "svd_ppmi", "svd_pmi"]
        vals = [acc("enwiki2015_70m", V, m)[0] for m in names]
        rep.ordered(
            f"qwem.scaling.paper_order_70m_v{V}",
            f"enwiki2015_70m, V={V:,}: the paper's ordering svd(M*) > svd(PPMI) > svd(PMI) on analogies",
            names=names,
            values=vals,
            paper="66.3% > 50.6% > 8.4% (V=10,000, 2.0B tokens)",
            kind="finding",
        )
        n70 = acc("enwiki2015_70m", V, "svd_mstar")[1]
        se = q.gap_se(vals[0], vals[1], n70)
        prose(
            f"70M tokens, $V$ = {V:,}: svd($M^\\star$) − svd(PPMI) = {100 * (vals[0] - vals[1]):+.1f} points, "
            f"{(vals[0] - vals[1]) / se:.1f} standard errors."
        )

# %% [markdown]
# **Competitive with word2vec.** The same rule as chapter 21 (`qwem_lib.is_competitive`: at most
# `margin` below the better gensim run, the margin the larger of three standard errors of the gap and
# gensim's re-run spread). The re-run spread is measured here on each corpus gensim is run on: the $k = 1$
# run of the table with two more seeds, its range over the three. We check it on the corpora chapter 21
# did not cover. On 1.7M tokens gensim's 5-epoch runs are far below svd($M^\star$) (its 5 epochs over
# 1.7M tokens are few updates), so there the comparison could not have failed: it is recorded, not counted
# as a finding (chapter 21's grid gives gensim more epochs).

# %%
spread = {}
for c in S["w2v_corpora"]:
    for V in S["Vs"]:
        if c == "enwiki2015_17m":
            continue
        runs_ = [acc(c, V, "w2v_k1")[0]] + [
            q.analogy_accuracy(*q.train_word2vec(c, V, S["d"], negative=1, seed=sd)[:2])[0]
            for sd in (1, 2)
        ]
        spread[(c, V)] = float(np.ptp(runs_))
for c in S["w2v_corpora"]:
    for V in S["Vs"]:
        best = max(W2V, key=lambda m: acc(c, V, m)[0])
        ok, margin = q.is_competitive(
            acc(c, V, "svd_mstar")[0],
            acc(c, V, best)[0],
            acc(c, V, "svd_mstar")[1],
            rerun_spread=spread.get((c, V), 0.0),
        )
        print(
            f"{c}, V={V:,}: svd(M*) {100 * acc(c, V, 'svd_mstar')[0]:.1f}%, best word2vec {best} "
            f"{100 * acc(c, V, best)[0]:.1f}%, margin {100 * margin:.1f} points -> "
            f"{'competitive' if ok else 'not competitive'}"
        )
        if c != "enwiki2015_17m":
            _ = rep.above(
                f"qwem.scaling.mstar_competitive_{c}_v{V}",
                f"{c}, V={V:,}: svd(M*) is competitive with the better gensim word2vec on analogies "
                f"(value = svd(M*) - best word2vec; rule of chapter 21, margin {margin:.3f} = max(3 SE, "
                f"re-run spread {spread.get((c, V), 0.0):.3f} over 3 seeds))",
                value=acc(c, V, "svd_mstar")[0] - acc(c, V, best)[0],
                bound=-margin,
                kind="finding" if c != "enwiki2015_1m7" else "record",
            )

# %% [markdown]
# **svd(PMI) and unseen pairs.** One explanation of the paper's 8.4% for svd(PMI) is a "regime" in which
# unseen pairs are few and scattered. The table below puts the share of unseen pairs
# next to svd(PMI)'s accuracy in every cell we have.

# %%
pmi_lines = [
    "| corpus | V | unseen pairs | svd(PMI) analogies | svd(M*) analogies |",
    "|---|---|---|---|---|",
]
for c in S["corpora"]:
    for V in S["Vs"]:
        pmi_lines.append(
            f"| {c} | {V:,} | {unseen[(c, V)]:.1%} | {100 * acc(c, V, 'svd_pmi')[0]:.1f}% | "
            f"{100 * acc(c, V, 'svd_mstar')[0]:.1f}% |"
        )
display(Markdown("\n".join(pmi_lines)))
cells = [(c, V) for c in S["corpora"] for V in S["Vs"]]
low = [cv for cv in cells if acc(*cv, "svd_pmi")[0] < 0.10]
prose(
    f"svd(PMI) scores under 10% in {len(low)} of {len(cells)} cells"
    + (
        f" ({', '.join(f'{c}, $V$ = {V:,}: {unseen[(c, V)]:.1%} unseen' for c, V in low)})"
        if low
        else ""
    )
    + f"; the fewest unseen pairs at $V$ = {max(S['Vs']):,} is "
    f"{min(unseen[(c, max(S['Vs']))] for c in S['corpora']):.1%}. Our data never reach a cell with both the "
    f"paper's $V$ and few unseen pairs, so they cannot test an explanation of the paper's 8.4%; we leave it "
    f"open."
)

# %%
fig, axes = plotting.figure(1, len(S["Vs"]), width=5.2, height=4.0, sharey=True)
axes = np.atleast_1d(axes)
colors = dict(zip(list(q.METHODS), plotting.PALETTE))
for ax, V in zip(axes, S["Vs"]):
    for m in list(W2V) + list(SVD):
        cs = [c for c in S["corpora"] if (c, V, m) in scores]
        ax.plot(
            [n_tokens[c] for c in cs],
            [scores[(c, V, m)]["analogy"][0] for c in cs],
            marker="o",
            color=colors[m],
            label=q.METHODS[m],
            ls="--" if m in W2V else "-",
        )
    ax.set_xscale("log")
    ax.set_xticks(
        [n_tokens[c] for c in S["corpora"]], [f"{n_tokens[c] / 1e6:.1f}M" for c in S["corpora"]]
    )
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    plotting.label(
        ax,
        f"Analogies vs corpus size, V = {V:,}, d = {S['d']}",
        "corpus size (tokens)",
        "analogy accuracy (authors' protocol)",
    )
handles, labs = axes[0].get_legend_handles_labels()
_ = fig.legend(handles, labs, loc="outside lower center", ncol=3, fontsize=8)

# %% [markdown]
# **Figure 22.1** — Analogy accuracy against corpus size (log scale) for each method, one panel per
# vocabulary size. Solid lines: the closed-form svd embeddings; dashed: gensim word2vec (where it was
# run). The paper's single point is far to the right: 2.0B tokens, $V$ = 10,000, where svd($M^\star$) scores
# 66.3%, svd(PPMI) 50.6% and svd(PMI) 8.4% in the paper's printed Figure 3b table (the authors' Figure 3
# notebook prints 66.5%, 50.7% and 8.6% for the same runs); every paper number in this chapter is the
# table's.

# %% [markdown]
# ## Discussion

# %%
C0, C1 = S["corpora"][0], S["corpora"][-1]
Vlo, Vhi = S["Vs"][0], S["Vs"][-1]
gap = {
    (c, V): acc(c, V, "svd_mstar")[0] - acc(c, V, "svd_ppmi")[0]
    for c in S["corpora"]
    for V in S["Vs"]
}
Cw = S["w2v_corpora"][0]  # the smallest corpus gensim was trained on
w2v_small = [acc(Cw, V, m)[0] for V in S["Vs"] for m in W2V if (Cw, V, m) in scores]
prose(
    f"""* **Corpus size matters more than the method's fine print.** svd($M^\\star$) rises from
  {100 * acc(C0, Vlo, "svd_mstar")[0]:.1f}% to {100 * acc(C1, Vlo, "svd_mstar")[0]:.1f}% at $V$ = {Vlo:,} between
  {n_tokens[C0] / 1e6:.1f}M and {n_tokens[C1] / 1e6:.0f}M tokens. Reading the table of chapter 21 without its
  corpus size would mislead.
* **svd($M^\\star$) against svd(PPMI).** The gap svd($M^\\star$) − svd(PPMI) is """
    + ", ".join(f"{100 * gap[(c, Vlo)]:+.1f}" for c in S["corpora"])
    + f""" points at $V$ = {Vlo:,} and """
    + ", ".join(f"{100 * gap[(c, Vhi)]:+.1f}" for c in S["corpora"])
    + f""" at $V$ = {Vhi:,} (corpora from the smallest
  to the largest). $M^\\star$'s floor of $-2$ on unseen pairs is a strong statement ("these words avoid each
  other") that is only trustworthy when the corpus is big enough for absence to mean something; chapter 21
  shows that $d/V$ moves this gap too.
* **svd(PMI)** collapses only in the cells listed above; elsewhere it is worse than svd($M^\\star$) but no
  collapse. The paper's 8.4% is outside our data.
* **word2vec needs tokens most.** gensim with 5 epochs scores {100 * min(w2v_small):.0f}–{100 * max(w2v_small):.0f}%
  on {n_tokens[Cw] / 1e6:.1f}M tokens: its decaying learning rate makes too few updates per word. The svd
  embeddings need no training and degrade gracefully.
* **V and N go together.** At $V$ = {Vhi:,} the analogy set contains rarer words than at $V$ = {Vlo:,}, and
  those need more tokens.
* **What we cannot show here.** The paper's 2.0B tokens are {2.0e9 / n_tokens[C1]:.0f} times our largest
  corpus. Extrapolating the curves is tempting and unsafe (exercise 1).
* This chapter ran in {(time.time() - T_START) / 60:.1f} minutes (statistics, spectra and gensim runs are
  cached by inputs)."""
)

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
# 1. *(compute, ★★)* Fit accuracy against $\log N$ for svd($M^\star$) at $V$ = 10,000 (the paper's $V$). At what $N$ would
#    the line reach the paper's 66.3%? Why should you not trust that number?
# 2. *(derive, ★★)* Under independence, a pair of words of frequencies $P_i$, $P_j$ shares one of the $32N$ window slots
#    with probability about $P_iP_j$ each, so it is unseen with probability about $e^{-32NP_iP_j}$.
#    Predict the share of unseen pairs at the smaller $V$ for each corpus and compare with the measured one.
# 3. *(compute, ★★)* Take the first 5M tokens of the 17M corpus (`Corpus(name, ids[:5_000_000], words, counts)`, keeping
#    the 17M corpus' word ranks) and add the point to Figure 22.1 for svd($M^\star$).
# 4. *(compute, ★)* Which analogy categories improve most with corpus size (`per_category=True`)?

# %% [markdown]
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# A least-squares line $a + b\log N$ through the points of svd($M^\star$) at the largest $V$ of the preset
# reaches 66.3% at $N^\star = \exp((0.663 - a)/b)$. Do not trust it: three points, an accuracy that must
# saturate below 100% (the line cannot), a paper corpus that is another Wikipedia (2023, articles over 500
# tokens) and a different analogy set (each corpus ranks its own top $V$ words).
#
# </details>

# %%
xs_ = np.log([n_tokens[c] for c in S["corpora"]])
ys_ = np.array([acc(c, Vhi, "svd_mstar")[0] for c in S["corpora"]])
b_, a_ = np.polyfit(xs_, ys_, 1)
N_star = float(np.exp((0.663 - a_) / b_))
rep.close(
    "qwem.scaling.solution.1_fit_hits_target",
    "the fitted line reaches 66.3% at N*",
    value=a_ + b_ * np.log(N_star),
    target=0.663,
    tol=1e-9,
    kind="consistency",
)
prose(
    f"$V$ = {Vhi:,}: slope {100 * b_:.1f} points per $e$-fold of tokens; the line reaches 66.3% at "
    f"$N^\\star \\approx$ {N_star / 1e6:,.0f}M tokens (the paper used 2,000M)."
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# With $N$ tokens there are about $32N$ (centre, context) slots within 16 places on either side; under
# independence each is the pair $(i, j)$ or $(j, i)$ with probability $2P_iP_j$ for $i \ne j$, so the
# expected number of unweighted co-occurrences is $\mu_{ij} \approx 32NP_iP_j$ counted once per unordered
# pair, and the pair is unseen with probability about $e^{-\mu_{ij}}$ (Poisson). Real text is *bursty*: words
# come in topical clumps, so many pairs of words from different topics never meet although independence
# expects them to. The measured unseen share should exceed the prediction.
#
# </details>

# %%
pred = {}
for c in S["corpora"]:
    cc = q.load_corpus(c)
    cids = np.asarray(cc.ids)
    N_c = int((cids < q.STREAM_VOCAB).sum())
    pu = cc.counts[:Vlo] / N_c
    mu = 32 * N_c * np.outer(pu, pu)
    np.fill_diagonal(mu, 16 * N_c * pu**2)
    pred[c] = float(np.exp(-mu).mean())
    print(
        f"{c}: unseen pairs at V={Vlo:,}: measured {unseen[(c, Vlo)]:.1%}, independence predicts {pred[c]:.1%}"
    )
_ = rep.check(
    "qwem.scaling.solution.2_bursty",
    f"V={Vlo:,}: on every corpus more pairs are unseen than independent draws predict (text is bursty)",
    value={c: dict(measured=unseen[(c, Vlo)], predicted=pred[c]) for c in S["corpora"]},
    passed=all(unseen[(c, Vlo)] > pred[c] for c in S["corpora"]),
    tolerance="measured > predicted",
    kind="record",
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# A `Corpus` built from a prefix of the ids keeps the 17M corpus' ranks, so "top $V$" means the same words
# as in the 17M corpus (not the prefix's own most frequent words). The cell computes svd($M^\star$) on it
# (not cached: it is not a registered corpus) and adds the point to a copy of the figure.
#
# </details>

# %%
c17 = q.load_corpus(S["prefix_of"])
pre = q.data.Corpus(
    f"{S['prefix_of']}[:{S['prefix_tokens']:,}]",
    np.asarray(c17.ids)[: S["prefix_tokens"]],
    c17.words,
    c17.counts,
)
w_pre, W_pre = q.spectral_embeddings(pre, Vlo, S["d"], "mstar")
acc_pre = q.analogy_accuracy(w_pre, W_pre)
lo_c, hi_c = S["corpora"][0], S["prefix_of"]
rep.check(
    "qwem.scaling.solution.3_prefix_between",
    f"V={Vlo:,}: svd(M*) on the first {S['prefix_tokens']:,} tokens of {hi_c} scores between {lo_c} and {hi_c}",
    value=dict(
        prefix=acc_pre[0],
        small=acc(lo_c, Vlo, "svd_mstar")[0],
        large=acc(hi_c, Vlo, "svd_mstar")[0],
    ),
    passed=bool(acc(lo_c, Vlo, "svd_mstar")[0] < acc_pre[0] < acc(hi_c, Vlo, "svd_mstar")[0]),
    tolerance="strictly between",
    kind="record",
)
fig2, ax2 = plotting.figure()
cs = [c for c in S["corpora"]]
ax2.plot(
    [n_tokens[c] for c in cs],
    [acc(c, Vlo, "svd_mstar")[0] for c in cs],
    "o-",
    color=plotting.PALETTE[2],
    label=r"svd($M^\star$), registered corpora",
)
ax2.plot(
    [S["prefix_tokens"]],
    [acc_pre[0]],
    "s",
    color=plotting.PALETTE[1],
    label=f"first {S['prefix_tokens']:,} tokens of {S['prefix_of']}",
)
ax2.set_xscale("log")
plotting.label(
    ax2,
    f"svd(M*) with an extra corpus size, V = {Vlo:,}",
    "corpus size (tokens)",
    "analogy accuracy",
)
_ = ax2.legend()

# %% [markdown]
# **Figure 22.2** — Solution 3: svd($M^\star$)'s analogy accuracy against corpus size with the 5M-token
# prefix added (square).

# %% [markdown]
# <details><summary>Solution 4</summary>
#
# The cell prints, for svd($M^\star$) at the smaller $V$, each category's accuracy on the smallest and the
# largest corpus and the change. Expect categories whose words are rare (many country–capital and currency
# pairs) to need many tokens before their pairs are seen at all, and categories already near 100% on the
# small corpus to have little room to gain; the printout shows which categories actually gain most.
#
# </details>

# %%
per = {}
for c in (C0, C1):
    w_, W_ = q.method_embeddings("svd_mstar", c, Vlo, S["d"])
    per[c] = q.analogy_accuracy(w_, W_, per_category=True)
rep.check(
    "qwem.scaling.solution.4_counts_add_up",
    "per-category counts add up to the total on both corpora",
    value={c: per[c][1] for c in per},
    passed=all(sum(n_ for _, n_ in p_[2].values()) == p_[1] for p_ in per.values()),
    tolerance="exact",
    kind="consistency",
)
common = sorted(
    set(per[C0][2]) & set(per[C1][2]), key=lambda k: -(per[C1][2][k][0] - per[C0][2][k][0])
)
for k in common:
    print(
        f"  {k:28s} {100 * per[C0][2][k][0]:5.1f}% -> {100 * per[C1][2][k][0]:5.1f}%  "
        f"({100 * (per[C1][2][k][0] - per[C0][2][k][0]):+.1f})"
    )
