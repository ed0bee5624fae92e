"""Plot helpers added for notebook 06: signed encoding heatmap (in-place, shape-changing) and the binary counter."""
import math

import matplotlib

matplotlib.use("Agg")
import numpy as np
import pytest
from matplotlib.figure import Figure

import attnlab as al
from attnlab.lessons import nb06_positional_encoding as lesson
from attnlab.lessons.nb01_kernel_regression import data
from attnlab.lessons.nb06_positional_encoding import figures


def test_encoding_heatmap_fixed_signed_scale_and_update_changes_shape():
    ax = Figure().subplots()
    lesson.encoding_heatmap(al.sinusoidal_encoding(60, 32), ax=ax)
    im = ax.images[0]
    assert im.get_clim() == (-1.0, 1.0)
    P = al.sinusoidal_encoding(60, 8)
    figures.update_encoding_heatmap(ax, P)
    np.testing.assert_allclose(np.asarray(im.get_array()), P.double().numpy())
    assert im.get_extent() == [-0.5, 7.5, 59.5, -0.5]
    assert ax.get_xlim() == (-0.5, 7.5)
    for d in (8, 20, 6):                          # whole-number ticks only: columns and rows are counted
        figures.update_encoding_heatmap(ax, al.sinusoidal_encoding(60, d))
        for ticks in (ax.get_xticks(), ax.get_yticks()):
            assert all(float(t).is_integer() for t in ticks), ticks


def test_encoding_heatmap_rejects_non_matrix():
    with pytest.raises(ValueError, match=r"P: expected a 2-D \(n, D\) matrix"):
        lesson.encoding_heatmap(np.zeros((2, 3, 4)), ax=Figure().subplots())


def test_binary_counter_plot_draws_each_bit():
    ax = figures.binary_counter_plot(3, ax=Figure().subplots())
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


# ---- figures with named handles, the Play explorer, the exercises ----

import torch
from matplotlib import pyplot as plt


def test_update_encoding_heatmap_needs_its_image_when_ambiguous():
    ax = Figure().subplots()
    im = figures.encoding_image(al.sinusoidal_encoding(10, 4), ax)
    ax.imshow(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="ax: expected one image"):
        figures.update_encoding_heatmap(ax, al.sinusoidal_encoding(10, 6))
    figures.update_encoding_heatmap(ax, al.sinusoidal_encoding(10, 6), im)
    assert im.get_array().shape == (10, 6)


def test_counter_figure_samples_are_columns_of_P_on_their_waves():
    f = lesson.counter_vs_columns_figure(60, 32, pairs=(0, 2, 4))
    P = al.sinusoidal_encoding(60, 32, dtype=torch.float64).numpy()
    for k, j in enumerate((0, 2, 4)):
        shift = 2.5 * (2 - k)
        np.testing.assert_allclose(f.samples[j].get_ydata() - shift, P[:, 2 * j], atol=1e-12)
        assert f.samples[j].get_linestyle() == "None"          # dots only: the wave is drawn separately
        x, y = f.waves[j].get_data()
        assert len(x) > 10 * 60
        np.testing.assert_allclose(np.interp(np.arange(60), x, y - shift), P[:, 2 * j], atol=0.02)
    plt.close(f.figure)


def test_similarity_figure_lines():
    P = al.sinusoidal_encoding(20, 8, dtype=torch.float64)
    f = lesson.similarity_figure(P)
    np.testing.assert_allclose(f.closed.get_ydata(), lesson.offset_similarity(torch.arange(20), 8).numpy())
    np.testing.assert_allclose(f.diagonals.get_ydata(), f.closed.get_ydata(), atol=1e-12)
    assert f.ax_matrix.get_xlabel() == "position m"
    plt.close(f.figure)


def test_rotation_circle_figure_and_bad_input():
    P = al.sinusoidal_encoding(60, 32, dtype=torch.float64)
    f = lesson.rotation_circle_figure(P, pair=3, starts=(0, 12, 30), delta=5)
    np.testing.assert_allclose(f.dots.get_offsets(), P[:, 6:8].numpy())
    assert len(f.arrows) == 3
    np.testing.assert_allclose(f.arrows[1].xy, P[17, 6:8].numpy())
    plt.close(f.figure)
    with pytest.raises(ValueError, match=r"pair: expected 0 <= pair < D/2 = 16, got 16"):
        lesson.rotation_circle_figure(P, pair=16)
    with pytest.raises(ValueError, match=r"starts: expected positions with s \+ delta <= 59, got \[0, 57\]"):
        lesson.rotation_circle_figure(P, starts=(0, 57), delta=5)


def test_explorer_moves_its_named_artists():
    e = lesson.play(n=60)
    view = e.update.__self__
    text = e.update(position=7, pair=2, width=16, base=100.0)
    P = al.sinusoidal_encoding(60, 16, 100.0, dtype=torch.float64).numpy()
    np.testing.assert_allclose(view.sin_line.get_ydata(), P[:, 4])
    np.testing.assert_allclose(view.cos_line.get_ydata(), P[:, 5])
    np.testing.assert_allclose(view.trail.get_offsets(), P[:, 4:6])
    np.testing.assert_allclose(view.sim_dots.get_ydata(), P[7] @ P.T, atol=1e-12)
    assert view.row_box.get_y() == 6.5 and view.row_box.get_width() == 16
    assert view.col_box.get_x() == 3.5
    assert view.image.get_array().shape == (60, 16)
    assert "equal up to round-off (< 10⁻¹²): True" in text and "e-1" not in text.replace("1e-12", "")
    e.controls["width"].value = 8
    assert e.controls["pair"].max == 3
    assert "pair j = 3" in e.update(position=0, pair=9, width=8, base=10000.0)   # clamped to d/2 - 1


