"""The two networks of Feature Collapse (the paper's Figure 2).

``h``  : Embedding(nw, d) -> concatenate the L embeddings -> Linear(L*d, K, no bias);
``h*`` : the same with a LayerNorm applied to each embedding before concatenation: parameter-free in
the paper's main text, with a learnable gain and bias (``ln_affine=True``) in its Appendix A.2.
Both weight matrices start at torch's default initialisation divided by 1000 (as in the authors'
code). Embeddings are ``(nw, d)`` arrays (rows = words; the paper's ``W`` is the transpose).
"""

from __future__ import annotations

import numpy as np
import torch

__all__ = ["FCNet"]


class FCNet(torch.nn.Module):
    """The paper's network ``h`` (``layer_norm=False``) or ``h*`` (``layer_norm=True``).

    ``x`` (B, L) token ids -> embeddings (B, L, d) -> [LayerNorm] -> flatten (B, L*d) -> linear map
    without bias -> scores (B, K). Both weights are torch's default initialisation times
    ``init_scale`` (default 1/1000, as in the authors' code). The LayerNorm has no parameters unless
    ``ln_affine=True`` (Appendix A.2): then it is ``gain * (e - mean) / std + bias`` with a learnable
    gain (initialised to 1) and bias (initialised to 0) shared by all words and positions, as in
    ``torch.nn.LayerNorm(d)``.
    """

    def __init__(
        self,
        nw: int,
        d: int,
        L: int,
        K: int,
        layer_norm: bool = False,
        init_scale: float = 1e-3,
        ln_eps: float = 1e-5,
        ln_affine: bool = False,
    ) -> None:
        super().__init__()
        for name, v in (("nw", nw), ("d", d), ("L", L), ("K", K)):
            if int(v) != v or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}")
        self.nw, self.d, self.L, self.K = int(nw), int(d), int(L), int(K)
        if ln_affine and not layer_norm:
            raise ValueError(
                "ln_affine=True needs layer_norm=True (there is no LayerNorm to give parameters)"
            )
        self.layer_norm = bool(layer_norm)
        self.ln_affine = bool(ln_affine)
        self.ln_eps = float(ln_eps)
        if self.ln_affine:
            self.ln_gain = torch.nn.Parameter(torch.ones(self.d))
            self.ln_bias = torch.nn.Parameter(torch.zeros(self.d))
        self.embed = torch.nn.Embedding(self.nw, self.d)
        self.linear = torch.nn.Linear(self.L * self.d, self.K, bias=False)
        with torch.no_grad():
            self.embed.weight.mul_(init_scale)
            self.linear.weight.mul_(init_scale)

    def represent(self, e):
        """Word representation: the embedding itself (h) or its LayerNorm (h*)."""
        if not self.layer_norm:
            return e
        if self.ln_affine:
            return torch.nn.functional.layer_norm(
                e, (self.d,), self.ln_gain, self.ln_bias, eps=self.ln_eps
            )
        return torch.nn.functional.layer_norm(e, (self.d,), eps=self.ln_eps)

    def forward(self, x):
        e = self.represent(self.embed(x))  # (B, L, d)
        return self.linear(e.reshape(e.shape[0], -1))

    def word_features(self) -> np.ndarray:
        """(nw, d) word representations: embeddings, after the LayerNorm when the net has one."""
        with torch.no_grad():
            return self.represent(self.embed.weight).detach().cpu().double().numpy()

    def embeddings(self) -> np.ndarray:
        """(nw, d) raw embeddings (rows of the embedding table = columns of the paper's W)."""
        return self.embed.weight.detach().cpu().double().numpy()

    def u(self) -> np.ndarray:
        """(K, L, d) linear weights ``u_{k,l}`` (the paper's partition (1) of U)."""
        return self.linear.weight.detach().cpu().double().numpy().reshape(self.K, self.L, self.d)
