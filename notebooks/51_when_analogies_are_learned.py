# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 51 · When is each analogy learned?
#
# *Part V goes beyond the papers: the statements tested here are the book's own predictions, made from the
# theory of Parts I–III before the measurements were run. A prediction that fails is reported as plainly
# as one that holds.*
#
# **Question.** Chapter 30 describes a category's task vectors $w_b - w_a$ as a spike — their common mean —
# over a random bulk, and the paper plots where the mean's power sits among the eigen-directions of $M^\star$;
# Lemma 3.1 (chapters 12–13) says when each eigen-direction is learned from a small start. Put together, $M^\star$ alone should predict *when* each Google-analogy category is learned: its
# accuracy as a function of training time, and its **acquisition time** — the time its accuracy first reaches
# half of its final value. The QWEM paper describes task vectors with a spiked random-matrix model fitted to
# the trained embeddings; the summary of the paper (seed 000, line 86) lists among its open questions "whether
# the spiked-random-matrix description of task vectors can be derived from M* rather than fitted, so that which
# analogies a model can complete, and when, becomes a prediction". If the time course of every category
# follows from $M^\star$'s eigenvectors and eigenvalues with nothing fitted, the "when" is derived; if trained
# models acquire the categories in another order, it is not. We measure on QWEM trained without minibatch noise and on word2vec (gensim's skip-gram), which is not a
# factorisation of $M^\star$ at all.
#
# **Rule for which categories count (fixed before any measurement).** A category enters the comparison when
# it has at least `min_pairs` distinct in-vocabulary word pairs (8 at the book preset: 56 analogies) *and* the
# prediction's own end point — svd($M^\star$) at rank $d$, computed from $M^\star$ alone — answers at least 10% of
# its analogies (half of a final accuracy near zero is a time set by noise). No measured quantity enters the rule.
#
# **Predictions (stated before any measurement was made; the numbers are the thresholds we committed to).**
#
# * **P1** — QWEM (noiseless gradient descent from the same small start): the rank correlation across
#   categories between predicted and measured acquisition times is $\rho \ge 0.8$, with a bootstrap 95% interval
#   above 0 and a permutation $p < 0.01$.
# * **P2** — QWEM: the predicted accuracy curves track the measured ones: the median over categories of
#   $\max_t |{\rm acc}_{\rm measured}(t) - {\rm acc}_{\rm predicted}(t)|$ is at most 0.10.
# * **P3** — word2vec (gensim skip-gram from its own small start, time = share of its training seen): the
#   categories are acquired in the predicted order, $\rho > 0$ with a permutation $p < 0.05$.
# * **P4** — The spiked summary suffices: the time at which a category's *mean task vector* is half learned
#   (a sum of Lemma 3.1's sigmoids weighted by where that vector lies in $M^\star$'s eigenbasis, no analogy
#   scoring) ranks the categories like the full accuracy prediction, $\rho \ge 0.7$.
# * **P5** — The test can fail: predictors with Lemma 3.1's clock *shuffled* over the eigen-directions (the same
#   set of learning times, assigned to the wrong directions) correlate less with QWEM's measured times than the
#   true predictor, for every shuffle drawn.
# * **P6** — The prediction beats a naive competitor on word2vec: its $\rho$ with gensim's acquisition times is
#   larger than that of the mean log frequency rank of the category's words (rarer words, later learning).

# %%
import time

import matplotlib.pyplot as plt
import numpy as np
import torch
from scipy.stats import spearmanr

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("51_when_analogies_are_learned")
# a size that changes with the preset: config.per_preset(smoke, book, paper)
S = config.knobs(
    corpus=config.per_preset("enwiki2015_1m7", "enwiki2015_17m", "enwiki2015_70m"),
    V=config.per_preset(2_000, 10_000, 10_000),
    d=config.per_preset(50, 200, 200),
    r=config.per_preset(150, 500, 1_000),
    min_pairs=config.per_preset(5, 8, 8),
    min_final=0.10,
    s0_sq=1e-24,
    n_times=config.per_preset(14, 20, 30),
    w2v_grid=config.per_preset((1 / 32, 4, 6), (1 / 512, 8, 16), (1 / 1024, 10, 20)),
    w2v_epochs=config.per_preset(3, 3, 5),
    w2v_seeds=config.per_preset((0,), (0,), (0, 1, 2)),
    w2v_first_look=config.per_preset(None, {"one epoch": (1, 1 / 256, 17)}, None),
    n_boot=config.per_preset(100, 300, 1_000),
    n_shuffle=config.per_preset(3, 6, 20),
    null_items=config.per_preset(60, 80, 200),
)
print(S)
T_START = time.time()
rng = config.rng(51)

# Outcomes of the predictions as first measured at each preset (typed in after the runs, so claims that
# check a *failed* prediction are records, not findings). None: not measured yet at that preset.
_keys = ("P1", "P2", "P3", "P4", "P5", "P6")
OUTCOME = config.sizes(
    smoke=dict(P1=False, P2=True, P3=False, P4=False, P5=True, P6=False),
    book=dict(P1=True, P2=True, P3=False, P4=False, P5=True, P6=False),
    paper={k: None for k in _keys},
)


def prediction(key: str, id: str, statement: str, *, holds: bool, value) -> None:
    """Record prediction ``key`` with the outcome first measured at this preset (Report.prediction)."""
    rep.prediction(id, statement, holds=holds, value=value, outcome=OUTCOME.get(key))


