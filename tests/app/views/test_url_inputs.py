"""Hand-edited dashboard links (the URL part of tests/bad_inputs.py): a value that does not parse or
lies outside its widget's range falls back to the page's default with a small notice, no exception."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN
from bad_inputs import URL


def _open(page: str, query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(MAIN, default_timeout=60)
    for k, v in query.items():
        at.query_params[k] = v
    at.run()
    if page != "views/partitions.py":
        at.switch_page(page)
        at.run()
    return at


NEEDS_RUNS = ("views/live.py", "views/embeddings.py", "views/geometry.py", "views/runs.py")


@pytest.mark.parametrize("page,query,key,expected", URL, ids=[f"{k}={v}" for _, q, _, _ in URL for k, v in q.items()])
def test_bad_link_value_falls_back_to_the_default(request, page, query, key, expected):
    request.getfixturevalue("run_store" if page in NEEDS_RUNS else "empty_store")
    want = _open(page, {}).session_state[key] if expected is None else expected
    at = _open(page, query)
    assert not at.exception, at.exception
    assert at.session_state[key] == want
    notes = [t.value for t in at.toast]
    assert any(key in n for n in notes), notes


def test_a_good_link_value_is_used_without_notice(empty_store):
    at = _open("views/launch.py", {"l_participation": "0.5", "l_fedquad_beta": "3.0"})
    assert not at.exception and at.session_state["l_participation"] == 0.5
    assert at.session_state["l_fedquad_beta"] == 3.0 and not at.toast


def test_partitions_compare_list_with_junk(empty_store):
    at = AppTest.from_file(MAIN, default_timeout=60)
    at.query_params["p_cmp"] = ["0.1", "abc", "7"]
    at.run()
    assert not at.exception, at.exception
    assert at.session_state["p_cmp"] == [0.1] and any("p_cmp" in t.value for t in at.toast)
