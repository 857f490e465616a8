"""Mutation check of the library's core: does the unit-test suite catch a planted bug?

Each mutant below is one small, plausible mistake — a flipped sign, a window one short, a dropped
symmetrisation, an ignored argument, a solver that keeps the wrong end of the spectrum. For each, the
library is copied to a temporary folder, the mutation applied there (never to the working tree), and the
unit tests that guard that code run against the copy. A mutant is *killed* when a test fails. The suite
should kill every one; a surviving mutant marks a test that cannot fail for wrong code.

    .venv/bin/python tools/mutants.py          # all mutants (a few minutes)
    .venv/bin/python tools/mutants.py spectral # those whose name contains "spectral"

First the unmutated library runs the union of the chosen mutants' tests in the same kind of copy (the
*baseline*): a kill means "the tests fail for this mutant and pass without it", so when the baseline fails
(a broken or machine-dependent test) no kill is counted and the script stops with exit status 2.

Exit status 1 when any mutant survives, 2 when the baseline fails.
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
        "paper_map: a contradiction at a reduced setting accepted",
        "qwem_lib/book/paper_map.py",
        'if e["verdict"] in ("contradicted", "reproduced") and st["match"] in (',
        'if e["verdict"] in ("reproduced",) and st["match"] in (',
        ["tests/test_paper_map.py"],
    ),
    (
        "paper_map: quote fragments not checked in order",
        "qwem_lib/book/paper_map.py",
        "        pos = at + len(frag)\n",
        "",
        ["tests/test_paper_map.py"],
    ),
    (
        "paper_map: tests may cite claims outside the evidence",
        "qwem_lib/book/paper_map.py",
        'if t["claim"] not in ev:',
        'if t["claim"] not in ev and False:',
        ["tests/test_paper_map.py"],
    ),
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
        "spectral: ARPACK's answer not checked (issue 27)",
        "qwem_lib/spectral.py",
        "        _check_eigsh_answer(M, lam, U, tol)\n",
        "",
        ["tests/test_spectral.py"],
    ),
    (
        "report: committed records written outside the build (issue 27)",
        "qwem_lib/book/report.py",
        'elif config.preset() == "book" and config.building_book():',
        'elif config.preset() == "book":',
        ["tests/test_report.py"],
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
        "        c, V, window, oov=oov, stream_vocab=stream_vocab, use_cache=use_cache",
        "        c, V, 16, oov=oov, stream_vocab=stream_vocab, use_cache=use_cache",
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
        "qwem_lib/data/_tokenizer_kernel.py",
        "if pool[p + k] != src[s + k]:",
        "if False:",
        ["tests/test_tokenizer.py"],
    ),
    (
        "tokenizer: separator 0x1f missing",
        "qwem_lib/data/_separators.py",
        "bytes([9, 10, 11, 12, 13, 28, 29, 30, 31, 32])",
        "bytes([9, 10, 11, 12, 13, 28, 29, 30, 32])",
        ["tests/test_tokenizer.py"],
    ),
    (
        "tokenizer: a token cut by a chunk boundary is dropped",
        "qwem_lib/data/_tokenizer_kernel.py",
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
        "task_vectors: moment fit drops the finite-n term (n/excess)",
        "qwem_lib/task_vectors.py",
        "num = (n + 1) * S1 * S1 - 2.0 * S2",
        "num = n * S1 * S1 - 2.0 * S2",
        ["tests/test_task_vectors.py::test_moment_fit_exact_finite_n_expectations"],
    ),
    (
        "task_vectors: σ² median factor without its Cornish–Fisher skew term",
        "qwem_lib/task_vectors.py",
        "s2 = s2 * np.exp(-(cum[0] - cum[2] / (6 * cum[1])))",
        "s2 = s2 * np.exp(-cum[0])",
        ["tests/test_task_vectors.py::test_median_centred_moment_fit_is_median_unbiased_under_mp"],
    ),
    (
        "task_vectors: σ² median factor dropped",
        "qwem_lib/task_vectors.py",
        "s2 = s2 * np.exp(-(cum[0] - cum[2] / (6 * cum[1])))",
        "s2 = s2 * 1.0",
        ["tests/test_task_vectors.py::test_median_centred_moment_fit_is_median_unbiased_under_mp"],
    ),
    (
        "task_vectors: sign-flip p-value counts only strictly larger flips",
        "qwem_lib/task_vectors.py",
        "ge = int(np.sum(Tf >= T - tol))",
        "ge = int(np.sum(Tf > T + tol))",
        [
            "tests/test_task_vectors.py::test_signflip_enumeration_matches_brute_force_and_keeps_its_level"
        ],
    ),
    (
        "task_vectors: BBP mean overlap with θ² for θ⁴",
        "qwem_lib/task_vectors.py",
        '"mean": 1.0 - c / th4,',
        '"mean": 1.0 - c / th2,',
        ["tests/test_task_vectors.py::test_bbp_overlaps_against_simulation"],
    ),
    (
        "task_vectors: column d_eff without its sampling correction",
        "qwem_lib/task_vectors.py",
        "B = float((v**2).sum()) * (N - 1) / (N + 1)",
        "B = float((v**2).sum())",
        ["tests/test_task_vectors.py::test_unequal_row_norms_bias_the_moment_fit_not_column_deff"],
    ),
    # -- issue 27: planted bugs that used to survive the unit tests ---------------------------------
    (
        "spectral: cache key without d",
        "qwem_lib/spectral.py",
        '+ f"-d{d}-{target}-{method}-{np.dtype(dtype).name}-v4.npz"',
        '+ f"-{target}-{method}-{np.dtype(dtype).name}-v4.npz"',
        ["tests/test_hardening.py::test_spectral_cache_key_has_every_input"],
    ),
    (
        "corpus_stats: co-occurrence cache key without the window",
        "qwem_lib/corpus_stats.py",
        "-V{V}-w{window}-{weighting}",
        "-V{V}-{weighting}",
        ["tests/test_hardening.py::test_cooccurrence_cache_key_has_every_input"],
    ),
    (
        "trainers: train_pairs cache key without the seed",
        "qwem_lib/trainers.py",
        "        seed=seed,\n        device=dev.type,",
        "        device=dev.type,",
        ["tests/test_hardening_training.py::test_train_pairs_cache_key_has_every_input"],
    ),
    (
        "trainers: the loss read from the shared V × V buffer after the coefficients overwrote it",
        "qwem_lib/trainers.py",
        "        value = pair_value_of(X)  # before coefficient_times overwrites X\n"
        "        return value, coefficient_times(X, Wt)",
        "        grad = coefficient_times(X, Wt)\n        return pair_value_of(X), grad",
        ["tests/test_noiseless.py::test_the_reused_product_buffer_never_leaks_between_calls"],
    ),
    (
        "trainers: the in-place logistic slope σ(−X) in place of σ(X)",
        "qwem_lib/trainers.py",
        "return lambda X: torch.sigmoid(X, out=X)",
        "return lambda X: torch.sigmoid(X.neg_(), out=X)",
        ["tests/test_noiseless.py::test_the_in_place_slope_is_the_pair_terms_slope_bit_for_bit"],
    ),
    (
        "trainers: gradient noise without the diagonal pairs (a = b)",
        "qwem_lib/trainers.py",
        "second = 2.0 * float(Cn.sum()) + 2.0 * float((Cdiag * n).sum())",
        "second = 2.0 * float(Cn.sum())",
        ["tests/test_training.py::test_split_gradient_noise_formula_and_draws"],
    ),
    (
        "trainers: gradient noise without the mean's subtraction",
        "qwem_lib/trainers.py",
        "noise = (second - 4.0 * float((AW * AW).sum()) - 4.0 * float((NW * NW).sum())) / batch",
        "noise = second / batch",
        ["tests/test_training.py::test_split_gradient_noise_formula_and_draws"],
    ),
    (
        "trainers: the authors' rate scale without the sum of G (mean(G) taken as 1)",
        "qwem_lib/trainers.py",
        "    return sum_g / m2\n",
        "    return 1.0 / m2\n",
        [
            "tests/test_noiseless.py::test_authors_rate_scale_is_the_gradient_of_their_normalised_loss"
        ],
    ),
    (
        "trainers: the authors' end time ignores the decay",
        "qwem_lib/trainers.py",
        "    lr_sum = lr * at + lr * decay_factor * (int(steps) - at)",
        "    lr_sum = lr * int(steps)",
        ["tests/test_noiseless.py::test_authors_end_time_sums_the_schedule"],
    ),
    (
        "trainers: minimise_expected's cache key without the row scaling",
        "qwem_lib/trainers.py",
        'method="lbfgs-strong-wolfe", precondition=bool(precondition), version=1,',
        'method="lbfgs-strong-wolfe", version=1,',
        ["tests/test_noiseless.py::test_minimise_expected_resumes_caches_and_keys_its_inputs"],
    ),
    (
        "trainers: minimise_expected keeps the row-scaled variables as W (forgets to unscale)",
        "qwem_lib/trainers.py",
        "        W = x.detach() / r\n",
        "        W = x.detach()\n",
        ["tests/test_noiseless.py::test_minimise_expected_finds_scipys_minimum_of_the_loop_loss"],
    ),
    (
        "trainers: minimise_expected never stops on a stall (runs its whole budget)",
        "qwem_lib/trainers.py",
        '        stalled = v >= logs["loss"][-1] and gn >= logs["gn"][-1]',
        "        stalled = False",
        [
            "tests/test_noiseless.py::test_minimise_expected_stops_when_the_products_precision_is_reached"
        ],
    ),
    (
        "measures: gram_distance without the cross term's factor 2",
        "qwem_lib/measures.py",
        "max(aa + bb - 2.0 * ab, 0.0)",
        "max(aa + bb - ab, 0.0)",
        [
            "tests/test_noiseless.py::test_gram_distance_is_the_direct_frobenius_distance_and_rotation_free"
        ],
    ),
    (
        "evaluation: similarity bootstrap not paired (a fresh resample per embedding)",
        "qwem_lib/evaluation.py",
        "    for b in range(int(n_boot)):\n        idx = rng.integers(0, n, n)\n        for j in range(len(Ws)):\n",
        "    for b in range(int(n_boot)):\n        for j in range(len(Ws)):\n            idx = rng.integers(0, n, n)\n",
        ["tests/test_evaluation.py::test_similarity_bootstrap_is_paired_and_matches_a_loop"],
    ),
    (
        "trainers: train_pairs cache key without stats=",
        "qwem_lib/trainers.py",
        'cfg["stats"] = array_key(*(np.asarray(a, dtype=np.float64) for a in stats))',
        "pass",
        ["tests/test_hardening_training.py::test_train_pairs_cache_key_has_every_input"],
    ),
    (
        "corpus: fingerprint hashes only the first 4,096 ids",
        "qwem_lib/data/corpus.py",
        "if self._verified_ids == id(ids):",
        "if True:",
        [
            "tests/test_hardening_training.py::test_a_corpus_reusing_a_registered_name_is_keyed_by_all_its_ids"
        ],
    ),
    (
        "spectral: symmetry tolerance at float32's eps for float64 input",
        "qwem_lib/spectral.py",
        "if worst > 100 * np.finfo(M.dtype).eps * max(",
        "if worst > 100 * np.finfo(np.float32).eps * max(",
        ["tests/test_hardening.py::test_symmetry_tolerance_follows_the_dtype"],
    ),
    (
        "spectral: eigen_features ignores top_words",
        "qwem_lib/spectral.py",
        "for col in U[:n].T:",
        "for col in U.T:",
        ["tests/test_hardening.py::test_eigen_features_respects_top_words"],
    ),
    (
        "spectral: inertia's zero tolerance absolute",
        "qwem_lib/spectral.py",
        "tol = 1e-12 * max(1.0, float(np.abs(ev).max()))",
        "tol = 1e-12",
        ["tests/test_hardening.py::test_inertia_zero_tolerance_is_relative"],
    ),
    (
        "corpus_stats: int32-overflow bound halved",
        "qwem_lib/corpus_stats.py",
        "bound = 2 * int(w.sum()) * int(inv.max())",
        "bound = int(w.sum()) * int(inv.max())",
        ["tests/test_hardening.py::test_count_table_never_overflows_int32"],
    ),
    (
        "files: verify() memo ignores mtime, ctime and inode",
        "qwem_lib/data/files.py",
        "key = (str(path), size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino)",
        "key = (str(path), size, 0, 0, 0)",
        ["tests/test_hardening.py::test_verify_memo_notices_a_replaced_file"],
    ),
    (
        "corpus: cache check ignores counts.sum() == n_tokens",
        "qwem_lib/data/corpus.py",
        "and int(counts.sum()) == ids.shape[0]",
        "",
        ["tests/test_hardening.py::test_corpus_cache_checks_counts_sum_to_tokens"],
    ),
    (
        "corpus: head_corpus ties in whole-corpus order",
        "qwem_lib/data/corpus.py",
        "key=lambda k: (-int(cnt[present[k]]), corpus.words[present[k]])",
        "key=lambda k: -int(cnt[present[k]])",
        ["tests/test_hardening.py::test_head_corpus_breaks_ties_alphabetically"],
    ),
    (
        "files: content-hash fallback accepts any decompressible .xz",
        "qwem_lib/data/files.py",
        "and _content_sha256(path) == spec.content_sha256",
        "and _content_sha256(path) is not None",
        ["tests/test_hardening.py::test_content_hash_fallback_needs_the_right_content"],
    ),
    (
        "tokenizer: id buffer one slot short",
        "qwem_lib/data/tokenizer.py",
        "out = np.empty(buf.size // 2 + 2, dtype=np.int32)",
        "out = np.empty(buf.size // 2, dtype=np.int32)",
        ["tests/test_hardening.py::test_tokenizer_id_buffer_holds_every_token"],
    ),
    (
        "sources: tags span newlines in the normaliser",
        "qwem_lib/data/sources.py",
        '_TAG = re.compile(r"<[^<>\\n]{0,200}>")',
        '_TAG = re.compile(r"<[^<>]{0,200}>")',
        ["tests/test_hardening.py::test_normaliser_tags_do_not_span_lines"],
    ),
    (
        "maths.stats: gap_se divides b's variance by n_a",
        "qwem_lib/maths/stats.py",
        "acc_b * (1 - acc_b) / n_b",
        "acc_b * (1 - acc_b) / n_a",
        ["tests/test_hardening.py::test_gap_se_uses_each_side_s_own_count"],
    ),
    (
        "evaluation: 3CosMul epsilon 1e-6",
        "qwem_lib/evaluation.py",
        "scores = cos[1] * cos[2] / (cos[0] + 1e-3)",
        "scores = cos[1] * cos[2] / (cos[0] + 1e-6)",
        ["tests/test_hardening.py::test_3cosmul_uses_levy_goldberg_epsilon"],
    ),
    (
        "fc.theory: zero threshold from the uncentred concept matrix",
        "qwem_lib/fc/theory.py",
        "Zc = onehot - onehot.mean(0, keepdims=True)",
        "Zc = onehot",
        ["tests/test_hardening_fc.py::test_zero_threshold_ignores_a_position_every_latent_shares"],
    ),
    (
        "fc.theory: φ bisection cut to 30 iterations",
        "qwem_lib/fc/theory.py",
        "iters: int = 200, *, log: bool = False",
        "iters: int = 30, *, log: bool = False",
        ["tests/test_hardening_fc.py::test_thm2_solve_at_tiny_weight_decay"],
    ),
    (
        "fc.theory: φ bisected in x instead of log x",
        "qwem_lib/fc/theory.py",
        "        mid = 0.5 * (lo + hi)\n        pos = h(mid) > 0",
        "        mid = np.log(0.5 * (np.exp(lo) + np.exp(hi)))\n        pos = h(mid) > 0",
        ["tests/test_hardening_fc.py::test_thm2_solve_at_tiny_weight_decay"],
    ),
    (
        "report: relative tolerance measured against the value",
        "qwem_lib/book/report.py",
        "bound = tol * abs(target) if rel else tol",
        "bound = tol * abs(value) if rel else tol",
        ["tests/test_hardening.py::test_relative_tolerance_is_relative_to_the_target"],
    ),
    (
        "pairs: word2vec subsampling keeps only √(t/P)",
        "qwem_lib/pairs.py",
        "return np.clip(r + np.sqrt(r), 0.0, 1.0)",
        "return np.clip(np.sqrt(r), 0.0, 1.0)",
        ["tests/test_hardening_training.py::test_subsampling_keep_matches_gensim_formula"],
    ),
    (
        "cache: atomic_path leaves mkstemp's 0600 mode",
        "qwem_lib/book/cache.py",
        "            tmp.chmod(0o644)\n",
        "",
        ["tests/test_hardening.py::test_atomic_path_leaves_a_readable_file"],
    ),
    (
        "maths.linalg: eig_desc without its symmetry check",
        "qwem_lib/maths/linalg.py",
        '        raise ValueError("M must be symmetric")',
        "        pass",
        ["tests/test_hardening.py::test_eig_desc_refuses_a_nonsymmetric_matrix"],
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
    (
        "untied: target without its factor 2",
        "qwem_lib/untied.py",
        "np.divide(2.0 * (A - N), G, out=T, where=G > 0)",
        "np.divide(A - N, G, out=T, where=G > 0)",
        ["tests/test_untied.py"],
    ),
    (
        "untied: unweighted fast path with the quadratic term doubled",
        "qwem_lib/untied.py",
        "return (0.5 * g_const) * (W @ (Wp.T @ Wp)) - D @ Wp",
        "return g_const * (W @ (Wp.T @ Wp)) - D @ Wp",
        ["tests/test_untied.py"],
    ),
    (
        "untied: competing starts not orthogonalised",
        "qwem_lib/untied.py",
        "            c -= (b @ c) * b\n",
        "            c -= 0.0 * b\n",
        ["tests/test_untied.py"],
    ),
    (
        "analogy_timing: pair bootstrap weights added instead of multiplied",
        "qwem_lib/analogy_timing.py",
        "out[:, rows] = m[:, idx[rows, 0]] * m[:, idx[rows, 1]]",
        "out[:, rows] = m[:, idx[rows, 0]] + m[:, idx[rows, 1]]",
        ["tests/test_analogy_timing.py"],
    ),
    (
        "analogy_timing: Lemma 3.1's embeddings scaled by s² instead of s",
        "qwem_lib/analogy_timing.py",
        "    return Q * np.sqrt(s2)",
        "    return Q * s2",
        ["tests/test_analogy_timing.py"],
    ),
]


def _pytest_in_copy(
    tests: list[str], mutation: tuple[str, str, str, str] | None
) -> tuple[int, float, str]:
    """Run ``tests`` against a temporary copy of the library, with ``mutation`` = (name, file, old, new)
    applied there (None: the unmutated baseline). Returns (pytest's exit status, seconds, its last line)."""
    with tempfile.TemporaryDirectory(prefix="qwem-mutant-") as tmp:
        t = Path(tmp)
        shutil.copytree(
            ROOT / "qwem_lib", t / "qwem_lib", ignore=shutil.ignore_patterns("__pycache__")
        )
        shutil.copytree(ROOT / "tests", t / "tests", ignore=shutil.ignore_patterns("__pycache__"))
        for f in ("conftest.py", "pyproject.toml"):
            shutil.copy(ROOT / f, t / f)
        if mutation is not None:
            name, rel, old, new = mutation
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
        return proc.returncode, time.time() - t0, last


def run(mutant: tuple[str, str, str, str, list[str]]) -> tuple[bool, float, str]:
    """(killed, seconds, pytest's last line) for one mutant."""
    name, rel, old, new, tests = mutant
    code, secs, last = _pytest_in_copy(tests, (name, rel, old, new))
    return code != 0, secs, last


def baseline(chosen: list[tuple[str, str, str, str, list[str]]]) -> tuple[bool, float, str]:
    """(passed, seconds, pytest's last line) for the unmutated library on every test the mutants use."""
    tests = sorted({t for m in chosen for t in m[4]})
    code, secs, last = _pytest_in_copy(tests, None)
    return code == 0, secs, last


def main(argv: list[str]) -> int:
    chosen = [m for m in MUTANTS if not argv or any(a in m[0] for a in argv)]
    if not chosen:
        print(f"no mutant's name contains any of {argv}")
        return 2
    stale = [
        f"  {name!r}: the original text occurs {(ROOT / rel).read_text().count(old)} times in {rel}"
        for name, rel, old, _, _ in chosen
        if (ROOT / rel).read_text().count(old) != 1
    ]
    if stale:  # found before any test runs, not after half of them
        print("mutants whose original text is not found once (update tools/mutants.py):")
        print("\n".join(stale))
        return 2
    ok, secs, last = baseline(chosen)
    print(f"{'baseline (no mutation)':60s} {'passes' if ok else 'FAILS':8s} {secs:5.0f}  {last}")
    if not ok:
        print(
            "\nThe unmutated library fails these tests: a failure under a mutant would prove nothing, "
            "so no kill is counted. Fix (or de-flake) the failing test first."
        )
        return 2
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
