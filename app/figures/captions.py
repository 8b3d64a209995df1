"""One plain sentence under every figure, written for students: what to look at, in everyday
words. ``plain(key)`` finds the sentence by the figure's widget key (its first matching prefix);
pages put it before their own, more technical note.

A sentence about a figure whose axes change with the study (Explore's response plots and heatmap)
names them with ``{x}`` and ``{y}``: ``plain(key, fig)`` fills them in from the figure's own axis
titles, so the words under a figure are those on it (``tests/app/figures/test_caption_axes.py``)."""
from __future__ import annotations

import re

# (key prefix, sentence), most specific first
CAPTIONS: tuple[tuple[str, str], ...] = (
    ("x_acc_resp", "Each dot is the final accuracy at one setting of {x}; the shaded band shows how much the seeds "
                   "disagree."),
    ("x_ratio_resp", "Each dot is the final intra/inter ratio at one setting of {x}: lower is better (classes stay "
                     "tight and apart); the band shows how much the seeds disagree."),
    ("x_rank_resp", "Each dot is the effective rank at one setting of {x}: higher means the model uses more "
                    "directions of its embedding space to tell classes apart."),
    ("x_rank_acc", "Each line is the effective rank of one group's runs at the same test accuracy (band: the seeds' "
                   "spread): a lower line at equal accuracy uses fewer directions; a gap at the same round that "
                   "closes here was slower training, not collapse."),
    ("x_local_resp", "Each dot is the local models' value at one setting of {x}; the band shows how much the seeds "
                     "disagree."),
    ("x_acc", "Accuracy on test images round by round; thick line = average over seeds, band = their spread."),
    ("x_ratio", "How spread out each class is compared with how far apart classes are: lower is better."),
    ("x_spectra", "One curve per α: the further a curve falls, the fewer directions the embedding uses."),  # before x_spec
    ("x_spec", "How much of the embedding each direction carries; a quick drop means few directions are used."),
    ("x_emb_", "Each dot is a test image, coloured by its true class: tight, separate colours mean a good model."),
    ("emb_", "Each dot is a test image, coloured by its true class: tight, separate colours mean a good model."),
    ("x_heat", "Each cell is one setting of {x} (across) and {y} (up); blue beats FedAvg's mean, red falls below it "
               "(raw means: the word in the cell says what the test shows)."),
    ("acc", "Accuracy on test images after each round of training."),
    ("ratio", "How spread out each class is compared with how far apart classes are: lower is better."),
    ("loss", "How wrong the model is on its training data; it should go down."),
    ("g_ratio", "How spread out each class is compared with how far apart classes are: lower is better."),
    ("g_nc1", "How much images of one class still vary compared with the differences between classes."),
    ("g_erank", "How many directions of the embedding the model really uses, round by round; it moves with "
                "training (up on some data sets, down on others), so compare at equal accuracy before calling it "
                "collapse."),
    ("g_pci", "How spread out each class is around its own centre: shorter bars are tighter classes."),
    ("g_spec", "How much of the embedding each direction carries; a quick drop means few directions are used."),
    ("g_cdnv", "How easily two classes are confused: brighter (yellow) cells are pairs that overlap more, dark "
               "(purple) cells pairs that are easy to tell apart."),
    ("heat_", "Each row is one client, each column a class: dark cells are the classes a client mostly holds."),
    ("sizes", "How many training images each client holds."),
    ("quad_", "The anchor should sit closer to its own class than to the others, by at least the margins."),
)


FALLBACK_AXIS = {"x": "the x axis", "y": "the y axis"}


def axis_words(title) -> str:
    """What an axis title names, as a sentence says it: ``α (evenly spaced)`` -> ``α``, ``final
    accuracy (not from 0)`` -> ``final accuracy`` (a trailing remark in brackets is dropped)."""
    text = re.sub(r"<[^>]+>", " ", str(title or ""))
    return re.sub(r"\s*\([^()]*\)\s*$", "", text).strip()


def axis_title(fig, letter: str) -> str:
    """The title text of ``fig``'s first ``letter`` axis ("" when it has none); ``fig`` is a plotly
    figure or its JSON dict."""
    if not isinstance(fig, dict):
        return fig.layout[f"{letter}axis"].title.text or ""
    title = (fig.get("layout", {}).get(f"{letter}axis") or {}).get("title")
    return (title.get("text") if isinstance(title, dict) else title) or ""


def plain(key: str, fig=None) -> str | None:
    """The plain-language sentence for the figure with widget ``key`` (None when none fits), its
    ``{x}`` / ``{y}`` filled in with what ``fig``'s axis titles name."""
    text = next((text for prefix, text in CAPTIONS if key.startswith(prefix)), None)
    if text is None or "{" not in text:
        return text
    words = {k: (axis_words(axis_title(fig, k)) if fig is not None else "") or FALLBACK_AXIS[k] for k in "xy"}
    return text.format(**words)


def with_plain(key: str, note: str | None, fig=None) -> str | None:
    """The plain sentence (its axes named from ``fig``), then the page's own note (either may be missing)."""
    parts = [p for p in (plain(key, fig), note) if p]
    return " ".join(parts) or None
