"""One visual style for the whole book, and small figure helpers.

Every chapter calls :func:`use_style` once. Figures are labelled (axis labels with units or symbols,
a title naming the figure) and each is followed in the chapter by a Markdown caption.
"""

from __future__ import annotations

from typing import Any

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from . import checks

PALETTE = ["#1b6ca8", "#d1495b", "#edae49", "#00798c", "#6c4f9c", "#66a182", "#8d8d8d", "#2e4057"]
"""The book's categorical colours (colour-blind-safe enough for line plots)."""

CMAP = "viridis"
"""The book's sequential colour map."""


def use_style() -> None:
    """Apply the book's style: seaborn's white-grid theme, the book palette, readable sizes."""
    import seaborn as sns

    sns.set_theme(style="whitegrid", context="notebook", palette=PALETTE)
    matplotlib.rcParams.update(
        {
            "figure.figsize": (6.4, 4.0),
            "figure.dpi": 150,  # inline figures at the savefig resolution (site size rule: >= 150 dpi)
            "savefig.dpi": 150,
            "axes.titlesize": 11,
            "axes.labelsize": 10,
            "legend.fontsize": 9,
            "figure.constrained_layout.use": True,
            "image.cmap": CMAP,
        }
    )
    _hide_artist_reprs()


def _hide_artist_reprs() -> None:
    """In a notebook, a cell ending in ``ax.legend()`` (or another artist) shows no ``<… at 0x…>`` repr."""
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipykernel
        return
    ip = get_ipython()
    if ip is None:
        return
    import matplotlib.axes
    import matplotlib.collections
    import matplotlib.colorbar
    import matplotlib.image
    import matplotlib.legend
    import matplotlib.lines
    import matplotlib.patches
    import matplotlib.text

    # Not Figure: the inline backend shows figures through the same display machinery.
    for kind in (
        matplotlib.axes.Axes,
        matplotlib.collections.Collection,
        matplotlib.colorbar.Colorbar,
        matplotlib.image.AxesImage,
        matplotlib.legend.Legend,
        matplotlib.lines.Line2D,
        matplotlib.patches.Patch,
        matplotlib.text.Text,
    ):
        ip.display_formatter.ipython_display_formatter.for_type(kind, lambda obj: None)


COLUMN_WIDTH = 6.8
"""The widest a figure is drawn, in inches. The site's text column is 676 px, 7.04 in at the browser's 96 px
per inch; a figure no wider than that is shown at its natural size or larger, so the style's 9-pt text is
read at 9 pt or more (the size rule checked by ``website/test_site.py``)."""


def figure_size(nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.0):
    r"""The ``(width, height)`` in inches of a grid of panels, each nominally ``width`` × ``height``.

    The grid grows as ``n**0.85`` in each direction. A grid wider than :data:`COLUMN_WIDTH` is narrowed to
    it by a factor $s < 1$ and its height multiplied by $\sqrt{s}$ only (text keeps its point size, so the
    narrower panels need relatively more height for their labels). Raises ``ValueError`` for a grid
    dimension below 1 or a size that is not positive.
    """
    if int(nrows) != nrows or int(ncols) != ncols or nrows < 1 or ncols < 1:
        raise ValueError(f"nrows and ncols must be positive integers, got {nrows!r}, {ncols!r}")
    if not (np.isfinite(width) and np.isfinite(height) and width > 0 and height > 0):
        raise ValueError(f"width and height must be positive, got {width!r}, {height!r}")
    w, h = width * ncols**0.85, height * nrows**0.85
    if w > COLUMN_WIDTH:
        s = COLUMN_WIDTH / w
        w, h = COLUMN_WIDTH, h * s**0.5
    return float(w), float(h)


def figure(nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.0, **kw):
    """``plt.subplots`` with the book's default sizes scaled by the grid (:func:`figure_size`): never
    wider than the text column."""
    return plt.subplots(
        nrows, ncols, figsize=figure_size(nrows, ncols, width=width, height=height), **kw
    )


