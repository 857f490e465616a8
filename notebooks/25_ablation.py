# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 25 · Which ingredient makes learning stepwise? (the paper's Figure 7)
#
# **Statement (Karkada et al. 2025, Figure 7, claim C6).** Two changes turn word2vec into QWEM: the
# quartic loss in place of the logistic one, and the reweighting of Setting 3.1
# ($\Psi^+ = \Psi^- = 1/(P_{ab} + P_aP_b)$, negatives from $P_aP_b$) in place of word2vec's (subsampling
# weights, negatives from $P^{0.75}$). The paper's ablation trains all four combinations and reports,
# without numbers: (i) the quartic approximation alone hardly changes word2vec's singular-value dynamics;
# (ii) Setting 3.1 alone produces the clean separation into steps; (iii) the quartic loss stops the late
# growth of the weights that logistic losses show. The authors ran it on another corpus (a 41-million-token
# corpus; COCA/NOW in their code, $V = 20{,}000$, $d = 150$) and shifted the time axes of two runs by hand.
#
# This chapter runs the same four combinations on this book's corpus, from one $W(0)$, for one number of
# steps, on one time axis with no shift, and measures each of the three statements.
#
# **Intuition.** Near $W = 0$ the logistic loss is the quartic loss at half strength:
# $-\log\sigma(\pm x) = \log 2 \mp \frac x2 + \frac{x^2}8 - \frac{x^4}{192} + \dots$, against QWEM's
# $\mp x + \frac{x^2}4$. So early on the *loss* only sets the speed. The *reweighting* sets everything
# else: which matrix the embeddings grow along, and — through the weight each pair carries in the
# quadratic term — whether the modes grow independently. Under Setting 3.1 every pair carries the same
# quadratic weight ($G = 1$, Theorem 1), the loss is $\frac14\|WW^\top - M^\star\|^2$, and each eigenmode
# follows its own sigmoid (Lemma 3.1). Under word2vec's reweighting the weights follow the Zipfian word
# frequencies over orders of magnitude; the problem is a *weighted* factorisation (Proposition 2), and
# the modes are coupled. Late in training, the quartic loss has a wall: the $x^2/4$ term stops $x_{ab}$
# at its target. The logistic loss has none: its curvature decays like $e^{-|x|}$, so the pairs it has not
# fitted keep pulling the weights outwards, ever more slowly.

# %%
import matplotlib.pyplot as plt
import numpy as np

import qwem_lib as q
from qwem_lib import config, plotting
from qwem_lib.book.report import Report, prose

plotting.use_style()
rep = Report("25_ablation")
P = config.sizes(
    smoke=dict(
        corpus="enwiki2015_1m7",
        V=300,
        d=3,
        sigma_sq=1e-6,
        lr_factor=0.1,
        steps=1000,
        batch=20_000,
        n_logs=250,
    ),
    book=dict(
        corpus="enwiki2015_17m",
        V=500,
        d=6,
        sigma_sq=1e-6,
        lr_factor=0.1,
        steps=1500,
        batch=50_000,
        n_logs=375,
    ),
    # the SGD runs stay at the book's size: the authors' 5M steps at V = 20,000 fit no machine of this
    # book's; Figure 7 at the paper's size is Section 9's gradient flows
    paper=dict(
        corpus="enwiki2015_17m",
        V=500,
        d=6,
        sigma_sq=1e-6,
        lr_factor=0.1,
        steps=1500,
        batch=50_000,
        n_logs=375,
    ),
)
print(P)
corpus = q.load_corpus(P["corpus"])
V, d, s2 = P["V"], P["d"], P["sigma_sq"]
LOSS_NAMES = {"quartic": "quartic loss", "logistic": "logistic loss"}
RW_NAMES = {"setting31": "Setting 3.1 reweighting", "word2vec": "word2vec's reweighting"}
RUNS = [(lo, rw) for lo in q.LOSSES for rw in q.REWEIGHTINGS]

# %% [markdown]
# ## 1 · Four runs from one trainer
#
# The trainer of chapter 23 (`q.train_pairs`) now takes the loss and the reweighting as two independent
# options. A run draws positive pairs from the corpus windows and negatives as its reweighting says, and
# weights them; in expectation its minibatch loss is
#
# $$\mathcal L(W) = \sum_{ab} A_{ab}\,\ell^+(x_{ab}) + N_{ab}\,\ell^-(x_{ab}), \qquad x_{ab} = w_a\cdot w_b, \tag{25.1}$$
#
# with per-pair losses $\ell^\pm(x) = \mp x + \frac{x^2}4$ (quartic) or $\ell^\pm(x) = \log(1 + e^{\mp x})$
# (logistic), and pair weights (`q.pair_weights`)
#
# * Setting 3.1: $A = \Psi\circ P$, $N = \Psi\circ (P_aP_b)$, $\Psi_{ab} = 1/(P_{ab} + P_aP_b)$, so $A + N = 1$;
# * word2vec's: $A = P\circ(\rho\rho^\top)$ with the subsampling keep rates $\rho_a = \min(1, t/P_a + \sqrt{t/P_a})$,
#   $t = 10^{-5}$, and $N = k\,m\,Q^\top$ with $m = A\mathbf 1$, $Q \propto P^{0.75}$, $k = 1$.
#
# The unit tests (`tests/test_training.py`) check, on a tiny corpus, that the mean minibatch gradient of
# each combination is the gradient of this $\mathcal L$, (25.1), computed densely, and that the dense gradient is
# torch's autograd of $\mathcal L$.
#
# **The growth matrix.** Write $D = A - N$ and $\beta = |\ell^{\pm\prime}(0)|$: 1 for the quartic loss, ½ for
# the logistic one. At small $W$, $\nabla\mathcal L \approx -KW$ with
#
# $$K = \beta\,(D + D^\top). \tag{25.2}$$
#
# Under the flow of Lemma 3.1, $\dot W = -\frac12\nabla\mathcal L$ (time $t = 2\sum\eta$, chapter 23), each
# eigendirection of $K$ in (25.2) grows as $s^2 \propto e^{\kappa t}$, $\kappa$ its eigenvalue. For the quartic loss
# with Setting 3.1, $D = M^\star/2$ and $K = M^\star$: Lemma 3.1's rates. For the logistic loss with Setting
# 3.1, $K = M^\star/2$: the same directions at half the speed. word2vec's reweighting gives another matrix
# (for the logistic loss, chapter 23's $B$).
#
# **One time axis.** The four runs share $W(0) = \frac{\sigma}{\sqrt d}Z$ (one seed), the corpus stream, and
# the number of steps. Their gradients differ in scale by orders of magnitude (word2vec's weights are
# products of probabilities; Setting 3.1's are of order one), so one learning rate cannot serve all four.
# Each run therefore takes $\eta = c/\kappa_1$, with $\kappa_1$ the top eigenvalue of its *own* $K$, and we
# plot every run against
#
# $$u = \kappa_1 t = 2c \times \text{step}. \tag{25.3}$$
#
# $u$ counts the e-folds by which the fastest mode has grown in the linear phase. It is fixed before
# training, from the corpus statistics alone; it is the same rule for the four runs; and because
# $\eta\kappa_1 = c$ for all of them, a given step is the same $u$ in every run. Nothing is shifted. For the
# two Setting 3.1 runs it is also Lemma 3.1's natural clock: the logistic loss is the quartic one at half
# strength near the origin, so on the $u$ axis both should make their steps at the same $u_k$.

