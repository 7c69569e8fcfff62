"""RoPE as one Triton kernel: x read once and written once, in its own dtype, float32 arithmetic inside.

One launch rotates a whole tensor x (..., seq, dim): each program takes a block of rows of one
(batch, head) and, for every pair i < r/2 of the first r = rotary_dim coordinates, reads the pair,
turns it by the row's angle with the cached float32 tables cos, sin (seq, r/2) (the same tables as
every other path, so the same angles, attention factor included) and writes it back:

    interleaved layout: pair i is (x[2i], x[2i+1]);   half layout: pair i is (x[i], x[i + r/2])
    x1' = x1 cos - x2 sin,    x2' = x2 cos + x1 sin

The coordinates past r are copied unchanged into the result (partial rotary), or left where they are
when the result is x itself (in place). x may be any strided view whose last dimension is contiguous,
e.g. transformers' q, a (batch, heads, seq, dim) view of a (batch, seq, heads, dim) tensor: its
strides go to the kernel, nothing is copied first.

Triton comes with PyTorch's CUDA wheels; `usable(x)` says whether this path can take x (a CUDA
tensor of float32, bfloat16 or float16, with Triton importable). Without a GPU, Triton's interpreter
runs the same kernel on CPU tensors when TRITON_INTERPRET=1 is set before this module is imported
(the tests do that), slowly but with the kernel's own indexing and masking.
"""

from __future__ import annotations

import torch

try:
    import triton
    import triton.language as tl
except ImportError:  # CPU-only installs: apply_rope's other paths serve them
    triton = None

DTYPES = (torch.float32, torch.bfloat16, torch.float16)
ROW_BLOCK_ELEMENTS = 2048  # pairs handled by one program: rows x pairs, rounded to powers of two


def usable(x: torch.Tensor) -> bool:
    """Whether apply_rope's fast path should rotate x with the Triton kernel."""
    return triton is not None and x.is_cuda and x.dtype in DTYPES


if triton is not None:
    @triton.jit
    def _rope_rows(x_ptr, out_ptr, cos_ptr, sin_ptr, seq, heads, blocks_per_head,
                   sx_b, sx_h, sx_s, so_b, so_h, so_s, s_table,
                   HALF: tl.constexpr, PASS: tl.constexpr, INTERLEAVED: tl.constexpr,
                   BLOCK_S: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_PASS: tl.constexpr):
        # one flat grid axis (no 65,535 limit): program -> (batch, head, block of rows)
        program = tl.program_id(0)
        head_index = program // blocks_per_head
        b, h = head_index // heads, head_index % heads
        rows = (program % blocks_per_head) * BLOCK_S + tl.arange(0, BLOCK_S)
        pairs = tl.arange(0, BLOCK_P)
        row_ok = rows < seq
        mask = row_ok[:, None] & (pairs < HALF)[None, :]
        table = rows[:, None] * s_table + pairs[None, :]
        cos = tl.load(cos_ptr + table, mask=mask, other=0.0)
        sin = tl.load(sin_ptr + table, mask=mask, other=0.0)
        x_rows = x_ptr + b.to(tl.int64) * sx_b + h.to(tl.int64) * sx_h + rows[:, None].to(tl.int64) * sx_s
        out_rows = out_ptr + b.to(tl.int64) * so_b + h.to(tl.int64) * so_h + rows[:, None].to(tl.int64) * so_s
        if INTERLEAVED:
            first = 2 * pairs[None, :]
            second = first + 1
        else:
            first = pairs[None, :]
            second = first + HALF
        x1 = tl.load(x_rows + first, mask=mask, other=0.0).to(tl.float32)
        x2 = tl.load(x_rows + second, mask=mask, other=0.0).to(tl.float32)
        kind = out_ptr.dtype.element_ty
        tl.store(out_rows + first, (x1 * cos - x2 * sin).to(kind), mask=mask)
        tl.store(out_rows + second, (x2 * cos + x1 * sin).to(kind), mask=mask)
        if PASS > 0:  # partial rotary, out of place: the rest of the row is copied as it is
            rest = 2 * HALF + tl.arange(0, BLOCK_PASS)[None, :]
            rest_mask = row_ok[:, None] & (rest < 2 * HALF + PASS)
            tl.store(out_rows + rest, tl.load(x_rows + rest, mask=rest_mask), mask=rest_mask)


