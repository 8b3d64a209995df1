"""Figures of a study (a grid of runs, see docs/studies.md): curves at one grid point with a band over
seeds, response plots against a slider axis with the methods' band overlap marked, the FedQuad
margins heatmap with FedAvg as the colour bar's reference, and the singular-value spectra across
alpha (the picture of FedDecorr, Shi et al. ICLR 2023, Fig. 1).

Every builder is pure: pandas / numpy in, ``plotly.graph_objects.Figure`` out, ``talk`` for the
presentation look of ``app.figures.fit``. The tables they take:

- *points*: one row per grid point, as ``api.study_view(root).frame`` gives it (the axis
  columns, ``run_id``, ``state``, ``final_acc``, ``final_ratio``, ``effective_rank``, ...);
- *metrics*: the long per-round table of ``app.figures.charts.metrics_frame`` (``run``, ``method``,
  ``round``, metric columns), with a ``seed`` column added.
"""
from __future__ import annotations

import functools
import json
import math

import numpy as np
import pandas as pd
import plotly.colors as pc
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from fedquad_core import api as engine
from app.figures.fit import fit, percent_format
from app.figures.palette import DEFAULT_HEIGHT, method_color

METRIC_TITLES = engine.words.metric_names("axis")  # the measures' axis titles, from the one vocabulary; short: "(not from 0)" may follow
AXIS_TITLES = {"alpha": "α (evenly spaced)", "local_epochs": "local epochs", "m1": "margin m1", "m2": "margin m2",
               "beta": "β",
               "num_clients": "clients", "participation": "participation", "mu": "μ"}
PAIR = ("fedavg", "fedquad")
SPECTRUM_FLOOR = 1e-9  # singular values below this fraction of the largest are numerical zeros
UNSET = object()  # "no slider position to mark" (None is a value: IID)
OVERLAP_FILL = "rgba(120,120,120,0.16)"       # normal look: ~RGB 233 on the white plot area
TALK_OVERLAP_FILL = "rgba(100,100,100,0.26)"  # talk mode: darker, to survive a projector (~RGB 215 on white)
def overlap_label(pair=PAIR) -> str:
    """The grey columns' legend entry: what is compared and the verdict word the sentences use
    ("inconclusive": the 95 % CI of the difference includes 0). Named, because a figure about skew
    against IID would otherwise read as if that contrast were the inconclusive one."""
    return f"{engine.words.method_label(pair[1])} vs {engine.words.method_label(pair[0])}: inconclusive"


OVERLAP_LABEL = overlap_label()  # the default pair's (FedQuad vs FedAvg)
MISSING_FILL = "rgba(200,200,200,0.25)"


def overlap_fill(talk: bool = False) -> str:
    """The fill of the grey "bands overlap" columns. The columns are drawn at opacity 1: talk
    mode's template (simple_white) gives shapes an opacity of 0.3 by default, which had made the
    columns RGB ~249 on white, invisible on a projector."""
    return TALK_OVERLAP_FILL if talk else OVERLAP_FILL


# ---- the slider axis ---------------------------------------------------------------------------
def axis_name(axis: str) -> str:
    """An axis as titles name it: the Greek letter for alpha (as on the sliders), else its name."""
    return "α" if axis == "alpha" else axis


def value_label(axis: str, value) -> str:
    """How a grid value reads on a slider and a tick: alpha as the engine writes it (``words.alpha_text``,
    short: "IID", "0.1"), other numbers as %g."""
    if axis == "alpha":
        return engine.words.alpha_text(value, "short")
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "none"
    return f"{value:g}" if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


