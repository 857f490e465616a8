# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 21 · The benchmark table of Figure 3b
#
# The paper's Figure 3b compares five embeddings of the $V = 10{,}000$ most frequent words in $d = 200$
# dimensions, trained on 2.0B tokens of Wikipedia: word2vec (SGNS), trained QWEM, and three closed-form
# "svd" embeddings — the top eigenvectors of $M^\star$, PPMI and PMI, each scaled by $\sqrt{\lambda}$. Its
# claim:
#
# * **svd($M^\star$) is nearly as good as word2vec** (66.3% against 68.0% on Google analogies), so the
#   quadratic theory's closed form is a usable embedding;
# * **svd(PMI) fails** (8.4%), although word2vec is often said to factorise PMI; PPMI sits between (50.6%).
#
# This chapter rebuilds the table on the book's corpora: 17M tokens (book preset) instead of 2.0B, at
# $V$ = 2,000 and $V$ = 10,000. The rows "trained QWEM" and "this book's SGNS" are left for the chapters
# that train them; they are marked as not built yet, not filled in.
#
# **Why svd(PMI) can fail.** Pairs never seen together get PMI $= \log 10^{-25} \approx -57.6$. These huge
# entries can dominate the PMI matrix and its top eigenvectors; $M^\star$ caps them at $-2$ ($M^\star =
# 2\tanh(\mathrm{PMI}/2)$, chapter 20) and PPMI at 0. Whether they *do* dominate depends on how many
# and how scattered they are; the table below shows that on our corpus this is not the same at the two
# values of $V$.

# %%
import time

import numpy as np
from IPython.display import Markdown, display
from tqdm import tqdm

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("21_benchmark_table")
S = config.sizes(
    smoke=dict(
        corpus="enwiki2015_1m7",
        Vs=(1_000,),
        d=50,
        sweep_V=1_000,
        sweep=((1e-5, 5), (1e-4, 2), (0.0, 1), (1e-5, 10)),
        ds=(10, 25, 50, 100),
        small_repeat_V=300,
        small_repeat_d=20,
        oov_methods_big=("svd_mstar", "svd_ppmi", "svd_pmi"),
    ),
    book=dict(
        corpus="enwiki2015_17m",
        Vs=(2_000, 10_000),
        d=200,
        sweep_V=2_000,
        sweep=((1e-5, 5), (1e-4, 2), (0.0, 1), (1e-5, 10)),
        ds=(50, 100, 200, 400),
        small_repeat_V=1_000,
        small_repeat_d=50,
        oov_methods_big=("svd_mstar",),
    ),
    paper=dict(
        corpus="enwiki2015_70m",
        Vs=(2_000, 10_000),
        d=200,
        sweep_V=2_000,
        sweep=((1e-5, 5), (1e-4, 5), (0.0, 5), (1e-5, 15)),
        ds=(50, 100, 200, 400),
        small_repeat_V=1_000,
        small_repeat_d=50,
        oov_methods_big=("svd_mstar", "svd_ppmi", "svd_pmi"),
    ),
)
print(S)
BENCH = ("analogy", "analogy_questions", "men", "ws353")
T_START = time.time()

# %% [markdown]
# ## 1. The protocol
#
# * **Statistics** — chapter 20: window 16, weights $17-j$, the authors' out-of-vocabulary rule (tokens
#   outside the top 20,000 removed before windowing, the $V\times V$ block cut afterwards), $P_i$ the
#   renormalised unigram.
# * **svd(X)** — top-$d$ eigenpairs of $X \in \{M^\star, \mathrm{PPMI}, \mathrm{PMI}\}$;
#   $W = Q_{[d]}\Lambda_{[d]}^{1/2}$.
# * **word2vec** — gensim skip-gram, negative sampling with $k = 1$ (the paper's setting) and $k = 5$
#   (gensim's usual), subsampling $10^{-5}$, window 16, 5 epochs (`qwem_lib.w2v`). gensim embeds only the
#   words it is given, so it trains on the stream of top-$V$ tokens: everything else is removed before
#   windowing (the `drop` rule of chapter 20). Its random window shrinking uses a context at distance $j$
#   with probability $(17-j)/16$, the linear weights; but its subsampling deletes most occurrences of
#   frequent words *before* the windows are drawn, so word2vec does **not** see the pairs svd($M^\star$)
#   counts (section 5 measures what these choices do to the baseline).
# * **Analogies** — the authors' protocol: in each category, every ordered pair of distinct in-vocabulary
#   word pairs; 3CosAdd over the whole vocabulary without the three query words; micro-average. We also
#   score the original question list (only questions with all four words in the vocabulary).
# * **Similarity** — Spearman's ρ of cosine similarity on the MEN and WS353 pairs inside the vocabulary.
#
# Every score comes with $n$, the number of items it is computed on.

