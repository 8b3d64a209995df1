""""My deck": figures a user collects from any page ("Add to my deck" next to each figure's
Download menu), kept in ``st.session_state`` while the tab is open, listed, reordered and
exported as slides on the Lesson page (same PDF / PPTX / zip code as the lesson, ``app.export.slides``).
"""
from __future__ import annotations

import plotly.graph_objects as go
import streamlit as st

from app.export.slides import Slide, SlideFigure

KEY = "my_deck"


def _deck() -> list[dict]:
    return st.session_state.setdefault(KEY, [])


def items() -> list[dict]:
    return list(_deck())


def add(fig, data, name: str, caption: str | None = None) -> None:
    """Append one figure (``fig`` / ``data`` may be zero-argument callables, evaluated now)."""
    fig = fig() if callable(fig) else fig
    data = data() if callable(data) else data
    title = (fig.layout.title.text or name).replace("<br>", " ")
    _deck().append({"fig": go.Figure(fig), "title": title, "caption": caption or "", "data": data, "name": name})


def move(i: int, step: int) -> None:
    deck = _deck()
    j = i + step
    if 0 <= i < len(deck) and 0 <= j < len(deck):
        deck[i], deck[j] = deck[j], deck[i]


def remove(i: int) -> None:
    deck = _deck()
    if 0 <= i < len(deck):
        deck.pop(i)


def as_slides(deck: list[dict]):
    """One slide per collected figure: its title, the figure, its caption, its file name as footer."""
    return [Slide(d["title"], [d["caption"]] if d["caption"] else [], [SlideFigure(d["name"], d["fig"], d["data"])],
                  f"FedQuad Lab · {d['name']}") for d in deck]
