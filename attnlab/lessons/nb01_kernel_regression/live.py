"""Notebook 01's Play panels: part 1, the explorer (σ, n and the query drive a fit, the query's weight bars
and the weight heatmap); part 2, the training view (train w behind a button, on the explorer's n points).

The notebook's Play cells are one call each: ``play(sigma=..., n_train=..., query=...)`` (a Panel drawing the
``Explorer``) and ``play_trainer(explorer=..., steps=...)`` (a ``TrainingView``, the Trainer panel of part 2,
trained on that panel's n points). Starting values are checked there, once; a slider's value goes to the
update unchecked.
"""
import ipywidgets as widgets
import torch
from matplotlib.patches import Rectangle

from ...core import checks
from ...core.attention import nadaraya_watson
from ...i18n import gettext as _, pgettext
from ...ui.panels import Panel, new_figure
from ...ui.plotting import SERIES_COLORS, heatmap, heatmap_state, live_title, to_numpy, update_heatmap
from ...ui.trainer import Trainer
from . import data
from .figures import every_label, fit_lines
from .model import SIGMAS, NWKernelRegression, loss_curve, sgd_steps

__all__ = ["ROW_LIMITS", "Explorer", "TrainingView", "controls", "play", "play_trainer", "row_limit"]


ROW_LIMITS = (0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.15)      # the weight bars' y axis tops


def row_limit(largest):
    """The top of the weight bars' y axis: the first of ROW_LIMITS at least 15% above the largest
    weight (room above the tallest bar), so a small move keeps the axis, and its ticks, as they were."""
    return next((top for top in ROW_LIMITS if top >= 1.15 * largest), ROW_LIMITS[-1])


