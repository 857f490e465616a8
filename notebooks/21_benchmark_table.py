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
# $V$ = 2,000 and $V$ = 10,000. Trained QWEM and the book's own SGNS are the subject of Part II's training
# chapters (23–25), which train them on the same statistics; their rows are not repeated here.
#
# **Which paper numbers.** The "paper" column is the paper's printed Figure 3b table (analogies 68.0 / 65.1
# / 66.3 / 50.6 / 8.4% for word2vec, QWEM, svd($M^\star$), svd(PPMI), svd(PMI)). The authors' Figure 3
# notebook prints slightly different numbers from the same runs (analogies 67.9 / 65.0 / 66.5 / 50.7 /
# 8.6%, MEN .743 / .753 / .756 / .744 / .444, WS353 .696 / .681 / .683 / .690 / .203); where the book
# quotes those, it names them as the authors' notebook's.
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
        more_epochs=2,
        grid_corpus="enwiki2015_1m7",
        grid_V=1_000,
        grid_d=50,
        grid_samples=(0.0, 1e-5),
        grid_epochs=(1, 2),
        grid_seeds=(0, 1, 2),
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
        more_epochs=10,
        grid_corpus="enwiki2015_1m7",
        grid_V=2_000,
        grid_d=100,
        grid_samples=(0.0, 1e-5),
        grid_epochs=(2, 8),
        grid_seeds=(0, 1, 2),
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
        more_epochs=20,
        grid_corpus="enwiki2015_17m",
        grid_V=2_000,
        grid_d=200,
        grid_samples=(0.0, 1e-4, 1e-5),
        grid_epochs=(5, 10, 20),
        grid_seeds=(0, 1, 2),
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
display(Markdown("\n".join(lines)))
for V in S["Vs"]:
    _ = rep.check(
        f"qwem.bench.table_v{V}",
        f"V={V:,}: the table's scores (analogies on the pairs protocol, MEN and WS353 Spearman rho), "
        "pinned",
        value={
            m: {b: round(float(rows[(V, m)][b][0]), 4) for b in ("analogy", "men", "ws353")}
            for m in q.METHODS
        },
        passed=True,
        tolerance="recorded",
        kind="record",
    )

# %% [markdown]
# The "paper" column is the paper's printed Figure 3b table at $V$ = 10,000 and 2.0B tokens (its word2vec
# row is SGNS with $k = 1$), not the authors' notebook outputs; it is repeated on the $V$ = 2,000 rows only
# for reference. Trained QWEM (paper: 65.1%) is built in chapters 23–24.

# %% [markdown]
# **The guard's share is no diagnosis.** Chapter 14 finds that on the never-seen pairs, at the authors'
# guard value $\log 10^{-25} \approx -57.6$, lies most of the guarded PMI's squared Frobenius norm. The cell
# measures that share at both values of $V$ next to svd(PMI)'s score: if the share alone decided the
# collapse, svd(PMI) would collapse at both.

# %%
guard_share = {}
for V in S["Vs"]:
    _, P_, p_ = q.cooccurrence(corpus, V)
    tot = unseen = 0.0
    for r0 in range(0, V, 1_000):
        blk = np.log(P_[r0 : r0 + 1_000] / np.outer(p_[r0 : r0 + 1_000], p_) + 1e-25)
        tot += float(np.sum(blk**2))
        unseen += float(np.sum(blk[P_[r0 : r0 + 1_000] == 0] ** 2))
    guard_share[V] = unseen / tot
    del P_, blk
