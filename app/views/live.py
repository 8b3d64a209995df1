"""Live: accuracy, the intra/inter ratio and the collapse meter (the global model's effective rank)
of the selected runs, then loss and the L2 ratio, refreshing while any is active."""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from app import livechart, service, state
from app.plain import md_text
from app.figures import captions
from app.figures import charts as figures
from app.figures.samples import equal_samples_note, work_differs
from app.figures.fit import fit
from app.export.widgets import render_downloads

X_AXES = {"rounds": "round", "samples processed": "samples_total", "wall time (s)": "elapsed"}
SAMPLES_FIRST = ["samples processed", "rounds", "wall time (s)"]  # when the runs' per-round work differs
talk = state.talk()

presenter = state.presenter()
projector = talk or presenter  # no page title, the controls under the first row: the figures start on the first screen
if not projector:
    st.title("Live")
table, skipped = service.without_damaged(service.runs_table())
if skipped:
    st.caption(skipped)
if table.empty:
    st.info("No runs yet: start some on the Launch page.")
    st.page_link("views/launch.py", label="Launch", icon=":material/rocket_launch:")
    st.stop()

labels = dict(zip(table["run_id"], table["label"]))
ids = table["run_id"].tolist()
state.init("v_runs", service.latest_group(table), state.LIST, ids)


def run_picker() -> None:
    # the run's label only: its state lives in the summary table, which refreshes while runs train
    # (a state in the chip was the one at page load: "queued" while the table said running)
    st.multiselect("Runs", ids, key="v_runs", format_func=labels.get)


if not projector:
    run_picker()
selected = list(st.session_state.v_runs)

# The x axis: "samples processed" first (and the default) when the runs' per-round work differs, as
# FedQuad's quadruplets make it against FedAvg; until the lecturer picks one, the default follows the
# runs (it is known once each has a round), a link that names one keeps it.
frame = service.metrics_frame(selected, labels) if selected else None
differs = work_differs(frame)
# whether the runs' work a round was known at this page run (each has a round): if not, the progress
# fragment looks again while they train
known = frame is not None and "round" in frame and frame.loc[frame["round"].fillna(0) > 0, "run"].nunique() >= 2
x_options = SAMPLES_FIRST if differs else list(X_AXES)
if "_v_x_chosen" not in st.session_state:
    st.session_state["_v_x_chosen"] = "v_x" in st.query_params
if not st.session_state["_v_x_chosen"]:
    st.session_state["v_x"] = x_options[0]
state.init("v_x", x_options[0], str, list(X_AXES))


def _x_chosen() -> None:
    st.session_state["_v_x_chosen"] = True


def x_picker() -> None:
    st.segmented_control("x axis", x_options, key="v_x", on_change=_x_chosen,
                         help="Samples processed and wall time show whether a gap is only more compute"
                              + (" (these runs process different numbers of samples a round)." if differs else "."))


if not projector:
    x_picker()
state.publish("v_runs", "v_x")
if service.showing_pair(selected):
    # presenter mode: its first sentence only (what is shown), not how to replace it
    st.caption(service.pair_note().split(". ")[0].rstrip(".") + "." if presenter else service.pair_note())
xcol = X_AXES.get(st.session_state.v_x or "rounds", "round")
if not selected:
    if projector:
        run_picker()
    st.info("Select one or more runs.")
    st.stop()

# The legend names the method where each selected run has its own ("FedAvg", "FedQuad"), else the
# run's label (its α and key tell runs of one method apart)
methods = dict(zip(table["run_id"], table["method"]))
chosen_methods = [methods.get(r) for r in selected]
if len(set(chosen_methods)) == len(chosen_methods) and None not in chosen_methods:
    names = {r: service.method_label(methods[r]) for r in selected}
else:
    names = {r: labels.get(r, r) for r in selected}

REFRESH_S = 1.0
LOSS_NOTE = ("Train loss is each method's full local objective (CE plus its own term): levels are not "
             "comparable between methods. Compare test accuracy and the ratios instead.")
RATIO_NOTE = "Measured on snapshot rounds, in the original embedding space."
RANK_NOTE = ("The collapse meter: how many directions the global model's embedding spreads over (exp of "
             "the entropy of its covariance spectrum), on snapshot rounds: higher = more spread, falling = collapsing.")
# A row of three at 1280 px beside the open sidebar is about 290 px a figure (talk mode's figures
# are laid out for a third of the page already); on a projector the row fits under the top bar.
ROW_OF_THREE = 290
PROJECTOR_HEIGHT = 470
WAITING = "no point yet: it appears as the runs train"
active = service.any_active(selected)
refresh = REFRESH_S if active else None
# While runs train, the charts are drawn by ``app.livechart``, which updates each in place
# (Plotly.react into the same element): st.plotly_chart's element id hashes the figure, so each new
# point mounted a new chart, blank until drawn (0.1-0.8 s, benchmarks/live_refresh.py). Once on, it
# stays on for the session, so the re-run that ends the refreshing does not swap every chart again.
if active:
    st.session_state["_live_in_place"] = True
