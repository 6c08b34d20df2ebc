#!/usr/bin/env bash
# scripts/slurm-local start, a 2-task array per host kind (features kindA, kindB), stop. Success
# is each task's own file (with proctrack/cgroup a job that never ran still reads COMPLETED 0:0),
# and after stop no PID of DIR/daemons.stopped may run (zombies count as gone: /proc/PID/stat).
set -euo pipefail
root=$1
source "$root/scripts/lib/slurm.sh"
ensure_slurm_packages || { echo "SKIP: cannot install ${ARENAREF_SLURM_PACKAGES[*]}"; exit 77; }
dir=$(mktemp -d /tmp/arenaref-slurm-test.XXXXXX)
trap '"$root/scripts/slurm-local" stop "$dir" || true; rm -rf "$dir"' EXIT
begin=$(date +%s%N)
eval "$("$root/scripts/slurm-local" start "$dir" --features kindA,kindB)"
[ -f "$SLURM_CONF" ] || { echo "FAIL: no SLURM_CONF"; exit 1; }
mkdir -p "$dir/out"
jobs=()
for kind in kindA kindB; do
  jobs+=("$(sbatch --parsable --array=0-1 --constraint="$kind" -o "$dir/out/$kind-%a.log" \
    --wrap "echo \$SLURM_ARRAY_TASK_ID $kind > $dir/out/$kind-\$SLURM_ARRAY_TASK_ID.done")")
done
sbatch --parsable --constraint=nosuchkind --wrap true > /dev/null 2>&1 \
  && { echo "FAIL: sbatch accepted a feature the node lacks"; exit 1; }
for _ in $(seq 600); do
  [ -z "$(squeue -h -j "$(IFS=,; echo "${jobs[*]}")" 2> /dev/null)" ] && break
  sleep 0.1
done
for kind in kindA kindB; do
  for task in 0 1; do
    grep -qx "$task $kind" "$dir/out/$kind-$task.done" \
      || { echo "FAIL: task $task of $kind wrote no result"; cat "$dir/out/$kind-$task.log" "$dir/log/slurmd.log" 2>/dev/null | tail -20; exit 1; }
  done
done
"$root/scripts/slurm-local" stop "$dir"
while read -r name pid start; do
  state=$(sed 's/.*) //' "/proc/$pid/stat" 2> /dev/null | cut -d' ' -f1 || true)
  [ -z "$state" ] || [ "$state" = Z ] || { echo "FAIL: $name ($pid) still runs (state $state)"; exit 1; }
done < "$dir/daemons.stopped"
echo "ok: start, 2 arrays x 2 tasks by feature, stop in $(( ($(date +%s%N) - begin) / 1000000 )) ms"
