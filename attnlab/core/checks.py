"""The one vocabulary of argument checks: each raises a message that names the argument, what was
expected and what was given, before any arithmetic runs. No other module writes its own checks.

The one rule (docs/api.md): a TypeError when the argument's type is wrong (a str for a number, a
float for an int, an int for a str, a list for a tensor, an integer dtype for a float tensor), a
ValueError when its type is right and its value is not (NaN, -1, a str that is not an option, a
tensor with the wrong number of dims).

Each check comes in two forms with the same keywords:
    a function, called in a body, returning the checked value   checks.real(x, "x", positive=True)
    a spec, for the ``@checks.arguments(x=...)`` decorator       checks.Real(positive=True)
    count/Int  real/Real  tensor/Tensor  choice/Choice  string/Text  flag/Flag  instance/Instance
    axes/Axes  function/Function  items/Items  dictionary/Dict  array/Array  (Optional, Generator)
Bounds are inclusive: ``low <= x <= high``. An exclusive bound has its own name: ``positive=True``
(x > 0) or ``below=b`` (x < b), e.g. a dropout probability in [0, 1) is ``real(p, "p", low=0.0, below=1.0)``.

Checks run once, at the public boundary; internal calls between modules go to unchecked kernels
(``softmax_unchecked``, ...). Core never imports matplotlib: ``axes`` recognises a matplotlib Axes
only through an already imported ``matplotlib.axes`` (no Axes can exist before it is imported).
"""
import math
import numbers
import sys

import torch

# Largest tensor the library will allocate (refused with the numbers before any allocation).
MAX_BYTES = 1 << 30
FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_DTYPE_NAMES = "torch.float16, torch.bfloat16, torch.float32 or torch.float64"


def tensor(x, name, *, dims=None, min_dim=0, floating=True, integer=False, what="tensor"):
    """Check that ``x`` is a tensor with ``dims`` dims (an int or a tuple of allowed) or at least
    ``min_dim``; a supported float dtype when ``floating``, an integer one when ``integer``. ``what`` names it
    in the dims message ("x: expected a 1-D <what>, got shape ...", e.g. "tensor of positions (n,)")."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(x).__name__}")
    if x.dim() < min_dim:
        raise ValueError(f"{name}: expected at least {min_dim} dims, got shape {tuple(x.shape)}")
    if integer:
        if x.is_floating_point() or x.is_complex() or x.dtype == torch.bool:
            raise TypeError(f"{name}: expected an integer tensor, got dtype {x.dtype}")
    elif floating and not x.is_floating_point():
        raise TypeError(f"{name}: expected a floating-point tensor, got dtype {x.dtype}")
    elif floating and x.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name}: expected dtype {_DTYPE_NAMES}, got {x.dtype}")
    _dims(dims, x.shape, name, what)
    return x


def float_dtype(x, name, default=None):
    """Check that ``x`` is a supported floating torch.dtype (None -> ``default`` or torch's default)."""
    if x is None:
        return default or torch.get_default_dtype()
    if not isinstance(x, torch.dtype):
        raise TypeError(f"{name}: expected a torch.dtype ({_DTYPE_NAMES}), got {type(x).__name__} {x!r}")
    if x not in FLOAT_DTYPES:
        raise TypeError(f"{name}: expected a floating dtype ({_DTYPE_NAMES}), got {x}")
    return x


def device(x, name, *, allow_meta=True):
    """Check that ``x`` names an available device ('meta' only when ``allow_meta``); None stays None."""
    if x is None:
        return None
    if isinstance(x, bool) or not isinstance(x, (str, torch.device, int)):
        raise TypeError(f"{name}: expected a torch.device or a str such as 'cpu' or 'cuda:0', "
                        f"got {type(x).__name__}")
    try:
        dev = torch.device(x)
    except (RuntimeError, TypeError, ValueError):
        raise ValueError(f"{name}: expected a torch device such as 'cpu' or 'cuda:0', got {x!r}") from None
    if dev.type == "meta" and not allow_meta:
        raise ValueError(f"{name}: expected a device that holds values such as 'cpu' or 'cuda', got {x!r} "
                         f"(meta tensors have shapes but no values)")
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"{name}: expected an available device, got {x!r} (no CUDA here)")
    mps = getattr(torch.backends, "mps", None)
    if dev.type == "mps" and not (mps is not None and mps.is_available()):
        raise ValueError(f"{name}: expected an available device, got {x!r} (no MPS here)")
    return dev