def _as_4d(t: torch.Tensor) -> torch.Tensor | None:
    """t (..., seq, dim) as a (batch, heads, seq, dim) view, or None when its leading dimensions
    cannot be merged without a copy."""
    while t.dim() < 4:
        t = t.unsqueeze(0)
    if t.dim() > 4:
        try:
            t = t.view(-1, *t.shape[-3:])
        except RuntimeError:
            return None
    return t


def rope_triton(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str, *,
                rotary_dim: int | None = None, out: torch.Tensor | None = None) -> torch.Tensor | None:
    """Rotate the first `rotary_dim` (default all) coordinates of x (..., seq, dim) with float32
    tables cos, sin (seq, rotary_dim/2) in `layout` ("interleaved" or "half"); the rest pass through.

    `out`: where to write (a tensor shaped and typed like x; x itself rotates in place, the
    coordinates past rotary_dim untouched); by default a new tensor. Returns the result, or None when
    this kernel cannot take x (see `usable`; also a last dimension that is not contiguous, or leading
    dimensions that cannot be merged without a copy): the caller then takes another path.
    """
    if triton is None or x.dtype not in DTYPES or x.shape[-1] == 0 or x.stride(-1) != 1:
        return None
    dim = x.shape[-1]
    rotary_dim = dim if rotary_dim is None else rotary_dim
    if rotary_dim % 2 or not 0 < rotary_dim <= dim:
        raise ValueError(f"rotary_dim must be even and in 2..{dim}, got {rotary_dim}")
    if layout not in ("interleaved", "half"):
        raise ValueError(f"layout must be 'interleaved' or 'half', got {layout!r}")
    half, seq = rotary_dim // 2, x.shape[-2]
    if cos.shape != (seq, half) or sin.shape != (seq, half) or cos.dtype != torch.float32 or sin.dtype != torch.float32:
        raise ValueError(f"cos and sin must be float32 tables of shape ({seq}, {half}), "
                         f"got {tuple(cos.shape)} {cos.dtype} and {tuple(sin.shape)} {sin.dtype}")
    if out is None:
        out = torch.empty_like(x)
    elif out.shape != x.shape or out.dtype != x.dtype or out.device != x.device or out.stride(-1) != 1:
        raise ValueError("out must have x's shape, dtype and device, and a contiguous last dimension")
    x4, out4 = _as_4d(x), _as_4d(out)
    if x4 is None or out4 is None:
        return None
    if seq == 0 or x.numel() == 0:
        return out
    cos, sin = cos.contiguous(), sin.contiguous()
    block_p = triton.next_power_of_2(half)
    block_s = max(1, min(64, ROW_BLOCK_ELEMENTS // block_p))
    passed = 0 if out.data_ptr() == x.data_ptr() else dim - rotary_dim
    batch, heads = x4.shape[0], x4.shape[1]
    blocks_per_head = triton.cdiv(seq, block_s)
    _rope_rows[(batch * heads * blocks_per_head,)](
        x4, out4, cos, sin, seq, heads, blocks_per_head,
        x4.stride(0), x4.stride(1), x4.stride(2), out4.stride(0), out4.stride(1), out4.stride(2), cos.stride(0),
        HALF=half, PASS=passed, INTERLEAVED=layout == "interleaved",
        BLOCK_S=block_s, BLOCK_P=block_p, BLOCK_PASS=triton.next_power_of_2(max(passed, 1)), num_warps=4)
    return out
