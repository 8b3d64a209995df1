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

Below the readers: the one way to open a file the engine writes or locks (``open_fd``,
``open_file``, ``touch``, ``atomic_write``: never through a planted link, never blocking on a
planted pipe), ``.npz`` / ``.npy`` reading with the unpacked size checked from the headers before
any array is built (``read_npz``, ``parse_npz``, ``parse_npy``), and the trust rule for a folder
or a program others could change (``unsafe_folder``, ``unsafe_program``).
Not part of the numerics (no fingerprint).
"""
from __future__ import annotations

import errno
import io
import json
import os
import stat
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

MAX_REASON = 240  # characters of a damage reason shown on a page or a terminal line
MAX_DEPTH = 64  # JSON nesting a run file needs: under 10


class DamagedFile(ValueError):
    """A file that cannot be read safely or is not what it should be; ``str()`` is one line."""

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path, self.reason = Path(path), one_line(reason)
        super().__init__(self.reason)


class TooLarge(DamagedFile):
    """A file larger than its reader's bound (read no further), or an .npz that would unpack to more."""


class WrongSize(DamagedFile):
    """An .npz member whose header claims another size than the zip says it holds."""


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


# ---- writing: the one way the engine opens a file it writes or locks --------------------------
#
# Whatever someone planted at the path (a symbolic link to a file outside the store, a named pipe,
# a device, a second hard link of another file), nothing is written through it and nothing waits
# on it: the file is opened with ``O_NOFOLLOW`` (a link at its name is refused, not followed) and
# ``O_NONBLOCK`` (a pipe never blocks the open), then checked with ``fstat`` (a regular file with
# one name) before a byte is written or a lock taken. With ``within`` (the run store's root) no
# folder between that root and the file may be a link either: each is opened with ``O_NOFOLLOW``
# and the file is opened relative to the last. A refusal is one ``UnsafeFile`` line naming the
# path and what to do ("run store: .claims/ab.lock is a symbolic link, not a file: remove it").

_MODES = {  # how -> (flags, truncate after the checks)
    "append": (os.O_WRONLY | os.O_CREAT | os.O_APPEND, False),  # a log, metrics.jsonl
    "lock": (os.O_RDWR | os.O_CREAT, False),                   # a lock file, created when missing
    "read": (os.O_RDONLY, False),                              # look at a lock someone else holds
    "write": (os.O_WRONLY | os.O_CREAT, True),                 # replace the content in place
    "new": (os.O_WRONLY | os.O_CREAT | os.O_EXCL, False),      # a file that must not exist yet
}


class UnsafeFile(DamagedFile):
    """A path the engine would write or lock is a link, a pipe, a device or a folder: refused."""


def _shown(path: Path, within: Path | None) -> str:
    if within is not None:
        try:
            return f"run store: {path.relative_to(within)}"
        except ValueError:
            pass
    return str(path)


def _refuse(path: Path, within: Path | None, what: str) -> UnsafeFile:
    return UnsafeFile(path, f"{_shown(path, within)} {what}: remove it")


def _special(path: Path, dir_fd: int | None) -> str:
    """What sits at ``path`` (not followed), for a refusal."""
    try:
        mode = os.lstat(path.name if dir_fd is not None else path, dir_fd=dir_fd).st_mode
    except OSError:
        return "is not a regular file"
    if stat.S_ISLNK(mode):
        return "is a symbolic link, not a file"
    return f"is {_kind(mode)}, not a regular file"