def fits(sizes, itemsize, name, what):
    """Refuse, before allocating, a tensor of ``sizes`` (ints) with ``itemsize`` bytes per entry
    that is larger than MAX_BYTES; the message names the arguments and says the limit."""
    numel = math.prod(int(s) for s in sizes)
    if numel * itemsize > MAX_BYTES:
        dims = " x ".join(str(int(s)) for s in sizes)
        raise ValueError(f"{name}: expected {what} of at most {MAX_BYTES / 2**30:g} GiB, got {dims} entries x "
                         f"{itemsize} B = {numel * itemsize / 2**30:.3g} GiB")
    return numel


def same_kind(ref, ref_name, x, name):
    """Check that ``x`` has the dtype and device of ``ref``."""
    if x.dtype != ref.dtype:
        raise TypeError(f"{name}: expected dtype {ref.dtype} to match {ref_name}, got {x.dtype}")
    if x.device != ref.device:
        raise ValueError(f"{name}: expected device {ref.device} to match {ref_name}, got {x.device}")


def module_kind(module, x, name):
    """Check that ``x`` has the dtype and device of ``module``'s parameters (before any layer runs)."""
    param = next(module.parameters())
    if x.dtype != param.dtype:
        raise TypeError(f"{name}: expected dtype {param.dtype} to match the module's parameters "
                        f"(convert one with .to(dtype)), got {x.dtype}")
    if x.device != param.device:
        raise ValueError(f"{name}: expected device {param.device} to match the module's parameters, "
                         f"got {x.device}")


def batch_shape(*named):
    """Broadcast the leading (batch) dims of (name, tensor) pairs, whose last two dims are data."""
    shapes = [(n, t.shape[:-2]) for n, t in named]
    try:
        return torch.broadcast_shapes(*(s for _, s in shapes))
    except RuntimeError:
        given = ", ".join(f"{n} {tuple(s)}" for n, s in shapes)
        raise ValueError(f"batch dims: expected broadcastable leading dims, got {given}") from None


def _why(why):
    return f" ({why})" if why else ""


def real(x, name, *, positive=False, finite=True, low=None, high=None, below=None, why=None):
    """Check that ``x`` is a real number (not bool) and return it as a float: finite (when ``finite``),
    > 0 (when ``positive``), low <= x <= high (both inclusive) and x < ``below`` (exclusive);
    ``why`` says where an upper limit comes from."""
    if isinstance(x, torch.Tensor) and x.dim() == 0 and not x.dtype == torch.bool:
        x = x.item()
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name}: expected a real number, got {type(x).__name__}")
    x = float(x)
    if finite and not math.isfinite(x):
        raise ValueError(f"{name}: expected a finite number, got {x}")
    if positive and not x > 0:
        raise ValueError(f"{name}: expected a number > 0, got {x}")
    if low is not None and x < low:
        raise ValueError(f"{name}: expected a number >= {low}, got {x}")
    if high is not None and x > high:
        raise ValueError(f"{name}: expected a number <= {high:g}{_why(why)}, got {x:g}")
    if below is not None and x >= below:
        raise ValueError(f"{name}: expected a number < {below}{_why(why)}, got {x}")
    return x


def count(x, name, *, low=0, high=None, why=None):
    """Check that ``x`` is an int (not bool) with low <= x <= high (both inclusive) and return it;
    ``why`` says where the upper limit comes from."""
    if isinstance(x, torch.Tensor) and x.dim() == 0 and not x.is_floating_point() and x.dtype != torch.bool:
        x = int(x)
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name}: expected an int, got {type(x).__name__}")
    if x < low:
        raise ValueError(f"{name}: expected an int >= {low}, got {x}")
    if high is not None and x > high:
        raise ValueError(f"{name}: expected an int <= {high}{_why(why)}, got {x}")
    return int(x)