# %%
words, Pj, pu = q.cooccurrence(corpus, V)
Mstar = q.mstar_from_stats(Pj, pu)
lam, Qm = q.eig_desc(Mstar) if V <= 4000 else q.top_eigenpairs(Mstar, d + 1)
lam, Qm = lam[: d + 1], Qm[:, : d + 1]
K = {(lo, rw): q.growth_matrix(Pj, pu, loss=lo, reweighting=rw) for lo, rw in RUNS}
kap = {
    key: (q.eig_desc(M)[0] if V <= 4000 else q.top_eigenpairs(M, d + 1)[0])[: d + 1]
    for key, M in K.items()
}
for key in RUNS:
    print(
        f"{key[0]:>8} × {key[1]:<9}: κ₁ = {kap[key][0]:.4g}, κ_k/κ₁ = {np.round(kap[key][: d + 1] / kap[key][0], 3)}"
    )
rep.close(
    "qwem.ablation.growth_is_mstar",
    "quartic loss × Setting 3.1: the growth matrix K equals M* (max |K − M*|)",
    value=float(np.max(np.abs(K[("quartic", "setting31")] - Mstar))),
    target=0.0,
    tol=1e-9,
    kind="consistency",
)
rep.close(
    "qwem.ablation.logistic_growth_is_half",
    "logistic loss × Setting 3.1: K = M*/2 (max |K − M*/2|)",
    value=float(np.max(np.abs(K[("logistic", "setting31")] - Mstar / 2))),
    target=0.0,
    tol=1e-9,
    kind="consistency",
)
del K

# %% [markdown]
# ## 2 · Training
#
# Each run: $\eta = c/\kappa_1$ with $c$ = `lr_factor`, constant (no decay, so that late growth is not
# confused with a change of rate), batch of `batch` positives and their negatives, from
# $\sigma^2$ = `sigma_sq` per direction (the authors' initial scale $10^{-3}$ for the entries' standard
# deviation gives $\sigma^2 = 10^{-6}$). The sizes are printed above. The book preset uses the authors'
# batch, 50,000 positives and their negatives per step: a first version with 20,000 saw the logistic ×
# Setting 3.1 run's $\|W\|$ run away (the mechanism is in Section 5). The runs are cached; a later reading
# costs nothing.

# %%
runs = q.run_ablation(
    corpus,
    V,
    d,
    sigma_sq=s2,
    lr_factor=P["lr_factor"],
    steps=P["steps"],
    batch=P["batch"],
    n_logs=P["n_logs"],
    stats=(Pj, pu),
    reference=Qm[:, :d],
)
for key, r in runs.items():
    res = r.result
    print(
        f"{r.name:>18}: η = {r.lr:.4g}, {res.steps[-1]:,} steps, "
        f"{'from the cache' if res.cached else f'{res.seconds:.0f} s'}"
    )
u = runs[RUNS[0]].u
rep.close(
    "qwem.ablation.same_axis",
    "the four runs are logged at the same u = κ₁t (max over runs and logs of |u − u_ref|)",
    value=float(max(np.max(np.abs(r.u - u)) for r in runs.values())),
    target=0.0,
    tol=1e-6 * u[-1],
    kind="consistency",
)
rep.close(
    "qwem.ablation.same_init",
    "the four runs start from the same W(0) (max |W0 − W0_ref|)",
    value=float(max(np.max(np.abs(r.result.W0 - runs[RUNS[0]].result.W0)) for r in runs.values())),
    target=0.0,
    tol=0.0,
    kind="consistency",
)

# %% [markdown]
# ## 3 · The four trajectories
#
# Each panel shows the squared singular values $s_k^2$ of one run against $u$. The dashed curves are the
# *independent-mode* prediction: Lemma 3.1's sigmoid for each mode, with the run's own linear rate
# $\kappa_k$, the common start $\sigma^2$, and as its end value $c_k$ the mode's mean $s_k^2$ over the last
# 5% of the run,
#
# $$s_k^2(u) = \frac{\sigma^2 c_k\, e^{\kappa_k u/\kappa_1}}{c_k + \sigma^2\,(e^{\kappa_k u/\kappa_1} - 1)} . \tag{25.4}$$
#
# For quartic × Setting 3.1, (25.4) is exactly the sigmoid (12.1) of Lemma 3.1 ($\kappa_k = \lambda_k$, $c_k \approx \lambda_k$). For the
# other runs it is what the modes would do if they grew independently at their linear rates and stopped
# where they stopped: a yardstick, not a theorem.

