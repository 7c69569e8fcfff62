"""The page scripts live in the folder the page list names (explorer/pure/sitemap.py), one per page and no other,
and no folder named pages/ sits beside app.py: Streamlit would run a fresh server's first visit in its older
multipage mode, listing the scripts' file names in the sidebar until the router's navigation replaced them
(tests/e2e/test_browser_fresh_server.py watches the sidebar of that visit)."""

from pathlib import Path

from explorer.pure.sitemap import FOLDER, PAGES, script

ROOT = Path(__file__).resolve().parents[1]


def test_no_folder_named_pages_beside_the_main_script():
    assert (ROOT / "app.py").is_file() and not (ROOT / "pages").exists()


def test_every_page_script_is_in_the_page_list():
    scripts = sorted((ROOT / FOLDER).glob("*.py"))
    assert scripts and sorted(ROOT / script(name) for name, _, _ in PAGES) == scripts
