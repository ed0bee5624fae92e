"""Input checks shared by the public functions: each raises a message that names the argument,
what was expected and what was given, before any arithmetic runs."""
import math
import numbers

import torch

# Largest tensor the library will allocate (refused with the numbers before any allocation).
MAX_BYTES = 1 << 30
FLOAT_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
_DTYPE_NAMES = "torch.float16, torch.bfloat16, torch.float32 or torch.float64"


def tensor(x, name, *, min_dim=0, floating=True):
    """Check that ``x`` is a tensor with at least ``min_dim`` dims (and a floating dtype)."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{name}: expected a torch.Tensor, got {type(x).__name__}")
    if x.dim() < min_dim:
        raise ValueError(f"{name}: expected at least {min_dim} dims, got shape {tuple(x.shape)}")
    if floating and not x.is_floating_point():
        raise TypeError(f"{name}: expected a floating-point tensor, got dtype {x.dtype}")
    if floating and x.dtype not in FLOAT_DTYPES:
        raise TypeError(f"{name}: expected dtype {_DTYPE_NAMES}, got {x.dtype}")
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


def real(x, name, *, positive=False, finite=True, low=None, high=None):
    """Check that ``x`` is a real number (not bool) and return it as a float."""
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
    if high is not None and x >= high:
        raise ValueError(f"{name}: expected a number < {high}, got {x}")
    return x


def count(x, name, *, low=0):
    """Check that ``x`` is an int (not bool) >= ``low``."""
    if isinstance(x, torch.Tensor) and x.dim() == 0 and not x.is_floating_point() and x.dtype != torch.bool:
        x = int(x)
    if isinstance(x, bool) or not isinstance(x, numbers.Integral):
        raise TypeError(f"{name}: expected an int, got {type(x).__name__}")
    if x < low:
        raise ValueError(f"{name}: expected an int >= {low}, got {x}")
    return int(x)


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
