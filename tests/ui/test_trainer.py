"""attnlab.ui.trainer.Trainer: the shared training panel (notebooks 01, 08, 09, 10, 11)."""
import re

import matplotlib

matplotlib.use("Agg")
import ipywidgets as widgets
import pytest
import torch

from attnlab.ui.trainer import Trainer


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
    assert t.error.value == "" and "Done: 10 steps" in t.status.value


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
    from attnlab.ui.trainer import run_to_end

    def steps():
        yield {"loss": 2.0, "model": "m"}
        yield {"loss": 1.0, "accuracy": 0.5, "model": "m"}
        return "trained"

    model, history, seconds = run_to_end(steps())
    assert model == "trained" and history == {"loss": [2.0, 1.0], "accuracy": [0.5]}
    assert set(seconds) == {"wall", "cpu"} and all(v >= 0 for v in seconds.values())
    with pytest.raises(TypeError, match=re.escape("steps: expected a generator (a lesson's run(steps, ...)), got list")):
        run_to_end([{"loss": 1.0}])


def test_a_press_on_an_event_loop_trains_as_a_task_that_stop_ends_keeping_the_model():
    """In a kernel the button's press trains on the event loop; Stop, heard between two steps, ends the
    training there: the result is the last step's model, the status says so, the buttons come back."""
    import asyncio

    async def press_then_stop():
        t = Trainer(run, steps=100, min_steps=10, redraws=4)
        task = t._pressed()
        assert isinstance(task, asyncio.Task) and t._pressed() is None     # a second press while it runs
        while t.progress.value < 5:
            await asyncio.sleep(0)
        assert t.button.disabled and not t.stop.disabled
        t.stop.click()
        result = await task
        return t, result
    t, result = asyncio.run(press_then_stop())
    done = len(t.history["loss"])
    assert 5 <= done < 100 and float(result) == 4 * 0.5 ** done and t.result is result
    assert re.search(rf"Stopped after {done} of 100 steps .*the model keeps what it learnt", t.status.value)
    assert not t.button.disabled and t.stop.disabled


def test_a_press_without_an_event_loop_trains_to_the_end():
    t = Trainer(run, steps=10, min_steps=10)
    t.button.click()
    assert len(t.history["loss"]) == 10 and "Done: 10 steps" in t.status.value and t.stop.disabled


def test_stop_reaches_a_training_kernel_between_two_steps():
    """In a real kernel: the press schedules the training; a later message (here an execute request, as a
    Stop click's comm message is) is handled between two steps and stops it."""
    import time

    from jupyter_client.manager import start_new_kernel
    km, kc = start_new_kernel(kernel_name="python3")
    try:
        def run_code(code):
            reply = kc.execute_interactive(code, timeout=60, output_hook=lambda msg: None)
            assert reply["content"]["status"] == "ok", reply["content"]
        run_code("import time, matplotlib\nmatplotlib.use('Agg')\nfrom attnlab.ui.trainer import Trainer\n"
                 "def slow(steps):\n    for i in range(steps):\n        time.sleep(0.05)\n"
                 "        yield {'loss': 1.0 / (i + 1), 'model': i}\n    return steps\n"
                 "t = Trainer(slow, steps=200, min_steps=10, max_steps=200)\ntask = t._pressed()")
        time.sleep(1.0)
        run_code("t.stop.click()")
        deadline = time.time() + 30
        while time.time() < deadline:
            out = []
            kc.execute_interactive("print(task.done(), t.result, len(t.history['loss']))", timeout=30,
                                   output_hook=lambda msg, out=out: out.append(msg["content"].get("text", "")))
            done, result, steps = "".join(out).split()
            if done == "True":
                break
            time.sleep(0.2)
        assert done == "True" and int(steps) < 200 and int(result) == int(steps) - 1
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_before_training_the_accessible_name_is_in_the_panels_language_with_its_punctuation():
    from attnlab.i18n import language
    def trainer():
        return Trainer(run, curves=("loss", "accuracy"),
                       controls={"scale": widgets.FloatSlider(value=2.0, min=1.0, max=3.0, description="scale")})
    with language("zh"):
        name = trainer().accessible_name
    assert name.startswith("损失；准确率：还没有训练。（") and name.endswith("= 2.0）"), name
    assert not re.search(r"[\u4e00-\u9fff][;:(]|[;:)][\u4e00-\u9fff]", name), name
    with language("en"):
        assert trainer().accessible_name.startswith("loss; accuracy: Not trained yet. (")
