"""Mutation testing of the library's core (issue 45): would the unit tests notice wrong code?

mutmut (pinned in the dev lock) writes the mutants itself: every operator, number, string, comparison and
call argument inside the library's functions is changed one at a time, and the tests that run that function
are run against each change. A mutant is *killed* when a test fails; a *survivor* is a change no test notices.

This driver runs mutmut on one core module at a time (``[tool.qwem.mutation.modules]`` of pyproject.toml
maps each module to the test files that exercise it): module ``qwem_lib/x/y.py`` gets its own mutmut folder
``mutants/modules/x.y/`` with a configuration naming only that module and its tests, so its stats run and
its results are its own. mutmut keeps its results there, so an interrupted run resumes where it stopped, and
a function that changed is mutated again. Then a short list of hand-written *semantic* mutants
(:data:`SEMANTIC`) runs: the changes mutmut cannot make (it mutates only undecorated functions, never a
compiled numba kernel, a ``@contextmanager``, a module constant or a cache key's set of inputs, and never
drops a statement such as an input check).

Each run rewrites ``bench/mutation-report.md`` from every result there is (modules not yet run say so):
date, machine, the mutation score of each module and every surviving mutant with the reason it is left
(``tools/mutation_reasons.toml``; one without a reason is marked *unexplained*).

    .venv/bin/python tools/mutation.py                    # every core module, then the semantic mutants
    .venv/bin/python tools/mutation.py theory book.cache  # some modules (a name is the module's dotted path
                                                          # below qwem_lib, or its file)
    .venv/bin/python tools/mutation.py --semantic         # only the semantic mutants
    .venv/bin/python tools/mutation.py --report           # only rewrite the report from the results so far
    .venv/bin/python tools/mutation.py --fresh maths.stats  # forget a module's results (after adding tests)

Exit status 1 when a mutant survives without a written reason (or a semantic mutant survives), 2 when a
module's unmutated tests fail or a semantic mutant's text is not found once in its file.
"""

from __future__ import annotations

import argparse
import ast
import datetime as dt
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "mutants" / "modules"
REPORT = ROOT / "bench" / "mutation-report.md"
REASONS = ROOT / "tools" / "mutation_reasons.toml"
SEMANTIC_STATE = ROOT / "mutants" / "semantic.json"

# mutmut's exit-status classes (mutmut.stats.status_by_exit_code), folded into the report's columns.
KILLED = {1: "killed", 3: "killed", 36: "timeout", -24: "timeout", 24: "timeout", 152: "timeout"}
KILLED |= {255: "timeout", 37: "killed"}
SURVIVED = {0: "survived"}
NO_TESTS = {5: "no tests", 33: "no tests"}