# %%
corpus = q.load_corpus(S["corpus"])
ids = np.asarray(corpus.ids)
for V in S["Vs"]:
    top = corpus.counts[:V]
    prose(
        f"$V$ = {V:,}: gensim's `drop` stream removes {1 - (ids < V).mean():.1%} of the tokens (the authors' "
        f"rule {1 - (ids < q.STREAM_VOCAB).mean():.1%}); then subsampling at $10^{{-5}}$ deletes "
        f"{q.subsampled_fraction(top, 1e-5):.1%} of the remaining top-{V:,} tokens in expectation "
        f"({q.subsampled_fraction(top, 1e-4):.1%} at $10^{{-4}}$, {q.subsampled_fraction(top, 1e-3):.1%} at "
        f"gensim's default $10^{{-3}}$)."
    )

# %%
rows: dict[tuple[int, str], dict[str, tuple[float, int]]] = {}
times: dict[tuple[int, str], float] = {}
for V in S["Vs"]:
    for m in tqdm(sorted(q.METHODS, key=lambda m: m.startswith("w2v")), desc=f"V={V:,}"):
        t0 = time.time()
        words, W = q.method_embeddings(m, corpus, V, S["d"])
        rows[(V, m)] = q.evaluate_all(words, W)
        times[(V, m)] = time.time() - t0
print(
    "embeddings come from the cache when their inputs were seen before; seconds this run:",
    {f"{V}/{m}": round(t, 1) for (V, m), t in times.items()},
)

# %% [markdown]
# ## 2. The table


# %%
def fmt(score, n, pct):
    return f"{100 * score:5.1f}% (n={n:,})" if pct else f"{score:.3f} (n={n:,})"


paper_key = {
    "w2v_k1": "word2vec",
    "svd_mstar": "svd_mstar",
    "svd_ppmi": "svd_ppmi",
    "svd_pmi": "svd_pmi",
}
lines = [
    "| V | method | analogies (pairs) | analogies (questions) | MEN | WS353 | paper: analogies / MEN / WS353 |",
    "|---|---|---|---|---|---|---|",
]
for V in S["Vs"]:
    for m, label in q.METHODS.items():
        r = rows[(V, m)]
        p = q.PAPER_FIG3B.get(paper_key.get(m, ""), None)
        ptxt = f"{100 * p['analogy']:.1f}% / {p['men']:.3f} / {p['ws353']:.3f}" if p else "—"
        lines.append(
            f"| {V:,} | {label} | "
            + " | ".join(fmt(*r[b], b.startswith("analogy")) for b in BENCH)
            + f" | {ptxt} |"
        )
    lines.append(
        f"| {V:,} | trained QWEM | *not built yet (Part I trains QWEM on small V only)* | | | | "
        f"{100 * q.PAPER_FIG3B['QWEM']['analogy']:.1f}% / {q.PAPER_FIG3B['QWEM']['men']:.3f} / "
        f"{q.PAPER_FIG3B['QWEM']['ws353']:.3f} |"
    )
    lines.append(f"| {V:,} | this book's SGNS | *not built yet* | | | | — |")
display(Markdown("\n".join(lines)))

# %% [markdown]
# The "paper" column is the paper's Figure 3b at $V$ = 10,000 and 2.0B tokens (its word2vec row is SGNS
# with $k = 1$); it is repeated on the $V$ = 2,000 rows only for reference.

# %% [markdown]
# ## 3. What the table supports
#
# **Evaluation sets.** The number of Google questions, MEN pairs and WS353 pairs inside the vocabulary
# must be those the data README lists for enwiki2015_17m (words ranked by count, ties broken
# alphabetically, as the data layer does).

