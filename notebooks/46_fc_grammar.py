# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 46 · Feature collapse in a deeper hierarchy: a context-free grammar
#
# **Statement (Laurent, von Brecht & Bresson 2024, Appendix A.5).** The data model of chapter 40 is one level
# of a hierarchy: words are grouped into concepts, and a class is a sequence of concepts. Group sequences of
# concepts into meta-concepts, sequences of those into meta-meta-concepts, and the result is a probabilistic
# context-free grammar. The paper uses depth 4: each of $K = 100$ classes generates a sequence of 8
# meta-meta-concepts, chosen uniformly among 5 possible sequences; each meta-meta-concept a sequence of 8
# meta-concepts (again 1 of 5); each meta-concept 8 concepts; each concept 8 words — sentences of
# $8^4 = 4{,}096$ words. A network whose blocks mirror the grammar (each block: an MLP on the concatenation
# of 8 consecutive vectors, then a LayerNorm) is trained to predict the class, and **the representations at
# each level collapse by the symbol that generated them**: the level-1 vectors by concept, the level-2
# vectors by meta-concept, the level-3 vectors by meta-meta-concept (their Figure 11).
#
# **Intuition.** Inside the grammar, a concept is whatever its 5 word sequences have in common: any of them can
# replace any other without changing the class. The block of level 1 sees one segment of 8 words at a time;
# the most useful thing it can output is the concept that generated the segment, and nothing else about
# the segment helps. The argument repeats one level up.
#
# We measure collapse two ways, as every chapter of Part IV does (`fc.collapse_two_ways`, chapter 40): the
# within/between ratio of the level-$l$ vectors grouped by the symbol that generated their segment, in the
# plane of the picture (the paper's visual criterion) and on the full vectors, beside a shuffled-label null;
# collapsed means a full ratio below `fc.COLLAPSED_RATIO` = 0.1.

# %%
import matplotlib.pyplot as plt
import numpy as np

from qwem_lib import config, fc, plotting
from qwem_lib.book.report import Report, prose
from qwem_lib.fc import grammar as gr

plotting.use_style()
rep = Report("46_fc_grammar")
# a size that changes with the preset: config.per_preset(smoke, book, paper)
P = config.knobs(
    m=config.per_preset(3, 3, 8),
    n_symbols=config.per_preset(8, 12, 30),
    K=config.per_preset(10, 20, 100),
    n_rules=5,
    steps=config.per_preset(600, 3000, 20_000),
    batch=64,
    d=config.per_preset(32, 32, 64),
    hidden=config.per_preset(64, 64, 256),
    lr=config.per_preset(3e-3, 1e-3, 1e-3),
    wd=0.1,
    n_test=config.per_preset(300, 500, 1000),
    n_probe=config.per_preset(100, 300, 1000),
    acc_bound=config.per_preset(0.5, 0.9, 0.9),
    n_seeds=config.per_preset(2, 3, 3),
)
DEPTH = 4
print(P)

