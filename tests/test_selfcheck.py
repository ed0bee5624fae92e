"""selfcheck.py: right/wrong feedback, solutions on demand, check_function's report."""
import pytest
import torch

from attnlab import selfcheck


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
    from attnlab import selfcheck
    q = selfcheck.numeric("x?", 1.0)
    assert not q.check(float("nan"))
    assert "finite number" in q.feedback.value
