"""The lessons' public callables for bench/probe_bad_inputs.py (issue 15): the good calls and variants of
tests/_lesson_calls.py, minus the variants that are valid inputs (SKIP), registered with the probe.

    add_cases(case)        registers every bad variant with the probe's ``case``
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from _lesson_calls import GOOD, call, variants

# Variants that are valid inputs, not counted: (lesson, name, argument, label)
_BATCHED = [("nb02", "centre_rows", "scores_"), ("nb02", "row_entropy", "weights"), ("nb02", "scores", "queries"),
            ("nb02", "scores", "keys"), ("nb02", "softmax_jacobian_norm", "weights"), ("nb02", "scaling_hint", "queries"),
            ("nb02", "scaling_hint", "keys"), ("nb02", "histogram_density", "values"),
            ("nb07", "masked_row_conventions", "scores"), ("nb06", "offset_similarity", "deltas"), ("nb06", "rope", "x")]
_NUMBERS = [("nb01", f, a) for f in ("fit_lines", "kernel_regression_plot")
            for a in ("x_test", "y_truth", "y_hat", "x_train", "y_train")] + [
    ("nb01", "weight_maps", "x_test"), ("nb01", "weight_maps", "x_train"), ("nb03", "head_blocks_plot", "X"),
    ("nb06", "encoding_heatmap", "P"), ("nb06", "encoding_image", "P"), ("nb06", "encoding_columns_plot", "P"),
    ("nb08", "alignment_heatmap", "weights"), ("nb08", "argmax_line", "weights"), ("nb09", "head_accuracy_map", "accuracy"),
    ("nb04", "short", "vector"), ("nb02", "histogram_density", "values"), ("nb06", "offset_similarity", "deltas")]
SKIP = {
    ("nb00", "title", "name", "'nope'"),                  # any string is a title
    ("nb06", "rotation_matrix", "delta", "-1"),          # negative offsets are allowed
    ("nb06", "rotation_matrix", "delta", "2.5"),         # so are fractional ones
    ("nb04", "short", "fmt", "'nope'"),                  # a format without a field is a valid format
    ("nb05", "attend", "d", "2.5"),                      # any d > 0 in √d
    ("nb01", "fit_lines", "label", "'nope'"),            # any text is a label
    ("nb01", "kernel_regression_plot", "label", "'nope'"),
    ("nb06", "rope", "positions", "dtype torch.float64"),  # fractional positions are allowed
    ("nb08", "source_labels", "source", "'nope'"),       # any string has labels
    ("nb08", "output_labels", "output", "'nope'"),
    ("nb08", "alignment_heatmap", "output", "'nope'"),   # any output string
    ("nb08", "argmax_line", "output", "'nope'"),
    ("nb08", "check_source", "text", "'nope'"),          # letters of the months: a valid (odd) input
    ("nb08", "trace", "text", "'nope'"),
    ("nb08", "alignment", "source", "'nope'"),
    ("nb08", "play", "text", "'nope'"),                  # a typed text: refused in the panel's status line
    ("nb09", "Explorer", "text", "'nope'"),
    ("nb09", "play_trainer", "sentence", "'nope'"),
    ("nb09", "play", "text", "'nope'"),
    ("nb05", "similarities", "of", "'nope'"),            # refused by name: not among the words
    ("nb04", "layer_cost", "n", "2.5"),                  # n may be fractional (a plot's axis)
    ("nb04", "path_length", "n", "2.5"),
    ("nb05", "formula", "d", "2.5"),                     # any d > 0 in √d
    ("nb06", "update_encoding_heatmap", "P", "dtype torch.int64"),   # an integer matrix draws fine
    ("nb08", "update_alignment", "output", "'nope'"),    # any output string
    ("nb10", "is_date", "iso", "'nope'"),                # answers False
    ("nb10", "source_problem", "text", "'nope'"),        # answers why 'nope' is refused
    ("nb10", "play", "text", "'nope'"),                  # a typed text: refused in the panel's status line
} | {(*k, "extra dim") for k in _BATCHED} | {(*k, "dtype torch.int64") for k in _NUMBERS}


def add_cases(case):
    """Register every bad variant with the probe's ``case(group, label, kind, arg, thunk, check)``."""
    import inspect
    for lesson, name, fn, args, kwargs in GOOD:
        params = list(inspect.signature(fn).parameters)
        slots = [(params[i], i, a) for i, a in enumerate(args)] + [(k, k, v) for k, v in kwargs.items()]
        for arg, key, value in slots:
            for label, bad, kind in variants(value):
                if (lesson, name, arg, label) in SKIP:
                    continue
                check = (lambda r: True) if kind == "bounded" else None
                if name.startswith("check_") and arg == "fn":        # a learner's mistake: reported, never raised
                    kind, check = "report", (lambda r: r is False)
                if name == "scaling_hint" and arg == "fn":           # reports in a sentence
                    kind, check = "report", (lambda r: isinstance(r, str) and "raised" in r)

                def thunk(fn=fn, args=args, kwargs=kwargs, key=key, bad=bad):
                    a, k = list(args), dict(kwargs)
                    if isinstance(key, int):
                        a[key] = bad
                    else:
                        k[key] = bad
                    return call(fn, a, k)
                case(lesson, f"{lesson}.{name} {arg}={label}", kind, arg, thunk, check)
