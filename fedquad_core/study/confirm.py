"""The confirmatory rows of the registration (``registration.toml``), judged on the confirmation
studies of a run-store root by the rules the registration fixed before their runs:

- each row's **primary comparison** (``compare``: equal samples, matched accuracy or equal rounds)
  and every other comparison it registered (``also``), each a paired t-test or Welch's test as
  registered (paired only where the arms share partition and initialisation);
- **supported** only when the primary difference lies in the claimed direction with a
  Holm-adjusted p below 0.05 (so its Holm-adjusted interval excludes zero), is at least δ, and
  none of the other comparisons has its estimate the other way; **negligible** only by
  equivalence (TOST inside ±δ, Holm-adjusted); otherwise **inconclusive**;
- the same verdict at δ/2 and 2δ: a row whose verdict changes **depends on δ**;
- the **plateau** of each arm on the row's own measure (slope of the last 20 rounds pooled over
  seeds inside ±δ per 10 rounds), stated per row; a final-window verdict with an arm still
  changing is never "supported";
- **not confirmed: needs N seeds** when the study has fewer seeds than the row's power
  calculation asks; **exploratory** when the study record was made under another registration
  of the row; **not yet recorded** when the study is not in the root;
- **recording: k of N seeds** while the study's recording is under way (a point without a run,
  or with a run still queued or running): no number and no verdict is shown before every
  registered seed is in, so an interim look can neither stop the recording early nor be read as
  a result; Holm's family counts such rows as untested p = 1 (conservative), and so gives every
  row its registered adjustment once all are in.

Equal samples (the registered rule): for each seed, the reference arm's (``b``'s) cumulative
training samples (``samples_total``) at its last window (10 rounds, or 3 snapshots); the other
arm's measure interpolated linearly in its own ``samples_total`` at those totals, and averaged. A
run that never reaches them is named and left out: nothing is extrapolated."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..runs.store import RunNotFound, StoreError
from . import registration as registry
from .claim_runs import LAST_ROUNDS, LAST_SNAPSHOTS, StudyRuns, run_value
from .matched import accuracy_levels, curve, seed_of
from .stats import LEVEL, Difference, first_crossing, holm, mean_interval, paired, slope, tost, welch_values
from .store import StudyStore
from .verdicts import INCONCLUSIVE, NEGLIGIBLE, NOT_SUPPORTED, SUPPORTED

ALPHA = 1 - LEVEL
ACCURACY = {"final_acc", "local_acc_all"}
NOT_RECORDED, EXPLORATORY, RECORDING = "not yet recorded", "exploratory", "recording"
TERMINAL = {"finished", "failed", "cancelled", "diverged"}
PLATEAU_WINDOW, PER = 20, 10


@dataclass
class Comparison:
    """One way of comparing the row's arms: its name, the test and the runs left out."""
    name: str
    test: Difference | None
    n_a: int = 0
    n_b: int = 0
    left_out: list[str] = field(default_factory=list)
    note: str = ""


@dataclass
class ConfirmRow:
    row: dict[str, Any]
    status: str                      # "confirmatory", "exploratory" or "not yet recorded"
    delta: float | None = None
    primary: Comparison | None = None
    others: list[Comparison] = field(default_factory=list)
    plateau: str = ""
    still_changing: bool = False
    p_holm: float | None = None
    p_eq_holm: float | None = None
    verdict: str = NOT_RECORDED      # what the table shows
    judged: str = ""                 # the rules' verdict on the primary comparison
    at_half: str = ""
    at_double: str = ""
    seeds: int = 0

    @property
    def depends_on_delta(self) -> bool:
        return bool(self.at_half) and len({self.judged, self.at_half, self.at_double}) > 1

    @property
    def affordable(self) -> bool:
        return self.seeds >= self.row["seeds_needed"]


# ---- one run's value under each comparison -------------------------------------------------------
def _key(metric: str) -> str:
    return "test_accuracy" if metric == "final_acc" else metric


