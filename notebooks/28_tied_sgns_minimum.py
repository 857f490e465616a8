# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 28 · Where tied SGNS is heading: the minimum of its loss
#
# **Statement (Karkada et al. 2025, Figures 3b and 5, claim C5).** The paper's tied SGNS (word2vec with one
# negative per pair and one matrix $W$) answers more Google analogies than svd($M^\star$) at
# $V = 10{,}000$, $d = 200$: 68.0% against 66.3%; and its eigen-features match svd($M^\star$)'s. Chapter 26
# trained tied SGNS without minibatch noise, by gradient descent on its exact expected loss (26.1), up to
# a horizon. This chapter finds where those runs are heading, and tests three statements:
#
# 1. a quasi-Newton method reaches the minimum of (26.1) at rank $d$ in a few hundred gradients, where
#    gradient descent needs thousands of steps;
# 2. the runs' end points answer the analogies as that minimum does, and two different starts reach the
#    same minimum, so the minimum can stand for a trained model;
# 3. at the paper's $V = 10{,}000$, $d = 200$ (paper preset), on 17M and 70M tokens, the minimum is scored
#    against svd($M^\star$) and tested against the paper's ordering, and the gap is followed from one
#    corpus to the other.
#
# **Intuition.** Gradient descent's step is bounded by the fastest curvature, $\eta < 2/\lambda_{B,1}$, and
# the slowest mode grows at $\lambda_{B,d}$: the run needs about $\lambda_{B,1}/\lambda_{B,d}$ times
# $\ln(\lambda_d/\sigma^2)$ steps. L-BFGS builds a model of the curvature from its last gradients and takes
# steps fitted to it. Most of the spread of curvatures does not come from the loss's shape but from the
# word frequencies: a rare word's row is pulled by few pairs. Rescaling each row by its word's weight
# removes that spread before L-BFGS starts.

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
from IPython.display import Markdown, display
from matplotlib.ticker import NullFormatter

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("28_tied_sgns_minimum")
# chapter 26's runs (q.TIED_SGNS_RUNS), read from the cache. min_only: sizes (V, d) or (V, d, corpus, tag)
# whose minimum is scored on its own (section 3), on this chapter's corpus or on another one (its claims
# carry the tag), from a fresh start with a budget of min_only_evals gradients. A size with a run gets
# min_evals gradients from a fresh start and from the run's end point, unless it is also in min_only (the
# paper's V = 10,000): then its one minimum is the fresh start's. The smoke preset repeats the paper
# preset's cases at small sizes, a second corpus included (the first 800k tokens of its first).
P = q.TIED_SGNS_RUNS[config.preset()] | config.knobs(
    min_only=config.per_preset(
        [(1000, 20), (1200, 24), (1200, 24, "enwiki2015_1m7[:800000]", "head800k")],
        [],
        [(10_000, 200), (10_000, 200, "enwiki2015_70m", "70m")],
    ),
    min_evals=config.per_preset(600, 2000, 2000),
    min_only_evals=config.per_preset(600, 2000, 800),
    n_boot=config.per_preset(200, 1000, 1000),
    n_null=config.per_preset(100, 200, 200),
    min_init=0.1,
    min_tol=1e-6,
    n_overlap=64,
)
print(P)
corpus = q.load_corpus(P["corpus"])
RUNS = q.tied_sgns_runs(P)  # chapter 26's gradient-descent runs, from the cache
SIZES = list(RUNS)
PAPER_GAP = {b: round(q.PAPER_FIG3B["word2vec"][b] - q.PAPER_FIG3B["svd_mstar"][b], 3)
             for b in ("analogy", "men", "ws353")}  # fmt: skip
for (V_, d_), R in RUNS.items():
    print(f"V = {V_:>6,}, d = {d_:>3}: {R.steps:,} gradient-descent steps to t_end (chapter 26); "
          f"{'read from the cache' if R.cached else 'trained now'}")  # fmt: skip

# %% [markdown]
# ## 1 · The minimum, by L-BFGS
#
# The loss (26.1) is a sum over pairs of a function of one dot product, $f_{ab}(x_{ab})$ with
# $f_{ab}''(x) = (A_{ab} + N_{ab})\,\sigma(x)(1 - \sigma(x))$. Its curvature along the row $w_a$ of one word
# is therefore
#
# $$\nabla^2_{w_a}\mathcal L = \sum_{b \ne a} \big(A_{ab} + A_{ba} + N_{ab} + N_{ba}\big)\,
# \sigma(x_{ab})\big(1 - \sigma(x_{ab})\big)\,w_b w_b^\top \;+\; (\text{the term } b = a), \tag{28.1}$$
#
# a sum weighted by the word's pairs. Its size is proportional to the word's total pair weight
# $\pi_a = \sum_b (A_{ab} + A_{ba} + N_{ab} + N_{ba})$, and $\pi_a$ spans orders of magnitude between frequent
# and rare words. `q.minimise_expected` runs L-BFGS on $Z = r\circ W$ (row $a$ multiplied by $r_a$), with
# $r_a^2 = \pi_a/\bar\pi$: in $Z$ the curvature of every row is of the same order, $\bar\pi$ instead of $\pi_a$.
# It uses the same exact expected gradient as chapter 26's runs (`q.expected_gradient`). It stops when the
# relative gradient norm $\|\nabla\mathcal L\|_F/(\lambda_{B,1}\|W\|_F)$ (the relative change one gradient
# step would make) is below $10^{-6}$, when its budget of gradients is spent, or when a block of 100
# iterations lowers neither the loss nor the gradient: the float32 products cannot resolve the loss any
# finer (`stalled`, near $10^{-5}$ here).
#
# Two starts at every size of chapter 26:
#
# * **the run's end point** $W(t_{\rm end})$. How far the run still was from the minimum is measured three
#   ways: as the share of the whole descent still ahead of it,
#
#   $$\epsilon = \frac{\mathcal L(t_{\rm end}) - \mathcal L_{\min}}{\mathcal L(0) - \mathcal L_{\min}}, \tag{28.2}$$
#
#   as a distance of Gram matrices $WW^\top$ (`q.gram_distance`: what the loss and the benchmarks see; zero
#   for two embeddings that differ by a rotation), and on the analogies, paired;
# * **a fresh random start** ($W(0)$ of scale 0.1, no small-start plateaus): whether the minimum is the
#   same one (their Gram distance), or the landscape has several.
#
# If the run's end point answers the benchmarks as the minimum does, and the minimum does not depend on its
# start, the minimum can stand for the trained model at a size where gradient descent is too long to run.
# The checks below say how far each holds. At the paper preset chapter 26's run reaches the paper's
# $V = 10{,}000$, $d = 200$ too. There its end point is compared with the fresh start's minimum, which
# section 3 also scores: a second L-BFGS from the end point would cost as much again. On the 70M-token
# corpus only the minimum is computed: there it stands in for the run.

