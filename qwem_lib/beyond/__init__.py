"""Beyond the papers (Part V of the book), built on QWEM's modules.

``untied`` (untied W ≠ W′ with word2vec's negatives: an asymmetric weighted factorisation, its SVD minimiser,
balanced dynamics, a noiseless trainer), ``symmetry`` (cyclic word sets in M*: circulant blocks, Fourier
modes, circles), ``contrastive`` (contrastive learning as matrix factorisation: augmentation kernels, losses,
a full-batch trainer), ``analogy_timing`` (when each analogy category is learned: Lemma 3.1's embeddings,
accuracy curves, acquisition times, training snapshots).

Every module's public names (its ``__all__``) are re-exported by :mod:`qwem_lib`.
"""

from .analogy_timing import *  # noqa: F401,F403
from .contrastive import *  # noqa: F401,F403
from .symmetry import *  # noqa: F401,F403
from .untied import *  # noqa: F401,F403