# %% [markdown]
# ## 1 · The grammar and its probabilities
#
# `fc.grammar.make_grammar` draws the rules: every symbol of level $l \ge 1$ owns `n_rules` right-hand sides,
# each a sequence of $m$ symbols of level $l-1$ drawn uniformly, and no two symbols of one level share a
# right-hand side (a duplicate is drawn again). The paper does not say whether its right-hand sides may
# coincide; with independent draws on small alphabets they sometimes do, and then a segment has two
# possible parents and the class of a sentence is not always determined by its words (exercise 2 measures
# what that costs). With disjoint right-hand sides every sentence has exactly one parse, so the Bayes
# accuracy is 1 and a network can in principle classify every sentence. The paper does not give the sizes
# of the inner alphabets; we use the same number of symbols at every level below the classes. Expanding a symbol
# picks one of its right-hand sides with probability $1/5$, so a sentence $x$ of class $k$ has probability
# $$P(x \mid k) = \sum_{\text{parse trees } T \text{ of } x} \prod_{\text{nodes } v \in T} \tfrac{1}{n_{\rm rules}}, \tag{46.1}$$
# which the inside algorithm computes level by level (the sum (46.1) over parse trees, segment by segment): for a segment of $m$ symbols and a parent $s$,
# $P(\text{segment} \mid s) = \frac{1}{n_{\rm rules}}\sum_{r} \prod_{i=1}^m P(\text{sub-segment}_i \mid \text{rhs}_r(s)_i)$.
# The unit tests enumerate every sentence of small grammars and check that these probabilities sum to one.
#
# **What the `book` preset changes.** One sentence of the paper's grammar has 4,096 words and the network
# applies its first block to 512 segments of it. The `book` preset keeps depth 4 and 5 rules per symbol but
# uses segments of $m = 3$ (sentences of $3^4 = 81$ words), 12 symbols per level and $K = 20$ classes, and
# trains for 3,000 AdamW steps on fresh sentences (learning rate $10^{-3}$, weight decay 0.1 as in chapter 45;
# the paper gives no optimiser for this experiment); `paper` uses $m = 8$ and $K = 100$.
#
# **A caveat on training.** Deep chains of blocks start on a plateau where the loss stays at $\log K$. While
# choosing the `book` settings we saw the network stay there: without weight decay for some grammars and
# seeds, with $m = 4$ for 1,500 steps, and with learning rate $3\cdot10^{-3}$ and weight decay 0.1 at this
# size for an earlier grammar of this chapter. With learning rate $10^{-3}$ and weight decay 0.1, three trials
# (three grammars and seeds) all left the plateau within 2,000 steps and reached test accuracies of 0.91
# to 1.0. The collapse below is measured on networks that learned; we do not claim that every run learns.
# We train `n_seeds` networks (different initialisations and minibatches, the same grammar) and report
# the spread of every ratio over them: the ratios of one run differ from machine to machine by as much as
# the seed spread, so one run's digits mean little.

# %%
g = gr.make_grammar(
    (P["n_symbols"],) * DEPTH + (P["K"],), m=P["m"], n_rules=P["n_rules"], seed=config.rng(60)
)
words, labels, parse = gr.sample_grammar(g, 2, seed=config.rng(61))
print(
    f"depth {g.depth}, m = {g.m}, {g.n_rules} rules per symbol, alphabets {g.sizes}: sentences of {g.length} words"
)
print(
    "first sentence, first 2m words:",
    words[0, : 2 * g.m],
    " concepts:",
    parse[1][0, :2],
    " meta-concepts:",
    parse[2][0, :1],
    " class:",
    labels[0],
)
lp = gr.grammar_log_prob(g, words[0], int(labels[0]))
prose(
    f"The inside algorithm gives this sentence the log-probability {lp:.2f} under its class; a single parse "
    f"tree has probability $(1/{g.n_rules})^{{\\#\\text{{nodes}}}}$ = $e^{{{-np.log(g.n_rules) * sum(g.m**j for j in range(g.depth)):.2f}}}$."
)
xb, yb, _ = gr.sample_grammar(g, 200, seed=config.rng(63))
bayes = gr.bayes_accuracy(g, xb, yb)
shared = gr.shared_right_hand_sides(g)
prose(
    f"Right-hand sides shared between two symbols, per level: {shared}; Bayes accuracy on 200 fresh "
    f"sentences (the inside algorithm for every class): {bayes:.3f}."
)
rep.close(
    "fc.a5.bayes_accuracy",
    "the grammar's right-hand sides are disjoint, so the Bayes classifier (inside algorithm) is "
    "right on every fresh sentence",
    value=bayes,
    target=1.0,
    tol=0.0,
    kind="consistency",
)
rep.above(
    "fc.a5.sentence_prob",
    "the sampled sentence has at least the probability of its own parse tree "
    "(log P(x|k) + log(n_rules) * #nodes >= 0)",
    value=lp + np.log(g.n_rules) * sum(g.m**j for j in range(g.depth)),
    bound=-1e-9,
    kind="consistency",
)

# %% [markdown]
# ## 2 · Training the network that mirrors the grammar

# %%
nets, hists = [], []
for j in range(P["n_seeds"]):
    n_j, h_j = gr.train_grammar_net(
        g,
        steps=P["steps"],
        batch=P["batch"],
        d=P["d"],
        hidden=P["hidden"],
        lr=P["lr"],
        weight_decay=P["wd"],
        n_test=P["n_test"],
        n_evals=20,
        seed=config.SEED % 1000 + j,
    )
    nets.append(n_j)
    hists.append(h_j)
