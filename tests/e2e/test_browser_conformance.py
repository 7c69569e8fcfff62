"""The check-an-implementation page in Chromium: the probe file downloaded through the browser, answered here
with the reference rotation and uploaded back passes; a pickle named .safetensors gets a notice, never a
traceback, and the demo's verdict stays."""

import io

import pytest
import torch
from safetensors.torch import load, save

from browser_checks import LOAD_TIMEOUT_MS, assert_clean
from rope_viz import preset
from support.server import wait_for_app

pytestmark = pytest.mark.browser
UPLOAD = "[data-testid=stFileUploader] input[type=file][accept*=\".safetensors\"]"


def _answers(probe: bytes) -> bytes:
    tensors = load(probe)
    layers = preset("Llama-2-7b-hf").layers
    out = {}
    for name, x in tensors.items():
        if not name.endswith(".positions"):
            out[name] = layers[0].rotate(x, tensors[name.split(".")[0] + ".positions"])
    return save(out)


def test_download_answer_upload_and_a_hostile_file(page, open_app):
    open_app("check-implementation", "model=Llama-2-7b-hf&demo=layout")
    assert_clean(page)
    assert page.get_by_text("1 of 1 kinds of layer fail.").count() == 1
    with page.expect_download(timeout=LOAD_TIMEOUT_MS) as download:
        page.get_by_role("button", name="Download the probe file").click()
    probe = open(download.value.path(), "rb").read()
    page.locator(UPLOAD).set_input_files({"name": "answers.safetensors", "mimeType": "application/octet-stream",
                                          "buffer": _answers(probe)})
    page.get_by_text("All 1 kinds of layer pass.").wait_for(timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    assert_clean(page)
    evil = io.BytesIO()
    torch.save({"set0.query": torch.zeros(2)}, evil)
    page.locator(UPLOAD).set_input_files({"name": "evil.safetensors", "mimeType": "application/octet-stream",
                                          "buffer": evil.getvalue()})
    page.get_by_text("The uploaded file was not used").wait_for(timeout=LOAD_TIMEOUT_MS)
    wait_for_app(page, timeout=LOAD_TIMEOUT_MS)
    assert_clean(page)
    assert page.get_by_text("1 of 1 kinds of layer fail.").count() == 1