# %% [markdown]
# ## 1 · Derivation: from $M^\star$ to an accuracy clock
#
# **Embeddings along the run.** From a small start, QWEM's gradient flow stays close to the aligned solution
# (chapter 13), in which each eigen-direction $q_k$ of $M^\star$ grows independently along Lemma 3.1's sigmoid:
#
# $$W(t) \approx Q_{[d]}\,\mathrm{diag}\big(s_1(t), \dots, s_d(t)\big),\qquad
#   s_k^2(t) = \frac{s_{k,0}^2\,\lambda_k\,e^{\lambda_k t}}{\lambda_k + s_{k,0}^2\,(e^{\lambda_k t} - 1)} \tag{51.1}$$
#
# up to a rotation on the right, which no analogy score sees (3CosAdd uses cosines, functions of $WW^\top$).
# The starts $s_{k,0}^2$ are the *realised* ones of the run's own $W(0)$ (Gram–Schmidt of its rows $q_k^\top W(0)$,
# `q.matched_initial_singular_values`, chapter 13), so the prediction uses the same random draw as the run
# but no other information from it. Mode $k$ is half learned at about
# $\tau_k = \lambda_k^{-1}\ln(\lambda_k/s_{k,0}^2)$.
#
# **Accuracy at time $t$.** Scoring $W(t)$ of (51.1) on the analogy items of a category gives its predicted accuracy
# curve ${\rm acc}_c(t)$ (`q.lemma_embeddings`, `q.hit_curves`, `q.category_curves`). Its acquisition time
# $t_c$ is the first $t$ with ${\rm acc}_c(t) \ge \tfrac12\,{\rm acc}_c(\infty)$ (`q.crossing_times`). Nothing
# here is fitted: $Q$, $\lambda$ and $s_0$ fix every curve.
#
# **The spiked summary.** In the spiked picture a category is its mean task vector
# $\bar\mu_c = \frac1{N_c}\sum_{(a,b)}(e_b - e_a)^\top Q_{[d]}$ in the eigenbasis, plus noise. Its squared length in
# the embedding at time $t$ is $\sum_k s_k^2(t)\,\bar\mu_{ck}^2$: a sum of sigmoids weighted by the power
# $\bar\mu_{ck}^2$ of the task in direction $k$. When the weights sit in a few directions, the category is acquired
# when those directions are, at their $\tau_k$; when they are spread, a weighted mixture of times. The half-time
# of that sum is P4's cheap predictor.
#
# **Why categories should differ.** $\tau_k$ grows as $\lambda_k$ falls: from $\lambda_1$ to $\lambda_d$ the
# times span a factor of about $\lambda_1/\lambda_d$. A category whose pairs differ along top eigen-directions
# (e.g. nationality adjectives against country names, which share topics with many words) should be learned
# early; one whose distinction lives in low-eigenvalue directions, late.
#
# **Measurements.** *QWEM*: noiseless gradient descent on the expected loss, $W \leftarrow W - \eta(WW^\top - M^\star)W$,
# from $W(0) = \frac{\sigma}{\sqrt d}Z$, restricted to the top $r$ eigenvectors of $M^\star$ (`q.eigen_flow`, exact
# inside their span; chapter 27 checks it against the full-space trainer `q.train_expected`, claim
# `qwem.fig2.eigen_flow_matches_full_run`). It differs from the prediction by everything the aligned solution
# leaves out: the random orientation of $W(0)$, the coupling of modes through $W^\top W$, the $r - d$ further
# directions. *word2vec*: gensim's skip-gram (the book's settings, chapter 21, one worker; three epochs at the
# book preset), trained in segments with the embeddings saved after each (`q.word2vec_snapshots`); its time is
# the share of the training seen. Its loss is logistic, its weights untied, its negatives drawn from $P^{0.75}$, its stream
# subsampled: it shares with $M^\star$ only the corpus, so agreement there is the real test.

# %% [markdown]
# ## 2 · The prediction, from $M^\star$ alone

# %%
words, lam_r, Q_r = q.mstar_eigenbasis(S["corpus"], S["V"], S["r"])
V, d = S["V"], S["d"]
lam, Q = lam_r[:d], Q_r[:, :d]
items, cat = q.analogy_items(words)
names = [n for n, _ in q.analogy_categories()]
gen = torch.Generator().manual_seed(int(config.SEED) * 1000)
W0 = q.initial_embeddings(V, d, np.sqrt(S["s0_sq"]), gen).numpy().astype(np.float64)
s0_sq = q.matched_initial_singular_values(W0, Q)[0] ** 2
tau1 = q.characteristic_time(lam[0], S["s0_sq"])
tau_d = q.characteristic_time(lam[-1], S["s0_sq"])
t_grid = tau1 * np.geomspace(0.6, 2.0 * tau_d / tau1, S["n_times"])
lr = 0.1 / lam[0]
steps = np.unique(np.round(t_grid / (2 * lr)).astype(np.int64))
t_grid = 2 * lr * steps  # the run's own times (t = 2ηs)
prose(
    f"{S['corpus']}, $V$ = {V:,}, $d$ = {d}: $\\lambda_1$ = {lam[0]:.0f}, $\\lambda_d$ = {lam[-1]:.0f}; start "
    f"$\\sigma^2$ = {S['s0_sq']:.0e} (realised $s_{{k,0}}^2/\\sigma^2$ from {s0_sq.min() / S['s0_sq']:.2g} to "
    f"{s0_sq.max() / S['s0_sq']:.2g}); $\\tau_d/\\tau_1$ = {tau_d / tau1:.1f}. {len(t_grid)} times from "
    f"{t_grid[0] / tau1:.2f} to {t_grid[-1] / tau1:.1f} $\\tau_1$."
)

# the exclusion rule, from M* alone: enough pairs, and the prediction's end point answers >= min_final
idx, n_pairs = q.pair_index(items, cat)
W_end = Q * np.sqrt(lam)  # svd(M*) at rank d: Lemma 3.1's limit
hits_end = q.analogy_hits(W_end, items)
cands = [c for c in np.unique(cat) if n_pairs[int(c)] >= S["min_pairs"]]
final_pred = {int(c): float(hits_end[cat == c].mean()) for c in cands}
keep = [c for c in cands if final_pred[int(c)] >= S["min_final"]]
short = {names[c]: names[c].replace("gram", "")[:14] for c in keep}
for c in np.unique(cat):
    why = (
        "kept"
        if c in keep
        else ("too few pairs" if c not in cands else f"svd(M*) answers {final_pred[int(c)]:.0%}")
    )
    print(f"{names[c]:28s} pairs {n_pairs[int(c)]:3d}  analogies {int((cat == c).sum()):5d}  {why}")
