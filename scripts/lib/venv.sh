# Shared by the scripts that need Python packages from PyPI: one virtual environment under the
# build folder (build/venv, or $ARENAREF_VENV), made with Debian's python3, never system-wide.
# Each group is a pinned requirements file in scripts/lib/requirements/GROUP.txt, installed once
# (a stamp per group records the file's digest, so editing a pin reinstalls). A line
# "# arenaref-pip-options: --no-deps" in a group file adds pip options for that group. Sourced.
#   source scripts/lib/venv.sh; ensure_venv tflite consumers; "$ARENAREF_VENV/bin/python" ...
#   venv_has xla || echo "not installed"        (checks, installs nothing)
_arenaref_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ARENAREF_VENV=${ARENAREF_VENV:-$_arenaref_root/build/venv}
export ARENAREF_VENV

# Tests run in parallel (ctest -j) and several of them call ensure_venv on one fresh build folder:
# creating the venv and pip-installing into it are done under one lock file beside the venv, so
# the second caller waits and then finds the work done (two `python3 -m venv` on one folder fail).
ensure_venv() {
  local lock fd rc
  mkdir -p "$(dirname "$ARENAREF_VENV")"
  lock="$ARENAREF_VENV.lock"
  exec {fd}>>"$lock" || { echo "arenaref: cannot open the lock $lock" >&2; return 1; }
  flock "$fd" || { exec {fd}>&-; echo "arenaref: cannot lock $lock" >&2; return 1; }
  rc=0
  _arenaref_ensure_venv_locked "$@" || rc=$?
  exec {fd}>&-
  return "$rc"
}

_arenaref_ensure_venv_locked() {
  local group req stamp digest options clear
  if [ ! -x "$ARENAREF_VENV/bin/python" ]; then
    if ! /usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null; then
      source "$_arenaref_root/scripts/lib/deps.sh"
      ensure_packages python3-venv
    fi
    echo "arenaref: creating the Python environment $ARENAREF_VENV" >&2
    # A venv left half made (an earlier creation was killed) is cleared and made again.
    clear=()
    [ -f "$ARENAREF_VENV/pyvenv.cfg" ] && clear=(--clear)
    /usr/bin/python3 -m venv "${clear[@]}" "$ARENAREF_VENV" || { echo "arenaref: python3 -m venv $ARENAREF_VENV failed" >&2; return 1; }
  fi
  for group in "$@"; do
    req="$_arenaref_root/scripts/lib/requirements/$group.txt"
    [ -f "$req" ] || { echo "arenaref: no requirements group '$group' ($req)" >&2; return 2; }
    digest=$(sha256sum "$req" | cut -c1-16)
    stamp="$ARENAREF_VENV/.arenaref-$group-$digest"
    [ -f "$stamp" ] && continue
    echo "arenaref: installing Python group '$group' into $ARENAREF_VENV" >&2
    options=$(sed -n 's/^# arenaref-pip-options: //p' "$req")
    # shellcheck disable=SC2086
    "$ARENAREF_VENV/bin/python" -m pip install --disable-pip-version-check -q $options -r "$req" \
      || { echo "arenaref: pip install -r $req failed" >&2; return 1; }
    rm -f "$ARENAREF_VENV/.arenaref-$group-"*
    touch "$stamp"
  done
}

# Whether every group named is installed already (as ensure_venv left it), installing nothing.
venv_has() {
  local group req
  [ -x "$ARENAREF_VENV/bin/python" ] || return 1
  for group in "$@"; do
    req="$_arenaref_root/scripts/lib/requirements/$group.txt"
    [ -f "$req" ] && [ -f "$ARENAREF_VENV/.arenaref-$group-$(sha256sum "$req" | cut -c1-16)" ] || return 1
  done
}
