"""Bad input to the figure helpers that moved from attnlab.plotting into lessons 01 and 06 (issue 15's
last rows): each gets a ValueError/TypeError naming the argument, before anything is drawn."""
import re

import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from attnlab.lessons import nb01_kernel_regression as nb01  # noqa: E402
from attnlab.lessons import nb06_positional_encoding as nb06  # noqa: E402

X = torch.linspace(0, 5, 5)


def ax():
    return Figure().subplots()


@pytest.mark.parametrize("call,error,message", [
    (lambda: nb01.kernel_regression_plot(X, X[:4], X, ax=ax()), ValueError,
     "y_truth: expected 5 values, one per x_test, got 4"),
    (lambda: nb01.kernel_regression_plot(X, X, X, X, ax=ax()), ValueError,
     "y_train: expected x_train and y_train together (both or neither), got x_train alone"),
    (lambda: nb01.kernel_regression_plot(X, X, X, X, X[:2], ax=ax()), ValueError,
     "y_train: expected 5 values, one per x_train, got 2"),
    (lambda: nb06.encoding_columns_plot(np.zeros((3, 4)), ax=ax()), ValueError,
     "columns: expected numbers in [0, 3] (P has 4 columns), got [6, 7, 8, 9]"),
    (lambda: nb06.encoding_columns_plot(np.zeros(4), ax=ax()), ValueError,
     "P: expected a 2-D (n, d) matrix, got shape (4,)"),
    (lambda: nb06.encoding_columns_plot(np.zeros((3, 4)), columns="01", ax=ax()), TypeError,
     "columns: expected whole column numbers, got '01'"),
    (lambda: nb06.encoding_heatmap(np.zeros((3, 4)), vmax=0, ax=ax()), ValueError, "vmax"),
    (lambda: nb06.update_encoding_heatmap(nb06.encoding_heatmap(np.zeros((3, 4)), ax=ax()), np.zeros(3)),
     ValueError, "P: expected a 2-D (n, d) matrix, got shape (3,)"),
    (lambda: nb06.binary_counter_plot(0, ax=ax()), ValueError, "num_bits"),
    (lambda: nb06.binary_counter_plot("a", ax=ax()), TypeError, "num_bits"),
    (lambda: nb06.binary_counter_plot(2.5, ax=ax()), TypeError, "num_bits"),
    (lambda: nb06.binary_counter_plot(16, ax=ax()), ValueError,
     "num_bits: expected at most 8 (the plot writes 2^num_bits numbers), got 16"),
])
def test_bad_input_is_named(call, error, message):
    with pytest.raises(error, match=re.escape(message)):
        call()


def test_good_input_still_draws():
    a = nb06.binary_counter_plot(8, ax=ax())
    assert len(a.lines) == 8
    a = nb01.kernel_regression_plot(X, X, X, X, X, ax=ax())
    assert len(a.lines) == 3
