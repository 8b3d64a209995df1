"""The take-home file (``fedquad export html``, app/export/takehome): written in a process of its
own from a recorded root (the Lesson's synthetic one: ``digits-local`` with two slider axes, and
``fmnist-skew``), it holds every slider position and the Lesson's steps, each figure once; its
figures and sentences are those the dashboard builds (compared with the Explore and Lesson pages
run headless in this process); bad input is one line before any work; and ``fedquad`` finds the
command through the ``fedquad.commands`` entry point that pyproject.toml declares."""
from __future__ import annotations

import html

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from app_helpers import MAIN, move, switcher
from lesson_helpers import write_lesson_root
from app.export.takehome.store import FigureStore, decode

ROOT = Path(__file__).resolve().parents[3]


def _env(extra: dict | None = None) -> dict:
    return {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT), **(extra or {})}


def probe_dist(folder: Path) -> Path:
    """A distribution on ``folder`` whose entry points are pyproject.toml's ``fedquad.commands``
    table: what ``pip install -e .`` registers (the shared .venv was installed before the table)."""
    table = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["fedquad.commands"]
    dist = folder / "fedquad_takehome_probe-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fedquad-takehome-probe\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[fedquad.commands]\n" + "".join(f"{k} = {v}\n" for k, v in table.items()))
    return folder


