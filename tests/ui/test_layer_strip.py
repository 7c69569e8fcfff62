"""The model-anatomy layer strip's figure: each strip's colour key names exactly the colours its cells are
painted in (read back from the figure's step colour scales by a hand-written lookup), for any kind of layer,
and the keys fit a phone's line."""

import re

import numpy as np

from explorer.pure.figures import layer_strip
from explorer.pure.figures.style import TITLE_WIDTH, units

KEY_ENTRY = re.compile(r'<span style="color:([^"]+)">■</span> ([^<]+?)(?=  <span|<br>|$)')


def painted(trace, value: float) -> str | None:
    """The colour a heatmap trace paints `value` in: its position between zmin and zmax, looked up in the
    colour scale's steps ([start, colour], [stop, colour] pairs); None for a blank (NaN) cell."""
    if np.isnan(value):
        return None
    low, high = trace.zmin, trace.zmax
    where = (value - low) / (high - low)
    stops = trace.colorscale
    for (start, colour), (stop, _) in zip(stops[::2], stops[1::2]):
        if start - 1e-9 <= where <= stop + 1e-9:
            return colour
    raise AssertionError(f"{value} falls outside the colour scale")


def key(text: str) -> dict[str, str]:
    """A strip's key read back: {label: colour}."""
    return {label: colour for colour, label in KEY_ENTRY.findall(text)}


def figure():
    # two models; kinds the app does not know yet need only a label; "" past the second model's last layer
    kinds = np.array([["full_attention", "mamba", "mamba", "compressed_sparse_attention"],
                      ["sliding_attention", "full_attention", "", ""]], dtype=object)
    labels = {"full_attention": "full", "sliding_attention": "sliding window", "chunked_attention": "chunked",
              "mamba": "Mamba", "compressed_sparse_attention": "compressed sparse"}
    bases = np.array([[1e6, 0, 0, 1e4], [1e4, 5e5, np.nan, np.nan]], dtype=np.float32)
    dims = np.array([[64, 0, 0, 64], [128, 128, np.nan, np.nan]], dtype=np.float32)
    scales = {"Base:": (bases, {1e4: "10,000", 5e5: "500,000", 1e6: "1,000,000"}),
              "Dims:": (dims, {64.0: "64", 128.0: "128"})}
    fig = layer_strip(kinds, labels, scales, kind_title="Attention:", nothing="no RoPE", x=np.arange(4),
                      y=["model 1", "model 2"], title="Every layer", x_title="layer")
    return fig, kinds, labels, bases, dims


def test_each_cell_is_painted_in_the_colour_its_key_names():
    fig, kinds, labels, bases, dims = figure()
    notes = [note.text for note in fig.layout.annotations]
    assert [note.split(":")[0] for note in notes] == ["Attention", "Base", "Dims"]
    attention, base, dim = (key(note) for note in notes)
    # only the kinds present are keyed, each in a colour of its own
    assert set(attention) == {"full", "sliding window", "Mamba", "compressed sparse"}
    assert len(set(attention.values())) == 4
    assert set(base) == {"no RoPE", "10,000", "500,000", "1,000,000"} and len(set(base.values())) == 4
    assert set(dim) == {"no RoPE", "64", "128"} and len(set(dim.values())) == 3
    assert base["no RoPE"] == dim["no RoPE"]  # a layer without RoPE is grey in both strips
    names = {1e4: "10,000", 5e5: "500,000", 1e6: "1,000,000", 0.0: "no RoPE"}
    for row in range(2):
        for col in range(4):
            kind = kinds[row, col]
            cell = fig.data[0].z[row][col]
            assert painted(fig.data[0], cell) == (attention[labels[kind]] if kind else None)
            assert fig.data[0].text[row][col] == (labels[kind] if kind else "")  # the hover label
            b = float(bases[row, col])
            assert painted(fig.data[1], b) == (None if np.isnan(b) else base[names[b]])
            d = float(dims[row, col])
            assert painted(fig.data[2], d) == (None if np.isnan(d) else dim["no RoPE" if d == 0 else str(int(d))])


def test_a_kind_keeps_its_colour_whatever_else_is_shown():
    """The colour comes from the kind's place in the mapping, not from which kinds a model happens to have."""
    fig, _, labels, *_ = figure()
    alone = layer_strip(np.array([["mamba", "mamba"]], dtype=object), labels, {}, kind_title="Attention:",
                        nothing="no RoPE", x=np.arange(2), y=["model 1"], title="t", x_title="layer")
    assert key(alone.layout.annotations[0].text)["Mamba"] == key(fig.layout.annotations[0].text)["Mamba"]


def test_keys_wrap_to_a_phone_line_without_splitting_an_entry():
    labels = {f"kind{i}": f"a rather long kind of layer {i}" for i in range(6)}
    kinds = np.array([list(labels)], dtype=object)
    fig = layer_strip(kinds, labels, {}, kind_title="注意力：", nothing="无 RoPE", x=np.arange(6), y=["模型 1"],
                      title="t", x_title="层")
    text = fig.layout.annotations[0].text
    lines = text.split("<br>")
    assert len(lines) > 1 and len(key(text)) == 6
    for line in lines:
        assert units(re.sub(r"<[^>]*>", "", line).replace("■", "■■")) <= TITLE_WIDTH
    # the strips sit below their keys: each key's foot is the top of its strip's plot, strips do not overlap
    fig, *_ = figure()
    domains = [fig.layout[f"yaxis{i if i > 1 else ''}"].domain for i in (1, 2, 3)]
    for note, (_, high) in zip(fig.layout.annotations, domains):
        assert note.y == high and note.yanchor == "bottom"
    assert all(below[1] < above[0] for above, below in zip(domains, domains[1:]))
