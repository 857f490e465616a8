"""Transformers on the Feature Collapse data model (the paper's Appendix A.3-A.4).

Two models built from torch's own modules (``nn.TransformerEncoderLayer`` with pre-LayerNorm and GELU,
as in GPT-2; absolute learned positional embeddings; a final LayerNorm):

* :class:`FCTransformerClassifier` (A.3) reads a sentence of ``L`` word ids followed by one
  classification token (id ``nw``) and predicts the class ``k`` of the sentence from the last layer's
  output at that token. Attention is bidirectional.
* :class:`FCTransformerLM` (A.4) is GPT-2-shaped: causal self-attention (a token attends only to
  itself and the tokens before it) and a next-token head tied to the word embeddings.

Both start from GPT-2's initialisation (normal, standard deviation 0.02, zero biases). Their
:meth:`word_embeddings` are the rows of the token-embedding table *before* the positional embeddings
are added, the vectors the paper plots in its Figure 8. They are trained by AdamW with the paper's
settings by :func:`train_transformer` (cached like :func:`qwem_lib.fc.train_fc`).
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from ..book import config
from ..book.cache import read_npz, save_npz
from .data import FCData
from .training import cpu_threads

__all__ = [
    "FCTransformerClassifier",
    "FCTransformerLM",
    "causal_mask",
    "TransformerTrainConfig",
    "TransformerResult",
    "train_transformer",
]


def causal_mask(n: int, device: Any = None) -> torch.Tensor:
    """(n, n) additive attention mask: 0 on and below the diagonal, ``-inf`` above (no peeking ahead)."""
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    return nn.Transformer.generate_square_subsequent_mask(int(n), device=device)


class _Backbone(nn.Module):
    """Token + positional embeddings, ``n_layers`` pre-LN encoder layers, final LayerNorm."""

    def __init__(
        self,
        vocab: int,
        length: int,
        d_model: int,
        n_heads: int,
        n_layers: int,
        d_ff: int | None,
        dropout: float,
    ) -> None:
        super().__init__()
        for name, v in (
            ("vocab", vocab),
            ("length", length),
            ("d_model", d_model),
            ("n_heads", n_heads),
            ("n_layers", n_layers),
        ):
            if int(v) != v or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} must be divisible by n_heads={n_heads}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"dropout must be in [0, 1), got {dropout}")
        self.length = int(length)
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(length, d_model)
        layer = nn.TransformerEncoderLayer(
            d_model,
            n_heads,
            d_ff or 4 * d_model,
            dropout=dropout,
            activation="gelu",
            batch_first=True,
            norm_first=True,
        )
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(d_model)

    def forward(self, ids: torch.Tensor, causal: bool) -> torch.Tensor:
        if ids.ndim != 2 or ids.shape[1] > self.length:
            raise ValueError(
                f"expected token ids of shape (B, <= {self.length}), got {tuple(ids.shape)}"
            )
        n = ids.shape[1]
        h = self.tok(ids) + self.pos(torch.arange(n, device=ids.device))
        mask = causal_mask(n, ids.device) if causal else None
        return self.ln_f(self.encoder(h, mask=mask, is_causal=causal))


def _gpt2_init(module: nn.Module) -> None:
    for m in module.modules():
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
            if isinstance(m, nn.Linear) and m.bias is not None:
                nn.init.zeros_(m.bias)
        elif isinstance(m, nn.MultiheadAttention):
            nn.init.normal_(m.in_proj_weight, std=0.02)
            nn.init.zeros_(m.in_proj_bias)


class FCTransformerClassifier(nn.Module):
    """A.3: sentence of ``L`` words + a classification token (id ``nw``) -> class scores (B, K).

    ``x`` (B, L) word ids in ``0..nw-1``; the classification token is appended at position ``L`` and the
    head reads the final representation there. Defaults: the paper's 2 layers, 8 heads, width 512.
    """

    def __init__(
        self,
        nw: int,
        L: int,
        K: int,
        d_model: int = 512,
        n_heads: int = 8,
        n_layers: int = 2,
        d_ff: int | None = None,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if int(K) != K or K < 2:
            raise ValueError(f"K must be an integer >= 2, got {K!r}")
        self.nw, self.L, self.K = int(nw), int(L), int(K)
        self.body = _Backbone(self.nw + 1, self.L + 1, d_model, n_heads, n_layers, d_ff, dropout)
        self.head = nn.Linear(d_model, self.K)
        _gpt2_init(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.ndim != 2 or x.shape[1] != self.L:
            raise ValueError(f"expected word ids of shape (B, {self.L}), got {tuple(x.shape)}")
        cls = torch.full((x.shape[0], 1), self.nw, dtype=x.dtype, device=x.device)
        h = self.body(torch.cat([x, cls], dim=1), causal=False)
        return self.head(h[:, -1])

    def word_embeddings(self) -> np.ndarray:
        """(nw, d_model) token embeddings of the words (classification token excluded)."""
        return self.body.tok.weight[: self.nw].detach().cpu().double().numpy()


class FCTransformerLM(nn.Module):
    """A.4: a GPT-2-shaped language model on sentences of ``L`` words: (B, n) ids -> (B, n, nw) logits.

    Causal self-attention; the output layer is the transpose of the word-embedding table (tied, as in
    GPT-2). Defaults: 2 layers, 8 heads, width 512.
    """

    def __init__(
        self,
        nw: int,
        L: int,
        d_model: int = 512,
        n_heads: int = 8,
        n_layers: int = 2,
        d_ff: int | None = None,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.nw, self.L = int(nw), int(L)
        self.body = _Backbone(self.nw, self.L, d_model, n_heads, n_layers, d_ff, dropout)
        _gpt2_init(self)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x, causal=True) @ self.body.tok.weight.T

    def word_embeddings(self) -> np.ndarray:
        """(nw, d_model) token embeddings."""
        return self.body.tok.weight.detach().cpu().double().numpy()


@dataclass(frozen=True)
class TransformerTrainConfig:
    """AdamW training of a transformer (defaults: the paper's A.3-A.4 optimiser settings).

    ``task`` is ``"classify"`` (A.3) or ``"next_token"`` (A.4). ``n_train`` limits the training set to
    its first sentences (``None``: all of them).
    """

    task: str
    epochs: int
    d_model: int = 512
    n_heads: int = 8
    n_layers: int = 2
    lr: float = 1e-4
    weight_decay: float = 0.1
    beta1: float = 0.9
    beta2: float = 0.95
    batch: int = 100
    n_train: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        if self.task not in ("classify", "next_token"):
            raise ValueError(f"task must be 'classify' or 'next_token', got {self.task!r}")
        if int(self.epochs) != self.epochs or self.epochs < 1:
            raise ValueError(f"epochs must be a positive integer, got {self.epochs!r}")
        if self.batch < 1 or not self.lr > 0 or self.weight_decay < 0:
            raise ValueError("batch must be >= 1, lr > 0 and weight_decay >= 0")
        if self.n_train is not None and self.n_train < 1:
            raise ValueError(f"n_train must be None or >= 1, got {self.n_train}")


@dataclass
class TransformerResult:
    """``embeddings`` (nw, d_model) word embeddings after training; ``history`` maps ``step``,
    ``train_loss`` (mean over the last stretch of steps), ``test_loss`` and ``test_acc`` (class accuracy
    for A.3, next-token accuracy for A.4) to arrays over the evaluation points. ``init_embeddings`` are
    the word embeddings at initialisation and ``snapshots`` (n_evaluations, nw, d_model) the word
    embeddings at every evaluation point (the first one is the initialisation)."""

    config: TransformerTrainConfig
    embeddings: np.ndarray
    history: dict[str, np.ndarray]
    seconds: float
    cached: bool = False
    init_embeddings: np.ndarray | None = None
    snapshots: np.ndarray | None = None

    @property
    def decay_factor(self) -> float:
        """``(1 - lr * weight_decay) ** steps``: what AdamW's decoupled decay alone leaves of any weight
        (it multiplies every weight by ``1 - lr * weight_decay`` at every step, at the constant rate)."""
        steps = int(self.history["step"][-1])
        return float((1.0 - self.config.lr * self.config.weight_decay) ** steps)

    def snapshot_decay_factors(self) -> np.ndarray:
        """:attr:`decay_factor` at every evaluation point: ``(1 - lr * weight_decay) ** step``, one per
        row of ``snapshots`` (the first, at step 0, is 1)."""
        steps = np.asarray(self.history["step"], dtype=float)
        return np.asarray((1.0 - self.config.lr * self.config.weight_decay) ** steps)

    def displacement(self) -> np.ndarray:
        """The learned part of the embeddings, ``E - decay_factor * E0``: what the gradients moved,
        with the decayed initialisation (which carries no information about the task) removed."""
        if self.init_embeddings is None:
            raise ValueError("displacement needs init_embeddings, and this result has none")
        return self.embeddings - self.decay_factor * self.init_embeddings

    @property
    def test_acc(self) -> float:
        return float(self.history["test_acc"][-1])


def _loss_acc(
    model: nn.Module, task: str, x: torch.Tensor, y: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    if task == "classify":
        out = model(x)
        return nn.functional.cross_entropy(out, y), (out.argmax(1) == y).float().mean()
    out = model(x[:, :-1])  # predict word l+1 from words 0..l
    tgt = x[:, 1:]
    return (
        nn.functional.cross_entropy(out.reshape(-1, out.shape[-1]), tgt.reshape(-1)),
        (out.argmax(-1) == tgt).float().mean(),
    )


def _cache_key(data: FCData, cfg: TransformerTrainConfig) -> str:
    return hashlib.sha256(
        json.dumps(["fc-transformer-v2", data.fingerprint(), asdict(cfg)], sort_keys=True).encode()
    ).hexdigest()[:20]


def train_transformer(
    data: FCData,
    cfg: TransformerTrainConfig,
    *,
    n_evals: int = 10,
    device: Any = None,
    cache: bool = True,
    progress: bool = True,
    desc: str = "transformer",
    return_model: bool = False,
    threads: int | None = 1,
) -> TransformerResult | tuple[TransformerResult, nn.Module]:
    """Train an A.3 classifier or an A.4 language model on ``data`` with AdamW; evaluate ``n_evals`` times.

    Seeded by ``config.SEED + cfg.seed`` (initialisation and minibatch order); with the same seed and
    data two runs give the same weights. The result (not the model) is cached under
    ``config.cache_dir()/fc``; ``return_model=True`` always trains and also returns the model.
    ``threads`` CPU threads for torch during training (restored afterwards; 1 by default, as for
    :func:`qwem_lib.fc.train_fc`: on a shared machine extra OpenMP threads spin-wait); ``None`` keeps
    torch's setting.
    """
    if n_evals < 1:
        raise ValueError(f"n_evals must be >= 1, got {n_evals}")
    path = config.cache_dir() / "fc" / f"transformer_{_cache_key(data, cfg)}.npz"
    if cache and not return_model:
        z = read_npz(path, ("embeddings", "seconds", "init_embeddings", "snapshots"))
        if z is not None:
            return TransformerResult(
                cfg,
                z["embeddings"],
                {k[2:]: z[k] for k in z if k.startswith("h_")},
                float(z["seconds"]),
                cached=True,
                init_embeddings=z["init_embeddings"],
                snapshots=z["snapshots"],
            )
    dev = torch.device(device) if device is not None else config.device()
    with cpu_threads(threads, dev):
        res, model = _train_transformer(data, cfg, n_evals, dev, progress, desc)
    if cache:
        assert res.init_embeddings is not None and res.snapshots is not None  # set by the training
        # dict[str, Any]: numpy's stub also matches **kwds against savez's bool allow_pickle
        history: dict[str, Any] = {f"h_{k}": v for k, v in res.history.items()}
        save_npz(path, dict(embeddings=res.embeddings, init_embeddings=res.init_embeddings,
                            snapshots=res.snapshots, seconds=res.seconds, **history))  # fmt: skip
    return (res, model) if return_model else res


def _train_transformer(
    data: FCData, cfg: TransformerTrainConfig, n_evals: int, dev: Any, progress: bool, desc: str
) -> tuple[TransformerResult, nn.Module]:
    from tqdm import tqdm

    torch.manual_seed(config.SEED + cfg.seed)
    task = data.task
    if cfg.task == "classify":
        model: FCTransformerClassifier | FCTransformerLM = FCTransformerClassifier(
            task.nw, task.L, task.K, cfg.d_model, cfg.n_heads, cfg.n_layers
        )
    else:
        model = FCTransformerLM(task.nw, task.L, cfg.d_model, cfg.n_heads, cfg.n_layers)
    model.to(dev)
    opt = torch.optim.AdamW(
        model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay, betas=(cfg.beta1, cfg.beta2)
    )
    n = data.x_train.shape[0] if cfg.n_train is None else min(cfg.n_train, data.x_train.shape[0])
    xtr = torch.as_tensor(data.x_train[:n], device=dev)
    ytr = torch.as_tensor(data.y_train[:n], device=dev)
    xte = torch.as_tensor(data.x_test, device=dev)
    yte = torch.as_tensor(data.y_test, device=dev)
    gen = torch.Generator().manual_seed(config.SEED + 104729 * (cfg.seed + 1))
    steps_per_epoch = -(-n // cfg.batch)
    total = cfg.epochs * steps_per_epoch
    eval_at = set(np.unique(np.linspace(0, total, n_evals + 1).round().astype(int)).tolist())
    hist: dict[str, list[float]] = {k: [] for k in ("step", "train_loss", "test_loss", "test_acc")}
    recent: list[float] = []
    snaps: list[np.ndarray] = []
    init = model.word_embeddings()

    def evaluate(step: int) -> None:
        model.eval()
        with torch.no_grad():
            losses, accs = zip(
                *(
                    _loss_acc(model, cfg.task, xte[i : i + 1000], yte[i : i + 1000])
                    for i in range(0, xte.shape[0], 1000)
                )
            )
        w = np.diff([0, *range(1000, xte.shape[0], 1000), xte.shape[0]])
        hist["step"].append(step)
        hist["train_loss"].append(float(np.mean(recent)) if recent else float("nan"))
        hist["test_loss"].append(float(np.average([l.item() for l in losses], weights=w)))
        hist["test_acc"].append(float(np.average([a.item() for a in accs], weights=w)))
        recent.clear()
        snaps.append(model.word_embeddings().astype(np.float32))
        model.train()

    t0, step = time.time(), 0
    evaluate(0)
    bar = tqdm(total=total, desc=desc, disable=not progress, mininterval=2.0)
    for _ in range(cfg.epochs):
        perm = torch.randperm(n, generator=gen).to(dev)
        for i in range(0, n, cfg.batch):
            idx = perm[i : i + cfg.batch]
            loss, _ = _loss_acc(model, cfg.task, xtr[idx], ytr[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            recent.append(loss.item())
            step += 1
            bar.update(1)
            if step in eval_at:
                evaluate(step)
                bar.set_postfix(test_acc=f"{hist['test_acc'][-1]:.3f}")
    bar.close()
    res = TransformerResult(
        cfg,
        model.word_embeddings(),
        {k: np.asarray(v) for k, v in hist.items()},
        time.time() - t0,
        init_embeddings=init,
        snapshots=np.stack(snaps),
    )
    return res, model