in_place = bool(st.session_state.get("_live_in_place"))


def progress_line(status: dict, label: str, rounds=None) -> tuple[float, str]:
    """(fraction done, "FedAvg …: round 12/30, running") of one run, from its status (``rounds``:
    its config's, for a run still queued, whose status has no total yet)."""
    done, total = int(status.get("round") or 0), int(status.get("total_rounds") or rounds or 0)
    state_ = status.get("state") or "?"
    frac = min(1.0, done / total) if total else 0.0
    return frac, f"{label}: round {done}/{total or '?'}" + ("" if state_ == "running" else f", {state_}")


@st.fragment(run_every=refresh)
def progress_view() -> None:
    """While a run trains: one compact bar per run at the top of the page, above the charts (the
    summary table with the same numbers is further down, below the fold)."""
    if not service.any_active(selected):
        return
    if not known and not st.session_state.get("_v_x_chosen") and work_differs(service.metrics_frame(selected, labels)):
        st.rerun()  # the first rounds show the runs' work differs: the page again, on samples processed
    cols = st.columns(min(len(selected), 4))
    for i, run_id in enumerate(selected):
        frac, text = progress_line(service.read_status(run_id), labels.get(run_id, run_id),
                                   service.read_config(run_id).get("rounds"))
        cols[i % len(cols)].progress(frac, text=text)


def data(y: str):
    df = service.metrics_frame(selected, names)
    rows = df.dropna(subset=[y]) if y in df else df.iloc[0:0]
    cols = [c for c in ("run", "label", "method", "round", "samples_total", "elapsed", y) if c in rows]
    return rows[cols]


def figure(rows, y: str, title: str, third: bool):
    fig = figures.curves_figure(rows, y, xcol, title=title, talk=talk, height=PROJECTOR_HEIGHT if projector else None)
    return fit(go.Figure(fig), False, width=ROW_OF_THREE) if third and not talk else fig


def chart(y: str, title: str, key: str, note: str | None = None, third: bool = False) -> None:
    """The chart refreshes on its own (a fragment) while a run is active; its Download menu and
    caption sit under it outside the fragment, so they are drawn once and not replaced every second
    (a click on a menu being replaced is lost). The files are built from the data as it is at the
    click."""

    @st.fragment(run_every=refresh)
    def draw() -> None:
        rows = data(y)
        if rows.empty and not refresh:
            st.caption(f"{title}: no data yet.")
            return
        fig = figure(rows, y, title, third)
        if rows.empty:  # the axes at once: the browser loads its chart code while round 1 trains
            fig.add_annotation(text=WAITING, showarrow=False, xref="paper", yref="paper", x=0.5, y=0.5)
        if in_place:
            livechart.chart(fig, key, view=f"{xcol}|{','.join(selected)}")  # a new view resets the zoom
        else:
            st.plotly_chart(fig, key=key, theme=None)

    draw()
    render_downloads(lambda: figure(data(y), y, title, third), lambda: data(y),
                     f"{y}_vs_{xcol}", key=f"dl_{key}")
    note = captions.with_plain(key, note)
    if note:  # under the menu, so the menus of two charts side by side stay level
        st.caption(note)


# Always called (it draws nothing once no run is active): the page keeps its shape when the runs end,
# so the charts below keep their places, and the re-run that stops the refreshing updates them in
# place instead of mounting them again.
progress_view()
acc_col, ratio_col, rank_col = st.columns(3)
with acc_col:
    chart("test_accuracy", "Test accuracy", "acc", equal_samples_note(data("test_accuracy")) or None, third=True)
with ratio_col:
    chart("ratio", "Intra / inter class distance (lower = tighter)", "ratio", RATIO_NOTE, third=True)
with rank_col:
    chart("effective_rank", "Collapse meter: effective rank", "rank", RANK_NOTE, third=True)
if projector:  # under the first row: the lecturer picks the x axis (and, in talk mode, the runs) here
    if not presenter:
        run_picker()
    x_picker()
left, right = st.columns(2)
with left:
    chart("train_loss", "Train loss", "loss", LOSS_NOTE)
with right:
    chart("ratio_l2", "Intra / inter ratio, L2-normalised embeddings", "ratio_l2")


@st.fragment(run_every=refresh)
def summary_view() -> None:
    summary = service.summary_table(selected, labels)
    st.subheader("Summary")
    st.dataframe(summary, hide_index=True, column_config={
        "final acc": st.column_config.NumberColumn(format="percent"),  # % as on the charts
        "best acc": st.column_config.NumberColumn(format="percent"),
        "final intra/inter": st.column_config.NumberColumn(format="%.3f")})
    for row in summary.itertuples():
        if row.state in ("failed", "diverged"):
            st.error(md_text(f"{row.run} {row.state}: {row.error}"))  # a run's label and error are text
    # The runs this page was drawn with as active have all ended: one full re-run stops the
    # refreshing (and updates the run picker's states). Only once, as ``active`` is then False.
    if active and not service.any_active(selected):
        st.rerun()


summary_view()
