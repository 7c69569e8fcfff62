"""The versus page."""

import ui

ui.page_header("versus")
