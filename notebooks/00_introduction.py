# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 00 · How neural networks learn features: a book you can run
#
# This book teaches two recent results on *what* a neural network learns and *in which order*, derives
# them, and checks every one of their claims numerically. Each chapter is a notebook. Change a number,
# re-run it, and the assertions tell you whether the mathematics still holds.
#
# **Part I–II — word embeddings in closed form.** Karkada, Simon, Bahri and DeWeese (2025),
# *Closed-Form Training Dynamics Reveal Learned Features and Linear Structure in Word2Vec-like Models*.
# Replace word2vec's logistic loss by its quartic Taylor expansion (the *quadratic word embedding
# model*, QWEM), choose the reweighting of positive and negative pairs well, and the loss becomes plain
# symmetric matrix factorisation of a target $M^\star$ built from co-occurrence statistics. From a small
# random start, gradient flow then learns the eigenvectors of $M^\star$ one at a time, largest first.
#
# **Part IV — feature collapse.** Laurent, von Brecht and Bresson (ICLR 2024), *Feature Collapse*.
# In a toy language where words belong to latent concepts, a trained network gives all words of a
# concept the same embedding. Without LayerNorm this fails for rare words of a long-tailed vocabulary;
# with LayerNorm it holds again. Their theorems give the collapsed configuration in closed form,
# down to the norms of the embeddings.
#
# ## Notation
#
# Every chapter uses these symbols in these meanings. A few letters carry a second meaning, as they do in
# the papers; the book keeps the papers' letters, lists each meaning below, and the context always settles
# which is meant.
#
# | symbol | meaning |
# |---|---|
# | $V$ | vocabulary size — and nothing else |
# | $d$ | embedding dimension ($d \ll V$) |
# | $W \in \mathbb{R}^{V\times d}$, rows $w_i$ | embeddings of the $V$ words; $s_k$ its singular values, $s_1 \ge s_2 \ge \dots$ |
# | $P_{ij}$, $P_i$ | co-occurrence and unigram probabilities |
# | $\Psi^{+}_{ij}$, $\Psi^{-}_{ij}$ | reweighting of positive and negative pairs |
# | $G$ | weights of the entries, $G_{ij} = \Psi^+_{ij}P_{ij} + \Psi^-_{ij}P_iP_j$ |
# | $g$ (scalar) | constant weight, $G = g\,\mathbf{1}\mathbf{1}^\top$ (Setting 3.1) |
# | $\mathbf{g} \in \mathbb{R}^V$ (vector) | rank-one weights, $G = \mathbf{g}\mathbf{g}^\top$, $\Gamma = \mathrm{diag}(\mathbf{g})^{1/2}$ (the paper's Proposition 2) |
# | $M^\star$ | the QWEM target (always with the star) |
# | $M^\star = Q\Lambda Q^\top$ | its eigendecomposition: eigenvalues $\lambda_1 \ge \lambda_2 \ge \dots$, eigenvectors $q_k$ (columns of $Q$), $Q_{[d]}$ the first $d$ columns, $\Lambda_{[d]}$ the top $d\times d$ block |
# | $O$ | an orthogonal matrix (a rotation of the embedding space) |
# | $t$, $\tau_k$ | time of gradient flow, characteristic time of mode $k$ |
# | $\sigma^2$ | variance of a random initialisation |
# | $n_c$, $n_w$, $L$, $K$ | Part IV (feature collapse): concepts, words, sentence length, latent variables |
# | $\lambda$ (Part IV only) | weight decay |
# | $h$, $h^\star$ | Part IV: the network without LayerNorm ($h$) and the same network with a LayerNorm on the word embeddings ($h^\star$), as in the paper (chapter 40) |
# | $P$ (two meanings) | in the text always a probability ($P_{ij}$, $P_i$); in a chapter's *code*, `P` is its dictionary of sizes for the active preset (`P = config.knobs(...)`, one line per size with its value at each preset), never a probability |
# | $\sigma$ (three meanings) | the scale of a random initialisation ($\sigma^2$ its variance, above); the logistic sigmoid $\sigma(x) = 1/(1+e^{-x})$ in word2vec's and SGNS's losses (chapters 23, 25); a standard deviation: of a word's coordinates inside a LayerNorm (Part IV) and of the entries of a random matrix (chapter 30) |
# | $K$ (two meanings) | Part IV: the number of latent variables, i.e. classes; chapter 23: $K_k$, the carrying capacity of a logistic growth $\dot s^2 = \lambda s^2(1 - s^2/K)$ |
# | $k$ (two meanings) | the index of a mode ($\lambda_k$, $q_k$, $\tau_k$); in word2vec and SGNS, the number of negative samples per positive pair ($k = 1$, $k = 5$; chapters 14, 21, 25, 50) |
# | $S$ | chapter 25: $S_k$, the sharpness of mode $k$'s step; elsewhere a sum or a set, defined where it is used |
#
# ## Running the book
#
# Sizes come from one environment variable, `QWEM_PRESET`:
#
# * `smoke` — seconds to a couple of minutes per chapter; the tests and CI use it.
# * `book` — the default; minutes per chapter on a laptop CPU. The committed notebooks show its outputs.
# * `paper` — the papers' own scale (for example $V = 10{,}000$, $d = 200$ on the 70M-token corpus). Use a GPU.
#
# The code path is the same in all three; only the numbers change. The device is CUDA when torch sees a GPU,
# else the CPU; `QWEM_DEVICE=cpu` forces the CPU. All randomness derives from one seed in `qwem_lib.book.config`.
#
# Data is found through `QWEM_DATA_DIR` (default `data/`). Every file is checked against its sha256 before
# use; a missing or damaged file stops with a message that says what is missing and how to get it.
#
# ## How the reproduction report works
#
# Each chapter opens a `Report`. Every claim is checked with it: the value is computed, compared with its
# tolerance, written to `reproduction/records/<chapter>.json`, and **asserted**. A false claim stops the
# notebook, which fails the tests. `make book` gathers the records into [REPRODUCTION.md](../REPRODUCTION.md)
# and `reproduction/claims.json`: paper value beside this book's value, with the preset and device.
#
# Every claim also says what kind of evidence it is:
#
# * a **finding** could come out otherwise if the paper or the mathematics were wrong — a theorem checked
#   on data it was not built from, a reproduced experiment, an ordering the paper claims;
# * a **consistency** check is an identity, an invariant or a self-check of the code (true by
#   construction when the code is right);
# * a **record** pins one of the book's own measured values, to catch drift.
#
# Only findings are evidence about the papers; the report counts them apart. Every claim of this
# chapter is a consistency check of the data layer.
#
# Numbers quoted in the prose are printed by the code (`report.prose`), so they cannot go stale.

