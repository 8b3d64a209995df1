"""Issue 45, "one takeaway per step, on top": every Lesson step leads with one sentence of at most
25 words from the verdict it rests on (the claims-table row it shows, through
``fedquad_core.study.words``), or a plain fact for a step that shows facts (steps 1, 5, 8); and
the phrase test: no result phrase (``words.RESULT_PHRASES``) in a step's takeaway, sentences,
captions, or a deck page's visible text that no verdict wrote. The test is shown to fail on a
stray phrase planted in a step's sentences, in its takeaway, and on a deck page."""
from __future__ import annotations

import dataclasses

import pytest

from app.export import slides
from app.lesson import steps as lesson
from app.lesson import text
from app.lesson.data import claims_of, load, read_studies, LessonData
from fedquad_core.study.words import MAX_WORDS, RESULT_PHRASES, row_takeaway, stray_phrases
from fedquad_core.study.words import OPENING
from lesson_helpers import write_lesson_root

FACT_STEPS = {1, 5, 8, 9}  # facts of the data or the method, not a comparison's verdict


@pytest.fixture(scope="module")
def recorded():
    data, problem = load(False)
    assert data is not None, problem
    return data


@pytest.fixture(scope="module")
def built(recorded):
    return {i: lesson.build_step(i, recorded, talk=True) for i in range(1, len(lesson.STEPS) + 1)}


@pytest.fixture(scope="module")
def fixture_steps(tmp_path_factory):
    root = write_lesson_root(tmp_path_factory.mktemp("takeaways") / "a")
    studies = {s["name"]: s for s in read_studies(root)}
    data = LessonData(root, studies["digits-local"], "recorded", studies=studies)
    return {i: lesson.build_step(i, data) for i in range(1, len(lesson.STEPS) + 1)}


def _texts(step) -> list[str]:
    return [step.takeaway, *step.sentences, *(f.caption for f in step.figures), step.footer]


def strays(step) -> list[tuple[str, str]]:
    return [(p, t) for t in _texts(step) for p in stray_phrases(t, step.verdict_words)]


def test_every_step_leads_with_one_short_takeaway(built, fixture_steps):
    for steps in (built, fixture_steps):
        for i, s in steps.items():
            assert s.problem is None, (i, s.problem)
            t = s.takeaway
            assert t and t.endswith(".") and len(t.split()) <= MAX_WORDS, (i, t)
            verdict_opening = any(t.startswith(o) for o in OPENING.values())
            assert verdict_opening == (i not in FACT_STEPS), (i, t)  # a fact states no verdict


def test_a_step_showing_a_table_comparison_says_that_rows_takeaway(recorded, built):
    """Steps 3, 4, 6, 7 rest on claims-table rows: their takeaway is that row's (Holm-adjusted
    verdict and qualifiers); step 7's accuracy row, whose per-round work differs, says it reverses
    at equal samples."""
    table = claims_of(recorded)
    rows = {r.text: r for r in table}
    for i in (3, 4, 6, 7):
        t = built[i].takeaway
        matching = [r for r in table if t.startswith(OPENING[r.verdict]) and t == text.row_takeaway(r, table)]
        assert matching, (i, t)
    seven = next(r for r in table if built[7].takeaway == text.row_takeaway(r, table))
    assert seven.key[1] == "final_acc"
    if "the comparison at equal samples" in seven.against:
        assert "reverses at equal samples" in built[7].takeaway
    assert rows  # the table was read


def test_the_words_are_the_templates(recorded):
    """The lesson's row takeaway is the template's (``words.row_takeaway``), for every row."""
    table = claims_of(recorded)
    for r in table:
        if not r.same_as:
            assert text.row_takeaway(r, table).lower() == row_takeaway(r).lower()


def test_no_step_states_a_result_phrase_no_verdict_wrote(built, fixture_steps):
    for steps in (built, fixture_steps):
        for i, s in steps.items():
            assert not strays(s), (i, strays(s))


@pytest.mark.parametrize("where", ["sentence", "takeaway", "caption"])
def test_the_phrase_test_fails_on_a_planted_phrase(built, where):
    """The test can fail: a result phrase written outside a verdict is found, wherever it is put."""
    for phrase in RESULT_PHRASES:
        s = dataclasses.replace(built[2])
        planted = f"FedQuad {phrase} here."
        if where == "sentence":
            s.sentences = [*s.sentences, planted]
        elif where == "takeaway":
            s.takeaway = planted
        else:
            s.figures = [dataclasses.replace(s.figures[0], caption=planted), *s.figures[1:]]
        assert (phrase, planted) in strays(s), phrase


def test_a_phrase_a_verdict_wrote_is_allowed_only_where_it_wrote_it(built):
    """The verdict's own fragment passes; the same phrase in a sentence of its own does not."""
    s = built[7]
    assert any("ahead" in w for w in s.verdict_words)  # row 12's takeaway: "FedQuad is ahead of ..."
    s2 = dataclasses.replace(s, sentences=[*s.sentences, "So FedQuad is ahead of FedAvg."])
    assert ("is ahead", "So FedQuad is ahead of FedAvg.") in strays(s2)


def test_deck_pages_state_no_stray_phrase(built):
    """Every deck page's visible text (title, table cells, footer, sentences on the page)."""
    steps = [slides.from_step(s) for s in built.values()]
    pages = slides.paginate(steps)
    found = [(n, p, t) for n, page in enumerate(pages, 1) for t in slides.visible_text(page)
             for p in stray_phrases(t, steps[page.slide].verdict_words)]
    assert not found, found
    # planted on a page: found
    bad = [dataclasses.replace(steps[0], takeaway="Label skew collapses the clients.")] + steps[1:]
    page = slides.paginate(bad[:1])[0]
    assert any(stray_phrases(t, bad[0].verdict_words) for t in slides.visible_text(page))


def test_the_deck_opens_each_step_on_the_figure_its_takeaway_rests_on(built):
    """A verdict's takeaway titles a page showing that comparison first (step 3: CKA, not the
    update cosine; step 6: the local rank, not the strongest effect)."""
    for i, s in built.items():
        if i in FACT_STEPS:
            continue
        assert s.rests_on in [f.name for f in s.figures], (i, s.rests_on)
        assert slides.from_step(s).figures[0].name == s.rests_on, i
