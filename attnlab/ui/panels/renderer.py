"""Blitting by declaration for live panels, on matplotlib's public API only.

In the spirit of matplotlib's blitting tutorial (``BlitManager``): the panel declares the artists its
controls move; everything else is drawn once into a saved background (``copy_from_bbox``) and each
later refresh is ``restore_region`` plus ``artist.draw`` of the moving artists. What the tutorial
leaves to the reader is done here, so the picture is exactly (every pixel) what a full draw shows:

- Drawing order. Figure.draw draws its children sorted by zorder (axes included) and each axes draws
  its children sorted by zorder; whatever comes after a moving artist in that order and touches the
  pixels it may cover (spines over an image, a text over a heatmap, a figure text over an axes) is
  drawn on top with it, in the same order. Which pixels an artist touches is measured, not guessed:
  each artist after the first moving one is drawn alone on a cleared canvas once per full draw.
- A moving artist that is not clipped to a box (a text, a whole axes) can grow: after each blit its
  extent is checked against what the background draws after it; an overlap means a full draw.
- Changes nobody declared: after a draw every undeclared artist is marked fresh and fingerprinted
  (its attributes, as Python holds them). If after the update any is stale or its fingerprint
  differs (a few Text setters, e.g. ``set_bbox`` and ``set_parse_math``, do not mark it stale), or
  an axes moved, changed its limits or its artists, or the figure's artists changed, that refresh is
  a full draw. An undeclared change costs speed, never correctness.
- Every full draw is a plain ``canvas.draw()``; the background and the moving artists drawn on it are
  then compared with it pixel for pixel, and blitting stops for the panel if they ever differ.

Declaring nothing means a full draw on every refresh (always right). Declaring an Axes redraws it
whole, so its limits and ticks may change too; any other artist is redrawn as the part of its axes
(or of the figure) it belongs to: the axes' direct child that holds it (an Axis for a tick label).
Two things Axes.draw places at draw time are handled so: a declared axes title redraws its axes
whole (the title's height moves it), and legends of an axes with moving artists move with them.
"""
import enum
import functools
import types

import numpy as np
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.cbook import CallbackRegistry
from matplotlib.layout_engine import PlaceHolderLayoutEngine
from matplotlib.legend import Legend
from matplotlib.text import Annotation, Text
from matplotlib.transforms import TransformNode

_IMMUTABLE = (str, int, float, bool, bytes, type(None), complex)
# Not looked into: other artists (watched themselves), transforms (their changes show as moved or
# rescaled axes), callbacks and functions.
_OPAQUE = (Artist, TransformNode, CallbackRegistry, types.FunctionType, types.MethodType, functools.partial)


class Full(enum.Enum):
    """Why a refresh drew the whole figure instead of blitting (``Blitter.reason``); each value is the
    text ``Blitter.why`` shows."""
    FIRST_DRAW = "first draw"
    NOTHING_DECLARED = "nothing declared"
    BLITTING_OFF = "blitting off (a background + moving artists once differed from a full draw)"
    NO_BACKGROUND = "no background saved"
    STRUCTURE_CHANGED = "axes moved or rescaled, or artists added, removed or restacked"
    UNDECLARED_CHANGE = "undeclared change"                               # an undeclared artist went stale
    UNDECLARED_UNMARKED = "undeclared change (not marked stale)"          # ... or changed without saying so
    GREW = "grew over an artist drawn after it"                          # a moving unclipped artist grew
    MOVED_WHILE_DRAWING = "an axes moved while drawing"


_STOPPED = "; blitting off: background + moving artists differed from a full draw"


