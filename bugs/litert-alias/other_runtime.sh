#!/usr/bin/env bash
# The same models on tflite-runtime 2.14.0 (TensorFlow Lite's last standalone wheel for Python
# 3.11), in a venv of its own (it needs numpy 1.x): build/venv-tflite-runtime, group
# tflite-runtime. Prints that venv's Python, installing it on first use (about 20 MB).
#   other_runtime.sh ROOT
set -euo pipefail
root=$1
ARENAREF_VENV=$root/build/venv-tflite-runtime
source "$root/scripts/lib/venv.sh"
ensure_venv tflite-runtime >&2 || { echo "bugs: cannot install tflite-runtime" >&2; exit 1; }
echo "$ARENAREF_VENV/bin/python"
