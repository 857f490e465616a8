# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 45 · Feature collapse in transformers
#
# **Statement (Laurent, von Brecht & Bresson 2024, Appendix A.3–A.4).** Collapse is not a property of the
# small networks $h$ and $h^\star$:
#
# * **A.3** a transformer classifier (2 layers, 8 heads, width 512, absolute positional embeddings, a
#   classification token) trained by AdamW (learning rate $10^{-4}$, weight decay 0.1, $\beta = (0.9, 0.95)$)
#   for 3 epochs on 0.5 million sentences of the data model ($n_c = 3$, $n_w = 1{,}200$, $L = 15$, $K = 1{,}000$)
#   has collapsed **word embeddings** — the vectors before the positional embeddings are added — with
#   uniform and with long-tailed words (their Figure 8(a)–(b));
# * **A.4** a GPT-2-shaped model of the same size trained for one epoch on 1 million sentences to predict
#   the next word has collapsed word embeddings too (their Figure 8(c)).
#
# The paper shows pictures and states no number. We measure both **two ways**, as every chapter of Part IV
# does (`fc.collapse_two_ways`, chapter 40): the within/between ratio of the 1,200 word embeddings grouped by
# concept *inside the plane the picture shows* (the paper's visual criterion, made a number) and on the
# full vectors, the share of the within-concept variance that the plane shows, and a **shuffled-label
# null** (the same trained table with its concept labels permuted). Collapsed means a full ratio below
# `fc.COLLAPSED_RATIO` = 0.1, the one threshold of Part IV.
#
# **Intuition.** In the data model, two words of the same concept are interchangeable: swapping them in every
# sentence leaves the distribution of (sentence, label) pairs unchanged when words are uniform within a
# concept. Their embeddings receive gradients with the same statistics, so what training *adds* to them
# tends to the same vector. What training does not remove quickly is what distinguished them at the start:
# AdamW's decoupled weight decay multiplies every weight by $1 - \eta\lambda$ per step, a factor that stays
# close to 1 over a short run (Section 2 computes it). A language model adds a sharper reason, derived
# below: its output layer is the embedding table itself (tied, as in GPT-2), and interchangeable words must
# receive equal next-word probabilities.

# %%
import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import torch

from qwem_lib import config, fc, plotting
from qwem_lib.book import pins
from qwem_lib.book.report import Report, prose
from qwem_lib.fc import transformers as tf

plotting.use_style()
rep = Report("45_fc_transformers")
# a size that changes with the preset: config.per_preset(smoke, book, paper)
P = config.knobs(
    nc=3,
    nw=config.per_preset(120, 1200, 1200),
    L=15,
    K=config.per_preset(20, 200, 1000),
    nspl_cls=config.per_preset(100, 250, 500),
    nspl_lm=config.per_preset(200, 500, 1000),
    d_model=config.per_preset(32, 64, 512),
    n_heads=8,
    lr=config.per_preset(3e-3, 1e-3, 1e-4),
    epochs=config.per_preset(10, 3, 3),
    lm_epochs=config.per_preset(2, 3, 1),
    lm_long_epochs=config.per_preset(4, 12, 3),
    fresh_epochs=config.per_preset(3, 6, 2),
    n_evals=config.per_preset(5, 10, 10),
    acc_bound=0.9,
    a3_seeds=config.per_preset(3, 5, 3),
)
print(P)

# The outcomes of Section 4's two predictions as first measured at each preset (written in after the first
# run; None: not yet run at that preset).
LONG_OUTCOME = config.knobs(
    falls=config.per_preset(True, False, None),
    to_floor=config.per_preset(False, False, None),
    fresh=config.per_preset(True, False, None),
)

# %% [markdown]
# ## 1 · The two models, built from torch's modules
#
# `fc.transformers` assembles both from `torch.nn.TransformerEncoderLayer` (pre-LayerNorm, GELU, as in GPT-2)
# and `torch.nn.TransformerEncoder`, with learned absolute positional embeddings and GPT-2's initialisation
# (normal, standard deviation 0.02):
#
# * `FCTransformerClassifier` appends one classification token (id $n_w$) to the $L$ words and reads the class
#   scores from the last layer's output at that token; attention is bidirectional;
# * `FCTransformerLM` attends causally (`torch.nn.Transformer.generate_square_subsequent_mask`: a word sees
#   itself and the words before it) and scores the next word with the transpose of the embedding table.
#
# The unit tests check the shapes, that changing word $t$ moves no prediction before $t$, the tied head, and
# that two trainings with the same seed give the same weights.
#
# **What the `book` preset changes.** Three epochs on 0.5 million sentences at width 512 is about $10^{15}$
# floating-point operations: hours on two CPU cores. The `book` preset keeps the architecture (2 layers,
# 8 heads, the classification token, tied embeddings, AdamW with weight decay 0.1 and $\beta = (0.9, 0.95)$),
# and shrinks the width to 64, the classes to $K = 200$ and the data to 50,000 sentences for the classifier
# (3 epochs) and 100,000 for the language model (3 epochs instead of the paper's one, because one epoch
# at this size learns almost nothing about the context; Section 3). The paper does not give its batch
# size, so its number of optimiser steps is unknown; with the book's batch of 100 it would be the number
# printed below. The learning rate is raised to $10^{-3}$ for the shorter runs. The `paper` preset runs
# the paper's sizes and settings.