# %%
n_end = max(3, len(u) // 20)
END = {key: (r.result.sv[-n_end:] ** 2).mean(0) for key, r in runs.items()}


def independent_modes(u_grid, kappa, end):
    """Lemma 3.1's sigmoid per mode with rate κ_k (in units of κ₁), start σ² and end value c_k."""
    g = np.exp(np.outer(u_grid, kappa[:d] / kappa[0]))
    return s2 * end * g / (end + s2 * (g - 1.0))


fig, axes = plotting.figure(2, 2, width=3.9, height=3.1, sharex=True)
for ax, key in zip(axes.ravel(), RUNS):
    r = runs[key]
    q.plot_steps(
        ax,
        r.u,
        r.result.sv**2,
        independent_modes(r.u, r.kappa, END[key]),
        run_label="SGD, $s_k^2$",
        theory_label="independent modes",
    )
    plotting.label(
        ax,
        f"{LOSS_NAMES[key[0]]} × {RW_NAMES[key[1]]}",
        r"$u = \kappa_1 t$ (common axis)",
        "squared singular value $s_k^2$",
    )
    ax.legend(loc="lower right", fontsize=8)
plotting.suptitle(
    fig,
    f"Figure 25.1 — the ablation on {P['corpus']} (V = {V:,}, d = {d}, $\\sigma^2$ = {s2:g}): "
    "singular values of W",
)
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure 25.1** — Squared singular values of $W$ (solid, one colour per mode) for the four runs, on the
# common axis $u = \kappa_1 t$, with the independent-mode sigmoids (dashed). Rows: quartic loss (top),
# logistic loss (bottom); columns: Setting 3.1's reweighting (left), word2vec's (right). Same $W(0)$, same
# corpus, same number of steps; no axis is shifted.

# %% [markdown]
# ## 4 · How sharp is each step?
#
# **The statistic.** For mode $k$ of a run, let $t_k^{f}$ be the first time $s_k^2$ reaches the fraction $f$
# of its end value $c_k$. The *sharpness* of the step is its time over its width,
#
# $$S_k = \frac{t_k^{50}}{t_k^{90} - t_k^{10}} \qquad (\texttt{q.step\_sharpness}). \tag{25.5}$$
#
# A step that waits on a long plateau and then rises quickly has a large $S_k$; a gradual rise has $S_k$ of
# order one or less (a straight ramp from 0 has $S = 0.625$). $S_k$ is a ratio of two times, so it does not
# depend on the time axis: the choice of $u$ cannot bias it. For Lemma 3.1's sigmoid,
# $t^f = [\ln\frac{f}{1-f} + \ln\frac{c - \sigma^2}{\sigma^2}]/\kappa$, so
#
# $$S_k^{\rm Lemma} = \frac{\ln\big((c_k - \sigma^2)/\sigma^2\big)}{\ln 81}, \tag{25.6}$$
#
# whatever the rate: only the ratio of end value to start matters (`q.sigmoid_sharpness`). We compute $S_k$
# for every mode of every run, and also $S_k/S_k^{\rm Lemma}$ (the ratio of (25.5) to (25.6)), which removes the (logarithmic) effect of
# different end values $c_k$ between runs.

# %% [markdown]
# **A run that never stops has no end value.** If a run's $\|W\|_F$ is still growing by more than a
# factor 2 over the second half of training, its "end value" is arbitrary and so is its sharpness. The
# cell flags such runs; a flagged run's sharpness is printed but not used as evidence.


# %%
def tail_factor(r):
    """‖W‖_F at the end over ‖W‖_F at u_T/2 (means over 5% of the logs)."""
    fro = np.sqrt((r.result.sv**2).sum(1))
    i_half = np.searchsorted(r.u, r.u[-1] / 2)
    return float(fro[-n_end:].mean() / fro[i_half : i_half + n_end].mean())


DIVERGED = {key: tail_factor(runs[key]) > 2.0 for key in RUNS}
for key in RUNS:
    print(
        f"{runs[key].name:>18}: ‖W‖_F(u_T)/‖W‖_F(u_T/2) = {tail_factor(runs[key]):.4g}"
        + ("  — DIVERGES" if DIVERGED[key] else "")
    )
SH = {key: q.step_sharpness(r.u, r.result.sv**2, END[key]) for key, r in runs.items()}
SL = {key: q.sigmoid_sharpness(END[key], s2) for key in runs}
for key in RUNS:
    S = SH[key]["sharpness"]
    print(
        f"{runs[key].name:>18}: S_k = {np.round(S, 2)}  (median {np.nanmedian(S):.2f}, range "
        f"{np.nanmin(S):.2f}–{np.nanmax(S):.2f});  S_k/S_Lemma = {np.round(S / SL[key], 2)}"
    )

# %%
fig, ax = plotting.figure(width=7.5, height=4.4)
marks = {
    ("quartic", "setting31"): ("o", "C0"),
    ("logistic", "setting31"): ("s", "C1"),
    ("quartic", "word2vec"): ("^", "C2"),
    ("logistic", "word2vec"): ("v", "C3"),
}
for j, key in enumerate(RUNS):
    m, col = marks[key]
    ax.plot(
        np.arange(1, d + 1) + 0.08 * (j - 1.5),
        SH[key]["sharpness"],
        m,
        color=col,
        ms=6,
        label=f"{LOSS_NAMES[key[0]]} × {RW_NAMES[key[1]]}",
    )
    ax.plot(np.arange(1, d + 1) + 0.08 * (j - 1.5), SL[key], "_", color=col, ms=12, mew=1.5)
plotting.label(
    ax,
    r"Figure 25.2 — step sharpness $S_k = t^{50}/(t^{90} - t^{10})$ of every mode of every run",
    "mode k",
    "sharpness S_k",
)
ax.set_xticks(np.arange(1, d + 1))
ax.legend(fontsize=8)
plt.show()

# %% [markdown]
# **Figure 25.2** — The sharpness of each mode's step in each run (markers), with Lemma 3.1's value for the
# same start and end values (short bars of the same colour). Setting 3.1's runs (circles, squares) against
# word2vec's reweighting (triangles).

# %% [markdown]
# **Claim (i) and (ii): the reweighting, not the loss, makes the steps sharp.** For each loss, we compare
# the median sharpness over the $d$ modes of the two reweightings, and record the spread over modes.
# These are records: sharpness measures the shape of one rise, not whether successive steps are
# separated, and the SGD logistic × Setting 3.1 run, the least separated of the four, ends away from
# $M^\star$'s subspace. The evidence for claim (ii) is the noiseless comparison of Section 9. The
# comparison holds the loss fixed, so the late growth of the logistic loss (Section 6), which moves the
# logistic runs' end values $c_k$, affects both sides alike.

# %%
for lo in q.LOSSES:
    a, b = SH[(lo, "setting31")]["sharpness"], SH[(lo, "word2vec")]["sharpness"]
    ok = not (DIVERGED[(lo, "setting31")] or DIVERGED[(lo, "word2vec")])
    rep.ordered(
        f"qwem.ablation.setting31_sharper_{lo}",
        f"{lo} loss: the steps are sharper with Setting 3.1's reweighting than with word2vec's (median "
        f"over modes of S_k = t50/(t90 − t10)); paper, Figure 7: 'Setting 3.1 alone produces the "
        f"clean separation into steps'",
        names=[f"median S, Setting 3.1 ({lo})", f"median S, word2vec's ({lo})"],
        values=[float(np.nanmedian(a)), float(np.nanmedian(b))],
        kind="record",
    ) if ok else rep.check(
        f"qwem.ablation.setting31_sharper_{lo}",
        f"{lo} loss: median sharpness, Setting 3.1 then word2vec's reweighting (recorded only: a run "
        f"diverges, so its end value and its sharpness are not defined)",
        value=[float(np.nanmedian(a)), float(np.nanmedian(b))],
        passed=True,
        kind="record",
    )
    rep.check(
        f"qwem.ablation.sharpness_spread_{lo}",
        f"{lo} loss: spread of S_k over modes, [min, max], Setting 3.1 then word2vec's (recorded)",
        value=[float(np.nanmin(a)), float(np.nanmax(a)), float(np.nanmin(b)), float(np.nanmax(b))],
        passed=bool(np.all(np.isfinite(a)) and np.all(np.isfinite(b))),
        kind="record",
    )
rel = {key: float(np.nanmedian(SH[key]["sharpness"] / SL[key])) for key in RUNS}
prose(
    "Median over modes of $S_k/S_k^{\\rm Lemma}$ (1 = as sharp as independent sigmoids with the same start "
    "and end): "
    + "; ".join(f"{LOSS_NAMES[lo]} × {RW_NAMES[rw]}: {rel[(lo, rw)]:.2f}" for lo, rw in RUNS)
    + "."
)

# %% [markdown]
# ## 5 · When do the steps happen?
#
# The step time of mode $k$ is $u_k = \kappa_1 t_k^{50}$, the time it reaches half its end value. Two
# predictions:
#
# * **Lemma 3.1 from $M^\star$** (Setting 3.1 runs): $u_k^{\rm L} = \frac{\lambda_1}{\lambda_k}\ln\frac{\lambda_k - \sigma^2}{\sigma^2}$,
#   every mode started at the typical $\sigma^2$ (chapter 23). On the $u$ axis it is the same for the quartic
#   and the logistic loss, because near the origin the logistic loss is the quartic one at half strength
#   and $u$ absorbs the factor 2.
# * **Independent modes** (every run): $u_k^{\rm ind} = \frac{\kappa_1}{\kappa_k}\ln\frac{c_k - \sigma^2}{\sigma^2}$,
#   with the run's own rates and end values (the dashed curves of Figure 25.1).
#
# The paper states no numbers for Figure 7's step times, and its figure aligns two of the four runs by
# hand. Here nothing is shifted, and every step time is recorded: the Setting 3.1 runs against Lemma 3.1
# and against each other, the word2vec-reweighted runs against the independent-mode times.
#
# **A caveat on the logistic loss under Setting 3.1.** Its learning rate is $c/\kappa_1 = 2c/\lambda_1$,
# twice QWEM's, while its drift per unit of $u$ is the same. The minibatch noise it injects into every
# direction per unit of $u$ is therefore about twice as large. At the book's batch and the authors'
# $\sigma^2 = 10^{-6}$, that noise, not $W(0)$, can set when its modes leave the origin: they then step
# earlier than Lemma 3.1 and closer together. The printed ratios show whether this happens at the
# active preset; it is a property of the book's small batches, not of the loss.
#
# Worse can happen. The trainer computes the corpus-free part $\sum_{ab}\log(1 + e^{x_{ab}})$ of this
# run's loss exactly (Setting 3.1 makes $A + N = 1$, so the loss is $\sum_{ab}\log(1+e^{x_{ab}}) -
# \sum_{ab}A_{ab}x_{ab}$; `q.logistic_split_loss_grad`) and samples only the linear part, whose weights
# $\Psi_{ab}/\alpha$ reach millions for rare pairs. The sampled push on $w_a$ is linear in $W$, while the
# logistic restoring force saturates ($|\ell'| \le 1$). Unlike the quartic loss, whose restoring force is
# cubic, nothing then bounds the multiplicative noise, and if the batch is too small $\|W\|$ runs away.
# Section 4 flags a diverging run; its numbers are printed but are not evidence.

# %%
U = {key: SH[key]["t_mid"] for key in RUNS}
uL = lam[0] * q.half_time(lam[:d], s2)
UIND = {
    key: (runs[key].kappa[0] / runs[key].kappa[:d]) * np.log((END[key] - s2) / s2) for key in RUNS
}
for key in RUNS:
    print(
        f"{runs[key].name:>18}: u_k = {np.round(U[key], 1)};  u_k/u_k^ind = {np.round(U[key] / UIND[key], 2)}"
        + (f";  u_k/u_k^L = {np.round(U[key] / uL, 2)}" if key[1] == "setting31" else "")
    )
print(f"{'Lemma 3.1':>18}: u_k^L = {np.round(uL, 1)}")
dev31 = np.abs(np.log(U[("logistic", "setting31")] / U[("quartic", "setting31")]))
rep.check(
    "qwem.ablation.setting31_same_step_times",
    "Setting 3.1: the logistic against the quartic loss, max_k |ln(u_k^logistic/u_k^quartic)| on the common "
    "axis, no shift (recorded; the small-x expansion predicts 0 when the start, not the minibatch noise, "
    "sets the step times)",
    value=float(np.max(dev31)),
    passed=bool(np.isfinite(np.max(dev31))),
    kind="record",
)
for key in RUNS:
    ratio_ind = U[key] / UIND[key]
    val = dict(ind=[float(x) for x in ratio_ind])
    if key[1] == "setting31":
        val["lemma"] = [float(x) for x in U[key] / uL]
    rep.check(
        f"qwem.ablation.step_times_{runs[key].name}",
        f"{runs[key].name}: step times u_k over the independent-mode times u_k^ind"
        + (" and over Lemma 3.1's u_k^L from M* and σ²" if key[1] == "setting31" else "")
        + " (recorded; paper: no numbers, two of its four time axes shifted by hand)",
        value=val,
        passed=bool(np.all(np.isfinite(ratio_ind))),
        kind="record",
    )

# %% [markdown]
# ## 6 · Late growth of the weights
#
# After its last step, does $W$ stop? We follow $\|W\|_F = (\sum_k s_k^2)^{1/2}$ and the top singular
# values over the second half of the run, $u \in [u_T/2, u_T]$. The run length was chosen so that every
# step of every run is over by then (checked below). To average the minibatch noise we cut that tail into
# five blocks of equal length, take the mean of $\|W\|_F$ in each, and fit
# $\ln\overline{\|W\|_F} = a + \gamma\ln u$: $\gamma$ is the late growth exponent (0: a plateau; the logistic
# loss's logarithmic creep gives a small positive $\gamma$). Its standard error comes from the scatter of
# the five block means about the line.


# %%
def late_growth(r, n_blocks=5):
    """γ and its standard error: slope of ln(block mean of ‖W‖_F) against ln u over u ∈ [u_T/2, u_T]."""
    fro = np.sqrt((r.result.sv**2).sum(1))
    uu = r.u
    edges = np.linspace(uu[-1] / 2, uu[-1], n_blocks + 1)
    idx = [np.nonzero((uu >= lo_) & (uu <= hi_))[0] for lo_, hi_ in zip(edges[:-1], edges[1:])]
    x = np.log([uu[i].mean() for i in idx])
    y = np.log([fro[i].mean() for i in idx])
    A = np.vstack([np.ones_like(x), x]).T
    coef, res_, *_ = np.linalg.lstsq(A, y, rcond=None)
    resid = y - A @ coef
    se = np.sqrt(resid @ resid / (len(x) - 2) / np.sum((x - x.mean()) ** 2))
    return float(coef[1]), float(se), float(np.exp(y[-1] - y[0]))


LATE = {key: late_growth(runs[key]) for key in RUNS}
last_step = {key: float(np.nanmax(SH[key]["t_hi"])) for key in RUNS}
for key in RUNS:
    g_, se_, ratio_ = LATE[key]
    print(
        f"{runs[key].name:>18}: last step (90%) at u = {last_step[key]:.0f} of {u[-1]:.0f};  "
        f"γ = {g_:+.4f} ± {se_:.4f};  ‖W‖ last block / first block = {ratio_:.4f}"
    )
rep.check(
    "qwem.ablation.tail_after_steps",
    "where the last step of each run ends (90% of its end value), as a fraction of u_T; the tail "
    "u ∈ [u_T/2, u_T] is free of steps only where it is below 0.5 (recorded)",
    value={runs[key].name: last_step[key] / u[-1] for key in RUNS},
    passed=bool(np.all(np.isfinite(list(last_step.values())))),
    kind="record",
)

# %%
fig, (ax1, ax2) = plotting.figure(2, 1, width=6.8, height=3.2)
for key in RUNS:
    m, col = marks[key]
    r = runs[key]
    fro = np.sqrt((r.result.sv**2).sum(1))
    ls = "-" if key[0] == "quartic" else "--"
    ax1.plot(r.u, fro, ls, color=col, lw=1.4, label=f"{LOSS_NAMES[key[0]]} × {RW_NAMES[key[1]]}")
    ax2.plot(r.u, r.result.sv[:, 0], ls, color=col, lw=1.4)
    ax2.plot(r.u, r.result.sv[:, d - 1], ls, color=col, lw=0.8, alpha=0.6)
ax1.axvspan(u[-1] / 2, u[-1], color="0.9", zorder=0)
ax2.axvspan(u[-1] / 2, u[-1], color="0.9", zorder=0)
plotting.label(ax1, r"Figure 25.3a — $\|W\|_F$", r"$u = \kappa_1 t$", r"$\|W\|_F$")
plotting.label(
    ax2,
    f"Figure 25.3b — top and $d$-th singular values ($s_1$ thick, $s_{{{d}}}$ thin)",
    r"$u = \kappa_1 t$",
    "s_k",
)
ax1.legend(fontsize=8, loc="lower right")
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure 25.3** — (a) The Frobenius norm of $W$ for the four runs (solid: quartic loss; dashed:
# logistic loss), on the common axis; the shaded tail is where the late growth is measured. (b) The top
# and the $d$-th singular values of the same runs.

# %% [markdown]
# **Claim (iii): the quartic loss stops the late growth that the logistic loss keeps.** For each
# reweighting we record the difference of the two exponents in units of its standard error,
# $(\gamma_{\rm logistic} - \gamma_{\rm quartic})/\sqrt{se_l^2 + se_q^2}$, and each quartic run's
# $|\gamma|/se$. These are records, not findings: the logistic loss's creep is logarithmic
# (Exercise 3), and the book's runs are a few thousand steps against the authors' five million, so a null
# result here cannot contradict the paper. The numbers say what the book's sizes show.

# %%
for rw in q.REWEIGHTINGS:
    gl, sl_, _ = LATE[("logistic", rw)]
    gq, sq_, _ = LATE[("quartic", rw)]
    rep.check(
        f"qwem.ablation.logistic_grows_more_{rw}",
        f"{RW_NAMES[rw]}: late growth of ‖W‖_F, logistic minus quartic exponent in combined standard errors, "
        f"(γ_l − γ_q)/√(se_l² + se_q²) (recorded; paper, Figure 7: 'the quartic loss stops the late "
        f"divergence of the weights that logistic losses show'; 2 or more would reproduce it)",
        value=float((gl - gq) / np.hypot(sl_, sq_)),
        passed=bool(np.isfinite(gl - gq)),
        kind="record",
    )
    rep.check(
        f"qwem.ablation.quartic_plateau_{rw}",
        f"{RW_NAMES[rw]}, quartic loss: late growth exponent γ and |γ|/se (recorded; below 2: "
        f"compatible with a plateau)",
        value=dict(gamma=gq, se=sq_, z=abs(gq) / sq_),
        passed=bool(np.isfinite(gq)),
        kind="record",
    )

# %%
prose(
    "Late growth exponents γ (d ln‖W‖_F / d ln u over the tail): "
    + "; ".join(
        f"{LOSS_NAMES[lo]} × {RW_NAMES[rw]}: {LATE[(lo, rw)][0]:+.4f} ± {LATE[(lo, rw)][1]:.4f}"
        for lo, rw in RUNS
    )
    + f". Over the tail, u grows by a factor 2, so γ = 0.01 is a growth of {100 * (2**0.01 - 1):.2f}% of ‖W‖_F."
)

# %% [markdown]
# ## 7 · The quartic approximation alone
#
# The paper's first statement compares the two word2vec-reweighted runs: swapping the logistic loss for
# the quartic one "hardly changes" the singular-value dynamics. On the common axis the two runs have the
# same linear phase up to the factor ½ that $u$ absorbs, so their steps should come at similar $u_k$; their
# end values differ, because the two losses have different minimisers (the quartic's targets lie in
# $[-2, 2]$, the logistic's are PMI-like). We record the step times of the two runs against each other and
# the angle between their final column spaces. The step-time check is a consistency check, close to true
# by construction: on the $u$ axis the two losses agree to second order in $x$, so they differ only at
# $O(x^4)$ until the steps, and the two runs draw identical minibatches (same seed, same sampler).

# %%
w2v_dev = np.abs(np.log(U[("quartic", "word2vec")] / U[("logistic", "word2vec")]))
sin_w2v = q.subspace_distance(
    runs[("quartic", "word2vec")].result.W.astype(np.float64),
    runs[("logistic", "word2vec")].result.W.astype(np.float64),
)
sin_31 = q.subspace_distance(
    runs[("quartic", "setting31")].result.W.astype(np.float64),
    runs[("logistic", "setting31")].result.W.astype(np.float64),
)
prose(
    f"word2vec's reweighting, quartic against logistic loss: step times differ by at most "
    f"{100 * (np.exp(np.max(w2v_dev)) - 1):.0f}% (median {100 * (np.exp(np.median(w2v_dev)) - 1):.0f}%); the "
    f"final column spaces are at $\\sin\\theta_{{\\max}}$ = {sin_w2v:.3f} (Setting 3.1 runs: {sin_31:.3f})."
)
rep.below(
    "qwem.ablation.quartic_alone_w2v",
    "word2vec's reweighting: the quartic loss makes every step at the same u as the logistic loss, no shift "
    "(max_k |ln(u_k^quartic/u_k^logistic)|, 10%: the losses differ only beyond second order in x); paper, "
    "Figure 7: 'the quartic approximation alone hardly changes word2vec's singular-value dynamics'",
    value=float(np.max(w2v_dev)),
    bound=np.log(1.1),
    kind="consistency",
)
rep.check(
    "qwem.ablation.quartic_alone_w2v_subspace",
    "word2vec's reweighting: sin θ_max between the final column spaces of the quartic and the logistic run, "
    "and the same for the Setting 3.1 pair (recorded)",
    value=dict(word2vec=float(sin_w2v), setting31=float(sin_31)),
    passed=bool(np.isfinite(sin_w2v)),
    kind="record",
)

# %% [markdown]
# ## 8 · The book against the paper
#
# | | paper (Figure 7) | this chapter: SGD (Sections 1–7) | this chapter: flows (Section 9) |
# |---|---|---|---|
# | corpus | 41M tokens (COCA/NOW in the authors' code) | enwiki2015_17m, 17M tokens | enwiki2015_17m |
# | $V$, $d$ | 20,000, 150 | 500, 6 (every preset but smoke) | book 2,000, 12; paper preset 10,000, 150 |
# | init | entries $\sim\mathcal N(0, (10^{-3})^2)$ | the same: $\sigma^2 = 10^{-6}$ per direction | the same, three starts |
# | steps, batch | 5M, 50k + 50k | 1,500 for all four runs, 50k + 50k | no steps: the flow, to $u = 10^3$ (paper preset $10^4$) |
# | learning rates | per run, not stated | $\eta = c/\kappa_1$ of each run's own growth matrix | none (tolerance $10^{-4}$) |
# | time axes | two of four shifted by hand | one axis $u = \kappa_1 t = 2c\times$step, no shift | the same $u$ |
# | negatives of word2vec's reweighting | $P^{0.75}$ by importance weights | $P^{0.75}$ by exact sampling | their exact expectation |
# | evidence | a figure, no numbers | sharpness of every mode, step times, late growth exponents | separation, end points, the unseen pairs' slope, each over three starts |
#
# The paper's three statements are the three blocks of claims above. Where the measured picture at the
# book's small $V$ and $d$ differs from the paper's description, the printed numbers say so: the
# discussion below is written from them.

# %%
sh_med = {key: float(np.nanmedian(SH[key]["sharpness"])) for key in RUNS}
prose(
    "**Discussion.** Median sharpness over modes: "
    + "; ".join(f"{runs[key].name} {sh_med[key]:.2f}" for key in RUNS)
    + ". "
    + "".join(
        f"With the {lo} loss, Setting 3.1's reweighting gives "
        + (
            "the sharper steps (recorded above). "
            if sh_med[(lo, "setting31")] > sh_med[(lo, "word2vec")]
            and not DIVERGED[(lo, "setting31")]
            else "a run that diverges at this preset's batch, so the comparison is not made. "
            if DIVERGED[(lo, "setting31")]
            else "no sharper steps at this preset. "
        )
        for lo in q.LOSSES
    )
    + f"The step times of the two Setting 3.1 runs differ by up to {100 * (np.exp(np.max(dev31)) - 1):.0f}% "
    f"(0 if the start set them; see the caveat of Section 5), those of the two word2vec-reweighted runs by up to "
    f"{100 * (np.exp(np.max(w2v_dev)) - 1):.0f}%, and the word2vec-reweighted runs are {np.median(U[('logistic', 'word2vec')] / UIND[('logistic', 'word2vec')]):.2f}× "
    f"(logistic) and {np.median(U[('quartic', 'word2vec')] / UIND[('quartic', 'word2vec')]):.2f}× (quartic) "
    "the independent-mode times in the median: their modes do not grow independently. Late growth "
    "exponents of the logistic runs minus the quartic runs, in standard errors: "
    + ", ".join(
        f"{RW_NAMES[rw]} {(LATE[('logistic', rw)][0] - LATE[('quartic', rw)][0]) / np.hypot(LATE[('logistic', rw)][1], LATE[('quartic', rw)][1]):+.1f}"
        for rw in q.REWEIGHTINGS
    )
    + " (2 or more would show the paper's late growth; over the book's short runs, measured on u ∈ "
    f"[{u[-1] / 2:.0f}, {u[-1]:.0f}], it is "
    + (
        "seen"
        if all(
            (LATE[("logistic", rw)][0] - LATE[("quartic", rw)][0])
            / np.hypot(LATE[("logistic", rw)][1], LATE[("quartic", rw)][1])
            >= 2
            for rw in q.REWEIGHTINGS
        )
        else "not resolved"
    )
    + ")."
)

# %% [markdown]
# ## 9 · The ablation without minibatch noise: Figure 7 as a flow
#
# Two things limit the SGD runs above. The minibatch noise blurs what it measures (the logistic ×
# Setting 3.1 run is the least separated, and its end subspace leaves $M^\star$'s); and at $V = 500$
# almost every pair co-occurs, while the logistic loss's late growth is driven by the pairs that never
# do (their target is $-\infty$: the logistic loss keeps pushing $x_{ab}$ down, the quartic loss stops it).
#
# Here the four losses are followed **without noise**: the gradient flow $\dot W = -\frac12\nabla\mathcal L$
# of each exact expected loss (25.1), the limit of SGD at infinite batch and vanishing rate. This is what
# Lemma 3.1 describes. Gradient descent at a fixed rate is only the flow's Euler method: at the book's
# earlier rate $c = 0.2$ its step times were several per cent late. At a large $V$ the flow is also *stiff*.
# $M^\star$'s negative outlier makes the curvature about four times $\kappa_1$, while the late modes move
# at rates $10^{-4}$ of it. So the runs use the Runge–Kutta–Chebyshev integrator of `qwem_lib.flow`
# (`q.train_expected(method="rkc")`). It uses only gradients and follows the flow to a stated tolerance.
# Its unit tests hold it to $2\times10^{-3}$ in step time on an instance as stiff as the paper's, where
# gradient descent at $c = 0.2$ fails the same test.
#
# Each loss runs from three starts $W(0)$ (seeds), on the common axis $u = \kappa_1 t$, at a $V$ where
# many pairs are unseen. Three statements of the paper are tested. Each test was written before the runs:
#
# 1. **Separation** (paper: "Setting 3.1 alone produces the clean separation into steps"). The separation
#    statistic $R_k = (u_{k+1} - u_k)/\bar w_k$ (`q.step_separation`) is the gap between successive steps in
#    units of their mean 10–90 % width. Above 1 there is a plateau between them. Prediction: for each
#    loss, the median $R_k$ is larger under Setting 3.1, by more than $\max(2\,\mathrm{SE}, 0.1)$ over
#    the seeds.
# 2. **End points.** The reweighting decides *what* is learned: Setting 3.1's quartic run must end on
#    $M^\star$'s top-$d$ eigenspace. We measure the mean squared cosine of the principal angles between
#    the end column space of $W$ and that eigenspace. A random $d$-dimensional subspace gives $d/V$: that
#    is the null. Prediction: for each loss, the overlap is larger under Setting 3.1, by more than
#    $\max(2\,\mathrm{SE}, 0.05)$.
# 3. **Late growth, by what drives it** (paper: "the quartic loss stops the late divergence of the
#    weights that logistic losses show"). We follow the mean score of the unseen pairs,
#    $\bar x_0(u) = \langle x_{ab}\rangle_{P_{ab} = 0}$. The logistic flow pushes these pairs down without
#    end, so $\bar x_0$ falls linearly in $\ln u$ (Exercise 3); the quartic flow has a wall. We fit the slope
#    $\mathrm d\bar x_0/\mathrm d\ln u$ on $u \in [u_T/10, u_T]$. Prediction: under each reweighting, the
#    logistic slope lies below the quartic one by more than $\max(2\,\mathrm{SE}, 0.01)$. The quartic run
#    is the control. (The growth exponent of $\|W\|_F$ cannot decide this: it is near 0 for every run,
#    because the unseen pairs are a small part of the norm.)
#
# A prediction's outcome is **pinned** per preset (`reproduction/pins.json`, `qwem_lib.book.pins`): a
# re-run that flips it fails the chapter.

# %%
import torch  # noqa: E402

from qwem_lib.book import pins  # noqa: E402

NL = config.sizes(
    smoke=dict(corpus="enwiki2015_1m7", V=500, d=3, seeds=3, u_end=300, n_logs=60, rtol=1e-3),
    book=dict(corpus="enwiki2015_17m", V=2000, d=12, seeds=3, u_end=1000, n_logs=200, rtol=1e-4),
    # the authors' V = 20,000 needs ~10 GB of V × V tables a loss; V = 10,000 (72% of pairs unseen)
    paper=dict(
        corpus="enwiki2015_17m", V=10_000, d=150, seeds=3, u_end=10_000, n_logs=300, rtol=1e-4
    ),
)
print(NL)
Vn, dn, n_seeds = NL["V"], NL["d"], NL["seeds"]
C_AXIS = 0.2  # the time axis is written in steps of Δu = 2·C_AXIS, as the SGD runs' (the flow has no step)
_, Pn, pun = q.cooccurrence(q.load_corpus(NL["corpus"]), Vn)
unseen_mask = Pn == 0
unseen = float(np.mean(unseen_mask))
O_unseen = unseen_mask / unseen_mask.sum()  # ⟨O, WWᵀ⟩ is the mean score of the unseen pairs
del unseen_mask
lam_n, Q_n = q.mstar_eigenbasis(NL["corpus"], Vn, dn + 1)[1:]
steps_n = int(np.ceil(NL["u_end"] / (2 * C_AXIS)))
nl_runs = {}
for lo, rw in RUNS:
    Kn = q.growth_matrix(Pn, pun, loss=lo, reweighting=rw)
    kappa1 = float(q.top_eigenpairs(Kn, 1)[0][0])
    del Kn
    for seed in range(n_seeds):
        gen = torch.Generator().manual_seed(int(config.SEED) * 1000 + seed)
        W0n = q.initial_embeddings(Vn, dn, np.sqrt(s2), gen).numpy()
        res = q.train_expected(
            (Pn, pun), dn, model=None, loss=lo, reweighting=rw, steps=steps_n, lr=C_AXIS / kappa1,
            W0=W0n, reference=Q_n[:, :dn], n_logs=NL["n_logs"], method="rkc", rtol=NL["rtol"],
            observe=O_unseen, log_loss=False, progress=False, label=f"{lo}-{rw}-{seed}",
        )  # fmt: skip
        nl_runs[(lo, rw, seed)] = dict(res=res, u=kappa1 * res.times, kappa1=kappa1)
        print(f"{lo:>8} × {rw:<9} seed {seed}: {res.gradients:,} gradients, "
              f"{'from the cache' if res.cached else f'{res.seconds:.0f} s'}")  # fmt: skip
del O_unseen
print(f"V = {Vn:,}: {unseen:.1%} of the V² pairs never co-occur (V = {V}: {np.mean(Pj == 0):.2%})")


# %%
def flow_measures(R: dict) -> dict:
    """Separation, end overlap with M*'s top-d eigenspace, and late slope of the unseen pairs' score."""
    res, uu = R["res"], R["u"]
    sep = q.step_separation(uu, res.sv**2, res.sv[-1] ** 2)
    late = uu >= uu[-1] / 10
    slope = float(np.polyfit(np.log(uu[late]), res.observed[late], 1)[0])
    return dict(
        medR=float(np.nanmedian(sep["R"])),
        overlap=float(np.mean(res.cosines[-1] ** 2)),
        slope=slope,
        t_mid=sep["t_mid"],
    )


NLM = {key: flow_measures(R) for key, R in nl_runs.items()}


def over_seeds(f) -> tuple[float, float]:
    """Mean and standard error over the seeds of a per-seed number f(seed)."""
    x = np.array([f(seed) for seed in range(n_seeds)])
    return float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x)))


