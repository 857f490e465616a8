# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 26 · Tied SGNS without minibatch noise (the paper's word2vec row and the SGNS side of Figure 5)
#
# **Statement (Karkada et al. 2025, Figures 3b, 5 and 7, claims C5 and C6).** The paper's baseline is word2vec's
# skip-gram with negative sampling (SGNS) with one negative per pair ($k = 1$) and *tied* weights: one matrix
# $W$ gives both the word and the context vectors. (i) On the Google analogies it scores above svd($M^\star$):
# 68.0% against 66.3% (MEN 0.744 against 0.755, WordSim353 0.698 against 0.683). (ii) Its eigen-features
# overlap those of trained QWEM and svd($M^\star$) one to one over the first 64 components, more than those
# of svd(PPMI). (iii) In the paper's ablation (Figure 7, claim C6) word2vec's loss with word2vec's own
# reweighting learns in discrete steps, as QWEM does.
#
# **Intuition.** Near $W = 0$ SGNS's loss is quadratic: its expansion (chapter 10) is QWEM's loss with
# word2vec's weights, whose linear part is the *growth matrix* $B$ (chapter 23). A small start therefore grows
# $B$'s top eigen-directions first, each at its own rate $\lambda_{B,k}$. Once the entries of $WW^\top$ are of
# order one, the logistic loss is no longer quadratic, and the end point need not be svd($M^\star$). This
# chapter measures how far it is, on the same questions and in the same dimensions as the closed forms.
#
# Chapter 24 compared trained QWEM with svd($M^\star$) at the paper's $V = 10{,}000$, $d = 200$; it left tied
# SGNS untrained there, because SGNS has no eigenbasis shortcut. Here tied SGNS is trained **without
# minibatch noise**: gradient descent on its exact expected loss (`q.train_expected`, chapter 23), from a
# small random start, at a growing series of sizes $(V, d)$: up to $V = 5{,}000$, $d = 100$ in the book
# preset, and on to the paper's $V = 10{,}000$, $d = 200$ in the paper preset (about an hour on one core).
# Chapter 28 then finds where these runs are heading: the minimum of the same loss, in a few hundred
# gradients, and at the paper's size on two corpora.

# %%
import re
import time

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display
from matplotlib.ticker import NullFormatter

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("26_tied_sgns")
# the runs' sizes (V, d, h) live in qwem_lib (q.TIED_SGNS_RUNS), shared with chapter 28, which reads these
# runs from the cache; above_at is the size where section 3's "svd(M*) < tied SGNS" is asserted
P = q.TIED_SGNS_RUNS[config.preset()] | config.knobs(
    above_at=config.per_preset(800, 5000, 5000),
    n_boot=config.per_preset(200, 1000, 1000),
    n_null=config.per_preset(100, 200, 200),
    n_overlap=64,
)
print(P)
corpus = q.load_corpus(P["corpus"])
SIZES = [(int(s[0]), int(s[1])) for s in P["sizes"]]
HORIZON = {(int(s[0]), int(s[1])): float(s[2]) for s in P["sizes"]}

# %% [markdown]
# ## 1 · The model and the run
#
# Tied SGNS with $k = 1$ minimises, in expectation over word2vec's draws,
#
# $$\mathcal L(W) = \sum_{a,b} A_{ab}\,\log\big(1 + e^{-x_{ab}}\big) + N_{ab}\,\log\big(1 + e^{x_{ab}}\big),
# \qquad x_{ab} = w_a\cdot w_b, \tag{26.1}$$
#
# with $A_{ab}$ the probability that $(a, b)$ is drawn as a positive pair (the corpus's $P_{ab}$ after
# word2vec's subsampling of frequent words, $t = 10^{-5}$) and $N_{ab} = k\,m_a\,Q_b$ that it is drawn as a
# negative ($m_a$ the positives' marginal, $Q \propto P^{0.75}$). These are `q.pair_weights`'s weights, the
# same ones chapter 23's minibatches sample. Gradient descent on (26.1) with step $\eta$ is the
# infinite-batch limit of the authors' SGD; time is $t = 2\eta s$ after $s$ steps, as in every chapter of
# Part II.
#
# Near $W = 0$ the gradient is $-BW$ with $B_{ab} = \tfrac12(A + A^\top - N - N^\top)_{ab}$ up to the
# normalisation of `q.sgns_growth_matrix`: each eigen-direction of $B$ grows at its own rate
# $\lambda_{B,k}$. `q.tied_sgns_run` plans the run from the statistics alone: rate $\eta = 0.15/\lambda_{B,1}$,
# and time up to $h$ characteristic times of mode $d$,
#
# $$\tau_k = \frac{1}{\lambda_{B,k}}\,\ln\frac{\lambda_k}{\sigma^2}, \tag{26.2}$$
#
# the time mode $k$ would take to grow at rate $\lambda_{B,k}$ from $\sigma^2$ to $M^\star$'s eigenvalue
# $\lambda_k$. The horizon $h$ is 4 at $V \le 2{,}000$, 6 at $V = 5{,}000$ and 8 at $V = 10{,}000$ (set before
# that run, from the growth of the last step's delay between the two smaller sizes): the steps come later than
# (26.2) says, by a factor that grows with $V$ (section 2). The rate factor 0.15 is lower than the 0.2 of
# chapter 25's noiseless runs. Both were chosen after first runs, and section 2 ends by measuring again what
# those runs showed. The run has two segments, to $\tfrac34 t_{\rm end}$ and on to $t_{\rm end}$, so that
# what still changes over the last quarter can be measured.
#
# Table 26.0, printed by the next cell, compares the two settings.
#
# The start is larger than the authors' $10^{-24}$ because the products are in float32: their rounding acts
# as a start of relative size $\sim10^{-7}$ (chapter 27), and float64 products cost three times as much. A
# larger start shortens the plateaus ($\ln(\lambda/\sigma^2)$ is about 23 instead of 58) and changes
# nothing else in (26.2).

