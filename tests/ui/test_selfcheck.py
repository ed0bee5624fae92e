"""selfcheck.py: right/wrong feedback, solutions on demand, check_function's report."""
import pytest
import torch

from attnlab.ui import selfcheck


def test_multiple_choice_feedback():
    mc = selfcheck.multiple_choice("T -> 0 gives ...", {"uniform": "No: that is T -> infinity.",
                                                          "one-hot": "Yes: the largest score wins."}, "one-hot")
    assert mc.check() is False and "Pick an answer first" in mc.feedback.value
    assert mc.check("uniform") is False
    assert "Not quite" in mc.feedback.value and "T -> infinity" in mc.feedback.value
    assert mc.check("one-hot") is True
    assert "Right" in mc.feedback.value and "largest score wins" in mc.feedback.value
    mc.reveal.value = True
    assert mc.solution.layout.display == "" and mc.reveal.description == "Hide solution"
    mc.reveal.value = False
    assert mc.solution.layout.display == "none"
    assert mc._repr_mimebundle_()["text/plain"] == "Self-check: T -> 0 gives ..."


def test_multiple_choice_check_button():
    mc = selfcheck.multiple_choice("2 + 2?", {"4": "yes", "5": "no"}, "4", solution="four")
    mc.control.value = "5"
    mc.check_button.click()
    assert "Not quite" in mc.feedback.value
    assert "four" in mc.solution.value


def test_numeric_feedback():
    n = selfcheck.numeric("Var(q·k) for d_k = 64?", 64, tolerance=0.5, hint="Add d_k variances.")
    assert n.check(64.4) is True and "Right" in n.feedback.value and "64" in n.feedback.value
    assert n.check(8) is False and "too small" in n.feedback.value and "Add d_k" in n.feedback.value
    assert n.check(100) is False and "too large" in n.feedback.value
    assert n.check(float("nan")) is False


def test_multiple_choice_rejects_an_answer_not_among_the_options():
    with pytest.raises(ValueError, match=r"answer: expected one of the options \['a', 'b'\], got 'c'"):
        selfcheck.multiple_choice("?", {"a": "", "b": ""}, "c")


def _softmax(x):
    return torch.softmax(x, -1)


CASES = [(torch.tensor([1.0, 2.0, 3.0]),), (torch.zeros(2, 4),)]


def test_check_function_all_right(capsys):
    def mine(x):
        e = torch.exp(x - x.max(-1, keepdim=True).values)
        return e / e.sum(-1, keepdim=True)
    assert selfcheck.check_function(mine, _softmax, CASES) is True
    out = capsys.readouterr().out
    assert out.count("✓") == 2 and "mine: all 2 cases match." in out


def test_check_function_stub_raises_not_implemented(capsys):
    def my_softmax(x):
        raise NotImplementedError
    assert selfcheck.check_function(my_softmax, _softmax, CASES) is False
    assert "my_softmax is not written yet (it raises NotImplementedError)" in capsys.readouterr().out


def test_check_function_wrong_shape_wrong_values_and_errors(capsys):
    assert selfcheck.check_function(lambda x: torch.exp(x).sum(), _softmax, CASES, name="shape") is False
    out = capsys.readouterr().out
    assert "✗ shape (), expected (3,)" in out and "shape: not yet, see above." in out
    assert selfcheck.check_function(torch.exp, _softmax, CASES) is False
    assert "values differ from the reference by up to" in capsys.readouterr().out
    assert selfcheck.check_function(lambda x: x.nope(), _softmax, CASES[:1], name="broken") is False
    assert "broken raised AttributeError" in capsys.readouterr().out


def test_numeric_nan_asks_for_a_finite_number():
    from attnlab.ui import selfcheck
    q = selfcheck.numeric("x?", 1.0)
    assert not q.check(float("nan"))
    assert "finite number" in q.feedback.value