# %%
runs, tasks = {}, {}
for name, mu, kind in (
    ("A.3 uniform", "uniform", "classify"),
    ("A.3 long-tailed", "zipf", "classify"),
    ("A.4 next word", "uniform", "next_token"),
):
    nspl = P["nspl_cls"] if kind == "classify" else P["nspl_lm"]
    task = fc.make_task(
        P["nc"], P["nw"], P["L"], P["K"], mu=mu, seed=config.rng(50 if mu == "uniform" else 52)
    )
    data = fc.make_dataset(
        task, nspl=nspl, n_test=5, seed=config.SEED + (51 if mu == "uniform" else 53)
    )
    cfg = tf.TransformerTrainConfig(
        task=kind,
        epochs=P["epochs"] if kind == "classify" else P["lm_epochs"],
        d_model=P["d_model"],
        n_heads=P["n_heads"],
        lr=P["lr"],
    )
    runs[name] = tf.train_transformer(data, cfg, n_evals=P["n_evals"], desc=name)
    tasks[name] = (task, data)
    r = runs[name]
    print(
        f"{name}: {data.x_train.shape[0]:,} sentences, {int(r.history['step'][-1]):,} AdamW steps, test accuracy "
        f"{r.test_acc:.4f}, test loss {r.history['test_loss'][-1]:.4f} [{r.seconds:.0f} s{', cached' if r.cached else ''}]"
    )
paper_steps = (
    3 * 500_000 // 100
)  # the paper's 3 epochs on 0.5 million sentences, at the book's batch of 100
book_steps = int(runs["A.3 uniform"].history["step"][-1])
prose(
    f"The classifiers ran {book_steps:,} AdamW steps of 100 sentences. At the same batch size the paper's "
    f"3 epochs on 0.5 million sentences would be {paper_steps:,} steps ({paper_steps / book_steps:.0f} times "
    "more); the paper states no batch size, so the true ratio is unknown."
)

# %% [markdown]
# ## 2 · The classifier (A.3)
#
# The claims: the classifier generalises (test accuracy above `acc_bound` = 0.9); its word embeddings
# collapse in the plane of the picture (2-D ratio below 0.1, the paper's criterion); they are grouped by
# concept far beyond chance (below every ratio of the shuffled-label null); and whether the full ratio is
# below 0.1 is recorded at the book's size and asserted at the paper's. The pictures are centred PCA
# (Figure 45.2), so the plane is the centred one.

# %%
torch.manual_seed(config.SEED)  # fresh, seeded models: the ratio at initialisation
init = tf.FCTransformerClassifier(
    P["nw"], P["L"], P["K"], P["d_model"], P["n_heads"]
).word_embeddings()
stats, learned = {}, {}
for name, r in runs.items():
    task, _ = tasks[name]
    wc = fc.word_concepts(task)
    stats[name] = fc.collapse_two_ways(r.embeddings, wc, center=True)
    learned[name] = fc.collapse_two_ways(r.displacement(), wc, center=True)
    print(f"{name:16s} {stats[name]}\n{'':16s} learned part: {learned[name]}")
ratio_init = fc.collapse_stats(init, fc.word_concepts(tasks["A.3 uniform"][0])).ratio
init_lm = tf.FCTransformerLM(P["nw"], P["L"], P["d_model"], P["n_heads"]).word_embeddings()
ratio_init_lm = fc.collapse_stats(init_lm, fc.word_concepts(tasks["A.4 next word"][0])).ratio
print(f"at initialisation: ratio {ratio_init:.2f}")

for name in ("A.3 uniform", "A.3 long-tailed"):
    tag = "uniform" if "uniform" in name else "zipf"
    rep.above(
        f"fc.a3.{tag}.test_acc",
        f"{name}: transformer classifier test accuracy (K={P['K']}, width {P['d_model']})",
        value=runs[name].test_acc,
        bound=P["acc_bound"],
        kind="finding",
    )
    fc.claim_collapse(
        rep,
        f"fc.a3.{tag}.collapse",
        f"{name}: word embeddings by concept (K={P['K']}, width {P['d_model']})",
        stats[name],
    )
report_rows = {f"{n}: embeddings $E$": stats[n] for n in runs}
report_rows |= {f"{n}: learned part $E - \\delta E_0$": learned[n] for n in runs}
prose(fc.two_ways_table(report_rows))