def flag(x, name, *, allow_none=False):
    """Check that ``x`` is True or False (or None when ``allow_none``)."""
    if not (isinstance(x, bool) or (allow_none and x is None)):
        raise TypeError(f"{name}: expected {'True, False or None' if allow_none else 'True or False'}, "
                        f"got {_kind(x)} {x!r}")
    return x


def string(x, name, *, non_empty=False, max_len=None):
    """Check that ``x`` is a str (not blank when ``non_empty``) of at most ``max_len`` characters."""
    if not isinstance(x, str):
        raise TypeError(f"{name}: expected a str, got {_kind(x)}")
    if non_empty and not x.strip():
        raise ValueError(f"{name}: expected a non-empty str, got {x!r}")
    if max_len is not None and len(x) > max_len:
        raise ValueError(f"{name}: expected at most {max_len} characters, got {len(x)}")
    return x


def function(x, name, what="a function"):
    """Check that ``x`` is callable; ``what`` says which function (e.g. "a function update(**values)")."""
    if not callable(x):
        raise TypeError(f"{name}: expected {what}, got {_kind(x)}")
    return x


def instance(x, name, cls, expected, *, optional=False):
    """Check that ``x`` is an instance of ``cls`` (a class or a tuple), or None when ``optional``;
    ``expected`` describes it to the reader (e.g. "a KVCache")."""
    if not (isinstance(x, cls) or (optional and x is None)):
        raise TypeError(f"{name}: expected {expected}, got {_kind(x)}")
    return x


def has(x, name, attributes, expected):
    """Check that ``x`` has each of ``attributes`` (a duck type: "a widget with a .value")."""
    if not all(hasattr(x, a) for a in attributes):
        raise TypeError(f"{name}: expected {expected}, got {_kind(x)}")
    return x


def identifier(x, name, expected="a Python name"):
    """Check that ``x`` is a str that is a Python identifier (e.g. a keyword argument's name)."""
    string(x, name)
    if not x.isidentifier():
        raise ValueError(f"{name}: expected {expected}, got {x!r}")
    return x


def axes(x, name, *, optional=False):
    """Check that ``x`` is a matplotlib Axes (or None when ``optional``), without importing matplotlib:
    an Axes exists only once ``matplotlib.axes`` is imported, so an unimported module means "not one"."""
    if optional and x is None:
        return x
    module = sys.modules.get("matplotlib.axes")
    if module is None or not isinstance(x, module.Axes):
        raise TypeError(f"{name}: expected a matplotlib Axes{' or None' if optional else ''}, got {_kind(x)}")
    return x


def items(x, name, *, item=None, min_len=0, max_len=None, kind=(list, tuple)):
    """Check that ``x`` is a list or tuple (``kind``) of ``min_len``..``max_len`` entries (inclusive),
    each checked by the spec ``item`` (named ``name[i]``)."""
    if not isinstance(x, kind) or isinstance(x, str):
        raise TypeError(f"{name}: expected a {' or '.join(k.__name__ for k in kind)}, got {_kind(x)}")
    if len(x) < min_len:
        raise ValueError(f"{name}: expected at least {min_len} entries, got {len(x)}")
    if max_len is not None and len(x) > max_len:
        raise ValueError(f"{name}: expected at most {max_len} entries, got {len(x)}")
    if item is not None:
        for i, v in enumerate(x):
            item(v, f"{name}[{i}]")
    return x


def dictionary(x, name, *, min_len=1, max_len=None):
    """Check that ``x`` is a dict of ``min_len``..``max_len`` entries (inclusive)."""
    if not isinstance(x, dict):
        raise TypeError(f"{name}: expected a dict, got {_kind(x)}")
    if len(x) < min_len:
        raise ValueError(f"{name}: expected at least {min_len} entries, got {len(x)}")
    if max_len is not None and len(x) > max_len:
        raise ValueError(f"{name}: expected at most {max_len} entries, got {len(x)}")
    return x


