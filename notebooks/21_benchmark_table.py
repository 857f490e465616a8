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
# The paper's Figure 3b compares five embeddings of the 10,000 most frequent words in $d = 200$
# dimensions, trained on 2.0B tokens of Wikipedia: word2vec (SGNS), trained QWEM, and three closed-form
# "svd" embeddings — the top eigenvectors of M*, PPMI and PMI, each scaled by $\sqrt{\lambda}$. Its claim:
#
# * **svd(M*) is nearly as good as word2vec** (66.3% against 68.0% on Google analogies), so the
#   quadratic theory's closed form is a usable embedding;
# * **svd(PMI) fails** (8.4%), although word2vec is often said to factorise PMI; PPMI sits between (50.6%).
#
# This chapter rebuilds the table on the book's corpora: 17M tokens (book preset) instead of 2.0B, at
# V = 2,000 and V = 10,000. The rows "trained QWEM" and "this book's SGNS" are left for the chapters that
# train them; they are marked as not built yet, not filled in.
#
# **Why svd(PMI) fails.** Pairs never seen together get PMI $= \log 10^{-25} \approx -57.6$. These huge
# entries dominate the PMI matrix and its top eigenvectors; M* caps them at $-2$ ($M^\star =
# 2\tanh(\mathrm{PMI}/2)$, chapter 20) and PPMI at 0. The fewer tokens a corpus has, the more pairs are
# unseen, so the effect is *stronger* on our small corpus.

# %%
import time

import numpy as np
from tqdm import tqdm

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.report import Report

plotting.use_style()
rep = Report("21_benchmark_table")
S = config.sizes(
    smoke=dict(corpus="enwiki2015_1m7", Vs=(1_000, 2_000), d=50, repeat_corpus="enwiki2015_1m7", repeat_V=1_000,
               repeat_d=50),
    book=dict(corpus="enwiki2015_17m", Vs=(2_000, 10_000), d=200, repeat_corpus="enwiki2015_1m7", repeat_V=1_000,
              repeat_d=50),
    paper=dict(corpus="enwiki2015_70m", Vs=(2_000, 10_000), d=200, repeat_corpus="enwiki2015_17m",
               repeat_V=2_000, repeat_d=200),
)
print(S)
BENCH = ("analogy", "analogy_questions", "men", "ws353")

# %% [markdown]
# ## 1. The protocol
#
# * **Statistics** — chapter 20: window 16, weights $17-j$, top-$V$ words, $P_i$ the renormalised unigram.
# * **svd(X)** — top-$d$ eigenpairs of $X \in \{M^\star, \mathrm{PPMI}, \mathrm{PMI}\}$; $W = U_d\Lambda_d^{1/2}$.
# * **word2vec** — gensim skip-gram, negative sampling with $k = 1$ (the paper's setting) and $k = 5$
#   (gensim's usual), subsampling $10^{-5}$, window 16, 5 epochs, on the same top-$V$ token stream
#   (`qwem_lib.w2v`: out-of-vocabulary tokens dropped, as the statistics do). gensim's random window
#   shrinking uses a context at distance $j$ with probability $(17-j)/16$: the same linear weights.
# * **Analogies** — the authors' protocol: in each category, every ordered pair of distinct in-vocabulary
#   word pairs; 3CosAdd over the whole vocabulary without the three query words; micro-average. We also
#   score the original question list (only questions with all four words in the vocabulary).
# * **Similarity** — Spearman's ρ of cosine similarity on the MEN and WS353 pairs inside the vocabulary.
#
# Every score comes with $n$, the number of items it is computed on.

# %%
rows: dict[tuple[int, str], dict[str, tuple[float, int]]] = {}
times: dict[tuple[int, str], float] = {}
for V in S["Vs"]:
    for m in tqdm(sorted(q.METHODS, key=lambda m: m.startswith("w2v")), desc=f"V={V:,}"):
        t0 = time.time()
        words, W = q.method_embeddings(m, S["corpus"], V, S["d"])
        rows[(V, m)] = q.evaluate_all(words, W)
        times[(V, m)] = time.time() - t0
print("embeddings come from the cache when their inputs were seen before; seconds this run:",
      {f"{V}/{m}": round(t, 1) for (V, m), t in times.items()})

# %% [markdown]
# ## 2. The table

