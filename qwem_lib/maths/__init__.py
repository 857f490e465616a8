"""Shared mathematics, below both QWEM's modules and Feature Collapse (CONTRIBUTING.md, "Where things live").

``linalg``
    principal angles between subspaces, eigendecompositions in descending order, unit rows, the offset
    (constant-direction) share of an embedding
``stats``
    the statistics several chapters use: binomial and paired-bootstrap gaps, replicate means, a paired
    Spearman interval, a permutation null, rank correlations (partial Spearman, Spearman with its
    uncertainty)
``random_matrix``
    a spiked random matrix: the Marchenko–Pastur law, the BBP outlier, the method-of-moments fit of a bulk
    plus one outlier, and its nulls (fitted to analogy task vectors in Part III)

A helper lives here when two rooms of the library (or two chapters) need it, or when it is mathematics that
is no concept of either paper; it imports nothing of the library but the book's machinery, so every room
may import it.
"""

from . import linalg, random_matrix, stats
from .linalg import *  # noqa: F401,F403
from .random_matrix import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403

__all__ = linalg.__all__ + stats.__all__ + random_matrix.__all__
