#!/usr/bin/env bash
# check_zoo.py with the build venv's Python (where scripts/tflite-plan installed LiteRT).
# Usage: check_zoo.sh TFLITE_PLAN ARENACERT DIR
set -euo pipefail
source "$(dirname "$0")/../../scripts/lib/venv.sh"
exec "$ARENAREF_VENV/bin/python" "$(dirname "$0")/check_zoo.py" "$@"
