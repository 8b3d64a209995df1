"""One vocabulary: the measures' words, units and δ are one table (``vocab.metrics``) that the
claims table, the study tables, the command line, the figures and the Lesson read; p, δ and α are
each written by one formatter (``vocab.words``); nothing of it imports torch."""
from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from fedquad_core.vocab import metrics as vm, words

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize("p, cell, sentence", [
    (0.0004, "< 0.001", "p < 0.001"), (0.001, "0.001", "p = 0.001"), (0.0042, "0.004", "p = 0.004"),
    (0.0099, "0.010", "p = 0.010"), (0.01, "0.01", "p = 0.01"), (0.0399, "0.04", "p = 0.04"),
    (0.04, "0.04", "p = 0.04"), (0.0503, "0.0503", "p = 0.0503"), (0.0599, "0.0599", "p = 0.0599"),
    (0.06, "0.06", "p = 0.06"), (0.213, "0.21", "p = 0.21"), (1.0, "1.00", "p = 1.00")])
def test_p_is_written_one_way(p, cell, sentence):
    from fedquad_core.study.claims_table import format_p
    from fedquad_core.study.stats import p_text
    assert words.p_value(p) == format_p(p) == cell
    assert words.p_words(p) == p_text(p) == sentence
    assert words.p_value(None) == "-"


@pytest.mark.parametrize("metric, delta, text", [
    ("final_acc", 0.01, "1 point"), ("local_acc_all", 0.02, "2 points"), ("effective_rank", 0.5, "0.5"),
    ("local_cka", 0.02, "0.02"), ("intra_l2", 0.0137, "0.014 (5 % of the reference)"), ("nope", 0.25, "0.25"),
    ("final_acc", None, "-")])
def test_delta_is_written_one_way(metric, delta, text):
    from fedquad_core.study.effects import effect_text
    assert words.delta_words(metric, delta) == effect_text(metric, delta) == text


def test_alpha_is_written_by_named_styles():
    assert (words.alpha_value(0.5), words.alpha_short(0.5), words.alpha_words(0.5)) == ("0.5", "0.5", "α=0.5")
    assert (words.alpha_value(None), words.alpha_short(None), words.alpha_words(None)) == ("iid", "IID", "IID")
    assert words.alpha_words(float("nan")) == "IID"  # how pandas stores IID


def test_delta_comes_from_the_table():
    from fedquad_core.study.effects import smallest_effect
    assert smallest_effect("final_acc") == 0.01 and smallest_effect("effective_rank") == 0.5
    assert smallest_effect("local_cka") == 0.02 and smallest_effect("update_cosine") == 0.02
    assert smallest_effect("ratio", 2.0) == pytest.approx(0.1) and smallest_effect("ratio") is None
    assert smallest_effect("update_norm") is None and smallest_effect("nope") is None
    for m in vm.METRICS.values():
        assert not (m.delta is not None and m.relative is not None), m.name  # one kind of δ each


def test_the_readers_take_their_words_from_the_table():
    from fedquad_core.cli.study import METRIC_LABELS
    from fedquad_core.study.paper_claims import METRIC_NAMES
    from fedquad_core.study.table import METRICS as STUDY
    assert list(METRIC_LABELS) == list(STUDY)  # `study show --metric` offers the study table's measures
    assert METRIC_LABELS["effective_rank"] == vm.METRICS["effective_rank"].short == "eff. rank"
    assert METRIC_NAMES == vm.labels() and METRIC_NAMES["local_cka"] == "local-vs-global CKA"
    assert vm.name_in("axis", "effective_rank") == "eff. rank (σ²)" and vm.name_in("axis", "nope") == "nope"
    assert vm.metric("final_acc").text(0.8312) == "83.12" and vm.metric("ratio").text(0.41234) == "0.412"
    assert vm.is_accuracy("local_acc_own") and not vm.is_accuracy("local_cka") and not vm.is_accuracy("nope")
    every = {*vm.labels(), *vm.column_labels(), *vm.axis_titles(), *vm.chart_titles(), *vm.titles(), *vm.words()}
    assert every <= set(vm.METRICS)
    assert all(m.source for m in vm.METRICS.values())


def test_the_vocabulary_imports_no_torch():
    code = ("import sys; import fedquad_core.vocab.metrics, fedquad_core.vocab.words, fedquad_core.vocab.methods, "
            "fedquad_core.study.effects; fedquad_core.vocab.methods.method_words(); print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])})
    assert out.stdout.strip().splitlines()[-1] == "False", out.stdout + out.stderr


# dict literals keyed by measures that are not label tables, or are tables left to their owners
NOT_LABEL_TABLES = {
    ("app/figures/clients.py", "SYMBOLS"),       # marker shapes
    ("app/lesson/figures.py", "FINAL_KEYS"),     # which per-round measure a final value is taken of
    ("app/views/geometry.py", "TEXTS"),          # paragraphs explaining each measure, not its name
    ("app/studies/explore_local.py", "LABELS"),  # left: capitalised titles with notes (app/studies)
    ("app/studies/explore_figures.py", "HEATMAP_OF"),  # left: the heat map picker's words (app/studies)
}


def _label_tables():
    """(file, name) of every dict literal of strings keyed by two or more measures, outside the table."""
    names = set(vm.METRICS)
    for pkg in ("fedquad_core", "app"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel == "fedquad_core/vocab/metrics.py":
                continue
            tree = ast.parse(path.read_text(), rel)
            named = {id(d): node.targets[0].id for node in ast.walk(tree) if isinstance(node, ast.Assign)
                     and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) for d in ast.walk(node.value)}
            for d in ast.walk(tree):
                if (isinstance(d, ast.Dict) and sum(isinstance(k, ast.Constant) and k.value in names for k in d.keys) >= 2
                        and all(isinstance(v, ast.Constant) and isinstance(v.value, str) for v in d.values)):
                    yield rel, named.get(id(d), f"line {d.lineno}")


def test_one_table_of_measure_names():
    found = set(_label_tables())
    assert found - NOT_LABEL_TABLES == set(), "name measures in fedquad_core/vocab/metrics.py, not in a table of their own"


def test_the_margins_are_written_from_the_table():
    assert words.delta_points(0.01) == "1 point" and words.delta_points(0.005) == "0.5 points"
    assert words.delta_margins() == ("accuracy 1 point, CKA 0.02, effective rank 0.5, distances 5 % of the reference "
                                     "group's mean")
    from fedquad_core.study.claims_table import claims_markdown
    assert f"smallest effect of interest δ ({words.delta_margins()})" in claims_markdown([])
