"""One plain sentence under every figure, written for students: what to look at, in everyday
words. ``plain(key)`` finds the sentence by the figure's widget key (its first matching prefix);
pages put it before their own, more technical note."""
from __future__ import annotations

# (key prefix, sentence), most specific first
CAPTIONS: tuple[tuple[str, str], ...] = (
    ("x_acc_resp", "Each dot is the final accuracy at one α; the shaded band shows how much the seeds disagree."),
    ("x_ratio_resp", "Lower is better: classes stay tight and apart; the band shows how much the seeds disagree."),
    ("x_rank_resp", "Higher means the model uses more directions of its embedding space to tell classes apart."),
    ("x_acc", "Accuracy on test images round by round; thick line = average over seeds, band = their spread."),
    ("x_ratio", "How spread out each class is compared with how far apart classes are: lower is better."),
    ("x_spec", "How much of the embedding each direction carries; a quick drop means few directions are used."),
    ("x_emb_", "Each dot is a test image, coloured by its true class: tight, separate colours mean a good model."),
    ("emb_", "Each dot is a test image, coloured by its true class: tight, separate colours mean a good model."),
    ("x_heat", "Each cell is one setting of the two margins; blue beats FedAvg, red does worse."),
    ("x_spectra", "One curve per α: the further a curve falls, the fewer directions the embedding uses."),
    ("acc", "Accuracy on test images after each round of training."),
    ("ratio", "How spread out each class is compared with how far apart classes are: lower is better."),
    ("loss", "How wrong the model is on its training data; it should go down."),
    ("g_ratio", "How spread out each class is compared with how far apart classes are: lower is better."),
    ("g_nc1", "How much images of one class still vary compared with the differences between classes."),
    ("g_erank", "How many directions of the embedding the model really uses: higher means less collapse."),
    ("g_pci", "How spread out each class is around its own centre: shorter bars are tighter classes."),
    ("g_spec", "How much of the embedding each direction carries; a quick drop means few directions are used."),
    ("g_cdnv", "How easily two classes are confused: darker cells are pairs that overlap more."),
    ("heat_", "Each row is one client, each column a class: dark cells are the classes a client mostly holds."),
    ("sizes", "How many training images each client holds."),
    ("quad_", "The anchor should sit closer to its own class than to the others, by at least the margins."),
)


def plain(key: str) -> str | None:
    """The plain-language sentence for the figure with widget ``key`` (None when none fits)."""
    return next((text for prefix, text in CAPTIONS if key.startswith(prefix)), None)


def with_plain(key: str, note: str | None) -> str | None:
    """The plain sentence, then the page's own note (either may be missing)."""
    parts = [p for p in (plain(key), note) if p]
    return " ".join(parts) or None
