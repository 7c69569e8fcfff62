"""The check-an-implementation page's GGUF route through AppTest: a small GGUF file (written with gguf.GGUFWriter) read
from its header beside the default model (Gemma 3 1B), a planted wrong base named in its layers only, the file's own
text shown as text, in Chinese too; a file over 16 MiB and a broken one refused with a notice (never a traceback)."""

import gguf
import numpy as np
import pytest
import streamlit as st

from explorer.app.session import LANG_KEY
from support.apptest import has_cjk, open_page, page_text

pytestmark = pytest.mark.slow

HOSTILE = "**bold** [link](https://example.com) <b>tag</b>"


def _gguf(tmp_path, base: float, name: str = "Gemma 3 1B") -> bytes:
    """A gemma3 GGUF header as llama.cpp's conversion writes Gemma 3 1B's (26 layers, head 256, window 512)."""
    path = tmp_path / "model.gguf"
    writer = gguf.GGUFWriter(str(path), "gemma3")
    writer.add_name(name)
    writer.add_block_count(26)
    writer.add_embedding_length(1152)
    writer.add_head_count(4)
    writer.add_context_length(32768)
    writer.add_key_length(256)
    writer.add_rope_freq_base(base)
    writer.add_sliding_window(512)
    writer.add_tensor("token_embd.weight", np.zeros((2, 8), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path.read_bytes()


def _upload(at, data: bytes, name: str = "model.gguf"):
    at.file_uploader(key="conformance_gguf").set_value((name, data, "application/octet-stream")).run()
    assert not at.exception
    return at


def _gguf_table(at):
    return at.table[-1].value  # the page's last table: the GGUF reading


def test_a_gguf_file_is_read_beside_the_chosen_model_and_a_wrong_base_is_named(tmp_path):
    at = open_page("check_implementation", {"demo": "none"})
    _upload(at, _gguf(tmp_path, 1_000_000.0, HOSTILE))
    frame = _gguf_table(at)
    assert list(frame["Differences"]) == ["none", "none"]
    assert frame["llama.cpp"][0].startswith("base 10,000 (llama.cpp's own value for sliding layers)")
    assert any("every layer as the chosen model's config says" in s.value for s in at.success)
    caption = next(c.value for c in at.caption if "Read from the file" in c.value)
    assert "**bold**" in caption and "gemma3" in caption  # the file's own name, as text (an inline code span)
    assert "**bold**" not in page_text(at).replace(caption, "")
    _upload(at, _gguf(tmp_path, 10_000.0))  # the global layers given the sliding base
    frame = _gguf_table(at)
    assert list(frame["Differences"]) == ["none", "base"]
    assert frame["Layers"][1] == "5, 11, 17, 23 (4 layers)"


def test_the_gguf_route_in_chinese(tmp_path, monkeypatch):
    at = open_page("check_implementation", {"demo": "none"}, lang="zh")
    # AppTest formats the demo menu's value with its format_func in this process when it sends a rerun: in
    # this process's session state the language must be Chinese too, or the English text is not an option
    monkeypatch.setitem(st.session_state, LANG_KEY, "zh")
    _upload(at, _gguf(tmp_path, 10_000.0))
    frame = _gguf_table(at)
    assert has_cjk(" ".join(frame.columns)) and has_cjk(frame.iloc[0, 1]) and list(frame["差异"]) == ["无", "底数"]


def test_a_big_or_broken_gguf_file_is_refused_with_a_notice(tmp_path):
    at = open_page("check_implementation", {"demo": "none"})
    _upload(at, b"GGUF" + bytes((16 << 20) - 3))
    assert any("run the command line" in w.value for w in at.warning)
    _upload(at, _gguf(tmp_path, 1e6)[:100])
    assert any("could not be read" in w.value and "cut inside its header" in w.value for w in at.warning)