for lo, rw in RUNS:
    m = {k: over_seeds(lambda sd, k=k: NLM[(lo, rw, sd)][k]) for k in ("medR", "overlap", "slope")}
    print(
        f"{lo:>8} × {rw:<9}: median R_k {m['medR'][0]:.2f} ± {m['medR'][1]:.2f}; end overlap with M*'s "
        f"top {dn} {m['overlap'][0]:.3f} ± {m['overlap'][1]:.3f} (null d/V = {dn / Vn:.4f}); "
        f"unseen-pair slope {m['slope'][0]:+.4f} ± {m['slope'][1]:.4f} per e-fold of u"
    )

# %%
fig, axes = plotting.figure(2, 2, width=3.9, height=3.1, sharex=True)
for ax, key in zip(axes.ravel(), RUNS):
    R = nl_runs[(*key, 0)]
    q.plot_steps(ax, R["u"], R["res"].sv ** 2, run_label="gradient flow, $s_k^2$")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plotting.label(
        ax, f"{LOSS_NAMES[key[0]]} × {RW_NAMES[key[1]]}", r"$u = \kappa_1 t$ (log)", "$s_k^2$"
    )
    ax.legend(loc="lower right", fontsize=8)
plotting.suptitle(
    fig,
    f"Figure 25.4 — the ablation as a flow on {NL['corpus']} (V = {Vn:,}, d = {dn}, $\\sigma^2$ = {s2:g})",
)
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure 25.4** — The four gradient flows from one $W(0)$ (seed 0), on the common axis. Both axes are
# logarithmic, so that plateaus, steps and late growth are all visible. Rows: quartic, logistic loss;
# columns: Setting 3.1's, word2vec's reweighting. This is the paper's Figure 7 without minibatch noise.