# ---- issue 15: the learner's mistakes are reported in words, never raised
def _out(capsys):
    return capsys.readouterr().out


def test_check_function_reports_a_missing_return(capsys):
    def my_softmax(x):
        torch.softmax(x, -1)                                    # no return
    assert selfcheck.check_function(my_softmax, _softmax, CASES) is False
    assert "case 1: ✗ my_softmax returned None: did you forget the `return` line?" in _out(capsys)


@pytest.mark.parametrize("result,words", [
    ("abc", "returned a str ('abc'), expected a tensor"),
    ({"a": 1}, "returned a dict ({'a': 1}), expected a tensor"),
    ([[1.0], [1.0, 2.0]], "returned a ragged list (rows of different lengths), not a tensor of numbers"),
    (1 + 2j, "returned a complex"),
])
def test_check_function_reports_wrong_types(capsys, result, words):
    assert selfcheck.check_function(lambda x: result, _softmax, CASES[:1], name="f") is False
    assert f"case 1: ✗ f {words}" in _out(capsys)


def test_check_function_accepts_lists_and_numpy_of_the_right_values(capsys):
    assert selfcheck.check_function(lambda x: _softmax(x).tolist(), _softmax, CASES, name="f") is True
    assert selfcheck.check_function(lambda x: _softmax(x).numpy(), _softmax, CASES, name="g") is True
    assert "f: all 2 cases match." in _out(capsys)


def test_check_function_reports_nan_in_words(capsys):
    assert selfcheck.check_function(lambda x: x / 0 * 0, _softmax, CASES[:1], name="f") is False
    assert ("case 1: ✗ 3 of 3 values are NaN where the reference has numbers (first at index (0,)): "
            "look for a division by zero or an exp of a large number") in _out(capsys)


def test_identical_nan_results_match(capsys):
    case = [(torch.tensor([float("nan"), 1.0]),)]
    assert selfcheck.check_function(lambda x: x * 1.0, lambda x: x + 0.0, case, name="f") is True
    assert "case 1: ✓" in _out(capsys)


def test_check_function_reports_like_assert_close(capsys):
    case = [(torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64),)]
    assert selfcheck.check_function(lambda x: _softmax(x) + torch.tensor([0.0, 0.5, 0.0], dtype=torch.float64),
                                    _softmax, case, name="f") is False
    out = _out(capsys)
    assert "case 1: ✗ values differ from the reference by up to 0.5" in out
    assert "Mismatched elements: 1 / 3 (33.3%)" in out
    assert "Greatest absolute difference: 0.5 at index (1,) (up to 1e-06 allowed)" in out
    assert "Greatest relative difference: 2.043 at index (1,) (up to 1e-05 allowed)" in out
    assert "At index (1,) your function gives 0.7447, the reference 0.2447." in out     # where they differ


def test_check_function_reads_the_result_itself_not_torch_testing(capsys, monkeypatch):
    """The report is computed from the two tensors: torch.testing's messages are neither called nor parsed."""
    def refuse(*args, **kwargs):
        raise RuntimeError("torch.testing.assert_close must not be called")
    monkeypatch.setattr(torch.testing, "assert_close", refuse)
    cases = [(torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64),), (torch.tensor(2.0),)]
    assert selfcheck.check_function(lambda x: x * torch.tensor([[1.0, 1.0], [1.0, 1.5]], dtype=torch.float64)
                                    if x.dim() else x + 1, lambda x: x, cases, name="f") is False
    assert _out(capsys).split("\n") == [
        "case 1: ✗ values differ from the reference by up to 2",
        "    Mismatched elements: 1 / 4 (25.0%)",
        "    Greatest absolute difference: 2 at index (1, 1) (up to 1e-06 allowed)",
        "    Greatest relative difference: 0.5 at index (1, 1) (up to 1e-05 allowed)",
        "    At index (1, 1) your function gives 6, the reference 4.",
        "case 2: ✗ values differ from the reference by up to 1",
        "    Expected 2 but got 3.",
        "    Absolute difference: 1 (up to 1e-06 allowed)",
        "    Relative difference: 0.5 (up to 1e-05 allowed)",
        "f: not yet, see above.", ""]


