"""AppTest fixtures; the helpers themselves live in support.apptest."""

import pytest

from support.apptest import check_clean


@pytest.fixture
def assert_clean():
    return check_clean
