#!/usr/bin/env bash
# The build venv's Python with the pinned groups named, installed on first use, quietly.
#   venv_python.sh ROOT GROUPS SCRIPT.py ARGS...     (GROUPS: comma-separated, e.g. tflite,xla)
set -euo pipefail
root=$1 groups=$2; shift 2
source "$root/scripts/lib/venv.sh"
ensure_venv ${groups//,/ } || { echo "bugs: cannot install $groups into $ARENAREF_VENV" >&2; exit 1; }
export JAX_PLATFORMS=cpu TF_CPP_MIN_LOG_LEVEL=2
exec "$ARENAREF_VENV/bin/python" "$@"