# -- the semantic mutants: (name, file, original text, mutated text, tests that must catch it) ------------------
# Only changes mutmut cannot express. Each original text must occur exactly once in its file.
SEMANTIC: list[tuple[str, str, str, str, list[str]]] = [
    # compiled numba kernels (mutmut leaves decorated functions alone)
    (
        "corpus_stats kernel: window one offset short",
        "qwem_lib/qwem/corpus_stats.py",
        "stop = min(n, t + W + 1)",
        "stop = min(n, t + W)",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats kernel: symmetrisation forgets the diagonal",
        "qwem_lib/qwem/corpus_stats.py",
        "S[i, i] += S[i, i]",
        "S[i, i] += 0",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats kernel: threads' row ranges overlap",
        "qwem_lib/qwem/corpus_stats.py",
        "for a in range(bounds[part], bounds[part + 1]):",
        "for a in range(max(0, bounds[part] - 1), bounds[part + 1]):",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats kernel: normalised by the wrong total",
        "qwem_lib/qwem/corpus_stats.py",
        "out[i, j] = np.float64(C[i, j]) / t",
        "out[i, j] = np.float64(C[i, j]) / (t + 1.0)",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats kernel: fused M* sign flipped",
        "qwem_lib/qwem/corpus_stats.py",
        "out[i, j] = 2.0 * (p - q) / (p + q)",
        "out[i, j] = 2.0 * (q - p) / (p + q)",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats kernel: weights reversed",
        "qwem_lib/qwem/corpus_stats.py",
        "out[row + b] += w[u - t - 1]",
        "out[row + b] += w[W - (u - t)]",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "spectral kernel: symmetry check compares an entry with itself",
        "qwem_lib/qwem/spectral.py",
        "asym = max(asym, abs(x - y))",
        "asym = max(asym, abs(x - x))",
        ["tests/test_spectral.py"],
    ),
    (
        "tokenizer kernel: a hash hit is trusted without comparing the bytes",
        "qwem_lib/data/_tokenizer_kernel.py",
        "if pool[p + k] != src[s + k]:",
        "if False:",
        ["tests/test_tokenizer.py"],
    ),
    (
        "tokenizer kernel: a token cut by a chunk boundary is dropped",
        "qwem_lib/data/_tokenizer_kernel.py",
        "            carry_len = n - s\n",
        "            carry_len = 0\n",
        ["tests/test_tokenizer.py"],
    ),
    # dropped statements: input checks and the symmetrisation (mutmut never deletes a statement)
    (
        "corpus_stats: counts not symmetrised",
        "qwem_lib/qwem/corpus_stats.py",
        '    k["symmetrise"](S, tile_pairs(V))\n',
        "",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "spectral: ARPACK's answer not checked",
        "qwem_lib/qwem/spectral.py",
        "        _check_eigsh_answer(M, lam, U, tol)\n",
        "",
        ["tests/test_spectral.py"],
    ),
    (
        "spectral: symmetry not checked",
        "qwem_lib/qwem/spectral.py",
        "    _check_symmetric_finite(M)\n    return M, V",
        "    return M, V",
        ["tests/test_spectral.py"],
    ),
    (
        "evaluation: zero rows accepted",
        "qwem_lib/qwem/evaluation.py",
        "    _check_rows_nonzero(words, W, items.ravel())\n",
        "",
        ["tests/test_evaluation.py"],
    ),
    (
        "maths.linalg: eig_desc without its symmetry check",
        "qwem_lib/maths/linalg.py",
        '        raise ValueError("M must be symmetric")',
        "        pass",
        ["tests/test_maths.py::test_eig_desc_refuses_a_nonsymmetric_matrix"],
    ),
    # restructured code: a resample drawn in the wrong loop, a restart that forgets its locked block
    (
        "evaluation: similarity bootstrap not paired (a fresh resample per embedding)",
        "qwem_lib/qwem/evaluation.py",
        "    for b in range(int(n_boot)):\n        idx = rng.integers(0, n, n)\n        for j in range(len(Ws)):\n",
        "    for b in range(int(n_boot)):\n        for j in range(len(Ws)):\n            idx = rng.integers(0, n, n)\n",
        ["tests/test_evaluation.py::test_similarity_bootstrap_is_paired_and_matches_a_loop"],
    ),
    (
        "spectral: Krylov restart forgets the locked vectors",
        "qwem_lib/qwem/spectral.py",
        "        for blk, img in ((L, ML), (X, AX)):",
        "        L, ML = L[:, :0], ML[:, :0]\n        for blk, img in ((L, ML), (X, AX)):",
        ["tests/test_spectral.py"],
    ),
    (
        "fc.theory: φ bisected in x instead of log x",
        "qwem_lib/fc/theory.py",
        "        mid = 0.5 * (lo + hi)\n        pos = h(mid) > 0",
        "        mid = np.log(0.5 * (np.exp(lo) + np.exp(hi)))\n        pos = h(mid) > 0",
        ["tests/test_fc_theory.py::test_thm2_solve_at_tiny_weight_decay"],
    ),
    (
        "fc.theory: φ bisection cut to 30 iterations",
        "qwem_lib/fc/theory.py",
        "iters: int = 200, *, log: bool = False",
        "iters: int = 30, *, log: bool = False",
        ["tests/test_fc_theory.py::test_thm2_solve_at_tiny_weight_decay"],
    ),
    # cache keys that omit an input (mutmut does not edit an f-string's fields or a key's set of entries)
    (
        "spectral: cache key without d",
        "qwem_lib/qwem/spectral.py",
        'f"{ckey}-d{d}-{target}-{method}-{np.dtype(dtype).name}-{version}.npz"',
        'f"{ckey}-{target}-{method}-{np.dtype(dtype).name}-{version}.npz"',
        ["tests/test_spectral.py::test_spectral_cache_key_has_every_input"],
    ),
    (
        "corpus_stats: co-occurrence cache key without the window",
        "qwem_lib/qwem/corpus_stats.py",
        '-w{int(window)}-{weighting}-{_oov_tag(oov, stream_vocab)}-v1.npz"',
        '-{weighting}-{_oov_tag(oov, stream_vocab)}-v1.npz"',
        ["tests/test_corpus_stats.py::test_cooccurrence_cache_key_has_every_input"],
    ),
    (
        "corpus_stats: the counts' key (spectral and task-vector names) without the window",
        "qwem_lib/qwem/corpus_stats.py",
        'return f"{vocab}-w{int(window)}-{weighting}-{_oov_tag(oov, stream_vocab)}"',
        'return f"{vocab}-{weighting}-{_oov_tag(oov, stream_vocab)}"',
        [
            "tests/test_corpus_stats.py::test_counts_key_changes_with_every_input_and_is_none_for_an_ad_hoc_corpus"
        ],
    ),
    (
        "trainers: train_pairs cache key without the seed",
        "qwem_lib/qwem/trainers.py",
        "        seed=seed,\n        device=dev.type,",
        "        device=dev.type,",
        ["tests/test_trainers.py::test_train_pairs_cache_key_has_every_input"],
    ),
    (
        "noiseless: minimise_expected's cache key without the row scaling",
        "qwem_lib/qwem/noiseless.py",
        'method="lbfgs-strong-wolfe", precondition=bool(precondition), version=1,',
        'method="lbfgs-strong-wolfe", version=1,',
        ["tests/test_noiseless.py::test_minimise_expected_resumes_caches_and_keys_its_inputs"],
    ),
    (
        "trainers: train_pairs cache key without the statistics",
        "qwem_lib/qwem/trainers.py",
        'cfg["stats"] = array_key(*(np.asarray(a, dtype=np.float64) for a in stats))',
        "pass",
        ["tests/test_trainers.py::test_train_pairs_cache_key_has_every_input"],
    ),
    (
        "noiseless: train_expected's flow key without the tolerance",
        "qwem_lib/qwem/noiseless.py",
        'cfg.update(method="rkc", rtol=float(rtol))',
        'cfg.update(method="rkc")',
        ["tests/test_flow.py::test_the_method_and_tolerance_are_part_of_the_cache_key"],
    ),
    (
        "files: verify() memo ignores mtime, ctime and inode",
        "qwem_lib/data/files.py",
        "key = (str(path), size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)",
        "key = (str(path), size, 0, 0, 0)",
        ["tests/test_data.py::test_verify_memo_notices_a_replaced_file"],
    ),
    # the cache writer (atomic_path is a @contextmanager, which mutmut does not mutate)
    (
        "cache: atomic_path leaves mkstemp's 0600 mode",
        "qwem_lib/book/cache.py",
        "            tmp.chmod(0o644)\n",
        "",
        ["tests/test_cache.py::test_atomic_path_leaves_a_readable_file"],
    ),
    (
        "cache: atomic_path keeps the temporary file (never moves it onto the target)",
        "qwem_lib/book/cache.py",
        "            os.replace(tmp, target)\n",
        "",
        ["tests/test_cache.py"],
    ),
    (
        "cache: atomic_path moves a block's output into place after an error",
        "qwem_lib/book/cache.py",
        "    finally:\n        tmp.unlink(missing_ok=True)",
        "    except BaseException:\n        os.replace(tmp, target)\n        raise\n"
        "    finally:\n        tmp.unlink(missing_ok=True)",
        ["tests/test_cache.py"],
    ),
    (
        "cache: atomic_path's temporary name without the writer's process id",
        "qwem_lib/book/cache.py",
        'prefix=f".{target.name}.{os.getpid()}.", suffix',
        'prefix=f".{target.name}.0.", suffix',
        ["tests/test_cache.py"],
    ),
    # module constants (mutmut mutates only code inside functions)
    (
        "tokenizer: separator 0x1f missing",
        "qwem_lib/data/_separators.py",
        "bytes([9, 10, 11, 12, 13, 28, 29, 30, 31, 32])",
        "bytes([9, 10, 11, 12, 13, 28, 29, 30, 32])",
        ["tests/test_tokenizer.py"],
    ),
    (
        "sources: tags span newlines in the normaliser",
        "qwem_lib/data/sources.py",
        '_TAG = re.compile(r"<[^<>\\n]{0,200}>")',
        '_TAG = re.compile(r"<[^<>]{0,200}>")',
        ["tests/test_sources.py::test_normaliser_tags_do_not_span_lines"],
    ),
]


