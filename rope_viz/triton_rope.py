"""RoPE as one Triton kernel: x read once and written once, in its own dtype, float32 arithmetic inside.

One launch rotates a whole tensor x (..., seq, dim): each program takes a block of rows of one
(batch, head) and, for every pair i < r/2 of the first r = rotary_dim coordinates, reads the pair,
turns it by the row's angle with the cached float32 tables cos, sin (seq, r/2), or with the rows of a
longer cached table that position ids pick (`tables`), the same angles as every other path, attention
factor included, and writes it back:

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

from ._checks import check_rotation, check_rotation_qk
from .frequencies import rope_tables

try:
    import triton
    import triton.language as tl
except ImportError:  # CPU-only installs: apply_rope's other paths serve them
    triton = None

DTYPES = (torch.float32, torch.bfloat16, torch.float16)
ROW_BLOCK_ELEMENTS = 2048  # pairs handled by one program: rows x pairs, rounded to powers of two
CACHED_TABLE_ENTRIES = 1 << 23  # the longest cached table indexed by position ids: 64 MB for cos and sin


def usable(x: torch.Tensor) -> bool:
    """Whether apply_rope's fast path should rotate x with the Triton kernel."""
    return triton is not None and x.is_cuda and x.dtype in DTYPES


if triton is not None:
    @triton.jit
    def _rotate_rows(x_ptr, out_ptr, cos_ptr, sin_ptr, rows_ptr, program, seq, heads, blocks_per_head,
                     sx_b, sx_h, sx_s, so_b, so_h, so_s, s_table,
                     HALF: tl.constexpr, PASS: tl.constexpr, INTERLEAVED: tl.constexpr, HAS_ROWS: tl.constexpr,
                     BLOCK_S: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_PASS: tl.constexpr):
        """Program number `program` of one tensor: a block of rows of one (batch, head). Row r takes the
        angles of table row rows_ptr[r] (HAS_ROWS: position ids into a cached table), else of row r."""
        head_index = program // blocks_per_head
        b, h = head_index // heads, head_index % heads
        rows = (program % blocks_per_head) * BLOCK_S + tl.arange(0, BLOCK_S)
        pairs = tl.arange(0, BLOCK_P)
        row_ok = rows < seq
        mask = row_ok[:, None] & (pairs < HALF)[None, :]
        if HAS_ROWS:
            table_rows = tl.load(rows_ptr + rows, mask=row_ok, other=0).to(tl.int64)
        else:
            table_rows = rows.to(tl.int64)
        table = table_rows[:, None] * s_table + pairs[None, :]
        cos = tl.load(cos_ptr + table, mask=mask, other=0.0)
        sin = tl.load(sin_ptr + table, mask=mask, other=0.0)
        x_rows = x_ptr + b.to(tl.int64) * sx_b + h.to(tl.int64) * sx_h + rows[:, None].to(tl.int64) * sx_s
        out_rows = out_ptr + b.to(tl.int64) * so_b + h.to(tl.int64) * so_h + rows[:, None].to(tl.int64) * so_s
        kind = out_ptr.dtype.element_ty
        if INTERLEAVED:
            # the rotated part of each row in one contiguous load and one store (stride-2 loads and
            # stores of x1 and x2 apart would each touch every cache line twice), split into pairs here
            coords = tl.arange(0, 2 * BLOCK_P)[None, :]
            coord_mask = row_ok[:, None] & (coords < 2 * HALF)
            both = tl.load(x_rows + coords, mask=coord_mask, other=0.0).to(tl.float32)
            x1, x2 = tl.split(tl.reshape(both, (BLOCK_S, BLOCK_P, 2)))
            turned = tl.join(x1 * cos - x2 * sin, x2 * cos + x1 * sin)
            tl.store(out_rows + coords, tl.reshape(turned, (BLOCK_S, 2 * BLOCK_P)).to(kind), mask=coord_mask)
        else:
            first = pairs[None, :]
            second = first + HALF
            x1 = tl.load(x_rows + first, mask=mask, other=0.0).to(tl.float32)
            x2 = tl.load(x_rows + second, mask=mask, other=0.0).to(tl.float32)
            tl.store(out_rows + first, (x1 * cos - x2 * sin).to(kind), mask=mask)
            tl.store(out_rows + second, (x2 * cos + x1 * sin).to(kind), mask=mask)
        if PASS > 0:  # partial rotary, out of place: the rest of the row is copied as it is
            rest = 2 * HALF + tl.arange(0, BLOCK_PASS)[None, :]
            rest_mask = row_ok[:, None] & (rest < 2 * HALF + PASS)
            tl.store(out_rows + rest, tl.load(x_rows + rest, mask=rest_mask), mask=rest_mask)

    @triton.jit
    def _rope_rows(x_ptr, out_ptr, cos_ptr, sin_ptr, rows_ptr, seq, heads, blocks_per_head,
                   sx_b, sx_h, sx_s, so_b, so_h, so_s, s_table,
                   HALF: tl.constexpr, PASS: tl.constexpr, INTERLEAVED: tl.constexpr, HAS_ROWS: tl.constexpr,
                   BLOCK_S: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_PASS: tl.constexpr):
        # one flat grid axis (no 65,535 limit): program -> (batch, head, block of rows)
        _rotate_rows(x_ptr, out_ptr, cos_ptr, sin_ptr, rows_ptr, tl.program_id(0), seq, heads, blocks_per_head,
                     sx_b, sx_h, sx_s, so_b, so_h, so_s, s_table, HALF, PASS, INTERLEAVED, HAS_ROWS,
                     BLOCK_S, BLOCK_P, BLOCK_PASS)

    @triton.jit
    def _rope_qk_rows(q_ptr, q_out_ptr, k_ptr, k_out_ptr, cos_ptr, sin_ptr, rows_ptr, seq, q_heads, k_heads,
                      blocks_per_head, q_programs,
                      sq_b, sq_h, sq_s, sqo_b, sqo_h, sqo_s, sk_b, sk_h, sk_s, sko_b, sko_h, sko_s, s_table,
                      HALF: tl.constexpr, PASS: tl.constexpr, INTERLEAVED: tl.constexpr, HAS_ROWS: tl.constexpr,
                      BLOCK_S: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_PASS: tl.constexpr):
        # the first q_programs programs rotate q, the rest k: both tensors in one launch
        program = tl.program_id(0)
        if program < q_programs:
            _rotate_rows(q_ptr, q_out_ptr, cos_ptr, sin_ptr, rows_ptr, program, seq, q_heads, blocks_per_head,
                         sq_b, sq_h, sq_s, sqo_b, sqo_h, sqo_s, s_table,
                         HALF, PASS, INTERLEAVED, HAS_ROWS, BLOCK_S, BLOCK_P, BLOCK_PASS)
        else:
            _rotate_rows(k_ptr, k_out_ptr, cos_ptr, sin_ptr, rows_ptr, program - q_programs, seq, k_heads,
                         blocks_per_head, sk_b, sk_h, sk_s, sko_b, sko_h, sko_s, s_table,
                         HALF, PASS, INTERLEAVED, HAS_ROWS, BLOCK_S, BLOCK_P, BLOCK_PASS)


