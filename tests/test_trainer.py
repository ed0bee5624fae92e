"""attnlab.trainer.Trainer: the shared training widget (notebooks 01, 08, 09)."""
import re

import matplotlib

matplotlib.use("Agg")
import ipywidgets as widgets
import pytest
import torch
from attnlab.trainer import Trainer


def run(steps, scale=1.0):
    w = torch.tensor(4.0)
    for _ in range(steps):
        w = w * 0.5
        yield {"loss": float(w) * scale, "accuracy": 1 - float(w) / 4, "model": w}
    return w


def test_trains_from_scratch_each_time_draws_curves_and_returns_the_result():
    t = Trainer(run, steps=10, min_steps=10, controls={"scale": widgets.FloatSlider(value=2.0)},
                curves=("loss", "accuracy"), redraws=2)
    assert float(t.train()) == 4 * 0.5 ** 10 and t.progress.value == 10
    assert t.history["loss"][0] == 4.0 and len(t.history["accuracy"]) == 10
    assert list(t.lines["loss"].get_ydata()) == t.history["loss"]
    t.train()
    assert len(t.history["loss"]) == 10                 # a second press starts over
    assert t.axes["accuracy"].get_ylim() == (0, 1.02) and t.axes["loss"].get_yscale() == "log"
    assert t.panel.error.value == "" and "Done: 10 steps" in t.status.value


def test_a_failing_run_is_reported_in_the_status_not_raised():
    def bad(steps):
        yield {"loss": 1.0}
        raise RuntimeError("exploded <b>")
    t = Trainer(bad, steps=10)
    assert t.train() is None and not t.button.disabled
    assert "RuntimeError" in t.status.value and "exploded &lt;b&gt;" in t.status.value


def test_a_step_without_its_curve_is_reported():
    t = Trainer(lambda steps: iter([{"acc": 1.0}]), steps=10)
    t.train()
    assert "run: expected each step&#x27;s dict to hold &#x27;loss&#x27;" in t.status.value


@pytest.mark.parametrize("kwargs,error,message", [
    ({"run": 3}, TypeError, "run: expected a generator function run(steps, **values), got int"),
    ({"curves": "loss"}, TypeError, "curves: expected a list or tuple, got str"),
    ({"curves": ()}, ValueError, "curves: expected at least 1 entries, got 0"),
    ({"steps": 0}, ValueError, "steps: expected an int >= 1, got 0"),
    ({"curves": ("loss", 3)}, TypeError, "curves[1]: expected a str, got int"),
    ({"redraws": 1.5}, TypeError, "redraws: expected an int, got float"),
    ({"steps": 500}, ValueError, "steps: expected a value in [10, 200], got 500"),
])
def test_bad_arguments_are_named(kwargs, error, message):
    args = {"run": run, **kwargs}
    with pytest.raises(error, match=re.escape(message)):
        Trainer(args.pop("run"), **args)


def test_run_to_end_gathers_the_history_and_returns_the_model():
    from attnlab.trainer import run_to_end

    def steps():
        yield {"loss": 2.0, "model": "m"}
        yield {"loss": 1.0, "accuracy": 0.5, "model": "m"}
        return "trained"

    model, history, seconds = run_to_end(steps())
    assert model == "trained" and history == {"loss": [2.0, 1.0], "accuracy": [0.5]}
    assert set(seconds) == {"wall", "cpu"} and all(v >= 0 for v in seconds.values())
    with pytest.raises(TypeError, match=re.escape("steps: expected a generator (a lesson's run(steps, ...)), got list")):
        run_to_end([{"loss": 1.0}])