sel = np.isin(cat, keep)
items, cat = items[sel], cat[sel]
idx = idx[sel]
rep.check(
    "beyond.analogy_timing.categories",
    f"categories kept by the rule fixed in advance (>= {S['min_pairs']} pairs and svd(M*) accuracy >= "
    f"{S['min_final']:.0%}) (recorded)",
    value=dict(kept=[names[c] for c in keep], n_items=int(len(items))),
    passed=len(keep) >= 4,
    tolerance="at least four categories, or no rank correlation can be measured",
    kind="record",
)

# %%
t0 = time.time()
H_pred = q.hit_curves((q.lemma_embeddings(Q, lam, s0_sq, t) for t in t_grid), items)
A_pred = q.category_curves(H_pred, cat, keep)
t_pred = q.crossing_times(t_grid, A_pred)
# the spiked summary: the mean task vector of each category in the eigenbasis, and its half-learned time
mu = np.stack(
    [(Q[items[cat == c, 1]] - Q[items[cat == c, 0]]).mean(axis=0) for c in keep]
)  # (C, d)
power = mu**2
s2_grid = np.asarray(q.aligned_sigmoid(lam[None, :], s0_sq[None, :], t_grid[:, None]))  # (T, d)
t_spiked = q.crossing_times(t_grid, s2_grid @ power.T, final=power @ lam)
order = np.argsort(t_pred)
prose(
    "**Predicted** acquisition times $t_c/\\tau_1$ (earliest first): "
    + "; ".join(f"{short[names[keep[j]]]} {t_pred[j] / tau1:.2f}" for j in order)
    + ". Predicted final accuracies: "
    + ", ".join(f"{short[names[keep[j]]]} {A_pred[-1, j]:.0%}" for j in order)
    + f". ({time.time() - t0:.0f} s.)"
)

# %% [markdown]
# These numbers are fixed before any model is trained: the cells below only measure.
#
# ## 3 · QWEM, trained: P1 and P2

# %%
t0 = time.time()
Ys = q.eigen_flow_snapshots(lam_r, Q_r.T @ W0, lr=lr, steps=steps)
H_qwem = q.hit_curves((Q_r @ Y for Y in Ys), items)
A_qwem = q.category_curves(H_qwem, cat, keep)
t_qwem = q.crossing_times(t_grid, A_qwem)
print(
    f"QWEM: {steps[-1]:,} steps of noiseless gradient descent (r = {S['r']}), {time.time() - t0:.0f} s"
)
gap = np.nanmax(np.abs(A_qwem - A_pred), axis=0)
nc = len(keep)


# pair-bootstrap replicates of every category's acquisition time, for the predicted and measured curves
Wb = q.pair_bootstrap_weights(items, cat, S["n_boot"], rng=rng)


def boot_times(H, t):
    """(n_boot, C) replicates; a replicate whose resampled curve has no crossing (final accuracy 0 on the
    resampled pairs) is replaced, for that category only, by one of the category's finite replicates."""
    out = np.array([q.crossing_times(t, q.category_curves(H, cat, keep, weights=w)) for w in Wb])
    for j in range(out.shape[1]):
        bad = ~np.isfinite(out[:, j])
        if bad.all():
            out[:, j] = np.nan
        elif bad.any():
            out[bad, j] = rng.choice(out[~bad, j], int(bad.sum()))
    return out


def rank_test(x, y, Bx, By):
    """ρ with its paired pair-bootstrap interval and the permutation p-value of q.spearman_with_uncertainty."""
    out = q.paired_spearman(x, y, Bx, By)
    out["p"] = q.spearman_with_uncertainty(x, y, n_boot=20, n_perm=20_000, rng=rng)["p"]
    return out


B_pred, B_qwem = boot_times(H_pred, t_grid), boot_times(H_qwem, t_grid)
sp_qwem = rank_test(t_pred, t_qwem, B_pred, B_qwem)
prose(
    f"QWEM measured against predicted: Spearman $\\rho$ = {sp_qwem['rho']:.2f} (95% interval "
    f"{sp_qwem['lo']:.2f} … {sp_qwem['hi']:.2f}, bootstrap over the categories' word pairs, the same "
    f"resample for both, {sp_qwem['m']} replicates; permutation p = {sp_qwem['p']:.4f}, {len(keep)} categories). Largest gap "
    f"between the curves, per category: median {np.median(gap):.3f}, max {gap.max():.3f}. Final accuracy, "
    f"predicted / measured: {A_pred[-1] @ np.bincount(np.searchsorted(keep, cat)) / len(cat):.1%} / "
    f"{A_qwem[-1] @ np.bincount(np.searchsorted(keep, cat)) / len(cat):.1%}."
)
prediction(
    "P1",
    "beyond.analogy_timing.P1.qwem_rank",
    "P1: QWEM's measured acquisition times rank-correlate with the predicted ones across categories "
    "(ρ >= 0.8, bootstrap 95% lower bound > 0, permutation p < 0.01)",
    holds=bool(sp_qwem["rho"] >= 0.8 and sp_qwem["lo"] > 0 and sp_qwem["p"] < 0.01),
    value=sp_qwem,
)
prediction(
    "P2",
    "beyond.analogy_timing.P2.qwem_curves",
    "P2: the median over categories of max_t |acc_QWEM(t) − acc_predicted(t)| is at most 0.10",
    holds=bool(np.median(gap) <= 0.10),
    value=dict(median=float(np.median(gap)), max=float(gap.max()), per_category=gap),
)