# -- configuration --------------------------------------------------------------------------------------------


def modules() -> dict[str, list[str]]:
    """``{module file: [test files]}`` from ``[tool.qwem.mutation.modules]`` of pyproject.toml, in its order."""
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return dict(cfg["tool"]["qwem"]["mutation"]["modules"])


def mutmut_settings() -> dict:
    """``[tool.mutmut]`` of pyproject.toml: the settings every module's run shares."""
    return dict(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"])


def slug(module: str) -> str:
    """``qwem_lib/fc/theory.py`` -> ``fc.theory`` (the module's name below qwem_lib, and its folder's)."""
    return module.removeprefix("qwem_lib/").removesuffix(".py").replace("/", ".")


def _toml_value(v: object) -> str:
    """A TOML literal for a string, number, bool or list of them (JSON's spelling is TOML's for these)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(v)


def prepare(module: str, tests: list[str]) -> Path:
    """The mutmut folder of one module: links to the library, the tests and conftest.py, and a
    pyproject.toml whose ``[tool.mutmut]`` names only ``module`` and ``tests`` (plus pytest's settings)."""
    work = WORK / slug(module)
    work.mkdir(parents=True, exist_ok=True)
    for name in ("qwem_lib", "tests", "conftest.py"):
        link = work / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name)
    settings = mutmut_settings() | {
        "only_mutate": [module],
        "pytest_add_cli_args_test_selection": list(tests),
    }
    root_cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    lines = [
        "# written by tools/mutation.py for one module; edit pyproject.toml instead",
        "[tool.mutmut]",
    ]
    lines += [f"{k} = {_toml_value(v)}" for k, v in settings.items()]
    lines += ["", "[tool.pytest.ini_options]"]
    pytest_opts = root_cfg["tool"]["pytest"]["ini_options"]
    lines += [f"{k} = {_toml_value(v)}" for k, v in pytest_opts.items()]
    text = "\n".join(lines) + "\n"
    cfg = work / "pyproject.toml"
    if not cfg.exists() or cfg.read_text() != text:
        cfg.write_text(text)
    return work


def _env() -> dict[str, str]:
    """The tests' environment: one thread for every numeric library (the machine is shared), no GPU, the
    non-interactive plotting backend; the data folder is kept if the caller set one."""
    env = dict(os.environ, MPLBACKEND="Agg", CUDA_VISIBLE_DEVICES="")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        env.setdefault(var, "1")
    # mutmut forks every worker from a process that has already run numba's parallel kernels: GNU OpenMP,
    # numba's default threading layer here, does not survive a fork (the forked workers were terminated,
    # and 654 of co-occurrence statistics' 1,225 mutants came back with no result); numba's own
    # workqueue layer does
    env.setdefault("NUMBA_THREADING_LAYER", "workqueue")
    env.pop("PYTHONPATH", None)  # the mutated copy, never this checkout, must be the one imported
    return env


def _mutmut() -> list[str]:
    return [str(Path(sys.executable).with_name("mutmut"))]


# -- running ------------------------------------------------------------------------------------------------


def run_module(module: str, tests: list[str]) -> int:
    """Run mutmut on one module (resuming its earlier results); mutmut's exit status."""
    work = prepare(module, tests)
    print(f"== {module}: mutmut against {' '.join(tests)}", flush=True)
    t0 = time.time()
    proc = subprocess.run([*_mutmut(), "run", "--max-children", "1"], cwd=work, env=_env())
    print(
        f"== {module}: {time.time() - t0:.0f} s, mutmut exit status {proc.returncode}", flush=True
    )
    return proc.returncode


def module_results(module: str) -> dict[str, int | None] | None:
    """``{mutant name: exit code}`` from mutmut's record of one module; None when it has not run."""
    meta = WORK / slug(module) / "mutants" / (module + ".meta")
    if not meta.exists():
        return None
    return json.loads(meta.read_text())["exit_code_by_key"]


def mutant_diff(module: str, name: str) -> str:
    """The unified diff of one mutant, as ``mutmut show`` prints it (read in this process: mutmut's own
    reader, run in the module's folder)."""
    from mutmut import configuration
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    here = os.getcwd()
    os.chdir(WORK / slug(module))
    configuration.reset_config()
    try:
        return get_diff_for_mutant(name, path=module).strip()
    finally:
        os.chdir(here)


def _changed_lines(diff: str) -> tuple[str, str]:
    """The removed and added lines of a one-line mutant's diff, stripped (its identity for the reasons)."""
    minus = [
        x[1:].strip() for x in diff.splitlines() if x.startswith("-") and not x.startswith("---")
    ]
    plus = [
        x[1:].strip() for x in diff.splitlines() if x.startswith("+") and not x.startswith("+++")
    ]
    return " / ".join(minus), " / ".join(plus)


def _strip_strings(line: str) -> str:
    """``line`` with the contents of its string literals removed (quotes kept)."""
    return re.sub(r"""(?P<q>["'])(?:\\.|(?!(?P=q)).)*(?P=q)""", "''", line)


def _message_nodes(tree: ast.AST) -> list[ast.AST]:
    """The ``raise`` statements and ``warnings.warn``/``warn`` calls of a module: nodes whose strings are
    messages to a reader."""
    out: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise):
            out.append(node)
        elif isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name == "warn":
                out.append(node)
    return out