# %%
size_list = ", ".join(f"({V_:,}, {d_})" for V_, d_ in SIZES)
prose(
    "**Table 26.0** — The paper's tied SGNS and this chapter's.\n\n"
    "| | the paper's tied SGNS | this chapter |\n|---|---|---|\n"
    "| trainer | the original C word2vec, tied, 10 passes of SGD | gradient descent on the exact "
    "expected loss (26.1) |\n"
    f"| corpus | 2.0B tokens of Wikipedia 2023 | {P['corpus']}, {corpus.n_tokens / 1e6:.1f}M tokens of "
    "Wikipedia 2015 |\n"
    "| window, $k$, subsampling | 16, 1, $10^{-5}$ | the authors' counting protocol (chapter 20), 1, "
    "$10^{-5}$ |\n"
    f"| $(V, d)$ | (10,000, 200) | gradient descent at {size_list} (the loss's minimum there and at the "
    "paper's size: chapter 28) |\n"
    f"| start | small random | $\\sigma^2$ = {P['sigma_sq']:.0e} per direction (the authors' QWEM: "
    "$10^{-24}$) |\n"
    "| stop | the end of its 10 passes | $t_{\\rm end} = h\\,\\tau_d$, "
    + ", ".join(f"$h$ = {h:.0f} at $V$ = {V_:,}" for (V_, _d), h in HORIZON.items())
    + " |"
)
t_section = time.time()
RUNS = q.tied_sgns_runs(P)
for (V_, d_), R in RUNS.items():
    print(
        f"V = {V_:>6,}, d = {d_:>3}: η·λ_B1 = {P['lr_factor']}, {R.steps:,} steps to t_end = "
        f"{HORIZON[(V_, d_)]:.0f}τ_d "
        f"(λ_B1/λ_Bd = {R.lam_B[0] / R.lam_B[d_ - 1]:.1f}); training "
        f"{'read from the cache, first computed in' if R.cached else 'took'} {R.seconds:.0f} s"
    )
print(f"section 1: {time.time() - t_section:.0f} s")

# %% [markdown]
# ## 2 · How tied SGNS learns from a small start
#
# Figure 26.1 follows the squared singular values $s_k^2(t)$ of $W$ at the largest size, each divided by
# its end value. Three measurements come from these curves:
#
# * the **step time** $t_k$ of mode $k$ (when $s_k^2$ reaches half its end value), against (26.2);
# * the **separation** $R_k = (t_{k+1} - t_k)/\bar w_k$ of successive steps (`q.step_separation`: above 1
#   there is a plateau between two rises; near 0 they happen together);
# * **which direction each step brings**: the squared overlap of the newly grown singular vector $u_k$
#   with $M^\star$'s $k$-th eigenvector at its step time, alone (`own`) and with its two neighbours on each
#   side (`near`), from `q.brought_directions`.

# %%
STEP = {}
for key, R in RUNS.items():
    V_, d_ = key
    end = R.sv[-1] ** 2
    sep = q.step_separation(R.times, R.sv**2, end)
    bd = q.brought_directions(R.overlap, R.times, sep["t_mid"])
    ratio = sep["t_mid"] / R.tau
    STEP[key] = dict(sep=sep, bd=bd, ratio=ratio, medR=float(np.nanmedian(sep["R"])),
                     share_R1=float(np.nanmean(sep["R"] > 1)))  # fmt: skip
    print(
        f"V = {V_:>6,}, d = {d_:>3}: t_k/τ_k median {np.nanmedian(ratio):.2f} (modes 1-5: "
        f"{np.round(ratio[:5], 2)}, last five: {np.round(ratio[-5:], 2)}); R_k median "
        f"{STEP[key]['medR']:.2f}, R_k > 1 for {STEP[key]['share_R1']:.0%}; brought direction: own "
        f"{np.nanmedian(bd['own']):.2f}, within ±2 {np.nanmedian(bd['near']):.2f} (medians)"
    )

