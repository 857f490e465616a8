"""qwem_lib — the shared library of the textbook on QWEM and Feature Collapse.

The rooms (CONTRIBUTING.md, "Where things live"; the import contracts in pyproject.toml):

``book`` — the book's own machinery, below everything
    ``config`` (presets, device, seeds, cache directory), ``cache`` (atomic writes, checked
    reads), ``loop`` (the one training loop of every trainer), ``report`` (assert-and-record claims, the
    report), ``paper_map`` (the papers' statements and verdicts), ``plotting`` (the visual style)
``data`` — the data's path, one way: registry → sources → files (acquire, verify) → tokenizer → corpus
    (tokenise, cache)
``maths`` — shared mathematics below QWEM and FC: ``linalg`` (principal angles, descending eigenpairs, unit
    rows, offset share), ``stats`` (accuracy gaps, paired bootstrap gaps, replicate means, paired and partial
    Spearman, permutation nulls), ``random_matrix`` (Marchenko–Pastur law, BBP outliers, the spiked-MP fit,
    shuffle and sign-flip nulls)
``qwem`` — QWEM's concepts (Parts I–III)
    ``theory`` (target, loss, Theorem 1, Proposition 2, Lemma 3.1), ``dynamics`` (gradient flow, alignment),
    ``corpus_stats`` (co-occurrence, M*, PMI), ``spectral`` (eigensolvers, svd embeddings),
    ``evaluation`` (analogies, similarity), ``w2v`` (the gensim baseline), ``pairs``, ``trainers``,
    ``noiseless``, ``gradient_noise``, ``runs``, ``measures`` (models trained on a corpus: pair sampling
    and estimators; the minibatch SGD trainer; the exact-expected-gradient trainer, flow and L-BFGS;
    gradient-noise analysis; preset and ablation runs; subspace and step measures), ``task_vectors``
    (analogy task vectors as spiked random matrices: bulk, outlier, SNR)
``beyond`` — beyond the papers (Part V), above ``qwem``
    ``untied``, ``symmetry``, ``contrastive``, ``analogy_timing``
``flow`` — the stiff-safe integrator of gradient flows (adaptive Runge–Kutta–Chebyshev), beside ``maths``
``fc`` — Feature Collapse (Part IV), independent of QWEM's modules
    fc.data, fc.networks, fc.training, fc.collapse, fc.theory, fc.transformers, fc.grammar

The public names of every module are re-exported here (each module lists them in ``__all__``), except
``fc.theory``'s, which are read from ``qwem_lib.fc.theory``.
"""

from . import beyond, book, data, qwem  # noqa: F401
from .beyond import *  # noqa: F401,F403
from .book import config, paper_map, plotting, report  # noqa: F401
from .book.plotting import plot_steps  # noqa: F401
from .book.report import Report  # noqa: F401
from .data import Corpus, DataError, fetch, load_corpus  # noqa: F401
from .data.tokenizer import *  # noqa: F401,F403
from .fc import *  # noqa: F401,F403
from .maths import *  # noqa: F401,F403
from .qwem import *  # noqa: F401,F403

__version__ = "0.1.0"