def message_only(module: str, name: str, diff: str) -> bool:
    """True when a mutant changes only the text of an error or warning message: its removed and added lines
    differ only inside string literals (or a literal became None), and the removed line lies inside a
    ``raise`` or a ``warn`` call."""
    minus = [x[1:] for x in diff.splitlines() if x.startswith("-") and not x.startswith("---")]
    plus = [x[1:] for x in diff.splitlines() if x.startswith("+") and not x.startswith("+++")]
    if len(minus) != len(plus) or not minus or any(re.search(r"\bf[\"']", a) for a in minus):
        return False  # an f-string's fields are code: a mutant there is not only wording
    if any(
        _strip_strings(a) != _strip_strings(b).replace("None", "''") for a, b in zip(minus, plus)
    ):
        return False
    func = name.rpartition("__mutmut_")[0].rpartition(".")[2]
    func = func.removeprefix("x_").rpartition("ǁ")[2]
    source = (ROOT / module).read_text()
    tree = ast.parse(source)
    defs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == func]
    if len(defs) != 1:
        return False
    span = range(defs[0].lineno, (defs[0].end_lineno or defs[0].lineno) + 1)
    text = source.splitlines()
    lines = [i for i in span if text[i - 1].strip() == minus[0].strip()]
    nodes = _message_nodes(tree)
    return bool(lines) and all(
        any(n.lineno <= i <= (n.end_lineno or n.lineno) for n in nodes) for i in lines
    )