# %%
import matplotlib.pyplot as plt
import numpy as np

from qwem_lib import analogy_categories, config, data, load_corpus, plotting, zipf_fit
from qwem_lib.book.contents import chapter_map
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("00_introduction")
# a knob that changes with the preset: config.per_preset(smoke, book, paper). The smoke preset reads only
# what ships with the book (data/shipped/), so it runs offline on a fresh clone
P = config.knobs(
    corpora=config.per_preset(
        ["enwiki2015_1m7"],
        ["enwiki2015_1m7", "enwiki2015_17m"],
        ["enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_70m"],
    ),
    zipf_corpus=config.per_preset("enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_70m"),
    coverage_corpus=config.per_preset("enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_17m"),
    vocab_sizes=[2_000, 5_000, 10_000],
)
print(P)
print("data directory:", data.data_dir())

# %% [markdown]
# ## Chapter map
#
# Every chapter of the book by part, read from the chapters' own headings when this chapter runs
# (`qwem_lib.book.contents`), so that a new chapter appears here by itself. Read the QWEM theory (chapters
# 1x) in order before the parts on real text, linear structure and beyond the papers; feature collapse
# (chapters 4x) stands on its own.

# %%
prose(chapter_map())

# %% [markdown]
# ## The data layer
#
# The corpora are English Wikipedia (2015), normalised with the *text8* recipe: lowercase letters and
# single spaces, digits spelled out. `load_corpus` verifies the compressed file, splits it into tokens and
# maps every token to its **frequency rank**: id 0 is the most frequent word. Restricting to the top-$V$
# words is then simply `ids < V`. The result is cached, keyed by the file checksums, so the second load
# is a memory map.
#
# The first claim of the book is modest: the data we load is the data the data sheet describes. Claims of
# this kind guard the code and the data, not the papers: the report files them as *consistency* checks
# (see the last section).

# %%
corpora = {}
for name in P["corpora"]:
    c = load_corpus(name)
    corpora[name] = c
    documented = data.dataset(name).tokens
    print(
        f"{name}: {c.n_tokens:,} tokens, {c.n_types:,} distinct words; first: {' '.join(c.words[:8])}"
    )
    rep.close(
        f"data.{name}.tokens",
        f"{name} has the token count its data sheet states",
        value=c.n_tokens,
        target=documented,
        tol=0,
        kind="consistency",
    )