def array(x, name, *, dims=None):
    """Check that ``x`` is a tensor or an array (numpy, list) of real numbers with ``dims`` dims (an
    int or a tuple of allowed)."""
    import numpy as np
    if isinstance(x, torch.Tensor):
        if x.dtype == torch.bool or x.is_complex():
            raise TypeError(f"{name}: expected real numbers, got dtype {x.dtype}")
        shape = tuple(x.shape)
    else:
        if isinstance(x, (str, bytes)) or not isinstance(x, (list, tuple, np.ndarray)):
            raise TypeError(f"{name}: expected a tensor or an array of numbers, got {_kind(x)}")
        try:
            shape = np.asarray(x, dtype=float).shape
        except (TypeError, ValueError):
            raise TypeError(f"{name}: expected a tensor or an array of numbers, got {_kind(x)} "
                            f"that is not one") from None
    _dims(dims, shape, name, "array")
    return x


def _dims(dims, shape, name, what):
    allowed = (dims,) if isinstance(dims, int) else dims
    if allowed is not None and len(shape) not in allowed:
        want = " or ".join(f"{d}-D" for d in allowed)
        raise ValueError(f"{name}: expected a {want} {what}, got shape {tuple(shape)}")


def _same_type(x, option):
    """Whether ``x`` is the kind of value ``option`` is (bool apart from int; any int for an int
    option, any real number for a float one, any str for a str one)."""
    if isinstance(option, bool) or isinstance(x, bool):
        return isinstance(x, bool) and isinstance(option, bool)
    for kind in (str, numbers.Integral, numbers.Real):
        if isinstance(option, kind):
            return isinstance(x, kind)
    return isinstance(x, type(option))


def choice(x, name, options, *, expected=None):
    """Check that ``x`` is one of ``options`` and return it: a TypeError when it is not even the
    options' kind of value (3 for one of some str), a ValueError when it is but is none of them.
    ``expected`` replaces the words after "expected " (default "one of [...]")."""
    options = tuple(options)
    expected = expected or f"one of {list(options)}"
    if not any(_same_type(x, o) for o in options):
        raise TypeError(f"{name}: expected {expected}, got {x!r}")
    try:
        ok = any(type(x) is type(o) and x == o for o in options) or (
            not isinstance(x, (str, bool)) and x in options)
    except (TypeError, ValueError, RuntimeError):
        ok = False
    if not ok:
        raise ValueError(f"{name}: expected {expected}, got {x!r}")
    return x


def bool_mask(mask, name, target_shape):
    """Check that ``mask`` is a bool tensor that broadcasts to ``target_shape`` (..., Tq, Tk)."""
    if not isinstance(mask, torch.Tensor):
        raise TypeError(f"{name}: expected a bool torch.Tensor, got {type(mask).__name__}")
    if mask.dtype != torch.bool:
        raise TypeError(f"{name}: expected dtype torch.bool (True = may attend), got {mask.dtype}")
    try:
        if torch.broadcast_shapes(mask.shape, target_shape) != torch.Size(target_shape):
            raise RuntimeError
    except RuntimeError:
        raise ValueError(f"{name}: expected a shape that broadcasts to {tuple(target_shape)}, "
                         f"got {tuple(mask.shape)}") from None
    return mask


_NOTHING = object()


def error(name, expected, got=_NOTHING, *, kind=ValueError):
    """The exception for a check only one function needs (a shape that must match another argument's, a bound
    another argument sets), in the vocabulary's one wording: ``kind`` (ValueError; TypeError when the type is
    wrong) "name: expected <expected>, got <got>" (no ", got" part when ``got`` is not given). Raised by the
    caller after its own test, so the flow reads as a raise::

        if W.shape[0] != X.shape[1]:
            raise checks.error("W", f"shape ({X.shape[1]}, size) to match X", tuple(W.shape))

    ``got`` is shown as ``format`` shows it (``repr(x)`` for a str in quotes)."""
    if kind not in (ValueError, TypeError):
        raise TypeError(f"kind: expected ValueError or TypeError, got {kind!r}")
    return kind(f"{name}: expected {expected}" + ("" if got is _NOTHING else f", got {got}"))


def same_shape(ref, ref_name, x, name):
    """Check that the tensor ``x`` has the shape of the tensor ``ref`` (e.g. y_train of x_train)."""
    if x.shape != ref.shape:
        raise error(name, f"shape {tuple(ref.shape)} to match {ref_name}", tuple(x.shape))
    return x