def test_only_the_entries_out_of_tolerance_are_reported(capsys):
    """A large reference entry within rtol is not "the greatest difference"; equal infs match."""
    want = torch.tensor([1e6, 1.0, float("inf")], dtype=torch.float64)
    got = want + torch.tensor([5.0, 1e-3, 0.0], dtype=torch.float64)     # 5 <= 1e-5 * 1e6: within rtol
    assert selfcheck.check_function(lambda x: got, lambda x: want, [(want,)], name="f") is False
    out = _out(capsys)
    assert "up to 0.001\n    Mismatched elements: 1 / 3 (33.3%)" in out
    assert "At index (1,) your function gives 1.001, the reference 1." in out


def test_check_function_runs_the_learner_on_copies(capsys):
    cases = [(torch.tensor([1.0, 2.0]),)]
    before = cases[0][0].clone()

    def my_softmax(b):
        b.mul_(2)                                               # in place: must not reach the shared case
        return torch.softmax(b, -1)
    assert selfcheck.check_function(my_softmax, _softmax, cases) is False
    assert torch.equal(cases[0][0], before)


def test_check_function_stub_output_unchanged(capsys):
    """Notebook 01's stored output depends on this line."""
    def my_gaussian_weights(x):
        raise NotImplementedError
    selfcheck.check_function(my_gaussian_weights, _softmax, CASES)
    assert _out(capsys) == ("case 1: my_gaussian_weights is not written yet (it raises NotImplementedError). "
                            "Fill it in and run again.\n")


def test_check_function_reports_a_non_function(capsys):
    assert selfcheck.check_function(3, _softmax, CASES, name="my_softmax") is False
    assert "my_softmax is not a function (it is a int): define it with def and run again." in _out(capsys)


def test_hints_recognise_a_common_mistake(capsys):
    hints = [(lambda x: torch.softmax(x, 0), "Softmax over the keys: that is dim=-1, not dim=0."),
             selfcheck.symptom(lambda out, x: (out < 0).any(), "Weights are never negative: exponentiate."),
             selfcheck.symptom(lambda out, x: 1 / 0, "never shown: a hint that raises is skipped")]
    case = [(torch.tensor([[1.0, 2.0], [0.0, 5.0]]),)]
    assert selfcheck.check_function(lambda x: torch.softmax(x, 0), _softmax, case, name="f", hints=hints) is False
    out = _out(capsys)
    assert "    Recognised mistake: Softmax over the keys: that is dim=-1, not dim=0." in out
    assert "never negative" not in out and "never shown" not in out
    assert selfcheck.check_function(lambda x: x - 10, _softmax, case, name="f", hints=hints) is False
    out = _out(capsys)
    assert "    Hint: Weights are never negative: exponentiate." in out and "dim=-1" not in out
    assert selfcheck.check_function(_softmax, _softmax, case, name="f", hints=hints) is True
    assert "Hint" not in _out(capsys)                           # hints only under a failing case


@pytest.mark.parametrize("value,words", [("abc", "'abc' is not a number: type a number."),
                                         ([1], "[1] is not a number: type a number."),
                                         (float("inf"), "Type a finite number.")])
def test_numeric_check_of_nonsense_tells_the_learner(value, words):
    q = selfcheck.numeric("x?", 1.0, hint="Think.")
    assert q.check(value) is False
    assert words in q.feedback.value and "Not quite" in q.feedback.value


def test_multiple_choice_check_of_an_unknown_option_tells_the_learner():
    mc = selfcheck.multiple_choice("?", {"a": "x", "b": "y"}, "a")
    assert mc.check("c") is False and "c is not one of the options: pick one of them." in mc.feedback.value