# %%
ncols = 3
nrows = int(np.ceil(nc / ncols))
fig, axs = plotting.figure(
    nrows, ncols, width=6.8 / ncols**0.85, height=(1.9 * nrows + 0.6) / nrows**0.85, sharex=True
)
axs = np.atleast_1d(axs).ravel()
for j, c in enumerate(keep):
    ax = axs[j]
    ax.plot(t_grid / tau1, A_qwem[:, j], color="C0", lw=1.8, label="QWEM, trained")
    ax.plot(t_grid / tau1, A_pred[:, j], color="k", lw=1.0, ls="--", label="predicted from M*")
    ax.axvline(t_pred[j] / tau1, color="k", lw=0.6, ls=":")
    ax.axvline(t_qwem[j] / tau1, color="C0", lw=0.6, ls=":")
    ax.set_xscale("log")
    ax.set_title(short[names[c]])
    if j % ncols == 0:
        ax.set_ylabel("accuracy")
    if j >= nc - ncols:
        ax.set_xlabel(r"$t / \tau_1$")
for ax in axs[nc:]:
    ax.axis("off")
axs[0].legend(loc="upper left")
fig.suptitle(
    "Figure 51.1 — accuracy along QWEM's run:\npredicted from M* and measured, per category"
)
plt.show()

# %% [markdown]
# **Figure 51.1** — Accuracy of each kept category against training time in units of $\tau_1$ (log scale).
# Solid: QWEM trained by noiseless gradient descent from a small random start ($\sigma^2 = 10^{-24}$). Dashed:
# the prediction, the eigenvectors of $M^\star$ scaled by Lemma 3.1's sigmoids from the realised start. Dotted
# verticals: the acquisition times (half of the final accuracy), predicted (black) and measured (blue).

# %% [markdown]
# ## 4 · word2vec, trained: P3
#
# *A change made after a first look, stated as such.* The predictions were written for one epoch of gensim.
# The first book-preset run with one epoch ended far from trained (chapter 21's five epochs give 46%), with
# many categories crossing half of their small final value at the same snapshot, and P3 failed there; the
# numbers of that run are printed below. A model that far from its end point measures
# the start of the learning rate's decay more than the order of learning, so the book preset now trains three
# epochs (what fits the time budget); the thresholds of P3 and P6 are unchanged. A second look (a geometric
# grid of 19 snapshots) showed every category rising in the last half of the training, where that grid had
# three points; the snapshots are now geometric up to 20% of the training and every 5% after it. Both changes
# were made after seeing data; the cell below recomputes the one-epoch run (cached) and prints its numbers (the
# coarse-grid run is left out of the book preset's time budget; being trained in other segments, it was also
# another realisation of gensim's random draws, so the spread between seeds is left to the paper preset).

# %%
# the run of the first look (cached): one epoch
if S["w2v_first_look"]:
    looks = {}
    for name, (ep, fl_first, fl_n) in S["w2v_first_look"].items():
        fr1 = np.geomspace(fl_first, 1.0, fl_n)
        _, Wg1, _ = q.word2vec_snapshots(S["corpus"], V, d, fr1, epochs=ep, seed=int(config.SEED))
        A1 = q.category_curves(q.hit_curves(Wg1, items), cat, keep)
        del Wg1
        t1 = q.crossing_times(fr1, A1)
        ok1 = np.isfinite(t1)
        looks[name] = dict(
            accuracy=float(A1[-1] @ np.bincount(np.searchsorted(keep, cat)) / len(cat)),
            rho=float(spearmanr(t_pred[ok1], t1[ok1]).statistic),
            ties=int(ok1.sum() - len(np.unique(t1[ok1]))),
        )
        prose(
            f"Look '{name}' ({ep} epoch(s), {fl_n} geometric snapshots): final accuracy "
            f"{looks[name]['accuracy']:.1%}; Spearman $\\rho$(predicted, measured) = {looks[name]['rho']:.2f} over "
            f"{int(ok1.sum())} categories; {looks[name]['ties']} ties among the acquisition times."
        )
    rep.check(
        "beyond.analogy_timing.w2v_first_looks",
        "the gensim run of the first look (one epoch): final accuracy and ρ with the prediction (recorded)",
        value=looks,
        passed=True,
        tolerance="recorded",
        kind="record",
    )

# %%
t0 = time.time()
# snapshots: geometric while little happens, then dense where the curves rise
first, n_geo, n_lin = S["w2v_grid"]
fr = np.unique(np.concatenate([np.geomspace(first, 0.2, n_geo), np.linspace(0.25, 1.0, n_lin)]))
A_w2v, B_w2v, t_w2v_seeds, H_w2v_all = [], [], [], []
for seed in S["w2v_seeds"]:
    w_g, Wg, info = q.word2vec_snapshots(
        S["corpus"], V, d, fr, epochs=S["w2v_epochs"], seed=int(config.SEED) + seed
    )
    assert w_g == list(words)
    H = q.hit_curves(Wg, items)
    H_w2v_all.append(H)
    A_w2v.append(q.category_curves(H, cat, keep))
    t_w2v_seeds.append(q.crossing_times(fr, A_w2v[-1]))
