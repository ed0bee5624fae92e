"""Blitting for live panels: after a control moves, redraw only what it changed.

Used by ``attnlab.panels.Panel``; the picture always equals a full matplotlib draw
(tests/test_panels.py and tests/test_panel_blit_notebooks.py compare them).
"""
import contextlib

import numpy as np
from matplotlib.axis import Axis
from matplotlib.patches import ConnectionPatch
from matplotlib.text import Annotation, Text


class Blitter:
    """Redraw only what an update changed, on top of a saved picture of everything else.

    Most of a full Agg draw goes to axis decorations (tick marks, tick labels, their layout), which a
    slider move rarely changes. After each draw every artist is marked fresh; the callback's setters
    mark what they touch stale. Artists that a control has changed are "live" for that control (so a
    slider that rescales one axes does not make every other slider redraw it). Live artists are
    hidden while the rest of the figure is drawn and saved as a background; then they are drawn on
    top of it, with whatever is stacked above them in their axes, so the stacking order is kept. An
    axes whose limits a control changes is redrawn whole. A move that touches only what is drawn on
    top costs a memory copy plus those draws; figure-level artists stacked above a redrawn axes are
    redrawn too. Anything else (another control, a change inside an artist not drawn on top, new or
    removed artists, a new stacking order, a moved axes, overlapping axes or an artist reaching into
    another axes, new limits while an annotation could point into them, a layout engine still at
    work) draws everything and saves the background again, so the picture always equals a full
    draw. A setter that leaves an axis or a text looking as it was does not count as a change.
    """

    def __init__(self, figure):
        self.figure = figure
        self.live = {}                 # control name -> ids of artists its moves have changed
        self.source = None             # the control the background was saved for
        self.on_top = []               # artists drawn over the background, in drawing order
        self.on_top_ids = set()
        self.whole = set()             # ids of the axes that are drawn on top entirely
        self.background = None
        self.snapshot = None
        self.why = "first draw"        # why the last draw was a full one ("" after a blit)
        self.full_draws = self.blits = 0
        self.looks = {}                # id(axis or text) -> what it showed after the last draw
        self.pointers = False          # annotations or connections left in the background

    def draw(self, source, allowed):
        """Bring the canvas up to date after a move of control ``source``.

        ``allowed`` is False while a layout engine may still move the axes."""
        first = self.snapshot is None
        changed = [] if first else self._changed()           # the first draw teaches nothing
        snapshot = self._snapshot()
        rescaled = None if first else _rescaled(self.snapshot, snapshot)
        fresh = [a for a in changed if id(a) not in self.on_top_ids]
        self.why = ("first draw" if first else "layout not fixed yet" if not allowed
                    else "axes moved or artists added/removed" if rescaled is None
                    else "no background" if self.background is None
                    else f"the background was saved for {self.source!r}" if source != self.source
                    else f"changed: {fresh[0]!r}" if fresh
                    else "new axis limits" if not rescaled <= self.whole
                    else "new axis limits, and annotations may point into them" if rescaled and self.pointers
                    else "")
        if self.why:
            live = self.live.setdefault(source, set())
            live.update(map(id, changed))
            for ax in self.figure.axes:
                if rescaled and id(ax) in rescaled:
                    live.update(map(id, ax.get_children()))
            self.source = source
            self._draw_all(allowed)
            self.full_draws += 1
        else:
            canvas = self.figure.canvas
            canvas.restore_region(self.background)
            renderer = canvas.get_renderer()
            for artist in self.on_top:
                artist.draw(renderer)
            self.blits += 1
        _mark_fresh(self.figure)
        # Setting limits, ticks, words or colours to what they were marks an artist stale: what it
        # looks like now tells such moves apart next time (all after a full draw, else the touched).
        if self.why:
            self.looks = {}
        self._remember_looks(self._tops() if self.why else changed)

    def _changed(self):
        """Top-level artists (axes children, figure children) with a stale artist anywhere inside,
        or boxed texts that look different (``Text.set_bbox`` changes a text without marking it)."""
        return [a for a in self._tops()
                if (_any_stale(a) and not self._looks_the_same(a))
                or (type(a) is Text and a.get_bbox_patch() is not None and not self._looks_the_same(a))]

    def _looks_the_same(self, artist):
        """An axis or a plain text that a setter touched but left as it was (same limits, same words)."""
        if isinstance(artist, Axis):
            return self.looks.get(id(artist)) == _axis_look(artist)
        if type(artist) is Text:
            return self.looks.get(id(artist)) == _text_look(artist)
        return False

    def _remember_looks(self, artists):
        for artist in artists:
            if isinstance(artist, Axis):
                self.looks[id(artist)] = _axis_look(artist)
            elif type(artist) is Text:
                self.looks[id(artist)] = _text_look(artist)

    def _tops(self):
        fig = self.figure
        return [a for ax in fig.axes for a in ax.get_children()] + [
            a for a in fig.get_children() if a not in fig.axes]

    def _snapshot(self):
        """What the saved background depends on: per axes its place and artists, then its limits."""
        fig = self.figure
        axes = {id(ax): ((ax.get_visible(), ax.axison,
                          tuple(np.round(ax.get_position().bounds, 6)),   # a colour bar's place jitters by 1e-15
                          tuple((id(a), a.get_zorder()) for a in ax.get_children())),
                         tuple(ax.viewLim.bounds))
                for ax in fig.axes}
        return axes, tuple((id(a), a.get_zorder()) for a in fig.get_children()), fig.bbox.bounds

    def _draw_all(self, allowed):
        fig = self.figure
        canvas = fig.canvas
        self._hide(False)
        self.on_top = self._plan() if allowed else []
        self._hide(True)
        self.on_top_ids = set(map(id, self.on_top))
        canvas.draw()
        renderer = canvas.get_renderer()
        self.background = canvas.copy_from_bbox(fig.bbox) if self.on_top else None
        for artist in self.on_top:
            artist.draw(renderer)
        self.snapshot = self._snapshot()

    def reset(self):
        """Forget the background (after a failed draw): the next draw is a full one."""
        self._hide(False)
        self.on_top, self.on_top_ids, self.whole = [], set(), set()
        self.background = self.snapshot = None

    def _hide(self, hidden):
        """Hide the artists drawn on top from ``canvas.draw`` (matplotlib's ``animated`` flag)."""
        for artist in self.on_top:
            artist.set_animated(hidden)

    @contextlib.contextmanager
    def everything_shown(self):
        """For savefig: Figure.draw leaves animated artists out even when saving."""
        self._hide(False)
        try:
            yield
        finally:
            self._hide(True)

    def _plan(self):
        """Live artists and everything stacked above them in their axes, in drawing order."""
        fig = self.figure
        visible = [ax for ax in fig.axes if ax.get_visible()]
        live = self.live.get(self.source, set())
        self.whole = set()
        if not live or _overlapping(visible):
            return []
        plan, planned = [], []
        for ax in sorted(visible, key=lambda ax: ax.get_zorder()):   # the order Figure.draw uses
            artists = [a for a in ax.get_children() if a is not ax.patch]
            if not (ax.axison and ax.get_frame_on()):
                artists = [a for a in artists if a not in ax.spines.values()]
            if not ax.axison:
                artists = [a for a in artists if a not in (ax.xaxis, ax.yaxis)]
            artists.sort(key=lambda a: a.get_zorder())            # the order Axes.draw uses
            first = next((i for i, a in enumerate(artists) if id(a) in live), None)
            if first is None:
                continue
            mine = [a for a in artists[first:] if id(a) in live or not (isinstance(a, Axis) and _stays_behind(a))]
            if len(mine) == len(artists):
                self.whole.add(id(ax))
            plan += mine
            planned.append(ax)
        # Figure-level artists (suptitle, figure texts and legends, connections) are drawn after the
        # axes below them: redraw those stacked above a redrawn axes. A changed one stacked below an
        # axes cannot be redrawn in its place: draw everything then.
        loose = sorted((a for a in fig.get_children() if a is not fig.patch and a not in fig.axes),
                       key=lambda a: a.get_zorder())
        lowest = min((ax.get_zorder() for ax in planned), default=None)
        top_axes = max((ax.get_zorder() for ax in visible), default=0)
        if any(id(a) in live and a.get_zorder() <= top_axes for a in loose) and len(visible) > len(planned):
            return []
        plan += [a for a in loose if id(a) in live or (lowest is not None and a.get_zorder() >= lowest)]
        if _spills(plan, visible, fig.canvas.get_renderer()):
            return []
        on_top = set(map(id, plan))
        self.pointers = any(isinstance(a, (Annotation, ConnectionPatch)) and id(a) not in on_top
                            for a in _descendants(fig))
        return plan