# %%
README_COVERAGE = {
    2_000: dict(analogy_questions=493, men=233, ws353=92),
    10_000: dict(analogy_questions=5_265, men=1_371, ws353=263),
}
if S["corpus"] == "enwiki2015_17m":
    for V in S["Vs"]:
        got = {b: rows[(V, "svd_mstar")][b][1] for b in README_COVERAGE[V]}
        rep.check(
            f"qwem.bench.coverage_v{V}",
            f"in-vocabulary counts at V={V:,} equal the data README's (Google questions, MEN, WS353)",
            value=got,
            passed=got == README_COVERAGE[V],
            tolerance="exact",
            kind="consistency",
        )

# %% [markdown]
# **Comparing two accuracies.** An analogy accuracy measured on $n$ items has a binomial standard error
# $\sqrt{a(1-a)/n}$; the gap between two methods scored on the same items has standard error
# $\sqrt{a(1-a)/n + b(1-b)/n}$ (`qwem_lib.gap_se`). The analogies of the pairs protocol share words, so
# they are not independent and the true error is larger; we therefore ask for three standard errors.
#
# * The paper's orderings **svd($M^\star$) > svd(PMI)** and **svd(PPMI) > svd(PMI)** are checked as
#   findings: each gap must exceed three standard errors (and 5 points).
# * **"Competitive with word2vec"** has one definition in this book (`qwem_lib.is_competitive`, used in
#   chapter 22 too): svd($M^\star$) is competitive when it is *at most* `competitive_margin` below the
#   better of the gensim runs, the margin being the larger of three standard errors of the gap and the
#   run-to-run spread of gensim measured in section 4. Above word2vec is competitive too: the paper's
#   point is that the closed form is usable, not that it wins.
# * The paper's **svd($M^\star$) > svd(PPMI)** (by 15.7 points at 2.0B tokens) is not asserted here: we
#   report the measured gap with its standard error, and chapter 22 tests the order on 70M tokens.


# %%
def acc(V, m):
    return rows[(V, m)]["analogy"][0]


for V in S["Vs"]:
    n = rows[(V, "svd_mstar")]["analogy"][1]
    for hi, lo, paper in (
        ("svd_mstar", "svd_pmi", 0.663 - 0.084),
        ("svd_ppmi", "svd_pmi", 0.506 - 0.084),
    ):
        se = q.gap_se(acc(V, hi), acc(V, lo), n)
        rep.above(
            f"qwem.bench.{hi[4:]}_beats_pmi_v{V}",
            f"V={V:,}: analogy accuracy of {q.METHODS[hi]} minus svd(PMI) exceeds max(5 points, 3 SE = "
            f"{3 * se:.3f}) (the paper's order)",
            value=acc(V, hi) - acc(V, lo),
            bound=max(0.05, 3 * se),
            paper=round(paper, 3),
            kind="finding",
        )

# %% [markdown]
# ## 4. gensim is not bit-reproducible
#
# With two worker threads gensim updates the shared weights without locks, so two runs with the same seed
# give different vectors. We train the $k = 1$ model of the table once more at the smaller $V$, bypassing
# the cache, and compare the analogy scores: this run-to-run spread enters the "competitive" margin.

# %%
V0 = S["sweep_V"]
w_, W_, _ = q.train_word2vec(corpus, V0, S["d"], negative=1, use_cache=False)
acc_rerun = q.analogy_accuracy(w_, W_)[0]
rerun_spread = abs(acc_rerun - acc(V0, "w2v_k1"))
n0 = rows[(V0, "svd_mstar")]["analogy"][1]
binom_margin = q.competitive_margin(acc(V0, "svd_mstar"), acc(V0, "w2v_k1"), n0)
rep.below(
    "qwem.bench.w2v_rerun_spread",
    f"two seeded 2-thread gensim runs (k=1, V={V0:,}) differ by less than the binomial part of the "
    f"competitive margin ({binom_margin:.3f}) on analogies",
    value=rerun_spread,
    bound=binom_margin,
    kind="record",
)
prose(
    f"The two runs score {100 * acc(V0, 'w2v_k1'):.1f}% and {100 * acc_rerun:.1f}%: a spread of "
    f"{100 * rerun_spread:.1f} points, against {100 * binom_margin:.1f} points for three binomial standard "
    f"errors at $n$ = {n0:,}."
)