H_w2v = np.mean(H_w2v_all, axis=0)  # the hit rate over seeds
A_w2v_mean = q.category_curves(H_w2v, cat, keep)
t_w2v = q.crossing_times(fr, A_w2v_mean)
B_w2v = boot_times(H_w2v, fr)
# a category that word2vec never answers has no acquisition time: it drops out of the correlation (said below)
ok_w = np.isfinite(t_w2v) & np.all(np.isfinite(B_w2v), axis=0) & np.all(np.isfinite(B_pred), axis=0)
sp_w2v = rank_test(t_pred[ok_w], t_w2v[ok_w], B_pred[:, ok_w], B_w2v[:, ok_w])
seed_rhos = [
    float(spearmanr(t_pred[np.isfinite(tt)], tt[np.isfinite(tt)]).statistic) for tt in t_w2v_seeds
]
prose(
    f"word2vec ({len(S['w2v_seeds'])} seed(s), {S['w2v_epochs']} epoch(s), {time.time() - t0:.0f} s; "
    f"{int(ok_w.sum())} of {nc} categories with an acquisition time): "
    f"Spearman $\\rho$(predicted, measured) = {sp_w2v['rho']:.2f} (95% interval {sp_w2v['lo']:.2f} … "
    f"{sp_w2v['hi']:.2f}; permutation p = {sp_w2v['p']:.4f}); per seed: "
    + ", ".join(f"{x:.2f}" for x in seed_rhos)
    + f". Final accuracy {A_w2v_mean[-1] @ np.bincount(np.searchsorted(keep, cat)) / len(cat):.1%}. Its own "
    f"order (earliest first): "
    + "; ".join(f"{short[names[keep[j]]]} {t_w2v[j]:.3f}" for j in np.argsort(t_w2v))
    + "."
)
prediction(
    "P3",
    "beyond.analogy_timing.P3.w2v_rank",
    "P3: gensim's skip-gram acquires the categories in the predicted order (ρ > 0, permutation p < 0.05)",
    holds=bool(sp_w2v["rho"] > 0 and sp_w2v["p"] < 0.05),
    value=dict(sp_w2v, per_seed=seed_rhos),
)

# %% [markdown]
# ## 5 · The spiked summary, the nulls and a competitor: P4, P5, P6

# %%
rho_spiked = float(spearmanr(t_pred, t_spiked).statistic)
prediction(
    "P4",
    "beyond.analogy_timing.P4.spiked_summary",
    "P4: the half-learned time of each category's mean task vector ranks the categories like the full "
    "accuracy prediction (Spearman ρ >= 0.7)",
    holds=bool(rho_spiked >= 0.7),
    value=dict(
        rho=rho_spiked,
        rho_qwem=float(spearmanr(t_spiked, t_qwem).statistic),
        rho_w2v=float(spearmanr(t_spiked[ok_w], t_w2v[ok_w]).statistic),
    ),
)
# concentration of each category's task power over eigen-directions (final embedding: λ_k μ_ck²)
pw = power * lam
n_eff = pw.sum(1) ** 2 / (pw**2).sum(1)
share = pw / pw.sum(1, keepdims=True)  # each direction's share of the category's final task power
top_k = share.argmax(1)
prose(
    f"Spiked summary against the full prediction: $\\rho$ = {rho_spiked:.2f}; against QWEM "
    f"{spearmanr(t_spiked, t_qwem).statistic:.2f}, against word2vec {spearmanr(t_spiked[ok_w], t_w2v[ok_w]).statistic:.2f}. "
    f"Effective number of eigen-directions carrying each mean task vector (participation ratio of "
    f"$\\lambda_k\\bar\\mu_{{ck}}^2$): median {np.median(n_eff):.0f} of {d} (range {n_eff.min():.0f} … {n_eff.max():.0f})."
)

# %%
# P5: shuffled clocks, scored on a random subset of each category's analogies (the same for every predictor)
t0 = time.time()
sub = np.concatenate(
    [
        rng.choice(
            np.nonzero(cat == c)[0], min(S["null_items"], int((cat == c).sum())), replace=False
        )
        for c in keep
    ]
)
sub.sort()


def times_on_subset(perm):
    Hs = q.hit_curves(
        (q.lemma_embeddings(Q, lam[perm], s0_sq[perm], t) for t in t_grid), items[sub]
    )
    return q.crossing_times(t_grid, q.category_curves(Hs, cat[sub], keep))


t_true_sub = times_on_subset(np.arange(d))
t_qwem_sub = q.crossing_times(t_grid, q.category_curves(H_qwem[:, sub], cat[sub], keep))
rho_true_sub = float(spearmanr(t_true_sub, t_qwem_sub).statistic)
rho_shuffled = []
for _ in range(S["n_shuffle"]):
    tt = times_on_subset(rng.permutation(d))
    ok = np.isfinite(tt)
    rho_shuffled.append(
        float(spearmanr(tt[ok], t_qwem_sub[ok]).statistic) if ok.sum() >= 4 else np.nan
    )
rho_shuffled = np.array(rho_shuffled)
# the same null for the spiked summary is free: many shuffles
rho_spiked_null = np.array(
    [
        spearmanr(
            q.crossing_times(t_grid, s2_grid[:, p] @ power.T, final=power @ lam[p]), t_qwem
        ).statistic
        for p in (rng.permutation(d) for _ in range(500))
    ]
)
prose(
    f"Shuffled-clock predictors ({S['n_shuffle']} draws, {S['null_items']} analogies per category, "
    f"{time.time() - t0:.0f} s): $\\rho$ with QWEM "
    + ", ".join(f"{x:.2f}" for x in rho_shuffled)
    + f", against {rho_true_sub:.2f} for the true clock on the same analogies. Spiked summary with shuffled "
    f"clocks (500 draws): mean $\\rho$ {np.nanmean(rho_spiked_null):.2f}, 95th percentile "
    f"{np.nanquantile(rho_spiked_null, 0.95):.2f}, against {spearmanr(t_spiked, t_qwem).statistic:.2f} unshuffled."
)
prediction(
    "P5",
    "beyond.analogy_timing.P5.shuffled_clock",
    "P5: every shuffled-clock predictor correlates less with QWEM's acquisition times than the true one",
    holds=bool(np.all(np.nan_to_num(rho_shuffled, nan=-1.0) < rho_true_sub)),
    value=dict(true=rho_true_sub, shuffled=rho_shuffled),
)