def _rescaled(old, new):
    """Ids of the axes whose limits changed, or None if anything else the background shows changed."""
    old_axes, *old_rest = old
    new_axes, *new_rest = new
    if old_rest != new_rest or old_axes.keys() != new_axes.keys():
        return None
    if any(old_axes[k][0] != new_axes[k][0] for k in new_axes):
        return None
    return {k for k in new_axes if old_axes[k][1] != new_axes[k][1]}


def _axis_look(axis):
    """What an axis draws: limits, tick places and labels, tick settings, each tick label's look,
    the axis label and offset text."""
    locs = axis.get_majorticklocs()
    ticks = [(_text_look(t.label1), _text_look(t.label2), t.tick1line.get_visible(), t.tick2line.get_visible(),
              repr(t.tick1line.get_color()), t.gridline.get_visible()) for t in axis.majorTicks + axis.minorTicks]
    return (tuple(axis.get_view_interval()), tuple(locs), tuple(axis.get_minorticklocs()),
            tuple(axis.major.formatter.format_ticks(locs)), repr(axis.get_tick_params()), axis.get_visible(),
            _text_look(axis.label), _text_look(axis.offsetText), axis.get_label_position(), tuple(ticks))


def _text_look(text):
    """What a plain Text draws: words, place and transform, font, colour, angle, alignment, box."""
    box = text.get_bbox_patch()
    return (text.get_text(), text.get_position(), text.get_transform().get_matrix().tobytes(),
            repr(text.get_color()), text.get_alpha(), text.get_visible(), text.get_rotation(),
            text.get_rotation_mode(), text.get_ha(), text.get_va(),
            text.get_linespacing(), text.get_wrap(), text.get_clip_on(), repr(text.get_path_effects()),
            text.get_usetex(), text.get_antialiased(), _font_look(text.get_fontproperties()), text.get_zorder(),
            None if box is None else (repr(box.get_boxstyle()), repr(box.get_facecolor()),
                                      repr(box.get_edgecolor()), box.get_linewidth(), box.get_alpha(),
                                      box.get_visible()))