# %% [markdown]
# **Table 45.1** — Collapse of the word embeddings measured two ways (the ratio in the plane of Figure 45.2,
# and on the full vectors), the share of the within-concept variance that plane shows, and the
# shuffled-label null on the same trained vectors (median and smallest of 20 permutations).
#
# **What the picture shows, and what it hides.** The two ratios disagree by a large factor, and the reason is
# the choice of plane: PCA picks the two directions of largest variance, and in a trained table those are the
# directions that separate the three concept means. The spread of the words *inside* a concept is spread
# over the remaining $d - 2$ directions, so the picture shows only the small share printed in the table,
# and three tight clusters appear even when the full spread is large. The 2-D criterion is the paper's and
# the book reproduces it; it is weak, because almost any learning passes it, and so does the shuffled-label
# null comparison (whose ratio of about 14 is also what random initial embeddings give, exercise 1). The
# full ratio is the stricter test, and at the book's size it is not met. The trajectory below shows
# how early the picture "collapses".
#
# **Why the full ratio stays high: the initialisation is still there.** AdamW's decoupled decay multiplies
# every weight by $1 - \eta\lambda$ at every step, so after $t$ steps an initial embedding $E_0$ survives
# as $\delta E_0$ with $\delta = (1 - \eta\lambda)^t$; a word that never occurs keeps exactly that (the
# unit tests check it). Random initial embeddings carry no concept information, so they set a floor on the
# ratio. The *learned part* $E - \delta E_0$ (second half of the table) is what the gradients
# added. The cell computes $\delta$, the correlation between each word's deviation from its concept mean and
# its own decayed initialisation, and the floor: the ratio the table would have if the learned part were
# perfectly collapsed (every word at its concept's mean displacement, plus its decayed initialisation).

# %%
decay = {}
for name, r in runs.items():
    task, _ = tasks[name]
    wc = fc.word_concepts(task)
    M = fc.concept_means(r.embeddings, wc)[wc]
    R_dev = (r.embeddings - M).ravel()
    E0 = r.decay_factor * r.init_embeddings
    R_init = (E0 - fc.concept_means(E0, wc)[wc]).ravel()
    D = r.displacement()
    floor = fc.collapse_ratio(E0 + fc.concept_means(D, wc)[wc], wc)
    decay[name] = dict(
        delta=r.decay_factor, corr=float(np.corrcoef(R_dev, R_init)[0, 1]), floor=floor
    )
    prose(
        f"{name}: $\\delta$ = {r.decay_factor:.3f} after {int(r.history['step'][-1]):,} steps; the words' "
        f"deviations from their concept means correlate {decay[name]['corr']:.2f} with their decayed "
        f"initialisation; a perfectly collapsed learned part would leave the ratio at "
        f"**{floor:.3f}** (measured: {stats[name].full:.3f}; learned part alone: {learned[name].full:.3f})."
    )