def _series(rows: list[dict], metric: str, samples: bool = True) -> list[tuple[float, float, float]]:
    """(round, samples_total, value) of each row that has the measure (and, with ``samples``, its
    samples seen; without, samples_total reads nan)."""
    key, out = _key(metric), []
    for r in rows:
        v, s = r.get(key), r.get("samples_total")
        if _num(v) and _num(r.get("round")) and (_num(s) or not samples):
            out.append((float(r["round"]), float(s) if _num(s) else math.nan, float(v)))
    return out


def _window(metric: str) -> int:
    return LAST_ROUNDS if metric == "final_acc" else LAST_SNAPSHOTS


def at_samples(rows: list[dict], metric: str, totals: list[float]) -> float | None:
    """The measure interpolated in ``samples_total`` at each of ``totals``, averaged; None when
    the run does not reach them all (nothing is extrapolated)."""
    s = _series(rows, metric)
    if not s or not totals:
        return None
    out = []
    for t in totals:
        for (_, s0, v0), (_, s1, v1) in zip(s, s[1:]):
            if s0 <= t <= s1:
                out.append(v0 if s1 == s0 else v0 + (t - s0) / (s1 - s0) * (v1 - v0))
                break
        else:
            if math.isclose(s[-1][1], t):
                out.append(s[-1][2])
            else:
                return None
    return math.fsum(out) / len(out)


