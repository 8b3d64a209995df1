"""The claims table's rows (``ClaimResult``) and how they are printed: the markdown table of
``fedquad study claims`` with the rule it applies, each study's plateau under it, and the rows
counted per paper claim (several rows can check one claim)."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from . import plateau
from .claim_runs import LAST_ROUNDS, LAST_SNAPSHOTS, StudyRuns
from .stats import LEVEL, Difference
from .table import Verdict
from ..vocab.words import delta_margins, p_value


@dataclass(frozen=True)
class ClaimResult:
    """One row of the claims table: what was compared and measured, the verdict, and its footing
    (the test, the difference with its 95 % CI and Hedges' g, the smallest effect of interest δ
    with the equivalence p, raw and Holm-adjusted p, robustness, the verdicts at matched accuracy
    levels, the study's plateau). ``diff`` is the deciding comparison (its interval and p are the
    ones printed), ``same_as`` the row whose paper claim this row checks again."""
    text: str
    study: str
    measure: str
    numbers: str
    verdict: str
    difference: str = "-"
    p: float | None = None
    p_holm: float | None = None
    g: float | None = None
    robustness: str = "-"
    matched: str = "-"
    plateau: str = "-"
    expect: str = ""
    sign: int = 0  # the tested difference's sign (+1 / -1) when the verdict is directional, else 0
    checks: tuple[tuple[str, str], ...] = ()  # (check, its verdict): the robustness checks
    changing: str = ""  # the study's FedAvg is still changing: why (robust needs a plateau)
    test: str = "-"  # "paired t, 5 seeds" or "Welch, 3 vs 2 seeds"
    delta: str = "-"  # the smallest effect of interest, in words
    p_eq: float | None = None  # the equivalence (TOST) p, raw
    p_eq_holm: float | None = None
    diff: Difference | None = None
    delta_value: float | None = None
    key: tuple = ()  # (study, metric, a, b): rows comparing the same groups
    matched_row: bool = False
    lowest: bool = False
    agree: bool = True  # matched rows: every level's difference has one sign
    same_as: int | None = None
    against: tuple[str, ...] = ()  # the checks whose estimate goes the other way (no "supported" then)
    samples: str = "-"  # accuracy rows: the comparison at equal samples seen
    sensitivity: tuple[str, ...] = ()  # the verdicts at δ/2 and 2δ


format_p = p_value  # a table cell's p: the one p formatter (vocab.words), "-" for None


def tested_rows(results: list[ClaimResult]) -> int:
    return sum(r.p is not None for r in results)


COLUMNS = ("#", "Claim (paper)", "Study here", "Measure", "Measured (mean ± std over seeds)", "Test",
           "Difference (95 % CI); Hedges' g", "p (Holm)", "δ: equivalence p (Holm)", "Verdict", "Robustness",
           "At matched accuracy", "At equal samples seen", "At δ/2 · 2δ")


def claim_cells(i: int, r: ClaimResult) -> list[str]:
    """One row of the table as text cells, in the order of ``COLUMNS``."""
    p = "-" if r.p is None else f"{format_p(r.p)} ({format_p(r.p_holm)})" if r.p_holm is not None else format_p(r.p)
    eq = r.delta if r.delta != "-" else "-"
    if r.p_eq is not None:
        eq += f": {format_p(r.p_eq)} ({format_p(r.p_eq_holm)})" if r.p_eq_holm is not None else f": {format_p(r.p_eq)}"
    elif r.expect == "not below" and r.delta != "-":
        eq += ", the non-inferiority margin"
    verdict = f"**{r.verdict}**" + (" (still changing)" if r.changing else "")
    sens = "-" if not r.sensitivity else " · ".join(r.sensitivity) + (
        " (depends on δ)" if len(set(r.sensitivity) | {r.verdict}) > 1 else "")
    return [str(i), r.text, f"`{r.study}`" if r.study != "-" else "-", r.measure, r.numbers, r.test, r.difference, p,
            eq, verdict, r.robustness, r.matched, r.samples, sens]


def claim_verdicts(results: list[ClaimResult]) -> list[dict[str, Any]]:
    """One entry per paper claim (a row with ``same_as`` joins that row's claim): its text, its
    rows (1-based) and their verdicts, and one verdict: the rows' common one, else ``mixed``."""
    claims: list[dict[str, Any]] = []
    by_row: dict[int, dict] = {}
    for i, r in enumerate(results, start=1):
        home = by_row.get(r.same_as) if r.same_as else None
        if home is None:
            home = {"text": r.text, "rows": [], "verdicts": []}
            claims.append(home)
        home["rows"].append(i)
        home["verdicts"].append(r.verdict)
        by_row[i] = home
    for c in claims:
        c["verdict"] = c["verdicts"][0] if len(set(c["verdicts"])) == 1 else "mixed"
    return claims


@dataclass(frozen=True)
class ClaimsTable(Sequence):
    """The claims table of one root as the dashboard shows it: its rows in order (``ClaimResult``;
    indexing, ``len`` and iteration are the rows') and, per paper claim, one verdict
    (``verdicts()``: ``claim_verdicts`` of the rows)."""
    rows: tuple[ClaimResult, ...]

    def __getitem__(self, i):
        return self.rows[i]

    def __len__(self) -> int:
        return len(self.rows)

    def verdicts(self) -> list[dict[str, Any]]:
        """One entry per paper claim (``claim_verdicts``)."""
        return claim_verdicts(list(self.rows))


def rule_text(results: list[ClaimResult]) -> str:
    """How the verdicts were made, in one paragraph under the table."""
    band = plateau.BAND * 100 * plateau.PER
    return (
        f"Verdicts: each run's value is the mean of its last {LAST_ROUNDS} rounds (accuracy) or last "
        f"{LAST_SNAPSHOTS} snapshots (geometry). Two groups with the same seeds are compared seed by seed "
        f"(paired t on the per-seed differences) only where they also share the partition (the same α: only the "
        f"method or the local epochs differ); others, and every comparison across α, by Welch's test; the Test "
        f"column says which. "
        f"Every measure has a smallest effect of interest δ ({delta_margins()}): **supported** / **not supported** "
        f"when the Holm-adjusted p is below {1 - LEVEL:.2f} and the difference is at least δ, in the claim's direction "
        f"or against it (for \"keeps\": non-inferiority with margin δ), and, for supported, neither the comparison at "
        f"matched accuracy nor the one at equal samples seen has its estimate the other way and, for a row on its "
        f"last rounds, both arms have stopped changing on the row's own measure (slope of the last "
        f"{plateau.WINDOW} rounds inside ±δ per {plateau.PER} rounds); **negligible** when the equivalence test "
        f"(two one-sided tests, Holm-adjusted) puts the difference inside ±δ; **inconclusive** otherwise. Holm's "
        f"correction runs over the {tested_rows(results)} tested rows, every one keeping its p (one family for the "
        f"difference tests, one for the equivalence tests); a row against several methods adjusts within the row "
        f"first; a row at matched accuracy takes its levels' largest p, and prints that level's numbers and interval. "
        f"Robust: the verdict before Holm's correction, the ± 2 std bands, the final round's values and, for a "
        f"geometry row, the comparison at matched accuracy give the same verdict, and the study's FedAvg at its "
        f"strongest skew is at a plateau: the slope of its last {plateau.WINDOW} rounds' accuracy, pooled over seeds, "
        f"has its {round(LEVEL * 100)} % interval inside ±{band:g} point per {plateau.PER} rounds; a row resting on a "
        f"study that is not says \"still changing\".")


EXPLORATORY = ("**Exploratory.** Every row below rests on the recorded studies, and the rules that judge them (δ, "
               "the paired test, the equivalence test, the plateau rule) were set after these studies had been "
               "recorded and read: read each verdict as a description of these data, not a test fixed in advance. "
               "The confirmatory rows, registered before their runs on fresh seeds, are `fedquad study confirm` "
               "(docs/verdicts.md).")


def claims_markdown(results: list[ClaimResult], not_in_table: dict[str, str] | None = None) -> str:
    """The claims as a markdown table (``fedquad study claims``), then how the verdicts were made,
    each study's plateau, and the recorded studies no row tests with the reason."""
    lines = [EXPLORATORY, "", "| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for i, r in enumerate(results, start=1):
        lines.append("| " + " | ".join(c.replace("|", "/") for c in claim_cells(i, r)) + " |")
    lines += ["", rule_text(results)]
    seen = []
    for r in results:
        if r.study != "-" and r.plateau != "-" and r.study not in seen:
            seen.append(r.study)
            lines.append(f"- `{r.study}`: {r.plateau}.")
    if not_in_table:
        lines += ["", "Recorded studies no row tests:"]
        lines += [f"- `{name}`: {why}." for name, why in not_in_table.items()]
    return "\n".join(lines)


# ---- a row's cells: its numbers, difference and test, in words ----
def _fmt(metric: str) -> tuple[str, float, str]:
    return (".1f", 100.0, " %") if metric == "final_acc" else (".2f", 1.0, "")


def numbers_text(v: Verdict, metric: str, a: str, b: str) -> str:
    empty = [name for name, n in ((a, v.n_a), (b, v.n_b)) if not n]
    if empty:
        return "no finished runs with this metric for " + " and ".join(empty)
    spec, scale, unit = _fmt(metric)
    if metric != "final_acc" and _tiny(v.mean_a - v.mean_b, v.std_a, v.std_b):
        spec = ".4f"  # a small difference is shown, not rounded away ("1.00 ± 0.00 vs 1.00 ± 0.00")
    ta, tb = v.text(spec, scale)
    return f"{a}: {ta}{unit} ({_seeds(v.n_a)}) vs {b}: {tb}{unit} ({_seeds(v.n_b)})"


def _tiny(*xs) -> bool:
    """Whether any of ``xs`` (a difference, a spread) would print as 0.00."""
    return any(x is not None and abs(x) < 0.005 for x in xs)


def _seeds(n: int) -> str:
    return f"{n} seed" + ("" if n == 1 else "s")


def left_out_text(r: StudyRuns, groups: list[dict]) -> str:
    """"; left out, not finished: MOON, seed 1 diverged in round 50", or "" when every run of
    ``groups`` finished."""
    gone = [x for g in groups for x in r.left_out(g)]
    return "; left out, not finished: " + ", ".join(gone) if gone else ""


def how_text(metric: str) -> str:
    return (f"mean of the last {LAST_ROUNDS} rounds" if metric == "final_acc"
            else f"mean of the last {LAST_SNAPSHOTS} snapshots")


def difference_text(v: Verdict, metric: str) -> str:
    if v.test is None:
        return "-"
    spec, scale, unit = _fmt(metric)
    if metric != "final_acc" and _tiny(v.test.diff, v.test.high - v.test.low):
        spec = ".4f"
    g = f"; g = {v.test.g:.1f}" if v.test.g is not None else ""
    return v.test.text(spec, scale, unit) + g


def test_text(v: Verdict, expect: str = "") -> str:
    if v.test is None:
        return "-"
    name = v.test.test_name if v.test.paired else f"Welch, {v.n_a} vs {v.n_b} seeds"
    return name + ("; p one-sided, non-inferiority with margin δ" if expect == "not below" else "")
