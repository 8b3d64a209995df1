"""``fedquad export html``: the command, registered in ``pyproject.toml`` as the entry point
``export`` of the group ``fedquad.commands`` (``fedquad_core/cli/plugins.py`` reads it; the engine
names no app module). Imports only argparse until it runs: ``fedquad --help`` loads this module."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

DEFAULT_OUT = "fedquad-takehome.html"


class ExportCommand:
    help = "write the Lesson and Explore as one offline HTML file (export html)"

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        sub = parser.add_subparsers(dest="export_format", required=True, metavar="FORMAT")
        p = sub.add_parser("html", help="one self-contained .html file: the Lesson's steps and Explore over recorded "
                                        "studies, every slider position, no server and no network",
                           description="Write one self-contained .html file: the Lesson's nine steps and Explore "
                                       "over recorded studies (every slider position), drawn in the browser from "
                                       "the recorded runs; it opens from a USB stick or an e-mail, offline.")
        p.add_argument("--study", action="append", metavar="NAME",
                       help="a recorded study for Explore (repeat for more; default: the study Explore opens first "
                            "and the Lesson's)")
        p.add_argument("--out", default=DEFAULT_OUT, metavar="FILE", help=f"the file to write (default ./{DEFAULT_OUT})")
        p.add_argument("--recorded", metavar="DIR", help="the recorded studies' folder (default $FEDQUAD_RECORDED_DIR, "
                                                         "else assets/recorded)")

    def run(self, args: argparse.Namespace) -> int:
        try:
            out = check_out(Path(args.out))
            if args.recorded:
                root = Path(args.recorded)
                if not (root / "studies").is_dir():
                    raise ValueError(f"--recorded {args.recorded}: no studies/ folder there (a recorded root holds "
                                     "studies/ and the runs)")
                os.environ["FEDQUAD_RECORDED_DIR"] = str(root)
            t0 = time.perf_counter()
            # the dashboard's figure and lesson code (plotly, pandas, Streamlit's caches: ~2 s of
            # imports), only when a file is written, not for ``fedquad --help``
            from app.export.takehome.make import write
            built = write(out, args.study)
        except ValueError as e:  # bad input (ExportError is one): one line, before any work
            print(f"fedquad: error: {e}", file=sys.stderr)
            return 2
        except OSError as e:
            print(f"fedquad: error: {out}: {e.strerror or e}", file=sys.stderr)
            return 2
        for line in built.damaged:
            print(f"fedquad: left out, damaged: {line}", file=sys.stderr)
        mb = out.stat().st_size / 1e6
        print(f"wrote {out} ({mb:.1f} MB: {built.figures} figures stored for {built.figures_added} shown, "
              f"{built.positions} Explore positions, {len(built.data['lesson'])} lesson steps) in "
              f"{time.perf_counter() - t0:.1f} s")
        for part, size in built.sizes.items():
            print(f"  {part}: {size / 1e6:.2f} MB")
        return 0


def check_out(out: Path) -> Path:
    """``--out`` a file in an existing, writable folder (not a folder itself)."""
    if out.is_dir():
        raise ValueError(f"--out {out} is a folder: name the file to write, e.g. {out / DEFAULT_OUT}")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"--out {out}: the folder {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"--out {out}: the folder {parent} is not writable")
    return out


COMMAND = ExportCommand()


def main(argv: list[str] | None = None) -> int:
    """``python -m app.export.takehome html ...``."""
    parser = argparse.ArgumentParser(prog="python -m app.export.takehome", description=COMMAND.help)
    COMMAND.add_arguments(parser)
    return COMMAND.run(parser.parse_args(argv))