class Blitter:
    """Keeps a figure's canvas up to date after an update, blitting the declared moving artists.

    ``moving``: artists, or callables returning artists (called again at every full draw, so a
    lesson can declare e.g. ``lambda: ax.texts`` whose members come and go). ``draw()`` brings the
    canvas up to date; ``reason`` (a ``Full``, None after a blit) and ``culprit`` (the artist it
    names, if any) say why the last refresh was a full draw, ``why`` says it as text ("" after a blit).
    """

    def __init__(self, figure, moving=(), *, freeze_layout=False):
        self.figure = figure
        self.freeze_layout = freeze_layout  # lay out on the first draw only, then keep positions
        self.moving = []                    # declared artists, or callables returning artists
        self.exact = True                   # False once a background + moving artists differed from a full draw
        self.full_draws = self.blits = self.planned_ahead = 0      # counts, for tests and benches
        self.reason, self.culprit = Full.FIRST_DRAW, None          # why the last refresh drew in full
        self.stopped = False                # that refresh (or plan_ahead after it) turned blitting off
        self.reset()                        # the plan and what it depends on: none yet
        self.declare(moving)

    def reset(self):
        """Forget the background: the next draw is a full one (after an export or a failed draw).
        All that a plan is, and what it was made from, is set here."""
        self.plan = None            # artists drawn on top of the background, in drawing order
        self.background = None      # the canvas without them (copy_from_bbox)
        self.checks = []            # (unclipped plan artist, pixels the background draws after it)
        self.whole = set()          # ids of the axes drawn whole (declared, or with a declared title)
        self.watched = []           # undeclared artists the background shows
        self.prints = []            # their fingerprints after the last draw
        self.redrawn = []           # indices into watched of those a blit draws again
        self.structure = None       # _structure() when the plan was made
        self.unplanned = None       # _structure() after a plain (unplanned) full draw
        self._drawn = False         # whether the canvas holds this blitter's last full draw

    def declare(self, *artists):
        """Add artists (or callables returning artists) that the controls move; the next draw is full."""
        for item in artists:
            if item is None:
                continue
            if isinstance(item, Artist) or callable(item):
                self.moving.append(item)
            else:                                           # any iterable of artists or callables
                self.declare(*item)
        self.reset()

    @property
    def why(self):
        """Why the last refresh was a full draw, as text ("" after a blit)."""
        if self.reason is None:
            return ""
        text = self.reason.value if self.culprit is None else f"{self.reason.value}: {self.culprit!r}"
        return text + (_STOPPED if self.stopped else "")

    def plan_ahead(self):
        """Make the plan now if the last refresh left none (after a plain full draw, e.g. a
        structural change): the plan and its background, checked against the canvas's last full
        draw (drawn again if the figure changed since), so the canvas keeps the same pixels and the
        next move can blit. Returns True if a plan was made. For a caller with time to spare
        (``Panel`` calls it once the controls have been still)."""
        if self.plan is not None or not self.moving or not self.exact:
            return False
        self._full(plan=True, drawn=self._drawn)
        self.unplanned = None
        self.planned_ahead += 1
        return self.plan is not None

    # -- drawing ---------------------------------------------------------------------------------
    def draw(self):
        """Bring the canvas up to date; returns True if it blitted, False if it drew in full."""
        reason, culprit = self._reason_to_draw_in_full()
        if reason is None:
            canvas = self.figure.canvas
            canvas.restore_region(self.background)
            renderer = canvas.get_renderer()
            for artist in self.plan:
                artist.draw(renderer)
            reason, culprit = self._blit_went_wrong(renderer)
            if reason is None:
                self._settle(blitted=True)
                self.reason, self.culprit, self.stopped = None, None, False
                self.blits += 1
                return True
        self.reason, self.culprit, self.stopped = reason, culprit, False
        # A structural change (a slider that reshapes a heatmap, shows or hides axes) tends to come
        # again on the next move of the same drag: draw plainly; the plan is made on the next full
        # draw, or ahead (plan_ahead) once the controls are still: one plain draw per such move
        # instead of the plan's several.
        plan = reason is not Full.STRUCTURE_CHANGED
        self._full(plan=plan)
        self._drawn = True                  # the canvas shows this figure as it is now (see plan_ahead)
        self.unplanned = None
        if not plan:
            self._place_axes()
            self.unplanned = self._structure()
        self.full_draws += 1
        return False

    def _reason_to_draw_in_full(self):
        """(Full, the artist it names or None), or (None, None) if the saved plan can be blitted."""
        if not self.moving:
            return Full.NOTHING_DECLARED, None
        if not self.exact:
            return Full.BLITTING_OFF, None
        if self.plan is None:
            if self.full_draws == 0:
                return Full.FIRST_DRAW, None
            if self.unplanned is not None:
                self._place_axes()
                if self._structure() != self.unplanned:
                    return Full.STRUCTURE_CHANGED, None               # still changing: draw plainly again
            return Full.NO_BACKGROUND, None
        self._place_axes()
        if self._structure() != self.structure:
            return Full.STRUCTURE_CHANGED, None
        for artist, print_ in zip(self.watched, self.prints):
            if artist.stale:
                return Full.UNDECLARED_CHANGE, artist
            if not _unchanged(artist, print_):
                return Full.UNDECLARED_UNMARKED, artist
        return None, None

    def _blit_went_wrong(self, renderer):
        """After the plan was drawn on the background: (Full, artist or None) if that picture may
        differ from a full draw, (None, None) if not."""
        grown = self._grown(renderer)
        if grown is not None:
            return Full.GREW, grown
        self._place_axes()
        if self._structure() != self.structure:
            return Full.MOVED_WHILE_DRAWING, None
        return None, None

    def _full(self, plan=True, drawn=False):
        """A full draw, the reference, and (``plan``) the plan and its background. ``drawn``: the
        canvas holds this blitter's last full draw, taken as the reference; if the background and
        the plan, drawn from the figure as it is now, differ from it (the figure changed since),
        the reference is drawn again and the plan made anew."""
        fig = self.figure
        canvas = fig.canvas
        if not drawn:
            canvas.draw()                                     # the reference: matplotlib's own draw
        self.plan = self.background = None
        if self.freeze_layout:                                # positions found; keep them from now on
            fig.set_layout_engine("none")
            self.freeze_layout = False
        if not plan or not self.moving or not self.exact:
            return
        units, declared, self.whole = self._units()
        if not declared or not _layout_fixed(fig):
            return                                            # no plan: the next refresh draws in full
        renderer = canvas.get_renderer()
        reference = np.asarray(canvas.buffer_rgba()).copy()
        saved = canvas.copy_from_bbox(fig.bbox)
        plan, self.checks = self._make_plan(units, declared, renderer)
        for artist in plan:
            artist.set_animated(True)                         # Figure.draw and Axes.draw leave it out
        try:
            canvas.draw()
        finally:
            for artist in plan:
                artist.set_animated(False)
        background = canvas.copy_from_bbox(fig.bbox)
        renderer = canvas.get_renderer()
        for artist in plan:
            artist.draw(renderer)
        if not np.array_equal(np.asarray(canvas.buffer_rgba()), reference):
            if drawn:                          # the figure changed since that draw: plan from a new one
                canvas.restore_region(saved)
                return self._full(plan, drawn=False)
            self.exact = False                 # a safety net: from now on every refresh draws in full
            canvas.restore_region(saved)
            self.stopped = True
            self._settle_all(units, declared)
            return
        self.plan, self.background = plan, background
        self._settle_all(units, declared)

    def _settle_all(self, units, declared):
        """Remember what the background depends on, after a full draw."""
        ids = set(map(id, declared))
        self.watched = []
        for unit in units:
            if id(unit) not in ids:
                self.watched += _descendants(unit)
        self.watched.append(self.figure.patch)
        # Undeclared artists a blit draws (on top of moving ones): drawing may change their attributes.
        drawn = {id(a) for unit in (self.plan or []) if id(unit) not in ids for a in _descendants(unit)}
        self.redrawn = [i for i, a in enumerate(self.watched) if id(a) in drawn]
        self._place_axes()
        self.structure = self._structure()
        self._settle()

    def _settle(self, blitted=False):
        """Mark the watched artists fresh and fingerprint them; after a blit, only the artists it
        drew are fingerprinted again (the others were just found unchanged)."""
        for artist in self.watched:
            artist.stale = False
        if not blitted:
            self.prints = [_fingerprint(a) for a in self.watched]
            return
        for i in self.redrawn:
            self.prints[i] = _fingerprint(self.watched[i])

    # -- what is drawn where ---------------------------------------------------------------------
    def _units(self):
        """The artists Figure.draw and Axes.draw draw, in their order; the declared ones among them;
        and the ids of the axes drawn whole. A declared Axes is one unit (drawn whole), and so is an
        axes whose title is declared; any other axes gives its patch (drawn first, when the frame is
        on) and its children, sorted as Axes.draw sorts them."""
        fig = self.figure
        wanted = []
        for item in self.moving:
            wanted += list(item() if callable(item) and not hasattr(item, "draw") else [item])
        # An axes title is placed by Axes.draw after its own extent: a declared one redraws its axes.
        whole = {id(a) for a in wanted if isinstance(a, Axes)} | {id(a.axes) for a in wanted if _is_title(a)}
        units = []
        for top in _draw_order(fig):
            if isinstance(top, Axes) and id(top) not in whole:
                if top.get_visible():
                    units += ([top.patch] if top.axison and top.get_frame_on() else []) + _axes_order(top)
            else:
                units.append(top)
        owner = {}
        for unit in units:
            for artist in _descendants(unit):
                owner.setdefault(id(artist), unit)
        # A legend placed "best" moves with the data of its axes: redraw legends with moving artists.
        having = {id(getattr(a, "axes", None)) for a in wanted}
        wanted += [u for u in units if isinstance(u, Legend) and id(getattr(u, "axes", None)) in having]
        declared, seen = [], set()
        for artist in wanted:
            unit = owner.get(id(artist))
            if unit is not None and id(unit) not in seen:
                seen.add(id(unit))
                declared.append(unit)
        return units, declared, whole

    def _make_plan(self, units, declared, renderer):
        """Declared units and every later unit touching pixels one of them covers, in drawing order;
        and for each declared unit not clipped to a box, what the background draws after it.

        A clipped declared unit counts as covering its whole clip box (it can go nowhere else); an
        unclipped one as what it covers now (its growth is checked after each blit). A later unit
        whose overlap is hidden under opaque pixels of a static unit drawn after it in the plan (the
        tick marks under a spine) stays in the background."""
        canvas = self.figure.canvas
        height, width = np.asarray(canvas.buffer_rgba()).shape[:2]
        ids = {id(u) for u in declared}
        first = min(i for i, u in enumerate(units) if id(u) in ids)
        covered = np.zeros((height, width), bool)      # by static units: clip boxes, undeclared artists
        reach = np.zeros((height, width), bool)        # by unclipped moving units, with their margins
        steps = []                  # (unit, declared?, mask, overlap, opaque), in drawing order
        for unit in units[first:]:
            if id(unit) in ids:
                box = _clip_rect(unit, height, width)
                if box is None:                      # what it covers now, and the margin it is checked with
                    reach |= _mask(unit, renderer)[0]
                    for rect in _footprint(unit, renderer, height, width):
                        reach[rect] = True
                else:
                    covered[box] = True
                steps.append((unit, True, box is None, None, None))
                continue
            mask, opaque = _mask(unit, renderer)
            if (mask & reach).any():
                steps.append((unit, False, mask, None, opaque))        # must be drawn on top
                covered |= mask
                continue
            overlap = mask & covered
            if overlap.any():
                covered |= mask
            steps.append((unit, False, mask, overlap, opaque))
        # Back to front: a unit whose overlap with static units lies entirely under opaque pixels of
        # static units kept after it (the tick marks under a spine) stays in the background.
        hidden = np.zeros((height, width), bool)
        later = np.zeros((height, width), bool)         # what the background draws after this point
        plan, checks = [], []
        for unit, is_declared, mask, overlap, opaque in reversed(steps):
            if is_declared:
                plan.append(unit)
                if mask and later.any():                # unclipped: check its growth after each blit
                    checks.append((unit, later.copy()))
            elif overlap is None or (overlap.any() and (overlap & ~hidden).any()):
                plan.append(unit)
                hidden |= opaque
            else:
                later |= mask                           # drawn in the background
        plan.reverse()
        checks.reverse()
        return plan, checks

    def _grown(self, renderer):
        """The declared artist, not clipped to a box, that now reaches what the background draws after
        it, or None."""
        for unit, later in self.checks:
            box = _text_reach(unit, *later.shape)            # cheap: no text layout
            if box is not None and not later[box].any():
                continue
            if any(later[rect].any() for rect in _footprint(unit, renderer, *later.shape)):
                return unit
        return None

    def _place_axes(self):
        """Place every axes as Figure.draw does before drawing (``apply_aspect``): what ``_structure``
        reads must be where the next draw puts it. Changes the axes' active positions."""
        renderer = self.figure.canvas.get_renderer()
        for ax in self.figure.axes:
            locator = ax.get_axes_locator()
            ax.apply_aspect(locator(ax, renderer) if locator else None)

    def _structure(self):
        """What the background depends on besides its artists' looks: the figure's size, its
        children and their order, and per axes its place (its box in pixels, as last placed: not
        ``get_position()``, which places a fixed-aspect axes first), limits and children (for an axes
        drawn whole, its place only). Reads the figure, changes nothing: call ``_place_axes`` first."""
        fig = self.figure
        axes = tuple((id(ax), ax.get_visible(), ax.axison, ax.get_frame_on(), tuple(ax.bbox.bounds))
                     + (() if id(ax) in self.whole else
                        (ax.get_xlim(), ax.get_ylim(), tuple((id(a), a.get_zorder()) for a in ax.get_children())))
                     for ax in fig.axes)
        return (tuple(fig.bbox.bounds), fig.dpi, axes,
                tuple((id(a), a.get_zorder()) for a in fig.get_children()))


