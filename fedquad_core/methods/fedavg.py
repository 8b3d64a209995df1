"""FedAvg: cross-entropy only (McMahan et al., AISTATS 2017). The base objective is FedAvg."""
from .base import LocalObjective


class FedAvg(LocalObjective):
    pass
