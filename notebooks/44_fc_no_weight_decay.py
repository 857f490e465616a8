# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 44 · Feature collapse without weight decay, and with a learnable LayerNorm
#
# **Statement (Laurent, von Brecht & Bresson 2024, Appendix A.1–A.2).** The theorems of chapters 42–43 need
# a weight decay $\lambda > 0$ and a LayerNorm without parameters. Neither is needed in practice:
#
# * **A.1** with $\lambda = 0$ in the risks (2)–(3), after 5 million SGD steps (batch 100, learning rate 0.1)
#   the training losses are below $10^{-4}$ and the pictures of Figures 3 and 4 come back "virtually
#   identical" (their Figures 5 and 6): $h$ collapses on the uniform task; on the long-tailed task $h$ reaches
#   100% test accuracy with the large training set and **66%** with the small one, where $h^\star$ reaches
#   100%;
# * **A.2** when the LayerNorm of $h^\star$ gets a learnable gain and bias, the word representations still
#   collapse (their Figure 7, the run of Figure 4(c) again).
#
# **Intuition.** Weight decay is what gives the risk a minimiser; the theorems describe that minimiser.
# Without it, once the training set is classified correctly, multiplying all weights by a constant larger
# than 1 lowers the cross-entropy, so the weights grow forever and the loss tends to 0 without reaching it.
# What can still converge is the *direction* of the weights, and the symmetric configurations of chapter 40
# are the natural candidates. A learnable LayerNorm applies one and the same affine map to every word, so it
# cannot separate two words that the parameter-free LayerNorm made equal.
#
# We measure everything with the collapse metric shared by all of Part IV (`fc.collapse_stats`, chapter 40):
# the within/between ratio (collapsed below `fc.COLLAPSED_RATIO` = 0.1, the one threshold of Part IV, for
# words and linear weights alike) and the median cosine to the group mean (directionally collapsed above
# `fc.ALIGNED_COSINE` = 0.95), and each ratio two ways: in the plane of the picture and on the full vectors,
# beside a shuffled-label null (`fc.collapse_two_ways`).
#
# **What the book's runs are.** The paper trains 5 million steps, until the losses are below $10^{-4}$. The
# book's runs are 5,000 to 40,000 steps and end with losses between about $10^{-3}$ and $10^{-2}$ (printed
# below): they are an **early-training analogue** of A.1. They test whether the pictures are there once the
# training set is fitted without weight decay, not what 5 million steps do.

# %%
import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import spearmanr

from qwem_lib import config, fc, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("44_fc_no_weight_decay")
# a size that changes with the preset: config.per_preset(smoke, book, paper)
P = config.knobs(
    nc=3,
    nw=1200,
    L=15,
    d=config.per_preset(32, 100, 100),
    K=config.per_preset(100, 200, 1000),
    nspl_u=config.per_preset(25, 25, 5),
    steps_u=config.per_preset(12_000, 40_000, 5_000_000),
    nspl_a=500,
    steps_a=config.per_preset(2_500, 10_000, 5_000_000),
    nspl_b=5,
    steps_b=config.per_preset(6_000, 20_000, 5_000_000),
    steps_c=config.per_preset(3_000, 5_000, 5_000_000),
    epochs_ln=config.per_preset(300, 500, 500),
    n_evals=config.per_preset(20, 40, 50),
    slope_from=0.5,
    epochs_twin=config.per_preset(200, 450, 1200),
    eval_twin=config.per_preset(10, 10, 20),
    seeds=config.per_preset(
        dict(a=(11,), b=(21,), c=(31,)),
        dict(a=(11, 12), b=(21, 22), c=(31, 32)),
        dict(a=(11, 12), b=(21, 22), c=(31, 32)),
    ),
    steps_b41=config.per_preset(15_000, 150_000, 150_000),
    eval_b41=config.per_preset(50, 100, 25),
)
LAM = 1e-3  # the weight decay of the main text (chapters 40-41), used here only for comparison
BATCH = 100
print(P)


