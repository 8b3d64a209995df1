"""What every benchmark shares: timing with repeats, a ratio against a baseline measured in the same
run, printing, and the measured table written into docs/performance.md.

    from benchmarks.harness import Table, best, fmt, median, ratio, timed, write_docs

    t = timed(lambda: build(), repeat=5)             # seconds, one per repeat
    base = timed(lambda: build_old(), repeat=5)      # the baseline, measured in this same run
    table = Table("partition_speed", ["case", "median", "vs. old"])
    table.row("200 clients", fmt(t, unit="ms"), ratio(t, base))
    table.print()
    write_docs(table, command="python -m benchmarks.partition_speed --write-docs")

Run a benchmark as a module from the repository root (``python -m benchmarks.NAME``), so the
engine, the app and this harness import without touching ``sys.path``. ``write_docs`` replaces the
text between ``<!-- bench:NAME -->`` and ``<!-- /bench:NAME -->`` in docs/performance.md with the
table, the command, the date and the machine: the numbers in the docs are the ones the benchmark
printed, never copied by hand. A section whose markers are missing is appended under "Measured
results". Benchmarks take ``--write-docs`` to do so; without it they only print. ``finish(table,
args)`` does both: prints the table, and writes it with the command that ran when ``--write-docs``.

``tests/benchmarks/test_bench_docs.py`` checks every benchmark's tables have their markers, and that
every marked section was written by its benchmark (the "Written by" line this module writes).
"""
from __future__ import annotations

import argparse

import datetime
import os
import platform
import re
import shlex
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "performance.md"


def timed(fn: Callable[[], object], repeat: int = 3, warmup: int = 0) -> list[float]:
    """Seconds each of ``repeat`` calls of ``fn`` took (after ``warmup`` untimed calls)."""
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1 (got {repeat})")
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def best(xs: list[float]) -> float:
    """The fastest repeat (the one least disturbed on a shared machine)."""
    return min(xs) if xs else float("nan")


_UNITS = {"s": (1.0, 2), "ms": (1e3, 1), "us": (1e6, 0)}


def fmt(xs: list[float], unit: str = "s", digits: int | None = None) -> str:
    """``xs`` (seconds) as "median 12.3 ms, max 14.0 ms (n=5)"; "n/a" when empty."""
    if not xs:
        return "n/a"
    scale, default = _UNITS[unit]
    d = default if digits is None else digits
    return f"median {median(xs) * scale:.{d}f} {unit}, max {max(xs) * scale:.{d}f} {unit} (n={len(xs)})"


def ratio(xs: list[float], baseline: list[float], of: Callable[[list[float]], float] = median) -> str:
    """How many times ``of(xs)`` is ``of(baseline)`` (both measured in this run), as "1.48x";
    "n/a" when either is empty or the baseline is 0."""
    if not xs or not baseline:
        return "n/a"
    b = of(baseline)
    return f"{of(xs) / b:.2f}x" if b > 0 else "n/a"


class Table:
    """Rows of a measurement, printed as aligned text and written as a markdown table."""

    def __init__(self, name: str, columns: list[str], title: str = ""):
        if not re.fullmatch(r"[a-z0-9_]+", name):
            raise ValueError(f"a table's name is its docs marker: lowercase letters, digits, _ (got {name!r})")
        self.name, self.columns, self.title, self.rows = name, list(columns), title, []

    def row(self, *cells) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"{self.name}: {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append([str(c) for c in cells])

    def text(self) -> str:
        widths = [max(len(r[k]) for r in [self.columns, *self.rows]) for k in range(len(self.columns))]
        lines = [self.title] if self.title else []
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in [self.columns, *self.rows]]
        return "\n".join(lines)

    def print(self) -> None:
        print(self.text(), flush=True)

    def markdown(self) -> str:
        def cell(c: str) -> str:
            return c.replace("|", "\\|")

        out = ["| " + " | ".join(map(cell, self.columns)) + " |", "|" + "|".join("---" for _ in self.columns) + "|"]
        out += ["| " + " | ".join(map(cell, r)) + " |" for r in self.rows]
        return "\n".join(out)


def machine() -> str:
    """The machine in a few words: the CPU count, the system, Python, the load when measured."""
    load = f", load {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return f"{os.cpu_count()} CPUs, {platform.system()} {platform.machine()}, Python {platform.python_version()}{load}"


def section(table: Table, command: str, note: str = "", when: datetime.datetime | None = None) -> str:
    """The marked section ``write_docs`` puts in the docs (markers included)."""
    when = when or datetime.datetime.now(datetime.timezone.utc)
    head = f"Written by `{command}` on {when:%Y-%m-%d %H:%M} UTC ({machine()})."
    title = f"{table.title}. " if table.title else ""
    body = [f"<!-- bench:{table.name} -->", title + head + (f" {note}" if note else ""), "", table.markdown(),
            f"<!-- /bench:{table.name} -->"]
    return "\n".join(body)


def write_docs(table: Table, command: str, note: str = "", path: Path = DOCS) -> Path:
    """Replace ``table``'s marked section of ``path`` (docs/performance.md) with the table just
    measured; append it at the end of the page when the markers are not there yet."""
    text = path.read_text(encoding="utf-8")
    new = section(table, command, note)
    pattern = re.compile(rf"<!-- bench:{table.name} -->.*?<!-- /bench:{table.name} -->", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: new, text, count=1)
    else:  # the page ends in its "Measured results" section
        text = text.rstrip("\n") + f"\n\n### `benchmarks/{table.name}.py`\n\n{new}\n"
    path.write_text(text, encoding="utf-8")
    print(f"wrote the {table.name} table into {path}", flush=True)
    return path


def positive_int(text: str) -> int:
    """An argparse ``type`` for a count (``--repeat``): an integer of at least 1, refused where it
    enters (``argument --repeat: must be a positive integer, not 0``)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, not {value}")
    return value


def add_docs_flag(parser) -> None:
    """``--write-docs``: write the measured table into docs/performance.md (else only print)."""
    parser.add_argument("--write-docs", action="store_true",
                        help="write the measured table into docs/performance.md (its marked section)")


def invoked() -> str:
    """The command that is running, as one would type it: ``python -m benchmarks.NAME ARGS``
    (``OMP_NUM_THREADS`` / ``OMP_WAIT_POLICY`` in front when they are set)."""
    env = " ".join(f"{k}={os.environ[k]}" for k in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY") if k in os.environ)
    name = Path(sys.argv[0]).stem if sys.argv and sys.argv[0] else "NAME"
    args = shlex.join(sys.argv[1:])
    return " ".join(x for x in (env, f"python -m benchmarks.{name}", args) if x)


def finish(tables: Table | list[Table], args, note: str = "", path: Path = DOCS) -> None:
    """Print each table; with ``--write-docs`` (``args.write_docs``) write each into its marked
    section of ``path`` (docs/performance.md), with the command that ran."""
    for table in tables if isinstance(tables, list) else [tables]:
        table.print()
        if getattr(args, "write_docs", False):
            write_docs(table, command=invoked(), note=note, path=path)