_ = rep.check(
    "qwem.bench.guard_share",
    "share of the guarded PMI's squared Frobenius norm on never-seen pairs, per V, with svd(PMI)'s "
    "analogy accuracy",
    value={
        f"V={V}": {"guard_share": round(guard_share[V], 5), "svd_pmi": round(acc0, 4)}
        for V, acc0 in ((V, rows[(V, "svd_pmi")]["analogy"][0]) for V in S["Vs"])
    },
    passed=True,
    tolerance="recorded",
    kind="record",
)
prose(
    "; ".join(
        f"$V$ = {V:,}: the never-seen pairs carry {100 * guard_share[V]:.2f}% of the squared norm and "
        f"svd(PMI) scores {100 * rows[(V, 'svd_pmi')]['analogy'][0]:.1f}%"
        for V in S["Vs"]
    )
    + ". A share near 100% goes with a collapse at one $V$ and not at the other, so the share is no "
    "diagnosis of the collapse; chapter 14 tests the guard directly by zeroing it."
)

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
# ## 5. A fair baseline: is word2vec handicapped by its settings?
#
# The table's gensim runs use subsampling $10^{-5}$ and 5 epochs. Subsampling removes most tokens of
# frequent words (section 1), so the baseline sees fewer and different pairs than svd($M^\star$), and 5
# epochs may be too few. Two measurements, each changing one setting at a time:
#
# * **More epochs on the table's corpus.** The $k = 1$ run at the smaller $V$ once more with more epochs
#   (everything else as in the table). svd($M^\star$) is then compared with the best of the three gensim
#   runs at that $V$ by the book's one rule (`qwem_lib.is_competitive`: at most `margin` below, the margin
#   the larger of three binomial standard errors of the gap and gensim's re-run spread of section 4).
# * **A grid** of subsampling × epochs × $k$ ∈ {1, 5}, three seeds per cell (one worker thread, so a seed
#   fixes the run and the seeds' spread is the training noise). The grid costs epochs × tokens × $d$ per
#   run, so the book preset runs it on the 1.7M-token corpus at $d$ = 100 (svd($M^\star$) compared at the
#   same $d$); the paper preset runs it on 17M tokens at $d$ = 200 with $10^{-4}$ added and 5–20 epochs.

# %%
w_, W_, info_more = q.train_word2vec(
    corpus, V0, S["d"], negative=1, sample=1e-5, epochs=S["more_epochs"]
)
acc_more = q.analogy_accuracy(w_, W_)[0]
cands = {"w2v_k1": acc(V0, "w2v_k1"), "w2v_k5": acc(V0, "w2v_k5"), "w2v_k1_more": acc_more}
best_name = max(cands, key=cands.get)
acc_best = cands[best_name]
ok, margin = q.is_competitive(acc(V0, "svd_mstar"), acc_best, n0, rerun_spread=rerun_spread)
_ = rep.above(
    f"qwem.bench.mstar_competitive_best_w2v_v{V0}",
    f"V={V0:,}: svd(M*) is competitive with the best of the table's gensim runs and a k=1 run with "
    f"{S['more_epochs']} epochs (best: {best_name}) on analogies (the book's one rule; margin "
    f"{margin:.3f})",
    value=acc(V0, "svd_mstar") - acc_best,
    bound=-margin,
    kind="finding",
)
prose(
    f"At $V$ = {V0:,} on {S['corpus']}: gensim $k = 1$ scores {100 * acc(V0, 'w2v_k1'):.1f}% with 5 epochs "
    f"and {100 * acc_more:.1f}% with {S['more_epochs']}; $k = 5$ {100 * acc(V0, 'w2v_k5'):.1f}%. "
    f"svd($M^\\star$) scores {100 * acc(V0, 'svd_mstar'):.1f}%, "
    f"{100 * (acc(V0, 'svd_mstar') - acc_best):+.1f} points from the best run (margin {100 * margin:.1f})."
)

# %%
gc = q.load_corpus(S["grid_corpus"])
gV, gd = S["grid_V"], S["grid_d"]
grid = {}
for k in (1, 5):
    for sample in S["grid_samples"]:
        for epochs in S["grid_epochs"]:
            accs = []
            for seed in S["grid_seeds"]:
                w_, W_, _ = q.train_word2vec(
                    gc, gV, gd, negative=k, sample=sample, epochs=epochs, workers=1, seed=seed
                )
                accs.append(q.analogy_accuracy(w_, W_)[0])
            grid[(k, sample, epochs)] = np.array(accs)