# %%
# P6: the naive competitor — mean log frequency rank of each category's words (rank 0 = most frequent)
log_rank = np.log1p(np.arange(V))
t_freq = np.array([log_rank[np.unique(items[cat == c])].mean() for c in keep])
rho_freq_w2v = float(spearmanr(t_freq[ok_w], t_w2v[ok_w]).statistic)
rho_freq_qwem = float(spearmanr(t_freq, t_qwem).statistic)
# the gap between the two correlations, on paired pair-bootstrap replicates of word2vec's (and the
# prediction's) acquisition times; the frequency predictor has no sampling noise of its own
ok_b = np.all(np.isfinite(B_w2v[:, ok_w]), axis=1) & np.all(np.isfinite(B_pred[:, ok_w]), axis=1)
gap6 = np.array(
    [
        spearmanr(bp, bw).statistic - spearmanr(t_freq[ok_w], bw).statistic
        for bp, bw in zip(B_pred[ok_b][:, ok_w], B_w2v[ok_b][:, ok_w])
    ]
)
gap6_lo, gap6_hi = np.nanquantile(gap6, [0.025, 0.975])
prose(
    f"Frequency competitor: $\\rho$ with word2vec {rho_freq_w2v:.2f} (the prediction: {sp_w2v['rho']:.2f}); "
    f"with QWEM {rho_freq_qwem:.2f} (the prediction: {sp_qwem['rho']:.2f}). Difference of the two $\\rho$ with "
    f"word2vec, prediction minus frequency: {sp_w2v['rho'] - rho_freq_w2v:+.2f} (pair bootstrap "
    f"{gap6_lo:+.2f} … {gap6_hi:+.2f})."
)
prediction(
    "P6",
    "beyond.analogy_timing.P6.beats_frequency",
    "P6: the M* prediction rank-correlates better with word2vec's acquisition times than the mean log "
    "frequency rank of the categories' words",
    holds=bool(sp_w2v["rho"] > rho_freq_w2v),
    value=dict(
        prediction=sp_w2v["rho"],
        frequency=rho_freq_w2v,
        frequency_qwem=rho_freq_qwem,
        gap_lo=float(gap6_lo),
        gap_hi=float(gap6_hi),
    ),
)

# %%
import warnings  # noqa: E402

