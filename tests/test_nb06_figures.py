"""Plot helpers added for notebook 06: signed encoding heatmap (in-place, shape-changing) and the binary counter."""
import matplotlib

matplotlib.use("Agg")
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import attnlab as al  # noqa: E402
from attnlab import data  # noqa: E402
from attnlab.lessons import nb06_positional_encoding as lesson  # noqa: E402


def test_encoding_heatmap_fixed_signed_scale_and_update_changes_shape():
    ax = Figure().subplots()
    lesson.encoding_heatmap(al.sinusoidal_encoding(60, 32), ax=ax)
    im = ax.images[0]
    assert im.get_clim() == (-1.0, 1.0)
    P = al.sinusoidal_encoding(60, 8)
    lesson.update_encoding_heatmap(ax, P)
    np.testing.assert_allclose(np.asarray(im.get_array()), P.double().numpy())
    assert im.get_extent() == [-0.5, 7.5, 59.5, -0.5]
    assert ax.get_xlim() == (-0.5, 7.5)


def test_encoding_heatmap_rejects_non_matrix():
    with pytest.raises(ValueError, match=r"P: expected a 2-D \(T, d\) matrix"):
        lesson.encoding_heatmap(np.zeros((2, 3, 4)), ax=Figure().subplots())


def test_binary_counter_plot_draws_each_bit():
    ax = lesson.binary_counter_plot(3, ax=Figure().subplots())
    assert len(ax.lines) == 3
    bit1 = ax.lines[1].get_ydata()[:8] - 1.5      # bit 1 is drawn with an offset of 1.5
    np.testing.assert_array_equal(bit1, [0, 0, 1, 1, 0, 0, 1, 1])
    assert [t.get_text() for t in ax.get_xticklabels()][5] == "5\n101"


def test_kernel_regression_and_encoding_columns_plots():
    from attnlab.lessons import nb01_kernel_regression as kr, nb06_positional_encoding as rotation
    d = data.kernel_regression_data(10)
    y_hat, _ = al.nadaraya_watson(d.x_test, d.x_train, d.y_train)
    ax = kr.kernel_regression_plot(d.x_test, d.y_truth, y_hat, d.x_train, d.y_train)
    assert len(ax.lines) == 3 and ax.get_xlabel() == "x"
    np.testing.assert_allclose(ax.lines[1].get_ydata(), y_hat.numpy())
    ax = kr.kernel_regression_plot(d.x_test, d.y_truth, y_hat, ax=ax)
    assert len(ax.lines) == 5
    P = al.sinusoidal_encoding(20, 16)
    ax = rotation.encoding_columns_plot(P)
    assert [line.get_label() for line in ax.lines] == ["col 6", "col 7", "col 8", "col 9"]
    np.testing.assert_allclose(ax.lines[0].get_ydata(), P[:, 6].numpy(), atol=1e-7)