# ---------------------------------------------------------------- argument specs (the lessons' boundary)
# ``@arguments(name=spec, ...)`` checks a public function's arguments before its body runs (for a
# generator function: when it is called, not at the first ``next``). A spec is a function
# (value, name) -> None that raises a ValueError/TypeError naming the argument, the expected and the
# given. The values passed on are the caller's own (a check never converts or copies them).

def refuse(problem, name):
    """Raise a lesson's verdict on a learner's input, ``(message, {fields})``, as the ValueError
    "name: message" in English (the API's message; ``i18n.explain`` shows it to the learner); None passes."""
    if problem is not None:
        message, fields = problem
        raise ValueError(f"{name}: " + message.format(**fields))


def arguments(**specs):
    """Decorator: check the named arguments with their specs before the function runs."""
    import functools
    import inspect

    def wrap(fn):
        sig = inspect.signature(fn)
        unknown = set(specs) - set(sig.parameters)
        if unknown:
            raise AssertionError(f"{fn.__qualname__} has no arguments {sorted(unknown)}")

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            for name, spec in specs.items():
                spec(bound.arguments[name], name)
            return fn(*args, **kwargs)
        return checked
    return wrap


def _kind(x):
    return type(x).__name__


def _spec(check, **fixed):
    """The spec form of the function ``check``: (value, name) -> None, the keywords fixed."""
    def spec(x, name):
        check(x, name, **fixed)
    spec.check, spec.fixed = check, fixed
    return spec


def Int(low=0, high=None, why=None):
    """``count``: an int (not bool) with low <= x <= high, both inclusive."""
    return _spec(count, low=low, high=high, why=why)


def Real(positive=False, low=None, high=None, below=None, why=None):
    """``real``: a finite real number (not bool), > 0 if ``positive``, low <= x <= high (inclusive),
    x < ``below`` (exclusive)."""
    return _spec(real, positive=positive, low=low, high=high, below=below, why=why)


def Tensor(dims=None, min_dim=0, floating=True, integer=False, what="tensor"):
    """``tensor``: a torch.Tensor with ``dims`` (an int or a tuple of allowed) or at least ``min_dim``
    dims; a supported float dtype when ``floating``, an integer one when ``integer``."""
    return _spec(tensor, dims=dims, min_dim=min_dim, floating=floating, integer=integer, what=what)


def Choice(options, expected=None):
    """``choice``: one of ``options`` (a TypeError for another kind of value, a ValueError for a
    value of the right kind that is not among them); ``expected`` as in ``choice``."""
    return _spec(choice, options=tuple(options), expected=expected)


def Text(max_len=None):
    """``string``: a str of at most ``max_len`` characters."""
    return _spec(string, max_len=max_len)


def Flag():
    """``flag``: True or False."""
    return _spec(flag)


def Instance(cls, what):
    """``instance``: an instance of ``cls`` (a class or a tuple), described to the reader as ``what``."""
    return _spec(instance, cls=cls, expected=what)


def Axes():
    """``axes``: a matplotlib Axes."""
    return _spec(axes)


def Function():
    """``function``: a callable (the learner's function)."""
    return _spec(function)


def Items(item=None, min_len=0, max_len=None, kind=(list, tuple)):
    """``items``: a list or tuple (``kind``) of ``min_len``..``max_len`` entries, each checked by ``item``."""
    return _spec(items, item=item, min_len=min_len, max_len=max_len, kind=kind)


def Dict(min_len=1, max_len=None):
    """``dictionary``: a dict of ``min_len``..``max_len`` entries."""
    return _spec(dictionary, min_len=min_len, max_len=max_len)


def Optional(spec):
    """None, or what ``spec`` accepts."""
    def optional(x, name):
        if x is not None:
            spec(x, name)
    return optional


def Generator():
    """A torch.Generator."""
    return Instance(torch.Generator, "a torch.Generator")


def Array(dims=None):
    """``array``: a tensor or an array (numpy, list) of real numbers with ``dims`` dims (an int or a tuple)."""
    return _spec(array, dims=dims)
