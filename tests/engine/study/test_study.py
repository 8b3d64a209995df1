"""Studies without training: grid parsing and expansion, run keys, the engine fingerprint, bad
grids (exit 2, one line, nothing written), and the response table on a hand-written store."""
import json
import statistics
import time

import pytest

from engine_helpers import tiny_config
from fedquad_core import version
from fedquad_core.cli import main
from fedquad_core.config import RunConfig
from fedquad_core.errors import UserError
from fedquad_core.study import StudySpec, StudyStore, expand, keyed, parse_grid, response_table, study_frame
from fedquad_core.version import run_key


def test_parse_grid_types_aliases_and_iid():
    axes = parse_grid(["alpha=0.05,0.1,iid", "clients=4,6", "method=fedavg,fedquad", "m1=0,1", "seed=0,1,2",
                       "tuples-per-batch=4"])
    assert axes == {"alpha": [0.05, 0.1, None], "num_clients": [4, 6], "method": ["fedavg", "fedquad"],
                    "m1": [0.0, 1.0], "seed": [0, 1, 2], "tuples_per_batch": [4]}
    assert isinstance(axes["m1"][1], float) and isinstance(axes["seed"][0], int)
    assert parse_grid(["alpha=inf,0.5,0.5"]) == {"alpha": [None, 0.5]}


def test_grid_expands_in_order_and_method_params_dedup():
    spec = StudySpec("s", tiny_config(), parse_grid(["alpha=0.5,iid", "method=fedavg,fedquad", "m1=0,0.5,1"]))
    points = keyed(expand(spec))
    assert len(points) == 2 * 2 * 3
    assert [p.coords for p in points[:4]] == [{"alpha": 0.5, "method": "fedavg", "m1": m} for m in (0.0, 0.5, 1.0)] + [
        {"alpha": 0.5, "method": "fedquad", "m1": 0.0}]
    for p in points:
        assert p.config.alpha == p.coords["alpha"] and p.config.method == p.coords["method"]
        assert p.config.seed == 3 and p.config.num_clients == 6
        assert p.config.method_params == ({} if p.coords["method"] == "fedavg" else {"m1": p.coords["m1"]})
    fedavg = {p.key for p in points if p.coords["method"] == "fedavg"}
    fedquad = {p.key for p in points if p.coords["method"] == "fedquad"}
    assert len(fedavg) == 2 and len(fedquad) == 6 and not fedavg & fedquad  # one FedAvg run per alpha


def test_base_method_params_apply_only_to_their_methods_and_unowned_axis_is_an_error():
    base = tiny_config(method_params={"m2": 0.3})
    points = expand(StudySpec("s", base, parse_grid(["method=fedavg,fedquad"])))
    assert [p.config.method_params for p in points] == [{}, {"m2": 0.3}]
    with pytest.raises(UserError, match="no method of this study has the parameter 'mu'"):
        expand(StudySpec("s", base, parse_grid(["method=fedavg,fedquad", "mu=0.1,1"])))


def test_run_key_ignores_bookkeeping_and_int_vs_float_but_not_settings():
    cfg = tiny_config(alpha=1)
    assert run_key(cfg) == run_key(tiny_config(alpha=1.0, name="x", workers=2, device="cpu", client_exec="sequential"))
    assert run_key(cfg) == run_key(tiny_config(alpha=1.0, method_params={"m1": 1}))  # FedQuad's default m1 written out
    assert run_key(cfg) == run_key(tiny_config(alpha=1.0, model="mlp"))  # digits' auto model is the MLP
    for change in ({"seed": 4}, {"alpha": 0.5}, {"rounds": 3}, {"method_params": {"m1": 0.5}}, {"snapshot_points": 50}):
        assert run_key(tiny_config(**{"alpha": 1.0, **change})) != run_key(cfg), change


def test_engine_fingerprint_ignores_comments_and_docstrings_but_not_code(tmp_path, monkeypatch):
    pkg = tmp_path / "pkg"
    for name in version.NUMERIC_SOURCES:
        src = version.PACKAGE / name
        if src.is_dir():
            for f in src.rglob("*.py"):
                (pkg / name / f.relative_to(src)).parent.mkdir(parents=True, exist_ok=True)
                (pkg / name / f.relative_to(src)).write_text(f.read_text())
        else:
            (pkg / name).parent.mkdir(parents=True, exist_ok=True)
            (pkg / name).write_text(src.read_text())
    monkeypatch.setattr(version, "PACKAGE", pkg)
    version.engine_fingerprint.cache_clear()
    try:
        first = version.engine_fingerprint()
        losses = pkg / "numerics" / "losses.py"
        text = losses.read_text()
        losses.write_text(text.replace('"""', '"""Reworded. ', 1) + "\n# a comment\n")
        version.engine_fingerprint.cache_clear()
        assert version.engine_fingerprint() == first
        losses.write_text(text + "\nEPS = 1e-9\n")
        version.engine_fingerprint.cache_clear()
        assert version.engine_fingerprint() != first
    finally:
        version.engine_fingerprint.cache_clear()



