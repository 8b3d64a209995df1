"""A run's configuration: the ``RunConfig`` dataclass, its defaults and their resolution
(``run``), the type check of its fields (``field_types``), the one preflight of a config or a
grid before any work starts (``preflight``), the limits of every count and size (``limits``),
where a run trains (``devices``), and the methods' display names without torch
(``method_labels``). The package re-exports ``run``'s names: ``from fedquad_core.config import
RunConfig``."""
from .run import (CLIENT_EXECS, DATASET_DEFAULTS, DATASET_NAMES, DEFAULT_MODEL, DEVICES, MODEL_NAMES, ConfigError,
                  RunConfig, alpha_label)

__all__ = ["CLIENT_EXECS", "DATASET_DEFAULTS", "DATASET_NAMES", "DEFAULT_MODEL", "DEVICES", "MODEL_NAMES",
           "ConfigError", "RunConfig", "alpha_label"]