#: Average advance of a character of the book's sans-serif font, in ems (a generous estimate, so that a
#: wrapped line fits).
CHAR_EM = 0.58


def text_width(text: str) -> float:
    """Estimated width of ``text`` in ems of its font size: plain characters count :data:`CHAR_EM` each; in a
    ``$…$`` mathtext segment a ``\\command`` counts as one character, and braces, ``^`` and ``_`` as none
    (sub- and superscripts are drawn smaller)."""
    import re

    n = 0.0
    for i, part in enumerate(text.split("$")):
        if i % 2:  # inside $...$
            part = re.sub(r"\\[A-Za-z]+", "x", part)
            n += sum(c not in "{}^_ " for c in part) + 0.5 * part.count(" ")
        else:
            n += len(part)
    return n * CHAR_EM


def wrap(text: str, width_in: float, fontsize_pt: float) -> str:
    """``text`` broken into lines no wider than ``width_in`` inches at ``fontsize_pt`` (estimated by
    :func:`text_width`), at spaces outside mathtext (a ``$…$`` segment is never split); existing line breaks
    are kept. A single word wider than the line stays on a line of its own."""
    if width_in <= 0 or fontsize_pt <= 0:
        raise ValueError(f"width and font size must be positive, got {width_in!r}, {fontsize_pt!r}")
    limit = width_in * 72.0 / fontsize_pt  # the line's width in ems
    out = []
    for line in text.split("\n"):
        words, cur, in_math = [], "", False
        for ch in line:  # split at spaces outside $...$
            if ch == "$":
                in_math = not in_math
            if ch == " " and not in_math:
                words.append(cur)
                cur = ""
            else:
                cur += ch
        words.append(cur)
        lines: list[str] = []
        for w in words:
            if lines and text_width(lines[-1] + " " + w) <= limit:
                lines[-1] += " " + w
            else:
                lines.append(w)
        out.append("\n".join(lines))
    return "\n".join(out)


def _font_pt(key: str) -> float:
    from matplotlib.font_manager import FontProperties

    params: Any = matplotlib.rcParams
    size = params[key]  # e.g. "axes.titlesize": 11 or "large"
    return float(FontProperties(size=size).get_size_in_points())


def axes_size(ax) -> tuple[float, float]:
    """Estimated ``(width, height)`` in inches of a panel once the figure's constrained layout has placed
    it: its share of the grid less a margin for tick labels (0.7 in across, 0.8 in down), at least 1 in;
    for axes outside a grid, their current position."""
    fig = ax.figure
    spec = ax.get_subplotspec() if hasattr(ax, "get_subplotspec") else None
    if spec is None:
        box = ax.get_position()
        return box.width * fig.get_figwidth(), box.height * fig.get_figheight()
    nrows, ncols = spec.get_gridspec().get_geometry()
    rows, cols = spec.rowspan, spec.colspan
    w = fig.get_figwidth() * len(cols) / ncols - 0.7
    h = fig.get_figheight() * len(rows) / nrows - 0.8
    return max(w, 1.0), max(h, 1.0)


def suptitle(fig, text: str, **kw):
    """``fig.suptitle(text, **kw)`` wrapped to the figure's width (less 0.3 in), like :func:`label`'s
    titles (at ``kw["fontsize"]`` points when given)."""
    size = float(kw["fontsize"]) if "fontsize" in kw else _font_pt("figure.titlesize")
    return fig.suptitle(wrap(text, max(fig.get_figwidth() - 0.3, 1.0), size), **kw)


def label(ax, title: str, xlabel: str, ylabel: str) -> None:
    """Set the three labels every axis in the book must have, each wrapped to the panel it labels (the
    title and x label to the axes' width, the y label to their height), so that no label runs into its
    neighbour or out of the figure when panels are narrow."""
    w_in, h_in = axes_size(ax)
    ax.set_title(wrap(title, w_in, _font_pt("axes.titlesize")) if title else title)
    ax.set_xlabel(wrap(xlabel, w_in, _font_pt("axes.labelsize")) if xlabel else xlabel)
    ax.set_ylabel(wrap(ylabel, h_in, _font_pt("axes.labelsize")) if ylabel else ylabel)


