#!/usr/bin/env bash
# The executorch group's Python (torch and executorch, pinned), in a venv of its own beside the
# build venv (build/venv-executorch, or $ARENAREF_EXECUTORCH_VENV): about 5.9 GiB, installed on
# first use, never in the shared build/venv. workloads/runtimes (common) and
# workloads/runtimes/executorch (et_capture) are on its path.
#   scripts/lib/executorch_python.sh ARGS...      (as python: -m et_capture, SCRIPT.py, -c ...)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/scripts/lib/venv.sh"
ARENAREF_VENV=${ARENAREF_EXECUTORCH_VENV:-$(dirname "$ARENAREF_VENV")/venv-executorch}
export ARENAREF_VENV
if ! ensure_venv executorch; then
  echo "arenaref: cannot install torch and executorch into $ARENAREF_VENV" >&2
  exit 2
fi
export PYTHONPATH="$root/workloads/runtimes:$root/workloads/runtimes/executorch${PYTHONPATH:+:$PYTHONPATH}"
exec "$ARENAREF_VENV/bin/python" -W ignore "$@"
