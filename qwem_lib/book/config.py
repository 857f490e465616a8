"""Presets, devices, seeds and paths: the knobs every chapter shares.

A chapter never hard-codes a size. It asks for one per preset::

    from qwem_lib import config
    P = config.sizes(smoke=dict(V=500, steps=200),
                     book=dict(V=2_000, steps=5_000),
                     paper=dict(V=10_000, steps=200_000))
    P["V"]

or, one line per knob with its three values side by side (a plain value is the same at every preset)::

    P = config.knobs(V=config.per_preset(500, 2_000, 10_000), d=50)

The preset is chosen by the environment variable ``QWEM_PRESET`` (``smoke``, ``book`` or ``paper``;
default ``book``), the device by ``QWEM_DEVICE`` (default: CUDA when available, else CPU).
The same code runs in every preset; only the numbers change.

``QWEM_BOOK_BUILD=1`` is set by ``tools/build_book.py`` (and ``python -m qwem_lib.book.report``) alone: only
then do chapters write the committed records and report (:func:`building_book`). A chapter run by hand,
in JupyterLab or by the tests, writes its records under the cache, whatever the preset.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

PRESETS: tuple[str, ...] = ("smoke", "book", "paper")
"""The named presets: ``smoke`` for tests and CI, ``book`` for readers on a laptop CPU (the committed
notebooks show its outputs), ``paper`` for the papers' own scale on a GPU."""

DEFAULT_PRESET = "book"
SEED = 20250527
"""The one global seed. Chapters derive any further seeds from it (``config.rng(offset)``)."""

REPO_ROOT = Path(__file__).resolve().parents[2]

# numba's on-disk cache of the compiled kernels goes under the book's cache folder, not beside the sources
# (a chapter, the tests or the benchmark write nothing outside the cache and data folders; issue 27). Set
# here, before anything imports numba; a NUMBA_CACHE_DIR of the reader's own is kept.
os.environ.setdefault(
    "NUMBA_CACHE_DIR",
    str(Path(os.environ.get("QWEM_CACHE_DIR") or REPO_ROOT / ".cache") / "numba"),
)


BUILD_ENV = "QWEM_BOOK_BUILD"
"""The environment variable the book build sets (to ``1``) for the kernels it starts."""

VERSIONED: tuple[str, ...] = ("numpy", "scipy", "torch", "numba", "gensim")
"""The packages whose versions can change the book's numbers (with Python and the BLAS NumPy uses)."""


def building_book() -> bool:
    """True inside the book build (``QWEM_BOOK_BUILD=1``), the only time committed records are written."""
    return os.environ.get(BUILD_ENV, "").strip() == "1"


def package_versions() -> dict[str, str]:
    """Python, :data:`VERSIONED` and NumPy's BLAS, as ``{name: version}`` (read from the installed metadata,
    so nothing heavy is imported); a package that is not installed shows as ``absent``."""
    import platform
    from importlib import metadata

    out = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "absent"
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        out["blas"] = f"{blas.get('name', '?')}-{blas.get('version', '?')}"
    except Exception:  # noqa: BLE001 - NumPy builds differ in what they report; the rest still counts
        out["blas"] = "unknown"
    return out


def versions() -> str:
    """The versions that determine the book's numbers, on one line (printed under every chapter's header)."""
    return "  ".join(f"{k}={v}" for k, v in package_versions().items())


def preset() -> str:
    """The active preset name, validated."""
    name = os.environ.get("QWEM_PRESET", DEFAULT_PRESET).strip().lower()
    if name not in PRESETS:
        raise ValueError(
            f"QWEM_PRESET={name!r} is not a preset; choose one of {', '.join(PRESETS)}"
        )
    return name


def sizes(**by_preset: Mapping[str, Any]) -> dict[str, Any]:
    """Pick the dictionary of sizes for the active preset.

    All three presets must be given and must name the same keys, so that a reader who switches
    preset never meets a missing knob.
    """
    missing = [p for p in PRESETS if p not in by_preset]
    extra = [p for p in by_preset if p not in PRESETS]
    if missing or extra:
        raise ValueError(
            f"sizes() needs exactly the presets {PRESETS}; missing {missing}, unknown {extra}"
        )
    keys = {p: set(v) for p, v in by_preset.items()}
    if len({frozenset(k) for k in keys.values()}) != 1:
        raise ValueError(f"every preset must name the same sizes; got {keys}")
    return dict(by_preset[preset()])


@dataclass(frozen=True)
class PerPreset:
    """One knob's value at each preset (made by :func:`per_preset`)."""

    smoke: Any
    book: Any
    paper: Any


def per_preset(smoke: Any, book: Any, paper: Any) -> PerPreset:
    """A knob whose value changes with the preset: its values at ``smoke``, ``book`` and ``paper``, in that
    order (the order of :data:`PRESETS`). Used inside :func:`knobs`."""
    return PerPreset(smoke, book, paper)