def page_data(text: str) -> dict:
    m = re.search(r'<script type="application/json" id="fq-data">(.*?)</script>', text, re.S)
    assert m, "no data block in the file"
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The lesson's recorded root and the file ``fedquad export html`` wrote from it (run as a
    user would, through the entry point), with what it printed."""
    base = tmp_path_factory.mktemp("takehome")
    recorded = write_lesson_root(base / "recorded")
    site = probe_dist(base / "site")
    out = base / "takehome.html"
    proc = subprocess.run([sys.executable, "-m", "fedquad_core", "export", "html", "--recorded", str(recorded),
                           "--out", str(out)], capture_output=True, text=True, timeout=600, cwd=base,
                          env=_env({"PYTHONPATH": f"{ROOT}{os.pathsep}{site}"}))
    assert proc.returncode == 0, proc.stderr[-3000:]
    text = out.read_text()
    return recorded, text, page_data(text), proc.stdout


def test_pyproject_registers_the_command_and_the_engine_names_no_app_module():
    table = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["entry-points"]["fedquad.commands"]
    assert table == {"export": "app.export.takehome.cli:COMMAND"}
    engine_text = "".join(p.read_text() for p in (ROOT / "fedquad_core").rglob("*.py"))
    assert "app.export" not in engine_text and "takehome" not in engine_text


def test_one_file_with_every_position_and_step(exported):
    recorded, text, data, stdout = exported
    assert re.search(r"wrote .*takehome\.html \(\d+\.\d MB", stdout) and "plotly.js" in stdout
    assert [s["id"] for s in data["studies"]] == ["digits-local", "fmnist-skew"]  # Explore's first, then the lesson's
    local = data["studies"][0]
    study = json.loads((recorded / "studies" / "digits-local.json").read_text())
    n = len(study["axes"]["local_epochs"]) * len(study["axes"]["alpha"])
    assert [a["key"] for a in local["axes"]] == ["local_epochs", "alpha"] == local["resp_axes"]
    assert len(local["positions"]) == 2 * n  # every position, with the response plots along either axis
    slots = {s for p in local["positions"].values() for s, v in p["panels"].items() if v["fid"]}
    assert {"acc", "acc_resp", "ratio", "local", "heat", "part", "spectra"} <= slots
    assert any(s.startswith("emb_") for s in slots)
    assert len(data["lesson"]) == 9 and all(not s["problem"] for s in data["lesson"])
    assert all(f["numbers"] and "<table" in f["numbers"] for s in data["lesson"] for f in s["figures"])
    idea = data["lesson"][4]  # step 5 at every margin pair of the page's sliders, every 0.5
    assert idea["margins"]["values"] == ["0", "0.5", "1", "1.5", "2", "2.5", "3", "3.5", "4"]
    assert len(idea["margins"]["at"]) == 81 and idea["margins"]["default"] == ["1", "0.5"]
    at_default = idea["margins"]["at"]["1|0.5"]
    assert at_default["sentences"] == idea["sentences"]
    assert [f["fid"] for f in at_default["figures"]] == [f["fid"] for f in idea["figures"]]
    assert idea["margins"]["at"]["3|0.5"]["sentences"] != idea["sentences"]
    # every figure referenced is stored, once, and decodes to a plotly figure
    used = {f["fid"] for s in data["lesson"] for f in s["figures"]} | {
        f["fid"] for at in data["lesson"][4]["margins"]["at"].values() for f in at["figures"]} | {
        v["fid"] for st in data["studies"] for p in st["positions"].values() for v in p["panels"].values() if v["fid"]}
    assert used == set(data["figures"])
    assert all("data" in decode(e) for e in data["figures"].values())
    assert any("z" in e for e in data["figures"].values())  # compressed where it pays
    # nothing that loads from elsewhere: no script, link, image or font source
    assert not re.search(r"<(script|link|img|iframe)[^>]+(src|href)=", text, re.I)
    assert "@import" not in text and "url(http" not in text
    assert text.count("plotly.js (cartesian - minified)") == 1  # inlined once
    # the first screen: what it is, studies, data sets, date, version, recorded runs, verdict words
    about = text[text.index('<header id="about">'):text.index("</header>")]
    for words in ("FedQuad Lab", "local computation", study["base"]["dataset"], "Exported", "version",
                  "recorded runs", "claims table", "fmnist-skew"):
        assert words in about, words


def test_identical_figures_are_stored_once():
    store = FigureStore()
    a = store.add_spec('{"data": [{"type": "scatter", "y": [1, 2]}], "layout": {}}')
    b = store.add_spec('{"data": [{"type": "scatter", "y": [1, 2]}], "layout": {}}')
    c = store.add_spec('{"data": [{"type": "scatter", "y": [1, 3]}], "layout": {}}')
    assert a == b != c and len(store.entries) == 2 and store.added == 3
    assert decode(store.entries[a])["data"][0]["y"] == [1, 2]


def _explore_app(recorded, monkeypatch, **params) -> AppTest:
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(recorded))
    at = AppTest.from_file(MAIN, default_timeout=120)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    if [t.value for t in at.title] != ["Explore"]:
        at.switch_page("views/explore.py").run()
    move(at, near=True)  # the positions around, as the browser asks once it has drawn
    return at


@pytest.mark.parametrize("study, resp", [("digits-local", None), ("digits-local", "alpha"), ("fmnist-skew", None)])
def test_explore_figures_and_captions_equal_the_dashboards(exported, monkeypatch, study, resp, tmp_path):
    recorded, _, data, _ = exported
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = _explore_app(recorded, monkeypatch, x_study=f"recorded:{study}", **({"x_resp": resp} if resp else {}))
    assert not at.exception, at.exception
    sent = switcher(at)
    mine = next(s for s in data["studies"] if s["id"] == study)
    assert [a["options"] for a in sent["layout"]["axes"]] == [a["options"] for a in mine["axes"]]
    assert sent["value"] == mine["default"]  # the file opens where Explore does
    assert at.session_state["x_resp"] == (resp or mine["resp"])
    prefix = f"{resp or mine['resp']}|"
    compared = 0
    for key, pos in sent["positions"].items():  # the page's position and those around it
        for slot, panel in pos["panels"].items():
            got = mine["positions"][prefix + key]["panels"][slot]
            assert got["caption"] == panel["caption"], (key, slot)
            if panel["fid"]:
                assert decode(data["figures"][got["fid"]]) == json.loads(sent["figures"][panel["fid"]]), (key, slot)
                compared += 1
        assert mine["positions"][prefix + key]["notice"] == pos["notice"]
    assert compared >= 10 * len(sent["positions"]) and len(sent["positions"]) >= 2


@pytest.mark.parametrize("step", [1, 4, 6, 8])
def test_lesson_sentences_and_figures_equal_the_lesson_pages(exported, monkeypatch, step, tmp_path):
    recorded, _, data, _ = exported
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(recorded))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = AppTest.from_file(MAIN, default_timeout=120)
    at.switch_page("views/lesson.py")
    at.query_params["step"] = str(step)
    at.run()
    assert not at.exception, at.exception
    mine = data["lesson"][step - 1]
    assert at.header[0].value == mine["title"]
    shown = [m.value for m in at.markdown]
    assert mine["sentences"] and all(s in shown for s in mine["sentences"]), step
    assert not mine["takeaway"] or any(html.escape(mine["takeaway"]) in m for m in shown), step  # on top
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    files = [decode(data["figures"][f["fid"]]) for f in mine["figures"]]
    assert len(charts) == len(files)
    for chart, fig in zip(charts, files):
        assert [t.get("type") for t in chart["data"]] == [t.get("type") for t in fig["data"]]
        assert chart["data"] == fig["data"] and chart["layout"].get("title") == fig["layout"].get("title")


def test_step_5_margins_equal_the_lesson_pages_sliders(exported, monkeypatch, tmp_path):
    recorded, _, data, _ = exported
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(recorded))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = AppTest.from_file(MAIN, default_timeout=120)
    at.switch_page("views/lesson.py")
    at.query_params["step"] = "5"
    at.run()
    at.slider(key="q_m1").set_value(2.5).run()
    at.slider(key="q_m2").set_value(1.5).run()
    assert not at.exception, at.exception
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    mine = data["lesson"][4]["margins"]["at"]["2.5|1.5"]
    files = [decode(data["figures"][f["fid"]]) for f in mine["figures"]]
    assert len(charts) == len(files) == 2
    for chart, fig in zip(charts, files):
        assert chart["data"] == fig["data"] and chart["layout"].get("title") == fig["layout"].get("title")


def test_bad_input_is_one_line_before_any_work(tmp_path):
    recorded = write_lesson_root(tmp_path / "recorded")
    base = [sys.executable, "-m", "app.export.takehome", "html", "--recorded", str(recorded)]
    cases = {"no-such-study": ["--study", "no-such", "--out", str(tmp_path / "a.html")],
             "folder": ["--out", str(tmp_path)],
             "no-parent": ["--out", str(tmp_path / "nope" / "a.html")]}
    for name, extra in cases.items():
        proc = subprocess.run(base + extra, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=_env())
        assert proc.returncode == 2, (name, proc.stderr)
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and lines[0].startswith("fedquad: error: "), (name, proc.stderr)
        assert "Traceback" not in proc.stderr
    assert "no-such" in subprocess.run(base + cases["no-such-study"], capture_output=True, text=True, timeout=300,
                                       cwd=tmp_path, env=_env()).stderr
    assert not list(tmp_path.glob("*.html"))


def test_a_damaged_study_is_named_and_left_out(tmp_path):
    recorded = write_lesson_root(tmp_path / "recorded")
    (recorded / "studies" / "broken.json").write_text("{not json")
    base = [sys.executable, "-m", "app.export.takehome", "html", "--recorded", str(recorded)]
    proc = subprocess.run(base + ["--study", "broken", "--out", str(tmp_path / "a.html")], capture_output=True,
                          text=True, timeout=300, cwd=tmp_path, env=_env())
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "broken" in proc.stderr and "damaged" in proc.stderr
    proc = subprocess.run(base + ["--study", "fmnist-skew", "--out", str(tmp_path / "b.html")], capture_output=True,
                          text=True, timeout=600, cwd=tmp_path, env=_env())
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "left out, damaged" in proc.stderr and "broken" in proc.stderr and "Traceback" not in proc.stderr
    assert [s["id"] for s in page_data((tmp_path / "b.html").read_text())["studies"]] == ["fmnist-skew"]


def test_a_registered_command_that_cannot_load_says_so_in_one_line(tmp_path):
    """An entry point whose module is missing (the dashboard's extras not installed): ``fedquad
    --help`` still works, and the command says why in one line (exit 2), no traceback."""
    dist = tmp_path / "site" / "fedquad_broken_probe-0.dist-info"
    dist.mkdir(parents=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: fedquad-broken-probe\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[fedquad.commands]\nprobe-broken = no_such_module_anywhere:COMMAND\n")
    env = _env({"PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path / 'site'}"})
    proc = subprocess.run([sys.executable, "-m", "fedquad_core", "--help"], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0 and "probe-broken" in proc.stdout, proc.stderr
    proc = subprocess.run([sys.executable, "-m", "fedquad_core", "probe-broken", "x"], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines() == [proc.stderr.strip()] and "no_such_module_anywhere" in proc.stderr


def test_the_lesson_page_builds_the_file_for_download(exported, monkeypatch, tmp_path):
    """The dashboard's download (outside class mode; a student's session has no build button:
    tests/app/test_classroom.py): the same file as the command line's, but for its date."""
    recorded, text, data, _ = exported
    monkeypatch.setenv("FEDQUAD_RECORDED_DIR", str(recorded))
    monkeypatch.setenv("FEDQUAD_RUNS_DIR", str(tmp_path / "runs"))
    at = AppTest.from_file(MAIN, default_timeout=300)
    at.switch_page("views/lesson.py")
    at.run()
    at.button(key="l_takehome_build").click().run()
    assert not at.exception, at.exception
    built = at.session_state["l_takehome_file"].decode()
    got = page_data(built)
    assert got["figures"] == data["figures"] and got["studies"] == data["studies"]
    assert got["lesson"] == data["lesson"]
    n = sum(len(s["positions"]) // max(1, len(s["resp_axes"])) for s in data["studies"])
    assert f"{n} Explore positions" in at.session_state["l_takehome_note"]


def test_the_shipped_recorded_studies_export_within_the_budget(tmp_path):
    """The default set from assets/recorded: Explore's first study and the Lesson's, every step
    with its figures (none missing), the file under 15 MB."""
    recorded = ROOT / "assets" / "recorded"
    out = tmp_path / "takehome.html"
    proc = subprocess.run([sys.executable, "-m", "app.export.takehome", "html", "--recorded", str(recorded),
                           "--out", str(out)], capture_output=True, text=True, timeout=900, cwd=tmp_path, env=_env())
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert out.stat().st_size <= 15e6
    data = page_data(out.read_text())
    names = [s["id"] for s in data["studies"]]
    assert names[0] == "digits-alpha" and {"fmnist-skew", "digits-local"} <= set(names)
    assert all(not s["problem"] and s["figures"] for s in data["lesson"])
    for s in data["studies"]:
        study = json.loads((recorded / "studies" / f"{s['id']}.json").read_text())
        n = 1
        for a in s["axes"]:
            n *= len(study["axes"][a["key"]])
        assert len(s["positions"]) == n * max(1, len(s["resp_axes"])), s["id"]
