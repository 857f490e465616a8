"""Feature Collapse (Laurent, von Brecht & Bresson, ICLR 2024) — Part IV of the book.

Modules:

``data``
    the data model: concepts, words, latent variables, sentences (the paper's Figure 1)
``networks``
    the networks h and h* (Figure 2), with an optional learnable LayerNorm (Appendix A.2)
``training``
    the fused minibatch-SGD trainer, its autograd reference and a speed benchmark
``collapse``
    the collapse metric shared by every chapter of Part IV (within/between ratio, cosines), angles, norms, PCA
``theory``
    the theorems' constants (H, H*, tau, the system (7)-(8)) and the exact regularised risk
``transformers``
    the A.3 classifier and A.4 GPT-2-shaped language model (torch's TransformerEncoder)
``grammar``
    the A.5 context-free grammar (generation, inside probabilities) and the network mirroring it

``from qwem_lib import fc`` gives the names of ``data``, ``networks``, ``training`` and ``collapse``
(``fc.make_task``, ``fc.train_fc``, ``fc.collapse_stats`` ...); ``fc.theory``, ``fc.transformers`` and
``fc.grammar`` are imported as modules.
"""

from . import collapse, data, grammar, networks, theory, training, transformers  # noqa: F401
from .collapse import *  # noqa: F401,F403
from .data import *  # noqa: F401,F403
from .networks import *  # noqa: F401,F403
from .training import *  # noqa: F401,F403

__all__ = data.__all__ + networks.__all__ + training.__all__ + collapse.__all__
