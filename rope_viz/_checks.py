"""Argument checks shared by the core: each raises ValueError naming the argument,
the value it got and what is allowed, before anything large is allocated."""

from __future__ import annotations

import math
import numbers
import os
import sys

import torch

DEFAULT_MAX_ELEMENTS = sys.maxsize  # no budget: a notebook's calls are bounded by memory alone, as torch's are
LAYOUTS = ("interleaved", "half")
ENV_MAX_ELEMENTS = "ROPE_VIZ_MAX_ELEMENTS"

_budget: int | None = None  # set by set_max_elements (a server's), None for DEFAULT_MAX_ELEMENTS


def set_max_elements(value: int | None) -> int | None:
    """Bound every tensor the core allocates to `value` elements, for this whole process (a server sets
    it once for all its sessions); None goes back to the library's default, no budget. Returns the
    previous setting. The environment variable ROPE_VIZ_MAX_ELEMENTS, where set, overrides both."""
    global _budget
    previous = _budget
    _budget = None if value is None else check_int(value, "max_elements", minimum=1)
    return previous


def max_elements() -> int:
    """The allocation budget in tensor elements: ROPE_VIZ_MAX_ELEMENTS where set, else the value of
    set_max_elements, else DEFAULT_MAX_ELEMENTS (no budget)."""
    raw = os.environ.get(ENV_MAX_ELEMENTS)
    if raw is None:
        return DEFAULT_MAX_ELEMENTS if _budget is None else _budget
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(
            f"{ENV_MAX_ELEMENTS}={raw!r} is not an integer; set it to a positive element count"
        ) from None
    if value <= 0:
        raise ValueError(f"{ENV_MAX_ELEMENTS}={value} must be a positive element count")
    return value


def check_budget(numel: int, what: str) -> None:
    budget = max_elements()
    if numel > budget:
        raise ValueError(
            f"{what} would allocate {numel:,} elements, over the budget of {budget:,}; use smaller sizes "
            f"(or raise the budget: rope_viz.set_max_elements, {ENV_MAX_ELEMENTS})"
        )


def check_int(value, name: str, *, minimum: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value}")
    return value


def check_dim(dim, name: str = "dim") -> int:
    dim = check_int(dim, name)
    if dim <= 0 or dim % 2:
        raise ValueError(f"{name} must be a positive even integer, got {dim}")
    return dim


def check_real(value, name: str, *, above: float | None = None, at_least: float | None = None) -> float:
    """value as a float: a finite real number (not a bool), > `above` and >= `at_least` where given."""
    bound = f" > {above:g}" if above is not None else f" >= {at_least:g}" if at_least is not None else ""
    try:
        number = math.nan if isinstance(value, bool) or not isinstance(value, numbers.Real) else float(value)
    except OverflowError:  # an int past float's range
        number = math.inf
    if not math.isfinite(number) or (above is not None and number <= above) or (
            at_least is not None and number < at_least):
        raise ValueError(f"{name} must be a finite number{bound}, got {value!r}")
    return number


def check_positive(value, name: str) -> float:
    """value as a float: a finite real number > 0 (a base, a scale factor, a length in any unit)."""
    return check_real(value, name, above=0)


def check_layout(layout) -> str:
    if layout not in LAYOUTS:
        raise ValueError(f"layout must be one of {', '.join(map(repr, LAYOUTS))}; got {layout!r}")
    return layout


def check_choice(value, name: str, allowed) -> str:
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def check_rotary_dim(rotary_dim, dim: int) -> int:
    if rotary_dim is None:
        return dim
    rotary_dim = check_dim(rotary_dim, "rotary_dim")
    if rotary_dim > dim:
        raise ValueError(f"rotary_dim must be an even integer <= dim={dim}, got {rotary_dim}")
    return rotary_dim


def as_positions(positions, length: int | None = None, *, name: str = "positions", device=None) -> torch.Tensor:
    """A 1-D float64 tensor of finite positions: 0..length-1 when None, else `length` of them
    (any length when `length` is None)."""
    if positions is None:
        if length is None:
            raise ValueError(f"{name} must be a 1-D sequence of numbers, got None")
        return torch.arange(length, dtype=torch.float64, device=device)
    try:
        pos = torch.as_tensor(positions, device=device)
        if pos.is_floating_point() and not isinstance(positions, torch.Tensor):
            # Python floats would be inferred as float32 (torch's default dtype): keep float64.
            pos = torch.as_tensor(positions, dtype=torch.float64, device=device)
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"{name} must be a 1-D sequence of numbers, got {positions!r}") from err
    if pos.dtype == torch.bool or pos.is_complex():
        raise ValueError(f"{name} must hold real numbers, got dtype {pos.dtype}")
    pos = pos.to(torch.float64)
    if pos.dim() == 0:
        pos = pos.reshape(1)
    if pos.dim() != 1 or (length is not None and pos.numel() != length):
        wanted = "1-D" if length is None else f"1-D with {length} entries (one per sequence position)"
        raise ValueError(f"{name} must be {wanted}, got shape {tuple(pos.shape)}")
    if not bool(torch.isfinite(pos).all()):
        raise ValueError(f"{name} must be finite numbers; got NaN or infinity")
    return pos


def check_integer_positions(positions, *, maximum: int, name: str = "positions") -> torch.Tensor:
    """A 1-D float64 tensor of whole-number positions in [0, maximum] (exact in float64), checked
    against the element budget before anything else is built from it."""
    pos = as_positions(positions, name=name)
    check_budget(pos.numel(), name)
    bad = (pos != pos.round()) | (pos < 0) | (pos > maximum)
    if bool(bad.any()):
        index = int(bad.nonzero()[0, 0])
        raise ValueError(
            f"{name} must be integers in [0, {maximum:,}]; got {pos[index].item()!r} at index {index}"
        )
    return pos


