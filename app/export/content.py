"""What the deck is made of: a ``Slide`` (a lesson step, or one figure of "my deck") and its
``SlideFigure``s, and ``from_step``, a lesson step as exported. ``app.export.slides`` makes the
files from a list of these.
"""
from __future__ import annotations

import re

import dataclasses
from dataclasses import dataclass, field

import pandas as pd
import plotly.graph_objects as go


@dataclass
class SlideFigure:
    name: str                          # file stem of its exports
    fig: go.Figure
    data: pd.DataFrame | None = None   # the plotted numbers (CSV)
    caption: str = ""
    screen_only: bool = False          # drawn on the page only, not in the deck (the claims table in full: docs/claims.md)
    deck_only: bool = False            # in the deck only, not drawn on the page (the claims summary outside talk mode)


@dataclass
class Slide:
    """One screen of the lesson, one collected deck figure, one exported slide: the same thing."""
    title: str
    sentences: list[str] = field(default_factory=list)
    figures: list[SlideFigure] = field(default_factory=list)
    footer: str = ""
    problem: str | None = None         # what to run instead, when the data for a lesson step is missing
    notices: list[str] = field(default_factory=list)  # damaged files a lesson step left out (one line each)
    lead: str = ""                     # what the figure shows, in one line (under the takeaway, in "The numbers")
    takeaway: str = ""                 # the one sentence a student can repeat, on top (and the deck page's title)
    verdict_words: list[str] = field(default_factory=list)  # what verdicts wrote (the phrase test strips these)
    per_page: int = 1                  # figures on one deck page (2: compared panels side by side)
    confirmed: list[str] = field(default_factory=list)  # the registered rows on fresh seeds, each "C1 (...): verdict"
    confirmed_numbers: list[str] = field(default_factory=list)  # each row's takeaway and numbers ("The numbers", notes)
    rests_on: str = ""                 # the figure (name) showing the comparison the takeaway states: the deck's first


def from_step(content: Slide) -> Slide:
    """A lesson step as exported: a step that only names its problem says it as its sentence; the
    figures drawn on the screen only are left out; the figure the takeaway rests on comes first."""
    sentences = list(content.sentences) or ([content.problem] if content.problem else [])
    figures = [f for f in content.figures if not f.screen_only]
    figures.sort(key=lambda f: f.name != content.rests_on)  # the takeaway's own figure first (a stable sort)
    return dataclasses.replace(content, sentences=sentences, figures=figures)


def untagged(confirmed: list[str]) -> list[str]:
    """Each registered row's line ("C6 (inter-class distance, digits): shown beyond seed noise")
    without the claim's tag ("C6: shown beyond seed noise"): where room is short (a projector's one
    line, a deck page's footer)."""
    return [re.sub(r" \([^)]*\):", ":", c, count=1) for c in confirmed]
