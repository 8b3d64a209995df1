"""A warm start for background runs: one process per run store that has imported the engine once
(torch, scikit-learn, the methods, the data loaders, the optimizer's first-step imports) and forks
each launched run from there, so a run starts training without the seconds a fresh Python spends
importing them (``benchmarks/demo_first_point.py``; docs/performance.md).

The dashboard starts it (``launcher.ensure_warm_server``, after its first page); by hand:
``python -m fedquad_core.prefork ROOT [--parent PID] [--idle-exit SECONDS]``. The server is
``prefork.server`` (it imports the engine and runs the CLI's ``run``, so it stands above the CLI);
the launcher's side of the socket (``request``, ``server_alive``, the file names) is in
``fedquad_core.runs.launcher``, which the CLI imports.

- **One per store**: it holds an exclusive ``flock`` on ``ROOT/.prefork.lock`` for its whole
  life and listens on the Unix socket ``ROOT/.prefork.sock`` (owner-only; a peer of another user
  is refused). A second server finds the lock taken and exits before importing anything.
- **What a request does**: ``{"run_id": ...}`` for a run the launcher just created (state
  ``queued``, no process yet). The server forks; the child starts its own session, sends its output
  to the run's ``log.txt`` and runs ``fedquad run --run-id`` exactly as ``slot_wait`` would have
  exec'd it (slot, claim, cancel file, signals: the same code). The server writes the child's pid
  into ``status.json`` before the child may start, then answers ``{"pid": ...}``.
- **When it refuses** (the launcher then starts the run the usual way): a run that is not
  queued or already has a process, a malformed request, a request older than the launcher waits
  for an answer (``ANSWER_S``), or a server that is not single-threaded (forking a threaded process
  is not safe). A launch while the server is still importing waits for it (``READY_WAIT_S``); an
  answer lost to a time-out is looked for in status.json, where the server writes the pid first:
  a run is never started twice.
- **When it exits**: when its parent is gone, after ``--idle-exit`` seconds without a request,
  or when its socket file is removed. The runs it started are in their own sessions and go on.
- **Same numbers**: a forked run computes what a fresh process computes (the preload runs no torch
  operation and seeds nothing; tests/engine/prefork/test_prefork.py compares the metrics of both).
"""
