"""qwem_lib — the shared library of the textbook on QWEM and Feature Collapse.

Modules:

``config``
    presets (QWEM_PRESET), device (QWEM_DEVICE), seeds, cache directory
``report``
    assert-and-record claims; aggregation into REPRODUCTION.md and claims.json
``data``
    checksummed dataset registry, downloads, cached corpus tokenisation
``tokenizer``
    the compiled streaming byte-level tokeniser behind data.load_corpus
``plotting``
    the book's single visual style
``theory``
    QWEM theory: target matrix, loss, Theorem 1, Proposition 2, Lemma 3.1 (Part I)
``dynamics``
    gradient-descent trainers and alignment measurements for QWEM (Part I)
``corpus_stats``, ``spectral``, ``evaluation``, ``w2v``
    co-occurrence statistics, svd(M*/PMI/PPMI) embeddings, benchmarks, the gensim baseline (Part II)
``training``
    QWEM and SGNS trained by SGD on word pairs sampled from a corpus (Part II)
``task_vectors``
    analogy task vectors: Marchenko–Pastur bulk + outlier fit, SNR (Part III)
``symmetry``, ``contrastive``
    beyond the papers (Part V): cyclic word sets in M* (circulant blocks, Fourier modes, circles) and
    contrastive learning as matrix factorisation (augmentation kernels, losses, a full-batch trainer)
``fc``
    Feature Collapse (Part IV), a subpackage: fc.data, fc.networks, fc.training, fc.collapse (the shared
    collapse metric), fc.theory (theorem solvers, exact risk), fc.transformers, fc.grammar

The public names of every module are re-exported here (each module lists them in ``__all__``).
"""

from . import config, data, plotting, report  # noqa: F401
from .contrastive import *  # noqa: F401,F403
from .corpus_stats import *  # noqa: F401,F403
from .data import Corpus, DataError, fetch, load_corpus  # noqa: F401
from .dynamics import *  # noqa: F401,F403
from .evaluation import *  # noqa: F401,F403
from .fc import *  # noqa: F401,F403
from .fc.theory import *  # noqa: F401,F403
from .report import Report  # noqa: F401
from .spectral import *  # noqa: F401,F403
from .symmetry import *  # noqa: F401,F403
from .task_vectors import *  # noqa: F401,F403
from .theory import *  # noqa: F401,F403
from .tokenizer import *  # noqa: F401,F403
from .training import *  # noqa: F401,F403
from .w2v import *  # noqa: F401,F403

__version__ = "0.1.0"
