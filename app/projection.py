"""2-D pictures of a snapshot's embeddings: PCA (instant), UMAP (slow, cached on disk next to
the run, computed by a detached background process), and Procrustes alignment so consecutive
rounds do not spin or mirror.

UMAP never runs in the Streamlit script thread: numba compiles UMAP for 10-40 s in every new
process. A page calls ``umap_cached`` and, when that is None, ``request_umap``, then shows PCA
while ``umap_pending`` is true.

    <run_dir>/embeddings/umap_round_NNNN.npy        the cached (n, 2) float32 layout
    <run_dir>/embeddings/.umap_round_NNNN.pending   pid of the process computing it
    <run_dir>/embeddings/.umap_round_NNNN.log       that process's output (kept on failure)
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

from fedquad_core.store import atomic_write, pid_alive

REPO_ROOT = Path(__file__).resolve().parents[1]
NUMBA_CACHE = Path.home() / ".cache" / "fedquad-numba"
UMAP_PARAMS = dict(n_neighbors=15, min_dist=0.1, random_state=0, n_jobs=1)
CLAIM_GRACE_S = 30.0  # a marker without a pid yet is "being started" for this long


def pca_2d(z) -> np.ndarray:
    """(n, 2) float32 PCA projection; each axis signed so its largest loading is positive."""
    from sklearn.decomposition import PCA

    z = np.asarray(z, dtype=np.float64).reshape(len(z), -1)
    out = np.zeros((len(z), 2), dtype=np.float32)
    k = min(2, z.shape[1], max(len(z) - 1, 0))
    if k == 0:
        return out
    pca = PCA(n_components=k, svd_solver="full").fit(z)
    signs = np.sign(pca.components_[np.arange(k), np.abs(pca.components_).argmax(axis=1)])
    out[:, :k] = pca.transform(z) * np.where(signs == 0, 1, signs)
    return out


def procrustes_align(xy, ref) -> np.ndarray:
    """``xy`` rotated / reflected / uniformly scaled and shifted onto ``ref`` (rows correspond).

    Orthogonal Procrustes: R = U V^T from the SVD of X^T Y of the centred sets, scale
    trace(S) / ||X||^2. ``ref`` None returns ``xy`` unchanged.
    """
    xy = np.asarray(xy, dtype=np.float64)
    if ref is None:
        return xy.astype(np.float32)
    ref = np.asarray(ref, dtype=np.float64)
    if xy.shape != ref.shape:
        raise ValueError(f"procrustes_align needs corresponding points: {xy.shape} vs {ref.shape}")
    mx, mr = xy.mean(axis=0), ref.mean(axis=0)
    x, r = xy - mx, ref - mr
    norm = float((x ** 2).sum())
    if norm == 0.0:
        return np.broadcast_to(mr, xy.shape).astype(np.float32)
    u, s, vt = np.linalg.svd(x.T @ r)
    return ((s.sum() / norm) * x @ (u @ vt) + mr).astype(np.float32)


def _files(run_dir, round_: int) -> tuple[Path, Path, Path, Path]:
    folder = Path(run_dir) / "embeddings"
    stem = f"umap_round_{int(round_):04d}"
    return (folder / f"round_{int(round_):04d}.npz", folder / f"{stem}.npy",
            folder / f".{stem}.pending", folder / f".{stem}.log")


def umap_cached(run_dir, round_: int) -> np.ndarray | None:
    """The cached UMAP layout of that snapshot, or None."""
    try:
        return np.load(_files(run_dir, round_)[1], allow_pickle=False)
    except (OSError, ValueError):
        return None


def umap_pending(run_dir, round_: int) -> bool:
    """True while a live process is computing that layout (stale markers are ignored)."""
    marker = _files(run_dir, round_)[2]
    try:
        text, age = marker.read_text().strip(), time.time() - marker.stat().st_mtime
    except OSError:
        return False
    if not text:
        return age < CLAIM_GRACE_S
    return text.isdigit() and pid_alive(int(text))


def request_umap(run_dir, round_: int) -> bool:
    """Start the background UMAP job for that snapshot; True if one was started now.

    Nothing is started when the layout is cached, the snapshot is missing, or a job is pending.
    """
    npz, cache, marker, log = _files(run_dir, round_)
    if cache.exists() or not npz.exists() or umap_pending(run_dir, round_):
        return False
    for _ in range(2):
        try:  # claim: of two sessions asking at once, one creates the marker and starts the job
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            break
        except FileExistsError:
            if umap_pending(run_dir, round_):
                return False
            marker.unlink(missing_ok=True)  # stale: its process died
    else:
        return False
    env = {**os.environ, "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}
    env.setdefault("NUMBA_CACHE_DIR", str(NUMBA_CACHE))
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app.projection", str(Path(run_dir).resolve()), str(int(round_))],
            cwd=REPO_ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    atomic_write(marker, lambda f: f.write(str(proc.pid).encode()))
    threading.Thread(target=proc.wait, daemon=True).start()  # reap it: no zombie left behind
    return True


def compute_umap(z: np.ndarray) -> np.ndarray:
    """UMAP of ``z`` to 2-D with the fixed parameters (PCA below 4 points, where UMAP cannot work)."""
    if len(z) < 4:
        return pca_2d(z)
    import umap

    params = {**UMAP_PARAMS, "n_neighbors": min(UMAP_PARAMS["n_neighbors"], len(z) - 1)}
    return umap.UMAP(**params).fit_transform(np.asarray(z, dtype=np.float32)).astype(np.float32)


def _compute_and_cache(run_dir: str, round_: int) -> Path:
    npz, cache, marker, _ = _files(run_dir, round_)
    try:
        with np.load(npz, allow_pickle=False) as data:
            z = data["embeddings"]
        xy = compute_umap(z)
        atomic_write(cache, lambda f: np.save(f, xy))
        return cache
    finally:
        if marker.exists() and marker.read_text().strip() in ("", str(os.getpid())):
            marker.unlink(missing_ok=True)


def _claim(run_dir, round_: int) -> bool:
    """Mark a snapshot as being computed by this process; False if cached or taken."""
    _, cache, marker, _ = _files(run_dir, round_)
    if cache.exists():
        return False
    try:
        fd = os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False
    with os.fdopen(fd, "w") as f:
        f.write(str(os.getpid()))
    return True


def compute_remaining(run_dir: str, near: int) -> list[int]:
    """Cache the UMAP of every other snapshot of the run, nearest rounds first.

    Numba's compile costs 10-40 s per process while one fit of 2,000 points takes about a
    second, so the process that was started for one round does the whole run (and the rounds
    a still-running run adds meanwhile) before it exits."""
    done: list[int] = []
    while True:
        folder = Path(run_dir) / "embeddings"
        rounds = sorted((int(p.stem.split("_")[1]) for p in folder.glob("round_*.npz")), key=lambda r: abs(r - near))
        todo = [r for r in rounds if r not in done and _claim(run_dir, r)]
        if not todo:
            return done
        for r in todo:
            _compute_and_cache(run_dir, r)
            done.append(r)


def _warm() -> float:
    t0 = time.perf_counter()
    compute_umap(np.random.default_rng(0).normal(size=(64, 8)).astype(np.float32))
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.projection", description=__doc__.split("\n\n")[0])
    parser.add_argument("run_dir", nargs="?")
    parser.add_argument("round", nargs="?", type=int)
    parser.add_argument("--warm", action="store_true", help="compile UMAP's numba code once on tiny data")
    args = parser.parse_args(argv)
    if args.warm:
        print(f"UMAP warm-up took {_warm():.1f} s", flush=True)
        return 0
    if args.run_dir is None or args.round is None:
        parser.error("give RUN_DIR and ROUND, or --warm")
    t0 = time.perf_counter()
    path = _compute_and_cache(args.run_dir, args.round)
    print(f"wrote {path} in {time.perf_counter() - t0:.1f} s", flush=True)
    more = compute_remaining(args.run_dir, args.round)
    print(f"also cached rounds {more} in {time.perf_counter() - t0:.1f} s in all", flush=True)
    return 0


if __name__ == "__main__":
    os.environ.setdefault("NUMBA_CACHE_DIR", str(NUMBA_CACHE))  # before umap imports numba
    sys.exit(main())
