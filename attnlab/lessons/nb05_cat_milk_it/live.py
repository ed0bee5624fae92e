"""Notebook 05's Play panel: ``play(sentence=..., scaling=..., d=..., T=...)`` checks the starting values
once, declares the controls (the menus, T and two sliders per word), builds the figure and wires them; a
control's value goes to the update unchecked. The state of the figure lives in the ``CatMilkPlay``
behind the returned panel (its ``moves`` handle and its heatmap Axes), not on matplotlib objects."""
from collections.abc import Mapping

import ipywidgets as widgets
from matplotlib import rcParams

from ...core import checks
from ...i18n import N_, gettext as _
from ...ui.panels import Panel, new_figure
from ...ui.plotting import heatmap, heatmap_state, live_title, update_heatmap
from .compute import SCALINGS, attend, similarities
from .data import SENTENCES, WORD_VECTORS, cat_milk_it, cat_milk_it_unchecked
from .figures import moves_plot

__all__ = ["CONTROLS", "D_OPTIONS", "SCALING_OPTIONS", "CatMilkPlay", "controls", "formula", "play", "word_sliders"]

CONTROLS = ("sentence", "scaling", "d", "T")      # plus "<word>_x", "<word>_y" for every word
D_OPTIONS = (4, 2)                                 # the d_k menu: the seed's (correct) d_k, and a variant

# The formula of each scaling, with T: one source for the scaling menu and the live title line.
_FORMULAS = {"none": "softmax(QKᵀ/T)·V", "after": "softmax(QKᵀ/T)·V/√{d}", "inside": "softmax(QKᵀ/(√{d}·T))·V"}
_SCALING_NAMES = ((N_("none"), "none"), (N_("after (seed)"), "after"), (N_("inside (correct)"), "inside"))


class _ScalingOptions(Mapping):
    """The scaling menu's {label: scaling}, its labels in the language in force when it is read (a
    menu built after ``set_language("zh")`` is Chinese, though this module was imported before)."""

    def _labels(self):
        return {_("{name}: {formula}").format(name=_(name), formula=_FORMULAS[s].format(d="d_k")): s
                for name, s in _SCALING_NAMES}

    def __getitem__(self, label):
        return self._labels()[label]

    def __iter__(self):
        return iter(self._labels())

    def __len__(self):
        return len(_SCALING_NAMES)

    def __repr__(self):
        return repr(self._labels())


#: The scaling menu's {label: scaling}: the formulas of the title line above the plot, with d_k for the number.
SCALING_OPTIONS = _ScalingOptions()


@checks.arguments(scaling=checks.Choice(SCALINGS), d=checks.Real(positive=True))
def formula(scaling, d):
    """The formula a scaling computes, for titles: "softmax(QKᵀ/(√4·T))·V" for ("inside", 4)."""
    return _FORMULAS[scaling].format(d=d)


class CatMilkPlay:
    """Left: where each word moves (hollow = before, filled = after). Right: the weights.
    ``update(sentence, scaling, d, T, **coords)`` redraws in place and returns the text shown below."""

    def __init__(self):
        self.text = ""                   # the text the last update returned
        self.figure, (ax_moves, self.ax_weights) = new_figure(
            1, 2, figsize=(10.5, 4.6), gridspec_kw={"width_ratios": [1.25, 1]})
        words, X = cat_milk_it("sweet")
        self.moves = moves_plot(words, X, X, ax=ax_moves, others={"hungry": WORD_VECTORS["hungry"]})
        # The dashed line's key under the figure, outside the axes: a legend over moving words is
        # redrawn at every move.
        ax_moves.get_legend().remove()
        self.figure.legend(*ax_moves.get_legend_handles_labels(), loc="outside lower left", fontsize=8,
                           frameon=False)
        # No numbers in the cells: the text under the figure gives every weight.
        heatmap(X @ X.T * 0, x_labels=words, y_labels=words, ax=self.ax_weights,
                xlabel=_("keys (attended to)"), ylabel=_("queries"), title=_("attention weights"), annotate=False)
        # Two title lines: the sentence (changes with the menu, which draws in full anyway) and the
        # formula with T, live: a move redraws only the short line.
        self.ax_moves = ax_moves
        self.title = live_title(ax_moves, fontsize=10)
        m = self.moves
        # What a move changes: the markers, arrows and labels of the words, the title and the weights.
        # The sentence menu changes the words on the heatmap's axes, so it draws the whole figure.
        self.moving = [lambda: m.arrows + m.before + m.after + m.before_labels + m.after_labels + m.others
                       + m.other_labels, self.title, heatmap_state(self.ax_weights).image]

    def update(self, sentence, scaling, d, T, **coords):
        """Redraw for these values (as ``play`` declared the controls: not checked again); returns the text."""
        vectors = {w: (coords[f"{w}_x"], coords[f"{w}_y"]) for w in WORD_VECTORS}
        words, X = cat_milk_it_unchecked(sentence, vectors)
        result = attend(X, scaling, d=d, temperature=T)
        others = {w: v for w, v in vectors.items() if w not in words}
        self.moves.update(words, X, result.output, others=others)
        if self.ax_moves.get_title() != SENTENCES[sentence][0]:
            self.ax_moves.set_title(SENTENCES[sentence][0], fontsize=10, pad=rcParams["axes.titlepad"] + 22)
        self.title.set_text(f"{_FORMULAS[scaling].format(d=d)}, T = {T:.2f}")      # formula(scaling, d), unchecked
        update_heatmap(self.ax_weights, result.weights, x_labels=words, y_labels=words)
        s = similarities(result.output, words)
        dot = s["dot"]
        rows = [_("{word} attends to:  {weights}").format(word=q, weights="  ".join(
                    f"{k} {v:.2f}" for k, v in zip(words, row))) for q, row in zip(words, result.weights.tolist())]
        self.text = ("\n".join(rows) + "\n"
                + _("sim(it′, milk′) = {milk:.3f}   sim(it′, cat′) = {cat:.3f}   "
                    "→ by dot product, it′ is closer to {closer}").format(milk=dot['milk'], cat=dot['cat'],
                                                                          closer=max(dot, key=dot.get)) + "\n"
                + _("cosine(it′, milk′) = {cos_milk:.3f}   cosine(it′, cat′) = {cos_cat:.3f}   "
                    "distance(it′, milk′) = {dist_milk:.2f}   distance(it′, cat′) = {dist_cat:.2f}").format(
                    cos_milk=s['cosine']['milk'], cos_cat=s['cosine']['cat'], dist_milk=s['distance']['milk'],
                    dist_cat=s['distance']['cat']))
        return self.text

    def describe(self, **values):
        """The figure in words (its accessible name): the text ``update`` returned, and where the word
        points are, which the sliders move and that text does not say."""
        points = ", ".join(f"{w} ({values[f'{w}_x']:.1f}, {values[f'{w}_y']:.1f})" for w in WORD_VECTORS)
        return self.text + "\n" + _("word vectors (state, taste): {points}").format(points=points)


