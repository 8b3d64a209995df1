#!/usr/bin/env bash
# Idempotent set-up for a fresh Debian machine with Python 3.11:
# system packages via apt (only those missing), a .venv, the Python requirements and the package.
# Safe to run any number of times; re-installs only when requirements.txt or pyproject.toml changed.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
PY=${PYTHON:-python3}

need_apt=()
command -v chromium >/dev/null 2>&1 || need_apt+=(chromium)
command -v pdftoppm >/dev/null 2>&1 || need_apt+=(poppler-utils)  # the deck tests render PDF pages
[ -d /usr/share/datasets/fashion-mnist ] || dpkg -s dataset-fashion-mnist >/dev/null 2>&1 || need_apt+=(dataset-fashion-mnist)
"$PY" -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
if [ ${#need_apt[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  echo "setup: installing system packages: ${need_apt[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# a first install writes about 7 GB (torch and its CUDA libraries): said in one line before any of it
NEED_GB=7
if [ ! -f .venv/.fedquad-installed ]; then
  free_kb=$(df --output=avail -k . | tail -n 1 | tr -d ' ')
  if [ "$free_kb" -lt $((NEED_GB * 1024 * 1024)) ]; then
    echo "setup: $((free_kb / 1024 / 1024)) GB free on the disk of $ROOT; the Python packages (torch and its CUDA libraries) need about $NEED_GB GB: free some space and run this again" >&2
    exit 1
  fi
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.fedquad-installed
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing Python packages into .venv (torch takes about 2 minutes the first time)"
  log=.venv/setup.log
  if ! { .venv/bin/python -m pip install --upgrade pip &&
         .venv/bin/python -m pip install -r requirements.txt &&
         .venv/bin/python -m pip install --no-deps -e .; } >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "setup: pip install failed; the whole log is in $log" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
  echo "setup: done"
fi