def tables(positions: torch.Tensor | None, seq: int, rotary_dim: int, base: float, inv_freq, scale: float,
           device) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor | None]:
    """(cos, sin, rows) for the kernel, the float32 tables of rope_viz.frequencies.rope_tables (the same
    angles as every other path). Default positions read the cached table. Whole-number positions of plain
    RoPE (position ids, e.g. decoding at a cache offset) become `rows` into a cached table as long as the
    next power of two past the largest, so it is built a few times in a whole generation, not per call.
    Other positions (fractional, scaled frequencies, past CACHED_TABLE_ENTRIES) get tables of their own.
    positions: float64, checked by rope_viz._checks.as_positions."""
    if positions is not None and inv_freq is None and scale == 1.0 and positions.numel():
        top = float(positions.max())
        capacity = 1 << int(top).bit_length() if top >= 0 else 0
        if (capacity * (rotary_dim // 2) <= CACHED_TABLE_ENTRIES and float(positions.min()) >= 0
                and bool((positions == positions.round()).all())):
            cos, sin = rope_tables(None, capacity, rotary_dim, base, torch.float32, device)
            return cos, sin, positions.to(device=device, dtype=torch.int32)
    cos, sin = rope_tables(positions, seq, rotary_dim, base, torch.float32, device, inv_freq=inv_freq, scale=scale)
    return cos, sin, None


def _pow2(n: int) -> int:
    """The least power of two >= n (triton.next_power_of_2 and triton.cdiv cost microseconds a call)."""
    return 1 << max(n - 1, 0).bit_length()


def _batch_heads_view(t: torch.Tensor) -> torch.Tensor | None:
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


def _plan(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str, rotary_dim: int,
          out: torch.Tensor | None, rows: torch.Tensor | None = None):
    """(x4, out4, out, constexprs) for one tensor whose arguments check_rotation passed, or None when the
    kernel cannot take x."""
    if triton is None or x.dtype not in DTYPES or x.shape[-1] == 0 or x.stride(-1) != 1:
        return None
    dim, half = x.shape[-1], rotary_dim // 2
    if out is None:
        out = torch.empty_like(x)
    x4, out4 = _batch_heads_view(x), _batch_heads_view(out)
    if x4 is None or out4 is None:
        return None
    block_p = _pow2(half)
    passed = 0 if out.data_ptr() == x.data_ptr() else dim - rotary_dim
    constexprs = dict(HALF=half, PASS=passed, INTERLEAVED=layout == "interleaved", HAS_ROWS=rows is not None,
                      BLOCK_S=max(1, min(64, ROW_BLOCK_ELEMENTS // block_p)), BLOCK_P=block_p,
                      BLOCK_PASS=_pow2(passed))
    return x4, out4, out, constexprs


def _strides(x4: torch.Tensor, out4: torch.Tensor) -> tuple:
    return x4.stride(0), x4.stride(1), x4.stride(2), out4.stride(0), out4.stride(1), out4.stride(2)


def rope_triton(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str, *,
                rotary_dim: int | None = None, out: torch.Tensor | None = None,
                rows: torch.Tensor | None = None) -> torch.Tensor | None:
    """Rotate the first `rotary_dim` (default: what the tables cover) coordinates of x (..., seq, dim) with
    tables cos, sin (seq, rotary_dim/2; taken in float32) in `layout` ("interleaved" or "half"); the rest pass
    through. Arguments are checked by rope_viz._checks.check_rotation, as apply_rope's are.

    `out`: where to write (a tensor shaped and typed like x; x itself rotates in place, the
    coordinates past rotary_dim untouched); by default a new tensor. `rows`: position ids into the tables,
    one per sequence row (int32/int64 on x's device, each in [0, len(cos)): not checked on the device, see
    `tables`); the tables are then any number of rows long. Returns the result, or None when
    this kernel cannot take x (see `usable`; also a last dimension that is not contiguous, or leading
    dimensions that cannot be merged without a copy): the caller then takes another path.
    """
    rotary_dim = check_rotation(x, layout, rotary_dim=rotary_dim, tables=(cos, sin), rows=rows)
    if out is not None and (not isinstance(out, torch.Tensor) or out.shape != x.shape or out.dtype != x.dtype
                            or out.device != x.device or out.stride(-1) != 1):
        raise ValueError("out must have x's shape, dtype and device, and a contiguous last dimension")
    return _rope_triton(x, cos.float(), sin.float(), layout, rotary_dim, out, rows)


def _rope_triton(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str, rotary_dim: int,
                 out: torch.Tensor | None, rows: torch.Tensor | None) -> torch.Tensor | None:
    """rope_triton on arguments check_rotation passed, with float32 tables (apply_rope's path)."""
    plan = _plan(x, cos, sin, layout, rotary_dim, out, rows)
    if plan is None:
        return None
    x4, out4, out, constexprs = plan
    if x.numel() == 0:
        return out
    seq, heads = x.shape[-2], x4.shape[1]
    blocks_per_head = -(-seq // constexprs["BLOCK_S"])
    cos, sin = cos.contiguous(), sin.contiguous()
    _rope_rows[(x4.shape[0] * heads * blocks_per_head,)](
        x4, out4, cos, sin, cos if rows is None else rows, seq, heads, blocks_per_head, *_strides(x4, out4),
        cos.stride(0), **constexprs, num_warps=4)
    return out


def rope_triton_qk(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str, *,
                   rotary_dim: int | None = None, inplace: bool = False,
                   rows: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor] | None:
    """rope_triton for queries and keys at once, in one launch: q and k (same dtype and device, the same
    (seq, dim), any leading dimensions, e.g. fewer key heads) with the same tables. Returns (q', k')
    (q and k themselves when `inplace`), or None when the kernel cannot take them."""
    rotary_dim = check_rotation_qk(q, k, layout, rotary_dim=rotary_dim, tables=(cos, sin), rows=rows)
    return _rope_triton_qk(q, k, cos.float(), sin.float(), layout, rotary_dim, inplace, rows)


def _rope_triton_qk(q: torch.Tensor, k: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, layout: str,
                    rotary_dim: int, inplace: bool, rows: torch.Tensor | None
                    ) -> tuple[torch.Tensor, torch.Tensor] | None:
    """rope_triton_qk on arguments check_rotation_qk passed, with float32 tables (apply_rope_qk's path)."""
    if q.dtype != k.dtype or q.device != k.device:
        return None
    plans = [_plan(t, cos, sin, layout, rotary_dim, t if inplace else None, rows) for t in (q, k)]
    if plans[0] is None or plans[1] is None:
        return None
    (q4, q_out4, q_out, constexprs), (k4, k_out4, k_out, _) = plans
    if q.numel() == 0 or k.numel() == 0:
        # both plans were made above, so neither call returns None
        return (_rope_triton(q, cos, sin, layout, rotary_dim, q_out, rows),  # type: ignore[return-value]
                _rope_triton(k, cos, sin, layout, rotary_dim, k_out, rows))
    seq = q.shape[-2]
    blocks_per_head = -(-seq // constexprs["BLOCK_S"])
    q_programs = q4.shape[0] * q4.shape[1] * blocks_per_head
    k_programs = k4.shape[0] * k4.shape[1] * blocks_per_head
    cos, sin = cos.contiguous(), sin.contiguous()
    _rope_qk_rows[(q_programs + k_programs,)](
        q4, q_out4, k4, k_out4, cos, sin, cos if rows is None else rows, seq, q4.shape[1], k4.shape[1],
        blocks_per_head, q_programs,
        *_strides(q4, q_out4), *_strides(k4, k_out4), cos.stride(0), **constexprs, num_warps=4)
    return q_out, k_out
