"""attnlab.core.stored: the one reader of lessons 10-14's results.json and live.json."""
import json

import pytest

from attnlab.core import stored
from attnlab.lessons.nb11_induction_heads import shipped as nb11
from attnlab.lessons.nb11_induction_heads.checkpoints import RESULTS


def test_each_call_hands_out_a_fresh_dict_with_live_under_its_key(tmp_path):
    results, live = tmp_path / "results.json", tmp_path / "live.json"
    results.write_text(json.dumps({"loss": 2.5, "curve": [1, 2]}), encoding="utf-8")
    live.write_text(json.dumps({"seconds": 30}), encoding="utf-8")
    first = stored.measured(results, live)
    assert first == {"loss": 2.5, "curve": [1, 2], "live": {"seconds": 30}}
    first["curve"].append(3)
    assert stored.measured(results, live)["curve"] == [1, 2]
    assert "live" not in stored.measured(results)
    assert "live" not in stored.measured(results, tmp_path / "absent.json")


def test_a_missing_results_file_says_which_and_what_writes_it(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"absent\.json: the lesson's stored results are missing"):
        stored.measured(tmp_path / "absent.json")


def test_a_lesson_reads_its_own_file():
    assert {k: v for k, v in nb11.measured().items() if k != "live"} == json.loads(RESULTS.read_text(encoding="utf-8"))
