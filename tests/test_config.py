import numpy as np
import pytest

from qwem_lib import config, data


def test_preset_default_and_validation(monkeypatch):
    monkeypatch.delenv("QWEM_PRESET", raising=False)
    assert config.preset() == "book"
    monkeypatch.setenv("QWEM_PRESET", "Smoke ")
    assert config.preset() == "smoke"
    monkeypatch.setenv("QWEM_PRESET", "huge")
    with pytest.raises(ValueError, match="not a preset"):
        config.preset()


def test_sizes_picks_active_preset(monkeypatch):
    monkeypatch.setenv("QWEM_PRESET", "paper")
    s = config.sizes(smoke=dict(V=1), book=dict(V=2), paper=dict(V=3))
    assert s == {"V": 3}


def test_sizes_requires_all_presets_and_same_keys(monkeypatch):
    monkeypatch.setenv("QWEM_PRESET", "smoke")
    with pytest.raises(ValueError, match="missing"):
        config.sizes(smoke=dict(V=1), book=dict(V=2))
    with pytest.raises(ValueError, match="same sizes"):
        config.sizes(smoke=dict(V=1), book=dict(V=2), paper=dict(d=3))


def test_device_override(monkeypatch):
    monkeypatch.setenv("QWEM_DEVICE", "cpu")
    assert config.device_name() == "cpu"
    assert str(config.device()) == "cpu"
    monkeypatch.delenv("QWEM_DEVICE")
    assert config.device_name() in ("cpu", "cuda")


def test_seeds_reproducible():
    a = config.rng(3).normal(size=5)
    b = config.rng(3).normal(size=5)
    c = config.rng(4).normal(size=5)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    import torch

    config.seed_everything(1)
    x = torch.randn(3)
    config.seed_everything(1)
    assert torch.equal(x, torch.randn(3))


def test_cache_dir_override(monkeypatch, tmp_path):
    monkeypatch.setenv("QWEM_CACHE_DIR", str(tmp_path / "c"))
    assert config.cache_dir() == tmp_path / "c" and (tmp_path / "c").is_dir()


def test_describe_names_preset_and_device(monkeypatch):
    monkeypatch.setenv("QWEM_PRESET", "smoke")
    text = config.describe()
    assert "preset=smoke" in text and "device=" in text


def test_device_setting_is_validated(monkeypatch):
    import torch

    from qwem_lib import config

    monkeypatch.setenv("QWEM_DEVICE", "cpu")
    assert config.device_name() == "cpu"
    monkeypatch.setenv("QWEM_DEVICE", "tpu")
    with pytest.raises(ValueError, match="not a device"):
        config.device_name()
    if not torch.cuda.is_available():
        monkeypatch.setenv("QWEM_DEVICE", "cuda")
        with pytest.raises(ValueError, match="sees no CUDA device"):
            config.device_name()


# -- inputs, caches and faults ------------------------------------------------------------------


def test_empty_cache_dir_variable_is_unset(monkeypatch, tmp_path):
    from qwem_lib.book import config

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("QWEM_CACHE_DIR", "")
    assert config.cache_dir() == config.REPO_ROOT / ".cache"
    monkeypatch.setenv("QWEM_DATA_DIR", "")
    assert data.data_dir() == config.REPO_ROOT / "data"


@pytest.mark.parametrize("name", ["smoke", "book", "paper"])
def test_knobs_give_each_preset_its_value(monkeypatch, name):
    """per_preset's three values are smoke, book and paper in that order; a plain value holds at every
    preset; the result equals what sizes() gives for the same table."""
    monkeypatch.setenv("QWEM_PRESET", name)
    got = config.knobs(
        K=config.per_preset(1, 2, 3), L=15, seeds=config.per_preset((), (7,), (7, 8))
    )
    table = {
        "smoke": dict(K=1, L=15, seeds=()),
        "book": dict(K=2, L=15, seeds=(7,)),
        "paper": dict(K=3, L=15, seeds=(7, 8)),
    }
    assert got == table[name] == config.sizes(**table)
    assert list(got) == ["K", "L", "seeds"]  # the chapter's order


def test_knobs_refuse_an_empty_table_and_a_bad_preset(monkeypatch):
    with pytest.raises(ValueError, match="at least one knob"):
        config.knobs()
    monkeypatch.setenv("QWEM_PRESET", "huge")
    with pytest.raises(ValueError, match="not a preset"):
        config.knobs(K=config.per_preset(1, 2, 3))
