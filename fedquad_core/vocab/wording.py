"""How the engine writes its numbers and verdicts in words: the namespace
``fedquad_core.api.words`` of the engine's public surface (torch-free). Every table, sentence and
figure title of the dashboard takes its words here, so each is defined once (``vocab/words.py``,
``vocab/metrics.py``, ``study/words.py``):

- **p, δ and α**: ``p_words`` ("p = 0.004", in a sentence) and ``p_value`` ("0.004", a table
  cell): one rule, two places; ``delta_points`` (an accuracy's δ: "1 point"), ``delta_margins``
  (every kind of measure's δ in one phrase); ``alpha_text(alpha, style)`` (α in each of its
  three styles: ``value`` "iid" / "0.5", read back by the command line and study files;
  ``short`` "IID" / "0.5", table cells and ticks; ``label`` "IID" / "α=0.5") and ``alpha_words``
  (its ``label`` style by name: titles and sentences).
- **The methods' names**: ``method_label`` (a method's display name; an unknown name as it is).
- **The measures' names**: ``metric_names(register)`` (every measure's name in one register:
  ``"axis"`` the figures' axes, ``"chart"`` the live charts, ``"title"`` the Clients page,
  ``"words"`` a sentence, ...), ``is_accuracy`` (whether a measure is an accuracy: points, higher
  is better).
- **Verdicts in words**: ``takeaway`` (a verdict and its claim as a step's takeaway),
  ``row_takeaway`` (a claims-table row's), ``claim_words`` (a row's text as a claim),
  ``difference_words`` (one comparison in a clause), and the length rule of a takeaway
  (``MAX_WORDS``, ``word_count``).

A name the app stops using leaves ``__all__`` (``tests/app/test_one_door.py`` checks it)."""
from __future__ import annotations

from ..config.alpha import alpha_text
from ..study.words import MAX_WORDS, claim_words, difference_words, row_takeaway, takeaway, word_count
from .methods import method_label
from .metrics import is_accuracy, names as metric_names
from .words import alpha_words, delta_margins, delta_points, p_value, p_words

__all__ = [
    "p_words", "p_value", "delta_points", "delta_margins", "alpha_text", "alpha_words",
    "method_label", "metric_names", "is_accuracy",
    "takeaway", "row_takeaway", "claim_words", "difference_words", "MAX_WORDS", "word_count",
]