def controls(*, sentence="sweet", scaling="inside", d=4, T=1.0, vectors=None):
    """The Play's controls {name: widget}, in the order shown, with these starting values: the sentence,
    scaling and d_k menus, T, then two sliders per word (``word_sliders(vectors)``)."""
    wide = {"description_width": "60px"}
    return {
        "sentence": widgets.Dropdown(options={"…it was sweet.": "sweet", "…it was hungry.": "hungry"},
                                     value=sentence, description=_("sentence"), style=wide, layout={"width": "240px"}),
        "scaling": widgets.Dropdown(options=SCALING_OPTIONS, value=scaling, description=_("scaling"),   # the title's formulas
                                    style=wide, layout={"width": "370px"}),
        "d": widgets.Dropdown(options={_("4 (seed, correct)"): 4, _("2 (variant)"): 2}, value=d,
                              description=_("d_k in √d_k"), style={"description_width": "80px"},
                              layout={"width": "240px"}),
        "T": widgets.FloatLogSlider(value=T, base=10, min=-1, max=1, step=0.02, description="T",
                                    style={"description_width": "20px"}, layout={"width": "265px"}),
    } | word_sliders(vectors)             # two per word: "cat_x" = state, "cat_y" = taste


@checks.arguments(sentence=checks.Choice(tuple(SENTENCES)), scaling=checks.Choice(SCALINGS),
                   d=checks.Choice(D_OPTIONS), T=checks.Real(low=0.1, high=10, why="the T slider's range"),
                   vectors=checks.Optional(checks.Dict()))
def play(*, sentence="sweet", scaling="inside", d=4, T=1.0, vectors=None) -> Panel:
    """The Play panel of notebook 05 with these starting values (``vectors``: {word: (state, taste)} for
    the word sliders, default seed 004's WORD_VECTORS). Returns the ``Panel`` (display it as the cell's
    last value); its ``.update`` is the bound ``CatMilkPlay.update``."""
    controls_ = controls(sentence=sentence, scaling=scaling, d=d, T=T, vectors=vectors)   # refuses bad vectors
    view = CatMilkPlay()
    return Panel(view.figure, controls_, view.update, moving=view.moving, name="cat-milk-it", columns=4,
                 describe=view.describe)


@checks.arguments(vectors=checks.Optional(checks.Dict()), low=checks.Real(), high=checks.Real())
def word_sliders(vectors=None, *, low=-1.0, high=5.0):
    """Two sliders per word, "<word>_x" (state) and "<word>_y" (taste), starting at ``vectors``
    (default: seed 004's WORD_VECTORS): {name: FloatSlider}, ready to join the Play controls."""
    vectors = WORD_VECTORS if vectors is None else vectors
    # translators: a word slider's label (notebook 05): x is the word's "state" feature, y its "taste"
    names = {"x": N_("{word} x"), "y": N_("{word} y")}
    sliders = {}
    for w, point in vectors.items():
        for axis, v in zip("xy", point):
            if not low <= v <= high:
                raise checks.error("vectors", f"entries in [{low}, {high}]", f"{w} {axis} = {v}")
            sliders[f"{w}_{axis}"] = widgets.FloatSlider(value=v, min=low, max=high, step=0.1,
                                                         description=_(names[axis]).format(word=w),
                                                         style={"description_width": "76px"}, layout={"width": "265px"})
    return sliders
