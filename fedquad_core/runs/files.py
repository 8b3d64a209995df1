"""The shapes of the files in a run folder, checked in one place.

Each reader returns the parsed file or raises ``Damaged`` with one line saying what is wrong
(missing, unreadable, not JSON, or valid JSON of the wrong shape). ``RunStore`` turns that into
the run's ``damaged`` reason, so ``list`` and every dashboard page go on working for the rest.
Only the fields that readers use are checked; unknown extra fields are allowed.
"""
from __future__ import annotations

import errno
import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np

from .. import safe_io
from ..config.numbers import finite_number
from ..config.stored import stored_config_problem

_MISSING = object()
MAX_ROUND = 1_000_000  # config.limits allows far fewer rounds and clients; more is damage, not a result


class Damaged(ValueError):
    """A run file that cannot be read or does not have the shape the readers rely on."""


def _kind(v: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(v), "a number")


def _number(v: Any) -> bool:
    """A number a float can hold (NaN and inf allowed: a diverged round writes them); an integer
    too large for a float (10**400) is damage, not a value a page could draw or format."""
    if isinstance(v, int) and not isinstance(v, bool):
        return finite_number(v)
    return isinstance(v, float)


def _integer(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


# The most a run file may hold: a config or status is a few kB, a partition of 10,000 clients x
# 200 classes a few MB, a metrics log of per-client rows some tens of MB.
LIMITS = {"metrics.jsonl": 512 << 20, "partition.json": 64 << 20}
DEFAULT_LIMIT = 4 << 20


def _text(path: Path, limit: int | None = None) -> str | None:
    """The file's text through ``safe_io`` (regular files only, bounded), None when missing."""
    try:
        return safe_io.read_text(path, limit or LIMITS.get(path.name, DEFAULT_LIMIT))
    except FileNotFoundError:
        return None
    except safe_io.DamagedFile as e:
        raise Damaged(e.reason) from None
    except OSError as e:  # a folder we may not enter, an I/O error: the file is named, never a traceback
        raise Damaged(safe_io.one_line(f"cannot read {path.name}: {e.strerror or e}")) from None


def load_json(path: Path, default: Any = _MISSING, *, limit: int | None = None) -> Any:
    text = _text(path, limit)
    if text is None:
        if default is _MISSING:
            raise Damaged(f"{path.name} is missing")
        return default
    try:  # files are written atomically: never half-written
        return safe_io.parse_json(text, path.name)
    except safe_io.DamagedFile as e:
        raise Damaged(e.reason) from None


def _check_fields(name: str, data: Any, fields: dict[str, tuple], required: tuple[str, ...] = ()) -> dict:
    if not isinstance(data, dict):
        raise Damaged(f"{name} holds {_kind(data)}, not an object")
    for key in required:
        if key not in data:
            raise Damaged(f"{name} has no {key!r}")
    for key, (ok, what) in fields.items():
        if key in data and not ok(data[key]):
            raise Damaged(safe_io.one_line(f"{name}: {key!r} is {safe_io.shown(data[key])}, not {what}"))
    return data


_OPT_STR = (lambda v: v is None or isinstance(v, str), "a string")
_INT = (_integer, "an integer")
_OPT_INT = (lambda v: v is None or _integer(v), "an integer")
_OPT_ROUND = (lambda v: v is None or (_integer(v) and 0 <= v <= MAX_ROUND), f"a round from 0 to {MAX_ROUND:,}")
_OPT_PID = (lambda v: v is None or (_integer(v) and 0 <= v < 1 << 31), "a process id")
_OPT_NUM = (lambda v: v is None or _number(v), "a number")
_COUNT = (lambda v: _integer(v) and 1 <= v <= MAX_ROUND, f"an integer from 1 to {MAX_ROUND:,}")
_OPT_TIME = (lambda v: v is None or (_number(v) and 0 <= v < 1e11), "a time in seconds since 1970")

CONFIG_FIELDS = {"method": (lambda v: isinstance(v, str), "a string"), "dataset": (lambda v: isinstance(v, str), "a string"),
                 "num_clients": _COUNT, "rounds": _COUNT, "alpha": _OPT_NUM, "name": _OPT_STR}
STATUS_FIELDS = {"round": _OPT_ROUND, "total_rounds": _OPT_ROUND, "error": _OPT_STR, "pid": _OPT_PID,
                 "created": _OPT_TIME, "updated": _OPT_TIME, "started": _OPT_TIME, "ended": _OPT_TIME, "group": _OPT_STR, "device": _OPT_STR}


def read_config(folder: Path) -> dict[str, Any]:
    """The stored config, its shape checked here and every value by the rules a typed setting
    meets (``config.stored``): an unknown method or data set, a NaN α, is damage."""
    data = _check_fields("config.json", load_json(folder / "config.json"), CONFIG_FIELDS)
    problem = stored_config_problem(data)
    if problem:
        raise Damaged(safe_io.one_line(problem))
    return data


def read_status(folder: Path, states: tuple[str, ...]) -> dict[str, Any]:
    status = _check_fields("status.json", load_json(folder / "status.json"), STATUS_FIELDS, ("state",))
    if status["state"] not in states:
        raise Damaged(f"status.json: unknown state {safe_io.shown(status['state'])}")
    return status


def read_metrics(folder: Path) -> list[dict[str, Any]]:
    """Every complete row; a last line still being written is skipped. Each row is an object with
    an integer ``round``, a ``test_accuracy`` and numbers (or null) as values."""
    text = _text(folder / "metrics.jsonl")
    if text is None:
        return []
    lines = text.split("\n")[:-1]  # the part after the last newline is still being written
    rows = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = safe_io.parse_json(line, f"metrics.jsonl line {n}")
        except safe_io.DamagedFile as e:
            raise Damaged(e.reason) from None
        if not isinstance(row, dict):
            raise Damaged(f"metrics.jsonl line {n} holds {_kind(row)}, not an object")
        for key in ("round", "test_accuracy"):
            if key not in row:
                raise Damaged(f"metrics.jsonl line {n} has no {key!r}")
        if not _integer(row["round"]):
            raise Damaged(safe_io.one_line(f"metrics.jsonl line {n}: 'round' is {safe_io.shown(row['round'])}, not an integer"))
        bad = next((k for k, v in row.items() if k != "local" and not (v is None or _number(v))), None)
        if bad is not None:
            raise Damaged(safe_io.one_line(f"metrics.jsonl line {n}: {bad!r} is {safe_io.shown(row[bad])}, not a number"))
        if not 0 <= row["round"] <= MAX_ROUND:
            raise Damaged(safe_io.one_line(f"metrics.jsonl line {n}: round {safe_io.shown(row['round'])} is impossible "
                                           f"(0 to {MAX_ROUND:,})"))
        if rows and row["round"] <= rows[-1]["round"]:
            raise Damaged(f"metrics.jsonl line {n}: round {row['round']} after round {rows[-1]['round']} "
                          "(rows out of order or repeated)")
        wrong = next((k for k, v in row.items() if _is_accuracy(k) and _number(v) and not 0 <= v <= 1), None)
        if wrong is not None:
            raise Damaged(safe_io.one_line(f"metrics.jsonl line {n}: {wrong!r} is {safe_io.shown(row[wrong])}, "
                                           "not an accuracy between 0 and 1"))
        if "local" in row and not _local_clients_ok(row["local"]):
            raise Damaged(f"metrics.jsonl line {n}: 'local' is not a list of measured clients "
                          "(client, classes, samples and numbers)")
        rows.append(row)
    return rows


def _is_accuracy(key: str) -> bool:
    """Fields that are shares of correct predictions (0..1; NaN allowed for a diverged round)."""
    return key == "test_accuracy" or key.startswith("local_acc")


def _local_clients_ok(value: Any) -> bool:
    """A snapshot row's ``local``: one object per measured client, with an integer ``client`` and
    ``samples``, ``classes`` (and, in runs from the holding rule on, ``classes_any``) a list of
    integers, every other field a number or null."""
    if not isinstance(value, list):
        return False
    lists = ("classes", "classes_any")
    for c in value:
        if (not isinstance(c, dict) or not _integer(c.get("client")) or not _integer(c.get("samples"))
                or not isinstance(c.get("classes"), list)
                or not all(isinstance(c.get(k, []), list) and all(_integer(i) for i in c.get(k, [])) for k in lists)):
            return False
        if not all(v is None or _number(v) for k, v in c.items() if k not in ("client", "samples", *lists)):
            return False
    return True


MAX_ARRAY_FILE = 256 << 20  # a snapshot of 10,000 points x 512 dimensions is 20 MB
MAX_ARRAY_BYTES = 256 << 20  # what a snapshot or a layout may unpack to, all its arrays together


def _arrays(path: Path, where: str) -> dict[str, np.ndarray]:
    """The arrays of a snapshot ``.npz``, read through ``safe_io`` (a regular file, bounded on disk
    and unpacked: every header's size is checked before any array is built), or ``Damaged``."""
    try:
        return safe_io.read_npz(path, MAX_ARRAY_FILE, MAX_ARRAY_BYTES, name=where)
    except safe_io.DamagedFile as e:
        raise Damaged(e.reason if where in e.reason else f"{where}: {e.reason}") from None


LOCAL_ARRAYS = ("clients", "samples", "holds", "embeddings", "start_embeddings", "update_cosine")


def read_local_snapshot(folder: Path, round_: int) -> dict[str, Any]:
    """``embeddings/local_round_NNNN.npz``: ``clients`` and ``samples`` [K] integers, ``holds``
    [K, classes] booleans, ``embeddings`` [K, n, d] and ``start_embeddings`` [n, d] floats,
    ``update_cosine`` [K, K] floats. Raises ``Damaged`` naming the file when it is missing,
    unreadable or of another shape."""


    name = f"local_round_{int(round_):04d}.npz"
    try:
        arrays = _arrays(folder / "embeddings" / name, name)
    except FileNotFoundError:
        raise Damaged(f"{name} is missing") from None
    missing = [k for k in LOCAL_ARRAYS if k not in arrays]
    if missing:
        raise Damaged(f"{name} has no {', '.join(missing)}")
    ids, emb, start, cos = arrays["clients"], arrays["embeddings"], arrays["start_embeddings"], arrays["update_cosine"]
    k = ids.shape[0] if ids.ndim == 1 else -1
    ok = (k >= 1 and ids.dtype.kind in "iu" and arrays["samples"].shape == (k,) and arrays["samples"].dtype.kind in "iu"
          and arrays["holds"].ndim == 2 and arrays["holds"].shape[0] == k and arrays["holds"].dtype == bool
          and emb.ndim == 3 and emb.shape[0] == k and emb.dtype.kind == "f"
          and start.shape == emb.shape[1:] and start.dtype.kind == "f"
          and cos.shape == (k, k) and cos.dtype.kind == "f")
    if not ok:
        raise Damaged(f"{name}: arrays of the wrong shape or type (clients {ids.shape}, embeddings {emb.shape}, "
                      f"start_embeddings {start.shape}, update_cosine {cos.shape})")
    return arrays


_checked_metrics: dict[Path, tuple[tuple[int, int], str | None]] = {}


def drop_client_lists(path: Path) -> None:
    """Rewrite the metrics file ``path`` without its per-client ``local`` lists, every top-level
    number kept (the means over the measured clients: ``local_acc_all``, ...): how the recorded
    and the confirmation studies ship compact (scripts/record_studies.py, compact_confirmation.py)."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for row in rows:
        row.pop("local", None)
    path.write_text("".join(json.dumps(row, sort_keys=True, allow_nan=True) + "\n" for row in rows))


def metrics_damage(folder: Path) -> str | None:
    """Why ``metrics.jsonl`` is damaged, or None; remembered per file until its size or mtime
    changes, so listing a large store every second does not re-parse every finished run."""
    return _cached_reason(folder / "metrics.jsonl", _checked_metrics, lambda path: read_metrics(folder),
                          missing=_metrics_missing)


def _metrics_missing(error: OSError) -> str | None:
    """No metrics file: no round yet. Any other failure to look at it (a loop of links, no
    permission) is damage, named."""
    if isinstance(error, FileNotFoundError):
        return None
    if error.errno == errno.ELOOP:
        return "cannot read metrics.jsonl: a loop of symbolic links"
    return safe_io.one_line(f"cannot read metrics.jsonl: {error.strerror or error}")


def read_partition(folder: Path) -> dict[str, Any] | None:
    data = load_json(folder / "partition.json", None)
    if data is None:
        return None
    _check_fields("partition.json", data, {"num_classes": _INT}, ("counts",))
    counts = data["counts"]
    if (not isinstance(counts, list) or not all(isinstance(row, list) for row in counts)
            or len({len(row) for row in counts}) > 1
            or not all(_integer(c) and c >= 0 for row in counts for c in row)):
        raise Damaged("partition.json: 'counts' is not a clients x classes table of counts")
    classes = data.get("num_classes")  # optional: the rows' width is the class count then
    if classes is not None and not 1 <= classes <= MAX_CLASSES:
        raise Damaged(f"partition.json: 'num_classes' is {safe_io.shown(classes)}, not 1 to {MAX_CLASSES:,}")
    if classes is not None and counts and len(counts[0]) != classes:
        raise Damaged(f"partition.json: its rows have {len(counts[0])} classes, but 'num_classes' says {classes}")
    if classes is None:
        classes = len(counts[0]) if counts else None
    sizes = data.get("sizes")
    if sizes is not None and (not isinstance(sizes, list) or not all(_integer(s) for s in sizes)):
        raise Damaged("partition.json: 'sizes' is not a list of integers")
    if sizes is not None and len(sizes) != len(counts):
        raise Damaged(f"partition.json: {len(sizes)} sizes for {len(counts)} clients")
    names = data.get("class_names")
    if names is not None and (not isinstance(names, list) or not all(isinstance(s, str) for s in names)):
        raise Damaged("partition.json: 'class_names' is not a list of strings")
    if names and classes is not None and len(names) != classes:
        raise Damaged(f"partition.json: {len(names)} class names for {classes} classes")
    return data


MAX_CLASSES = 100_000  # Tiny-ImageNet has 200


SNAPSHOT_FILE = re.compile(r"^round_(\d{4}|[1-9]\d{4,8})\.npz$")  # what the engine writes: round_NNNN.npz
UMAP_FILE = re.compile(r"^umap_round_(\d{4}|[1-9]\d{4,8})\.npy$")


def snapshot_rounds(folder: Path) -> list[int]:
    """The rounds of the snapshot files in ``embeddings/``; a stray name (``round_abc.npz``) is ignored."""
    try:
        names = [p.name for p in folder.iterdir()]
    except OSError:
        return []
    return sorted(int(m.group(1)) for m in map(SNAPSHOT_FILE.match, names) if m)


def read_snapshot(path: Path) -> dict[str, Any]:
    """The arrays of a snapshot ``.npz`` (never unpickled), or ``Damaged``: not a readable npz (random
    bytes, a pickled object array), or without 2-D numeric ``embeddings``, 1-D ``labels`` and 1-D
    integer ``indices`` of one length."""
    where = f"embeddings/{path.name}"
    try:
        arrays = _arrays(path, where)
    except FileNotFoundError:
        raise Damaged(f"{where} is missing") from None
    z, y = arrays.get("embeddings"), arrays.get("labels")
    if z is None or y is None:
        raise Damaged(f"{where} has no {'embeddings' if z is None else 'labels'}")
    if z.ndim != 2 or z.dtype.kind not in "fiu" or y.ndim != 1 or y.dtype.kind not in "iu" or len(y) != len(z):
        raise Damaged(f"{where}: embeddings {z.shape} {z.dtype} and labels {y.shape} {y.dtype} do not fit together")
    bad = next((k for k, v in arrays.items() if v.dtype.kind not in "biuf"), None)
    if bad is not None:
        raise Damaged(f"{where}: {bad!r} holds {arrays[bad].dtype} values, not numbers")
    if z.dtype.kind == "f" and not np.isfinite(z).all():  # a diverged run's last snapshot: nothing to draw
        raise Damaged(f"{where}: the embeddings hold NaN or infinite values (the run diverged), no picture")
    idx = arrays.get("indices")  # which test points these are (the engine always writes them)
    if idx is None:
        raise Damaged(f"{where} has no indices (which test points the embeddings are)")
    if idx.ndim != 1 or idx.dtype.kind not in "iu" or len(idx) != len(y):
        raise Damaged(f"{where}: indices {idx.shape} {idx.dtype} do not fit the {len(y)} labels")
    return arrays


_checked_snapshots: dict[Path, tuple[tuple[int, int], str | None]] = {}


def snapshot_damage(path: Path) -> str | None:
    """Why that snapshot file is damaged, or None (remembered until its size or mtime changes)."""
    return _damage(path, read_snapshot)


def layout_damage(path: Path) -> str | None:
    """Why that stored UMAP layout is damaged, or None (remembered like ``snapshot_damage``)."""
    return _damage(path, read_layout)


def _damage(path: Path, read) -> str | None:
    return _cached_reason(path, _checked_snapshots, read, missing=lambda e: f"embeddings/{path.name}: {e.strerror or e}")


def _cached_reason(path: Path, cache: dict, read, missing) -> str | None:
    """Why ``read(path)`` finds the file damaged (None: it is fine), re-read only when the file's
    modification time or size changed; ``missing(error)`` answers for a file that is not there."""
    try:
        st = path.stat()
    except OSError as e:
        return missing(e)
    key = (st.st_mtime_ns, st.st_size)
    hit = cache.get(path)
    if hit and hit[0] == key:
        return hit[1]
    try:
        read(path)
        reason = None
    except Damaged as e:
        reason = str(e)
    if len(cache) > 4096:
        cache.clear()
    cache[path] = (key, reason)
    return reason


def read_layout(path: Path, n: int | None = None):
    """A stored 2-D layout ``umap_round_NNNN.npy`` (``(n, 2)`` finite floats, never unpickled), or
    ``Damaged``; ``n``, when given, is the number of points its snapshot holds."""
    where = f"embeddings/{path.name}"
    try:  # safe_io: a regular file, bounded; the header's size checked before the array is built
        xy = safe_io.parse_npy(safe_io.read_bytes(path, MAX_ARRAY_FILE), where, MAX_ARRAY_BYTES)
    except FileNotFoundError:
        raise Damaged(f"{where} is missing") from None
    except safe_io.DamagedFile as e:
        raise Damaged(e.reason if where in e.reason else f"{where}: {e.reason}") from None
    if not isinstance(xy, np.ndarray) or xy.ndim != 2 or xy.shape[1] != 2 or xy.dtype.kind != "f":
        raise Damaged(f"{where} is not an (n, 2) array of floats")
    if not np.isfinite(xy).all() or (n is not None and len(xy) != n):
        raise Damaged(f"{where} does not match its snapshot ({len(xy)} points{'' if n is None else f', not {n}'})")
    return xy.astype(np.float32, copy=False)