def _boxes_clear(fig):
    """Each figure legend lies inside the figure (not cut off) and covers no axes (no data hidden)."""
    renderer = fig.canvas.get_renderer()
    for legend in fig.legends:
        box = legend.get_window_extent(renderer)
        assert 0 <= box.x0 and box.x1 <= fig.bbox.x1 and 0 <= box.y0 and box.y1 <= fig.bbox.y1, box
        for ax in fig.axes:
            assert not box.overlaps(ax.bbox), (legend.get_texts()[0].get_text(), ax.get_title())


def test_explorer_moves_redraw_no_title_or_legend_and_the_text_carries_the_numbers():
    """Titles and legends stay in the saved background (a text costs ms per move): the titles do not
    change, the legends are outside the axes, and the numbers the titles used to give are in the text."""
    from matplotlib.legend import Legend
    from matplotlib.text import Text
    e = lesson.play(n=60)
    titles = [ax.get_title() for ax in e.figure.axes]
    assert len(e.figure.legends) == 2 and not any(ax.get_legend() for ax in e.figure.axes)
    _boxes_clear(e.figure)
    for name, value in (("position", 23), ("pair", 5), ("base", 100.0), ("position", 24)):
        e.controls[name].value = value
        assert e.blitter.why == "", (name, e.blitter.why)
        assert not [a for a in e.blitter.plan if isinstance(a, (Text, Legend))], name
    assert [ax.get_title() for ax in e.figure.axes] == titles
    text = e.summary
    omega = 100.0 ** (-10 / 32)                                            # ω_5 = base^(-2j/D), D = 32
    assert "D = 32 columns, base = 100" in text and "pair j = 5 (columns 10, 11)" in text
    assert f"ω_j = base^(−2j/D) = {omega:.3g} rad" in text and f"every {2 * math.pi / omega:.2f} positions" in text
    assert "peak P_i·P_i = D/2 = 16" in text
    e.controls["width"].value = 20                                         # a full draw; the text follows
    assert "D = 20 columns" in e.summary and "peak P_i·P_i = D/2 = 10" in e.summary
    _boxes_clear(e.figure)


def my_sinusoidal(n, d):
    i = torch.arange(n, dtype=torch.float64)[:, None]
    omega = 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    P = torch.zeros(n, d, dtype=torch.float64)
    P[:, 0::2], P[:, 1::2] = torch.sin(i * omega), torch.cos(i * omega)
    return P


def my_rope(x, i):
    d = x.shape[-1]
    theta = i * 10000.0 ** (-torch.arange(0, d, 2, dtype=x.dtype) / d)
    a, b = x[0::2], x[1::2]
    return torch.stack([a * theta.cos() + b * theta.sin(), -a * theta.sin() + b * theta.cos()], -1).reshape(d)


def test_exercise_solutions_pass(capsys):
    assert lesson.check_sinusoidal(my_sinusoidal)
    assert lesson.check_sinusoidal(lambda n, d: my_sinusoidal(n, d).float())          # float32 is fine
    assert lesson.check_rope(my_rope)
    assert "all 4 cases match" in capsys.readouterr().out


def test_exercises_not_written_yet(capsys):
    def todo(*args):
        raise NotImplementedError
    assert not lesson.check_sinusoidal(todo) and not lesson.check_rope(todo)
    assert capsys.readouterr().out.count("is not written yet") == 2


@pytest.mark.parametrize("wrong,message", [
    (lambda n, d: my_sinusoidal(n, d).reshape(n, d // 2, 2).flip(-1).reshape(n, d), "sine and cosine are swapped"),
    (lambda n, d: torch.cat([my_sinusoidal(n, d)[:, 0::2], my_sinusoidal(n, d)[:, 1::2]], 1), "all sines come first"),
    (lambda n, d: torch.stack([(torch.arange(n)[:, None] * 10000.0 ** (-torch.arange(d // 2) / d)).sin(),
                               (torch.arange(n)[:, None] * 10000.0 ** (-torch.arange(d // 2) / d)).cos()], -1).reshape(n, d),
     "the exponent is j/D"),
])
def test_sinusoidal_mistakes_recognised(wrong, message, capsys):
    assert not lesson.check_sinusoidal(wrong)
    assert "Recognised mistake: " + message in capsys.readouterr().out


@pytest.mark.parametrize("wrong,message", [
    (lambda x, i: my_rope(x, -i), "you turned the other way"),
    (lambda x, i: torch.stack([x[0::2] * torch.cos(torch.tensor(float(i))) + x[1::2] * torch.sin(torch.tensor(float(i))),
                               -x[0::2] * torch.sin(torch.tensor(float(i))) + x[1::2] * torch.cos(torch.tensor(float(i)))],
                              -1).reshape(-1), "every pair turned by i radians"),
])
def test_rope_mistakes_recognised(wrong, message, capsys):
    assert not lesson.check_rope(wrong)
    assert "Recognised mistake: " + message in capsys.readouterr().out


def test_unrecognised_mistake_gets_no_diagnosis(capsys):
    assert not lesson.check_rope(lambda x, i: x * 0)
    out = capsys.readouterr().out
    assert "values differ" in out and "Recognised mistake" not in out