MESSAGE_REASON = (
    "harmless: changes only the wording of an error or warning message (the tests match a message's "
    "key words, not every character)"
)


def semantic_key(m: tuple[str, str, str, str, list[str]]) -> str:
    """A hash of one semantic mutant and of every file its result depends on (its file and its tests)."""
    name, rel, old, new, tests = m
    h = hashlib.sha256(repr((name, old, new)).encode())
    for f in sorted({rel, *(t.split("::")[0] for t in tests), "conftest.py"}):
        h.update((ROOT / f).read_bytes())
    return h.hexdigest()[:16]


def _pytest_in_copy(tests: list[str], mutation: tuple[str, str, str] | None) -> tuple[int, str]:
    """Run ``tests`` against a temporary copy of the library with ``mutation`` = (file, old, new) applied
    there (None: unmutated). Returns (pytest's exit status, its last line)."""
    with tempfile.TemporaryDirectory(prefix="qwem-mutant-") as tmp:
        t = Path(tmp)
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(ROOT / "qwem_lib", t / "qwem_lib", ignore=ignore)
        shutil.copytree(ROOT / "tests", t / "tests", ignore=ignore)
        for f in ("conftest.py", "pyproject.toml"):
            shutil.copy(ROOT / f, t / f)
        # the corpus that ships with the book (the tests' offline default), linked rather than copied
        (t / "data").mkdir()
        (t / "data" / "shipped").symlink_to(ROOT / "data" / "shipped", target_is_directory=True)
        if mutation is not None:
            rel, old, new = mutation
            src = (t / rel).read_text()
            (t / rel).write_text(src.replace(old, new))
        args = ["-p", "no:nbval", "-p", "no:cacheprovider", "-o", "addopts=", "-x", "-q"]
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", *args, *tests],
            cwd=t,
            env=_env() | {"PYTHONPATH": str(t)},
            capture_output=True,
            text=True,
        )
        return proc.returncode, (proc.stdout.strip().splitlines() or ["?"])[-1]


