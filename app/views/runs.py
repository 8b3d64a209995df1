"""Runs: everything in the run store, with status, errors, config, delete and download."""
from __future__ import annotations

import datetime as dt

import streamlit as st

from app import service, state
from app.plain import md_text

student = service.is_student()  # in a class: the table and each run's settings, no server paths, no bundle
st.title("Runs")
if student:
    st.caption("The runs of this class's server: recorded runs ship with the project, read-only.")
else:
    st.caption(f"Run store: `{service.runs_dir().resolve()}` — runs survive an app restart. Recorded runs "
               f"(`{service.recorded_dir()}`) ship with the project: read-only, never deleted.")


def for_student(d: dict) -> dict:
    """A run's config or status as a student sees it: no process ids, no file path of the server."""
    def hide(v):
        if isinstance(v, dict):
            return {k: hide(x) for k, x in v.items()}
        if isinstance(v, str) and ("/" in v or "\\" in v):
            return "(on the server)"
        return v
    return {k: hide(v) for k, v in d.items() if k not in ("pid", "pid_start")}
table = service.runs_table()
if table.empty:
    st.info("The run store is empty: start runs on the Launch page.")
    st.stop()

methods = sorted(table["method"].dropna().unique())
states = sorted(table["state"].dropna().unique())
datasets = sorted(table["dataset"].dropna().unique())
SOURCES = {"mine": "my runs", "recorded": "recorded"}
state.init("r_source", [], state.LIST, list(SOURCES))
state.init("r_method", [], state.LIST, methods)
state.init("r_state", [], state.LIST, states)
state.init("r_dataset", [], state.LIST, datasets)
if not state.presenter():
    a, b, c, d = st.columns(4)
    a.multiselect("Method", methods, key="r_method", format_func=service.method_label, placeholder="all")
    b.multiselect("State", states, key="r_state", placeholder="all")
    c.multiselect("Dataset", datasets, key="r_dataset", placeholder="all")
    d.multiselect("Source", list(SOURCES), key="r_source", format_func=SOURCES.get, placeholder="all")
state.publish("r_method", "r_state", "r_dataset", "r_source")
view = table
for col, key in (("method", "r_method"), ("state", "r_state"), ("dataset", "r_dataset"), ("source", "r_source")):
    if st.session_state[key]:
        view = view[view[col].isin(st.session_state[key])]

shown = view.assign(
    created=[dt.datetime.fromtimestamp(t).strftime("%m-%d %H:%M") if t else "" for t in view["created"]],
    method=[service.method_label(m) if m else "" for m in view["method"]],
    progress=[f"{int(r or 0)}/{int(t) if t == t and t else '?'}" for r, t in zip(view["round"], view["total_rounds"])],
    alpha=[service.alpha_text(a, "short") for a in view["alpha"]],
    source=[SOURCES.get(x, x) for x in view["source"]],
)
Col = st.column_config
columns = ["label", "source", "method", "state", "progress", "dataset", "alpha", "clients", "created"]
columns += ["error"] if (view["error"].astype(str) != "").any() else []  # only when a run failed
st.dataframe(shown[columns + ["run_id"]], hide_index=True, width="stretch", column_config={
    "label": Col.TextColumn("run", width=190, help="method, Dirichlet α and the end of the run id"),
    "method": Col.TextColumn(width=80), "state": Col.TextColumn(width=75),
    "progress": Col.TextColumn("rounds", width=65), "dataset": Col.TextColumn(width=70),
    "alpha": Col.TextColumn("α", width=45), "clients": Col.NumberColumn(width=60),
    "created": Col.TextColumn(width=90), "source": Col.TextColumn(width=75, help="recorded runs are read-only"), "error": Col.TextColumn(width=160),
    "run_id": Col.TextColumn("run id", width=230)})
if view.empty or state.presenter():  # presenter mode: the table only, no details or buttons
    st.stop()

labels = dict(zip(view["run_id"], view["label"]))
state.init("r_run", view["run_id"].iloc[0], str, list(labels))
st.selectbox("Details of", list(labels), key="r_run", format_func=labels.get)
state.publish("r_run")
run_id = st.session_state.r_run
status = service.read_status(run_id)
st.subheader(md_text(labels[run_id]))  # a run's name is text, not markdown
recorded = service.is_recorded(run_id)
if recorded:
    st.caption(":material/lock: Recorded run, shipped with the project: viewable and exportable, not deletable.")
st.markdown(f"State **{status.get('state')}**, round {status.get('round', 0)}/{status.get('total_rounds', '?')}, "
            f"device {md_text(status.get('device', '?'))}, group {md_text(status.get('group') or '—')}, id `{run_id}`")
if status.get("state") in ("failed", "diverged", "damaged"):
    st.error(md_text(status.get("error") or "no error message recorded (see log.txt in the run folder)"))
with st.expander("Config"):
    st.json(for_student(service.read_config(run_id)) if student else service.read_config(run_id))
with st.expander("Status"):
    st.json(for_student(status) if student else status)

row = st.container(horizontal=True, horizontal_alignment="left", vertical_alignment="center")
active = status.get("state") in service.ACTIVE
writable = not recorded and service.is_presenter()  # a student in a class reads, never cancels or deletes
if active and writable and row.button("Cancel", key="r_cancel", icon=":material/stop_circle:"):
    try:
        service.cancel(run_id)
        st.toast("Cancel requested: the run stops after its current round.")
    except service.StoreError as e:  # it ended meanwhile
        st.toast(str(e))
if writable and row.button("Delete", key="r_delete", icon=":material/delete:", disabled=active,
                              help="Cancel an active run first." if active else None):
    st.session_state.r_confirm = run_id  # asked first: a deleted run cannot be brought back
if st.session_state.get("r_confirm") == run_id and writable and not active:
    ask = st.container(border=True)
    ask.warning(f"Delete run {run_id}? Its folder (config, metrics, snapshots, weights) is removed for good.")
    yes, no = ask.columns(2)
    if yes.button("Yes, delete it", key="r_delete_yes", type="primary", icon=":material/delete_forever:"):
        try:
            service.delete(run_id)
            st.session_state.pop("r_run", None)
            st.session_state.pop("r_confirm", None)
            st.rerun()
        except (service.StoreError, service.RunNotFound) as e:
            st.error(str(e))
    if no.button("Keep it", key="r_delete_no"):
        st.session_state.pop("r_confirm", None)
        st.rerun()
if not student and row.button("Prepare download bundle", key="r_bundle", icon=":material/folder_zip:",
              help="config, status, metrics and partition as CSV/JSON, and the curves, in one zip"):
    try:
        st.session_state.r_bundle_data = (run_id, service.bundle(run_id))
    except Exception as e:  # noqa: BLE001 - show any bundle failure as a message, not a traceback
        st.error(f"Could not build the bundle: {e}")
data = st.session_state.get("r_bundle_data")
if data and data[0] == run_id and not student:
    row.download_button("Download .zip", data[1], file_name=f"{run_id}.zip", mime="application/zip", key="r_dl",
                        icon=":material/download:", type="primary")
