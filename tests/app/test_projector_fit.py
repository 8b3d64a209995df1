"""app/presenter/fit.py: talk figures laid out for their column on a 1280x720 projector (the layout
sweep, tests/e2e/test_talk_layout.py, measures the result in Chromium)."""
from __future__ import annotations

import numpy as np

from app.figures import palette as theme
from app.figures.fit import fit
from app.figures.geometry import embedding_scatter
from app.presenter import fit as projector

CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def _embedding(title="fmnist-skew alpha=0.1 method=fedavg seed=0, round 80 (PCA)"):
    rng = np.random.default_rng(0)
    return embedding_scatter(rng.normal(size=(200, 2)), np.repeat(np.arange(10), 20), CLASSES, title=title, talk=True)


def test_column_widths_at_1280_with_the_sidebar_open():
    assert projector.column_width(2) == (916 - 16) // 2
    assert projector.column_width(1) == projector.WIDEST
    assert projector.column_width(3) < theme.TALK_WIDTH  # a row of three: left as built


def test_a_figure_that_fits_its_room_keeps_its_height():
    fig = fit(([{"type": "scatter", "x": [0, 1], "y": [0, 1], "name": "FedAvg"}],
                   {"title": {"text": "Accuracy"}, "height": 420}), True)
    assert projector.fit(fig, 2) is fig


def test_a_tall_figure_is_laid_out_for_its_wider_column_and_gets_shorter():
    names = [f"a rather long legend entry number {i}" for i in range(4)]
    fig = fit(([{"type": "scatter", "x": [0, 1], "y": [i, i + 1], "name": n} for i, n in enumerate(names)],
                   {"title": {"text": "Final accuracy vs α (last 10 rounds), mean ± std over seeds"}}), True)
    assert fig.layout.height > theme.DEFAULT_HEIGHT[True]  # the theme grew it for its legend at a third of the page
    out = projector.fit(fig, 2)
    assert out.layout.height < fig.layout.height


def test_an_embedding_gets_its_class_legend_beside_it_and_one_screens_room():
    fig = _embedding()
    assert fig.layout.height > 600  # ten class names in rows above the points
    out = projector.side_legend(projector.fit(fig, 2))
    assert out.layout.height == 460 and out.layout.legend.orientation == "v"
    assert out.layout.margin.r > 100 and out.layout.margin.t < fig.layout.margin.t
    assert [t.name for t in out.data] == [t.name for t in fig.data]
