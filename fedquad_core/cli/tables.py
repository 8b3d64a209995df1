"""What several commands print: a plain-text table and a run's one-line summary."""
from __future__ import annotations

import math
from typing import Any

from ..runs.store import RunStore


def fmt(value: Any, spec: str = ".4f") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return format(value, spec) if isinstance(value, (int, float)) else str(value)


def summarize(store: RunStore, run_id: str) -> dict[str, Any]:
    cfg, status, rows = store.read_config(run_id), store.read_status(run_id), store.read_metrics(run_id)
    ratios = [r["ratio"] for r in rows if r.get("ratio") is not None]
    return {"run": run_id, "method": cfg.get("method"), "dataset": cfg.get("dataset"), "clients": cfg.get("num_clients"),
            "alpha": cfg.get("alpha"), "state": status.get("state"), "rounds": len(rows),
            "final_acc": rows[-1]["test_accuracy"] if rows else None,
            "best_acc": max((r["test_accuracy"] for r in rows if r["test_accuracy"] is not None), default=None),
            "final_ratio": ratios[-1] if ratios else None, "name": cfg.get("name")}


def print_table(headers: list[str], rows: list[list[str]]) -> None:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    print("  ".join(h.ljust(w) for h, w in zip(headers, widths)))
    print("  ".join("-" * w for w in widths))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
