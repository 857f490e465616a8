"""QWEM's concepts (Parts I–III of the book).

``theory`` (the target M*, the loss, Theorem 1, Proposition 2, Lemma 3.1), ``dynamics`` (the gradient flow and
alignment), ``corpus_stats`` (co-occurrence, M*, PMI from a corpus), ``spectral`` (eigensolvers and svd
embeddings), ``evaluation`` (analogies and word similarity), ``w2v`` (the gensim baseline), ``pairs`` (pair
sampling and the loss's estimators), ``trainers`` (minibatch SGD), ``noiseless`` (gradient descent and flow on
the exact expected loss, L-BFGS, the eigenbasis flow), ``gradient_noise`` (the minibatch gradient's noise),
``runs`` (the presets' and the ablation's runs, the authors' learning rate), ``measures`` (subspace and step
measures of trained models), ``task_vectors`` (Marchenko–Pastur bulk, outliers, signal-to-noise).

Every module's public names (its ``__all__``) are re-exported by :mod:`qwem_lib`; chapters call them as
``q.<name>``.
"""

from .corpus_stats import *  # noqa: F401,F403
from .dynamics import *  # noqa: F401,F403
from .evaluation import *  # noqa: F401,F403
from .gradient_noise import *  # noqa: F401,F403
from .measures import *  # noqa: F401,F403
from .noiseless import *  # noqa: F401,F403
from .pairs import *  # noqa: F401,F403
from .runs import *  # noqa: F401,F403
from .spectral import *  # noqa: F401,F403
from .task_vectors import *  # noqa: F401,F403
from .theory import *  # noqa: F401,F403
from .trainers import *  # noqa: F401,F403
from .w2v import *  # noqa: F401,F403