def _font_look(prop):
    return (tuple(prop.get_family()), prop.get_style(), prop.get_variant(), prop.get_weight(),
            prop.get_stretch(), prop.get_size_in_points(), prop.get_file(), prop.get_math_fontfamily())


def _descendants(artist):
    yield artist
    for child in artist.get_children():
        yield from _descendants(child)


def _spills(plan, axes, renderer):
    """Does an unclipped artist drawn on top reach into another axes (which it would cover)?"""
    boxes = {id(ax): ax.bbox for ax in axes}
    for artist in plan:
        if artist.get_clip_on() and artist.get_clip_box() is not None and not isinstance(artist, Axis):
            continue
        owner = getattr(artist, "axes", None)
        extent = (artist.get_tightbbox(renderer) if isinstance(artist, Axis)
                  else artist.get_window_extent(renderer))
        if extent is None:
            continue
        if any(k != id(owner) and box.overlaps(extent) for k, box in boxes.items()):
            return True
    return False


def _any_stale(artist):
    return artist.stale or any(_any_stale(child) for child in artist.get_children())


def _mark_fresh(artist):
    artist.stale = False       # setting False is not passed on to the parent
    for child in artist.get_children():
        _mark_fresh(child)


def _overlapping(axes):
    boxes = [ax.bbox for ax in axes]
    return any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])


def _stays_behind(axis):
    """An axis whose ticks point out and draw no grid never covers what is inside the axes."""
    ticks = axis.majorTicks + axis.minorTicks
    return not any(t.gridline.get_visible() for t in ticks) and all(
        getattr(t, "_tickdir", "in") == "out" for t in ticks)
