"""What the take-home file holds, built by the dashboard's own code from the recorded studies: the
Lesson's eight steps (``app.lesson.steps.build_step``, as the Lesson page draws them, laptop look)
and, for each chosen study, every slider position of Explore (``app.studies.explore_panels``: the
same ``switcher.Position`` panels the page sends the browser) plus the partition heatmap of the
position's runs (``app.figures.charts.partition_heatmap``, as the Partitions page and step 1 draw it).

Nothing here draws or writes: ``page`` turns the result into the file. Runs outside Streamlit
(``fedquad export html``) as well as inside it (the Lesson page's download): the Explore code's
Streamlit caches then work in bare mode."""
from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go

# Streamlit's caches used outside ``streamlit run`` say so once per call ("missing
# ScriptRunContext", "No runtime found"): expected here, so not printed (a filter: Streamlit resets
# its loggers' levels when it reads its config)
for _name in ("streamlit.runtime.scriptrunner_utils.script_run_context", "streamlit.runtime.caching.cache_data_api",
              "streamlit.runtime.state.session_state_proxy"):
    logging.getLogger(_name).addFilter(lambda record: record.levelno >= logging.ERROR)

from app import service, switcher  # noqa: E402 - after the filter: importing Explore's caches logs
from app.export.slides import Slide
from app.figures import study as sf
from app.figures.charts import partition_heatmap
from app.figures.fit import fit
from app.lesson import data as lesson_data
from app.lesson import steps as lesson
from app.lesson.strongest import strongest_effect
from app.studies import catalog as studies
from app.studies import explore_panels as panels
from app.studies.explore_view import View, points_of
from app.studies import shared



class ExportError(ValueError):
    """Bad input for the export (an unknown study, no recorded studies): one line."""


@dataclass
class StudyExport:
    ref: studies.StudyRef
    study: dict
    axes: list[switcher.Axis]
    sections: list[switcher.Section]
    positions: dict[str | None, list[switcher.Position]]  # by the axis the response plots run along
    default: dict[str, str]
    resp_axis: str | None  # Explore's default: the first slider axis


@dataclass
class Export:
    steps: list[Slide]
    problem: str | None
    studies: list[StudyExport]
    verdicts: list[str] = field(default_factory=list)  # the claims table's verdict per claim (its own words)
    recorded: Path | None = None
    lesson_studies: list[str] = field(default_factory=list)  # the recorded studies the Lesson reads
    damaged: list[str] = field(default_factory=list)  # study files left out, one line each
    margins: dict = field(default_factory=dict)  # step 5 at each (m1, m2) of ``MARGINS``: its Slide


def recorded_refs() -> list[studies.StudyRef]:
    """The recorded studies in the order Explore lists them (its first is the one it opens)."""
    return [r for r in studies.study_refs() if r.source == "recorded"]


def lesson_studies(data: lesson_data.LessonData | None) -> list[str]:
    """The recorded studies the Lesson tells its story from (``lesson.data.ROLES``, the local role
    chosen by the numbers as the Lesson chooses it)."""
    if data is None or data.source != "recorded":
        return []
    local = lesson_data.strongest_local(data.root, data.studies)[0]
    best = strongest_effect(data)  # step 6's figure: FedQuad's largest measured effect, from its study
    names = (local, lesson_data.ROLES["global"], *([best.study] if best is not None else []))
    return [n for n in dict.fromkeys(names) if n in data.studies]


def default_studies(refs: list[studies.StudyRef], data) -> list[str]:
    """Explore's first study and the Lesson's."""
    return list(dict.fromkeys(([refs[0].name] if refs else []) + lesson_studies(data)))


def damaged() -> list[str]:
    """One line per recorded study file that cannot be read (left out of the file)."""
    return [d for d in studies.damaged_studies() if d.startswith("recorded")]


def check_names(names: list[str], refs: list[studies.StudyRef], root: Path) -> None:
    """Every name a readable recorded study, before any work (one line naming those there, or
    why a named one cannot be read)."""
    known = [r.name for r in refs]
    unknown = [n for n in names if n not in known]
    broken = [d for d in damaged() if any(f"study {n} is damaged" in d for n in unknown)]
    if broken:
        raise ExportError(f"damaged, cannot be exported: {'; '.join(broken)}")
    if unknown:
        raise ExportError(f"no recorded study {', '.join(repr(n) for n in unknown)} in {root} "
                          f"(there: {', '.join(known) or 'none'})")


def collect(names: list[str] | None = None) -> Export:
    """The lesson and the studies ``names`` (default: ``default_studies``) from the recorded root
    (``$FEDQUAD_RECORDED_DIR``, default assets/recorded)."""
    root = service.recorded_dir()
    refs = recorded_refs()
    if names:
        check_names(names, refs, root)
    data, problem = lesson_data.load(False, None)
    chosen = list(dict.fromkeys(names or default_studies(refs, data)))
    if not chosen:
        raise ExportError(f"no recorded study in {root}: record some (python scripts/record_studies.py) or pass "
                          "--recorded DIR")
    steps = [as_drawn(lesson.build_step(i, data, False, problem)) for i in range(1, len(lesson.STEPS) + 1)]
    verdicts = claims_verdicts(data)
    by_name = {r.name: r for r in refs}
    margins = {(m1, m2): lesson.step_idea(data, False, m1, m2) for m1 in MARGINS for m2 in MARGINS}
    return Export(steps, problem, [study_export(by_name[n]) for n in chosen], verdicts, root, lesson_studies(data),
                  damaged(), margins)


