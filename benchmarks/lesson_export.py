"""Time one full export of the lesson (seven steps -> PDF deck + PowerPoint + figures zip) and say
where the time goes (building the steps, rendering figures through kaleido, writing the files).

    PYTHONPATH=. OMP_NUM_THREADS=1 .venv/bin/python -m benchmarks.lesson_export [--root DIR] [--talk] [--write-docs]

``--root`` a run-store root holding ``studies/digits-alpha.json`` (default: the recorded
``assets/recorded`` if it has it, else a synthetic study written to a temporary folder).
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

import plotly.graph_objects as go  # noqa: E402

from app.export import files as export
from benchmarks.harness import Table, add_docs_flag, finish
from app.lesson import steps as lesson
from app.export import slides
from app.lesson.data import LESSON_STUDY, LessonData, read_studies, recorded_dir


def study_root(arg: str | None) -> tuple[Path, str]:
    for cand in ([Path(arg)] if arg else [recorded_dir()]):
        if any(s.get("name") == LESSON_STUDY for s in read_studies(cand)):
            return cand, "given" if arg else "recorded"
    from tests.app.lesson_helpers import write_root

    return write_root(Path(tempfile.mkdtemp(prefix="lesson-bench-")) / "rec"), "synthetic"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root")
    ap.add_argument("--talk", action="store_true")
    add_docs_flag(ap)
    args = ap.parse_args(argv)
    root, kind = study_root(args.root)
    studies = {s.get("name"): s for s in read_studies(root)}  # every role's study, as the Lesson page loads them
    data = LessonData(root, studies[LESSON_STUDY], "recorded", studies=studies)
    export.figure_bytes(go.Figure(), "svg")  # start kaleido's browser first (~3 s, paid once per process)
    t0 = time.perf_counter()
    steps = [slides.from_step(lesson.build_step(i, data, args.talk)) for i in range(1, len(lesson.STEPS) + 1)]
    t1 = time.perf_counter()
    renderer = slides.Renderer(steps)
    sizes = {}
    for kind_ in ("pdf", "pptx", "zip"):
        sizes[kind_] = len(slides.EXPORTS[kind_][0](steps, renderer))
    t2 = time.perf_counter()
    n = sum(len(s.figures) for s in steps)
    table = Table("lesson_export", ["part", "time", "what"],
                  title=f"One Lesson export, {kind} study, {'talk' if args.talk else 'normal'} look (kaleido started first)")
    table.row("build the steps", f"{t1 - t0:.1f} s", f"{len(steps)} steps, {n} figures")
    table.row("render + write PDF, PPTX, zip", f"{t2 - t1:.1f} s",
              f"{renderer.renders} renders; " + ", ".join(f"{k} {v / 1e6:.2f} MB" for k, v in sizes.items()))
    table.row("total", f"{t2 - t0:.1f} s", "")
    finish(table, args)


if __name__ == "__main__":
    main()
