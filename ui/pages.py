"""The app's pages in teaching order: the one list the router, the browser tests and the load script share.

Each entry is (i18n prefix = file stem under pages/, url path, icon); the home page has the empty url
path. The url paths differ from the file stems on purpose: a page whose url path equals its stem would
also match Streamlit's legacy pages/ discovery, and test runs would then execute it without the router.
"""

PAGES = (
    ("home", "", "🏠"),
    ("complex_plane", "complex-numbers", "🧭"),
    ("rotations", "frequency-clocks", "🕰️"),
    ("phase", "phase-cancellation", "🔁"),
    ("relative", "relative-attention", "🟦"),
    ("implementation", "implementation-forms", "🛠️"),
    ("versus", "rope-vs-sinusoidal", "⚖️"),
    ("decay", "long-term-decay", "📉"),
    ("linear", "linear-attention", "➗"),
)
