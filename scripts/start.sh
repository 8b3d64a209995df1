#!/usr/bin/env bash
# Set up (idempotent) and start the FedQuad Lab dashboard.
#   bash scripts/start.sh                  one user, on http://127.0.0.1:${PORT:-8501} (this machine only)
#   bash scripts/start.sh --class          a lecture room: served on all addresses; prints the presenter's
#                                          link (a fresh secret) and the students' link and QR code, once
#                                          the server answers with its first page warm
#   bash scripts/start.sh --class --host ADDR   serve on ADDR only (the links name it)
#   bash scripts/start.sh --class --max-sessions N   at most N browsers at once (default 60)
#   FEDQUAD_LINK_HOST=ADDR bash scripts/start.sh --class   the links name ADDR (default: hostname -I's first)
set -euo pipefail
cd "$(dirname "$0")/.."
CLASS=0
HOST=""
MAX_SESSIONS=""
while [ $# -gt 0 ]; do
  case "$1" in
    --class) CLASS=1 ;;
    --host) [ $# -ge 2 ] || { echo "start.sh: --host needs an address" >&2; exit 2; }; HOST="$2"; shift ;;
    --host=*) HOST="${1#--host=}" ;;
    --max-sessions) [ $# -ge 2 ] || { echo "start.sh: --max-sessions needs a number" >&2; exit 2; }; MAX_SESSIONS="$2"; shift ;;
    --max-sessions=*) MAX_SESSIONS="${1#--max-sessions=}" ;;
    -h|--help) sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "start.sh: unknown option $1 (use --class, --host ADDR, --max-sessions N; PORT=... for the port)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$MAX_SESSIONS" ] && [ "$CLASS" = 0 ]; then
  echo "start.sh: --max-sessions caps a class: add --class" >&2; exit 2
fi
MAX_SESSIONS=${MAX_SESSIONS:-60}
if ! [[ "$MAX_SESSIONS" =~ ^[0-9]{1,5}$ ]] || [ "$MAX_SESSIONS" -lt 1 ]; then
  echo "start.sh: --max-sessions takes a whole number from 1 to 99999, not '$MAX_SESSIONS'" >&2; exit 2
fi
if [ -n "$HOST" ] && [ "$CLASS" = 0 ]; then
  echo "start.sh: --host serves other machines: add --class (students get no write controls)" >&2; exit 2
fi
# the dashboard's run store ($FEDQUAD_RUNS_DIR, default runs): never the file system's root or a
# kernel folder (the CLI's --runs-dir rule), never empty; refused in one line before any work
if [ -n "${FEDQUAD_RUNS_DIR+x}" ] && [ -z "$FEDQUAD_RUNS_DIR" ]; then
  echo "start.sh: FEDQUAD_RUNS_DIR is set but empty: name a folder for the run store, or unset it (default runs)" >&2; exit 2
fi
RUNS_REAL=$(realpath -m -- "${FEDQUAD_RUNS_DIR:-runs}")
case "$RUNS_REAL" in
  /) echo "start.sh: FEDQUAD_RUNS_DIR='$FEDQUAD_RUNS_DIR' is the file system's root: runs would be written beside /etc and /usr" >&2; exit 2;;
  /proc|/proc/*|/sys|/sys/*|/dev|/dev/*) echo "start.sh: FEDQUAD_RUNS_DIR='$FEDQUAD_RUNS_DIR' is in a kernel folder ($RUNS_REAL): choose a folder of your own" >&2; exit 2;;
esac
bash scripts/setup.sh
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
ADDRESS=127.0.0.1 SHOWN=127.0.0.1
if [ "$CLASS" = 1 ]; then
  # the links wait in the class folder (0700) until scripts/serve.py sees the port answer
  read -r SECRET_FILE CODE SHOWN LINKS_FILE < <(.venv/bin/python scripts/class_links.py --host "$HOST" \
    --port "${PORT:-8501}" --defer)
  export FEDQUAD_CLASS_SECRET_FILE="$SECRET_FILE" FEDQUAD_CLASS_CODE="$CODE" FEDQUAD_CLASS_MAX_SESSIONS="$MAX_SESSIONS"
  export FEDQUAD_LINKS_FILE="$LINKS_FILE"
  ADDRESS=${HOST:-0.0.0.0}
fi
# scripts/serve.py: streamlit run, the links printed once the port answers, plus one headless visit of the opening page as soon as the server
# answers (the first browser then finds the app's modules imported and the opening figures built).
# Nothing leaves the machine: browser.serverAddress is the address the links name (Streamlit's banner
# names it instead of looking up this machine's public address on the internet), and serve.py turns
# Streamlit's address look-ups off (docs/reliability.md)
exec .venv/bin/python scripts/serve.py app/main.py --server.address "$ADDRESS" --server.port "${PORT:-8501}" \
  --browser.serverAddress "$SHOWN" --server.fileWatcherType none --server.headless true
