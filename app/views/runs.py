"""Runs: everything in the run store, with status, errors, config, delete and download."""
from __future__ import annotations

import datetime as dt

import streamlit as st

from app import service, state

st.title("Runs")
st.caption(f"Run store: `{service.runs_dir().resolve()}` — runs survive an app restart.")
table = service.runs_table()
if table.empty:
    st.info("The run store is empty: start runs on the Launch page.")
    st.stop()

methods = sorted(table["method"].dropna().unique())
states = sorted(table["state"].dropna().unique())
datasets = sorted(table["dataset"].dropna().unique())
state.init("r_method", [], state.LIST, methods)
state.init("r_state", [], state.LIST, states)
state.init("r_dataset", [], state.LIST, datasets)
if not state.presenter():
    a, b, c = st.columns(3)
    a.multiselect("Method", methods, key="r_method", format_func=service.method_label, placeholder="all")
    b.multiselect("State", states, key="r_state", placeholder="all")
    c.multiselect("Dataset", datasets, key="r_dataset", placeholder="all")
state.publish("r_method", "r_state", "r_dataset")
view = table
for col, key in (("method", "r_method"), ("state", "r_state"), ("dataset", "r_dataset")):
    if st.session_state[key]:
        view = view[view[col].isin(st.session_state[key])]

shown = view.assign(created=[dt.datetime.fromtimestamp(t).strftime("%Y-%m-%d %H:%M") if t else "" for t in view["created"]])
st.dataframe(shown[["label", "method", "state", "round", "total_rounds", "dataset", "alpha", "clients", "group",
                    "created", "error", "run_id"]], hide_index=True)
if view.empty:
    st.stop()

labels = dict(zip(view["run_id"], view["label"]))
state.init("r_run", view["run_id"].iloc[0], str, list(labels))
st.selectbox("Details of", list(labels), key="r_run", format_func=labels.get)
state.publish("r_run")
run_id = st.session_state.r_run
status = service.read_status(run_id)
st.subheader(labels[run_id])
st.markdown(f"State **{status.get('state')}**, round {status.get('round', 0)}/{status.get('total_rounds', '?')}, "
            f"device {status.get('device', '?')}, id `{run_id}`")
if status.get("state") in ("failed", "diverged"):
    st.error(status.get("error") or "no error message recorded (see log.txt in the run folder)")
with st.expander("Config"):
    st.json(service.read_config(run_id))
with st.expander("Status"):
    st.json(status)

a, b, c = st.columns(3)
active = status.get("state") in service.ACTIVE
if active and a.button("Cancel", key="r_cancel"):
    service.cancel(run_id)
    st.toast("Cancel requested: the run stops after its current round.")
if b.button("Delete", key="r_delete", disabled=active, help="Cancel an active run first." if active else None):
    try:
        service.delete(run_id)
        st.session_state.pop("r_run", None)
        st.rerun()
    except (service.StoreError, service.RunNotFound) as e:
        st.error(str(e))
if c.button("Prepare download bundle", key="r_bundle"):
    try:
        st.session_state.r_bundle_data = (run_id, service.bundle(run_id))
    except Exception as e:  # noqa: BLE001 - show any bundle failure as a message, not a traceback
        st.error(f"Could not build the bundle: {e}")
data = st.session_state.get("r_bundle_data")
if data and data[0] == run_id:
    c.download_button("Download .zip", data[1], file_name=f"{run_id}.zip", mime="application/zip", key="r_dl")
