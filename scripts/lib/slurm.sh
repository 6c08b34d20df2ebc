# Slurm and munge from Debian for scripts/slurm-local and its test. Sourced, not run. Not in
# deps.sh's list: only the cluster test and slurm-local need them, and every CI run would pay
# for them. The packages enable (and on a systemd machine start) their services on install;
# a local cluster starts its own daemons, so the install holds them back with a policy-rc.d
# for its duration and the boot links are removed afterwards.
ARENAREF_SLURM_PACKAGES=(slurmctld slurmd slurm-client munge)

ensure_slurm_packages() {
  local here missing=0 p sudo="" made_policy=0
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  for p in "${ARENAREF_SLURM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing=1
  done
  [ "$missing" = 0 ] && return 0
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\n# arenaref: no service starts during this install\nexit 101\n' \
      | $sudo tee /usr/sbin/policy-rc.d > /dev/null && $sudo chmod 755 /usr/sbin/policy-rc.d && made_policy=1
  fi
  # shellcheck source=deps.sh
  source "$here/deps.sh"
  local status=0
  ensure_packages "${ARENAREF_SLURM_PACKAGES[@]}" || status=$?
  [ "$made_policy" = 1 ] && $sudo rm -f /usr/sbin/policy-rc.d
  [ "$status" = 0 ] || return "$status"
  for p in munge slurmctld slurmd; do
    if command -v systemctl > /dev/null && [ -d /run/systemd/system ]; then
      $sudo systemctl disable --now "$p" > /dev/null 2>&1 || true
    fi
    [ -e "/etc/init.d/$p" ] && { $sudo update-rc.d -f "$p" remove > /dev/null 2>&1 || true; }
  done
  return 0
}
