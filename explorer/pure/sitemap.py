"""The app's pages in teaching order: the one list the router, the tests and the benchmarks share.

Each entry is (page id, url path, icon). The page id names the page's text file
(explorer/pure/text/<lang>/<id>.toml), its view (explorer/pure/views/<id>.py: its charts, knobs, questions) and panel;
the page's script is app_pages/<url path>.py, named after its address (app_pages/home.py for the home
page, whose address is the empty path). Not a folder named pages/: beside the main script, Streamlit would run a
fresh server's first visit in its older multipage mode, listing the scripts' file names in the sidebar until the
router's st.navigation replaced them. Icons are Streamlit's Material icons (`:material/<name>:`), drawn with
the font Streamlit serves: an emoji needs an emoji font, which a Linux PC driving a projector may lack.
`python -m explorer.new_topic <id>` adds a topic: its seven files and its line here (docs/contributing.md).
"""

PAGES = (
    ("home", "", ":material/home:"),
    ("complex_numbers", "complex-numbers", ":material/explore:"),
    ("frequency_clocks", "frequency-clocks", ":material/schedule:"),
    ("phase_cancellation", "phase-cancellation", ":material/sync:"),
    ("relative_attention", "relative-attention", ":material/grid_on:"),
    ("implementation_forms", "implementation-forms", ":material/build:"),
    ("rope_vs_sinusoidal", "rope-vs-sinusoidal", ":material/balance:"),
    ("long_term_decay", "long-term-decay", ":material/trending_down:"),
    ("linear_attention", "linear-attention", ":material/calculate:"),
    ("long_context", "long-context", ":material/straighten:"),
    ("model_anatomy", "model-anatomy", ":material/biotech:"),
    ("real_models", "real-models", ":material/memory:"),
    ("pairs_in_real_models", "pairs-in-real-models", ":material/query_stats:"),
    ("check_implementation", "check-implementation", ":material/fact_check:"),
    ("precision", "precision", ":material/target:"),
    ("images_and_video", "images-and-video", ":material/image:"),
    ("distance_biases", "distance-biases", ":material/arrow_range:"),
    ("trained_models", "trained-models", ":material/science:"),
    ("rope_designs", "rope-designs", ":material/extension:"),
)
TOPICS = tuple(page for page, url, _ in PAGES if url)  # every page but home
URLS = tuple(url for _, url, _ in PAGES)  # every page's url path, home ("") first
FOLDER = "app_pages"  # the page scripts, beside app.py


def script(page: str) -> str:
    """The page's script, relative to the repository root."""
    url = dict((p, u) for p, u, _ in PAGES)[page]
    return f"{FOLDER}/{url or 'home'}.py"


def url_path(page: str) -> str:
    return dict((p, u) for p, u, _ in PAGES)[page]
