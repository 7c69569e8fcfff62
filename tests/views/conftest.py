"""The views are the app's: their tests run under the server's element budget, as every page does."""

import pytest

from rope_viz import set_max_elements

from explorer.app.router import SERVER_MAX_ELEMENTS


@pytest.fixture(autouse=True)
def server_budget(library_budget):
    set_max_elements(SERVER_MAX_ELEMENTS)