def ordered_values(axis: str, values) -> list:
    """The grid's values in slider order: numbers ascending, IID (None) last, others as given."""
    vals = list(dict.fromkeys(None if isinstance(v, float) and math.isnan(v) else v for v in values))
    nums = [v for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if len(nums) == len([v for v in vals if v is not None]):
        return sorted(nums) + [v for v in vals if v is None]
    return vals


def axis_positions(axis: str, values) -> tuple[list[float], dict]:
    """x positions of ``values`` and the plotly x-axis settings that label them.

    alpha's grid values are drawn evenly spaced, in order, IID last (one tick each, so ticks such
    as 0.1 and 0.2 never crowd, in talk mode's big font neither; the axis title says "evenly
    spaced"); other numeric axes are linear; anything else is categorical (positions 0, 1, ...)."""
    values = ordered_values(axis, values)
    nums = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    labels = [value_label(axis, v) for v in values]
    if axis == "alpha":
        xs = [float(i) for i in range(len(values))]
        return xs, dict(type="linear", tickvals=xs, ticktext=labels, tickangle=0,
                        range=[-0.5, len(values) - 0.5])
    if len(nums) == len(values):
        xs = [float(v) for v in values]
        return xs, dict(type="linear", tickvals=xs, ticktext=labels)
    xs = [float(i) for i in range(len(values))]
    return xs, dict(type="linear", tickvals=xs, ticktext=labels)


def _key(value) -> str:
    """A hashable, NaN-safe key of a grid value (None and NaN both mean IID / not set)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "None"
    return repr(float(value)) if isinstance(value, (int, float)) and not isinstance(value, bool) else str(value)


# ---- aggregation over seeds --------------------------------------------------------------------
def aggregate(points: pd.DataFrame, by: list[str], metrics: list[str]) -> pd.DataFrame:
    """Mean, std (ddof 1; 0 for one seed) and n over the finished rows of each group ``by``:
    columns ``by`` + ``{m}_mean``, ``{m}_std``, ``{m}_n`` + ``n_points`` (rows in the grid) and
    ``n_done`` (finished ones). Groups with nothing finished are kept, with NaN means (missing).
    (Plain Python over the records: a study has hundreds of points, where pandas' per-group
    overhead cost ~100 ms.)"""
    groups: dict[tuple, list[dict]] = {}
    for rec in points.to_dict("records"):
        groups.setdefault(tuple(_key(rec[c]) for c in by), []).append(rec)
    out = []
    for recs in groups.values():
        done = [r for r in recs if r["state"] == "finished"]
        row = {c: recs[0][c] for c in by}
        row.update(n_points=len(recs), n_done=len(done))
        for m in metrics:
            v = [float(r[m]) for r in done if isinstance(r.get(m), (int, float)) and math.isfinite(r[m])]
            mean = sum(v) / len(v) if v else float("nan")
            row[f"{m}_mean"] = mean
            row[f"{m}_std"] = math.sqrt(sum((x - mean) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0
            row[f"{m}_n"] = len(v)
        out.append(row)
    return pd.DataFrame(out, columns=[*by, "n_points", "n_done",
                                      *(f"{m}_{k}" for m in metrics for k in ("mean", "std", "n"))])


def select(points: pd.DataFrame, fixed: dict) -> pd.DataFrame:
    """The rows of ``points`` whose axis columns equal ``fixed`` (None matches None / NaN)."""
    mask = pd.Series(True, index=points.index)
    for axis, value in fixed.items():
        mask &= points[axis].map(_key) == _key(value)
    return points[mask]


def band_verdicts(resp: pd.DataFrame, x_axis: str, metric: str, pair=PAIR) -> list[tuple]:
    """(x value, ``engine.stats.compare`` verdict of the pair's seeds there) where both methods have a
    value: the one decision "beyond seed noise or not" that every sentence uses too."""
    rows = resp.to_dict("records")  # (plain records: iterrows cost ~1 ms a call on every slider move)
    by = {m: {_key(r[x_axis]): r for r in rows if r["method"] == m} for m in pair}
    out = []
    for k, ra in by[pair[0]].items():
        rb = by[pair[1]].get(k)
        if rb is None:
            continue
        v = engine.stats.compare_summary(*(ra[f"{metric}_{s}"] for s in ("mean", "std", "n")),
                                         *(rb[f"{metric}_{s}"] for s in ("mean", "std", "n")))
        if v.state != engine.Verdict.NO_DATA:
            out.append((ra[x_axis], v))
    return out


def band_overlaps(resp: pd.DataFrame, x_axis: str, metric: str, pair=PAIR) -> list:
    """The x values where the two methods' difference is not beyond seed noise (``engine.stats.compare``:
    the 95 % interval of the difference contains 0, or a side has one seed). Points where either method is missing are left out."""
    return [x for x, v in band_verdicts(resp, x_axis, metric, pair) if not v.separated]


def skew_effect_note(points: pd.DataFrame, metric: str = "effective_rank", axis: str = "alpha",
                     what: str = "effective rank") -> str:
    """One sentence per method comparing ``metric`` at the strongest skew (the smallest alpha) with
    the weakest (IID, else the largest alpha), mean ± std over seeds, and whether that difference is
    beyond seed noise (``engine.stats.compare``) — computed from ``points``, never written in advance.
    Empty when fewer than two values are computed."""
    resp = aggregate(points, ["method", axis], [metric])
    done = resp[resp[f"{metric}_n"] > 0]
    values = ordered_values(axis, done[axis].tolist())
    if len(values) < 2:
        return ""
    lo, hi = values[0], values[-1]
    parts = []
    for method in dict.fromkeys(done["method"]):
        rows = {(_key(r[axis])): r for r in done[done["method"] == method].to_dict("records")}
        a, b = rows.get(_key(lo)), rows.get(_key(hi))
        if a is None or b is None:
            continue
        v = engine.stats.compare_summary(*(a[f"{metric}_{s}"] for s in ("mean", "std", "n")),
                                         *(b[f"{metric}_{s}"] for s in ("mean", "std", "n")))
        verdict = ("one seed: no test possible (no spread to judge it by)" if v.state == engine.Verdict.ONE_SEED else
                   v.why() if not v.separated else
                   f"{'lower' if v.direction < 0 else 'higher'} under skew, {v.why()}")
        ta, tb = v.text()
        parts.append(f"{_label(method)}'s {what} is {ta} at {value_label(axis, lo)} and "
                     f"{tb} at {value_label(axis, hi)}: {verdict}")
    return "; ".join(parts) + "." if parts else ""


# ---- figures -----------------------------------------------------------------------------------
def _hex_rgba(color: str, alpha: float) -> str:
    r, g, b = pc.hex_to_rgb(color)
    return f"rgba({r},{g},{b},{alpha})"


def is_accuracy(metric: str) -> bool:
    """An accuracy (a fraction in the data): its axis reads in percent."""
    return engine.words.is_accuracy(metric)


def band_curves_figure(metrics: pd.DataFrame, y: str, *, title: str = "", talk: bool = False) -> go.Figure:
    """Per method: the mean over seeds of ``y`` against round (thick), a ± 1 std band, and each
    seed's own curve thin. ``metrics`` needs ``method``, ``seed``, ``round`` and ``y``."""
    traces = []
    rows = metrics.dropna(subset=[y]) if y in metrics else metrics.iloc[0:0]
    # numpy over the columns, not pandas groupby (~8 ms a figure, on every slider move)
    meth, seeds, rnd = (rows[c].to_numpy() for c in ("method", "seed", "round"))
    val = rows[y].to_numpy(dtype=float)
    for method in dict.fromkeys(meth):  # in order of appearance
        color, own = method_color(method, talk), meth == method
        for seed in sorted(set(seeds[own].tolist())):
            sel = own & (seeds == seed)
            order = np.argsort(rnd[sel], kind="stable")
            traces.append(dict(type="scatter", x=rnd[sel][order], y=val[sel][order], mode="lines",
                               line=dict(color=color, width=0.8), opacity=0.45, showlegend=False,
                               legendgroup=method, name=f"{method} seed {seed}", meta=["seed", str(method)],
                               hovertemplate=f"{method} seed {seed}<br>round %{{x}}<br>%{{y:.4g}}<extra></extra>"))
        x, m, sd = _round_stats(rnd[own], val[own])
        traces.append(_band(x, m, sd, color, method))
        n = len(set(seeds[own].tolist()))
        traces.append(dict(type="scatter", x=x, y=m, mode="lines", name=f"{_label(method)} (mean of {n})",
                           line=dict(color=color, width=2.5), legendgroup=method, meta=["mean", str(method)],
                           hovertemplate=f"{_label(method)} mean<br>round %{{x}}<br>%{{y:.4g}}<extra></extra>"))
    yaxis = dict(title=dict(text=METRIC_TITLES.get(y, y)), **({"tickformat": percent_format(traces)} if is_accuracy(y) else {}))
    return fit((traces, dict(_title(title), hovermode="closest", xaxis=dict(title=dict(text="round")),
                             yaxis=yaxis)), talk)


def _round_stats(rounds: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per distinct round (ascending): the mean and std (ddof 1; 0 for a single value) of ``values``."""
    x, inv = np.unique(rounds, return_inverse=True)
    count = np.bincount(inv, minlength=len(x))
    mean = np.bincount(inv, weights=values, minlength=len(x)) / np.maximum(count, 1)
    dev = np.bincount(inv, weights=(values - mean[inv]) ** 2, minlength=len(x))
    sd = np.sqrt(np.divide(dev, count - 1, out=np.zeros_like(dev), where=count > 1))
    return x, mean, sd


def _band(x, m, sd, color: str, method) -> dict:
    """The ± 1 std band around the mean ``m`` (a closed filled outline), in the method's colour."""
    return dict(type="scatter", x=np.r_[x, x[::-1]], y=np.r_[m + sd, (m - sd)[::-1]], fill="toself", mode="lines",
                fillcolor=_hex_rgba(color, 0.18), line=dict(width=0), hoverinfo="skip", showlegend=False,
                legendgroup=method, meta=["band", str(method)])


def _title(title: str) -> dict:
    return {"title": {"text": title}} if title else {}


def _label(method: str) -> str:
    return engine.words.method_label(method)  # torch-free, unlike the registry


def response_figure(resp: pd.DataFrame, x_axis: str, metric: str, *, current=UNSET, all_values=None,
                    pair=PAIR, title: str = "", talk: bool = False, y_title: str | None = None) -> go.Figure:
    """``metric`` against ``x_axis``: one line per method (mean over seeds) with a ± 1 std band.

    ``resp`` is ``aggregate(points, ["method", x_axis], ...)`` for the other axes fixed. Grey
    columns mark where ``pair``'s difference is inconclusive (its 95 % interval contains 0); dashed columns labelled "not
    computed" mark grid values with nothing computed yet (``all_values``: every value of the axis); a dotted line marks
    the slider's ``current`` value (None is a value: IID; leave it out for no mark)."""
    values = ordered_values(x_axis, all_values if all_values is not None else resp[x_axis].tolist())
    xs, xaxis = axis_positions(x_axis, values)
    pos = {_key(v): x for v, x in zip(values, xs)}
    overlaps = band_overlaps(resp, x_axis, metric, pair) if all(m in set(resp["method"]) for m in pair) else []
    shapes = [_column(pos[_key(v)], xs, xaxis, overlap_fill(talk), None) for v in overlaps if _key(v) in pos]
    done = {_key(v) for v in resp.loc[resp[f"{metric}_n"] > 0, x_axis]} if len(resp) else set()
    shapes += [_column(pos[_key(v)], xs, xaxis, MISSING_FILL, "not computed") for v in values if _key(v) not in done]
    shapes.append(dict(type="line", name="current", xref="x", yref="paper", x0=xs[0], x1=xs[0], y0=0, y1=1,
                       visible=False, opacity=1, line=dict(color="#333333", width=1.5, dash="dot")))
    traces = []
    recs = resp.to_dict("records")  # plain records, not pandas groupby (~5 ms a figure)
    for method in dict.fromkeys(r["method"] for r in recs):  # in order of appearance
        part = sorted(((pos[_key(r[x_axis])], r) for r in recs if r["method"] == method and r[f"{metric}_n"] > 0
                       and _key(r[x_axis]) in pos), key=lambda p: p[0])
        if not part:
            continue
        color, x = method_color(method, talk), np.array([p[0] for p in part], dtype=float)
        m, sd = (np.array([r[f"{metric}_{k}"] for _, r in part], dtype=float) for k in ("mean", "std"))
        traces.append(_band(x, m, sd, color, method))
        traces.append(dict(
            type="scatter", x=x, y=m, mode="lines+markers", name=_label(method), line=dict(color=color, width=2.5),
            marker=dict(size=7), legendgroup=method, meta=["mean", str(method)],
            customdata=np.c_[sd, np.array([r[f"{metric}_n"] for _, r in part])],
            text=[value_label(x_axis, r[x_axis]) for _, r in part],
            hovertemplate=f"{_label(method)}<br>{x_axis} %{{text}}<br>%{{y:.4g}} ± %{{customdata[0]:.2g}} "
                          f"(n=%{{customdata[1]}})<extra></extra>"))
    if any(_key(v) in pos for v in overlaps):
        traces.append(_overlap_legend(talk, pair))
    ytitle = y_title or METRIC_TITLES.get(metric, metric)
    lows = [float(np.nanmin(t["y"] - t["customdata"][:, 0])) for t in traces if t.get("customdata") is not None]
    if lows and min(lows) > 0.25 * max(float(np.nanmax(t["y"])) for t in traces if t.get("customdata") is not None):
        ytitle += " (not from 0)"  # plotly zooms in on the data: the axis says so
    yaxis = dict(title=dict(text=ytitle), **({"tickformat": percent_format(traces)} if is_accuracy(metric) else {}))
    fig = fit((traces, dict(_title(title), hovermode="closest", shapes=shapes, yaxis=yaxis,
                            xaxis=dict(title=dict(text=AXIS_TITLES.get(x_axis, x_axis)), **xaxis))), talk)
    set_current(fig, x_axis, values, current)
    return fig


def set_current(fig: go.Figure, x_axis: str, values, current=UNSET) -> go.Figure:
    """Move the dotted slider mark of a ``response_figure`` to ``current`` (UNSET hides it): cheap,
    so a page can keep the figure and only move the mark when the slider moves along its axis."""
    values = ordered_values(x_axis, values)
    xs, _ = axis_positions(x_axis, values)
    pos = {_key(v): x for v, x in zip(values, xs)}
    mark = next(sh for sh in fig.layout.shapes if sh.name == "current")
    show = current is not UNSET and _key(current) in pos
    x = pos[_key(current)] if show else xs[0]
    mark.update(x0=x, x1=x, visible=show)
    return fig


def _column(x: float, xs: list[float], xaxis: dict, fill: str, label: str | None) -> dict:
    """A full-height rectangle around position ``x``, half-way to its neighbours; with ``label``,
    a dashed border and the label written along it."""
    log = xaxis.get("type") == "log"
    t = [math.log10(v) for v in xs] if log else list(xs)
    i = xs.index(x)
    lo = t[i] - ((t[i] - t[i - 1]) / 2 if i > 0 else (t[1] - t[0]) / 2 if len(t) > 1 else 0.5)
    hi = t[i] + ((t[i + 1] - t[i]) / 2 if i + 1 < len(t) else (t[-1] - t[-2]) / 2 if len(t) > 1 else 0.5)
    lo, hi = (10 ** lo, 10 ** hi) if log else (lo, hi)
    extra = dict(line=dict(color="#888888", width=1, dash="dash"),
                 label=dict(text=label, textangle=-90, textposition="middle center",
                            font=dict(color="#666666", size=12))) if label else dict(line=dict(width=0))
    # opacity 1: the fill's own alpha sets how dark it is (a template's default shape opacity must not)
    return dict(type="rect", xref="x", yref="paper", x0=lo, x1=hi, y0=0, y1=1, fillcolor=fill, opacity=1,
                layer="below", **extra)


def _overlap_legend(talk: bool, pair=PAIR) -> dict:
    """A legend entry for the grey columns (a shape has none): a square in their colour, no data."""
    return dict(type="scatter", x=[None], y=[None], mode="markers", name=overlap_label(pair), legendgroup="overlap",
                meta=["overlap"], hoverinfo="skip", showlegend=True,
                marker=dict(symbol="square", size=14, color=overlap_fill(talk), line=dict(width=1, color="#777777")))


LOWER_BETTER = ("final_ratio", "final_ratio_l2", "ratio", "ratio_l2")
MARKS = {1: "better", -1: "worse", 0: "·", "=": "="}


def heatmap_marks(points: pd.DataFrame, x_axis: str, y_axis: str, metric: str, *, method: str = "fedquad",
                  reference: str = "fedavg") -> dict[tuple, str]:
    """Per grid cell (``_key`` of its x and y value), what the test says of ``method`` against
    ``reference``: "better" / "worse" only when the difference is beyond seed noise after Holm's
    correction over the grid's tested cells and at least the measure's smallest effect of interest,
    "=" when the equivalence test puts it inside that effect, "·" otherwise. ``reference``'s runs
    are its finished points (one per seed, a run listed at several cells counted once), each
    cell's runs are compared with them seed by seed (``engine.stats.compare``: paired on shared seeds)."""
    done = points[points["state"] == "finished"] if "state" in points else points
    ref_rows = done[done["method"] == reference].drop_duplicates("run_id") if "run_id" in done else done.iloc[0:0]
    ref = {r["seed"] if "seed" in r else i: float(r[metric]) for i, r in enumerate(ref_rows.to_dict("records"))
           if isinstance(r.get(metric), (int, float)) and math.isfinite(r[metric])}
    cells: dict[tuple, dict] = {}
    for i, r in enumerate(done[done["method"] == method].to_dict("records")):
        if isinstance(r.get(metric), (int, float)) and math.isfinite(r[metric]):
            cells.setdefault((_key(r[x_axis]), _key(r[y_axis])), {})[r["seed"] if "seed" in r else i] = float(r[metric])
    if not ref or not cells:
        return {}
    mean_ref = sum(ref.values()) / len(ref)
    verdicts = {k: engine.stats.compare(v, ref, engine.stats.smallest_effect(metric, mean_ref)) for k, v in cells.items()}
    tested = [k for k, v in verdicts.items() if v.test is not None]
    adjusted = dict(zip(tested, engine.stats.holm([verdicts[k].test.p for k in tested])))
    sign = -1 if metric in LOWER_BETTER else 1
    out = {}
    for k, v in verdicts.items():
        if v.test is None:
            out[k] = ""
        elif v.negligible:
            out[k] = MARKS["="]
        elif adjusted[k] < 0.05 and abs(v.test.diff) >= (v.delta or 0.0):
            out[k] = MARKS[sign * (1 if v.test.diff > 0 else -1)]
        else:
            out[k] = MARKS[0]
    return out


def margins_heatmap(resp: pd.DataFrame, x_axis: str, y_axis: str, metric: str, *, method: str = "fedquad",
                    reference: str = "fedavg", current: tuple | None = None, all_x=None, all_y=None,
                    title: str = "", talk: bool = False, marks: dict | None = None) -> go.Figure:
    """``method``'s mean ``metric`` over the ``x_axis`` x ``y_axis`` grid on a diverging colour scale
    centred at ``reference``'s mean (its tick on the colour bar reads the reference's name); cells
    with nothing computed stay blank. ``resp`` is ``aggregate(points, ["method", x_axis, y_axis], ...)``.
    Higher is better for accuracy (blue above the reference); for the ratio lower is better, so the
    scale is flipped to keep blue = better than the reference. The colour is the raw means; ``marks``
    (``heatmap_marks``) labels each cell with what the test says."""
    xv = ordered_values(x_axis, all_x if all_x is not None else resp[x_axis].tolist())
    yv = ordered_values(y_axis, all_y if all_y is not None else resp[y_axis].tolist())
    own = resp[resp["method"] == method]
    ref_rows = resp[(resp["method"] == reference) & (resp[f"{metric}_n"] > 0)]
    ref = float(ref_rows[f"{metric}_mean"].mean()) if len(ref_rows) else float("nan")
    z = np.full((len(yv), len(xv)), np.nan)
    sd = np.full_like(z, np.nan)
    lookup = {(_key(a), _key(b)): r for a, b, r in zip(own[x_axis], own[y_axis], own.itertuples(index=False))}
    for i, b in enumerate(yv):
        for j, a in enumerate(xv):
            r = lookup.get((_key(a), _key(b)))
            if r is not None and getattr(r, f"{metric}_n") > 0:
                z[i, j], sd[i, j] = getattr(r, f"{metric}_mean"), getattr(r, f"{metric}_std")
    finite = z[np.isfinite(z)]
    centre = ref if math.isfinite(ref) else (float(finite.mean()) if finite.size else 0.0)
    half = float(np.max(np.abs(finite - centre))) if finite.size else 1.0
    half = half if half > 0 else 1.0
    scale = "RdBu" if metric in ("final_acc", "best_acc") else "RdBu_r"
    ticks = [centre - half, centre, centre + half]
    ref_name = _label(reference) if math.isfinite(ref) else "centre"
    text = [[(marks or {}).get((_key(a), _key(b)), "") for a in xv] for b in yv]
    fig = go.Figure(go.Heatmap(
        z=z, x=[value_label(x_axis, v) for v in xv], y=[value_label(y_axis, v) for v in yv], customdata=sd,
        text=text, texttemplate="%{text}" if marks else None,
        zmin=centre - half, zmax=centre + half, colorscale=scale, hoverongaps=False, xgap=2, ygap=2,
        colorbar=dict(title=dict(text=METRIC_TITLES.get(metric, metric)), tickvals=ticks,
                      ticktext=[f"{ticks[0]:.3g}", f"{ref_name} {centre:.3g}", f"{ticks[2]:.3g}"], thickness=14),
        hovertemplate=f"{x_axis} %{{x}}, {y_axis} %{{y}}<br>{_label(method)} %{{z:.4g}} ± %{{customdata:.2g}}"
                      f"<br>{ref_name} {ref:.4g}<extra></extra>", name=_label(method)))
    fig.add_trace(go.Scatter(x=[], y=[], mode="markers", name="slider position", showlegend=False, hoverinfo="skip",
                             marker=dict(symbol="square-open", size=26, color="#111111", line=dict(width=3))))
    fig.update_xaxes(title_text=AXIS_TITLES.get(x_axis, x_axis), type="category", showgrid=False)
    fig.update_yaxes(title_text=AXIS_TITLES.get(y_axis, y_axis), type="category", showgrid=False)
    fig.update_layout(title=title or None)
    fit(fig, talk)
    return set_cell(fig, x_axis, y_axis, current)


def set_cell(fig: go.Figure, x_axis: str, y_axis: str, current: tuple | None) -> go.Figure:
    """Move the open square of a ``margins_heatmap`` to the grid cell ``current`` (None hides it)."""
    mark = next(t for t in fig.data if t.name == "slider position")
    mark.update(x=[value_label(x_axis, current[0])] if current else [],
                y=[value_label(y_axis, current[1])] if current else [])
    return fig


def spectra_across_figure(spectra: dict[str, dict], *, axis: str = "alpha", title: str = "",
                          talk: bool = False) -> go.Figure:
    """Side by side per method: the sorted singular values (normalised by the largest, log y) of
    the global model's final embeddings, one line per ``axis`` value, coloured from strong skew
    (dark) to IID (light). ``spectra[method][value] = singular values``."""
    methods = list(spectra)
    cols = min(len(methods), SPECTRA_PER_ROW[talk]) or 1
    rows = -(-len(methods) // cols)
    layout = _subplots_layout(tuple(_label(m) for m in methods), cols, rows)
    if rows > 1:  # seven methods: two or three rows, each panel wide enough to read
        layout["height"] = DEFAULT_HEIGHT[talk] + (rows - 1) * SPECTRA_ROW_HEIGHT[talk]
    values = ordered_values(axis, [v for per in spectra.values() for v in per])
    colors = pc.sample_colorscale("Viridis", [0.92 * i / max(1, len(values) - 1) for i in range(len(values))])
    color_of = {_key(v): c for v, c in zip(values, colors)}
    traces = []
    for col, method in enumerate(methods, start=1):
        for v in ordered_values(axis, list(spectra[method])):
            s = np.sort(np.abs(np.asarray(spectra[method][v], dtype=float).ravel()))[::-1]
            s = s / s[0] if s.size and s[0] > 0 else s
            s = np.where(s > SPECTRUM_FLOOR, s, np.nan)  # below: numerical zeros, not drawn
            name = f"{'α' if axis == 'alpha' else axis} = {value_label(axis, v)}"
            traces.append(dict(type="scatter", x=np.arange(1, len(s) + 1), y=s, mode="lines", name=name,
                               legendgroup=name, showlegend=col == 1, line=dict(color=color_of[_key(v)], width=2),
                               meta=[str(method), value_label(axis, v)],
                               hovertemplate=f"{_label(method)}, {name}<br>component %{{x}}<br>σ/σ₁ %{{y:.3g}}<extra></extra>",
                               xaxis=f"x{col if col > 1 else ''}", yaxis=f"y{col if col > 1 else ''}"))
    lows = [np.nanmin(t["y"]) for t in traces if np.isfinite(t["y"]).any()]
    decades = max(1, int(np.ceil(-np.log10(min(lows))))) if lows else 1
    for key in [k for k in layout if k.startswith("yaxis")]:
        # whole decades only (plotly's minor log labels are small), at most about 4 of them
        layout[key].update(type="log", exponentformat="power", dtick=max(1, int(np.ceil(decades / 4))))
    for r in range(rows):  # the y title at each row's start, the x title under the first panel of the last row
        layout[f"yaxis{r * cols + 1 if r else ''}"]["title"] = dict(text="σₖ / σ₁ (log)")  # (subscripts, not a raw "σ_k")
    last = (rows - 1) * cols + 1
    layout[f"xaxis{last if last > 1 else ''}"]["title"] = dict(text="component (sorted)")
    for i in range(len(methods) + 1, rows * cols + 1):  # the empty cells of the last row
        layout[f"xaxis{i}"].update(visible=False)
        layout[f"yaxis{i}"].update(visible=False)
    for key in [k for k in layout if k.startswith("xaxis")]:
        layout[key]["nticks"] = 4
    layout.update(_title(title))
    return fit((traces, layout), talk)


SPECTRA_PER_ROW = {False: 4, True: 3}
SPECTRA_ROW_HEIGHT = {False: 250, True: 300}


@functools.lru_cache(maxsize=32)
def _subplots_json(titles: tuple[str, ...], cols: int, rows: int) -> str:
    fig = make_subplots(rows=rows, cols=max(1, cols), shared_yaxes=True, horizontal_spacing=0.04,
                        vertical_spacing=0.16 if rows > 1 else None, subplot_titles=list(titles))
    return json.dumps({k: v for k, v in fig.layout.to_plotly_json().items() if k != "template"})


def _subplots_layout(titles: tuple[str, ...], cols: int | None = None, rows: int = 1) -> dict:
    """The layout ``make_subplots`` gives ``rows`` rows of ``cols`` panels (default: one row of
    ``len(titles)``), each row sharing its y axis (axis domains, panel titles), made once per set of
    titles: a fresh copy to fill in."""
    return json.loads(_subplots_json(titles, cols or len(titles), rows))


__all__ = ["axis_name", "value_label", "ordered_values", "axis_positions", "aggregate", "select", "band_overlaps",
           "band_verdicts",
           "band_curves_figure", "response_figure", "set_current", "margins_heatmap", "heatmap_marks", "set_cell",
           "spectra_across_figure",
           "METRIC_TITLES", "PAIR", "OVERLAP_LABEL", "overlap_fill"]