gn = q.analogy_accuracy(*q.method_embeddings("svd_mstar", gc, gV, gd))
acc_gm, n_g = gn[0], gn[1]
lines = [
    f"| k | sample | epochs | analogies, mean over {len(S['grid_seeds'])} seeds | seed range |",
    "|---|---|---|---|---|",
]
for (k, sample, epochs), a_ in grid.items():
    lines.append(
        f"| {k} | {sample:g} | {epochs} | {100 * a_.mean():.1f}% | {100 * a_.min():.1f}–"
        f"{100 * a_.max():.1f}% |"
    )
lines.append(f"| — | — | — | svd($M^\\star$): {100 * acc_gm:.1f}% (n={n_g:,}) | |")
display(Markdown("\n".join(lines)))
best_cell = max(grid, key=lambda c: grid[c].mean())
seed_spread = float(max(np.ptp(a_) for a_ in grid.values()))
ok_g, margin_g = q.is_competitive(acc_gm, grid[best_cell].mean(), n_g, rerun_spread=seed_spread)
epoch_gain = {
    (k, sample): grid[(k, sample, max(S["grid_epochs"]))].mean()
    - grid[(k, sample, min(S["grid_epochs"]))].mean()
    for k in (1, 5)
    for sample in S["grid_samples"]
}
_ = rep.check(
    f"qwem.bench.grid_{S['grid_corpus']}_v{gV}",
    f"gensim grid on {S['grid_corpus']} (V={gV:,}, d={gd}): mean analogy accuracy per (k, sample, "
    f"epochs) over {len(S['grid_seeds'])} seeds, the largest seed range, and svd(M*)",
    value={
        "cells": {
            f"k={k}, sample={sm:g}, epochs={ep}": round(float(a_.mean()), 4)
            for (k, sm, ep), a_ in grid.items()
        },
        "best": f"k={best_cell[0]}, sample={best_cell[1]:g}, epochs={best_cell[2]}",
        "best_mean": round(float(grid[best_cell].mean()), 4),
        "seed_spread": round(seed_spread, 4),
        "svd_mstar": round(float(acc_gm), 4),
        "svd_mstar_minus_best": round(float(acc_gm - grid[best_cell].mean()), 4),
        "margin": round(float(margin_g), 4),
    },
    passed=True,
    tolerance="recorded",
    kind="record",
)
prose(
    f"On {S['grid_corpus']} at $V$ = {gV:,}: gensim's best cell is $k$ = {best_cell[0]}, sample = "
    f"{best_cell[1]:g}, {best_cell[2]} epochs, {100 * grid[best_cell].mean():.1f}% (largest seed range in the "
    f"grid {100 * seed_spread:.1f} points); svd($M^\\star$) scores {100 * acc_gm:.1f}% "
    f"({100 * (acc_gm - grid[best_cell].mean()):+.1f} points, margin {100 * margin_g:.1f}). More epochs change "
    "the mean by "
    + ", ".join(f"{100 * g_:+.1f} (k = {k}, sample {sm:g})" for (k, sm), g_ in epoch_gain.items())
    + " points. "
    + (
        "At this corpus size gensim is far below svd($M^\\star$) in every cell, so the comparison could "
        "not have gone the other way: it is recorded, not counted as a finding; the grid's use is to show "
        "which settings matter (more epochs, less subsampling) and the seed-to-seed spread."
        if acc_gm - grid[best_cell].mean() > 2 * margin_g
        else "Here the difference is inside the margin, so this small grid cannot order svd($M^\\star$) and "
        "gensim; the 17M-token comparison above is the one that can."
    )
)

# %% [markdown]
# ## 6. The out-of-vocabulary rule moves the table
#
# The simpler rule removes every token outside the top $V$ before windowing (`oov="drop"`); the authors,
# and this book, remove only those outside the top 20,000 (chapter 20). The svd rows under both rules (at the
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
        ax, f"{S['corpus']}, V = {V:,}, d = {S['d']}", "benchmark", r"accuracy / Spearman $\rho$"
    )
