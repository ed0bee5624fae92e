import pytest
import torch

from attnlab.lessons.nb08_bahdanau_attention import dates


def test_pairs_are_valid_dates_and_deterministic():
    pairs = dates.random_dates(200, seed=3)
    assert pairs == dates.random_dates(200, seed=3)
    for src, tgt in pairs:
        day, month, year = src.split()
        assert len(src) <= dates.MAX_SOURCE_LEN and len(tgt) == dates.TARGET_LEN
        assert tgt == f"{year}-{dates.MONTHS.index(month) + 1:02d}-{int(day):02d}"
    assert any(len(s) == 10 for s, _ in pairs) and any(len(s) == 11 for s, _ in pairs)


def test_encode_round_trip_and_padding():
    ids, lens = dates.encode_sources(["7 mar 1994", "17 Mar 1994 "])
    assert lens.tolist() == [10, 11]
    assert ids[0, 10] == 0 and (ids[1] > 0).all()
    dec_in, labels = dates.encode_targets(["1994-03-07"])
    assert dec_in[0, 0] == dates.TARGET_VOCAB.index(dates.BOS)
    assert labels[0, -1] == dates.TARGET_VOCAB.index(dates.EOS)
    assert dates.decode_targets(labels) == ["1994-03-07"]
    assert dates.decode_targets(torch.tensor([[1, 3]])) == ["?0"]


@pytest.mark.parametrize("text, error, match", [
    ("", ValueError, "empty string"),
    ("17 march 1994", ValueError, "at most 11 characters"),
    ("7/3/1994", ValueError, "got '/'"),
    ("7 MÄR 1994", ValueError, "got 'ä'"),
    (1994, TypeError, "expected a str, got int"),
])
def test_check_source_errors(text, error, match):
    with pytest.raises(error, match=match):
        dates.check_source(text)


def test_random_dates_errors():
    with pytest.raises(ValueError, match="n: expected an int >= 1, got 0"):
        dates.random_dates(0)
