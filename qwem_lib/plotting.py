"""One visual style for the whole book, and small figure helpers.

Every chapter calls :func:`use_style` once. Figures are labelled (axis labels with units or symbols,
a title naming the figure) and each is followed in the chapter by a Markdown caption.
"""

from __future__ import annotations

import matplotlib

import matplotlib.pyplot as plt

PALETTE = ["#1b6ca8", "#d1495b", "#edae49", "#00798c", "#6c4f9c", "#66a182", "#8d8d8d", "#2e4057"]
"""The book's categorical colours (colour-blind-safe enough for line plots)."""

CMAP = "viridis"
"""The book's sequential colour map."""


def use_style() -> None:
    """Apply the book's style: seaborn's white-grid theme, the book palette, readable sizes."""
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook", palette=PALETTE)
    matplotlib.rcParams.update({
        "figure.figsize": (6.4, 4.0),
        "figure.dpi": 100,
        "savefig.dpi": 150,
        "axes.titlesize": 11,
        "axes.labelsize": 10,
        "legend.fontsize": 9,
        "figure.constrained_layout.use": True,
        "image.cmap": CMAP,
    })


def figure(nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.0, **kw):
    """``plt.subplots`` with the book's default sizes scaled by the grid."""
    return plt.subplots(nrows, ncols, figsize=(width * ncols ** 0.85, height * nrows ** 0.85), **kw)


def label(ax, title: str, xlabel: str, ylabel: str) -> None:
    """Set the three labels every axis in the book must have."""
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