# %% [markdown]
# The 17M-token corpus also has a documented number of distinct words.

# %%
if "enwiki2015_17m" in corpora:
    rep.close(
        "data.enwiki2015_17m.types",
        "enwiki2015_17m has 219,585 distinct words (data sheet)",
        value=corpora["enwiki2015_17m"].n_types,
        target=219_585,
        tol=0,
        kind="consistency",
    )

# %% [markdown]
# ## Zipf's law
#
# Word frequencies fall off as a power of their rank $r$: $f(r) \propto r^{-\alpha}$ with $\alpha \approx 1$
# (Zipf's law). On a log–log plot that is a straight line of slope $-\alpha$. We fit the slope over ranks
# $10$ to $10^4$, the range the book's vocabularies use; the very top ranks (function words) and the
# long tail of hapaxes bend away from the line, so we leave them out of the fit and show them in the
# figure. The claim: $\alpha$ lies within $0.15$ of $1$. A miscounted or unsorted vocabulary would give a
# slope far from $-1$, so this is a check of the data layer (a consistency check), not a result about
# language.

# %%
zc = load_corpus(P["zipf_corpus"]) if P["zipf_corpus"] not in corpora else corpora[P["zipf_corpus"]]
rank = np.arange(1, zc.n_types + 1)
fit = slice(9, 10_000)  # ranks 10 .. 10,000
slope, intercept = zipf_fit(zc.counts, lo=10, hi=10_000)
print(f"Zipf exponent alpha = {-slope:.3f} over ranks 10..10,000 of {zc.name}")
rep.close(
    "data.zipf_alpha",
    f"Zipf exponent of {zc.name} over ranks 10-10,000 is about 1",
    value=-slope,
    target=1.0,
    tol=0.15,
    kind="consistency",
)

fig, ax = plotting.figure()
ax.loglog(rank, zc.counts, lw=1.5, label="observed counts")
ax.loglog(
    rank[fit],
    np.exp(intercept) * rank[fit] ** slope,
    "--",
    lw=1.5,
    label=rf"fit: $f \propto r^{{{slope:.2f}}}$ (ranks 10–10⁴)",
)
ax.axvspan(10, 10_000, color="0.9", zorder=0)
plotting.label(ax, f"Rank-frequency plot of {zc.name}", "rank $r$", "count $f(r)$")
ax.legend()
plt.show()

# %% [markdown]
# **Figure 0.1** — Word counts against frequency rank in the book's main corpus, on log–log axes. The
# shaded band is the fitted range. The line of slope close to $-1$ is Zipf's law; the tail beyond rank
# $10^5$ is made of words seen once or twice.

# %% [markdown]
# ## How many evaluation items a vocabulary covers
#
# A word-embedding benchmark can only ask about words in the vocabulary. The data sheet lists how many of
# the 19,544 Google analogy questions have all four words among the top-$V$ words of `enwiki2015_17m`.
# We recompute that count; it tests the tokeniser and the frequency ranking together.

# %%
questions = [q for _, qs in analogy_categories() for q in qs]
documented_coverage = {
    "enwiki2015_17m": {2_000: 493, 5_000: 2_280, 10_000: 5_265}
}  # the data sheet
cc = corpora.get(P["coverage_corpus"]) or load_corpus(P["coverage_corpus"])
covered = []
for V in P["vocab_sizes"]:
    top = set(cc.vocab(V))
    n_in = sum(all(w in top for w in q) for q in questions)
    covered.append(n_in)
    print(f"{cc.name}, V = {V:>6,}: {n_in:,} of {len(questions):,} questions fully in vocabulary")
    if V in documented_coverage.get(cc.name, {}):
        rep.close(
            f"data.analogy_coverage_v{V}",
            f"Google analogy questions fully inside the top {V:,} words of {cc.name} (data sheet)",
            value=n_in,
            target=documented_coverage[cc.name][V],
            tol=0,
            kind="consistency",
        )
if (
    cc.name not in documented_coverage
):  # no documented counts for this corpus: check what must hold anyway
    rep.check(
        "data.analogy_coverage_grows",
        f"{cc.name}: questions in vocabulary never decrease as V grows",
        value=dict(zip(map(str, P["vocab_sizes"]), covered)),
        passed=all(a <= b for a, b in zip(covered, covered[1:])) and covered[-1] > 0,
        kind="consistency",
    )

