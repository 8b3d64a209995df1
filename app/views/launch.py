"""Launch: start one run per selected method, all on the same partition and seed (a fair comparison)."""
from __future__ import annotations

import streamlit as st

from app import presets, service, state
from app.service.catalog import ALPHAS, BOUNDS, slider_alpha
from app.studies.launch_form import (CASTS, DEFAULTS, MODELS, OPTIONS, apply_dataset_defaults, apply_preset,
                                      param_widget)
from app.studies.sweep_form import sweep_form

st.title("Launch")
st.caption("Every selected method gets the same data, partition, seed and schedule — only the local "
           "objective differs. Runs continue in the background if you close the tab.")

if state.presenter():
    st.info("Presenter mode shows no launch form: turn presenter mode off in the sidebar to start runs.")
    st.stop()
methods_all = list(service.methods())
state.init("l_preset", presets.CUSTOM, str, [presets.CUSTOM, *presets.PRESETS])
state.init("l_methods", ["fedavg", "fedquad"], state.LIST, methods_all)
for k, d in DEFAULTS.items():
    lo, hi = BOUNDS.get(k, (None, None))
    d = slider_alpha(d) if k == "alpha" else 0 if (k == "train_subset" and d is None) else d
    state.init(f"l_{k}", d, CASTS[k], OPTIONS.get(k), lo=lo, hi=hi)
state.init("l_iid", False, bool)
KEYS = ["l_preset", "l_methods", "l_iid", *(f"l_{k}" for k in DEFAULTS)]

st.selectbox("Preset", [presets.CUSTOM, *presets.PRESETS], key="l_preset", on_change=apply_preset)
if st.session_state.l_preset in presets.PRESETS:
    st.info(presets.PRESETS[st.session_state.l_preset]["note"])
st.multiselect("Methods", methods_all, key="l_methods", format_func=service.method_label)

c = st.columns(4)
c[0].selectbox("Dataset", service.DATASET_NAMES, key="l_dataset", on_change=apply_dataset_defaults)
c[1].selectbox("Model", MODELS, key="l_model")
c[2].number_input("Train subset (0 = all)", *BOUNDS["train_subset"], step=1000, key="l_train_subset")
c[3].selectbox("Device", service.DEVICES, key="l_device")
c = st.columns(4)
c[0].number_input("Clients", *BOUNDS["num_clients"], key="l_num_clients")
c[1].select_slider("Dirichlet α", ALPHAS, key="l_alpha", disabled=st.session_state.l_iid)
c[2].checkbox("IID split", key="l_iid")
c[3].slider("Participation (fraction per round)", *BOUNDS["participation"], step=0.01, key="l_participation")
c = st.columns(4)
c[0].number_input("Rounds", *BOUNDS["rounds"], key="l_rounds")
c[1].number_input("Local epochs", *BOUNDS["local_epochs"], key="l_local_epochs")
c[2].number_input("Learning rate", *BOUNDS["lr"], step=0.001, format="%.4f", key="l_lr")
c[3].number_input("Batch size", *BOUNDS["batch_size"], key="l_batch_size")
dd = service.dataset_defaults(st.session_state.l_dataset)
st.caption(f"{st.session_state.l_dataset} defaults: lr {dd['lr']}, momentum {dd['momentum']}, batch {dd['batch_size']}, "
           f"weight decay {dd['weight_decay']}, {dd['local_epochs']} local epochs (choosing a data set sets lr and batch)")
c = st.columns(4)
c[0].number_input("Snapshot every k rounds", *BOUNDS["snapshot_every"], key="l_snapshot_every")
c[1].number_input("Seed", *BOUNDS["seed"], key="l_seed")
c[2].number_input("Min samples per client", *BOUNDS["min_size"], key="l_min_size")

chosen = st.session_state.l_methods
params: dict[str, dict] = {}
with_params = [m for m in chosen if service.param_specs(m)]
if with_params:
    cols = st.columns(min(len(with_params), 3))
    for i, m in enumerate(with_params):
        with cols[i % len(cols)].container(border=True):
            st.subheader(f"{service.method_label(m)} parameters", divider="gray")
            for spec in service.param_specs(m):
                param_widget(m, spec)
            params[m] = {s.name: st.session_state[f"l_{m}_{s.name}"] for s in service.param_specs(m)}
state.publish(*KEYS)

ss = st.session_state
problem = service.data_problem(ss.l_dataset)
if problem:
    st.error(problem)
common = {k: ss[f"l_{k}"] for k in DEFAULTS if k != "alpha"}
common["alpha"] = None if ss.l_iid else float(ss.l_alpha)
common["train_subset"] = int(ss.l_train_subset) or None
common["lr"] = float(ss.l_lr)
if st.button("Start", type="primary", disabled=bool(problem) or not chosen, key="l_start"):
    try:
        checked, error = service.preflight(service.make_configs(chosen, common, params))
    except (TypeError, ValueError) as e:
        error = str(e)
    if error:
        st.error(f"Not started: {error}")
    else:
        group, ids = service.launch_group(checked)
        ss.last_group = group
        st.success(f"Started {len(ids)} run(s) in group {group}.")
        st.page_link("views/live.py", label="Watch them on the Live page", icon=":material/monitoring:")

if not problem:
    sweep_form(chosen, common, params)

table = service.runs_table()
active = table[(table["state"].isin(service.ACTIVE)) & (table["source"] == "mine")]["run_id"].tolist()


@st.fragment(run_every=1.0 if active else None)
def active_runs() -> None:
    t = service.runs_table()
    now = t[t["state"].isin(service.ACTIVE)]
    st.subheader("Active runs")
    if now.empty:
        st.caption("No run is active.")
        if active:
            st.rerun()
        return
    for row in now.itertuples():
        a, b = st.columns([5, 1])
        total = int(row.total_rounds or 1)
        a.progress(min(1.0, int(row.round or 0) / total), text=f"{row.label} — {row.state}, round {row.round}/{total}")
        if b.button("Cancel", key=f"cancel_{row.run_id}"):
            try:
                service.cancel(row.run_id)
                st.toast(f"Cancel requested for {row.label}")
            except service.StoreError as e:  # it ended meanwhile
                st.toast(str(e))


active_runs()