# %%
key_big = SIZES[-1]
R = RUNS[key_big]
st = STEP[key_big]
fig, axes = plotting.figure(2, 1, width=6.8, height=3.0)
d_big = key_big[1]
show = sorted({0, 1, 2, 4, 9, 19, 39, d_big // 2, d_big - 1} & set(range(d_big)))
cmap = plt.get_cmap(plotting.CMAP)
for j, kk in enumerate(show):
    col = cmap(j / max(1, len(show) - 1))
    axes[0].plot(R.times / R.t_end, R.sv[:, kk] ** 2 / R.sv[-1, kk] ** 2, color=col, lw=1.2,
                 label=f"$k$ = {kk + 1}")  # fmt: skip
    axes[0].axvline(R.tau[kk] / R.t_end, color=col, ls=":", lw=0.8)
axes[0].set_xlim(0, 1)
plotting.label(axes[0], f"V = {key_big[0]:,}, d = {d_big}: squared singular values, each over its end "
               "value (dotted: $\\tau_k$ of (26.2))", r"$t/t_{\rm end}$", r"$s_k^2(t)/s_k^2(t_{\rm end})$")  # fmt: skip
axes[0].legend(fontsize=7, ncol=3, loc="lower right")
for j, (key, S_) in enumerate(STEP.items()):
    RR = RUNS[key]
    axes[1].plot(RR.tau / RR.t_end, S_["sep"]["t_mid"] / RR.t_end, "o", ms=2.5, color=f"C{j}",
                 label=f"V = {key[0]:,}, d = {key[1]}")  # fmt: skip
axes[1].plot([0, 0.25], [0, 0.25], "k--", lw=0.8, label="$t_k = \\tau_k$")
plotting.label(axes[1], "measured step time against (26.2), every mode", r"$\tau_k/t_{\rm end}$",
               r"$t_k/t_{\rm end}$")  # fmt: skip
axes[1].legend(fontsize=7)
plotting.suptitle(fig, "Figure 26.1 — Tied SGNS from a small start (noiseless gradient descent)",
                  fontsize=10)  # fmt: skip
plt.show()

# %% [markdown]
# **Figure 26.1** — Top: the squared singular values of tied SGNS's $W$ along the run at the largest size,
# each over its end value, for a few modes $k$; the dotted verticals are the times (26.2) predicts. Bottom:
# the measured step time $t_k$ of every mode against $\tau_k$, at every size; on the dashed line the
# prediction is exact.

# %%
for key, S_ in STEP.items():
    V_, d_ = key
    _ = rep.check(
        f"qwem.tied_sgns.v{V_}.steps",
        f"tied SGNS at V = {V_:,}, d = {d_} (noiseless GD from σ² = 1e-8): measured step times against "
        "(26.2) (median ratio t_k/τ_k, first and last mode), separation of successive steps (median R_k, "
        "share above 1), and the squared overlap of each step's new direction with M*'s k-th eigenvector "
        "(median own, median within ±2)",
        value=dict(
            ratio_median=round(float(np.nanmedian(S_["ratio"])), 3),
            ratio_first=round(float(S_["ratio"][0]), 3),
            ratio_last=round(float(S_["ratio"][-1]), 3),
            R_median=round(S_["medR"], 3),
            R_above_1=round(S_["share_R1"], 3),
            own_median=round(float(np.nanmedian(S_["bd"]["own"])), 3),
            near_median=round(float(np.nanmedian(S_["bd"]["near"])), 3),
        ),
        passed=True,
        tolerance="recorded",
        kind="record",
    )
    _ = rep.check(
        f"qwem.tied_sgns.v{V_}.all_modes_stepped",
        f"tied SGNS at V = {V_:,}, d = {d_}: every one of the d modes made its step (reached half its end "
        "value) before 3/4 of t_end, so the run's end point is not cut off in the middle of a step",
        value=dict(
            last_step_over_t_end=round(float(np.nanmax(S_["sep"]["t_mid"]) / RUNS[key].t_end), 3),
            stepped=int(np.isfinite(S_["sep"]["t_mid"]).sum()),
            d=d_,
        ),
        passed=bool(
            np.all(np.isfinite(S_["sep"]["t_mid"]))
            and np.nanmax(S_["sep"]["t_mid"]) < 0.75 * RUNS[key].t_end
        ),
        tolerance="all d modes, before 0.75 t_end",
        kind="consistency",
    )

# %% [markdown]
# **How the horizon and the rate were chosen.** The horizon was raised to 6 at $V = 5{,}000$ after a first
# run stopped at $h = 4$ and failed the check above. The same run shows why: stop it at $4\tau_d$, take the
# squared singular values there as the end values, and measure the step times again. The rate factor was
# lowered after a run at twice its value; the second cell repeats that run at $V = 1{,}000$, $d = 20$.

# %%
d_big = key_big[1]
R = RUNS[key_big]
t4 = 4.0 * float(R.tau[d_big - 1])
if HORIZON[key_big] > 4.0:
    keep = R.times < t4
    end4 = np.array([np.interp(t4, R.times, R.sv[:, k_] ** 2) for k_ in range(d_big)])
    sep4 = q.step_separation(np.r_[R.times[keep], t4], np.vstack([R.sv[keep] ** 2, end4]), end4)
    late4 = int(np.sum(~(sep4["t_mid"] < 0.75 * t4)))
    prose(
        f"Stopped at $h$ = 4 ($t$ = {t4:.4g}) instead of {HORIZON[key_big]:.0f}, the run at V = "
        f"{key_big[0]:,} would have {late4} of its {d_big} modes ({late4 / d_big:.0%}) making their step "
        "in the last quarter of the run or not at all, so that the check above fails there."
    )
    _ = rep.check(
        f"qwem.tied_sgns.v{key_big[0]}.horizon_4",
        f"V = {key_big[0]:,}, d = {d_big}: had the run stopped at 4 τ_d, the number of modes whose step "
        "(half their value at the stop) comes in its last quarter or not at all",
        value=dict(late=late4, d=d_big),
        passed=True,
        tolerance="recorded",
        kind="record",
    )
else:
    prose(f"At this preset the largest size already stops at $h$ = {HORIZON[key_big]:.0f}.")

# %%
V_r, d_r = 1_000, 20
try:
    R_fast = q.tied_sgns_run(corpus, V_r, d_r, sigma_sq=P["sigma_sq"], lr_factor=2 * P["lr_factor"],
                             horizon=4.0, progress=False)  # fmt: skip
    fast = dict(diverged=False, step=None)
    prose(
        f"At the rate factor {2 * P['lr_factor']:.2f}, V = {V_r:,}, d = {d_r}, the run did not diverge "
        f"on this corpus ({R_fast.steps:,} steps); {P['lr_factor']} keeps a margin."
    )
except FloatingPointError as err:
    m_ = re.search(r"at step (\d+)", str(err))
    fast = dict(diverged=True, step=int(m_.group(1)) if m_ else None)
    prose(
        f"At the rate factor {2 * P['lr_factor']:.2f} ($\\eta\\lambda_{{B,1}}$), V = {V_r:,}, d = {d_r}, "
        f"the run diverges: $W$ leaves the finite numbers at step {fast['step']:,}, with the first "
        "modes saturated (the library's guard stops it there)."
    )
_ = rep.check(
    "qwem.tied_sgns.rate_doubled",
    f"tied SGNS at V = {V_r:,}, d = {d_r} with twice the chapter's rate factor: whether gradient descent "
    "diverges, and at which step",
    value=fast,
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %% [markdown]
# ## 3 · Figure 3b's word2vec row
#
# The same questions for every row and the authors' protocols (chapter 21): analogies over every ordered
# pair of distinct word pairs of a category, 3CosAdd over the whole vocabulary; Spearman $\rho$ on the
# in-vocabulary MEN and WS353 pairs. Standard errors come from bootstraps over each category's *word pairs*
# (`q.pair_bootstrap_weights`) and over the similarity pairs (`q.similarity_bootstrap`), **paired**: every
# embedding is scored on the same resamples, so the interval of a difference is the spread of the replicate
# differences. The run stopped at $\tfrac34 t_{\rm end}$ is scored too: if the end point were still moving,
# the two would differ.

# %%
rng_boot = config.rng(26_300)
SC = {}
for key, R in RUNS.items():
    V_, d_ = key
    emb = {"tied SGNS, t_end": R.W, "tied SGNS, 3/4 t_end": R.W_late}
    for target, name in (("mstar", "svd(M*)"), ("ppmi", "svd(PPMI)"), ("pmi", "svd(PMI)")):
        w_, W_ = q.spectral_embeddings(corpus, V_, d_, target)
        assert list(w_) == list(R.words)
        emb[name] = np.asarray(W_, dtype=np.float64)
    # the analogies and MEN/WS353 with paired bootstraps: every embedding on the same resamples
    SC[key] = q.score_embeddings(R.words, emb, P["n_boot"], rng_boot)

paper_row = {"tied SGNS, t_end": "word2vec", "tied SGNS, 3/4 t_end": "word2vec", "svd(M*)": "svd_mstar",
             "svd(PPMI)": "svd_ppmi", "svd(PMI)": "svd_pmi"}  # fmt: skip
lines = [
    "| V, d | method | analogies | MEN | WS353 | paper (V = 10,000, d = 200) |",
    "|---|---|---|---|---|---|",
]
for key, S_ in SC.items():
    lines += q.score_rows(f"{key[0]:,}, {key[1]}", S_.hits, S_.draws, S_.sim, paper_row)
display(Markdown("\n".join(lines)))
_ = rep.check(
    "qwem.tied_sgns.table",
    "the benchmark table with tied SGNS (noiseless GD, t_end and 3/4 t_end) beside svd(M*), svd(PPMI) and "
    "svd(PMI) at every size: analogy accuracy (all-pairs protocol), MEN and WS353 ρ, each with its "
    "bootstrap standard error, pinned",
    value={
        f"V{k_[0]}_d{k_[1]}": {
            name: dict(
                analogy=round(float(S_.hits[name].mean()), 4),
                analogy_se=round(float(S_.draws[name].std()), 4),
                **{ds: round(float(S_.sim[ds][0][j]), 4) for ds in ("men", "ws353")},
            )
            for j, name in enumerate(S_.names)
        }
        for k_, S_ in SC.items()
    },
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %% [markdown]
# **Table 26.1** — Figure 3b with tied SGNS trained without noise, at each size; ± is one bootstrap standard
# error; $n$ the number of questions or pairs in the vocabulary. The last column is the paper's row at its
# own size, for reference.
#
# **The paper's ordering, paired.** The paper's tied SGNS is 1.7 points above svd($M^\star$) on analogies.
# For every size, the gap tied SGNS − svd($M^\star$) on the same questions, its paired standard error and
# 95% interval, and the same for the run stopped at $\tfrac34 t_{\rm end}$ against the run at $t_{\rm end}$
# (how far the end point still moves).

# %%
GAP = {}
for key, S_ in SC.items():
    out = {}
    for a, b in (("tied SGNS, t_end", "svd(M*)"), ("tied SGNS, t_end", "tied SGNS, 3/4 t_end"),
                 ("tied SGNS, t_end", "svd(PPMI)")):  # fmt: skip
        out[(a, b, "analogy")] = q.bootstrap_gap(S_.hits[a].mean(), S_.hits[b].mean(),
                                                 S_.draws[a], S_.draws[b])  # fmt: skip
        for ds in ("men", "ws353"):
            rho_, dr_, _n = S_.sim[ds]
            ja, jb = S_.names.index(a), S_.names.index(b)
            out[(a, b, ds)] = q.bootstrap_gap(rho_[ja], rho_[jb], dr_[:, ja], dr_[:, jb])
    GAP[key] = out
    for (a, b, bench), g in out.items():
        unit, scale = ("points", 100) if bench == "analogy" else ("", 1)
        print(f"V = {key[0]:>6,}: {bench:>7}: {a} − {b}: {scale * g['gap']:+.2f} {unit} (SE "
              f"{scale * g['se']:.2f}, 95% [{scale * g['lo']:+.2f}, {scale * g['hi']:+.2f}])")  # fmt: skip

# %%
PAPER_GAP = {b: round(q.PAPER_FIG3B["word2vec"][b] - q.PAPER_FIG3B["svd_mstar"][b], 3)
             for b in ("analogy", "men", "ws353")}  # fmt: skip
for key in SIZES:
    V_, d_ = key
    g = GAP[key]
    _ = rep.check(
        f"qwem.tied_sgns.v{V_}.gap_vs_mstar",
        f"V = {V_:,}, d = {d_}: tied SGNS (t_end) minus svd(M*) on the same questions, paired bootstrap: "
        "analogy gap, MEN and WS353 ρ gaps, each with SE and 95% interval (the paper: +1.7 points, "
        "−0.011, +0.015)",
        value={
            f"{bench}_{k_}": round(v, 4)
            for bench in ("analogy", "men", "ws353")
            for k_, v in g[("tied SGNS, t_end", "svd(M*)", bench)].items()
        },
        passed=True,
        tolerance="recorded",
        paper=PAPER_GAP,
        kind="record",
    )
    late = g[("tied SGNS, t_end", "tied SGNS, 3/4 t_end", "analogy")]
    _ = rep.check(
        f"qwem.tied_sgns.v{V_}.settled",
        f"V = {V_:,}, d = {d_}: over the last quarter of the run the analogy accuracy moves by less than "
        "the smallest gap this chapter compares it with would need to be resolved: |acc(t_end) − "
        "acc(3/4 t_end)| below 1.96 times the paired SE of tied SGNS − svd(M*)",
        value=dict(
            change=round(late["gap"], 4),
            bound=round(1.96 * g[("tied SGNS, t_end", "svd(M*)", "analogy")]["se"], 4),
        ),  # fmt: skip
        passed=bool(abs(late["gap"]) < 1.96 * g[("tied SGNS, t_end", "svd(M*)", "analogy")]["se"]),
        tolerance="|change| < 1.96 SE(SGNS − svd(M*))",
        kind="consistency",
    )

# %% [markdown]
# **The paper's "svd($M^\star$) < tied SGNS", as a test.** At the largest size of the book preset the
# analogy gap is resolved: its paired 95% interval lies above zero. The rule (the interval's lower end above
# zero, at the book preset's largest size) was settled after seeing the book preset's numbers, so it is a
# measurement with a control, not a prediction: the control is the smaller size, where the same rule is not
# met (recorded beside it). At the smoke preset the largest size is too small for the rule to mean anything,
# so there it is recorded. The paper preset asserts it at the same size, and at the paper's
# $V = 10{,}000$ it is a **prediction**, stated before that run. Before the run, the minimum of the loss at
# that size (chapter 28) had already missed the rule on this corpus, so the prediction is not a safe one.

# %%
# outcomes of the prediction at sizes above above_at, by V, typed in after the first run at the preset
ABOVE_OUTCOME = config.sizes(
    smoke=dict(by_V={}), book=dict(by_V={}), paper=dict(by_V={10_000: False})
)["by_V"]
key_find = next(k_ for k_ in SIZES if k_[0] == P["above_at"])
g_big = GAP[key_find][("tied SGNS, t_end", "svd(M*)", "analogy")]
resolved_big = bool(g_big["lo"] > 0)
_ = rep.check(
    f"qwem.tied_sgns.v{key_find[0]}.above_mstar",
    f"V = {key_find[0]:,}, d = {key_find[1]}: tied SGNS answers more analogies than svd(M*) on the same "
    "questions, as in the paper (68.0% > 66.3%): the paired 95% bootstrap interval of the gap lies above 0",
    value={k_: round(v, 4) for k_, v in g_big.items()},
    passed=resolved_big if config.preset() != "smoke" else True,
    tolerance="95% interval above 0"
    if config.preset() != "smoke"
    else "recorded at the smoke preset",
    paper=PAPER_GAP["analogy"],
    kind="finding" if config.preset() != "smoke" else "record",
)
for key in SIZES:
    g_s = GAP[key][("tied SGNS, t_end", "svd(M*)", "analogy")]
    if key[0] > key_find[0]:
        _ = rep.prediction(
            f"qwem.tied_sgns.v{key[0]}.above_mstar",
            f"V = {key[0]:,}, d = {key[1]}: tied SGNS trained by gradient descent answers more analogies "
            "than svd(M*) on the same questions, as in the paper (68.0% > 66.3%): the paired 95% interval "
            "of the gap lies above 0",
            holds=bool(g_s["lo"] > 0),
            value={k_: round(v, 4) for k_, v in g_s.items()},
            outcome=ABOVE_OUTCOME.get(key[0]),
        )
        continue
    if key == key_find:
        continue
    _ = rep.check(
        f"qwem.tied_sgns.v{key[0]}.above_mstar_control",
        f"the control: at V = {key[0]:,}, d = {key[1]} the same rule (95% interval of tied SGNS − "
        "svd(M*) above 0), and whether it is met",
        value={k_: round(v, 4) for k_, v in g_s.items()} | {"meets_rule": bool(g_s["lo"] > 0)},
        passed=True,
        tolerance="recorded",
        paper=PAPER_GAP["analogy"],
        kind="record",
    )

# %% [markdown]
# ## 4 · The SGNS side of Figure 5
#
# The paper's measure is the matrix of squared overlaps $(u^{\rm SGNS}_i\cdot u^{X}_j)^2$ between the
# first 64 left singular vectors of two embeddings, and how diagonal it is. As in chapter 24, the
# constant direction $\mathbf 1/\sqrt V$ is projected out of every embedding first (`q.without_constant`):
# svd(PPMI)'s first eigenvector is close to it (its Perron vector) and SGNS can carry an offset, while
# $M^\star$ has no such feature, so one shared offset would otherwise decide the comparison. The diagonal
# share $D$ is judged against its **random-rotation null** (`q.dominance_null`): the same subspace with its
# features scrambled. The offset itself is measured apart, as the squared overlap of SGNS's first singular
# vector (uncentred) with $\mathbf 1/\sqrt V$ (`q.constant_overlap`; a direction with no offset has about
# $1/V$).

# %%
rng_null = config.rng(26_400)
FEAT = {}
for key, S_ in SC.items():
    V_, d_ = key
    kf = min(P["n_overlap"], d_) - 1
    E = {
        name: q.without_constant(S_.emb[name])
        for name in ("tied SGNS, t_end", "svd(M*)", "svd(PPMI)")
    }
    # the overlap matrix, its diagonal share D, the rotation null's 99th percentile, the mean squared overlap
    res_ = {other: q.feature_match(E["tied SGNS, t_end"], E[other], kf, rng_null, P["n_null"])
            for other in ("svd(M*)", "svd(PPMI)")}  # fmt: skip
    FEAT[key] = dict(k=kf, res=res_, offset=q.constant_overlap(S_.emb["tied SGNS, t_end"]),
                     offset_mstar=q.constant_overlap(S_.emb["svd(M*)"]),
                     offset_ppmi=q.constant_overlap(S_.emb["svd(PPMI)"]))  # fmt: skip
    r_m, r_p = res_["svd(M*)"], res_["svd(PPMI)"]
    print(
        f"V = {V_:>6,}, d = {d_:>3}, {kf} features: D(SGNS, M*) = {r_m['D']:.3f} (null 99% "
        f"{r_m['null99']:.3f}), D(SGNS, PPMI) = {r_p['D']:.3f} (null 99% {r_p['null99']:.3f}); offset "
        f"overlap SGNS {FEAT[key]['offset']:.3f}, svd(M*) {FEAT[key]['offset_mstar']:.4f}, svd(PPMI) "
        f"{FEAT[key]['offset_ppmi']:.3f}"
    )

# %%
fig, axs = plotting.figure(1, 2, width=3.4, height=3.4)
F = FEAT[key_big]
for ax, other in zip(axs, ("svd(M*)", "svd(PPMI)")):
    im = ax.imshow(F["res"][other]["O"], vmin=0, vmax=1, cmap=plotting.CMAP)
    ax.grid(False)
    lab = other.replace("M*", "$M^\\star$")
    plotting.label(ax, f"tied SGNS vs {lab}\n$D$ = {F['res'][other]['D']:.2f}", f"$j$, {lab}",
                   "$i$, tied SGNS")  # fmt: skip
    ax.title.set_fontsize(9)
fig.colorbar(im, ax=axs, shrink=0.8, label=r"$(u_i \cdot u_j)^2$")
plotting.suptitle(fig, f"Figure 26.2 — Eigen-feature overlaps at V = {key_big[0]:,}, d = {key_big[1]} "
                  f"({F['k']} features, $1/\\sqrt{{V}}$ projected out)", fontsize=10)  # fmt: skip
plt.show()

# %% [markdown]
# **Figure 26.2** — The paper's Figure 5 measure for tied SGNS trained without noise, at the largest size of
# the preset: squared overlaps of its first eigen-features with those of svd($M^\star$) (left) and of
# svd(PPMI) (right), after projecting out $\mathbf 1/\sqrt V$, with the diagonal share $D$.

# %%
for key in SIZES:
    V_, d_ = key
    F = FEAT[key]
    _ = rep.check(
        f"qwem.tied_sgns.v{V_}.features",
        f"V = {V_:,}, d = {d_}: tied SGNS's first {F['k']} eigen-features (1/√V projected out) against "
        "svd(M*) and svd(PPMI): diagonal share D, its random-rotation null's 99th percentile, the mean "
        "squared overlap; and the offset (squared overlap of the first singular vector with 1/√V) of "
        "tied SGNS, svd(M*) and svd(PPMI)",
        value={f"D vs {o}": round(F["res"][o]["D"], 4) for o in ("svd(M*)", "svd(PPMI)")}
        | {f"null99 vs {o}": round(F["res"][o]["null99"], 4) for o in ("svd(M*)", "svd(PPMI)")}
        | {f"mean sq vs {o}": round(F["res"][o]["mean_sq"], 4) for o in ("svd(M*)", "svd(PPMI)")}
        | dict(
            offset_sgns=round(F["offset"], 4),
            offset_mstar=round(F["offset_mstar"], 5),
            offset_ppmi=round(F["offset_ppmi"], 4),
        ),  # fmt: skip
        passed=True,
        tolerance="recorded",
        kind="record",
    )

# %% [markdown]
# **Is the ordering resolved?** $D$ has no sampling error of its own: the runs are deterministic. Its
# uncertainty is that of the words it is measured on. A paired bootstrap over the rows (the $V$ words,
# drawn with replacement; every embedding on the same draw, the constant projected out after the draw)
# gives the spread of $D({\rm SGNS}, M^\star) - D({\rm SGNS}, {\rm PPMI})$. The test below asks for the
# difference to exceed 1.96 of its bootstrap standard errors. At the smoke preset it did not (the difference
# stayed below 1.96 SE at the smaller size), so it is recorded, with whether it is resolved, rather than
# asserted.


# %%
rng_rows = config.rng(26_450)
n_rows = max(50, P["n_null"] // 2)
for key, S_ in SC.items():
    V_, d_ = key
    kf = FEAT[key]["k"]
    diffs = q.dominance_difference_bootstrap(S_.emb["tied SGNS, t_end"], S_.emb["svd(M*)"],
                                             S_.emb["svd(PPMI)"], kf, rng_rows, n_rows)  # fmt: skip
    diff = FEAT[key]["res"]["svd(M*)"]["D"] - FEAT[key]["res"]["svd(PPMI)"]["D"]
    FEAT[key]["diff"], FEAT[key]["diff_se"] = diff, float(np.std(diffs))
    print(f"V = {V_:>6,}: D(SGNS, M*) − D(SGNS, PPMI) = {diff:+.3f}, row-bootstrap SE "
          f"{np.std(diffs):.3f} ({n_rows} draws)")  # fmt: skip
    _ = rep.check(
        f"qwem.tied_sgns.v{V_}.features_mstar_not_ppmi",
        f"V = {V_:,}, d = {d_}: tied SGNS orders its first {kf} eigen-features (1/√V projected out) more "
        "like svd(M*) than like svd(PPMI)? D(SGNS, M*) − D(SGNS, PPMI), its paired bootstrap SE over "
        "the words, and whether the difference exceeds 1.96 SE",
        value=dict(
            diff=round(diff, 4),
            se=round(float(np.std(diffs)), 4),
            resolved=bool(diff > 1.96 * float(np.std(diffs))),
        ),
        passed=True,
        tolerance="recorded (resolved if diff > 1.96 SE)",
        kind="record",
    )

# %% [markdown]
# **The offset at chapter 24's size.** Chapter 24's SGD-trained SGNS at $V = 500$, $d = 6$ carries an offset
# (its first singular vector lies mostly along $\mathbf 1/\sqrt V$: chapter 24's claim
# `sgns.learned.offset_direction`). Is that the trainer's
# noise or the size? The same noiseless run as above, at that size:

# %%
R500 = q.tied_sgns_run(
    corpus, 500, 6, sigma_sq=P["sigma_sq"], lr_factor=P["lr_factor"], horizon=4.0, progress=False
)
offset500 = q.constant_overlap(R500.W)
print(f"V = 500, d = 6, noiseless: offset overlap {offset500:.3f} ({R500.steps:,} steps)")
_ = rep.check(
    "qwem.tied_sgns.v500.offset",
    "tied SGNS trained without noise at chapter 24's size (V = 500, d = 6): squared overlap of its first "
    "singular vector with 1/√V",
    value=round(offset500, 4),
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %% [markdown]
# Two findings, stated after the smoke run and before the book preset's: (a) at every size the diagonal
# share against svd($M^\star$) is above the 99th percentile of its rotation null (the features match one
# to one, not only the subspace); (b) tied SGNS trained without noise carries **no offset**: the squared
# overlap of its first singular vector with $\mathbf 1/\sqrt V$ is below 0.1, where svd(PPMI)'s, in the
# same measure, is above 0.9 (the control: the measure finds an offset where there is one). Chapter 24's
# SGD-trained SGNS at $V = 500$ and gensim's untied word2vec both carry one.

# %%
for key in SIZES:
    V_, d_ = key
    F = FEAT[key]
    _ = rep.above(
        f"qwem.tied_sgns.v{V_}.features_above_null",
        f"V = {V_:,}, d = {d_}: tied SGNS's first {F['k']} eigen-features (1/√V projected out) match "
        "svd(M*)'s one to one: D above the 99th percentile of its random-rotation null",
        value=F["res"]["svd(M*)"]["D"],
        bound=F["res"]["svd(M*)"]["null99"],
        kind="finding",
    )
    _ = rep.check(
        f"qwem.tied_sgns.v{V_}.no_offset",
        f"V = {V_:,}, d = {d_}: tied SGNS trained without minibatch noise has no offset feature: the "
        "squared overlap of its first singular vector with 1/√V is below 0.1, while svd(PPMI)'s is above "
        "0.9 in the same measure (the control)",
        value=dict(sgns=round(F["offset"], 4), ppmi=round(F["offset_ppmi"], 4)),
        passed=bool(F["offset"] < 0.1 and F["offset_ppmi"] > 0.9),
        tolerance="sgns < 0.1 and ppmi > 0.9",
        kind="finding",
    )

# %% [markdown]
# ## 5 · Across sizes
#
# Figure 26.3 puts the two measurements that decide the paper's statements side by side across the sizes
# of this preset: the paired analogy gap tied SGNS − svd($M^\star$) with its 95% interval (the paper: +1.7
# points at $V = 10{,}000$), and the diagonal shares against both closed forms.

# %%
fig, axes = plotting.figure(1, 2, width=3.4, height=3.0)
Vs = np.array([k_[0] for k_ in SIZES], dtype=float)
g_ = np.array([GAP[k_][("tied SGNS, t_end", "svd(M*)", "analogy")]["gap"] for k_ in SIZES])
lo_ = np.array([GAP[k_][("tied SGNS, t_end", "svd(M*)", "analogy")]["lo"] for k_ in SIZES])
hi_ = np.array([GAP[k_][("tied SGNS, t_end", "svd(M*)", "analogy")]["hi"] for k_ in SIZES])
axes[0].errorbar(Vs, 100 * g_, yerr=[100 * (g_ - lo_), 100 * (hi_ - g_)], fmt="o-", capsize=3,
                 label="this book (95% paired interval)")  # fmt: skip
axes[0].plot([10_000], [100 * PAPER_GAP["analogy"]], "k*", ms=9, label="the paper")
axes[0].axhline(0, color="0.5", lw=0.8)
axes[0].set_xscale("log")
plotting.label(axes[0], "analogies: tied SGNS − svd($M^\\star$)", "$V$", "gap (points)")
axes[0].legend(fontsize=7, loc="upper right")
for other, mk in (("svd(M*)", "o-"), ("svd(PPMI)", "s--")):
    tex = other.replace("M*", "$M^{\\star}$")
    axes[1].plot(Vs, [FEAT[k_]["res"][other]["D"] for k_ in SIZES], mk, label=f"$D$ vs {tex}")
    axes[1].plot(
        Vs, [FEAT[k_]["res"][other]["null99"] for k_ in SIZES], mk[0] + ":", color="0.5", ms=3
    )
axes[1].plot(
    np.r_[500, Vs],
    [offset500] + [FEAT[k_]["offset"] for k_ in SIZES],
    "^-",
    color="C3",
    label="offset of tied SGNS",
)
axes[1].set_xscale("log")
axes[1].set_ylim(0, 1.02)
plotting.label(axes[1], "features (grey dotted: null 99%)", "$V$", "$D$, offset overlap")
axes[1].legend(fontsize=7, loc="upper right")
for ax, ticks in ((axes[0], sorted({*Vs, 10_000})), (axes[1], sorted({500, *Vs}))):
    ax.set_xticks(ticks, [f"{int(v):,}" for v in ticks], fontsize=7)
    ax.xaxis.set_minor_formatter(NullFormatter())
plotting.suptitle(fig, "Figure 26.3 — Tied SGNS against the closed forms, by size", fontsize=10)
plt.show()

# %% [markdown]
# **Figure 26.3** — Left: the paired analogy gap between tied SGNS (noiseless, $t_{\rm end}$) and
# svd($M^\star$) with its 95% bootstrap interval at each size ($d$ grows with $V$: the sizes of section 1),
# and the paper's gap at its size (star). Right: the diagonal shares $D$ of the overlap with svd($M^\star$)
# and with svd(PPMI) (the constant direction projected out), their nulls' 99th percentiles (grey), and the
# offset overlap of tied SGNS's first singular vector with $\mathbf 1/\sqrt V$, from chapter 24's
# $V = 500$, $d = 6$ on.

# %%
prose(
    "At the largest size of this preset (V = "
    f"{key_big[0]:,}, d = {key_big[1]}), tied SGNS minus svd($M^\\star$) is "
    f"{100 * GAP[key_big][('tied SGNS, t_end', 'svd(M*)', 'analogy')]['gap']:+.1f} points on the analogies "
    f"(95% [{100 * GAP[key_big][('tied SGNS, t_end', 'svd(M*)', 'analogy')]['lo']:+.1f}, "
    f"{100 * GAP[key_big][('tied SGNS, t_end', 'svd(M*)', 'analogy')]['hi']:+.1f}]; the paper: "
    f"{100 * PAPER_GAP['analogy']:+.1f} at its size). D(SGNS, svd($M^\\star$)) = "
    f"{FEAT[key_big]['res']['svd(M*)']['D']:.2f} and D(SGNS, svd(PPMI)) = "
    f"{FEAT[key_big]['res']['svd(PPMI)']['D']:.2f} over {FEAT[key_big]['k']} features (nulls "
    f"{FEAT[key_big]['res']['svd(M*)']['null99']:.2f}, {FEAT[key_big]['res']['svd(PPMI)']['null99']:.2f}); "
    f"the offset overlap of tied SGNS is {FEAT[key_big]['offset']:.3f} (1/V = {1 / key_big[0]:.4f}), "
    f"against {offset500:.2f} for the same trainer at V = 500, d = 6."
)

# %% [markdown]
# ## 6 · Discussion
#
# **What is measured.** Tied SGNS is trained here as the paper's statement needs it, on its own loss, with
# nothing of QWEM or $M^\star$ in its trainer: $M^\star$ enters only as the reference the logs are projected
# on and as the closed form it is compared with. The minibatch noise is gone, so a difference between tied
# SGNS and svd($M^\star$) is a difference of end points, not of noise.
#
# **Differences from the paper.** The corpus is two orders of magnitude smaller than the authors' 2.0B
# tokens; the trainer is the infinite-batch limit of SGD, not the C word2vec's 10 passes (which need not
# reach the loss's minimum); the start is $\sigma^2 = 10^{-8}$. The book preset's gradient descent stops at
# $V = 5{,}000$, $d = 100$; the paper preset runs it on to the paper's $V = 10{,}000$, $d = 200$ (the next
# cell gives each run's steps and time; `bench/README.md` the time of one step). Its record is kept in
# `reproduction/paper/` (README, "Paper-scale records"). Chapter 28 finds where the runs are heading, the
# minimum of the same loss, and scores it at the paper's size on two corpora. The authors' word2vec, with
# its 10 passes and decaying rate, sits somewhere on the path from a small start to that minimum.

# %%
prose(
    "The gradient-descent runs of this preset: "
    + "; ".join(
        f"V = {k_[0]:,}, d = {k_[1]}: {R_.steps:,} steps, {R_.seconds / 60:.0f} min of training"
        for k_, R_ in RUNS.items()
    )
    + " (when first computed, on the machine named in the chapter's record)."
)

# %% [markdown]
# **The offset.** At chapter 24's $V = 500$, $d = 6$ the noiseless run carries the same offset as chapter 24's
# SGD run, so the offset is not the minibatch noise's doing. At the sizes of this chapter it is gone
# (Figure 26.3, right). One reading, not tested here: the offset comes from word2vec's subsampling (chapter 24
# found that removing subsampling removes most of it at $V = 500$), and as $V$ grows most of the vocabulary is
# rare enough to be kept whole, so the subsampled words weigh less. Whether it stays gone at $V = 10{,}000$,
# $d = 200$ is measured at the paper preset, on the run (section 4) and, in chapter 28, on the minimum;
# gensim's untied word2vec keeps its offset there (chapter 24 §6).
#
# **The benchmark.** Trained on its own loss and without noise, tied SGNS answers more analogies than
# svd($M^\star$) on the same questions at the book's largest size, resolved by the paired interval (section 3;
# the gap and its interval are printed under Figure 26.3, beside the paper's). At the paper's size the paper
# preset tests the same rule as a prediction (section 3). MEN and WS353 do not separate
# the two (Table 26.1). The rows sit below the paper's, on a corpus two orders of magnitude smaller.
#
# **The features.** Tied SGNS's eigen-features match svd($M^\star$)'s far above chance and more than
# svd(PPMI)'s, but not one to one: $D$ is well below 1 (section 4). Its steps are not separated (the medians
# of $R_k$ in section 2) and come later than (26.2) says, by a factor that grows with $V$ (Figure 26.1,
# bottom): tied SGNS does not learn one eigenvector of $M^\star$ at a time at these sizes. Chapter 23 found the same band
# structure for QWEM low in $M^\star$'s dense spectrum.
#
# **How the runs can mislead.** $D$ compares features one by one, so it is lowered by near-degenerate
# singular values (two features of almost equal weight can come out in either order or mixed); the null
# tells whether a value is above chance, not whether the two embeddings differ in any way that matters for a
# benchmark. The analogy gaps are paired but the questions share words, so the bootstrap is over word
# pairs, and the few hundred WS353 pairs give wide intervals.

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
# 1. *(explore, ★★)* How much of tied SGNS's analogy score sits in its weaker modes? Keep only the top half of its
#    singular directions at the largest size and score it on the same questions, paired.
# 2. *(compute, ★★)* The time axis: run a small size twice, at the chapter's rate factor and at half of it. On the axis $t = 2\eta s$ the end
#    point should be the same. Check it.

# %% [markdown]
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# Write $W = U S V^\top$ and keep $W_{d/2} = U_{:, :d/2} S_{:d/2}$: the embedding that the run had reached
# (up to the weaker modes' growth) before its last steps. The cell scores it with the same bootstrap
# weights as section 3, so the difference is paired. The answer depends on the size: where the last modes
# still carry analogy structure, the truncated embedding scores lower.
#
# </details>

# %%
W_big = RUNS[key_big].W
U_b, S_b, _ = np.linalg.svd(W_big, full_matrices=False)
W_trunc = U_b[:, : key_big[1] // 2] * S_b[: key_big[1] // 2]
S_ = SC[key_big]
h_tr = q.analogy_hits(W_trunc, S_.items)
Bw_ = q.pair_bootstrap_weights(S_.items, S_.cat, P["n_boot"], config.rng(26_501))
h_full = S_.hits["tied SGNS, t_end"]
g_tr = q.bootstrap_gap(h_full.mean(), h_tr.mean(), q.replicate_means(Bw_, h_full),
                       q.replicate_means(Bw_, h_tr))  # fmt: skip
print(f"V = {key_big[0]:,}: all {key_big[1]} modes {100 * h_full.mean():.1f}%, top {key_big[1] // 2} "
      f"{100 * h_tr.mean():.1f}%; paired difference {100 * g_tr['gap']:+.1f} points "
      f"(SE {100 * g_tr['se']:.1f})")  # fmt: skip
_ = rep.check(
    "qwem.tied_sgns.solution.1",
    f"V = {key_big[0]:,}, d = {key_big[1]}: analogy accuracy of tied SGNS with all d modes minus with its "
    "top d/2 singular directions only, paired bootstrap SE",
    value=dict(gap=round(g_tr["gap"], 4), se=round(g_tr["se"], 4)),
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# Gradient descent with a small step follows the gradient flow $\dot W = -\nabla\mathcal L$ on the axis
# $t = 2\eta s$; halving $\eta$ doubles the steps and leaves the trajectory the same up to $O(\eta)$. The cell
# runs $V = 1{,}000$, $d = 20$ at the rate factors 0.15 and 0.075 and compares the end points: the principal angles between the
# two $d$-dimensional subspaces, and the largest relative difference of the squared singular values.
#
# </details>

# %%
V2, d2 = 1_000, 20  # small enough that two runs cost seconds
R_0 = q.tied_sgns_run(corpus, V2, d2, sigma_sq=P["sigma_sq"], lr_factor=P["lr_factor"], horizon=4.0,
                      progress=False)  # fmt: skip
R_half = q.tied_sgns_run(corpus, V2, d2, sigma_sq=P["sigma_sq"], lr_factor=P["lr_factor"] / 2,
                         horizon=4.0, progress=False)  # fmt: skip
cos_half = q.principal_cosines(R_half.W, R_0.W)
sv_rel = float(np.max(np.abs(R_half.sv[-1] ** 2 / R_0.sv[-1] ** 2 - 1)))
print(f"{R_0.steps:,} and {R_half.steps:,} steps; principal cosines: smallest {cos_half.min():.4f}, "
      f"median {np.median(cos_half):.4f}; largest relative change of s_k²: {sv_rel:.3f}; t_end "
      f"{R_half.t_end:.4g} against {R_0.t_end:.4g}")  # fmt: skip
rep.below(
    "qwem.tied_sgns.solution.2",
    f"halving the rate factor leaves the end point on the axis t = 2ηs (V = {V2:,}, d = {d2}): largest "
    "relative change of the squared singular values at t_end",
    value=sv_rel,
    bound=0.05,
    kind="consistency",
)
