#!/usr/bin/env bash
# Runs test_history.py in the build folder's environment, installing the pinned group
# 'history' first (PyPI), as scripts/history does.
set -euo pipefail
root=$1
source "$root/scripts/lib/venv.sh"
ensure_venv history > /dev/null
exec "$ARENAREF_VENV/bin/python" "$root/tests/report/test_history.py" "$root"
