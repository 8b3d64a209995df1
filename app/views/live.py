"""Live: accuracy, loss and intra/inter ratio of the selected runs, refreshing while any is active."""
from __future__ import annotations

import streamlit as st

from app import figures, service, state
from app.export import render_downloads

X_AXES = {"rounds": "round", "samples processed": "samples_total", "wall time (s)": "elapsed"}
talk = state.talk()

st.title("Live")
table = service.runs_table()
if table.empty:
    st.info("No runs yet: start some on the Launch page.")
    st.page_link("views/launch.py", label="Launch", icon=":material/rocket_launch:")
    st.stop()

labels = dict(zip(table["run_id"], table["label"]))
ids = table["run_id"].tolist()
state.init("v_runs", service.latest_group(table), state.LIST, ids)
state.init("v_x", "rounds", str, list(X_AXES))
if not state.presenter():
    st.multiselect("Runs", ids, key="v_runs", format_func=lambda r: f"{labels[r]} ({table.set_index('run_id').loc[r, 'state']})")
    st.segmented_control("x axis", list(X_AXES), key="v_x",
                         help="Samples processed and wall time show whether a gap is only more compute.")
state.publish("v_runs", "v_x")
selected = list(st.session_state.v_runs)
xcol = X_AXES.get(st.session_state.v_x or "rounds", "round")
if not selected:
    st.info("Select one or more runs.")
    st.stop()


def chart(df, y, title, key, note=None):
    rows = df.dropna(subset=[y]) if y in df else df.iloc[0:0]
    if rows.empty:
        st.caption(f"{title}: no data yet.")
        return
    fig = figures.curves_figure(rows, y, xcol, title=title, talk=talk)
    st.plotly_chart(fig, key=key)
    if note:
        st.caption(note)
    cols = [c for c in ("run", "label", "method", "round", "samples_total", "elapsed", y) if c in rows]
    render_downloads(fig, rows[cols], f"{y}_vs_{xcol}", key=f"dl_{key}")


@st.fragment(run_every=1.0 if service.any_active(selected) else None)
def live_view() -> None:
    df = service.metrics_frame(selected, labels)
    summary = service.summary_table(selected, labels)
    left, right = st.columns(2)
    with left:
        chart(df, "test_accuracy", "Test accuracy", "acc")
    with right:
        chart(df, "ratio", "Intra / inter class distance (lower = tighter classes)", "ratio",
              "Measured on snapshot rounds, in the original embedding space.")
    left, right = st.columns(2)
    with left:
        chart(df, "train_loss", "Train loss", "loss")
    with right:
        chart(df, "ratio_l2", "Intra / inter ratio, L2-normalised embeddings", "ratio_l2")
    st.subheader("Summary")
    st.dataframe(summary, hide_index=True, column_config={
        "final acc": st.column_config.NumberColumn(format="%.3f"),
        "best acc": st.column_config.NumberColumn(format="%.3f"),
        "final intra/inter": st.column_config.NumberColumn(format="%.3f")})
    for row in summary.itertuples():
        if row.state in ("failed", "diverged"):
            st.error(f"{row.run} {row.state}: {row.error}")
    if not service.any_active(selected) and st.session_state.get("_live_was_active"):
        st.session_state._live_was_active = False
        st.rerun()
    st.session_state._live_was_active = service.any_active(selected)


live_view()