class Explorer:
    """Play part 1's figure: σ, n and the query x drive a fit, the query's weight bars and the weight heatmap.
    ``update(sigma, n_train, query)`` redraws in place and returns the text under the figure; ``.moving``."""

    def __init__(self, *, sigma=0.3, n_train=50, query=4.0):
        d = data.kernel_regression_data(n_train, seed=0)
        y_hat, w = nadaraya_watson(d.x_test, d.x_train, d.y_train, sigma=sigma)
        fig, axes = new_figure(2, 2, figsize=(11.5, 5.6),
                               gridspec_kw={"height_ratios": [2.2, 1], "width_ratios": [1.25, 1]})
        for a in axes[:, 1]:
            a.remove()
        self.ax_fit, self.ax_row = axes[0, 0], axes[1, 0]
        self.ax_map = fig.add_subplot(axes[0, 0].get_gridspec()[:, 1])
        self.fit = fit_lines(self.ax_fit, d.x_test, d.y_truth, y_hat, d.x_train, d.y_train,
                             label=_("Nadaraya-Watson"))
        self.avg_line = self.ax_fit.axhline(d.y_train.mean().item(), color=SERIES_COLORS[4], linestyle=":",
                                            label=_("average pooling"))
        self.query_line = self.ax_fit.axvline(query, color="red", linewidth=1)
        # The key above the fit, outside every axes: a legend over moving lines is redrawn at each move.
        self.ax_fit.get_legend().remove()                     # fit_lines' own, inside the axes
        fig.legend(*self.ax_fit.get_legend_handles_labels(), loc="outside upper left", ncols=4, fontsize=8,
                   frameon=False)
        self.ax_fit.set_xlabel(_("x (red line = the query)"), fontsize=9)
        self.bars = self.ax_row.vlines(to_numpy(d.x_train), 0, to_numpy(w[0]), color=SERIES_COLORS[0], linewidth=2)
        self.row_line = self.ax_row.axvline(query, color="red", linewidth=1)
        self.ax_row.set(xlim=(0, 5), xlabel=_("keys xᵢ: the query's weight on each (y axis rescales in steps)"),
                        ylabel=_("weight"))
        heatmap(w, ax=self.ax_map, annotate=False, colorbar=False, xlabel=_("keys (training points, sorted)"),
                ylabel=_("queries x"))
        fig.colorbar(heatmap_state(self.ax_map).image, ax=self.ax_map, label=_("attention weight (fixed 0–1 scale)"))
        self.ax_map.tick_params(length=0)                     # up to 200 keys: labels only, no tick marks
        self.row_box = self.ax_map.add_patch(Rectangle((-0.5, -0.5), w.shape[1], 1, fill=False, edgecolor="red",
                                                       linewidth=1.5))
        self.map_title = live_title(self.ax_map)
        # What a move changes: the fit, the points and lines, the query's weight bars, the weights,
        # the red box and the title. The bars' y axis rescales in steps (ROW_LIMITS), so most moves
        # keep its ticks; a move that changes them, or n (the number of key columns: limits,
        # ticks), draws the whole figure.
        self.figure = fig
        self.moving = [*self.fit, self.avg_line, self.query_line, self.row_line, self.bars,
                       heatmap_state(self.ax_map).image, self.row_box, self.map_title]

    def update(self, sigma, n_train, query):
        """Redraw for these values; returns the text under the figure."""
        t = data.kernel_regression_data_unchecked(n_train, seed=0)
        y_hat, weights = nadaraya_watson(t.x_test, t.x_train, t.y_train, sigma=sigma)   # (50,), (50, n)
        q = int((t.x_test - query).abs().argmin())                                     # this query's row
        self.fit.truth.set_ydata(to_numpy(t.y_truth))
        self.fit.fit.set_ydata(to_numpy(y_hat))
        self.fit.points.set_data(to_numpy(t.x_train), to_numpy(t.y_train))
        mean_y = t.y_train.mean().item()
        self.avg_line.set_ydata([mean_y] * 2)
        self.query_line.set_xdata([query] * 2)
        self.row_line.set_xdata([query] * 2)
        self.bars.set_segments([[(x, 0), (x, w)] for x, w in zip(t.x_train.tolist(), weights[q].tolist())])
        update_heatmap(self.ax_map, weights, x_labels=every_label(t.x_train, max(1, n_train // 10)),
                       y_labels=every_label(t.x_test, 10))
        self.map_title.set_text(_("weights, σ = {sigma:.3g} (T = σ² = {T:.3g})").format(sigma=sigma, T=sigma ** 2))
        self.row_box.set_y(q - 0.5)
        self.row_box.set_width(weights.shape[1])
        top = row_limit(weights[q].max().item())
        if self.ax_row.get_ylim() != (0, top):                # setting the same limits still marks it changed
            self.ax_row.set_ylim(0, top)
        top = weights[q].argsort(descending=True)[:4].tolist()
        err = ((y_hat - t.y_truth) ** 2).mean().item()
        err_avg = ((t.y_train.mean() - t.y_truth) ** 2).mean().item()
        tops = pgettext("list separator", ", ").join(_("key x={x:.2f} (y={y:.2f}) {weight:.3f}").format(
            x=t.x_train[j].item(), y=t.y_train[j].item(), weight=weights[q, j].item()) for j in top)
        return _("σ = {sigma:.3g}  ⇒  temperature T = σ² = {T:.3g};  n = {n} training points\n"
                 "query x = {x:.1f}: prediction {y_hat:.3f}, truth {truth:.3f}, average pooling {mean:.3f}\n"
                 "largest weights of this row: {tops}\n"
                 "mean squared error against the truth over all 50 queries: {err:.3f}  (average pooling: {err_avg:.3f})"
                 ).format(sigma=sigma, T=sigma ** 2, n=n_train, x=t.x_test[q].item(), y_hat=y_hat[q].item(),
                          truth=t.y_truth[q].item(), mean=mean_y, tops=tops, err=err, err_avg=err_avg)


def controls(*, sigma=0.3, n_train=50, query=4.0):
    """Part 1's controls {name: widget}: σ, n and the query x, with these starting values."""
    return {
        "sigma": widgets.FloatLogSlider(value=sigma, base=10, min=-2, max=1.5, step=0.02, description="σ",
                                        readout_format=".3g"),
        "n_train": widgets.IntSlider(value=n_train, min=5, max=200, step=5, description=_("n points")),
        "query": widgets.FloatSlider(value=query, min=0.0, max=4.9, step=0.1, description=_("query x"),
                                     readout_format=".1f"),
    }


class TrainingView(Trainer):
    """Play part 2, a Trainer panel: train w behind a button on the n points of ``explorer`` (the panel of
    part 1).

    Three views: the mean training error per step; the error against σ (the landscape, green with
    leave-one-out, red without) with the path training walks along it; the fit with the current w.
    A checkbox picks leave-one-out; "Copy learned σ to part 1" sets the explorer's σ slider.
    Training minimises the MEAN squared error over the n points (d2l: the sum, which grows with n;
    lr = 2.5 on the mean is lr = 0.05 on the sum at n = 50). Each press starts from the same w.
    """

    def __init__(self, explorer, *, steps=30, lr=2.5, seed=0, redraws=15):
        self.explorer, self.lr, self.seed = explorer, lr, seed
        self.w0 = NWKernelRegression(generator=torch.Generator().manual_seed(seed)).w.item()
        self.path, self.run_n, self.run_loo, self.learned = [], None, None, None
        self.ax_land = None                                  # set below, once the Trainer made the figure
        self._landscapes = {}
        self.copy_button = widgets.Button(description=_("Copy learned σ to part 1"), icon="copy", disabled=True,
                                          layout=widgets.Layout(width="auto"))
        self.copy_button.on_click(self.copy_to_explorer)
        loo = widgets.Checkbox(value=True, description=_("leave one out"))
        super().__init__(self._run, steps=steps, min_steps=5, max_steps=100, step=5,
                         controls={"leave_one_out": loo}, curves=("error",), extra=self._extra,
                         done=self._done, redraws=redraws, figsize=(11.5, 3.4),
                         name="kernel-regression-training", button=_("Train w"))
        fig, ax_err = self.figure, self.axes["error"]
        ax_err.get_subplotspec().get_gridspec().set_width_ratios([1, 2])
        halves = self.extra_ax.get_subplotspec().subgridspec(1, 2)
        self.extra_ax.remove()                               # one extra axes becomes two: landscape and fit
        self.ax_land, self.ax_fit = fig.add_subplot(halves[0]), fig.add_subplot(halves[1])
        ax_err.set(yscale="linear", ylim=(0, 1.2), ylabel=_("mean squared error"), title=_("training error per step"))
        self.land_line, = self.ax_land.plot([], [], color=SERIES_COLORS[2])
        self.path_line, = self.ax_land.plot([], [], "o-", color=SERIES_COLORS[1], markersize=3, linewidth=1)
        self.ax_land.set(xscale="log", xlim=(SIGMAS[0], SIGMAS[-1]), ylim=(0, 1.2), xlabel=_("σ (log scale)"),
                         ylabel=_("mean squared error"), title=_("error against σ; path of training"))
        d = data.kernel_regression_data(self.n_train, seed=0)
        self.fit = fit_lines(self.ax_fit, d.x_test, d.y_truth, d.y_truth, d.x_train, d.y_train,
                             label=_("current w"))
        self.ax_fit.set(title=_("fit with the current w"), ylim=(-0.5, 5.5))
        self.ax_fit.legend(loc="upper right", fontsize=7, ncol=3, handlelength=1.5, columnspacing=0.8)
        fig.set_layout_engine("constrained")                # lay out the new axes on the next draw
        self.freeze_layout = True
        if self.blitter is not None:                        # ... then keep positions, and blit the new axes
            self.blitter.freeze_layout = True
        self.declare(self.land_line, self.path_line, *self.fit)     # their limits stay fixed
        self.refresh()
        self.widget = widgets.VBox([self.widget, widgets.HBox([self.copy_button])])

    @property
    def n_train(self):
        """The explorer's n (its slider's value now)."""
        return self.explorer.controls["n_train"].value

    def landscape(self, n, leave_one_out):
        """Mean training error at each σ of SIGMAS for the first n-point data set (cached)."""
        key = (n, bool(leave_one_out))
        if key not in self._landscapes:
            t = data.kernel_regression_data_unchecked(n, seed=0)
            self._landscapes[key] = loss_curve(t.x_train, t.y_train, SIGMAS, leave_one_out, "mean")
        return self._landscapes[key]

    def _run(self, steps, leave_one_out):
        n = self.n_train
        t = data.kernel_regression_data_unchecked(n, seed=0)
        self.path, self.run_n, self.run_loo, self.learned = [], n, leave_one_out, None
        self.copy_button.disabled = True
        w_before, model = self.w0, None
        start = NWKernelRegression(generator=torch.Generator().manual_seed(self.seed), dtype=t.x_train.dtype)
        for _epoch, loss, model in sgd_steps(start, t.x_train, t.y_train, steps, self.lr, leave_one_out, "mean"):
            self.path.append((1 / abs(w_before), loss))      # the loss was measured at the w before the step
            w_before = model.w.item()
            yield {"error": loss, "w": w_before}
        return model

    def _done(self, model, history, leave_one_out):
        self.learned = model.sigma
        self.copy_button.disabled = False
        return _("Learned w = {w:.3f}, so σ = 1/|w| = {sigma:.3f}. Press “{copy}” to see its fit there.").format(
            w=model.w.item(), sigma=model.sigma, copy=_("Copy learned σ to part 1"))

    def _extra(self, _ax, latest, leave_one_out):
        if self.ax_land is None:                            # the Trainer's first draw, before the split
            return None
        same = self.path and self.run_loo == leave_one_out
        n = self.run_n if same else self.n_train
        t = data.kernel_regression_data_unchecked(n, seed=0)
        self.land_line.set_data(SIGMAS, self.landscape(n, leave_one_out))
        self.land_line.set_color(SERIES_COLORS[2] if leave_one_out else SERIES_COLORS[3])
        self.land_line.set_linestyle("-" if leave_one_out else "--")    # not told apart by colour alone
        w_now = latest["w"] if (same and latest is not None) else self.w0
        sigma0 = 1 / abs(self.w0)
        points = self.path if same else [(sigma0, loss_curve(t.x_train, t.y_train, [sigma0], leave_one_out,
                                                             "mean")[0])]
        self.path_line.set_data([p[0] for p in points], [p[1] for p in points])
        with torch.no_grad():
            y_hat = NWKernelRegression(w_now)(t.x_test, t.x_train, t.y_train)           # (50,), as predict gives
        self.fit.fit.set_ydata(to_numpy(y_hat))
        self.fit.truth.set_ydata(to_numpy(t.y_truth))
        self.fit.points.set_data(to_numpy(t.x_train), to_numpy(t.y_train))
        mode = _("leave-one-out") if leave_one_out else _("each point among its own keys")
        if not same:
            return _("not trained yet ({mode}, n = {n}): w = {w:.3f}, σ = {sigma:.3f}. Press {train}.").format(
                mode=mode, n=n, w=w_now, sigma=1 / abs(w_now), train=_("Train w"))
        return _("{mode}, n = {n}: w = {w:.3f}, so σ = 1/|w| = {sigma:.3f}").format(
            mode=mode, n=n, w=w_now, sigma=1 / abs(w_now))

    def copy_to_explorer(self, _button=None):
        """Set part 1's σ slider to the learned σ (the slider rounds it to its step)."""
        if self.learned is not None:
            self.explorer.controls["sigma"].value = self.learned


_SIGMA = checks.Real(low=0.01, high=10 ** 1.5, why="the σ slider's range")
_N_TRAIN = checks.Int(5, 200, why="the n slider's range")
_QUERY = checks.Real(low=0.0, high=4.9, why="the query slider's range")


@checks.arguments(sigma=_SIGMA, n_train=_N_TRAIN, query=_QUERY)
def play(*, sigma=0.3, n_train=50, query=4.0) -> Panel:
    """Play part 1, the panel of the ``Explorer``, with these starting values; display it as the cell's last value."""
    view = Explorer(sigma=sigma, n_train=n_train, query=query)
    return Panel(view.figure, controls(sigma=sigma, n_train=n_train, query=query), view.update, moving=view.moving,
                 name="kernel-regression-explorer", columns=3)


@checks.arguments(explorer=checks.Instance(Panel, "the Explorer of part 1"),
                   steps=checks.Int(5, 100, why="the steps slider's range"))
def play_trainer(*, explorer, steps=30) -> TrainingView:
    """Play part 2, the ``TrainingView`` (a Trainer panel): it trains w on the n points of ``explorer`` (the panel
    ``play`` returned), starting with ``steps`` on its slider, and copies the learned σ to the explorer's slider."""
    if not {"sigma", "n_train"} <= set(explorer.controls):
        raise checks.error("explorer", "the Explorer of part 1 (a panel with the controls sigma and n_train)",
                           f"a panel with {sorted(explorer.controls)}")
    return TrainingView(explorer, steps=steps)