def _parent_fd(path: Path, within: Path | None) -> int | None:
    """An open descriptor of ``path``'s folder with no link between ``within`` and it, or None
    without ``within`` (then only the file's own name is checked)."""
    if within is None:
        return None
    try:
        parts = path.parent.relative_to(within).parts
    except ValueError:
        return None
    flags = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(within, flags)
    here = within
    try:
        for part in parts:
            here = here / part
            try:
                nxt = os.open(part, flags | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR):
                    link = os.path.islink(here)
                    raise _refuse(here, within, "is a symbolic link, not a folder" if link else "is not a folder") from None
                raise
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_fd(path: str | os.PathLike, how: str = "append", *, within: str | os.PathLike | None = None,
            mode: int = 0o644) -> int:
    """An open descriptor of the regular file at ``path`` for ``how`` ("append", "lock", "read",
    "write", "new"; see ``_MODES``), never through a link and never blocking; ``UnsafeFile`` when
    something else sits there. A missing file raises ``FileNotFoundError`` for "read";
    "new" raises ``FileExistsError`` when anything (a link included) has the name."""
    path = Path(path)
    within = Path(within) if within is not None else None
    flags, truncate = _MODES[how]
    flags |= os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    dir_fd = _parent_fd(path, within)
    try:
        try:
            fd = os.open(path.name if dir_fd is not None else path, flags, mode, dir_fd=dir_fd)
        except OSError as e:
            if e.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.ENODEV, errno.ETXTBSY):
                raise _refuse(path, within, _special(path, dir_fd)) from None
            raise
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise _refuse(path, within, f"is {_kind(info.st_mode)}, not a regular file")
            if info.st_nlink > 1:
                raise _refuse(path, within, f"has {info.st_nlink} names (a hard link to another file)")
            os.set_blocking(fd, True)
            if truncate:
                os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
        return fd
    finally:
        if dir_fd is not None:
            os.close(dir_fd)


def open_file(path: str | os.PathLike, how: str = "append", *, within: str | os.PathLike | None = None,
              mode: int = 0o644, binary: bool = False):
    """``open_fd`` as a Python file object (text unless ``binary``)."""
    fd = open_fd(path, how, within=within, mode=mode)
    text = {"append": "a", "lock": "r+", "read": "r", "write": "w", "new": "w"}[how]
    try:
        return os.fdopen(fd, text + ("b" if binary else ""))
    except BaseException:
        os.close(fd)
        raise


def touch(path: str | os.PathLike, *, within: str | os.PathLike | None = None) -> None:
    """Create ``path`` (empty) if missing, never through a link or into a pipe."""
    os.close(open_fd(path, "append", within=within))


def _temp_name(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.urandom(6).hex()}.tmp")


def atomic_write(path: str | os.PathLike, write, *, within: str | os.PathLike | None = None) -> None:
    """Write a file so that readers see the old one or the whole new one, never half of it:
    ``write(f)`` fills a new hidden temp file (mode 0600) in the same folder, created with
    ``O_EXCL`` (a link or anything else planted at its name is never written through; another
    name is drawn), which then replaces ``path`` (a rename replaces a link at ``path`` itself,
    never its target)."""
    path = Path(path)
    for _ in range(16):
        tmp = _temp_name(path)
        try:
            fd = open_fd(tmp, "new", within=within, mode=0o600)
            break
        except FileExistsError:
            continue
    else:
        raise UnsafeFile(path, f"{_shown(path, Path(within) if within else None)}: no free temporary name beside it "
                               "(16 tried)")
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


# ---- trust: a folder or a program that no one else can change --------------------------------
#
# A folder this process executes or unpickles from (numba's cache, a downloaded browser) must be
# one that only this user (or root) can change: else whoever can write it chooses the code that
# runs. The rule, for the path and every folder above it: owned by this user or root, not writable
# by the group or others, not a symbolic link (the path itself; links above it are resolved and
# their targets checked). A folder above with the sticky bit (/tmp) is allowed when root owns it:
# there only an entry's owner can rename or remove it.


def _owner_ok(info: os.stat_result) -> bool:
    return info.st_uid in (os.getuid(), 0)


def unsafe_folder(path: str | os.PathLike, *, create: bool = False) -> str | None:
    """Why the folder ``path`` is not one only this user can change, or None when it is (``create``
    makes it first, mode 0700, when missing). See the rule above."""
    path = Path(os.path.abspath(path))
    try:
        if create:
            path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = os.lstat(path)
    except OSError as e:
        return f"{path}: {e.strerror or e}"
    if stat.S_ISLNK(info.st_mode):
        return f"{path} is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return f"{path} is not a folder"
    return _unsafe_chain(path, info)


