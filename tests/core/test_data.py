"""attnlab/core/data.py, the data two lessons share (notebooks 08 and 10): dates in five formats and their ISO
form, characters to ids and back; deterministic and seeded locally."""
import pytest
import torch

from attnlab.core import data


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
