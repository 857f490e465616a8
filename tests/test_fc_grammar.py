"""The context-free grammar of Appendix A.5 (qwem_lib.fc.grammar): probabilities, shapes, determinism."""

import itertools

import numpy as np
import pytest
import torch

from qwem_lib.fc import grammar as gr


def test_generative_probabilities_sum_to_one():
    g = gr.make_grammar(
        (3, 2, 2), m=2, n_rules=2, seed=0
    )  # 3 words, 2 concepts, 2 classes, 4 words
    for label in range(2):
        total = sum(
            np.exp(gr.grammar_log_prob(g, np.array(s), label))
            for s in itertools.product(range(3), repeat=4)
        )
        assert total == pytest.approx(1.0, abs=1e-12)
    g3 = gr.make_grammar((2, 2, 2, 3), m=2, n_rules=3, seed=1, disjoint=False)  # 8 words
    for label in range(3):
        total = sum(
            np.exp(gr.grammar_log_prob(g3, np.array(s), label))
            for s in itertools.product(range(2), repeat=8)
        )
        assert total == pytest.approx(1.0, abs=1e-12)


def test_sample_frequencies_match_the_probabilities():
    g = gr.make_grammar((3, 2, 2), m=2, n_rules=2, seed=0)
    words, y, _ = gr.sample_grammar(g, 40_000, seed=2, labels=np.zeros(40_000, dtype=int))
    keys, counts = np.unique(words, axis=0, return_counts=True)
    probs = np.array([np.exp(gr.grammar_log_prob(g, k, 0)) for k in keys])
    assert probs.sum() == pytest.approx(1.0)  # every sampled sentence has positive probability
    assert np.max(np.abs(counts / 40_000 - probs)) < 0.01


def test_shapes_parse_and_determinism():
    g = gr.make_grammar((10, 6, 5, 4, 7), m=3, n_rules=5, seed=3)
    assert g.depth == 4 and g.K == 7 and g.length == 81
    words, y, parse = gr.sample_grammar(g, 11, seed=4)
    assert words.shape == (11, 81) and y.shape == (11,) and len(parse) == 5
    assert [p.shape[1] for p in parse] == [81, 27, 9, 3, 1] and np.array_equal(parse[4][:, 0], y)
    for l in range(1, 5):  # every expansion is one of the parent's right-hand sides
        child = parse[l - 1].reshape(11, -1, 3)
        for i in range(11):
            for j, s in enumerate(parse[l][i]):
                assert any(np.array_equal(child[i, j], rhs) for rhs in g.rules[l - 1][s])
    w2, y2, _ = gr.sample_grammar(g, 11, seed=4)
    assert np.array_equal(words, w2) and np.array_equal(y, y2)
    assert np.array_equal(gr.make_grammar((10, 6, 5, 4, 7), m=3, seed=3).rules[2], g.rules[2])
    with pytest.raises(ValueError):
        gr.make_grammar((5,))
    with pytest.raises(ValueError):
        gr.sample_grammar(g, 0)
    with pytest.raises(ValueError):
        gr.grammar_log_prob(g, words[0, :10], 0)


def test_grammar_net_shapes_and_locality():
    torch.manual_seed(0)
    net = gr.GrammarNet(n_words=10, K=7, m=3, depth=4, d=8, hidden=16).eval()
    x = torch.randint(0, 10, (2, 81))
    hs = net.levels(x)
    assert [tuple(h.shape) for h in hs] == [(2, 27, 8), (2, 9, 8), (2, 3, 8)]
    assert net(x).shape == (2, 7)
    x2 = x.clone()
    x2[:, 0] = (x[:, 0] + 1) % 10  # a word of span 0 moves only span 0's representations
    hs2 = net.levels(x2)
    assert torch.allclose(hs[0][:, 1:], hs2[0][:, 1:]) and not torch.allclose(
        hs[0][:, 0], hs2[0][:, 0]
    )
    assert torch.allclose(hs[2][:, 1:], hs2[2][:, 1:])
    with pytest.raises(ValueError):
        net.levels(torch.randint(0, 10, (2, 80)))
    with pytest.raises(ValueError):
        gr.GrammarNet(10, 7, 3, depth=1)


def test_train_grammar_net_learns_a_small_grammar_and_is_deterministic():
    g = gr.make_grammar((6, 4, 5), m=3, n_rules=2, seed=5)  # depth 2: 9 words, 5 classes
    net, h = gr.train_grammar_net(
        g,
        steps=300,
        batch=64,
        d=8,
        hidden=32,
        lr=1e-2,
        n_test=200,
        n_evals=3,
        progress=False,
        seed=1,
    )
    assert h["test_acc"][-1] > 0.8 > h["test_acc"][0]
    net2, h2 = gr.train_grammar_net(
        g,
        steps=300,
        batch=64,
        d=8,
        hidden=32,
        lr=1e-2,
        n_test=200,
        n_evals=3,
        progress=False,
        seed=1,
    )
    assert np.array_equal(h["test_acc"], h2["test_acc"])
    assert torch.equal(net.embed.weight, net2.embed.weight)
    ((H, s),) = gr.level_representations(net, g, 50, seed=3)
    assert H.shape == (150, 8) and s.shape == (150,) and s.max() < 4


def test_disjoint_right_hand_sides_and_bayes_accuracy():
    """With disjoint right-hand sides every sentence has one parse and one class (Bayes accuracy 1, by
    the inside algorithm); with independent draws on a tiny alphabet two symbols share right-hand
    sides, counted here by a plain comparison of every pair, and the Bayes accuracy drops below 1."""
    g = gr.make_grammar((3, 4, 5), m=2, n_rules=2, seed=0)
    assert gr.shared_right_hand_sides(g) == [0, 0]
    for R in g.rules:
        rows = [tuple(r) for r in R.reshape(-1, R.shape[-1])]
        assert len(set(rows)) == len(rows)
    x, y, _ = gr.sample_grammar(g, 40, seed=1)
    assert gr.bayes_accuracy(g, x, y) == 1.0
    g2 = gr.make_grammar((2, 3, 4), m=2, n_rules=2, seed=0, disjoint=False)
    brute = []
    for R in g2.rules:
        flat = [(s, tuple(R[s, r])) for s in range(R.shape[0]) for r in range(R.shape[1])]
        brute.append(sum(any(t == u and s != v for v, u in flat) for s, t in flat))
    assert gr.shared_right_hand_sides(g2) == brute and sum(brute) > 0
    x2, y2, _ = gr.sample_grammar(g2, 200, seed=2)
    assert gr.bayes_accuracy(g2, x2, y2) < 1.0
    with pytest.raises(ValueError, match="disjoint"):
        gr.make_grammar((2, 3), m=2, n_rules=2)  # 6 right-hand sides from 4 sequences
    with pytest.raises(ValueError):
        gr.bayes_accuracy(g, x[:, :3], y)
