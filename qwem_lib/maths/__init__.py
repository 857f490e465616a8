"""Shared mathematics, below both QWEM's modules and Feature Collapse (CONTRIBUTING.md, "Where things live").

``linalg``
    principal angles between subspaces, eigendecompositions in descending order, unit rows, the offset
    (constant-direction) share of an embedding
``stats``
    the statistics several chapters use: binomial and paired-bootstrap gaps, replicate means, a paired
    Spearman interval, a permutation null

A helper lives here when two rooms of the library (or two chapters) need it; it imports nothing of the
library, so every room may import it.
"""

from . import linalg, stats
from .linalg import *  # noqa: F401,F403
from .stats import *  # noqa: F401,F403

__all__ = linalg.__all__ + stats.__all__