def check_inv_freq(inv_freq, rotary_dim: int, name: str = "inv_freq") -> torch.Tensor:
    """An explicit frequency table: 1-D, rotary_dim/2 finite real numbers, as a float64 CPU tensor."""
    try:
        freqs = torch.as_tensor(inv_freq, dtype=torch.float64).cpu() if not isinstance(inv_freq, torch.Tensor) \
            else inv_freq.detach()
    except (TypeError, ValueError, RuntimeError) as err:
        raise ValueError(f"{name} must be a 1-D sequence of {rotary_dim // 2} numbers, got {inv_freq!r}") from err
    if freqs.dtype == torch.bool or freqs.is_complex():
        raise ValueError(f"{name} must hold real numbers, got dtype {freqs.dtype}")
    freqs = freqs.to(device="cpu", dtype=torch.float64)
    if freqs.dim() != 1 or freqs.numel() != rotary_dim // 2:
        raise ValueError(f"{name} must be 1-D with rotary_dim/2 = {rotary_dim // 2} entries, "
                         f"got shape {tuple(freqs.shape)}")
    if not bool(torch.isfinite(freqs).all()):
        raise ValueError(f"{name} must be finite numbers; got NaN or infinity")
    return freqs


def check_rotary_input(x, name: str = "x") -> int:
    """x must be a floating-point torch.Tensor shaped (..., seq, dim) with an even dim, within the
    budget; returns dim."""
    if not isinstance(x, torch.Tensor):
        raise ValueError(f"{name} must be a torch.Tensor shaped (..., seq, dim), got {type(x).__name__}")
    if x.dim() < 2:
        raise ValueError(f"{name} must have at least 2 dimensions (..., seq, dim), got shape {tuple(x.shape)}")
    if not x.is_floating_point():
        raise ValueError(f"{name} must be a floating-point tensor, got dtype {x.dtype}")
    check_budget(x.numel(), f"rotating {name}")
    return check_dim(x.shape[-1], f"{name}.shape[-1] (dim)")


def check_rotation(x, layout, *, rotary_dim=None, tables=None, rows=None, name: str = "x") -> int:
    """The one check of every entry that rotates a tensor (apply_rope, apply_rotary, RotaryEmbedding, the kernels
    of rope_viz.kernels and rope_viz.triton_rope), so that each refuses a bad argument with the same ValueError:
    x a floating-point tensor (..., seq, dim) with an even dim, within the budget; a known layout; rotary_dim
    (default: all of dim, or what the tables cover) even and <= dim; tables, where given, a pair (cos, sin) of
    floating-point tensors of one shape (seq, rotary_dim / 2), any number of rows long when `rows` (an integer
    tensor of seq table rows on x's device, one per sequence row) picks them. Returns rotary_dim."""
    dim = check_rotary_input(x, name)
    check_layout(layout)
    seq = x.shape[-2]
    if rows is not None and (not isinstance(rows, torch.Tensor) or rows.shape != (seq,)
                             or rows.dtype not in (torch.int32, torch.int64) or rows.device != x.device):
        raise ValueError(f"rows must be a tensor of {seq} int32 or int64 table rows (one per position) on {x.device}, "
                         f"got {getattr(rows, 'shape', type(rows).__name__)} {getattr(rows, 'dtype', '')} "
                         f"on {getattr(rows, 'device', None)}")
    if tables is None:
        return check_rotary_dim(rotary_dim, dim)
    cos, sin = tables
    if not isinstance(cos, torch.Tensor) or not isinstance(sin, torch.Tensor) or cos.shape != sin.shape \
            or cos.dim() != 2 or not cos.is_floating_point() or not sin.is_floating_point():
        raise ValueError("cos and sin must be two floating-point tensors of one shape (seq, rotary_dim / 2), got "
                         f"{tuple(getattr(cos, 'shape', ()))} and {tuple(getattr(sin, 'shape', ()))}")
    width, explicit = cos.shape[-1], rotary_dim is not None
    rotary_dim = check_rotary_dim(rotary_dim, dim) if explicit else 2 * width
    if width != rotary_dim // 2 or not 0 < rotary_dim <= dim or (rows is None and cos.shape[0] != seq):
        rows_needed = "one row per position id" if rows is not None else f"one row per position ({seq})"
        columns = f"rotary_dim / 2 = {rotary_dim // 2}" if explicit else f"1 to dim / 2 = {dim // 2}"
        raise ValueError(f"tables of shape {tuple(cos.shape)} do not fit x of shape {tuple(x.shape)}: they need "
                         f"{rows_needed} and {columns} columns")
    return rotary_dim


def check_rotation_qk(q, k, layout, *, rotary_dim=None, tables=None, rows=None) -> int:
    """check_rotation for queries and keys rotated together: q as x, k a tensor of its own (any leading
    dimensions) that agrees with q in (seq, dim). Returns rotary_dim."""
    rotary_dim = check_rotation(q, layout, rotary_dim=rotary_dim, tables=tables, rows=rows, name="q")
    check_rotary_input(k, "k")
    if q.shape[-2:] != k.shape[-2:]:
        raise ValueError(f"q and k must agree in (seq, dim), got {tuple(q.shape)} and {tuple(k.shape)}")
    return rotary_dim