net, hist = nets[0], hists[0]
accs = np.array([h["test_acc"][-1] for h in hists])
prose(
    f"After {P['steps']:,} steps of {P['batch']} fresh sentences, test accuracy of the {P['n_seeds']} "
    f"networks: {', '.join(f'{a:.1%}' for a in accs)} (chance {1 / g.K:.1%}; Bayes {bayes:.0%})."
)
rep.above(
    "fc.a5.test_acc",
    f"A.5: the grammar networks classify fresh sentences (depth 4, m={g.m}, K={g.K}; lowest of "
    f"{P['n_seeds']} seeds)",
    value=accs.min(),
    bound=P["acc_bound"],
    kind="record",
)  # settings chosen so that it learns (smoke: 600 steps, a lower bar)

# %%
fig, axes = plotting.figure(1, 2, width=5.0, height=3.4)
for j, h in enumerate(hists):
    axes[0].plot(h["step"][1:], h["train_loss"][1:], "o-", ms=3, label=f"seed {j}")
    axes[1].plot(h["step"], h["test_acc"], "o-", ms=3, label=f"seed {j}")
axes[0].axhline(np.log(g.K), color="k", ls=":", lw=1, label="$\\log K$ (chance)")
axes[0].legend(fontsize=8)
plotting.label(axes[0], "Training loss", "AdamW step", "cross-entropy (mean since last point)")
axes[1].axhline(1 / g.K, color="k", ls=":", lw=1)
plotting.label(axes[1], "Test accuracy", "AdamW step", "accuracy")
plt.show()

# %% [markdown]
# **Figure 46.1** — Training of the grammar networks (one line per seed): the loss starts on the plateau at
# $\log K$ (dotted), where the network predicts the class prior, then leaves it; the test accuracy on fixed
# fresh sentences follows.

# %% [markdown]
# ## 3 · Collapse at every level
#
# For `n_probe` fresh sentences we take the representation of every segment at levels 1, 2 and 3 and group
# it by the symbol that generated the segment (its parse). For each level: the 2-D ratio in the plane of
# Figure 46.2 (the paper's criterion), the full ratio, the share of the within-group variance the plane
# shows and the shuffled-label null, for the first network; then the spread of the two ratios over the
# seeds; and the same measure on a freshly initialised network.

# %%
reps = gr.level_representations(net, g, P["n_probe"], seed=62)
net0 = gr.GrammarNet(g.sizes[0], g.K, g.m, g.depth, P["d"], P["hidden"])
reps0 = gr.level_representations(net0, g, P["n_probe"], seed=62)
names = {1: "concepts", 2: "meta-concepts", 3: "meta-meta-concepts"}
stats = {}
for l, ((H, s), (H0, _)) in enumerate(zip(reps, reps0), start=1):
    stats[l] = (fc.collapse_two_ways(H, s, center=True), fc.collapse_two_ways(H0, s, center=True))
    print(f"level {l} by {names[l]:18s} trained: {stats[l][0]}\n{'':33s} initial: {stats[l][1]}")
spread = {}
for l in (1, 2, 3):
    vals = []
    for n_j in nets:
        H, s = gr.level_representations(n_j, g, P["n_probe"], seed=62)[l - 1]
        vals.append((fc.plane_ratio(H, s, center=True), fc.collapse_ratio(H, s)))
    spread[l] = np.array(vals)  # (seeds, 2): 2-D and full ratios
rows = {f"level {l}, by {names[l]}": stats[l][0] for l in (1, 2, 3)}
rows |= {f"level {l}, untrained network": stats[l][1] for l in (1, 2, 3)}
prose(fc.two_ways_table(rows))
prose(
    "Over the "
    + f"{P['n_seeds']} seeds (mean ± standard deviation): "
    + "; ".join(
        f"level {l}: 2-D {spread[l][:, 0].mean():.3f} ± {spread[l][:, 0].std(ddof=1):.3f}, full "
        f"{spread[l][:, 1].mean():.3f} ± {spread[l][:, 1].std(ddof=1):.3f}"
        for l in (1, 2, 3)
    )
    + "."
)
# The smoke network (600 steps) sits at the plane criterion's threshold at level 3: 0.104 on one 2-core
# machine and below 0.1 on CI's with the same locked packages (CPU kernels differ in their last digits).
# A smoke run tests the code path, not the claim, so there the plane ratio is recorded; the book and
# paper presets assert it.
for l in (1, 2, 3):
    fc.claim_collapse(
        rep,
        f"fc.a5.level{l}.collapse",
        f"A.5: level-{l} representations grouped by {names[l]} (seed 0; over {P['n_seeds']} seeds the full "
        f"ratio is {spread[l][:, 1].mean():.3f} ± {spread[l][:, 1].std(ddof=1):.3f})",
        stats[l][0],
        assert_plane=config.preset() != "smoke",
    )

