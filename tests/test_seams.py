"""Seams a newcomer sees (issue 44): the long functions once split into named steps stay split,
the figure fitting has one pipeline, and the modules split by concern stay small. Measured with
``scripts/seams_report.py`` (ast), the script that prints these numbers for the whole tree."""
from pathlib import Path

from scripts import seams_report

ROOT = Path(__file__).resolve().parent.parent
SPLIT = (  # each was 50-88 lines of several steps; now a short function over named steps
    "fedquad_core/study/run.py:run_in_pool",
    "fedquad_core/study/run.py:run_study",
    "fedquad_core/prefork/server.py:serve",
    "fedquad_core/cli/commands.py:cmd_run",
    "app/studies/explore_panels.py:_position",
    "app/export/pages.py:_slide_pages",
)


def test_the_split_functions_stay_split():
    lengths = dict(seams_report.function_lengths(ROOT))
    missing = [name for name in SPLIT if name not in lengths]
    assert not missing, f"renamed or moved: update SPLIT ({missing})"
    long = {name: lengths[name] for name in SPLIT if lengths[name] > seams_report.FUNCTION_LINES}
    assert not long, long


def test_one_figure_fitting_pipeline():
    """One place fits axis titles, and the old entry points are gone: every figure goes through
    ``app.figures.fit.fit`` (the screen, talk mode, refits, the deck, the take-home file)."""
    defs = [name for name, _ in seams_report.function_lengths(ROOT)]
    assert [d for d in defs if d.endswith(":_fit_axis_titles")] == ["app/figures/textfit.py:_fit_axis_titles"]
    for old in ("apply_theme", "themed_figure", "refit"):
        assert not [d for d in defs if d.split(":")[1] == old], old
    assert not (ROOT / "app" / "figures" / "theme.py").exists()


def test_the_modules_split_by_concern_stay_under_400_lines():
    split = [*sorted((ROOT / "app" / "export").glob("*.py")),
             *(ROOT / "app" / "figures" / n for n in ("fit.py", "textfit.py", "palette.py"))]
    long = {str(p.relative_to(ROOT)): n for p in split
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > seams_report.MODULE_LINES}
    assert not long, long