# %%
for V in S["Vs"]:
    best = max(("w2v_k1", "w2v_k5"), key=lambda m: acc(V, m))
    n = rows[(V, "svd_mstar")]["analogy"][1]
    ok, margin = q.is_competitive(acc(V, "svd_mstar"), acc(V, best), n, rerun_spread=rerun_spread)
    rep.above(
        f"qwem.bench.mstar_competitive_v{V}",
        f"V={V:,}: svd(M*) is competitive with the better gensim word2vec on analogies (value = svd(M*) "
        f"- best word2vec; rule: > -margin, margin = max(3 SE, rerun spread) = {margin:.3f})",
        value=acc(V, "svd_mstar") - acc(V, best),
        bound=-margin,
        paper=round(0.663 - 0.680, 3),
        kind="finding",
    )
    se = q.gap_se(acc(V, "svd_mstar"), acc(V, "svd_ppmi"), n)
    prose(
        f"$V$ = {V:,}: svd($M^\\star$) {100 * acc(V, 'svd_mstar'):.1f}%, best word2vec ({best}) "
        f"{100 * acc(V, best):.1f}%, svd(PPMI) {100 * acc(V, 'svd_ppmi'):.1f}%, svd(PMI) "
        f"{100 * acc(V, 'svd_pmi'):.1f}%. svd($M^\\star$) − svd(PPMI) = "
        f"{100 * (acc(V, 'svd_mstar') - acc(V, 'svd_ppmi')):+.1f} ± {100 * se:.1f} points (one SE; paper +15.7)."
    )

# %% [markdown]
# ## 5. A fair baseline: how much do gensim's settings matter?
#
# The table's gensim runs use subsampling $10^{-5}$ and 5 epochs. Subsampling removes most tokens of
# frequent words (section 1), so the baseline sees fewer and different pairs than svd($M^\star$), and 5
# epochs may be too few on 17M tokens. We rerun $k = 1$ at the smaller $V$ with less subsampling and with
# none, for fewer epochs so that each run makes at least as many updates as the table's run (the cost of
# a run is proportional to the tokens it keeps times the epochs; the column "updates" gives the ratio to
# the table's run; fewer epochs keep the chapter within its time budget), and with twice the epochs at
# $10^{-5}$. Every trained model is cached under its settings.

# %%
sweep = {}
for sample, epochs in tqdm(S["sweep"], desc="gensim settings"):
    t0 = time.time()
    w_, W_, info = q.train_word2vec(corpus, V0, S["d"], negative=1, sample=sample, epochs=epochs)
    sweep[(sample, epochs)] = (q.evaluate_all(w_, W_), time.time() - t0)
lines = [
    "| sample | epochs | tokens deleted by subsampling | updates | analogies (pairs) | MEN | WS353 | seconds this run |",
    "|---|---|---|---|---|---|---|---|",
]


def updates(sample, epochs):
    return (1 - q.subsampled_fraction(corpus.counts[:V0], sample)) * epochs


for (sample, epochs), (r, dt) in sweep.items():
    lines.append(
        f"| {sample:g} | {epochs} | {q.subsampled_fraction(corpus.counts[:V0], sample):.1%} | "
        f"{updates(sample, epochs) / updates(*S['sweep'][0]):.2f} | "
        f"{fmt(*r['analogy'], True)} | {fmt(*r['men'], False)} | {fmt(*r['ws353'], False)} | {dt:.0f} |"
    )
