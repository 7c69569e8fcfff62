"""The relative page."""

import ui

ui.page_header("relative")
