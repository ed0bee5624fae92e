"""data.py: the toy sets are deterministic, seeded locally, and have the documented shapes."""
import math

import pytest
import torch

from attnlab import data


def test_kernel_regression_data_is_d2ls_set():
    d = data.kernel_regression_data(50, seed=0)
    assert d.x_train.shape == d.y_train.shape == (50,)
    assert d.x_test.shape == d.y_truth.shape == (50,)
    assert torch.equal(d.x_train, torch.sort(d.x_train).values)
    assert (d.x_train >= 0).all() and (d.x_train < 5).all()
    torch.testing.assert_close(d.x_test, torch.arange(50, dtype=torch.float64) / 10)
    for x, y in zip(d.x_test.tolist(), d.y_truth.tolist()):
        assert y == pytest.approx(2 * math.sin(x) + x ** 0.8, abs=1e-12)
    noise = d.y_train - data.kernel_regression_target(d.x_train)
    assert 0.3 < noise.std().item() < 0.7                              # N(0, 0.5^2)


def test_kernel_regression_data_is_deterministic_and_does_not_touch_the_global_rng():
    state = torch.get_rng_state()
    a, b = data.kernel_regression_data(20, seed=3), data.kernel_regression_data(20, seed=3)
    assert torch.equal(torch.get_rng_state(), state)
    assert all(torch.equal(x, y) for x, y in zip(a, b))
    assert not torch.equal(a.x_train, data.kernel_regression_data(20, seed=4).x_train)
    clean = data.kernel_regression_data(10, noise=0.0, dtype=torch.float32)
    assert clean.x_train.dtype == torch.float32
    torch.testing.assert_close(clean.y_train, data.kernel_regression_target(clean.x_train))


def test_cat_milk_it_matches_seed_004_tables():
    words, X = data.cat_milk_it("sweet")
    assert words == ("cat", "milk", "it", "sweet")
    assert X.tolist() == [[2.0, 2.0], [1.0, 3.0], [2.0, 2.0], [0.0, 4.0]]
    words, X = data.cat_milk_it("hungry")
    assert words[-1] == "hungry" and X[-1].tolist() == [4.0, 0.0]
    assert torch.equal(X[0], X[2])                                     # `it` and `cat` share a vector
    _, X = data.cat_milk_it("sweet", {"it": (0.5, 3.5)})
    assert X[2].tolist() == [0.5, 3.5]
    assert data.WORD_VECTORS["it"] == (2.0, 2.0)                       # overrides do not leak


def test_thinking_machines_shapes_and_unit_variance_projections():
    tm = data.thinking_machines()
    assert tm["words"] == ("Thinking", "Machines")
    assert tm["X"].shape == (2, 512) and tm["W_Q"].shape == tm["W_K"].shape == tm["W_V"].shape == (512, 64)
    q = data.thinking_machines(d_model=256, d_k=2000, seed=1)
    entries = q["X"] @ q["W_Q"]
    assert 0.8 < entries.var().item() < 1.2
    assert torch.equal(data.thinking_machines()["X"], tm["X"])


@pytest.mark.parametrize("call,exc,match", [
    (lambda: data.cat_milk_it("salty"), ValueError, r"sentence: expected one of \['hungry', 'sweet'\], got 'salty'"),
    (lambda: data.kernel_regression_data(0), ValueError, r"n_train: expected an int >= 1, got 0"),
    (lambda: data.kernel_regression_data(5, noise=-1), ValueError, r"noise: expected a number >= 0.0, got -1.0"),
    (lambda: data.kernel_regression_data(5, seed=1.5), TypeError, r"seed: expected an int, got float"),
    (lambda: data.thinking_machines(d_k=0), ValueError, r"d_k: expected an int >= 1, got 0"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_random_dates_formats_and_iso_targets():
    import datetime
    pairs = data.random_dates(400, seed=5, formats=list(data.DATE_FORMATS))
    assert pairs == data.random_dates(400, seed=5, formats=list(data.DATE_FORMATS))     # seeded
    seen = set()
    for source, target in pairs:
        d = datetime.date.fromisoformat(target)
        fmts = [f for f in data.DATE_FORMATS if source in {data.format_date(d.year, d.month, d.day, f, zero_pad=z)
                                                           for z in (False, True)}]
        assert fmts, (source, target)
        seen.update(fmts)
    assert seen == set(data.DATE_FORMATS)
    assert [data.format_date(1994, 3, 7, f) for f in data.DATE_FORMATS] == list(data.DATE_FORMATS.values())
    # the single default format draws exactly what notebook 08 always drew
    assert data.random_dates(3, seed=0) == data.random_dates(3, seed=0, formats=["d mon yyyy"])
    with pytest.raises(ValueError, match="formats"):
        data.random_dates(3, formats=["yyyy"])


def test_chars_round_trip_through_ids_with_padding_and_markers():
    vocab = ("<pad>", "<bos>", "<eos>") + tuple("0123456789-")
    ids, lens = data.encode_chars(["12", "3"], vocab)
    assert ids.tolist() == [[4, 5], [6, 0]] and lens.tolist() == [2, 1] and ids.dtype == torch.long
    assert data.encode_chars(["1"], vocab, 4)[0].tolist() == [[4, 0, 0, 0]]
    assert data.encode_chars([], vocab)[0].shape == (0, 1)
    inputs, labels = data.encode_with_markers(["1-2"], vocab, "<bos>", "<eos>")
    assert inputs.tolist() == [[1, 4, 13, 5]] and labels.tolist() == [[4, 13, 5, 2]]
    assert data.decode_chars(labels, vocab, "<eos>") == ["1-2"]
    assert data.decode_chars(torch.tensor([[4, 0, 5, 2, 6]]), vocab, "<eos>") == ["1?2"]
