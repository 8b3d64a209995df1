"""The confirmatory registration (``registration.toml`` beside this module): read once, checked,
and hashed, so that every confirmation study record carries what it was registered under.

- ``load()``: the file parsed and checked (every row names a registered study, arms on its axes,
  a known measure, delta and comparison); a broken file is one ``UserError`` line.
- ``file_hash()``: sha256 of the file's bytes; ``row_hash(row)``: sha256 of one row's canonical
  JSON, with the rules, the delta it uses and its study's grid (what its verdict depends on), so
  editing one row (or its study) makes only the rows it touches exploratory.
- ``stamp(reg)``: what a confirmation study record keeps (``registration`` key): the file hash
  and each of the study's rows' hashes.
- ``row_status(row, record, reg)``: "confirmatory" when the record was made under the row's
  current hash, else "exploratory" (the row changed after its runs, or the record has no stamp)."""
from __future__ import annotations

import hashlib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UserError

PATH = Path(__file__).resolve().parent / "registration.toml"
MEASURES = {"effective_rank", "local_acc_all", "final_acc", "inter_l2", "local_effective_rank", "local_cka"}
COMPARES = {"matched accuracy", "equal samples", "equal rounds"}
EXPECTS = {"above", "below"}
TESTS = {"Welch", "paired t"}


@dataclass(frozen=True)
class Registration:
    rules: dict[str, Any]
    delta: dict[str, dict[str, Any]]
    studies: dict[str, dict[str, Any]]
    rows: tuple[dict[str, Any], ...]
    digest: str

    def rows_of(self, study: str) -> list[dict[str, Any]]:
        return [r for r in self.rows if r["study"] == study]


def file_hash(path: Path = PATH) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def row_hash(row: dict[str, Any], reg: Registration) -> str:
    """What the row's verdict depends on: the row, the rules, its delta and its study."""
    basis = {"row": row, "rules": reg.rules, "delta": reg.delta[row["delta"]], "study": reg.studies[row["study"]]}
    return hashlib.sha256(_canonical(basis).encode()).hexdigest()


def load(path: Path = PATH) -> Registration:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"registration {path}: cannot be read ({exc})") from None
    reg = Registration(rules=raw.get("rules", {}), delta=raw.get("delta", {}), studies=raw.get("studies", {}),
                       rows=tuple(raw.get("rows", [])), digest=hashlib.sha256(path.read_bytes()).hexdigest())
    _check(reg, path)
    return reg


def _check(reg: Registration, path: Path) -> None:
    ids = [r.get("id") for r in reg.rows]
    if len(set(ids)) != len(ids) or not ids:
        raise UserError(f"registration {path}: row ids must be present and distinct (got {ids})")
    for name, study in reg.studies.items():
        if not isinstance(study.get("seeds"), int) or study["seeds"] < 2:
            raise UserError(f"registration {path}: study {name} needs seeds >= 2")
    for r in reg.rows:
        where = f"registration {path}: row {r.get('id')}"
        if r.get("study") not in reg.studies:
            raise UserError(f"{where}: study {r.get('study')!r} is not registered")
        axes = reg.studies[r["study"]].get("axes", {})
        for arm in ("a", "b"):
            if not isinstance(r.get(arm), dict) or any(k not in axes for k in r[arm]):
                raise UserError(f"{where}: arm {arm} must name coordinates of the study's axes {sorted(axes)}")
        checks = (("measure", MEASURES), ("compare", COMPARES), ("expect", EXPECTS), ("test", TESTS),
                  ("delta", set(reg.delta)))
        for key, allowed in checks:
            if r.get(key) not in allowed:
                raise UserError(f"{where}: {key} {r.get(key)!r} is not one of {sorted(allowed)}")
        if not isinstance(r.get("seeds_needed"), int) or r["seeds_needed"] < 2:
            raise UserError(f"{where}: seeds_needed must be an integer >= 2")


def axis_values(values: list) -> list:
    """A registered axis as a study axis: "iid" is IID (``None``)."""
    return [None if v == "iid" else v for v in values]


def stamp(reg: Registration, study: str) -> dict[str, Any]:
    """The registration a confirmation study record carries."""
    return {"file_sha256": reg.digest, "rows": {r["id"]: row_hash(r, reg) for r in reg.rows_of(study)}}


def row_status(row: dict[str, Any], record: dict[str, Any] | None, reg: Registration) -> str:
    """"confirmatory" when ``record`` (a study record) was made under the row's current hash."""
    stamped = ((record or {}).get("registration") or {}).get("rows") or {}
    return "confirmatory" if stamped.get(row["id"]) == row_hash(row, reg) else "exploratory"


def affordable(row: dict[str, Any], reg: Registration) -> bool:
    """Whether the row's study has the seeds its power calculation asks for."""
    return reg.studies[row["study"]]["seeds"] >= row["seeds_needed"]
