"""Follow the lecturer: the presenter's position in the dashboard (page, Explore study and slider
position, Lesson step), kept in ``<root>/follow/<code>.json`` so that students' sessions, in
whichever server process, can read it and follow.

Only the presenter's session writes the file (atomically: a temp file in the same folder, then
``os.replace``); a student's session only reads it. ``code`` is a short random token that a link
carries (``?follow=<code>``): a strict pattern keeps it from naming any other path. A missing,
damaged or foreign file reads as None, never raises.

The app's, not the engine's: the engine knows only that ``follow`` is a folder of its store, never
a run (the store's shared folder, ``api.SharedFolder``); what a position holds is the dashboard's.
"""
from __future__ import annotations

import re
import secrets
import time
from pathlib import Path
from typing import Any

from fedquad_core import api
from fedquad_core.api import DamagedFile

FOLDER = api.SharedFolder.FOLDER  # <root>/follow
CODE = re.compile(r"[a-z0-9]{6,16}")
_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: read off a projector
MAX_BYTES = 64_000  # a position is a few hundred bytes; anything larger is not ours


class BadCode(ValueError):
    """A follow code that is not a short lower-case token."""


def check_code(code: Any) -> str:
    if not isinstance(code, str) or not CODE.fullmatch(code):
        raise BadCode(f"not a follow code: {code!r} (6-16 lower-case letters and digits)")
    return code


def is_code(code: Any) -> bool:
    return isinstance(code, str) and CODE.fullmatch(code) is not None


def new_code(length: int = 8) -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


def path_of(root: Path | str, code: str) -> Path:
    return api.SharedFolder(root).path(f"{check_code(code)}.json")


def read_position(root: Path | str, code: str) -> dict | None:
    """The presenter's last position, ``{"seq": int, "written": float, "position": dict}``; None
    when the code is not valid, or the file is missing, too large, not JSON or not of that shape."""
    if not is_code(code):
        return None
    try:  # a regular file of at most MAX_BYTES: a pipe or /dev/zero here never hangs or fills memory
        data = api.SharedFolder(root).read(f"{code}.json", MAX_BYTES)
    except (OSError, DamagedFile):
        return None
    if not isinstance(data, dict):
        return None
    seq, written, position = data.get("seq"), data.get("written"), data.get("position")
    if not (isinstance(seq, int) and not isinstance(seq, bool) and seq >= 1
            and isinstance(written, (int, float)) and not isinstance(written, bool) and isinstance(position, dict)):
        return None
    return {"seq": seq, "written": float(written), "position": position}


def write_position(root: Path | str, code: str, position: dict) -> int:
    """Store ``position`` (JSON-able) under ``code``; the sequence number goes up by one on every
    write (from the file's own, so a presenter's new server process continues it). Returns it."""
    name = path_of(root, code).name
    if not isinstance(position, dict):
        raise TypeError("a position is a dict")
    previous = read_position(root, code)
    seq = (previous["seq"] if previous else 0) + 1
    api.SharedFolder(root).write(name, {"seq": seq, "written": time.time(), "position": position})
    return seq