# %% [markdown]
# ## Discussion
#
# Nothing here is deep, but everything later stands on it: a chapter that reports an analogy score over
# "$n$ questions" can be trusted only if the vocabulary and the question list are the ones we think. The
# same pattern — compute, compare with a stated tolerance, assert, record — runs through the whole book.
#
# The corpora are small by the standards of the QWEM paper (2.0 billion tokens): the largest here has 70
# million. Chapters 21 and 22 say what that changes.
#
# ## Exercises
#
# 1. *(compute, ★★)* Refit the Zipf exponent over ranks $1$–$100$ and $10^4$–$10^5$. Why do the slopes differ from the
#    middle range? What does the tail say about how many words occur only once?
# 2. *(explore, ★)* The text8 recipe spells digits out ("1998" → "one nine eight"). How does that show up in the top
#    ten words, and how might it affect a co-occurrence matrix?
# 3. *(compute, ★)* Set `QWEM_PRESET=smoke` and re-run this chapter. Which claims change, and why do none of them fail?
# 4. *(compute, ★)* Corrupt a copy of a corpus file (flip one byte) in a scratch data directory, point `QWEM_DATA_DIR`
#    at it and call `load_corpus`. Read the error message: does it tell you what to do?
#
#
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# Zipf's law is only approximate at both ends. At the head, the ranks $1$–$100$ are function words
# ("the", "of", "and"), whose frequencies are set by grammar, not by the topic mix, and the text8 digit
# words add a few very frequent tokens. In the tail, beyond rank $10^4$, the curve bends down: the corpus
# is finite, so the counts of rare words are small integers and a large share of the vocabulary occurs
# exactly once (hapax legomena). The cell below fits both ranges and counts the words seen once. The
# steeper tail means that growing the corpus keeps adding new rare words: a larger vocabulary never
# "fills up", which is why the book always cuts the vocabulary at a rank $V$.
#
# </details>

# %%
slope_head, _ = zipf_fit(zc.counts, lo=1, hi=100)
slope_tail, _ = zipf_fit(zc.counts, lo=10_000, hi=100_000)
n_hapax = int(np.sum(zc.counts == 1))
prose(
    f"On {zc.name}: slope {slope_head:.3f} over ranks 1–100, {slope:.3f} over ranks 10–10⁴, "
    f"{slope_tail:.3f} over ranks 10⁴–10⁵. {n_hapax:,} of its {zc.n_types:,} distinct words "
    f"({n_hapax / zc.n_types:.1%}) occur exactly once."
)
_ = rep.above(
    "data.solution.1.tail_steeper",
    "exercise 1: the rank-frequency curve is steeper over ranks 10⁴–10⁵ than over 10–10⁴ (slope difference)",
    value=slope - slope_tail,
    bound=0.2,
    kind="record",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# Spelled-out digits are among the most frequent tokens: every number in Wikipedia ("1998", "2,500")
# becomes a run of digit words, so "one", "zero", "two" and "nine" sit in the top ten next to "the" and
# "of" (the cell below lists them). In a co-occurrence matrix the digit words co-occur with each other
# very often (inside the same number) and with everything that is dated or counted. Their rows are
# large and similar, so they form a strong block of $M^\star$ — a "numbers" feature that a rank-$d$
# embedding learns early — and they blur the contexts of words that appear next to years.
#
# </details>

# %%
digit_words = {"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
top10 = list(zc.words[:10])
n_digits = sum(w in digit_words for w in top10)
prose(
    f"Top ten words of {zc.name}: {', '.join(top10)} — {n_digits} of them are spelled-out digits."
)
_ = rep.above(
    "data.solution.2.digits_in_top10",
    "exercise 2: spelled-out digits among the ten most frequent words",
    value=n_digits,
    bound=0,
    kind="record",
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# At `smoke` the chapter loads only `enwiki2015_1m7`, the corpus that ships with the book, so that the
# tests run offline on a fresh clone. The claims about `enwiki2015_17m` (its token and type counts, the
# data sheet's coverage counts) disappear; the Zipf fit moves to the small corpus, and the coverage counts,
# which the data sheet does not document for it, are checked only for what must hold anyway (they never
# decrease as $V$ grows). None fails because each is an exact property of the data (a documented count)
# or a property the smaller corpus shares. In later chapters smoke runs use
# smaller $V$, shorter training and fewer repeats: their values move, and the tolerances are written to
# hold at every preset (a claim that holds only at one size is a defect).
#
# </details>

# %% [markdown]
# <details><summary>Solution 4</summary>
#
# `load_corpus` checks the sha256 of every file before it reads it. A flipped byte changes the checksum,
# so the call stops with an error that names the file, the expected and the actual checksum, and tells you
# to delete the file and get it again — it does not produce silently wrong statistics.
#
# </details>