# %%
fig, ax = plotting.figure(1, 1, width=6.0, height=3.6)
for (lo, rw), style in zip(RUNS, ["-", "--", "-", "--"]):
    for seed in range(n_seeds):
        R = nl_runs[(lo, rw, seed)]
        ax.plot(
            R["u"][1:], R["res"].observed[1:], style, lw=1.2,
            color="C0" if lo == "quartic" else "C3", alpha=0.9 if seed == 0 else 0.35,
            label=f"{LOSS_NAMES[lo]} × {RW_NAMES[rw]}" if seed == 0 else None,
        )  # fmt: skip
ax.axvspan(NL["u_end"] / 10, NL["u_end"], color="0.9", zorder=0, label="fit window")
ax.set_xscale("log")
plotting.label(ax, "the unseen pairs' mean score", r"$u = \kappa_1 t$ (log)", r"$\bar x_0$")
ax.legend(fontsize=8)
fig.tight_layout()
plt.show()

# %% [markdown]
# **Figure 25.5** — What drives the late growth: the mean score $\bar x_0$ of the pairs that never
# co-occur, for every run and seed (pale: seeds 1, 2). Logistic losses (red) keep pushing these pairs down
# along a straight line in $\ln u$; quartic losses (blue) stop. The grey band is the window of the fitted
# slope.