lines.append(
    f"| — | — | svd($M^\\star$), authors' rule | | {fmt(*rows[(V0, 'svd_mstar')]['analogy'], True)} | "
    f"{fmt(*rows[(V0, 'svd_mstar')]['men'], False)} | {fmt(*rows[(V0, 'svd_mstar')]['ws353'], False)} | |"
)
display(Markdown("\n".join(lines)))
best_setting = max(sweep, key=lambda k: sweep[k][0]["analogy"][0])
acc_best = sweep[best_setting][0]["analogy"][0]
ok, margin = q.is_competitive(acc(V0, "svd_mstar"), acc_best, n0, rerun_spread=rerun_spread)
rep.above(
    f"qwem.bench.mstar_competitive_best_w2v_v{V0}",
    f"V={V0:,}: svd(M*) is competitive with the best gensim setting of the sweep (sample, epochs) on "
    f"analogies (same rule as mstar_competitive; margin {margin:.3f})",
    value=acc(V0, "svd_mstar") - acc_best,
    bound=-margin,
    kind="finding",
)
prose(
    f"The best setting is sample = {best_setting[0]:g}, {best_setting[1]} epochs: "
    f"{100 * acc_best:.1f}% against {100 * acc(V0, 'w2v_k1'):.1f}% for the table's setting; svd($M^\\star$) "
    f"scores {100 * acc(V0, 'svd_mstar'):.1f}% (difference {100 * (acc(V0, 'svd_mstar') - acc_best):+.1f} "
    f"points, margin {100 * margin:.1f})."
)

# %% [markdown]
# ## 6. The out-of-vocabulary rule moves the table
#
# The first edition of this book removed every token outside the top $V$ before windowing (`oov="drop"`);
# the authors remove only those outside the top 20,000 (chapter 20). The svd rows under both rules (at the
# larger $V$ of the book preset only svd($M^\star$), to keep the chapter's run time in budget: each
# spectrum at $V$ = 10,000 costs minutes on two cores):


# %%
def oov_methods(V):
    return S["oov_methods_big"] if V == max(S["Vs"]) else ("svd_mstar", "svd_ppmi", "svd_pmi")


oov_rows = {}
for V in S["Vs"]:
    for m in oov_methods(V):
        w_, W_ = q.spectral_embeddings(corpus, V, S["d"], m[4:], oov="drop")
        oov_rows[(V, m)] = q.evaluate_all(w_, W_)
lines = [
    "| V | method | analogies: authors | analogies: drop | MEN: authors | MEN: drop |",
    "|---|---|---|---|---|---|",
]
for V in S["Vs"]:
    for m in oov_methods(V):
        a, d_ = rows[(V, m)], oov_rows[(V, m)]
        lines.append(
            f"| {V:,} | {q.METHODS[m]} | {100 * a['analogy'][0]:.1f}% | {100 * d_['analogy'][0]:.1f}% | "
            f"{a['men'][0]:.3f} | {d_['men'][0]:.3f} |"
        )
display(Markdown("\n".join(lines)))
shift = {
    V: {m: rows[(V, m)]["analogy"][0] - oov_rows[(V, m)]["analogy"][0] for m in oov_methods(V)}
    for V in S["Vs"]
}
prose(
    "Analogy accuracy under the authors' rule minus under `drop`: "
    + "; ".join(
        f"$V$ = {V:,}: "
        + ", ".join(f"{q.METHODS[m]} {100 * s_:+.1f}" for m, s_ in shift[V].items())
        for V in S["Vs"]
    )
    + " points. gensim trains on the `drop` stream, so svd($M^\\star$) under `drop` "
    "is the like-for-like comparison with the word2vec rows."
)

# %% [markdown]
# ## 7. svd($M^\star$) against svd(PPMI) depends on $d/V$
#
# At the smaller $V$ all eigenpairs are cheap, so one eigendecomposition of each matrix gives every $d$.
# If the order of svd($M^\star$) and svd(PPMI) changed with $d$ at fixed corpus, the corpus size alone
# could not explain it.

# %%
_, P0, p0 = q.cooccurrence(corpus, V0)
dmax = max(S["ds"])
eig = {
    m: q.top_eigenpairs(q.target_from_stats(P0, p0, m[4:]), dmax) for m in ("svd_mstar", "svd_ppmi")
}
words0 = corpus.vocab(V0)
by_d = {
    (m, dd): q.analogy_accuracy(words0, eig[m][1][:, :dd] * np.sqrt(np.maximum(eig[m][0][:dd], 0)))[
        0
    ]
    for m in eig
    for dd in S["ds"]
}
display(
    Markdown(
        "\n".join(
            ["| d | d/V | svd(M*) | svd(PPMI) |", "|---|---|---|---|"]
            + [
                f"| {dd} | {dd / V0:.3f} | {100 * by_d[('svd_mstar', dd)]:.1f}% | {100 * by_d[('svd_ppmi', dd)]:.1f}% |"
                for dd in S["ds"]
            ]
        )
    )
)
rep.close(
    f"qwem.bench.d_slice_matches_table_v{V0}",
    f"svd(M*) at d={S['d']} from the sliced eigendecomposition equals the table's score",
    value=by_d[("svd_mstar", S["d"])],
    target=acc(V0, "svd_mstar"),
    tol=0.005,
    kind="consistency",
)
lead = [dd for dd in S["ds"] if by_d[("svd_mstar", dd)] > by_d[("svd_ppmi", dd)]]
prose(
    f"At $V$ = {V0:,} svd($M^\\star$) is ahead of svd(PPMI) at d = {', '.join(map(str, lead)) or 'none'} and "
    f"behind or level at the others: on the same corpus the order depends on how many eigenvectors are kept."
)

