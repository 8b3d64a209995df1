"""A queued background run waits for its slot here, without loading torch.

The launcher starts each run as ``python -m fedquad_core.runs.slot_wait ROOT SLOTS RUN_ID -- CMD...``.
This small process is the queued run (its pid is in status.json, its state 'queued'); once it
locks one of the ``SLOTS`` slot files it execs ``CMD`` in the same process (same pid), passing
the locked file down as ``FEDQUAD_SLOT_FD``: the kernel frees the slot when the run ends, however
it ends. A cancel while waiting (the cancel file ``fedquad cancel`` writes, SIGTERM or
Ctrl-C) ends the run 'cancelled' without starting it. A slot file that is a link or a pipe
(``safe_io.UnsafeFile``) ends it 'failed' with that one line. Eight queued runs cost eight small
processes, not eight copies of torch.
"""
from __future__ import annotations

import os
import signal
import sys
import time

from .. import safe_io
from .launcher import acquire_slot
from .store import RunStore

SLOT_FD = "FEDQUAD_SLOT_FD"


def main(argv: list[str]) -> int:
    root, slots, run_id, sep, *cmd = argv
    if sep != "--" or not cmd:
        print("usage: python -m fedquad_core.runs.slot_wait ROOT SLOTS RUN_ID -- CMD...", file=sys.stderr)
        return 2
    writer = RunStore(root).writer(run_id)
    stop = {"signal": None}

    def handler(signum, frame):
        stop["signal"] = signal.Signals(signum).name

    for sig in (signal.SIGUSR1, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, handler)
    try:
        slot = acquire_slot(root, int(slots), should_stop=lambda: bool(stop["signal"]) or writer.cancel_requested())
    except safe_io.DamagedFile as e:  # a link or a pipe planted at a slot file: the run fails, named
        writer.set_status("failed", round=0, ended=time.time(), error=str(e))
        print(f"fedquad: error: {e}", file=sys.stderr)
        return 2
    if slot is None:
        writer.set_status("cancelled", round=0, ended=time.time(), stopped_by=stop["signal"])
        return 0
    for sig in (signal.SIGUSR1, signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, signal.SIG_DFL)
    os.set_inheritable(slot.fileno(), True)
    os.environ[SLOT_FD] = str(slot.fileno())
    os.execv(cmd[0], cmd)  # does not return


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
