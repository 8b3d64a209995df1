"""The one rule for a number, wherever it enters: a command-line flag, a ``--grid`` value, a study
or config file, a stored file read back. Torch-free.

Text: an integer is plain ASCII digits 0-9 with an optional sign, at most ``INT_DIGITS_MAX`` of
them; a number is written as in the docs (``0.1``, ``1e-3``, ``5``; ``nan`` and ``inf`` are read
so that the setting's own check names them). Refused, with the same one line everywhere: ``_``
(Python reads ``1_0`` as 10), digits of other scripts (Python reads ``'١٠'`` and ``'１０'`` as 10),
spaces inside, and more digits than any setting can use (a 400-digit integer).

Values (JSON, a stored row): ``finite_number`` says whether a value is a number that a float can
hold, without converting it first: ``math.isfinite(10**400)`` raises ``OverflowError`` instead of
answering."""
from __future__ import annotations

import math
import re
from typing import Any

INT_DIGITS_MAX = 40  # far above any count (10**30 still reaches its setting's "cannot be above")
TEXT_MAX = 64  # characters of one number as text
FLOAT_LIMIT = 1.7976931348623157e308  # float64's largest
FLOAT_MAX = 3.4028234663852886e38  # float32's largest: |lr|, momentum, weight decay, a float method parameter, alpha
FLOAT_TINY = 1.1754943508222875e-38  # float32's smallest normal: a smaller non-zero value is 0 or denormal in training

_INT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[+-]?(?:inf|infinity|nan)",
                    re.ASCII | re.IGNORECASE)

INT_RULE = f"plain digits 0-9, at most {INT_DIGITS_MAX}; no '_', no spaces inside, no other scripts' digits"
FLOAT_RULE = "like 0.1, 5 or 1e-3: digits 0-9; no '_', no spaces inside, no other scripts' digits"


class NumberError(ValueError):
    """Text that is not a number by the one rule; ``str()`` is the one-line reason."""


def _shown(text: Any) -> str:
    text = str(text)
    return repr(text if len(text) <= 24 else text[:21] + "...")


def parse_int(text: Any) -> int:
    """``text`` as an int by the one rule, else ``NumberError``. An int (not a bool) passes as it is."""
    if isinstance(text, int) and not isinstance(text, bool):
        return text
    s = text.strip() if isinstance(text, str) else None
    if s is None or not _INT.fullmatch(s) or len(s.lstrip("+-")) > INT_DIGITS_MAX:
        raise NumberError(f"{_shown(text)} is not an integer ({INT_RULE})")
    return int(s)


def parse_float(text: Any) -> float:
    """``text`` as a float by the one rule, else ``NumberError`` (nan and inf come back as such:
    the setting's own check names them)."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        if isinstance(text, int) and abs(text) > FLOAT_LIMIT:
            return math.inf if text > 0 else -math.inf  # copysign would convert it: OverflowError
        return float(text)
    s = text.strip() if isinstance(text, str) else None
    if s is None or len(s) > TEXT_MAX or not _FLOAT.fullmatch(s):
        raise NumberError(f"{_shown(text)} is not a number ({FLOAT_RULE})")
    return float(s)


def finite_number(value: Any, limit: float = FLOAT_LIMIT) -> bool:
    """A number (not a bool) that is finite and at most ``limit`` in size; an int of any size is
    compared, never converted."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):
        return abs(value) <= limit
    return math.isfinite(value) and abs(value) <= limit


def float32_problem(value: Any) -> str | None:
    """Why a float setting cannot train in float32 (not finite, too large, or so small that it is 0
    there), or None; one rule for the run's floats, α and the methods' float parameters (used by
    ``limits.check_bounds``, ``alpha.alpha_problem`` and ``stored``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if not finite_number(value, FLOAT_MAX):
        text = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        return f"must be a finite number float32 can hold (at most {FLOAT_MAX:.3g}; got {text})"
    if 0 < abs(value) < FLOAT_TINY:
        return f"{value!r} is below float32's smallest normal number ({FLOAT_TINY:.3g}): training would use 0"
    return None