def run(data, steps: int, desc: str, **kw) -> fc.FCResult:
    """Train for (about) ``steps`` SGD steps without weight decay unless ``kw`` says otherwise."""
    epochs = max(1, steps // -(-data.x_train.shape[0] // BATCH))
    kw = {"wd_W": 0.0, "wd_U": 0.0, **kw}
    return fc.train_fc(
        data,
        fc.FCTrainConfig(
            epochs=epochs, d=P["d"], batch=BATCH, eval_every=max(1, epochs // P["n_evals"]), **kw
        ),
        desc=desc,
    )


# %% [markdown]
# ## 1 · Without weight decay the risk has no minimiser
#
# Both networks are homogeneous. For $h$, scaling $(W, U)$ to $(cW, cU)$ multiplies every score by $c^2$. Let
# $m = \min_i \big(y^{(i)}_{\rm true} - \max_{k \ne {\rm true}} y^{(i)}_k\big) > 0$ be the smallest margin of a
# network that classifies every training sentence correctly. The cross-entropy of one sentence is
# $\log\big(1 + \sum_{k\neq{\rm true}} e^{-(y_{\rm true} - y_k)}\big) \le \log\big(1 + (K-1)e^{-c^2 m}\big)$ after scaling,
# which tends to 0 as $c \to \infty$. So with $\lambda = 0$ the infimum of the risk is 0 and it is not attained:
# there is no minimiser to describe, only a direction of escape.
#
# **How fast.** Write $s = \|W\|_F^2 + \|U\|_F^2$ for the squared scale and suppose the direction has
# settled, so the loss is $\ell \approx C e^{-\kappa s}$ for some $C, \kappa > 0$ (the margin in units of $s$).
# Gradient flow gives $\dot\theta = -\nabla\ell$, so $\dot s = 2\,\langle \theta, -\nabla\ell\rangle$. The loss depends on
# $\theta = (W, U)$ through $s$, a function homogeneous of degree 2, and Euler's identity gives
# $\langle\theta, \nabla s\rangle = 2s$; hence $\langle\theta, \nabla\ell\rangle = 2s\,\ell'(s) = -2\kappa s\,C e^{-\kappa s}$ and
# $$\dot s = 4\kappa s\,C e^{-\kappa s}. \tag{44.1}$$
# With $v = e^{\kappa s}$, (44.1) reads $\dot v = \kappa \dot s\, v = 4\kappa^2 C s \approx 4\kappa C \log v$, so
# $$v(t) \approx 4\kappa C\, t \log t, \qquad \ell(t) = C/v(t) \approx \frac{1}{4\kappa\, t\log t}, \qquad s(t) \approx \frac{\log t}{\kappa}. \tag{44.2}$$
# The loss falls like $1/t$ (up to a logarithm) and the weights grow only like $\sqrt{\log t}$. A loss of
# $10^{-4}$ therefore takes a number of steps of order $10^4$ times the time at which the loss is of order 1:
# this is why the paper runs 5 million steps. Our runs are far shorter; we measure the slope
# $\mathrm{d}\log\ell / \mathrm{d}\log t$ over the second half of the uniform run (Section 2) and assert the
# collapse there.
#
# ## 2 · A.1, uniform words: Figure 3 without weight decay
#
# The task of chapter 40: $n_c = 3$ concepts, $n_w = 1{,}200$ words, $L = 15$, uniform words. The `book` preset
# uses chapter 40's $K = 200$ with 25 sentences per class (the paper's 5,000 training sentences; the paper
# has $K = 1000$ and 5 per class) and 40,000 SGD steps instead of 5 million (what 5 million steps would
# cost is computed from this run's own rate below). The `paper` preset runs the paper's sizes and steps.

# %%
task_u = fc.make_task(
    P["nc"], P["nw"], P["L"], P["K"], mu="uniform", seed=config.rng(10)
)  # chapter 40's task
data_u = fc.make_dataset(task_u, nspl=P["nspl_u"], n_test=5, seed=config.SEED + 11)
res_u = run(data_u, P["steps_u"], "h, uniform, lambda=0", seed=1)
res_twin = fc.train_fc(
    data_u,
    fc.FCTrainConfig(
        epochs=P["epochs_twin"],
        d=P["d"],
        wd_W=LAM,
        wd_U=LAM,  # chapter 40's run
        eval_every=P["eval_twin"],
        seed=1,
    ),
    desc="h, uniform, lambda=1e-3",
)
wc_u, uc_u = fc.word_concepts(task_u), fc.u_concepts(task_u)
fig5 = {}
for name, r in (("lambda = 0", res_u), ("lambda = 1e-3 (chapter 40)", res_twin)):
    fig5[name] = dict(
        W=fc.collapse_stats(r.features, wc_u),
        U=fc.collapse_stats(r.U.reshape(-1, P["d"]), uc_u),
        angle=np.abs(
            fc.concept_mean_angles(fc.concept_means(r.features, wc_u)) - fc.simplex_angle(P["nc"])
        ).max(),
        sv=fc.top_singular_values(r.features, 3),
        steps=int(r.history["step"][-1]),
        acc=r.test_acc,
    )
    f = fig5[name]
    print(
        f"{name}: {f['steps']:,} steps, test accuracy {f['acc']:.4f}\n    W: {f['W']}\n    U: {f['U']}\n"
        f"    largest angle error {f['angle']:.2f} deg, top singular values of W {np.round(f['sv'], 4)}"
    )
sW_u, sU_u, sv_u = fig5["lambda = 0"]["W"], fig5["lambda = 0"]["U"], fig5["lambda = 0"]["sv"]
hu = res_u.history
rate_K = {K: fc.steps_per_second(K, steps=50) for K in (P["K"], 1000)}  # one thread, measured now
prose(
    f"On this machine one thread now runs {rate_K[P['K']]:.0f} SGD steps per second at $K = {P['K']}$ and "
    f"{rate_K[1000]:.0f} at the paper's $K = 1000$, so the paper's 5 million steps would take "
    f"**{5e6 / rate_K[P['K']] / 3600:.1f} hours** of one core at $K = {P['K']}$ and **{5e6 / rate_K[1000] / 3600:.1f} "
    "hours** at $K = 1000$, per run; A.1 has four such runs (the rate of a shared machine varies from run to "
    "run, so these figures are recomputed whenever the chapter runs, from the same benchmark as chapter 41's)."
)
two5 = {
    "$\\lambda = 0$: words": fc.collapse_two_ways(res_u.features, wc_u),
    "$\\lambda = 0$: $u_{k,\\ell}$": fc.collapse_two_ways(res_u.U.reshape(-1, P["d"]), uc_u),
    "$\\lambda = 10^{-3}$: words": fc.collapse_two_ways(res_twin.features, wc_u),
    "$\\lambda = 10^{-3}$: $u_{k,\\ell}$": fc.collapse_two_ways(
        res_twin.U.reshape(-1, P["d"]), uc_u
    ),
}
prose(fc.two_ways_table(two5))

# %% [markdown]
# **Table 44.1** — The uniform runs with and without weight decay, collapse measured two ways (in the plane of
# Figure 44.2 and on the full vectors) beside the shuffled-label null.
#
# The claims are those of Figure 3 (chapter 40): perfect test accuracy, the words and the $u_{k,\ell}$
# collapsed (full ratio below 0.1, asserted at the book's size too: these runs are collapsed), and rank
# $n_c - 1$. The twin run with weight decay is chapter 40's, on the same data (the `book` preset reads it
# from chapter 40's cache).
#
# **One bound of chapter 40 is missed.** Chapter 40 also asks the three concept means to sit at the simplex
# angle (120°) within 5°, a bound set by the asymmetry of $K = 200$ *random* latent variables. Without weight
# decay the `book` run misses it narrowly (the value is printed above and pinned below as a record, with the
# twin's value beside it): the triangle is a little more scalene than with weight decay. Our reading: with
# $\lambda > 0$ the minimiser balances the penalty, which favours equal norms; with $\lambda = 0$ the direction
# of escape is set by the training margins alone, and those feel the random imbalance of the latent
# variables more directly. The paper's Figure 5 shows no angles, so there is nothing to compare with; at
# $K = 1000$ the imbalance is smaller.

# %%
rep.above(
    "fc.a1.fig5.test_acc",
    f"A.1, h, uniform, lambda=0, K={P['K']}, {int(hu['step'][-1]):,} steps: test accuracy",
    value=res_u.test_acc,
    bound=0.99,
    paper=1.0,
    kind="finding",
)
fc.claim_collapse(
    rep,
    "fc.a1.fig5.collapse_W",
    "A.1, h, uniform, lambda=0: word embeddings by concept",
    two5["$\\lambda = 0$: words"],
    assert_full=True,
)
fc.claim_collapse(
    rep,
    "fc.a1.fig5.collapse_U",
    "A.1, h, uniform, lambda=0: linear weights u_kl by concept",
    two5["$\\lambda = 0$: $u_{k,\\ell}$"],
    assert_full=True,
)
if (
    config.preset() == "book"
):  # pinned at the book's size (see the text: chapter 40's 5 degrees is missed)
    rep.close(
        "fc.a1.fig5.simplex_angles",
        "A.1: largest |angle between concept means - 120 deg| without weight "
        f"decay (twin run with weight decay: {fig5['lambda = 1e-3 (chapter 40)']['angle']:.2f} deg; chapter "
        "40's bound of 5 deg is missed)",
        value=fig5["lambda = 0"]["angle"],
        target=5.3,
        tol=0.3,
        kind="record",
    )
rep.below(
    "fc.a1.fig5.rank_W",
    "A.1: W has nc-1 non-negligible singular values: sigma_3 / sigma_2",
    value=sv_u[2] / sv_u[1],
    bound=0.05,
    kind="finding",
)

# %% [markdown]
# **The loss keeps falling; the weights keep growing.** Section 1 predicts $\ell \propto 1/(t\log t)$ once the
# direction has settled, a log-log slope of about $-1$ (a little steeper because of the logarithm). Its clock
# starts when the direction has settled, not at the initialisation: the run first spends thousands of steps
# escaping from the small initialisation (Figure 44.1). We take $t_{\rm esc}$, the first evaluation at which
# the loss is below half its initial value $\log K$, and fit $\log\ell$ against $\log(t - t_{\rm esc})$ over the
# second half of the run ($t \ge t_{\rm end}/2$). Our run is only a few times longer than $t_{\rm esc}$, so the
# choice of origin matters; we print the slope against $t$ itself as well. Because the origin was chosen
# after seeing the run, the slope is recorded, not asserted as a finding.

# %%
t_esc = float(hu["step"][np.argmax(hu["train_loss"] < 0.5 * np.log(P["K"]))])
tail = (hu["step"] >= P["slope_from"] * hu["step"][-1]) & (hu["step"] > t_esc)
slope = np.polyfit(np.log(hu["step"][tail] - t_esc), np.log(hu["train_loss"][tail]), 1)[0]
slope_raw = np.polyfit(np.log(hu["step"][tail]), np.log(hu["train_loss"][tail]), 1)[0]
grow = hu["norm_mean"][-1] / hu["norm_mean"][tail][0]
prose(
    f"Escape at $t_{{\\rm esc}}$ = {t_esc:,.0f} steps. Over steps {int(hu['step'][tail][0]):,}–{int(hu['step'][-1]):,} "
    f"the training loss falls from {hu['train_loss'][tail][0]:.2e} to {hu['train_loss'][-1]:.2e}: a log-log slope "
    f"of **{slope:.2f}** against $t - t_{{\\rm esc}}$ ({slope_raw:.2f} against $t$). The mean word norm grows by a "
    f"factor {grow:.2f} (to {hu['norm_mean'][-1]:.3f}). The paper's losses, after 5 million steps, are below $10^{{-4}}$."
)
if (
    config.preset() != "smoke"
):  # the smoke run is too short to leave the escape phase (see Figure 44.1)
    rep.check(
        "fc.a1.fig5.loss_slope",
        "A.1, h, uniform, lambda=0: log-log slope of the training loss against "
        "steps since the escape, second half of the run (Section 1: about -1, no minimiser)",
        value=slope,
        passed=-1.6 <= slope <= -0.7,
        tolerance="in [-1.6, -0.7]",
        kind="record",
    )
rep.above(
    "fc.a1.fig5.norms_grow",
    "A.1, h, uniform, lambda=0: the mean word norm still grows at the end "
    "(ratio end / start of the second half)",
    value=grow,
    bound=1.0,
    kind="record",
)

# %%
fig, axes = plotting.figure(1, 2, width=5.0, height=3.6)
axes[0].loglog(hu["step"][1:], hu["train_loss"][1:], "o-", ms=3, label="train loss")
axes[0].loglog(
    hu["step"][tail],
    np.exp(
        np.polyval(
            np.polyfit(np.log(hu["step"][tail] - t_esc), np.log(hu["train_loss"][tail]), 1),
            np.log(hu["step"][tail] - t_esc),
        )
    ),
    "k--",
    label=f"fit in $t - t_{{esc}}$, slope {slope:.2f}",
)
axes[0].axvline(t_esc, color="gray", ls=":", lw=1)
axes[0].legend(fontsize=8)
plotting.label(axes[0], "Loss without weight decay", "SGD step $t$", "training cross-entropy")
axes[1].loglog(hu["step"][1:], hu["norm_mean"][1:], "o-", ms=3, label="mean $\\|w\\|$")
axes[1].loglog(hu["step"][1:], hu["u_norm_mean"][1:], "s-", ms=3, label="mean $\\|u_{k,\\ell}\\|$")
axes[1].legend(fontsize=8)
plotting.label(axes[1], "Weights keep growing", "SGD step $t$", "norm")
plt.show()

# %% [markdown]
# **Figure 44.1** — The uniform run of $h$ without weight decay. Left: the training loss against steps
# (log-log). It stays at $\log K$ while the weights escape from their small initialisation (the origin is a
# saddle point of the risk), falls steeply after the escape (dotted line, $t_{\rm esc}$), then bends into the
# power law of Section 1 (dashed: the fit over the second half of the run, in $t - t_{\rm esc}$). Right: the mean norms of the word embeddings and of the $u_{k,\ell}$; after the
# escape they keep growing, slower and slower.

# %%
fig, axes = plotting.figure(1, 2, width=4.4, height=4.0)
plotting.pca_scatter(
    axes[0], res_u.features, wc_u, "$\\lambda = 0$: word embeddings $w$", sizes=6, legend=True
)
plotting.pca_scatter(
    axes[1],
    res_u.U.reshape(-1, P["d"]),
    uc_u,
    "$\\lambda = 0$: linear weights $u_{k,\\ell}$",
    alpha=0.3,
)
plt.show()

# %% [markdown]
# **Figure 44.2** — The paper's Figure 5 at the book's size: the 1,200 word embeddings (left) and the $KL$
# linear weights (right) of $h$ trained without weight decay, projected on their top two principal
# directions and coloured by concept. As with weight decay (chapter 40), each concept sits near one vertex of
# an equilateral triangle.
#
# ## 3 · A.1, long-tailed words: Figure 4 without weight decay
#
# The task and the two training sets of chapter 41 (Zipf words, $K = 200$ at `book`): (a) $h$ on the large set
# ($n_{\rm spl} = 500$), (b) $h$ on the small set ($n_{\rm spl} = 5$), (c) $h^\star$ on the small set, all with
# $\lambda_W = \lambda_U = 0$. Steps (`book`): 10,000 for (a) (chapter 41's ten epochs), 20,000 for (b) (the
# authors' with-decay run peaked near 20,000 steps, chapter 41), 5,000 for (c) (chapter 41's 500 epochs);
# each repeated with two more seeds (`seeds`: other initialisations and minibatches, the same data), so that
# every accuracy and collapse ratio below has a seed spread. The `paper` preset runs 5 million steps each at
# $K = 1000$. Chapter 41's
# three runs with weight decay are read from its cache, so the two can be set side by side.

# %%
task_z = fc.make_task(
    P["nc"], P["nw"], P["L"], P["K"], mu="zipf", seed=config.rng(30)
)  # chapter 41's task
big = fc.make_dataset(task_z, nspl=P["nspl_a"], n_test=5, seed=config.SEED + 31)
small = fc.make_dataset(task_z, nspl=P["nspl_b"], n_test=5, seed=config.SEED + 32)
runs = {
    "a": run(big, P["steps_a"], "(a) h, large set, lambda=0", seed=1),
    "b": run(small, P["steps_b"], "(b) h, small set, lambda=0", seed=2),
    "c": run(small, P["steps_c"], "(c) h*, small set, lambda=0", layer_norm=True, seed=3),
}
seed_runs = {
    "a": [runs["a"]] + [run(big, P["steps_a"], f"(a) seed {s}", seed=s) for s in P["seeds"]["a"]],
    "b": [runs["b"]] + [run(small, P["steps_b"], f"(b) seed {s}", seed=s) for s in P["seeds"]["b"]],
    "c": [runs["c"]]
    + [run(small, P["steps_c"], f"(c) seed {s}", layer_norm=True, seed=s) for s in P["seeds"]["c"]],
}
acc_seeds = {k: np.array([r.test_acc for r in v]) for k, v in seed_runs.items()}
# chapter 41's runs with weight decay, on the same data (same configurations: read from its cache)
wd_runs = {
    "a": fc.train_fc(
        big,
        fc.FCTrainConfig(
            epochs=10, d=P["d"], wd_W=LAM, wd_U=LAM, batch=BATCH, eval_every=1, seed=1
        ),
        desc="chapter 41 (a)",
    ),
    "b": fc.train_fc(
        small,
        fc.FCTrainConfig(
            epochs=P["steps_b41"] // (small.x_train.shape[0] // BATCH),
            d=P["d"],
            wd_W=LAM,
            wd_U=LAM,
            batch=BATCH,
            eval_every=P["eval_b41"],
            seed=2,
        ),
        desc="chapter 41 (b)",
    ),
    "c": fc.train_fc(
        small,
        fc.FCTrainConfig(
            epochs=500,
            d=P["d"],
            layer_norm=True,
            wd_W=0.0,
            wd_U=LAM,
            batch=BATCH,
            eval_every=25,
            seed=3,
        ),
        desc="chapter 41 (c)",
    ),
}
paper_acc = {"a": 1.0, "b": 0.66, "c": 1.0}  # the paper's Figure 6
wc, uc = fc.word_concepts(task_z), fc.u_concepts(task_z)
freq = task_z.mu[np.arange(task_z.nw) % task_z.sc]
seen = fc.word_counts(small) > 0
stats = {}
for key, r in runs.items():
    stats[key] = dict(
        W=fc.collapse_stats(r.features, wc),
        W_seen=fc.collapse_stats(r.features[seen], wc[seen]),
        U=fc.collapse_stats(r.U.reshape(-1, P["d"]), uc),
        rho=spearmanr(fc.word_norms(r.features), freq).statistic,
    )
    h = r.history
    print(
        f"({key}) test {r.test_acc:.4f} (paper {paper_acc[key]:.2f}; peak {h['test_acc'].max():.4f}), train loss "
        f"{h['train_loss'][-1]:.2e}, {int(h['step'][-1]):,} steps [{r.seconds:.0f} s{', cached' if r.cached else ''}]"
        f"\n    W all: {stats[key]['W']}\n    W seen: {stats[key]['W_seen']}\n    U: {stats[key]['U']}"
        f"\n    Spearman(norm, mu) = {stats[key]['rho']:.3f}"
    )


# %%
def row(name, key, r, st, acc):
    h = r.history
    return (
        f"| {name} | {key} | {acc.mean():.1%} ({acc.size} seed{'s' if acc.size > 1 else ''}) | "
        f"{h['test_acc'].max():.1%} | "
        f"{h['train_loss'][-1]:.1e} | {st['W'].plane:.3f} / {st['W'].full:.3f} | "
        f"{st['W_unit'].full:.3f} | {st['U'].plane:.3f} / {st['U'].full:.3f} | {st['W'].cos_median:.3f} |"
    )


def table_stats(r):
    return dict(
        W=fc.collapse_two_ways(r.features, wc, n_null=5),
        W_unit=fc.collapse_two_ways(fc.unit_rows(r.features[seen]), wc[seen], n_null=5),
        U=fc.collapse_two_ways(r.U.reshape(-1, P["d"]), uc, n_null=5),
    )


tstats = {("0", k): table_stats(r) for k, r in runs.items()}
tstats |= {("1e-3", k): table_stats(r) for k, r in wd_runs.items()}
lines = [
    "| $\\lambda$ | run | final test accuracy | peak test accuracy | final train loss | words: 2-D / full "
    "ratio | seen words, unit length: full ratio | $u_{k,\\ell}$: 2-D / full ratio | words: median cosine |",
    "|---|---|---|---|---|---|---|---|---|",
]
for k in "abc":
    lines.append(row("0", k, runs[k], tstats[("0", k)], acc_seeds[k]))
    lines.append(
        row("10⁻³ (ch. 41)", k, wd_runs[k], tstats[("1e-3", k)], np.array([wd_runs[k].test_acc]))
    )
prose("\n".join(lines))

# %% [markdown]
# **Table 44.2** — What changes without weight decay: chapter 41's three runs (with $\lambda = 10^{-3}$) beside
# the same runs with $\lambda = 0$, on the same data. The collapse columns are the 2-D ratio (in the plane of
# the pictures) and the full ratio; "unit length" is the ratio of the seen words' directions alone.
#
# The claims are chapter 41's, without decay. (a) generalises, its words collapse in direction with norms
# that grow with frequency, and its $u_{k,\ell}$ collapse. (b) fits its training set but generalises poorly
# (below 85%) and its $u_{k,\ell}$ are at least twice as spread as in (a). (c) generalises perfectly.


# %%
spread = {k: [table_stats(r) for r in v] for k, v in seed_runs.items()}


def mean_sd(xs):
    xs = np.asarray(xs, dtype=float)
    return f"{xs.mean():.3f} ± {xs.std(ddof=1):.3f}" if xs.size > 1 else f"{xs[0]:.3f}"


prose(
    "| run | seeds | test accuracy (min – max) | words: full ratio | seen words, unit length: full ratio "
    "| $u_{k,\\ell}$: 2-D ratio | $u_{k,\\ell}$: full ratio |\n|---|---|---|---|---|---|---|\n"
    + "\n".join(
        f"| ({k}) | {acc_seeds[k].size} | {acc_seeds[k].min():.1%} – {acc_seeds[k].max():.1%} | "
        f"{mean_sd([t['W'].full for t in spread[k]])} | {mean_sd([t['W_unit'].full for t in spread[k]])} | "
        f"{mean_sd([t['U'].plane for t in spread[k]])} | {mean_sd([t['U'].full for t in spread[k]])} |"
        for k in "abc"
    )
)
u_full = {k: np.array([t["U"].full for t in spread[k]]) for k in "abc"}
rep.above(
    "fc.a1.seeds.u_order",
    "A.1, over all seeds: the smallest full within/between ratio of (b)'s u_kl divided by the largest of "
    "(a)'s (a seed of (b) as collapsed as one of (a) would give about 1)",
    value=float(u_full["b"].min() / u_full["a"].max()),
    bound=2.0,
    kind="finding",
)

# %% [markdown]
# **Table 44.3** — The seed spread of Table 44.2's $\lambda = 0$ rows: each run repeated from other
# initialisations and minibatches on the same data (mean ± standard deviation over the seeds; the first seed is
# Table 44.2's run). The chapter's other claims are on the first seed; this cell's claim holds on every pair
# of seeds of (a) and (b).

# %%
sa, sb, scc = stats["a"], stats["b"], stats["c"]
rep.above(
    "fc.a1.fig6a.test_acc",
    f"A.1 (a) h, Zipf, nspl={P['nspl_a']}, lambda=0: lowest test accuracy over {acc_seeds['a'].size} seeds",
    value=acc_seeds["a"].min(),
    bound=0.98,
    paper=1.0,
    kind="finding",
)
rep.above(
    "fc.a1.fig6a.direction_collapse",
    "A.1 (a): median cosine word / concept mean (shared metric)",
    value=sa["W"].cos_median,
    bound=fc.ALIGNED_COSINE,
    kind="finding",
)
rep.above(
    "fc.a1.fig6a.norm_vs_frequency",
    "A.1 (a): Spearman correlation between word norm and frequency",
    value=sa["rho"],
    bound=0.8,
    kind="finding",
)
rep.above(
    "fc.a1.fig6a.norms_not_collapsed",
    "A.1 (a): the norms do not collapse: within/between ratio of the words "
    "stays above the collapse threshold",
    value=sa["W"].ratio,
    bound=fc.COLLAPSED_RATIO,
    kind="finding",
)
fc.claim_collapse(
    rep,
    "fc.a1.fig6a.u_collapse",
    "A.1 (a): u_kl by concept",
    fc.collapse_two_ways(runs["a"].U.reshape(-1, P["d"]), uc),
    assert_full=True,
)
rep.above(
    "fc.a1.fig6b.train_fit",
    "A.1 (b) h fits its small training set (train accuracy)",
    value=runs["b"].train_acc,
    bound=0.99,
    kind="record",
)
rep.below(
    "fc.a1.fig6b.test_acc",
    f"A.1 (b) h, Zipf, nspl={P['nspl_b']}, lambda=0, K={P['K']}: highest test accuracy over "
    f"{acc_seeds['b'].size} seeds stays far from perfect (seeds: "
    f"{', '.join(f'{a:.3f}' for a in acc_seeds['b'])})",
    value=acc_seeds["b"].max(),
    bound=0.85,
    paper=0.66,
    kind="finding",
)
rep.above(
    "fc.a1.fig6b.u_not_collapsed",
    "A.1 (b): u_kl within/between ratio divided by that of (a)",
    value=sb["U"].ratio / sa["U"].ratio,
    bound=2.0,
    kind="finding",
)
rep.above(
    "fc.a1.fig6c.test_acc",
    f"A.1 (c) h*, Zipf, nspl={P['nspl_b']}, lambda=0: lowest test accuracy over {acc_seeds['c'].size} seeds",
    value=acc_seeds["c"].min(),
    bound=0.99,
    paper=1.0,
    kind="finding",
)
rep.below(
    "fc.a1.fig6c.collapse_W",
    "A.1 (c) vs (b), words seen in training: within/between ratio of h* / that of h (LayerNorm removes "
    "the norms that inflate h's ratio, so this holds by design)",
    value=scc["W_seen"].ratio / sb["W_seen"].ratio,
    bound=0.3,
    kind="consistency",
)
rep.check(
    "fc.a1.fig6c.collapse_W_unit",
    "A.1 (c) vs (b), words seen in training, unit-normalised (directions only): within/between ratio "
    "of h* / that of h (recorded; the paper claims no order of directions)",
    value=tstats[("0", "c")]["W_unit"].full / tstats[("0", "b")]["W_unit"].full,
    passed=True,
    tolerance="recorded",
    kind="record",
)
rep.below(
    "fc.a1.fig6c.u_collapse",
    "A.1 (c) vs (b): u_kl within/between ratio of h* / that of h",
    value=scc["U"].ratio / sb["U"].ratio,
    bound=0.6,
    kind="finding",
)
rep.above(
    "fc.a1.fig6.layernorm_gap",
    "A.1: test accuracy of h* minus that of h on the small set, lambda=0",
    value=runs["c"].test_acc - runs["b"].test_acc,
    bound=0.15,
    paper=1.0 - 0.66,
    kind="finding",
)

# %%
prose(
    f"In absolute terms, (c)'s word representations have a within/between ratio of {scc['W'].ratio:.3f} on all "
    f"{task_z.nw} words and {scc['W_seen'].ratio:.3f} on the {int(seen.sum())} seen in training; (b)'s: "
    f"{sb['W'].ratio:.3f} and {sb['W_seen'].ratio:.3f}. As in chapter 41, the words that the small set never "
    f"shows ({int((~seen).sum())} at $K = {P['K']}$) keep their random initialisation — without weight decay even "
    "more so — and keep (c) above the collapse threshold on all words."
)
fc.claim_collapse(
    rep,
    "fc.a1.fig6c.collapse_W_abs",
    "A.1 (c) h*'s word representations, all words (rare and unseen included)",
    fc.collapse_two_ways(runs["c"].features, wc),
    assert_plane=config.preset() == "paper",  # rare words at K = 200, as in chapter 41 (c)
)

# %%
titles = {"a": "(a) $h$, large set", "b": "(b) $h$, small set", "c": "(c) $h^\\star$, small set"}
size = 4 + 60 * freq / freq.max()
fig, axes = plotting.figure(2, 3, width=4.0, height=3.6)
for j, (key, r) in enumerate(runs.items()):
    what = "$\\varphi(w)$" if key == "c" else "$w$"
    plotting.pca_scatter(
        axes[0, j],
        r.features,
        wc,
        f"{titles[key]}, $\\lambda=0$: {what}",
        sizes=size,
        legend=j == 0,
    )
    plotting.pca_scatter(
        axes[1, j],
        r.U.reshape(-1, P["d"]),
        uc,
        f"{titles[key]}, $\\lambda=0$: $u_{{k,\\ell}}$",
        alpha=0.3,
    )
plt.show()

# %% [markdown]
# **Figure 44.3** — The paper's Figure 6 at the book's size: chapter 41's three experiments without weight
# decay (top: word representations, marker size ∝ frequency; bottom: the $u_{k,\ell}$; coloured by concept).
# (a) rays at 120° with frequent words far out and collapsed $u_{k,\ell}$; (b) rays, but smeared $u_{k,\ell}$;
# (c) three tight clusters plus the unseen words near the origin. The same pictures as Figure 41.2.
#
# **The 66% of (b).** The paper prints 66% for (b) without decay, at $K = 1000$ after 5 million steps. The
# book's (b) is at $K = 200$ after 20,000 steps, and chapter 41 shows that $K$ moves the accuracy of (b)
# a lot; so a book value near 66% would be a coincidence, not agreement. One tempting explanation of the
# paper's 66% — without decay there is no drift, so the accuracy stays near the with-decay peak (about 65%
# in the authors' notebook) — does not survive the book's own numbers: at $K = 200$ the with-decay peak
# (chapter 41) and the no-decay accuracy are printed below, and they need not agree. The book does not
# explain the 66%; whether the no-decay accuracy drifts is a question for runs of millions of steps (the
# `paper` preset).

# %%
hb = runs["b"].history
hb41 = wd_runs["b"].history
rising = bool(hb["test_acc"][-1] >= hb["test_acc"].max() - 1e-12)
prose(
    f"Run (b) without weight decay ends at **{runs['b'].test_acc:.1%}** test accuracy after "
    f"{int(hb['step'][-1]):,} steps (seeds: {', '.join(f'{a:.1%}' for a in acc_seeds['b'])}); its peak was "
    f"{hb['test_acc'].max():.1%}"
    + (", at the last evaluation: the run ends while still rising" if rising else "")
    + f". With weight decay (chapter 41, same data) the peak is {hb41['test_acc'].max():.1%} after "
    f"{int(hb41['step'][hb41['test_acc'].argmax()]):,} steps. The paper: 66% without decay, 45% with it, "
    "both at $K = 1000$."
)
rep.check(
    "fc.a1.fig6b.vs_decay_peak",
    "A.1 (b): final test accuracy without decay minus the peak test accuracy of chapter 41's (b) with "
    "decay, same data (recorded: the 'no drift, so near the with-decay peak' reading of the paper's 66%)",
    value=runs["b"].test_acc - hb41["test_acc"].max(),
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %% [markdown]
# ## 4 · A.2, a LayerNorm with a learnable gain and bias
#
# The LayerNorm of $h^\star$ becomes $\tilde\varphi(w) = \gamma \odot \varphi(w) + b$ with $\gamma, b \in \mathbb{R}^d$
# learned (initialised at $\mathbf 1$ and $\mathbf 0$, like `torch.nn.LayerNorm`). The run is Figure 4(c)'s
# (chapter 41's run (c): $\lambda_W = 0$, $\lambda_U = 10^{-3}$, 500 epochs on the small Zipf set); $\gamma$
# and $b$ are trained without weight decay. `fc.sgd_epoch` has their gradients written out
# ($\partial\gamma = \sum g\odot\varphi$, $\partial b = \sum g$); a unit test checks them against autograd. We
# compare with the parameter-free run of chapter 41 on the same data, with the shared metric.
#
# Why collapse should survive: a common affine map keeps equal points equal, and the ratio is unchanged by
# the bias (a common translation); only the gain, a coordinate-wise stretch, can change the ratio, and only
# by reshaping the cloud, not by separating words that $\varphi$ merged.

# %%
cfg_c = dict(
    epochs=P["epochs_ln"], d=P["d"], layer_norm=True, wd_W=0.0, wd_U=LAM, batch=BATCH, seed=3
)
ev_c = 25 if config.preset() != "smoke" else max(1, P["epochs_ln"] // P["n_evals"])
r_fixed = fc.train_fc(
    small, fc.FCTrainConfig(eval_every=ev_c, **cfg_c), desc="h*, parameter-free LN (chapter 41)"
)
r_learn = fc.train_fc(
    small, fc.FCTrainConfig(eval_every=ev_c, ln_affine=True, **cfg_c), desc="h*, learnable LN"
)
ln = {"fixed": r_fixed, "learnable": r_learn}
s_ln = {
    k: dict(
        W=fc.collapse_stats(r.features, wc),
        W_seen=fc.collapse_stats(r.features[seen], wc[seen]),
        U=fc.collapse_stats(r.U.reshape(-1, P["d"]), uc),
    )
    for k, r in ln.items()
}
for k, r in ln.items():
    print(
        f"{k:9s}: test {r.test_acc:.4f}\n    W all: {s_ln[k]['W']}\n    W seen: {s_ln[k]['W_seen']}"
        f"\n    U: {s_ln[k]['U']}"
    )
g = r_learn.ln_gain
prose(
    f"The learned gain ranges over [{g.min():.3f}, {g.max():.3f}] (standard deviation {g.std():.3f} around "
    f"its mean {g.mean():.3f}); the bias has norm {np.linalg.norm(r_learn.ln_bias):.3f}. Within/between ratio "
    f"on the seen words: **{s_ln['learnable']['W_seen'].ratio:.3f}** with the learnable LayerNorm, "
    f"{s_ln['fixed']['W_seen'].ratio:.3f} without parameters; for the $u_{{k,\\ell}}$: "
    f"{s_ln['learnable']['U'].ratio:.3f} and {s_ln['fixed']['U'].ratio:.3f}."
)

# %% [markdown]
# The paper states no number for A.2, only that collapse "does occur". We assert what a reader of Figure 7
# would check: perfect test accuracy; the learnable run collapses at least as much as $h$ without LayerNorm
# on the same words, by the factor chapter 41 asserts for the parameter-free $h^\star$ (ratio below 0.3 of
# (b)'s); and its within/between ratio is within a factor 1.5 of the parameter-free LayerNorm's (both
# directions), so "collapsed" means what it meant in chapter 41. The network without LayerNorm in these
# comparisons is run (b) of Section 3, on the same small training set.

# %%
rep.above(
    "fc.a2.test_acc",
    f"A.2, h* with learnable LayerNorm, Zipf, nspl={P['nspl_b']}: test accuracy",
    value=r_learn.test_acc,
    bound=0.99,
    kind="finding",
)
rep.below(
    "fc.a2.collapse_vs_h",
    "A.2: words seen in training, within/between ratio of h* with learnable LN / "
    "that of h without LN (run (b); LayerNorm removes h's frequency-dependent norms by design)",
    value=s_ln["learnable"]["W_seen"].ratio / sb["W_seen"].ratio,
    bound=0.3,
    kind="consistency",
)
q = s_ln["learnable"]["W_seen"].ratio / s_ln["fixed"]["W_seen"].ratio
rep.check(
    "fc.a2.same_as_fixed_ln",
    "A.2: within/between ratio (seen words) with learnable LN / without LN parameters (near invariant "
    f"by construction: the learned gain stays near 1, mean {g.mean():.3f}, std {g.std():.3f})",
    value=q,
    passed=1 / 1.5 <= q <= 1.5,
    tolerance="in [1/1.5, 1.5]",
    kind="consistency",
)
fc.claim_collapse(
    rep,
    "fc.a2.collapse_abs",
    "A.2: h* with learnable LayerNorm, word representations of the words seen in training",
    fc.collapse_two_ways(r_learn.features[seen], wc[seen], center=True),
    assert_plane=config.preset() == "paper",  # rare words at K = 200, as in chapter 41 (c)
)
rep.below(
    "fc.a2.u_collapse_vs_h",
    "A.2: u_kl within/between ratio of h* with learnable LN / that of h (run (b))",
    value=s_ln["learnable"]["U"].ratio / sb["U"].ratio,
    bound=0.6,
    kind="finding",
)
rep.above(
    "fc.a2.gain_moved",
    "A.2: the learnable gain did move: standard deviation of gamma across coordinates",
    value=g.std(),
    bound=1e-3,
    kind="consistency",
)

# %%
fig, axes = plotting.figure(1, 3, width=3.8, height=3.6)
for j, (k, r) in enumerate(ln.items()):
    plotting.pca_scatter(
        axes[j],
        r.features,
        wc,
        f"$h^\\star$, {k} LayerNorm",
        sizes=size,
        center=True,
        legend=j == 0,
    )
axes[2].hist(g, bins=30, color=plotting.PALETTE[4])
axes[2].axvline(1.0, color="k", ls="--", lw=1)
plotting.label(axes[2], "Learned LayerNorm gain", "$\\gamma_j$", "coordinates")
plt.show()

# %% [markdown]
# **Figure 44.4** — The paper's Figure 7 at the book's size. Left: word representations of $h^\star$ with the
# parameter-free LayerNorm (chapter 41's run (c)); middle: with a learnable gain and bias (marker size ∝
# frequency, PCA after centring since the bias shifts the cloud). The same three clusters; the unseen words
# sit apart in both. Right: the learned gains $\gamma_j$ (dashed: their initial value 1).
#
# ## 5 · Discussion
#
# * Without weight decay the collapse of chapter 40 is already there when the training set is fitted, and
#   stays while the weights grow: the risk has no minimiser, but its *direction* of escape is the collapse
#   configuration. The loss falls like $1/t$ as Section 1 predicts, so the paper's "losses below $10^{-4}$"
#   is a statement about 5 million steps, not about a different solution.
# * The long-tail story of chapter 41 does not depend on weight decay either (Table 44.2): directional
#   collapse with frequency-dependent norms for $h$, a failure of $h$ on the small set that LayerNorm repairs.
#   The book's runs are an early-training analogue of A.1 (tens of thousands of steps, losses far above the
#   paper's $10^{-4}$); they say nothing about a drift over millions of steps, and they do not explain the
#   paper's 66% (Section 3).
# * A learnable gain and bias do not prevent collapse; they re-scale the coordinates of the collapsed
#   configuration. Theorem 3's statement about the $u_{k,\ell}$ norms, on the other hand, is specific to the
#   parameter-free LayerNorm (a gain $\gamma$ can trade norm with $u_{k,\ell}$), so it is not checked here.
# * Sizes: the book uses $K = 200$ and 10,000–40,000 steps per run instead of $K = 1000$ and 5 million; the
#   pictures and the qualitative claims are the paper's, the percentages are not comparable one to one.
#   Small sets at $K = 200$ leave many tail words unseen, which is why the absolute collapse of (c) is
#   measured on the seen words (and pinned, not asserted, on all words).

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
# 1. *(compute, ★)* Take the trained uniform network of Section 2 and multiply $W$ and $U$ by $c = 2$. By how much does the
#    training loss fall? Compare with the bound of Section 1.
# 2. *(derive, ★★)* Show that the within/between ratio is unchanged by the bias $b$ of a learnable LayerNorm but not by its
#    gain $\gamma$. Check both on the run of Section 4.
# 3. *(derive, ★)* Using Section 1, estimate how many steps the uniform run would need to reach a loss of $10^{-4}$.
#
# ## Solutions
#
# <details><summary>Solution 1</summary>
#
# Scaling both matrices by $c$ multiplies every score by $c^2 = 4$, so every margin is multiplied by 4. A
# sentence whose loss is $\log(1 + \sum_k e^{-\delta_k})$ with margins $\delta_k > 0$ gets
# $\log(1 + \sum_k e^{-4\delta_k})$: when the loss is small it is roughly raised to the fourth power, in
# relative terms. The cell computes the scores $y_k = \sum_\ell u_{k,\ell}^\top w_{x_\ell}$ on the training set
# for $c = 1$ and $c = 2$.
#
# </details>


# %%
def train_loss(res: fc.FCResult, data: fc.FCData, c: float) -> float:
    """Mean training cross-entropy of h with weights (c W, c U), computed in numpy."""
    X = c * res.features[data.x_train]  # (n, L, d)
    s = np.einsum("nld,kld->nk", X, c * res.U)
    s -= s.max(1, keepdims=True)
    return float(np.mean(np.log(np.exp(s).sum(1)) - s[np.arange(len(s)), data.y_train]))


l1, l2 = train_loss(res_u, data_u, 1.0), train_loss(res_u, data_u, 2.0)
prose(f"Training loss {l1:.3e} at $c = 1$ and {l2:.3e} at $c = 2$ (ratio {l2 / l1:.2e}).")
rep.close(
    "fc.a1.solution.1.loss_c1",
    "exercise 1: numpy loss at c=1 equals the trainer's recorded loss "
    "(the whole training set is the trainer's evaluation set at these sizes)",
    value=l1,
    target=float(hu["train_loss"][-1]),
    tol=1e-3,
    rel=True,
    kind="consistency",
)
rep.below(
    "fc.a1.solution.1.scaling_lowers_loss",
    "exercise 1: loss at c=2 divided by loss at c=1",
    value=l2 / l1,
    bound=1.0,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# The ratio uses differences $x_i - m_{g(i)}$ and $m_g - m_{g'}$; adding the same $b$ to every vector adds it to
# every mean too, so all differences, and the ratio, are unchanged. The gain multiplies coordinate $j$ of
# every difference by $\gamma_j$: unless $\gamma$ is a multiple of $\mathbf 1$ the within and between distances
# change by different factors. The cell recomputes the ratio on $\tilde\varphi - b$ and on $(\tilde\varphi - b)/\gamma = \varphi$.
#
# </details>

# %%
F = r_learn.features
r_all = fc.collapse_ratio(F[seen], wc[seen])
r_nobias = fc.collapse_ratio(F[seen] - r_learn.ln_bias, wc[seen])
r_phi = fc.collapse_ratio((F[seen] - r_learn.ln_bias) / r_learn.ln_gain, wc[seen])
prose(
    f"Seen words: ratio {r_all:.4f} on $\\gamma\\odot\\varphi + b$, {r_nobias:.4f} after removing $b$, "
    f"{r_phi:.4f} on $\\varphi$ itself."
)
rep.close(
    "fc.a2.solution.2.bias_invariant",
    "exercise 2: the bias does not change the within/between ratio",
    value=r_nobias,
    target=r_all,
    tol=1e-9,
    rel=True,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# Section 1 gives $\ell(t) \approx A/t$ in the late phase (ignoring the logarithm). Fitting $A$ on the last
# evaluation, $t(10^{-4}) \approx t_{\rm end}\,\ell(t_{\rm end})/10^{-4}$. With the fitted slope instead of $-1$,
# $t = t_{\rm end}\,(\ell_{\rm end}/10^{-4})^{-1/{\rm slope}}$. Both are rough: they extrapolate a power law over
# decades.
#
# </details>

# %%
t_end, l_end = float(hu["step"][-1]), float(hu["train_loss"][-1])
t_inv = t_end * l_end / 1e-4
t_fit = t_end * (l_end / 1e-4) ** (-1 / slope) if slope < 0 else float("inf")
prose(
    f"From $\\ell = {l_end:.2e}$ at $t = {t_end:,.0f}$: about {t_inv:,.0f} steps with $\\ell \\propto 1/t$, "
    f"{t_fit:,.0f} with the fitted slope {slope:.2f} (the paper ran 5,000,000)."
)
rep.above(
    "fc.a1.solution.3.steps_needed",
    "exercise 3: steps to a loss of 1e-4 with loss ~ 1/t, in units of "
    "the run's length (more than the run: the loss is above 1e-4)",
    value=t_inv / t_end,
    bound=1.0,
    kind="consistency",
)
