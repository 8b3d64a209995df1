"""The run store's own folders (studies, follow) can never be a run: refused as a run id in one
line before anything runs, and never deleted as a run (issue 34, item 1)."""
import json

import pytest

from fedquad_core.cli import main
from fedquad_core.runs.store import RESERVED, RunStore, StoreError, check_run_id


@pytest.mark.parametrize("name", sorted(RESERVED) + ["Studies", "FOLLOW"])
def test_reserved_run_ids_are_refused(name):
    with pytest.raises(StoreError, match="reserved"):
        check_run_id(name)


@pytest.mark.parametrize("name", sorted(RESERVED))
def test_run_cli_refuses_a_reserved_id_in_an_empty_store(name, tmp_path, capsys):
    runs = tmp_path / "runs"
    code = main(["run", "--runs-dir", str(runs), "--run-id", name, "--clients", "2", "--rounds", "1",
                 "--no-progress", "--again"])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert len(err.splitlines()) == 1 and "reserved" in err
    assert not (runs / name / "config.json").exists()


def test_deleting_the_studies_folder_is_refused_and_keeps_every_study(tmp_path, capsys):
    runs = tmp_path / "runs"
    (runs / "studies").mkdir(parents=True)
    study = runs / "studies" / "s1.json"
    study.write_text(json.dumps({"name": "s1"}))
    assert main(["delete", "studies", "--runs-dir", str(runs)]) == 2
    assert "reserved" in capsys.readouterr().err
    assert study.exists()
    with pytest.raises(StoreError):
        RunStore(runs).delete("follow")


def test_a_folder_named_like_the_store_s_own_is_not_listed_as_a_run(tmp_path):
    runs = tmp_path / "runs"
    for name in RESERVED:  # even one that looks like a run inside (left by an older version)
        (runs / name / "embeddings").mkdir(parents=True)
        (runs / name / "config.json").write_text("{}")
        (runs / name / "status.json").write_text('{"state": "done"}')
    assert RunStore(runs).run_ids() == []
