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