cfg0 = runs["A.3 uniform"].config
paper_delta = {
    B: (1 - 1e-4 * cfg0.weight_decay) ** (3 * 500_000 // B) for B in (32, 100, 512)
}  # the paper's learning rate and decay, 3 epochs on 0.5 million sentences, batch B
prose(
    "At the paper's settings (learning rate $10^{-4}$, decay 0.1, 3 epochs on 0.5 million sentences) the "
    "factor depends on the batch size the paper does not state: "
    + ", ".join(f"$\\delta$ = {v:.2f} for batches of {B}" for B, v in paper_delta.items())
    + "."
)
for name in ("A.3 uniform", "A.3 long-tailed"):
    tag = "uniform" if "uniform" in name else "zipf"
    rep.check(
        f"fc.a3.{tag}.decay_floor",
        f"{name}: full ratio the decayed initialisation alone would leave (learned part perfectly "
        "collapsed), beside the measured ratio: recorded",
        value=decay[name]["floor"],
        passed=True,
        tolerance=f"recorded (measured full ratio {stats[name].full:.3f})",
        kind="record",
    )
    fc.claim_collapse(
        rep,
        f"fc.a3.{tag}.learned_collapse",
        f"{name}: learned part E - delta E0 of the word embeddings by concept",
        learned[name],
        assert_plane=False,  # an analysis of the book's own, not the paper's criterion: recorded
    )

# %% [markdown]
# **Over seeds.** The 2-D ratios above come from one seed each. A second
# seed of the same network, on the same sentences, differs in its initialisation and its minibatch order
# only; how far does the ratio move? The prediction, stated before these runs: **for each classifier the
# 2-D ratio stays below 0.1 at every one of `a3_seeds` seeds** (seed 0 is the run above). Its outcome at
# each preset is pinned after its first run (`reproduction/pins.json`), so the text cannot go stale. The
# cell also gives the mean and its standard error over the seeds, for the 2-D and the full ratio.

# %%
seed_ratios = {}
for name in ("A.3 uniform", "A.3 long-tailed"):
    task, data = tasks[name]
    wc = fc.word_concepts(task)
    two_ways = [stats[name]] + [
        fc.collapse_two_ways(
            tf.train_transformer(
                data, dataclasses.replace(runs[name].config, seed=s), n_evals=P["n_evals"],
                desc=f"{name}, seed {s}",
            ).embeddings,
            wc,
            center=True,
        )
        for s in range(1, P["a3_seeds"])
    ]  # fmt: skip
    seed_ratios[name] = {
        "2-D": np.array([t.plane for t in two_ways]),
        "full": np.array([t.full for t in two_ways]),
    }
    prose(
        f"{name}, {P['a3_seeds']} seeds: 2-D ratio "
        + ", ".join(f"{v:.3f}" for v in seed_ratios[name]["2-D"])
        + f" (mean {seed_ratios[name]['2-D'].mean():.3f} ± "
        f"{seed_ratios[name]['2-D'].std(ddof=1) / np.sqrt(P['a3_seeds']):.3f}); full ratio mean "
        f"{seed_ratios[name]['full'].mean():.3f} ± "
        f"{seed_ratios[name]['full'].std(ddof=1) / np.sqrt(P['a3_seeds']):.3f}."
    )
for name, rs in seed_ratios.items():
    tag = "uniform" if "uniform" in name else "zipf"
    held = bool(rs["2-D"].max() < fc.COLLAPSED_RATIO)
    cid = f"fc.a3.{tag}.collapse.plane_seeds"
    ok, note = pins.judge(cid, held)
    rep.check(
        cid,
        f"{name}: the 2-D ratio (the paper's criterion) stays below {fc.COLLAPSED_RATIO} at every one of "
        f"{P['a3_seeds']} seeds of the initialisation and the minibatch order, same sentences (predicted "
        "before the runs; the largest against the threshold)" + note,
        value={
            "max": float(rs["2-D"].max()),
            "mean": float(rs["2-D"].mean()),
            "se": float(rs["2-D"].std(ddof=1) / np.sqrt(len(rs["2-D"]))),
            "full mean": float(rs["full"].mean()),
            "full se": float(rs["full"].std(ddof=1) / np.sqrt(len(rs["full"]))),
            "outcome": held,
        },
        passed=ok,
        kind="finding",
    )

# %%
fig, axes = plotting.figure(1, 2, width=5.0, height=3.6)
for name, r in runs.items():
    if not name.startswith("A.3"):
        continue
    task, _ = tasks[name]
    wc = fc.word_concepts(task)
    plane = [fc.plane_ratio(S, wc, center=True) for S in r.snapshots]
    full = [fc.collapse_ratio(S, wc) for S in r.snapshots]
    (line,) = axes[0].semilogy(r.history["step"], full, "o-", ms=3, label=f"{name}: full")
    axes[0].semilogy(
        r.history["step"], plane, "s--", ms=3, color=line.get_color(), label=f"{name}: 2-D"
    )
    axes[1].plot(r.history["step"], r.history["test_acc"], "o-", ms=3, label=name)
    below = np.flatnonzero(np.asarray(plane) < fc.COLLAPSED_RATIO)
    if below.size:
        j = int(below[0])
        prose(
            f"{name}: the 2-D ratio first falls below 0.1 at step {int(r.history['step'][j]):,}, where the "
            f"test accuracy is {r.history['test_acc'][j]:.1%} and the full ratio {full[j]:.3f}."
        )
axes[0].axhline(fc.COLLAPSED_RATIO, color="k", ls=":", lw=1)
axes[0].legend(fontsize=7)
plotting.label(axes[0], "Collapse, two ways, during training", "AdamW step", "within/between ratio")
axes[1].legend(fontsize=8)
plotting.label(axes[1], "Test accuracy", "AdamW step", "accuracy")
plt.show()

# %% [markdown]
# **Figure 45.1** — Left: the within/between ratio of the classifiers' word embeddings during training,
# in the plane of the picture (dashed) and on the full vectors (solid); dotted: the collapse threshold
# 0.1. Right: their test accuracy. The picture looks collapsed long before the network has finished
# learning; the full ratio stays far above it (Sections 4 and 5 say what holds it up).
#
# ## 3 · The language model (A.4), and why its embeddings must collapse
#
# Let $e_w$ be the embedding of word $w$ and $x_t$ the final representation at position $t$; the tied head
# gives the next word probabilities $p(w \mid \text{prefix}) \propto e^{\langle x_t, e_w\rangle}$. In the data
# model the next word is drawn in two stages: a concept $\alpha$ (with a probability that depends on the
# prefix, through the latent variables compatible with it), then a word of $\alpha$ with probability
# $\mu_\beta$. The best possible prediction is therefore
# $$p^\star(w = (\alpha, \beta) \mid \text{prefix}) = P(\alpha \mid \text{prefix})\,\mu_\beta, \tag{45.1}$$
# and the cross-entropy of (45.1) is $H(\text{concept} \mid \text{prefix}) + H(\mu)$, where $H(\mu) = \log s_c$ for uniform
# words ($\log 400 \approx 5.99$ nats). To reach it with uniform $\mu$, two words $w, w'$ of one concept need
# $\langle x_t, e_w - e_{w'}\rangle = 0$ for every representation $x_t$ the network produces: $e_w - e_{w'}$ is
# orthogonal to the span of the representations. Weight decay shrinks the remaining part too, so in the
# limit the embeddings of a concept are pushed onto one point — slowly, by the factor $\delta$ of Section 2.
# The test loss minus $\log s_c$ is the part of the loss spent on predicting concepts. How much of the
# context a model has learned is measured against the loss of a model that ignores the prefix,
# about $\log n_w$.

# %%
task_lm, data_lm = tasks["A.4 next word"]
lm = runs["A.4 next word"]
floor_words = float(np.log(task_lm.sc))
excess = lm.history["test_loss"][-1] - floor_words
context = float(np.log(task_lm.nw) - lm.history["test_loss"][-1])
prose(
    f"Language model, {int(lm.history['step'][-1]):,} steps ({P['lm_epochs']} epochs): test loss "
    f"{lm.history['test_loss'][-1]:.3f} nats per word, of which $\\log s_c$ = {floor_words:.3f} is the "
    f"unavoidable choice of a word inside its concept; the remaining {excess:.3f} nats predict the concept. "
    f"A model that ignores the prefix scores about $\\log n_w$ = {np.log(task_lm.nw):.3f}: the model has "
    f"learned **{context:.3f} nats** of the context (the loss along training: "
    f"{', '.join(f'{v:.3f}' for v in lm.history['test_loss'])}). Its word embeddings: "
    f"{stats['A.4 next word']} (at initialisation the ratio is {ratio_init_lm:.1f}); the learned part "
    f"$E - \\delta E_0$ ($\\delta$ = {lm.decay_factor:.3f}): {learned['A.4 next word']}."
)
rep.above(
    "fc.a4.loss_above_floor",
    "A.4: test cross-entropy per word is at least log(sc), the entropy of the "
    "word inside its concept",
    value=excess,
    bound=-0.02,
    kind="consistency",
)
rep.check(
    "fc.a4.context_learned",
    "A.4: nats of the context the language model has learned (log nw minus its test loss), recorded",
    value=context,
    passed=True,
    tolerance=f"recorded; at most {np.log(task_lm.nw) - floor_words:.3f} (log n_c)",
    kind="record",
)
fc.claim_collapse(
    rep,
    "fc.a4.collapse",
    f"A.4: language model word embeddings by concept ({P['lm_epochs']} epochs, width {P['d_model']})",
    stats["A.4 next word"],
    # the 2-D ratio asserted as A.3's are (the paper's criterion) at the book and paper presets; the smoke
    # preset's few steps only test the code path, and there it is recorded
    assert_plane=config.preset() != "smoke",
)
fc.claim_collapse(
    rep,
    "fc.a4.learned_collapse",
    "A.4: learned part E - delta E0 of the language model's word embeddings by concept",
    learned["A.4 next word"],
    assert_plane=False,  # an analysis of the book's own: recorded
)

# %%
fig, axes = plotting.figure(1, 3, width=3.9, height=3.7)
for j, (name, r) in enumerate(runs.items()):
    task, _ = tasks[name]
    size = 4 + 40 * task.mu[np.arange(task.nw) % task.sc] / task.mu.max()
    plotting.pca_scatter(
        axes[j],
        r.embeddings,
        fc.word_concepts(task),
        f"{name}: word embeddings",
        sizes=size,
        center=True,
        legend=j == 0,
    )
plt.show()

# %% [markdown]
# **Figure 45.2** — The paper's Figure 8 at the book's size: the 1,200 word embeddings (before the positional
# embeddings are added) of the transformer classifier on uniform words (left) and on long-tailed words
# (middle, marker size ∝ frequency), and of the language model (right), projected on their top two
# principal directions and coloured by concept.

# %% [markdown]
# ## 4 · The language model trained longer: toward the decay floor
#
# After `lm_epochs` epochs the language model's full ratio is far above 0.1 (Section 3), and Section 2 says
# why a short run must leave it there: the decayed start $\delta E_0$ is still in the table. Training
# longer moves two things at once. The remnant shrinks, $\delta_t = (1-\eta\lambda)^t$, so the **floor**
# (the full ratio the table would have if its learned part were perfectly collapsed, `fc.decay_floor`)
# falls; and the gradients keep working on the learned part $E - \delta_t E_0$. Section 3's model is
# trained again for `lm_long_epochs` epochs, with the same seed and the same minibatch order, and measured
# after every epoch: its first `lm_epochs` epochs are Section 3's run, step for step (checked below).
#
# **Two predictions, stated before this run was first made.**
#
# 1. *The full ratio keeps falling*: at the end of the long run it is below its value after `lm_epochs`
#    epochs.
# 2. *The table approaches its floor*: the distance between the full ratio and the floor,
#    $|\text{full} - \text{floor}|$, at the end is less than half the distance after `lm_epochs` epochs.
#    If it fails, the learned part itself is not collapsing (the gradients, not the start, hold the ratio
#    up). The floor is not a lower bound: a learned part that partly *cancels* the start's spread inside a
#    concept (Section 2 measures their correlation) can take the ratio below it.
#
# **The control.** At every epoch the same table with its concept labels permuted (20 permutations): a
# table with no grouping by concept sits inside that null. At initialisation it does.

# %%
cfg_long = dataclasses.replace(lm.config, epochs=P["lm_long_epochs"])
long = tf.train_transformer(data_lm, cfg_long, n_evals=P["lm_long_epochs"], desc="A.4, longer")
wc_lm = fc.word_concepts(task_lm)
traj: dict[str, list[float]] = {k: [] for k in ("plane", "full", "floor", "null_min")}
for S, delta in zip(long.snapshots, long.snapshot_decay_factors(), strict=True):
    tw = fc.collapse_two_ways(S, wc_lm, center=True)
    traj["plane"].append(tw.plane)
    traj["full"].append(tw.full)
    traj["null_min"].append(tw.null_full_min)
    traj["floor"].append(fc.decay_floor(S, long.init_embeddings, delta, wc_lm))
traj = {k: np.asarray(v) for k, v in traj.items()}
short = P["lm_epochs"]  # the snapshot after the short run's epochs (snapshot 0 is the start)
gap = traj["full"] - traj["floor"]
same_run = float(np.abs(long.snapshots[short] - lm.embeddings).max() / np.abs(lm.embeddings).max())
print(
    f"{int(long.history['step'][-1]):,} AdamW steps in {P['lm_long_epochs']} epochs "
    f"[{long.seconds:.0f} s{', cached' if long.cached else ''}]; test loss by epoch: "
    + ", ".join(f"{v:.3f}" for v in long.history["test_loss"])
)
for e in range(len(traj["full"])):
    print(
        f"epoch {e:2d}: full {traj['full'][e]:.3f}  floor {traj['floor'][e]:.3f}  2-D "
        f"{traj['plane'][e]:.3f}  null (smallest) {traj['null_min'][e]:.2f}"
    )
rep.below(
    "fc.a4.long.same_run",
    f"A.4 trained longer: after {short} epochs its word embeddings are Section 3's run's (same seed and "
    "minibatch order): largest difference relative to the largest entry (float32 snapshots)",
    value=same_run,
    bound=1e-5,
    kind="consistency",
)
rep.below(
    "fc.a4.long.null",
    "A.4 trained longer: at every epoch after the start the full ratio is below every shuffled-label "
    "ratio of the same table (largest full / smallest null over the epochs)",
    value=float(np.max(traj["full"][1:] / traj["null_min"][1:])),
    bound=1.0,
    kind="finding",
)
rep.prediction(
    "fc.a4.long.falls",
    f"A.4 trained longer: the full ratio after {P['lm_long_epochs']} epochs is below its value after "
    f"{short} (ratio end / short run)",
    holds=bool(traj["full"][-1] < traj["full"][short]),
    value=float(traj["full"][-1] / traj["full"][short]),
    outcome=LONG_OUTCOME["falls"],
)
rep.prediction(
    "fc.a4.long.to_floor",
    f"A.4 trained longer: the distance |full ratio − decay floor| after {P['lm_long_epochs']} epochs "
    f"is less than half the distance after {short} (ratio of the distances)",
    holds=bool(abs(gap[-1]) < 0.5 * abs(gap[short])),
    value=float(abs(gap[-1]) / abs(gap[short])),
    outcome=LONG_OUTCOME["to_floor"],
)
rep.check(
    "fc.a4.long.end",
    "A.4 trained longer, at the end: full ratio, its decay floor and the 2-D ratio, recorded",
    value=[float(traj["full"][-1]), float(traj["floor"][-1]), float(traj["plane"][-1])],
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %%
peak = int(np.argmin(traj["full"][1:])) + 1  # the epoch where the full ratio is lowest
prose(
    f"**What the run showed.** The full ratio is lowest after epoch {peak} ({traj['full'][peak]:.3f}) "
    + (
        f"and then *rises* again, to {traj['full'][-1]:.3f} after epoch {P['lm_long_epochs']}, while the "
        if peak < len(traj["full"]) - 1
        else "and is still falling at the end, while the "
    )
    + f"2-D ratio stays at {traj['plane'][-1]:.3f} and the test loss barely moves "
    f"({long.history['test_loss'][peak]:.3f} → {long.history['test_loss'][-1]:.3f} nats; the training "
    f"loss {long.history['train_loss'][peak]:.3f} → {long.history['train_loss'][-1]:.3f}). Predictions 1 "
    f"and 2: {'hold' if traj['full'][-1] < traj['full'][short] else 'fail'} and "
    f"{'hold' if abs(gap[-1]) < 0.5 * abs(gap[short]) else 'fail'} (their claims above pin the outcome)."
)

# %% [markdown]
# Where the full ratio rises, the spread of the learned part inside the concepts grows while the model
# predicts no better. Two explanations fit. (a) **The finite training set.** Every sentence is seen again
# every epoch, and in a finite sample two words of a concept are not interchangeable: each has its own
# counts and neighbours, and a model that fits them separates the words. (b) **The optimiser.** The loss is
# flat along the within-concept directions, and AdamW divides each step by the running size of the
# gradient, so minibatch noise moves the embeddings there by steps of the order of the learning rate.
#
# **A third prediction, stated after the first two failed and before its run.** If (a) is the reason,
# fresh sentences remove it: the same model trained for `fresh_epochs` epochs' worth of steps on as many
# fresh sentences (one pass; no sentence is seen twice) has, at its end, a full ratio **below** its own value
# after `lm_epochs` epochs' worth of steps. If (b) is, the ratio rises there too. This control is also
# the paper's own protocol for A.4: one epoch over 1 million sentences, so no sentence is seen twice.

# %%
data_fresh = fc.make_dataset(
    task_lm, nspl=P["nspl_lm"] * P["fresh_epochs"], n_test=5, seed=config.SEED + 51
)  # the same stream seed as Section 3's data: the same test sentences, fresh_epochs times the training ones
fresh = tf.train_transformer(
    data_fresh,
    dataclasses.replace(lm.config, epochs=1),
    n_evals=P["fresh_epochs"],
    desc="A.4, fresh sentences",
)
fresh_full = np.array([fc.collapse_ratio(S, wc_lm) for S in fresh.snapshots])
# the fresh run's rise over the same steps, as a share of the repeated run's (both from the short run's end)
fresh_rise = (fresh_full[-1] - fresh_full[short]) / (
    traj["full"][P["fresh_epochs"]] - traj["full"][short]
)
print(
    f"fresh sentences: {data_fresh.x_train.shape[0]:,} sentences, "
    f"{int(fresh.history['step'][-1]):,} steps [{fresh.seconds:.0f} s{', cached' if fresh.cached else ''}]; "
    "full ratio at every "
    f"{int(fresh.history['step'][1]):,} steps: " + ", ".join(f"{v:.3f}" for v in fresh_full)
)
rep.prediction(
    "fc.a4.fresh.falls",
    f"A.4 on fresh sentences ({P['fresh_epochs']} epochs' worth of steps, no sentence seen twice): the "
    f"full ratio at the end is below its value after {short} epochs' worth (ratio end / that value)",
    holds=bool(fresh_full[-1] < fresh_full[short]),
    value=float(fresh_full[-1] / fresh_full[short]),
    outcome=LONG_OUTCOME["fresh"],
)
rep.check(
    "fc.a4.fresh.against_repeated",
    f"A.4 after {int(fresh.history['step'][-1]):,} steps: full ratio on fresh sentences and on the "
    "repeated training set, recorded",
    value=[float(fresh_full[-1]), float(traj["full"][P["fresh_epochs"]])],
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %%
fig, ax = plotting.figure(1, 1, width=6.4, height=3.9)
st = long.history["step"]
ax.semilogy(st, traj["full"], "o-", ms=4, label="full ratio")
ax.semilogy(st, traj["floor"], "v--", ms=4, label="decay floor (learned part collapsed)")
ax.semilogy(st, traj["plane"], "s:", ms=4, label="2-D ratio (the picture)")
ax.semilogy(st, traj["null_min"], "x-", ms=4, color="0.5", label="shuffled-label null (smallest)")
ax.semilogy(fresh.history["step"], fresh_full, "D-", ms=4, color="C4",
            label="full ratio, fresh sentences every step")  # fmt: skip
ax.axhline(fc.COLLAPSED_RATIO, color="k", ls=":", lw=1)
ax.axvline(st[short], color="0.7", lw=1)
ax.legend(fontsize=7)
plotting.label(ax, "A.4: the language model trained longer", "AdamW step", "within/between ratio")
plt.show()

# %% [markdown]
# **Figure 45.3** — The language model of Section 3 trained for `lm_long_epochs` epochs over its training
# set: after every epoch, the full within/between ratio of its word embeddings (circles), the floor
# its decayed initialisation alone would hold it at (triangles), the ratio in the plane of the picture
# (squares) and the smallest ratio of the shuffled-label null (crosses); diamonds: the full ratio of the
# same model trained on fresh sentences at every step (the control below); dotted: the threshold 0.1;
# grey line: where Section 3's run stops.

# %%
prose(
    f"Over {P['lm_long_epochs']} epochs the full ratio goes from {traj['full'][short]:.3f} (after {short}) "
    f"to {traj['full'][-1]:.3f}, and the floor from {traj['floor'][short]:.3f} to "
    f"{traj['floor'][-1]:.3f} ($\\delta$ from {long.snapshot_decay_factors()[short]:.2f} to "
    f"{long.snapshot_decay_factors()[-1]:.2f}). Their distance is {abs(gap[-1]) / abs(gap[short]):.2f} of "
    "what it was"
    + (
        " (the full ratio now *below* the floor: the learned part partly cancels the start's spread)"
        if gap[-1] < 0
        else ""
    )
    + ": "
    + (
        "it closed by more than half, so the table follows its floor down and the remnant of the start "
        "is what is left to decay. "
        if abs(gap[-1]) < 0.5 * abs(gap[short])
        else "it did not close by half, so the learned part itself is still spread inside its concepts; "
        "the start is not the whole story. "
    )
    + (
        f"On fresh sentences the full ratio goes from {fresh_full[short]:.3f} to {fresh_full[-1]:.3f} "
        f"over the steps in which the repeated run's goes from {traj['full'][short]:.3f} to "
        f"{traj['full'][P['fresh_epochs']]:.3f}: "
        + (
            "the repeated run did not rise at this preset, so the control has nothing to tell apart. "
            if peak == len(traj["full"]) - 1
            else "fresh data keeps it falling, so repeating a finite training set is what spreads the "
            "words (explanation (a)). "
            if fresh_full[-1] < fresh_full[short]
            else f"it rises on fresh sentences too, but by {fresh_rise:.0%} of the repeated run's rise. "
            "Repeating the finite training set accounts for most of the rise; the rest is not explained "
            "by it (explanation (b), or another). One seed each: the spread between seeds is not "
            "measured. "
            if fresh_rise < 0.5
            else "it rises as much without repeated sentences, so the finite training set is not the "
            "reason; explanation (b) remains. "
        )
    )
    + (
        "The full ratio is below 0.1 at the end, so by the book's criterion too the table has collapsed."
        if traj["full"][-1] < fc.COLLAPSED_RATIO
        else "The full ratio is still above 0.1 at the end: by the book's criterion the table has not "
        "collapsed at this size and length."
    )
)

# %% [markdown]
# ## 5 · Discussion

# %%
cls_names = ("A.3 uniform", "A.3 long-tailed")
plane_ok = [n for n in runs if stats[n].plane_collapsed]
full_ok = [n for n in runs if stats[n].collapsed]
floors = ", ".join(f"{decay[n]['floor']:.3f}" for n in cls_names)
prose(
    "* **By the paper's criterion**, the picture, the 2-D ratio is below 0.1 for "
    + (", ".join(plane_ok) if plane_ok else "none of the runs")
    + " (Table 45.1), far below the shuffled-label null. **By the book's criterion**, the full ratio "
    "below 0.1: "
    + (", ".join(full_ok) if full_ok else "no run collapses at the book's size")
    + f" (full ratios {', '.join(f'{stats[n].full:.3f}' for n in runs)}). The gap between the two is "
    "the main lesson of this chapter: a PCA picture shows the directions that separate the concepts and "
    f"hides most of the spread inside them (the plane shows at most {max(stats[n].visible for n in runs):.1%} "
    "of it here), so it looks collapsed early in training (Figure 45.1), long before the full vectors are.\n"
    "* AdamW's decoupled decay keeps a fraction $\\delta$ = "
    f"{runs['A.3 uniform'].decay_factor:.2f} of each random initial embedding of the classifiers. That "
    "remnant carries no concept information; alone (with the learned part perfectly collapsed) it would "
    f"hold the full ratio at {floors}, against the measured "
    f"{', '.join(f'{stats[n].full:.3f}' for n in cls_names)}. The learned part $E - \\delta E_0$ has full "
    f"ratios {', '.join(f'{learned[n].full:.3f}' for n in cls_names)}: "
    + (
        "collapsed, so the initialisation is what keeps the table above the threshold."
        if all(learned[n].collapsed for n in cls_names)
        else "not collapsed either, so the remnant of the initialisation is only part of the story: the "
        "gradients of a short run have not made the words of a concept equal."
    )
    + " At the paper's learning rate the factor depends on the unstated batch size (Section 2)."
)

# %% [markdown]
# * The language model's tied output layer forces equal scores for interchangeable words, and its loss
#   decomposes into a word-inside-concept part that nothing can reduce and a concept part; how much of the
#   latter the book's model has learned is printed in Section 3.
# * The book's runs are narrower (64 against 512), at $K = 200$, with a 10 times larger learning rate; the
#   paper states no number to compare with.

# %% [markdown]
# ## 6 · What this chapter found
#
# Each finding and pre-registered prediction of this chapter, with what its check showed at this preset
# (held, failed or open) and its value against its tolerance. The full statements are in the chapter's report.

# %%
_ = rep.found()

# %% [markdown]
# ## Exercises
#
# 1. *(derive, ★)* Compute the ratio of the word embeddings at initialisation (independent $\mathcal N(0, 0.02^2)$ entries)
#    from a formula, and compare with the fresh model above.
# 2. *(derive, ★)* For the language model with uniform words, what is the lowest possible test loss for the *first* word of
#    a sentence, where the prefix is empty?
#
# ## Solutions
#
# <details><summary>Solution 1</summary>
#
# With $n$ words per concept and independent entries of variance $\sigma^2$ in dimension $d$, the within
# spread is $\sqrt{(1 - 1/n)\, d}\,\sigma$ and the distance between two concept means is about $\sqrt{2d/n}\,\sigma$,
# so the ratio is about $\sqrt{(n-1)/2}$: about 14 for $n = 400$. Only three distances between concept means
# enter the denominator, so the measured ratio fluctuates from one draw to the next (standard deviation about
# 6% at the book's size, from 200 draws); the tolerance is 15%.
#
# </details>

# %%
n_per = P["nw"] // P["nc"]
pred = np.sqrt((n_per - 1) / 2)
prose(f"Formula {pred:.2f}; measured at initialisation {ratio_init:.2f}.")
rep.close(
    "fc.a3.solution.1.init_ratio",
    "exercise 1: ratio of random embeddings vs sqrt((n-1)/2)",
    value=ratio_init,
    target=pred,
    tol=0.15,
    rel=True,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# The first word's concept is $z_{k,1}$ for a class $k$ drawn uniformly; with $K$ random latent variables the
# concept frequencies at position 1 are close to $1/n_c$, so the best loss is about $\log n_c + \log s_c$
# $= \log n_w$. The cell computes it exactly from the latent variables.
#
# </details>

# %%
p1 = np.bincount(task_lm.latents[:, 0], minlength=P["nc"]) / task_lm.K
h_first = float(-(p1[p1 > 0] * np.log(p1[p1 > 0])).sum() + np.log(task_lm.sc))
prose(f"Best loss for the first word: {h_first:.4f} nats; $\\log n_w$ = {np.log(P['nw']):.4f}.")
rep.close(
    "fc.a4.solution.2.first_word",
    "exercise 2: entropy of the first word vs log(nw)",
    value=h_first,
    target=float(np.log(P["nw"])),
    tol=0.05,
    kind="consistency",
)
