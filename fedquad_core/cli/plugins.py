"""Subcommands other packages add to ``fedquad`` without the engine importing them: each is an
entry point of the group ``fedquad.commands`` (declared in a package's ``pyproject.toml``, e.g.
the dashboard's ``fedquad export html``), read here through ``importlib.metadata``. The engine
names no module of the app; an entry point that fails to load becomes a command that says so in
one line (exit 2), never a traceback of ``fedquad --help``.

An entry point's object has ``help`` (one line), ``add_arguments(parser)`` and ``run(args) ->
int``; the object is loaded when the parser is built, so its module should import little."""
from __future__ import annotations

import argparse
from importlib.metadata import entry_points

from ..errors import UserError

GROUP = "fedquad.commands"


class _Unavailable:
    """A registered command whose module cannot be imported here (the dashboard's extras missing)."""

    def __init__(self, name: str, reason: str):
        self.help = f"(unavailable here: {reason})"
        self._line = f"'{name}' is not available: {reason} (install the dashboard's extras: pip install -e '.[app]')"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)

    def run(self, args: argparse.Namespace) -> int:
        raise UserError(self._line)


def commands(builtin: set[str] | frozenset[str] = frozenset()) -> dict[str, object]:
    """The registered commands by name (the first of a name wins; a built-in name is never replaced)."""
    out: dict[str, object] = {}
    for ep in entry_points(group=GROUP):
        if ep.name in out or ep.name in builtin:
            continue
        try:
            out[ep.name] = ep.load()
        except Exception as exc:  # an optional extra missing or broken: the command says so when used
            out[ep.name] = _Unavailable(ep.name, f"{type(exc).__name__}: {exc}")
    return out
