"""Figures laid out for the projector (1280x720, talk mode): the page's content is at least 916 px
wide (1216 with the sidebar collapsed, 916 with it open) and its columns 16 px apart, so a row of
``n`` figures gives each at least (916 - 16 (n - 1)) / n px. Talk figures are made for a third of the page (``theme.TALK_WIDTH``);
in a wider column their titles and legends take fewer lines once laid out again for it, and the
figure is shorter: the difference between a figure whole on the first screen and one cut at its
bottom (tests/e2e/test_talk_layout.py measures every figure's box)."""
from __future__ import annotations

import plotly.graph_objects as go

from app.figures import palette as theme
from app.figures.fit import fit as fit_figure

# the narrowest content a talk page has at 1280 px: the sidebar open (a third of it is about 295 px)
CONTENT_1280, COLUMN_GAP = 916, 16
WIDEST = 900  # a figure alone in its row is laid out for at most this (it is then drawn wider, not taller)


def column_width(n: int) -> int:
    """A figure's width in a row of ``n`` on the projector."""
    return min(WIDEST, (CONTENT_1280 - COLUMN_GAP * (max(n, 1) - 1)) // max(n, 1))


def fit(fig: go.Figure, n: int, room: int | None = None) -> go.Figure:
    """``fig`` (a talk figure) laid out again for its column in a row of ``n`` on the projector,
    when it is taller than ``room`` (default: a talk figure's height) and that makes it shorter;
    else kept as built (a figure that fits keeps its builder's height: a heatmap sized by its rows
    would be squashed; a table; a figure its builder laid out for its legend's real width,
    ``app.lesson.figures.CLASS_LEGEND_WIDTH``)."""
    width = column_width(n)
    built = fig.layout.height or theme.DEFAULT_HEIGHT[True]
    if (built <= (room or theme.DEFAULT_HEIGHT[True]) or width <= theme.TALK_WIDTH or not fig.data
            or all(t.type == "table" for t in fig.data)):
        return fig
    out = fit_figure(go.Figure(fig), True, width=width, height=min(built, theme.DEFAULT_HEIGHT[True]))
    return out if (out.layout.height or 0) <= built else fig


def side_legend(fig: go.Figure, height: int = 460) -> go.Figure:
    """An embedding picture (a point cloud coloured by class) with its class legend in one column
    at the plot's right instead of rows above it: ten class names in rows take half a projector's
    height above the plot (the figure 700 px tall), in a column they take the width beside it.
    The figure is ``height`` px tall, its title kept as laid out."""
    names = [str(t.name) for t in fig.data if t.name and t.showlegend is not False]
    if not names:
        return fig
    out = go.Figure(fig)
    size = 18  # talk mode's legend font (``theme``)
    right = int(theme.CHAR * size * max(len(n) for n in names)) + 56  # symbol, gaps
    text = (out.layout.title.text or "") if out.layout.title else ""
    lines = text.count("<br>") + 1 if text else 0
    top = int(24 * 1.9 + (lines - 1) * 24 * 1.25 + 12) if lines else 24
    bare = all(not (a.title and a.title.text) and a.showticklabels is False for a in (out.layout.xaxis, out.layout.yaxis))
    edges = dict(l=16, b=16) if bare else {}  # untitled, unlabelled axes (a projection) need no margin for them
    out.update_layout(height=height, margin=dict(t=top, r=right, **edges),
                      legend=dict(orientation="v", xref="paper", x=1.02, xanchor="left", yref="paper", y=1.0,
                                  yanchor="top", maxheight=1.0, title=dict(side="top")))
    return out