def pca_scatter(
    ax,
    X,
    groups,
    title: str,
    *,
    sizes=3.0,
    alpha: float = 0.5,
    center: bool = False,
    legend: bool = False,
    group_name: str = "concept",
) -> None:
    """Scatter the rows of ``X`` projected on their top two principal directions, one colour per group.

    ``groups`` (n,) integer labels ``0..G-1`` (colours from :data:`PALETTE`); ``sizes`` a scalar or an (n,)
    array of marker areas; ``center=False`` uses the raw second-moment directions (right for configurations
    that theory centres, as collapse configurations are). Labels the axes "PC 1" / "PC 2", sets equal
    aspect and the title. Raises ``ValueError`` for a non-2-D ``X`` or mismatched ``groups``.
    """
    import numpy as np

    X = np.asarray(X, dtype=float)
    groups = np.asarray(groups)
    if X.ndim != 2 or X.shape[0] < 2:
        raise ValueError(f"need at least two vectors in rows, got shape {X.shape}")
    if groups.shape != (X.shape[0],):
        raise ValueError(f"groups must have shape ({X.shape[0]},), got {groups.shape}")
    Xc = X - X.mean(0) if center else X
    coords = Xc @ np.linalg.svd(Xc, full_matrices=False)[2][:2].T
    s = np.broadcast_to(np.asarray(sizes, dtype=float), (X.shape[0],))
    for g in np.unique(groups):
        m = groups == g
        ax.scatter(
            *coords[m].T,
            s=s[m],
            alpha=alpha,
            color=PALETTE[int(g) % len(PALETTE)],
            label=f"{group_name} {g}",
        )
    label(ax, title, "PC 1", "PC 2")
    ax.set_aspect("equal", adjustable="datalim")
    if legend:
        ax.legend(fontsize=8)


def plot_steps(
    ax,
    t: np.ndarray,
    s_sq: np.ndarray,
    theory: np.ndarray | None = None,
    *,
    run_label: str,
    theory_label: str = "",
    t_max: float | None = None,
    faint: bool = False,
) -> np.ndarray:
    """Draw the squared singular values of a run against time, one colour per mode, with theory dashed.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    t : ndarray, shape (T,)
        The times.
    s_sq : ndarray, shape (T, d)
        The squared singular values, one column per mode.
    theory : ndarray, shape (T, d), optional
        The matching theory curves, drawn dashed in the same colours.
    run_label, theory_label : str
        The legend entries of the run and of the theory (none for the theory when empty).
    t_max : float, optional
        The right end of the time axis.
    faint : bool, default False
        A thin, light background run (for comparisons).

    Returns
    -------
    ndarray
        The colours of the ``d`` modes, for other curves of the same modes.

    Raises
    ------
    ValueError
        If ``t`` is not increasing, ``s_sq`` has not one finite row per time, ``theory`` has not the shape
        of ``s_sq``, or ``t_max`` is not positive.
    """
    t = checks.increasing("t", t)
    s_sq = checks.finite_array("s_sq", s_sq, ndim=2)
    if s_sq.shape[0] != t.size:
        raise ValueError(f"s_sq must have one row per time ({t.size}), got shape {s_sq.shape}")
    if theory is not None:
        theory = checks.finite_array("theory", theory, shape=s_sq.shape)
    if t_max is not None:
        t_max = checks.positive("t_max", t_max)
    d = s_sq.shape[1]
    colors = plt.cm.viridis(np.linspace(0, 0.9, d))
    for k in range(d):
        ax.plot(
            t,
            s_sq[:, k],
            color=colors[k],
            lw=0.8 if faint else 1.6,
            alpha=0.35 if faint else 1.0,
            label=run_label if k == 0 else None,
        )
        if theory is not None:
            ax.plot(
                t,
                theory[:, k],
                color=colors[k],
                lw=1.0,
                ls="--",
                label=theory_label if k == 0 else None,
            )
    if t_max is not None:
        ax.set_xlim(0, t_max)
    return colors