def run_semantic() -> int:
    """Run the semantic mutants whose files changed since their last result; 2 when one's text is stale or
    the unmutated tests fail, else 0."""
    state = json.loads(SEMANTIC_STATE.read_text()) if SEMANTIC_STATE.exists() else {}
    stale = [
        f"  {n!r}: its original text occurs {(ROOT / rel).read_text().count(old)} times in {rel}"
        for n, rel, old, _, _ in SEMANTIC
        if (ROOT / rel).read_text().count(old) != 1
    ]
    for line in stale:
        print("semantic mutant not found once (update SEMANTIC in tools/mutation.py):" + line)
    todo = [
        m
        for m in SEMANTIC
        if (ROOT / m[1]).read_text().count(m[2]) == 1
        and state.get(m[0], {}).get("key") != semantic_key(m)
    ]
    if todo:
        tests = sorted({t for m in todo for t in m[4]})
        code, last = _pytest_in_copy(tests, None)
        print(f"semantic baseline (no mutation): {'passes' if code == 0 else 'FAILS'}  {last}")
        if code != 0:
            return 2
    for m in todo:
        name, rel, old, new, tests = m
        t0 = time.time()
        code, last = _pytest_in_copy(tests, (rel, old, new))
        status = "killed" if code != 0 else "survived"
        print(f"{name:75s} {status:8s} {time.time() - t0:5.0f} s  {last}", flush=True)
        state[name] = {"key": semantic_key(m), "status": status}
        SEMANTIC_STATE.parent.mkdir(parents=True, exist_ok=True)
        SEMANTIC_STATE.write_text(json.dumps(state, indent=1))
    return 2 if stale else 0


# -- the report ---------------------------------------------------------------------------------------------


@dataclass
class ModuleScore:
    """One module's mutants by outcome, and its survivors as (name, diff)."""

    module: str
    total: int = 0
    killed: int = 0
    timeout: int = 0
    survived: int = 0
    no_tests: int = 0
    not_checked: int = 0
    other: int = 0
    survivors: list[tuple[str, str]] = field(default_factory=list)

    @property
    def score(self) -> float | None:
        """Killed (a timeout counts: the tests did not pass) over every mutant that was checked."""
        checked = self.killed + self.timeout + self.survived + self.no_tests + self.other
        return (self.killed + self.timeout) / checked if checked else None


