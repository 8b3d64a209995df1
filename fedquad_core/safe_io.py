"""One safe way to read a file that someone else may have put in a run store, a recorded root, a
data cache or a follow folder.

What it guarantees, whatever sits at the path:
- only a regular file is read: the file is opened with ``O_NONBLOCK`` (a named pipe never
  blocks the open) and checked with ``fstat`` (a pipe, a device such as ``/dev/zero``, a socket or
  a folder is refused, also behind a symbolic link);
- at most ``limit`` bytes are read, whatever ``stat`` says (a device reports size 0);
- JSON is parsed with duplicate keys refused and nesting bounded (a file of 100,000 ``[`` is a
  damaged file, not a RecursionError);
- every refusal is one ``DamagedFile`` whose message is one line of bounded length naming the
  file: a 20 MB value is never echoed.

A missing file raises ``FileNotFoundError`` (callers decide what missing means).
Not part of the numerics (no fingerprint).
"""
from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import Any

MAX_REASON = 240  # characters of a damage reason shown on a page or a terminal line
MAX_DEPTH = 64  # JSON nesting a run file needs: under 10


class DamagedFile(ValueError):
    """A file that cannot be read safely or is not what it should be; ``str()`` is one line."""

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path, self.reason = Path(path), one_line(reason)
        super().__init__(self.reason)


class TooLarge(DamagedFile):
    """A file larger than its reader's bound (read no further)."""


def one_line(text: Any, limit: int = MAX_REASON) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def shown(value: Any, limit: int = 40) -> str:
    """``repr(value)`` cut to ``limit`` characters, for quoting a bad value inside a reason."""
    text = repr(value) if not isinstance(value, str) or len(value) <= limit else repr(value[:limit]) + "…"
    return one_line(text, limit + 4)


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):
        if test(mode):
            return name
    return "not a regular file"


def read_bytes(path: str | os.PathLike, limit: int) -> bytes:
    """The bytes of the regular file at ``path``, at most ``limit`` of them (more is damage)."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise DamagedFile(path, f"cannot read {path.name}: a loop of symbolic links") from None
        raise DamagedFile(path, f"cannot read {path.name}: {e.strerror or e}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise DamagedFile(path, f"cannot read {path.name}: it is {_kind(mode)}, not a regular file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as e:
        raise DamagedFile(path, f"cannot read {path.name}: {e.strerror or e}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise TooLarge(path, f"cannot read {path.name}: larger than {limit:,} bytes")
    return b"".join(chunks)


def read_text(path: str | os.PathLike, limit: int) -> str:
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise DamagedFile(path, f"{Path(path).name} is not UTF-8 text") from None


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


class _Duplicate(ValueError):
    pass


def _too_deep(text: str, max_depth: int) -> bool:
    """True when brackets nest deeper than ``max_depth`` (strings skipped): checked before
    ``json`` recurses, so a deep file costs one linear scan."""
    if text.count("[") + text.count("{") <= max_depth:
        return False
    depth, in_string, escaped = 0, False, False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            if depth > max_depth:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def parse_json(text: str, name: str, *, max_depth: int = MAX_DEPTH) -> Any:
    """``text`` as JSON, duplicate keys and deep nesting refused; ``name`` names it in the error.
    NaN and Infinity parse (a diverged run records them); callers check values they use."""
    if _too_deep(text, max_depth):
        raise DamagedFile(name, f"{name}: nested more than {max_depth} levels deep")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates)
    except _Duplicate as e:
        raise DamagedFile(name, f"{name}: the key {one_line(e.args[0], 60)!r} appears twice") from None
    except json.JSONDecodeError as e:
        raise DamagedFile(name, f"{name} is not valid JSON ({e.msg}, line {e.lineno})") from None
    except (RecursionError, ValueError) as e:
        raise DamagedFile(name, f"{name} is not valid JSON ({type(e).__name__})") from None


def read_json(path: str | os.PathLike, limit: int, *, max_depth: int = MAX_DEPTH) -> Any:
    """The JSON value in the regular file at ``path`` (at most ``limit`` bytes)."""
    path = Path(path)
    return parse_json(read_text(path, limit), path.name, max_depth=max_depth)