# %%
t_section = time.time()
# a size on this chapter's corpus is the key (V, d); one on another corpus is (V, d, tag)
ONLY = [(int(e[0]), int(e[1]), *e[3:4]) for e in P["min_only"]]
MIN_SIZES = SIZES + [k_ for k_ in ONLY if k_ not in SIZES]
CORPUS_OF = {(int(e[0]), int(e[1]), e[3]): q.load_corpus(e[2]) for e in P["min_only"] if len(e) > 2}
CORPUS_OF |= {key: corpus for key in MIN_SIZES if len(key) == 2}


def cid(key):
    """The claim-id stem of a size: 'v5000' on this chapter's corpus, '70m.v10000' on a tagged one."""
    return (f"{key[2]}." if len(key) > 2 else "") + f"v{key[0]}"


MIN = {}
for key in MIN_SIZES:
    V_, d_ = key[:2]
    words_, Pj_, pu_ = q.cooccurrence(CORPUS_OF[key], V_)
    budget = P["min_only_evals"] if key in ONLY else P["min_evals"]
    kw_min = dict(model="sgns", tol=P["min_tol"], max_evals=budget, progress=False)
    fresh = q.minimise_expected((Pj_, pu_), d_, init_scale=P["min_init"], seed=0, **kw_min)
    from_end = key in RUNS and key not in ONLY
    polish = q.minimise_expected((Pj_, pu_), d_, W0=RUNS[key].W, **kw_min) if from_end else None
    L0 = q.sgns_population_loss(np.zeros((V_, 1)), Pj_, pu_)
    MIN[key] = dict(fresh=fresh, polish=polish, words=list(words_), L0=L0)
    for name_, r_ in (("fresh start", fresh), ("from t_end", polish)):
        if r_ is not None:
            print(
                f"{CORPUS_OF[key].name}, V = {V_:>6,}, d = {d_:>3}, {name_:>11}: "
                f"{int(r_.evaluations[-1]):,} gradients, "
                f"relative gradient {r_.grad_norm[-1]:.1e} (stop: {r_.stop}), "
                f"loss {r_.loss[-1]:.9g}; "
                f"{'read from the cache, first computed in' if r_.cached else 'took'} {r_.seconds:.0f} s"
            )
print(f"section 1: {time.time() - t_section:.0f} s")

# %%
key0 = SIZES[0]
words0, Pj0, pu0 = q.cooccurrence(corpus, key0[0])
plain = q.minimise_expected((Pj0, pu0), key0[1], init_scale=P["min_init"], seed=0, precondition=False,
                            model="sgns", tol=P["min_tol"], max_evals=P["min_evals"], progress=False)  # fmt: skip
