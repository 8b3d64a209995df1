"""Record the confirmation studies of the registration (fedquad_core/study/registration.toml)
into a run store outside the work tree, resumably:

    .venv/bin/python scripts/confirm_studies.py                       # every registered study, in order
    .venv/bin/python scripts/confirm_studies.py --only confirm-digits-local
    .venv/bin/python scripts/confirm_studies.py --plan                # seeds, runs and CPU estimate; trains nothing

Each study runs with ``run_study`` into ``--scratch`` (default ``/work/fedquad-confirm``, outside
the checkout, so that it survives a fresh clone; rerunning resumes and reuses every finished run),
its record stamped with the registration's hash and each of its rows' hashes
(``registration.stamp``). The seeds are the registration's rule: the first N seeds from
``first_seed`` upward whose partitions can be drawn at every alpha of the study; the seed is the
grid's first axis, so each seed's runs finish together and a stopped recording leaves whole seeds.

Refused before any training: a registration with uncommitted changes (the git history must show
the registration before its runs; ``--quick`` excepted), and a study whose existing record was
stamped under another registration of its rows (record into a new ``--scratch``)."""
from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from fedquad_core.config import RunConfig  # noqa: E402
from fedquad_core.errors import UserError  # noqa: E402
from fedquad_core.study import StudyPool, StudySpec, StudyStore, check_grid, run_study  # noqa: E402
from fedquad_core.study import registration as registry  # noqa: E402
from fedquad_core.user_errors import USER_ERRORS  # noqa: E402

DEFAULT_SCRATCH = "/work/fedquad-confirm"
QUICK = {"rounds": 2, "snapshot_every": 1}


def drawable(base: RunConfig, alphas: list, seed: int) -> bool:
    try:
        check_grid([dataclasses.replace(base, alpha=a, seed=seed) for a in alphas])
        return True
    except USER_ERRORS:
        return False


def seeds_for(base: RunConfig, alphas: list, count: int, first: int) -> list[int]:
    """The registration's seed rule: the first ``count`` seeds from ``first`` whose partitions can
    be drawn at every alpha of the study."""
    out, seed = [], first
    while len(out) < count:
        if seed - first > 50 * count:
            raise UserError(f"fewer than {count} seeds from {first} partition at alphas {alphas}")
        if drawable(base, alphas, seed):
            out.append(seed)
        seed += 1
    return out


def spec_of(name: str, study: dict, reg, *, quick: bool) -> StudySpec:
    base = RunConfig(**{**study["base"], **(QUICK if quick else {})})
    axes = {k: registry.axis_values(v) for k, v in study.get("axes", {}).items()}
    alphas = axes.get("alpha", [base.alpha])
    seeds = seeds_for(base, alphas, 2 if quick else study["seeds"], reg.rules["first_seed"])
    return StudySpec(name, base, {"seed": seeds, **axes}, title=f"Confirmation: {name}",
                     description=study["what"] + f" (registered; seeds {seeds[0]}-{seeds[-1]}, {len(seeds)} in all)",
                     registration=registry.stamp(reg, name))


def check_committed(path: Path) -> None:
    proc = subprocess.run(["git", "status", "--porcelain", "--", str(path)], cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0 or proc.stdout.strip():
        raise UserError(f"{path.relative_to(REPO)} has uncommitted changes (or is not in git): commit the "
                        "registration before recording its confirmation runs")


def check_stamp(store: StudyStore, spec: StudySpec) -> None:
    if not store.exists(spec.name):
        return
    old = (store.read(spec.name).get("registration") or {}).get("rows")
    if old != spec.registration["rows"]:
        raise UserError(f"study {spec.name} in {store.root} was recorded under another registration of its rows: "
                        "its runs are exploratory now; record into a new --scratch")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--only", action="append", help="record only this registered study (repeatable)")
    p.add_argument("--scratch", default=DEFAULT_SCRATCH, help=f"run store to record into (default {DEFAULT_SCRATCH})")
    p.add_argument("--jobs", type=int, default=1, help="runs at a time (default 1: leaves a core free)")
    p.add_argument("--quick", action="store_true", help="tiny version for tests: 2 rounds, 2 seeds")
    p.add_argument("--plan", action="store_true", help="print each study's seeds, runs and CPU estimate; train nothing")
    args = p.parse_args(argv)
    try:
        reg = registry.load()
        names = [n for n in reg.studies if not args.only or n in args.only]
        unknown = set(args.only or ()) - set(reg.studies)
        if unknown:
            raise UserError(f"--only {sorted(unknown)[0]!r} is not a registered study ({', '.join(reg.studies)})")
        if not args.quick and not args.plan:
            check_committed(registry.PATH)
        specs = [spec_of(n, reg.studies[n], reg, quick=args.quick) for n in names]
        store = StudyStore(args.scratch)
        for spec in specs:
            check_stamp(store, spec)
    except UserError as exc:
        print(f"confirm_studies: {exc}", file=sys.stderr)
        return 2
    for spec in specs:
        seeds = spec.axes["seed"]
        runs = len(seeds) * max(1, _product(spec.axes) // len(seeds))
        print(f"{spec.name}: seeds {seeds[0]}-{seeds[-1]} ({len(seeds)}), {runs} runs, estimated "
              f"{reg.studies[spec.name].get('cpu_estimate_s', 0) / 3600:.1f} h of CPU; registration {reg.digest[:12]}",
              flush=True)
    if args.plan:
        return 0
    Path(args.scratch).mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with StudyPool(args.jobs) as pool:
        for spec in specs:
            study = run_study(spec, store, jobs=args.jobs, pool=pool)
            done = sum(1 for q in study["points"] if q.get("run_id"))
            print(f"{spec.name}: {done}/{len(study['points'])} points; {(time.perf_counter() - t0) / 60:.1f} min so far",
                  flush=True)
    return 0


def _product(axes: dict) -> int:
    n = 1
    for values in axes.values():
        n *= len(values)
    return n


if __name__ == "__main__":
    sys.exit(main())
