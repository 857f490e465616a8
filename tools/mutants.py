"""Mutation check of the library's core: does the unit-test suite catch a planted bug?

Each mutant below is one small, plausible mistake — a flipped sign, a window one short, a dropped
symmetrisation, an ignored argument, a solver that keeps the wrong end of the spectrum. For each, the
library is copied to a temporary folder, the mutation applied there (never to the working tree), and the
unit tests that guard that code run against the copy. A mutant is *killed* when a test fails. The suite
should kill every one; a surviving mutant marks a test that cannot fail for wrong code.

    .venv/bin/python tools/mutants.py          # all mutants (a few minutes)
    .venv/bin/python tools/mutants.py spectral # those whose name contains "spectral"

Exit status 1 when any mutant survives.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (name, file, original text, mutated text, tests that must catch it)
MUTANTS: list[tuple[str, str, str, str, list[str]]] = [
    (
        "corpus_stats: window one offset short",
        "qwem_lib/corpus_stats.py",
        "stop = min(n, t + W + 1)",
        "stop = min(n, t + W)",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats: counts not symmetrised",
        "qwem_lib/corpus_stats.py",
        '    k["symmetrise"](S, tile_pairs(V))\n',
        "",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats: symmetrisation forgets the diagonal",
        "qwem_lib/corpus_stats.py",
        "S[i, i] += S[i, i]",
        "S[i, i] += 0",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats: threads' row ranges overlap",
        "qwem_lib/corpus_stats.py",
        "for a in range(bounds[part], bounds[part + 1]):",
        "for a in range(max(0, bounds[part] - 1), bounds[part + 1]):",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats: normalised by the wrong total",
        "qwem_lib/corpus_stats.py",
        "out[i, j] = np.float64(C[i, j]) / t",
        "out[i, j] = np.float64(C[i, j]) / (t + 1.0)",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats: fused M* sign flipped",
        "qwem_lib/corpus_stats.py",
        "out[i, j] = 2.0 * (p - q) / (p + q)",
        "out[i, j] = 2.0 * (q - p) / (p + q)",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats: weights reversed",
        "qwem_lib/corpus_stats.py",
        "out[row + b] += w[u - t - 1]",
        "out[row + b] += w[W - (u - t)]",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats: M* sign flipped",
        "qwem_lib/corpus_stats.py",
        "lambda P, Q: 2.0 * (P - Q) / (P + Q)",
        "lambda P, Q: 2.0 * (Q - P) / (P + Q)",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "corpus_stats: unigram not renormalised",
        "qwem_lib/corpus_stats.py",
        "return list(words), counts, c.unigram(int(V))",
        "return list(words), counts, c.counts[:int(V)] / c.n_tokens",
        ["tests/test_corpus_stats.py"],
    ),
    (
        "spectral: target argument ignored",
        "qwem_lib/spectral.py",
        "M = target_from_counts(C, pu, target, dtype=dtype,",
        'M = target_from_counts(C, pu, "mstar", dtype=dtype,',
        ["tests/test_spectral.py::test_spectral_embeddings_match_independent_computation"],
    ),
    (
        "spectral: window argument ignored",
        "qwem_lib/spectral.py",
        "words, C, pu = cooccurrence_table(c, V, window,",
        "words, C, pu = cooccurrence_table(c, V, 16,",
        ["tests/test_spectral.py::test_spectral_embeddings_match_independent_computation"],
    ),
    (
        "spectral: W scaled by λ instead of √λ",
        "qwem_lib/spectral.py",
        "np.sqrt(np.maximum(lam, 0.0))",
        "np.maximum(lam, 0.0)",
        ["tests/test_spectral.py"],
    ),
    (
        "spectral: Krylov keeps the most negative Ritz values",
        "qwem_lib/spectral.py",
        "theta, S = _ritz(T.astype(dt), b, n_low)",
        "theta, S = _ritz(-T.astype(dt), b, n_low)\n        theta = -theta",
        ["tests/test_spectral.py"],
    ),
    (
        "spectral: Krylov restart forgets the locked vectors",
        "qwem_lib/spectral.py",
        "        for blk, img in ((L, ML), (X, AX)):",
        "        L, ML = L[:, :0], ML[:, :0]\n        for blk, img in ((L, ML), (X, AX)):",
        ["tests/test_spectral.py"],
    ),
    (
        "spectral: Krylov tolerance ignored (stops unconverged)",
        "qwem_lib/spectral.py",
        "tol = (1e-4 if dt == np.float32 else 1e-8) if tol is None else float(tol)",
        "tol = 1e2",
        ["tests/test_spectral.py"],
    ),
    (
        "spectral: symmetry not checked",
        "qwem_lib/spectral.py",
        "    _check_symmetric_finite(M)\n    return M, V",
        "    return M, V",
        ["tests/test_spectral.py"],
    ),
    (
        "spectral: compiled symmetry check compares an entry with itself",
        "qwem_lib/spectral.py",
        "asym = max(asym, abs(x - y))",
        "asym = max(asym, abs(x - x))",
        ["tests/test_spectral.py"],
    ),
    (
        "spectral: Krylov reuses the wrong coefficients for T",
        "qwem_lib/spectral.py",
        "if j1 > j0 and (j1 == k or j0 == 0):",
        "if j1 > j0 and j1 == k:",
        ["tests/test_spectral.py"],
    ),
    (
        "evaluation: query words not excluded",
        "qwem_lib/evaluation.py",
        "scores[it[:, k], cols] = -np.inf",
        "scores[it[:, k], cols] = scores[it[:, k], cols]",
        ["tests/test_evaluation.py"],
    ),
    (
        "evaluation: b - a sign flipped",
        "qwem_lib/evaluation.py",
        "q = Wn[it[:, 1]] - Wn[it[:, 0]] + Wn[it[:, 2]]",
        "q = Wn[it[:, 0]] - Wn[it[:, 1]] + Wn[it[:, 2]]",
        ["tests/test_evaluation.py"],
    ),
    (
        "evaluation: zero rows accepted",
        "qwem_lib/evaluation.py",
        "    _check_rows_nonzero(words, W, items.ravel())\n",
        "",
        ["tests/test_evaluation.py"],
    ),
    (
        "tokenizer: a hash hit is trusted without comparing the bytes",
        "qwem_lib/_tokenizer_kernel.py",
        "if pool[p + k] != src[s + k]:",
        "if False:",
        ["tests/test_tokenizer.py"],
    ),
    (
        "tokenizer: separator 0x1f missing",
        "qwem_lib/tokenizer.py",
        "bytes([9, 10, 11, 12, 13, 28, 29, 30, 31, 32])",
        "bytes([9, 10, 11, 12, 13, 28, 29, 30, 32])",
        ["tests/test_tokenizer.py"],
    ),
    (
        "tokenizer: a token cut by a chunk boundary is dropped",
        "qwem_lib/_tokenizer_kernel.py",
        "            carry_len = n - s\n",
        "            carry_len = 0\n",
        ["tests/test_tokenizer.py"],
    ),
    (
        "theory: M* numerator sign flipped",
        "qwem_lib/theory.py",
        "return 2.0 * (A - B) / G",
        "return 2.0 * (B - A) / G",
        ["tests/test_theory.py"],
    ),
    (
        "theory: Ψ⁻ ignored",
        "qwem_lib/theory.py",
        'B = _check_psi("psi_minus", psi_minus, V) * np.outer(p, p)',
        "B = np.outer(p, p)",
        ["tests/test_theory.py"],
    ),
    (
        "symmetry: set counts not symmetrised",
        "qwem_lib/symmetry.py",
        "    return C + C.T, total",
        "    return C, total",
        ["tests/test_symmetry.py"],
    ),
    (
        "symmetry: cyclic R² groups by the linear distance",
        "qwem_lib/symmetry.py",
        "return _group_r2(B, np.minimum(k, n - k))",
        "return _group_r2(B, k)",
        ["tests/test_symmetry.py"],
    ),
    (
        "contrastive: kernel whitened on one side only",
        "qwem_lib/contrastive.py",
        "    K = R @ C @ R\n",
        "    K = R @ R @ C\n",
        ["tests/test_contrastive.py"],
    ),
    (
        "contrastive: logistic negatives with the positives' sign",
        "qwem_lib/contrastive.py",
        "torch.nn.functional.softplus(Z @ Z.T).mean()",
        "torch.nn.functional.softplus(-Z @ Z.T).mean()",
        ["tests/test_contrastive.py"],
    ),
    (
        "contrastive: logistic modes uncoupled",
        "qwem_lib/contrastive.py",
        " - kappa * (kappa @ a) / 8",
        "",
        ["tests/test_contrastive.py"],
    ),
]


def run(mutant: tuple[str, str, str, str, list[str]]) -> tuple[bool, float, str]:
    name, rel, old, new, tests = mutant
    with tempfile.TemporaryDirectory(prefix="qwem-mutant-") as tmp:
        t = Path(tmp)
        shutil.copytree(
            ROOT / "qwem_lib", t / "qwem_lib", ignore=shutil.ignore_patterns("__pycache__")
        )
        shutil.copytree(ROOT / "tests", t / "tests", ignore=shutil.ignore_patterns("__pycache__"))
        for f in ("conftest.py", "pyproject.toml"):
            shutil.copy(ROOT / f, t / f)
        src = (t / rel).read_text()
        if src.count(old) != 1:
            raise SystemExit(
                f"mutant {name!r}: the original text occurs {src.count(old)} times in {rel}; "
                "update tools/mutants.py"
            )
        (t / rel).write_text(src.replace(old, new))
        env = dict(os.environ, PYTHONPATH=str(t), MPLBACKEND="Agg")
        t0 = time.time()
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-p",
                "no:nbval",
                "-p",
                "no:cacheprovider",
                "-x",
                "-q",
                *tests,
            ],
            cwd=t,
            env=env,
            capture_output=True,
            text=True,
        )
        last = (proc.stdout.strip().splitlines() or ["?"])[-1]
        return proc.returncode != 0, time.time() - t0, last


def main(argv: list[str]) -> int:
    chosen = [m for m in MUTANTS if not argv or any(a in m[0] for a in argv)]
    survivors = []
    print(f"{'mutant':60s} {'result':8s} {'s':>5s}  tests")
    for m in chosen:
        killed, secs, last = run(m)
        print(f"{m[0]:60s} {'killed' if killed else 'SURVIVED':8s} {secs:5.0f}  {last}", flush=True)
        if not killed:
            survivors.append(m[0])
    print(f"\n{len(chosen) - len(survivors)} of {len(chosen)} mutants killed")
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