# %%
def fmt(score, n, pct):
    return f"{100 * score:5.1f}% (n={n:,})" if pct else f"{score:.3f} (n={n:,})"


paper_key = {"w2v_k1": "word2vec", "svd_mstar": "svd_mstar", "svd_ppmi": "svd_ppmi", "svd_pmi": "svd_pmi"}
lines = ["| V | method | analogies (pairs) | analogies (questions) | MEN | WS353 | paper: analogies / MEN / WS353 |",
         "|---|---|---|---|---|---|---|"]
for V in S["Vs"]:
    for m, label in q.METHODS.items():
        r = rows[(V, m)]
        p = q.PAPER_FIG3B.get(paper_key.get(m, ""), None)
        ptxt = f"{100 * p['analogy']:.1f}% / {p['men']:.3f} / {p['ws353']:.3f}" if p else "—"
        lines.append(f"| {V:,} | {label} | " + " | ".join(fmt(*r[b], b.startswith("analogy")) for b in BENCH)
                     + f" | {ptxt} |")
    lines.append(f"| {V:,} | trained QWEM | *not built yet (Part I trains QWEM on small V only)* | | | | "
                 f"{100 * q.PAPER_FIG3B['QWEM']['analogy']:.1f}% / {q.PAPER_FIG3B['QWEM']['men']:.3f} / "
                 f"{q.PAPER_FIG3B['QWEM']['ws353']:.3f} |")
    lines.append(f"| {V:,} | this book's SGNS | *not built yet* | | | | — |")
table = "\n".join(lines)
print(table)
from IPython.display import Markdown, display  # noqa: E402

display(Markdown(table))

# %% [markdown]
# The "paper" column is the paper's Figure 3b at V = 10,000 and 2.0B tokens (its word2vec row is SGNS
# with $k = 1$); it is repeated on the V = 2,000 rows only for reference.

# %% [markdown]
# ## 3. What the table supports
#
# We check, at every V of the preset:
#
# 1. the number of evaluation items in the vocabulary (for enwiki2015_17m the data README lists them);
# 2. **svd(M*) is above svd(PMI) on analogies** by more than three binomial standard errors (and at
#    least 5 points) — the paper's main contrast; how *far* above depends on the corpus and on V, and the
#    table shows it. (The analogies of the pairs protocol share words, so they are not independent; the
#    binomial error is a rough guide, which is why we ask for three of them.) On MEN and WS353 the
#    gap between svd(M*) and svd(PMI) is much smaller on our corpus than in the paper and not stable
#    across V and corpus size, so the table reports it without a claim;
# 3. **svd(M*) is competitive with word2vec** — at most 10 points below the better of the two gensim
#    runs (above it is fine: the paper's point is that the closed form is a usable embedding);
# 4. the full ordering of the five methods on analogies, as measured here (it is *not* the paper's).

# %%
if S["corpus"] == "enwiki2015_17m":
    corpus = q.load_corpus(S["corpus"])
    readme = {2_000: dict(analogy_questions=493, men=233, ws353=92),
              10_000: dict(analogy_questions=5_265, men=1_363, ws353=263)}
    for V in S["Vs"]:
        r = rows[(V, "svd_mstar")]
        ok_q = r["analogy_questions"][1] == readme[V]["analogy_questions"] and r["ws353"][1] == readme[V]["ws353"]
        # MEN: the README ranks words tied in count at the V-th place differently from the data layer
        # (which breaks ties alphabetically); allow exactly the pairs that involve such tied words.
        cut = corpus.counts[V - 1]
        tied = {w for w, c in zip(corpus.words, corpus.counts) if c == cut}
        men_pairs, _ = q.similarity_pairs(corpus.vocab(V), "men")
        vocab = corpus.vocab(V)
        n_tied = int(sum(vocab[a] in tied or vocab[b] in tied for a, b in men_pairs))
        ok_men = r["men"][1] - n_tied <= readme[V]["men"] <= r["men"][1]
        rep.check(f"qwem.bench.coverage_v{V}",
                  f"in-vocabulary counts at V={V:,} match the data README (Google questions, WS353 exactly; "
                  f"MEN up to pairs with words tied in count at rank V)",
                  value=dict(questions=r["analogy_questions"][1], men=r["men"][1], ws353=r["ws353"][1],
                             men_pairs_with_tied_words=n_tied),
                  passed=bool(ok_q and ok_men), tolerance="exact / tie band")
    print("MEN at V=10,000: the tie group at the cut-off holds", len(tied), "words of count", cut)

