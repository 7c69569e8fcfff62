"""The implementation page."""

import ui

ui.page_header("implementation")