def knobs(**values: Any) -> dict[str, Any]:
    """A chapter's sizes, one line per knob: the values of the active preset.

    A plain value is the same at every preset; ``per_preset(smoke, book, paper)`` gives a knob's three
    values side by side, so a reader sees at a glance what each preset changes. The result is the same
    dictionary :func:`sizes` returns.

    >>> import os
    >>> before = os.environ.get("QWEM_PRESET")
    >>> os.environ["QWEM_PRESET"] = "paper"
    >>> knobs(K=per_preset(100, 200, 1000), L=15)
    {'K': 1000, 'L': 15}
    >>> os.environ["QWEM_PRESET"] = before or "book"
    """
    if not values:
        raise ValueError("knobs() needs at least one knob")
    active = preset()
    return {k: getattr(v, active) if isinstance(v, PerPreset) else v for k, v in values.items()}


def device_name() -> str:
    """``cuda`` when a GPU is visible to torch, else ``cpu``; ``QWEM_DEVICE`` overrides."""
    forced = os.environ.get("QWEM_DEVICE", "").strip().lower()
    if forced:
        return _checked_device(forced)
    try:
        import torch

        return "cuda" if torch.cuda.is_available() else "cpu"
    except ImportError:  # pragma: no cover - torch is a hard dependency
        return "cpu"


def _checked_device(name: str) -> str:
    """Validate a ``QWEM_DEVICE`` setting once, with a message that says what to do."""
    import torch

    if name == "cpu":
        return name
    if name == "cuda" or name.startswith("cuda:"):
        if not torch.cuda.is_available():
            raise ValueError(
                f"QWEM_DEVICE={name!r} but torch sees no CUDA device (torch {torch.__version__}, "
                f"a CPU build?); unset QWEM_DEVICE or install a CUDA build of torch"
            )
        idx = name.partition(":")[2]
        if idx and (not idx.isdigit() or int(idx) >= torch.cuda.device_count()):
            raise ValueError(
                f"QWEM_DEVICE={name!r}: there are {torch.cuda.device_count()} CUDA devices"
            )
        return name
    raise ValueError(f"QWEM_DEVICE={name!r} is not a device; use 'cpu', 'cuda' or 'cuda:N'")


def device():  # -> torch.device
    """The torch device the chapters compute on."""
    import torch

    return torch.device(device_name())


def seed_everything(offset: int = 0) -> int:
    """Seed Python, NumPy and torch from the global seed plus ``offset``; returns the seed used.

    For readers' own experiments; the chapters draw from :func:`rng` instead, and only
    ``tests/test_config.py`` calls this one."""
    s = SEED + offset
    random.seed(s)
    np.random.seed(s % 2**32)  # noqa: NPY002 (seeds the legacy global RNG that chapters may use)
    try:
        import torch

        torch.manual_seed(s)
    except ImportError:  # pragma: no cover
        pass
    return s


def rng(offset: int = 0) -> np.random.Generator:
    """A NumPy generator derived from the global seed; distinct offsets give independent streams."""
    return np.random.default_rng([SEED, offset])


def cache_dir() -> Path:
    """Where derived artefacts (token ids, co-occurrence counts, spectra) are cached.

    ``QWEM_CACHE_DIR`` overrides (empty counts as unset); the default ``.cache/`` in the repository is
    ignored by git. A folder that
    cannot be created or written (read-only file system, no permission) does not stop the book: a warning
    names it, and this process caches in a temporary folder instead (nothing persists between runs).
    """
    raw = os.environ.get(
        "QWEM_CACHE_DIR", ""
    ).strip()  # empty = unset (never the current directory)
    p = Path(raw).expanduser().absolute() if raw else REPO_ROOT / ".cache"
    if str(p) in _CACHE_FALLBACK:
        return _CACHE_FALLBACK[str(p)]
    try:
        p.mkdir(parents=True, exist_ok=True)
        if not os.access(p, os.W_OK | os.X_OK):
            raise PermissionError(f"no write permission on {p}")
        return p
    except OSError as exc:
        import tempfile
        import warnings

        tmp = Path(tempfile.mkdtemp(prefix="qwem-cache-"))
        _CACHE_FALLBACK[str(p)] = tmp
        warnings.warn(
            f"the cache folder {p} cannot be used ({exc}); caching in {tmp} for this process "
            "only. Set QWEM_CACHE_DIR to a writable folder to keep cached results.",
            RuntimeWarning,
            stacklevel=2,
        )
        return tmp


_CACHE_FALLBACK: dict[str, Path] = {}


def threads() -> int:
    """Number of CPU threads torch uses (respects ``OMP_NUM_THREADS``)."""
    import torch

    return torch.get_num_threads()


def describe() -> str:
    """The one-line header every chapter prints: preset, device, seed, threads."""
    import torch

    dev = device_name()
    extra = (
        f" ({torch.cuda.get_device_name(0)})" if dev == "cuda" and torch.cuda.is_available() else ""
    )
    return (
        f"preset={preset()}  device={dev}{extra}  seed={SEED}  torch={torch.__version__}  "
        f"cpu-threads={threads()}"
    )
