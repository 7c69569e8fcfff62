"""The linear page."""

import ui

ui.page_header("linear")
