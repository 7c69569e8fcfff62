"""The app's pages in teaching order: the one list the router, the tests and the benchmarks share.

Each entry is (page id, url path, icon). The page id names the page's text file
(explorer/text/<lang>/<id>.toml), its knobs (explorer.knobs) and its views (explorer/views/<id>.py);
the page's script is pages/<url path>.py, named after its address (pages/home.py for the home page,
whose address is the empty path).
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
    ("long_context", "long-context", "📏"),
    ("model_anatomy", "model-anatomy", "🧬"),
    ("conformance", "check-implementation", "✅"),
    ("precision", "precision", "🎯"),
    ("images", "images-and-video", "🖼️"),
    ("biases", "distance-biases", "📐"),
    ("trained", "trained-models", "🧪"),
    ("designs", "rope-designs", "🧩"),
)
TOPICS = tuple(page for page, url, _ in PAGES if url)  # every page but home
URLS = tuple(url for _, url, _ in PAGES)  # every page's url path, home ("") first


def script(page: str) -> str:
    """The page's script, relative to the repository root."""
    url = dict((p, u) for p, u, _ in PAGES)[page]
    return f"pages/{url or 'home'}.py"


def url_path(page: str) -> str:
    return dict((p, u) for p, u, _ in PAGES)[page]