def score_module(module: str) -> ModuleScore | None:
    results = module_results(module)
    if results is None:
        return None
    s = ModuleScore(module)
    for name, code in sorted(results.items()):
        s.total += 1
        if code is None:
            s.not_checked += 1
        elif code in KILLED:
            if KILLED[code] == "timeout":
                s.timeout += 1
            else:
                s.killed += 1
        elif code in SURVIVED:
            s.survived += 1
            s.survivors.append((name, mutant_diff(module, name)))
        elif code in NO_TESTS:
            s.no_tests += 1
            s.survivors.append((name, mutant_diff(module, name)))
        else:
            s.other += 1
    return s


def reasons() -> dict[str, dict[str, str]]:
    """``{mutant name: {"change": "old -> new", "reason": ...}}`` from tools/mutation_reasons.toml."""
    if not REASONS.exists():
        return {}
    return tomllib.loads(REASONS.read_text()).get("survivor", {})


def _machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} logical cores"


def _mutmut_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("mutmut")
    except metadata.PackageNotFoundError:
        return "absent"


def _previous_report() -> tuple[dict[str, str], dict[str, list[str]]]:
    """The committed report's table rows and survivor sections, by module path."""
    if not REPORT.exists():
        return {}, {}
    rows: dict[str, str] = {}
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in REPORT.read_text().splitlines():
        m = re.match(r"\| `([^`]+)`( †)? \|", line)
        if m:
            rows[m.group(1)] = line.replace(" † |", " |", 1)
        h = re.match(r"## Survivors in `([^`]+)`", line)
        if h:
            current = sections.setdefault(h.group(1), [])
        elif line.startswith("## "):
            current = None
        if current is not None:
            current.append(line)
    for lines_ in sections.values():
        while lines_ and not lines_[-1].strip():
            lines_.pop()
    return rows, sections


def equivalent_count(module: str, s: ModuleScore, why: dict[str, dict[str, str]]) -> int:
    """How many of a module's survivors carry a current reason that says they are equivalent."""
    n = 0
    for name, diff in s.survivors:
        entry = why.get(name)
        if entry is None:
            continue
        minus, plus = _changed_lines(diff)
        if entry.get("change") == f"{minus} -> {plus}" and entry.get("reason", "").startswith(
            "equivalent"
        ):
            n += 1
    return n


