#!/usr/bin/env bash
# The build venv's Python with jax and IREE's compiler (the groups scripts/iree-plan installs),
# jax on the CPU, quietly.
#   venv_python.sh ROOT SCRIPT.py ARGS...
set -euo pipefail
root=$1; shift
source "$root/scripts/lib/venv.sh"
ensure_venv xla xla-penzai iree
export JAX_PLATFORMS=cpu TF_CPP_MIN_LOG_LEVEL=2
exec "$ARENAREF_VENV/bin/python" "$@"