def test_engine_fingerprint_depends_on_content_not_on_paths(tmp_path, monkeypatch):
    """Moving a numeric module into a folder (and its importers' relative imports with it) keeps
    the fingerprint, so recorded runs stay valid; a module's import of another name does not."""
    assert version.module_digest("from ..losses import x\ny = x") == \
        version.module_digest("from ...numerics.losses import x\ny = x")
    assert version.module_digest("from ..losses import x") != version.module_digest("from ..losses import z")
    assert version.module_digest('"""Only a docstring."""') is None
    first = version.engine_fingerprint()
    moved = tmp_path / "pkg"
    sources = []
    for path in version._files():
        target = moved / "elsewhere" / path.relative_to(version.PACKAGE).as_posix().replace("/", "__")
        target.parent.mkdir(parents=True, exist_ok=True)
        text = path.read_text().replace("from ..losses import", "from ...numerics.losses import")
        target.write_text(text)
        sources.append(target.relative_to(moved).as_posix())
    (moved / "elsewhere" / "__init__.py").write_text('"""A new folder\'s docstring."""\n')
    monkeypatch.setattr(version, "PACKAGE", moved)
    monkeypatch.setattr(version, "NUMERIC_SOURCES", tuple(sources) + ("elsewhere/__init__.py",))
    version.engine_fingerprint.cache_clear()
    try:
        assert version.engine_fingerprint() == first
    finally:
        version.engine_fingerprint.cache_clear()

TINY = ["--clients", "6", "--rounds", "1", "--local-epochs", "1", "--snapshot-points", "100"]
BAD_GRIDS = [
    (["--grid", "colour=1,2"], "unknown grid key 'colour'"),
    (["--grid", "alpha="], "grid axis 'alpha' has no values"),
    (["--grid", "seed=0,x"], "grid value 'x' of seed is not an integer"),
    (["--grid", "method=fedavg,bogus"], "unknown method 'bogus'"),
    (["--grid", "alpha=0.5,-1"], "alpha must be a number > 0"),
    (["--grid", "participation=0.5,1.5"], "--participation"),
    (["--grid", "method=fedavg,fedquad", "--grid", "m1=-1,1"], "--m1"),
    (["--grid", "alpha=0.5,0.05", "--clients", "50", "--min-size", "10"], "raise alpha"),
    (["--grid", "alpha"], "write KEY=V1,V2"),
    ([], "give its axes with --grid"),
]


@pytest.mark.parametrize("argv,hint", BAD_GRIDS)
def test_bad_grid_exits_2_with_one_line_and_writes_nothing(argv, hint, tmp_path, capsys):
    runs = tmp_path / "runs"
    code = main(["study", "run", "bad", "--runs-dir", str(runs), *TINY, *argv])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and err.startswith("fedquad: error:"), err
    assert hint in err
    assert not runs.exists() or not any(runs.iterdir())