pre = MIN[key0]["fresh"]
prose(
    f"At V = {key0[0]:,}, d = {key0[1]}, from the same fresh start, L-BFGS without the row scaling spent "
    f"{int(plain.evaluations[-1]):,} gradients (stop: {plain.stop}, relative gradient "
    f"{plain.grad_norm[-1]:.1e}); with it, {int(pre.evaluations[-1]):,} (stop: {pre.stop}, "
    f"{pre.grad_norm[-1]:.1e}). The two end points are {q.gram_distance(plain.W, pre.W):.1e} apart as Gram "
    "matrices."
)
_ = rep.check(
    f"qwem.tied_sgns.v{key0[0]}.row_scaling",
    f"V = {key0[0]:,}, d = {key0[1]}: L-BFGS from the same fresh start without and with the row scaling: "
    "gradients spent, final relative gradient, and the Gram distance between the two end points",
    value=dict(
        plain=int(plain.evaluations[-1]),
        scaled=int(pre.evaluations[-1]),
        plain_grad=float(f"{plain.grad_norm[-1]:.3g}"),
        scaled_grad=float(f"{pre.grad_norm[-1]:.3g}"),
        gram=float(f"{q.gram_distance(plain.W, pre.W):.3g}"),
    ),  # fmt: skip
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %% [markdown]
# Figure 28.1 shows what the row scaling and the curvature model buy: the share $\epsilon$ (28.2) of the
# descent still ahead, against the gradients spent. Gradient descent spends one gradient a step. Each
# method's $\epsilon$ uses the lowest loss any of them reached as $\mathcal L_{\min}$.

# %%
fig, axes = plotting.figure(1, 2, width=3.4, height=3.0)
for ax, key in zip(axes, (key0, SIZES[-1])):
    m_, R = MIN[key], RUNS[key]
    ends = [m_["fresh"]] + [
        r_ for r_ in (m_["polish"], plain if key == key0 else None) if r_ is not None
    ]
    L_low = min(float(r_.loss[-1]) for r_ in ends)

    def eps_of(loss, L_low=L_low, L0=m_["L0"]):
        return (np.asarray(loss, dtype=np.float64) - L_low) / (L0 - L_low)

    ax.plot(
        (R.times / (2 * R.lr))[1:], eps_of(R.loss)[1:], "-", color="0.3", label="gradient descent"
    )
    ax.plot(m_["fresh"].evaluations[1:], eps_of(m_["fresh"].loss)[1:], "o-", ms=3, color="C0",
            label="L-BFGS, fresh start")  # fmt: skip
    if key == key0:
        ax.plot(
            plain.evaluations[1:],
            eps_of(plain.loss)[1:],
            "s--",
            ms=3,
            color="C1",
            label="… without row scaling",
        )
    if m_["polish"] is not None:
        ax.plot(R.steps + m_["polish"].evaluations, eps_of(m_["polish"].loss), "^-", ms=3, color="C2",
                label="L-BFGS from $t_{\\rm end}$")  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    plotting.label(
        ax, f"V = {key[0]:,}, d = {key[1]}", "gradients spent", "$\\epsilon$, share still ahead"
    )
handles, labels = axes[0].get_legend_handles_labels()  # the left panel has every kind of curve
axes[1].legend(handles, labels, fontsize=7, loc="lower left")
plotting.suptitle(fig, "Figure 28.1 — How fast each method nears the minimum", fontsize=10)
plt.show()

# %% [markdown]
# **Figure 28.1** — The share $\epsilon$ of the descent still ahead (28.2), on a log scale, against the
# gradients spent: chapter 26's gradient descent from its small start, L-BFGS with the row scaling from a
# fresh start of scale 0.1 and, where there is one, from the run's end point (drawn after the run's own
# steps). Left, the smallest size, with L-BFGS without the row scaling; right, the largest run of this preset.
# The points are L-BFGS's blocks of 100 iterations. A curve stops where it reaches the lowest loss found.

# %% [markdown]
# ## 2 · Is the run at the minimum?
#
# For each size: the minimum's loss, the share $\epsilon$ (28.2) of the descent the run had still ahead of
# it, the Gram distances, and the analogy accuracy of the minimum against the run's end point and against
# svd($M^\star$) on the same questions. The questions and their bootstrap over word pairs are chapter 26's
# (the same generator, drawn in the same order), so the comparisons are paired. "The minimum" is the one
# reached from the run's end point where there is one, else the fresh start's.

# %%
rng_boot = config.rng(26_300)  # chapter 26's: the same resamples of the same questions
SC, GAP = {}, {}
for key, R in RUNS.items():
    w_, W_ = q.spectral_embeddings(corpus, key[0], key[1], "mstar")
    assert list(w_) == list(R.words)
    SC[key] = q.score_embeddings(R.words, {"tied SGNS, t_end": R.W, "svd(M*)": np.asarray(W_, np.float64)},
                                 P["n_boot"], rng_boot)  # fmt: skip
    S_ = SC[key]
    GAP[key] = q.bootstrap_gap(S_.hits["tied SGNS, t_end"].mean(), S_.hits["svd(M*)"].mean(),
                               S_.draws["tied SGNS, t_end"], S_.draws["svd(M*)"])  # fmt: skip

CONV = {}
for key in SIZES:
    V_, d_ = key
    m_, R = MIN[key], RUNS[key]
    near = m_["polish"] if m_["polish"] is not None else m_["fresh"]
    L_min = min(m_["fresh"].loss[-1], near.loss[-1])
    eps = (R.loss[-1] - L_min) / (m_["L0"] - L_min)
    S_ = SC[key]
    h_pol = q.analogy_hits(near.W, S_.items)
    h_fr = q.analogy_hits(m_["fresh"].W, S_.items)
    two = m_["polish"] is not None
    Bw = S_.weights

    def paired(h_a, h_b):
        return q.bootstrap_gap(h_a.mean(), h_b.mean(), q.replicate_means(Bw, h_a),
                               q.replicate_means(Bw, h_b))  # fmt: skip

    CONV[key] = dict(
        L_min=float(L_min),
        eps=float(eps),
        gram_end=q.gram_distance(R.W, near.W),
        gram_starts=q.gram_distance(m_["fresh"].W, near.W) if two else None,
        acc_min=float(h_pol.mean()),
        acc_fresh=float(h_fr.mean()),
        min_vs_end=paired(h_pol, S_.hits["tied SGNS, t_end"]),
        fresh_vs_polish=paired(h_fr, h_pol) if two else None,
        min_vs_mstar=paired(h_pol, S_.hits["svd(M*)"]),
        offset_min=q.constant_overlap(near.W),
    )
    c_ = CONV[key]
    starts = (
        f"between the two starts' minima {c_['gram_starts']:.2e}"
        if two
        else "one start only (the fresh one)"
    )
    print(
        f"V = {V_:>6,}, d = {d_:>3}: ε = {c_['eps']:.2e}; Gram distance end–minimum "
        f"{c_['gram_end']:.3f}, {starts}; analogies: "
        f"minimum {100 * c_['acc_min']:.1f}% (fresh start {100 * c_['acc_fresh']:.1f}%), minimum − t_end "
        f"{100 * c_['min_vs_end']['gap']:+.2f} points (95% [{100 * c_['min_vs_end']['lo']:+.2f}, "
        f"{100 * c_['min_vs_end']['hi']:+.2f}]), minimum − svd(M*) {100 * c_['min_vs_mstar']['gap']:+.2f} "
        f"(95% [{100 * c_['min_vs_mstar']['lo']:+.2f}, {100 * c_['min_vs_mstar']['hi']:+.2f}]); offset "
        f"{c_['offset_min']:.4f}"
    )
    _ = rep.check(
        f"qwem.tied_sgns.v{V_}.minimum",
        f"V = {V_:,}, d = {d_}: the minimum of (26.1) by L-BFGS from the run's end point and from a fresh "
        "start (from the fresh start only where gram_starts is null): ε (share of the descent still ahead "
        "of the run at t_end), Gram distances (end–minimum, minimum–minimum), analogy gaps minimum − t_end "
        "and minimum − svd(M*) (paired), the offset",
        value=dict(
            eps=float(f"{c_['eps']:.4g}"),
            gram_end=round(c_["gram_end"], 4),
            gram_starts=float(f"{c_['gram_starts']:.3g}") if two else None,
            acc_min=round(c_["acc_min"], 4),
            min_minus_end=round(c_["min_vs_end"]["gap"], 4),
            min_minus_end_se=round(c_["min_vs_end"]["se"], 4),
            min_minus_mstar=round(c_["min_vs_mstar"]["gap"], 4),
            min_minus_mstar_se=round(c_["min_vs_mstar"]["se"], 4),
            offset=round(c_["offset_min"], 4),
            gradients=[
                int(MIN[key][n_].evaluations[-1])
                for n_ in ("fresh", "polish")
                if MIN[key][n_] is not None
            ],
        ),
        passed=True,
        tolerance="recorded",
        kind="record",
    )

# %% [markdown]
# Two checks decide whether the minimum may stand for the trained model. Both could fail: a landscape
# with several minima gives two starts two different Gram matrices (the control: the run's own end point,
# a different embedding of the same words, is at the Gram distance printed above), and a run stopped far
# from the minimum scores differently from it.
#
# * **One minimum:** the minima from the two starts are within a Gram distance of $10^{-2}$, and their
#   analogy accuracies agree within 1.96 paired standard errors;
# * **the run is there:** the analogy accuracy at $t_{\rm end}$ and at the minimum agree within 1.96 paired
#   standard errors of their difference.

# %%
# The outcomes of section 2's predictions at each preset's first run, typed in after that run
# (`Report.prediction`: True asserts the prediction again, False pins its failure, None records), by V at
# the sizes with a run and by claim-id stem (cid) at the sizes with only a minimum. The paper preset
# repeats the book's sizes with the same calls, so it has the book's outcomes there.
OUTCOME = config.sizes(
    smoke=dict(one_minimum={800: True, 1000: True}, end_at_minimum={800: True, 1000: True},
               above_mstar={}, features={}),
    book=dict(one_minimum={2000: True, 5000: False}, end_at_minimum={2000: True, 5000: True},
              above_mstar={}, features={}),
    paper=dict(one_minimum={2000: True, 5000: False},
               end_at_minimum={2000: True, 5000: True, 10000: True},
               above_mstar={"v10000": False, "70m.v10000": True},
               features={"v10000": True, "70m.v10000": True}),
)  # fmt: skip
for key in SIZES:
    V_, d_ = key
    c_ = CONV[key]
    fp = c_["fresh_vs_polish"]
    if fp is not None:
        _ = rep.prediction(
            f"qwem.tied_sgns.v{V_}.one_minimum",
            f"V = {V_:,}, d = {d_}: L-BFGS from the run's end point and from a fresh random start reach the "
            "same minimum of (26.1): Gram distance below 1e-2 and analogy accuracies within 1.96 paired SE",
            holds=bool(c_["gram_starts"] < 1e-2 and abs(fp["gap"]) <= 1.96 * fp["se"] + 1e-12),
            value=dict(
                gram=float(f"{c_['gram_starts']:.3g}"),
                gap=round(fp["gap"], 4),
                se=round(fp["se"], 4),
            ),  # fmt: skip
            outcome=OUTCOME["one_minimum"].get(V_),
        )
    me = c_["min_vs_end"]
    _ = rep.prediction(
        f"qwem.tied_sgns.v{V_}.end_at_minimum",
        f"V = {V_:,}, d = {d_}: the run's end point answers the analogies as the minimum does: "
        "|acc(minimum) − acc(t_end)| within 1.96 paired SE",
        holds=bool(abs(me["gap"]) <= 1.96 * me["se"] + 1e-12),
        value=dict(gap=round(me["gap"], 4), se=round(me["se"], 4)),
        outcome=OUTCOME["end_at_minimum"].get(V_),
    )

# %%
for key in SIZES:
    c_ = CONV[key]
    m_ = MIN[key]
    if c_["gram_starts"] is not None and c_["gram_starts"] >= 1e-2:
        fr, po = m_["fresh"], m_["polish"]
        rel_dL = abs(fr.loss[-1] - po.loss[-1]) / abs(m_["L0"] - c_["L_min"])
        fp = c_["fresh_vs_polish"]
        prose(
            f"At V = {key[0]:,}, d = {key[1]} the two starts end {c_['gram_starts']:.1e} apart as Gram "
            f"matrices, so the first prediction fails there. Their losses differ by "
            f"{rel_dL:.1e} of the whole descent and their analogy accuracies by "
            f"{100 * fp['gap']:+.2f} points (paired SE {100 * fp['se']:.2f}); both stopped because a block "
            f"made no progress (relative gradients {fr.grad_norm[-1]:.1e} and {po.grad_norm[-1]:.1e}). "
            "The loss is that flat along some directions: at the precision of float32 products its "
            "minimum is fixed only up to them, and this measurement cannot tell several minima from one "
            "minimum in a flat valley. The benchmark does not see the difference at this size, which is "
            "what the rest of this section relies on; a minimum found from one start is one point of "
            "that valley."
        )

# %% [markdown]
# ## 3 · The minimum at the paper's size
#
# At the sizes listed for it (at the paper preset, the paper's $V = 10{,}000$, $d = 200$ on both corpora),
# the fresh start's minimum is scored like chapter 26's Table 26.1, and its features are measured like
# chapter 26's Figure 26.2, against the closed forms at the same size. The feature shares' difference
# $D(\cdot, M^\star) - D(\cdot, \mathrm{PPMI})$ gets its standard error from a bootstrap over the words
# (`q.dominance_difference_bootstrap`). The statements below were written before the first paper-preset
# run; each carries its outcome at that run.

# %%
MIN_ONLY = {}
n_rows = max(50, P["n_null"] // 2)
for key in ONLY:
    V_, d_ = key[:2]
    m_, cname = MIN[key], CORPUS_OF[key].name
    emb = {"tied SGNS, minimum": np.asarray(m_["fresh"].W, np.float64)}
    for target, name in (("mstar", "svd(M*)"), ("ppmi", "svd(PPMI)"), ("pmi", "svd(PMI)")):
        w_, W_ = q.spectral_embeddings(CORPUS_OF[key], V_, d_, target)
        assert list(w_) == m_["words"]
        emb[name] = np.asarray(W_, dtype=np.float64)
    S_ = q.score_embeddings(m_["words"], emb, P["n_boot"], config.rng(26_600 + V_),
                            rng_sim=config.rng(26_610 + V_))  # fmt: skip
    hits, draws, sim = S_.hits, S_.draws, S_.sim
    gap = q.bootstrap_gap(hits["tied SGNS, minimum"].mean(), hits["svd(M*)"].mean(),
                          draws["tied SGNS, minimum"], draws["svd(M*)"])  # fmt: skip
    kf = min(P["n_overlap"], d_) - 1
    E = {n_: q.without_constant(emb[n_]) for n_ in ("tied SGNS, minimum", "svd(M*)", "svd(PPMI)")}
    feat = {other: q.feature_match(E["tied SGNS, minimum"], E[other], kf, config.rng(26_620 + V_),
                                   P["n_null"]) for other in ("svd(M*)", "svd(PPMI)")}  # fmt: skip
    offset = q.constant_overlap(emb["tied SGNS, minimum"])
    dd_rows = q.dominance_difference_bootstrap(emb["tied SGNS, minimum"], emb["svd(M*)"], emb["svd(PPMI)"],
                                               kf, config.rng(26_630 + V_), n_rows)  # fmt: skip
    feat["diff"] = feat["svd(M*)"]["D"] - feat["svd(PPMI)"]["D"]
    feat["diff_se"] = float(dd_rows.std())
    MIN_ONLY[key] = dict(hits=hits, draws=draws, sim=sim, gap=gap, feat=feat, offset=offset, k=kf,
                         names=list(emb), corpus=cname)  # fmt: skip
    lines = ["| corpus, V, d | method | analogies | MEN | WS353 | paper (V = 10,000, d = 200) |",
             "|---|---|---|---|---|---|"]  # fmt: skip
    lines += q.score_rows(f"{cname}, {V_:,}, {d_}", hits, draws, sim, {"tied SGNS, minimum": "word2vec",
                          "svd(M*)": "svd_mstar", "svd(PPMI)": "svd_ppmi", "svd(PMI)": "svd_pmi"})  # fmt: skip
    display(Markdown("\n".join(lines)))
    print(
        f"{cname}, V = {V_:,}, d = {d_}: minimum − svd(M*) {100 * gap['gap']:+.2f} points "
        f"(SE {100 * gap['se']:.2f}, "
        f"95% [{100 * gap['lo']:+.2f}, {100 * gap['hi']:+.2f}]; the paper {100 * PAPER_GAP['analogy']:+.1f}); "
        f"D vs svd(M*) {feat['svd(M*)']['D']:.3f} (null 99% {feat['svd(M*)']['null99']:.3f}), vs "
        f"svd(PPMI) {feat['svd(PPMI)']['D']:.3f} (difference {feat['diff']:+.3f}, row-bootstrap SE "
        f"{feat['diff_se']:.3f}, {n_rows} draws); offset {offset:.4f}"
    )
    _ = rep.check(
        f"qwem.tied_sgns.{cid(key)}.minimum_table",
        f"{cname}, V = {V_:,}, d = {d_}: the minimum of tied SGNS's loss beside svd(M*), svd(PPMI), svd(PMI): "
        "analogy accuracy and SE, MEN and WS353 ρ; the features' D against svd(M*) and svd(PPMI) with "
        "their nulls, their difference with its row-bootstrap SE (resolved if above 1.96 SE), and the "
        "offset",
        value={name: dict(analogy=round(float(hits[name].mean()), 4),
                          analogy_se=round(float(draws[name].std()), 4),
                          **{ds: round(float(sim[ds][0][j]), 4) for ds in ("men", "ws353")})
               for j, name in enumerate(emb)}
        | {f"D vs {o}": round(feat[o]["D"], 4) for o in ("svd(M*)", "svd(PPMI)")}
        | {f"null99 vs {o}": round(feat[o]["null99"], 4) for o in ("svd(M*)", "svd(PPMI)")}
        | dict(D_diff=round(feat["diff"], 4), D_diff_se=round(feat["diff_se"], 4),
               D_diff_resolved=bool(feat["diff"] > 1.96 * feat["diff_se"]))
        | dict(offset=round(offset, 4), stop=m_["fresh"].stop,
               rel_grad=float(f"{m_['fresh'].grad_norm[-1]:.3g}"),
               gradients=int(m_["fresh"].evaluations[-1])),
        passed=True,
        tolerance="recorded",
        paper=PAPER_GAP["analogy"],
        kind="record",
    )  # fmt: skip
    _ = rep.prediction(
        f"qwem.tied_sgns.{cid(key)}.minimum_above_mstar",
        f"{cname}, V = {V_:,}, d = {d_}: the minimum of tied SGNS's loss answers more analogies than svd(M*) on the "
        "same questions, as the paper's word2vec does (68.0% > 66.3%): the paired 95% interval of the "
        "gap lies above 0",
        holds=bool(gap["lo"] > 0),
        value={k_: round(v, 4) for k_, v in gap.items()},
        outcome=OUTCOME["above_mstar"].get(cid(key)),
    )
    _ = rep.prediction(
        f"qwem.tied_sgns.{cid(key)}.minimum_features",
        f"{cname}, V = {V_:,}, d = {d_}: the minimum's first {kf} eigen-features (1/√V projected out) match "
        "svd(M*)'s above the 99th percentile of the rotation null, and it has no offset (squared overlap "
        "of its first singular vector with 1/√V below 0.1)",
        holds=bool(feat["svd(M*)"]["D"] > feat["svd(M*)"]["null99"] and offset < 0.1),
        value=dict(
            D=round(feat["svd(M*)"]["D"], 4),
            null99=round(feat["svd(M*)"]["null99"], 4),
            offset=round(offset, 4),
        ),  # fmt: skip
        outcome=OUTCOME["features"].get(cid(key)),
    )

# %%
fig, ax = plotting.figure(1, 1, width=6.0, height=3.2)
rows = [(k_, GAP[k_]) for k_ in SIZES]
mins = [(k_, CONV[k_]["min_vs_mstar"]) for k_ in SIZES] + [
    (k_, v["gap"]) for k_, v in MIN_ONLY.items() if len(k_) == 2 and k_ not in CONV
]
series = [(rows, "o", "gradient descent, $t_{\\rm end}$", 0.97),
          (mins, "s", f"the minimum of (26.1) (L-BFGS), {P['corpus']}", 1.03)]  # fmt: skip
for j_, tag_ in enumerate(sorted({k_[2] for k_ in MIN_ONLY if len(k_) > 2})):
    pts_ = [(k_, v["gap"]) for k_, v in MIN_ONLY.items() if k_[2:] == (tag_,)]
    series.append(
        (pts_, "D^v"[j_ % 3], f"the minimum, {MIN_ONLY[pts_[0][0]]['corpus']}", 1.09 + 0.06 * j_)
    )
for pts, mk, lab, dx in series:
    x_ = np.array([k_[0] for k_, _ in pts], dtype=float) * dx
    g_ = np.array([100 * v["gap"] for _, v in pts])
    e_ = np.array([[100 * (v["gap"] - v["lo"]), 100 * (v["hi"] - v["gap"])] for _, v in pts]).T
    ax.errorbar(x_, g_, yerr=e_, fmt=mk, capsize=3, label=lab)
ax.plot(
    [10_000], [100 * PAPER_GAP["analogy"]], "k*", ms=10, label="the paper (word2vec, 2.0B tokens)"
)
ax.axhline(0, color="0.5", lw=0.8)
ax.set_xscale("log")
ticks = sorted({k_[0] for k_ in MIN_SIZES} | {10_000})
ax.set_xticks(ticks, [f"{t_:,}" for t_ in ticks], fontsize=7)
ax.xaxis.set_minor_formatter(NullFormatter())
plotting.label(ax, "analogies: tied SGNS − svd($M^\\star$), paired 95% intervals", "$V$ (d grows with V)",
               "gap (points)")  # fmt: skip
ax.legend(fontsize=7, loc="upper left")
plotting.suptitle(fig, "Figure 28.2 — The trained run, its minimum, and the paper", fontsize=10)
plt.show()

# %% [markdown]
# **Figure 28.2** — The paired analogy gap between tied SGNS and svd($M^\star$) on the same questions, with
# 95% bootstrap intervals: at the end of the gradient-descent runs (circles) and at the minimum of the loss
# (squares; at the paper preset also at the paper's $V = 10{,}000$, $d = 200$, and there on the larger corpus
# too, diamonds, where only the minimum is computed), beside the paper's gap (star). The points are shifted a
# little left and right of their $V$ so that all can be seen.

# %%
big_min = max(k_[:2] for k_ in MIN_SIZES)
at_big = {CORPUS_OF[k_].name: (MIN_ONLY[k_]["gap"] if k_ in MIN_ONLY else CONV[k_]["min_vs_mstar"])
          for k_ in MIN_SIZES if k_[:2] == big_min}  # fmt: skip
prose(
    f"At the largest size where the minimum was computed (V = {big_min[0]:,}, d = {big_min[1]}), the "
    "minimum of tied SGNS's loss minus svd($M^\\star$) on the analogies is "
    + "; ".join(
        f"{100 * g_['gap']:+.1f} points on {c_} (95% [{100 * g_['lo']:+.1f}, {100 * g_['hi']:+.1f}])"
        for c_, g_ in at_big.items()
    )  # fmt: skip
    + f"; the paper's word2vec, {100 * PAPER_GAP['analogy']:+.1f} at V = 10,000 on 2.0B tokens."
)

# %% [markdown]
# ## 4 · The gap against the corpus
#
# The paper's gap comes from 2.0B tokens; this chapter's corpus has two
# orders of magnitude fewer. If tied SGNS's advantage over svd($M^\star$) grows with the corpus, the minimum
# at the same $V$ and $d$ on a larger corpus sits higher above svd($M^\star$). Where a preset computes the
# minimum at one size on two corpora (the paper preset: 17M and 70M tokens at the paper's $V$ and $d$), the
# cell below records the difference of the two paired gaps. Its standard error adds the two gaps'
# variances as if independent; their questions overlap and their resamples share a seed, so if anything it
# is too wide. The same is done for the feature shares' difference $D(\cdot, M^\star) - D(\cdot,
# \mathrm{PPMI})$.

# %%
TREND = {}
for key, v in MIN_ONLY.items():
    if len(key) == 2 or key[:2] not in MIN_ONLY:
        continue
    base = MIN_ONLY[key[:2]]
    n_tok = [CORPUS_OF[key[:2]].n_tokens, CORPUS_OF[key].n_tokens]
    g0, g1 = base["gap"], v["gap"]
    f0, f1 = base["feat"], v["feat"]
    TREND[key] = dict(
        diff=g1["gap"] - g0["gap"], se=float(np.hypot(g1["se"], g0["se"])),
        D_diff=f1["diff"] - f0["diff"], D_se=float(np.hypot(f1["diff_se"], f0["diff_se"])),
    )  # fmt: skip
    t_ = TREND[key]
    _ = rep.check(
        f"qwem.tied_sgns.{cid(key)}.corpus_trend",
        f"V = {key[0]:,}, d = {key[1]}: the minimum of tied SGNS's loss minus svd(M*) on the analogies on "
        f"{base['corpus']} and on {v['corpus']} ({n_tok[0] / 1e6:.1f}M and {n_tok[1] / 1e6:.1f}M tokens), "
        "the change from the first to the second with its standard error (the two variances added), and "
        "the same for D(SGNS, M*) − D(SGNS, PPMI); resolved if above 1.96 SE",
        value=dict(
            tokens=[int(n_) for n_ in n_tok],
            gaps=[round(g0["gap"], 4), round(g1["gap"], 4)],
            change=round(t_["diff"], 4),
            change_se=round(t_["se"], 4),
            change_resolved=bool(abs(t_["diff"]) > 1.96 * t_["se"]),
            D_diffs=[round(f0["diff"], 4), round(f1["diff"], 4)],
            D_change=round(t_["D_diff"], 4),
            D_change_se=round(t_["D_se"], 4),
        ),  # fmt: skip
        passed=True,
        tolerance="recorded",
        paper=PAPER_GAP["analogy"],
        kind="record",
    )
    prose(
        f"From {base['corpus']} ({n_tok[0] / 1e6:.1f}M tokens) to {v['corpus']} ({n_tok[1] / 1e6:.1f}M) at "
        f"V = {key[0]:,}, d = {key[1]}, the minimum's analogy gap over svd($M^\\star$) goes from "
        f"{100 * g0['gap']:+.1f} to {100 * g1['gap']:+.1f} points: a change of {100 * t_['diff']:+.1f} "
        f"(SE {100 * t_['se']:.1f}), "
        + ("resolved. " if abs(t_["diff"]) > 1.96 * t_["se"] else "not resolved. ")
        + f"The feature shares' difference goes from {f0['diff']:+.3f} to {f1['diff']:+.3f} (change "
        f"{t_['D_diff']:+.3f}, SE {t_['D_se']:.3f}). The paper's gap is {100 * PAPER_GAP['analogy']:+.1f} "
        "points on 2.0B tokens."
    )

# %% [markdown]
# ## 5 · Discussion
#
# **What the minimum is.** It is the point chapter 26's gradient descent is heading to, found by another
# method on the same loss and the same gradient. Where both exist, the runs' end points answer the analogies
# as the minimum does (section 2). That is what lets the minimum stand in for a run at the paper's size on
# the larger corpus, where gradient descent was not run. It is not where the authors' word2vec stops: their
# 10 passes of SGD with a decaying rate end somewhere on the path from a small start to this minimum.
#
# **One minimum, or a flat valley?** Two starts end within a small Gram distance at the smallest size. At
# larger sizes they can end further apart while scoring the same (section 2). At float32 precision the loss
# is flat along some directions, and this measurement cannot tell several minima from one minimum in a flat
# valley. The benchmarks do not see the difference.
#
# **The paper's ordering.** Figure 28.2 puts the run, the minimum and the paper side by side. The minimum's
# gap to svd($M^\star$) at the paper's size is tested as a prediction on each corpus (section 3), and its
# change from 17M to 70M tokens is recorded with its standard error (section 4). Two corpora give a
# direction, not a trend: the paper's corpus is 2.0B tokens, about thirty times the larger of the two.
#
# **How the checks can mislead.** L-BFGS's gradient counts are not reproducible to the last digit: float32
# rounding differs with how the products are blocked, and the line search amplifies it. The scores and
# shares move in the fourth digit (`bench/README.md`). The analogy questions share words, so the bootstrap
# resamples word pairs, not questions.

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
# 1. *(compute, ★★)* How many gradients did L-BFGS need to come as close to the minimum as chapter 26's run
#    came at $t_{\rm end}$? Read it off the fresh start's history at the largest run size (its loss after
#    each block of iterations), and compare it with the run's number of gradient-descent steps.
# 2. *(derive, ★)* Why are the run and the minimum compared as Gram matrices? Show that the loss (26.1), the
#    Gram distance and the analogy answers do not change when $W$ is replaced by $WO$ with $O$ orthogonal,
#    and check it on the minimum at the largest size.

# %% [markdown]
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# The history holds the loss after each block of 100 L-BFGS iterations. Its share of the descent still
# ahead, $\epsilon$ of (28.2) with the same $\mathcal L_{\min}$, falls block by block; the first block with
# $\epsilon$ at or below the run's own $\epsilon(t_{\rm end})$ gives an upper bound on the gradients needed.
# The fresh start begins at scale 0.1, not at the run's $\sigma^2$, so it skips the plateaus of a small
# start. The cell asserts that L-BFGS needs fewer gradients than the run needed steps.
#
# </details>

# %%
key_big = SIZES[-1]
fr_big, c_big = MIN[key_big]["fresh"], CONV[key_big]
eps_hist = (np.asarray(fr_big.loss) - c_big["L_min"]) / (MIN[key_big]["L0"] - c_big["L_min"])
reached = np.nonzero(eps_hist <= c_big["eps"])[0]
grads_needed = int(fr_big.evaluations[reached[0]]) if reached.size else None
print(f"V = {key_big[0]:,}, d = {key_big[1]}: the run's ε at t_end {c_big['eps']:.2e} after "
      f"{RUNS[key_big].steps:,} steps; L-BFGS from a fresh start reached it within "
      f"{grads_needed if grads_needed is not None else 'none of its'} gradients "
      f"(ε by block: {np.array2string(eps_hist[:6], precision=2)}…)")  # fmt: skip
_ = rep.check(
    "qwem.tied_sgns.minimum.solution.1",
    f"V = {key_big[0]:,}, d = {key_big[1]}: L-BFGS from a fresh start comes as close to the minimum as "
    "chapter 26's run came at t_end (ε of (28.2)) in fewer gradients than the run took steps",
    value=dict(
        gradients=grads_needed, steps=int(RUNS[key_big].steps), eps_run=float(f"{c_big['eps']:.3g}")
    ),
    passed=bool(grads_needed is not None and grads_needed < RUNS[key_big].steps),
    tolerance="gradients < steps",
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# Every term of (26.1) depends on $W$ only through $x_{ab} = w_a\cdot w_b$, the entries of $WW^\top$, and
# $(WO)(WO)^\top = WOO^\top W^\top = WW^\top$. The Gram distance compares $WW^\top$ with $BB^\top$, so it is
# unchanged too. 3CosAdd uses cosines of rows, and $\|w_aO\| = \|w_a\|$ and $(w_aO)\cdot(w_bO) = w_a\cdot
# w_b$: the same answers. So a run and a minimum that differ by a rotation are the same model, and a
# comparison of the matrices themselves would call them different.
#
# </details>

# %%
W_min = np.asarray(MIN[key_big]["fresh"].W, np.float64)
O_rot = np.linalg.qr(config.rng(28_002).normal(size=(key_big[1], key_big[1])))[0]
_, Pj_b, pu_b = q.cooccurrence(corpus, key_big[0])
L_a, L_b = (q.sgns_population_loss(X, Pj_b, pu_b) for X in (W_min, W_min @ O_rot))
same_hits = bool(np.array_equal(q.analogy_hits(W_min, SC[key_big].items),
                                q.analogy_hits(W_min @ O_rot, SC[key_big].items)))  # fmt: skip
g_rot = q.gram_distance(W_min @ O_rot, W_min)
print(f"relative change of the loss {abs(L_b - L_a) / abs(L_a):.1e}; Gram distance {g_rot:.1e}; "
      f"the same analogy answers: {same_hits}")  # fmt: skip
_ = rep.check(
    "qwem.tied_sgns.minimum.solution.2",
    f"V = {key_big[0]:,}, d = {key_big[1]}: the minimum rotated by a random orthogonal O has the same loss "
    "(relative change below 1e-9), Gram distance below 1e-9 from the unrotated one, and the same analogy "
    "answers",
    value=dict(
        loss_change=float(f"{abs(L_b - L_a) / abs(L_a):.2g}"),
        gram=float(f"{g_rot:.2g}"),
        same_hits=same_hits,
    ),  # fmt: skip
    passed=bool(abs(L_b - L_a) / abs(L_a) < 1e-9 and g_rot < 1e-9 and same_hits),
    tolerance="loss change < 1e-9, Gram < 1e-9, identical answers",
    kind="consistency",
)