def _num(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# ---- the comparisons -----------------------------------------------------------------------------
def _test(a: dict, b: dict, is_paired: bool) -> Difference | None:
    if is_paired:
        seeds = sorted(set(a) & set(b))
        return paired([a[s] for s in seeds], [b[s] for s in seeds])
    return welch_values(list(a.values()), list(b.values()))


def _runs(r: StudyRuns, coords: dict) -> dict[Any, list[dict]]:
    return {seed_of(p): r.rows(p["run_id"]) for p in r.points(coords)}


def compare_arms(how: str, r: StudyRuns, row: dict, is_paired: bool) -> Comparison:
    a, b, metric = _coords(row["a"]), _coords(row["b"]), row["measure"]
    unfinished = [*r.left_out(a), *r.left_out(b)]  # a run that diverged or did not finish: named
    if how == "matched accuracy":  # the level of the three with the largest p decides
        c = _matched(r, row, _runs(r, a), _runs(r, b), is_paired)
        c.left_out = unfinished
        return c
    left: list[str] = []
    if how == "equal samples":
        a_vals, b_vals, left = equal_samples_values(r, a, b, metric, is_paired)
    else:
        a_vals, b_vals = ({s: v for s, rows in _runs(r, c).items() if (v := run_value(rows, metric)) is not None}
                          for c in (a, b))
    return Comparison(how, _test(a_vals, b_vals, is_paired), len(a_vals), len(b_vals),
                      list(dict.fromkeys(unfinished + left)))


def _final_samples(runs: dict[Any, list[dict]]) -> float:
    """The arm's mean samples seen by its last round (inf without any: never the reference)."""
    ends = [float(rows[-1]["samples_total"]) for rows in runs.values() if rows and _num(rows[-1].get("samples_total"))]
    return math.fsum(ends) / len(ends) if ends else math.inf


def reference_totals(rows: list[dict], metric: str) -> list[float]:
    return [s for _, s, _ in _series(rows, metric)[-_window(metric):]]


def _mean_totals(lists: list[list[float]]) -> list[float]:
    lists = [x for x in lists if x]
    if not lists:
        return []
    k = min(len(x) for x in lists)
    return [math.fsum(x[-k:][i] for x in lists) / len(lists) for i in range(k)]


def _matched(r, row, a_runs, b_runs, is_paired) -> Comparison:
    metric = row["measure"]
    curves = {name: {s: curve(rows, metric) for s, rows in runs.items()} for name, runs in (("a", a_runs), ("b", b_runs))}
    levels = accuracy_levels([c for g in curves.values() for c in g.values()])
    best: Comparison | None = None
    for level in levels:
        vals = {name: {s: v for s, (acc, met) in g.items() if acc and (v := first_crossing(acc, met, level)) is not None}
                for name, g in curves.items()}
        t = _test(vals["a"], vals["b"], is_paired)
        c = Comparison("matched accuracy", t, len(vals["a"]), len(vals["b"]), note=f"at {level:.1%}")
        if t is not None and (best is None or best.test is None or t.p > best.test.p):
            best = c
    return best or Comparison("matched accuracy", None, note="no accuracy range every compared run crosses")


def _coords(arm: dict) -> dict:
    return {k: (None if v == "iid" else v) for k, v in arm.items()}


# ---- the plateau of each arm on the row's measure ------------------------------------------------
def arm_plateau(runs: dict[Any, list[dict]], metric: str, delta: float) -> tuple[bool | None, str]:
    band = delta / PER  # per round
    slopes = []
    for rows in runs.values():
        s = _series(rows, metric, samples=False)
        tail = [x for x in s if x[0] > s[-1][0] - PLATEAU_WINDOW] if s else []
        if len(tail) >= 3:
            step = (tail[-1][0] - tail[0][0]) / (len(tail) - 1) or 1.0
            fit = slope([v for _, _, v in tail])
            if fit is not None:
                slopes.append(fit[0] / step)
    pooled = mean_interval(slopes)
    if pooled is None:
        return None, "too few runs to tell"
    m, lo, hi = pooled
    scale = 100 if metric in ACCURACY else 1
    unit = " points" if metric in ACCURACY else ""
    band_unit = unit.replace("points", "point") if delta * scale == 1 else unit
    text = (f"slope {m * PER * scale:+.2f}{unit} per {PER} rounds, 95 % CI {lo * PER * scale:+.2f} to "
            f"{hi * PER * scale:+.2f} (band ±{delta * scale:.3g}{band_unit})")
    return (-band <= lo and hi <= band), text


# ---- verdicts ------------------------------------------------------------------------------------
def strict_verdict(primary: Difference | None, others: list[Difference | None], delta: float, expect: str,
                   p_holm: float | None, p_eq_holm: float | None, final_window_changing: bool) -> str:
    if primary is None or p_holm is None:
        return INCONCLUSIVE
    want = 1 if expect == "above" else -1
    sign = 1 if primary.diff > 0 else -1 if primary.diff < 0 else 0
    against = any(t is not None and t.diff * want < 0 for t in others)
    if p_holm < ALPHA and abs(primary.diff) >= delta and sign != 0:
        if sign == want and not against and not final_window_changing:
            return SUPPORTED
        if sign == -want:
            return NOT_SUPPORTED
    if p_eq_holm is not None and p_eq_holm < ALPHA:
        return NEGLIGIBLE
    return INCONCLUSIVE


def check_confirmatory(root: str | Path, only: list[str] | None = None) -> list[ConfirmRow]:
    """Every registered row judged on the confirmation studies of ``root`` (with ``only``, the
    rows of the other studies read "not yet recorded", as in a store holding just these)."""
    reg = registry.load()
    studies = StudyStore(Path(root))
    shared: dict[str, tuple] = {}  # a study's record and runs, read once for all its rows
    out = [_check_row(row, reg, studies, shared) if only is None or row["study"] in only
           else ConfirmRow(row, NOT_RECORDED) for row in reg.rows]
    tested = [x for x in out if x.primary is not None and x.primary.test is not None]
    pending = sum(1 for x in out if x.status in (NOT_RECORDED, RECORDING))  # p = 1 until they are in
    ps = holm([x.primary.test.p for x in tested] + [1.0] * pending)
    for scale, attr in ((1.0, None), (0.5, "at_half"), (2.0, "at_double")):
        eqs = holm([tost(x.primary.test, x.delta * scale) for x in tested] + [1.0] * pending)
        for x, p, q in zip(tested, ps, eqs):
            others = [c.test for c in x.others]
            changing = x.still_changing and x.primary.name == "equal rounds"
            v = strict_verdict(x.primary.test, others, x.delta * scale, x.row["expect"], p, q, changing)
            if attr is None:
                x.p_holm, x.p_eq_holm, x.verdict, x.judged = p, q, v, v
            else:
                setattr(x, attr, v)
    for x in out:
        if x.status == RECORDING:
            continue
        if x.status != NOT_RECORDED and (x.primary is None or x.primary.test is None):
            x.verdict = "untested: fewer than 2 finished seeds on a side"
        if x.status == "confirmatory" and not x.affordable:
            x.verdict = f"not confirmed: needs {x.row['seeds_needed']} seeds"
        elif x.status == EXPLORATORY and x.primary is not None:
            x.verdict = f"{EXPLORATORY} ({x.verdict})"
    return out


def _study(name: str, studies: StudyStore) -> tuple:
    """(record, StudyRuns, None) of a finished study, or (None, None, the row that says why not)."""
    if not studies.exists(name):
        return None, None, dict(status=NOT_RECORDED)
    try:
        record = studies.read(name)
    except StoreError as exc:
        return None, None, dict(status=NOT_RECORDED, verdict=f"damaged, left out: {exc}")
    done, registered = recording_progress(studies, record)
    if done < registered:
        return None, None, dict(status=RECORDING, seeds=registered,
                                verdict=f"recording: {done} of {registered} seeds in; no verdict before all are")
    return record, StudyRuns(studies.runs, record), None


def _check_row(row: dict, reg, studies: StudyStore, shared: dict[str, tuple] | None = None) -> ConfirmRow:
    name, shared = row["study"], {} if shared is None else shared
    if name not in shared:
        shared[name] = _study(name, studies)
    record, r, why_not = shared[name]
    if why_not is not None:
        return ConfirmRow(row, **why_not)
    is_paired = row["test"] == "paired t"
    b_runs = _runs(r, _coords(row["b"]))
    ref = [v for rows in b_runs.values() if (v := run_value(rows, row["measure"])) is not None]
    delta = reg.delta[row["delta"]]["value"]
    if row["delta"] == "distance_share":
        delta *= abs(math.fsum(ref) / len(ref)) if ref else float("nan")
    primary = compare_arms(row["compare"], r, row, is_paired)
    others = [compare_arms(how, r, row, is_paired) for how in row.get("also", [])]
    changing, texts = False, []
    for arm in ("a", "b"):
        reached, text = arm_plateau(_runs(r, _coords(row[arm])), row["measure"], delta)
        changing |= reached is not True
        texts.append(f"{arm}: {text}" + ("" if reached else " (still changing)"))
    seeds = len({seed_of(p) for p in record.get("points", [])})
    return ConfirmRow(row, registry.row_status(row, record, reg), delta, primary, others, "; ".join(texts),
                      changing, seeds=seeds)


def recording_progress(studies: StudyStore, record: dict) -> tuple[int, int]:
    """(seeds whose every point has a run that ended, seeds of the study): the recording is
    complete when the two are equal."""
    ended: dict[Any, bool] = {}
    for p in record.get("points", []):
        state = None
        if p.get("run_id"):
            try:
                state = studies.runs.read_status(p["run_id"]).get("state")
            except (RunNotFound, StoreError):
                state = None
        seed = seed_of(p)
        ended[seed] = ended.get(seed, True) and state in TERMINAL
    return sum(ended.values()), len(ended)


def equal_samples_values(r: StudyRuns, a: dict, b: dict, metric: str, is_paired: bool
                         ) -> tuple[dict, dict, list[str]]:
    """Each ``a`` run's measure at ``b``'s samples (the registered equal-samples rule, for the
    exploratory table too): (a seed -> value, b seed -> value, the runs left out). The reference
    is the arm that sees fewer samples (FedAvg in every registered row); when that is ``a``, ``b``
    is interpolated at ``a``'s totals instead."""
    a_runs, b_runs = _runs(r, a), _runs(r, b)
    if _final_samples(a_runs) < _final_samples(b_runs):
        b_vals, a_vals, left = equal_samples_values(r, b, a, metric, is_paired)
        return a_vals, b_vals, left
    b_vals = {s: v for s, rows in b_runs.items() if (v := run_value(rows, metric)) is not None}
    mean_totals = _mean_totals([reference_totals(rows, metric) for rows in b_runs.values()])
    a_vals, left = {}, []
    for s, rows in a_runs.items():
        totals = reference_totals(b_runs[s], metric) if is_paired and s in b_runs else mean_totals
        v = at_samples(rows, metric, totals)
        if v is None:
            left.append(f"seed {s} never reaches the reference's samples")
        else:
            a_vals[s] = v
    return a_vals, b_vals, left