def _unsafe_chain(path: Path, info: os.stat_result) -> str | None:
    """The rule for ``path`` (its ``lstat`` is ``info``) and each folder above it (resolved)."""
    if not _owner_ok(info):
        return f"{path} belongs to another user (uid {info.st_uid})"
    if info.st_mode & 0o022:
        return f"{path} can be written by {'others' if info.st_mode & 0o002 else 'its group'} (mode {stat.S_IMODE(info.st_mode):o})"
    for folder in _above(path):
        try:
            up = os.stat(folder)
        except OSError as e:
            return f"{folder}: {e.strerror or e}"
        if not _owner_ok(up):
            return f"{folder} belongs to another user (uid {up.st_uid})"
        if up.st_mode & 0o022 and not (up.st_mode & stat.S_ISVTX and up.st_uid == 0):
            return f"{folder} can be written by {'others' if up.st_mode & 0o002 else 'its group'} (mode {stat.S_IMODE(up.st_mode):o})"
    return None


def _above(path: Path) -> list[Path]:
    real = Path(os.path.realpath(path.parent))
    return [real, *real.parents]


def unsafe_program(path: str | os.PathLike) -> str | None:
    """Why the program at ``path`` could have been put or changed there by someone else, or None:
    it must be an executable regular file (a link is resolved: the file it names is checked) under
    the same rule as ``unsafe_folder``."""
    real = Path(os.path.realpath(path))
    try:
        info = os.stat(real)
    except OSError as e:
        return f"{path}: {e.strerror or e}"
    if not stat.S_ISREG(info.st_mode) or not os.access(real, os.X_OK):
        return f"{path} is not an executable file"
    return _unsafe_chain(real, info)


# ---- arrays: an .npz whose unpacked size is bounded before any array is built -----------------
#
# A zip's members are compressed: a 1 MB file can unpack to gigabytes, and a 500-byte member can
# claim in its .npy header an array of 364 TiB that numpy would try to allocate. ``parse_npz``
# reads each member's header first (numpy.lib.format) and checks, before building anything: the
# size the zip declares for the member and the size the header's shape and dtype give agree, no
# member holds Python objects, and all of them together fit ``budget`` bytes. Then it reads each
# array from at most its declared bytes. A file that lies about a size is a ``DamagedFile``.

MAX_NPZ_MEMBERS = 64


def _npz_damage(name: str, reason: str, kind: type = DamagedFile) -> DamagedFile:
    return kind(name, f"{name} cannot be read: {reason}")


def _mib(n: int) -> str:
    return f"{n / (1 << 20):,.0f} MiB" if n < 1 << 40 else f"{n / (1 << 40):,.0f} TiB"