def test_check_function_passes_what_cannot_be_copied_as_it_is(capsys):
    model = torch.nn.Linear(2, 2)
    model.cache = model.weight * 2                                   # a non-leaf tensor: deepcopy refuses
    x = torch.ones(2, requires_grad=True)
    ref = lambda m, x: m(x).detach()
    assert selfcheck.check_function(lambda m, x: m(x).detach(), ref, [(model, x)], name="f") is True
    assert selfcheck.check_function(lambda m, x: torch.autograd.grad(m(x).sum(), x)[0] * 0 + m(x).detach(), ref,
                                    [(model, x)], name="g") is True   # requires_grad kept on the copy


# ---- known mistakes of a numeric self-check (issue 14: say why a wrong answer is wrong)
def _gpt3():
    return selfcheck.numeric("√128? Two decimals.", 11.31, tolerance=0.01, hint="The square root of d_k.",
                             mistakes={128 / 8: "you divided 128 by 8: 8 is √64, not √128.",
                                       128: "that is d_k itself: take its square root."})


def test_numeric_names_a_known_mistake_and_gives_the_hint_otherwise():
    q = _gpt3()
    assert q.check(16) is False
    assert "16: you divided 128 by 8: 8 is √64, not √128." in q.feedback.value
    assert "Not quite" in q.feedback.value and "square root of d_k" not in q.feedback.value
    assert q.check(16.009) is False and "you divided 128 by 8" in q.feedback.value      # the same tolerance
    assert q.check(16.02) is False and "16.02 is too large. The square root of d_k." in q.feedback.value
    assert q.check(128) is False and "that is d_k itself" in q.feedback.value
    assert q.check(3) is False and "3 is too small. The square root of d_k." in q.feedback.value
    assert "you divided" not in q.feedback.value and "d_k itself" not in q.feedback.value
    assert q.check(11.315) is True and "Right" in q.feedback.value
    assert q.check("16") is False and "is not a number" in q.feedback.value


def test_numeric_mistake_through_the_widget():
    q = _gpt3()
    q.control.value = 16.0
    q.check_button.click()
    assert "you divided 128 by 8" in q.feedback.value
    q.control.value = 20.0
    q.check_button.click()
    assert "20 is too large. The square root of d_k." in q.feedback.value
    q.control.value = 11.31
    q.check_button.click()
    assert "Right" in q.feedback.value


def test_numeric_nearest_mistake_wins_and_exact_tolerance_zero():
    q = selfcheck.numeric("?", 2, tolerance=0, mistakes={1: "off by one", 3: "counted from 1"})
    assert q.check(1) is False and "off by one" in q.feedback.value
    assert q.check(3) is False and "counted from 1" in q.feedback.value
    assert q.check(3.5) is False and "too large" in q.feedback.value
    q = selfcheck.numeric("?", 0, tolerance=1, mistakes={2: "two", 3.5: "three and a half"})
    assert q.check(2.8) is False and "three and a half" in q.feedback.value
    assert q.check(2.7) is False and "two" in q.feedback.value


def test_numeric_mistakes_as_a_list_of_pairs():
    q = selfcheck.numeric("?", 2, tolerance=0, mistakes=[(1, "off by one"), (3, "counted from 1")])
    assert q.check(3) is False and "3: counted from 1" in q.feedback.value


