"""Copy the finished confirmation studies of a scratch store (``scripts/confirm_studies.py``) into
``assets/confirmed``, compacted to what their verdicts read, and prove the copy gives the same
table:

    .venv/bin/python scripts/compact_confirmation.py                  # /work/fedquad-confirm -> assets/confirmed
    .venv/bin/python scripts/compact_confirmation.py --scratch S --out O

What is kept of each run: config.json, partition.json, status.json and metrics.jsonl with every
top-level number of every round (test accuracy, samples seen, the geometry measures, the means of
the local measures), the per-client ``local`` lists dropped. Snapshots and the model are left in
the scratch store (about 60 MB a run; no verdict reads them).

A study that is still recording (a point without a run, or a run still queued or running:
``confirm.recording_progress``) is named and left out, so each study lands once its every seed is
in; with none finished, or an ``--out`` inside the scratch store, nothing is copied (exit 2). After copying, ``fedquad study confirm`` is computed on the scratch store and on the copy and
the two tables must be identical, to the last digit; otherwise the copy is removed and the script
exits 1."""
from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from fedquad_core.errors import UserError  # noqa: E402
from fedquad_core.runs.files import drop_client_lists  # noqa: E402
from fedquad_core.study import confirm, confirm_text  # noqa: E402
from fedquad_core.study import registration as registry  # noqa: E402
from fedquad_core.study.store import StudyStore  # noqa: E402

DEFAULT_SCRATCH = "/work/fedquad-confirm"
DEFAULT_OUT = REPO / "assets" / "confirmed"
RUN_FILES = ("config.json", "partition.json", "status.json")


def finished_studies(scratch: StudyStore) -> tuple[list[str], list[str]]:
    """(the registered studies of ``scratch`` whose recording is complete, a line for each one
    still recording)."""
    done_names, waiting = [], []
    for name in (n for n in registry.load().studies if scratch.exists(n)):
        done, seeds = confirm.recording_progress(scratch, scratch.read(name))
        if done < seeds:
            waiting.append(f"{name}: still recording ({done} of {seeds} seeds in), left out")
        else:
            done_names.append(name)
    if not done_names:
        raise UserError(f"no finished confirmation study in {scratch.root}" + (f" ({'; '.join(waiting)})" if waiting else
                        ": record them with scripts/confirm_studies.py"))
    return done_names, waiting


def compact_run(src: Path, dst: Path) -> None:
    dst.mkdir(parents=True)
    for name in RUN_FILES:
        if (src / name).is_file():
            shutil.copyfile(src / name, dst / name)
    shutil.copyfile(src / "metrics.jsonl", dst / "metrics.jsonl")
    drop_client_lists(dst / "metrics.jsonl")


def compact(scratch_root: Path, out: Path) -> tuple[list[str], list[str]]:
    """Copy the finished studies; (their names, a line for each study left out)."""
    scratch = StudyStore(scratch_root)
    if out.resolve().is_relative_to(scratch_root.resolve()):
        raise UserError(f"--out {out} lies inside the scratch store {scratch_root}")
    names, waiting = finished_studies(scratch)
    tmp = out.with_name(out.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    (tmp / "studies").mkdir(parents=True)
    for name in names:
        record = scratch.read(name)
        for point in record["points"]:
            if point.get("run_id") and not (tmp / point["run_id"]).exists():
                compact_run(scratch_root / point["run_id"], tmp / point["run_id"])
        shutil.copyfile(scratch_root / "studies" / f"{name}.json", tmp / "studies" / f"{name}.json")
    before = confirm_text.confirm_markdown(confirm.check_confirmatory(scratch_root, only=names))
    after = confirm_text.confirm_markdown(confirm.check_confirmatory(tmp))
    if before != after:
        shutil.rmtree(tmp)
        raise RuntimeError("the compacted copy gives another confirmatory table than the scratch store; nothing kept")
    shutil.rmtree(out, ignore_errors=True)
    tmp.rename(out)
    return names, waiting


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scratch", default=DEFAULT_SCRATCH, help=f"the recording's run store (default {DEFAULT_SCRATCH})")
    p.add_argument("--out", default=str(DEFAULT_OUT), help="where the compacted studies go (default assets/confirmed)")
    args = p.parse_args(argv)
    scratch = Path(args.scratch)
    if not scratch.is_dir():
        print(f"compact_confirmation: no run store at {scratch}", file=sys.stderr)
        return 2
    try:
        names, waiting = compact(scratch, Path(args.out))
    except UserError as exc:
        print(f"compact_confirmation: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"compact_confirmation: {exc}", file=sys.stderr)
        return 1
    for line in waiting:
        print(line)
    size = sum(f.stat().st_size for f in Path(args.out).rglob("*") if f.is_file())
    print(f"{', '.join(names)} -> {args.out} ({size / 1e6:.1f} MB); the confirmatory table is the same on both")
    return 0


if __name__ == "__main__":
    sys.exit(main())
