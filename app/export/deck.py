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


MAX_FIGURES = 24  # a deck is a lecture's worth of slides
MAX_BYTES = 12 << 20  # what one tab's deck may hold in the server's memory (figures and their data)
REFUSED = "my_deck_refused"  # {button key: the one line saying why the last add was refused}


def item_bytes(fig: go.Figure, data) -> int:
    """About what one deck entry holds in memory: the figure as JSON and its data table."""
    size = len(fig.to_json())
    if data is not None and hasattr(data, "memory_usage"):
        size += int(data.memory_usage(deep=True).sum())
    return size


def held_bytes() -> int:
    return sum(d.get("bytes", 0) for d in _deck())


def add(fig, data, name: str, caption: str | None = None, key: str | None = None) -> bool:
    """Append one figure (``fig`` / ``data`` may be zero-argument callables, evaluated now), unless
    the deck already holds ``MAX_FIGURES`` figures or the new one would take it above ``MAX_BYTES``:
    then nothing is added and ``REFUSED[key]`` says why (shown beside that button). Each browser
    session has its own deck in the server's memory: the bound keeps one student from filling it."""
    refused = st.session_state.setdefault(REFUSED, {})
    refused.pop(key, None)
    deck = _deck()
    if len(deck) >= MAX_FIGURES:
        refused[key] = (f"Your deck is full ({MAX_FIGURES} figures): export it or remove a figure on the Lesson "
                        "page before adding another.")
        return False
    fig = fig() if callable(fig) else fig
    data = data() if callable(data) else data
    fig = go.Figure(fig)
    size = item_bytes(fig, data)
    if held_bytes() + size > MAX_BYTES:
        refused[key] = (f"Your deck would hold more than {MAX_BYTES >> 20} MB of figures and data: export it or "
                        "remove a figure on the Lesson page before adding this one.")
        return False
    title = (fig.layout.title.text or name).replace("<br>", " ")
    deck.append({"fig": fig, "title": title, "caption": caption or "", "data": data, "name": name, "bytes": size})
    return True


def refusal(key: str) -> str | None:
    """Why the last "Add to my deck" of button ``key`` was refused, or None."""
    return (st.session_state.get(REFUSED) or {}).get(key)


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
