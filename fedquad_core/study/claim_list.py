"""The seed paper's claims as the exploratory table checks them (``paper_claims.check_claims``):
each ``Claim`` names the study that tests it here, the two groups of runs it compares and the
direction the paper states; beside them, the recorded studies no row tests and why, the
participation claim (checked on whichever study has a participation of at most 5 %) and the
settings this project cannot run offline. Data, and which studies of a root they use: no
statistics here."""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..runs.store import StoreError
from .claims_table import ClaimResult
from .store import StudyStore


@dataclass(frozen=True)
class Claim:
    """One checkable claim: ``a`` against ``b`` (coords; the special values below are resolved
    on the study's axes) on ``metric``, expected ``above`` / ``below`` / ``not below``; ``lowest``
    compares method ``a`` against every other method of the study; ``matched``: at matched accuracy;
    ``same_as``: the row (1-based) whose paper claim this row checks again (one claim, counted once).

    Special coordinate values: ``"skew"`` the smallest alpha, ``"iid"`` IID (else the largest
    alpha), ``"paper"`` alpha 0.3 when the study has it (the paper's), else the smallest;
    ``"max"`` the axis's largest value (local_epochs: the most local computation)."""
    text: str
    study: str
    metric: str
    a: dict
    b: dict | None
    expect: str
    matched: bool = False
    lowest: bool = False
    fallback: str | None = None  # the study used when ``study`` is not in the store
    same_as: int | None = None


CLAIMS: tuple[Claim, ...] = (
    Claim("Under label skew, local models lose directions (local collapse)", "digits-local", "local_effective_rank",
          {"method": "fedavg", "alpha": "skew", "local_epochs": "max"},
          {"method": "fedavg", "alpha": "iid", "local_epochs": "max"}, "below"),
    Claim("Under label skew, local representations drift from the global one (inconsistent)", "digits-local",
          "local_cka", {"method": "fedavg", "alpha": "skew", "local_epochs": "max"},
          {"method": "fedavg", "alpha": "iid", "local_epochs": "max"}, "below"),
    Claim("(the same, on Fashion-MNIST with 5 local epochs)", "fmnist-skew", "local_effective_rank",
          {"method": "fedavg", "alpha": "skew"}, {"method": "fedavg", "alpha": "iid"}, "below", same_as=1),
    Claim("(the same, on Fashion-MNIST with 5 local epochs)", "fmnist-skew", "local_cka",
          {"method": "fedavg", "alpha": "skew"}, {"method": "fedavg", "alpha": "iid"}, "below", same_as=2),
    Claim("Under label skew, the aggregated global embedding space collapses", "fmnist-skew", "effective_rank",
          {"method": "fedavg", "alpha": "skew"}, {"method": "fedavg", "alpha": "iid"}, "below", matched=True),
    Claim("(the same, at the final round, accuracy not matched)", "fmnist-skew", "effective_rank",
          {"method": "fedavg", "alpha": "skew"}, {"method": "fedavg", "alpha": "iid"}, "below", same_as=5),
    Claim("FedQuad mitigates collapse in the local models", "digits-local", "local_effective_rank",
          {"method": "fedquad", "alpha": "skew", "local_epochs": "max"},
          {"method": "fedavg", "alpha": "skew", "local_epochs": "max"}, "above"),
    Claim("(the same, on Fashion-MNIST with 5 local epochs)", "fmnist-skew", "local_effective_rank",
          {"method": "fedquad", "alpha": "skew"}, {"method": "fedavg", "alpha": "skew"}, "above", same_as=7),
    Claim("FedQuad mitigates collapse in the global model", "fmnist-skew", "effective_rank",
          {"method": "fedquad", "alpha": "skew"}, {"method": "fedavg", "alpha": "skew"}, "above", matched=True),
    Claim("FedQuad has the lowest intra-class variance of all methods", "fmnist-methods", "intra_l2",
          {"method": "fedquad", "alpha": "paper"}, None, "below", lowest=True),
    Claim("FedQuad keeps inter-class separation (the paper's regime)", "fmnist-paper", "inter_l2",
          {"method": "fedquad"}, {"method": "fedavg"}, "not below"),
    Claim("FedQuad is ahead of FedAvg under skew", "fmnist-skew", "final_acc",
          {"method": "fedquad", "alpha": "skew"}, {"method": "fedavg", "alpha": "skew"}, "above"),
    Claim("FedQuad is ahead of FedAvg in the paper's regime (many clients, low participation)", "fmnist-paper",
          "final_acc", {"method": "fedquad"}, {"method": "fedavg"}, "above", fallback="fmnist-regime"),
    Claim("FedQuad is ahead of MOON in the paper's regime", "fmnist-paper", "final_acc",
          {"method": "fedquad"}, {"method": "moon"}, "above", fallback="fmnist-regime"),
    Claim("FedQuad is ahead of MOON under skew", "fmnist-methods", "final_acc",
          {"method": "fedquad", "alpha": "paper"}, {"method": "moon", "alpha": "paper"}, "above"),
    Claim("(FedQuad ahead of FedAvg on the one-minute demo's study, digits, α = 0.1)", "digits-alpha",
          "final_acc", {"method": "fedquad", "alpha": 0.1}, {"method": "fedavg", "alpha": 0.1}, "above", same_as=12),
)
# The recorded studies no row tests, and why (docs/claims.md lists them under the table).
NOT_IN_TABLE = {
    "digits-margins": "FedQuad's margins m1 x m2 at one skew: no claim of the paper names margin values; Explore's "
                      "heatmap tests each cell against FedAvg (Holm over the grid's cells)",
    "fmnist-regime": "the paper's regime at 100 clients: the fallback of rows 13-14 when fmnist-paper (the paper's "
                     "scale, 200 clients) is not in the store",
}
LOW_PARTICIPATION = 0.05
PARTICIPATION_CLAIM = "FedQuad stays ahead of FedAvg at 1-5 % participation per round"
NOT_OFFLINE = ("CIFAR-10, 200 clients, α = 0.3: FedQuad 80.13 %, FedAvg 74.05 %, MOON 49.69 %",
               "CIFAR-100, 200 clients, α = 0.3: FedQuad 26.90 %, MOON 13.06 %",
               "Tiny-ImageNet, 10 clients, α = 0.3: FedQuad 35.06 %")


def low_participation(studies: StudyStore) -> list[tuple[float, str]]:
    """(participation, name) of the studies with a participation of at most 5 % (in the base or
    on an axis) that compare FedQuad and FedAvg, lowest participation first."""
    out = []
    for name in studies.names():
        try:
            s = studies.read(name)
        except StoreError:
            continue
        values = [(s.get("base") or {}).get("participation"), *((s.get("axes") or {}).get("participation") or [])]
        low = [v for v in values if isinstance(v, (int, float)) and v <= LOW_PARTICIPATION]
        if low:
            out.append((min(low), name))
    return sorted(out)


def unused_studies(root: str | os.PathLike, results: list[ClaimResult]) -> dict[str, str]:
    """The studies of ``root`` that no row of ``results`` tests, each with why (``NOT_IN_TABLE``)."""
    used = {r.study for r in results}
    names = [n for n in StudyStore(Path(root)).names() if n not in used]
    return {n: NOT_IN_TABLE.get(n, "no claim of the paper is tested on it") for n in names}
