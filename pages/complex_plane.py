"""The complex_plane page."""

import ui

ui.page_header("complex_plane")
