"""The methods' display names and citations, importable without torch (the registry in
``methods/`` pulls it in), so the dashboard's first page can name and cite the methods before any
torch import. ``tests/engine/config/test_method_labels.py`` checks both tables against the registry."""
from __future__ import annotations

LABELS = {"fedavg": "FedAvg", "fedprox": "FedProx", "moon": "MOON", "supcon": "SupConFL", "triplet": "TripletFL",
          "quadruplet": "QuadrupletFL", "fedquad": "FedQuad"}
CITATIONS = {
    "fedavg": "McMahan et al., Communication-Efficient Learning of Deep Networks from Decentralized Data, AISTATS 2017",
    "fedprox": "Li et al., Federated Optimization in Heterogeneous Networks, MLSys 2020",
    "moon": "Li, He & Song, Model-Contrastive Federated Learning, CVPR 2021",
    "supcon": "Khosla et al., Supervised Contrastive Learning, NeurIPS 2020",
    "triplet": "Schroff, Kalenichenko & Philbin, FaceNet, CVPR 2015",
    "quadruplet": "Chen et al., Beyond Triplet Loss: a Deep Quadruplet Network for Person Re-identification, CVPR 2017",
    "fedquad": "Göksu & Pugeault, FedQuad: Federated Stochastic Quadruplet Learning, arXiv 2509.04107, 2025",
}


def method_label(name: str) -> str:
    """The method's display name; an unknown name as it is."""
    return LABELS.get(name, str(name))
