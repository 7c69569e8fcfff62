"""The app's pages as (file stem, url path, icon), home first: the one place tests and benchmarks read them.

The list itself belongs to the app's router package; this wrapper is where its import lives, so that a
move of the package changes one line here and nowhere else.
"""

from __future__ import annotations

import importlib.util


def app_pages() -> tuple[tuple[str, str, str], ...]:
    """The router's page list (its url path "" is the home page)."""
    if importlib.util.find_spec("explorer") is not None:
        from explorer.pages import PAGES
    else:  # the package's earlier name
        from ui.pages import PAGES
    return tuple(PAGES)


def url_paths() -> tuple[str, ...]:
    """Every page's url path, in the router's order ("" is home)."""
    return tuple(url for _stem, url, _icon in app_pages())