# %%
fig, axes = plotting.figure(1, len(S["Vs"]), width=5.6, height=4.2, sharey=True)
axes = np.atleast_1d(axes)
labels = {
    "analogy": "analogies\n(pairs)",
    "analogy_questions": "analogies\n(questions)",
    "men": "MEN ρ",
    "ws353": "WS353 ρ",
}
x = np.arange(len(BENCH))
width = 0.16
for ax, V in zip(axes, S["Vs"]):
    for i, (m, label) in enumerate(q.METHODS.items()):
        vals = [rows[(V, m)][b][0] for b in BENCH]
        ax.bar(x + (i - 2) * width, vals, width, color=plotting.PALETTE[i], label=label)
    for i, m in enumerate(q.METHODS):
        p = q.PAPER_FIG3B.get(paper_key.get(m, ""), None)
        if p is not None:
            ax.scatter(
                x[[0, 2, 3]] + (i - 2) * width,
                [p["analogy"], p["men"], p["ws353"]],
                marker="_",
                s=120,
                color="black",
                zorder=3,
                label="paper (2.0B tokens, V=10k)" if i == 0 else None,
            )
    ax.set_xticks(x, [labels[b] for b in BENCH])
    plotting.label(
        ax, f"{S['corpus']}, V = {V:,}, d = {S['d']}", "benchmark", "accuracy / Spearman ρ"
    )
handles, labs = axes[0].get_legend_handles_labels()
fig.legend(handles, labs, loc="outside lower center", ncol=3, fontsize=8)

# %% [markdown]
# **Figure 21.1** — The benchmark table as grouped bars: analogy accuracy (two protocols) and Spearman ρ
# on MEN and WS353, for word2vec ($k=1$, $k=5$) and the three svd embeddings (authors' out-of-vocabulary
# rule). Black ticks: the paper's numbers at $V$ = 10,000 on 2.0B tokens (drawn in both panels for
# reference; the paper has no $V$ = 2,000 column and no "questions" column).

# %% [markdown]
# ## Discussion

# %%
Vs_ = S["Vs"]
prose(
    """* **What holds.** svd($M^\\star$) is far above svd(PMI) on analogies at every $V$ (section 3), and it is
  competitive with word2vec by the book's rule, also against the best gensim setting we tried (sections 4–5).
* **svd(PMI).** """
    + " ".join(
        f"At $V$ = {V:,} it scores {100 * acc(V, 'svd_pmi'):.1f}% on analogies and MEN {rows[(V, 'svd_pmi')]['men'][0]:.3f}"
        + (
            " — a collapse like the paper's (8.4%, MEN 0.448)."
            if acc(V, "svd_pmi") < 0.10
            else " — worse than svd($M^\\star$), but no collapse."
        )
        for V in Vs_
    )
    + f"""
  So svd(PMI) does not fail "exactly as in the paper" at every $V$. Chapter 22 follows svd(PMI) across corpus
  sizes; the paper's 8.4% at $V$ = 10,000 on 2.0B tokens is outside the range of our data, and we do not claim
  to explain it.
* **svd($M^\\star$) against svd(PPMI).** The paper has svd($M^\\star$) 15.7 points ahead. On {corpus.n_tokens / 1e6:.1f}M tokens the
  gap is {100 * (acc(Vs_[0], "svd_mstar") - acc(Vs_[0], "svd_ppmi")):+.1f} points at $V$ = {Vs_[0]:,} and
  {100 * (acc(Vs_[-1], "svd_mstar") - acc(Vs_[-1], "svd_ppmi")):+.1f} at $V$ = {Vs_[-1]:,}, and at fixed $V$ it
  changes with $d$ (section 7): the order is a property of corpus size *and* of $d/V$, not of the matrices
  alone. Chapter 22 shows that a larger corpus moves it towards the paper's.
* **The protocol matters at the level of points.** The out-of-vocabulary rule moves svd($M^\\star$) by
  {100 * shift[Vs_[0]]["svd_mstar"]:+.1f} and {100 * shift[Vs_[-1]]["svd_mstar"]:+.1f} points (section 6); gensim's
  settings move word2vec by up to {100 * (acc_best - acc(V0, "w2v_k1")):+.1f} points at $V$ = {V0:,} (section 5).
  Differences of this size between methods are not evidence for either.
* **Word2vec** here is gensim's SGNS with its own learning-rate schedule, not the authors' tied-embedding
  SGNS trained for millions of steps; $k = 1$ matches the paper's setting.
* **Missing rows.** Trained QWEM and this book's own SGNS at $V = 10{{,}}000$, $d = 200$ are not built yet;
  their rows are left empty on purpose.
* This chapter ran in {(time.time() - T_START) / 60:.1f} minutes (gensim runs and spectra are cached by inputs)."""
)