def write_report() -> int:
    """Rewrite the report from every result there is; the number of survivors without a valid reason."""
    why = reasons()
    mods = modules()
    old_rows, old_sections = _previous_report()
    carried: list[str] = []
    lines = [
        "# Mutation testing of the library's core",
        "",
        f"Written by `make mutants` (tools/mutation.py) on {dt.date.today().isoformat()}; machine: "
        f"{_machine()}; mutmut {_mutmut_version()}, one worker. A module's score is its killed mutants "
        "(a timeout counts as killed) over all it checked; a mutant no test runs counts as a survivor.",
        "Every survivor is listed with the reason it is left (tools/mutation_reasons.toml). A survivor whose "
        "reason shows it *equivalent* (the changed code computes the same results: a default never used, a "
        "solver setting that reaches the same answer) cannot be killed by any test; the last column is the "
        "score over the mutants that are not (the usual definition of the mutation score).",
        "",
        "| module | tests | mutants | killed | timeout | survived | no tests | not yet run | score | "
        "equivalent | score without equivalent |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    scores = []
    for module, tests in mods.items():
        s = score_module(module)
        scores.append((module, s))
        short = ", ".join(t.removeprefix("tests/") for t in tests)
        if s is None:
            row = old_rows.get(module)
            if row is not None and "| not run |" not in row:
                # results that are not in this checkout's mutants/ folder: kept from the previous report
                if row.count("|") == 10:  # a row of a report written before the equivalent column
                    row += " — | — |"
                lines.append(row.replace(f"| `{module}` |", f"| `{module}` † |", 1))
                carried.append(module)
            else:
                lines.append(f"| `{module}` | {short} | not run | | | | | | | | |")
            continue
        pct = "—" if s.score is None else f"{100 * s.score:.1f}%"
        eq = equivalent_count(module, s, why)
        checked = s.killed + s.timeout + s.survived + s.no_tests + s.other
        pct_eq = (
            "—" if checked - eq <= 0 else f"{100 * (s.killed + s.timeout) / (checked - eq):.1f}%"
        )
        lines.append(
            f"| `{module}` | {short} | {s.total} | {s.killed} | {s.timeout} | {s.survived} | "
            f"{s.no_tests} | {s.not_checked} | {pct} | {eq} | {pct_eq} |"
        )
    if carried:
        lines += [
            "",
            "† Carried over from the previous report: this checkout's `mutants/` folder holds no results for "
            "the module (they stay in the folder of the machine that ran it). Run the module again to refresh.",
        ]
    unexplained = 0
    for module, s in scores:
        if s is None and module in carried and module in old_sections:
            lines += ["", *old_sections[module]]
            unexplained += sum(
                "**unexplained**" in ln or "**reason is stale**" in ln
                for ln in old_sections[module]
            )
            continue
        if s is None or not s.survivors:
            continue
        lines += ["", f"## Survivors in `{module}`", ""]
        for name, diff in s.survivors:
            minus, plus = _changed_lines(diff)
            entry = why.get(name)
            if entry is None and message_only(module, name, diff):
                entry = {"change": f"{minus} -> {plus}", "reason": MESSAGE_REASON}
            if entry is None:
                reason = "**unexplained**"
                unexplained += 1
            elif entry.get("change") != f"{minus} -> {plus}":
                reason = f"**reason is stale** (written for `{entry.get('change')}`)"
                unexplained += 1
            else:
                reason = entry["reason"]
            lines.append(f"- `{name}`: `{minus}` → `{plus}` — {reason}")
    state = json.loads(SEMANTIC_STATE.read_text()) if SEMANTIC_STATE.exists() else {}
    lines += [
        "",
        "## Semantic mutants",
        "",
        "The changes mutmut cannot make (tools/mutation.py, `SEMANTIC`): compiled kernels, dropped "
        "statements, cache keys without an input, the cache's context manager, module constants.",
        "",
        "| mutant | file | result |",
        "|---|---|---|",
    ]
    for m in SEMANTIC:
        got = state.get(m[0])
        if got is None:
            result = "not run"
        elif got["key"] != semantic_key(m) if (ROOT / m[1]).exists() else True:
            result = f"{got['status']} (files changed since)"
        else:
            result = got["status"]
        if result.startswith("survived"):
            unexplained += 1
        lines.append(f"| {m[0]} | `{m[1]}` | {result} |")
    REPORT.write_text("\n".join(lines) + "\n")
    print(f"wrote {REPORT.relative_to(ROOT)}")
    return unexplained


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("modules", nargs="*", help="modules to run (default: every core module)")
    ap.add_argument("--semantic", action="store_true", help="only the semantic mutants")
    ap.add_argument("--report", action="store_true", help="only rewrite the report")
    ap.add_argument(
        "--fresh",
        action="store_true",
        help="forget the chosen modules' earlier results first (mutmut re-tests a mutant only when its "
        "function changed, so tests added since would not be tried on the old survivors)",
    )
    args = ap.parse_args(argv)
    mods = modules()
    status = 0
    if not args.report and not args.semantic:
        chosen = mods
        if args.modules:
            by_name = {slug(m): m for m in mods} | {m: m for m in mods}
            unknown = [a for a in args.modules if a not in by_name]
            if unknown:
                print(f"unknown modules {unknown}; configured: {', '.join(by_name)}")
                return 2
            chosen = {by_name[a]: mods[by_name[a]] for a in args.modules}
        for module, tests in chosen.items():
            if args.fresh:
                shutil.rmtree(WORK / slug(module), ignore_errors=True)
            if run_module(module, tests) != 0:
                status = 2
    if args.semantic or (not args.report and not args.modules):
        status = max(status, run_semantic())
    unexplained = write_report()
    return status or (1 if unexplained else 0)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
