"""The Dirichlet α in one place: how it is read (``parse_alpha``), how it is written
(``alpha_text``), the one rule a value must meet (``alpha_problem``) and the α steps every page
offers (``ALPHA_STEPS``). IID is ``None`` in a RunConfig; in text it is ``iid`` (read in any case;
``inf``, ``none`` and ``null`` are read as IID too, as the command line and study files always
accepted them). Torch-free: the dashboard's first modules import it.

The rule is checked once per configuration, by the preflight (``preflight.validate``). The
partition's own guard (``numerics.partition.dirichlet_partition``) repeats it inside the draw: that
module is part of the engine fingerprint and stays as it is.

**The one α rule**, which the check and the partition share (``alpha_kind`` states it;
``tests/engine/config/test_alpha_rule.py`` pins both against one table of inputs): an α means IID
when it is None or +∞ (the text ``inf`` is read as IID for the same reason), a Dirichlet draw
when it is a finite number > 0, and nothing otherwise (0, negatives, NaN, -∞, text: refused by
both). ``partition(alpha)`` follows exactly that. A *configuration* must moreover spell IID as
None, never +∞ (one run, one run key: ``version.run_key`` would tell ``inf`` from ``None``), and
hold a number float32 can hold (the model trains in float32): ``alpha_problem`` refuses a +∞
number with a line that says to use --iid, and a finite α outside float32 with a line of its own.
One leniency of the partition is outside the rule: it reads a bool as Python's int (True: α = 1);
the check refuses a bool, so no checked configuration reaches it."""
from __future__ import annotations

import math
from typing import Any

from .numbers import FLOAT_MAX, finite_number, float32_problem as _float32_problem, parse_float
from .run import alpha_label

IID_WORDS = ("iid", "inf", "none", "null")  # read as IID; written "iid" (value style) or "IID"
# the α a page offers (Partitions, Launch, the comparison picker): 1-2-3-5 steps from strong skew
# to close to IID
ALPHA_STEPS = (0.01, 0.02, 0.03, 0.05, 0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0, 20.0, 50.0, 100.0)
STYLES = ("value", "short", "label")


def parse_alpha(value: Any) -> float | None:
    """An α from text or a number: None for IID (None or an ``IID_WORDS`` word, any case), else the
    number as a float (not yet checked: ``alpha_problem`` says whether it is allowed). Raises
    ``ValueError`` for anything else (a bool, text that is not a number)."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"alpha {value!r} is not a number")
    if isinstance(value, (int, float)):
        return parse_float(value)  # an int too large for a float is inf: alpha_problem names it
    text = str(value).strip()
    if text.lower() in IID_WORDS:
        return None
    return parse_float(text)  # the one rule of numbers: no '_', ASCII digits only


def is_iid(alpha: Any) -> bool:
    """None, or NaN (how pandas stores None in a number column)."""
    return alpha is None or (isinstance(alpha, float) and math.isnan(alpha))


def alpha_text(alpha: float | None, style: str = "value") -> str:
    """An α written out: ``value`` ("iid", "0.5": what ``parse_alpha`` reads back exactly, for the
    command line and study files), ``short`` ("IID", "0.5": table cells, slider ticks) or ``label``
    ("IID", "α=0.5": titles and sentences). NaN counts as IID."""
    if style not in STYLES:
        raise ValueError(f"unknown alpha style {style!r}: use one of {', '.join(STYLES)}")
    if is_iid(alpha):
        return alpha_label(None) if style == "value" else alpha_label(None, iid="IID")
    if style == "value":
        return alpha_label(alpha)
    return ("α=" if style == "label" else "") + alpha_label(alpha, "g")


IID, DIRICHLET = "iid", "dirichlet"


def alpha_kind(alpha: Any) -> str | None:
    """What an α means under the one α rule (the partition's reading): ``"iid"`` for None or +∞,
    ``"dirichlet"`` for a finite number > 0, None for anything else (refused by the check and by
    the partition). ``alpha_problem`` says whether a configuration may hold it."""
    if alpha is None:
        return IID
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        return None
    if math.isinf(alpha) and alpha > 0:
        return IID
    return DIRICHLET if math.isfinite(alpha) and alpha > 0 else None


def alpha_problem(alpha: Any) -> str | None:
    """The one rule of α, as a one-line message naming the flag, or None: IID (None), or a finite
    number > 0 that float32 can hold (not below its smallest normal number: ``numbers.float32_problem``)."""
    if alpha is None:
        return None
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        return f"alpha must be a finite number or IID (got {alpha!r}): change --alpha, or use --iid"
    if not finite_number(alpha, FLOAT_MAX):
        iid = " (∞ means IID: use --iid)" if alpha_kind(alpha) == IID else ""
        return (f"alpha must be a finite number float32 can hold (at most {FLOAT_MAX:.3g}; got {alpha!r}): "
                f"change --alpha{iid}")
    if alpha <= 0:
        return f"alpha must be a number > 0 (got {alpha!r}): change --alpha (small = strong skew), or use --iid"
    problem = _float32_problem(alpha)  # a positive α float32 rounds to 0
    return f"alpha {problem}: change --alpha" if problem else None