def _is_title(artist):
    ax = getattr(artist, "axes", None)
    return (isinstance(artist, Text) and ax is not None and artist in ax.get_children()
            and artist.get_transform() == ax.title.get_transform())


def _layout_fixed(fig):
    return isinstance(fig.get_layout_engine(), (type(None), PlaceHolderLayoutEngine))


def _draw_order(fig):
    """Figure.draw: children but the patch, sorted by zorder (a stable sort)."""
    return sorted((a for a in fig.get_children() if a is not fig.patch), key=lambda a: a.get_zorder())


def _axes_order(ax):
    """Axes.draw: children but the patch (spines only with the frame, axes only when on), by zorder."""
    artists = [a for a in ax.get_children() if a is not ax.patch]
    if not (ax.axison and ax.get_frame_on()):
        artists = [a for a in artists if a not in ax.spines.values()]
    if not ax.axison:
        artists = [a for a in artists if a not in (ax.xaxis, ax.yaxis)]
    return sorted(artists, key=lambda a: a.get_zorder())


def _descendants(artist):
    """The artist and what it draws: its children, and the two patches a text draws that are not
    its children (its box, an annotation's arrow)."""
    out = [artist]
    for child in artist.get_children():
        out += _descendants(child)
    if isinstance(artist, Text) and artist.get_bbox_patch() is not None:
        out.append(artist.get_bbox_patch())
    if isinstance(artist, Annotation) and artist.arrow_patch is not None:
        out.append(artist.arrow_patch)
    return out


