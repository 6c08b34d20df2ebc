# Shared by scripts/test and scripts/bench: install the Debian packages the build needs, only
# those missing, with apt-get (through sudo when not root). Sourced, not run.
ARENAREF_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libhwloc-dev hwloc libjansson-dev libudev-dev
  libbenchmark-dev libbenchmark-tools
  libmimalloc-dev libjemalloc-dev libdlpack-dev
  clang python3 python3-scipy python3-venv gnuplot-nox valgrind
)

ensure_packages() {
  local missing=() p
  for p in "${ARENAREF_PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "arenaref: installing missing packages: ${missing[*]}" >&2
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}