# %% [markdown]
# **Table 46.1** — Collapse at each level of the first trained network and of an untrained one, two ways
# (in the plane of Figure 46.2 and on the full vectors), with the share of the within-group variance the
# plane shows and the shuffled-label null. The untrained network is not a null: its representations
# already depend on the words of the segment, so they carry some of the grouping by chance.

# %%
fig, axes = plotting.figure(1, 3, width=3.9, height=3.7)
for j, (l, (H, s)) in enumerate(zip((1, 2, 3), reps)):
    keep = s < 3  # the paper's Figure 11 shows the first 3 symbols
    plotting.pca_scatter(
        axes[j],
        H[keep],
        s[keep],
        f"level {l}, by {names[l]}",
        center=True,
        legend=True,
        group_name="symbol",
        alpha=0.4,
    )
plt.show()

# %% [markdown]
# **Figure 46.2** — The paper's Figure 11 at the book's size: representations of the segments of fresh
# sentences at levels 1, 2, 3 of the trained network, projected on their top two principal directions and
# coloured by the symbol (concept, meta-concept, meta-meta-concept) that generated the segment; as in the
# paper, only the first 3 symbols of each level are shown. At level 1 each concept still shows a few tight
# sub-clusters: its right-hand sides (5 word sequences) are mapped to nearby but not identical points, which is
# part of what the ratio measures.
#
# ## 4 · Discussion

# %%
full_ok = [l for l in (1, 2, 3) if spread[l][:, 1].mean() < fc.COLLAPSED_RATIO]
plane_ok = [l for l in (1, 2, 3) if spread[l][:, 0].max() < fc.COLLAPSED_RATIO]
prose(
    "* **By the paper's criterion** (the picture), the representations of "
    + ("every level" if len(plane_ok) == 3 else f"levels {plane_ok}")
    + " collapse onto the symbols of that level on every seed (2-D ratios below 0.1, far below the "
    "shuffled-label null; Table 46.1). **By the book's** (the full ratio below 0.1, mean over the seeds): "
    + (
        "no level at the book's size"
        if not full_ok
        else f"level{'s' if len(full_ok) > 1 else ''} {', '.join(map(str, full_ok))} only"
    )
    + " ("
    + ", ".join(f"level {l}: {spread[l][:, 1].mean():.3f}" for l in (1, 2, 3))
    + "). The plane shows only a small share of the spread inside the groups (the methodological point "
    "of chapter 45)."
)

# %% [markdown]
# * The seed spread says how much of a ratio is the run rather than the grammar; a difference between two
#   ratios smaller than it means nothing.
# * The sizes are the book's (segments of 3 instead of 8, 20 classes instead of 100, 12 symbols per level —
#   the paper does not give its inner alphabet sizes), the right-hand sides are disjoint by construction,
#   and the optimiser is the book's choice; the paper states no number.

# %% [markdown]
# ## 5 · What this chapter found
#
# Each finding and pre-registered prediction of this chapter, with what its check showed at this preset
# (held, failed or open) and its value against its tolerance. The full statements are in the chapter's report.

# %%
_ = rep.found()