def _mask(unit, renderer):
    """The pixels ``unit`` touches, and those it makes opaque, drawn alone on a cleared canvas."""
    renderer.clear()
    unit.draw(renderer)
    alpha = np.asarray(renderer.buffer_rgba())[..., 3]
    return alpha > 0, alpha == 255


def _clip_rect(unit, height, width):
    """Rows and columns a clipped artist cannot leave (Agg clips to the box rounded to pixels)."""
    if not _clipped(unit):
        return None
    # RendererAgg.set_clipbox rounds the box to whole pixels: columns round(x0)..round(x1) and rows
    # round(height - y1)..round(height - y0). The rasterizer (paths, text) stops before the last
    # column and row, renderer_base (images, markers) includes them: both ends are kept.
    x0, y0, x1, y1 = unit.get_clip_box().extents
    c0, c1 = max(int(np.floor(x0 + 0.5)), 0), min(int(np.floor(x1 + 0.5)) + 1, width)
    r0, r1 = max(int(np.floor(height - y1 + 0.5)), 0), min(int(np.floor(height - y0 + 0.5)) + 1, height)
    return np.s_[r0:max(r1, r0), c0:max(c1, c0)]


def _clipped(artist):
    """Whether everything ``artist`` draws is clipped to its clip box. Not an axes or a container
    (its children clip themselves), nor an annotation whose arrow is not clipped to the same box:
    Annotation.draw draws its arrow with the arrow's own clip settings, unclipped by default."""
    if isinstance(artist, Axes) or not artist.get_clip_on() or artist.get_clip_box() is None:
        return False
    if any(True for _ in artist.get_children()):
        return False
    arrow = artist.arrow_patch if isinstance(artist, Annotation) else None
    if arrow is not None and not (arrow.get_clip_on() and arrow.get_clip_box() is not None
                                  and arrow.get_clip_path() is None
                                  and np.array_equal(arrow.get_clip_box().extents, artist.get_clip_box().extents)):
        return False
    return True


