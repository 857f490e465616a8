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
