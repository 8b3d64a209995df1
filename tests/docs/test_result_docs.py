"""Issue 43, words from verdicts only: docs/claims.md and docs/studies.md's results section are what
scripts/write_result_docs.py writes from the verdicts, and every takeaway is short, and never
stronger than its verdict."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from fedquad_core.study import words
from fedquad_core.study.verdicts import INCONCLUSIVE, NEGLIGIBLE, NOT_RUN, NOT_SUPPORTED, ONE, SUPPORTED

REPO = Path(__file__).resolve().parents[2]


def test_the_result_pages_are_what_the_verdicts_write():
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "write_result_docs.py"), "--check"],
                          capture_output=True, text=True, cwd=REPO, timeout=600)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("verdict", [SUPPORTED, NOT_SUPPORTED, NEGLIGIBLE, INCONCLUSIVE, ONE, NOT_RUN])
def test_a_takeaway_is_at_most_25_words_and_opens_with_its_verdicts_words(verdict):
    claim = "FedQuad is ahead of FedAvg in the paper's regime with many clients and a low participation per round"
    quals = words.qualifiers(changing=True, depends_on_delta=True, against=("the comparison at equal samples seen",))
    t = words.takeaway(verdict, claim, quals)
    assert words.word_count(t) <= words.MAX_WORDS and t.startswith(words.OPENING[verdict] + ": ")
    assert "reverses at equal samples" in t  # the most telling qualifier is the one kept first
    if verdict != SUPPORTED:
        assert "beyond seed noise" not in t


def test_a_repeated_rows_claim_loses_only_its_parentheses():
    assert words.claim_words("(the same, on Fashion-MNIST)") == "the same, on Fashion-MNIST"
    assert words.claim_words("Local models lose directions (local collapse)") == \
        "Local models lose directions (local collapse)"


def test_the_worked_row_in_the_verdicts_page_is_the_tables_own():
    """docs/verdicts.md walks one row from its runs to its sentence: the sentence it quotes is the
    one docs/claims.md (written from the verdicts) gives that row, and its numbers are the row's."""
    page = " ".join((REPO / "docs" / "verdicts.md").read_text().split())
    claims = " ".join((REPO / "docs" / "claims.md").read_text().split())
    quoted = page.split('Its sentence, from `fedquad_core/study/words.py`: "')[1].split('"')[0]
    assert quoted in claims
    row = claims.split("row 16 (`digits-alpha`): ")[1].split(")) ")[0]
    for number in ("92.3 ± 0.5", "87.9 ± 1.2", "+4.4 %, 95 % CI 1.5 to 7.3", "Holm 0.23", "80.1 ± 1.7",
                   "-7.8 %, 95 % CI -10.1 to -5.4", "p 0.005"):
        assert number in row and number in page, number


def test_the_confirmatory_worked_row_is_its_rows_own():
    """docs/verdicts.md's confirmatory worked row (C1) quotes the sentence and numbers that
    ``fedquad study confirm`` computes on assets/confirmed."""
    from fedquad_core.study import confirm, confirm_text

    page = " ".join((REPO / "docs" / "verdicts.md").read_text().split())
    part = page.split("**A confirmatory row, from runs to sentence**")[1].split("Every \"supported\"")[0]
    row = {x.row["id"]: x for x in confirm.check_confirmatory(REPO / "assets" / "confirmed")}["C1"]
    t = row.primary.test
    assert row.verdict == "negligible" and row.at_half == "not supported" and row.depends_on_delta
    for text in (row.primary.note.replace("at ", "here "), f"{t.diff:+.3f}, 95 % CI {t.low:.3f} to {t.high:.3f}",
                 f"{row.primary.n_a} vs {row.primary.n_b} seeds, p {t.p:.3f}", f"Holm {row.p_holm:.3f}",
                 f"Holm {row.p_eq_holm:.3f}): **{row.verdict}**"):
        assert text in part, text
    assert part.split('Its sentence, from `confirm_text.row_sentence`: "')[1].split('"')[0] == confirm_text.row_sentence(row)