def npz_members(data: bytes | Any, name: str, budget: int) -> dict[str, tuple[tuple[int, ...], Any, bool, int]]:
    """``{key: (shape, dtype, fortran_order, bytes)}`` of the ``.npz`` in ``data`` (its bytes, or a
    binary file object) from its headers, every size checked against the zip's and ``budget`` (see
    above); ``TooLarge`` or ``WrongSize`` for a size over the budget or a false one, ``DamagedFile``
    for anything else unreadable."""
    try:
        zf = zipfile.ZipFile(io.BytesIO(data) if isinstance(data, (bytes, bytearray)) else data)
        infos = zf.infolist()
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
        raise _npz_damage(name, f"not a .npz file ({type(e).__name__})") from None
    if len(infos) > MAX_NPZ_MEMBERS:
        raise _npz_damage(name, f"it has {len(infos):,} arrays, more than {MAX_NPZ_MEMBERS}")
    out, total = {}, 0
    with zf:
        for info in infos:
            key = info.filename.removesuffix(".npy")
            total += info.file_size
            if total > budget:
                raise _npz_damage(name, f"it unpacks to more than {_mib(budget)} (at {key!r}: {_mib(total)}), "
                                        f"more than it may hold: damaged", TooLarge)
            try:
                with zf.open(info) as f:
                    version = np.lib.format.read_magic(f)
                    if version not in ((1, 0), (2, 0), (3, 0)):
                        raise ValueError(f"npy format {version}")
                    read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                            else np.lib.format.read_array_header_2_0)
                    shape, fortran, dtype = read(f)
                    header = f.tell()
            except (zipfile.BadZipFile, OSError, ValueError, EOFError, SyntaxError, TypeError, RuntimeError,
                    NotImplementedError) as e:  # RuntimeError: encrypted; NotImplementedError: a compression
                raise _npz_damage(name, f"{key!r} has no readable array header ({type(e).__name__})") from None
            if dtype.hasobject:
                raise _npz_damage(name, f"{key!r} holds Python objects (never unpickled)")
            if dtype.itemsize == 0:
                raise _npz_damage(name, f"{key!r} holds values of no size ({dtype})")
            count = 1
            for n in shape:
                count *= int(n)
            size = count * dtype.itemsize
            if header + size != info.file_size:
                raise _npz_damage(name, f"{key!r} claims {shape} {dtype} ({_mib(size)}) in its header but the "
                                        f"file holds {info.file_size - header:,} bytes of it: damaged", WrongSize)
            out[key] = (tuple(shape), dtype, fortran, size)
    return out


def parse_npz(data: bytes, name: str, budget: int) -> dict[str, Any]:
    """The arrays of the ``.npz`` in ``data`` (never unpickled), each read only after
    ``npz_members`` checked every size; ``DamagedFile`` naming ``name`` otherwise."""
    members = npz_members(data, name, budget)
    arrays = {}
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            for info in zf.infolist():
                key = info.filename.removesuffix(".npy")
                with zf.open(info) as f:  # reads at most the declared size, then checks the CRC
                    arrays[key] = np.lib.format.read_array(f, allow_pickle=False)
                if arrays[key].nbytes != members[key][3]:
                    raise ValueError("size")
    except (zipfile.BadZipFile, OSError, ValueError, EOFError, RuntimeError, NotImplementedError, ArithmeticError,
            MemoryError) as e:
        raise _npz_damage(name, f"not a .npz file ({type(e).__name__})") from None
    return arrays


def read_npz(path: str | os.PathLike, limit: int, budget: int, *, name: str | None = None) -> dict[str, Any]:
    """The arrays of the ``.npz`` at ``path``: a regular file of at most ``limit`` bytes
    (``read_bytes``) whose arrays unpack to at most ``budget`` bytes (``parse_npz``)."""
    return parse_npz(read_bytes(path, limit), name or Path(path).name, budget)


def parse_npy(data: bytes, name: str, budget: int) -> Any:
    """The array of the ``.npy`` in ``data`` (never unpickled), built only after its header's shape
    and dtype were checked against the bytes there are and ``budget``; ``DamagedFile`` otherwise."""
    f = io.BytesIO(data)
    try:
        version = np.lib.format.read_magic(f)
        read = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, _, dtype = read(f)
    except (OSError, ValueError, EOFError, SyntaxError, TypeError) as e:
        raise _npz_damage(name, f"no readable array header ({type(e).__name__})") from None
    if dtype.hasobject or dtype.itemsize == 0:
        raise _npz_damage(name, f"it holds {'Python objects' if dtype.hasobject else 'values of no size'} ({dtype})")
    size = dtype.itemsize
    for n in shape:
        size *= int(n)
    if size > budget or f.tell() + size != len(data):
        raise _npz_damage(name, f"it claims {tuple(shape)} {dtype} ({_mib(size)}) in its header but holds "
                                f"{len(data) - f.tell():,} bytes: damaged", WrongSize)
    f.seek(0)
    try:
        return np.lib.format.read_array(f, allow_pickle=False)
    except (OSError, ValueError, EOFError, ArithmeticError, MemoryError) as e:
        raise _npz_damage(name, f"not a .npy file ({type(e).__name__})") from None