# %%
for V in S["Vs"]:
    acc = {m: rows[(V, m)]["analogy"][0] for m in q.METHODS}
    n = rows[(V, "svd_mstar")]["analogy"][1]
    se = np.sqrt((acc["svd_mstar"] * (1 - acc["svd_mstar"]) + acc["svd_pmi"] * (1 - acc["svd_pmi"])) / n)
    margin = max(0.05, 3 * se)
    rep.above(f"qwem.bench.mstar_beats_pmi_v{V}",
              f"V={V:,}: analogy accuracy of svd(M*) minus svd(PMI) exceeds max(5 points, 3 binomial SE = "
              f"{3 * se:.3f})", value=acc["svd_mstar"] - acc["svd_pmi"], bound=margin, paper=0.663 - 0.084)
    best_w2v = max(acc["w2v_k1"], acc["w2v_k5"])
    rep.above(f"qwem.bench.mstar_competitive_v{V}",
              f"V={V:,}: svd(M*) is at most 10 points below the best gensim word2vec on analogies "
              f"(value = svd(M*) - best word2vec; paper: -1.7 points)",
              value=acc["svd_mstar"] - best_w2v, bound=-0.10, paper=0.663 - 0.680)

# %% [markdown]
# **The ordering.** The paper's order on analogies is word2vec > QWEM, svd(M*) > svd(PPMI) > svd(PMI).
# On our 17M-token corpus (book preset) we measured a different order, and we check that order so that a
# change in the code or data that moves it is noticed (at the smoke preset the corpus is too small for
# the order to be stable, so the check is made only at the book preset; the paper preset records the
# measured order without a check, as we have not run it). At V = 10,000 svd(M*), word2vec $k=5$ and
# svd(PPMI) are within about one point of each other — a tie at this $n$ — so the checked chain leaves
# out the two that sit inside the tie:

# %%
measured = {V: sorted(q.METHODS, key=lambda m: -rows[(V, m)]["analogy"][0]) for V in S["Vs"]}
for V in S["Vs"]:
    print(f"V={V:,}: " + " > ".join(f"{m} {100 * rows[(V, m)]['analogy'][0]:.1f}%" for m in measured[V]))
BOOK_ORDER = {2_000: ("svd_ppmi", "svd_mstar", "w2v_k1", "svd_pmi"),
              10_000: ("svd_mstar", "w2v_k1", "svd_pmi")}  # svd(PPMI), word2vec k=5 and svd(M*) tie here
if config.preset() == "book":
    for V in S["Vs"]:
        names = BOOK_ORDER[V]
        rep.ordered(f"qwem.bench.order_v{V}", f"V={V:,}: analogy ordering measured on enwiki2015_17m",
                    names=names, values=[rows[(V, m)]["analogy"][0] for m in names],
                    paper="word2vec 68.0 > svd(M*) 66.3 > QWEM 65.1 > svd(PPMI) 50.6 > svd(PMI) 8.4")

# %%
fig, axes = plotting.figure(1, len(S["Vs"]), width=5.6, height=4.2, sharey=True)
axes = np.atleast_1d(axes)
labels = {"analogy": "analogies\n(pairs)", "analogy_questions": "analogies\n(questions)", "men": "MEN ρ",
          "ws353": "WS353 ρ"}
x = np.arange(len(BENCH))
width = 0.16
for ax, V in zip(axes, S["Vs"]):
    for i, (m, label) in enumerate(q.METHODS.items()):
        vals = [rows[(V, m)][b][0] for b in BENCH]
        ax.bar(x + (i - 2) * width, vals, width, color=plotting.PALETTE[i], label=label)
    for i, m in enumerate(q.METHODS):
        p = q.PAPER_FIG3B.get(paper_key.get(m, ""), None)
        if p is not None:
            ax.scatter(x[[0, 2, 3]] + (i - 2) * width, [p["analogy"], p["men"], p["ws353"]], marker="_", s=120,
                       color="black", zorder=3, label="paper (2.0B tokens, V=10k)" if i == 0 else None)
    ax.set_xticks(x, [labels[b] for b in BENCH])
    plotting.label(ax, f"{S['corpus']}, V = {V:,}, d = {S['d']}", "benchmark", "accuracy / Spearman ρ")