# %% [markdown]
# ## Exercises
#
# 1. Add svd of the *shifted* PPMI, $\max(\mathrm{PMI} - \log k, 0)$ with $k = 5$ (Levy & Goldberg). Where
#    does it land between svd(PPMI) and svd($M^\star$) at the smaller $V$?
# 2. Score the analogies with 3CosMul instead of 3CosAdd (`analogy_accuracy(..., rule="mul")`). Does the
#    order of the svd methods change?
# 3. Per category (`analogy_accuracy(..., per_category=True)`): which categories does svd(PMI) still get
#    right at the smaller $V$, and why?
# 4. Drop the $\sqrt\lambda$ scaling (use $Q_{[d]}$ alone). What happens to svd($M^\star$)'s scores?
# 5. Run gensim with `workers=1` twice in the same process. Are the vectors now identical?

# %% [markdown]
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# Shifting by $\log 5 \approx 1.61$ before clipping zeroes every entry with PMI below 1.61: the matrix
# keeps only strongly associated pairs and is much sparser than PPMI. The cell computes its svd at the
# smaller $V$ and prints the three scores side by side.
#
# </details>

# %%
PMI0 = q.pmi_from_stats(P0, p0)
SPPMI = np.maximum(PMI0 - np.log(5), 0.0)
PPMI0 = np.maximum(PMI0, 0.0)
rep.below(
    "qwem.bench.solution.1_sppmi_sparser",
    "shifted PPMI (k=5) has fewer non-zero entries than PPMI",
    value=float((SPPMI > 0).mean()),
    bound=float((PPMI0 > 0).mean()),
    kind="consistency",
)
W_s, _ = q.embeddings_from_matrix(SPPMI, S["d"])
acc_s = q.analogy_accuracy(words0, W_s)[0]
del PMI0, SPPMI, PPMI0
prose(
    f"$V$ = {V0:,}, $d$ = {S['d']}: svd(shifted PPMI) {100 * acc_s:.1f}%, svd(PPMI) "
    f"{100 * acc(V0, 'svd_ppmi'):.1f}%, svd($M^\\star$) {100 * acc(V0, 'svd_mstar'):.1f}%."
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# 3CosMul multiplies the (shifted) similarities to $b$ and $a'$ and divides by the similarity to $a$, so one
# large similarity cannot dominate the sum as in 3CosAdd. The cell scores the three svd embeddings both ways.
#
# </details>

# %%
mul = {}
for m in ("svd_mstar", "svd_ppmi", "svd_pmi"):
    w_, W_ = q.method_embeddings(m, corpus, V0, S["d"])
    mul[m] = q.analogy_accuracy(w_, W_, rule="mul")
rep.check(
    "qwem.bench.solution.2_same_items",
    "3CosMul scores the same analogies as 3CosAdd",
    value={m: n_ for m, (_, n_) in mul.items()},
    passed=all(n_ == n0 for _, n_ in mul.values()),
    tolerance="exact",
    kind="consistency",
)
prose(
    "3CosAdd → 3CosMul at $V$ = "
    + f"{V0:,}: "
    + "; ".join(
        f"{q.METHODS[m]} {100 * acc(V0, m):.1f}% → {100 * a_:.1f}%" for m, (a_, _) in mul.items()
    )
    + "."
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# svd(PMI)'s top eigenvectors are pulled towards the pattern of unseen pairs (entries of $-57.6$), which
# is a pattern of *frequency* and co-presence more than of meaning. What survives is what that pattern
# happens to carry: words that share a topic (a country and its capital appear in the same articles) can
# still be told apart from the rest; contrasts *within* a topic — an adjective and its comparative, a verb
# and its past tense — need the finer values of the co-occurrences, which the $-57.6$ entries drown. The
# cell lists the per-category accuracy next to svd($M^\star$)'s and checks that the micro-average is
# recovered from it.
#
# </details>

# %%
w_, W_ = q.method_embeddings("svd_pmi", corpus, V0, S["d"])
a_all, n_all, per = q.analogy_accuracy(w_, W_, per_category=True)
rep.close(
    "qwem.bench.solution.3_micro_average",
    "the per-category accuracies, weighted by n, give the micro-average",
    value=sum(a_ * n_ for a_, n_ in per.values()) / sum(n_ for _, n_ in per.values()),
    target=a_all,
    tol=1e-12,
    kind="consistency",
)
w_, W_ = q.method_embeddings("svd_mstar", corpus, V0, S["d"])
per_m = q.analogy_accuracy(w_, W_, per_category=True)[2]
print(f"  {'category':28s} svd(PMI)  svd(M*)")
for name, (a_, n_) in sorted(per.items(), key=lambda kv: -kv[1][0]):
    print(f"  {name:28s} {100 * a_:5.1f}%   {100 * per_m[name][0]:5.1f}%  (n={n_:,})")
alive = [name for name, (a_, _) in sorted(per.items(), key=lambda kv: -kv[1][0]) if a_ > 0.05]
prose(f"At $V$ = {V0:,} svd(PMI) scores above 5% only on: {', '.join(alive) or 'no category'}.")

# %% [markdown]
# <details><summary>Solution 4</summary>
#
# Without $\sqrt\lambda$ every kept direction has the same weight, so the low eigenvectors — noisier, and
# carrying finer contrasts — count as much as the top ones in every cosine. The cell scores $Q_{[d]}$ alone.
#
# </details>

# %%
Q0 = eig["svd_mstar"][1][:, : S["d"]]
acc_unscaled = q.analogy_accuracy(words0, Q0)[0]
rep.close(
    "qwem.bench.solution.4_orthonormal",
    "the unscaled embedding Q_[d] has orthonormal columns",
    value=float(np.abs(Q0.T @ Q0 - np.eye(S["d"])).max()),
    target=0.0,
    tol=1e-6,
    kind="consistency",
)
prose(
    f"svd($M^\\star$) at $V$ = {V0:,}, $d$ = {S['d']}: {100 * acc(V0, 'svd_mstar'):.1f}% with $\\sqrt\\lambda$, "
    f"{100 * acc_unscaled:.1f}% without."
)

# %% [markdown]
# <details><summary>Solution 5</summary>
#
# With one worker thread there is no race between threads, and gensim's random draws come from its seeded
# generators, so two runs in the same process give identical vectors. (Across processes gensim seeds each
# word's initial vector with Python's `hash` of the word, which changes between processes unless
# `PYTHONHASHSEED` is fixed.)
#
# </details>

# %%
runs = [
    q.train_word2vec(
        "enwiki2015_1m7",
        S["small_repeat_V"],
        S["small_repeat_d"],
        negative=1,
        workers=1,
        epochs=1,
        use_cache=False,
    )[1]
    for _ in range(2)
]
rep.check(
    "qwem.bench.solution.5_one_worker_identical",
    "two gensim runs with workers=1 in one process give bit-identical vectors",
    value=float(np.abs(runs[0] - runs[1]).max()),
    passed=bool(np.array_equal(runs[0], runs[1])),
    tolerance="exact",
    kind="consistency",
)
