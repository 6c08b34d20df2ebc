#!/usr/bin/env bash
# tests/arena/consumers/run.sh LIBRARY.so VENV: installs the pinned group "consumers"
# (scripts/lib/requirements/consumers.txt: numpy, pyarrow, usearch) into the virtual
# environment VENV through scripts/lib/venv.sh, then runs test_consumers.py on the shared
# library. VENV is the build folder's own for this group (venv-consumers), so it never races
# another group's install. Exit: 0 pass, 1 fail (install or test), 2 bad input.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; esac
[ $# -eq 2 ] || { echo "run.sh: need LIBRARY.so and VENV (try --help)" >&2; exit 2; }
[ -f "$1" ] || { echo "run.sh: no shared library at '$1'" >&2; exit 2; }
export ARENAREF_VENV=$2
# shellcheck source=../../../scripts/lib/venv.sh
source "$here/../../../scripts/lib/venv.sh"
ensure_venv consumers || { echo "run.sh: could not install the consumers group" >&2; exit 1; }
exec "$ARENAREF_VENV/bin/python" "$here/test_consumers.py" "$1"