handles, labs = axes[0].get_legend_handles_labels()
_ = fig.legend(handles, labs, loc="outside lower center", ncol=3, fontsize=8)

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
  competitive with word2vec by the book's rule (sections 4–5), also against a $k = 1$ run with more epochs; the
  grid of section 5 shows that epochs and subsampling move gensim by many points, so "competitive" is with a
  gensim given more epochs than the table's, not with its best possible setting at this corpus size.
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
* **Trained rows.** Trained QWEM and this book's own SGNS are trained in Part II (chapters 23–25) on the
  same statistics; this chapter compares the closed forms with gensim only.
* This chapter ran in {(time.time() - T_START) / 60:.1f} minutes (gensim runs and spectra are cached by inputs)."""
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
# 1. *(compute, ★★)* Add svd of the *shifted* PPMI, $\max(\mathrm{PMI} - \log k, 0)$ with $k = 5$ (Levy & Goldberg). Where
#    does it land relative to svd(PPMI) and svd($M^\star$) at the smaller $V$, and why?
# 2. *(compute, ★)* Score the analogies with 3CosMul instead of 3CosAdd (`analogy_accuracy(..., rule="mul")`). Does the
#    order of the svd methods change?
# 3. *(compute, ★)* Per category (`analogy_accuracy(..., per_category=True)`): which categories does svd(PMI) still get
#    right at the smaller $V$, and why?
# 4. *(compute, ★)* Drop the $\sqrt\lambda$ scaling (use $Q_{[d]}$ alone). What happens to svd($M^\star$)'s scores?
# 5. *(compute, ★)* Run gensim with `workers=1` twice in the same process. Are the vectors now identical?

# %% [markdown]
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# Shifting by $\log 5 \approx 1.61$ before clipping zeroes every entry with PMI below 1.61: the matrix
# keeps only strongly associated pairs and is much sparser than PPMI. It need not land *between* the two
# other methods: the cell computes its svd at the smaller $V$ and prints the three scores side by side, and
# on this corpus it lands below both — throwing away the moderately associated pairs loses more than the
# shift gains. (The shift is Levy and Goldberg's account of word2vec's *unconstrained* optimum with $k$
# negatives; a rank-$d$ truncation of it is a different object.)
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
lo_, hi_ = sorted((acc(V0, "svd_ppmi"), acc(V0, "svd_mstar")))
where_ = "below both" if acc_s < lo_ else ("above both" if acc_s > hi_ else "between the two")
prose(
    f"$V$ = {V0:,}, $d$ = {S['d']}: svd(shifted PPMI) {100 * acc_s:.1f}%, svd(PPMI) "
    f"{100 * acc(V0, 'svd_ppmi'):.1f}%, svd($M^\\star$) {100 * acc(V0, 'svd_mstar'):.1f}%: {where_}."
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
# The cell lists the per-category accuracy of svd(PMI) next to svd($M^\star$)'s and checks that the
# micro-average is recovered from it. At this $V$ the analogy set is small (a few hundred analogies from a
# handful of categories), and svd(PMI) is near zero almost everywhere: the few categories where it keeps a
# few percent rest on very few distinct word pairs (the count of pairs is printed), too few to say *why*
# those categories survive. A story such as "topical pairs survive the $-57.6$ entries" would need many
# more pairs per category to test; the answer here is only the list.
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
pairs_in = {name: int(round((1 + np.sqrt(1 + 4 * n_)) / 2)) for name, (_, n_) in per.items()}
prose(
    f"At $V$ = {V0:,} svd(PMI) scores above 5% only on: "
    + (", ".join(f"{a} ({pairs_in[a]} distinct pairs)" for a in alive) or "no category")
    + "."
)

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
# generators, so two runs give identical vectors. gensim 4.4 draws the initial vectors from
# `np.random.default_rng(seed)` (its `prep_vectors`), not from Python's `hash` of each word as gensim 3
# did, so the same holds across processes without fixing `PYTHONHASHSEED`; the one source of run-to-run
# difference is thread scheduling with more than one worker (section 4).
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
_ = rep.check(
    "qwem.bench.solution.5_one_worker_identical",
    "two gensim runs with workers=1 in one process give bit-identical vectors",
    value=float(np.abs(runs[0] - runs[1]).max()),
    passed=bool(np.array_equal(runs[0], runs[1])),
    tolerance="exact",
    kind="consistency",
)
