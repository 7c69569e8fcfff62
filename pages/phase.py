"""The phase page."""

import ui

ui.page_header("phase")