handles, labs = axes[0].get_legend_handles_labels()
fig.legend(handles, labs, loc="outside lower center", ncol=3, fontsize=8)

# %% [markdown]
# **Figure 21.1** — The benchmark table as grouped bars: analogy accuracy (two protocols) and Spearman ρ
# on MEN and WS353, for word2vec ($k=1$, $k=5$) and the three svd embeddings. Black ticks: the paper's
# numbers at V = 10,000 on 2.0B tokens (drawn in both panels for reference; the paper has no V = 2,000
# column and no "questions" column).

# %% [markdown]
# ## 4. gensim is not bit-reproducible
#
# With two worker threads gensim updates the shared weights without locks, so two runs with the same seed
# give different vectors. We train the same small model twice, bypassing the cache, and compare the
# scores: the run-to-run spread must be small against the gaps the claims above rely on.

# %%
acc_rep = []
for _ in range(2):
    w_, W_, _ = q.train_word2vec(S["repeat_corpus"], S["repeat_V"], S["repeat_d"], negative=1, use_cache=False)
    acc_rep.append(q.analogy_accuracy(w_, W_))
print("two runs, same seed, 2 threads:", acc_rep)
rep.below("qwem.bench.w2v_rerun_spread",
          f"two seeded 2-thread gensim runs ({S['repeat_corpus']}, V={S['repeat_V']:,}) differ by < 5 points",
          value=abs(acc_rep[0][0] - acc_rep[1][0]), bound=0.05)

# %% [markdown]
# ## Discussion
#
# * **What holds.** svd(PMI) collapses on analogies and on similarity, exactly as in the paper, and
#   svd(M*) stays close to word2vec. The reason is the one chapter 20 made visible: unseen pairs. PMI
#   puts $-57.6$ where M* puts $-2$.
# * **What differs, and why.** Our corpus has 17M tokens, the paper's 2.0B — 120 times more. Word2vec
#   and svd(M*) both score lower than in the paper, and on this small corpus svd(PPMI) is *at least as
#   good as* svd(M*) on analogies (4 points ahead at V = 2,000, level at V = 10,000), where the paper
#   has it 16 points behind. Two mechanisms play a role.
#   First, with few tokens, most word pairs of rare words are never seen: M* is $-2$ on a large block
#   whose structure is noise, while PPMI is 0 there and ignores it. Second, the analogy set
#   at V = 10,000 reaches into rare words, whose statistics are the noisiest. Chapter 22 follows the
#   scores as the corpus grows from 1.7M to 70M tokens.
# * **svd(PMI) at V = 10,000.** On our corpus svd(PMI) is poor at V = 2,000, as in the paper, but much
#   less poor at V = 10,000. The difference is the share of unseen pairs (chapter 20: about 6% at
#   V = 2,000, about 72% at V = 10,000). When unseen pairs are few and scattered, their $-57.6$ entries
#   are loud noise and wreck the top eigenvectors. When most pairs are unseen, the pattern of *which*
#   words ever share a window is itself topical, and the top eigenvectors of PMI pick up that pattern.
#   This is a hypothesis the table suggests, not a theorem: chapter 22 follows svd(PMI) across corpus
#   sizes and finds that even 70M tokens leave V = 10,000 in the second regime.
# * **Word2vec** here is gensim's SGNS with its own learning-rate schedule and 5 epochs, not the authors'
#   tied-embedding SGNS trained for millions of steps; $k = 1$ matches the paper's setting.
# * **Missing rows.** Trained QWEM and this book's own SGNS at $V = 10{,}000$, $d = 200$ are not built
#   yet; their rows are left empty on purpose.
#
# ## Exercises
#
# 1. Add svd of the *shifted* PMI, $\mathrm{PMI} - \log k$ with $k = 5$ (Levy & Goldberg), clipped at 0.
#    Where does it land between PPMI and M*?
# 2. Score the analogies with 3CosMul instead of 3CosAdd. Does the ordering change?
# 3. Per category (`analogy_accuracy(..., per_category=True)`): which categories does svd(PMI) still get
#    right, and why?
# 4. Drop the $\sqrt\lambda$ scaling (use $U_d$ alone). What happens to svd(M*)'s scores?
# 5. Run gensim with `workers=1` twice. Are the vectors now identical?
