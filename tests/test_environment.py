"""environment.yml (conda users) and pyproject.toml (pip users) must describe the same environment."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pip_lines_of_environment_yml() -> list[str]:
    lines = (ROOT / "environment.yml").read_text().splitlines()
    out, in_pip = [], False
    for line in lines:
        stripped = line.strip()
        if stripped.startswith("- pip:"):
            in_pip = True
            continue
        if in_pip:
            if stripped.startswith("- "):
                out.append(stripped[2:].strip())
            elif stripped and not stripped.startswith("#"):
                break
    return out


def _name(req: str) -> str:
    return re.split(r"[<>=!~ \[]", req, maxsplit=1)[0].lower().replace("_", "-")


def test_environment_yml_matches_pyproject():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    pip = _pip_lines_of_environment_yml()
    assert "-e ." in pip, "environment.yml must install the local package editable (- -e .)"
    pip = [p for p in pip if p != "-e ."]
    assert sorted(pip) == sorted(deps), (
        "environment.yml and pyproject.toml differ:\n"
        f"  only in environment.yml: {sorted(set(pip) - set(deps))}\n"
        f"  only in pyproject.toml:  {sorted(set(deps) - set(pip))}"
    )


def test_python_version_consistent():
    py = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    m = re.search(r"python=(\d+\.\d+)", (ROOT / "environment.yml").read_text())
    assert m, "environment.yml must pin python"
    major, minor = (int(x) for x in m.group(1).split("."))
    lo = tuple(int(x) for x in py.lstrip(">=").split("."))
    assert (major, minor) >= lo


def test_torch_pinned_to_cpu_wheel_version():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert "torch==2.13.0" in deps, (
        "torch must stay pinned (an open range pulls a multi-GB CUDA build)"
    )


def test_design_card_layout():
    for p in [
        "notebooks",
        "qwem_lib",
        "data",
        "tests",
        "environment.yml",
        "README.md",
        "jupytext.toml",
    ]:
        assert (ROOT / p).exists(), f"{p} is part of the client's design card"
    assert {
        _name(d)
        for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    } >= {"jupyterlab", "jupytext", "numpy", "scipy", "torch", "matplotlib", "seaborn", "nbval"}


# --- the lock (issue 27): requirements.lock pins the tested environment, with hashes ----------------------
LOCKS = {
    "requirements.lock": (),
    "requirements-site.lock": ("site",),
    "requirements-dev.lock": ("dev",),
}


def _lock(name: str) -> dict[str, tuple[str, list[str]]]:
    """``{package: (version, [hashes])}`` of a pip-compile lock file."""
    text = (ROOT / name).read_text()
    out: dict[str, tuple[str, list[str]]] = {}
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        m = re.match(r"([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)", block)
        if m:
            name_ = m.group(1).lower().replace("_", "-").replace(".", "-")
            out[name_] = (m.group(2), re.findall(r"--hash=sha256:([0-9a-f]{64})", block))
    return out


def _requirements(extras=()) -> list[str]:
    proj = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return proj["dependencies"] + [r for e in extras for r in proj["optional-dependencies"][e]]


def test_locks_are_complete_pins_with_hashes():
    for name in LOCKS:
        text = (ROOT / name).read_text()
        assert "pip-compile" in text and "--generate-hashes" in text, f"{name}: not pip-compile's"
        lock = _lock(name)
        assert len(lock) > 50, f"{name}: only {len(lock)} pins"
        unhashed = [p for p, (_, h) in lock.items() if not h]
        assert not unhashed, f"{name}: pins without a hash: {unhashed}"
        loose = [
            line
            for line in text.splitlines()
            if re.match(r"[A-Za-z0-9]", line) and "==" not in line
        ]
        assert not loose, f"{name}: requirements that are not pinned: {loose}"


def test_locks_agree_with_pyproject_and_environment_yml():
    """Every requirement of pyproject.toml (= environment.yml's, checked above) is pinned in the lock to a
    version it allows; the site lock pins the book's packages exactly as the main lock does."""
    from packaging.requirements import Requirement

    for name, extras in LOCKS.items():
        lock = _lock(name)
        for req in map(Requirement, _requirements(extras)):
            key = req.name.lower().replace("_", "-").replace(".", "-")
            assert key in lock, f"{name} lacks {req.name} (run `make lock`)"
            version = lock[key][0]
            assert req.specifier.contains(version, prereleases=True), (
                f"{name} pins {req.name}=={version}, which pyproject.toml's {req} excludes "
                "(run `make lock`)"
            )
    base = _lock("requirements.lock")
    for other in ("requirements-site.lock", "requirements-dev.lock"):
        extra = _lock(other)
        differ = {
            p: (v, extra[p][0]) for p, (v, _) in base.items() if p in extra and extra[p][0] != v
        }
        assert not differ, f"{other} pins the book's packages differently: {differ}"
        assert not base.keys() - extra.keys(), f"{other} lacks some of the book's packages"
    py = re.search(r"python=(\d+\.\d+)", (ROOT / "environment.yml").read_text()).group(1)
    for name in LOCKS:
        assert f"with Python {py}\n" in (ROOT / name).read_text(), (
            f"{name} was not compiled for environment.yml's Python {py}"
        )
    assert _lock("requirements.lock")["torch"][0].startswith("2.13.0")


def test_the_locked_environment_is_installed():
    """In the environment `make env` installed (its marker names the lock), every pin is what runs."""
    import sys
    from importlib import metadata

    marker = Path(sys.prefix) / ".installed"
    if not marker.exists() or marker.read_text().strip() != "requirements.lock":
        import pytest

        pytest.skip("not the locked environment of `make env` (e.g. `make env-latest`)")
    wrong = {}
    for p, (v, _) in _lock("requirements.lock").items():
        try:
            got = metadata.version(p)
        except metadata.PackageNotFoundError:
            got = "absent"
        if got != v:
            wrong[p] = (v, got)
    assert not wrong, f"installed versions differ from the lock (locked, installed): {wrong}"


def test_every_folder_of_the_library_is_packaged():
    """An installed (not editable) copy must carry every room of the library: pyproject's package list
    names each folder of qwem_lib that holds a module or a resource file."""
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(conf["packages"])
    lib = ROOT / "qwem_lib"
    folders = {
        ".".join(p.relative_to(ROOT).parts)
        for p in [lib, *(q for q in lib.rglob("*") if q.is_dir() and q.name != "__pycache__")]
        if any(f.is_file() and f.suffix in (".py", ".tsv") for f in p.iterdir())
    }
    assert folders == listed, (
        f"not packaged: {sorted(folders - listed)}; stale: {sorted(listed - folders)}"
    )
    for pkg, patterns in conf.get("package-data", {}).items():
        folder = ROOT.joinpath(*pkg.split("."))
        for pat in patterns:
            assert list(folder.glob(pat)), f"package-data {pkg}: {pat} matches nothing in {folder}"
