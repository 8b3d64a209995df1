"""One vocabulary for the Dirichlet α: ``parse_alpha`` reads it and ``alpha_text`` writes it for the
command line, the studies, the pages, the lesson and the claims table; ``alpha_problem`` is its one
rule; every page offers ``ALPHA_STEPS``."""
from __future__ import annotations

import math

import pytest

from fedquad_core.cli.sweep import _alphas, setting_label
from fedquad_core.config.alpha import ALPHA_STEPS, IID_WORDS, alpha_problem, alpha_text, parse_alpha
from fedquad_core.study.grid import parse_value
from fedquad_core.study.paper_claims import _label as claims_label


@pytest.mark.parametrize("word", [*IID_WORDS, "IID", " Iid ", None])
def test_every_iid_word_reads_as_iid_everywhere(word):
    assert parse_alpha(word) is None
    assert parse_value("alpha", word) is None
    if word is not None:
        assert _alphas(f"0.1,{word}") == [0.1, None]


@pytest.mark.parametrize("alpha", [*ALPHA_STEPS, None, 1e-3, 0.25, 7.0])
def test_the_value_style_reads_back_exactly(alpha):
    assert parse_alpha(alpha_text(alpha)) == alpha
    assert parse_value("alpha", alpha_text(alpha)) == alpha


def test_the_three_styles():
    assert [alpha_text(a) for a in (None, 0.1, 1.0)] == ["iid", "0.1", "1.0"]
    assert [alpha_text(a, "short") for a in (None, math.nan, 0.1, 1.0)] == ["IID", "IID", "0.1", "1"]
    assert [alpha_text(a, "label") for a in (None, 0.1, 1.0)] == ["IID", "α=0.1", "α=1"]
    with pytest.raises(ValueError, match="unknown alpha style"):
        alpha_text(0.1, "fancy")


def test_the_cli_table_and_the_claims_table_write_alpha_the_same_way():
    assert setting_label({"alpha": None, "num_clients": 4}) == "IID, 4 clients"
    assert setting_label({"alpha": 0.5, "num_clients": 4}) == "α=0.5, 4 clients"
    assert claims_label({"alpha": None}) == alpha_text(None, "label")
    assert claims_label({"alpha": 0.1}) == alpha_text(0.1, "label")


@pytest.mark.parametrize("bad", ["0.1x", True, "", "α"])
def test_text_that_is_no_alpha_is_refused(bad):
    with pytest.raises(ValueError):
        parse_alpha(bad)


def test_the_one_rule():
    assert all(alpha_problem(a) is None for a in (*ALPHA_STEPS, None, 1e-30, 3.4e38))
    assert "> 0" in alpha_problem(0.0) and "> 0" in alpha_problem(-1)
    for bad in (math.inf, -math.inf, math.nan, 1e39, 1e-300):  # 1e-300: 0 in float32 (main's smallest-normal rule)
        assert "float32" in alpha_problem(bad)
    assert "number or IID" in alpha_problem("0.5")


def test_the_steps_are_ordered_and_distinct():
    assert list(ALPHA_STEPS) == sorted(set(ALPHA_STEPS))