# ---- the response table on a store written by hand (no training) ---------------------------
def _fake_run(root, run_id, cfg: RunConfig, state: str, accs: list[float], ratios: list, ranks: list):
    folder = root / run_id
    (folder / "embeddings").mkdir(parents=True)
    (folder / "config.json").write_text(cfg.resolved().to_json())
    (folder / "status.json").write_text(json.dumps({"state": state, **version.run_identity(cfg)}))
    rows = [{"round": i + 1, "test_accuracy": a, "ratio": r, "effective_rank": k}
            for i, (a, r, k) in enumerate(zip(accs, ratios, ranks))]
    (folder / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def _fake_study(tmp_path):
    spec = StudySpec("fake", tiny_config(), parse_grid(["alpha=0.1,iid", "method=fedavg,fedquad", "seed=0,1"]))
    points = keyed(expand(spec))
    numbers = {  # (alpha, method, seed): accuracies per round, ratios (None off snapshot rounds), ranks
        (0.1, "fedavg", 0): ([0.2, 0.5, 0.4], [0.9, None, 0.8], [5.0, None, 4.0]),
        (0.1, "fedavg", 1): ([0.3, 0.6], [0.7, 0.6], [6.0, 3.0]),
        (0.1, "fedquad", 0): ([0.6, 0.7], [0.5, 0.3], [9.0, 8.0]),
        (0.1, "fedquad", 1): ([0.5], [0.4], [7.0]),  # still running: not counted
        (None, "fedavg", 0): ([0.8], [0.2], [12.0]),
        # (None, "fedavg", 1): no run yet
        (None, "fedquad", 0): ([0.9], [0.1], [11.0]),
        (None, "fedquad", 1): ([0.7], [0.3], [13.0]),
    }
    study = {"name": "fake", "base": spec.base.to_dict(), "axes": spec.axes, "created": time.time(), "points": []}
    for i, p in enumerate(points):
        coords = (p.coords["alpha"], p.coords["method"], p.coords["seed"])
        run_id = None
        if coords in numbers:
            run_id = f"run{i}"
            state = "running" if coords == (0.1, "fedquad", 1) else "finished"
            _fake_run(tmp_path, run_id, p.config, state, *numbers[coords])
        study["points"].append({"coords": p.coords, "key": p.key, "run_id": run_id})
    StudyStore(tmp_path).write(study)
    return study


def test_study_frame_and_response_table_match_hand_computation(tmp_path):
    study = _fake_study(tmp_path)
    store = StudyStore(tmp_path)
    assert store.names() == ["fake"] and store.read("fake") == json.loads(json.dumps(study))
    frame = study_frame(store.runs, study)
    assert len(frame) == 8
    first = frame[0]
    assert first["alpha"] == 0.1 and first["method"] == "fedavg" and first["seed"] == 0
    assert (first["final_acc"], first["best_acc"], first["final_ratio"], first["effective_rank"], first["rounds"]) == (
        0.4, 0.5, 0.8, 4.0, 3)
    missing = [r for r in frame if r["state"] == "missing"]
    assert len(missing) == 1 and missing[0]["alpha"] is None and missing[0]["seed"] == 1 and missing[0]["run_id"] is None

    table = response_table(frame, "alpha")
    assert [(e["method"], e["alpha"]) for e in table] == [("fedavg", 0.1), ("fedavg", None), ("fedquad", 0.1),
                                                          ("fedquad", None)]
    by = {(e["method"], e["alpha"]): e for e in table}
    e = by[("fedavg", 0.1)]
    assert e["final_acc_mean"] == pytest.approx((0.4 + 0.6) / 2)
    assert e["final_acc_std"] == pytest.approx(statistics.stdev([0.4, 0.6]))  # sqrt(0.02) = 0.1414
    assert e["best_acc_mean"] == pytest.approx((0.5 + 0.6) / 2)
    assert e["final_ratio_mean"] == pytest.approx(0.7) and e["effective_rank_mean"] == pytest.approx(3.5)
    assert (e["n"], e["total"], e["missing"]) == (2, 2, [])
    e = by[("fedquad", 0.1)]  # seed 1 still running
    assert e["final_acc_mean"] == pytest.approx(0.7) and e["final_acc_std"] is None
    assert (e["n"], e["total"], e["missing"]) == (1, 2, [1])
    e = by[("fedavg", None)]
    assert (e["final_acc_mean"], e["n"], e["missing"]) == (0.8, 1, [1])
    e = by[("fedquad", None)]
    assert e["final_ratio_mean"] == pytest.approx(0.2) and e["final_ratio_std"] == pytest.approx(statistics.stdev([0.1, 0.3]))


def test_study_show_and_list_print_the_table_and_the_missing_points(tmp_path, capsys):
    _fake_study(tmp_path)
    assert main(["study", "show", "fake", "--runs-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "fake (6/8 points finished" in out
    assert "50.00 ± 14.14" in out  # FedAvg at alpha 0.1: final acc 0.4 and 0.6 in %
    assert "alpha=iid method=fedavg seed=1  missing" in out and "alpha=0.1 method=fedquad seed=1  running" in out
    assert main(["study", "list", "--runs-dir", str(tmp_path)]) == 0
    assert "6/8" in capsys.readouterr().out
    assert main(["study", "show", "nope", "--runs-dir", str(tmp_path)]) == 2
    assert "no study 'nope'" in capsys.readouterr().err


def test_study_frame_carries_the_last_mean_local_metrics(tmp_path, capsys):
    """The mean local metrics of the last snapshot row that has them (None without any), so
    Explore and ``study show --metric`` plot them like the other final metrics."""
    study = _fake_study(tmp_path)
    run = next(p["run_id"] for p in study["points"]
               if p["coords"] == {"alpha": 0.1, "method": "fedavg", "seed": 0})
    path = tmp_path / run / "metrics.jsonl"
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    rows[0].update(local_acc_all=0.9, local_cka=0.5, update_cosine=0.3)
    rows[2].update(local_acc_all=0.25, local_cka=0.75, update_cosine=0.125)  # round 2 measured nothing
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    frame = {r["run_id"]: r for r in study_frame(StudyStore(tmp_path).runs, study)}
    assert (frame[run]["local_acc_all"], frame[run]["local_cka"], frame[run]["update_cosine"]) == (0.25, 0.75, 0.125)
    others = [r for r in frame.values() if r["run_id"] not in (run, None)]
    assert others and all(r["local_acc_all"] is None and r["local_cka"] is None for r in others)
    assert main(["study", "show", "fake", "--runs-dir", str(tmp_path), "--metric", "local_acc_all,local_cka"]) == 0
    out = capsys.readouterr().out
    assert "local acc %" in out and "local CKA" in out and "25.00" in out and "0.75" in out
