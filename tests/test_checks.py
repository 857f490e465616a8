"""Unit tests of qwem_lib.book.checks: the messages of the argument checks name the argument, the value
and what is expected."""

from __future__ import annotations

import numpy as np
import pytest

from qwem_lib.book import checks

# -- inputs, caches and faults ------------------------------------------------------------------


def test_checks_messages_name_the_argument_the_value_and_what_is_expected():
    with pytest.raises(ValueError, match=r"window must be an integer >= 1, got 0"):
        checks.positive_int("window", 0)
    with pytest.raises(ValueError, match=r"d must be a whole number, got 2.5"):
        checks.positive_int("d", 2.5)
    with pytest.raises(TypeError, match=r"steps must be an integer, got True"):
        checks.positive_int("steps", True)
    with pytest.raises(ValueError, match=r"lr must be a finite number, got nan"):
        checks.positive("lr", float("nan"))
    with pytest.raises(ValueError, match=r"share must be a number >= 0 and <= 1, got 1.5"):
        checks.fraction("share", 1.5)
    with pytest.raises(ValueError, match=r"t must be strictly increasing, got 2.0 followed by 1.0"):
        checks.increasing("t", [0.0, 2.0, 1.0])
    with pytest.raises(ValueError, match=r"M must be 2-D, got shape \(3,\)"):
        checks.finite_array("M", [1, 2, 3], ndim=2)
    with pytest.raises(ValueError, match=r"M must hold finite numbers, got 1 NaN"):
        checks.finite_array("M", [[1.0, np.nan]], ndim=2)
    with pytest.raises(TypeError, match="M must be an array of real numbers"):
        checks.finite_array("M", np.array(["a"]))
    with pytest.raises(ValueError, match=r"kind must be one of 'a', 'b', got 'c'"):
        checks.one_of("kind", "c", ("a", "b"))
    # an ArgumentTypeError is both, so callers that catch either keep working
    assert issubclass(checks.ArgumentTypeError, TypeError)
    assert issubclass(checks.ArgumentTypeError, ValueError)
    assert checks.positive_int("n", 3.0) == 3 and isinstance(
        checks.positive_int("n", np.int64(3)), int
    )
    assert checks.increasing("t", [0, 1, 1], strict=False).dtype == np.float64