def _footprint(unit, renderer, height, width):
    """Rows and columns an unclipped unit may cover now: for an axes, its box and each of its
    unclipped children (ticks, titles, texts, legends) apart, not one box around them all."""
    if _draws_nothing(unit):
        return []
    if not isinstance(unit, Axes):
        rect = _extent_rect(unit, renderer, height, width)
        return [np.s_[0:height, 0:width]] if rect is None else [rect]
    x0, y0, x1, y1 = unit.bbox.extents
    rects = [_rows_cols(x0, y0, x1, y1, height, width, pad=4)]
    for child in unit.get_children():
        if _draws_nothing(child) or _clipped(child):
            continue                                       # inside the axes' box
        rect = _extent_rect(child, renderer, height, width)
        if rect is not None:
            rects.append(rect)
    return rects


def _draws_nothing(artist):
    """Hidden, or a plain text with no characters (Text.draw returns at once; its tight box is not
    finite). An annotation with an arrow draws the arrow whatever its text."""
    if not artist.get_visible():
        return True
    plain = type(artist) is Text or (type(artist) is Annotation and artist.arrow_patch is None)
    return plain and artist.get_text() == ""


def _extent_rect(unit, renderer, height, width):
    """Rows and columns an unclipped artist covers now, with a margin for strokes and glyph overhang."""
    if isinstance(unit, Axes):
        box = unit.get_tightbbox(renderer, bbox_extra_artists=unit.get_children())
    elif isinstance(unit, Annotation) and unit.arrow_patch is not None:
        box = unit.get_window_extent(renderer)   # with the arrow; a tight box is cut to the clip box
    else:
        box = unit.get_tightbbox(renderer)
    if box is None:
        return None
    pad = 4.0
    if isinstance(unit, Text):
        pad += 0.5 * unit.get_fontsize() * unit.figure.dpi / 72
        if isinstance(unit, Annotation) and unit.arrow_patch is not None:
            pad += 0.5 * unit.arrow_patch.get_linewidth() * unit.figure.dpi / 72
        patch = unit.get_bbox_patch()
        if patch is not None:
            box = type(box).union([box, patch.get_window_extent(renderer)])
            pad += patch.get_linewidth() * unit.figure.dpi / 72
    elif hasattr(unit, "get_linewidth"):
        width_pt = np.max(np.atleast_1d(unit.get_linewidth())) if np.size(unit.get_linewidth()) else 0
        pad += float(width_pt) * unit.figure.dpi / 72
    if not np.all(np.isfinite(box.extents)):
        return np.s_[0:height, 0:width]
    return _rows_cols(*box.extents, height, width, pad=pad)


