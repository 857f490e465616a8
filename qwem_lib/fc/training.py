"""Training the networks of Feature Collapse by minibatch SGD (a fused, autograd-free loop).

The risk (the paper's equations (2)-(3))
    ``R_emp(W, U) = mean cross-entropy + (lam_W / 2) ||W||_F^2 + (lam_U / 2) ||U||_F^2``.
    The gradient of ``(lam/2)||P||^2`` is ``lam * P``, which is exactly what ``torch.optim.SGD`` adds
    when given ``weight_decay=lam``. So torch's weight decay equals the paper's ``lambda`` (not
    ``lambda/2`` and not ``2*lambda``). The embedding gradient is dense, so the decay shrinks every
    word's embedding at every step, as in the risk, not only the words present in the minibatch.

Conventions: embeddings are returned as ``(nw, d)`` arrays (rows = words; the paper's ``W`` is the
transpose, ``d x nw``). ``U`` is returned as a ``(K, L, d)`` array with ``U[k, l] = u_{k,l}``.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ..book import checks, config
from ..book.cache import Checkpoint, read_npz, save_npz
from ..book.loop import Logs, run_steps
from .data import FCData
from .networks import FCNet

__all__ = [
    "FCTrainConfig",
    "FCResult",
    "train_fc",
    "sgd_epoch",
    "autograd_epoch",
    "steps_per_second",
    "cpu_threads",
]


@contextmanager
def cpu_threads(threads: int | None, device: Any = "cpu") -> Iterator[None]:
    """Run the block with torch using ``threads`` CPU threads (restored afterwards).

    ``None``, or a non-CPU ``device``, leaves torch's setting alone. The trainers of Part IV default to 1:
    their products are small, and on a shared machine extra OpenMP threads spin-wait and can slow
    training down several-fold. Raises ``ValueError`` for ``threads < 1``.
    """
    if threads is not None and threads < 1:
        raise ValueError(f"threads must be >= 1 or None, got {threads}")
    old = torch.get_num_threads()
    if threads is not None and torch.device(device).type == "cpu":
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(old)


_CACHE_VERSION = "fc-v2"


@dataclass(frozen=True)
class FCTrainConfig:
    """Hyper-parameters of one training run (defaults: the paper's)."""

    epochs: int
    d: int = 100
    layer_norm: bool = False
    lr: float = 0.1
    batch: int = 100
    wd_W: float = 1e-3
    wd_U: float = 1e-3
    init_scale: float = 1e-3
    eval_every: int = 10  # epochs between evaluations
    eval_train_max: int = 5000  # training sentences used to measure train accuracy/loss
    seed: int = 0
    precision: str = "float32"  # dtype of the three matrix products ("float32" or "bfloat16")
    ln_affine: bool = False  # learnable LayerNorm gain and bias (Appendix A.2; needs layer_norm)

    def __post_init__(self) -> None:
        for name in ("epochs", "d", "batch", "eval_every", "eval_train_max"):
            checks.positive_int(name, getattr(self, name))
        checks.nonnegative_int("seed", self.seed)
        checks.positive("lr", self.lr)
        checks.nonnegative("wd_W", self.wd_W)
        checks.nonnegative("wd_U", self.wd_U)
        checks.positive("init_scale", self.init_scale)
        if self.ln_affine and not self.layer_norm:
            raise ValueError("ln_affine=True needs layer_norm=True")
        if self.precision not in ("float32", "bfloat16"):
            raise ValueError(f"precision must be 'float32' or 'bfloat16', got {self.precision!r}")


@dataclass
class FCResult:
    """The outcome of :func:`train_fc`.

    ``features`` are the word representations (after the LayerNorm for h*), ``embeddings`` the raw
    rows of the embedding table, ``U`` the (K, L, d) linear weights. ``history`` maps ``epoch``,
    ``step`` (SGD steps so far),
    ``train_acc``, ``test_acc``, ``train_loss``, ``test_loss``, ``norm_mean``, ``norm_std`` (word
    representation norms) and ``u_norm_mean`` to arrays over the evaluation points. ``ln_gain`` and
    ``ln_bias`` hold the trained LayerNorm parameters when ``config.ln_affine`` (else ``None``).
    """

    config: FCTrainConfig
    embeddings: np.ndarray
    features: np.ndarray
    U: np.ndarray
    history: dict[str, np.ndarray]
    seconds: float
    cached: bool = False
    ln_gain: np.ndarray | None = None
    ln_bias: np.ndarray | None = None

    @property
    def test_acc(self) -> float:
        return float(self.history["test_acc"][-1])

    @property
    def train_acc(self) -> float:
        return float(self.history["train_acc"][-1])


def _evaluate(net, x, y, chunk: int = 2000) -> tuple[float, float]:
    correct, loss = 0.0, 0.0
    with torch.no_grad():
        for i in range(0, x.shape[0], chunk):
            out = net(x[i : i + chunk])
            loss += torch.nn.functional.cross_entropy(out, y[i : i + chunk], reduction="sum").item()
            correct += (out.argmax(1) == y[i : i + chunk]).sum().item()
    return correct / x.shape[0], loss / x.shape[0]


def _cache_path(data: FCData, cfg: FCTrainConfig, device: Any = "cpu") -> Path:
    """The cache file of one run: keyed by the data, every hyper-parameter and the kind of device.

    Float32 sums on a GPU differ from the CPU's in the last bits, and SGD amplifies that, so a run on
    ``cuda`` is its own entry. The device enters the key only when it is not the CPU, so the runs cached
    before it was keyed (all on the CPU) keep their keys.
    """
    fields = asdict(cfg)
    if not fields["ln_affine"]:  # runs cached before the option existed keep their keys
        del fields["ln_affine"]
    kind = torch.device(device).type
    if kind != "cpu":
        fields["device"] = kind
    key = hashlib.sha256(
        json.dumps([_CACHE_VERSION, data.fingerprint(), fields], sort_keys=True).encode()
    ).hexdigest()[:20]
    d = config.cache_dir() / "fc"
    d.mkdir(parents=True, exist_ok=True)
    return d / f"run_{key}.npz"


def train_fc(
    data: FCData,
    cfg: FCTrainConfig,
    *,
    device: Any = None,
    cache: bool = True,
    progress: bool = True,
    desc: str = "train",
    threads: int | None = 1,
    checkpoint_every: int | None = None,
    _interrupt_after: int | None = None,
) -> FCResult:
    """Train ``h`` (``cfg.layer_norm=False``) or ``h*`` on ``data`` by minibatch SGD with separate weight
    decays for the embeddings ``W`` and the linear weights ``U``.

    One epoch is one pass over a fresh random permutation of the training set in minibatches of
    ``cfg.batch`` (the last, shorter one included). Train and test accuracy and loss (cross-entropy only,
    without the penalty) and the word-norm statistics are recorded every ``cfg.eval_every`` epochs and
    at the end. Seeded by ``cfg.seed``: the same data and configuration give the same weights.

    Parameters
    ----------
    data : FCData
        The training and test sentences (:func:`~qwem_lib.fc.data.make_dataset`).
    cfg : FCTrainConfig
        Epochs, width ``d``, LayerNorm, learning rate, batch, the two weight decays, the initial scale,
        the evaluation schedule, the seed and the products' precision (defaults: the paper's).
    device : str or torch.device, optional
        Default: the book's device (``QWEM_DEVICE``; a GPU when present).
    cache : bool, default True
        Store the result under ``config.cache_dir()/fc``, keyed by the data, every hyper-parameter and
        the device, and read it back on a re-run.
    progress : bool, default True
        A progress bar labelled ``desc``.
    desc : str, default "train"
    threads : int or None, default 1
        CPU threads torch uses during training (restored afterwards). 1 is deliberate: these products
        are small, and on a shared machine extra OpenMP threads spin-wait and can slow training down
        several-fold. ``None`` keeps torch's setting.
    checkpoint_every : int, optional
        Epochs between checkpoints (the weights, the minibatch generator's state and the history, next to
        the cached result): a later call with the same data and configuration continues from the last one,
        to the same result as an uninterrupted run's. It does not change the cache key.
    _interrupt_after : int, optional
        For the tests only: stop after that many epochs of this call, as a killed process would (without
        saving), raising :class:`~qwem_lib.book.loop.TrainingInterrupted` (an ``InterruptedError``).

    Returns
    -------
    FCResult
        The word representations, the embedding table, the linear weights, the history and the wall time.

    Raises
    ------
    ValueError
        For a bad ``checkpoint_every``, ``threads`` or device.

    Examples
    --------
    >>> from qwem_lib import fc
    >>> data = fc.make_dataset(fc.make_task(nc=3, nw=12, L=2, K=4, seed=0), nspl=5, seed=1)
    >>> r = fc.train_fc(data, fc.FCTrainConfig(epochs=4, d=6, batch=5, eval_every=2), device="cpu",
    ...                 cache=False, progress=False)
    >>> r.features.shape, r.history["epoch"].tolist()
    ((12, 6), [0.0, 2.0, 4.0])
    """
    if checkpoint_every is not None and (
        int(checkpoint_every) != checkpoint_every or checkpoint_every < 1
    ):
        raise ValueError(
            f"checkpoint_every must be None or a positive integer, got {checkpoint_every!r}"
        )
    dev = torch.device(device) if device is not None else config.device()
    path = _cache_path(data, cfg, dev)
    z = (
        read_npz(
            path,
            ("embeddings", "features", "U", "seconds"),
            shapes={
                "embeddings": (None, cfg.d),
                "features": (None, cfg.d),
                "U": (None, None, cfg.d),
            },
            finite=("embeddings", "features", "U"),
        )
        if cache
        else None
    )
    if z is not None:
        hist = {k[2:]: z[k] for k in z if k.startswith("h_")}
        return FCResult(
            cfg,
            z["embeddings"],
            z["features"],
            z["U"],
            hist,
            float(z["seconds"]),
            cached=True,
            ln_gain=z.get("ln_gain"),
            ln_bias=z.get("ln_bias"),
        )

    with cpu_threads(threads, dev):
        resumable = path if checkpoint_every else None  # its checkpoint lies beside the result
        res = _train(data, cfg, dev, progress, desc, resumable, checkpoint_every, _interrupt_after)
    Checkpoint(resumable).clear()
    if cache:
        # dict[str, Any]: numpy's stub also matches **kwds against savez's bool allow_pickle
        arrays: dict[str, Any] = {f"h_{k}": v for k, v in res.history.items()}
        if cfg.ln_affine:
            arrays.update(ln_gain=res.ln_gain, ln_bias=res.ln_bias)
        save_npz(
            path,
            dict(
                embeddings=res.embeddings,
                features=res.features,
                U=res.U,
                seconds=res.seconds,
                **arrays,
            ),
        )
    return res


def sgd_epoch(
    E: torch.Tensor,
    U: torch.Tensor,
    xs: torch.Tensor,
    ys: torch.Tensor,
    *,
    lr: float,
    wd_W: float,
    wd_U: float,
    batch: int,
    layer_norm: bool = False,
    ln_eps: float = 1e-5,
    matmul_dtype: torch.dtype = torch.float32,
    ln_gain: torch.Tensor | None = None,
    ln_bias: torch.Tensor | None = None,
) -> None:
    """One epoch of minibatch SGD on ``h`` / ``h*``, in place, without autograd.

    ``E`` (nw, d) embeddings and ``U`` (K, L*d) linear weights (float32, updated in place); ``xs``
    (n, L) token ids and ``ys`` (n,) labels, already in the epoch's (shuffled) order; minibatches of
    ``batch`` consecutive rows, the last one shorter if ``batch`` does not divide ``n``.

    Every step is exactly what ``torch.optim.SGD(weight_decay=...)`` does to the mean cross-entropy:
    ``P <- P - lr * (grad + wd * P) = (1 - lr*wd) P - lr * grad`` for ``P = E`` and ``P = U``, with the
    gradients written out by hand (softmax minus one-hot for the scores, the LayerNorm backward pass
    for ``h*``, a scatter-add for the embedding rows). The decay touches every row of ``E`` at every
    step, as torch's dense embedding gradient does. What makes it fast: no autograd graph, no
    optimizer bookkeeping, and the update of ``U`` fused into one in-place ``addmm``
    (``U <- (1 - lr*wd_U) U - lr * G^T X``). The three products with ``U`` cost ``3 * B * K * L * d``
    multiply-adds per step and are the floor of the cost.

    ``matmul_dtype=torch.bfloat16`` runs those three products in bfloat16 (float32 accumulation inside
    the kernel; the weights, the decay and the update stay float32): about 2.5 times faster on CPUs with
    AVX512-BF16, at the price of roughly 3 significant digits in each gradient.

    ``ln_gain`` and ``ln_bias`` ((d,) float32, updated in place, both or neither; only with
    ``layer_norm``) make the LayerNorm learnable, ``gain * xhat + bias`` (Appendix A.2). They are
    trained by plain SGD without weight decay: ``d gain = sum (g * xhat)``, ``d bias = sum g`` over the
    minibatch's words, with ``g`` the gradient reaching the LayerNorm's output.
    """
    affine = ln_gain is not None or ln_bias is not None
    if affine and (ln_gain is None or ln_bias is None):
        raise ValueError("give both ln_gain and ln_bias, or neither")
    if affine and not layer_norm:
        raise ValueError("ln_gain / ln_bias need layer_norm=True")
    n, L = xs.shape
    d = E.shape[1]
    dec_W, dec_U = 1.0 - lr * wd_W, 1.0 - lr * wd_U
    low = matmul_dtype != torch.float32
    with torch.no_grad():
        for i in range(0, n, batch):
            xb, yb = xs[i : i + batch], ys[i : i + batch]
            B = xb.shape[0]
            e = E[xb]  # (B, L, d)
            if layer_norm:
                mu = e.mean(-1, keepdim=True)
                xc = e - mu
                rstd = torch.rsqrt(xc.pow(2).mean(-1, keepdim=True) + ln_eps)
                e = xc * rstd
            # both or neither (checked above): the test on the two is the test on affine
            X = (
                e * ln_gain + ln_bias if ln_gain is not None and ln_bias is not None else e
            ).reshape(B, L * d)
            if low:
                Xl, Ul = X.to(matmul_dtype), U.to(matmul_dtype)
                G = torch.softmax((Xl @ Ul.T).float(), dim=1)
            else:
                G = torch.softmax(X @ U.T, dim=1)  # (B, K)
            G[torch.arange(B), yb] -= 1.0
            G.div_(B)  # d(mean CE)/d(scores)
            if low:
                Gl = G.to(matmul_dtype)
                gX = (Gl @ Ul).float()
                U.mul_(dec_U).add_((Gl.T @ Xl).float(), alpha=-lr)
            else:
                gX = G @ U  # (B, L*d), before U moves
                U.addmm_(G.T, X, beta=dec_U, alpha=-lr)
            gX = gX.reshape(B, L, d)
            if affine:  # backward of gain * xhat + bias
                assert ln_gain is not None and ln_bias is not None  # both (checked above)
                g_gain = (gX * e).sum((0, 1))
                g_bias = gX.sum((0, 1))
                gX = gX * ln_gain
                ln_gain.add_(g_gain, alpha=-lr)
                ln_bias.add_(g_bias, alpha=-lr)
            if layer_norm:  # backward of the normalisation
                gX = rstd * (gX - gX.mean(-1, keepdim=True) - e * (gX * e).mean(-1, keepdim=True))
            if dec_W != 1.0:
                E.mul_(dec_W)
            E.index_add_(0, xb.reshape(-1), gX.reshape(B * L, d), alpha=-lr)


def autograd_epoch(
    net: FCNet, opt: torch.optim.Optimizer, xs: torch.Tensor, ys: torch.Tensor, batch: int
) -> None:
    """Reference epoch: the textbook loop (autograd, ``optimizer.step``) that :func:`sgd_epoch` replaces.

    Kept for the unit tests (both must give the same weights) and for :func:`steps_per_second`.
    """
    for i in range(0, xs.shape[0], batch):
        loss = torch.nn.functional.cross_entropy(net(xs[i : i + batch]), ys[i : i + batch])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()


def steps_per_second(
    K: int,
    *,
    nw: int = 1200,
    d: int = 100,
    L: int = 15,
    batch: int = 100,
    layer_norm: bool = False,
    impl: str = "fused",
    steps: int = 50,
    threads: int | None = 1,
    seed: int = 0,
) -> float:
    """Measured SGD steps per second of ``h`` / ``h*`` at these sizes (random tokens, one thread).

    ``impl="fused"`` times :func:`sgd_epoch` (what :func:`train_fc` runs), ``"autograd"`` the reference
    loop :func:`autograd_epoch`, ``"fused-bf16"`` :func:`sgd_epoch` with bfloat16 products. One warm-up
    step, then ``steps`` timed steps. The cost is dominated by three ``batch x (L d) x K`` products.
    """
    if impl not in ("fused", "autograd", "fused-bf16"):
        raise ValueError(f"impl must be 'fused', 'autograd' or 'fused-bf16', got {impl!r}")
    g = torch.Generator().manual_seed(seed)
    xs = torch.randint(0, nw, (batch * (steps + 1), L), generator=g)
    ys = torch.randint(0, K, (batch * (steps + 1),), generator=g)
    old = torch.get_num_threads()
    if threads is not None:
        torch.set_num_threads(threads)
    try:
        net = FCNet(nw, d, L, K, layer_norm=layer_norm)
        if impl == "autograd":
            opt = torch.optim.SGD(
                [
                    {"params": [net.embed.weight], "weight_decay": 1e-3},
                    {"params": [net.linear.weight], "weight_decay": 1e-3},
                ],
                lr=0.1,
            )
            run = lambda a, b: autograd_epoch(net, opt, xs[a:b], ys[a:b], batch)  # noqa: E731
        else:
            dt = torch.bfloat16 if impl == "fused-bf16" else torch.float32
            E, U = net.embed.weight.data, net.linear.weight.data
            run = lambda a, b: sgd_epoch(
                E,
                U,
                xs[a:b],
                ys[a:b],
                lr=0.1,
                wd_W=1e-3,  # noqa: E731
                wd_U=1e-3,
                batch=batch,
                layer_norm=layer_norm,
                matmul_dtype=dt,
            )
        run(0, batch)
        t0 = time.perf_counter()
        run(batch, batch * (steps + 1))
        return steps / (time.perf_counter() - t0)
    finally:
        torch.set_num_threads(old)


def _measure(net: FCNet, train: tuple[Any, Any], test: tuple[Any, Any]) -> tuple[float, ...]:
    """What :func:`train_fc` logs of ``net``, in evaluation mode: train accuracy, test accuracy, train loss,
    test loss (on ``(x, y)`` pairs), the mean and standard deviation of the word representations' norms,
    and the mean norm of the linear layer's ``K·L`` blocks ``u`` (``d`` weights each)."""
    net.eval()
    tr_acc, tr_loss = _evaluate(net, *train)
    te_acc, te_loss = _evaluate(net, *test)
    with torch.no_grad():
        norms = net.represent(net.embed.weight).norm(dim=1)
        un = net.linear.weight.reshape(net.K, net.L, net.d).norm(dim=2)
    net.train()
    return (
        tr_acc,
        te_acc,
        tr_loss,
        te_loss,
        norms.mean().item(),
        norms.std().item(),
        un.mean().item(),
    )


def _train(
    data: FCData,
    cfg: FCTrainConfig,
    dev,
    progress: bool,
    desc: str,
    resumable: Path | None = None,
    checkpoint_every: int | None = None,
    interrupt_after: int | None = None,
) -> FCResult:
    """The training of :func:`train_fc` (no cache): ``resumable`` is the path of the result whose
    checkpoint (:class:`~qwem_lib.book.cache.Checkpoint`) is saved every ``checkpoint_every`` epochs and
    resumed from; ``None`` saves none."""

    torch.manual_seed(config.SEED + cfg.seed)
    task = data.task
    net = FCNet(
        task.nw,
        cfg.d,
        task.L,
        task.K,
        layer_norm=cfg.layer_norm,
        init_scale=cfg.init_scale,
        ln_affine=cfg.ln_affine,
    ).to(dev)
    affine = dict(ln_gain=net.ln_gain.data, ln_bias=net.ln_bias.data) if cfg.ln_affine else {}
    E, U = net.embed.weight.data, net.linear.weight.data  # trained in place by sgd_epoch
    mm_dtype = {"float32": torch.float32, "bfloat16": torch.bfloat16}[cfg.precision]
    xtr = torch.as_tensor(data.x_train, device=dev)
    ytr = torch.as_tensor(data.y_train, device=dev)
    xte = torch.as_tensor(data.x_test, device=dev)
    yte = torch.as_tensor(data.y_test, device=dev)
    gen = torch.Generator(device="cpu").manual_seed(config.SEED + 7919 * (cfg.seed + 1))
    n_eval = min(cfg.eval_train_max, xtr.shape[0])
    eval_idx = torch.randperm(xtr.shape[0], generator=gen)[:n_eval].to(dev)
    xev, yev = xtr[eval_idx], ytr[eval_idx]

    keys = (
        "epoch",
        "step",
        "train_acc",
        "test_acc",
        "train_loss",
        "test_loss",
        "norm_mean",
        "norm_std",
        "u_norm_mean",
    )
    hist = Logs(*keys)
    n = xtr.shape[0]
    steps_per_epoch = -(-n // cfg.batch)

    def record(epoch: int) -> None:
        row = (epoch, epoch * steps_per_epoch, *_measure(net, (xev, yev), (xte, yte)))
        for k, v in zip(keys, row):
            hist[k].append(float(v))

    # steps of this loop are epochs: step s trains epoch s + 1
    ckp = Checkpoint(resumable, ("E", "U", "gen_state", "epoch", "seconds"))
    t0, start, spent = time.time(), 0, 0.0
    z = ckp.load()
    if z is not None:  # resume: weights, generator and history as they were after epoch z["epoch"]
        E.copy_(torch.as_tensor(z["E"]))
        U.copy_(torch.as_tensor(z["U"]))
        for k, v in affine.items():
            v.copy_(torch.as_tensor(z[k]))
        gen.set_state(torch.as_tensor(z["gen_state"]))
        hist.restore(z, "h_")
        start, spent = int(z["epoch"]), float(z["seconds"])

    def save(epoch: int) -> None:
        arrays = {k: v.cpu().numpy() for k, v in affine.items()}
        ckp.save(dict(E=E.cpu().numpy(), U=U.cpu().numpy(), gen_state=gen.get_state().numpy(),
                      epoch=epoch, seconds=spent + time.time() - t0, **hist.saved("h_"), **arrays))  # fmt: skip

    def advance(s: int) -> None:
        perm = torch.randperm(n, generator=gen).to(dev)
        sgd_epoch(
            E,
            U,
            xtr[perm],
            ytr[perm],
            lr=cfg.lr,
            wd_W=cfg.wd_W,
            wd_U=cfg.wd_U,
            batch=cfg.batch,
            layer_norm=cfg.layer_norm,
            ln_eps=net.ln_eps,
            matmul_dtype=mm_dtype,
            **affine,
        )

    run_steps(
        advance, start=start, stop=cfg.epochs,
        log_at=[0, *range(cfg.eval_every, cfg.epochs + 1, cfg.eval_every), cfg.epochs],
        record=record, save=save if resumable is not None else None, checkpoint_every=checkpoint_every,
        stop_after=None if interrupt_after is None else start + interrupt_after, save_on_stop=False,
        desc=desc if progress else None, mininterval=2.0,
        postfix=lambda: dict(test_acc=f"{hist['test_acc'][-1]:.3f}", norm=f"{hist['norm_mean'][-1]:.3f}"),
    )  # fmt: skip
    seconds = spent + time.time() - t0
    ln: dict[str, Any] = (
        {
            "ln_gain": net.ln_gain.detach().cpu().double().numpy(),
            "ln_bias": net.ln_bias.detach().cpu().double().numpy(),
        }
        if cfg.ln_affine
        else {}
    )
    return FCResult(
        cfg,
        net.embeddings(),
        net.word_features(),
        net.u(),
        hist.arrays(),
        seconds,
        **ln,
    )