# Step 5's margins in the file: the Lesson page's m1 and m2 sliders (0 to 4) in steps of 0.5, its
# defaults (``quadruplet.DEFAULT_M1``, ``DEFAULT_M2``) among them
MARGINS = tuple(i / 2 for i in range(9))

# The Lesson page lays a row of three figures out for about 270 px each (``views/lesson.py``
# ROW_OF_THREE: its legends wrapped to that width); the file's rows are as wide
ROW_OF_THREE = 270


def as_drawn(slide: Slide) -> Slide:
    """The step as the Lesson page draws it (laptop look): a row of three refitted to its width."""
    shown = [f for f in slide.figures if not f.deck_only]
    if len(shown) >= 3:
        for f in shown:
            f.fig = fit(go.Figure(f.fig), False, width=ROW_OF_THREE)
    return slide


def claims_verdicts(data) -> list[str]:
    """The verdict words of the claims table's summary (``ClaimsTable.verdicts``), as step 8 states them."""
    if data is None:
        return []
    try:
        return [c["verdict"] for c in lesson_data.claims_of(data).verdicts()]
    except (lesson_data.Missing, service.StoreError):
        return []


# ---- Explore ----------------------------------------------------------------------------------
def slider_label(axis: str, options: list[str]) -> str:
    """As the Explore page labels its slider (``views/explore.py``)."""
    name = {"alpha": "Dirichlet α", "num_clients": "clients"}.get(axis, axis)
    return f"{name} ({options[0]} … {options[-1]})" if len(options) > 2 else name


def default_value(axis: str, values: list, study: dict) -> str:
    """Where Explore's slider starts (``views/explore.py``): the strongest skew for alpha; the
    base setting (or the middle value) for anything else."""
    if axis == "alpha":
        return sf.value_label(axis, values[0])
    base = study.get("base", {})
    v = base.get(axis, (base.get("method_params") or {}).get(axis))
    return sf.value_label(axis, v if v in values else values[len(values) // 2])


PARTITION_HEADING = "Who holds what at this position: clients × classes (the lowest seed's partition)"


def study_export(ref: studies.StudyRef) -> StudyExport:
    """Every slider position of ``ref``, for each axis the response plots can run along (Explore's
    "Response plots against"), its figures as Explore builds them, plus the partition heatmap."""
    study = studies.read_study(ref)
    keys = studies.slider_axes(study)
    values = {a: sf.ordered_values(a, study["axes"][a]) for a in keys}
    axes = [switcher.Axis(a, "", [sf.value_label(a, v) for v in values[a]], f"x_{a}") for a in keys]
    for ax in axes:
        ax.label = slider_label(ax.key, ax.options)
    version = shared.version(ref, study)
    points = points_of(ref.source, ref.name, version)
    out: dict[str | None, list[switcher.Position]] = {}
    view = None
    parts: dict[tuple, switcher.Panel | None] = {}
    for resp in keys or [None]:
        for combo in itertools.product(*(values[a] for a in keys)):
            pos = dict(zip(keys, combo))
            view = View(ref, study, keys, values, pos, resp, False, version)
            position = panels.position(view, points)
            position = switcher.Position(position.value, list(position.panels), position.notice)  # (shared: a copy)
            if combo not in parts:
                parts[combo] = partition_panel(ref, points, pos)
            if parts[combo] is not None:
                position.panels.append(parts[combo])
            out.setdefault(resp, []).append(position)
    sections = panels.sections(view, points) + [switcher.Section([["part"]], heading=PARTITION_HEADING)]
    default = {a: default_value(a, values[a], study) for a in keys}
    return StudyExport(ref, study, axes, sections, out, default, keys[0] if keys else None)


def partition_panel(ref: studies.StudyRef, points: pd.DataFrame, pos: dict) -> switcher.Panel | None:
    """The partition of the position's lowest-seed run (FedAvg's, else the first method's): the
    same Dirichlet draw every method of that seed trains on."""
    first = studies.first_seed_runs(sf.select(points, pos))
    run_id = first.get("fedavg") or next(iter(first.values()), None)
    if run_id is None:
        return None
    try:
        part = service.store_for(run_id).read_partition(run_id) or {}
        config = service.read_config(run_id) or {}
    except service.StoreError as e:  # a damaged partition file: named, the rest of the position kept
        return switcher.Panel("part", None, f"Partition not shown: {e}")
    counts = part.get("counts")
    if not counts:
        return switcher.Panel("part", None, "No partition stored for this position's runs.")
    counts = pd.DataFrame(counts).to_numpy()
    names = studies.class_names(ref, run_id, counts.shape[1])
    mask = service.lt3_mask(counts)
    alpha = service.alpha_text(config.get("alpha"), "label")
    title = f"{config.get('dataset', '')}, {counts.shape[0]} clients, {alpha}"
    fig = partition_heatmap(counts, class_names=list(names), lt3_mask=mask, title=title)
    data = pd.DataFrame(counts, columns=list(names)).rename_axis("client").reset_index()
    return switcher.Panel("part", fig, f"{int(mask.sum())} of {counts.shape[0]} clients have < 3 classes.", data,
                          f"{ref.name}_partition", "Partition")
