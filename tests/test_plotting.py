"""The book's figure sizes: never wider than the site's text column, so figure text is never shrunk."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from qwem_lib import plotting  # noqa: E402


@pytest.mark.parametrize(
    ("grid", "panel"),
    [((1, 1), (6.4, 4.0)), ((1, 2), (4.8, 3.4)), ((1, 4), (3.3, 3.6)), ((2, 3), (4.0, 3.6)),
     ((1, 2), (11.0, 4.0)), ((3, 1), (6.0, 3.0))],
)  # fmt: skip
def test_figure_never_wider_than_the_column(grid, panel):
    w, h = plotting.figure_size(*grid, width=panel[0], height=panel[1])
    nominal_w = panel[0] * grid[1] ** 0.85
    nominal_h = panel[1] * grid[0] ** 0.85
    assert w <= plotting.COLUMN_WIDTH + 1e-12
    if nominal_w <= plotting.COLUMN_WIDTH:  # narrow enough: the nominal size, untouched
        assert (w, h) == pytest.approx((nominal_w, nominal_h))
    else:  # narrowed to the column, height by the square root of the same factor
        s = plotting.COLUMN_WIDTH / nominal_w
        assert w == pytest.approx(plotting.COLUMN_WIDTH)
        assert h == pytest.approx(nominal_h * math.sqrt(s))
        assert h / w > nominal_h / nominal_w  # relatively taller: room for labels


def test_the_column_fits_the_site_size_rule():
    # the site's column: 676 px at 96 px per inch; a figure at most that wide is shown at >= natural size
    assert plotting.COLUMN_WIDTH <= 676 / 96


def test_figure_draws_at_that_size():
    fig, axes = plotting.figure(1, 3, width=4.2, height=3.8)
    try:
        assert tuple(fig.get_size_inches()) == pytest.approx(
            plotting.figure_size(1, 3, width=4.2, height=3.8)
        )
        assert len(axes) == 3
    finally:
        plt.close(fig)


@pytest.mark.parametrize("bad", [dict(nrows=0), dict(ncols=-1), dict(nrows=1.5), dict(width=0.0),
                                 dict(height=float("nan"))])  # fmt: skip
def test_figure_size_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        plotting.figure_size(**bad)


def test_wrap_keeps_lines_within_the_width_and_never_splits_maths():
    text = r"the relative noise $\rho = \mathbb{E}\|g_B - g\|^2 / \|g\|^2$ of one minibatch at the start"
    out = plotting.wrap(text, 2.0, 10.0)
    limit = 2.0 * 72 / 10.0
    assert out.replace("\n", " ") == text  # only spaces became line breaks
    for line in out.split("\n"):
        assert line.count("$") % 2 == 0  # a maths segment is whole on its line
        assert plotting.text_width(line) <= limit or " " not in line.replace(
            r"$\rho = \mathbb{E}\|g_B - g\|^2 / \|g\|^2$", "M"
        )
    assert plotting.wrap("short", 5.0, 10.0) == "short"
    assert plotting.wrap("a b\nc d", 5.0, 10.0) == "a b\nc d"  # existing breaks kept
    with pytest.raises(ValueError):
        plotting.wrap("x", 0.0, 10.0)


def test_text_width_counts_maths_as_drawn():
    # a TeX command draws one glyph; braces, ^ and _ draw none
    assert plotting.text_width(r"$\lambda_k$") == pytest.approx(plotting.text_width("ab"))
    assert plotting.text_width("abcd") == pytest.approx(4 * plotting.CHAR_EM)


def test_label_wraps_to_the_panel_and_the_figure_stays_in_the_column():
    fig, axes = plotting.figure(1, 2, width=4.8, height=3.4)
    try:
        long = "a rather long title that would run into the neighbouring panel of a narrow figure"
        plotting.label(
            axes[0], long, "x", "a y label much longer than the height of the panel it labels"
        )
        title = axes[0].get_title()
        assert "\n" in title and title.replace("\n", " ") == long
        w, h = plotting.axes_size(axes[0])
        assert 1.0 <= w < fig.get_figwidth() / 2 and 1.0 <= h < fig.get_figheight()
        fig.canvas.draw()
        bbox = fig.get_tightbbox(fig.canvas.get_renderer())
        assert (
            bbox.width <= plotting.COLUMN_WIDTH + 0.05
        )  # nothing sticks out of the figure sideways
    finally:
        plt.close(fig)


def test_suptitle_wraps_to_the_figure():
    fig, _ = plotting.figure(1, 2, width=4.8, height=3.4)
    try:
        long = (
            "Figure 99.1 — a figure title long enough to be wider than the text column at its size"
        )
        t = plotting.suptitle(fig, long)
        assert "\n" in t.get_text() and t.get_text().replace("\n", " ") == long
        fig.canvas.draw()
        assert t.get_window_extent().width / fig.dpi <= fig.get_figwidth()
    finally:
        plt.close(fig)


def test_suptitle_passes_its_font_size_on():
    fig, _ = plotting.figure()
    try:
        t = plotting.suptitle(fig, "a title", fontsize=10)
        assert t.get_fontsize() == 10
    finally:
        plt.close(fig)


def test_chapters_draw_through_the_column_rule():
    """Every chapter makes its figures with ``plotting.figure`` (never wider than the column): no direct
    ``plt.subplots``/``plt.figure`` and no hand-set ``figsize``."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "notebooks"
    bad = [
        f"{p.name}:{i}"
        for p in sorted(root.glob("[0-9][0-9]_*.py"))
        for i, line in enumerate(p.read_text().splitlines(), 1)
        if not line.lstrip().startswith("#")
        and re.search(r"plt\.subplots\(|plt\.figure\(|figsize\s*=|set_size_inches", line)
    ]
    assert not bad, f"figures drawn around plotting.figure: {bad}"


def test_plot_steps():
    import numpy as np

    fig, ax = plt.subplots()
    t = np.linspace(0, 1, 5)
    colors = plotting.plot_steps(
        ax, t, np.ones((5, 3)), np.zeros((5, 3)), run_label="run", theory_label="th", t_max=0.5
    )
    assert len(colors) == 3 and len(ax.lines) == 6 and ax.get_xlim() == (0.0, 0.5)
    plt.close(fig)
