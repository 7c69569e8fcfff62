"""The decay page."""

import ui

ui.page_header("decay")