# %%
def paired(lo_a, rw_a, lo_b, rw_b, k) -> tuple[float, float]:
    """Mean and SE over seeds of the paired difference NLM[a][k] − NLM[b][k] (same W(0) per seed)."""
    return over_seeds(lambda sd: NLM[(lo_a, rw_a, sd)][k] - NLM[(lo_b, rw_b, sd)][k])


for lo in q.LOSSES:
    for k, what, floor in (
        ("medR", "median R_k", 0.1),
        ("overlap", "end overlap with M*'s top-d", 0.05),
    ):
        diff, se = paired(lo, "setting31", lo, "word2vec", k)
        held = bool(diff > max(2 * se, floor))
        cid = f"qwem.ablation.flow.setting31_{'separates' if k == 'medR' else 'ends_on_mstar'}_{lo}"
        ok, note = pins.judge(cid, held)
        rep.check(
            cid,
            f"{lo} loss, gradient flows at V = {Vn:,}, d = {dn}, {n_seeds} starts: {what}, Setting 3.1's "
            f"minus word2vec's reweighting (paired by start), predicted > max(2 SE, {floor})"
            + (" (paper, Figure 7: 'Setting 3.1 alone produces the clean separation into steps')"
               if k == "medR" else " (null: a random subspace gives d/V)") + note,
            value={"difference": diff, "se": se, "outcome": held,
                   "Setting 3.1": over_seeds(lambda sd, k=k: NLM[(lo, "setting31", sd)][k])[0],
                   "word2vec's": over_seeds(lambda sd, k=k: NLM[(lo, "word2vec", sd)][k])[0],
                   "null d/V": dn / Vn},
            passed=ok,
            kind="finding",
        )  # fmt: skip