@pytest.mark.parametrize("mistakes,error,words", [
    ({16, 17}, TypeError, r"mistakes: expected a dict \{wrong value: message\} or a list of \(value, message\) "
                          r"pairs, got set"),
    ([16], TypeError, r"mistakes: expected \(wrong value, message\) pairs, got 16"),
    ([(16, "x", "y")], TypeError, r"mistakes: expected \(wrong value, message\) pairs, got \(16, 'x', 'y'\)"),
    ({"16": "x"}, TypeError, "mistakes: a wrong value: expected a real number, got str"),
    ({True: "x"}, TypeError, "mistakes: a wrong value: expected a real number, got bool"),
    ({float("nan"): "x"}, ValueError, "mistakes: a wrong value: expected a finite number, got nan"),
    ({float("inf"): "x"}, ValueError, "mistakes: a wrong value: expected a finite number, got inf"),
    ({16: None}, TypeError, "mistakes: the message for 16: expected a str, got NoneType"),
    ({16: "  "}, ValueError, "mistakes: the message for 16: expected a non-empty str, got '  '"),
    ({11.305: "x"}, ValueError, "mistakes: 11.305 is within the tolerance 0.01 of the answer 11.31, so it would "
                                "count as right; expected a wrong value"),
    ([(16, "x"), (16.005, "y")], ValueError, "mistakes: 16 and 16.005 are within the tolerance 0.01 of each other, so "
                                            "a typed number could be either; give them one message"),
])
def test_numeric_rejects_bad_mistakes(mistakes, error, words):
    with pytest.raises(error, match=words):
        selfcheck.numeric("?", 11.31, tolerance=0.01, mistakes=mistakes)


def test_a_hint_is_said_in_full_once_then_referred_to(capsys):
    hints = [selfcheck.mistake(lambda x: torch.softmax(x, 0), "Softmax over the keys: dim=-1."),
             selfcheck.symptom(lambda out, x: out.shape[0] == 3, "Three rows.")]
    cases = [(torch.tensor([[1.0, 2.0], [0.0, 5.0]]),), (torch.tensor([[3.0, 1.0], [2.0, 2.0], [0.0, 1.0]]),)]
    assert selfcheck.check_function(lambda x: torch.softmax(x, 0), _softmax, cases, name="f", hints=hints) is False
    out = _out(capsys)
    assert out.count("Softmax over the keys: dim=-1.") == 1
    assert "case 2: ✗" in out and "    Recognised mistake: as under case 1.\n    Hint: Three rows.\n" in out


def test_a_mistake_that_cannot_run_on_a_case_is_skipped_there(capsys):
    hints = [selfcheck.mistake(lambda x: x.reshape(2, 2), "Reshaped.")]          # only the first case has 4 entries
    cases = [(torch.tensor([1.0, 2.0, 3.0, 4.0]),), (torch.tensor([1.0, 2.0]),)]
    assert selfcheck.check_function(lambda x: x.reshape(-1, 2) if x.numel() == 4 else x, lambda x: x, cases,
                                    name="f", hints=hints) is False
    out = _out(capsys)
    assert "case 1: ✗ shape (2, 2), expected (4,)\n    Recognised mistake: Reshaped.\n" in out
    assert "case 2: ✓" in out


@pytest.mark.parametrize("call,error,words", [
    (lambda: selfcheck.mistake(lambda x: x, "m", atol=-1), ValueError, "atol: expected a number >= 0, got -1.0"),
    (lambda: selfcheck.mistake(lambda x: x, "m", rtol=float("nan")), ValueError, "rtol: expected a finite number"),
    (lambda: selfcheck.mistake("x", "m"), TypeError, "wrong: expected a function"),
    (lambda: selfcheck.mistake(lambda x: x, ""), ValueError, "message: expected a non-empty str, got ''"),
    (lambda: selfcheck.mistake(lambda x: x, 3), TypeError, "message: expected a str, got int"),
    (lambda: selfcheck.Hint(lambda g, a: True, "m", label=""), ValueError, "label: expected a non-empty str"),
    (lambda: selfcheck.symptom(3, "m"), TypeError, "predicate: expected a function"),
    (lambda: selfcheck.check_function(_softmax, _softmax, CASES, hints=["x"]), TypeError,
     "hints: expected a Hint or a \\(function, message\\) pair, got 'x'"),
])
def test_bad_hints_are_named(call, error, words):
    with pytest.raises(error, match=words):
        call()