def _text_reach(text, height, width):
    """A box no plain text can leave: around its anchor, a radius of its width plus its height
    bounded by one em per character and per line, plus a margin (None: no such bound, e.g. for
    math, TeX, an annotation with an arrow, a text with path effects or with a box, whose pad and
    style may reach any distance). An annotation without an arrow (``plotting.live_title``) is a
    text whose anchor its last draw placed."""
    plain = type(text) is Text or (type(text) is Annotation and text.arrow_patch is None)
    if not plain or text.get_usetex() or text.get_path_effects() or text.get_bbox_patch() is not None:
        return None
    words = text.get_text()
    if "$" in words and text.get_parse_math():
        return None
    em = text.get_fontsize() * text.figure.dpi / 72
    lines = words.split("\n")
    spacing = text.get_linespacing()
    spacing = max(spacing, 1.5) if isinstance(spacing, (int, float)) else 2.0   # "normal": about 1.2
    reach = em * (max(map(len, lines)) + 1 + len(lines) * spacing) + 4
    x, y = text.get_transform().transform(text.get_unitless_position())
    if not (np.isfinite(x) and np.isfinite(y)):
        return None
    return _rows_cols(x, y, x, y, height, width, pad=reach)


def _rows_cols(x0, y0, x1, y1, height, width, pad):
    c0 = max(int(np.floor(x0 - pad)), 0)
    c1 = min(int(np.ceil(x1 + pad)) + 1, width)
    r0 = max(int(np.floor(height - y1 - pad)), 0)
    r1 = min(int(np.ceil(height - y0 + pad)) + 1, height)
    return np.s_[r0:max(r1, r0), c0:max(c1, c0)]