# %% [markdown]
# ## Exercises
#
# 1. *(derive, ★)* How many distinct sentences can one class generate? Compare with the number of words in a sentence.
# 2. *(compute, ★★)* Draw the grammar again with independent right-hand sides (`disjoint=False`, the same seed). How many
#    right-hand sides are shared, and what is the Bayes accuracy? What does that mean for the networks?
# 3. *(compute, ★)* The level-1 representation is a function of the $m$ words of the segment alone, so the vectors of one
#    concept take at most `n_rules` distinct values. Compute the ratio over the distinct segments (each
#    counted once) and compare with the ratio over all segments. Which is the right measure of collapse?
#
# ## Solutions
#
# <details><summary>Solution 1</summary>
#
# A class makes one choice among $n_{\rm rules}$ at each of the $1 + m + m^2 + \dots + m^{D-1}$ nodes of its tree,
# so at most $n_{\rm rules}^{(m^D - 1)/(m - 1)}$ sentences (fewer if two trees give the same words).
#
# </details>

# %%
nodes = sum(g.m**j for j in range(g.depth))
prose(
    f"{nodes} nodes per tree: at most $5^{{{nodes}}} \\approx 10^{{{nodes * np.log10(g.n_rules):.0f}}}$ sentences per class, "
    f"each of {g.length} words."
)
rep.close(
    "fc.a5.solution.1.nodes",
    "exercise 1: nodes of a parse tree = (m^D - 1)/(m - 1)",
    value=nodes,
    target=(g.m**g.depth - 1) / (g.m - 1),
    tol=1e-12,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# With independent draws, a level's `n_rules` × (alphabet) right-hand sides are drawn from
# $(\text{alphabet below})^m$ sequences, and by the birthday argument a few coincide when the alphabets are
# small. A shared right-hand side at the class level makes some sentences possible under two classes, and
# the Bayes classifier must guess; shared ones lower down make parses ambiguous, which the inside algorithm
# sums over. The cell counts the shared right-hand sides and computes the Bayes accuracy of that grammar on
# fresh sentences: below 1 whenever a class-level right-hand side is shared. No network can beat it, so
# with independent draws "the network classifies every sentence" is not even possible.
#
# </details>

# %%
g_ind = gr.make_grammar(
    (P["n_symbols"],) * DEPTH + (P["K"],),
    m=P["m"],
    n_rules=P["n_rules"],
    seed=config.rng(60),
    disjoint=False,
)
x_ind, y_ind, _ = gr.sample_grammar(g_ind, 200, seed=config.rng(63))
bayes_ind = gr.bayes_accuracy(g_ind, x_ind, y_ind)
prose(
    f"Independent draws: shared right-hand sides per level {gr.shared_right_hand_sides(g_ind)}; Bayes "
    f"accuracy on 200 fresh sentences {bayes_ind:.3f}."
)
rep.check(
    "fc.a5.solution.2.bayes_independent",
    "exercise 2: Bayes accuracy of the grammar drawn with independent right-hand sides (recorded; 1 when "
    "no class-level right-hand side is shared)",
    value=bayes_ind,
    passed=0.0 < bayes_ind <= 1.0,
    tolerance="in (0, 1]",
    kind="record",
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# Over all segments, a right-hand side is counted as often as it occurs, so a frequent one weighs more;
# over distinct segments, each of a concept's `n_rules` right-hand sides counts once. Both measure how close
# the network maps the different word sequences of one concept, and they differ only by these weights:
# with uniform rule choices the weights are nearly equal, so the two ratios are close. The distinct-segment
# ratio is the cleaner statement of "the block maps every right-hand side of a concept to the same point";
# the all-segment ratio is what a picture of a batch of sentences shows.
#
# </details>

# %%
H1, s1 = reps[0]
x_probe, _, _ = gr.sample_grammar(g, P["n_probe"], seed=62)
segs = x_probe.reshape(-1, g.m)  # the level-1 segments, in the order of H1's rows
_, first = np.unique(segs, axis=0, return_index=True)
r_distinct = fc.collapse_ratio(H1[first], s1[first])
prose(
    f"Level 1: {first.size} distinct segments for {g.sizes[1]} concepts (at most "
    f"{g.sizes[1] * g.n_rules}); ratio over distinct segments {r_distinct:.3f}, over all segments "
    f"{stats[1][0].full:.3f}."
)
rep.check(
    "fc.a5.solution.3.distinct_segments",
    "exercise 3: level-1 ratio over distinct segments divided by the ratio over all segments (recorded)",
    value=r_distinct / stats[1][0].full,
    passed=True,
    tolerance="recorded",
    kind="record",
)
