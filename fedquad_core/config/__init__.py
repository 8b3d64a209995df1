"""A run's configuration: the ``RunConfig`` dataclass, its defaults and their resolution
(``run``), the type check of its fields (``field_types``), the one preflight of a config or a
grid before any work starts (``preflight``), the limits of every count and size (``limits``),
where a run trains (``devices``) and the one α rule (``alpha``). The methods' display names
without torch are ``fedquad_core.vocab.methods``'s, read from each method's own file. The
package re-exports ``run``'s names: ``from fedquad_core.config import RunConfig``. An α is written
by ``alpha.alpha_text`` (or ``vocab.words``'s named styles); ``run.alpha_label`` is the
fingerprinted primitive underneath, not re-exported."""
from .run import (CLIENT_EXECS, DATASET_DEFAULTS, DATASET_NAMES, DEFAULT_MODEL, DEVICES, MODEL_NAMES, ConfigError,
                  RunConfig)

__all__ = ["CLIENT_EXECS", "DATASET_DEFAULTS", "DATASET_NAMES", "DEFAULT_MODEL", "DEVICES", "MODEL_NAMES",
           "ConfigError", "RunConfig"]
