"""qwem_lib — the shared library of the textbook on QWEM and Feature Collapse.

The rooms (CONTRIBUTING.md, "Where things live"; the import contracts in pyproject.toml):

``book`` — the book's own machinery, below everything
    ``config`` (presets, device, seeds, cache directory), ``cache`` (atomic writes, checked
    reads), ``report`` (assert-and-record claims, the
    report), ``paper_map`` (the papers' statements and verdicts), ``plotting`` (the visual style)
``data`` — the data's path, one way: registry → sources → files (acquire, verify) → tokenizer → corpus
    (tokenise, cache)
``maths`` — shared mathematics below QWEM and FC: ``linalg`` (principal angles, descending eigenpairs, unit
    rows, offset share), ``stats`` (accuracy gaps, paired bootstrap gaps, replicate means, paired Spearman,
    permutation nulls)
QWEM's concepts (Parts I–III)
    ``theory`` (target, loss, Theorem 1, Proposition 2, Lemma 3.1), ``dynamics`` (gradient flow, alignment),
    ``corpus_stats`` (co-occurrence, M*, PMI), ``spectral`` (eigensolvers, svd embeddings),
    ``evaluation`` (analogies, similarity), ``w2v`` (the gensim baseline), ``pairs``, ``trainers``, ``runs``,
    ``measures`` (models trained on a corpus: pair sampling and estimators; the SGD and noiseless
    trainers; preset and ablation runs; subspace and step measures), ``task_vectors``
    (Marchenko–Pastur bulk, outlier, SNR)
Beyond the papers (Part V), above QWEM's modules
    ``untied`` (untied W ≠ W′ with word2vec's negatives: an asymmetric weighted factorisation, its SVD
    minimiser, balanced dynamics, a noiseless trainer),
    ``symmetry`` (cyclic word sets in M*: circulant blocks, Fourier modes, circles), ``contrastive``
    (contrastive learning as matrix factorisation: augmentation kernels, losses, a full-batch trainer),
    ``analogy_timing`` (when each analogy category is learned: Lemma 3.1's embeddings, accuracy curves,
    acquisition times, training snapshots)
``fc`` — Feature Collapse (Part IV), independent of QWEM's modules
    fc.data, fc.networks, fc.training, fc.collapse, fc.theory, fc.transformers, fc.grammar

The public names of every module are re-exported here (each module lists them in ``__all__``), except
``fc.theory``'s, which are read from ``qwem_lib.fc.theory``.
"""

from . import book, data  # noqa: F401
from .analogy_timing import *  # noqa: F401,F403
from .book import config, paper_map, plotting, report  # noqa: F401
from .book.plotting import plot_steps  # noqa: F401
from .book.report import Report  # noqa: F401
from .contrastive import *  # noqa: F401,F403
from .corpus_stats import *  # noqa: F401,F403
from .data import Corpus, DataError, fetch, load_corpus  # noqa: F401
from .data.tokenizer import *  # noqa: F401,F403
from .dynamics import *  # noqa: F401,F403
from .evaluation import *  # noqa: F401,F403
from .fc import *  # noqa: F401,F403
from .maths import *  # noqa: F401,F403
from .measures import *  # noqa: F401,F403
from .pairs import *  # noqa: F401,F403
from .runs import *  # noqa: F401,F403
from .spectral import *  # noqa: F401,F403
from .symmetry import *  # noqa: F401,F403
from .task_vectors import *  # noqa: F401,F403
from .theory import *  # noqa: F401,F403
from .trainers import *  # noqa: F401,F403
from .untied import *  # noqa: F401,F403
from .w2v import *  # noqa: F401,F403

__version__ = "0.1.0"
