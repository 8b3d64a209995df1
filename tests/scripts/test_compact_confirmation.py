"""scripts/compact_confirmation.py: a finished confirmation study lands compacted (no client
lists, no snapshots, no model) and gives the same confirmatory table as its scratch store; a study
still recording is named and left out; an --out inside the scratch store is refused."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fedquad_core.study import confirm as cf
from fedquad_core.study import confirm_text as ct

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "compact_confirmation.py"


def _env(tmp_path) -> dict:
    return {"PATH": "/usr/bin:/bin", "PYTHONPATH": os.pathsep.join([str(REPO), os.environ["PYTHONPATH"]]),
            "FEDQUAD_NETGUARD_DIR": os.environ["FEDQUAD_NETGUARD_DIR"], "OMP_NUM_THREADS": "1", "HOME": str(tmp_path)}


def _run(tmp_path, *args, script=SCRIPT, timeout=600):
    return subprocess.run([sys.executable, str(script), *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO, env=_env(tmp_path))


def test_a_finished_study_lands_compacted_with_the_same_table(tmp_path):
    scratch, out = tmp_path / "confirm", tmp_path / "confirmed"
    rec = _run(tmp_path, "--quick", "--scratch", scratch, "--only", "confirm-digits-local",
               script=REPO / "scripts" / "confirm_studies.py", timeout=900)
    assert rec.returncode == 0, rec.stderr[-2000:]
    # one run queued again: the study is recording, nothing lands
    record = json.loads((scratch / "studies" / "confirm-digits-local.json").read_text())
    status_path = scratch / record["points"][0]["run_id"] / "status.json"
    saved = status_path.read_text()
    status_path.write_text(json.dumps({**{k: v for k, v in json.loads(saved).items() if k not in ("pid", "pid_start")},
                                       "state": "queued"}))
    waiting = _run(tmp_path, "--scratch", scratch, "--out", out)
    assert waiting.returncode == 2 and "confirm-digits-local: still recording (1 of 2 seeds in)" in waiting.stderr
    assert not out.exists()
    status_path.write_text(saved)

    inside = _run(tmp_path, "--scratch", scratch, "--out", scratch / "copy")
    assert inside.returncode == 2 and "inside the scratch store" in inside.stderr and not (scratch / "copy").exists()

    done = _run(tmp_path, "--scratch", scratch, "--out", out)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "confirmatory table is the same on both" in done.stdout
    runs = [p["run_id"] for p in record["points"]]
    assert sorted(d.name for d in out.iterdir()) == sorted(["studies", *runs])
    for run_id in runs:
        assert sorted(f.name for f in (out / run_id).iterdir()) == ["config.json", "metrics.jsonl", "partition.json",
                                                                    "status.json"]
        src = [json.loads(x) for x in (scratch / run_id / "metrics.jsonl").read_text().splitlines()]
        dst = [json.loads(x) for x in (out / run_id / "metrics.jsonl").read_text().splitlines()]
        assert any("local" in r for r in src) and not any("local" in r for r in dst)
        assert dst == [{k: v for k, v in r.items() if k != "local"} for r in src]  # every other number, unrounded
    assert ct.confirm_markdown(cf.check_confirmatory(out)) == ct.confirm_markdown(cf.check_confirmatory(scratch))