for rw in q.REWEIGHTINGS:
    diff, se = paired("logistic", rw, "quartic", rw, "slope")
    held = bool(diff < -max(2 * se, 0.01))
    cid = f"qwem.ablation.flow.logistic_pushes_unseen_{rw}"
    ok, note = pins.judge(cid, held)
    rep.check(
        cid,
        f"{RW_NAMES[rw]}, gradient flows at V = {Vn:,} ({unseen:.0%} of pairs unseen), {n_seeds} starts: "
        "slope of the unseen pairs' mean score against ln u on u ∈ [u_T/10, u_T], logistic minus quartic "
        "(paired by start; the quartic run is the control), predicted < −max(2 SE, 0.01) (paper, Figure 7: "
        "'the quartic loss stops the late divergence of the weights that logistic losses show')" + note,
        value={"difference": diff, "se": se, "outcome": held,
               "logistic": over_seeds(lambda sd: NLM[("logistic", rw, sd)]["slope"])[0],
               "quartic": over_seeds(lambda sd: NLM[("quartic", rw, sd)]["slope"])[0]},
        passed=ok,
        kind="finding",
    )  # fmt: skip
alone = [
    float(np.nanmax(np.abs(np.log(NLM[("quartic", "word2vec", sd)]["t_mid"]
                                  / NLM[("logistic", "word2vec", sd)]["t_mid"]))))
    for sd in range(n_seeds)
]  # fmt: skip
rep.check(
    "qwem.ablation.flow.quartic_alone_w2v",
    f"word2vec's reweighting, gradient flows at V = {Vn:,}, d = {dn}: the largest |ln(u_k^quartic/u_k^logistic)| "
    "over modes, the worst of the starts (recorded; paper, Figure 7: 'the quartic approximation alone "
    "hardly changes word2vec's singular-value dynamics'; the two losses agree to second order in x)",
    value={"worst": max(alone), "per start": alone},
    passed=bool(np.all(np.isfinite(alone))),
    kind="record",
)

# %%
F = {c.id: c.value for c in rep.claims if c.id.startswith("qwem.ablation.flow.")}


def said(cid: str) -> str:
    v = F[cid]
    return f"{v['difference']:+.3g} ± {v['se']:.2g} ({'held' if v['outcome'] else 'failed'})"


prose(
    f"At $V$ = {Vn:,} ({unseen:.0%} of pairs unseen), $d$ = {dn}, to $u$ = {NL['u_end']:,}, over "
    f"{n_seeds} starts. **Separation**, Setting 3.1 minus word2vec's median $R_k$: quartic "
    f"{said('qwem.ablation.flow.setting31_separates_quartic')}, logistic "
    f"{said('qwem.ablation.flow.setting31_separates_logistic')}. **End points**, overlap with "
    f"$M^\\star$'s top-{dn} eigenspace, Setting 3.1 minus word2vec's: quartic "
    f"{said('qwem.ablation.flow.setting31_ends_on_mstar_quartic')}, logistic "
    f"{said('qwem.ablation.flow.setting31_ends_on_mstar_logistic')} (a random subspace: {dn / Vn:.4f}). "
    f"**Late growth**, the unseen pairs' slope per e-fold of $u$, logistic minus quartic: Setting 3.1 "
    f"{said('qwem.ablation.flow.logistic_pushes_unseen_setting31')}, word2vec's "
    f"{said('qwem.ablation.flow.logistic_pushes_unseen_word2vec')}. The quartic approximation alone moves "
    f"word2vec's step times by at most {100 * (np.exp(F['qwem.ablation.flow.quartic_alone_w2v']['worst']) - 1):.1f}%."
)