warnings.filterwarnings(
    "ignore", "All-NaN slice", RuntimeWarning
)  # categories word2vec never answers
fig, axs = plotting.figure(1, 2, width=6.8 / 2**0.85, height=3.6)
for ax, (tm, Bm, lab) in zip(
    axs,
    (
        (t_qwem / tau1, B_qwem / tau1, "QWEM, t/τ₁"),
        (t_w2v, B_w2v, "word2vec, share of epoch"),
    ),
):
    xe = np.abs(np.nanquantile(B_pred / tau1, [0.16, 0.84], axis=0) - t_pred / tau1)
    ye = np.abs(np.nanquantile(Bm, [0.16, 0.84], axis=0) - tm)
    ax.errorbar(t_pred / tau1, tm, xerr=xe, yerr=ye, fmt="o", ms=4, lw=0.8)
    for j, c in enumerate(keep):
        ax.annotate(
            str(j + 1), (t_pred[j] / tau1, tm[j]), xytext=(2, 2), textcoords="offset points"
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    plotting.label(
        ax, lab.split(",")[0], r"predicted $t_c / \tau_1$", f"measured ({lab.split(', ')[1]})"
    )
fig.suptitle("Figure 51.2 — acquisition times, predicted against measured")
plt.show()
print("categories: " + "; ".join(f"{j + 1} {names[c]}" for j, c in enumerate(keep)))

# %% [markdown]
# **Figure 51.2** — Each kept category's acquisition time (numbered as printed below the figure), predicted
# from $M^\star$ (x) against measured (y), for QWEM (left) and for word2vec (right; its time is the share of its
# training seen, so only the order can be compared), with 68% pair-bootstrap bars.

# %%
fig, ax = plotting.figure(width=6.8, height=3.6)
ax.hist(rho_spiked_null, bins=30, color="0.7", label="spiked summary, shuffled clocks")
ax.axvline(float(spearmanr(t_spiked, t_qwem).statistic), color="C3", label="spiked summary")
ax.axvline(sp_qwem["rho"], color="C0", label="accuracy prediction")
for k, x in enumerate(rho_shuffled):
    ax.axvline(
        x, color="C0", ls=":", lw=1.0, label="accuracy prediction, shuffled" if k == 0 else None
    )
ax.legend(loc="upper left")
plotting.label(
    ax,
    "Figure 51.3 — the null: Lemma 3.1's clock shuffled",
    r"Spearman $\rho$ with QWEM's times",
    "count",
)
plt.show()

# %% [markdown]
# **Figure 51.3** — What the rank correlation with QWEM's acquisition times looks like when Lemma 3.1's times
# are assigned to the wrong eigen-directions: the spiked summary under 500 shuffles (grey histogram) and the
# full accuracy predictor under a few shuffles (dotted), against the unshuffled predictors (solid).

# %%
fig, ax = plotting.figure(width=6.8, height=4.0)
cols = plt.cm.viridis(np.linspace(0, 1, nc))
rank_pred = np.argsort(np.argsort(t_pred))
for j in range(nc):
    ax.plot(fr, A_w2v_mean[:, j] / max(A_w2v_mean[-1, j], 1e-9), color=cols[rank_pred[j]],
            label=short[names[keep[j]]])  # fmt: skip
ax.set_xscale("log")
ax.axhline(0.5, color="grey", lw=0.8)
ax.legend(ncol=2, fontsize=9)
plotting.label(
    ax,
    "Figure 51.4 — word2vec: accuracy / final, per category",
    "share of the training seen",
    "accuracy / final",
)
plt.show()

# %% [markdown]
# **Figure 51.4** — gensim's skip-gram: each category's accuracy divided by its final value, against the share of
# its training seen. Colour is the *predicted* rank of the category's acquisition time (dark: predicted early;
# yellow: predicted late). If the prediction carried over, the curves would cross ½ in colour order.

# %% [markdown]
# ## Discussion

# %%
looks_txt = (
    " (earlier looks: " + "; ".join(f"{k} {v['rho']:.2f}" for k, v in looks.items()) + ")"
    if S["w2v_first_look"]
    else ""
)
p1 = sp_qwem["rho"] >= 0.8 and sp_qwem["lo"] > 0 and sp_qwem["p"] < 0.01
p3 = sp_w2v["rho"] > 0 and sp_w2v["p"] < 0.05
prose(rf"""* **QWEM: {"derived" if p1 else "not derived"}.** Across {nc} categories the predicted and measured
  acquisition times have rank correlation {sp_qwem["rho"]:.2f} (pair bootstrap {sp_qwem["lo"]:.2f} … {sp_qwem["hi"]:.2f},
  permutation p = {sp_qwem["p"]:.1g}), and the predicted accuracy curves stay within a median
  {np.median(gap):.3f} of the measured ones (largest {gap.max():.3f}). For the model the theory describes, the time
  course of every analogy category follows from $M^\star$'s eigenvectors, its eigenvalues and the realised
  start, with nothing fitted. The test can fail: with Lemma 3.1's times assigned to the wrong eigen-directions
  the correlation falls to {np.nanmean(rho_shuffled):.2f} on average (largest {np.nanmax(rho_shuffled):.2f}).
  The word-frequency competitor gives {rho_freq_qwem:.2f}. The prediction also catches an overshoot: in
  {int(np.sum(A_pred.max(0) - A_pred[-1] > 0.02))} of the {nc} predicted curves accuracy peaks more than 2 points
  above its final value (measured: {int(np.sum(A_qwem.max(0) - A_qwem[-1] > 0.02))}) — the directions learned last add
  more noise than signal for those categories, as chapter 32's SNR against $d$ has it. That QWEM follows Lemma 3.1 is no surprise (chapters
  13 and 23); what is new is that the *ordering of whole tasks* survives everything the aligned solution leaves
  out — random orientation of the start, coupling, the directions beyond $d$.
* **The spiked summary {"fails" if rho_spiked < 0.7 else "holds"} (P4).** When a category's *mean* task vector is
  half learned does not say when the category is answered: $\rho$ = {rho_spiked:.2f} with the full prediction and
  {spearmanr(t_spiked, t_qwem).statistic:.2f} with QWEM's measured times. The category predicted last,
  {names[keep[order[-1]]]}, has its mean task vector's largest share in eigen-direction {top_k[order[-1]] + 1}; the one
  predicted first, {names[keep[order[0]]]}, in direction {top_k[order[0]] + 1} (exercise 2 lists all): where the
  signal sits does not set when the analogy is answered. Answering needs the query to beat every other word,
  so it waits for the directions that separate the right answer from its nearest rivals (for a capital: the
  other capitals and cities) — chapter 32's signal-to-noise picture, not the signal alone. The mean task vectors are also spread over many directions
  (participation ratio of $\lambda_k\bar\mu_{{ck}}^2$: median {np.median(n_eff):.0f} of {d}), so "a few
  eigen-directions" is not what carries a category at this size.
* **word2vec: {"the order carries over" if p3 else "the order does not carry over"} (P3).** $\rho$ =
  {sp_w2v["rho"]:.2f} (pair bootstrap {sp_w2v["lo"]:.2f} … {sp_w2v["hi"]:.2f}, permutation p = {sp_w2v["p"]:.2f}) between the
  acquisition times predicted from $M^\star$ and gensim's{looks_txt}, whose final accuracy after {S["w2v_epochs"]} epoch(s) is
  {A_w2v_mean[-1] @ np.bincount(np.searchsorted(keep, cat)) / len(cat):.1%}; word frequency gives {rho_freq_w2v:.2f}
  (P6 {"holds" if sp_w2v["rho"] > rho_freq_w2v else "fails"} as stated; the gap, {sp_w2v["rho"] - rho_freq_w2v:+.2f}, has a
  pair-bootstrap interval of {gap6_lo:+.2f} … {gap6_hi:+.2f}{": neither predictor orders word2vec's categories" if not p3 else ""}).
  Its acquisition times all fall between {np.nanmin(t_w2v):.2f} and {np.nanmax(t_w2v):.2f} of its training, where
  QWEM's span a factor {np.nanmax(t_qwem) / np.nanmin(t_qwem):.1f} in time (Figures 51.2 and 51.4): gensim acquires every
  category in the same stretch, as its learning rate runs down, and the order within that stretch is what
  the correlation measures.
  gensim is untied, starts with zero output vectors, subsamples frequent words and decays its rate to zero:
  its clock is not Lemma 3.1's{", and at this size the prediction does not transfer" if not p3 else ", yet the order transfers"}. This is a difference at
  {S["corpus"]}'s size and gensim's schedule, not a refutation: the paper preset (70M tokens, five epochs,
  three seeds) is where it could shrink, and the tied SGNS of the authors (chapter 23, noiseless at small $V$)
  is closer to the theory than gensim.
* **Answer to the question.** For QWEM, the *time* structure of analogy learning is derived from $M^\star$: the
  accuracy of each category along training is predicted before training, to within a few points. The spiked
  description in its one-number form (the mean task vector's direction) is not enough to derive it; the full
  eigen-decomposition is. Whether word2vec shares that clock is, at this preset, answered
  {"yes" if p3 else "no"}.
* This chapter ran in {(time.time() - T_START) / 60:.1f} minutes.""")

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
# 1. *(explore, ★★)* **The start sets the clock, not the order?** For $\sigma \to 0$, $\tau_k \approx \lambda_k^{-1}\ln(1/\sigma^2)$: all
#    times scale together, so the *order* of categories should not depend on $\sigma$. Recompute the spiked
#    summary's acquisition times at $\sigma^2 = 10^{-6}$ (with starts $s_{k,0}^2 = \sigma^2$) and compare their order with
#    those at $\sigma^2 = 10^{-24}$.
# 2. *(compute, ★★)* **Which directions carry a category?** For each kept category find the eigen-direction $k$ with the largest
#    share of $\lambda_k\bar\mu_{ck}^2$, and that share. Is the category with the most concentrated task power the
#    one predicted earliest?
# 3. *(derive, ★★)* **The half-time of a sum of sharp sigmoids.** Show that when the sigmoids are sharp (small $\sigma$), the
#    half-time of $\sum_k s_k^2(t)\,p_k$ is close to $\tau_{k^\ast}$, where $k^\ast$ is the weighted median of the modes
#    ordered by $\tau_k$ with weights $\lambda_kp_k$. Check it on the kept categories.
#
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# With $s_{k,0}^2 = \sigma^2$, $\tau_k = \lambda_k^{-1}\ln(\lambda_k/\sigma^2) = \lambda_k^{-1}\big(\ln(1/\sigma^2) + \ln\lambda_k\big)$. The first
# term scales every mode's time by the same factor; the second, $\lambda_k^{-1}\ln\lambda_k$, is a correction that
# shrinks relative to the first as $\sigma \to 0$. Between $10^{-24}$ and $10^{-6}$ the ratio $\ln(1/\sigma^2)$ changes by 4, and
# the correction by nothing: the order of the modes' times can change only where two modes' times are within
# that correction of each other. The cell compares the two orders of the categories.
#
# </details>

# %%
tg6 = np.geomspace(1e-3, 3.0, 800) * q.characteristic_time(lam[-1], 1e-6)
tg24 = np.geomspace(1e-3, 3.0, 800) * q.characteristic_time(lam[-1], 1e-24)
t_sp6 = q.crossing_times(
    tg6,
    np.asarray(q.aligned_sigmoid(lam[None, :], 1e-6, tg6[:, None])) @ power.T,
    final=power @ lam,
)
t_sp24 = q.crossing_times(
    tg24,
    np.asarray(q.aligned_sigmoid(lam[None, :], 1e-24, tg24[:, None])) @ power.T,
    final=power @ lam,
)
rho_sigma = float(spearmanr(t_sp6, t_sp24).statistic)
prose(
    f"Spiked-summary order at $\\sigma^2 = 10^{{-6}}$ against $10^{{-24}}$ (both from typical starts): Spearman "
    f"$\\rho$ = {rho_sigma:.2f}; time ratio $t(10^{{-24}})/t(10^{{-6}})$ from {np.min(t_sp24 / t_sp6):.2f} to "
    f"{np.max(t_sp24 / t_sp6):.2f} (the ratio of $\\ln(1/\\sigma^2)$ is 4)."
)
rep.check(
    "beyond.analogy_timing.solution.1.order_vs_start",
    "exercise 1: rank correlation of the spiked summary's category times at σ² = 1e-6 and 1e-24 (recorded)",
    value=dict(
        rho=rho_sigma,
        ratio_min=float(np.min(t_sp24 / t_sp6)),
        ratio_max=float(np.max(t_sp24 / t_sp6)),
    ),
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# The share of direction $k$ in category $c$'s final task power is $\lambda_k\bar\mu_{ck}^2 / \sum_j \lambda_j\bar\mu_{cj}^2$. The cell
# prints the top direction and its share for each category, and the rank correlation between concentration
# (the top share) and the predicted acquisition time. A large top share in an early direction makes a category
# early; a large share in a late one makes it late, so concentration alone need not predict the order — the
# position of the power in the spectrum does.
#
# </details>

# %%
prose(
    "Top direction (share of task power): "
    + "; ".join(
        f"{short[names[c]]} k = {top_k[j] + 1} ({share[j, top_k[j]]:.0%})"
        for j, c in enumerate(keep)
    )
    + f". Spearman $\\rho$(top share, predicted time) = {spearmanr(share.max(1), t_pred).statistic:.2f}."
)
rep.check(
    "beyond.analogy_timing.solution.2.top_direction",
    "exercise 2: each category's top eigen-direction of task power and its share (recorded)",
    value=dict(top_k=top_k + 1, share=share.max(1)),
    passed=True,
    tolerance="recorded",
    kind="record",
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# For small $\sigma$ each $s_k^2(t)$ is close to a step from 0 to $\lambda_k$ at $\tau_k$ (its width, about $4/\lambda_k$, is small
# against $\tau_k \approx \lambda_k^{-1}\ln(\lambda_k/\sigma^2)$). Then $\sum_k s_k^2(t)p_k \approx \sum_{k:\,\tau_k < t}\lambda_kp_k$, a staircase
# that first reaches half of $\sum_k\lambda_kp_k$ at the $\tau$ of the mode where the cumulative weight, modes taken in
# order of $\tau$, passes one half: the weighted median. The cell compares it with the spiked summary's half-times.
#
# </details>

# %%
tau_k = np.log(lam / s0_sq) / lam
ordk = np.argsort(tau_k)
cum = np.cumsum(pw[:, ordk], axis=1) / pw.sum(1, keepdims=True)
t_median = tau_k[ordk][np.argmax(cum >= 0.5, axis=1)]
rel = np.abs(t_median / t_spiked - 1)
prose(
    f"Weighted-median mode time against the spiked summary's half-time: largest relative difference "
    f"{rel.max():.1%} (median {np.median(rel):.1%}); Spearman $\\rho$ = {spearmanr(t_median, t_spiked).statistic:.2f}."
)
rep.below(
    "beyond.analogy_timing.solution.3.weighted_median",
    "exercise 3: the weighted-median mode time approximates the spiked summary's half-time (largest relative "
    "difference; the sigmoids' widths, ~4/λ_k, against τ_k set the tolerance of 15%)",
    value=float(rel.max()),
    bound=0.15,
    kind="consistency",
)