def _fingerprint(artist):
    """The artist's attributes, as Python holds them (a copy of its ``__dict__``: the same value
    objects), and one level down a copy of the contents of the helper objects some setters change
    in place (font properties, box styles, dicts, lists): (attributes, [(helper, its contents)...]),
    taken after a draw."""
    attrs = dict(vars(artist))
    inner = []
    for value in attrs.values():
        contents = _contents(value)
        if contents is not None:
            inner.append((value, contents.copy()))
    return attrs, inner


def _contents(value):
    """What is looked into one level down: a dict's or list's items, a helper object's attributes."""
    if isinstance(value, (dict, list)):
        return value
    if isinstance(value, _OPAQUE) or not hasattr(value, "__dict__") or isinstance(value, type):
        return None
    return vars(value)


def _unchanged(artist, print_):
    """Whether ``artist`` holds what its fingerprint says: the same attribute names, each value the
    very same object or an equal one, and the same contents in each helper object. Compared as
    dicts and lists first, at C speed (identity is checked before equality); where a value's
    equality cannot say (an array raises), value by value: the same object, or an equal immutable of
    the same type."""
    attrs, inner = print_
    try:
        return vars(artist) == attrs and all(_contents(h) == c for h, c in inner)
    except Exception:  # e.g. numpy's "truth value of an array is ambiguous"
        pass
    if not _same_items(vars(artist), attrs):
        return False
    return all(_same_items(_contents(h), c) for h, c in inner)


def _same_items(now, then):
    """Two dicts (the same keys, each value _same_values) or two lists (item by item)."""
    if isinstance(then, dict):
        return now.keys() == then.keys() and _same_values(tuple(now[k] for k in then), tuple(then.values()))
    return _same_values(tuple(now), tuple(then))


def _same_values(a, b):
    """Element by element: the same object, or equal immutables of the same type (tuples compared
    so, recursively). Anything else that is not the same object counts as changed."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x is y:
            continue
        if isinstance(x, _IMMUTABLE) and type(x) is type(y) and x == y:
            continue
        if isinstance(x, tuple) and type(y) is tuple and _same_values(x, y):
            continue
        return False
    return True