# %% [markdown]
# **What the flows say.** Read the separation first with the spectrum in mind. $R_k$ compares
# *successive* steps, so it is bounded by the spectrum: two modes of relative gap $g$ step about
# $g\,\ln(c/\sigma^2)/\ln 81$ widths apart (chapter 27, §2). If Setting 3.1's runs are not more separated,
# it is because their own growth matrix's top eigenvalues are close, not because their modes couple. The
# end-point test asks a different question: *what* is learned. Only Setting 3.1's quartic flow has
# $M^\star$'s eigenspace as its target; the other three learn other matrices. The late-growth test looks
# at the pairs that drive the growth, not at the norm, which they barely move. The paper's statements
# concern the look of its curves at $V = 20{,}000$, $d = 150$. The `paper` preset runs these flows at
# $V = 10{,}000$, $d = 150$ to $u = 10^4$ (its record is in `reproduction/paper/`).

# %% [markdown]
# ## 10 · What this chapter found
#
# The closing cell lists each of the paper's three statements with the outcome of its test at this preset.

# %%
for cid, what in (
    ("qwem.ablation.flow.setting31_separates_quartic", "Setting 3.1 separates the steps (quartic)"),
    (
        "qwem.ablation.flow.setting31_separates_logistic",
        "Setting 3.1 separates the steps (logistic)",
    ),
    ("qwem.ablation.flow.setting31_ends_on_mstar_quartic", "Setting 3.1 ends on M* (quartic)"),
    ("qwem.ablation.flow.setting31_ends_on_mstar_logistic", "Setting 3.1 ends on M* (logistic)"),
    (
        "qwem.ablation.flow.logistic_pushes_unseen_setting31",
        "logistic losses grow late (Setting 3.1)",
    ),
    (
        "qwem.ablation.flow.logistic_pushes_unseen_word2vec",
        "logistic losses grow late (word2vec's)",
    ),
):
    print(f"{'held  ' if F[cid]['outcome'] else 'FAILED'}  {what}: {said(cid)}")

# %% [markdown]
# ## Exercises
#
# 1. *(derive, ★)* Expand $-\log\sigma(x)$ and $-\log\sigma(-x)$ to fourth order at $x = 0$ and show that, up to a constant,
#    each is half of QWEM's $\mp x + x^2/4$ plus $-x^4/192$. Check numerically that the remainder is below
#    $x^4/192$ for $|x| \le 1$.
# 2. *(derive, ★)* From Lemma 3.1, $S = \ln((c - \sigma^2)/\sigma^2)/\ln 81$. How small must $\sigma^2$ be for a mode ending
#    at $c = 50$ to have $S = 6$? What $S$ does the authors' $\sigma^2 = 10^{-6}$ give?
# 3. *(derive, ★★)* A single positive pair under the logistic loss, $\dot x = \sigma(-x)$ (no negatives), never stops.
#    Solve it exactly and compare $x(t)$ with $\ln t$ at large $t$. Why does the quartic loss,
#    $\dot x = 1 - x/2$, stop?

# %% [markdown]
# ## Solutions

# %% [markdown]
# <details><summary>Solution 1</summary>
#
# $\log(1 + e^{-x}) = \log 2 - \frac x2 + \frac{x^2}{8} - \frac{x^4}{192} + O(x^6)$ (the odd terms beyond the
# first vanish because $\log(1+e^{-x}) + x/2 = \log(2\cosh(x/2))$ is even). So
# $-\log\sigma(\pm x) - \log 2 = \frac12(\mp x + \frac{x^2}4) - \frac{x^4}{192} + O(x^6)$, and the series of
# $\log\cosh$ alternates with decreasing terms for $|x| \le 1$, so the remainder after $x^4/192$ is smaller
# than $x^6/2880$. The cell checks the bound on a grid.
#
# </details>

# %%
# (|x| ≥ 0.2: below it, the x⁶ term is lost in float64 rounding of the difference)
xs = np.concatenate([np.linspace(-1, -0.2, 801), np.linspace(0.2, 1, 801)])
rem = np.logaddexp(0.0, -xs) - np.log(2) - 0.5 * (-xs + xs**2 / 4)
print(f"max |remainder| / (x⁴/192) on 0.2 ≤ |x| ≤ 1: {np.max(np.abs(rem) / (xs**4 / 192)):.4f}")
rep.below(
    "qwem.ablation.solution.1",
    "−log σ(x) − log 2 − ½(−x + x²/4) = −x⁴/192 + O(x⁶): max over 0.2 ≤ |x| ≤ 1 of "
    "|remainder + x⁴/192|/(x⁶/2880)",
    value=float(np.max(np.abs(rem + xs**4 / 192) / (xs**6 / 2880))),
    bound=1.0 + 1e-9,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 2</summary>
#
# $S = 6$ needs $(c - \sigma^2)/\sigma^2 = 81^6$, i.e. $\sigma^2 = c/(81^6 + 1) \approx 1.8\times10^{-10}$ for
# $c = 50$: the sharpness grows only like the logarithm of the scale separation. At $\sigma^2 = 10^{-6}$,
# $S = \ln(5\times10^7)/\ln 81 \approx 4.0$. The cell computes both.
#
# </details>

# %%
sig_6 = 50.0 / (81.0**6 + 1.0)
S_auth = q.sigmoid_sharpness(50.0, 1e-6)
print(f"σ² for S = 6 at c = 50: {sig_6:.3g};  S at σ² = 1e-6: {S_auth:.3f}")
rep.close(
    "qwem.ablation.solution.2",
    "Lemma 3.1's sharpness at c = 50, σ² = c/(81⁶ + 1) is 6",
    value=q.sigmoid_sharpness(50.0, sig_6),
    target=6.0,
    tol=1e-9,
    kind="consistency",
)

# %% [markdown]
# <details><summary>Solution 3</summary>
#
# $\dot x = 1/(1 + e^{x})$ separates: $(1 + e^x)\,dx = dt$, so $x + e^x = t + x_0 + e^{x_0}$. At large $t$,
# $e^x \approx t$: $x(t) = \ln t - \ln t/t + \dots$ grows without bound, ever more slowly — the late creep of
# Section 6, pair by pair. The quartic loss's $\dot x = 1 - x/2$ relaxes exponentially to $x = 2$: its $x^2/4$
# term is a wall. (With negatives the logistic pair stops at $x = \ln(A/N)$, but a rank-$d$ $W$ cannot
# reach every pair's optimum, and the pairs it cannot fit keep pulling.) The cell integrates the ODE and
# checks the exact solution.
#
# </details>

# %%
from scipy.integrate import solve_ivp  # noqa: E402

t_eval = np.array([10.0, 100.0, 1000.0])
sol = solve_ivp(
    lambda t, x: 1.0 / (1.0 + np.exp(x)), (0, 1000.0), [0.0], t_eval=t_eval, rtol=1e-10, atol=1e-12
)
x_num = sol.y[0]
print(f"x(t) at t = {t_eval}: {np.round(x_num, 4)};  ln t = {np.round(np.log(t_eval), 4)}")
rep.close(
    "qwem.ablation.solution.3",
    "the logistic single-pair flow obeys x + e^x = t + 1 (x(0) = 0): max |x + e^x − t − 1| / (t + 1)",
    value=float(np.max(np.abs(x_num + np.exp(x_num) - t_eval - 1) / (t_eval + 1))),
    target=0.0,
    tol=1e-6,
    kind="consistency",
)
